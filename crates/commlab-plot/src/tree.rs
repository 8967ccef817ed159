//! The classic binomial-tree picture (`docs/reduce-model.md`): one
//! vertical line per unit, inputs at the bottom, one row per parallel step,
//! active and inactive units styled differently, combine edges, current
//! values. The message-passing variant draws the same edges as arrows
//! labelled send/recv.

use crate::svg::Svg;
use crate::Theme;
use commlab_core::reduce::values::{Snapshot, ValueTrace};
use commlab_core::reduce::{Phase, Schedule};

/// Above this many drawn units the view shows a summary instead: at 32 units
/// each column is still ≥ 26 px wide on an 860 px drawing, room for a node and
/// a short value; beyond that labels overlap and the picture stops teaching.
pub const TREE_DRAW_LIMIT: u32 = 32;

/// Above this many units, values are written on the current row only.
const ALL_ROW_VALUES_LIMIT: u32 = 16;

/// A short label of round `round` for the row header (`reduce k=1`, `bcast k=0`).
pub fn round_label(schedule: &Schedule, round: usize) -> String {
    let r = &schedule.rounds[round];
    let distance = r.messages.first().map_or(0, |m| m.from.abs_diff(m.to));
    let k = if distance == 0 { 0 } else { distance.trailing_zeros() };
    match r.phase {
        Phase::Reduce => format!("reduce k={k}"),
        Phase::Broadcast => format!("bcast k={k}"),
        Phase::FoldIn => "fold in".into(),
        Phase::Exchange => format!("xor {}", r.messages.first().map_or(0, |m| m.from ^ m.to)),
        Phase::FoldOut => "fold out".into(),
        Phase::Pipeline => format!("step {}", round + 1),
    }
}

/// A vector as a short label: `7`, `3,5,1`, `3,5,…`.
fn short_vector(items: &[String]) -> String {
    if items.len() <= 3 {
        items.join(",")
    } else {
        format!("{},{},…", items[0], items[1])
    }
}

/// Inputs of [`tree_svg`].
pub struct TreePicture<'a> {
    /// The collective's schedule.
    pub schedule: &'a Schedule,
    /// Its values.
    pub trace: &'a ValueTrace,
    /// Rounds completed (0 shows the inputs).
    pub step: usize,
    /// Arrows with send/recv labels instead of PRAM combine edges.
    pub message_passing: bool,
    /// The width to draw for, in px: columns narrow to fit it, and the
    /// labels that would then overlap are thinned or left out.
    pub width: f64,
}

/// The tree picture as an SVG document.
///
/// # Panics
/// When the schedule has more than [`TREE_DRAW_LIMIT`] drawn units or `step`
/// exceeds its rounds (the view checks both).
pub fn tree_svg(picture: &TreePicture<'_>, theme: &Theme) -> String {
    let TreePicture { schedule, trace, step, message_passing, width } = *picture;
    let units = schedule.drawn_units;
    assert!(units <= TREE_DRAW_LIMIT, "tree_svg draws at most {TREE_DRAW_LIMIT} units");
    let rounds = schedule.rounds.len();
    assert!(step <= rounds, "step beyond the last round");
    // Row labels ("reduce k=1") take the left column: 92 px, or 74 at 11 px on narrow drawings.
    let (left, label_size) = if width < crate::NARROW.into() { (74.0, 11.0) } else { (92.0, 12.0) };
    let col = ((width.min(888.0) - left - 16.0) / f64::from(units)).clamp(4.0, 100.0);
    let (top, row) = (26.0, 62.0);
    let width = left + col * f64::from(units) + 16.0;
    // What fits a column: a value of up to five monospace characters at 11 px
    // (6.6 px each), unit names two columns apart at most once every 26 px.
    // The values shown (rows up to the step), to see whether the widest fits
    // a column at 11 px monospace (6.6 px a character).
    let snapshots: Vec<Snapshot> = (0..=step).map(|r| trace.after(r)).collect();
    let widest = snapshots
        .iter()
        .flat_map(|s| (0..units as usize).map(move |u| short_vector(&trace.vector_text(s, u)).chars().count()))
        .max()
        .unwrap_or(1);
    let values_fit = widest as f64 * 6.6 <= col - 2.0;
    let name_every = (26.0 / col).ceil().max(1.0) as u32;
    // Node radius: 7 px, smaller where columns are narrower than 18 px.
    let radius = (col * 0.4).min(7.0);
    // A line under the names says where the values went when they do not fit.
    let note = if values_fit { 0.0 } else { 18.0 };
    let height = top + row * rounds as f64 + 58.0 + note;
    let x = |u: u32| left + col * (f64::from(u) + 0.5);
    let y = |r: usize| top + row * (rounds - r) as f64;
    let title = format!("Binomial tree, {units} units, step {step} of {rounds}");
    let mut svg = Svg::new(width, height, theme.background, &title);

    // Current row band.
    svg.rect((4.0, y(step) - row * 0.42), (width - 8.0, row * 0.84), theme.primary, r#"opacity="0.10" rx="6""#);

    // Which units are inactive after each round (reduce semantics).
    let mut inactive_after = vec![vec![false; units as usize]; rounds + 1];
    for (r, round) in schedule.rounds.iter().enumerate() {
        let (done, next) = inactive_after.split_at_mut(r + 1);
        next[0].clone_from(&done[r]);
        for &u in &round.deactivated {
            inactive_after[r + 1][u as usize] = true;
        }
    }

    for r in 0..=rounds {
        let future = r > step;
        if future {
            svg.group(r#"opacity="0.18""#);
        }
        let label = if r == 0 { "inputs".to_owned() } else { round_label(schedule, r - 1) };
        svg.text((8.0, y(r) + 4.0), &label, label_size, theme.foreground, "start", r#"font-weight="600""#);
        if r > 0 {
            let labels = values_fit && units <= ALL_ROW_VALUES_LIMIT;
            draw_edges(
                &mut svg,
                schedule,
                r,
                &inactive_after,
                (message_passing, labels, radius),
                units,
                theme,
                (&x, &y),
            );
        }
        for u in 0..units {
            let virtual_unit = schedule.is_virtual(u);
            let inactive = inactive_after[r][u as usize];
            let defined = snapshots.get(r).is_none_or(|s| s.defined[u as usize]);
            let (fill, stroke) = match (virtual_unit, inactive || !defined) {
                (true, _) => (None, theme.grid),
                (false, true) => (None, theme.foreground),
                (false, false) => (Some(theme.primary), theme.primary),
            };
            let dash = if virtual_unit { r#"stroke-dasharray="3 2""# } else { "" };
            svg.circle((x(u), y(r)), radius, fill, stroke, dash);
            let show_value = values_fit && !future && !inactive && (units <= ALL_ROW_VALUES_LIMIT || r == step);
            if show_value {
                let text =
                    if defined { short_vector(&trace.vector_text(&snapshots[r], u as usize)) } else { "—".into() };
                svg.text((x(u), y(r) + 21.0), &text, 11.0, theme.foreground, "middle", r#"font-family="monospace""#);
            }
        }
        if future {
            svg.end_group();
        }
    }
    for u in (0..units).filter(|u| u % name_every == 0) {
        let name = if schedule.is_virtual(u) { format!("({u})") } else { format!("p{u}") };
        let color = if schedule.is_virtual(u) { theme.grid } else { theme.foreground };
        svg.text((x(u), height - 10.0 - note), &name, 12.0, color, "middle", "");
    }
    if !values_fit {
        svg.text((8.0, height - 8.0), "Values: in the table below.", 11.0, theme.foreground, "start", "");
    }
    svg.finish()
}

/// Edges from row `r − 1` to row `r`: the unit lines of units still in play and
/// the messages of round `r − 1`.
#[expect(clippy::too_many_arguments, reason = "one drawing pass with its layout closures")]
fn draw_edges(
    svg: &mut Svg,
    schedule: &Schedule,
    r: usize,
    inactive_after: &[Vec<bool>],
    (message_passing, labels, radius): (bool, bool, f64),
    units: u32,
    theme: &Theme,
    (x, y): (&dyn Fn(u32) -> f64, &dyn Fn(usize) -> f64),
) {
    for u in 0..units {
        if !inactive_after[r - 1][u as usize] {
            let dash = if schedule.is_virtual(u) { r#"stroke-dasharray="3 3""# } else { "" };
            let color = if inactive_after[r][u as usize] { theme.grid } else { theme.foreground };
            svg.line((x(u), y(r - 1) - radius), (x(u), y(r) + radius), color, 1.2, dash);
        }
    }
    let round = &schedule.rounds[r - 1];
    for m in &round.messages {
        let virtual_message = schedule.is_virtual(m.from) || schedule.is_virtual(m.to);
        let color = if virtual_message { theme.grid } else { theme.reference };
        let (from, to) = ((x(m.from), y(r - 1)), (x(m.to), y(r)));
        let dash = if virtual_message { r#" stroke-dasharray="4 3""# } else { "" };
        if message_passing {
            svg.line(from, shorten(from, to, radius + 2.0), color, 2.0, &format!(r#"marker-end="url(#arrow)"{dash}"#));
            if labels {
                let at = |t: f64| (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
                let (sx, sy) = at(0.22);
                let (rx, ry) = at(0.78);
                svg.text((sx + 4.0, sy), "send", 11.0, color, "start", "");
                svg.text((rx + 4.0, ry + 4.0), if m.combine { "recv ⊕" } else { "recv" }, 11.0, color, "start", "");
            }
        } else {
            svg.line(from, to, color, 2.0, dash);
            if m.combine {
                svg.text((to.0 + 10.0, to.1 - 8.0), "⊕", 13.0, color, "start", "");
            }
        }
    }
}

/// The point `by` pixels before `to` on the segment `from → to` (arrowheads
/// end at the node's rim, not its centre).
fn shorten(from: (f64, f64), to: (f64, f64), by: f64) -> (f64, f64) {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = dx.hypot(dy).max(1e-9);
    (to.0 - dx / len * by, to.1 - dy / len * by)
}

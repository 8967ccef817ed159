//! The schedule timeline as a [`Scene`]: ranks as rows (each with a lane
//! per CPU and per NIC side), time as x; busy spans as bars, messages as
//! lines from the send to the arrival, the critical path drawn over them.
//! The same scene is painted on the page's canvas and written as SVG.
//!
//! Inputs are the flat arrays of `commlab_api::schedule::Timeline` (bars of
//! 6 values: rank, lane, start, end, kind, op; messages of 8: from, to,
//! start, arrived, matched, send op, receive op, bytes).

use crate::mesh::{Scene, Shape};
use crate::Theme;
use plotters::style::RGBColor;

/// Values per bar.
const BAR: usize = 6;
/// Values per message.
const MESSAGE: usize = 8;
/// Height of one lane (px).
pub const LANE: f64 = 7.0;
/// Space between ranks (px).
pub const RANK_GAP: f64 = 5.0;
/// Left margin for the rank labels (px).
pub const LEFT: f64 = 64.0;
/// Top margin (px).
pub const TOP: f64 = 8.0;
/// Bottom margin for the time axis (px).
pub const BOTTOM: f64 = 34.0;
/// Right margin (px): room for half of the last tick's label.
pub const RIGHT: f64 = 28.0;

/// What is drawn and where.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Lanes per rank (CPUs, then two per NIC).
    pub lanes: u32,
    /// CPUs per rank.
    pub cpus: u32,
    /// First rank shown.
    pub first_rank: u32,
    /// Ranks shown.
    pub ranks: u32,
    /// Time window `[t0, t1)` (ns).
    pub t0: f64,
    /// End of the window.
    pub t1: f64,
    /// Width of the drawing (px).
    pub width: f64,
    /// How times are written (the simulator's ticks are ns unless a link says otherwise).
    pub unit: TimeUnit,
    /// Ranks on hosts: those from here on are `NVSwitch` ranks, one per node
    /// (NVLS; `u32::MAX`: none).
    pub hosts: u32,
}

/// A row's name: `rank r`, or a switch rank's (`NVSwitch 0`; in full, as
/// hover text, `NVSwitch of node 0`).
pub fn rank_name(rank: u32, hosts: u32, full: bool) -> String {
    match rank.checked_sub(hosts) {
        Some(node) if full => format!("NVSwitch of node {node}"),
        Some(node) => format!("NVSwitch {node}"),
        None => format!("rank {rank}"),
    }
}

/// Columns of a painted timeline and where they show a moved window
/// ([`Layout::carry`]), in CSS px.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Carry {
    /// Plot columns of the painting.
    pub from: (f64, f64),
    /// Where they go in the window shown now.
    pub to: (f64, f64),
}

/// How the simulator's integer ticks are shown.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeUnit {
    /// One tick is a nanosecond (LogGOPSim's unit).
    Ns,
    /// One unit `u` (the unit the Chooser's α and β are given in) is this many ticks.
    Ticks(f64),
}

impl TimeUnit {
    /// `t` ticks written in this unit: `12.5 µs`, or `3 281.2 u`.
    pub fn format(self, t: f64) -> String {
        match self {
            TimeUnit::Ns => format_ns(t),
            TimeUnit::Ticks(k) => format!("{} u", crate::format_quantity(t / k)),
        }
    }

    /// Ticks per unit shown (1 for ns).
    pub fn ticks(self) -> f64 {
        match self {
            TimeUnit::Ns => 1.0,
            TimeUnit::Ticks(k) => k,
        }
    }

    /// A round axis step of about `raw` ticks, round in the unit shown.
    pub fn step(self, raw: f64) -> f64 {
        nice_step(raw / self.ticks()) * self.ticks()
    }
}

impl Layout {
    /// Height of one rank's row.
    pub fn row(&self) -> f64 {
        f64::from(self.lanes) * LANE + RANK_GAP
    }

    /// Height of the drawing.
    pub fn height(&self) -> f64 {
        TOP + f64::from(self.ranks) * self.row() + BOTTOM
    }

    /// x of time `t`.
    pub fn x(&self, t: f64) -> f64 {
        LEFT + (t - self.t0) / (self.t1 - self.t0).max(1e-9) * (self.width - LEFT - RIGHT)
    }

    /// Time at x.
    pub fn time(&self, x: f64) -> f64 {
        self.t0 + (x - LEFT) / (self.width - LEFT - RIGHT).max(1.0) * (self.t1 - self.t0)
    }

    /// Centre y of `lane` of `rank` (`None` when the rank is not shown).
    pub fn y(&self, rank: u32, lane: u32) -> Option<f64> {
        let k = rank.checked_sub(self.first_rank).filter(|&k| k < self.ranks)?;
        Some(TOP + f64::from(k) * self.row() + (f64::from(lane) + 0.5) * LANE)
    }

    /// How a drawing painted for `self` shows `now` until `now` is painted:
    /// the plot's columns `from` (px of this drawing) are stretched onto
    /// `to` (px of `now`), the margins stay, the rest of the plot is blank.
    /// `None` when more than the time window changed (other ranks, width or
    /// unit): then only a new painting shows it.
    pub fn carry(&self, now: &Layout) -> Option<Carry> {
        let same = Layout { t0: now.t0, t1: now.t1, ..*self } == *now;
        if !same || now.t1 <= now.t0 || self.t1 <= self.t0 {
            return None;
        }
        let (a, b) = (self.t0.max(now.t0), self.t1.min(now.t1));
        if a >= b {
            return Some(Carry { from: (LEFT, LEFT), to: (LEFT, LEFT) });
        }
        Some(Carry { from: (self.x(a), self.x(b)), to: (now.x(a), now.x(b)) })
    }

    /// `(rank, lane)` under y.
    pub fn lane_at(&self, y: f64) -> Option<(u32, u32)> {
        let k = ((y - TOP) / self.row()).floor();
        if k < 0.0 || k >= f64::from(self.ranks) {
            return None;
        }
        let within = y - TOP - k * self.row();
        let lane = (within / LANE).floor();
        (lane < f64::from(self.lanes)).then(|| (self.first_rank + k as u32, lane as u32))
    }
}

/// Colour of a bar kind (0 send, 1 arrival, 2 calc, 3 NIC out, 4 NIC in).
pub fn bar_color(kind: u32, theme: &Theme) -> RGBColor {
    match kind {
        0 => theme.primary,
        1 => theme.best,
        2 => theme.grid,
        3 => theme.reference,
        _ => theme.optimum,
    }
}

/// Names of the bar kinds, for legends and hover text.
pub const BAR_NAMES: [&str; 5] = ["send overhead", "taking in a message", "calc", "NIC sending", "NIC receiving"];

/// Draws the timeline. `on_path[op]` marks the critical path's ops (may be
/// empty); `focus` is an op to outline. Bars and messages outside the
/// window or the shown ranks are left out; bars narrower than a pixel are
/// summed per pixel column, which shows the kind busy longest in it.
/// A bar's outline `(x0, x1, y, focused)`: the focused op's, or a stretch of the critical path.
type Outline = (f64, f64, f64, bool);

/// The critical path's colour.
const CRITICAL: RGBColor = RGBColor(200, 30, 45);

/// Draws the timeline. `on_path[op]` marks the critical path's ops (may be
/// empty); `focus` is an op to outline. Bars and messages outside the
/// window or the shown ranks are left out; bars narrower than a pixel are
/// summed per pixel column, which shows the kind busy longest in it. Drawn
/// in paint order: rows, the time axis, bars, messages, outlines.
pub fn scene(
    layout: &Layout,
    bars: &[f64],
    messages: &[f64],
    on_path: &[bool],
    focus: Option<u32>,
    theme: &Theme,
    title: &str,
) -> Scene {
    let mut shapes = Vec::new();
    let path = |op: f64| on_path.get(op as usize).copied().unwrap_or(false);
    rank_rows(layout, theme, &mut shapes);
    time_axis(layout, theme, &mut shapes);
    let highlighted = bar_shapes(layout, bars, &path, focus, theme, &mut shapes);
    message_lines(layout, messages, &path, theme, &mut shapes);
    outlines(highlighted, theme, &mut shapes);
    Scene {
        width: layout.width,
        height: layout.height(),
        background: theme.background,
        shapes,
        title: title.to_owned(),
    }
}

/// A window time's x clipped to the plotting area, and whether a span shows.
fn window(layout: &Layout) -> (impl Fn(f64) -> f64 + '_, impl Fn(f64, f64) -> bool + '_) {
    let right = layout.width - RIGHT;
    (move |x: f64| x.clamp(LEFT, right), move |start: f64, end: f64| end >= layout.t0 && start <= layout.t1)
}

fn rank_rows(layout: &Layout, theme: &Theme, shapes: &mut Vec<Shape>) {
    let right = layout.width - RIGHT;
    // Rank rows: label and a faint baseline per lane group.
    for k in 0..layout.ranks {
        let r = layout.first_rank + k;
        let top = TOP + f64::from(k) * layout.row();
        shapes.push(Shape::Line {
            from: (LEFT, top + f64::from(layout.lanes) * LANE + RANK_GAP / 2.0),
            to: (right, top + f64::from(layout.lanes) * LANE + RANK_GAP / 2.0),
            color: theme.grid,
            width: 0.5,
            dashed: false,
            opacity: 1.0,
        });
        shapes.push(Shape::Text {
            at: (LEFT / 2.0, top + f64::from(layout.lanes) * LANE / 2.0 + 4.0),
            text: rank_name(r, layout.hosts, false),
            size: 11.0,
            color: theme.foreground,
        });
    }
}

fn time_axis(layout: &Layout, theme: &Theme, shapes: &mut Vec<Shape>) {
    let right = layout.width - RIGHT;
    let bottom = layout.height() - BOTTOM;
    // Time axis with about eight ticks, fewer on a narrow drawing (a label every 110 px at most).
    let span = (layout.t1 - layout.t0).max(1.0);
    let step = layout.unit.step(span / ((right - LEFT) / 110.0).clamp(3.0, 8.0));
    let mut t = (layout.t0 / step).ceil() * step;
    while t <= layout.t1 + step * 1e-9 {
        let x = layout.x(t);
        shapes.push(Shape::Line {
            from: (x, TOP),
            to: (x, bottom),
            color: theme.grid,
            width: 0.5,
            dashed: true,
            opacity: 0.7,
        });
        shapes.push(Shape::Text {
            at: (x, bottom + 14.0),
            text: layout.unit.format(t),
            size: 11.0,
            color: theme.foreground,
        });
        t += step;
    }
    shapes.push(Shape::Text {
        at: (f64::midpoint(LEFT, right), bottom + 29.0),
        text: "time".into(),
        size: 11.0,
        color: theme.foreground,
    });
}

/// The bars (drawn into `shapes`) and the outlines to draw over everything.
fn bar_shapes(
    layout: &Layout,
    bars: &[f64],
    path: &dyn Fn(f64) -> bool,
    focus: Option<u32>,
    theme: &Theme,
    shapes: &mut Vec<Shape>,
) -> Vec<Outline> {
    let (clip, visible) = window(layout);
    // Outlines: the focused op's bars, and the critical path's CPU bars
    // merged where they touch on a lane (one outline per stretch, not per op).
    let mut highlighted = Vec::new();
    let mut path_runs: Vec<Option<(f64, f64, f64)>> = vec![None; (layout.ranks * layout.lanes) as usize];
    // Level of detail: a bar a pixel or wider is drawn as itself; narrower
    // bars add their time to the pixel column they start in, per kind, and
    // the column is drawn in the kind busy longest there. Touching segments of
    // one colour on a lane are one shape. A zoomed-out run of 10^5 ops is then
    // at most one shape per pixel column and lane, and usually a few per lane.
    let mut lanes: Vec<LaneRuns> = vec![LaneRuns::default(); (layout.ranks * layout.lanes) as usize];
    let mut segments = Vec::new();
    for b in bars.chunks_exact(BAR) {
        let (rank, lane, start, end, kind, op) = (b[0] as u32, b[1] as u32, b[2], b[3], b[4] as u32, b[5]);
        let Some(y) = layout.y(rank, lane) else { continue };
        if !visible(start, end) {
            continue;
        }
        let (x0, x1) = (clip(layout.x(start)), clip(layout.x(end)));
        let on = path(op) && lane < layout.cpus;
        let at = ((rank - layout.first_rank) * layout.lanes + lane) as usize;
        let outline_end = (x0 + 1.0).max(x1);
        if focus == Some(op as u32) {
            highlighted.push((x0, outline_end, y, true));
        } else if on {
            match &mut path_runs[at] {
                Some((_, r1, _)) if x0 <= *r1 + 1.0 => *r1 = r1.max(outline_end),
                run => {
                    if let Some((a, b, y)) = run.replace((x0, outline_end, y)) {
                        highlighted.push((a, b, y, false));
                    }
                }
            }
        }
        lanes[at].add(x0, x1, kind.min(KINDS - 1), y, &mut segments);
    }
    for l in &mut lanes {
        l.finish(&mut segments);
    }
    highlighted.extend(path_runs.into_iter().flatten().map(|(a, b, y)| (a, b, y, false)));
    shapes.extend(segments.into_iter().map(|(x0, x1, y, kind)| Shape::Line {
        from: (x0, y),
        to: (x1, y),
        color: bar_color(kind, theme),
        width: LANE - 1.5,
        dashed: false,
        opacity: 1.0,
    }));
    highlighted
}

fn message_lines(
    layout: &Layout,
    messages: &[f64],
    path: &dyn Fn(f64) -> bool,
    theme: &Theme,
    shapes: &mut Vec<Shape>,
) {
    let (clip, visible) = window(layout);
    let critical = CRITICAL;
    // Message lines with the same pixel ends are drawn once.
    let mut drawn = std::collections::HashSet::new();
    for m in messages.chunks_exact(MESSAGE) {
        let (from, to, start, arrived) = (m[0] as u32, m[1] as u32, m[2], m[3]);
        let (Some(y0), Some(y1)) = (layout.y(from, 0), layout.y(to, 0)) else { continue };
        if !visible(start, arrived) {
            continue;
        }
        let on = path(m[5]) && path(m[6]);
        // Clipped to the plotting area (a message may start or end outside the window).
        let (xa, xb) = (layout.x(start), layout.x(arrived));
        let at = |x: f64| if (xb - xa).abs() < 1e-9 { y0 } else { y0 + (y1 - y0) * (x - xa) / (xb - xa) };
        let (ca, cb) = (clip(xa), clip(xb));
        if !drawn.insert((ca.round() as i64, at(ca).round() as i64, cb.round() as i64, at(cb).round() as i64, on)) {
            continue;
        }
        shapes.push(Shape::Line {
            from: (ca, at(ca)),
            to: (cb, at(cb)),
            color: if on { critical } else { theme.foreground },
            width: if on { 1.6 } else { 0.6 },
            dashed: false,
            opacity: if on { 1.0 } else { 0.45 },
        });
    }
}

fn outlines(highlighted: Vec<Outline>, theme: &Theme, shapes: &mut Vec<Shape>) {
    let critical = CRITICAL;
    for (x0, x1, y, focused) in highlighted {
        let h = LANE / 2.0;
        let color = if focused { theme.foreground } else { critical };
        for (a, b) in [
            ((x0, y - h), (x1, y - h)),
            ((x0, y + h), (x1, y + h)),
            ((x0, y - h), (x0, y + h)),
            ((x1, y - h), (x1, y + h)),
        ] {
            shapes.push(Shape::Line {
                from: a,
                to: b,
                color,
                width: if focused { 2.0 } else { 1.4 },
                dashed: false,
                opacity: 1.0,
            });
        }
    }
}

/// Bar kinds ([`bar_color`]'s range).
const KINDS: u32 = 5;

/// One lane's bars reduced to drawn segments `(x0, x1, y, kind)`.
#[derive(Debug, Clone, Copy, Default)]
struct LaneRuns {
    /// The pixel column collecting sub-pixel bars, its row, and the time (px) per kind in it.
    column: Option<(f64, f64, [f64; KINDS as usize])>,
    /// The segment being extended.
    run: Option<(f64, f64, f64, u32)>,
}

impl LaneRuns {
    /// Adds a bar from `x0` to `x1` (px, in time order on its lane).
    fn add(&mut self, x0: f64, x1: f64, kind: u32, y: f64, out: &mut Vec<(f64, f64, f64, u32)>) {
        if x1 - x0 >= 1.0 {
            self.flush_column(out);
            self.extend(x0, x1, y, kind, out);
            return;
        }
        let column = x0.floor();
        if self.column.is_some_and(|(c, _, _)| c != column) {
            self.flush_column(out);
        }
        let (_, _, time) = self.column.get_or_insert((column, y, [0.0; KINDS as usize]));
        // A zero-length bar still counts (it is what the column holds when nothing else is).
        time[kind as usize] += (x1 - x0).max(1e-6);
    }

    /// Draws the collecting column in its longest kind.
    fn flush_column(&mut self, out: &mut Vec<(f64, f64, f64, u32)>) {
        if let Some((column, y, time)) = self.column.take() {
            let kind =
                (0..KINDS).max_by(|&a, &b| time[a as usize].total_cmp(&time[b as usize]).then(b.cmp(&a))).unwrap_or(0);
            self.extend(column, column + 1.0, y, kind, out);
        }
    }

    fn extend(&mut self, x0: f64, x1: f64, y: f64, kind: u32, out: &mut Vec<(f64, f64, f64, u32)>) {
        match &mut self.run {
            Some((_, r1, _, k)) if *k == kind && x0 <= *r1 + 1.0 => *r1 = r1.max(x1),
            run => {
                if let Some(done) = run.replace((x0, x1, y, kind)) {
                    out.push(done);
                }
            }
        }
    }

    fn finish(&mut self, out: &mut Vec<(f64, f64, f64, u32)>) {
        self.flush_column(out);
        out.extend(self.run.take());
    }
}

/// A round tick step (1, 2 or 5 × 10^k) near `raw`.
pub fn nice_step(raw: f64) -> f64 {
    let raw = raw.max(1e-9);
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    p * if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    }
}

/// Nanoseconds in the unit that reads best: `850 ns`, `12.5 µs`, `3.2 ms`, `1.5 s`.
pub fn format_ns(t: f64) -> String {
    let (v, unit) = if t.abs() >= 1e9 {
        (t / 1e9, "s")
    } else if t.abs() >= 1e6 {
        (t / 1e6, "ms")
    } else if t.abs() >= 1e3 {
        (t / 1e3, "µs")
    } else {
        (t, "ns")
    };
    let text = format!("{v:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

/// A histogram of per-rank finish times as a scene: `counts` per bin of
/// `bin_width` ticks from `min` (the view shows it above the timeline's limit).
pub fn histogram(
    counts: &[u64],
    (min, bin_width): (f64, f64),
    unit: TimeUnit,
    width: f64,
    theme: &Theme,
    title: &str,
) -> Scene {
    let height = 240.0;
    let (left, right, top, bottom) = (56.0, width - 12.0, 10.0, height - 40.0);
    let most = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let mut shapes = Vec::new();
    let bw = (right - left) / counts.len().max(1) as f64;
    for (i, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let x = left + (i as f64 + 0.5) * bw;
        let y = bottom - c as f64 / most * (bottom - top);
        shapes.push(Shape::Line {
            from: (x, bottom),
            to: (x, y),
            color: theme.primary,
            width: (bw - 1.0).max(1.0),
            dashed: false,
            opacity: 1.0,
        });
    }
    shapes.push(Shape::Line {
        from: (left, bottom),
        to: (right, bottom),
        color: theme.foreground,
        width: 1.0,
        dashed: false,
        opacity: 1.0,
    });
    let end = min + bin_width * counts.len() as f64;
    // The last label sits inside the drawing (centred on the axis end it would be cut).
    for (x, t) in [(left + 20.0, min), (f64::midpoint(left, right), f64::midpoint(min, end)), (right - 30.0, end)] {
        shapes.push(Shape::Text { at: (x, bottom + 14.0), text: unit.format(t), size: 11.0, color: theme.foreground });
    }
    shapes.push(Shape::Text {
        at: (f64::midpoint(left, right), bottom + 30.0),
        text: "finish time".into(),
        size: 11.0,
        color: theme.foreground,
    });
    shapes.push(Shape::Text {
        at: (left / 2.0, top + 8.0),
        text: format!("{most}"),
        size: 11.0,
        color: theme.foreground,
    });
    shapes.push(Shape::Text { at: (left / 2.0, bottom), text: "0".into(), size: 11.0, color: theme.foreground });
    shapes.push(Shape::Text {
        at: (left / 2.0, f64::midpoint(top, bottom)),
        text: "ranks".into(),
        size: 11.0,
        color: theme.foreground,
    });
    Scene { width, height, background: theme.background, shapes, title: title.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_maps_time_and_lanes_both_ways() {
        let l = Layout {
            lanes: 3,
            cpus: 1,
            first_rank: 2,
            ranks: 4,
            t0: 1000.0,
            t1: 2000.0,
            width: 1076.0,
            unit: TimeUnit::Ns,
            hosts: u32::MAX,
        };
        assert!((l.x(1000.0) - LEFT).abs() < 1e-9);
        assert!((l.x(2000.0) - (1076.0 - RIGHT)).abs() < 1e-9);
        assert!((l.time(l.x(1234.0)) - 1234.0).abs() < 1e-6);
        assert_eq!(l.y(1, 0), None);
        assert_eq!(l.y(6, 0), None);
        let y = l.y(3, 2).unwrap();
        assert_eq!(l.lane_at(y), Some((3, 2)));
    }

    #[test]
    fn ticks_and_units_read_well() {
        assert_eq!(nice_step(0.9e3), 1e3);
        assert_eq!(nice_step(2.7e3), 2e3);
        assert_eq!(nice_step(4.0), 5.0);
        assert_eq!(format_ns(850.0), "850 ns");
        assert_eq!(format_ns(12_500.0), "12.5 µs");
        assert_eq!(format_ns(3_200_000.0), "3.2 ms");
        // 1 u = 1000 ticks (the Chooser's textbook α = 1, β = 0.001 → G = 1 tick).
        let u = TimeUnit::Ticks(1000.0);
        assert_eq!(u.format(3_281_190.0), "3281 u");
        assert_eq!(u.format(12_345_000.0), "12\u{2009}345 u");
        assert_eq!(u.format(1500.0), "1.5 u");
        assert_eq!(u.step(2.7e6), 2e6, "a round step in u");
        assert_eq!(TimeUnit::Ns.step(2.7e3), 2e3);
    }

    #[test]
    fn touching_bars_of_one_colour_become_one_shape() {
        let l = Layout {
            lanes: 1,
            cpus: 1,
            first_rank: 0,
            ranks: 1,
            t0: 0.0,
            t1: 1e6,
            width: 600.0,
            unit: TimeUnit::Ns,
            hosts: u32::MAX,
        };
        // 10 000 sends of 50 ns back to back, then a calc: two shapes on the lane.
        let mut bars: Vec<f64> = (0..10_000)
            .flat_map(|i| [0.0, 0.0, f64::from(i) * 50.0, f64::from(i + 1) * 50.0, 0.0, f64::from(i)])
            .collect();
        bars.extend([0.0, 0.0, 600_000.0, 700_000.0, 2.0, 10_000.0]);
        let scene = scene(&l, &bars, &[], &[], None, &Theme::LIGHT, "t");
        let thick: Vec<_> = scene
            .shapes
            .iter()
            .filter(|x| matches!(x, Shape::Line { width, .. } if (*width - (LANE - 1.5)).abs() < 1e-9))
            .collect();
        assert_eq!(thick.len(), 2, "one run of sends, one calc");
        let Shape::Line { from, to, .. } = thick[0] else { unreachable!() };
        // Sub-pixel bars are a pixel wide: the run ends within a pixel of the last send's end.
        assert!(
            (from.0 - l.x(0.0)).abs() < 1e-9 && (to.0 - l.x(500_000.0)).abs() <= 1.0,
            "the run spans every send: {to:?}"
        );
    }

    /// The colour drawn at pixel column `c` of lane 0 (the last segment covering its centre).
    fn colour_at(scene: &Scene, c: f64) -> Option<RGBColor> {
        scene.shapes.iter().rev().find_map(|x| match x {
            Shape::Line { from, to, color, width, .. }
                if (*width - (LANE - 1.5)).abs() < 1e-9 && from.0 <= c + 0.5 && to.0 >= c + 0.5 =>
            {
                Some(*color)
            }
            _ => None,
        })
    }

    #[test]
    fn a_zoomed_out_column_shows_the_kind_busy_longest_in_it() {
        let l = Layout {
            lanes: 1,
            cpus: 1,
            first_rank: 0,
            ranks: 1,
            t0: 0.0,
            t1: 1e6,
            width: 600.0,
            unit: TimeUnit::Ns,
            hosts: u32::MAX,
        };
        let per_px = 1e6 / (600.0 - LEFT - RIGHT);
        // Per pixel column, a short send and a long calc, except in every
        // fifth column, where the send is the longer: sub-pixel bars of both kinds.
        let mut bars = Vec::new();
        let mut longest = Vec::new();
        let mut t = 0.0;
        for c in 0..400 {
            let (send, calc) = if c % 5 == 0 { (0.6, 0.2) } else { (0.1, 0.7) };
            // Starting just inside the column (a start on its edge may round into the one before).
            let s = t + 0.05 * per_px;
            bars.extend([0.0, 0.0, s, s + send * per_px, 0.0, 0.0]);
            bars.extend([0.0, 0.0, s + send * per_px, s + (send + calc) * per_px, 2.0, 1.0]);
            longest.push(if c % 5 == 0 { 0 } else { 2 });
            t += per_px;
        }
        let scene = scene(&l, &bars, &[], &[], None, &Theme::LIGHT, "t");
        for (c, kind) in longest.iter().enumerate() {
            let x = LEFT + c as f64;
            assert_eq!(colour_at(&scene, x), Some(bar_color(*kind, &Theme::LIGHT)), "column {c}");
        }
        let thick = scene
            .shapes
            .iter()
            .filter(|x| matches!(x, Shape::Line { width, .. } if (*width - (LANE - 1.5)).abs() < 1e-9))
            .count();
        assert!(thick <= 2 * 80 + 1, "runs of one kind are merged: {thick} shapes for 800 bars");
    }

    #[test]
    fn the_critical_path_is_outlined_once_per_stretch() {
        let l = Layout {
            lanes: 1,
            cpus: 1,
            first_rank: 0,
            ranks: 1,
            t0: 0.0,
            t1: 1e6,
            width: 600.0,
            unit: TimeUnit::Ns,
            hosts: u32::MAX,
        };
        // 5 000 back-to-back ops on the path, a gap, 10 more.
        let mut bars: Vec<f64> = (0..5000)
            .flat_map(|i| [0.0, 0.0, f64::from(i) * 100.0, f64::from(i + 1) * 100.0, 0.0, f64::from(i)])
            .collect();
        bars.extend((0..10).flat_map(|i| {
            [0.0, 0.0, 8e5 + f64::from(i) * 100.0, 8e5 + f64::from(i + 1) * 100.0, 0.0, 5000.0 + f64::from(i)]
        }));
        let on_path = vec![true; 5010];
        let scene = scene(&l, &bars, &[], &on_path, None, &Theme::LIGHT, "t");
        let outlines = scene
            .shapes
            .iter()
            .filter(|x| matches!(x, Shape::Line { width, .. } if (*width - 1.4).abs() < 1e-9))
            .count();
        assert_eq!(outlines, 2 * 4, "two stretches, four sides each");
    }

    #[test]
    fn a_moved_window_is_shown_from_the_painting_until_repainted() {
        let painted = Layout {
            lanes: 3,
            cpus: 1,
            first_rank: 0,
            ranks: 8,
            t0: 0.0,
            t1: 1000.0,
            width: 1092.0,
            unit: TimeUnit::Ns,
            hosts: u32::MAX,
        };
        // Panned right by a quarter: times 250..1000 were at their x in the painting and move left.
        let panned = Layout { t0: 250.0, t1: 1250.0, ..painted };
        let c = painted.carry(&panned).unwrap();
        for t in [250.0, 600.0, 1000.0] {
            // A time's column in the painting maps linearly onto its column now.
            let x = c.to.0 + (painted.x(t) - c.from.0) * (c.to.1 - c.to.0) / (c.from.1 - c.from.0);
            assert!((x - panned.x(t)).abs() < 1e-9, "t = {t}");
        }
        assert!((c.from.0 - painted.x(250.0)).abs() < 1e-9 && (c.to.0 - LEFT).abs() < 1e-9);
        // Zoomed in around 500: the middle of the painting fills the plot.
        let zoomed = Layout { t0: 400.0, t1: 600.0, ..painted };
        let z = painted.carry(&zoomed).unwrap();
        assert!((z.to.0 - LEFT).abs() < 1e-9 && (z.to.1 - (1092.0 - RIGHT)).abs() < 1e-9);
        assert!((z.from.0 - painted.x(400.0)).abs() < 1e-9 && (z.from.1 - painted.x(600.0)).abs() < 1e-9);
        // Panned past the painting: nothing of it shows.
        let away = painted.carry(&Layout { t0: 5000.0, t1: 6000.0, ..painted }).unwrap();
        assert!(away.to.1 - away.to.0 < 1e-9);
        // Other ranks or another width: a new painting.
        assert_eq!(painted.carry(&Layout { first_rank: 8, ..painted }), None);
        assert_eq!(painted.carry(&Layout { width: 800.0, ..painted }), None);
    }

    #[test]
    fn scene_draws_visible_bars_and_marks_the_path() {
        let l = Layout {
            lanes: 3,
            cpus: 1,
            first_rank: 0,
            ranks: 2,
            t0: 0.0,
            t1: 10_000.0,
            width: 600.0,
            unit: TimeUnit::Ns,
            hosts: u32::MAX,
        };
        // Rank 0 sends (op 0) 0–1500; rank 1 takes it in 4000–5500; a bar of rank 5 is off screen.
        let bars = [0.0, 0.0, 0.0, 1500.0, 0.0, 0.0, 1.0, 0.0, 4000.0, 5500.0, 1.0, 0.0, 5.0, 0.0, 0.0, 1.0, 2.0, 9.0];
        let messages = [0.0, 1.0, 0.0, 4000.0, 4000.0, 0.0, 1.0, 8.0];
        let plain = scene(&l, &bars, &messages, &[], None, &Theme::LIGHT, "t");
        let marked = scene(&l, &bars, &messages, &[true, true], None, &Theme::LIGHT, "t");
        let thick = |s: &Scene| {
            s.shapes
                .iter()
                .filter(|x| matches!(x, Shape::Line { width, .. } if (*width - (LANE - 1.5)).abs() < 1e-9))
                .count()
        };
        assert_eq!(thick(&plain), 2, "two bars on the shown ranks");
        // The path outlines both bars (4 edges each) and draws the message red.
        assert_eq!(marked.shapes.len(), plain.shapes.len() + 8);
    }
}

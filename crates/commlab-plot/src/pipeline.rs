//! The pipeline's space-time diagram: units × steps, each cell showing the
//! piece a unit forwards in that step, and the grouping of the vector's
//! elements into pieces (`docs/reduce-model.md`).

use crate::svg::{escape, Svg};
use crate::Theme;
use commlab_core::reduce::values::piece_range;
use commlab_core::reduce::Schedule;
use plotters::style::RGBColor;

/// Largest diagram drawn cell by cell: 48 units × 120 steps keeps cells ≥ 6 px;
/// larger runs get a summary in the view.
pub const PIPELINE_DRAW_LIMIT: (u32, usize) = (48, 120);

/// Piece colours: light tints of the Okabe–Ito palette, dark text stays readable.
const PIECE_COLORS: [RGBColor; 8] = [
    RGBColor(153, 204, 238),
    RGBColor(245, 205, 128),
    RGBColor(140, 215, 190),
    RGBColor(240, 175, 140),
    RGBColor(225, 180, 210),
    RGBColor(200, 230, 150),
    RGBColor(180, 180, 235),
    RGBColor(230, 225, 140),
];

/// Colour of piece `piece`.
pub fn piece_color(piece: u32) -> RGBColor {
    PIECE_COLORS[piece as usize % PIECE_COLORS.len()]
}

/// The space-time diagram as SVG: `elements` elements grouped into the
/// schedule's pieces, `step` steps done (later ones faded), laid out for a
/// box `width` px wide (cells narrow to fit it; labels that would overlap
/// are thinned or left out).
///
/// # Panics
/// When the schedule exceeds [`PIPELINE_DRAW_LIMIT`].
pub fn pipeline_svg(schedule: &Schedule, elements: usize, step: usize, width: f64, theme: &Theme) -> String {
    let (units, steps) = (schedule.units, schedule.rounds.len());
    assert!(units <= PIPELINE_DRAW_LIMIT.0 && steps <= PIPELINE_DRAW_LIMIT.1, "pipeline_svg: run too large to draw");
    let narrow = width < f64::from(crate::NARROW);
    let (left, strip, top) = (if narrow { 52.0 } else { 86.0 }, 58.0, 90.0);
    let room = width.min(866.0) - left - 20.0;
    let cell_w = (room / steps.max(1) as f64).clamp(1.0, 56.0);
    let cell_h = (380.0 / f64::from(units)).clamp(8.0, 30.0);
    let width = (left + cell_w * steps as f64 + 20.0).max(560.0f64.min(width));
    // The footer: one line, or two on a narrow drawing.
    let footer = [format!("steps 1–{steps} → (p + m − 2 = {steps});"), "rows: unit i forwards to i − 1".to_owned()];
    let footer_lines = if narrow { 2.0 } else { 1.0 };
    let height = top + cell_h * f64::from(units) + 18.0 + 16.0 * footer_lines;
    let title = format!("Pipeline, {units} units, {} pieces, step {step} of {steps}", schedule.pieces);
    let mut svg = Svg::new(width, height, theme.background, &title);
    let dark = RGBColor(20, 20, 20);

    // The vector's elements grouped into pieces.
    svg.text((8.0, 22.0), "vector", 12.0, theme.foreground, "start", r#"font-weight="600""#);
    let box_w = (room.min(560.0) / elements as f64).min(26.0);
    for piece in 0..schedule.pieces {
        let range = piece_range(piece, schedule.pieces, elements);
        for e in range.clone() {
            svg.rect((left + box_w * e as f64, 10.0), (box_w - 2.0, 18.0), piece_color(piece), "");
        }
        if !range.is_empty() && box_w * range.len() as f64 > 16.0 {
            let mid = left + box_w * (range.start + range.end) as f64 / 2.0;
            svg.text((mid, 42.0), &format!("P{piece}"), 11.0, theme.foreground, "middle", "");
        }
    }
    let label = format!(
        "{elements} elements in {} pieces of ≤ {}",
        schedule.pieces,
        elements.div_ceil(schedule.pieces as usize)
    );
    svg.text((left, strip + 4.0), &label, 11.0, theme.foreground, "start", "");

    // Header: step numbers, current column outlined.
    let row_y = |u: u32| top + cell_h * f64::from(units - 1 - u);
    // Step numbers at least 24 px apart.
    let every = ((24.0 / cell_w).ceil() as usize).max(steps / 24).max(1);
    for s in 0..steps {
        let x = left + cell_w * s as f64;
        if s % every == 0 || s + 1 == steps {
            svg.text((x + cell_w / 2.0, top - 8.0), &(s + 1).to_string(), 11.0, theme.foreground, "middle", "");
        }
    }
    let label_every = (units / 16).max(1);
    for u in 0..units {
        if u % label_every == 0 || u + 1 == units {
            svg.text((8.0, row_y(u) + cell_h * 0.7), &format!("p{u}"), 11.0, theme.foreground, "start", "");
        }
        svg.line((left, row_y(u) + cell_h), (left + cell_w * steps as f64, row_y(u) + cell_h), theme.grid, 0.5, "");
    }
    for (s, round) in schedule.rounds.iter().enumerate() {
        let x = left + cell_w * s as f64;
        let faded = if s >= step { r#"opacity="0.2""# } else { "" };
        for m in &round.messages {
            svg.rect((x + 1.0, row_y(m.from) + 1.0), (cell_w - 2.0, cell_h - 2.0), piece_color(m.piece), faded);
            if cell_w >= 24.0 && cell_h >= 14.0 {
                let text_y = row_y(m.from) + cell_h * 0.5 + 4.0;
                svg.text((x + cell_w / 2.0, text_y), &format!("P{}", m.piece), 11.0, dark, "middle", faded);
            }
        }
    }
    if step > 0 {
        let x = left + cell_w * (step - 1) as f64;
        svg.rect(
            (x, top - 2.0),
            (cell_w, cell_h * f64::from(units) + 4.0),
            theme.background,
            &format!(r#"fill-opacity="0" stroke="{}" stroke-width="2""#, escape(&crate::svg::hex(theme.primary))),
        );
    }
    let footer = if narrow { footer.to_vec() } else { vec![footer.join(" ")] };
    for (i, line) in footer.iter().enumerate() {
        let y = height - 10.0 - 16.0 * (footer.len() - 1 - i) as f64;
        svg.text((if narrow { 8.0 } else { left }, y), line, 11.0, theme.foreground, "start", "");
    }
    svg.finish()
}

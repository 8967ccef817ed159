//! CommSwizzle drawings: the reference animation's grid (one row per data
//! index, one column per rank, cells coloured by core with `C{core} S{step}`),
//! the core × step timeline coloured by rank (the Latin-square view), and the
//! collisions per step.

use crate::svg::{hex, Svg};
use crate::Theme;
use commlab_core::swizzle::Schedule;
use plotters::style::RGBColor;

/// Largest grid drawn cell by cell: 64 data rows × 32 ranks keeps cells
/// ≥ 14 px tall on a 900 px drawing; beyond, the view shows numbers only.
pub const GRID_DRAW_LIMIT: (u32, u32) = (64, 32);

/// Largest timeline drawn: 64 cores × 160 steps.
pub const TIMELINE_DRAW_LIMIT: (u32, usize) = (64, 160);

/// Twelve distinguishable fills (Okabe–Ito, then Tol's muted), cycled.
const PALETTE: [RGBColor; 12] = [
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(240, 228, 66),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
    RGBColor(136, 204, 238),
    RGBColor(68, 170, 153),
    RGBColor(153, 153, 51),
    RGBColor(204, 102, 119),
    RGBColor(170, 68, 153),
];

/// Colour of core or rank `i`.
pub fn color(i: u32) -> RGBColor {
    PALETTE[i as usize % PALETTE.len()]
}

/// Dark or light text, whichever reads on `fill`.
fn ink(fill: RGBColor) -> RGBColor {
    let luma = 0.299 * f64::from(fill.0) + 0.587 * f64::from(fill.1) + 0.114 * f64::from(fill.2);
    if luma > 140.0 {
        RGBColor(20, 20, 20)
    } else {
        RGBColor(250, 250, 250)
    }
}

const COLLISION: RGBColor = RGBColor(220, 30, 30);

/// The reference grid after `done` steps (step `done − 1` is current).
///
/// # Panics
/// When the grid exceeds [`GRID_DRAW_LIMIT`].
pub fn grid_svg(schedule: &Schedule, done: usize, theme: &Theme) -> String {
    let grid = schedule.config().grid();
    let (rows, ranks) = (grid.data(), grid.rank);
    assert!(rows <= GRID_DRAW_LIMIT.0 && ranks <= GRID_DRAW_LIMIT.1, "grid_svg: grid too large to draw");
    let nc = schedule.core_count() as usize;
    let cell_w = (760.0 / f64::from(ranks)).clamp(22.0, 84.0);
    let cell_h = (560.0 / f64::from(rows)).clamp(14.0, 30.0);
    let (left, top) = (70.0, 34.0);
    // Wide enough for the legend line under the grid.
    let width = (left + cell_w * f64::from(ranks) + 12.0).max(640.0);
    let height = top + cell_h * f64::from(rows) + 30.0;
    let mut svg = Svg::new(width, height, theme.background, &format!("CommSwizzle grid, step {done} of {}", schedule.steps()));
    svg.text((left, 14.0), "rank →", 11.0, theme.foreground, "start", "");
    for r in 0..ranks {
        svg.text((left + cell_w * (f64::from(r) + 0.5), top - 6.0), &r.to_string(), 11.0, theme.foreground, "middle", "");
    }
    let label_every = (rows / 32).max(1);
    for d in 0..rows {
        if d % label_every == 0 {
            let name = format!("{},{}", d / grid.column, d % grid.column);
            svg.text((left - 6.0, top + cell_h * (f64::from(d) + 0.7)), &name, 10.0, theme.foreground, "end", "");
        }
    }
    // First visit of each cell and how many visits it gets in all.
    let mut first = vec![None::<usize>; (rows * ranks) as usize];
    for i in 0..schedule.loop_count() {
        if let Some(t) = schedule.task(i) {
            first[(t.data * ranks + t.rank) as usize].get_or_insert(i);
        }
    }
    let current = done.checked_sub(1);
    let load = current.map(|s| schedule.rank_load(s)).unwrap_or_default();
    let labels = cell_w >= 40.0 && cell_h >= 14.0;
    for d in 0..rows {
        for r in 0..ranks {
            let (x, y) = (left + cell_w * f64::from(r), top + cell_h * f64::from(d));
            let visits = schedule.visits(d, r);
            let Some(i) = first[(d * ranks + r) as usize] else {
                // Never visited: a missed cell of a non-bijective mapping.
                svg.rect((x + 1.0, y + 1.0), (cell_w - 2.0, cell_h - 2.0), theme.background, &format!(r#"stroke="{}" stroke-width="2""#, hex(COLLISION)));
                svg.line((x + 3.0, y + 3.0), (x + cell_w - 3.0, y + cell_h - 3.0), COLLISION, 1.5, "");
                continue;
            };
            let (core, step) = ((i % nc) as u32, i / nc);
            let fill = color(core);
            let state = if Some(step) == current { "current" } else if step < done { "past" } else { "future" };
            match state {
                "future" => svg.rect((x + 1.0, y + 1.0), (cell_w - 2.0, cell_h - 2.0), theme.background, &format!(r#"stroke="{}" stroke-dasharray="3 2""#, hex(theme.grid))),
                _ => {
                    let opacity = if state == "past" { r#"opacity="0.35""# } else { "" };
                    svg.rect((x + 1.0, y + 1.0), (cell_w - 2.0, cell_h - 2.0), fill, opacity);
                }
            }
            if state == "current" {
                let collided = load.get(r as usize).is_some_and(|&n| n > 1);
                let (stroke, w) = if collided { (COLLISION, 3.0) } else { (theme.foreground, 2.0) };
                svg.rect((x + 1.0, y + 1.0), (cell_w - 2.0, cell_h - 2.0), theme.background, &format!(r#"fill-opacity="0" stroke="{}" stroke-width="{w}""#, hex(stroke)));
            }
            if labels && state != "future" {
                let mut text = format!("C{core} S{step}");
                if visits > 1 {
                    text = format!("{text} ×{visits}");
                }
                let extra = if state == "past" { r#"opacity="0.6""# } else { "" };
                svg.text((x + cell_w / 2.0, y + cell_h * 0.68), &text, 10.0, ink(fill), "middle", extra);
            }
            if visits > 1 {
                svg.rect((x + 1.0, y + 1.0), (cell_w - 2.0, cell_h - 2.0), theme.background, &format!(r#"fill-opacity="0" stroke="{}" stroke-width="2" stroke-dasharray="5 2""#, hex(COLLISION)));
            }
        }
    }
    svg.text((left, height - 10.0), "rows: data index (row,col); red outline: rank collision in this step; red cross: never visited; ×n: visited n times", 10.0, theme.foreground, "start", "");
    svg.finish()
}

/// The core × step timeline coloured by rank, collisions outlined, the
/// current step marked.
///
/// # Panics
/// When the schedule exceeds [`TIMELINE_DRAW_LIMIT`].
pub fn timeline_svg(schedule: &Schedule, done: usize, theme: &Theme) -> String {
    let (cores, steps) = (schedule.core_count(), schedule.steps());
    assert!(cores <= TIMELINE_DRAW_LIMIT.0 && steps <= TIMELINE_DRAW_LIMIT.1, "timeline_svg: too large to draw");
    let cell_w = (760.0 / steps.max(1) as f64).clamp(5.0, 40.0);
    let cell_h = (320.0 / f64::from(cores)).clamp(6.0, 22.0);
    let (left, top) = (46.0, 26.0);
    let width = (left + cell_w * steps as f64 + 12.0).max(360.0);
    let height = top + cell_h * f64::from(cores) + 26.0;
    let mut svg = Svg::new(width, height, theme.background, "Core × step timeline coloured by rank");
    svg.text((left, 14.0), "step →   (cell: the rank a core talks to)", 11.0, theme.foreground, "start", "");
    let every = (cores / 16).max(1);
    for c in (0..cores).filter(|c| c % every == 0) {
        svg.text((left - 6.0, top + cell_h * (f64::from(c) + 0.75)), &format!("C{c}"), 10.0, theme.foreground, "end", "");
    }
    for s in 0..steps {
        let x = left + cell_w * s as f64;
        let load = schedule.rank_load(s);
        let faded = if s >= done { r#"opacity="0.3""# } else { "" };
        for (c, t) in schedule.step_tasks(s) {
            let y = top + cell_h * f64::from(c);
            let fill = color(t.rank);
            svg.rect((x + 0.5, y + 0.5), (cell_w - 1.0, cell_h - 1.0), fill, faded);
            if cell_w >= 16.0 && cell_h >= 12.0 {
                svg.text((x + cell_w / 2.0, y + cell_h * 0.72), &t.rank.to_string(), 9.0, ink(fill), "middle", faded);
            }
            if load[t.rank as usize] > 1 && s < done {
                svg.rect((x + 0.5, y + 0.5), (cell_w - 1.0, cell_h - 1.0), theme.background, &format!(r#"fill-opacity="0" stroke="{}" stroke-width="1.5""#, hex(COLLISION)));
            }
        }
    }
    if done > 0 {
        let x = left + cell_w * (done - 1) as f64;
        svg.rect((x, top - 2.0), (cell_w, cell_h * f64::from(cores) + 4.0), theme.background, &format!(r#"fill-opacity="0" stroke="{}" stroke-width="2""#, hex(theme.foreground)));
    }
    svg.finish()
}

/// Collisions per step as bars, with the naive order (no rank shift) as a
/// line for comparison; steps beyond 400 are binned.
pub fn collisions_svg(schedule: &Schedule, naive: &Schedule, done: usize, theme: &Theme) -> String {
    let bin = schedule.steps().max(naive.steps()).div_ceil(400).max(1);
    let binned = |s: &Schedule| -> Vec<u32> { s.collisions_per_step().chunks(bin).map(|c| c.iter().sum()).collect() };
    let (ours, theirs) = (binned(schedule), binned(naive));
    let n = ours.len().max(theirs.len()).max(1);
    let peak = ours.iter().chain(&theirs).copied().max().unwrap_or(0).max(1);
    let (left, top, plot_w, plot_h) = (40.0, 30.0, 720.0, 110.0);
    let bar = (plot_w / n as f64).min(36.0);
    let mut svg = Svg::new(left + plot_w + 16.0, top + plot_h + 34.0, theme.background, "Rank collisions per step");
    let y = |v: u32| top + plot_h - plot_h * f64::from(v) / f64::from(peak);
    svg.text((left, 16.0), "Rank collisions per step", 12.0, theme.foreground, "start", r#"font-weight="600""#);
    svg.line((left, top + plot_h), (left + plot_w, top + plot_h), theme.foreground, 1.0, "");
    svg.text((left - 4.0, y(peak) + 4.0), &peak.to_string(), 10.0, theme.foreground, "end", "");
    svg.text((left - 4.0, top + plot_h + 4.0), "0", 10.0, theme.foreground, "end", "");
    for (i, &v) in ours.iter().enumerate() {
        let current = done > 0 && (done - 1) / bin == i;
        let fill = if current { COLLISION } else { theme.primary };
        svg.rect((left + bar * i as f64 + 0.5, y(v)), ((bar - 1.0).max(0.5), top + plot_h - y(v)), fill, "");
    }
    let points: Vec<String> = theirs.iter().enumerate().map(|(i, &v)| format!("{:.1},{:.1}", left + bar * (i as f64 + 0.5), y(v))).collect();
    svg.raw(&format!(r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5" stroke-dasharray="4 3"/>"#, points.join(" "), hex(theme.reference)));
    let unit = if bin > 1 { format!(" (bins of {bin} steps)") } else { String::new() };
    svg.text((left, top + plot_h + 22.0), &format!("bars: collisions per step{unit}; dashed: naive order (no rank shift)"), 10.0, theme.foreground, "start", "");
    svg.finish()
}

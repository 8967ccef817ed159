//! CommSwizzle drawings: the reference animation's grid (one row per data
//! index, one column per rank, cells coloured by core with `C{core} S{step}`),
//! the core × step timeline coloured by rank (the Latin-square view), and the
//! collisions per step.

use crate::svg::{hex, wrap, Svg};
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
pub(crate) fn ink(fill: RGBColor) -> RGBColor {
    let luma = 0.299 * f64::from(fill.0) + 0.587 * f64::from(fill.1) + 0.114 * f64::from(fill.2);
    if luma > 140.0 {
        RGBColor(20, 20, 20)
    } else {
        RGBColor(250, 250, 250)
    }
}

const COLLISION: RGBColor = RGBColor(220, 30, 30);

/// How a visited cell relates to the current step.
#[derive(Clone, Copy, PartialEq)]
enum CellState {
    Past,
    Current { collided: bool },
    Future,
}

/// One cell of the reference grid.
struct Cell {
    at: (f64, f64),
    size: (f64, f64),
    visits: u32,
    labels: bool,
}

impl Cell {
    fn inner(&self) -> ((f64, f64), (f64, f64)) {
        ((self.at.0 + 1.0, self.at.1 + 1.0), (self.size.0 - 2.0, self.size.1 - 2.0))
    }

    /// Never visited: a missed cell of a non-bijective mapping, crossed in red.
    fn missed(&self, svg: &mut Svg) {
        let (pos, size) = self.inner();
        svg.rect(
            pos,
            size,
            RGBColor(255, 255, 255),
            &format!(r#"fill-opacity="0" stroke="{}" stroke-width="2""#, hex(COLLISION)),
        );
        svg.line((pos.0 + 2.0, pos.1 + 2.0), (pos.0 + size.0 - 2.0, pos.1 + size.1 - 2.0), COLLISION, 1.5, "");
    }

    fn visited(&self, svg: &mut Svg, core: u32, step: usize, state: CellState, theme: &Theme) {
        let (pos, size) = self.inner();
        let fill = color(core);
        let outline = |svg: &mut Svg, stroke: RGBColor, width: f64, dash: &str| {
            svg.rect(
                pos,
                size,
                theme.background,
                &format!(r#"fill-opacity="0" stroke="{}" stroke-width="{width}" {dash}"#, hex(stroke)),
            );
        };
        match state {
            CellState::Future => outline(svg, theme.grid, 1.0, r#"stroke-dasharray="3 2""#),
            CellState::Past => svg.rect(pos, size, fill, r#"opacity="0.35""#),
            CellState::Current { collided } => {
                svg.rect(pos, size, fill, "");
                if collided {
                    outline(svg, COLLISION, 3.0, "");
                } else {
                    outline(svg, theme.foreground, 2.0, "");
                }
            }
        }
        if self.labels && state != CellState::Future {
            let mut text = format!("C{core} S{step}");
            if self.visits > 1 {
                text = format!("{text} ×{}", self.visits);
            }
            let extra = if state == CellState::Past { r#"opacity="0.6""# } else { "" };
            svg.text((pos.0 + size.0 / 2.0, pos.1 + size.1 * 0.66), &text, 11.0, ink(fill), "middle", extra);
        }
        if self.visits > 1 {
            outline(svg, COLLISION, 2.0, r#"stroke-dasharray="5 2""#);
        }
    }
}

/// The reference grid after `done` steps (step `done − 1` is current), laid
/// out for a box `width` px wide.
///
/// # Panics
/// When the grid exceeds [`GRID_DRAW_LIMIT`].
pub fn grid_svg(schedule: &Schedule, done: usize, width: f64, theme: &Theme) -> String {
    let grid = schedule.config().grid();
    let (rows, ranks) = (grid.data(), grid.rank);
    assert!(rows <= GRID_DRAW_LIMIT.0 && ranks <= GRID_DRAW_LIMIT.1, "grid_svg: grid too large to draw");
    let nc = schedule.core_count() as usize;
    let (left, top) = (if rows > 10 { 50.0 } else { 40.0 }, 34.0);
    let cell_w = ((width.min(842.0) - left - 12.0) / f64::from(ranks)).clamp(6.0, 84.0);
    let cell_h = (560.0 / f64::from(rows)).clamp(14.0, 30.0);
    // Wide enough for the legend under the grid, at most the box.
    let width = (left + cell_w * f64::from(ranks) + 12.0).max(640.0f64.min(width));
    let legend = wrap(
        "rows: data index (row,col); red outline: rank collision in this step; red cross: never visited; ×n: visited n times",
        11.0,
        width - left - 8.0,
    );
    let height = top + cell_h * f64::from(rows) + 16.0 + 15.0 * legend.len() as f64;
    let mut svg =
        Svg::new(width, height, theme.background, &format!("CommSwizzle grid, step {done} of {}", schedule.steps()));
    svg.text((left, 14.0), "rank →", 11.0, theme.foreground, "start", "");
    // Rank numbers at least 20 px apart.
    let rank_every = (20.0 / cell_w).ceil().max(1.0) as u32;
    for r in (0..ranks).filter(|r| r % rank_every == 0) {
        svg.text(
            (left + cell_w * (f64::from(r) + 0.5), top - 6.0),
            &r.to_string(),
            11.0,
            theme.foreground,
            "middle",
            "",
        );
    }
    let label_every = (rows / 32).max(1);
    for d in 0..rows {
        if d % label_every == 0 {
            let name = format!("{},{}", d / grid.column, d % grid.column);
            svg.text((left - 6.0, top + cell_h * (f64::from(d) + 0.7)), &name, 11.0, theme.foreground, "end", "");
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
    let labels = cell_w >= 46.0 && cell_h >= 14.0;
    for d in 0..rows {
        for r in 0..ranks {
            let at = (left + cell_w * f64::from(r), top + cell_h * f64::from(d));
            let cell = Cell { at, size: (cell_w, cell_h), visits: schedule.visits(d, r), labels };
            match first[(d * ranks + r) as usize] {
                None => cell.missed(&mut svg),
                Some(i) => {
                    let (core, step) = ((i % nc) as u32, i / nc);
                    let state = if Some(step) == current {
                        CellState::Current { collided: load.get(r as usize).is_some_and(|&n| n > 1) }
                    } else if step < done {
                        CellState::Past
                    } else {
                        CellState::Future
                    };
                    cell.visited(&mut svg, core, step, state, theme);
                }
            }
        }
    }
    for (i, line) in legend.iter().enumerate() {
        let y = height - 10.0 - 15.0 * (legend.len() - 1 - i) as f64;
        svg.text((left, y), line, 11.0, theme.foreground, "start", "");
    }
    svg.finish()
}

/// Where the columns of a step-indexed drawing sit, in SVG units, so the view
/// can mark the current step with an overlay instead of redrawing the SVG.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StepAxis {
    /// Width of the whole drawing.
    pub width: f64,
    /// Height of the whole drawing.
    pub height: f64,
    /// x of the first step's column.
    pub x0: f64,
    /// Width of one step's column.
    pub column: f64,
    /// Steps per column (binning), ≥ 1.
    pub steps_per_column: usize,
    /// y of the top of the columns.
    pub y0: f64,
    /// Height of the columns.
    pub column_height: f64,
}

impl StepAxis {
    /// `(left, width)` of the column holding step `step` (0-based), as
    /// percentages of the drawing's width.
    pub fn column_percent(&self, step: usize) -> (f64, f64) {
        let x = self.x0 + self.column * (step / self.steps_per_column) as f64;
        (100.0 * x / self.width, 100.0 * self.column / self.width)
    }

    /// `(left, width)` from the column of `step` to the last column, as
    /// percentages (the part of the run still to come).
    pub fn rest_percent(&self, step: usize, steps: usize) -> (f64, f64) {
        let columns = steps.div_ceil(self.steps_per_column);
        let first = step / self.steps_per_column;
        let x = self.x0 + self.column * first as f64;
        (100.0 * x / self.width, 100.0 * self.column * columns.saturating_sub(first) as f64 / self.width)
    }

    /// `(top, height)` of the columns as percentages of the drawing's height.
    pub fn rows_percent(&self) -> (f64, f64) {
        (100.0 * self.y0 / self.height, 100.0 * self.column_height / self.height)
    }
}

fn timeline_axis(schedule: &Schedule, width: f64) -> StepAxis {
    let (cores, steps) = (schedule.core_count(), schedule.steps());
    let (x0, y0) = (46.0, 26.0);
    let column = ((width.min(818.0) - x0 - 12.0) / steps.max(1) as f64).clamp(1.5, 40.0);
    let row = (320.0 / f64::from(cores)).clamp(6.0, 22.0);
    StepAxis {
        width: (x0 + column * steps as f64 + 12.0).max(360.0f64.min(width)),
        height: y0 + row * f64::from(cores) + 26.0,
        x0,
        column,
        steps_per_column: 1,
        y0,
        column_height: row * f64::from(cores),
    }
}

/// The core × step timeline coloured by rank (the Latin-square view), with
/// every collision outlined. It does not depend on the current step: the view
/// marks that with an overlay placed by the returned [`StepAxis`]. Laid out
/// for a box `width` px wide.
///
/// # Panics
/// When the schedule exceeds [`TIMELINE_DRAW_LIMIT`].
pub fn timeline_svg(schedule: &Schedule, width: f64, theme: &Theme) -> (String, StepAxis) {
    let (cores, steps) = (schedule.core_count(), schedule.steps());
    assert!(cores <= TIMELINE_DRAW_LIMIT.0 && steps <= TIMELINE_DRAW_LIMIT.1, "timeline_svg: too large to draw");
    let axis = timeline_axis(schedule, width);
    let (cell_w, cell_h) = (axis.column, axis.column_height / f64::from(cores));
    let mut svg = Svg::new(axis.width, axis.height, theme.background, "Core × step timeline coloured by rank");
    svg.text((axis.x0, 14.0), "step →   (cell: the rank a core talks to)", 11.0, theme.foreground, "start", "");
    // Core names at least 14 px apart.
    let every = ((14.0 / cell_h).ceil() as u32).max(cores / 16).max(1);
    for c in (0..cores).filter(|c| c % every == 0) {
        svg.text(
            (axis.x0 - 6.0, axis.y0 + cell_h * (f64::from(c) + 0.75)),
            &format!("C{c}"),
            11.0,
            theme.foreground,
            "end",
            "",
        );
    }
    for s in 0..steps {
        let x = axis.x0 + cell_w * s as f64;
        let load = schedule.rank_load(s);
        for (c, t) in schedule.step_tasks(s) {
            let y = axis.y0 + cell_h * f64::from(c);
            let fill = color(t.rank);
            svg.rect((x + 0.5, y + 0.5), (cell_w - 1.0, cell_h - 1.0), fill, "");
            if cell_w >= 18.0 && cell_h >= 14.0 {
                svg.text((x + cell_w / 2.0, y + cell_h * 0.72), &t.rank.to_string(), 11.0, ink(fill), "middle", "");
            }
            if load[t.rank as usize] > 1 {
                svg.rect(
                    (x + 0.5, y + 0.5),
                    (cell_w - 1.0, cell_h - 1.0),
                    theme.background,
                    &format!(r#"fill-opacity="0" stroke="{}" stroke-width="1.5""#, hex(COLLISION)),
                );
            }
        }
    }
    (svg.finish(), axis)
}

/// Columns between step labels: a round count (1, 2, 5 × 10^k) that puts
/// labels at least 40 px apart on columns `column` px wide.
fn step_label_every(column: f64) -> usize {
    let need = (40.0 / column.max(1e-9)).ceil().max(1.0) as usize;
    let mut every = 1;
    loop {
        for k in [1, 2, 5] {
            if every * k >= need {
                return every * k;
            }
        }
        every *= 10;
    }
}

/// Collisions per step of a schedule and of its naive order (no rank
/// shift), more than 400 steps summed in bins: what [`collisions_svg`] draws.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CollisionBars {
    /// Steps per bar, ≥ 1.
    pub bin: usize,
    /// Collisions per bin, with the rank shift.
    pub ours: Vec<u32>,
    /// Collisions per bin, in the naive order.
    pub naive: Vec<u32>,
}

impl CollisionBars {
    /// The bars of `schedule` and its naive order `naive`.
    pub fn of(schedule: &Schedule, naive: &Schedule) -> CollisionBars {
        let bin = schedule.steps().max(naive.steps()).div_ceil(400).max(1);
        let binned =
            |s: &Schedule| -> Vec<u32> { s.collisions_per_step().chunks(bin).map(|c| c.iter().sum()).collect() };
        CollisionBars { bin, ours: binned(schedule), naive: binned(naive) }
    }
}

/// Collisions per step as bars, with the naive order (no rank shift) as a
/// dashed line for comparison; more than 400 steps are binned. Step
/// independent, like [`timeline_svg`]. Laid out for a box `width` px wide.
pub fn collisions_svg(bars: &CollisionBars, width: f64, theme: &Theme) -> (String, StepAxis) {
    let (bin, ours, theirs) = (bars.bin, &bars.ours, &bars.naive);
    let n = ours.len().max(theirs.len()).max(1);
    let peak = ours.iter().chain(theirs).copied().max().unwrap_or(0).max(1);
    let (left, top, plot_h) = (40.0, 30.0, 110.0);
    let plot_w = (width.min(776.0) - left - 16.0).max(120.0);
    let unit = if bin > 1 { format!(" (bins of {bin} steps)") } else { String::new() };
    let footer = wrap(
        &format!("step → bars: collisions per step{unit}; dashed: naive order (no rank shift)"),
        11.0,
        plot_w + 8.0,
    );
    // The steps fill the axis, however few.
    let bar = plot_w / n as f64;
    let axis = StepAxis {
        width: left + plot_w + 16.0,
        height: top + plot_h + 34.0 + 15.0 * footer.len() as f64,
        x0: left,
        column: bar,
        steps_per_column: bin,
        y0: top,
        column_height: plot_h,
    };
    let mut svg = Svg::new(axis.width, axis.height, theme.background, "Rank collisions per step");
    let y = |v: u32| top + plot_h - plot_h * f64::from(v) / f64::from(peak);
    svg.text((left, 16.0), "Rank collisions per step", 12.0, theme.foreground, "start", r#"font-weight="600""#);
    svg.line((left, top + plot_h), (left + plot_w, top + plot_h), theme.foreground, 1.0, "");
    let mut levels = vec![0, peak];
    if peak >= 4 {
        levels.push(peak / 2);
    }
    for v in levels {
        svg.text((left - 4.0, y(v) + 4.0), &v.to_string(), 11.0, theme.foreground, "end", "");
    }
    // Wide columns keep a gap between bars; narrow ones are bars edge to edge.
    let gap = if bar >= 8.0 { bar * 0.2 } else { 1.0_f64.min(bar * 0.5) };
    for (i, &v) in ours.iter().enumerate() {
        svg.rect(
            (left + bar * i as f64 + gap / 2.0, y(v)),
            ((bar - gap).max(0.5), top + plot_h - y(v)),
            theme.primary,
            "",
        );
    }
    // Step labels under the columns they name, at least 40 px apart.
    let every = step_label_every(bar);
    for i in (0..n).filter(|i| i % every == 0) {
        let x = left + bar * (i as f64 + 0.5);
        svg.line((x, top + plot_h), (x, top + plot_h + 4.0), theme.foreground, 1.0, "");
        svg.text((x, top + plot_h + 15.0), &(i * bin).to_string(), 11.0, theme.foreground, "middle", "");
    }
    let points: Vec<String> =
        theirs.iter().enumerate().map(|(i, &v)| format!("{:.1},{:.1}", left + bar * (i as f64 + 0.5), y(v))).collect();
    svg.raw(&format!(
        r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="1.5" stroke-dasharray="4 3"/>"#,
        points.join(" "),
        hex(theme.reference)
    ));
    for (i, line) in footer.iter().enumerate() {
        svg.text((left, top + plot_h + 36.0 + 15.0 * i as f64), line, 11.0, theme.foreground, "start", "");
    }
    (svg.finish(), axis)
}

/// Horizontal bars of run times, each with its value and a note under it
/// (the swizzle with and without the rank shift on a network: the note names
/// the hottest link). `bars`: `(label, ns, note)`.
///
/// Laid out for a box `width` px wide (at most 900): labels left of the bars,
/// or above them on a narrow drawing.
pub fn time_bars_svg(caption: &str, bars: &[(String, f64, String)], width: f64, theme: &Theme) -> String {
    let width = width.min(900.0);
    let narrow = width < f64::from(crate::NARROW);
    let left = if narrow { 8.0 } else { 200.0 };
    let title = wrap(caption, 15.0, width - 16.0);
    let most = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let span = width - left - 100.0;
    // Each bar's rows: its label (on a narrow drawing), the bar, its note's lines.
    let notes: Vec<Vec<String>> = bars.iter().map(|b| wrap(&b.2, 11.0, width - left - 8.0)).collect();
    let head = if narrow { 18.0 } else { 0.0 };
    let row = |i: usize| head + 24.0 + 15.0 * notes[i].len() as f64 + 12.0;
    let top = 14.0 + 20.0 * title.len() as f64;
    let height = top + (0..bars.len()).map(row).sum::<f64>();
    let mut svg = Svg::new(width, height, theme.background, caption);
    for (i, line) in title.iter().enumerate() {
        svg.text((width / 2.0, 20.0 + 20.0 * i as f64), line, 15.0, theme.foreground, "middle", "");
    }
    let mut y = top;
    for (i, (label, ns, _)) in bars.iter().enumerate() {
        if narrow {
            svg.text((left, y + 13.0), label, 13.0, theme.foreground, "start", "");
        } else {
            svg.text((left - 8.0, y + 16.0), label, 13.0, theme.foreground, "end", "");
        }
        let bar_y = y + head;
        let w = (ns / most * span).max(1.0);
        svg.rect((left, bar_y + 4.0), (w, 16.0), color(i as u32), "");
        svg.text(
            (left + w + 6.0, bar_y + 17.0),
            &format!("{} ns", crate::format_quantity(*ns)),
            12.0,
            theme.foreground,
            "start",
            "",
        );
        for (k, line) in notes[i].iter().enumerate() {
            svg.text((left, bar_y + 36.0 + 15.0 * k as f64), line, 11.0, theme.foreground, "start", "");
        }
        y += row(i);
    }
    svg.finish()
}

//! The Chooser view's figures: time vs message size per algorithm (log–log,
//! simulated points, crossovers), the best piece count vs size (the chunk
//! optimizer, with the chain's closed-form `m*`), the winner map over
//! p × size, and the cost split of each algorithm at one size as stacked bars.

use crate::model::{with_axes, Span};
use crate::svg::{escape, hex, wrap, Svg};
use crate::{format_quantity, PlotError, Theme};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One algorithm's curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Algorithm id (legend).
    pub name: String,
    /// Colour.
    pub color: RGBColor,
    /// Time per size (same order as the sizes).
    pub times: Vec<f64>,
    /// Simulated time per size, where simulated.
    pub simulated: Vec<Option<f64>>,
    /// Drawn dashed (an expectation beside the algorithms' lines).
    pub dashed: bool,
}

/// Seven colours of the Okabe–Ito palette (which the common colour-vision
/// deficiencies tell apart), without its yellow, too faint for a line on
/// white: a collective has at most seven algorithms.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(128, 128, 128),
];

/// The colour of the `i`-th algorithm of a collective.
pub fn algorithm_color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Time vs size, one line per algorithm, simulated points as dots on the
/// lines (in the legend as `dots_label`), and a dashed vertical line at each crossover size in the colour
/// of the algorithm that wins from there.
///
/// # Errors
/// When the backend fails.
pub fn times_chart<DB>(
    root: &DrawingArea<DB, Shift>,
    [caption, y_desc, dots_label]: [&str; 3],
    sizes: &[u64],
    series: &[Series],
    crossovers: &[(u64, usize)],
    theme: &Theme,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&theme.background)?;
    let x = Span::units(sizes.first().copied().unwrap_or(1), sizes.last().copied().unwrap_or(2));
    let y = Span::of(
        series
            .iter()
            .flat_map(|s| s.times.iter().copied().chain(s.simulated.iter().flatten().copied()))
            .filter(|t| *t > 0.0),
    );
    with_axes(root, [caption, "message size (bytes)", y_desc], theme, (&x, &y), |f| {
        let (y_low, y_high) = f.y_range();
        for s in series {
            let line: Vec<(f64, f64)> =
                sizes.iter().zip(&s.times).filter(|(_, t)| **t > 0.0).map(|(&n, &t)| (n as f64, t)).collect();
            if s.dashed {
                f.dashed(&line, s.color.stroke_width(2), &s.name)?;
            } else {
                f.line(&line, s.color.stroke_width(2), &s.name)?;
            }
        }
        let dots: Vec<(RGBColor, Vec<(f64, f64)>)> = series
            .iter()
            .map(|s| {
                let points = sizes
                    .iter()
                    .zip(&s.simulated)
                    .filter_map(|(&n, t)| t.filter(|t| *t > 0.0).map(|t| (n as f64, t)))
                    .collect();
                (s.color, points)
            })
            .collect();
        let mut first = true;
        for (color, points) in &dots {
            if points.is_empty() {
                continue;
            }
            if first {
                f.dots(points, 3, color.filled(), dots_label)?;
                first = false;
            } else {
                f.bare_dots(points, 3, color.filled())?;
            }
        }
        for (i, &(bytes, to)) in crossovers.iter().enumerate() {
            let color = series.get(to).map_or(theme.foreground, |s| s.color);
            let segment = [((bytes as f64, y_low), (bytes as f64, y_high))];
            if i == 0 {
                f.dashed_segments(&segment, color.stroke_width(1), "crossover")?;
            } else {
                f.dashed_segments(&segment, color.stroke_width(1), "")?;
            }
        }
        Ok(())
    })
}

/// The best piece count vs size for each pipelined algorithm (steps on
/// powers of two), and the chain's closed-form optimum `m*` as a dashed line.
///
/// # Errors
/// When the backend fails.
pub fn pieces_chart<DB>(
    root: &DrawingArea<DB, Shift>,
    caption: &str,
    sizes: &[u64],
    series: &[(String, RGBColor, Vec<u32>)],
    closed_form: Option<(&str, Vec<f64>)>,
    theme: &Theme,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&theme.background)?;
    let x = Span::units(sizes.first().copied().unwrap_or(1), sizes.last().copied().unwrap_or(2));
    let highest = series.iter().flat_map(|s| s.2.iter().copied()).max().unwrap_or(1);
    let y = Span::units(1, u64::from(highest.max(2)) * 2);
    with_axes(root, [caption, "message size (bytes)", "best piece count m"], theme, (&x, &y), |f| {
        for (name, color, pieces) in series {
            let line: Vec<(f64, f64)> = sizes.iter().zip(pieces).map(|(&n, &m)| (n as f64, f64::from(m))).collect();
            f.line(&line, color.stroke_width(2), name)?;
        }
        if let Some((label, m_star)) = closed_form {
            let (lo, hi) = (y.low, y.high);
            let curve: Vec<(f64, f64)> = sizes
                .iter()
                .zip(&m_star)
                .filter(|(_, m)| m.is_finite() && **m >= lo && **m <= hi)
                .map(|(&n, &m)| (n as f64, m))
                .collect();
            if curve.len() > 1 {
                f.dashed(&curve, theme.foreground.stroke_width(1), label)?;
            }
        }
        Ok(())
    })
}

/// What the winner map shows.
#[derive(Debug, Clone, PartialEq)]
pub struct MapInput<'a> {
    /// Algorithm ids (legend) and their colours.
    pub algorithms: &'a [(String, RGBColor)],
    /// Row values (p), bottom to top.
    pub ps: &'a [u32],
    /// Column values (bytes), left to right.
    pub sizes: &'a [u64],
    /// Row-major winner index.
    pub winner: &'a [u8],
    /// Row-major runner-up / winner.
    pub margin: &'a [f64],
    /// The row to outline (the chart's p), if on the map.
    pub mark_p: Option<u32>,
}

/// Where the winner map's cells are, to find the cell under the pointer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapGeometry {
    /// Left edge of the cells.
    pub left: f64,
    /// Top edge of the cells.
    pub top: f64,
    /// Cell width.
    pub cell_w: f64,
    /// Cell height.
    pub cell_h: f64,
    /// Rows (p values).
    pub rows: usize,
    /// Columns (sizes).
    pub cols: usize,
}

impl MapGeometry {
    /// The `(row, column)` under the SVG point `(x, y)` (row 0 is the smallest p, at the bottom).
    pub fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let col = ((x - self.left) / self.cell_w).floor();
        let from_top = ((y - self.top) / self.cell_h).floor();
        if col < 0.0 || from_top < 0.0 || col >= self.cols as f64 || from_top >= self.rows as f64 {
            return None;
        }
        Some((self.rows - 1 - from_top as usize, col as usize))
    }
}

/// Margins below this are drawn pale: the runner-up is within 10 %.
pub const CLOSE_MARGIN: f64 = 1.1;

/// The stripes over a close call's cell (a pattern in the map's `<defs>`).
const NEAR_ID: &str = "commlab-map-near";
const NEAR_FILL: &str = "url(#commlab-map-near)";

/// Whether row `i` of `rows` gets a p label: every `step`-th, and the top
/// row when it is at least 14 px from the labelled row below it (else it
/// takes that row's place).
fn p_tick(i: usize, rows: usize, step: usize, cell_h: f64) -> bool {
    let top = rows.saturating_sub(1);
    let below = top - top % step;
    let room = (top - below) as f64 * cell_h >= 14.0;
    i == top || (i % step == 0 && (i != below || room || below == 0))
}

/// The winner map as SVG: a cell per (p, size) in the winner's colour,
/// striped where the runner-up is within 10 %, the legend below; laid out
/// for a box `width` px wide (at most 900).
pub fn winner_map_svg(input: &MapInput<'_>, caption: &str, width: f64, theme: &Theme) -> (String, MapGeometry) {
    let (rows, cols) = (input.ps.len(), input.sizes.len());
    let width = width.min(900.0);
    let title = wrap(caption, 15.0, width - 16.0);
    let (left, top) = (if width < f64::from(crate::NARROW) { 44.0 } else { 64.0 }, 14.0 + 20.0 * title.len() as f64);
    let cell_w = ((width - left - 16.0) / cols.max(1) as f64).floor().max(2.0);
    let cell_h = (320.0 / rows.max(1) as f64).floor().clamp(3.0, 24.0);
    let plot_w = cell_w * cols as f64;
    let plot_h = cell_h * rows as f64;
    // Legend columns of 270 px, as many as the width holds.
    let per_line = ((width - left) / 270.0).floor().max(1.0) as usize;
    let legend_rows = input.algorithms.len().div_ceil(per_line) + 1;
    let height = top + plot_h + 52.0 + 20.0 * legend_rows as f64;
    let mut svg = Svg::new(width, height, theme.background, caption);
    svg.raw(&format!(
        r#"<defs><pattern id="{NEAR_ID}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="2.5" height="6" fill="{}"/></pattern></defs>"#,
        crate::svg::hex(theme.background)
    ));
    for (i, line) in title.iter().enumerate() {
        svg.text((width / 2.0, 20.0 + 20.0 * i as f64), line, 15.0, theme.foreground, "middle", "");
    }
    // A row's run of cells with one winner is one rectangle, and a run of
    // close calls one striped rectangle over it: the same picture with a
    // few elements a row (a 64 × 31 map had 2 000 and more, 40–100 ms of
    // the page's time to parse, style and paint).
    let runs = |row: usize, key: &dyn Fn(usize) -> Option<u8>, draw: &mut dyn FnMut(usize, usize, u8)| {
        let mut j = 0;
        while j < cols {
            let Some(v) = key(row * cols + j) else {
                j += 1;
                continue;
            };
            let start = j;
            while j + 1 < cols && key(row * cols + j + 1) == Some(v) {
                j += 1;
            }
            draw(start, j + 1 - start, v);
            j += 1;
        }
    };
    for i in 0..rows {
        let y = top + (rows - 1 - i) as f64 * cell_h;
        runs(i, &|k| input.winner.get(k).copied(), &mut |j, n, w| {
            let color = input.algorithms.get(usize::from(w)).map_or(theme.grid, |a| a.1);
            svg.rect((left + j as f64 * cell_w, y), (n as f64 * cell_w, cell_h), color, "");
        });
        // A close call keeps its winner's colour under stripes (a paler
        // tint of one colour would read as another algorithm's).
        let close = |k: usize| input.winner.get(k).and(input.margin.get(k).map(|&m| u8::from(m < CLOSE_MARGIN)));
        runs(i, &close, &mut |j, n, near| {
            if near == 1 {
                svg.rect_paint((left + j as f64 * cell_w, y), (n as f64 * cell_w, cell_h), NEAR_FILL);
            }
        });
    }
    // Axes: p ticks at about 8 rows (the top row too, unless it would touch the one below), size ticks at about 8 columns.
    let step = rows.div_ceil(8).max(1);
    for (i, &p) in input.ps.iter().enumerate().filter(|(i, _)| p_tick(*i, rows, step, cell_h)) {
        let y = top + (rows - 1 - i) as f64 * cell_h + cell_h / 2.0 + 4.0;
        svg.text((left - 6.0, y), &p.to_string(), 12.0, theme.foreground, "end", "");
    }
    svg.text((8.0, top + plot_h / 2.0), "p", 13.0, theme.foreground, "start", "");
    // Size labels at least 60 px apart.
    let step = cols.div_ceil(7).max((60.0 / cell_w).ceil() as usize).max(1);
    for (j, &n) in input.sizes.iter().enumerate().filter(|(j, _)| j % step == 0) {
        let x = left + j as f64 * cell_w + cell_w / 2.0;
        svg.line((x, top + plot_h), (x, top + plot_h + 4.0), theme.foreground, 1.0, "");
        svg.text((x, top + plot_h + 17.0), &short_bytes(n), 12.0, theme.foreground, "middle", "");
    }
    svg.text((left + plot_w / 2.0, top + plot_h + 34.0), "message size", 13.0, theme.foreground, "middle", "");
    if let Some(i) = input.mark_p.and_then(|p| input.ps.iter().position(|&x| x == p)) {
        let y = top + (rows - 1 - i) as f64 * cell_h;
        let outline = format!(r#"fill-opacity="0" stroke-width="2" stroke="{}""#, crate::svg::hex(theme.foreground));
        svg.rect((left - 1.0, y - 1.0), (plot_w + 2.0, cell_h + 2.0), theme.foreground, &outline);
        svg.text((left + plot_w + 4.0, y + cell_h / 2.0 + 4.0), "◀", 11.0, theme.foreground, "start", "");
    }
    // Legend.
    let y0 = top + plot_h + 56.0;
    for (k, (name, color)) in input.algorithms.iter().enumerate() {
        let (x, y) = (left + (k % per_line) as f64 * 270.0, y0 + (k / per_line) as f64 * 20.0);
        svg.rect((x, y - 11.0), (14.0, 14.0), *color, "");
        svg.text((x + 20.0, y), name, 12.0, theme.foreground, "start", "");
    }
    let y = y0 + (input.algorithms.len().div_ceil(per_line)) as f64 * 20.0;
    svg.rect((left, y - 11.0), (14.0, 14.0), theme.foreground, "");
    svg.rect_paint((left, y - 11.0), (14.0, 14.0), NEAR_FILL);
    svg.text((left + 20.0, y), "striped: the runner-up is within 10 %", 12.0, theme.foreground, "start", "");
    (svg.finish(), MapGeometry { left, top, cell_w, cell_h, rows, cols })
}

/// A size in the largest binary unit it reaches (`1.5 KiB`, `64 MiB`).
pub fn short_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if (value - value.round()).abs() < 1e-9 {
        format!("{} {}", value.round(), UNITS[unit])
    } else {
        format!("{} {}", format_quantity(value), UNITS[unit])
    }
}

/// The colours of the three cost terms.
pub const TERM_COLORS: [RGBColor; 3] = [RGBColor(0, 114, 178), RGBColor(230, 159, 0), RGBColor(204, 121, 167)];

/// The terms' names.
pub const TERMS: [&str; 3] = ["latency (α·messages)", "bandwidth (β·bytes)", "compute (γ·bytes)"];

/// One stacked bar per algorithm at one size: latency, bandwidth and
/// compute, the total written at the end; the winner's name in bold. Laid
/// out for a box `width` px wide (at most 900): names left of the bars, or
/// above them on a narrow drawing.
pub fn split_bars_svg(caption: &str, bars: &[(String, [f64; 3])], winner: usize, width: f64, theme: &Theme) -> String {
    let width = width.min(900.0);
    let narrow = width < f64::from(crate::NARROW);
    let left = if narrow { 8.0 } else { 190.0 };
    let (head, row) = if narrow { (16.0, 44.0) } else { (0.0, 30.0) };
    let title = wrap(caption, 15.0, width - 16.0);
    let top = 14.0 + 20.0 * title.len() as f64;
    // The terms' legend, packed left to right and wrapped at the width.
    let mut keys = Vec::new();
    let (mut x, mut line) = (left, 0.0);
    for name in TERMS {
        let w = 20.0 + crate::svg::text_width(name, 12.0) + 24.0;
        if x > left && x + w > width {
            (x, line) = (left, line + 1.0);
        }
        keys.push((x, line));
        x += w;
    }
    let height = top + row * bars.len() as f64 + 30.0 + 20.0 * (line + 1.0);
    let mut svg = Svg::new(width, height, theme.background, caption);
    for (i, line) in title.iter().enumerate() {
        svg.text((width / 2.0, 20.0 + 20.0 * i as f64), line, 15.0, theme.foreground, "middle", "");
    }
    let most = bars.iter().map(|b| b.1.iter().sum::<f64>()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    let span = width - left - 80.0;
    for (i, (name, terms)) in bars.iter().enumerate() {
        let y = top + row * i as f64;
        let weight = if i == winner { r#"font-weight="bold""# } else { "" };
        if narrow {
            svg.text((left, y + 13.0), name, 13.0, theme.foreground, "start", weight);
        } else {
            svg.text((left - 8.0, y + 18.0), name, 13.0, theme.foreground, "end", weight);
        }
        let y = y + head;
        let mut x = left;
        for (k, &t) in terms.iter().enumerate() {
            let w = t / most * span;
            if w > 0.0 {
                svg.rect((x, y + 5.0), (w, 20.0), TERM_COLORS[k], "");
            }
            x += w;
        }
        let total: f64 = terms.iter().sum();
        svg.text((x + 6.0, y + 18.0), &format_quantity(total), 12.0, theme.foreground, "start", "");
    }
    let y = top + row * bars.len() as f64 + 22.0;
    for (k, name) in TERMS.iter().enumerate() {
        let (x, line) = keys[k];
        let y = y + 20.0 * line;
        svg.rect((x, y - 11.0), (14.0, 14.0), TERM_COLORS[k], "");
        svg.text((x + 20.0, y), name, 12.0, theme.foreground, "start", "");
    }
    svg.finish()
}

/// One library's row of [`library_band_svg`]: its name, then per size the
/// pick's colour (ours where it has a counterpart, `None` for grey), the
/// legend name of the pick and a hover text.
pub struct BandRow {
    /// The library.
    pub library: String,
    /// Per size: colour, legend name, hover text.
    pub cells: Vec<(Option<RGBColor>, String, String)>,
}

/// Greys for picks without a counterpart, told apart by shade.
const BAND_GREYS: [RGBColor; 4] =
    [RGBColor(150, 150, 150), RGBColor(95, 95, 95), RGBColor(200, 200, 200), RGBColor(120, 120, 120)];

/// A band per library above the time chart: a cell per message size
/// coloured by what that library runs (our algorithm's colour where it
/// runs one of ours, grey otherwise), every cell titled with its pick, and
/// a legend of the picks under it. Laid out for a box `width` px wide (at
/// most 900): library names left of their band, or above it on a narrow
/// drawing.
pub fn library_band_svg(caption: &str, sizes: &[u64], rows: &[BandRow], width: f64, theme: &Theme) -> String {
    let width = width.min(900.0);
    let narrow = width < f64::from(crate::NARROW);
    let (left, head, row_h) = if narrow { (8.0, 16.0, 38.0) } else { (150.0, 0.0, 22.0) };
    let title = wrap(caption, 14.0, width - 16.0);
    let top = 10.0 + 18.0 * title.len() as f64;
    // The legend: each distinct (colour, name) once, in order of appearance.
    let mut legend: Vec<(RGBColor, String)> = Vec::new();
    let mut greys: Vec<String> = Vec::new();
    let mut color_of = |c: Option<RGBColor>, name: &str| -> RGBColor {
        let color = c.unwrap_or_else(|| {
            let k = greys.iter().position(|g| g == name).unwrap_or_else(|| {
                greys.push(name.to_owned());
                greys.len() - 1
            });
            BAND_GREYS[k % BAND_GREYS.len()]
        });
        if !legend.iter().any(|(lc, ln)| *lc == color && ln == name) {
            legend.push((color, name.to_owned()));
        }
        color
    };
    let cells: Vec<Vec<(RGBColor, &str)>> = rows
        .iter()
        .map(|r| r.cells.iter().map(|(c, name, hover)| (color_of(*c, name), hover.as_str())).collect())
        .collect();
    // Legend columns of 440 px, as many as fit; a name wraps in its column.
    let per_line = ((width - 20.0) / 440.0).floor().max(1.0) as usize;
    let column = if per_line == 1 { width - 20.0 } else { 440.0 };
    let names: Vec<Vec<String>> = legend.iter().map(|(_, n)| wrap(n, 11.0, column - 24.0)).collect();
    let legend_rows: Vec<f64> =
        names.chunks(per_line).map(|line| line.iter().map(Vec::len).max().unwrap_or(1) as f64 * 15.0 + 3.0).collect();
    let height = top + row_h * rows.len() as f64 + 22.0 + legend_rows.iter().sum::<f64>() + 8.0;
    let mut svg = Svg::new(width, height, theme.background, caption);
    for (i, line) in title.iter().enumerate() {
        svg.text((width / 2.0, 18.0 + 18.0 * i as f64), line, 14.0, theme.foreground, "middle", "");
    }
    let span = width - left - 20.0;
    let cell_w = span / sizes.len().max(1) as f64;
    for (i, (row, cells)) in rows.iter().zip(&cells).enumerate() {
        let y = top + row_h * i as f64;
        if narrow {
            svg.text((left, y + 13.0), &row.library, 13.0, theme.foreground, "start", "");
        } else {
            svg.text((left - 8.0, y + 15.0), &row.library, 13.0, theme.foreground, "end", "");
        }
        let y = y + head;
        for (j, (color, hover)) in cells.iter().enumerate() {
            let x = left + cell_w * j as f64;
            svg.raw(&format!(
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{}</title></rect>"#,
                y + 2.0,
                cell_w - 1.0,
                row_h - head - 4.0,
                hex(*color),
                escape(hover)
            ));
        }
    }
    let axis_y = top + row_h * rows.len() as f64 + 14.0;
    // Size labels at least 56 px apart.
    let every = (sizes.len() / 8).max((56.0 / cell_w).ceil() as usize).max(1);
    for (j, &n) in sizes.iter().enumerate().step_by(every) {
        let x = left + cell_w * (j as f64 + 0.5);
        svg.text((x, axis_y), &short_bytes(n), 11.0, theme.foreground, "middle", "");
    }
    let mut y = axis_y + 20.0;
    for (line, (colors, names)) in legend.chunks(per_line).zip(names.chunks(per_line)).enumerate() {
        for (k, ((color, _), lines)) in colors.iter().zip(names).enumerate() {
            let x = 20.0 + 440.0 * k as f64;
            svg.rect((x, y - 10.0), (12.0, 12.0), *color, "");
            for (i, text) in lines.iter().enumerate() {
                svg.text((x + 17.0, y + 15.0 * i as f64), text, 11.0, theme.foreground, "start", "");
            }
        }
        y += legend_rows[line];
    }
    svg.finish()
}

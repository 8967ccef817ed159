//! Charts of the runtime model: `T(m)` with `m*`, the best and the chosen
//! integer `m` and the binomial reference; `T(p)` for pipeline vs binomial.

use crate::{format_bytes, format_quantity, PlotError, Theme};
use commlab_core::model::{ModelConfig, Optimum};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Chart text size in plotters' units: 15 is written as 12 px in the SVG, so
/// labels stay at least 12 px wherever a chart is drawn at its own width or wider.
pub(crate) const TEXT: u32 = 15;

/// Width of the legend strip right of the plotting area.
const LEGEND_WIDTH: u32 = 200;
/// Where a chart's caption goes, as `ChartBuilder::caption` put it: 5 px
/// below the 12 px margin, then its line (19 px text at the page's line
/// height 1.45 is 28 px, as the browser lays it out), then 5 px: the chart
/// starts 12 + 5 + 28 + 5 px from the top.
const CAPTION_TOP: i32 = 12 + 5;
const CHART_TOP: u32 = 12 + 5 + 28 + 5;

/// Samples drawn for a curve: enough for a smooth line at any chart width.
const CURVE_POINTS: usize = 400;

/// A simulated measurement drawn on top of an analytic curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marker {
    /// Position on the x axis.
    pub x: f64,
    /// Position on the y axis.
    pub y: f64,
}

fn font(theme: &Theme, size: u32) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&theme.foreground)
}

/// A value range padded for a log axis (or a linear one when it touches zero).
pub(crate) struct Span {
    pub(crate) low: f64,
    pub(crate) high: f64,
    pub(crate) log: bool,
}

impl Span {
    pub(crate) fn of(values: impl Iterator<Item = f64>) -> Span {
        let (low, high) = values.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        if low > 0.0 && high.is_finite() {
            let (low, high) = if high / low < 1.05 { (low / 1.5, high * 1.5) } else { (low / 1.25, high * 1.25) };
            Span { low, high, log: true }
        } else {
            Span { low: 0.0, high: if high > 0.0 { high * 1.1 } else { 1.0 }, log: false }
        }
    }

    pub(crate) fn units(low: u64, high: u64) -> Span {
        let high = if high > low { high as f64 } else { low as f64 + 1.0 };
        Span { low: low as f64, high, log: true }
    }
}

/// What a chart draws inside its axes.
type Body<'b, DB> = &'b mut dyn FnMut(&mut dyn FrameOps<DB>) -> Result<(), PlotError>;

/// Draws `body` on a 2-D chart whose axes are log or linear as the spans ask,
/// laid out for the root's width (see [`crate::NARROW`]); returns the height used.
pub(crate) fn with_axes<DB, F>(
    root: &DrawingArea<DB, Shift>,
    labels: [&str; 3],
    theme: &Theme,
    spans: (&Span, &Span),
    body: F,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    F: FnOnce(&mut dyn FrameOps<DB>) -> Result<(), PlotError>,
{
    // The frame is built once per backend, not once per chart: each of its
    // four axis combinations is a large monomorph (the UI bundle's bytes).
    let mut body = Some(body);
    axes(root, labels, theme, spans, &mut |f| body.take().map_or(Ok(()), |b| b(f)))
}

fn axes<DB>(
    root: &DrawingArea<DB, Shift>,
    [caption, x_desc, y_desc]: [&str; 3],
    theme: &Theme,
    (x, y): (&Span, &Span),
    body: Body<'_, DB>,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    // Labelled ticks at least ~70 px apart on x and ~40 px on y, at any width.
    let (width, _) = root.dim_in_pixel();
    let x_ticks = (Layout::of(width, 0).plot_width() / 70).clamp(3, 12) as usize;
    let xs = Axis::of(x, log_ticks_at_most(x.low, x.high, x_ticks));
    let ys = Axis::of(y, log_ticks(y.low, y.high));
    draw_frame(root, [caption, x_desc, y_desc], theme, (x.log, y.log), xs, ys, body)
}

/// One axis, linear or logarithmic (with its labelled ticks), as one type:
/// plotters' drawing code is generic over the coordinate type, so the
/// frame is built once per backend instead of once per combination of axis
/// kinds (four: ~30 KB of each bundle that draws charts).
enum Axis {
    Linear(plotters::coord::types::RangedCoordf64),
    Log(plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>>),
}

impl Axis {
    /// `span` as a linear axis, or a logarithmic one with ticks at `ticks`.
    fn of(span: &Span, ticks: Vec<f64>) -> Axis {
        use plotters::coord::combinators::{BindKeyPoints, IntoLogRange};
        if span.log {
            Axis::Log((span.low..span.high).log_scale().with_key_points(ticks))
        } else {
            Axis::Linear((span.low..span.high).into())
        }
    }
}

impl plotters::coord::ranged1d::Ranged for Axis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        match self {
            Axis::Linear(a) => a.map(value, limit),
            Axis::Log(a) => a.map(value, limit),
        }
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        match self {
            Axis::Linear(a) => a.key_points(hint),
            Axis::Log(a) => a.key_points(hint),
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        match self {
            Axis::Linear(a) => a.range(),
            Axis::Log(a) => a.range(),
        }
    }
}

/// Object-safe drawing operations on a chart of any coordinate type.
/// A segment between two points in data coordinates.
pub(crate) type Segment = ((f64, f64), (f64, f64));

pub(crate) trait FrameOps<DB: DrawingBackend> {
    /// Several segments sharing one legend entry.
    fn segments(&mut self, segments: &[Segment], style: ShapeStyle, label: &str) -> Result<(), PlotError>;
    /// Segments without a legend entry (whiskers).
    fn bare_segments(&mut self, segments: &[Segment], style: ShapeStyle) -> Result<(), PlotError>;
    /// A polyline with a legend entry.
    fn line(&mut self, points: &[(f64, f64)], style: ShapeStyle, label: &str) -> Result<(), PlotError>;
    /// A dashed polyline with a legend entry.
    fn dashed(&mut self, points: &[(f64, f64)], style: ShapeStyle, label: &str) -> Result<(), PlotError>;
    /// Filled dots without a legend entry.
    fn bare_dots(&mut self, points: &[(f64, f64)], radius: u32, style: ShapeStyle) -> Result<(), PlotError>;
    /// Dashed segments; a legend entry unless `label` is empty.
    fn dashed_segments(&mut self, segments: &[Segment], style: ShapeStyle, label: &str) -> Result<(), PlotError>;
    /// Filled dots with a legend entry.
    fn dots(&mut self, points: &[(f64, f64)], radius: u32, style: ShapeStyle, label: &str) -> Result<(), PlotError>;
    /// A labelled point marker with a legend entry.
    fn marker(
        &mut self,
        at: (f64, f64),
        text: &str,
        style: ShapeStyle,
        text_style: &TextStyle<'_>,
    ) -> Result<(), PlotError>;
    /// The visible y range.
    fn y_range(&self) -> (f64, f64);
}

struct Chart<'c, 'a, DB: DrawingBackend, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    &'c mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    /// The legend entries, drawn beside the plotting area once the series are.
    Vec<(String, Glyph, ShapeStyle)>,
    /// The boxes of the marker labels drawn so far, and of their dots (px).
    Vec<LabelBox>,
);

/// A box in pixels: left, top, right, bottom.
type LabelBox = [i32; 4];

/// How a legend entry shows its series.
#[derive(Clone, Copy)]
enum Glyph {
    Line,
    Dashed,
    Tick,
    Dot(u32),
}

impl<DB, X, Y> FrameOps<DB> for Chart<'_, '_, DB, X, Y>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    fn line(&mut self, points: &[(f64, f64)], style: ShapeStyle, label: &str) -> Result<(), PlotError> {
        self.0.draw_series(LineSeries::new(points.iter().copied(), style))?;
        self.1.push((label.to_owned(), Glyph::Line, style));
        Ok(())
    }

    fn segments(&mut self, segments: &[Segment], style: ShapeStyle, label: &str) -> Result<(), PlotError> {
        self.0.draw_series(segments.iter().map(|&(a, b)| PathElement::new(vec![a, b], style)))?;
        self.1.push((label.to_owned(), Glyph::Tick, style));
        Ok(())
    }

    fn bare_segments(&mut self, segments: &[Segment], style: ShapeStyle) -> Result<(), PlotError> {
        self.0.draw_series(segments.iter().map(|&(a, b)| PathElement::new(vec![a, b], style)))?;
        Ok(())
    }

    fn dashed(&mut self, points: &[(f64, f64)], style: ShapeStyle, label: &str) -> Result<(), PlotError> {
        self.0.draw_series(DashedLineSeries::new(points.iter().copied(), 6, 4, style))?;
        self.1.push((label.to_owned(), Glyph::Dashed, style));
        Ok(())
    }

    fn bare_dots(&mut self, points: &[(f64, f64)], radius: u32, style: ShapeStyle) -> Result<(), PlotError> {
        self.0.draw_series(points.iter().map(|&p| Circle::new(p, radius, style)))?;
        Ok(())
    }

    fn dashed_segments(&mut self, segments: &[Segment], style: ShapeStyle, label: &str) -> Result<(), PlotError> {
        for &(a, b) in segments {
            self.0.draw_series(DashedLineSeries::new([a, b], 6, 4, style))?;
        }
        if !label.is_empty() {
            self.1.push((label.to_owned(), Glyph::Dashed, style));
        }
        Ok(())
    }

    fn dots(&mut self, points: &[(f64, f64)], radius: u32, style: ShapeStyle, label: &str) -> Result<(), PlotError> {
        self.0.draw_series(points.iter().map(|&p| Circle::new(p, radius, style)))?;
        self.1.push((label.to_owned(), Glyph::Dot(radius), style));
        Ok(())
    }

    fn marker(
        &mut self,
        at: (f64, f64),
        text: &str,
        style: ShapeStyle,
        text_style: &TextStyle<'_>,
    ) -> Result<(), PlotError> {
        let label = text.to_owned();
        let pixel = self.0.as_coord_spec().translate(&at);
        let (tx, ty) = marker_offset(pixel, self.0.plotting_area().get_pixel_range(), label.chars().count(), &self.2);
        let size = label_size(label.chars().count());
        self.2.push([pixel.0 + tx, pixel.1 + ty, pixel.0 + tx + size.0, pixel.1 + ty + size.1]);
        self.2.push([pixel.0 - 6, pixel.1 - 6, pixel.0 + 6, pixel.1 + 6]);
        self.0.draw_series(std::iter::once(
            EmptyElement::at(at)
                + Circle::new((0, 0), 6, style)
                + Text::new(label.clone(), (tx, ty), text_style.clone()),
        ))?;
        self.1.push((label, Glyph::Dot(5), style));
        Ok(())
    }

    fn y_range(&self) -> (f64, f64) {
        let r = self.0.y_range();
        (r.start, r.end)
    }
}

/// The labelled ticks of a log axis over `[low, high]`: 1, 2 and 5 × 10^k,
/// and every whole multiple of 10^k when those give fewer than four, so a
/// span of less than a decade still reads (`3 000 … 9 000`). Many decades
/// thin out to every second or third power of ten (at most 12 ticks).
pub fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    log_ticks_at_most(low, high, 12)
}

/// [`log_ticks`] thinned to at most `max` (at least 2): the narrow charts'
/// axes, where twelve labels would overlap.
pub fn log_ticks_at_most(low: f64, high: f64, max: usize) -> Vec<f64> {
    let max = max.max(2);
    if !(low > 0.0 && high > low && high.is_finite()) {
        return Vec::new();
    }
    let ticks = |mantissas: &[f64]| -> Vec<f64> {
        let (first, last) = (low.log10().floor() as i32, high.log10().ceil() as i32);
        let mut out = Vec::new();
        for k in first..=last {
            for m in mantissas {
                // Exact decimal values: 10^k is exact as a literal power for |k| ≤ 22.
                let v = m * 10f64.powi(k);
                if v >= low * (1.0 - 1e-12) && v <= high * (1.0 + 1e-12) {
                    out.push(v);
                }
            }
        }
        out
    };
    let mut out = ticks(&[1.0, 2.0, 5.0]);
    if out.len() < 5 {
        out = ticks(&[1.0, 2.0, 3.0, 5.0]);
    }
    if out.len() < 4 {
        out = ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    }
    if out.len() > max {
        out = ticks(&[1.0, 3.0]);
    }
    if out.len() > max {
        let powers = ticks(&[1.0]);
        let every = powers.len().div_ceil(max.min(10)).max(1);
        out = powers.into_iter().enumerate().filter(|(i, _)| i % every == 0).map(|(_, v)| v).collect();
    }
    out
}

/// A tick label (the ticks themselves are chosen by [`log_ticks`] on log
/// axes). On a log axis that reaches 10⁶, where [`format_quantity`] turns
/// scientific, every tick from 10⁴ up is written so too: one axis does not
/// read `100 000` and then `1e6`.
fn tick_label(value: f64, log: bool, high: f64) -> String {
    if log && high >= 1e6 && value.abs() >= 1e4 {
        crate::scientific(value)
    } else {
        format_quantity(value)
    }
}

/// Places a marker's label right of and above the point, flipped inwards near the edges.
/// A marker label's size in px at the charts' 15 px text: 9 px a character
/// (wider than sans-serif's digits and letters on average), 18 px high.
fn label_size(chars: usize) -> (i32, i32) {
    (i32::try_from(chars).unwrap_or(i32::MAX / 16).saturating_mul(9), 18)
}

/// Where a marker's label goes, relative to its dot at `pixel`: above and
/// right of the dot, else below right, above left, below left (the first of
/// these inside the plotting area and clear of the labels and dots already
/// drawn, `placed`); the least overlapping one when none is.
fn marker_offset(
    pixel: (i32, i32),
    area: (std::ops::Range<i32>, std::ops::Range<i32>),
    chars: usize,
    placed: &[LabelBox],
) -> (i32, i32) {
    let (w, h) = label_size(chars);
    let candidates = [(9, -22), (9, 8), (-9 - w, -22), (-9 - w, 8)];
    let overlap = |a: &LabelBox, b: &LabelBox| {
        let x = (a[2].min(b[2]) - a[0].max(b[0])).max(0);
        let y = (a[3].min(b[3]) - a[1].max(b[1])).max(0);
        i64::from(x) * i64::from(y)
    };
    let cost = |&(dx, dy): &(i32, i32)| {
        let b = [pixel.0 + dx, pixel.1 + dy, pixel.0 + dx + w, pixel.1 + dy + h];
        let outside = [area.0.start - b[0], b[2] - area.0.end, area.1.start - b[1], b[3] - area.1.end]
            .iter()
            .map(|&d| i64::from(d.max(0)))
            .sum::<i64>();
        outside * 1000 + placed.iter().map(|p| overlap(&b, p)).sum::<i64>()
    };
    candidates.iter().copied().min_by_key(cost).unwrap_or((9, -22))
}

/// Where a chart's parts go in a drawing of a given size: beside the plot
/// (the legend in a strip on its right) from [`crate::NARROW`] px up, under
/// it below (the caption wrapped to the width).
struct Layout {
    width: u32,
    /// The height of caption, plot and axes (the legend may go below it).
    height: u32,
    narrow: bool,
}

impl Layout {
    fn of(width: u32, height: u32) -> Layout {
        let narrow = width < crate::NARROW;
        let height = if narrow { height.saturating_sub(crate::LEGEND_ROOM) } else { height };
        Layout { width, height, narrow }
    }

    /// Right margin: the legend strip, or only the margin when it goes below.
    fn right(&self) -> u32 {
        if self.narrow {
            12
        } else {
            LEGEND_WIDTH + 12
        }
    }

    /// The plotting area's width (the y labels and margins off).
    fn plot_width(&self) -> u32 {
        self.width.saturating_sub(12 + 64 + self.right())
    }

    /// The caption's size (plotters' units), line height (px) and lines,
    /// wrapped to the width over the plot (sans-serif averages ~0.55 em a
    /// character: 17 units are 13.7 px, 19 are 15.3 px).
    fn caption(&self, caption: &str) -> (u32, i32, Vec<String>) {
        let room = f64::from(self.width.saturating_sub(self.right() + 24));
        if self.narrow {
            (17, 21, wrap_words(caption, ((room / 7.5) as usize).max(12)))
        } else {
            (19, 24, wrap_words(caption, ((room / 8.4) as usize).max(12)))
        }
    }

    /// Legend text characters per line below the plot.
    fn legend_chars(&self) -> usize {
        if self.narrow {
            // 15 units are 12 px, ~6.6 px a character; the glyph takes 38 px.
            ((f64::from(self.width.saturating_sub(50)) / 6.6) as usize).max(12)
        } else {
            LEGEND_CHARS
        }
    }
}

fn draw_frame<DB, XS, YS>(
    root: &DrawingArea<DB, Shift>,
    [caption, x_desc, y_desc]: [&str; 3],
    theme: &Theme,
    (x_log, y_log): (bool, bool),
    xs: XS,
    ys: YS,
    body: Body<'_, DB>,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
    XS: AsRangedCoord<Value = f64>,
    YS: AsRangedCoord<Value = f64>,
    XS::CoordDescType: ValueFormatter<f64>,
    YS::CoordDescType: ValueFormatter<f64>,
{
    // The caption is drawn here, in the place `ChartBuilder::caption` gives
    // it, but over a fixed height: `caption` measures its text, which
    // plotters does in the browser by adding a span to the page and reading
    // its size — a forced layout of the whole page (~10 ms per chart with
    // the winner map on the page). CHART_TOP holds the height the browser
    // measured for the page's 19 px line.
    let (width, height) = root.dim_in_pixel();
    let layout = Layout::of(width, height);
    let (size, line_height, lines) = layout.caption(caption);
    let (left, right) = (12, i32::try_from(width.saturating_sub(layout.right())).unwrap_or(i32::MAX));
    let style = font(theme, size).pos(Pos::new(HPos::Center, VPos::Top));
    let mut chart_top = CHART_TOP;
    if lines.len() == 1 {
        root.draw(&Text::new(caption, (left + (right - left) / 2, CAPTION_TOP), style))?;
    } else {
        let mut y = CAPTION_TOP;
        for line in &lines {
            root.draw(&Text::new(line.as_str(), (left + (right - left) / 2, y), style.clone()))?;
            y += line_height;
        }
        chart_top = u32::try_from(y + 8).unwrap_or(CHART_TOP);
    }
    // The plot's own area: all of it in the wide layout, the top `height`
    // pixels in the narrow one (the legend goes below).
    let (area, _) = root.split_vertically(layout.height);
    // The legend goes right of the data, never over a curve: a strip of
    // LEGEND_WIDTH pixels beside the plotting area, or the rows under it.
    let mut chart = ChartBuilder::on(&area)
        .margin(12)
        .margin_right(layout.right())
        .margin_top(chart_top)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(xs, ys)?;
    let axis_text = font(theme, TEXT);
    let (x_high, y_high) = (chart.x_range().end, chart.y_range().end);
    let (x_labels, y_labels) = if layout.narrow { (4, 6) } else { (10, 10) };
    chart
        .configure_mesh()
        .axis_style(theme.foreground)
        .bold_line_style(theme.grid)
        .light_line_style(theme.grid.mix(0.12))
        .x_labels(x_labels)
        .y_labels(y_labels)
        .label_style(axis_text.clone())
        .axis_desc_style(axis_text)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|v| tick_label(*v, x_log, x_high))
        .y_label_formatter(&|v| tick_label(*v, y_log, y_high))
        .draw()?;
    let mut frame = Chart(&mut chart, Vec::new(), Vec::new());
    body(&mut frame)?;
    let legend = frame.1;
    // The legend, in the strip right of the plotting area or under the
    // chart (drawn on the root area: the plotting area clips what lies
    // outside it).
    let (plot_x, plot_y) = chart.plotting_area().get_pixel_range();
    let (x0, mut y) = if layout.narrow {
        (12, i32::try_from(layout.height).unwrap_or(i32::MAX) + 4)
    } else {
        (plot_x.end + 14, plot_y.start + 10)
    };
    let text = font(theme, TEXT);
    for (label, glyph, style) in legend {
        match glyph {
            Glyph::Line => root.draw(&PathElement::new(vec![(x0, y), (x0 + 18, y)], style))?,
            Glyph::Dashed => {
                root.draw(&PathElement::new(vec![(x0, y), (x0 + 7, y)], style))?;
                root.draw(&PathElement::new(vec![(x0 + 11, y), (x0 + 18, y)], style))?;
            }
            Glyph::Tick => root.draw(&PathElement::new(vec![(x0 + 9, y - 6), (x0 + 9, y + 6)], style))?,
            Glyph::Dot(r) => root.draw(&Circle::new((x0 + 9, y), r.min(6), style))?,
        }
        let mut line_y = y - 7;
        for line in wrap_words(&label, layout.legend_chars()) {
            root.draw(&Text::new(line, (x0 + 26, line_y), text.clone()))?;
            line_y += 17;
        }
        // The next entry 20 px below this one's last line.
        y = line_y - 17 + 7 + 20;
    }
    Ok(if layout.narrow { u32::try_from(y).unwrap_or(height).min(height) } else { height })
}

/// Characters of legend text per line: the strip's width after the glyph
/// (`LEGEND_WIDTH` − 26 px), at about 8.4 px per character of 15 px sans-serif.
const LEGEND_CHARS: usize = 20;

/// `text` in lines of at most `max` characters, broken between words (a
/// longer word has a line of its own).
pub fn wrap_words(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= max => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines
}

/// `T(m)` over the integer piece counts `1..=piece_limit`, with the real `m*`
/// (vertical line), the best integer `m` and the chosen `m` marked and
/// labelled, the binomial time as a dashed reference line, and optional
/// `simulated` points (the event simulation) and `network` points (the same
/// chain on a line of hosts, `docs/network.md`) on top of the analytic curve.
///
/// # Errors
/// When the backend fails to draw.
pub fn pieces_chart<DB>(
    root: &DrawingArea<DB, Shift>,
    model: &ModelConfig,
    chosen_pieces: u64,
    [simulated, network]: [&[Marker]; 2],
    theme: &Theme,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&theme.background)?;
    let limit = model.piece_limit();
    let curve: Vec<(f64, f64)> = model.pieces_curve(CURVE_POINTS).iter().map(|&(m, t)| (m as f64, t)).collect();
    let summary = model.summary();
    let chosen = chosen_pieces.clamp(1, limit);
    let x = Span::units(1, limit);
    let y = Span::of(curve.iter().map(|p| p.1).chain([summary.binomial_time]));
    let caption = format!("Pipelined reduction: T(m) for n = {}, p = {}", format_bytes(model.bytes()), model.units());
    let label = font(theme, TEXT);
    with_axes(root, [&caption, "pieces m", "time T (µs)"], theme, (&x, &y), |f| {
        f.line(&curve, theme.primary.stroke_width(2), "pipeline T(m)")?;
        f.dashed(
            &[(x.low, summary.binomial_time), (x.high, summary.binomial_time)],
            theme.reference.stroke_width(2),
            &format!("binomial tree {}", format_quantity(summary.binomial_time)),
        )?;
        if let Optimum::Interior(m_star) = summary.optimum {
            if (x.low..=x.high).contains(&m_star) {
                let (y0, y1) = f.y_range();
                f.dashed(
                    &[(m_star, y0), (m_star, y1)],
                    theme.optimum.stroke_width(1),
                    &format!("m* = {}", format_quantity(m_star)),
                )?;
            }
        }
        if !network.is_empty() {
            // Larger rings under the event simulation's dots: the two agree.
            let points: Vec<(f64, f64)> = network.iter().map(|m| (m.x, m.y)).collect();
            f.dots(&points, 6, theme.optimum.stroke_width(2), "on a line of hosts with these links (network, W = 1)")?;
        }
        if !simulated.is_empty() {
            let points: Vec<(f64, f64)> = simulated.iter().map(|m| (m.x, m.y)).collect();
            f.dots(&points, 3, theme.foreground.filled(), "pipeline, event simulation")?;
        }
        let best = summary.best_pieces;
        f.marker((chosen as f64, model.time_at(chosen)), &format!("m = {chosen}"), theme.chosen.filled(), &label)?;
        if best <= limit {
            f.marker((best as f64, summary.time_at_best), &format!("best m = {best}"), theme.best.filled(), &label)?;
        } else {
            // The true best lies beyond the chart: mark the range's best and say where it is.
            let edge = model.best_pieces_up_to(limit);
            let text = format!("best m = {best} (beyond max pieces)");
            f.marker((edge as f64, model.time_at(edge)), &text, theme.best.filled(), &label)?;
        }
        Ok(())
    })
}

/// `T(p)` for `p` in `2..=max_units`: the pipeline at the chosen `m`, the
/// pipeline at each `p`'s best integer `m`, and the binomial tree, with the
/// current `p` marked.
///
/// # Errors
/// When the backend fails to draw.
pub fn units_chart<DB>(
    root: &DrawingArea<DB, Shift>,
    model: &ModelConfig,
    chosen_pieces: u64,
    max_units: u64,
    simulated_binomial: &[Marker],
    theme: &Theme,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&theme.background)?;
    let points = model.units_curve(chosen_pieces, max_units, CURVE_POINTS / 2);
    let chosen = chosen_pieces.clamp(1, model.piece_limit());
    let pick = |f: fn(&commlab_core::model::UnitsPoint) -> f64| -> Vec<(f64, f64)> {
        points.iter().map(|u| (u.units as f64, f(u))).collect()
    };
    let (at_chosen, at_best, binomial) = (pick(|u| u.time_chosen), pick(|u| u.time_best), pick(|u| u.binomial_time));
    let x = Span::units(2, points.last().map_or(2, |u| u.units));
    let y = Span::of(at_chosen.iter().chain(&at_best).chain(&binomial).map(|p| p.1));
    let caption = format!("Pipeline vs binomial tree: T(p) for n = {}", format_bytes(model.bytes()));
    let label = font(theme, TEXT);
    with_axes(root, [&caption, "units p", "time T (µs)"], theme, (&x, &y), |f| {
        f.line(&binomial, theme.reference.stroke_width(2), "binomial tree")?;
        f.line(&at_chosen, theme.chosen.stroke_width(2), &format!("pipeline, m = {chosen}"))?;
        f.dashed(&at_best, theme.primary.stroke_width(2), "pipeline, best m for each p")?;
        if !simulated_binomial.is_empty() {
            let points: Vec<(f64, f64)> = simulated_binomial.iter().map(|m| (m.x, m.y)).collect();
            f.dots(&points, 3, theme.foreground.filled(), "binomial, event simulation")?;
        }
        let p = model.units();
        if p >= 2 {
            let here = model.with_units(p).map_or(0.0, |m| m.time_at(m.best_pieces()));
            f.marker((p as f64, here), &format!("p = {p}"), theme.best.filled(), &label)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod marker_label_tests {
    use super::{label_size, marker_offset, LabelBox};

    /// Two markers on one point (the chosen m is the best m): the second
    /// label goes where it meets neither the first nor either dot; a dot at
    /// the right edge has its label on its left, clear of the dot.
    #[test]
    fn labels_at_one_point_do_not_meet() {
        let area = (0..800, 0..400);
        let at = (400, 200);
        let mut placed: Vec<LabelBox> = Vec::new();
        let place = |chars: usize, placed: &mut Vec<LabelBox>| {
            let (dx, dy) = marker_offset(at, area.clone(), chars, placed);
            let (w, h) = label_size(chars);
            let b = [at.0 + dx, at.1 + dy, at.0 + dx + w, at.1 + dy + h];
            placed.push(b);
            placed.push([at.0 - 6, at.1 - 6, at.0 + 6, at.1 + 6]);
            b
        };
        let a = place("m = 653".len(), &mut placed);
        let b = place("best m = 653".len(), &mut placed);
        let meet = |p: &LabelBox, q: &LabelBox| p[0] < q[2] && q[0] < p[2] && p[1] < q[3] && q[1] < p[3];
        assert!(!meet(&a, &b), "{a:?} {b:?}");
        let dot = [at.0 - 6, at.1 - 6, at.0 + 6, at.1 + 6];
        assert!(!meet(&a, &dot) && !meet(&b, &dot));
        let edge = (795, 200);
        let (dx, _) = marker_offset(edge, area, "p = 256".len(), &[]);
        assert!(edge.0 + dx + label_size(7).0 <= edge.0 - 6, "left of the dot: {dx}");
    }
}

#[cfg(test)]
mod log_tick_tests {
    use super::{log_ticks, tick_label};

    /// One axis, one style: a log axis reaching 10⁶ writes 10 000 and up
    /// as powers (`1e4` … `1e7`), as it must write 10⁶ itself; an axis that
    /// stays below keeps `100 000`, and a linear axis its grouped digits.
    #[test]
    fn a_log_axis_writes_its_large_ticks_one_way() {
        let labels: Vec<String> = log_ticks(1000.0, 1e7).iter().map(|&v| tick_label(v, true, 1e7)).collect();
        for want in ["1000", "3000", "1e4", "3e4", "1e5", "1e6", "1e7"].map(String::from) {
            assert!(labels.contains(&want), "{want} not in {labels:?}");
        }
        assert!(!labels.iter().any(|l| l.contains("000\u{2009}000") || l == "10\u{2009}000"), "{labels:?}");
        assert_eq!(tick_label(1e5, true, 5e5), "100\u{2009}000");
        assert_eq!(tick_label(1e5, false, 1e7), "100\u{2009}000");
    }

    #[test]
    fn log_ticks_label_every_span() {
        // The runtime model's T(m): 2 625 … 88 000 (its optimum is 3 281).
        assert_eq!(log_ticks(2625.0, 88_000.0), vec![3000.0, 5000.0, 10_000.0, 20_000.0, 30_000.0, 50_000.0]);
        // Less than a decade: every whole multiple.
        assert_eq!(log_ticks(2625.0, 9000.0), vec![3000.0, 4000.0, 5000.0, 6000.0, 7000.0, 8000.0, 9000.0]);
        // Twelve decades: powers of ten, thinned, each once.
        let wide = log_ticks(1.0, 1e12);
        assert!(wide.len() <= 12 && wide.contains(&1.0) && wide.windows(2).all(|w| w[0] < w[1]), "{wide:?}");
        assert!(log_ticks(0.0, 10.0).is_empty());
    }
}

//! `commlab-plot`: plotters drawings of commlab's core results.
//!
//! Every chart is a function generic over the plotters backend, so the same
//! code renders to an SVG string natively (tests, CLI figures) and in the
//! browser. Entry points: [`model::pieces_chart`] (`T(m)`),
//! [`model::units_chart`] (`T(p)`), [`render_svg`] to get an SVG string, and
//! [`format_quantity`] for the compact numbers shared with the UI tables.
//! Hand-laid-out diagrams, where plotters' chart model does not fit, are
//! written as SVG text with [`svg::Svg`]: [`tree::tree_svg`] (the binomial
//! tree), [`pipeline::pipeline_svg`] (the space-time diagram) and
//! [`swizzle`] (the CommSwizzle grid, timeline and collisions); [`mesh`] draws
//! the barrier mesh as a scene for SVG or canvas, [`barrier`] the experiment figures,
//! [`chooser`] the collective chooser's charts.

/// The colour type of the drawing functions (plotters' own).
pub use plotters::style::RGBColor;

pub mod barrier;
pub mod chooser;
pub mod mesh;
pub mod model;
pub mod network;
pub mod pipeline;
pub mod svg;
pub mod swizzle;
pub mod timeline;
pub mod tree;

use plotters::prelude::*;

/// Colours of one theme. Series colours are from the Okabe–Ito palette, which
/// stays distinguishable for the common colour-vision deficiencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// Chart background.
    pub background: RGBColor,
    /// Text and axes.
    pub foreground: RGBColor,
    /// Grid lines.
    pub grid: RGBColor,
    /// Main series (pipeline `T`).
    pub primary: RGBColor,
    /// Reference series (binomial tree).
    pub reference: RGBColor,
    /// The real optimum `m*`.
    pub optimum: RGBColor,
    /// The best integer choice.
    pub best: RGBColor,
    /// The user's chosen value.
    pub chosen: RGBColor,
}

impl Theme {
    /// The dark theme when `dark`, else the light one.
    pub const fn of(dark: bool) -> Theme {
        if dark {
            Theme::DARK
        } else {
            Theme::LIGHT
        }
    }

    /// Dark text on white.
    pub const LIGHT: Theme = Theme {
        background: RGBColor(255, 255, 255),
        foreground: RGBColor(32, 33, 36),
        grid: RGBColor(218, 220, 224),
        primary: RGBColor(0, 114, 178),
        reference: RGBColor(213, 94, 0),
        optimum: RGBColor(180, 120, 0),
        best: RGBColor(0, 140, 100),
        chosen: RGBColor(204, 121, 167),
    };

    /// Light text on near-black; colours lifted for contrast.
    pub const DARK: Theme = Theme {
        background: RGBColor(24, 26, 31),
        foreground: RGBColor(230, 232, 235),
        grid: RGBColor(64, 68, 76),
        primary: RGBColor(86, 180, 233),
        reference: RGBColor(240, 140, 70),
        optimum: RGBColor(240, 228, 66),
        best: RGBColor(0, 200, 150),
        chosen: RGBColor(230, 150, 200),
    };
}

/// A drawing failure, as text (the SVG backend only fails on formatting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlotError(pub String);

impl std::fmt::Display for PlotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "chart could not be drawn: {}", self.0)
    }
}

impl std::error::Error for PlotError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for PlotError {
    fn from(err: DrawingAreaErrorKind<E>) -> Self {
        PlotError(err.to_string())
    }
}

/// Charts drawn narrower than this take the narrow layout: the legend below
/// the plot instead of in a strip beside it, the caption wrapped, fewer ticks.
pub const NARROW: u32 = 480;

/// The width a chart's given height is meant for: narrower drawings get a
/// proportionally lower plot (the page keeps the proportions it had when
/// every chart was a 900 px drawing scaled down), but never under 240 px.
pub const FULL_WIDTH: u32 = 900;

/// Room a narrow chart gets below its `height` for the legend; the drawing
/// is cropped to what it used.
pub(crate) const LEGEND_ROOM: u32 = 640;

/// Renders `draw` on an SVG backend `width` pixels wide and returns the SVG
/// text. `height` is the plot's height at [`FULL_WIDTH`], scaled with the
/// width (see [`plot_height`]); `draw` returns the height it used, which is
/// the plot's in the wide layout and more below [`NARROW`], where the legend
/// goes under the plot.
///
/// # Errors
/// Whatever `draw` reports.
pub fn render_svg<F>(width: u32, height: u32, draw: F) -> Result<String, PlotError>
where
    F: FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Result<u32, PlotError>,
{
    let height = plot_height(width, height);
    let room = if width < NARROW { height + LEGEND_ROOM } else { height };
    let mut svg = String::new();
    let used = {
        let area = SVGBackend::with_string(&mut svg, (width, room)).into_drawing_area();
        let used = draw(&area)?.clamp(1, room);
        area.present()?;
        used
    };
    Ok(if used < room { crop_height(&svg, width, room, used) } else { svg })
}

/// The plot height of a chart `width` px wide whose height at [`FULL_WIDTH`]
/// is `full`: in proportion below it, at least 240 px (or `full` if less).
pub fn plot_height(width: u32, full: u32) -> u32 {
    let scaled = u64::from(full) * u64::from(width.min(FULL_WIDTH)) / u64::from(FULL_WIDTH);
    u32::try_from(scaled).unwrap_or(full).max(full.min(240))
}

/// `svg` (plotters' output, `width × room`) with its document height cut to
/// `used`: the header's `height` and `viewBox`, nothing else.
fn crop_height(svg: &str, width: u32, room: u32, used: u32) -> String {
    let end = svg.find('>').map_or(0, |i| i + 1);
    let header = svg[..end].replacen(&format!("height=\"{room}\""), &format!("height=\"{used}\""), 1).replacen(
        &format!("viewBox=\"0 0 {width} {room}\""),
        &format!("viewBox=\"0 0 {width} {used}\""),
        1,
    );
    header + &svg[end..]
}

/// A compact, readable number: 3 significant digits, scientific notation
/// outside `1e-3..1e6`, no trailing zeros (`12 900`, `0.0125`, `1.05e7`).
pub fn format_quantity(value: f64) -> String {
    if !value.is_finite() {
        return if value.is_nan() { "—".into() } else { "∞".into() };
    }
    if value == 0.0 {
        return "0".into();
    }
    let magnitude = value.abs();
    if !(1e-3..1e6).contains(&magnitude) {
        return scientific(value);
    }
    let decimals = (2 - magnitude.log10().floor() as i32).max(0) as usize;
    let text = format!("{value:.decimals$}");
    let text = trim_zeros(&text);
    group_thousands(&text)
}

/// `value` in scientific notation, 3 significant digits, no trailing zeros (`1.05e7`, `2e4`).
pub(crate) fn scientific(value: f64) -> String {
    let text = format!("{value:.2e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    format!("{}e{exponent}", trim_zeros(mantissa))
}

/// `n` and its noun, singular for one (`1 flow`, `3 flows`, `65536 ranks`:
/// digits as the summaries and the CLI print them, ungrouped).
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A byte count in binary units when it is a whole number of them (`1 MiB`,
/// `12 KiB`), otherwise in bytes (`1000 B`).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    let mut unit = 0;
    while unit + 1 < UNITS.len() && value >= 1024 && value % 1024 == 0 {
        value /= 1024;
        unit += 1;
    }
    format!("{} {}", group_thousands(&value.to_string()), UNITS[unit])
}

fn trim_zeros(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text.to_owned()
    }
}

/// Inserts thin spaces between groups of three integer digits (`1 048 576`).
fn group_thousands(text: &str) -> String {
    commlab_core::limits::group_with(text, '\u{2009}')
}

#[cfg(test)]
mod tests {
    use super::{count, format_bytes, format_quantity};

    /// "1 ranks, 0 operations" and "at most 1 flows at once" read wrong.
    #[test]
    fn counts_take_the_singular_for_one() {
        assert_eq!(count(1, "flow", "flows"), "1 flow");
        assert_eq!(count(0, "operation", "operations"), "0 operations");
        assert_eq!(count(65536, "rank", "ranks"), "65536 ranks");
        assert_eq!(count(1, "rank is", "ranks are"), "1 rank is");
    }

    #[test]
    fn bytes_use_binary_units_when_exact() {
        assert_eq!(format_bytes(1 << 20), "1 MiB");
        assert_eq!(format_bytes(12 << 10), "12 KiB");
        assert_eq!(format_bytes(1000), "1000 B");
        assert_eq!(format_bytes(1 << 40), "1 TiB");
        assert_eq!(format_bytes(1_000_000), "1\u{2009}000\u{2009}000 B");
    }

    #[test]
    fn quantities_are_compact() {
        let cases = [
            (0.0, "0"),
            (12.5, "12.5"),
            (0.0125, "0.0125"),
            (3281.79, "3282"),
            (1_048_576.0, "1.05e6"),
            (123_456.0, "123\u{2009}456"),
            (1e-5, "1e-5"),
            (80.6, "80.6"),
            (f64::INFINITY, "∞"),
        ];
        for (value, expect) in cases {
            assert_eq!(format_quantity(value), expect, "{value}");
        }
    }
}

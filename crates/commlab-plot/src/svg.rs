//! A minimal SVG writer for the hand-laid-out diagrams (trees, space-time
//! grids), where plotters' chart model does not fit. Every attribute is
//! inline (no CSS classes), so an exported file looks like the page.

use plotters::style::RGBColor;
use std::fmt::Write;

/// `#rrggbb` of a colour.
pub fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// Escapes text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// An SVG document being written. Its size is written by [`Svg::finish`],
/// so a drawing whose height depends on wrapped text can set it at the end
/// ([`Svg::set_height`]).
pub struct Svg {
    out: String,
    size: (f64, f64),
}

/// Estimated width of `text` at `size` px in the drawings' sans-serif (about
/// 0.56 em a character; digits and most letters are narrower): for layout
/// decisions only, never for exact placement.
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * size * 0.56
}

/// `text` in lines that fit `width` px at `size` px, broken between words.
pub fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let chars = (width / (size * 0.56)).floor().max(8.0) as usize;
    crate::model::wrap_words(text, chars)
}

impl Svg {
    /// Starts a `width × height` document with a background.
    pub fn new(width: f64, height: f64, background: RGBColor, title: &str) -> Svg {
        let mut out = String::with_capacity(16 * 1024);
        let _ = write!(
            out,
            r#" font-family="sans-serif" role="img"><title>{}</title><rect width="100%" height="100%" fill="{}"/>"#,
            escape(title),
            hex(background)
        );
        // Arrowheads for message arrows, coloured by the stroke that uses them.
        out.push_str(r#"<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="context-stroke"/></marker></defs>"#);
        Svg { out, size: (width, height) }
    }

    /// Changes the document's height (text wrapped to the width made it taller).
    pub fn set_height(&mut self, height: f64) {
        self.size.1 = height;
    }

    /// Lines of `text` wrapped to `width` px from `(x, y)` (the first
    /// baseline), `size` px apart plus 4; returns the y below the last line.
    pub fn paragraph(&mut self, (x, y): (f64, f64), text: &str, size: f64, width: f64, color: RGBColor) -> f64 {
        let mut y = y;
        for line in wrap(text, size, width) {
            self.text((x, y), &line, size, color, "start", "");
            y += size + 4.0;
        }
        y
    }

    /// A straight line; `extra` holds further attributes (`stroke-dasharray="4 3"`).
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), color: RGBColor, width: f64, extra: &str) {
        let _ = write!(
            self.out,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{}" stroke-width="{width}" {extra}/>"#,
            hex(color)
        );
    }

    /// A circle, filled or (with `fill = None`) hollow.
    pub fn circle(&mut self, (cx, cy): (f64, f64), r: f64, fill: Option<RGBColor>, stroke: RGBColor, extra: &str) {
        let fill = fill.map_or_else(|| "none".to_owned(), hex);
        let _ = write!(
            self.out,
            r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="{r}" fill="{fill}" stroke="{}" stroke-width="1.5" {extra}/>"#,
            hex(stroke)
        );
    }

    /// A rectangle.
    pub fn rect(&mut self, (x, y): (f64, f64), (w, h): (f64, f64), fill: RGBColor, extra: &str) {
        let _ = write!(
            self.out,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{}" {extra}/>"#,
            hex(fill)
        );
    }

    /// A rectangle filled with a paint server (`url(#id)` of a pattern in the drawing's `<defs>`).
    pub fn rect_paint(&mut self, (x, y): (f64, f64), (w, h): (f64, f64), paint: &str) {
        let _ = write!(self.out, r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{paint}"/>"#);
    }

    /// Text anchored at `anchor` (`start`, `middle`, `end`).
    pub fn text(&mut self, (x, y): (f64, f64), text: &str, size: f64, color: RGBColor, anchor: &str, extra: &str) {
        let _ = write!(
            self.out,
            r#"<text x="{x:.1}" y="{y:.1}" font-size="{size}" fill="{}" text-anchor="{anchor}" {extra}>{}</text>"#,
            hex(color),
            escape(text)
        );
    }

    /// Appends raw markup built by the caller from numbers (never from user text).
    pub fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// Opens a group with attributes (`opacity="0.2"`).
    pub fn group(&mut self, attrs: &str) {
        let _ = write!(self.out, "<g {attrs}>");
    }

    /// Closes the innermost group.
    pub fn end_group(&mut self) {
        self.out.push_str("</g>");
    }

    /// The finished document.
    pub fn finish(self) -> String {
        let (width, height) = self.size;
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}"{}</svg>"#,
            self.out
        )
    }
}

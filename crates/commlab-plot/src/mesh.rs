//! The barrier mesh at one animation step, as a [`Scene`] of primitive
//! shapes: written as SVG here ([`scene_svg`]) for small meshes, painted on a
//! canvas by the web crate for large ones. Both renderers draw the same
//! shapes, so the picture does not depend on the size threshold.
//!
//! Layers, bottom to top: mesh links (load heat when asked for), broken links
//! (dashed, with a cross), the algorithm's pattern (sender → receiver of the
//! current barrier's messages), the routes of the messages under way (detours
//! thicker, in orange), nodes coloured by status with their IDs, and the
//! messages themselves as dots leaving their current node.

use crate::svg::{escape, hex, Svg};
use crate::Theme;
use commlab_core::barrier::engine::Kind;
use commlab_core::barrier::mesh::{LinkId, Mesh, NodeId};
use commlab_core::barrier::replay::{InFlight, NodeStatus, Replay};
use plotters::style::RGBColor;
use std::fmt::Write as _;

/// Meshes at least this wide are painted on a canvas instead of written as SVG.
pub const CANVAS_FROM: u32 = 32;
/// IDs are written in the nodes up to this side.
pub const LABELS_UP_TO: u32 = 24;

/// A primitive shape.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A straight line.
    Line {
        /// Start.
        from: (f64, f64),
        /// End.
        to: (f64, f64),
        /// Colour.
        color: RGBColor,
        /// Width.
        width: f64,
        /// Dashed.
        dashed: bool,
        /// Opacity in `0..=1`.
        opacity: f64,
    },
    /// A filled circle with an outline.
    Circle {
        /// Centre.
        at: (f64, f64),
        /// Radius.
        r: f64,
        /// Fill.
        fill: RGBColor,
        /// Outline.
        stroke: RGBColor,
        /// Outline width.
        stroke_width: f64,
    },
    /// Centred text.
    Text {
        /// Centre of the baseline.
        at: (f64, f64),
        /// The text.
        text: String,
        /// Font size.
        size: f64,
        /// Colour.
        color: RGBColor,
    },
}

/// A drawing: size, background and shapes in paint order.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
    /// Background.
    pub background: RGBColor,
    /// Shapes, bottom first.
    pub shapes: Vec<Shape>,
    /// Accessible title.
    pub title: String,
}

/// A click this close to a node's centre (in spacings) is on the node, not a link.
pub const NODE_HIT: f64 = 0.25;

/// Where nodes go: node `(x, y)` (row `x`) at `(margin + y·cell, margin + x·cell)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeshLayout {
    /// Mesh side.
    pub size: u32,
    /// Distance between neighbours.
    pub cell: f64,
    /// Border.
    pub margin: f64,
}

impl MeshLayout {
    /// A layout about `width` pixels wide.
    pub fn new(size: u32, width: f64) -> MeshLayout {
        let cell = (width / f64::from(size)).clamp(4.0, 56.0);
        MeshLayout { size, cell, margin: cell / 2.0 + 4.0 }
    }

    /// Width and height of the drawing.
    pub fn extent(&self) -> f64 {
        2.0 * self.margin + self.cell * f64::from(self.size - 1)
    }

    /// Centre of a node.
    pub fn position(&self, mesh: &Mesh, node: NodeId) -> (f64, f64) {
        let (x, y) = mesh.coords(node);
        (self.margin + self.cell * f64::from(y), self.margin + self.cell * f64::from(x))
    }

    /// The link nearest to the drawing point `(px, py)`, when it is within a
    /// third of a cell of the link's segment.
    pub fn link_at(&self, mesh: &Mesh, px: f64, py: f64) -> Option<LinkId> {
        let gx = (px - self.margin) / self.cell; // along y (columns)
        let gy = (py - self.margin) / self.cell; // along x (rows)
        let last = f64::from(self.size - 1);
        // On a node (its circle, about a quarter of the spacing) no link is meant.
        if (gx - gx.round()).hypot(gy - gy.round()) < NODE_HIT {
            return None;
        }
        let mut best: Option<(f64, LinkId)> = None;
        // A horizontal link joins (row, c) and (row, c + 1).
        let (row, col) = (gy.round(), gx.floor());
        if (0.0..=last).contains(&row) && (0.0..last).contains(&col) {
            let d = (gy - row).abs();
            let (a, b) = (mesh.node(row as u32, col as u32), mesh.node(row as u32, col as u32 + 1));
            best = Some((d, mesh.link(a, b)));
        }
        let (row, col) = (gy.floor(), gx.round());
        if (0.0..last).contains(&row) && (0.0..=last).contains(&col) {
            let d = (gx - col).abs();
            if best.is_none_or(|(bd, _)| d < bd) {
                let (a, b) = (mesh.node(row as u32, col as u32), mesh.node(row as u32 + 1, col as u32));
                best = Some((d, mesh.link(a, b)));
            }
        }
        best.filter(|&(d, _)| d <= 0.34).map(|(_, l)| l)
    }
}

/// What to draw besides the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshOptions {
    /// The algorithm's pattern of the current barrier.
    pub pattern: bool,
    /// Link-load heat of all barriers.
    pub heat: bool,
}

/// Colours of the mesh drawing (Okabe–Ito).
const GATHER: RGBColor = RGBColor(0, 114, 178);
const RELEASE: RGBColor = RGBColor(0, 158, 115);
const OTHER: RGBColor = RGBColor(204, 121, 167);
const DETOUR: RGBColor = RGBColor(230, 159, 0);
const BROKEN: RGBColor = RGBColor(213, 94, 0);
const WAITING: RGBColor = RGBColor(240, 228, 66);

fn kind_color(kind: Kind) -> RGBColor {
    match kind {
        Kind::Gather | Kind::HandUp => GATHER,
        Kind::Release(_) | Kind::HandDown => RELEASE,
        Kind::Round(_) => OTHER,
    }
}

fn mix(a: RGBColor, b: RGBColor, f: f64) -> RGBColor {
    let m = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f.clamp(0.0, 1.0)).round() as u8;
    RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

/// Mesh links: intact (heat-coloured when asked for) and broken (dashed, crossed).
fn link_shapes(replay: &Replay, layout: &MeshLayout, heat: bool, theme: &Theme, shapes: &mut Vec<Shape>) {
    let mesh = replay.mesh;
    let thin = (layout.cell / 14.0).clamp(0.6, 2.5);
    let load = heat.then(|| replay.link_load(None));
    let max_load = load.as_ref().and_then(|l| l.iter().copied().max()).unwrap_or(0).max(1);
    for link in 0..mesh.link_count() {
        let (a, b) = mesh.endpoints(link);
        let (from, to) = (layout.position(&mesh, a), layout.position(&mesh, b));
        if replay.breaks.is_broken(link) {
            shapes.push(Shape::Line { from, to, color: BROKEN, width: thin * 1.6, dashed: true, opacity: 1.0 });
            let mid = (f64::midpoint(from.0, to.0), f64::midpoint(from.1, to.1));
            let arm = layout.cell * 0.12;
            for (dx, dy) in [(arm, arm), (arm, -arm)] {
                shapes.push(Shape::Line {
                    from: (mid.0 - dx, mid.1 - dy),
                    to: (mid.0 + dx, mid.1 + dy),
                    color: BROKEN,
                    width: thin * 1.6,
                    dashed: false,
                    opacity: 1.0,
                });
            }
        } else {
            let (color, width) = match &load {
                Some(l) => {
                    let f = l[link as usize] as f64 / max_load as f64;
                    (mix(theme.grid, BROKEN, f.sqrt()), thin * (1.0 + 3.0 * f))
                }
                None => (theme.grid, thin),
            };
            shapes.push(Shape::Line { from, to, color, width, dashed: false, opacity: 1.0 });
        }
    }
}

/// Node radius: large enough for an ID up to [`LABELS_UP_TO`], smaller
/// beyond so that the links (and their heat) stay visible.
fn node_radius(layout: &MeshLayout) -> f64 {
    let share = if layout.size <= LABELS_UP_TO { 0.3 } else { 0.2 };
    (layout.cell * share).clamp(1.5, 14.0)
}

/// Nodes coloured by status at `tick`, the root ringed, IDs written when they fit.
fn node_shapes(replay: &Replay, layout: &MeshLayout, tick: u64, theme: &Theme, shapes: &mut Vec<Shape>) {
    let mesh = replay.mesh;
    let radius = node_radius(layout);
    // IDs are written at 11–12 px, where a node is large enough to hold them.
    let labels = mesh.size() <= LABELS_UP_TO && radius * 0.95 >= 11.0;
    let mut circles = Vec::with_capacity(mesh.nodes() as usize);
    let mut texts = Vec::new();
    let names = if labels { replay.labels(tick) } else { Vec::new() };
    for node in 0..mesh.nodes() {
        let fill = match replay.status(node, tick) {
            NodeStatus::Computing(b) if b > 0 => mix(theme.background, RELEASE, 0.35),
            NodeStatus::Computing(_) => theme.background,
            NodeStatus::Waiting(_) => WAITING,
            NodeStatus::Done => mix(theme.background, RELEASE, 0.7),
        };
        let id = replay.id(node, tick);
        let root = id == 0;
        let at = layout.position(&mesh, node);
        circles.push(Shape::Circle {
            at,
            r: if root { radius * 1.2 } else { radius },
            fill,
            stroke: theme.foreground,
            stroke_width: if root { 2.5 } else { 1.0 },
        });
        if labels {
            let size = (radius * 0.95).clamp(11.0, 12.0);
            let color = crate::swizzle::ink(fill);
            texts.push(Shape::Text { at: (at.0, at.1 + size * 0.35), text: names[node as usize].clone(), size, color });
        }
    }
    // Nodes do not overlap: grouped by style, the SVG writes each group as one path.
    circles.sort_by_key(|c| match c {
        Shape::Circle { fill, stroke_width, .. } => (fill.0, fill.1, fill.2, stroke_width.to_bits()),
        _ => (0, 0, 0, 0),
    });
    shapes.extend(circles);
    shapes.extend(texts);
}

/// The mesh of `replay` at animation `step`, `width` pixels wide.
pub fn mesh_scene(replay: &Replay, step: usize, width: f64, options: MeshOptions, theme: &Theme) -> Scene {
    let mesh = replay.mesh;
    let layout = MeshLayout::new(mesh.size(), width);
    let tick = replay.tick(step);
    let pos = |n: NodeId| layout.position(&mesh, n);
    let thin = (layout.cell / 14.0).clamp(0.6, 2.5);
    let mut shapes = Vec::new();
    link_shapes(replay, &layout, options.heat, theme, &mut shapes);
    let barrier = replay.barrier_at(tick).min(replay.scenario.barriers.saturating_sub(1));
    if options.pattern {
        let mut seen = std::collections::HashSet::new();
        for m in replay.report.trace.iter().filter(|m| m.barrier == barrier) {
            if seen.insert((m.from.min(m.to), m.from.max(m.to))) {
                shapes.push(Shape::Line {
                    from: pos(m.from),
                    to: pos(m.to),
                    color: theme.foreground,
                    width: thin,
                    dashed: false,
                    opacity: 0.25,
                });
            }
        }
    }
    let flying = replay.in_flight(tick);
    for f in &flying {
        let m = &replay.report.trace[f.index];
        let (color, width) = if f.detour { (DETOUR, thin * 2.4) } else { (kind_color(m.kind), thin * 1.6) };
        let mut at = m.from;
        for (hop, &next) in m.path.iter().enumerate() {
            // A step back along the message's own walk (paper routing): dashed, in the foreground colour.
            let line = if InFlight::is_back_step(m, hop) {
                Shape::Line {
                    from: pos(at),
                    to: pos(next),
                    color: theme.foreground,
                    width: thin * 2.4,
                    dashed: true,
                    opacity: 0.9,
                }
            } else {
                Shape::Line { from: pos(at), to: pos(next), color, width, dashed: false, opacity: 0.55 }
            };
            shapes.push(line);
            at = next;
        }
    }
    node_shapes(replay, &layout, tick, theme, &mut shapes);
    let dot = node_radius(&layout) * 0.55;
    for f in &flying {
        let (x, y) = pos(f.at);
        let at = match f.next {
            Some(n) => {
                let (nx, ny) = pos(n);
                (x + (nx - x) * 0.45, y + (ny - y) * 0.45)
            }
            None => (x, y),
        };
        let fill = if f.detour { DETOUR } else { kind_color(f.kind) };
        shapes.push(Shape::Circle { at, r: dot, fill, stroke: theme.background, stroke_width: 1.0 });
    }
    let extent = layout.extent();
    Scene {
        width: extent,
        height: extent,
        background: theme.background,
        shapes,
        title: format!(
            "{}×{} mesh, {}, tick {tick}: {} broken links, {} messages under way",
            mesh.size(),
            mesh.size(),
            replay.scenario.algorithm,
            replay.breaks.count(),
            flying.len()
        ),
    }
}

/// Appends `v` with at most one decimal (integer formatting: the float
/// formatter is most of the cost of a large mesh's SVG).
fn num(out: &mut String, v: f64) {
    let tenths = (v * 10.0).round() as i64;
    if tenths < 0 {
        out.push('-');
    }
    let tenths = tenths.unsigned_abs();
    let _ = write!(out, "{}", tenths / 10);
    if tenths % 10 != 0 {
        let _ = write!(out, ".{}", tenths % 10);
    }
}

/// The scene as an SVG document. Consecutive lines of one style become one
/// `<path>`, and so do consecutive circles of one style (two arcs each): a
/// 16 × 16 mesh is then ~280 elements (mostly the ID labels) instead of
/// ~1 500, which is most of the browser's cost of showing it.
pub fn scene_svg(scene: &Scene) -> String {
    let mut svg = Svg::new(scene.width, scene.height, scene.background, &scene.title);
    let mut out = String::with_capacity(scene.shapes.len() * 64);
    let mut run: Option<(RGBColor, f64, bool, f64)> = None;
    let close = |out: &mut String, run: &mut Option<(RGBColor, f64, bool, f64)>| {
        if let Some((color, width, dashed, opacity)) = run.take() {
            let _ = write!(out, "\" fill=\"none\" stroke=\"{}\" stroke-width=\"", hex(color));
            num(out, width);
            out.push('"');
            if dashed {
                out.push_str(" stroke-dasharray=\"");
                num(out, width * 2.5);
                out.push(' ');
                num(out, width * 1.5);
                out.push('"');
            }
            if opacity < 1.0 {
                out.push_str(" stroke-opacity=\"");
                num(out, opacity);
                out.push('"');
            }
            out.push_str("/>");
        }
    };
    let mut dots: Option<(RGBColor, RGBColor, f64)> = None;
    let close_dots = |out: &mut String, dots: &mut Option<(RGBColor, RGBColor, f64)>| {
        if let Some((fill, stroke, width)) = dots.take() {
            let _ = write!(out, "\" fill=\"{}\" stroke=\"{}\" stroke-width=\"", hex(fill), hex(stroke));
            num(out, width);
            out.push_str("\"/>");
        }
    };
    for shape in &scene.shapes {
        match shape {
            Shape::Line { from, to, color, width, dashed, opacity } => {
                close_dots(&mut out, &mut dots);
                let style = (*color, *width, *dashed, *opacity);
                if run != Some(style) {
                    close(&mut out, &mut run);
                    out.push_str("<path d=\"");
                    run = Some(style);
                }
                out.push('M');
                num(&mut out, from.0);
                out.push(' ');
                num(&mut out, from.1);
                out.push('L');
                num(&mut out, to.0);
                out.push(' ');
                num(&mut out, to.1);
            }
            Shape::Circle { at, r, fill, stroke, stroke_width } => {
                close(&mut out, &mut run);
                let style = (*fill, *stroke, *stroke_width);
                if dots != Some(style) {
                    close_dots(&mut out, &mut dots);
                    out.push_str("<path d=\"");
                    dots = Some(style);
                }
                // A circle as two arcs.
                out.push('M');
                num(&mut out, at.0 - r);
                out.push(' ');
                num(&mut out, at.1);
                out.push('a');
                num(&mut out, *r);
                out.push(' ');
                num(&mut out, *r);
                out.push_str(" 0 1 0 ");
                num(&mut out, 2.0 * r);
                out.push_str(" 0a");
                num(&mut out, *r);
                out.push(' ');
                num(&mut out, *r);
                out.push_str(" 0 1 0 ");
                num(&mut out, -2.0 * r);
                out.push_str(" 0z");
            }
            Shape::Text { at, text, size, color } => {
                close(&mut out, &mut run);
                close_dots(&mut out, &mut dots);
                out.push_str("<text x=\"");
                num(&mut out, at.0);
                out.push_str("\" y=\"");
                num(&mut out, at.1);
                out.push_str("\" font-size=\"");
                num(&mut out, *size);
                let _ = write!(out, "\" fill=\"{}\" text-anchor=\"middle\">{}</text>", hex(*color), escape(text));
            }
        }
    }
    close(&mut out, &mut run);
    close_dots(&mut out, &mut dots);
    svg.raw(&out);
    svg.finish()
}

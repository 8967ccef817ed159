//! The network picture (`docs/network.md`): a topology as a [`Scene`] —
//! a ring as a circle, a mesh or torus as a grid with its wrap links as
//! stubs off the edges, a fat tree in layers, `nodes` with their rails — its
//! links coloured by a heat in `0..=1`, the links in use at the scrubber's
//! instant drawn over them, broken links dashed with a cross.

use crate::mesh::{Scene, Shape};
use crate::Theme;
use commlab_core::net::topology::Shape as Topology;
use plotters::style::RGBColor;

/// Host names are written up to this many hosts.
pub const LABELS_UP_TO: u32 = 64;
/// A pointer this close (px) to a link's drawn segment is on it.
pub const LINK_HIT: f64 = 6.0;

/// A drawn segment: from, to.
pub type Segment = ((f64, f64), (f64, f64));

/// Where every vertex goes, and how each link is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct NetLayout {
    /// Width and height.
    pub size: (f64, f64),
    /// Per vertex, its centre.
    pub at: Vec<(f64, f64)>,
    /// Per link, the segments it is drawn as (one, or two stubs for a wrap link).
    pub segments: Vec<Vec<Segment>>,
    /// The vertex radius.
    pub radius: f64,
}

/// The links as `(a, b)`, for the layout.
pub type Ends = [(u32, u32)];

impl NetLayout {
    /// A layout about `width` pixels wide of `topology` with `links`.
    pub fn new(topology: Topology, links: &Ends, width: f64) -> NetLayout {
        let hosts = topology.hosts() as u32;
        let vertices = hosts + topology.switches() as u32;
        let margin = 28.0;
        let inner = (width - 2.0 * margin).max(80.0);
        let mut at = vec![(0.0, 0.0); vertices as usize];
        let circle = |i: u32, n: u32, r: f64, c: (f64, f64)| {
            let a = std::f64::consts::TAU * f64::from(i) / f64::from(n.max(1)) - std::f64::consts::FRAC_PI_2;
            (c.0 + r * a.cos(), c.1 + r * a.sin())
        };
        let row = |i: u32, n: u32, y: f64| (margin + inner * (f64::from(i) + 0.5) / f64::from(n.max(1)), y);
        let height;
        let mut wrap_cell = 0.0;
        match topology {
            Topology::Switch(h) | Topology::Ring(h) => {
                height = width.min(520.0);
                let c = (width / 2.0, height / 2.0);
                let r = (height / 2.0 - margin).max(20.0);
                for v in 0..h {
                    at[v as usize] = circle(v, h, r, c);
                }
                if matches!(topology, Topology::Switch(_)) {
                    at[h as usize] = c;
                }
            }
            Topology::Mesh(d) | Topology::Torus(d) => {
                // Layers of the third dimension side by side.
                let cols = d[0] * d[2];
                let cell = inner / f64::from(cols + d[2] - 1).max(1.0);
                wrap_cell = cell;
                height = 2.0 * margin + cell * f64::from(d[1].max(1) - 1);
                for v in 0..hosts {
                    let (x, y, z) = (v % d[0], (v / d[0]) % d[1], v / (d[0] * d[1]));
                    at[v as usize] = (margin + cell * f64::from(x + z * (d[0] + 1)), margin + cell * f64::from(y));
                }
            }
            Topology::FatTree { l, s, .. } => {
                height = 260.0;
                for v in 0..hosts {
                    at[v as usize] = row(v, hosts, 230.0);
                }
                for k in 0..l {
                    at[(hosts + k) as usize] = row(k, l, 140.0);
                }
                for k in 0..s {
                    at[(hosts + l + k) as usize] = row(k, s, 40.0);
                }
            }
            Topology::Nodes { n, g, r } => {
                height = 260.0;
                for v in 0..hosts {
                    at[v as usize] = row(v, hosts, 150.0);
                }
                for k in 0..n {
                    // A node's switch below its GPUs.
                    let first = row(k * g, hosts, 230.0).0;
                    let last = row(k * g + g - 1, hosts, 230.0).0;
                    at[(hosts + k) as usize] = (f64::midpoint(first, last), 230.0);
                }
                for k in 0..r {
                    at[(hosts + n + k) as usize] = row(k, r, 40.0);
                }
            }
        }
        let spacing = match topology {
            Topology::Mesh(_) | Topology::Torus(_) => wrap_cell,
            _ => inner / f64::from(hosts.max(1)),
        };
        let radius = (spacing * 0.22).clamp(1.5, 9.0);
        let segments = links
            .iter()
            .map(|&(a, b)| {
                let (pa, pb) = (at[a as usize], at[b as usize]);
                let far = (pa.0 - pb.0).abs().max((pa.1 - pb.1).abs()) > 1.5 * wrap_cell;
                if wrap_cell > 0.0 && far {
                    // A wrap link: a stub off each end, away from the other.
                    let stub = |p: (f64, f64), q: (f64, f64)| {
                        let (dx, dy) = ((p.0 - q.0).signum(), (p.1 - q.1).signum());
                        let (dx, dy) = if (p.0 - q.0).abs() > (p.1 - q.1).abs() { (dx, 0.0) } else { (0.0, dy) };
                        (p, (p.0 + dx * wrap_cell * 0.45, p.1 + dy * wrap_cell * 0.45))
                    };
                    vec![stub(pa, pb), stub(pb, pa)]
                } else {
                    vec![(pa, pb)]
                }
            })
            .collect();
        NetLayout { size: (width, height), at, segments, radius }
    }

    /// The link under `(x, y)`, nearest first.
    pub fn link_at(&self, x: f64, y: f64) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (i, segs) in self.segments.iter().enumerate() {
            for &(p, q) in segs {
                let d = distance((x, y), p, q);
                if d <= LINK_HIT && best.is_none_or(|(_, b)| d < b) {
                    best = Some((i, d));
                }
            }
        }
        best.map(|(i, _)| i)
    }
}

/// Distance from `x` to the segment `p`–`q`.
fn distance(x: (f64, f64), p: (f64, f64), q: (f64, f64)) -> f64 {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let len = dx * dx + dy * dy;
    let t = if len > 0.0 { (((x.0 - p.0) * dx + (x.1 - p.1) * dy) / len).clamp(0.0, 1.0) } else { 0.0 };
    let (cx, cy) = (p.0 + t * dx, p.1 + t * dy);
    ((x.0 - cx).powi(2) + (x.1 - cy).powi(2)).sqrt()
}

/// The heat ramp: pale grey (idle) through orange to dark red (hottest).
pub fn heat_color(h: f64, theme: &Theme) -> RGBColor {
    let h = h.clamp(0.0, 1.0);
    let mix = |a: RGBColor, b: RGBColor, t: f64| {
        let m = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * t).round() as u8;
        RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
    };
    let (orange, red) = (RGBColor(230, 159, 0), RGBColor(170, 30, 30));
    if h < 0.5 {
        mix(theme.grid, orange, h * 2.0)
    } else {
        mix(orange, red, (h - 0.5) * 2.0)
    }
}

/// What the picture shows besides the topology.
#[derive(Debug, Clone, Copy)]
pub struct NetMarks<'a> {
    /// Per link, broken.
    pub broken: &'a [bool],
    /// Per link, its heat in `0..=1`.
    pub heat: &'a [f64],
    /// Per link at the scrubber's instant, the used fraction of its busier direction (empty: none shown).
    pub used: &'a [f64],
    /// The link under the pointer or in focus.
    pub focus: Option<usize>,
    /// Hosts (vertices below are hosts; the rest switches).
    pub hosts: u32,
}

/// The picture as a scene.
pub fn net_scene(layout: &NetLayout, marks: &NetMarks, theme: &Theme, title: &str) -> Scene {
    let mut shapes = Vec::new();
    let base = (layout.radius * 0.45).clamp(1.0, 4.0);
    let red = RGBColor(200, 40, 40);
    for (i, segs) in layout.segments.iter().enumerate() {
        let broken = marks.broken.get(i).copied().unwrap_or(false);
        let heat = marks.heat.get(i).copied().unwrap_or(0.0);
        for &(from, to) in segs {
            let (color, width) = if broken { (red, base) } else { (heat_color(heat, theme), base * (1.0 + heat)) };
            shapes.push(Shape::Line { from, to, color, width, dashed: broken, opacity: 1.0 });
        }
    }
    // Links in use at the instant: blue over the heat, wider the more is used.
    for (i, segs) in layout.segments.iter().enumerate() {
        let used = marks.used.get(i).copied().unwrap_or(0.0);
        if used > 0.0 {
            for &(from, to) in segs {
                let width = base * (1.0 + 2.0 * used.min(1.0));
                shapes.push(Shape::Line { from, to, color: theme.primary, width, dashed: false, opacity: 0.85 });
            }
        }
    }
    // Crosses on broken links.
    for (i, segs) in layout.segments.iter().enumerate() {
        if marks.broken.get(i).copied().unwrap_or(false) {
            let (p, q) = segs[0];
            let m = (f64::midpoint(p.0, q.0), f64::midpoint(p.1, q.1));
            let s = (layout.radius * 0.8).max(3.0);
            shapes.push(Shape::Line {
                from: (m.0 - s, m.1 - s),
                to: (m.0 + s, m.1 + s),
                color: red,
                width: 2.0,
                dashed: false,
                opacity: 1.0,
            });
            shapes.push(Shape::Line {
                from: (m.0 - s, m.1 + s),
                to: (m.0 + s, m.1 - s),
                color: red,
                width: 2.0,
                dashed: false,
                opacity: 1.0,
            });
        }
    }
    if let Some(segs) = marks.focus.and_then(|f| layout.segments.get(f)) {
        for &(from, to) in segs {
            shapes.push(Shape::Line {
                from,
                to,
                color: theme.foreground,
                width: base + 3.0,
                dashed: false,
                opacity: 0.5,
            });
        }
    }
    for (v, &at) in layout.at.iter().enumerate() {
        let host = (v as u32) < marks.hosts;
        let (fill, r) = if host { (theme.background, layout.radius) } else { (theme.grid, layout.radius * 1.3) };
        shapes.push(Shape::Circle { at, r, fill, stroke: theme.foreground, stroke_width: 1.0 });
    }
    if marks.hosts <= LABELS_UP_TO && layout.radius >= 6.0 {
        for v in 0..marks.hosts as usize {
            let at = layout.at[v];
            let size = layout.radius * 1.1;
            shapes.push(Shape::Text {
                at: (at.0, at.1 + size * 0.35),
                text: v.to_string(),
                size,
                color: theme.foreground,
            });
        }
    }
    Scene { width: layout.size.0, height: layout.size.1, background: theme.background, shapes, title: title.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commlab_core::net::{topology::PORT, Network};

    fn ends(net: &Network) -> Vec<(u32, u32)> {
        net.links.iter().map(|l| (l.a, l.b)).collect()
    }

    #[test]
    fn a_torus_is_a_grid_with_wrap_stubs_and_links_are_found_under_the_pointer() {
        let shape: Topology = "torus:4x4".parse().unwrap();
        let net = Network::new(shape, [PORT; 2]).unwrap();
        let layout = NetLayout::new(shape, &ends(&net), 400.0);
        // Host 5 = (1, 1) sits one cell right of and one below host 0.
        let (first, fifth) = (layout.at[0], layout.at[5]);
        assert!((fifth.0 - first.0 - (fifth.1 - first.1)).abs() < 1e-9 && fifth.0 > first.0);
        let l = &layout;
        let wraps = l.segments.iter().filter(|s| s.len() == 2).count();
        assert_eq!(wraps, 8, "4 rows and 4 columns wrap");
        // The middle of each drawn link finds that link.
        for (i, segs) in l.segments.iter().enumerate() {
            let (p, q) = segs[0];
            assert_eq!(l.link_at(f64::midpoint(p.0, q.0), f64::midpoint(p.1, q.1)), Some(i));
        }
        assert_eq!(l.link_at(-100.0, -100.0), None);
    }

    #[test]
    fn every_shape_places_every_vertex_inside_the_picture() {
        for id in ["switch:8", "ring:12", "mesh:4x3x2", "torus:3x3", "fattree:4,4,2", "nodes:2x4"] {
            let shape: Topology = id.parse().unwrap();
            let net = Network::new(shape, shape.default_classes()).unwrap();
            let l = NetLayout::new(shape, &ends(&net), 500.0);
            assert_eq!(l.at.len() as u32, net.vertices(), "{id}");
            for &(x, y) in &l.at {
                assert!((0.0..=l.size.0).contains(&x) && (0.0..=l.size.1).contains(&y), "{id}: ({x}, {y})");
            }
            let broken = vec![false; net.links.len()];
            let heat = vec![0.5; net.links.len()];
            let marks = NetMarks { broken: &broken, heat: &heat, used: &[], focus: None, hosts: net.hosts() };
            let scene = net_scene(&l, &marks, &Theme::LIGHT, id);
            let lines = scene.shapes.iter().filter(|s| matches!(s, Shape::Line { .. })).count();
            assert!(lines >= net.links.len(), "{id}");
        }
    }

    #[test]
    fn heat_runs_from_idle_grey_to_red() {
        assert_eq!(heat_color(0.0, &Theme::LIGHT), Theme::LIGHT.grid);
        assert_eq!(heat_color(1.0, &Theme::LIGHT), RGBColor(170, 30, 30));
        assert_eq!(heat_color(0.5, &Theme::LIGHT), RGBColor(230, 159, 0));
    }
}

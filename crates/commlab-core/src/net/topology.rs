//! Topologies: hosts, switches and split-duplex links, their fixed routes
//! (`docs/network.md` §2), broken links and the lexicographic shortest path
//! around them (§3), and rank placement.

#![allow(clippy::many_single_char_names, reason = "the names of docs/network.md: a, b, h, k, l, s, n, g, x")]

use crate::limits::{self, ConfigError};
use rand::seq::index::sample;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// The shape of a topology, as its id names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `switch:H`: every host on one non-blocking switch.
    Switch(u32),
    /// `ring:H`.
    Ring(u32),
    /// `mesh:XxY[xZ]` (unused dimensions are 1).
    Mesh([u32; 3]),
    /// `torus:XxY[xZ]`.
    Torus([u32; 3]),
    /// `fattree:K,L,S`: L leaves of K hosts, S spines.
    FatTree {
        /// Hosts per leaf.
        k: u32,
        /// Leaves.
        l: u32,
        /// Spines.
        s: u32,
    },
    /// `nodes:NxG[xR]`: N nodes of G GPUs, a node switch each, R NICs per
    /// node (R divides G; `nodes:NxG` is R = G) on R rail switches. GPUs
    /// `k·G/R … (k+1)·G/R − 1` share NIC k, which hangs off the first of them.
    Nodes {
        /// Nodes.
        n: u32,
        /// GPUs per node.
        g: u32,
        /// NICs (rails) per node.
        r: u32,
    },
}

/// One class of links: bandwidth (bytes per ns) and latency (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkClass {
    /// Bytes per ns (= GB/s).
    pub bandwidth: f64,
    /// ns per link.
    pub latency: f64,
}

/// The default link: a 200 Gb/s port (25 B/ns) with 250 ns per link (a
/// switch hop plus its cable).
pub const PORT: LinkClass = LinkClass { bandwidth: 25.0, latency: 250.0 };
/// A GPU's `NVLink` port inside a node: 450 B/ns per direction (`NVLink` 4,
/// 900 GB/s both ways), 100 ns.
pub const NVLINK: LinkClass = LinkClass { bandwidth: 450.0, latency: 100.0 };
/// A GPU's NIC: 400 Gb/s (50 B/ns), 500 ns.
pub const NIC: LinkClass = LinkClass { bandwidth: 50.0, latency: 500.0 };

impl Shape {
    /// Channel `c`'s order of `p` ranks: a channel's rank `v` runs on rank
    /// `order[v]` (`docs/network.md`, channels over rails). On `nodes:NxG`
    /// with every GPU a rank, channel `c` visits each node's GPUs from GPU
    /// `c mod G` up (wrapping), node after node: it enters every node at
    /// GPU `c mod G` and leaves it for the next node's GPU `c mod G`, so its
    /// traffic between nodes crosses rail `c mod G` only, as NCCL's rings
    /// do. Elsewhere (and with fewer ranks than GPUs) every channel takes
    /// the ranks in order.
    pub fn channel_order(&self, p: u32, c: u32) -> Vec<u32> {
        match *self {
            Shape::Nodes { n, g, r } if u64::from(p) == u64::from(n) * u64::from(g) => {
                // Rail c mod R's first GPU, then the next GPU of the rail's
                // group for each lap over the rails.
                let per = g / r;
                let entry = (c % r) * per + (c / r) % per;
                (0..n).flat_map(|k| (0..g).map(move |j| k * g + (entry + j) % g)).collect()
            }
            _ => (0..p).collect(),
        }
    }

    /// Hosts.
    pub fn hosts(self) -> u64 {
        match self {
            Shape::Switch(h) | Shape::Ring(h) => u64::from(h),
            Shape::Mesh(d) | Shape::Torus(d) => d.iter().map(|&x| u64::from(x)).product(),
            Shape::FatTree { k, l, .. } => u64::from(k) * u64::from(l),
            Shape::Nodes { n, g, .. } => u64::from(n) * u64::from(g),
        }
    }

    /// Switches (vertices after the hosts).
    pub fn switches(self) -> u64 {
        match self {
            Shape::Switch(_) => 1,
            Shape::Ring(_) | Shape::Mesh(_) | Shape::Torus(_) => 0,
            Shape::FatTree { l, s, .. } => u64::from(l) + u64::from(s),
            Shape::Nodes { n, r, .. } => u64::from(n) + u64::from(r),
        }
    }

    /// The default link classes (the first; the second for fat-tree
    /// leaf–spine and `nodes` NIC/rail links).
    pub fn default_classes(self) -> [LinkClass; 2] {
        match self {
            Shape::Nodes { .. } => [NVLINK, NIC],
            _ => [PORT, PORT],
        }
    }

    /// Whether its links can be broken.
    pub fn breakable(self) -> bool {
        matches!(self, Shape::Ring(_) | Shape::Mesh(_) | Shape::Torus(_) | Shape::FatTree { .. })
    }

    /// A vertex's name: `h3` for hosts, `switch`, `leaf2`, `spine0`, `node1`, `rail4`.
    pub fn vertex_name(self, v: u32) -> String {
        let h = self.hosts() as u32;
        if v < h {
            return format!("h{v}");
        }
        let k = v - h;
        match self {
            Shape::Switch(_) => "switch".to_owned(),
            Shape::FatTree { l, .. } if k < l => format!("leaf{k}"),
            Shape::FatTree { l, .. } => format!("spine{}", k - l),
            Shape::Nodes { n, .. } if k < n => format!("node{k}"),
            Shape::Nodes { n, .. } => format!("rail{}", k - n),
            _ => format!("v{v}"),
        }
    }

    /// The kind's name (`switch`, `ring`, …).
    pub fn kind(self) -> &'static str {
        match self {
            Shape::Switch(_) => "switch",
            Shape::Ring(_) => "ring",
            Shape::Mesh(_) => "mesh",
            Shape::Torus(_) => "torus",
            Shape::FatTree { .. } => "fattree",
            Shape::Nodes { .. } => "nodes",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = |d: &[u32; 3]| {
            let used = if d[2] > 1 { 3 } else { 2 };
            d[..used].iter().map(u32::to_string).collect::<Vec<_>>().join("x")
        };
        match self {
            Shape::Switch(h) => write!(f, "switch:{h}"),
            Shape::Ring(h) => write!(f, "ring:{h}"),
            Shape::Mesh(d) => write!(f, "mesh:{}", dims(d)),
            Shape::Torus(d) => write!(f, "torus:{}", dims(d)),
            Shape::FatTree { k, l, s } => write!(f, "fattree:{k},{l},{s}"),
            Shape::Nodes { n, g, r } if r == g => write!(f, "nodes:{n}x{g}"),
            Shape::Nodes { n, g, r } => write!(f, "nodes:{n}x{g}x{r}"),
        }
    }
}

/// The topology ids the parser accepts, in words (errors and help).
pub const FORMS: &str = "switch:H, ring:H, mesh:XxY[xZ], torus:XxY[xZ], fattree:K,L,S or nodes:NxG[xR]";

impl FromStr for Shape {
    type Err = String;
    fn from_str(text: &str) -> Result<Shape, String> {
        let shape = Shape::parse_any(text)?;
        let hosts = shape.hosts();
        if !limits::net::HOSTS.contains(hosts) {
            return Err(format!("{text:?} has {hosts} hosts: expected {}", limits::net::HOSTS));
        }
        let vertices = hosts + shape.switches();
        if !limits::net::VERTICES.contains(vertices) {
            return Err(format!("{text:?} has {vertices} vertices: expected {}", limits::net::VERTICES));
        }
        Ok(shape)
    }
}

impl Shape {
    /// A shape's text read as [`FromStr`] reads it, without the network
    /// simulator's limits on hosts and vertices: for models that never
    /// build the whole network (the steady engine).
    ///
    /// # Errors
    /// Text that names no shape.
    pub fn parse_any(text: &str) -> Result<Shape, String> {
        let bad = || format!("{text:?} is not one of {FORMS} (positive integers)");
        let (kind, rest) = text.trim().split_once(':').ok_or_else(bad)?;
        let numbers = |sep: char, count: std::ops::RangeInclusive<usize>| -> Result<Vec<u32>, String> {
            let parts: Vec<&str> = rest.split(sep).collect();
            if !count.contains(&parts.len()) {
                return Err(bad());
            }
            parts.iter().map(|p| p.trim().parse::<u32>().ok().filter(|&x| x >= 1).ok_or_else(bad)).collect()
        };
        let shape = match kind.trim() {
            "switch" => Shape::Switch(numbers(',', 1..=1)?[0]),
            "ring" => Shape::Ring(numbers(',', 1..=1)?[0]),
            "mesh" | "torus" => {
                let d = numbers('x', 2..=3)?;
                let dims = [d[0], d[1], d.get(2).copied().unwrap_or(1)];
                if kind.trim() == "mesh" {
                    Shape::Mesh(dims)
                } else {
                    Shape::Torus(dims)
                }
            }
            "fattree" => {
                let d = numbers(',', 3..=3)?;
                Shape::FatTree { k: d[0], l: d[1], s: d[2] }
            }
            "nodes" => {
                let d = numbers('x', 2..=3)?;
                let (n, g) = (d[0], d[1]);
                let r = d.get(2).copied().unwrap_or(g);
                if g % r != 0 {
                    return Err(format!("{text:?}: R = {r} NICs per node must divide G = {g} GPUs"));
                }
                Shape::Nodes { n, g, r }
            }
            _ => return Err(bad()),
        };
        Ok(shape)
    }
}

/// One (undirected) link: its two vertices (`a < b`) and its class (0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// Lower vertex id.
    pub a: u32,
    /// Higher vertex id.
    pub b: u32,
    /// Link class index.
    pub class: u8,
}

/// A directed link: `2·link` goes from `a` to `b` (UP), `2·link + 1` back.
pub type Dir = u32;

/// Where a route cannot go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreachable;

/// A built topology: vertices, links, adjacency, classes, breaks.
#[derive(Debug, Clone)]
pub struct Network {
    /// Its shape.
    pub shape: Shape,
    /// The link classes.
    pub classes: [LinkClass; 2],
    /// Every link, in the topology's order (the order seeded breaks draw from).
    pub links: Vec<Link>,
    /// Broken, per link.
    pub broken: Vec<bool>,
    /// Per vertex, `(neighbour, link)` sorted by neighbour.
    adjacency: Vec<Vec<(u32, u32)>>,
    /// Per destination vertex, BFS distances over the surviving links (when
    /// some route needed one).
    distances: HashMap<u32, Vec<u32>>,
}

const FAR: u32 = u32::MAX;

impl Network {
    /// Builds `shape` with `classes`.
    ///
    /// # Errors
    /// A class with a bandwidth or latency out of range, too many links.
    pub fn new(shape: Shape, classes: [LinkClass; 2]) -> Result<Network, ConfigError> {
        for c in &classes {
            limits::net::BANDWIDTH.check(c.bandwidth)?;
            limits::net::LATENCY.check(c.latency)?;
        }
        let links = build_links(shape);
        limits::net::LINKS.check(links.len() as u64)?;
        let vertices = (shape.hosts() + shape.switches()) as usize;
        let mut adjacency = vec![Vec::new(); vertices];
        for (i, l) in links.iter().enumerate() {
            adjacency[l.a as usize].push((l.b, i as u32));
            adjacency[l.b as usize].push((l.a, i as u32));
        }
        for adj in &mut adjacency {
            adj.sort_unstable();
        }
        let broken = vec![false; links.len()];
        Ok(Network { shape, classes, links, broken, adjacency, distances: HashMap::new() })
    }

    /// Hosts.
    pub fn hosts(&self) -> u32 {
        self.shape.hosts() as u32
    }

    /// Vertices (hosts, then switches).
    pub fn vertices(&self) -> u32 {
        self.adjacency.len() as u32
    }

    /// The link between vertices `a` and `b`, if any.
    pub fn link(&self, a: u32, b: u32) -> Option<u32> {
        let adj = self.adjacency.get(a as usize)?;
        adj.binary_search_by_key(&b, |&(v, _)| v).ok().map(|k| adj[k].1)
    }

    /// The directed link from `a` to its neighbour `b`.
    pub fn dir(&self, a: u32, b: u32) -> Option<Dir> {
        self.link(a, b).map(|l| 2 * l + u32::from(a > b))
    }

    /// Directed link `d`'s `(from, to)` vertices.
    pub fn ends(&self, d: Dir) -> (u32, u32) {
        let l = self.links[(d / 2) as usize];
        if d % 2 == 0 {
            (l.a, l.b)
        } else {
            (l.b, l.a)
        }
    }

    /// Directed link `d`'s class.
    pub fn class(&self, d: Dir) -> LinkClass {
        self.classes[usize::from(self.links[(d / 2) as usize].class)]
    }

    /// A vertex's name: `h3` for hosts, `switch`, `leaf2`, `spine0`, `node1`, `rail4`.
    pub fn vertex_name(&self, v: u32) -> String {
        self.shape.vertex_name(v)
    }

    /// Breaks `list` (pairs of vertex ids) and `round(rate × links)` links
    /// drawn without replacement by `rand::seq::index::sample` on a ChaCha8
    /// stream seeded with `seed`, as the barrier mesh does.
    ///
    /// # Errors
    /// A topology whose links cannot break, a rate out of range, a pair that
    /// is not a link.
    pub fn break_links(&mut self, list: &[(u32, u32)], rate: f64, seed: u64) -> Result<(), ConfigError> {
        let rate = limits::net::RATE.check(rate)?;
        limits::net::BREAK_LIST.check(list.len() as u64)?;
        if (rate > 0.0 || !list.is_empty()) && !self.shape.breakable() {
            return Err(ConfigError {
                name: "break",
                value: self.shape.to_string(),
                expected: "a ring, mesh, torus or fattree topology (switch and nodes links do not break)".to_owned(),
            });
        }
        for &(a, b) in list {
            let l = self.link(a, b).ok_or_else(|| ConfigError {
                name: "break",
                value: format!("{a}-{b}"),
                expected: format!("a link of {} (vertices 0 to {})", self.shape, self.vertices() - 1),
            })?;
            self.broken[l as usize] = true;
        }
        let n = self.links.len();
        let count = ((rate * n as f64).round() as usize).min(n);
        if count > 0 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for l in sample(&mut rng, n, count) {
                self.broken[l] = true;
            }
        }
        self.distances.clear();
        Ok(())
    }

    /// Links broken.
    pub fn broken_count(&self) -> usize {
        self.broken.iter().filter(|&&b| b).count()
    }

    /// The fixed route from host `a` to host `b` as vertices (§2), both ends
    /// included; `[a]` when `a == b`. On a `nodes` network either end may
    /// also be a node's switch ([`Placement::vertices`]).
    pub fn fixed_path(&self, a: u32, b: u32) -> Vec<u32> {
        let mut path = vec![a];
        if a == b {
            return path;
        }
        let h = self.hosts();
        match self.shape {
            Shape::Switch(_) => path.extend([h, b]),
            Shape::Ring(n) => {
                let d = (b + n - a) % n;
                let plus = 2 * d <= n;
                let mut x = a;
                while x != b {
                    x = if plus { (x + 1) % n } else { (x + n - 1) % n };
                    path.push(x);
                }
            }
            Shape::Mesh(dims) | Shape::Torus(dims) => {
                let wrap = matches!(self.shape, Shape::Torus(_));
                let stride = [1, dims[0], dims[0] * dims[1]];
                let mut x = a;
                for k in 0..3 {
                    let n = dims[k];
                    let (from, to) = ((x / stride[k]) % n, (b / stride[k]) % n);
                    let plus = if wrap {
                        let d = (to + n - from) % n;
                        2 * d <= n
                    } else {
                        to > from
                    };
                    let mut c = from;
                    while c != to {
                        let next = if plus { (c + 1) % n } else { (c + n - 1) % n };
                        x = x - c * stride[k] + next * stride[k];
                        c = next;
                        path.push(x);
                    }
                }
            }
            Shape::FatTree { k, l, s } => {
                let (la, lb) = (h + a / k, h + b / k);
                if la == lb {
                    path.extend([la, b]);
                } else {
                    path.extend([la, h + l + b % s, lb, b]);
                }
            }
            Shape::Nodes { n, g, r } => {
                // A node's switch vertex (`h + node`) can hold a rank
                // ([`Placement::vertices`]): it sits in its node, on the
                // rail of the GPU it talks to.
                let node_of = |v: u32| if v < h { v / g } else { v - h };
                let (na, nb) = (node_of(a), node_of(b));
                let per = g / r;
                let node_switch = |node: u32| h + node;
                if na == nb {
                    if a < h && b < h {
                        path.push(node_switch(na));
                    }
                    path.push(b);
                } else {
                    // b's rail (a's when b is a switch); its NIC on each
                    // node hangs off the rail's first GPU.
                    let gpu = if b < h {
                        b
                    } else if a < h {
                        a
                    } else {
                        0
                    };
                    let rail = (gpu % g) / per;
                    let (from, to) = (na * g + rail * per, nb * g + rail * per);
                    if a != from {
                        if a < h {
                            path.push(node_switch(na));
                        }
                        path.push(from);
                    }
                    path.extend([h + n + rail, to]);
                    if b != to {
                        if b < h {
                            path.push(node_switch(nb));
                        }
                        path.push(b);
                    }
                }
            }
        }
        path
    }

    /// The route from host `a` to host `b` as directed links: the fixed
    /// route, or, when it crosses a broken link, the shortest surviving path
    /// with the lexicographically smallest vertex sequence (§3).
    ///
    /// # Errors
    /// No surviving path.
    pub fn route(&mut self, a: u32, b: u32) -> Result<Vec<Dir>, Unreachable> {
        let fixed = self.fixed_path(a, b);
        let dirs = self.dirs(&fixed);
        if dirs.iter().all(|&d| !self.broken[(d / 2) as usize]) {
            return Ok(dirs);
        }
        let path = self.detour(a, b)?;
        Ok(self.dirs(&path))
    }

    fn dirs(&self, path: &[u32]) -> Vec<Dir> {
        path.windows(2).map(|w| self.dir(w[0], w[1]).expect("a route follows links")).collect()
    }

    /// The lexicographically smallest among the shortest surviving paths.
    fn detour(&mut self, a: u32, b: u32) -> Result<Vec<u32>, Unreachable> {
        if !self.distances.contains_key(&b) {
            let dist = self.bfs(b);
            self.distances.insert(b, dist);
        }
        let dist = &self.distances[&b];
        if dist[a as usize] == FAR {
            return Err(Unreachable);
        }
        let mut path = vec![a];
        let mut x = a;
        while x != b {
            let want = dist[x as usize] - 1;
            let &(next, _) = self.adjacency[x as usize]
                .iter()
                .find(|&&(v, l)| !self.broken[l as usize] && dist[v as usize] == want)
                .expect("a vertex at distance d > 0 has a neighbour at d − 1");
            path.push(next);
            x = next;
        }
        Ok(path)
    }

    fn bfs(&self, from: u32) -> Vec<u32> {
        let mut dist = vec![FAR; self.adjacency.len()];
        let mut queue = std::collections::VecDeque::from([from]);
        dist[from as usize] = 0;
        while let Some(x) = queue.pop_front() {
            for &(v, l) in &self.adjacency[x as usize] {
                if !self.broken[l as usize] && dist[v as usize] == FAR {
                    dist[v as usize] = dist[x as usize] + 1;
                    queue.push_back(v);
                }
            }
        }
        dist
    }
}

fn build_links(shape: Shape) -> Vec<Link> {
    let mut links = Vec::new();
    let mut join = |x: u32, y: u32, class: u8| links.push(Link { a: x.min(y), b: x.max(y), class });
    let h = shape.hosts() as u32;
    match shape {
        Shape::Switch(_) => (0..h).for_each(|i| join(i, h, 0)),
        Shape::Ring(n) => {
            let count = match n {
                1 => 0,
                2 => 1,
                _ => n,
            };
            (0..count).for_each(|i| join(i, (i + 1) % n, 0));
        }
        Shape::Mesh(dims) | Shape::Torus(dims) => {
            let wrap = matches!(shape, Shape::Torus(_));
            let stride = [1, dims[0], dims[0] * dims[1]];
            for k in 0..3 {
                for x in 0..h {
                    let c = (x / stride[k]) % dims[k];
                    if c + 1 < dims[k] {
                        join(x, x + stride[k], 0);
                    } else if wrap && dims[k] >= 3 {
                        join(x, x - c * stride[k], 0);
                    }
                }
            }
        }
        Shape::FatTree { k, l, s } => {
            (0..h).for_each(|x| join(x, h + x / k, 0));
            for leaf in 0..l {
                (0..s).for_each(|sp| join(h + leaf, h + l + sp, 1));
            }
        }
        Shape::Nodes { n, g, r } => {
            let per = g / r;
            (0..h).for_each(|x| join(x, h + x / g, 0));
            (0..h).filter(|x| (x % g) % per == 0).for_each(|x| join(x, h + n + (x % g) / per, 1));
        }
    }
    links
}

/// Where each rank sits: `identity` (rank r on host r) or `random:SEED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Placement {
    /// Rank r on host r.
    #[default]
    Identity,
    /// A seeded random choice of hosts (a ChaCha8 shuffle of all hosts; rank
    /// r takes the r-th).
    Random(u64),
}

impl Placement {
    /// The host of every rank.
    ///
    /// # Errors
    /// More ranks than hosts.
    pub fn hosts(self, ranks: u32, hosts: u32) -> Result<Vec<u32>, ConfigError> {
        if ranks > hosts {
            return Err(ConfigError {
                name: "topology",
                value: format!("{hosts} hosts"),
                expected: format!("at least as many hosts as ranks ({ranks})"),
            });
        }
        let mut all: Vec<u32> = (0..hosts).collect();
        if let Placement::Random(seed) = self {
            all.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
        }
        all.truncate(ranks as usize);
        Ok(all)
    }
}

impl Placement {
    /// The vertex of every rank, where ranks beyond the hosts may sit on
    /// switches: with `identity` on a `nodes` network, rank `h + k` (`h`
    /// hosts) is node `k`'s switch, which is how an `NVSwitch` that reduces
    /// (NVLS) is simulated rank to rank. Elsewhere, [`Placement::hosts`].
    ///
    /// # Errors
    /// More ranks than the vertices that can hold one.
    pub fn vertices(self, ranks: u32, shape: Shape) -> Result<Vec<u32>, ConfigError> {
        let hosts = u32::try_from(shape.hosts()).unwrap_or(u32::MAX);
        match (self, shape) {
            (Placement::Identity, Shape::Nodes { n, .. }) if ranks > hosts => {
                if ranks - hosts > n {
                    return Err(ConfigError {
                        name: "topology",
                        value: format!("{hosts} hosts and {n} node switches"),
                        expected: format!("a host or a node switch for each of {ranks} ranks"),
                    });
                }
                Ok((0..ranks).collect())
            }
            _ => self.hosts(ranks, hosts),
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Placement::Identity => f.write_str("identity"),
            Placement::Random(seed) => write!(f, "random:{seed}"),
        }
    }
}

impl FromStr for Placement {
    type Err = String;
    fn from_str(text: &str) -> Result<Placement, String> {
        match text.trim() {
            "identity" => Ok(Placement::Identity),
            other => other
                .strip_prefix("random:")
                .and_then(|s| s.parse::<u64>().ok())
                .map(Placement::Random)
                .ok_or_else(|| format!("{text:?} is not identity or random:SEED")),
        }
    }
}

/// Parses a break list `a-b,c-d` (vertex ids).
///
/// # Errors
/// A part that is not two vertex ids joined by `-`.
pub fn parse_breaks(text: &str) -> Result<Vec<(u32, u32)>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|part| {
            part.split_once('-')
                .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
                .ok_or_else(|| format!("break {part:?} is not a link a-b of two vertex ids"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(id: &str) -> Network {
        let shape: Shape = id.parse().unwrap();
        Network::new(shape, shape.default_classes()).unwrap()
    }

    fn path(id: &str, a: u32, b: u32) -> Vec<u32> {
        net(id).fixed_path(a, b)
    }

    #[test]
    fn ids_parse_and_print_back() {
        for id in ["switch:16", "ring:16", "mesh:4x4", "torus:8x8x2", "fattree:16,16,4", "nodes:4x8"] {
            assert_eq!(id.parse::<Shape>().unwrap().to_string(), id);
        }
        assert!("torus:0x4".parse::<Shape>().is_err());
        assert!("ring:5000".parse::<Shape>().unwrap_err().contains("hosts"));
        assert!("cube:4".parse::<Shape>().is_err());
        assert!("mesh:4".parse::<Shape>().is_err());
    }

    #[test]
    fn link_counts() {
        assert_eq!(net("switch:8").links.len(), 8);
        assert_eq!(net("ring:8").links.len(), 8);
        assert_eq!(net("ring:2").links.len(), 1);
        assert_eq!(net("ring:1").links.len(), 0);
        assert_eq!(net("mesh:4x3").links.len(), 3 * 3 + 4 * 2);
        assert_eq!(net("torus:4x3").links.len(), 12 + 12);
        assert_eq!(net("torus:2x4").links.len(), 4 + 8);
        assert_eq!(net("fattree:4,3,2").links.len(), 12 + 6);
        assert_eq!(net("nodes:2x4").links.len(), 16);
    }

    #[test]
    fn ring_takes_the_shorter_way_and_plus_on_a_tie() {
        assert_eq!(path("ring:8", 1, 3), vec![1, 2, 3]);
        assert_eq!(path("ring:8", 1, 7), vec![1, 0, 7]);
        assert_eq!(path("ring:8", 6, 2), vec![6, 7, 0, 1, 2]); // distance 4 both ways: +
        assert_eq!(path("ring:8", 2, 6), vec![2, 3, 4, 5, 6]);
    }

    #[test]
    fn mesh_routes_in_dimension_order() {
        // 4x3: host = x + 4y. From (3,0)=3 to (0,2)=8: x first, then y.
        assert_eq!(path("mesh:4x3", 3, 8), vec![3, 2, 1, 0, 4, 8]);
        // 3-D: 2x2x2 from 0 to 7 = (1,1,1).
        assert_eq!(path("mesh:2x2x2", 0, 7), vec![0, 1, 3, 7]);
    }

    #[test]
    fn torus_ties_go_the_plus_way() {
        // torus:4x4, from (3,1)=7 to (1,3)=13: x distance 2 (tie, + way: 3→0→1), y distance 2 (+: 1→2→3).
        assert_eq!(path("torus:4x4", 7, 13), vec![7, 4, 5, 9, 13]);
        // x: 0 → 3 is one step the − way.
        assert_eq!(path("torus:4x4", 0, 3), vec![0, 3]);
        // A dimension of 2 has one link.
        assert_eq!(path("torus:2x2", 1, 0), vec![1, 0]);
    }

    #[test]
    fn fat_tree_goes_up_to_spine_b_mod_s() {
        // fattree:4,3,2: hosts 0..12, leaves 12..15, spines 15,16.
        assert_eq!(path("fattree:4,3,2", 0, 3), vec![0, 12, 3]);
        assert_eq!(path("fattree:4,3,2", 0, 5), vec![0, 12, 15 + 1, 13, 5]);
        assert_eq!(path("fattree:4,3,2", 9, 4), vec![9, 14, 15, 13, 4]);
    }

    #[test]
    fn nodes_route_rail_aligned() {
        // nodes:2x4: hosts 0..8 (node = h/4), node switches 8,9, rails 10..13.
        assert_eq!(path("nodes:2x4", 1, 2), vec![1, 8, 2]); // same node
        assert_eq!(path("nodes:2x4", 1, 5), vec![1, 11, 5]); // same rail: straight to its rail
        assert_eq!(path("nodes:2x4", 1, 6), vec![1, 8, 2, 12, 6]); // over the node to rail 2's GPU
                                                                   // nodes:2x4x2 (p4d's sharing, smaller): GPUs 0,1 share NIC 0 (on GPU 0),
                                                                   // 2,3 NIC 1 (on GPU 2); node switches 8, 9, rails 10, 11.
        assert_eq!("nodes:2x4x2".parse::<Shape>().unwrap().to_string(), "nodes:2x4x2");
        assert_eq!("nodes:2x4x4".parse::<Shape>().unwrap().to_string(), "nodes:2x4");
        assert_eq!(path("nodes:2x4x2", 0, 4), vec![0, 10, 4]); // NIC to NIC
        assert_eq!(path("nodes:2x4x2", 0, 5), vec![0, 10, 4, 9, 5]); // then across node 1 to GPU 5
        assert_eq!(path("nodes:2x4x2", 3, 6), vec![3, 8, 2, 11, 6]); // across node 0 to NIC 1's GPU
        assert_eq!(path("nodes:2x4x2", 1, 7), vec![1, 8, 2, 11, 6, 9, 7]); // both
        let n = net("nodes:2x4x2");
        assert_eq!(n.links.len(), 8 + 4, "every GPU to its node switch, one NIC link per (node, rail)");
        let err = "nodes:2x8x3".parse::<Shape>().unwrap_err();
        assert!(err.contains("must divide"), "{err}");
        // Channel orders: channel c enters nodes on rail c mod R.
        let shape: Shape = "nodes:2x4x2".parse().unwrap();
        assert_eq!(shape.channel_order(8, 0), vec![0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(shape.channel_order(8, 1), vec![2, 3, 0, 1, 6, 7, 4, 5]);
        assert_eq!(shape.channel_order(8, 2), vec![1, 2, 3, 0, 5, 6, 7, 4]);
        assert_eq!(shape.channel_order(8, 3), vec![3, 0, 1, 2, 7, 4, 5, 6]);
    }

    #[test]
    fn broken_links_take_the_lexicographic_shortest_path() {
        let mut n = net("mesh:3x3");
        // Break 0-1: from 0 to 2 the shortest surviving paths have 4 links:
        // 0,3,4,1,2 · 0,3,4,5,2; lexicographically smallest is 0,3,4,1,2.
        n.break_links(&[(0, 1)], 0.0, 0).unwrap();
        let r = n.route(0, 2).unwrap();
        let vertices: Vec<u32> = std::iter::once(0).chain(r.iter().map(|&d| n.ends(d).1)).collect();
        assert_eq!(vertices, vec![0, 3, 4, 1, 2]);
        // A route that avoids the break keeps its fixed path.
        assert_eq!(n.route(3, 5).unwrap().len(), 2);
    }

    #[test]
    fn unreachable_pairs_are_reported() {
        let mut n = net("ring:4");
        n.break_links(&[(0, 1), (2, 3)], 0.0, 0).unwrap();
        assert_eq!(n.route(0, 2), Err(Unreachable));
        assert!(n.route(1, 2).is_ok());
        assert!(n.route(3, 0).is_ok());
    }

    #[test]
    fn breaks_are_named_and_bounded() {
        assert_eq!(net("mesh:3x3").break_links(&[(0, 4)], 0.0, 0).unwrap_err().name, "break");
        assert!(net("switch:4").break_links(&[], 0.5, 1).is_err());
        let mut t = net("torus:8x8");
        t.break_links(&[], 0.25, 9).unwrap();
        assert_eq!(t.broken_count(), 32); // round(0.25 × 128)
        assert!(parse_breaks("0-1, 2-3").unwrap() == vec![(0, 1), (2, 3)]);
        assert!(parse_breaks("0-x").is_err());
    }

    #[test]
    fn placement() {
        assert_eq!(Placement::Identity.hosts(3, 4).unwrap(), vec![0, 1, 2]);
        let r = Placement::Random(5).hosts(4, 4).unwrap();
        let mut s = r.clone();
        s.sort_unstable();
        assert_eq!(s, vec![0, 1, 2, 3]);
        assert!(Placement::Identity.hosts(5, 4).is_err());
        assert_eq!("random:5".parse::<Placement>().unwrap(), Placement::Random(5));
    }
}

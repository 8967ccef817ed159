//! The `size × size` mesh, its links, seeded link breaks, and hop-by-hop routing.
//!
//! Node `(x, y)` (`x` the row) has id `x·size + y`. Links are numbered
//! horizontally first (`(x, y)–(x, y+1)`), then vertically
//! (`(x, y)–(x+1, y)`). Two routing rules ([`Routing`]), both hop by hop to
//! the reachable neighbour closest to the destination (Manhattan), ties in the
//! order `+x, −x, +y, −y`:
//!
//! - [`Routing::Paper`], the DLCT paper's rule: the closest neighbour *this
//!   message has not visited*, even when it is farther than where the message
//!   stands; when every neighbour has been visited, a step back along its own
//!   walk (a depth-first walk). Every step is local.
//! - [`Routing::Shortest`]: only a strictly closer neighbour; at a dead end a
//!   shortest path over the surviving links from there (A* with the Manhattan
//!   heuristic).
//!
//! Both terminate; an unreachable destination is `None`.

use crate::limits::ConfigError;
use rand::seq::index::sample;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A node, `x·size + y`.
pub type NodeId = u32;

/// An undirected link.
pub type LinkId = u32;

pub use crate::limits::barrier::MESH_SIZE;

/// The neighbour directions in tie order.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// A `size × size` mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mesh {
    size: u32,
}

impl Mesh {
    /// Validates the side.
    ///
    /// # Errors
    /// When `size` is outside [`MESH_SIZE`].
    pub fn new(size: u64) -> Result<Mesh, ConfigError> {
        if MESH_SIZE.contains(size) {
            Ok(Mesh { size: size as u32 })
        } else {
            Err(ConfigError::int(MESH_SIZE, size))
        }
    }

    /// Side length.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Nodes `N = size²`.
    pub fn nodes(&self) -> u32 {
        self.size * self.size
    }

    /// Undirected links, `2·size·(size − 1)`.
    pub fn link_count(&self) -> u32 {
        2 * self.size * (self.size - 1)
    }

    /// `(x, y)` of a node.
    pub fn coords(&self, node: NodeId) -> (u32, u32) {
        (node / self.size, node % self.size)
    }

    /// The node at `(x, y)`.
    pub fn node(&self, x: u32, y: u32) -> NodeId {
        x * self.size + y
    }

    /// The neighbour in direction `d` (index into [`DIRECTIONS`]), if inside the mesh.
    pub fn neighbour(&self, node: NodeId, d: usize) -> Option<NodeId> {
        let (x, y) = self.coords(node);
        let (dx, dy) = DIRECTIONS[d];
        let (nx, ny) = (i64::from(x) + i64::from(dx), i64::from(y) + i64::from(dy));
        let inside = |v: i64| (0..i64::from(self.size)).contains(&v);
        (inside(nx) && inside(ny)).then(|| self.node(nx as u32, ny as u32))
    }

    /// The link between two adjacent nodes.
    ///
    /// # Panics
    /// When the nodes are not adjacent.
    pub fn link(&self, a: NodeId, b: NodeId) -> LinkId {
        let (lo, hi) = (a.min(b), a.max(b));
        let (x, y) = self.coords(lo);
        if hi == lo + 1 && y + 1 < self.size {
            x * (self.size - 1) + y
        } else {
            assert_eq!(hi, lo + self.size, "nodes {a} and {b} are not adjacent");
            self.size * (self.size - 1) + x * self.size + y
        }
    }

    /// The two endpoints of a link.
    pub fn endpoints(&self, link: LinkId) -> (NodeId, NodeId) {
        let horizontal = self.size * (self.size - 1);
        if link < horizontal {
            let (x, y) = (link / (self.size - 1), link % (self.size - 1));
            (self.node(x, y), self.node(x, y + 1))
        } else {
            let v = link - horizontal;
            let (x, y) = (v / self.size, v % self.size);
            (self.node(x, y), self.node(x + 1, y))
        }
    }

    /// Manhattan distance.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        let ((ax, ay), (bx, by)) = (self.coords(a), self.coords(b));
        ax.abs_diff(bx) + ay.abs_diff(by)
    }
}

/// No node: a broken link or the mesh's edge in [`Router::neighbour`].
pub const NONE: NodeId = NodeId::MAX;

/// How a message finds its way around broken links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Routing {
    /// The DLCT paper's rule: to the closest neighbour not yet visited by
    /// this message (even a farther one), stepping back along its own walk
    /// when every neighbour has been visited. Local, no search.
    #[default]
    Paper,
    /// Strictly closer neighbours only; at a dead end, a shortest path over
    /// the surviving links (the rule of links made before `v=3`).
    Shortest,
}

impl Routing {
    /// Both rules, the default first.
    pub const ALL: [Routing; 2] = [Routing::Paper, Routing::Shortest];

    /// Stable id (`routing=` in links, `--routing` in the CLI).
    pub fn id(self) -> &'static str {
        match self {
            Routing::Paper => "paper",
            Routing::Shortest => "shortest",
        }
    }

    /// Human-readable name.
    pub fn label(self) -> &'static str {
        match self {
            Routing::Paper => "paper: closest unvisited, step back",
            Routing::Shortest => "shortest: greedy, then shortest path",
        }
    }
}

impl std::str::FromStr for Routing {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Routing::ALL
            .into_iter()
            .find(|r| r.id() == s)
            .ok_or_else(|| format!("unknown routing {s:?}; expected one of: paper, shortest"))
    }
}

impl std::fmt::Display for Routing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Marks a back-step in a [`Routing::Paper`] walk's exception list.
const BACK: NodeId = 1 << 31;

/// One hop of a message: the node it moves to, the direction (index into
/// [`DIRECTIONS`]) and whether it steps back along its own walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The node reached.
    pub next: NodeId,
    /// The direction taken.
    pub direction: usize,
    /// A step back along the message's own walk ([`Routing::Paper`] only).
    pub back: bool,
}

/// What a message in flight remembers of its route: for [`Routing::Shortest`]
/// the dead-end detour it follows and the index of its next node; for
/// [`Routing::Paper`] the hops where its walk leaves the plain greedy step, as
/// pairs `(hop index, node | BACK)`, the index of the next pair and that
/// pair's hop index (kept here so that a greedy hop reads no list).
#[derive(Debug, Clone)]
pub struct RouteState {
    list: Option<std::sync::Arc<[NodeId]>>,
    next: u32,
    next_hop: u32,
}

impl Default for RouteState {
    fn default() -> Self {
        RouteState { list: None, next: 0, next_hop: u32::MAX }
    }
}

impl RouteState {
    fn new(list: std::sync::Arc<[NodeId]>, next: u32) -> RouteState {
        let next_hop = list.get(next as usize).copied().unwrap_or(u32::MAX);
        RouteState { list: Some(list), next, next_hop }
    }
}

/// Union–find with path halving and union by size (connected breaks).
struct DisjointSets {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl DisjointSets {
    fn new(n: usize) -> DisjointSets {
        DisjointSets { parent: (0..n as u32).collect(), size: vec![1; n] }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] as usize != x {
            let grand = self.parent[self.parent[x] as usize];
            self.parent[x] = grand;
            x = grand as usize;
        }
        x
    }

    /// Joins the sets of `a` and `b`; false when they were one already.
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a as u32;
        self.size[a] += self.size[b];
        true
    }
}

/// Which links are broken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breaks {
    broken: Vec<bool>,
}

/// Break rates accepted.
pub const MAX_BREAK_RATE: f64 = 0.9;

impl Breaks {
    /// No link broken.
    pub fn none(mesh: &Mesh) -> Breaks {
        Breaks { broken: vec![false; mesh.link_count() as usize] }
    }

    /// Exactly `round(rate × links)` links, chosen uniformly without
    /// replacement by `rand::seq::index::sample` on a ChaCha8 stream seeded
    /// with `seed` (the same seed breaks the same links everywhere).
    ///
    /// # Errors
    /// When `rate` is not in `0..=0.9`.
    pub fn random(mesh: &Mesh, rate: f64, seed: u64) -> Result<Breaks, ConfigError> {
        let count = Breaks::target(*mesh, rate)?;
        let links = mesh.link_count() as usize;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut breaks = Breaks::none(mesh);
        for link in sample(&mut rng, links, count) {
            breaks.broken[link] = true;
        }
        Ok(breaks)
    }

    /// Like [`Breaks::random`], but keeping the mesh connected. The rule: links
    /// are visited in a seeded random order (a ChaCha8 permutation, seed
    /// `seed ^ 0xC0FFEE00D15C0DE5`) and each is broken unless its loss would
    /// disconnect the mesh, until `round(rate × links)` are broken or no link
    /// can go. Fewer than asked only when the rate exceeds what a connected
    /// mesh allows (`links − nodes + 1`).
    ///
    /// Computed in near-linear time with the same outcome as that greedy
    /// visit: a link survives the visit of *all* links exactly when it belongs
    /// to the spanning tree Kruskal builds by adding links in the *reverse*
    /// visit order (reverse-delete and Kruskal give the same unique minimum
    /// spanning tree when the visit rank is the weight), and stopping at the
    /// target keeps the first `target` non-tree links of the visit order.
    /// `tests` compare it with the literal greedy on many seeds.
    ///
    /// # Errors
    /// As [`Breaks::random`].
    pub fn random_connected(mesh: &Mesh, rate: f64, seed: u64) -> Result<Breaks, ConfigError> {
        let target = Breaks::target(*mesh, rate)?;
        let links = mesh.link_count() as usize;
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xC0FF_EE00_D15C_0DE5);
        let order = sample(&mut rng, links, links).into_vec();
        let mut components = DisjointSets::new(mesh.nodes() as usize);
        let mut in_tree = vec![false; links];
        for &link in order.iter().rev() {
            let (a, b) = mesh.endpoints(link as LinkId);
            in_tree[link] = components.union(a as usize, b as usize);
        }
        let mut breaks = Breaks::none(mesh);
        for link in order.into_iter().filter(|&l| !in_tree[l]).take(target) {
            breaks.broken[link] = true;
        }
        Ok(breaks)
    }

    /// `round(rate × links)`, after checking the rate.
    fn target(mesh: Mesh, rate: f64) -> Result<usize, ConfigError> {
        if !(0.0..=MAX_BREAK_RATE).contains(&rate) {
            return Err(ConfigError {
                name: "break_rate",
                value: rate.to_string(),
                expected: format!("a number in 0..={MAX_BREAK_RATE}"),
            });
        }
        Ok((rate * f64::from(mesh.link_count())).round() as usize)
    }

    /// Whether every node reaches every other over the surviving links.
    pub fn connected(&self, mesh: &Mesh) -> bool {
        let mut seen = vec![false; mesh.nodes() as usize];
        seen[0] = true;
        let mut stack = vec![0];
        let mut count = 1;
        while let Some(n) = stack.pop() {
            for d in 0..4 {
                if let Some(m) = mesh.neighbour(n, d) {
                    if !seen[m as usize] && !self.is_broken(mesh.link(n, m)) {
                        seen[m as usize] = true;
                        count += 1;
                        stack.push(m);
                    }
                }
            }
        }
        count == mesh.nodes()
    }

    /// The given links broken.
    ///
    /// # Errors
    /// When a link id is out of range.
    pub fn from_links(mesh: &Mesh, links: &[LinkId]) -> Result<Breaks, ConfigError> {
        let mut breaks = Breaks::none(mesh);
        for &l in links {
            if l >= mesh.link_count() {
                return Err(ConfigError {
                    name: "breaks",
                    value: l.to_string(),
                    expected: format!("link ids in 0..{}", mesh.link_count()),
                });
            }
            breaks.broken[l as usize] = true;
        }
        Ok(breaks)
    }

    /// Whether `link` is broken.
    pub fn is_broken(&self, link: LinkId) -> bool {
        self.broken[link as usize]
    }

    /// The broken links, ascending.
    pub fn links(&self) -> Vec<LinkId> {
        self.broken.iter().enumerate().filter(|(_, &b)| b).map(|(i, _)| i as LinkId).collect()
    }

    /// Number of broken links.
    pub fn count(&self) -> usize {
        self.broken.iter().filter(|&&b| b).count()
    }
}

/// A node's record in the dead-end search.
#[derive(Debug, Clone, Copy, Default)]
struct Visit {
    stamp: u32,
    cost: u32,
    previous: NodeId,
}

/// Routes messages over the surviving links.
#[derive(Debug, Clone)]
pub struct Router {
    routing: Routing,
    breaks: Breaks,
    /// Connected component of each node over the surviving links.
    component: Vec<u32>,
    /// The surviving neighbour of each node in each direction ([`NONE`] when
    /// the link is broken or outside the mesh): routing's inner loops read
    /// this instead of dividing node ids into coordinates.
    next: Vec<[NodeId; 4]>,
    /// `(x, y)` of every node.
    xy: Vec<(u32, u32)>,
    /// Scratch of the dead-end search, one record per node (one cache line
    /// holds several): a visit stamp (stamps avoid clearing N entries per
    /// search), the cost so far and the predecessor.
    scratch: Vec<Visit>,
    generation: u32,
    /// Scratch of the A* bucket queue, kept between searches.
    buckets: Vec<Vec<(NodeId, u32)>>,
    /// Routes already computed (consecutive barriers repeat them). Only looked
    /// up, never iterated, so the hash order cannot leak into results.
    cache: std::collections::HashMap<(NodeId, NodeId), std::sync::Arc<[NodeId]>>,
    /// Dead-end detours already searched, by `(dead end, destination)`: many
    /// sources of one destination run into the same dead end. Under
    /// [`Routing::Paper`], the walks' exception lists by `(source, destination)`.
    detours: std::collections::HashMap<(NodeId, NodeId), std::sync::Arc<[NodeId]>>,
    /// The depth-first walk's stack, kept between walks.
    stack: Vec<NodeId>,
}

impl Router {
    /// A router for `mesh` with `breaks` under `routing`.
    pub fn new(mesh: Mesh, breaks: Breaks, routing: Routing) -> Router {
        let n = mesh.nodes() as usize;
        let next = (0..mesh.nodes())
            .map(|node| {
                std::array::from_fn(|d| match mesh.neighbour(node, d) {
                    Some(m) if !breaks.is_broken(mesh.link(node, m)) => m,
                    _ => NONE,
                })
            })
            .collect();
        let xy = (0..mesh.nodes()).map(|node| mesh.coords(node)).collect();
        let mut router = Router {
            routing,
            breaks,
            next,
            xy,
            component: vec![u32::MAX; n],
            scratch: vec![Visit::default(); n],
            generation: 0,
            buckets: Vec::new(),
            cache: std::collections::HashMap::new(),
            detours: std::collections::HashMap::new(),
            stack: Vec::new(),
        };
        let mut label = 0;
        for start in 0..mesh.nodes() {
            if router.component[start as usize] != u32::MAX {
                continue;
            }
            router.component[start as usize] = label;
            let mut stack = vec![start];
            while let Some(n) = stack.pop() {
                let next: Vec<NodeId> = router.neighbours(n).collect();
                for m in next {
                    if router.component[m as usize] == u32::MAX {
                        router.component[m as usize] = label;
                        stack.push(m);
                    }
                }
            }
            label += 1;
        }
        router
    }

    /// The breaks.
    pub fn breaks(&self) -> &Breaks {
        &self.breaks
    }

    /// The routing rule.
    pub fn routing(&self) -> Routing {
        self.routing
    }

    /// Surviving neighbours in tie order.
    pub fn neighbours(&self, node: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.next[node as usize].into_iter().filter(|&m| m != NONE)
    }

    /// The surviving neighbour of `node` in direction `d`, or [`NONE`].
    pub fn neighbour(&self, node: NodeId, d: usize) -> NodeId {
        self.next[node as usize][d]
    }

    /// Manhattan distance from the coordinate table.
    fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        let ((ax, ay), (bx, by)) = (self.xy[a as usize], self.xy[b as usize]);
        ax.abs_diff(bx) + ay.abs_diff(by)
    }

    /// A shortest path `from → to` over surviving links (nodes after `from`):
    /// A* with the Manhattan distance as heuristic (admissible and consistent
    /// on a mesh, so the first time `to` is taken the path is shortest); `to`
    /// must be reachable. It explores only around the detour instead of the
    /// whole mesh. On a mesh every step changes the estimate `f = g + h` by 0
    /// or 2, so the open set is a bucket queue indexed by `(f − f₀) / 2`, each
    /// bucket a stack: among equal estimates the node found last (the deepest)
    /// goes first, which avoids sweeping the rectangles that share one estimate.
    fn shortest(&mut self, from: NodeId, to: NodeId) -> Vec<NodeId> {
        self.generation += 1;
        let generation = self.generation;
        self.scratch[from as usize] = Visit { stamp: generation, cost: 0, previous: from };
        // A consistent heuristic on a mesh: a node taken from the bucket of
        // estimate f puts its neighbours in the bucket of f or of f + 2, so two
        // stacks (this estimate, the next) are the whole bucket queue.
        let mut buckets = std::mem::take(&mut self.buckets);
        buckets.resize_with(2, Vec::new);
        let [mut current, mut next] = [std::mem::take(&mut buckets[0]), std::mem::take(&mut buckets[1])];
        current.clear();
        next.clear();
        current.push((from, 0));
        let mut f = self.distance(from, to);
        let (tx, ty) = self.xy[to as usize];
        loop {
            let Some((n, g)) = current.pop() else {
                if next.is_empty() {
                    break;
                }
                std::mem::swap(&mut current, &mut next);
                f += 2;
                continue;
            };
            if g != self.scratch[n as usize].cost {
                continue; // reached more cheaply since this entry was pushed
            }
            if n == to {
                break;
            }
            let g = g + 1;
            for m in self.next[n as usize] {
                if m == NONE {
                    continue;
                }
                let visit = &mut self.scratch[m as usize];
                if visit.stamp != generation || g < visit.cost {
                    *visit = Visit { stamp: generation, cost: g, previous: n };
                    let (mx, my) = self.xy[m as usize];
                    if g + mx.abs_diff(tx) + my.abs_diff(ty) == f {
                        current.push((m, g));
                    } else {
                        next.push((m, g));
                    }
                }
            }
        }
        buckets[0] = current;
        buckets[1] = next;
        self.buckets = buckets;
        let mut path = vec![to];
        while let Some(&last) = path.last() {
            let p = self.scratch[last as usize].previous;
            if p == from {
                break;
            }
            path.push(p);
        }
        path.reverse();
        path
    }

    /// Whether `dst` is reachable from `src` over surviving links.
    pub fn reachable(&self, src: NodeId, dst: NodeId) -> bool {
        self.component[src as usize] == self.component[dst as usize]
    }

    /// The route `src → dst` as the nodes after `src` (empty when `src = dst`),
    /// or `None` when `dst` is unreachable.
    pub fn route(&mut self, src: NodeId, dst: NodeId) -> Option<std::sync::Arc<[NodeId]>> {
        if !self.reachable(src, dst) {
            return None;
        }
        if let Some(path) = self.cache.get(&(src, dst)) {
            return Some(path.clone());
        }
        let path: std::sync::Arc<[NodeId]> = self.compute_route(src, dst).into();
        self.cache.insert((src, dst), path.clone());
        Some(path)
    }

    /// The next hop of a message from `from` bound for `dst`, now at `at`
    /// (`at ≠ dst`, reachable) after `hops` hops, with `state` its
    /// [`RouteState`] (set here at its first dead end). Following [`route`]
    /// hop by hop without building the route: `route(from, dst)` is exactly
    /// the sequence of `next_step` nodes from `from`.
    ///
    /// Under [`Routing::Paper`], until its first dead end a walk is the plain
    /// greedy step (every node it visited is farther from `dst` than every
    /// closer neighbour, so the closest unvisited neighbour is the first
    /// surviving one towards `dst`). At the first dead end the whole walk is
    /// worked out once, and only the hops where it differs from the plain
    /// greedy step are kept.
    ///
    /// # Panics
    /// When `dst` is not reachable from `at` (callers check
    /// [`Router::reachable`] when the message is sent).
    ///
    /// [`route`]: Router::route
    pub fn next_step(&mut self, from: NodeId, at: NodeId, dst: NodeId, hops: u32, state: &mut RouteState) -> Step {
        match self.routing {
            Routing::Shortest => {
                let (next, direction) = self.next_shortest(at, dst, state);
                Step { next, direction, back: false }
            }
            Routing::Paper => {
                if hops != state.next_hop {
                    if let Some(d) = self.greedy_direction(at, dst) {
                        return Step { next: self.next[at as usize][d], direction: d, back: false };
                    }
                    debug_assert!(state.list.is_none(), "a paper walk's unlisted hops are greedy steps");
                    // The first dead end: the walk's exceptions start here.
                    *state = RouteState::new(self.exceptions(from, dst), 0);
                }
                let list = state.list.as_ref().expect("an exception list");
                let node = list[state.next as usize + 1];
                state.next += 2;
                state.next_hop = list.get(state.next as usize).copied().unwrap_or(u32::MAX);
                let next = node & !BACK;
                Step { next, direction: self.direction_to(at, next), back: node & BACK != 0 }
            }
        }
    }

    fn next_shortest(&mut self, at: NodeId, dst: NodeId, detour: &mut RouteState) -> (NodeId, usize) {
        if let Some(path) = &detour.list {
            let next = path[detour.next as usize];
            detour.next += 1;
            return (next, self.direction_to(at, next));
        }
        if let Some(d) = self.greedy_direction(at, dst) {
            return (self.next[at as usize][d], d);
        }
        let path = if let Some(path) = self.detours.get(&(at, dst)) {
            path.clone()
        } else {
            let path: std::sync::Arc<[NodeId]> = self.shortest(at, dst).into();
            self.detours.insert((at, dst), path.clone());
            path
        };
        let next = path[0];
        *detour = RouteState { list: Some(path), next: 1, next_hop: u32::MAX };
        (next, self.direction_to(at, next))
    }

    /// The [`Routing::Paper`] walk `from → dst` (reachable), calling `step`
    /// with each hop's index, the node reached, whether it is a back-step and
    /// whether it equals the plain greedy step from where the walk stood.
    fn paper_walk(&mut self, from: NodeId, dst: NodeId, mut step: impl FnMut(u32, NodeId, bool, bool)) {
        self.generation += 1;
        let generation = self.generation;
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(from);
        self.scratch[from as usize].stamp = generation;
        let (mut at, mut hop) = (from, 0u32);
        let (tx, ty) = self.xy[dst as usize];
        while at != dst {
            let mut best = (u32::MAX, NONE);
            for m in self.next[at as usize] {
                if m != NONE && self.scratch[m as usize].stamp != generation {
                    let (mx, my) = self.xy[m as usize];
                    let d = mx.abs_diff(tx) + my.abs_diff(ty);
                    if d < best.0 {
                        best = (d, m);
                    }
                }
            }
            let (next, back) = if best.1 == NONE {
                stack.pop();
                (*stack.last().expect("a reachable destination ends the walk first"), true)
            } else {
                self.scratch[best.1 as usize].stamp = generation;
                stack.push(best.1);
                (best.1, false)
            };
            let greedy = !back && self.greedy(at, dst) == Some(next);
            step(hop, next, back, greedy);
            at = next;
            hop += 1;
        }
        self.stack = stack;
    }

    /// The hops of the paper walk `from → dst` that are not the plain greedy
    /// step, as pairs `(hop index, node | BACK)`; cached by pair.
    fn exceptions(&mut self, from: NodeId, dst: NodeId) -> std::sync::Arc<[NodeId]> {
        if let Some(list) = self.detours.get(&(from, dst)) {
            return list.clone();
        }
        let mut list = Vec::new();
        self.paper_walk(from, dst, |hop, next, back, greedy| {
            if !greedy {
                list.push(hop);
                list.push(if back { next | BACK } else { next });
            }
        });
        let list: std::sync::Arc<[NodeId]> = list.into();
        self.detours.insert((from, dst), list.clone());
        list
    }

    /// The route `src → dst` with each hop's back-step flag (empty when
    /// `src = dst`), or `None` when `dst` is unreachable.
    pub fn walk(&mut self, src: NodeId, dst: NodeId) -> Option<Vec<(NodeId, bool)>> {
        if !self.reachable(src, dst) {
            return None;
        }
        let (mut at, mut hops, mut state, mut out) = (src, 0, RouteState::default(), Vec::new());
        while at != dst {
            let step = self.next_step(src, at, dst, hops, &mut state);
            out.push((step.next, step.back));
            at = step.next;
            hops += 1;
        }
        Some(out)
    }

    /// The surviving neighbour strictly closer to `dst`, ties in the order
    /// `+x, −x, +y, −y` (every closer neighbour is one step closer, so the
    /// first surviving link in a direction towards `dst` is the one).
    fn greedy(&self, at: NodeId, dst: NodeId) -> Option<NodeId> {
        self.greedy_direction(at, dst).map(|d| self.next[at as usize][d])
    }

    /// The direction (index into [`DIRECTIONS`]) of [`Router::greedy`]'s step.
    fn greedy_direction(&self, at: NodeId, dst: NodeId) -> Option<usize> {
        let ((ax, ay), (bx, by)) = (self.xy[at as usize], self.xy[dst as usize]);
        let next = &self.next[at as usize];
        let towards = [bx > ax, bx < ax, by > ay, by < ay];
        (0..4).find(|&d| towards[d] && next[d] != NONE)
    }

    /// The direction from `at` to its surviving neighbour `next`.
    fn direction_to(&self, at: NodeId, next: NodeId) -> usize {
        self.next[at as usize].iter().position(|&m| m == next).expect("routes follow surviving links")
    }

    fn compute_route(&mut self, src: NodeId, dst: NodeId) -> Vec<NodeId> {
        let mut path = Vec::new();
        if self.routing == Routing::Paper {
            self.paper_walk(src, dst, |_, next, _, _| path.push(next));
            return path;
        }
        let mut at = src;
        while at != dst {
            if let Some(next) = self.greedy(at, dst) {
                path.push(next);
                at = next;
            } else {
                // Dead end: a shortest path over the surviving links from here.
                if let Some(detour) = self.detours.get(&(at, dst)) {
                    path.extend_from_slice(detour);
                } else {
                    let detour: std::sync::Arc<[NodeId]> = self.shortest(at, dst).into();
                    path.extend_from_slice(&detour);
                    self.detours.insert((at, dst), detour);
                }
                break;
            }
        }
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip() {
        let m = Mesh::new(5).unwrap();
        assert_eq!(m.link_count(), 40);
        for l in 0..m.link_count() {
            let (a, b) = m.endpoints(l);
            assert_eq!(m.link(a, b), l);
            assert_eq!(m.distance(a, b), 1);
        }
    }

    #[test]
    fn breaks_are_exact_and_seeded() {
        let m = Mesh::new(8).unwrap();
        let a = Breaks::random(&m, 0.2, 7).unwrap();
        assert_eq!(a.count(), (0.2f64 * 112.0).round() as usize);
        assert_eq!(a, Breaks::random(&m, 0.2, 7).unwrap());
        assert_ne!(a, Breaks::random(&m, 0.2, 8).unwrap());
        assert!(Breaks::random(&m, 0.95, 1).is_err());
    }

    #[test]
    fn routes_detour_around_breaks() {
        let m = Mesh::new(3).unwrap();
        let mut intact = Router::new(m, Breaks::none(&m), Routing::Shortest);
        // (0,0) → (0,2): straight along +y.
        assert_eq!(intact.route(0, 2).as_deref(), Some(&[1, 2][..]));
        // Break (0,0)–(0,1): greedy goes +x first, then along.
        let breaks = Breaks::from_links(&m, &[m.link(0, 1)]).unwrap();
        let mut r = Router::new(m, breaks, Routing::Shortest);
        let path = r.route(0, 2).unwrap();
        assert_eq!(path.len(), 4);
        assert_eq!(path[0], 3);
        // Isolate node 8: unreachable.
        let breaks = Breaks::from_links(&m, &[m.link(5, 8), m.link(7, 8)]).unwrap();
        assert!(Router::new(m, breaks, Routing::Shortest).route(0, 8).is_none());
    }

    /// Breadth-first distances from `target` over the surviving links.
    fn distances(r: &Router, target: NodeId) -> Vec<u32> {
        let mut dist = vec![u32::MAX; r.xy.len()];
        dist[target as usize] = 0;
        let mut queue = std::collections::VecDeque::from([target]);
        while let Some(n) = queue.pop_front() {
            for m in r.neighbours(n).collect::<Vec<_>>() {
                if dist[m as usize] == u32::MAX {
                    dist[m as usize] = dist[n as usize] + 1;
                    queue.push_back(m);
                }
            }
        }
        dist
    }

    #[test]
    fn routes_are_greedy_then_shortest() {
        let m = Mesh::new(12).unwrap();
        for seed in 0..4 {
            let mut r = Router::new(m, Breaks::random_connected(&m, 0.3, seed).unwrap(), Routing::Shortest);
            for dst in 0..m.nodes() {
                let dist = distances(&r, dst);
                for src in 0..m.nodes() {
                    let path = r.route(src, dst).unwrap();
                    let mut at = src;
                    let mut greedy = true;
                    for (i, &next) in path.iter().enumerate() {
                        assert_eq!(m.distance(at, next), 1);
                        assert!(r.neighbours(at).any(|n| n == next), "route {src}->{dst} uses a broken link");
                        let closer = r.neighbours(at).any(|n| m.distance(n, dst) < m.distance(at, dst));
                        if greedy && !closer {
                            greedy = false;
                            assert_eq!(
                                (path.len() - i) as u32,
                                dist[at as usize],
                                "detour from {at} to {dst} is not shortest"
                            );
                        }
                        if greedy {
                            assert_eq!(m.distance(next, dst) + 1, m.distance(at, dst));
                        }
                        at = next;
                    }
                    assert_eq!(at, dst);
                    // Hop by hop (the engine's way) is the same route, and each
                    // step's direction leads to its node.
                    let (mut at, mut detour, mut steps) = (src, RouteState::default(), Vec::new());
                    while at != dst {
                        let step = r.next_step(src, at, dst, steps.len() as u32, &mut detour);
                        assert_eq!(
                            r.neighbour(at, step.direction),
                            step.next,
                            "direction of the step {at}->{}",
                            step.next
                        );
                        assert!(!step.back);
                        steps.push(step.next);
                        at = step.next;
                    }
                    assert_eq!(steps, path.to_vec(), "next_step from {src} to {dst}");
                }
            }
        }
    }

    /// A 3 × 3 router under the paper's rule with the given links broken (node pairs).
    fn paper(broken: &[(NodeId, NodeId)]) -> Router {
        let m = Mesh::new(3).unwrap();
        let links: Vec<LinkId> = broken.iter().map(|&(a, b)| m.link(a, b)).collect();
        Router::new(m, Breaks::from_links(&m, &links).unwrap(), Routing::Paper)
    }

    // The 3 × 3 mesh of the next three tests (x the row, +x downwards):
    //
    //     0 1 2
    //     3 4 5
    //     6 7 8
    //
    // Tie order +x, −x, +y, −y: down, up, right, left.

    /// 3 → 5 with 4–5, 6–7 and 7–8 broken. 3 goes right to 4 (closer); at 4
    /// the link to 5 is broken, 7 (down) and 1 (up) are both at distance 2
    /// from 5, and down comes first: 7. 7's other links are broken and 4 is
    /// visited, so it steps back to 4; then 1, 2 and down to 5.
    #[test]
    fn paper_walk_steps_back_from_a_dead_end() {
        let mut r = paper(&[(4, 5), (6, 7), (7, 8)]);
        let walk = r.walk(3, 5).unwrap();
        assert_eq!(walk, [(4, false), (7, false), (4, true), (1, false), (2, false), (5, false)]);
        assert_eq!(r.route(3, 5).as_deref(), Some(&[4, 7, 4, 1, 2, 5][..]));
    }

    /// 3 → 5 with 4–5 and 7–8 broken: the pocket 7, 6 holds the walk two
    /// steps. At 7 the closest unvisited neighbour is 6 (8 is cut off, 4
    /// visited), even though it is farther from 5; at 6 both neighbours (3, 7)
    /// are visited, so it steps back to 7, where nothing is left, and back to 4.
    #[test]
    fn paper_walk_leaves_a_pocket_with_two_back_steps() {
        let mut r = paper(&[(4, 5), (7, 8)]);
        let walk = r.walk(3, 5).unwrap();
        assert_eq!(
            walk,
            [(4, false), (7, false), (6, false), (7, true), (4, true), (1, false), (2, false), (5, false)]
        );
    }

    /// 0 → 8 with 5–8 and 7–8 broken: 8 is cut off, so there is no walk.
    #[test]
    fn paper_walk_reports_an_unreachable_destination() {
        let mut r = paper(&[(5, 8), (7, 8)]);
        assert!(r.walk(0, 8).is_none());
        assert!(r.route(0, 8).is_none());
        assert!(!r.reachable(0, 8) && r.reachable(0, 7));
    }

    /// The paper's rule written the long way: a depth-first walk with a
    /// visited set, the closest unvisited neighbour first (ties +x, −x, +y,
    /// −y), a step back when none is left.
    fn literal_paper_walk(m: Mesh, breaks: &Breaks, src: NodeId, dst: NodeId) -> Vec<(NodeId, bool)> {
        let mut visited = std::collections::HashSet::from([src]);
        let mut stack = vec![src];
        let mut out = Vec::new();
        while let Some(&at) = stack.last() {
            if at == dst {
                break;
            }
            let open = (0..4)
                .filter_map(|d| m.neighbour(at, d))
                .filter(|&n| !breaks.is_broken(m.link(at, n)) && !visited.contains(&n));
            // `min_by_key` keeps the first of equal keys: the tie order.
            if let Some(next) = open.min_by_key(|&n| m.distance(n, dst)) {
                visited.insert(next);
                stack.push(next);
                out.push((next, false));
            } else {
                stack.pop();
                out.push((*stack.last().expect("reachable"), true));
            }
        }
        out
    }

    #[test]
    fn paper_walks_follow_the_rule_hop_by_hop() {
        let m = Mesh::new(9).unwrap();
        let mut back_steps = 0;
        for seed in 0..6 {
            let breaks = Breaks::random_connected(&m, 0.35, seed).unwrap();
            let mut r = Router::new(m, breaks.clone(), Routing::Paper);
            for src in 0..m.nodes() {
                for dst in 0..m.nodes() {
                    let expect = literal_paper_walk(m, &breaks, src, dst);
                    back_steps += expect.iter().filter(|s| s.1).count();
                    assert_eq!(r.walk(src, dst).unwrap(), expect, "walk {src}->{dst}, seed {seed}");
                    let nodes: Vec<NodeId> = expect.iter().map(|s| s.0).collect();
                    assert_eq!(r.route(src, dst).unwrap().to_vec(), nodes, "route {src}->{dst}");
                }
            }
        }
        assert!(back_steps > 100, "the cases step back ({back_steps} back-steps)");
    }

    /// On an intact mesh both rules take the plain greedy route.
    #[test]
    fn both_rules_agree_on_an_intact_mesh() {
        let m = Mesh::new(6).unwrap();
        let mut paper = Router::new(m, Breaks::none(&m), Routing::Paper);
        let mut shortest = Router::new(m, Breaks::none(&m), Routing::Shortest);
        for src in 0..m.nodes() {
            for dst in 0..m.nodes() {
                let p = paper.route(src, dst).unwrap();
                assert_eq!(p, shortest.route(src, dst).unwrap());
                assert_eq!(p.len() as u32, m.distance(src, dst));
            }
        }
    }
}

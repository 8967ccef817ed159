//! The barrier algorithms and their communication structures.
//!
//! Every algorithm is built from *layers* over *groups* of nodes. A group's
//! members are ordered by the encoding's ids; a member's local id is its rank
//! in that order. A layer is a static gather/release tree, the adaptive DLCT
//! tree, or rounds of messages (one-phase algorithms). Two-layer algorithms
//! put one group per `t × t` tile (the first algorithm) and one group of tile
//! leaders (local id 0 of each tile; the second algorithm).

use super::encoding::{Numbering, Structure};
use super::mesh::{Mesh, NodeId};
use std::collections::VecDeque;
use std::fmt;
use std::str::FromStr;

/// A barrier algorithm. Ids are stable (URLs, CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub enum Algorithm {
    /// Master–slave: everyone reports to ID 0, which releases everyone.
    Ms,
    /// A BFS spanning tree of the intact mesh rooted at ID 0; gather up, release down.
    Tree,
    /// Tournament: static winners over row-major ids, a binomial arrival tree
    /// (loser `i` reports to `i` with its lowest set bit cleared, so the
    /// winner of each match is fixed in advance) and a single-level wake-up:
    /// the champion releases every node directly (the global flag of the
    /// shared-memory version).
    Tournament,
    /// Dissemination: round `k`, `i` sends to `(i + 2^k) mod N`.
    Dissemination,
    /// Dissemination inside each tile, Tree among tile leaders.
    DisseminationTree,
    /// The adaptive local continuous tree over the whole mesh.
    #[default]
    Dlct,
    /// DLCT inside each tile, master–slave among tile leaders (the paper's ID1).
    DlctMs,
    /// DLCT inside each tile, Tree among tile leaders (the paper's ID2).
    DlctTree,
    /// Brooks' butterfly: partners `i XOR 2^k` over the next power of two; a
    /// missing partner `v ≥ N` is played by `v − 2^(L−1)`, which then sends twice.
    Butterfly,
    /// Pairwise exchange: recursive doubling over the largest power of two
    /// `q ≤ N`; nodes `q..N` first report to `i − q` and are released last.
    Pairwise,
    /// Every node sends to every other node.
    AllToAll,
    /// Combining tree: a `k`-ary tree over the encoding's ids (parent `(i − 1) / k`).
    Combining,
    /// The MCS tree barrier (Mellor-Crummey & Scott 1991) over the encoding's
    /// ids: a 4-ary arrival tree (parent `(i − 1) / 4`) and a binary wake-up
    /// tree (parent `(i − 1) / 2`).
    Mcs,
    /// Binomial structure tree, static: the parent clears the highest set bit
    /// of the encoding's id (the labelling the paper contrasts with LCT).
    Bst,
    /// A 2-level tree: each `t × t` tile's members report to the tile leader,
    /// the leaders report to the root (the first leader); release in reverse.
    TwoLevel,
}

impl Algorithm {
    /// Every algorithm, in menu order.
    pub const ALL: [Algorithm; 15] = [
        Algorithm::Ms,
        Algorithm::Tree,
        Algorithm::Tournament,
        Algorithm::Dissemination,
        Algorithm::DisseminationTree,
        Algorithm::Dlct,
        Algorithm::DlctMs,
        Algorithm::DlctTree,
        Algorithm::Butterfly,
        Algorithm::Pairwise,
        Algorithm::AllToAll,
        Algorithm::Combining,
        Algorithm::Mcs,
        Algorithm::Bst,
        Algorithm::TwoLevel,
    ];

    /// Stable id.
    pub fn id(self) -> &'static str {
        match self {
            Algorithm::Ms => "ms",
            Algorithm::Tree => "tree",
            Algorithm::Tournament => "tournament",
            Algorithm::Dissemination => "dissemination",
            Algorithm::DisseminationTree => "dissemination-tree",
            Algorithm::Dlct => "dlct",
            Algorithm::DlctMs => "dlct-ms",
            Algorithm::DlctTree => "dlct-tree",
            Algorithm::Butterfly => "butterfly",
            Algorithm::Pairwise => "pairwise",
            Algorithm::AllToAll => "all-to-all",
            Algorithm::Combining => "combining",
            Algorithm::Mcs => "mcs",
            Algorithm::Bst => "bst",
            Algorithm::TwoLevel => "two-level",
        }
    }

    /// End-to-end messages of one fault-free barrier on `nodes` nodes, at
    /// most (an upper estimate used to refuse runs that cannot finish).
    pub fn messages_per_barrier(self, nodes: u64) -> u64 {
        let log = u64::from(64 - nodes.saturating_sub(1).leading_zeros());
        match self {
            Algorithm::AllToAll => nodes * nodes.saturating_sub(1),
            Algorithm::Dissemination | Algorithm::Butterfly | Algorithm::Pairwise => 2 * nodes * log.max(1),
            _ => 4 * nodes,
        }
    }
}

impl FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::limits::parse_id(&Algorithm::ALL, Algorithm::id, "algorithm", s)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A set of nodes running one layer, ordered by local id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Member nodes; index = local id (before any DLCT shift).
    pub members: Vec<NodeId>,
}

impl Group {
    /// Size.
    pub fn len(&self) -> u32 {
        self.members.len() as u32
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

/// How a layer communicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayerKind {
    /// Gather up a fixed tree and release down a fixed tree with the same
    /// root (the same tree for most; MCS and the tournament wake up along
    /// another one).
    Tree {
        /// `parent[local]` in the arrival tree.
        parent: Vec<Option<u32>>,
        /// `children[local]` in the arrival tree.
        children: Vec<Vec<u32>>,
        /// `release[local]`: the nodes `local` wakes up, when the wake-up tree
        /// differs from the arrival tree (`None`: the same tree both ways).
        release: Option<Vec<Vec<u32>>>,
    },
    /// The local continuous tree over local ids shifted by each node's own `K`.
    Dlct,
    /// One-phase rounds.
    Rounds {
        /// `sends[local][round]`: the targets of a round.
        sends: Vec<Vec<Vec<u32>>>,
        /// `expects[local][round]`: messages to receive before the next round.
        expects: Vec<Vec<u32>>,
    },
}

/// One layer: groups and how each communicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// The groups.
    pub groups: Vec<Group>,
    /// Their structure (one per group).
    pub kinds: Vec<LayerKind>,
}

/// Orders `nodes` by the encoding's id.
fn ordered(nodes: Vec<NodeId>, numbering: &Numbering) -> Group {
    let mut members = nodes;
    members.sort_by_key(|&n| numbering.id(n, 0));
    Group { members }
}

/// The children lists of a parent function over local ids `0..n`.
fn children_of(n: u32, parent: impl Fn(u32) -> Option<u32>) -> (Vec<Option<u32>>, Vec<Vec<u32>>) {
    let parents: Vec<Option<u32>> = (0..n).map(&parent).collect();
    let mut children = vec![Vec::new(); n as usize];
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = p {
            children[*p as usize].push(i as u32);
        }
    }
    (parents, children)
}

/// A tree from a parent function over local ids `0..n`, used both ways.
fn tree_from(n: u32, parent: impl Fn(u32) -> Option<u32>) -> LayerKind {
    let (parent, children) = children_of(n, parent);
    LayerKind::Tree { parent, children, release: None }
}

/// An arrival tree and a wake-up tree over local ids `0..n` (same root).
fn split_tree(n: u32, arrival: impl Fn(u32) -> Option<u32>, wake: impl Fn(u32) -> Option<u32>) -> LayerKind {
    let (parent, children) = children_of(n, arrival);
    let (_, release) = children_of(n, wake);
    LayerKind::Tree { parent, children, release: Some(release) }
}

/// BFS spanning tree over members, adjacency given by `adjacent(a, b)` on local ids, from local 0.
fn bfs_tree(n: u32, adjacent: impl Fn(u32) -> Vec<u32>) -> LayerKind {
    let mut parent = vec![None; n as usize];
    let mut seen = vec![false; n as usize];
    seen[0] = true;
    let mut queue = VecDeque::from([0u32]);
    while let Some(a) = queue.pop_front() {
        for b in adjacent(a) {
            if !seen[b as usize] {
                seen[b as usize] = true;
                parent[b as usize] = Some(a);
                queue.push_back(b);
            }
        }
    }
    tree_from(n, |i| parent[i as usize])
}

/// Rounds of dissemination over `n` members.
fn dissemination(n: u32) -> LayerKind {
    let rounds = if n <= 1 { 0 } else { n.next_power_of_two().trailing_zeros() };
    let sends = (0..n).map(|i| (0..rounds).map(|k| vec![(i + (1 << k)) % n]).collect()).collect();
    let expects = (0..n).map(|_| vec![1; rounds as usize]).collect();
    LayerKind::Rounds { sends, expects }
}

fn butterfly(n: u32) -> LayerKind {
    let q = n.next_power_of_two();
    let levels = q.trailing_zeros();
    let role = |v: u32| if v < n { v } else { v - q / 2 };
    let mut sends = vec![vec![Vec::new(); levels as usize]; n as usize];
    let mut expects = vec![vec![0; levels as usize]; n as usize];
    for k in 0..levels {
        for v in 0..q {
            let (from, to) = (role(v), role(v ^ (1 << k)));
            if from != to {
                sends[from as usize][k as usize].push(to);
                expects[to as usize][k as usize] += 1;
            }
        }
    }
    LayerKind::Rounds { sends, expects }
}

fn pairwise(n: u32) -> LayerKind {
    let q: u32 = 1 << n.ilog2();
    let levels = q.trailing_zeros() as usize;
    let rounds = levels + 2;
    let mut sends = vec![vec![Vec::new(); rounds]; n as usize];
    let mut expects = vec![vec![0; rounds]; n as usize];
    for i in q..n {
        sends[i as usize][0].push(i - q);
        expects[(i - q) as usize][0] += 1;
        sends[(i - q) as usize][rounds - 1].push(i);
        expects[i as usize][rounds - 1] += 1;
    }
    for k in 0..levels {
        for i in 0..q {
            sends[i as usize][k + 1].push(i ^ (1 << k));
            expects[i as usize][k + 1] += 1;
        }
    }
    LayerKind::Rounds { sends, expects }
}

fn all_to_all(n: u32) -> LayerKind {
    let sends = (0..n).map(|i| vec![(0..n).filter(|&j| j != i).collect()]).collect();
    let expects = (0..n).map(|_| vec![n - 1]).collect();
    LayerKind::Rounds { sends, expects }
}

/// The structure of `algorithm` for one group (`adjacent`: physical neighbours by local id).
fn kind_for(
    algorithm: Algorithm,
    group: &Group,
    adjacent: &dyn Fn(u32) -> Vec<u32>,
    row_major_rank: &dyn Fn(u32) -> u32,
    combining_k: u32,
) -> LayerKind {
    let n = group.len();
    match algorithm {
        Algorithm::Ms => tree_from(n, |i| (i != 0).then_some(0)),
        Algorithm::Tree => bfs_tree(n, adjacent),
        Algorithm::Tournament => {
            // Binomial arrival over row-major ranks, mapped back to local ids;
            // the champion (rank 0) wakes everyone at once.
            let mut by_rank = vec![0; n as usize];
            for local in 0..n {
                by_rank[row_major_rank(local) as usize] = local;
            }
            let champion = by_rank.first().copied().unwrap_or(0);
            split_tree(
                n,
                |i| Structure::Lct.parent(row_major_rank(i)).map(|r| by_rank[r as usize]),
                |i| (i != champion).then_some(champion),
            )
        }
        Algorithm::Combining => tree_from(n, |i| (i != 0).then(|| (i - 1) / combining_k)),
        Algorithm::Mcs => split_tree(n, |i| (i != 0).then(|| (i - 1) / 4), |i| (i != 0).then(|| (i - 1) / 2)),
        Algorithm::Bst => tree_from(n, |i| Structure::Bst.parent(i)),
        Algorithm::Dlct => LayerKind::Dlct,
        Algorithm::Dissemination => dissemination(n),
        Algorithm::Butterfly => butterfly(n),
        Algorithm::Pairwise => pairwise(n),
        Algorithm::AllToAll => all_to_all(n),
        Algorithm::DisseminationTree | Algorithm::DlctMs | Algorithm::DlctTree | Algorithm::TwoLevel => {
            unreachable!("two-layer forms are split first")
        }
    }
}

/// Physical neighbours of a member: `(group, local_of[node], local) → locals`.
type Adjacency<'a> = dyn Fn(&Group, &[u32], u32) -> Vec<u32> + 'a;

/// The layers of `algorithm` on `mesh`: one layer, or tiles (inner) plus leaders (outer).
pub fn layers(mesh: &Mesh, numbering: &Numbering, algorithm: Algorithm, tile: u32, combining_k: u32) -> Vec<Layer> {
    let size = mesh.size();
    let (inner, outer) = match algorithm {
        Algorithm::DisseminationTree => (Algorithm::Dissemination, Some(Algorithm::Tree)),
        Algorithm::DlctMs => (Algorithm::Dlct, Some(Algorithm::Ms)),
        Algorithm::DlctTree => (Algorithm::Dlct, Some(Algorithm::Tree)),
        Algorithm::TwoLevel => (Algorithm::Ms, Some(Algorithm::Ms)),
        other => (other, None),
    };
    let make = |algorithm: Algorithm, groups: Vec<Group>, adjacency: &Adjacency<'_>| -> Layer {
        // local_of[node] = local id in the group at hand (u32::MAX: not a
        // member); one table per layer, set and cleared group by group (a
        // table per group made 1024 × 1024 meshes with 4 × 4 tiles quadratic).
        let mut local_of = vec![u32::MAX; mesh.nodes() as usize];
        let kinds = groups
            .iter()
            .map(|g| {
                let mut by_node: Vec<NodeId> = g.members.clone();
                by_node.sort_unstable();
                let rank = |local: u32| by_node.binary_search(&g.members[local as usize]).unwrap_or(0) as u32;
                for (i, &m) in g.members.iter().enumerate() {
                    local_of[m as usize] = i as u32;
                }
                let kind = kind_for(algorithm, g, &|l| adjacency(g, &local_of, l), &rank, combining_k);
                for &m in &g.members {
                    local_of[m as usize] = u32::MAX;
                }
                kind
            })
            .collect();
        Layer { groups, kinds }
    };
    // Physical adjacency between members of a group.
    let mesh_adjacency = |g: &Group, local_of: &[u32], local: u32| -> Vec<u32> {
        let node = g.members[local as usize];
        (0..4)
            .filter_map(|d| mesh.neighbour(node, d))
            .map(|n| local_of[n as usize])
            .filter(|&l| l != u32::MAX)
            .collect()
    };
    let Some(outer) = outer else {
        let all = ordered((0..mesh.nodes()).collect(), numbering);
        return vec![make(inner, vec![all], &mesh_adjacency)];
    };
    let tiles_per_side = size.div_ceil(tile);
    let tile_of = |n: NodeId| {
        let (x, y) = mesh.coords(n);
        (x / tile) * tiles_per_side + y / tile
    };
    let mut members = vec![Vec::new(); (tiles_per_side * tiles_per_side) as usize];
    for n in 0..mesh.nodes() {
        members[tile_of(n) as usize].push(n);
    }
    let tiles: Vec<Group> = members.into_iter().map(|m| ordered(m, numbering)).collect();
    let leaders = ordered(tiles.iter().map(|t| t.members[0]).collect(), numbering);
    // The leaders group's local id of each tile's leader (one leader per tile).
    let mut leader_of_tile = vec![u32::MAX; tiles.len()];
    for (local, &m) in leaders.members.iter().enumerate() {
        leader_of_tile[tile_of(m) as usize] = local as u32;
    }
    // Leaders are adjacent when their tiles are.
    let tile_adjacency = |g: &Group, _: &[u32], local: u32| -> Vec<u32> {
        let t = tile_of(g.members[local as usize]);
        let (tx, ty) = (t / tiles_per_side, t % tiles_per_side);
        let mut out = Vec::new();
        for (dx, dy) in super::mesh::DIRECTIONS {
            let (nx, ny) = (i64::from(tx) + i64::from(dx), i64::from(ty) + i64::from(dy));
            if (0..i64::from(tiles_per_side)).contains(&nx) && (0..i64::from(tiles_per_side)).contains(&ny) {
                let other = leader_of_tile[(nx as u32 * tiles_per_side + ny as u32) as usize];
                if other != u32::MAX {
                    out.push(other);
                }
            }
        }
        out
    };
    vec![make(inner, tiles, &mesh_adjacency), make(outer, vec![leaders], &tile_adjacency)]
}

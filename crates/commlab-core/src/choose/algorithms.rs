//! The chooser's algorithms as [`Plan`]s, for any `p ≥ 1` (stable ids for
//! URLs and the CLI). Non-powers of two use the usual fold: with
//! `q = 2^⌊log₂ p⌋`, ranks `r ≥ q` first hand their data to `r − q`, the
//! first `q` ranks run the power-of-two algorithm, and `r − q` hands the
//! result back.
//!
//! Pipelined trees (chain, pipelined binomial, double binary tree) are
//! scheduled greedily on a one-port model: in each round a rank sends at most
//! one piece, the earliest it can (pieces in order, children in order); a
//! reducing rank forwards a piece once every child's share of it arrived.

use super::plan::{push_shape, Collective, Load, Plan, Profile, Transfer};

/// An algorithm: its id and the collective it performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Algorithm {
    /// Stable id.
    pub id: &'static str,
    /// The collective.
    pub collective: Collective,
    /// It cuts the vector into `pieces` pieces (the chunk optimizer's knob).
    pub pipelined: bool,
    /// How it spends its time, in words: the α–β–γ closed form where the
    /// textbooks give one (`n` bytes, `p` ranks, `m` pieces).
    pub formula: &'static str,
}

const fn alg(id: &'static str, collective: Collective, pipelined: bool, formula: &'static str) -> Algorithm {
    Algorithm { id, collective, pipelined, formula }
}

/// Every algorithm, by collective.
pub const ALGORITHMS: [Algorithm; 29] = [
    alg(
        "binomial",
        Collective::Broadcast,
        false,
        "⌈log₂p⌉ rounds, each forwarding the whole vector: ⌈log₂p⌉(α + nβ).",
    ),
    alg(
        "binary-tree",
        Collective::Broadcast,
        false,
        "Each rank sends the whole vector to two children, one after the other: about 2·log₂p·(α + nβ).",
    ),
    alg(
        "chain",
        Collective::Broadcast,
        true,
        "m pieces along a chain: (p + m − 2) steps of one piece, (p + m − 2)(α + n/m·β) (+ γ per byte for the reduce) — the seed's T(n,p,m).",
    ),
    alg(
        "pipelined-binomial",
        Collective::Broadcast,
        true,
        "m pieces through the binomial tree; rank 0 handles each piece once per child, so about m·⌈log₂p⌉ steps of n/m bytes.",
    ),
    alg(
        "scatter-allgather",
        Collective::Broadcast,
        false,
        "Binomial scatter of p blocks, then a ring allgather (van de Geijn): (⌈log₂p⌉ + p − 1)α + 2(p−1)/p·nβ.",
    ),
    alg(
        "double-binary-tree",
        Collective::Broadcast,
        true,
        "Two complementary binary trees (NCCL's) each carry half of the m pieces; a leaf of one is inner in the other and the edges are 2-coloured, so every rank sends and takes one piece a step: about m + 3·log₂p steps of n/m bytes.",
    ),
    alg(
        "linear",
        Collective::Broadcast,
        false,
        "Rank 0 sends p − 1 whole vectors one after another: (p − 1)(α + nβ).",
    ),
    alg(
        "binomial",
        Collective::Reduce,
        false,
        "⌈log₂p⌉ rounds, each combining a whole vector: ⌈log₂p⌉(α + nβ + nγ).",
    ),
    alg(
        "binomial-bst",
        Collective::Reduce,
        false,
        "⌈log₂p⌉ rounds, each combining a whole vector: ⌈log₂p⌉(α + nβ + nγ).",
    ),
    alg(
        "chain",
        Collective::Reduce,
        true,
        "m pieces along a chain: (p + m − 2) steps of one piece, (p + m − 2)(α + n/m·β) (+ γ per byte for the reduce) — the seed's T(n,p,m).",
    ),
    alg(
        "pipelined-binomial",
        Collective::Reduce,
        true,
        "m pieces through the binomial tree; rank 0 handles each piece once per child, so about m·⌈log₂p⌉ steps of n/m bytes.",
    ),
    alg(
        "reduce-scatter-gather",
        Collective::Reduce,
        false,
        "Recursive halving, then a binomial gather (Rabenseifner): 2·log₂p·α + 2(p−1)/p·nβ + (p−1)/p·nγ on powers of two; a fold before otherwise.",
    ),
    alg(
        "linear",
        Collective::Reduce,
        false,
        "Rank 0 receives and combines p − 1 vectors: (p − 1)(α + nβ + nγ).",
    ),
    alg(
        "reduce-broadcast",
        Collective::Allreduce,
        false,
        "A binomial reduce, then a binomial broadcast: 2⌈log₂p⌉α + 2⌈log₂p⌉·nβ + ⌈log₂p⌉·nγ.",
    ),
    alg(
        "recursive-doubling",
        Collective::Allreduce,
        false,
        "log₂p exchanges of the whole vector: log₂p(α + nβ + nγ) on powers of two; a fold before and after otherwise.",
    ),
    alg(
        "ring",
        Collective::Allreduce,
        false,
        "Ring reduce-scatter, then ring allgather: 2(p−1)α + 2(p−1)/p·nβ + (p−1)/p·nγ.",
    ),
    alg(
        "rabenseifner",
        Collective::Allreduce,
        false,
        "Recursive halving, then recursive doubling: 2·log₂p·α + 2(p−1)/p·nβ + (p−1)/p·nγ on powers of two; a fold otherwise.",
    ),
    alg(
        "double-binary-tree",
        Collective::Allreduce,
        true,
        "A pipelined reduce up both binary trees, then a pipelined broadcast down them (the phases do not overlap here).",
    ),
    alg(
        "chain-up-down",
        Collective::Allreduce,
        true,
        "The pipelined chain reduce, then the chain broadcast: 2(p + m − 2) steps of n/m bytes.",
    ),
    alg(
        "ring",
        Collective::Allgather,
        false,
        "p − 1 steps of one block: (p − 1)α + (p−1)/p·nβ.",
    ),
    alg(
        "recursive-doubling",
        Collective::Allgather,
        false,
        "log₂p exchanges of doubling size: log₂p·α + (p−1)/p·nβ on powers of two; a fold otherwise.",
    ),
    alg(
        "bruck",
        Collective::Allgather,
        false,
        "⌈log₂p⌉ steps for any p: ⌈log₂p⌉α + (p−1)/p·nβ.",
    ),
    alg(
        "ring",
        Collective::ReduceScatter,
        false,
        "p − 1 steps of one block: (p − 1)α + (p−1)/p·n(β + γ).",
    ),
    alg(
        "recursive-halving",
        Collective::ReduceScatter,
        false,
        "log₂p exchanges of halving size: log₂p·α + (p−1)/p·n(β + γ) on powers of two; a fold otherwise.",
    ),
    alg(
        "pairwise",
        Collective::ReduceScatter,
        false,
        "p − 1 steps of one block: (p − 1)α + (p−1)/p·n(β + γ).",
    ),
    alg(
        "linear",
        Collective::AllToAll,
        false,
        "p − 1 messages of n/p bytes, posted at once: (p − 1)(α + n/p·β).",
    ),
    alg(
        "pairwise",
        Collective::AllToAll,
        false,
        "p − 1 exchange steps of n/p bytes: (p − 1)(α + n/p·β).",
    ),
    alg(
        "bruck",
        Collective::AllToAll,
        false,
        "⌈log₂p⌉ steps, each moving about half the data: ⌈log₂p⌉α + ⌈log₂p⌉·n/2·β.",
    ),
    alg(
        "swizzle-order",
        Collective::AllToAll,
        false,
        "The CommSwizzle rank shift as the step order: each step a permutation, so as pairwise, (p − 1)(α + n/p·β).",
    ),
];

/// The algorithms of `collective`.
pub fn of(collective: Collective) -> impl Iterator<Item = Algorithm> {
    ALGORITHMS.into_iter().filter(move |a| a.collective == collective)
}

/// The plan of algorithm `id` of `collective` on `p` ranks, `pieces` pieces
/// for the pipelined ones (ignored by the others).
///
/// # Errors
/// An unknown id, `p = 0`, or `pieces = 0`.
#[allow(clippy::too_many_lines, reason = "one arm per algorithm, each a few lines")]
#[allow(clippy::many_single_char_names, reason = "p, m, q, r, i: ranks, pieces, the power-of-two core, rounds, a rank")]
pub fn plan(collective: Collective, id: &str, p: u32, pieces: u32) -> Result<Plan, String> {
    if p == 0 || pieces == 0 {
        return Err("p and pieces must be at least 1".into());
    }
    let m = pieces;
    let rounds = match (collective, id) {
        (Collective::Broadcast, "binomial") => return Ok(one(collective, p, 1, binomial_broadcast(p, &[0]))),
        (Collective::Broadcast, "binary-tree") => tree_down(&[heap_tree(p)], p, 1),
        (Collective::Broadcast, "chain") => tree_down(&[chain_tree(p)], p, m),
        (Collective::Broadcast, "pipelined-binomial") => tree_down(&[binomial_tree(p)], p, m),
        (Collective::Broadcast, "double-binary-tree") => tree_down(&double_trees(p), p, m),
        (Collective::Broadcast, "scatter-allgather") => {
            let mut r = binomial_scatter(p);
            r.extend(ring_allgather(p, true));
            return Ok(one(collective, p, p, r));
        }
        (Collective::Broadcast, "linear") => {
            vec![(1..p).map(|j| Transfer { from: 0, to: j, blocks: vec![0], combine: false }).collect()]
        }
        (Collective::Reduce, "binomial") => {
            let levels = if p <= 1 { 0 } else { 32 - (p - 1).leading_zeros() };
            (0..levels)
                .map(|b| {
                    (1..p)
                        .filter(|i| i.trailing_zeros() == b)
                        .map(|i| Transfer { from: i, to: i & (i - 1), blocks: vec![0], combine: true })
                        .collect()
                })
                .collect()
        }
        (Collective::Reduce, "binomial-bst") => {
            let levels = if p <= 1 { 0 } else { 32 - (p - 1).leading_zeros() };
            (0..levels)
                .rev()
                .map(|h| {
                    (1..p)
                        .filter(|i| i.ilog2() == h)
                        .map(|i| Transfer { from: i, to: i - (1 << h), blocks: vec![0], combine: true })
                        .collect()
                })
                .collect()
        }
        (Collective::Reduce, "chain") => tree_up(&[chain_tree(p)], p, m),
        (Collective::Reduce, "pipelined-binomial") => tree_up(&[binomial_tree(p)], p, m),
        (Collective::Reduce, "reduce-scatter-gather") => {
            let q = 1u32 << p.ilog2();
            let mut r = fold_in(p, q, &(0..q).collect::<Vec<_>>(), true);
            r.extend(halving(q, &groups(q, q)));
            r.extend(binomial_gather(q));
            return Ok(one(collective, p, q, r));
        }
        (Collective::Reduce, "linear") => {
            vec![(1..p).map(|i| Transfer { from: i, to: 0, blocks: vec![0], combine: true }).collect()]
        }
        (Collective::Allreduce, "reduce-broadcast") => {
            let mut r = plan(Collective::Reduce, "binomial", p, 1)?.rounds;
            r.extend(binomial_broadcast(p, &[0]));
            r
        }
        (Collective::Allreduce, "recursive-doubling") => {
            let q = 1u32 << p.ilog2();
            let mut r = fold_in(p, q, &[0], true);
            let mut mask = 1;
            while mask < q {
                r.push((0..q).map(|i| Transfer { from: i, to: i ^ mask, blocks: vec![0], combine: true }).collect());
                mask <<= 1;
            }
            r.extend(fold_out(p, q, &[0]));
            r
        }
        (Collective::Allreduce, "ring") => {
            let mut r = ring_reduce_scatter(p);
            r.extend(ring_allgather(p, false));
            return Ok(one(collective, p, p, r));
        }
        (Collective::Allreduce, "rabenseifner") => {
            let q = 1u32 << p.ilog2();
            let all: Vec<u32> = (0..q).collect();
            let mut r = fold_in(p, q, &all, true);
            r.extend(halving(q, &groups(q, q)));
            r.extend(doubling(q, &groups(q, q)));
            r.extend(fold_out(p, q, &all));
            return Ok(one(collective, p, q, r));
        }
        (Collective::Allreduce, "double-binary-tree") => {
            let trees = double_trees(p);
            let mut r = tree_up(&trees, p, m);
            r.extend(tree_down(&trees, p, m));
            r
        }
        (Collective::Allreduce, "chain-up-down") => {
            let mut r = tree_up(&[chain_tree(p)], p, m);
            r.extend(tree_down(&[chain_tree(p)], p, m));
            r
        }
        (Collective::Allgather, "ring") => return Ok(one(collective, p, p, ring_allgather(p, true))),
        (Collective::Allgather, "recursive-doubling") => {
            let q = 1u32 << p.ilog2();
            // Rank r < q gathers group {r, r + q}; the doubling exchanges groups.
            let g = groups(q, p);
            let mut r: Vec<Vec<Transfer>> =
                vec![(q..p).map(|i| Transfer { from: i, to: i - q, blocks: vec![i], combine: false }).collect()];
            r.retain(|x| !x.is_empty());
            r.extend(doubling(q, &g));
            let all: Vec<u32> = (0..p).collect();
            r.extend(fold_out(p, q, &all));
            return Ok(one(collective, p, p, r));
        }
        (Collective::Allgather, "bruck") => {
            let mut r = Vec::new();
            let mut k = 1u32;
            while k < p {
                let count = k.min(p - k);
                r.push(
                    (0..p)
                        .map(|i| Transfer {
                            from: i,
                            to: (i + p - k) % p,
                            blocks: (0..count).map(|j| (i + j) % p).collect(),
                            combine: false,
                        })
                        .collect(),
                );
                k <<= 1;
            }
            return Ok(one(collective, p, p, r));
        }
        (Collective::ReduceScatter, "ring") => return Ok(one(collective, p, p, ring_reduce_scatter_to_own(p))),
        (Collective::ReduceScatter, "recursive-halving") => {
            let q = 1u32 << p.ilog2();
            let all: Vec<u32> = (0..p).collect();
            let mut r = fold_in(p, q, &all, true);
            r.extend(halving(q, &groups(q, p)));
            let out: Vec<Transfer> =
                (q..p).map(|i| Transfer { from: i - q, to: i, blocks: vec![i], combine: false }).collect();
            if !out.is_empty() {
                r.push(out);
            }
            return Ok(one(collective, p, p, r));
        }
        (Collective::ReduceScatter, "pairwise") => {
            let r = (1..p)
                .map(|s| {
                    (0..p)
                        .map(|i| Transfer { from: i, to: (i + s) % p, blocks: vec![(i + s) % p], combine: true })
                        .collect()
                })
                .collect();
            return Ok(one(collective, p, p, r));
        }
        (Collective::AllToAll, "linear") => {
            let r = vec![(0..p)
                .flat_map(|i| (1..p).map(move |s| (i, (i + s) % p)))
                .map(|(i, j)| Transfer { from: i, to: j, blocks: vec![i * p + j], combine: false })
                .collect()];
            return Ok(one(collective, p, p * p, r));
        }
        (Collective::AllToAll, "bruck") => return Ok(one(collective, p, p * p, bruck_all_to_all(p))),
        (Collective::AllToAll, "swizzle-order") => return Ok(one(collective, p, p * p, swizzle_order(p)?)),
        (Collective::AllToAll, "pairwise") => {
            let pow2 = p.is_power_of_two();
            let r = (1..p)
                .map(|s| {
                    (0..p)
                        .map(|i| {
                            let j = if pow2 { i ^ s } else { (i + s) % p };
                            Transfer { from: i, to: j, blocks: vec![i * p + j], combine: false }
                        })
                        .collect()
                })
                .collect();
            return Ok(one(collective, p, p * p, r));
        }
        _ => {
            let ids: Vec<&str> = of(collective).map(|a| a.id).collect();
            return Err(format!("unknown {collective} algorithm {id:?}; expected one of: {}", ids.join(", ")));
        }
    };
    let blocks = match id {
        "chain" | "pipelined-binomial" | "double-binary-tree" | "chain-up-down" => m,
        _ => 1,
    };
    Ok(one(collective, p, blocks, rounds))
}

fn one(collective: Collective, ranks: u32, blocks: u32, rounds: Vec<Vec<Transfer>>) -> Plan {
    Plan { collective, ranks, blocks, rounds: rounds.into_iter().filter(|r| !r.is_empty()).collect() }
}

/// The CommSwizzle rank shift as an all-to-all step order: each rank is a
/// core of the swizzle (grid `p × 1 × p`, `p × 1` cores, direction 0, rank
/// shift on), so at step `s` rank `i` sends to the rank `GetCoord` gives its
/// core, `(s + i) mod p` — a Latin square, where the unshifted order would
/// send every rank to rank `s` at once. The step that targets the rank
/// itself moves nothing.
fn swizzle_order(p: u32) -> Result<Vec<Vec<Transfer>>, String> {
    use crate::swizzle::{get_coord, CoreSplit, GridShape, SwizzleConfig};
    let config =
        SwizzleConfig::new(GridShape { row: p, column: 1, rank: p }, CoreSplit { row: p, column: 1 }, 0, false, true)
            .map_err(|e| format!("swizzle-order needs a swizzle of p cores: {e}"))?;
    Ok((0..u64::from(p))
        .map(|s| {
            (0..p)
                .filter_map(|i| {
                    let to = get_coord(&config, s * u64::from(p) + u64::from(i))?.rank;
                    (to != i).then(|| Transfer { from: i, to, blocks: vec![i * p + to], combine: false })
                })
                .collect()
        })
        .collect())
}

/// Bruck's all-to-all: ⌈log₂ p⌉ steps; at step `k` every rank forwards to
/// `r + 2^k` each block it holds whose remaining distance to its destination
/// has bit `k` set (blocks travel by the binary digits of their distance).
fn bruck_all_to_all(p: u32) -> Vec<Vec<Transfer>> {
    // holder[i·p + j]: the rank holding block i → j now.
    let mut holder: Vec<u32> = (0..p * p).map(|b| b / p).collect();
    let mut out = Vec::new();
    let mut k = 1u32;
    while k < p {
        let mut by_rank: Vec<Vec<u32>> = vec![Vec::new(); p as usize];
        for b in 0..p * p {
            let (h, dest) = (holder[b as usize], b % p);
            let distance = (dest + p - h) % p;
            if distance & k != 0 {
                by_rank[h as usize].push(b);
            }
        }
        let round: Vec<Transfer> = by_rank
            .into_iter()
            .enumerate()
            .filter(|(_, blocks)| !blocks.is_empty())
            .map(|(r, blocks)| Transfer { from: r as u32, to: (r as u32 + k) % p, blocks, combine: false })
            .collect();
        for t in &round {
            for &b in &t.blocks {
                holder[b as usize] = t.to;
            }
        }
        out.push(round);
        k <<= 1;
    }
    out
}

/// Binomial broadcast of `blocks` from rank 0: round k, ranks `i < 2^k` send to `i + 2^k`.
fn binomial_broadcast(p: u32, blocks: &[u32]) -> Vec<Vec<Transfer>> {
    let mut out = Vec::new();
    let mut k = 1;
    while k < p {
        out.push(
            (0..k)
                .filter(|i| i + k < p)
                .map(|i| Transfer { from: i, to: i + k, blocks: blocks.to_vec(), combine: false })
                .collect(),
        );
        k <<= 1;
    }
    out
}

/// Children lists of a tree rooted at 0.
type Tree = Vec<Vec<u32>>;

fn heap_tree(p: u32) -> Tree {
    (0..p).map(|i| [2 * i + 1, 2 * i + 2].into_iter().filter(|&c| c < p).collect()).collect()
}

fn chain_tree(p: u32) -> Tree {
    (0..p).map(|i| if i + 1 < p { vec![i + 1] } else { Vec::new() }).collect()
}

/// The binomial tree of the broadcast above: the children of `i` are
/// `i + 2^k` for `2^k > i`, largest subtree first.
fn binomial_tree(p: u32) -> Tree {
    (0..p)
        .map(|i| {
            let first = if i == 0 { 0 } else { i.ilog2() + 1 };
            let mut c: Vec<u32> = (first..32).map(|k| i + (1 << k)).take_while(|&c| c < p).collect();
            c.reverse();
            c
        })
        .collect()
}

/// The binary tree over nodes `0..n` whose leaves are exactly the odd
/// nodes (NCCL's `ncclGetBtree`, the in-order tree of Sanders, Speck and
/// Träff's two-tree algorithms): node `i ≠ 0` with lowest set bit `b` has
/// children `i − b/2` and the largest `i + b/2^k < n`, `k ≥ 1`; node 0 has the
/// one child `2^⌊log₂(n−1)⌋`. Returns the children of each node.
fn odd_leaf_tree(n: u32) -> Vec<Vec<u32>> {
    (0..n)
        .map(|i| {
            if i == 0 {
                return if n > 1 { vec![1 << (n - 1).ilog2()] } else { Vec::new() };
            }
            let low = (1u32 << i.trailing_zeros()) >> 1;
            if low == 0 {
                return Vec::new();
            }
            let mut children = vec![i - low];
            if let Some(right) = (0..=low.trailing_zeros()).map(|k| i + (low >> k)).find(|&c| c < n) {
                children.push(right);
            }
            children
        })
        .collect()
}

/// Two complementary binary trees, both rooted at rank 0 (for a broadcast
/// from 0, a reduce to 0): rank 0 feeds the root of each of two trees over
/// the ranks `1..p`. The first is [`odd_leaf_tree`] over nodes `0..p−1`
/// (node `i` is rank `i + 1`); the second is the same tree mirrored
/// (`i ↦ n−1−i`) when `n = p − 1` is even, shifted by one (`i ↦ i+1 mod n`)
/// when it is odd — NCCL's `ncclGetDtree`. Leaves of the first are inner
/// nodes of the second, so no rank has more than two children in both
/// together (the tests check it for every p ≤ 1024) and each sends at most
/// one piece a round in the steady state: the two trees together carry the
/// full bandwidth.
fn double_trees(p: u32) -> Vec<Tree> {
    let n = p.saturating_sub(1);
    let mut a: Tree = vec![Vec::new(); p as usize];
    let mut b: Tree = vec![Vec::new(); p as usize];
    if n == 0 {
        return vec![a, b];
    }
    // Node i of the second tree is node unmap(i) of the first, relabelled.
    let mirror = n % 2 == 0;
    let map = |i: u32| if mirror { n - 1 - i } else { (i + 1) % n };
    let unmap = |i: u32| if mirror { n - 1 - i } else { (i + n - 1) % n };
    let tree = odd_leaf_tree(n);
    for (i, children) in tree.iter().enumerate() {
        a[i + 1] = children.iter().map(|&c| c + 1).collect();
    }
    for j in 0..n {
        b[j as usize + 1] = tree[unmap(j) as usize].iter().map(|&c| map(c) + 1).collect();
    }
    a[0].push(1);
    b[0].push(map(0) + 1);
    vec![a, b]
}

/// A greedy one-port schedule of `m` pieces over `trees` (piece `j` uses
/// tree `j mod trees`), advanced a round at a time: [`Down`] broadcasts
/// from rank 0, [`Up`] reduces to it. Its `key` is the state relative to
/// rank 0's progress, which the periodic extrapolation of
/// [`pipelined_profile`] compares between rounds.
trait Greedy {
    /// One round's sends `(from, to, piece)` into `sends` (cleared first);
    /// false when no piece is ready to move (done, or a tree that does not
    /// reach a rank). A round may send nothing while a ready piece waits for
    /// its edge's colour ([`edge_colours`]).
    fn round(&mut self, sends: &mut Vec<(u32, u32, u32)>) -> bool;
    /// The state relative to the progress at rank 0 (equal keys: the same future, shifted).
    fn key(&self) -> Vec<i64>;
    /// Pieces through rank 0 so far (sent by it, or received by it).
    fn progress(&self) -> u64;
    /// How far any rank's cursor runs ahead of rank 0's progress, per tree.
    fn lead(&self) -> u64;
}

/// Pieces of tree `tree` among `m` pieces over `t` trees.
fn pieces_of(m: u32, t: u32, tree: u32) -> u32 {
    if tree < m {
        (m - tree).div_ceil(t)
    } else {
        0
    }
}

/// Two colours for the edges of two trees such that a rank's two incoming
/// edges differ and its outgoing edges differ (Sanders, Speck and Träff's
/// colouring of the two-tree schedule): `colour[tree][child]` for the edge
/// from the child's parent. Round `t` uses only the edges of colour
/// `t mod 2`, so a rank receives from each parent every other round, and
/// the two trees keep its port busy every round. Each edge conflicts with
/// at most one other at each end, so the conflicts form paths and cycles; a
/// breadth-first 2-colouring succeeds unless a cycle is odd (`None`: the
/// tests check that it succeeds for every p ≤ 1024).
fn edge_colours(trees: &[Tree]) -> Option<Vec<Vec<u8>>> {
    if trees.len() != 2 {
        return None;
    }
    let n = trees[0].len();
    let node = |k: usize, child: u32| k * n + child as usize;
    let mut conflicts: Vec<Vec<usize>> = vec![Vec::new(); 2 * n];
    let mut link = |a: usize, b: usize| {
        conflicts[a].push(b);
        conflicts[b].push(a);
    };
    for x in 1..n as u32 {
        link(node(0, x), node(1, x));
    }
    for (a_children, b_children) in trees[0].iter().zip(&trees[1]) {
        let out: Vec<usize> =
            a_children.iter().map(|&c| node(0, c)).chain(b_children.iter().map(|&c| node(1, c))).collect();
        for (i, &a) in out.iter().enumerate() {
            for &b in &out[i + 1..] {
                link(a, b);
            }
        }
    }
    let mut colour = vec![u8::MAX; 2 * n];
    let mut stack = Vec::new();
    for start in 0..2 * n {
        if colour[start] != u8::MAX {
            continue;
        }
        colour[start] = 0;
        stack.push(start);
        while let Some(a) = stack.pop() {
            for &b in &conflicts[a] {
                if colour[b] == u8::MAX {
                    colour[b] = 1 - colour[a];
                    stack.push(b);
                } else if colour[b] == colour[a] {
                    return None;
                }
            }
        }
    }
    Some(colour.chunks(n).map(<[u8]>::to_vec).collect())
}

/// The one-port, full-duplex rule of the greedy schedules: in a round a
/// rank sends at most one piece and receives at most one. The ready sends
/// are taken earliest piece first (then lowest sender), each if its sender
/// and its receiver are still free this round. The order depends only on
/// piece indices, so shifting every piece by the number of trees shifts the
/// schedule, and a piece at or past `m` never displaces an earlier one: the
/// schedule of `m` pieces is the one of more pieces without their sends
/// (both used by [`shapes_of`]). Without the receive rule a rank of the
/// double binary tree took a piece from both parents in one round, which a
/// round costs as two: the tree then moved `2n` bytes' worth per rank, not
/// `n`.
struct Ports {
    /// The edge colours of two trees ([`edge_colours`]); none for one tree.
    colours: Option<Vec<Vec<u8>>>,
    /// The round's ready sends `(piece, from, to)`.
    offers: Vec<(u32, u32, u32)>,
    /// Whether a ready piece waits for its edge's colour this round.
    waiting: bool,
    /// The last round each rank sent in, and received in.
    sent: Vec<u32>,
    received: Vec<u32>,
    round: u32,
}

impl Ports {
    fn new(trees: &[Tree]) -> Ports {
        let n = trees.first().map_or(0, Vec::len);
        let (sent, received) = (vec![0; n], vec![0; n]);
        Ports { colours: edge_colours(trees), offers: Vec::new(), waiting: false, sent, received, round: 0 }
    }

    fn start(&mut self) {
        self.offers.clear();
        self.waiting = false;
        self.round += 1;
    }

    /// Offers piece `piece` from `from` to `to` over the edge of tree `tree`
    /// into `child` (the receiver going down, the sender going up), if that
    /// edge's colour is open this round.
    fn offer(&mut self, piece: u32, (from, to): (u32, u32), (tree, child): (usize, u32)) {
        if self.colours.as_ref().is_none_or(|c| u32::from(c[tree][child as usize]) == self.round % 2) {
            self.offers.push((piece, from, to));
        } else {
            self.waiting = true;
        }
    }

    /// The round's sends `(from, to, piece)`, in sender order, into `sends`;
    /// false when no piece was ready (none sent, none waiting).
    fn choose(&mut self, sends: &mut Vec<(u32, u32, u32)>) -> bool {
        sends.clear();
        self.offers.sort_unstable();
        for &(piece, from, to) in &self.offers {
            let (f, t) = (from as usize, to as usize);
            if self.sent[f] != self.round && self.received[t] != self.round {
                self.sent[f] = self.round;
                self.received[t] = self.round;
                sends.push((from, to, piece));
            }
        }
        sends.sort_unstable();
        self.waiting || !sends.is_empty()
    }

    /// The round's parity, which decides the open edges (part of a schedule's state).
    fn parity(&self) -> i64 {
        i64::from(self.round % 2)
    }
}

/// Broadcast: each round every rank offers, per tree, the earliest piece it
/// holds that a child still needs (pieces in order, children in order), and
/// [`Ports`] takes the earliest offers a port allows. A rank receives a
/// tree's pieces in order (its parent sends them in order), so per rank and
/// tree a cursor over (piece, child) and the count of that tree's pieces held
/// decide the next offer: O(p log p) a round (the offers are sorted).
struct Down<'a> {
    trees: &'a [Tree],
    t: u32,
    /// Pieces of each tree.
    pieces: Vec<u32>,
    /// `held[tree][rank]`: pieces of the tree held.
    held: Vec<Vec<u32>>,
    /// `next[tree][rank]`: (piece index in the tree, child index) to send.
    next: Vec<Vec<(u32, usize)>>,
    ports: Ports,
}

impl<'a> Down<'a> {
    fn new(trees: &'a [Tree], p: u32, m: u32) -> Down<'a> {
        let (n, t) = (p as usize, trees.len() as u32);
        let held = (0..t).map(|k| (0..n).map(|r| if r == 0 { pieces_of(m, t, k) } else { 0 }).collect()).collect();
        let pieces = (0..t).map(|k| pieces_of(m, t, k)).collect();
        let next = vec![vec![(0, 0); n]; t as usize];
        Down { trees, t, pieces, held, next, ports: Ports::new(trees) }
    }
}

impl Greedy for Down<'_> {
    fn round(&mut self, sends: &mut Vec<(u32, u32, u32)>) -> bool {
        self.ports.start();
        for r in 0..self.held[0].len() {
            for k in 0..self.t as usize {
                let (i, c) = self.next[k][r];
                if i < self.held[k][r] && i < self.pieces[k] && !self.trees[k][r].is_empty() {
                    let child = self.trees[k][r][c];
                    self.ports.offer(k as u32 + i * self.t, (r as u32, child), (k, child));
                }
            }
        }
        let any = self.ports.choose(sends);
        for &(from, to, j) in sends.iter() {
            let k = (j % self.t) as usize;
            let (i, c) = self.next[k][from as usize];
            let last = c + 1 == self.trees[k][from as usize].len();
            self.next[k][from as usize] = if last { (i + 1, 0) } else { (i, c + 1) };
            self.held[k][to as usize] += 1;
        }
        any
    }

    fn key(&self) -> Vec<i64> {
        let base: Vec<i64> = self.next.iter().map(|x| i64::from(x[0].0)).collect();
        let child = |c: usize| i64::try_from(c).unwrap_or(i64::MAX);
        let mut key = vec![base[0] - base.last().copied().unwrap_or(0), self.ports.parity()];
        key.extend(self.next.iter().map(|x| child(x[0].1)));
        // A leaf of a tree never sends in it: what it holds decides nothing
        // (and keeps growing), so it is left out of the state.
        for (((held, next), b), tree) in self.held.iter().zip(&self.next).zip(&base).zip(self.trees) {
            for ((h, &(i, c)), _) in
                held.iter().zip(next).zip(tree).skip(1).filter(|(_, children)| !children.is_empty())
            {
                key.extend([i64::from(*h) - b, i64::from(i) - b, child(c)]);
            }
        }
        key
    }

    fn progress(&self) -> u64 {
        self.next.iter().map(|x| u64::from(x[0].0)).sum()
    }

    fn lead(&self) -> u64 {
        // Rank 0 holds every piece and is the furthest ahead.
        0
    }
}

/// Reduce to rank 0: a rank offers piece `j` to its parent once all its
/// children in that piece's tree sent it, and [`Ports`] takes the earliest
/// offers a port allows.
/// Children send a tree's pieces in order, so the pieces a rank has
/// complete are a prefix per tree: a cursor per rank and tree suffices.
struct Up<'a> {
    trees: &'a [Tree],
    t: u32,
    /// Pieces of each tree.
    pieces: Vec<u32>,
    parents: Vec<Vec<Option<u32>>>,
    /// `sent[tree][rank]`: pieces of the tree the rank has sent up.
    sent: Vec<Vec<u32>>,
    ports: Ports,
}

impl<'a> Up<'a> {
    fn new(trees: &'a [Tree], p: u32, m: u32) -> Up<'a> {
        let n = p as usize;
        let parents = trees
            .iter()
            .map(|tree| {
                let mut parent = vec![None; n];
                for (r, children) in tree.iter().enumerate() {
                    for &c in children {
                        parent[c as usize] = Some(r as u32);
                    }
                }
                parent
            })
            .collect();
        let t = trees.len() as u32;
        let pieces = (0..t).map(|k| pieces_of(m, t, k)).collect();
        let sent = vec![vec![0; n]; trees.len()];
        Up { trees, t, pieces, parents, sent, ports: Ports::new(trees) }
    }

    /// Pieces of tree `k` that reached rank 0.
    fn arrived(&self, k: usize) -> u32 {
        self.trees[k][0].iter().map(|&c| self.sent[k][c as usize]).min().unwrap_or(0)
    }
}

impl Greedy for Up<'_> {
    fn round(&mut self, sends: &mut Vec<(u32, u32, u32)>) -> bool {
        self.ports.start();
        for r in 0..self.sent[0].len() {
            for k in 0..self.t as usize {
                let i = self.sent[k][r];
                let Some(parent) = self.parents[k][r] else { continue };
                if i < self.pieces[k] && self.trees[k][r].iter().all(|&c| self.sent[k][c as usize] > i) {
                    self.ports.offer(k as u32 + i * self.t, (r as u32, parent), (k, r as u32));
                }
            }
        }
        let any = self.ports.choose(sends);
        for &(from, _, j) in sends.iter() {
            self.sent[(j % self.t) as usize][from as usize] += 1;
        }
        any
    }

    fn key(&self) -> Vec<i64> {
        let base: Vec<i64> = (0..self.t as usize).map(|k| i64::from(self.arrived(k))).collect();
        let mut key = vec![base[0] - base.last().copied().unwrap_or(0), self.ports.parity()];
        for ((sent, parents), b) in self.sent.iter().zip(&self.parents).zip(&base) {
            let ranks = sent.iter().zip(parents).filter(|(_, parent)| parent.is_some());
            key.extend(ranks.map(|(&x, _)| i64::from(x) - b));
        }
        key
    }

    fn progress(&self) -> u64 {
        (0..self.t as usize).map(|k| u64::from(self.arrived(k))).sum()
    }

    fn lead(&self) -> u64 {
        (0..self.t as usize)
            .map(|k| {
                let base = self.arrived(k);
                self.sent[k].iter().map(|&x| u64::from(x.saturating_sub(base))).max().unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    }
}

/// Runs a greedy schedule to its end, handing each round that sends to `round`
/// (a round may send nothing while a piece waits for its edge's colour).
/// Stops when done, or at a tree that does not reach a rank (replay reports it).
fn each_round<G: Greedy>(mut g: G, mut round: impl FnMut(&[(u32, u32, u32)])) {
    let mut sends = Vec::new();
    while g.round(&mut sends) {
        if !sends.is_empty() {
            round(&sends);
        }
    }
}

/// Rounds a greedy schedule is run for while looking for its period, beyond
/// 4 per rank. Both phases of the double binary tree repeat within a few
/// rounds once its trees are complementary (no rank's backlog grows); a
/// schedule that does not repeat in time is run in full for each piece count.
const PERIOD_SEARCH_ROUNDS: usize = 64;

/// The round shapes of a greedy schedule of `m` pieces, from its period
/// when it has one. `make(m)` builds the schedule.
///
/// The schedule of (nearly) infinitely many pieces is run until its state
/// relative to rank 0's progress repeats: at rounds `t1 < t2`, with `2d`
/// pieces through rank 0 in between. Schedules are deterministic and
/// invariant under a shift of every piece index by the number of trees, so
/// from `t1` on the infinite schedule repeats every `t2 − t1` rounds. A
/// schedule of `m0` pieces is the infinite one until a rank runs out of
/// pieces; if that happens after `t2`, the schedule of `m0 + 2d` pieces is
/// the one of `m0` with one more period inserted at `t1` (its state at
/// `t2` is the `m0` schedule's at `t1`, shifted, and the same rules follow).
/// So `shapes(m0 + q·2d) = shapes(m0) + q · shapes(period)`: exact, not a
/// fit. Without a repeat within [`PERIOD_SEARCH_ROUNDS`] + 4p rounds the
/// schedule of `m` pieces is run in full.
/// Where a greedy schedule repeats (see [`shapes_of`]).
struct Period {
    /// First round of the repeat, and the round where the state recurs.
    t1: usize,
    t2: usize,
    /// Progress at `t1` and `t2`.
    before: u64,
    after: u64,
    /// The largest lead of a cursor over rank 0's progress at `t2`.
    lead: u64,
    /// The sends of every round up to `t2`.
    per_round: Vec<Vec<(u32, u32, u32)>>,
}

/// Runs the schedule of (nearly) infinitely many pieces until its state
/// relative to rank 0's progress repeats, for at most
/// [`PERIOD_SEARCH_ROUNDS`] + 4p rounds.
fn find_period<G: Greedy>(make: impl Fn(u32) -> G, p: u32) -> Option<Period> {
    let mut g = make(u32::MAX / 4);
    let mut seen: std::collections::HashMap<Vec<i64>, (usize, u64)> = std::collections::HashMap::new();
    let mut per_round: Vec<Vec<(u32, u32, u32)>> = Vec::new();
    let mut sends = Vec::new();
    for t in 0..PERIOD_SEARCH_ROUNDS + 4 * p as usize {
        let key = g.key();
        if let Some(&(t1, before)) = seen.get(&key) {
            return Some(Period { t1, t2: t, before, after: g.progress(), lead: g.lead(), per_round });
        }
        seen.insert(key, (t, g.progress()));
        if !g.round(&mut sends) {
            return None;
        }
        per_round.push(sends.clone());
    }
    None
}

/// Adds the round shapes of the greedy schedule of `m` pieces over `t`
/// trees to `shapes`, from its `period` when there is one.
///
/// Schedules are deterministic and invariant under a shift of every piece
/// index by the number of trees, so from `t1` on the infinite schedule
/// repeats every `t2 − t1` rounds, `step` pieces through rank 0 each time. A
/// schedule of `m0` pieces is the infinite one until a rank runs out of
/// pieces; if that happens after `t2`, the schedule of `m0 + step` pieces is
/// the one of `m0` with one more period inserted at `t1` (its state at `t2`
/// is the `m0` schedule's at `t1`, shifted, and the same rules follow). So
/// `shapes(m0 + q·step) = shapes(m0) + q · shapes(period)`: exact, not a fit.
fn shapes_of<G: Greedy>(
    make: impl Fn(u32) -> G,
    period: Option<&Period>,
    (m, t): (u32, u32),
    combine: bool,
    shapes: &mut Vec<(Vec<Load>, u64)>,
    counts: &mut [u64],
) {
    let exact = |m: u32, shapes: &mut Vec<(Vec<Load>, u64)>, counts: &mut [u64]| {
        each_round(make(m), |sends| tally(shapes, sends, combine, counts));
    };
    let Some(period) = period else {
        exact(m, shapes, counts);
        return;
    };
    let (step, t) = (period.after - period.before, u64::from(t));
    // No rank of the m0 schedule may run out of pieces before t2: each tree
    // has m0/t pieces, and by t2 no cursor is past after/t + lead.
    let floor = period.after + t * (period.lead + 2) + step;
    if step == 0 || step % t != 0 || u64::from(m) <= floor {
        exact(m, shapes, counts);
        return;
    }
    let q = (u64::from(m) - floor) / step;
    let m0 = u64::from(m) - q * step;
    exact(u32::try_from(m0).expect("below m"), shapes, counts);
    for sends in &period.per_round[period.t1..period.t2] {
        let mut one = Vec::new();
        tally(&mut one, sends, combine, counts);
        for (shape, count) in one {
            push_shape(shapes, shape, count * q);
        }
    }
}

fn tree_down(trees: &[Tree], p: u32, m: u32) -> Vec<Vec<Transfer>> {
    let mut rounds = Vec::new();
    each_round(Down::new(trees, p, m), |sends| rounds.push(transfers(sends, false)));
    rounds
}

fn tree_up(trees: &[Tree], p: u32, m: u32) -> Vec<Vec<Transfer>> {
    let mut rounds = Vec::new();
    each_round(Up::new(trees, p, m), |sends| rounds.push(transfers(sends, true)));
    rounds
}

fn transfers(sends: &[(u32, u32, u32)], combine: bool) -> Vec<Transfer> {
    sends.iter().map(|&(from, to, j)| Transfer { from, to, blocks: vec![j], combine }).collect()
}

/// Adds the round shapes of pipelined sends to `shapes` (each send is one
/// block; a rank sends at most one per round, so a round's busiest load is
/// its busiest receiver's: `k` messages and blocks, combined when reducing).
fn tally(shapes: &mut Vec<(Vec<Load>, u64)>, sends: &[(u32, u32, u32)], combine: bool, counts: &mut [u64]) {
    if sends.is_empty() {
        return;
    }
    let mut k = 0;
    for &(_, to, _) in sends {
        let c = &mut counts[to as usize];
        *c += 1;
        k = k.max(*c);
    }
    for &(_, to, _) in sends {
        counts[to as usize] = 0;
    }
    push_shape(shapes, vec![Load { messages: k, blocks: k, combined: if combine { k } else { 0 } }], 1);
}

/// The [`Profile`] of a pipelined algorithm (`chain`, `pipelined-binomial`,
/// `double-binary-tree`, `chain-up-down`) with `m` pieces, equal to
/// `plan(collective, id, p, m)?.profile()` without building the plan's
/// transfers; see [`pipelined_profiles`].
///
/// # Errors
/// Not a pipelined algorithm, `p = 0` or `m = 0`.
pub fn pipelined_profile(collective: Collective, id: &str, p: u32, m: u32) -> Result<Profile, String> {
    Ok(pipelined_profiles(collective, id, p, &[m])?.remove(0))
}

/// The profiles of a pipelined algorithm for each piece count of `ms`. The
/// chain, the pipelined binomial tree and the chain up and down take their
/// shape counts as affine in `m` from one and two pieces (every extra piece
/// adds the same rounds from the first piece on: the tests check it against
/// the plans for every `p ≤ 64` and larger `p`). The double binary tree runs
/// its greedy schedules counting (O(p) a round), both phases from the
/// schedule's period (exact: [`shapes_of`]).
///
/// # Errors
/// Not a pipelined algorithm, `p = 0` or a piece count of 0.
pub fn pipelined_profiles(collective: Collective, id: &str, p: u32, ms: &[u32]) -> Result<Vec<Profile>, String> {
    if p == 0 || ms.contains(&0) {
        return Err("p and pieces must be at least 1".into());
    }
    match (collective, id) {
        (Collective::Broadcast, "chain" | "pipelined-binomial" | "double-binary-tree")
        | (Collective::Reduce, "chain" | "pipelined-binomial")
        | (Collective::Allreduce, "double-binary-tree" | "chain-up-down") => {}
        _ => return Err(format!("{collective} {id} is not a pipelined algorithm")),
    }
    let trees = match id {
        "chain" | "chain-up-down" => vec![chain_tree(p)],
        "pipelined-binomial" => vec![binomial_tree(p)],
        _ => double_trees(p),
    };
    let t = trees.len() as u32;
    let (down, up) = match collective {
        Collective::Broadcast => (true, false),
        Collective::Reduce => (false, true),
        _ => (true, true),
    };
    let exact = |m: u32, periods: (Option<&Period>, Option<&Period>)| {
        let mut shapes = Vec::new();
        let mut counts = vec![0u64; p as usize];
        if up {
            shapes_of(|m| Up::new(&trees, p, m), periods.1, (m, t), true, &mut shapes, &mut counts);
        }
        if down {
            shapes_of(|m| Down::new(&trees, p, m), periods.0, (m, t), false, &mut shapes, &mut counts);
        }
        Profile { unit_blocks: m, shapes }
    };
    if matches!(id, "chain" | "pipelined-binomial" | "chain-up-down") {
        let (one, two) = (exact(1, (None, None)), exact(2, (None, None)));
        let count = |prof: &Profile, shape: &Vec<Load>| prof.shapes.iter().find(|s| s.0 == *shape).map_or(0, |s| s.1);
        return Ok(ms
            .iter()
            .map(|&m| {
                let mut shapes: Vec<(Vec<Load>, u64)> = Vec::new();
                for (shape, _) in one.shapes.iter().chain(&two.shapes) {
                    if shapes.iter().any(|s| s.0 == *shape) {
                        continue;
                    }
                    let (c1, c2) = (i128::from(count(&one, shape)), i128::from(count(&two, shape)));
                    let c = c1 + (c2 - c1) * (i128::from(m) - 1);
                    push_shape(&mut shapes, shape.clone(), u64::try_from(c.max(0)).unwrap_or(u64::MAX));
                }
                Profile { unit_blocks: m, shapes }
            })
            .collect());
    }
    // The double binary tree: find the periods once (only worth it for many pieces).
    let many = ms.iter().any(|&m| m > 64);
    let down_period = (down && many).then(|| find_period(|m| Down::new(&trees, p, m), p)).flatten();
    let up_period = (up && many).then(|| find_period(|m| Up::new(&trees, p, m), p)).flatten();
    Ok(ms.iter().map(|&m| exact(m, (down_period.as_ref(), up_period.as_ref()))).collect())
}

/// Binomial scatter of `p` blocks from 0: rank `i` holding blocks
/// `[i, i + 2^(k+1))` sends `[i + 2^k, i + 2^(k+1))` to `i + 2^k`, largest first.
fn binomial_scatter(p: u32) -> Vec<Vec<Transfer>> {
    let top = if p <= 1 { 0 } else { (p - 1).ilog2() + 1 };
    (0..top)
        .rev()
        .map(|k| {
            let step = 1u32 << k;
            (0..p)
                .filter(|i| i % (2 * step) == 0 && i + step < p)
                .map(|i| Transfer {
                    from: i,
                    to: i + step,
                    blocks: (i + step..(i + 2 * step).min(p)).collect(),
                    combine: false,
                })
                .collect()
        })
        .collect()
}

/// Binomial gather of `q` blocks to 0 (the scatter reversed).
fn binomial_gather(q: u32) -> Vec<Vec<Transfer>> {
    let mut r = binomial_scatter(q);
    r.reverse();
    for round in &mut r {
        for t in round.iter_mut() {
            std::mem::swap(&mut t.from, &mut t.to);
        }
    }
    r
}

/// Ring allgather: step `s`, rank `r` sends block `(r − s) mod p` (`own`:
/// rank r starts with block r) or `(r + 1 − s) mod p` (after a ring
/// reduce-scatter, rank r holds block r + 1) to `r + 1`.
fn ring_allgather(p: u32, own: bool) -> Vec<Vec<Transfer>> {
    let start = u32::from(!own);
    (0..p.saturating_sub(1))
        .map(|s| {
            (0..p)
                .map(|r| Transfer { from: r, to: (r + 1) % p, blocks: vec![(r + start + p - s) % p], combine: false })
                .collect()
        })
        .collect()
}

/// Ring reduce-scatter ending with block `r + 1` at rank `r`: step `s`, rank
/// `r` sends block `(r − s) mod p` to `r + 1`, which combines.
fn ring_reduce_scatter(p: u32) -> Vec<Vec<Transfer>> {
    (0..p.saturating_sub(1))
        .map(|s| {
            (0..p)
                .map(|r| Transfer { from: r, to: (r + 1) % p, blocks: vec![(r + p - s) % p], combine: true })
                .collect()
        })
        .collect()
}

/// Ring reduce-scatter ending with block `r` at rank `r`: step `s`, rank `r`
/// sends block `(r − 1 − s) mod p` to `r + 1`.
fn ring_reduce_scatter_to_own(p: u32) -> Vec<Vec<Transfer>> {
    (0..p.saturating_sub(1))
        .map(|s| {
            (0..p)
                .map(|r| Transfer { from: r, to: (r + 1) % p, blocks: vec![(r + 2 * p - 1 - s) % p], combine: true })
                .collect()
        })
        .collect()
}

/// Block groups of the power-of-two core: group `g < q` holds blocks
/// `g, g + q, g + 2q, …` below `blocks`.
fn groups(q: u32, blocks: u32) -> Vec<Vec<u32>> {
    (0..q).map(|g| (g..blocks).step_by(q as usize).collect()).collect()
}

/// Ranks `r ≥ q` hand `blocks` to `r − q` (combined when `combine`).
fn fold_in(p: u32, q: u32, blocks: &[u32], combine: bool) -> Vec<Vec<Transfer>> {
    let r: Vec<Transfer> = (q..p).map(|i| Transfer { from: i, to: i - q, blocks: blocks.to_vec(), combine }).collect();
    if r.is_empty() {
        Vec::new()
    } else {
        vec![r]
    }
}

/// Ranks `r − q` hand `blocks` back to `r ≥ q`.
fn fold_out(p: u32, q: u32, blocks: &[u32]) -> Vec<Vec<Transfer>> {
    let r: Vec<Transfer> =
        (q..p).map(|i| Transfer { from: i - q, to: i, blocks: blocks.to_vec(), combine: false }).collect();
    if r.is_empty() {
        Vec::new()
    } else {
        vec![r]
    }
}

/// Recursive halving over the `q` ranks and `q` groups of blocks: with
/// masks `q/2, q/4, …, 1`, rank `i` and `i ^ mask` split their range of
/// groups; the lower rank keeps the lower half. Rank `i` ends with group `i`
/// combined from all `q` ranks.
fn halving(q: u32, groups: &[Vec<u32>]) -> Vec<Vec<Transfer>> {
    let mut out = Vec::new();
    let mut mask = q / 2;
    while mask >= 1 {
        out.push(
            (0..q)
                .map(|i| {
                    let j = i ^ mask;
                    // Both hold groups [base, base + 2·mask); i sends the half that j keeps.
                    let base = i & !(2 * mask - 1);
                    let send = if j > i { base + mask..base + 2 * mask } else { base..base + mask };
                    Transfer {
                        from: i,
                        to: j,
                        blocks: send.flat_map(|g| groups[g as usize].clone()).collect(),
                        combine: true,
                    }
                })
                .collect(),
        );
        mask /= 2;
    }
    out
}

/// Recursive doubling of groups over `q` ranks: rank `i` starts with group
/// `i`; with masks `1, 2, …, q/2` it sends every group it holds to `i ^ mask`.
fn doubling(q: u32, groups: &[Vec<u32>]) -> Vec<Vec<Transfer>> {
    let mut out = Vec::new();
    let mut mask = 1;
    while mask < q {
        out.push(
            (0..q)
                .map(|i| {
                    let base = i & !(mask - 1);
                    Transfer {
                        from: i,
                        to: i ^ mask,
                        blocks: (base..base + mask).flat_map(|g| groups[g as usize].clone()).collect(),
                        combine: false,
                    }
                })
                .collect(),
        );
        mask <<= 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{double_trees, edge_colours};

    /// Every algorithm says how it spends its time (the Chooser's explain
    /// panel shows it).
    #[test]
    fn every_algorithm_has_its_formula() {
        for a in super::ALGORITHMS {
            assert!(a.formula.ends_with('.') && a.formula.len() > 20, "{} {}", a.collective, a.id);
        }
    }

    /// The two trees' edges get two colours for every p ≤ 1024, and the
    /// colouring does what the schedule needs, checked edge by edge: a
    /// rank's edges from its two parents differ, and so do the edges to its
    /// children (in both trees together).
    #[test]
    fn the_two_trees_are_two_coloured() {
        for p in 2..=1024u32 {
            let trees = double_trees(p);
            let colour = edge_colours(&trees).unwrap_or_else(|| panic!("p = {p}: no 2-colouring"));
            for (r, (a, b)) in colour[0].iter().zip(&colour[1]).enumerate().skip(1) {
                assert_ne!(a, b, "p = {p}: rank {r} takes both parents' pieces in one colour");
            }
            for (r, (a, b)) in trees[0].iter().zip(&trees[1]).enumerate() {
                let out: Vec<u8> =
                    a.iter().map(|&c| colour[0][c as usize]).chain(b.iter().map(|&c| colour[1][c as usize])).collect();
                assert!(out.len() <= 2, "p = {p}: rank {r} has {} children", out.len());
                if out.len() == 2 {
                    assert_ne!(out[0], out[1], "p = {p}: rank {r} sends to two children in one colour");
                }
            }
        }
    }
}

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

use super::plan::{Collective, Plan, Transfer};

/// An algorithm: its id and the collective it performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Algorithm {
    /// Stable id.
    pub id: &'static str,
    /// The collective.
    pub collective: Collective,
    /// It cuts the vector into `pieces` pieces (the chunk optimizer's knob).
    pub pipelined: bool,
}

const fn alg(id: &'static str, collective: Collective, pipelined: bool) -> Algorithm {
    Algorithm { id, collective, pipelined }
}

/// Every algorithm, by collective.
pub const ALGORITHMS: [Algorithm; 29] = [
    alg("binomial", Collective::Broadcast, false),
    alg("binary-tree", Collective::Broadcast, false),
    alg("chain", Collective::Broadcast, true),
    alg("pipelined-binomial", Collective::Broadcast, true),
    alg("scatter-allgather", Collective::Broadcast, false),
    alg("double-binary-tree", Collective::Broadcast, true),
    alg("linear", Collective::Broadcast, false),
    alg("binomial", Collective::Reduce, false),
    alg("binomial-bst", Collective::Reduce, false),
    alg("chain", Collective::Reduce, true),
    alg("pipelined-binomial", Collective::Reduce, true),
    alg("reduce-scatter-gather", Collective::Reduce, false),
    alg("linear", Collective::Reduce, false),
    alg("reduce-broadcast", Collective::Allreduce, false),
    alg("recursive-doubling", Collective::Allreduce, false),
    alg("ring", Collective::Allreduce, false),
    alg("rabenseifner", Collective::Allreduce, false),
    alg("double-binary-tree", Collective::Allreduce, true),
    alg("chain-up-down", Collective::Allreduce, true),
    alg("ring", Collective::Allgather, false),
    alg("recursive-doubling", Collective::Allgather, false),
    alg("bruck", Collective::Allgather, false),
    alg("ring", Collective::ReduceScatter, false),
    alg("recursive-halving", Collective::ReduceScatter, false),
    alg("pairwise", Collective::ReduceScatter, false),
    alg("linear", Collective::AllToAll, false),
    alg("pairwise", Collective::AllToAll, false),
    alg("bruck", Collective::AllToAll, false),
    alg("swizzle-order", Collective::AllToAll, false),
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

/// Two complementary binary trees over all ranks, both rooted at 0 (for a
/// broadcast from 0, a reduce to 0): an in-order balanced tree over ranks
/// `1..p` under 0, and the same tree over the ranks mirrored (`r ↦ p − r`),
/// so most leaves of one are inner nodes of the other.
fn double_trees(p: u32) -> Vec<Tree> {
    fn build(tree: &mut Tree, lo: u32, hi: u32, map: &dyn Fn(u32) -> u32) -> Option<u32> {
        if lo >= hi {
            return None;
        }
        let mid = lo + (hi - lo) / 2;
        let root = map(mid);
        for child in [build(tree, lo, mid, map), build(tree, mid + 1, hi, map)].into_iter().flatten() {
            tree[root as usize].push(child);
        }
        Some(root)
    }
    let mut a: Tree = vec![Vec::new(); p as usize];
    let mut b: Tree = vec![Vec::new(); p as usize];
    if let Some(r) = build(&mut a, 1, p, &|x| x) {
        a[0].push(r);
    }
    if let Some(r) = build(&mut b, 1, p, &|x| p - x) {
        b[0].push(r);
    }
    vec![a, b]
}

/// Greedy one-port broadcast of `m` pieces down `trees` (piece `j` uses tree
/// `j mod trees`): each round every rank sends the earliest piece it holds
/// that a child still needs.
#[allow(
    clippy::many_single_char_names,
    reason = "p, m, n, r, j, c, k: ranks, pieces, their count, a rank, a piece, a child, a position"
)]
fn tree_down(trees: &[Tree], p: u32, m: u32) -> Vec<Vec<Transfer>> {
    let n = p as usize;
    // has[rank][piece]: round after which it holds the piece.
    let mut has = vec![vec![false; m as usize]; n];
    has[0].iter_mut().for_each(|h| *h = true);
    // Per rank, the (piece, child) sends still to do, in order.
    let mut todo: Vec<std::collections::VecDeque<(u32, u32)>> = vec![std::collections::VecDeque::new(); n];
    for j in 0..m {
        let tree = &trees[(j as usize) % trees.len()];
        for (r, children) in tree.iter().enumerate() {
            for &c in children {
                todo[r].push_back((j, c));
            }
        }
    }
    let mut rounds = Vec::new();
    while todo.iter().any(|t| !t.is_empty()) {
        let mut round = Vec::new();
        for r in 0..n {
            if let Some(k) = todo[r].iter().position(|&(j, _)| has[r][j as usize]) {
                let (j, c) = todo[r].remove(k).expect("found");
                round.push(Transfer { from: r as u32, to: c, blocks: vec![j], combine: false });
            }
        }
        if round.is_empty() {
            // Only a tree that does not reach a rank from 0 stalls; replay reports it.
            break;
        }
        for t in &round {
            has[t.to as usize][t.blocks[0] as usize] = true;
        }
        rounds.push(round);
    }
    rounds
}

/// Greedy one-port reduce of `m` pieces up `trees` to 0: a rank forwards
/// piece `j` to its parent once all its children in that piece's tree sent it.
fn tree_up(trees: &[Tree], p: u32, m: u32) -> Vec<Vec<Transfer>> {
    let n = p as usize;
    let parents: Vec<Vec<Option<u32>>> = trees
        .iter()
        .map(|t| {
            let mut parent = vec![None; n];
            for (r, children) in t.iter().enumerate() {
                for &c in children {
                    parent[c as usize] = Some(r as u32);
                }
            }
            parent
        })
        .collect();
    // missing[rank][piece]: children's shares still to arrive.
    let mut missing: Vec<Vec<u32>> =
        (0..n).map(|r| (0..m).map(|j| trees[(j as usize) % trees.len()][r].len() as u32).collect()).collect();
    let mut sent = vec![vec![false; m as usize]; n];
    let mut rounds = Vec::new();
    loop {
        let mut round = Vec::new();
        for r in 0..n {
            let next = (0..m).find(|&j| {
                let parent = parents[(j as usize) % trees.len()][r];
                parent.is_some() && !sent[r][j as usize] && missing[r][j as usize] == 0
            });
            if let Some(j) = next {
                let to = parents[(j as usize) % trees.len()][r].expect("checked");
                round.push(Transfer { from: r as u32, to, blocks: vec![j], combine: true });
            }
        }
        if round.is_empty() {
            break;
        }
        for t in &round {
            sent[t.from as usize][t.blocks[0] as usize] = true;
            missing[t.to as usize][t.blocks[0] as usize] -= 1;
        }
        rounds.push(round);
    }
    rounds
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

//! The chooser's algorithms as [`Plan`]s, for any `p ≥ 1` (stable ids for
//! URLs and the CLI). Non-powers of two use the usual fold: with
//! `q = 2^⌊log₂ p⌋`, ranks `r ≥ q` first hand their data to `r − q`, the
//! first `q` ranks run the power-of-two algorithm, and `r − q` hands the
//! result back.
//! The pipelined trees are scheduled in `pipelined.rs`, on the trees of
//! `trees.rs`; the registry of ids is `registry.rs`.

use super::pipelined::{tree_down, tree_up};
use super::plan::{Collective, Plan, Transfer};
use super::registry::of;
use super::trees::{binomial_tree, chain_tree, double_trees, heap_tree, nccl_double_tree, nccl_node_trees};

/// The plan of algorithm `id` of `collective` on `p` ranks, `pieces` pieces
/// for the pipelined ones (ignored by the others).
///
/// # Errors
/// An unknown id, `p = 0`, or `pieces = 0`.
pub fn plan(collective: Collective, id: &str, p: u32, pieces: u32) -> Result<Plan, String> {
    if p == 0 || pieces == 0 {
        return Err("p and pieces must be at least 1".into());
    }
    let m = pieces;
    let planned = match collective {
        Collective::Broadcast => broadcast(id, p, m),
        Collective::Reduce => reduce(id, p, m),
        Collective::Allreduce => allreduce(id, p, m)?,
        Collective::Allgather => allgather(id, p),
        Collective::ReduceScatter => reduce_scatter(id, p),
        Collective::AllToAll => all_to_all(id, p)?,
    };
    planned.ok_or_else(|| {
        let ids: Vec<&str> = of(collective).map(|a| a.id).collect();
        format!("unknown {collective} algorithm {id:?}; expected one of: {}", ids.join(", "))
    })
}

/// A plan of `rounds`, the pipelined algorithms' vector in `m` blocks.
fn pipelined(collective: Collective, id: &str, p: u32, m: u32, rounds: Vec<Vec<Transfer>>) -> Plan {
    let blocks = match id {
        "chain" | "pipelined-binomial" | "double-binary-tree" | "chain-up-down" => m,
        _ => 1,
    };
    one(collective, p, blocks, rounds)
}

/// The broadcast plans (`None`: no such id).
fn broadcast(id: &str, p: u32, m: u32) -> Option<Plan> {
    let collective = Collective::Broadcast;
    let rounds = match id {
        "binomial" => return Some(one(collective, p, 1, binomial_broadcast(p, &[0]))),
        "binary-tree" => tree_down(&[heap_tree(p)], p, 1),
        "chain" => tree_down(&[chain_tree(p)], p, m),
        "pipelined-binomial" => tree_down(&[binomial_tree(p)], p, m),
        "double-binary-tree" => tree_down(&double_trees(p), p, m),
        "scatter-allgather" => {
            let mut r = binomial_scatter(p);
            r.extend(ring_allgather(p, true));
            return Some(one(collective, p, p, r));
        }
        "linear" => {
            vec![(1..p).map(|j| Transfer { from: 0, to: j, blocks: vec![0], combine: false }).collect()]
        }
        _ => return None,
    };
    Some(pipelined(collective, id, p, m, rounds))
}

/// The reduce plans (`None`: no such id).
fn reduce(id: &str, p: u32, m: u32) -> Option<Plan> {
    let collective = Collective::Reduce;
    let rounds = match id {
        "binomial" => {
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
        "binomial-bst" => {
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
        "chain" => tree_up(&[chain_tree(p)], p, m),
        "pipelined-binomial" => tree_up(&[binomial_tree(p)], p, m),
        "reduce-scatter-gather" => {
            let q = 1u32 << p.ilog2();
            let mut r = fold_in(p, q, &(0..q).collect::<Vec<_>>(), true);
            r.extend(halving(q, &groups(q, q)));
            r.extend(binomial_gather(q));
            return Some(one(collective, p, q, r));
        }
        "linear" => {
            vec![(1..p).map(|i| Transfer { from: i, to: 0, blocks: vec![0], combine: true }).collect()]
        }
        _ => return None,
    };
    Some(pipelined(collective, id, p, m, rounds))
}

/// The allreduce plans (`None`: no such id).
fn allreduce(id: &str, p: u32, m: u32) -> Result<Option<Plan>, String> {
    let collective = Collective::Allreduce;
    let rounds = match id {
        "reduce-broadcast" => {
            let mut r = plan(Collective::Reduce, "binomial", p, 1)?.rounds;
            r.extend(binomial_broadcast(p, &[0]));
            r
        }
        "recursive-doubling" => {
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
        "ring" => {
            let mut r = ring_reduce_scatter(p);
            r.extend(ring_allgather(p, false));
            return Ok(Some(one(collective, p, p, r)));
        }
        "rabenseifner" => {
            let q = 1u32 << p.ilog2();
            let all: Vec<u32> = (0..q).collect();
            let mut r = fold_in(p, q, &all, true);
            r.extend(halving(q, &groups(q, q)));
            r.extend(doubling(q, &groups(q, q)));
            r.extend(fold_out(p, q, &all));
            return Ok(Some(one(collective, p, q, r)));
        }
        "double-binary-tree" => {
            let trees = double_trees(p);
            let mut r = tree_up(&trees, p, m);
            r.extend(tree_down(&trees, p, m));
            r
        }
        "chain-up-down" => {
            let mut r = tree_up(&[chain_tree(p)], p, m);
            r.extend(tree_down(&[chain_tree(p)], p, m));
            r
        }
        _ => return Ok(None),
    };
    Ok(Some(pipelined(collective, id, p, m, rounds)))
}

/// The allgather plans (`None`: no such id).
fn allgather(id: &str, p: u32) -> Option<Plan> {
    let collective = Collective::Allgather;
    match id {
        "ring" => Some(one(collective, p, p, ring_allgather(p, true))),
        "recursive-doubling" => {
            let q = 1u32 << p.ilog2();
            // Rank r < q gathers group {r, r + q}; the doubling exchanges groups.
            let g = groups(q, p);
            let mut r: Vec<Vec<Transfer>> =
                vec![(q..p).map(|i| Transfer { from: i, to: i - q, blocks: vec![i], combine: false }).collect()];
            r.retain(|x| !x.is_empty());
            r.extend(doubling(q, &g));
            let all: Vec<u32> = (0..p).collect();
            r.extend(fold_out(p, q, &all));
            Some(one(collective, p, p, r))
        }
        "bruck" => {
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
            Some(one(collective, p, p, r))
        }
        _ => None,
    }
}

/// The reduce-scatter plans (`None`: no such id).
fn reduce_scatter(id: &str, p: u32) -> Option<Plan> {
    let collective = Collective::ReduceScatter;
    match id {
        "ring" => Some(one(collective, p, p, ring_reduce_scatter_to_own(p))),
        "recursive-halving" => {
            let q = 1u32 << p.ilog2();
            let all: Vec<u32> = (0..p).collect();
            let mut r = fold_in(p, q, &all, true);
            r.extend(halving(q, &groups(q, p)));
            let out: Vec<Transfer> =
                (q..p).map(|i| Transfer { from: i - q, to: i, blocks: vec![i], combine: false }).collect();
            if !out.is_empty() {
                r.push(out);
            }
            Some(one(collective, p, p, r))
        }
        "pairwise" => {
            let r = (1..p)
                .map(|s| {
                    (0..p)
                        .map(|i| Transfer { from: i, to: (i + s) % p, blocks: vec![(i + s) % p], combine: true })
                        .collect()
                })
                .collect();
            Some(one(collective, p, p, r))
        }
        _ => None,
    }
}

/// The all-to-all plans (`None`: no such id).
fn all_to_all(id: &str, p: u32) -> Result<Option<Plan>, String> {
    let collective = Collective::AllToAll;
    match id {
        "linear" => {
            let r = vec![(0..p)
                .flat_map(|i| (1..p).map(move |s| (i, (i + s) % p)))
                .map(|(i, j)| Transfer { from: i, to: j, blocks: vec![i * p + j], combine: false })
                .collect()];
            Ok(Some(one(collective, p, p * p, r)))
        }
        "bruck" => Ok(Some(one(collective, p, p * p, bruck_all_to_all(p)))),
        "swizzle-order" => Ok(Some(one(collective, p, p * p, swizzle_order(p)?))),
        "pairwise" => {
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
            Ok(Some(one(collective, p, p * p, r)))
        }
        _ => Ok(None),
    }
}

/// NCCL's tree for allreduce on `p` ranks in nodes of `g` (`docs/network.md`,
/// NCCL's tree): inside each node a chain from the node's first rank, and
/// the nodes' first ranks joined by each of NCCL's two trees over the nodes
/// (`ncclGetDtree`: the first rooted at node 0, the second at node
/// N − 1 or 1), the pieces alternating between the two trees; on one node,
/// two chains. Each tree reduces a piece up to its root and broadcasts it
/// down as soon as the root holds it, while later pieces still go up, as in
/// NCCL: a rank at height h (its longest path down to a leaf) sends the
/// tree's i-th piece up in round i + h, and a rank at depth d sends it down
/// in round i + H + d (H: the root's height), so every piece arrives in an
/// earlier round than any send of it. Its GOAL moves each piece as soon as
/// it arrived ([`Plan::overlap`]); a rank may send several pieces in a round.
///
/// # Errors
/// `p`, `g` or `pieces` 0, or `p` not a multiple of `g`.
pub fn node_tree(p: u32, g: u32, pieces: u32) -> Result<Plan, String> {
    if p == 0 || g == 0 || pieces == 0 || p % g != 0 {
        return Err(format!("NCCL's tree needs whole nodes: p = {p} ranks in nodes of {g}"));
    }
    let mut rounds: Vec<Vec<Transfer>> = Vec::new();
    let mut at = |round: u32, t: Transfer| {
        let round = round as usize;
        if rounds.len() <= round {
            rounds.resize_with(round + 1, Vec::new);
        }
        rounds[round].push(t);
    };
    for (k, (nodes, root)) in nccl_double_tree(p / g).into_iter().enumerate() {
        // The tree over ranks: a node's first rank has the first ranks of
        // its child nodes, then its chain.
        let children: Vec<Vec<u32>> = (0..p)
            .map(|r| {
                let (node, i) = (r / g, r % g);
                let mut c: Vec<u32> =
                    if i == 0 { nodes[node as usize].iter().map(|&c| c * g).collect() } else { Vec::new() };
                if i + 1 < g {
                    c.push(r + 1);
                }
                c
            })
            .collect();
        // Breadth-first from the root: each rank's parent and depth, then heights leaves first.
        let root = root * g;
        let mut order = vec![(root, None::<u32>, 0u32)];
        let mut next = 0;
        while next < order.len() {
            let (r, _, d) = order[next];
            order.extend(children[r as usize].iter().map(|&c| (c, Some(r), d + 1)));
            next += 1;
        }
        let mut height = vec![0u32; p as usize];
        for &(r, parent, _) in order.iter().rev() {
            if let Some(parent) = parent {
                height[parent as usize] = height[parent as usize].max(height[r as usize] + 1);
            }
        }
        let top = height[root as usize];
        let tree = k as u32;
        for i in 0..super::trees::pieces_of(pieces, 2, tree) {
            let piece = tree + 2 * i;
            for &(r, parent, d) in &order {
                if let Some(parent) = parent {
                    at(i + height[r as usize], Transfer { from: r, to: parent, blocks: vec![piece], combine: true });
                }
                for &c in &children[r as usize] {
                    at(i + top + d, Transfer { from: r, to: c, blocks: vec![piece], combine: false });
                }
            }
        }
    }
    Ok(Plan { overlap: true, ..one(Collective::Allreduce, p, pieces, rounds) })
}

/// NCCL's NVLS (`docs/network.md`, NVLS): the `NVSwitch` of each node
/// reduces and multicasts. The plan has `p` GPU ranks in nodes of `g` and
/// one switch rank per node after them (rank `p + k` is node `k`'s switch,
/// placed on its switch vertex, `net::Placement::vertices`).
///
/// - **Allreduce**: the vector is cut into `pieces` pieces of `h` slices,
///   `h` NCCL's heads (`nccl::nvls_heads`: `g`, at most 32); GPU `j < h` of
///   each node is the head of slice `j`. For each slice, every
///   GPU sends its part to its switch, which reduces it and returns the sum
///   to the head (`multimem.ld_reduce`); the head sends it back to the switch
///   (`multimem.st`), which copies it to every GPU of the node: S·(h+1)/h
///   bytes each way per head for a vector of S, S per other GPU. On several nodes (NCCL's
///   `NVLSTree`) the heads of a slice first reduce and broadcast it over
///   NCCL's two trees of nodes (`ncclGetDtree`, the pieces alternating
///   between them) before their `st`. A head at height h sends piece i up
///   in round i + 2 + h, a node at depth d sends it down (and to its
///   switch) in round i + 3 + H + d, the switch copies it a round later.
/// - **Allgather** and **reduce-scatter** on one node: each GPU's block to
///   the switch, which copies it to every GPU (allgather), or every GPU's
///   part of block j to the switch, which returns the sum to GPU j
///   (reduce-scatter); `pieces` pieces of `g` blocks, block `b` GPU
///   `b mod g`'s.
///
/// Each piece moves as soon as it has arrived ([`Plan::overlap`]). A GPU
/// keeps a lane for its contributions and, per tree, one for the tree up,
/// one for the tree down and one for its `st` (the two trees on channels of
/// their own in NCCL: neither waits for the other), a switch one per port
/// and role (each GPU's returns and copies), so the switch feeds all its
/// GPUs at once (`choose::goal` puts the streams on NICs of their own).
///
/// # Errors
/// `p`, `g` or `pieces` 0, `p` not a multiple of `g`, or a collective NVLS
/// does not run (allgather and reduce-scatter on more than one node need
/// `CollNet`).
pub fn nvls(collective: Collective, p: u32, g: u32, pieces: u32) -> Result<Plan, String> {
    if p == 0 || g == 0 || pieces == 0 || p % g != 0 {
        return Err(format!("NVLS needs whole nodes: p = {p} ranks in nodes of {g}"));
    }
    let n = p / g;
    let mut rounds: Vec<Vec<Transfer>> = Vec::new();
    let mut lanes: Vec<Vec<u32>> = Vec::new();
    let mut at = |round: u32, from: u32, to: u32, block: u32, combine: bool, lane: u32| {
        let round = round as usize;
        if rounds.len() <= round {
            rounds.resize_with(round + 1, Vec::new);
            lanes.resize_with(round + 1, Vec::new);
        }
        rounds[round].push(Transfer { from, to, blocks: vec![block], combine });
        lanes[round].push(lane);
    };
    let node_gpus = |k: u32| k * g..(k + 1) * g;
    // Allreduce's slices: one a head, the node's first `heads` GPUs.
    let heads = crate::libraries::nccl::nvls_heads(g);
    match collective {
        Collective::Allreduce => {
            let trees = nccl_node_trees(n);
            for i in 0..pieces {
                let t = if n > 1 { i % 2 } else { 0 };
                let tree = &trees[t as usize];
                let top = tree.height[tree.root as usize];
                for j in 0..heads {
                    let block = i * heads + j;
                    for k in 0..n {
                        let (switch, head) = (p + k, k * g + j);
                        node_gpus(k).for_each(|x| at(i, x, switch, block, true, 0));
                        at(i + 1, switch, head, block, false, 8 + j);
                        if let Some(parent) = tree.parent[k as usize] {
                            at(i + 2 + tree.height[k as usize], head, parent * g + j, block, true, 1 + 3 * t);
                        }
                        let down = i + 3 + top + tree.depth[k as usize];
                        for &c in &tree.children[k as usize] {
                            at(down, head, c * g + j, block, false, 2 + 3 * t);
                        }
                        at(down, head, switch, block, false, 3 + 3 * t);
                        node_gpus(k).for_each(|x| at(down + 1, switch, x, block, false, 8 + g + x % g));
                    }
                }
            }
        }
        Collective::Allgather | Collective::ReduceScatter if n == 1 => {
            let gather = collective == Collective::Allgather;
            for i in 0..pieces {
                for j in 0..g {
                    let block = i * g + j;
                    if gather {
                        at(i, j, p, block, false, 0);
                        (0..g).for_each(|x| at(i + 1, p, x, block, false, 8 + g + x));
                    } else {
                        (0..g).for_each(|x| at(i, x, p, block, true, 0));
                        at(i + 1, p, j, block, false, 8 + j);
                    }
                }
            }
        }
        _ => {
            return Err(format!(
                "NVLS runs allreduce, and allgather and reduce-scatter on one node, not {collective} on {n} nodes"
            ))
        }
    }
    let blocks = pieces * if collective == Collective::Allreduce { heads } else { g };
    Ok(Plan { collective, ranks: p + n, switches: n, blocks, rounds, overlap: true, lanes })
}

fn one(collective: Collective, ranks: u32, blocks: u32, rounds: Vec<Vec<Transfer>>) -> Plan {
    Plan {
        collective,
        ranks,
        switches: 0,
        blocks,
        rounds: rounds.into_iter().filter(|r| !r.is_empty()).collect(),
        overlap: false,
        lanes: Vec::new(),
    }
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

/// The ring of `p` ranks (allreduce, allgather, reduce-scatter) seen from
/// its first `keep` ranks, the ring closed after them: every round of the
/// `p`-rank ring, each of ranks `0 … keep − 1` sending what it sends there
/// (same blocks, so same bytes) to the next rank modulo `keep`. Where the
/// `p`-rank ring's run repeats every `keep` ranks (a ring over `nodes`
/// whose channels enter every node alike: `keep` = two nodes), this plan
/// runs exactly as the whole ring does, with `keep/p` of its messages
/// (`docs/network.md`, "Rings at any scale"). `None`: not a ring of these
/// collectives, or `keep` not in `2 ..= p`.
pub fn ring_quotient(collective: Collective, p: u32, keep: u32) -> Option<Plan> {
    if keep < 2 || keep > p {
        return None;
    }
    let rounds = match collective {
        Collective::Allreduce => {
            let mut r = ring_reduce_scatter_of(p, keep);
            r.extend(ring_allgather_of(p, false, keep));
            r
        }
        Collective::Allgather => ring_allgather_of(p, true, keep),
        Collective::ReduceScatter => ring_reduce_scatter_to_own_of(p, keep),
        _ => return None,
    };
    Some(one(collective, keep, p, rounds))
}

/// Ring allgather: step `s`, rank `r` sends block `(r − s) mod p` (`own`:
/// rank r starts with block r) or `(r + 1 − s) mod p` (after a ring
/// reduce-scatter, rank r holds block r + 1) to `r + 1`.
fn ring_allgather(p: u32, own: bool) -> Vec<Vec<Transfer>> {
    ring_allgather_of(p, own, p)
}

/// [`ring_allgather`]'s transfers from ranks `0 … keep − 1`, each to the
/// next modulo `keep` ([`ring_quotient`]).
fn ring_allgather_of(p: u32, own: bool, keep: u32) -> Vec<Vec<Transfer>> {
    let start = u32::from(!own);
    (0..p.saturating_sub(1))
        .map(|s| {
            (0..keep)
                .map(|r| Transfer {
                    from: r,
                    to: (r + 1) % keep,
                    blocks: vec![(r + start + p - s) % p],
                    combine: false,
                })
                .collect()
        })
        .collect()
}

/// Ring reduce-scatter ending with block `r + 1` at rank `r`: step `s`, rank
/// `r` sends block `(r − s) mod p` to `r + 1`, which combines.
fn ring_reduce_scatter(p: u32) -> Vec<Vec<Transfer>> {
    ring_reduce_scatter_of(p, p)
}

/// [`ring_reduce_scatter`]'s transfers from ranks `0 … keep − 1`, each to
/// the next modulo `keep`.
fn ring_reduce_scatter_of(p: u32, keep: u32) -> Vec<Vec<Transfer>> {
    (0..p.saturating_sub(1))
        .map(|s| {
            (0..keep)
                .map(|r| Transfer { from: r, to: (r + 1) % keep, blocks: vec![(r + p - s) % p], combine: true })
                .collect()
        })
        .collect()
}

/// Ring reduce-scatter ending with block `r` at rank `r`: step `s`, rank `r`
/// sends block `(r − 1 − s) mod p` to `r + 1`.
fn ring_reduce_scatter_to_own(p: u32) -> Vec<Vec<Transfer>> {
    ring_reduce_scatter_to_own_of(p, p)
}

/// [`ring_reduce_scatter_to_own`]'s transfers from ranks `0 … keep − 1`,
/// each to the next modulo `keep`.
fn ring_reduce_scatter_to_own_of(p: u32, keep: u32) -> Vec<Vec<Transfer>> {
    (0..p.saturating_sub(1))
        .map(|s| {
            (0..keep)
                .map(|r| Transfer { from: r, to: (r + 1) % keep, blocks: vec![(r + 2 * p - 1 - s) % p], combine: true })
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

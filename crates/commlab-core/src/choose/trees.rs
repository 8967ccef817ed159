//! The trees the chooser's tree algorithms run on: the heap-ordered binary
//! tree, the chain, the binomial tree, and NCCL's double binary tree with
//! the 2-colouring of its edges.

/// Children lists of a tree rooted at 0.
pub(super) type Tree = Vec<Vec<u32>>;

pub(super) fn heap_tree(p: u32) -> Tree {
    (0..p).map(|i| [2 * i + 1, 2 * i + 2].into_iter().filter(|&c| c < p).collect()).collect()
}

pub(super) fn chain_tree(p: u32) -> Tree {
    (0..p).map(|i| if i + 1 < p { vec![i + 1] } else { Vec::new() }).collect()
}

/// The binomial tree of the broadcast above: the children of `i` are
/// `i + 2^k` for `2^k > i`, largest subtree first.
pub(super) fn binomial_tree(p: u32) -> Tree {
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
pub(super) fn odd_leaf_tree(n: u32) -> Vec<Vec<u32>> {
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

/// NCCL's two trees over `n` nodes (`ncclGetDtree`): the children of each
/// node and the root. The first is [`odd_leaf_tree`] (`ncclGetBtree`,
/// rooted at 0); the second is it mirrored (`i ↦ n − 1 − i`, rooted at
/// n − 1) when `n` is even, shifted (`i ↦ i + 1 mod n`, rooted at 1) when odd.
pub fn nccl_double_tree(n: u32) -> [(Vec<Vec<u32>>, u32); 2] {
    let first = odd_leaf_tree(n);
    let mirror = n % 2 == 0;
    let map = |i: u32| if mirror { n - 1 - i } else { (i + 1) % n };
    let unmap = |i: u32| if mirror { n - 1 - i } else { (i + n - 1) % n };
    let second = (0..n).map(|i| first[unmap(i) as usize].iter().map(|&c| map(c)).collect()).collect();
    [(first, 0), (second, if n == 0 { 0 } else { map(0) })]
}

/// One of NCCL's trees over nodes: each node's children, parent, depth
/// and height (its longest path down to a leaf).
pub struct NodeTree {
    /// The root.
    pub root: u32,
    /// Each node's children.
    pub children: Vec<Vec<u32>>,
    /// Each node's parent (`None`: the root).
    pub parent: Vec<Option<u32>>,
    /// Each node's depth (the root's is 0).
    pub depth: Vec<u32>,
    /// Each node's height: its longest path down to a leaf.
    pub height: Vec<u32>,
}

impl NodeTree {
    /// The tree of `children` lists rooted at `root`.
    pub fn new(children: Vec<Vec<u32>>, root: u32) -> NodeTree {
        let n = children.len();
        let (mut parent, mut depth, mut height) = (vec![None; n], vec![0u32; n], vec![0u32; n]);
        let mut order = vec![root];
        let mut next = 0;
        while next < order.len() {
            let k = order[next] as usize;
            for &c in &children[k] {
                parent[c as usize] = Some(k as u32);
                depth[c as usize] = depth[k] + 1;
                order.push(c);
            }
            next += 1;
        }
        for &k in order.iter().rev() {
            if let Some(up) = parent[k as usize] {
                height[up as usize] = height[up as usize].max(height[k as usize] + 1);
            }
        }
        NodeTree { root, children, parent, depth, height }
    }
}

/// NCCL's two trees over `n` nodes ([`nccl_double_tree`]) with each
/// node's parent, depth and height.
pub fn nccl_node_trees(n: u32) -> [NodeTree; 2] {
    nccl_double_tree(n).map(|(children, root)| NodeTree::new(children, root))
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
pub(super) fn double_trees(p: u32) -> Vec<Tree> {
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

/// Pieces of tree `tree` among `m` pieces over `t` trees.
pub(super) fn pieces_of(m: u32, t: u32, tree: u32) -> u32 {
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
pub(super) fn edge_colours(trees: &[Tree]) -> Option<Vec<Vec<u8>>> {
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

#[cfg(test)]
mod tests {
    use super::{double_trees, edge_colours, nccl_double_tree};

    /// NCCL's `ncclGetBtree` (`src/graph/trees.cc`), transcribed line by
    /// line: rank's parent and two children (−1 for none).
    fn nccl_btree(nranks: i32, rank: i32) -> (i32, i32, i32) {
        let mut bit = 1;
        while bit < nranks {
            if bit & rank != 0 {
                break;
            }
            bit <<= 1;
        }
        if rank == 0 {
            return (-1, -1, if nranks > 1 { bit >> 1 } else { -1 });
        }
        let mut up = (rank ^ bit) | (bit << 1);
        if up >= nranks {
            up = rank ^ bit;
        }
        let mut lowbit = bit >> 1;
        let down0 = if lowbit == 0 { -1 } else { rank - lowbit };
        let mut down1 = if lowbit == 0 { -1 } else { rank + lowbit };
        while down1 >= nranks {
            down1 = if lowbit == 0 { -1 } else { rank + lowbit };
            lowbit >>= 1;
        }
        (up, down0, down1)
    }

    /// NCCL's `ncclGetDtree`: the second tree mirrored (even nranks) or shifted (odd).
    fn nccl_dtree_second(nranks: i32, rank: i32) -> (i32, i32, i32) {
        let f = |x: i32, map: &dyn Fn(i32) -> i32| if x == -1 { -1 } else { map(x) };
        if nranks % 2 == 1 {
            let (u, d0, d1) = nccl_btree(nranks, (rank - 1 + nranks) % nranks);
            let shift = |x| (x + 1) % nranks;
            (f(u, &shift), f(d0, &shift), f(d1, &shift))
        } else {
            let (u, d0, d1) = nccl_btree(nranks, nranks - 1 - rank);
            let mirror = |x| nranks - 1 - x;
            (f(u, &mirror), f(d0, &mirror), f(d1, &mirror))
        }
    }

    /// Our two trees over the nodes are NCCL's, node for node, for 1 to 300
    /// nodes: the same parent, the same children, the same root.
    #[test]
    fn the_node_trees_are_nccls_double_tree() {
        for n in 1..=300u32 {
            let ours = nccl_double_tree(n);
            for (k, (children, root)) in ours.iter().enumerate() {
                let nranks = i32::try_from(n).unwrap();
                let nccl = |r: i32| if k == 0 { nccl_btree(nranks, r) } else { nccl_dtree_second(nranks, r) };
                for r in 0..n {
                    let (up, d0, d1) = nccl(i32::try_from(r).unwrap());
                    let mut want: Vec<u32> = [d0, d1].into_iter().filter(|&d| d >= 0).map(|d| d as u32).collect();
                    want.dedup();
                    let mut got = children[r as usize].clone();
                    got.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(got, want, "n = {n}, tree {k}, node {r}: children");
                    assert_eq!(up == -1, r == *root, "n = {n}, tree {k}, node {r}: root {root}");
                    if up >= 0 {
                        assert!(children[up as usize].contains(&r), "n = {n}, tree {k}: {r}'s parent {up}");
                    }
                }
            }
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

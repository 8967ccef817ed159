//! The pipelined trees (chain, pipelined binomial, double binary tree) as
//! greedy one-port state machines: in each round a rank sends at most one
//! piece, the earliest it can (pieces in order, children in order); a
//! reducing rank forwards a piece once every child's share of it arrived.
//! Their profiles come without their transfers: affine in `m` for the chains
//! and the pipelined binomial tree, from the schedule's exact period for the
//! double binary tree.

use super::plan::{push_shape, Collective, Load, Profile, Transfer};
use super::trees::{binomial_tree, chain_tree, double_trees, edge_colours, pieces_of, Tree};

/// A greedy one-port schedule of `m` pieces over `trees` (piece `j` uses
/// tree `j mod trees`), advanced a round at a time: [`Down`] broadcasts
/// from rank 0, [`Up`] reduces to it. Its `key` is the state relative to
/// rank 0's progress, which the periodic extrapolation of
/// [`pipelined_profile`] compares between rounds.
pub(super) trait Greedy {
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
pub(super) struct Ports {
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
pub(super) struct Down<'a> {
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
pub(super) struct Up<'a> {
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
pub(super) fn each_round<G: Greedy>(mut g: G, mut round: impl FnMut(&[(u32, u32, u32)])) {
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
pub(super) const PERIOD_SEARCH_ROUNDS: usize = 64;

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
pub(super) struct Period {
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
pub(super) fn find_period<G: Greedy>(make: impl Fn(u32) -> G, p: u32) -> Option<Period> {
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
pub(super) fn shapes_of<G: Greedy>(
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

pub(super) fn tree_down(trees: &[Tree], p: u32, m: u32) -> Vec<Vec<Transfer>> {
    let mut rounds = Vec::new();
    each_round(Down::new(trees, p, m), |sends| rounds.push(transfers(sends, false)));
    rounds
}

pub(super) fn tree_up(trees: &[Tree], p: u32, m: u32) -> Vec<Vec<Transfer>> {
    let mut rounds = Vec::new();
    each_round(Up::new(trees, p, m), |sends| rounds.push(transfers(sends, true)));
    rounds
}

pub(super) fn transfers(sends: &[(u32, u32, u32)], combine: bool) -> Vec<Transfer> {
    sends.iter().map(|&(from, to, j)| Transfer { from, to, blocks: vec![j], combine }).collect()
}

/// Adds the round shapes of pipelined sends to `shapes` (each send is one
/// block; a rank sends at most one per round, so a round's busiest load is
/// its busiest receiver's: `k` messages and blocks, combined when reducing).
pub(super) fn tally(shapes: &mut Vec<(Vec<Load>, u64)>, sends: &[(u32, u32, u32)], combine: bool, counts: &mut [u64]) {
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

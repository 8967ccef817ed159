//! Collectives as GOAL schedules: the reduction family commlab draws (both
//! binomial labellings), the butterfly and the pipelined chain.
//!
//! A collective is a list of rounds of messages `(from, to, bytes)`. Each
//! rank's operations follow the rounds: a receive for every message it
//! takes, a send for every message it gives, and every send `requires` the
//! rank's receives of earlier rounds not yet required, and its previous send
//! (a rank forwards only what it has received; its sends keep their order). Receives need
//! nothing: posting is free in LogGOPS, and the sender's order decides.

use super::{Kind, Op, Schedule};
use crate::reduce::{Collective, CollectiveConfig, Schedule as Rounds};

/// A message of a round: sender, receiver, bytes.
pub type Message = (u32, u32, u64);

/// The rounds as a GOAL schedule on `ranks` ranks (rule in the module docs).
/// Built in two passes over the messages (count per rank, then place), so
/// memory is the schedule itself: no list per rank.
pub fn from_rounds(ranks: u32, rounds: &[Vec<Message>]) -> Schedule {
    from_round_fn(ranks, rounds.len(), |k, visit| rounds[k].iter().for_each(|&m| visit(m)))
}

/// [`from_rounds`] with round `k`'s messages given to `visit` by
/// `round(k, visit)`, each time in the same order: a plan's transfers become
/// ops without a list of messages between them (at p = 1024 a ring allreduce
/// is 2.1 million messages).
pub fn from_round_fn(ranks: u32, rounds: usize, round: impl Fn(usize, &mut dyn FnMut(Message))) -> Schedule {
    from_round_keyed(ranks, rounds, |k, visit| round(k, &mut |m| visit(m, 0, 0)))
}

/// [`from_round_fn`] with each message under a key and in a lane
/// (`round(k, visit)` gives `visit(message, key, lane)`): a send requires
/// its rank's receives **of its own key** from earlier rounds not yet
/// required, and its rank's previous send **of its own lane**. Messages that
/// carry the same data (a piece) share a key, so a rank forwards a piece as
/// soon as that piece has arrived, whatever else its round holds; a lane is
/// a sequence of sends kept in order (their NIC is the same: a lane of its
/// own NIC queue would let more messages share the link at once, which
/// slows a pipeline whose pieces then arrive together). NCCL's tree
/// runs this way: its two trees on channels of their own, its broadcast of a
/// piece overlapping the reduction of later ones (`choose::node_tree`).
/// With one key and one lane for every message this is the rule of the
/// module docs.
///
/// # Panics
/// With keys, when rounds × keys reach [`super::ANY`] (a message's tag is
/// `round · keys + key`).
pub fn from_round_keyed(
    ranks: u32,
    rounds: usize,
    round: impl Fn(usize, &mut dyn FnMut(Message, u32, u32)),
) -> Schedule {
    let n = ranks as usize;
    let mut count = vec![0u32; n + 1];
    let (mut keys_used, mut lanes_used) = (0u32, 0u32);
    for k in 0..rounds {
        round(k, &mut |(from, to, _), key, lane| {
            count[from as usize + 1] += 1;
            count[to as usize + 1] += 1;
            keys_used = keys_used.max(key.saturating_add(1));
            lanes_used = lanes_used.max(lane.saturating_add(1));
        });
    }
    for r in 0..n {
        count[r + 1] += count[r];
    }
    let total = count[n] as usize;
    // The ops go straight into the schedule's array, rank by rank (the
    // counts are its `first`); an op's tag is its round, which the
    // dependencies read. Keys and lanes are kept only where some are not 0.
    let blank = Op { kind: Kind::Calc, size: 0, peer: 0, tag: 0, cpu: 0, nic: 0, rank: 0 };
    let mut s = Schedule { ops: vec![blank; total], first: count.clone(), ..Schedule::default() };
    let keyed = keys_used > 1 || lanes_used > 1;
    assert!(
        !keyed || (rounds as u64) * u64::from(keys_used) < u64::from(super::ANY),
        "{rounds} rounds of {keys_used} keys: more tags than a GOAL tag holds"
    );
    let mut marks: Vec<(u32, u32)> = if keyed { vec![(0, 0); total] } else { Vec::new() };
    let mut fill = count;
    for k in 0..rounds {
        // A message's tag is its round, with its key below where there are
        // keys: two messages of a round between the same ranks (two pieces)
        // are told apart whichever starts first.
        let tag = |key: u32| if keyed { k as u32 * keys_used + key } else { k as u32 };
        // Receives of a round before its sends: a butterfly partner posts, then sends.
        round(k, &mut |(from, to, bytes), key, lane| {
            let tag = tag(key);
            let at = fill[to as usize] as usize;
            s.ops[at] = Op { kind: Kind::Recv, size: bytes, peer: from, tag, cpu: 0, nic: 0, rank: to };
            if keyed {
                marks[at] = (key, lane);
            }
            fill[to as usize] += 1;
        });
        round(k, &mut |(from, to, bytes), key, lane| {
            let tag = tag(key);
            let at = fill[from as usize] as usize;
            s.ops[at] = Op { kind: Kind::Send, size: bytes, peer: to, tag, cpu: 0, nic: 0, rank: from };
            if keyed {
                marks[at] = (key, lane);
            }
            fill[from as usize] += 1;
        });
    }
    drop(fill);
    // Per key, the receives not yet required by a send, with their tag: a
    // send needs those of earlier rounds (its own round's arrive from its
    // partner; within a key, tags are in round order). A rank's ops are in
    // round order, so `pending[key][start..]` is too: the receives a send
    // needs are a prefix of it. (Scanning the whole list at every send made
    // a one-round all-to-all p³.) Most sends need one receive and the
    // previous send.
    s.deps.reserve(total);
    let mut pending: Vec<Vec<(u32, u32)>> = vec![Vec::new(); keys_used.max(1) as usize];
    let mut start = vec![0usize; pending.len()];
    let mut last_send: Vec<Option<u32>> = vec![None; lanes_used.max(1) as usize];
    for r in 0..n {
        pending.iter_mut().for_each(Vec::clear);
        start.fill(0);
        last_send.fill(None);
        for i in s.first[r]..s.first[r + 1] {
            let op = s.ops[i as usize];
            let (key, lane) = if keyed { marks[i as usize] } else { (0, 0) };
            let (key, lane) = (key as usize, lane as usize);
            if op.kind == Kind::Recv {
                pending[key].push((i, op.tag));
            } else {
                while let Some(&(recv, _)) = pending[key].get(start[key]).filter(|&&(_, k)| k < op.tag) {
                    s.deps.push((i, recv, false));
                    start[key] += 1;
                }
                if let Some(prev) = last_send[lane] {
                    s.deps.push((i, prev, false));
                }
                last_send[lane] = Some(i);
            }
        }
    }
    s.close(ranks);
    s
}

/// commlab's reduction-family schedule (LCT labelling: the parent clears the
/// lowest set bit) with `bytes` per message (`bytes / m` per piece for the
/// pipeline, the last piece taking the rest); virtual units are left out.
pub fn from_reduce(schedule: &Rounds, bytes: u64) -> Schedule {
    let m = u64::from(schedule.pieces.max(1));
    let piece = |j: u32| bytes / m + u64::from(u64::from(j) == m - 1) * (bytes % m);
    let rounds: Vec<Vec<Message>> = schedule
        .rounds
        .iter()
        .map(|r| {
            r.messages
                .iter()
                .filter(|msg| msg.from < schedule.units && msg.to < schedule.units)
                .map(|msg| (msg.from, msg.to, piece(msg.piece)))
                .collect()
        })
        .collect();
    from_rounds(schedule.units, &rounds)
}

/// The binomial tree of the BST labelling (the parent clears the highest set
/// bit), as LogGOPSim's Schedgen draws it: for each bit `b` from the highest
/// down, ranks `2^b ≤ i < 2^(b+1)` send to `i − 2^b` (reduce); broadcast is
/// the reverse.
pub fn bst_rounds(ranks: u32, bytes: u64, broadcast: bool) -> Vec<Vec<Message>> {
    let bits = if ranks <= 1 { 0 } else { (ranks - 1).ilog2() + 1 };
    let mut rounds: Vec<Vec<Message>> = (0..bits)
        .rev()
        .map(|b| {
            let step = 1u32 << b;
            (step..(2 * step).min(ranks))
                .map(|i| if broadcast { (i - step, i, bytes) } else { (i, i - step, bytes) })
                .collect()
        })
        .collect();
    if broadcast {
        rounds.reverse();
    }
    rounds
}

/// The dissemination barrier's pattern (fault-free): in round `k` every rank
/// `i` sends to `(i + 2^k) mod p`, for `⌈log₂ p⌉` rounds; Schedgen's
/// `dissemination`.
pub fn dissemination_rounds(ranks: u32, bytes: u64) -> Vec<Vec<Message>> {
    let rounds = if ranks <= 1 { 0 } else { (ranks - 1).ilog2() + 1 };
    (0..rounds).map(|k| (0..ranks).map(|i| (i, (i + (1 << k)) % ranks, bytes)).collect()).collect()
}

/// A collective by id: `reduce`, `broadcast`, `allreduce`, `allreduce-butterfly`
/// (commlab's LCT trees), `reduce-bst`, `broadcast-bst`, `allreduce-bst`,
/// `dissemination` (the barrier's pattern), or `pipeline` (the chain with
/// `pieces` pieces).
///
/// # Errors
/// An unknown id, or `p` / `pieces` outside the reduction views' limits.
pub fn collective(id: &str, ranks: u64, bytes: u64, pieces: u64) -> Result<Schedule, String> {
    let units = u32::try_from(ranks).map_err(|_| format!("p = {ranks} is too large"))?;
    let bst = |broadcast| bst_rounds(units, bytes, broadcast);
    match id {
        "reduce-bst" => Ok(from_rounds(units, &bst(false))),
        "broadcast-bst" => Ok(from_rounds(units, &bst(true))),
        "allreduce-bst" => Ok(from_rounds(units, &[bst(false), bst(true)].concat())),
        "dissemination" => Ok(from_rounds(units, &dissemination_rounds(units, bytes))),
        "pipeline" => {
            let s = Rounds::pipeline(ranks, pieces).map_err(|e| e.to_string())?;
            Ok(from_reduce(&s, bytes))
        }
        _ => {
            let c: Collective = id.parse().map_err(|_| {
                format!("unknown collective {id:?}; expected one of: reduce, broadcast, allreduce, allreduce-butterfly, reduce-bst, broadcast-bst, allreduce-bst, dissemination, pipeline")
            })?;
            let config = CollectiveConfig::new(c, ranks, false).map_err(|e| e.to_string())?;
            Ok(from_reduce(&Rounds::collective(&config), bytes))
        }
    }
}

/// Schedules run side by side as channels (NCCL's channels: the data split
/// into parts, each part its own ring or tree on its own NIC). Channel `c`
/// is `parts[c].0` with its rank `v` renamed `parts[c].1[v]`; its sends go on
/// NIC `c` and its ops on CPU `c` (a channel is a thread block of its own);
/// its tags come after the previous channels' (a message of one channel never
/// meets a receive of another). A rank's ops are its channels' in channel
/// order; dependencies stay inside a channel.
///
/// # Panics
/// When a part's ranks differ from `ranks` or a renaming is not a
/// permutation of `0..ranks`, or more than [`super::MAX_UNIT`] + 1 channels.
pub fn channels(ranks: u32, parts: &[(Schedule, Vec<u32>)]) -> Schedule {
    assert!(parts.len() <= usize::from(super::MAX_UNIT) + 1, "at most 255 channels");
    let n = ranks as usize;
    // Per channel, the part's rank that runs on each real rank.
    let inverse: Vec<Vec<u32>> = parts
        .iter()
        .map(|(s, order)| {
            assert_eq!(s.ranks(), ranks, "a channel's schedule has every rank");
            let mut inv = vec![u32::MAX; n];
            for (v, &r) in order.iter().enumerate() {
                inv[r as usize] = v as u32;
            }
            assert!(inv.iter().all(|&v| v != u32::MAX), "a channel's order is a permutation");
            inv
        })
        .collect();
    let mut offsets = Vec::with_capacity(parts.len());
    let mut next_tag = 0u32;
    for (s, _) in parts {
        offsets.push(next_tag);
        next_tag += s.ops.iter().filter(|o| o.tag != super::ANY).map(|o| o.tag + 1).max().unwrap_or(0);
    }
    // A part's sends may use several NICs (a switch's ports): channel c's
    // NIC k is c·nics + k (wrapping past the largest index: windows then
    // shared by two channels).
    let nics = parts
        .iter()
        .flat_map(|(s, _)| s.ops.iter().filter(|o| o.kind == Kind::Send).map(|o| u32::from(o.nic) + 1))
        .max()
        .unwrap_or(1);
    let mut out = Schedule::default();
    let mut index: Vec<Vec<u32>> = parts.iter().map(|(s, _)| vec![0; s.ops.len()]).collect();
    for r in 0..ranks {
        for (c, (s, order)) in parts.iter().enumerate() {
            let v = inverse[c][r as usize];
            for i in s.range(v) {
                let op = s.ops[i];
                let peer =
                    if op.kind == Kind::Calc || op.peer == super::ANY { op.peer } else { order[op.peer as usize] };
                let tag = if op.kind == Kind::Calc || op.tag == super::ANY { op.tag } else { op.tag + offsets[c] };
                let unit = c as u8;
                let nic = if op.kind == Kind::Send {
                    ((c as u32 * nics + u32::from(op.nic)) % (u32::from(super::MAX_UNIT) + 1)) as u8
                } else {
                    0
                };
                index[c][i] = out.push(r, Op { peer, tag, cpu: unit, nic, ..op }, "");
            }
        }
    }
    out.close(ranks);
    for (c, (s, _)) in parts.iter().enumerate() {
        for &(d, p, on) in &s.deps {
            out.deps.push((index[c][d as usize], index[c][p as usize], on));
        }
    }
    out
}

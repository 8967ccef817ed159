//! The collective chooser's core (issue 14): algorithms of six collectives
//! as [`plan::Plan`]s (rounds of block transfers), checked by value replay,
//! costed under α–β–γ, and written as GOAL for the LogGOPS simulator.

pub mod algorithms;
mod pipelined;
pub mod plan;
pub mod registry;
mod trees;

pub use algorithms::{node_tree, nvls, plan, ring_quotient};
pub use pipelined::{pipelined_profile, pipelined_profiles};
pub use plan::{block_bytes, AlphaBeta, Collective, Cost, Load, Plan, Profile, Transfer};
pub use registry::{of, Algorithm, ALGORITHMS};
pub use trees::{nccl_double_tree, nccl_node_trees, NodeTree};

/// The plan as a GOAL schedule with a vector of `n` bytes (rounds in order,
/// see `goal::generate::from_rounds`). A transfer of less than one byte
/// (more blocks than bytes) is sent as a 1-byte message: a message still
/// starts, and LogGOPS's `(s − 1)·G` wraps around for `s = 0` in LogGOPSim's
/// unsigned arithmetic, which the simulator reproduces (`docs/loggops.md`).
pub fn goal(plan: &Plan, n: u64) -> crate::goal::Schedule {
    let rounds = plan.rounds.len();
    if plan.overlap {
        // Each piece under its own key; a lane per tree (pieces alternate
        // between the two) and phase (combining or not).
        let mut s = crate::goal::generate::from_round_keyed(plan.ranks, rounds, |k, visit| {
            for (i, t) in plan.rounds[k].iter().enumerate() {
                let piece = t.blocks.first().copied().unwrap_or(0);
                let lane = plan.lanes.get(k).map_or(2 * (piece % 2) + u32::from(!t.combine), |l| l[i]);
                visit((t.from, t.to, plan.transfer_bytes(t, n).max(1)), piece, lane);
            }
        });
        switch_ports(plan, &mut s);
        return s;
    }
    crate::goal::generate::from_round_fn(plan.ranks, rounds, |k, visit| {
        for t in &plan.rounds[k] {
            visit((t.from, t.to, plan.transfer_bytes(t, n).max(1)));
        }
    })
}

/// Steps NCCL keeps in flight on one connection (`NCCL_STEPS`).
pub const STEPS: u32 = 8;

/// A plan with switch ranks (NVLS) on NICs as NCCL's kernel runs it, run
/// with a NIC window of 1 (`docs/network.md`, NVLS): each stream on NICs of
/// its own so that none waits behind another's queue. A switch sends to
/// each GPU on its port (`nic` = the GPU's index in its node); a GPU sends
/// its parts on NIC 0 and its `st` on NIC 1, one chunk at a time each, and
/// to other GPUs (the tree of nodes, over the network) on NICs 2 to 9 in
/// turn: NCCL's 8 steps in flight on a network connection. On the keyed
/// GOAL (an op's tag is `round · keys + key`, its key the block) a block's
/// first send from a GPU to its switch is its part, the second its `st`.
fn switch_ports(plan: &Plan, s: &mut crate::goal::Schedule) {
    use crate::goal::Kind;
    if plan.switches == 0 {
        return;
    }
    let gpus = plan.ranks - plan.switches;
    let g = gpus.div_ceil(plan.switches).max(1);
    let keys = plan.blocks.max(1);
    for r in 0..plan.ranks {
        let mut sent = std::collections::HashSet::new();
        let mut network = 0u32;
        for i in s.range(r) {
            let op = &mut s.ops[i];
            if op.kind != Kind::Send {
                continue;
            }
            op.nic = if r >= gpus {
                (op.peer % g).min(u32::from(u8::MAX)) as u8
            } else if op.peer < gpus {
                network += 1;
                (2 + network % STEPS) as u8
            } else {
                // The part first (NIC 0), then the `st` (NIC 1).
                u8::from(!sent.insert(op.tag % keys))
            };
        }
    }
}

/// The plan run as `orders.len()` channels (NCCL's): the `n` bytes split
/// into that many parts (as blocks: the first `n mod C` one byte larger),
/// channel `c` the plan on part `c` with its rank `v` on rank `orders[c][v]`,
/// its sends on NIC `c` (`goal::generate::channels`). One channel with the
/// identity order is [`goal`] itself.
pub fn goal_channels(plan: &Plan, n: u64, orders: &[Vec<u32>]) -> crate::goal::Schedule {
    let c = orders.len() as u32;
    if c <= 1 && orders.first().is_none_or(|o| o.iter().enumerate().all(|(v, &r)| v as u32 == r)) {
        return goal(plan, n);
    }
    let parts: Vec<_> =
        orders.iter().enumerate().map(|(k, order)| (goal(plan, block_bytes(n, c, k as u32)), order.clone())).collect();
    crate::goal::generate::channels(plan.ranks, &parts)
}

/// The chain's closed-form best piece count, real-valued: d/dm of
/// `(p + m − 2)(α + n/m·β′)` is 0 at `m* = √((p − 2)·n·β′/α)`, with
/// `β′ = β` for a broadcast, `β + γ` for a reduce (each hop combines), and
/// `β + γ/2` for allreduce's chain up then down, whose time is
/// `(p + m − 2)(2α + n/m·(2β + γ))`. `None` for any other algorithm, or
/// where the formula has no optimum (`α = 0`, `p < 2`).
pub fn chain_optimum(collective: Collective, id: &str, p: u32, n: u64, ab: AlphaBeta) -> Option<f64> {
    let beta = match (collective, id) {
        (Collective::Reduce, "chain") => ab.beta + ab.gamma,
        (Collective::Allreduce, "chain-up-down") => ab.beta + ab.gamma / 2.0,
        (Collective::Broadcast, "chain") => ab.beta,
        _ => return None,
    };
    (ab.alpha > 0.0 && p >= 2).then(|| ((f64::from(p) - 2.0) * n as f64 * beta / ab.alpha).sqrt())
}

#[cfg(test)]
mod chain_optimum_tests {
    use super::{chain_optimum, AlphaBeta, Collective};

    /// m* minimizes the chain's closed-form time: a step of 1 % either way costs more.
    #[test]
    fn the_chain_optimum_minimizes_its_time() {
        let ab = AlphaBeta { alpha: 3.0, beta: 0.002, gamma: 0.001 };
        for (collective, id, beta, per_hop) in [
            (Collective::Broadcast, "chain", ab.beta, 1.0),
            (Collective::Reduce, "chain", ab.beta + ab.gamma, 1.0),
            (Collective::Allreduce, "chain-up-down", ab.beta + ab.gamma / 2.0, 2.0),
        ] {
            for (p, n) in [(8u32, 1u64 << 20), (64, 1 << 30), (3, 4096)] {
                let time = |m: f64| (f64::from(p) + m - 2.0) * per_hop * (ab.alpha + n as f64 / m * beta);
                let m = chain_optimum(collective, id, p, n, ab).unwrap();
                assert!(
                    time(m) < time(m * 1.01) && time(m) < time(m * 0.99),
                    "{collective} {id} p={p} n={n}: m* = {m}"
                );
            }
        }
        assert_eq!(chain_optimum(Collective::Allreduce, "ring", 8, 1024, ab), None);
        assert_eq!(chain_optimum(Collective::Broadcast, "chain", 1, 1024, ab), None);
    }
}

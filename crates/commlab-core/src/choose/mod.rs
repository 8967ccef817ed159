//! The collective chooser's core (issue 14): algorithms of six collectives
//! as [`plan::Plan`]s (rounds of block transfers), checked by value replay,
//! costed under α–β–γ, and written as GOAL for the LogGOPS simulator.

pub mod algorithms;
mod pipelined;
pub mod plan;
pub mod registry;
mod trees;

pub use algorithms::{node_tree, plan};
pub use pipelined::{pipelined_profile, pipelined_profiles};
pub use plan::{block_bytes, AlphaBeta, Collective, Cost, Load, Plan, Profile, Transfer};
pub use registry::{of, Algorithm, ALGORITHMS};

/// The plan as a GOAL schedule with a vector of `n` bytes (rounds in order,
/// see `goal::generate::from_rounds`). A transfer of less than one byte
/// (more blocks than bytes) is sent as a 1-byte message: a message still
/// starts, and LogGOPS's `(s − 1)·G` wraps around for `s = 0` in LogGOPSim's
/// unsigned arithmetic, which the simulator reproduces (`docs/loggops.md`).
pub fn goal(plan: &Plan, n: u64) -> crate::goal::Schedule {
    crate::goal::generate::from_round_fn(plan.ranks, plan.rounds.len(), |k, visit| {
        for t in &plan.rounds[k] {
            visit((t.from, t.to, plan.transfer_bytes(t, n).max(1)));
        }
    })
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

//! The collective chooser's core (issue 14): algorithms of six collectives
//! as [`plan::Plan`]s (rounds of block transfers), checked by value replay,
//! costed under α–β–γ, and written as GOAL for the LogGOPS simulator.

pub mod algorithms;
pub mod plan;

pub use algorithms::{of, pipelined_profile, plan, Algorithm, ALGORITHMS};
pub use plan::{block_bytes, AlphaBeta, Collective, Cost, Load, Plan, Profile, Transfer};

/// The plan as a GOAL schedule with a vector of `n` bytes (rounds in order,
/// see `goal::generate::from_rounds`).
pub fn goal(plan: &Plan, n: u64) -> crate::goal::Schedule {
    crate::goal::generate::from_rounds(plan.ranks, &plan.messages(n))
}

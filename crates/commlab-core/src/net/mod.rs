//! Schedules on a network (`docs/network.md`): topologies and their routes,
//! broken links, flows sharing links max–min fairly, and the network mode of
//! the GOAL simulator.

mod layout;
pub mod maxmin;
pub mod sim;
pub mod topology;

pub use sim::{simulate, NetOutcome, NetParams, NetSimulation, Prepared};
pub use topology::{LinkClass, Network, Placement, Shape};

#[cfg(test)]
mod tests;

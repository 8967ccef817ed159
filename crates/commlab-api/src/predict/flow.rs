//! The flow engine on a plan: the plan as a GOAL schedule on the System's
//! network (one channel per rail; a ring over many nodes as the ring of
//! its first two, NVLS's alike channels as one), run event by event, and
//! its band over the System's values moved by ±0.5 %.

use super::{Planned, Scales};
use crate::ApiError;
use commlab_core::choose::{block_bytes, goal_channels, node_tree, nvls, plan};
use commlab_core::libraries::nccl::Schedule;
use commlab_core::limits;
use commlab_core::net::topology::LinkClass;
use commlab_core::net::{NetParams, Network, Placement, Shape};
use commlab_core::systems::NCCL_STEPS;

/// The flow engine's band: a run's finish (ns) over the system's values
/// moved by ±0.5 % one at a time ([`Planned::band`]).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Band {
    /// The mean of the runs.
    pub mean: f64,
    /// The fastest.
    pub min: f64,
    /// The slowest.
    pub max: f64,
    /// Runs.
    pub runs: u32,
}

/// The values a band moves: the preset, then `NVLink`, the NICs and NCCL's
/// costs each 0.5 % up and down.
pub const BAND_SCALES: [Scales; 7] = {
    const U: f64 = 1.005;
    const D: f64 = 0.995;
    [
        Scales::NOMINAL,
        Scales { inter: 1.0, intra: U, latency: 1.0 },
        Scales { inter: 1.0, intra: D, latency: 1.0 },
        Scales { inter: U, intra: 1.0, latency: 1.0 },
        Scales { inter: D, intra: 1.0, latency: 1.0 },
        Scales { inter: 1.0, intra: 1.0, latency: U },
        Scales { inter: 1.0, intra: 1.0, latency: D },
    ]
};

/// A [`Planned`] run made ready to simulate again and again: its GOAL
/// schedule and its network's shape ([`Planned::prepare`]).
#[derive(Debug, Clone)]
pub struct Prepared {
    schedule: commlab_core::goal::Schedule,
    shape: Shape,
    /// Identical channels the schedule stands for, each link's bandwidth
    /// shared by as many ([`Planned::prepare`], NVLS).
    copies: u32,
}

impl Planned {
    /// The run on its network as described: the last rank's finish (ns)
    /// and the network's outcome.
    ///
    /// # Errors
    /// A shape or schedule the network refuses.
    pub fn simulate(&self) -> Result<(f64, Option<(Network, commlab_core::net::NetOutcome)>), ApiError> {
        match self.prepare()? {
            None => Ok((0.0, None)),
            Some(prepared) => self.run(&prepared, Scales::NOMINAL).map(|(t, net, out)| (t, Some((net, out)))),
        }
    }

    /// Its schedule and shape (`None` for one rank: nothing moves).
    ///
    /// # Errors
    /// A shape or schedule the network refuses.
    pub fn prepare(&self) -> Result<Option<Prepared>, ApiError> {
        if self.p <= 1 {
            return Ok(None);
        }
        let (collective, shape) = (self.collective, self.shape);
        let hosts = shape.hosts();
        if !limits::net::HOSTS.contains(hosts) {
            return Err(ApiError::problem(
                "network",
                format!("\"{shape}\" has {hosts} hosts: expected {}", limits::net::HOSTS),
            ));
        }
        if let Some(quotient) = self.ring_quotient() {
            return Ok(Some(quotient));
        }
        let plan = match (self.schedule, shape) {
            (Schedule::Tree, Shape::Nodes { g, .. }) => node_tree(self.p, g, self.pieces),
            (Schedule::Nvls, Shape::Nodes { g, .. }) => nvls(collective, self.p, g, self.pieces),
            (other, _) => plan(collective, other.id(), self.p, self.pieces),
        }
        .map_err(|e| ApiError::problem("collective", e))?;
        if plan.switches > 0 {
            // NVLS: every channel has every GPU head a slice, the switches
            // after the GPUs, so the channels are alike: the same messages on
            // the same routes from the same instants. Each link carries one
            // copy of every message per channel, shared max–min, so one
            // channel on links of 1/C the bandwidth runs exactly as C do (the
            // same times where the channels' parts are the same size; the
            // first `wire mod C` are a byte larger), with 1/C of the messages.
            let n = block_bytes(self.wire, self.channels, 0);
            let schedule = goal_channels(&plan, n, &[(0..plan.ranks).collect()]);
            return Ok(Some(Prepared { schedule, shape, copies: self.channels.max(1) }));
        }
        let orders: Vec<Vec<u32>> = (0..self.channels).map(|c| shape.channel_order(self.p, c)).collect();
        Ok(Some(Prepared { schedule: goal_channels(&plan, self.wire, &orders), shape, copies: 1 }))
    }

    /// A ring over more than two nodes as the ring of its first two nodes
    /// with all its rounds and blocks (`choose::ring_quotient`): every node
    /// is alike (same GPUs, links and NICs; every channel enters each node
    /// at the same GPU), and every rank starts at 0, so the run repeats
    /// from node to node and the two-node ring closed on itself runs exactly
    /// as the whole one (the same times to the last bit where the blocks
    /// are the same size; else within a byte per message). `nodes`/`N` × fewer
    /// messages: a ring over 128 nodes costs what one over 2 does per round.
    fn ring_quotient(&self) -> Option<Prepared> {
        let Shape::Nodes { n, g, r } = self.shape else { return None };
        if self.schedule != Schedule::Ring || n <= 2 || u64::from(self.p) != u64::from(n) * u64::from(g) {
            return None;
        }
        let plan = commlab_core::choose::ring_quotient(self.collective, self.p, 2 * g)?;
        let two = Shape::Nodes { n: 2, g, r };
        let orders: Vec<Vec<u32>> = (0..self.channels).map(|c| two.channel_order(2 * g, c)).collect();
        Some(Prepared { schedule: goal_channels(&plan, self.wire, &orders), shape: two, copies: 1 })
    }

    /// The prepared run on its network with the preset's values scaled:
    /// the last rank's finish (ns), the network and its outcome.
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn run(
        &self,
        prepared: &Prepared,
        s: Scales,
    ) -> Result<(f64, Network, commlab_core::net::NetOutcome), ApiError> {
        let class = |k: usize, scale: f64| LinkClass {
            bandwidth: self.classes[k].0 * scale / f64::from(prepared.copies),
            latency: self.classes[k].1 + self.steps[k] * s.latency,
        };
        let net = Network::new(prepared.shape, [class(0, s.intra), class(1, s.inter)])?;
        let out = commlab_core::net::simulate(
            &prepared.schedule,
            net.clone(),
            Placement::Identity,
            NetParams { window: self.window(), ..NetParams::default() },
            false,
        )?;
        Ok((out.max().0, net, out))
    }

    /// The flow engine's band: the prepared run with each of [`BAND_SCALES`].
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn band(&self, prepared: &Prepared) -> Result<Band, ApiError> {
        let mut times = Vec::with_capacity(BAND_SCALES.len());
        for s in BAND_SCALES {
            times.push(self.run(prepared, s)?.0);
        }
        Ok(Band {
            mean: times.iter().sum::<f64>() / times.len() as f64,
            min: times.iter().copied().fold(f64::INFINITY, f64::min),
            max: times.iter().copied().fold(0.0, f64::max),
            runs: times.len() as u32,
        })
    }

    /// The call's time by the flow engine (ns, with NCCL's per-call cost):
    /// its band over [`BAND_SCALES`] where it is one value of a band
    /// ([`Planned::coupled`]), else its one run (min = max = mean, 1 run).
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn flow_band(&self) -> Result<Band, ApiError> {
        let base = self.base_us * 1000.0;
        let Some(prepared) = self.prepare()? else {
            return Ok(Band { mean: 0.0, min: 0.0, max: 0.0, runs: 1 });
        };
        if self.coupled() {
            let b = self.band(&prepared)?;
            return Ok(Band { mean: b.mean + base, min: b.min + base, max: b.max + base, runs: b.runs });
        }
        let t = self.run(&prepared, Scales::NOMINAL)?.0 + base;
        Ok(Band { mean: t, min: t, max: t, runs: 1 })
    }

    /// The call's time (ns) with the preset's values scaled: the run plus
    /// NCCL's per-call cost (`prepared`: [`Planned::prepare`]'s).
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn time_ns(&self, prepared: Option<&Prepared>, s: Scales) -> Result<f64, ApiError> {
        match prepared {
            None => Ok(0.0),
            Some(prepared) => Ok(self.run(prepared, s)?.0 + self.base_us * 1000.0 * s.latency),
        }
    }
}

impl Planned {
    /// Messages a (rank, NIC) keeps in flight: NCCL's steps of one
    /// connection; NVLS's streams over `NVLink` (a GPU's parts, its `st`, a
    /// switch port's returns and copies) move one chunk at a time each, as
    /// one warp group issues its multimem operations in order, and its
    /// network connections take 8 NICs in turn (`choose::goal`; `docs/network.md`, NVLS).
    pub fn window(&self) -> u32 {
        if self.schedule == Schedule::Nvls {
            1
        } else {
            NCCL_STEPS
        }
    }

    /// Whether the simulated time is one value of a band about 6 % wide
    /// rather than a smooth function of the system (`docs/systems.md`,
    /// "Fitting a system"): a ring over several channels, whose flows share
    /// links max–min and amplify any small lead step by step.
    pub fn coupled(&self) -> bool {
        self.schedule == Schedule::Ring && self.channels > 1
    }
}

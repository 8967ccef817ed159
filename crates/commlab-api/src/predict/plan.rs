//! NCCL's pick made a plan: what NCCL's model runs at a size on a System
//! (its algorithm, protocol and channels), the schedule of ours that runs it
//! ([`Schedule::of`], the one map), and the values the engines need (the
//! wire's bytes at the protocol's share, pieces, NCCL's step and call costs).

use commlab_core::choose::Collective;
use commlab_core::libraries::nccl::{self, Algorithm, Protocol, Schedule};
use commlab_core::net::Shape;
use commlab_core::systems::{self, MAX_PIECES};

use crate::system::System;
use crate::ApiError;

/// One size's run as NCCL's model decides it, ready for the network: what
/// the Chooser's page decides (the model lives there) and its engine worker
/// simulates ([`Planned::simulate`]; the worker does not carry the model).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Planned {
    /// nccl-tests' size column.
    pub bytes: u64,
    /// The collective.
    #[serde(with = "crate::wire::as_text")]
    pub collective: Collective,
    /// The network's shape (`nodes:NxGxR`).
    #[serde(with = "crate::wire::any_shape")]
    pub shape: Shape,
    /// Its two link classes: bandwidth (B/ns) and the link's own latency (ns).
    pub classes: [(f64, f64); 2],
    /// NCCL's per-step cost added to each link of a class (ns; half a step
    /// per link, as a route crosses two).
    pub steps: [f64; 2],
    /// The schedule of ours that runs: NCCL's algorithm's
    /// ([`Schedule::of`]), or the ring where it has none ([`Planned::note`]).
    #[serde(with = "crate::wire::as_text")]
    pub schedule: Schedule,
    /// Ranks.
    pub p: u32,
    /// Pieces per channel.
    pub pieces: u32,
    /// Bytes on the wire (the protocol's line share).
    pub wire: u64,
    /// Channels.
    pub channels: u32,
    /// NCCL's base latency added once per call, µs.
    pub base_us: f64,
    /// NCCL's algorithm (`None`: all-to-all, grouped point-to-point sends).
    #[serde(with = "p2p")]
    pub algorithm: Option<Algorithm>,
    /// Its protocol.
    #[serde(with = "crate::wire::as_text")]
    pub protocol: Protocol,
}

/// NCCL's algorithm as its name, `p2p` for none (all-to-all).
mod p2p {
    use commlab_core::libraries::nccl::Algorithm;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    #[allow(clippy::ref_option, clippy::trivially_copy_pass_by_ref, reason = "serde's `with` signature")]
    pub fn serialize<S: Serializer>(a: &Option<Algorithm>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(super::algorithm_id(*a))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Algorithm>, D::Error> {
        let text = String::deserialize(d)?;
        if text == "p2p" {
            return Ok(None);
        }
        text.parse().map(Some).map_err(D::Error::custom)
    }
}

/// NCCL's algorithm's name, `p2p` for all-to-all's point-to-point sends.
pub fn algorithm_id(algorithm: Option<Algorithm>) -> &'static str {
    algorithm.map_or("p2p", Algorithm::id)
}

/// Why the ring runs where NCCL's algorithm has no schedule of ours.
const NOT_SIMULATED: &str = "this algorithm is not simulated on the network: the ring runs instead";

impl Planned {
    /// NCCL's pick and its channels: `ring/ll128, 8 channels`.
    pub fn pick(&self) -> String {
        format!(
            "{}/{}, {}",
            algorithm_id(self.algorithm),
            self.protocol,
            commlab_plot::count(u64::from(self.channels), "channel", "channels")
        )
    }

    /// Why the schedule that runs is not NCCL's algorithm, where it is not.
    pub fn note(&self) -> Option<&'static str> {
        Schedule::of(self.collective, self.algorithm).is_none().then_some(NOT_SIMULATED)
    }
}

/// Factors on a preset's physical values (1: the preset as described),
/// what a measured run is fitted with (`crate::sysfit`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scales {
    /// On the NIC–rail links' bandwidth.
    pub inter: f64,
    /// On the `NVLink` links' bandwidth.
    pub intra: f64,
    /// On NCCL's fixed costs: its per-step and per-call latencies.
    pub latency: f64,
}

impl Scales {
    /// The preset as described.
    pub const NOMINAL: Scales = Scales { inter: 1.0, intra: 1.0, latency: 1.0 };
}

/// Whether NCCL's `algorithm` runs on the network as itself (not as a ring
/// in its place).
pub fn simulable(collective: Collective, algorithm: Algorithm) -> bool {
    Schedule::of(collective, Some(algorithm)).is_some()
}

/// What NCCL would run at `bytes` on `system`, planned for the network,
/// with NCCL's own estimate (µs; none for all-to-all).
///
/// # Errors
/// Field `env`: NCCL's settings leave NCCL no algorithm and protocol for
/// the collective on this System (NCCL fails the call).
pub(super) fn decide(system: &System, collective: Collective, bytes: u64) -> Result<(Planned, Option<f64>), ApiError> {
    let model = nccl::predict(&system.nccl(), collective, bytes);
    let (algorithm, protocol) = match &model {
        Some(m) => {
            let (a, p) = m.choice();
            (Some(a), p)
        }
        None if collective == Collective::AllToAll => (None, Protocol::Simple),
        None => {
            return Err(ApiError::problem(
                "env",
                format!(
                    "{} leaves {} no algorithm and protocol it can run for {collective} on this System (NCCL fails such a call){}",
                    system.settings.text(),
                    system.version.label(),
                    if system.version == nccl::Version::V2_22 { "; NCCL 2.22 ignores a name it does not know" } else { "" }
                ),
            ))
        }
    };
    Ok((plan_as(system, collective, bytes, algorithm, protocol), model.map(|m| f64::from(m.pick.2))))
}

/// NCCL's `algorithm` with `protocol` at `bytes` on `system`, planned for
/// the network (the ring in its place where it has no schedule of ours).
pub fn plan_as(
    system: &System,
    collective: Collective,
    bytes: u64,
    algorithm: Option<Algorithm>,
    protocol: Protocol,
) -> Planned {
    let (preset, nodes, v) = (&system.preset, system.nodes, system.version);
    let p = preset.ranks(nodes);
    let own = Schedule::of(collective, algorithm);
    let schedule = own.unwrap_or_else(|| Schedule::of(collective, Some(Algorithm::Ring)).unwrap_or(Schedule::Ring));
    if let (Schedule::Nvls, Some(nvls)) = (schedule, algorithm) {
        return plan_nvls(system, collective, bytes, nvls);
    }
    // The step costs of the schedule that runs: the tree's row for trees,
    // the ring's for rings, chains and point-to-point.
    let row_of = if schedule == Schedule::Tree { Algorithm::Tree } else { Algorithm::Ring };
    let costs = if own.is_none() { Protocol::Simple } else { protocol };
    let hw = |network| if network { nccl::Hw::Net } else { preset.intra_hw() };
    let step = |network| f64::from(nccl::step_latency(v, hw(network), row_of, costs)) * 1000.0;
    let net_step =
        systems::Plugin::step(preset.plugin.as_ref(), step(true) / 1000.0, costs == Protocol::Simple) * 1000.0;
    let base = f64::from(nccl::base_latency(v, row_of, costs));
    let [intra, inter] = preset.classes();
    // NCCL's model charges every step of a ring that spans nodes its
    // network step cost (the ring moves at its slowest hop's pace); its tree
    // charges the chain's hops inside a node the NVLink cost.
    let ring_paced = nodes > 1 && row_of == Algorithm::Ring;
    let channels = system.channels();
    // The payload rate NCCL's model gives the protocol, as a share of
    // Simple's; the line share where its model has no such pair.
    let shared = if own.is_some() { algorithm.unwrap_or(Algorithm::Ring) } else { Algorithm::Ring };
    let line_share = nccl::protocol_share(&system.nccl(), collective, shared, costs)
        .unwrap_or_else(|| systems::protocol_share(costs));
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a size over a share of at least 1/2")]
    let wire = (bytes as f64 / line_share).ceil() as u64;
    let per_channel = wire.div_ceil(u64::from(channels));
    let chunk = if schedule == Schedule::Tree {
        // NCCL's tree: a chain of the node's GPUs under the tree of nodes.
        let depth = preset.gpus + nodes.next_power_of_two().ilog2();
        systems::tree_chunk(costs, per_channel, depth, nodes, preset.gpus, system.simple_step())
    } else {
        system.simple_step()
    };
    let pieces = if schedule.pipelined() { per_channel.div_ceil(chunk).clamp(1, MAX_PIECES) as u32 } else { 1 };
    Planned {
        bytes,
        collective,
        shape: preset.shape(nodes),
        classes: [(intra.bandwidth, intra.latency), (inter.bandwidth, inter.latency)],
        steps: [step(ring_paced) / 2.0, net_step / 2.0],
        schedule,
        p,
        pieces,
        wire,
        channels,
        base_us: if p <= 1 { 0.0 } else { base },
        algorithm,
        protocol,
    }
}

/// NCCL's NVLS (one node) or NVLS tree (several) at `bytes` on `system`,
/// planned for the network (`choose::nvls`: a rank on each node's switch):
/// NCCL's NVLS channels, its chunks per slice
/// ([`systems::nvls_call_chunk`]), the payload at NCCL's NVLS efficiency η
/// of the `NVLink` (the wire carries bytes / η), NCCL's NVLS latency once
/// per call (its `NVLink` hwLat; NVLS has no base latency) and its network
/// hwLat for each step between nodes (with the plugin's,
/// [`systems::Plugin::step`]).
fn plan_nvls(system: &System, collective: Collective, bytes: u64, algorithm: Algorithm) -> Planned {
    let (preset, nodes, v) = (&system.preset, system.nodes, system.version);
    let p = preset.ranks(nodes);
    let lat = |network| {
        let hw = if network { nccl::Hw::Net } else { nccl::Hw::Nvlink };
        f64::from(nccl::step_latency(v, hw, algorithm, Protocol::Simple))
    };
    let [intra, inter] = preset.classes();
    let channels = nccl::nvls_channels(preset.arch, nodes);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a size over a share near 1")]
    let wire = (bytes as f64 / nccl::nvls_efficiency(preset.arch)).ceil() as u64;
    // Allreduce's slices are NCCL's heads (at most 32 a node); allgather's
    // and reduce-scatter's one a GPU. NCCL's concurrent operations are its
    // channels × heads (`enqueue.cc`).
    let heads = nccl::nvls_heads(preset.gpus);
    let slices = if collective == Collective::Allreduce { heads } else { preset.gpus };
    let per_slice = wire.div_ceil(u64::from(channels) * u64::from(slices));
    let ops = u64::from(channels) * u64::from(heads);
    let chunk =
        systems::nvls_call_chunk(nodes > 1, bytes, ops, system.nvls_chunk(), preset.nvls_tree_max(nodes)).max(1);
    let pieces = per_slice.div_ceil(chunk).clamp(1, MAX_PIECES) as u32;
    Planned {
        bytes,
        collective,
        shape: preset.shape(nodes),
        classes: [(intra.bandwidth, intra.latency), (inter.bandwidth, inter.latency)],
        steps: [0.0, systems::Plugin::step(preset.plugin.as_ref(), lat(true), true) * 1000.0 / 2.0],
        schedule: Schedule::Nvls,
        p,
        pieces,
        wire,
        channels,
        base_us: if p <= 1 { 0.0 } else { lat(false) },
        algorithm: Some(algorithm),
        protocol: Protocol::Simple,
    }
}

//! What a described cluster should reach (`docs/systems.md`): per message
//! size, what NCCL's model would run on a preset system, that algorithm run
//! on the system's network with one channel per rail, and the result in
//! nccl-tests' terms (time, algbw, busbw), beside NCCL's own estimate.

use crate::ApiError;
use commlab_core::choose::{block_bytes, goal_channels, node_tree, nvls, plan, Collective};
use commlab_core::libraries::nccl::{self, Version};
use commlab_core::limits::{self, IntRange};
use commlab_core::net::topology::LinkClass;
use commlab_core::net::{NetParams, Network, Placement};
use commlab_core::systems::{self, Preset, MAX_PIECES, NCCL_STEPS};
use serde_json::{json as j, Value};

use crate::system::System;
pub use crate::system::{NODES, STEADY_NODES};

/// Nodes of a system fit (measured or predicted) and of an NCCL tuner file:
/// each simulates every size tens of times (a fit) or once per NCCL pair, so
/// their work is bounded to about a minute on 8 nodes (BENCHMARKS.md).
pub const FIT_NODES: IntRange = IntRange { name: "nodes", min: 1, max: 8 };

/// How a prediction's times are made (`docs/systems.md`, "Two engines").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Every flow simulated, event by event; a ring over several channels
    /// also reports its band ([`Planned::band`]).
    #[default]
    Flow,
    /// Rings from their steady state ([`crate::steady`]), smooth in every
    /// value; the other schedules as the flow engine runs them.
    Steady,
}

impl std::str::FromStr for Engine {
    type Err = ApiError;
    fn from_str(s: &str) -> Result<Engine, ApiError> {
        match s {
            "flow" => Ok(Engine::Flow),
            "steady" => Ok(Engine::Steady),
            _ => Err(ApiError::new("engine", s, "steady or flow")),
        }
    }
}

impl Engine {
    /// The engine that makes `planned`'s time when `self` is asked: the
    /// steady engine where it models the run, else the flow engine. The one
    /// place an engine is chosen for a run (`predict`, the fit, the page).
    #[must_use]
    pub fn choose(self, planned: &Planned) -> Engine {
        if self == Engine::Steady && planned.steady_models() {
            Engine::Steady
        } else {
            Engine::Flow
        }
    }

    /// The engine of the page's expected curve at `planned`: the flow
    /// engine up to [`EXPECTED_FLOW_RANKS`] ranks (a size takes it at most
    /// about a second there), the steady engine past them wherever it models
    /// the run.
    pub fn expected(planned: &Planned) -> Engine {
        let asked = if planned.p > EXPECTED_FLOW_RANKS { Engine::Steady } else { Engine::Flow };
        asked.choose(planned)
    }

    /// The nodes of a System it runs.
    pub fn nodes(self) -> IntRange {
        match self {
            Engine::Flow => NODES,
            Engine::Steady => STEADY_NODES,
        }
    }

    /// Its name in the JSON.
    pub fn id(self) -> &'static str {
        match self {
            Engine::Flow => "flow",
            Engine::Steady => "steady",
        }
    }
}

/// What the steady engine's rows are, and how far they are from the flow
/// engine ([`crate::steady::ACCURACY`], the check's figures).
pub fn steady_note() -> String {
    format!(
        "Rows marked steady come from the steady state, not from every flow: a ring as its tokens in a closed queueing network (mean value analysis), going to its busiest link's work where latency hides under the transfers; NCCL's tree and NVLS tree as one piece's fill, exact alone, and a steady period of their windows and links (NCCL's tree no faster than its chains' start and its first window allow). Smooth in every value, milliseconds at any node count. Not yet as close as they should be. {}. On more nodes NVLS tree's steady state is faster than the flow by more: a tree's pieces fill and drain its NICs while sharing them, which the steady period leaves out. Other schedules (broadcast's chain, all-to-all) run as the flow engine runs them (docs/systems.md, \"Two engines\").",
        crate::steady::accuracy_sentence()
    )
}

/// A prediction's request.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PredictRequest {
    /// The System (in JSON its keys `system`, `nodes` and `nccl_version`).
    #[serde(flatten)]
    pub system: System,
    /// Collective id.
    pub collective: String,
    /// Sizes in nccl-tests' terms (its size column for that collective).
    pub sizes: Vec<u64>,
}

/// One size's prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictRow {
    /// nccl-tests' size column.
    pub bytes: u64,
    /// Predicted time, µs.
    pub time_us: f64,
    /// bytes / time, GB/s.
    pub algbw: f64,
    /// algbw × nccl-tests' factor, GB/s.
    pub busbw: f64,
    /// NCCL's pick (`ring`, `tree`, `nvls`, …; `p2p` for all-to-all).
    pub algorithm: &'static str,
    /// Its protocol (`ll`, `ll128`, `simple`).
    pub protocol: &'static str,
    /// Channels simulated.
    pub channels: u32,
    /// Pieces per channel (pipelined algorithms; 1 otherwise).
    pub pieces: u32,
    /// The schedule simulated (`ring`, `node-tree`, `chain`, `pairwise`).
    pub simulated: &'static str,
    /// Why the simulated schedule is not NCCL's pick, when it is not.
    pub note: Option<&'static str>,
    /// NCCL's own estimate, µs (none for all-to-all: NCCL has no model of it).
    pub nccl_model_time_us: Option<f64>,
    /// The most utilised link: name, bytes over (bandwidth × run time).
    pub bottleneck: Option<(String, f64)>,
    /// The time is one value of a band about 6 % wide ([`Planned::coupled`]).
    pub coupled: bool,
    /// The engine that made the time.
    pub engine: Engine,
    /// Where the time is one value of a band: the band (µs, as `time_us`).
    pub band: Option<Band>,
}

/// A prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The preset.
    pub preset: Preset,
    /// Nodes.
    pub nodes: u32,
    /// The NCCL release whose model picked.
    pub version: Version,
    /// The collective.
    pub collective: Collective,
    /// One row per size.
    pub rows: Vec<PredictRow>,
}

/// Which of our schedules runs NCCL's algorithm on the network, and why
/// another one does when NCCL's cannot be simulated.
fn schedule_of(collective: Collective, algorithm: &str) -> (&'static str, Option<&'static str>) {
    if collective == Collective::AllToAll {
        return ("pairwise", None);
    }
    match (collective, algorithm) {
        (Collective::Allreduce, "tree") => return ("node-tree", None),
        (Collective::Allreduce | Collective::Allgather | Collective::ReduceScatter, "nvls" | "nvls_tree") => {
            return ("nvls", None)
        }
        _ => {}
    }
    if let Some(ours) = nccl::ours(collective, algorithm) {
        return (ours, None);
    }
    let ring = nccl::ours(collective, "ring").unwrap_or("ring");
    (ring, Some("this algorithm is not simulated on the network: the ring runs instead"))
}

/// Whether NCCL's `algorithm` runs on the network as itself (not as a ring
/// in its place).
pub fn simulable(collective: Collective, algorithm: &str) -> bool {
    schedule_of(collective, algorithm).1.is_none()
}

impl PredictRequest {
    /// The page's expected curve of `collective` at `sizes` on the System
    /// shown: `None` without a System, or where `p` is not all its GPUs
    /// (unless the System is drawn past the page's network, `far`).
    pub fn expected(
        system: Option<System>,
        far: bool,
        p: u32,
        collective: Collective,
        sizes: &[u64],
    ) -> Option<PredictRequest> {
        let system = system.filter(|s| far || s.covers(p))?;
        (!sizes.is_empty()).then(|| PredictRequest {
            system,
            collective: collective.id().to_owned(),
            sizes: sizes.to_vec(),
        })
    }

    /// Every size planned for the network ([`Planned`]), nodes within
    /// `engine`'s range ([`NODES`] for the flow engine, [`STEADY_NODES`]
    /// for the steady one), checked as [`PredictRequest::run`] checks.
    ///
    /// # Errors
    /// An unknown collective, nodes or a size out of range.
    pub fn planned(&self, engine: Engine) -> Result<Vec<Planned>, ApiError> {
        let range = engine.nodes();
        let system = self.system.check(range)?;
        let collective: Collective = self.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
        self.sizes
            .iter()
            .map(|&b| {
                limits::BYTES.check(b)?;
                Ok(decide(&system, collective, b).0)
            })
            .collect()
    }

    /// What the page's expected curve runs ([`Expected::by_its_engine`]):
    /// every size planned on up to [`STEADY_NODES`] nodes; past [`NODES`]
    /// only where the steady engine models every size, as `predict
    /// --engine steady` does.
    ///
    /// # Errors
    /// As [`PredictRequest::planned`]; past [`NODES`], the first size only
    /// the flow engine runs.
    pub fn planned_expected(&self) -> Result<Vec<Planned>, ApiError> {
        let planned = self.planned(Engine::Steady)?;
        if u64::from(self.system.nodes) > NODES.max {
            if let Some(p) = planned.iter().find(|p| p.expected_engine() != Engine::Steady) {
                return Err(flow_only(self.system.nodes, &p.schedule, p));
            }
        }
        Ok(planned)
    }

    /// Predicts every size with `engine`.
    ///
    /// # Errors
    /// An unknown system or collective, nodes or a size out of range.
    pub fn run(&self, engine: Engine) -> Result<Prediction, ApiError> {
        let range = engine.nodes();
        let nodes = self.system.nodes;
        let system = self.system.check(range).map_err(|e| {
            if e.field == "nodes" && engine == Engine::Flow && STEADY_NODES.contains(u64::from(nodes)) {
                ApiError::new("nodes", nodes, format!("{NODES} with the flow engine, which simulates every flow ({STEADY_NODES} with --engine steady)"))
            } else {
                e
            }
        })?;
        let collective: Collective = self.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
        if self.sizes.is_empty() {
            return Err(ApiError::problem(
                "bytes",
                "no size in the range: give a size, a list or MIN..MAX holding a power of two",
            ));
        }
        let rows = self
            .sizes
            .iter()
            .map(|&b| {
                limits::BYTES.check(b)?;
                row(&system, collective, b, engine)
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(Prediction { preset: system.preset, nodes: system.nodes, version: system.version, collective, rows })
    }
}

/// One size's run as NCCL's model decides it, ready for the network: what
/// the Chooser's page decides (the model lives there) and its engine worker
/// simulates ([`Planned::simulate`]; the worker does not carry the model).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Planned {
    /// nccl-tests' size column.
    pub bytes: u64,
    /// Collective id.
    pub collective: String,
    /// The network's shape (`nodes:NxGxR`).
    pub shape: String,
    /// Its two link classes: bandwidth (B/ns) and the link's own latency (ns).
    pub classes: [(f64, f64); 2],
    /// NCCL's per-step cost added to each link of a class (ns; half a step
    /// per link, as a route crosses two).
    pub steps: [f64; 2],
    /// Our schedule that runs (`ring`, `double-binary-tree`, `chain`, `pairwise`).
    pub schedule: String,
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
    /// NCCL's pick: `ring/ll128, 8 channels`.
    pub pick: String,
    /// NCCL's algorithm (`ring`, `tree`, `nvls_tree`, …; `p2p` for all-to-all).
    pub algorithm: String,
    /// Its protocol (`ll`, `ll128`, `simple`).
    pub protocol: String,
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
    shape: commlab_core::net::Shape,
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
        let collective: Collective = self.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
        let shape: commlab_core::net::Shape =
            self.shape.parse().map_err(|e: String| ApiError::problem("network", e))?;
        if let Some(quotient) = self.ring_quotient(collective, shape) {
            return Ok(Some(quotient));
        }
        let plan = match (self.schedule.as_str(), shape) {
            ("node-tree", commlab_core::net::Shape::Nodes { g, .. }) => node_tree(self.p, g, self.pieces),
            ("nvls", commlab_core::net::Shape::Nodes { g, .. }) => nvls(collective, self.p, g, self.pieces),
            _ => plan(collective, &self.schedule, self.p, self.pieces),
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
    fn ring_quotient(&self, collective: Collective, shape: commlab_core::net::Shape) -> Option<Prepared> {
        let commlab_core::net::Shape::Nodes { n, g, r } = shape else { return None };
        if self.schedule != "ring" || n <= 2 || u64::from(self.p) != u64::from(n) * u64::from(g) {
            return None;
        }
        let plan = commlab_core::choose::ring_quotient(collective, self.p, 2 * g)?;
        let two = commlab_core::net::Shape::Nodes { n: 2, g, r };
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

    /// The steady engine's time (ns, without NCCL's per-call cost) of a
    /// ring, NCCL's tree or NVLS tree with the preset's values scaled
    /// ([`crate::steady`]).
    ///
    /// # Errors
    /// A schedule the steady engine does not model ([`Planned::steady_under`]);
    /// values the network refuses.
    pub fn steady_ns(&self, s: Scales) -> Result<f64, ApiError> {
        let (shape, classes) = self.steady_network(s)?;
        let tree =
            || crate::steady::Tree { shape, classes, channels: self.channels, pieces: self.pieces, wire: self.wire };
        match self.schedule.as_str() {
            "ring" => crate::steady::ring_ns(&self.steady_ring(s)?),
            "node-tree" => crate::steady::node_tree_ns(&tree()),
            "nvls" if self.steady_tree() => crate::steady::nvls_tree_ns(&tree()),
            other => Err(ApiError::problem("engine", format!("the steady engine does not model {other}"))),
        }
    }

    /// A ring's lower bound (ns) with the preset's values scaled: its
    /// busiest link's work ([`crate::steady::ring_bound_ns`]).
    ///
    /// # Errors
    /// Not a ring; values the network refuses.
    pub fn ring_bound_ns(&self, s: Scales) -> Result<f64, ApiError> {
        if self.schedule != "ring" {
            return Err(ApiError::problem("engine", format!("{} is not a ring", self.schedule)));
        }
        crate::steady::ring_bound_ns(&self.steady_ring(s)?)
    }

    /// The network's shape and link classes with the preset's values scaled.
    fn steady_network(&self, s: Scales) -> Result<(commlab_core::net::Shape, [LinkClass; 2]), ApiError> {
        let class = |k: usize, scale: f64| LinkClass {
            bandwidth: self.classes[k].0 * scale,
            latency: self.classes[k].1 + self.steps[k] * s.latency,
        };
        let shape = commlab_core::net::Shape::parse_any(&self.shape).map_err(|e| ApiError::problem("network", e))?;
        Ok((shape, [class(0, s.intra), class(1, s.inter)]))
    }

    /// The run as the steady engine's ring.
    fn steady_ring(&self, s: Scales) -> Result<crate::steady::Ring, ApiError> {
        let (shape, classes) = self.steady_network(s)?;
        Ok(crate::steady::Ring {
            collective: self.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?,
            shape,
            classes,
            p: self.p,
            channels: self.channels,
            wire: self.wire,
        })
    }

    /// NVLS tree: NVLS (allreduce) on several nodes.
    fn steady_tree(&self) -> bool {
        self.schedule == "nvls" && self.collective == "allreduce" && self.p > self.gpus()
    }

    /// GPUs per node (its shape's `G`).
    fn gpus(&self) -> u32 {
        match commlab_core::net::Shape::parse_any(&self.shape) {
            Ok(commlab_core::net::Shape::Nodes { g, .. }) => g,
            _ => self.p,
        }
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

    /// The engine of the page's expected curve at this run
    /// ([`Engine::expected`]).
    pub fn expected_engine(&self) -> Engine {
        Engine::expected(self)
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

    /// Whether asking `engine` makes this run's time from its steady state
    /// ([`Engine::choose`]).
    pub fn steady_under(&self, engine: Engine) -> bool {
        engine.choose(self) == Engine::Steady
    }

    /// Whether the steady engine models this run: rings, NCCL's tree and
    /// NVLS tree on more than one rank (NVLS on one node, small, runs as
    /// the flow engine runs it).
    fn steady_models(&self) -> bool {
        self.p > 1 && (matches!(self.schedule.as_str(), "ring" | "node-tree") || self.steady_tree())
    }

    /// The call's time (ns) under `engine` with the preset's values scaled
    /// (`prepared`: [`Planned::prepare`]'s where the flow engine runs it).
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn time_by(&self, engine: Engine, prepared: Option<&Prepared>, s: Scales) -> Result<f64, ApiError> {
        if self.steady_under(engine) {
            return Ok(self.steady_ns(s)? + self.base_us * 1000.0 * s.latency);
        }
        self.time_ns(prepared, s)
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

/// NCCL's pick (algorithm, protocol), why another schedule runs (if one
/// does), NCCL's own estimate (µs) and the schedule that runs.
type Pick = (&'static str, &'static str, Option<&'static str>, Option<f64>, &'static str);

/// What NCCL would run at `bytes` on `nodes` nodes of `preset`, planned for
/// the network, with NCCL's pick, why another schedule runs (if one does)
/// and NCCL's own estimate (µs).
fn decide(system: &System, collective: Collective, bytes: u64) -> (Planned, Pick) {
    let model = nccl::predict(&system.nccl(), collective, bytes);
    let (algorithm, protocol) = model.as_ref().map_or(("p2p", "simple"), nccl::Prediction::names);
    let (planned, note) = plan_as(system, collective, bytes, algorithm, protocol);
    let simulated = schedule_of(collective, algorithm).0;
    (planned, (algorithm, protocol, note, model.map(|m| f64::from(m.pick.2)), simulated))
}

/// NCCL's `algorithm` with `protocol` at `bytes` on `nodes` nodes of
/// `preset`, planned for the network, and why another schedule runs (if one does).
pub fn plan_as(
    system: &System,
    collective: Collective,
    bytes: u64,
    algorithm: &'static str,
    protocol: &'static str,
) -> (Planned, Option<&'static str>) {
    let (preset, nodes, v) = (&system.preset, system.nodes, system.version);
    let p = preset.ranks(nodes);
    let (simulated, note) = schedule_of(collective, algorithm);
    if simulated == "nvls" {
        return (plan_nvls(system, collective, bytes, algorithm), None);
    }
    // The step costs of the schedule that runs: the tree's row for trees,
    // the ring's for rings, chains and point-to-point.
    let row_of = if matches!(simulated, "double-binary-tree" | "node-tree") { "tree" } else { "ring" };
    let costs = if note.is_some() { "simple" } else { protocol };
    let step = |network| f64::from(nccl::step_latency(v, network, row_of, costs).unwrap_or(0.0)) * 1000.0;
    let net_step = systems::Plugin::step(preset.plugin.as_ref(), step(true) / 1000.0, costs == "simple") * 1000.0;
    let base = f64::from(nccl::base_latency(v, row_of, costs).unwrap_or(0.0));
    let [intra, inter] = preset.classes();
    // NCCL's model charges every step of a ring that spans nodes its
    // network step cost (the ring moves at its slowest hop's pace); its tree
    // charges the chain's hops inside a node the NVLink cost.
    let ring_paced = nodes > 1 && row_of == "ring";
    let channels = preset.nics.min(p.max(1));
    // The payload rate NCCL's model gives the protocol, as a share of
    // Simple's; the line share where its model has no such pair.
    let line_share =
        nccl::protocol_share(&system.nccl(), collective, if note.is_some() { "ring" } else { algorithm }, costs)
            .unwrap_or_else(|| systems::protocol_share(costs));
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a size over a share of at least 1/2")]
    let wire = (bytes as f64 / line_share).ceil() as u64;
    let pipelined = matches!(simulated, "chain" | "double-binary-tree" | "node-tree");
    let per_channel = wire.div_ceil(u64::from(channels));
    let chunk = if simulated == "node-tree" {
        // NCCL's tree: a chain of the node's GPUs under the tree of nodes.
        let depth = preset.gpus + nodes.next_power_of_two().ilog2();
        systems::tree_chunk(costs, per_channel, depth, nodes, preset.gpus, preset.simple_step())
    } else {
        preset.simple_step()
    };
    let pieces = if pipelined { per_channel.div_ceil(chunk).clamp(1, MAX_PIECES) as u32 } else { 1 };
    let planned = Planned {
        bytes,
        collective: collective.id().to_owned(),
        shape: preset.shape(nodes).to_string(),
        classes: [(intra.bandwidth, intra.latency), (inter.bandwidth, inter.latency)],
        steps: [step(ring_paced) / 2.0, net_step / 2.0],
        schedule: simulated.to_owned(),
        p,
        pieces,
        wire,
        channels,
        base_us: if p <= 1 { 0.0 } else { base },
        pick: format!("{algorithm}/{protocol}, {}", commlab_plot::count(u64::from(channels), "channel", "channels")),
        algorithm: algorithm.to_owned(),
        protocol: protocol.to_owned(),
    };
    (planned, note)
}

/// NCCL's NVLS (one node) or NVLS tree (several) at `bytes` on `nodes`
/// nodes of `preset`, planned for the network (`choose::nvls`: a rank on
/// each node's switch): NCCL's NVLS channels, its chunks per slice
/// ([`systems::nvls_call_chunk`]), the
/// payload at NCCL's NVLS efficiency η of the `NVLink` (the wire carries
/// bytes / η), NCCL's NVLS latency once per call (its `NVLink` hwLat; NVLS
/// has no base latency) and its network hwLat for each step between nodes
/// (with the plugin's, [`systems::Plugin::step`]).
fn plan_nvls(system: &System, collective: Collective, bytes: u64, algorithm: &'static str) -> Planned {
    let (preset, nodes, v) = (&system.preset, system.nodes, system.version);
    let p = preset.ranks(nodes);
    let lat = |network| f64::from(nccl::step_latency(v, network, algorithm, "simple").unwrap_or(0.0));
    let [intra, inter] = preset.classes();
    let channels = nccl::nvls_channels(preset.arch, nodes);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a size over a share near 1")]
    let wire = (bytes as f64 / nccl::nvls_efficiency(preset.arch)).ceil() as u64;
    let per_slice = wire.div_ceil(u64::from(channels) * u64::from(preset.gpus));
    let ops = u64::from(channels) * u64::from(preset.gpus);
    let chunk =
        systems::nvls_call_chunk(nodes > 1, bytes, ops, preset.nvls_chunk(), preset.nvls_tree_max(nodes)).max(1);
    let pieces = per_slice.div_ceil(chunk).clamp(1, MAX_PIECES) as u32;
    Planned {
        bytes,
        collective: collective.id().to_owned(),
        shape: preset.shape(nodes).to_string(),
        classes: [(intra.bandwidth, intra.latency), (inter.bandwidth, inter.latency)],
        steps: [0.0, systems::Plugin::step(preset.plugin.as_ref(), lat(true), true) * 1000.0 / 2.0],
        schedule: "nvls".to_owned(),
        p,
        pieces,
        wire,
        channels,
        base_us: if p <= 1 { 0.0 } else { lat(false) },
        pick: format!("{algorithm}/simple, {}", commlab_plot::count(u64::from(channels), "channel", "channels")),
        algorithm: algorithm.to_owned(),
        protocol: "simple".to_owned(),
    }
}

/// Past [`NODES`]: `planned` runs as `schedule`, which only the flow
/// engine runs.
fn flow_only(nodes: u32, schedule: &str, planned: &Planned) -> ApiError {
    ApiError::new(
        "nodes",
        nodes,
        format!(
            "{NODES} where a size runs as {schedule} ({}/{} at {} B): only the flow engine runs it, and it simulates every flow",
            planned.algorithm, planned.protocol, planned.bytes
        ),
    )
}

/// One size: NCCL's pick, simulated by `engine`.
fn row(system: &System, collective: Collective, bytes: u64, engine: Engine) -> Result<PredictRow, ApiError> {
    let (planned, (algorithm, protocol, note, nccl_model_time_us, simulated)) = decide(system, collective, bytes);
    let engine = engine.choose(&planned);
    if engine == Engine::Flow && u64::from(system.nodes) > NODES.max {
        return Err(flow_only(system.nodes, simulated, &planned));
    }
    let (sim_ns, bottleneck, band, engine) = if engine == Engine::Steady {
        (planned.steady_ns(Scales::NOMINAL)?, None, None, Engine::Steady)
    } else {
        match planned.prepare()? {
            None => (0.0, None, None, Engine::Flow),
            Some(prepared) => {
                let (t, net, out) = planned.run(&prepared, Scales::NOMINAL)?;
                let band = if planned.coupled() { Some(planned.band(&prepared)?) } else { None };
                let us = |ns: f64| ns / 1000.0 + planned.base_us;
                let band = band.map(|b| Band { mean: us(b.mean), min: us(b.min), max: us(b.max), runs: b.runs });
                (t, crate::network::bottleneck(&net, &out, t), band, Engine::Flow)
            }
        }
    };
    let time_us = sim_ns / 1000.0 + planned.base_us;
    let of = |m: systems::Measure| m.of(collective, planned.p, bytes, time_us * 1000.0);
    Ok(PredictRow {
        bytes,
        time_us,
        algbw: of(systems::Measure::Algbw),
        busbw: of(systems::Measure::Busbw),
        algorithm,
        protocol,
        channels: planned.channels,
        pieces: planned.pieces,
        simulated,
        note,
        nccl_model_time_us,
        bottleneck,
        coupled: planned.coupled() && engine == Engine::Flow,
        engine,
        band,
    })
}

/// One size of the curve the Chooser draws for a preset system: the
/// prediction's time and what ran ([`Prediction::expected`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Expected {
    /// nccl-tests' size column.
    pub bytes: u64,
    /// Predicted time, ns.
    pub time_ns: f64,
    /// NCCL's pick and its protocol, `ring/ll128`, and the channels: `ring/ll128, 8 channels`.
    pub pick: String,
    /// The time is one value of a band a few percent wide ([`Planned::coupled`]).
    #[serde(default)]
    pub coupled: bool,
    /// The engine that made the time ([`Planned::expected_engine`]).
    #[serde(default)]
    pub engine: Engine,
}

impl Expected {
    /// The expected point of `planned` that the flow engine ran in `sim_ns`.
    pub fn of(planned: &Planned, sim_ns: f64) -> Expected {
        Expected {
            bytes: planned.bytes,
            time_ns: sim_ns + planned.base_us * 1000.0,
            pick: planned.pick.clone(),
            coupled: planned.coupled(),
            engine: Engine::Flow,
        }
    }

    /// The expected point of `planned` by the engine the page's curve takes
    /// ([`Planned::expected_engine`]).
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn by_its_engine(planned: &Planned) -> Result<Expected, ApiError> {
        if planned.expected_engine() == Engine::Steady {
            let ns = planned.steady_ns(Scales::NOMINAL)?;
            return Ok(Expected { coupled: false, engine: Engine::Steady, ..Expected::of(planned, ns) });
        }
        Ok(Expected::of(planned, planned.simulate()?.0))
    }
}

/// Ranks past which the page's expected curve takes the steady engine
/// wherever it models the run: the flow engine costs seconds to minutes a
/// size there (NVLS tree at 128 nodes: ~20 s natively), the steady engine
/// milliseconds (`docs/systems.md`, "Two engines").
pub const EXPECTED_FLOW_RANKS: u32 = 128;

impl Planned {
    /// Messages a (rank, NIC) keeps in flight: NCCL's steps of one
    /// connection; NVLS's streams over `NVLink` (a GPU's parts, its `st`, a
    /// switch port's returns and copies) move one chunk at a time each, as
    /// one warp group issues its multimem operations in order, and its
    /// network connections take 8 NICs in turn (`choose::goal`; `docs/network.md`, NVLS).
    pub fn window(&self) -> u32 {
        if self.schedule == "nvls" {
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
        self.schedule == "ring" && self.channels > 1
    }
}

impl Prediction {
    /// The JSON of `commlab predict`: `system` (every value with its
    /// source, the assumptions), `nodes`, `ranks`, `collective`, and `rows`
    /// (`bytes`, `time_us`, `algbw`, `busbw`, `algorithm`, `protocol`,
    /// `channels`, `nccl_model_time_us`, and how it was simulated).
    pub fn to_json(&self) -> Value {
        let s = &self.preset;
        let sources: Vec<Value> = s
            .sources()
            .iter()
            .map(|(what, value, source)| j!({ "what": what, "value": value, "source": source }))
            .collect();
        let p = s.ranks(self.nodes);
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let bottleneck = r.bottleneck.as_ref().map(|(name, u)| {
                    j!({ "link": name, "utilisation": u, "bound_busbw": if *u > 0.0 { r.busbw / u } else { 0.0 } })
                });
                j!({
                    "bytes": r.bytes, "time_us": r.time_us, "algbw": r.algbw, "busbw": r.busbw,
                    "algorithm": r.algorithm, "protocol": r.protocol, "channels": r.channels,
                    "pieces": r.pieces, "simulated": r.simulated, "note": r.note,
                    "nccl_model_time_us": r.nccl_model_time_us, "bottleneck": bottleneck,
                    "coupled": r.coupled, "engine": r.engine.id(),
                    "band": r.band.map(|b| j!({ "mean_us": b.mean, "min_us": b.min, "max_us": b.max, "runs": b.runs })),
                })
            })
            .collect();
        let nccl = s.nccl_at(self.nodes, self.version);
        j!({
            "system": {
                "id": s.id, "name": s.name, "gpus_per_node": s.gpus, "nics_per_node": s.nics,
                "nvlink_gbps": s.nvlink, "nvlink_line_gbps": s.nvlink_line, "nic_gbps": s.nic, "nvls": s.nvls,
                "topology": s.shape(self.nodes).to_string(),
                "nccl": {
                    "channels": nccl.channels, "bw_intra": nccl.bw_intra, "bw_inter": nccl.bw_inter,
                    "nvls": nccl.nvls, "version": nccl.version.label(),
                },
                "sources": sources,
                "assumptions": systems::ASSUMPTIONS,
                "not_modelled": s.not_modelled(self.nodes),
            },
            "nodes": self.nodes,
            "ranks": p,
            "collective": self.collective.id(),
            "busbw_factor": systems::busbw_factor(self.collective, p),
            "rows": rows,
            "model_note": self.model_note(),
            "engine_note": self.engine_note(),
        })
    }

    /// What the steady engine is, where a row used it (`None`: no row did).
    pub fn engine_note(&self) -> Option<String> {
        self.rows.iter().any(|r| r.engine == Engine::Steady).then(steady_note)
    }

    /// What the "NCCL's model" column is, and where it is furthest from the
    /// simulation: both numbers and the simulation's busiest link (`None`:
    /// no row has NCCL's estimate).
    pub fn model_note(&self) -> Option<String> {
        let gap = |r: &PredictRow| r.nccl_model_time_us.map_or(-1.0, |m| (m / r.time_us).ln().abs());
        let worst =
            self.rows.iter().filter(|r| r.nccl_model_time_us.is_some()).max_by(|a, b| gap(a).total_cmp(&gap(b)))?;
        let model = worst.nccl_model_time_us?;
        let ratio = if model > worst.time_us { model / worst.time_us } else { worst.time_us / model };
        let side = if model > worst.time_us { "above" } else { "below" };
        let neck = worst.bottleneck.as_ref().map_or(String::new(), |(link, u)| {
            format!("; the simulation's busiest link is {link}, busy {:.0} % of the run", 100.0 * u)
        });
        Some(format!(
            "NCCL's model is NCCL's own estimate (tuning.cc), made only to rank its algorithms and protocols: it charges the bytes at its table's bus bandwidth per channel and never sees the links shared, so it is no prediction. Furthest from the simulation here at {} B: {model:.1} µs, {ratio:.2}× {side} the simulated {:.1} µs{neck}.",
            worst.bytes, worst.time_us
        ))
    }
}

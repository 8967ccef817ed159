//! Which engine makes a run's time (`docs/systems.md`, "Two engines"):
//! the flow engine simulates every flow, the steady engine takes rings,
//! NCCL's tree and NVLS tree from their steady state ([`crate::steady`]).
//! The choice is made here once, for `predict`, the fit and the page.

use super::flow::Prepared;
use super::{Planned, Scales};
use crate::system::{NODES, STEADY_NODES};
use crate::ApiError;
use commlab_core::choose::Collective;
use commlab_core::libraries::nccl::Schedule;
use commlab_core::limits::IntRange;
use commlab_core::net::topology::LinkClass;
use commlab_core::net::Shape;

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

/// Ranks past which the page's expected curve takes the steady engine
/// wherever it models the run: the flow engine costs seconds to minutes a
/// size there (NVLS tree at 128 nodes: ~20 s natively), the steady engine
/// milliseconds (`docs/systems.md`, "Two engines").
pub const EXPECTED_FLOW_RANKS: u32 = 128;

/// Past [`NODES`]: `planned` runs as a schedule only the flow engine runs.
pub(super) fn flow_only(nodes: u32, planned: &Planned) -> ApiError {
    ApiError::new(
        "nodes",
        nodes,
        format!(
            "{NODES} where a size runs as {} ({}/{} at {} B): only the flow engine runs it, and it simulates every flow",
            planned.schedule,
            super::algorithm_id(planned.algorithm),
            planned.protocol,
            planned.bytes
        ),
    )
}

impl Planned {
    /// The engine of the page's expected curve at this run
    /// ([`Engine::expected`]).
    pub fn expected_engine(&self) -> Engine {
        Engine::expected(self)
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
        self.p > 1 && (matches!(self.schedule, Schedule::Ring | Schedule::Tree) || self.steady_tree())
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

    /// The steady engine's time (ns, without NCCL's per-call cost) of a
    /// ring, NCCL's tree or NVLS tree with the preset's values scaled
    /// ([`crate::steady`]).
    ///
    /// # Errors
    /// A schedule the steady engine does not model ([`Planned::steady_under`]);
    /// values the network refuses.
    pub fn steady_ns(&self, s: Scales) -> Result<f64, ApiError> {
        let (shape, classes) = self.steady_network(s);
        let tree =
            || crate::steady::Tree { shape, classes, channels: self.channels, pieces: self.pieces, wire: self.wire };
        match self.schedule {
            Schedule::Ring => crate::steady::ring_ns(&self.steady_ring(s)),
            Schedule::Tree => crate::steady::node_tree_ns(&tree()),
            Schedule::Nvls if self.steady_tree() => crate::steady::nvls_tree_ns(&tree()),
            other => Err(ApiError::problem("engine", format!("the steady engine does not model {other}"))),
        }
    }

    /// A ring's lower bound (ns) with the preset's values scaled: its
    /// busiest link's work ([`crate::steady::ring_bound_ns`]).
    ///
    /// # Errors
    /// Not a ring; values the network refuses.
    pub fn ring_bound_ns(&self, s: Scales) -> Result<f64, ApiError> {
        if self.schedule != Schedule::Ring {
            return Err(ApiError::problem("engine", format!("{} is not a ring", self.schedule)));
        }
        crate::steady::ring_bound_ns(&self.steady_ring(s))
    }

    /// The network's shape and link classes with the preset's values scaled.
    fn steady_network(&self, s: Scales) -> (Shape, [LinkClass; 2]) {
        let class = |k: usize, scale: f64| LinkClass {
            bandwidth: self.classes[k].0 * scale,
            latency: self.classes[k].1 + self.steps[k] * s.latency,
        };
        (self.shape, [class(0, s.intra), class(1, s.inter)])
    }

    /// The run as the steady engine's ring.
    fn steady_ring(&self, s: Scales) -> crate::steady::Ring {
        let (shape, classes) = self.steady_network(s);
        crate::steady::Ring {
            collective: self.collective,
            shape,
            classes,
            p: self.p,
            channels: self.channels,
            wire: self.wire,
        }
    }

    /// NVLS tree: NVLS (allreduce) on several nodes.
    fn steady_tree(&self) -> bool {
        self.schedule == Schedule::Nvls && self.collective == Collective::Allreduce && self.p > self.gpus()
    }

    /// GPUs per node (its shape's `G`).
    fn gpus(&self) -> u32 {
        match self.shape {
            Shape::Nodes { g, .. } => g,
            _ => self.p,
        }
    }
}

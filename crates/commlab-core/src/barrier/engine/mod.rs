//! The discrete-event barrier simulator.
//!
//! Time is in integer ticks. A message leaves its sender `overhead_ticks`
//! after being sent, crosses each link in `hop_ticks`, and is handed to the
//! receiver `overhead_ticks` after its last hop. With contention on, a
//! directed link accepts one message per tick, first come first served
//! (events are ordered by `(time, sequence)`, so ties resolve in creation
//! order and every run is deterministic). Nodes compute `compute_ticks` (plus
//! a seeded skew) before each barrier.
//!
//! Nodes follow their layer's protocol literally: delivered messages wait in a
//! per-node queue; a gathering node waits until as many Gather messages as it
//! has children are queued, adds up their path lengths, clears them, and only
//! then sends its own Gather; the root judges and originates the Release,
//! which carries `K`; a node forwards the Release and *then* applies
//! `round(K)`. Messages carry their barrier's number only so the checker can
//! prove that no barrier consumes another's messages.

mod calendar;
mod protocol;
mod report;
mod transport;

use self::calendar::{Calendar, Event};
use self::protocol::NodeState;
use self::transport::{slot, Msg, SlotCounts};
use super::algorithm::{layers, Algorithm, Layer, LayerKind};
use super::encoding::{Encoding, Numbering};
use super::mesh::{Breaks, LinkId, Mesh, NodeId, Router, Routing};
use crate::limits::{ConfigError, IntRange};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;
use std::str::FromStr;

/// When the DLCT root adjusts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Judge {
    /// Never adjust.
    Never,
    /// `K = 1` when the summed Gather path length exceeds the fault-free sum by
    /// more than this fraction (default 10 %).
    Threshold(f64),
    /// The `K` in `0..min(N, 64)` minimising the next barrier's contention-free
    /// critical path (gather + release) given the breaks; an upper bound.
    Oracle,
}

impl Default for Judge {
    /// The threshold policy at 10 %, [`Judge::DEFAULT`]: the one default of
    /// the engine, the mesh view, its links and the CLI.
    fn default() -> Self {
        Judge::DEFAULT
    }
}

impl Judge {
    /// The default threshold policy.
    pub const DEFAULT: Judge = Judge::Threshold(0.1);

    /// Every policy, in the order the mesh view lists them (the threshold's
    /// value is a parameter of its own there).
    pub const ALL: [Judge; 3] = [Judge::DEFAULT, Judge::Never, Judge::Oracle];

    /// Stable id.
    pub fn id(self) -> &'static str {
        match self {
            Judge::Never => "never",
            Judge::Threshold(_) => "threshold",
            Judge::Oracle => "oracle",
        }
    }

    /// Human-readable name.
    pub fn label(self) -> &'static str {
        match self {
            Judge::Never => "never adjust",
            Judge::Threshold(_) => "threshold: K = 1 above it",
            Judge::Oracle => "oracle: best K",
        }
    }
}

impl FromStr for Judge {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "never" => Ok(Judge::Never),
            "threshold" => Ok(Judge::DEFAULT),
            "oracle" => Ok(Judge::Oracle),
            _ => Err(format!("unknown judge {s:?}; expected one of: never, threshold, oracle")),
        }
    }
}

impl fmt::Display for Judge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Everything a barrier run needs, before validation.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Mesh side.
    pub size: u64,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Node encoding.
    pub encoding: Encoding,
    /// Fraction of links broken (seeded).
    pub break_rate: f64,
    /// Seed of the breaks and of the compute skew.
    pub seed: u64,
    /// Explicit broken links, replacing the seeded ones when set.
    pub breaks: Option<Vec<LinkId>>,
    /// Break only links whose loss keeps the mesh connected
    /// ([`Breaks::random_connected`]): experiments compare delays, which a
    /// partitioned mesh does not have.
    pub connected: bool,
    /// Consecutive barriers.
    pub barriers: u32,
    /// Tile side of the two-layer forms.
    pub tile: u32,
    /// DLCT judge policy.
    pub judge: Judge,
    /// Ticks per link traversal.
    pub hop_ticks: u64,
    /// Ticks at sender and at receiver per message.
    pub overhead_ticks: u64,
    /// One message per directed link per tick.
    pub contention: bool,
    /// Computation before each barrier.
    pub compute_ticks: u64,
    /// Largest extra computation per node and barrier (seeded, uniform).
    pub skew_ticks: u64,
    /// Fan-in of the combining tree.
    pub combining_k: u32,
    /// Record every message (for the views).
    pub record: bool,
    /// How messages find their way around broken links.
    pub routing: Routing,
}

impl Scenario {
    /// Whether the run stays within the message cap ([`RECORDED_MESSAGES`]
    /// when recording, `MESSAGES` otherwise), from the closed-form count
    /// alone: callers check this before computing breaks or structures.
    ///
    /// # Errors
    /// `size` (or the mesh side) with the cap and the count.
    pub fn check_message_cap(&self) -> Result<(), ConfigError> {
        let nodes = self.size.saturating_mul(self.size);
        let per_barrier = self.algorithm.messages_per_barrier(nodes);
        let cap = if self.record { RECORDED_MESSAGES } else { MESSAGES };
        if per_barrier.saturating_mul(self.barriers.into()) > cap {
            return Err(ConfigError {
                name: "size",
                value: self.size.to_string(),
                expected: format!(
                    "a run of at most {cap} messages{}: {} sends about {per_barrier} per barrier on {nodes} nodes; pick a smaller size or fewer barriers",
                    if self.record { " when every message is recorded for the animation" } else { "" },
                    self.algorithm,
                ),
            });
        }
        Ok(())
    }
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            size: 8,
            algorithm: Algorithm::Dlct,
            encoding: Encoding::SCurve,
            break_rate: 0.0,
            seed: 1,
            breaks: None,
            connected: false,
            barriers: 3,
            tile: 4,
            judge: Judge::DEFAULT,
            hop_ticks: 1,
            overhead_ticks: 0,
            contention: true,
            compute_ticks: 500,
            skew_ticks: 0,
            combining_k: 4,
            record: false,
            routing: Routing::Paper,
        }
    }
}

/// Messages a run may send (all-to-all grows as N²).
pub const MESSAGES: u64 = 100_000_000;
/// Messages a recorded run (an animation) may send.
pub const RECORDED_MESSAGES: u64 = 2_000_000;
/// Hops a recorded run may record (12 bytes each: node and tick). The
/// message cap is checked before a run; the hops are known only as it goes
/// (the paper's walks can wander far under many breaks), so a run that
/// records more stops recording there and goes on with counts only
/// ([`RunReport::recording_stopped`]).
pub const RECORDED_HOPS: u64 = 20_000_000;

use crate::limits::barrier::{BARRIERS, COMBINING, TICKS, TILE};

/// The kind of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Child to parent; `content` is the accumulated path length.
    Gather,
    /// Parent to child; carries `K`.
    Release(u32),
    /// One-phase round `r`.
    Round(u32),
    /// Tile root to tile leader: the tile arrived.
    HandUp,
    /// Tile leader to tile root: the leaders' barrier released.
    HandDown,
}

impl Kind {
    /// How exports name it: `gather`, `release(K=1)`, `round 3`, `hand-up`, `hand-down`.
    pub fn name(self) -> String {
        match self {
            Kind::Gather => "gather".into(),
            Kind::Release(k) => format!("release(K={k})"),
            Kind::Round(r) => format!("round {r}"),
            Kind::HandUp => "hand-up".into(),
            Kind::HandDown => "hand-down".into(),
        }
    }
}

/// One recorded message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRecord {
    /// Barrier it belongs to.
    pub barrier: u32,
    /// Layer (0: tiles or the only layer; 1: leaders).
    pub level: u8,
    /// Kind.
    pub kind: Kind,
    /// Sender.
    pub from: NodeId,
    /// Receiver.
    pub to: NodeId,
    /// Tick it was sent.
    pub sent: u64,
    /// Tick it was handed to the receiver.
    pub delivered: u64,
    /// Nodes visited after the sender (the route).
    pub path: Vec<NodeId>,
    /// Tick of arrival at each node of `path`.
    pub times: Vec<u64>,
    /// The hops (indices into `path`) that step back along the message's own
    /// walk ([`Routing::Paper`]; ascending).
    pub back_steps: Vec<u32>,
    /// A Gather's summed path length on delivery (the children's sums plus
    /// its own route); 0 for other kinds.
    pub content: u64,
    /// When the receiver took it from its queue, and the receiver's barrier
    /// then (`None`: never taken).
    pub consumed: Option<(u64, u32)>,
}

/// A send that had no route (the breaks cut the sender from the receiver):
/// recorded, then dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DroppedSend {
    /// The sender's barrier.
    pub barrier: u32,
    /// Sender.
    pub from: NodeId,
    /// Receiver.
    pub to: NodeId,
    /// Tick of the send.
    pub tick: u64,
}

/// A DLCT root's judge decision at the end of a Gather.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Barrier.
    pub barrier: u32,
    /// Layer-0 group (the tile, or 0 for the whole mesh).
    pub group: u32,
    /// Tick of the decision.
    pub tick: u64,
    /// The root node.
    pub root: NodeId,
    /// Summed Gather path lengths (hops) that reached the root.
    pub path_sum: u64,
    /// The same sum over fault-free shortest distances of the current numbering.
    pub fault_free: u64,
    /// The `K` put in the Release (0: no adjustment).
    pub k: u32,
}

/// The outcome of a run.
#[allow(clippy::struct_excessive_bools, reason = "independent facts of one run")]
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    /// Every node left every barrier.
    pub completed: bool,
    /// Some message had no route (the breaks cut the mesh). Such messages
    /// are dropped and the rest of the run goes on until nothing can move,
    /// so a view shows which part of the mesh got stuck.
    pub partitioned: bool,
    /// Messages dropped for want of a route.
    pub unroutable: u64,
    /// The checker's verdict.
    pub safe: bool,
    /// What the checker found wrong (empty when safe).
    pub violations: Vec<String>,
    /// End-to-end messages of all barriers.
    pub messages: u64,
    /// Link traversals of all messages.
    pub hops: u64,
    /// Hops beyond the Manhattan distance (detours).
    pub detour_hops: u64,
    /// Hops that stepped back along the message's own walk ([`Routing::Paper`]).
    pub back_steps: u64,
    /// A recorded run stopped recording after [`RECORDED_HOPS`] hops: the
    /// report has counts only, like an unrecorded run.
    pub recording_stopped: bool,
    /// Broken links.
    pub broken_links: usize,
    /// Per barrier: last leave − last arrival.
    pub delay_ticks: Vec<u64>,
    /// Per barrier: messages.
    pub barrier_messages: Vec<u64>,
    /// Per barrier: hops.
    pub barrier_hops: Vec<u64>,
    /// Per barrier: hops beyond the Manhattan distances.
    pub barrier_detour_hops: Vec<u64>,
    /// Back-steps per barrier.
    pub barrier_back_steps: Vec<u64>,
    /// Tick the last node left the last barrier.
    pub total_ticks: u64,
    /// Most traversals of one link (both directions).
    pub max_link_load: u64,
    /// That link.
    pub max_link: Option<(NodeId, NodeId)>,
    /// `(barrier, group, K)` for every non-zero adjustment.
    pub adjustments: Vec<(u32, u32, u32)>,
    /// Every DLCT root's judge decision, in time order.
    pub decisions: Vec<Decision>,
    /// Per node and barrier, arrival and leave ticks (`u64::MAX`: never).
    pub arrive: Vec<Vec<u64>>,
    /// See `arrive`.
    pub leave: Vec<Vec<u64>>,
    /// Hop events simulated.
    pub events: u64,
    /// Every message, when recording.
    pub trace: Vec<MessageRecord>,
    /// Every dropped send, when recording.
    pub dropped: Vec<DroppedSend>,
    /// The broken links as node pairs, when recording (for the checker).
    pub broken: Vec<(NodeId, NodeId)>,
}

/// A validated scenario, ready to run.
pub struct Simulation {
    scenario: Scenario,
    mesh: Mesh,
    router: Router,
    layers: Vec<Layer>,
    /// `member[level][node] = (group, local)` or `None`.
    member: Vec<Vec<Option<(u32, u32)>>>,
}

impl Simulation {
    /// Validates `scenario` and builds the structures on the intact mesh.
    ///
    /// # Errors
    /// The first parameter out of range.
    pub fn new(scenario: Scenario) -> Result<Simulation, ConfigError> {
        let mesh = Mesh::new(scenario.size)?;
        let check = |range: IntRange, v: u64| if range.contains(v) { Ok(()) } else { Err(ConfigError::int(range, v)) };
        check(BARRIERS, scenario.barriers.into())?;
        check(TILE, scenario.tile.into())?;
        check(TICKS, scenario.hop_ticks)?;
        check(IntRange { name: "overhead_ticks", min: 0, ..TICKS }, scenario.overhead_ticks)?;
        check(IntRange { name: "compute_ticks", min: 0, ..TICKS }, scenario.compute_ticks)?;
        check(IntRange { name: "skew_ticks", min: 0, ..TICKS }, scenario.skew_ticks)?;
        check(COMBINING, scenario.combining_k.into())?;
        if let Judge::Threshold(t) = scenario.judge {
            if !(0.0..=10.0).contains(&t) {
                return Err(ConfigError {
                    name: "threshold",
                    value: t.to_string(),
                    expected: "a fraction from 0 to 10".into(),
                });
            }
        }
        scenario.check_message_cap()?;
        let numbering = Numbering::of_mesh(&mesh, scenario.encoding)?;
        let breaks = match &scenario.breaks {
            Some(links) => Breaks::from_links(&mesh, links)?,
            None if scenario.connected => Breaks::random_connected(&mesh, scenario.break_rate, scenario.seed)?,
            None => Breaks::random(&mesh, scenario.break_rate, scenario.seed)?,
        };
        let layers = layers(&mesh, &numbering, scenario.algorithm, scenario.tile, scenario.combining_k);
        let mut member = vec![vec![None; mesh.nodes() as usize]; layers.len()];
        for (level, layer) in layers.iter().enumerate() {
            for (g, group) in layer.groups.iter().enumerate() {
                for (local, &node) in group.members.iter().enumerate() {
                    member[level][node as usize] = Some((g as u32, local as u32));
                }
            }
        }
        let router = Router::new(mesh, breaks, scenario.routing);
        Ok(Simulation { scenario, mesh, router, layers, member })
    }

    /// Messages of the whole run on the static structure: per group, a tree
    /// or DLCT sends `2·(members − 1)`, rounds send what their lists say, and
    /// a one-phase tile is released directly by its leader (`members − 1`).
    /// The DLCT tiles' hand-overs (at most two per tile and barrier) are not
    /// counted, so a run delivers this many or slightly more: a progress
    /// measure, not a check.
    pub fn expected_messages(&self) -> u64 {
        let two_layer = self.layers.len() > 1;
        let per_barrier: u64 = self
            .layers
            .iter()
            .enumerate()
            .flat_map(|(level, layer)| layer.groups.iter().zip(&layer.kinds).map(move |(g, k)| (level, g, k)))
            .map(|(level, group, kind)| {
                let members = group.members.len() as u64;
                match kind {
                    LayerKind::Tree { .. } | LayerKind::Dlct => 2 * members.saturating_sub(1),
                    LayerKind::Rounds { sends, .. } => {
                        let direct = if two_layer && level == 0 { members.saturating_sub(1) } else { 0 };
                        sends.iter().flatten().map(|r| r.len() as u64).sum::<u64>() + direct
                    }
                }
            })
            .sum();
        per_barrier * u64::from(self.scenario.barriers)
    }

    /// The validated scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The mesh.
    pub fn mesh(&self) -> Mesh {
        self.mesh
    }

    /// The broken links.
    pub fn breaks(&self) -> &Breaks {
        self.router.breaks()
    }

    /// The layers the algorithm runs, built on the intact mesh.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Runs the scenario.
    pub fn run(self) -> RunReport {
        let mut stepper = self.start();
        while !stepper.advance(u64::MAX) {}
        stepper.finish()
    }

    /// Starts the scenario without running it: [`Stepper::advance`] runs it
    /// in slices (the lab view keeps the page responsive this way).
    pub fn start(self) -> Stepper {
        Stepper(Run::new(self))
    }
}

/// A run in progress.
pub struct Stepper(Run);

impl Stepper {
    /// Processes at most `events` events; `true` once the run is over.
    pub fn advance(&mut self, events: u64) -> bool {
        self.0.go(events)
    }

    /// Messages delivered so far (a progress measure: the whole run delivers
    /// about [`Algorithm::messages_per_barrier`] × barriers).
    pub fn delivered(&self) -> u64 {
        self.0.delivered
    }

    /// The simulation being run.
    pub fn simulation(&self) -> &Simulation {
        &self.0.sim
    }

    /// The report (call after [`Stepper::advance`] returned `true`; earlier,
    /// the run is reported as not completed).
    pub fn finish(self) -> RunReport {
        self.0.report()
    }
}

struct Run {
    sim: Simulation,
    nodes: Vec<NodeState>,
    msgs: Vec<Msg>,
    /// Events by tick; within a tick in creation order, which is the
    /// `(time, sequence)` order without storing sequences.
    events: Calendar,
    link_free: Vec<u64>,
    link_load: Vec<u64>,
    rng: ChaCha8Rng,
    partitioned: bool,
    unroutable: u64,
    dropped: Vec<DroppedSend>,
    /// Each message's route and the tick at each of its nodes, when recording.
    routes: Vec<(Vec<NodeId>, Vec<u64>, Vec<u32>)>,
    violations: Vec<String>,
    arrive: Vec<Vec<u64>>,
    leave: Vec<Vec<u64>>,
    barrier_messages: Vec<u64>,
    barrier_hops: Vec<u64>,
    barrier_detour_hops: Vec<u64>,
    barrier_back_steps: Vec<u64>,
    recording_stopped: bool,
    detour_hops: u64,
    back_steps: u64,
    hop_events: u64,
    adjustments: Vec<(u32, u32, u32)>,
    decisions: Vec<Decision>,
    delivered: u64,
    consumed: u64,
}

impl Run {
    fn new(sim: Simulation) -> Run {
        let n = sim.mesh.nodes() as usize;
        let b = sim.scenario.barriers as usize;
        let mut run = Run {
            nodes: (0..n)
                .map(|_| NodeState {
                    counts: SlotCounts::default(),
                    stages: Vec::new(),
                    barrier: 0,
                    stage: 0,
                    computing: true,
                    round: 0,
                    round_sent: false,
                    queue: Vec::new(),
                    k: 0,
                    decided_k: 0,
                })
                .collect(),
            msgs: Vec::new(),
            events: Calendar::default(),
            link_free: vec![0; n * 4],
            link_load: vec![0; sim.mesh.link_count() as usize],
            rng: ChaCha8Rng::seed_from_u64(sim.scenario.seed ^ 0x5eed_5eed),
            partitioned: false,
            unroutable: 0,
            dropped: Vec::new(),
            routes: Vec::new(),
            violations: Vec::new(),
            arrive: vec![vec![u64::MAX; b]; n],
            leave: vec![vec![u64::MAX; b]; n],
            barrier_messages: vec![0; b],
            barrier_hops: vec![0; b],
            barrier_detour_hops: vec![0; b],
            barrier_back_steps: vec![0; b],
            recording_stopped: false,
            detour_hops: 0,
            back_steps: 0,
            hop_events: 0,
            adjustments: Vec::new(),
            decisions: Vec::new(),
            delivered: 0,
            consumed: 0,
            sim,
        };
        for node in 0..n as NodeId {
            let t = run.compute_time();
            run.push(t, Event::Enter(node));
        }
        run
    }

    fn compute_time(&mut self) -> u64 {
        let skew = self.sim.scenario.skew_ticks;
        self.sim.scenario.compute_ticks + if skew > 0 { self.rng.gen_range(0..=skew) } else { 0 }
    }

    fn push(&mut self, time: u64, event: Event) {
        self.events.push(time, event);
    }

    /// Processes up to `budget` events; `true` when none are left.
    fn go(&mut self, budget: u64) -> bool {
        for _ in 0..budget {
            let Some((t, event)) = self.events.pop() else { return true };
            match event {
                Event::Enter(node) => {
                    let stages = self.stages_for(node);
                    let state = &mut self.nodes[node as usize];
                    state.computing = false;
                    state.stages = stages;
                    self.arrive[node as usize][state.barrier as usize] = t;
                    self.progress(node, t);
                }
                Event::Hop(id) => self.hop(id, t),
                Event::Deliver(id) => {
                    let to = self.msgs[id].to;
                    self.msgs[id].delivered = t;
                    self.delivered += 1;
                    let state = &mut self.nodes[to as usize];
                    state.queue.push(id);
                    state.counts.add(slot(&self.msgs[id]));
                    self.progress(to, t);
                }
            }
        }
        false
    }

    fn group_of(&self, level: u8, node: NodeId) -> (u32, u32) {
        self.sim.member[level as usize][node as usize].expect("node belongs to the layer")
    }

    fn node_at(&self, level: u8, group: u32, local: u32) -> NodeId {
        self.sim.layers[level as usize].groups[group as usize].members[local as usize]
    }

    fn is_dlct(&self, level: u8, group: u32) -> bool {
        matches!(self.sim.layers[level as usize].kinds[group as usize], LayerKind::Dlct)
    }
}

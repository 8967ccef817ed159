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

use super::algorithm::{layers, Algorithm, Layer, LayerKind};
use super::encoding::{Encoding, Numbering, Structure};
use super::mesh::{Breaks, LinkId, Mesh, NodeId, Router};
use crate::limits::IntRange;
use crate::model::ConfigError;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cmp::Reverse;
use std::fmt;
use std::str::FromStr;

/// When the DLCT root adjusts.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Judge {
    /// Never adjust.
    Never,
    /// `K = 1` when the summed Gather path length exceeds the fault-free sum by
    /// more than this fraction (default 10 %).
    Threshold(f64),
    /// The `K` in `0..min(N, 64)` minimising the next barrier's contention-free
    /// critical path (gather + release) given the breaks; an upper bound.
    #[default]
    Oracle,
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
        }
    }
}

/// Messages a run may send (all-to-all grows as N²).
pub const MESSAGES: u64 = 100_000_000;
/// Messages a recorded run (an animation) may send.
pub const RECORDED_MESSAGES: u64 = 2_000_000;

const BARRIERS: IntRange = IntRange { name: "barriers", min: 1, max: 100 };
const TILE: IntRange = IntRange { name: "tile", min: 2, max: 64 };
const TICKS: IntRange = IntRange { name: "hop_ticks", min: 1, max: 1_000_000 };
const COMBINING: IntRange = IntRange { name: "combining_k", min: 2, max: 64 };

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
    /// Broken links.
    pub broken_links: usize,
    /// Per barrier: last leave − last arrival.
    pub delay_ticks: Vec<u64>,
    /// Per barrier: messages.
    pub barrier_messages: Vec<u64>,
    /// Per barrier: hops.
    pub barrier_hops: Vec<u64>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Gather(u8),
    Release(u8),
    Rounds(u8),
    ReleaseDirect(u8),
    /// A tile's DLCT root that is not the tile's leader tells the leader the tile arrived.
    HandUp,
    /// The leader waits for that message.
    AwaitHandUp,
    /// The leader hands the global release back to the tile's DLCT root.
    HandDown,
    /// The tile's DLCT root waits for it.
    AwaitHandDown,
}

struct Msg {
    from: NodeId,
    to: NodeId,
    barrier: u32,
    level: u8,
    kind: Kind,
    content: u64,
    /// The node it has reached.
    at: NodeId,
    /// The dead-end detour it follows, and the index of its next node.
    detour: Option<(std::sync::Arc<[NodeId]>, usize)>,
    /// Hops taken so far.
    hops: u32,
    sent: u64,
    /// Tick it was handed to the receiver.
    delivered: u64,
    /// Tick and receiver's barrier when taken from the queue.
    consumed: Option<(u64, u32)>,
}

/// What a queued message counts as: the literal protocol counts Gather,
/// Release and hand-over messages by kind only, one-phase rounds by barrier and round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Gather(u8),
    Release(u8),
    Round(u8, u32, u32),
    HandUp,
    HandDown,
}

/// Queued messages per slot of one node: a few slots at a time, so a short
/// list (a map per node cost ~250 bytes per node on million-node meshes).
#[derive(Default)]
struct SlotCounts(Vec<(Slot, usize)>);

impl SlotCounts {
    fn get(&self, slot: Slot) -> usize {
        self.0.iter().find(|(s, _)| *s == slot).map_or(0, |&(_, n)| n)
    }

    fn add(&mut self, slot: Slot) {
        match self.0.iter_mut().find(|(s, _)| *s == slot) {
            Some((_, n)) => *n += 1,
            None => self.0.push((slot, 1)),
        }
    }

    fn remove(&mut self, slot: Slot, taken: usize) {
        if let Some(i) = self.0.iter().position(|(s, _)| *s == slot) {
            self.0[i].1 -= taken;
            if self.0[i].1 == 0 {
                self.0.swap_remove(i);
            }
        }
    }
}

fn slot(m: &Msg) -> Slot {
    match m.kind {
        Kind::Gather => Slot::Gather(m.level),
        Kind::Release(_) => Slot::Release(m.level),
        Kind::Round(r) => Slot::Round(m.level, m.barrier, r),
        Kind::HandUp => Slot::HandUp,
        Kind::HandDown => Slot::HandDown,
    }
}

struct NodeState {
    /// Queued messages per slot, so waiting costs O(log) instead of a queue scan.
    counts: SlotCounts,
    stages: Vec<Stage>,
    barrier: u32,
    stage: usize,
    computing: bool,
    round: u32,
    round_sent: bool,
    queue: Vec<usize>,
    k: u32,
    decided_k: u32,
}

#[derive(Clone, Copy)]
enum Event {
    Enter(NodeId),
    Hop(usize),
    Deliver(usize),
}

/// Ticks the calendar's ring covers ahead of the current tick.
const RING: u64 = 256;

/// The event queue: a ring of per-tick buckets for the next [`RING`] ticks
/// (hops and overheads land there) and an ordered map beyond (the compute
/// phases). Within a tick, events come out in creation order, which is the
/// `(time, sequence)` order without storing sequences: events for a far tick
/// are created before any for the same tick in the ring, and move to the ring
/// before any ring event for that tick can be created.
#[derive(Default)]
struct Calendar {
    /// The tick being drained.
    now: u64,
    /// Events of the current bucket already returned.
    cursor: usize,
    /// `ring[t % RING]`: the events of tick `t`, `now ≤ t < now + RING`.
    ring: Vec<Vec<Event>>,
    /// Events in the ring.
    in_ring: usize,
    /// Events at `now + RING` or later.
    far: std::collections::BTreeMap<u64, Vec<Event>>,
}

impl Calendar {
    fn push(&mut self, time: u64, event: Event) {
        debug_assert!(time >= self.now, "events are never scheduled in the past");
        if self.ring.is_empty() {
            self.ring = vec![Vec::new(); RING as usize];
        }
        if time < self.now + RING {
            self.ring[(time % RING) as usize].push(event);
            self.in_ring += 1;
        } else {
            self.far.entry(time).or_default().push(event);
        }
    }

    /// Moves the far events that the ring now covers into it.
    fn migrate(&mut self) {
        while let Some(entry) = self.far.first_entry() {
            if *entry.key() >= self.now + RING {
                break;
            }
            let (time, events) = entry.remove_entry();
            self.in_ring += events.len();
            self.ring[(time % RING) as usize].extend(events);
        }
    }

    fn pop(&mut self) -> Option<(u64, Event)> {
        loop {
            if self.ring.is_empty() {
                return None;
            }
            let slot = (self.now % RING) as usize;
            if let Some(&event) = self.ring[slot].get(self.cursor) {
                self.cursor += 1;
                self.in_ring -= 1;
                return Some((self.now, event));
            }
            self.ring[slot].clear();
            self.cursor = 0;
            if self.in_ring == 0 {
                // Jump over idle ticks to the next far event, if any.
                let &next = self.far.keys().next()?;
                self.now = next;
            } else {
                self.now += 1;
            }
            self.migrate();
        }
    }
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
                    expected: "a fraction in 0..=10".into(),
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
        let router = Router::new(mesh, breaks);
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

/// The nodes a node releases in one layer, given its DLCT shift: the
/// wake-up tree's children (the arrival tree's, except for MCS and the
/// tournament).
fn wakes(layer: &Layer, group: u32, local: u32, k: u32) -> Vec<u32> {
    match &layer.kinds[group as usize] {
        LayerKind::Tree { release: Some(release), .. } => release[local as usize].clone(),
        _ => relatives(layer, group, local, k).1,
    }
}

/// Parent and children of a node in one layer, given its DLCT shift.
fn relatives(layer: &Layer, group: u32, local: u32, k: u32) -> (Option<u32>, Vec<u32>) {
    let g = group as usize;
    let n = layer.groups[g].len();
    match &layer.kinds[g] {
        LayerKind::Tree { parent, children, .. } => (parent[local as usize], children[local as usize].clone()),
        LayerKind::Dlct => {
            let id = (local + k) % n;
            let to_local = |id: u32| (id + n - k % n) % n;
            (
                Structure::Lct.parent(id).map(to_local),
                Structure::Lct.children(id, n).into_iter().map(to_local).collect(),
            )
        }
        LayerKind::Rounds { .. } => (None, Vec::new()),
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
    routes: Vec<(Vec<NodeId>, Vec<u64>)>,
    violations: Vec<String>,
    arrive: Vec<Vec<u64>>,
    leave: Vec<Vec<u64>>,
    barrier_messages: Vec<u64>,
    barrier_hops: Vec<u64>,
    detour_hops: u64,
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
            detour_hops: 0,
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

    fn send(&mut self, from: NodeId, to: NodeId, level: u8, kind: Kind, content: u64, t: u64) {
        let barrier = self.nodes[from as usize].barrier;
        if !self.sim.router.reachable(from, to) {
            self.partitioned = true;
            self.unroutable += 1;
            if self.sim.scenario.record {
                self.dropped.push(DroppedSend { barrier, from, to, tick: t });
            }
            return;
        }
        let id = self.msgs.len();
        self.barrier_messages[barrier as usize] += 1;
        if self.sim.scenario.record {
            self.routes.push((Vec::new(), Vec::new()));
        }
        self.msgs.push(Msg {
            from,
            to,
            barrier,
            level,
            kind,
            content,
            at: from,
            detour: None,
            hops: 0,
            sent: t,
            delivered: u64::MAX,
            consumed: None,
        });
        let depart = t + self.sim.scenario.overhead_ticks;
        if from == to {
            self.push(depart + self.sim.scenario.overhead_ticks, Event::Deliver(id));
        } else {
            self.push(depart, Event::Hop(id));
        }
    }

    /// The message is at its current node at `t` and takes the next link.
    fn hop(&mut self, id: usize, t: u64) {
        let mesh = self.sim.mesh;
        let record = self.sim.scenario.record;
        let msg = &mut self.msgs[id];
        let at = msg.at;
        let (next, direction) = self.sim.router.next_step(at, msg.to, &mut msg.detour);
        let slot = at as usize * 4 + direction;
        let start = if self.sim.scenario.contention { t.max(self.link_free[slot]) } else { t };
        self.link_free[slot] = start + 1;
        self.link_load[mesh.link(at, next) as usize] += 1;
        self.hop_events += 1;
        let arrival = start + self.sim.scenario.hop_ticks;
        msg.hops += 1;
        msg.at = next;
        self.barrier_hops[msg.barrier as usize] += 1;
        if record {
            // Nodes visited after `from` and the tick at each, kept beside the
            // messages so unrecorded runs carry no route state per message.
            let (path, times) = &mut self.routes[id];
            path.push(next);
            times.push(arrival);
        }
        if next == msg.to {
            if msg.kind == Kind::Gather {
                msg.content += u64::from(msg.hops);
            }
            self.detour_hops += u64::from(msg.hops - mesh.distance(msg.from, msg.to));
            let done = arrival + self.sim.scenario.overhead_ticks;
            self.push(done, Event::Deliver(id));
        } else {
            self.push(arrival, Event::Hop(id));
        }
    }

    /// Takes `limit` queued messages of `want` (in arrival order), checking their barrier.
    fn take(&mut self, node: NodeId, limit: usize, want: Slot, t: u64) -> Vec<usize> {
        let barrier = self.nodes[node as usize].barrier;
        let mut taken = Vec::with_capacity(limit);
        let msgs = &self.msgs;
        self.nodes[node as usize].queue.retain(|&id| {
            let take = taken.len() < limit && slot(&msgs[id]) == want;
            if take {
                taken.push(id);
            }
            !take
        });
        let state = &mut self.nodes[node as usize];
        state.counts.remove(want, taken.len());
        for &id in &taken {
            let m = &mut self.msgs[id];
            m.consumed = Some((t, barrier));
            if m.barrier != barrier {
                self.violations
                    .push(format!("node {node} consumed a message of barrier {} during barrier {barrier}", m.barrier));
            }
        }
        self.consumed += taken.len() as u64;
        taken
    }

    fn count(&self, node: NodeId, want: Slot) -> usize {
        self.nodes[node as usize].counts.get(want)
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

    /// Advances `node` as far as its queue allows.
    fn progress(&mut self, node: NodeId, t: u64) {
        loop {
            let state = &self.nodes[node as usize];
            if state.computing || state.barrier >= self.sim.scenario.barriers {
                return;
            }
            if state.stage == state.stages.len() {
                self.leave_barrier(node, t);
                continue;
            }
            let advanced = match state.stages[state.stage] {
                Stage::Gather(level) => self.gather(node, level, t),
                Stage::Release(level) => self.release(node, level, t),
                Stage::Rounds(level) => self.rounds(node, level, t),
                Stage::ReleaseDirect(level) => self.release_direct(node, level, t),
                Stage::HandUp => self.hand(node, Kind::HandUp, t),
                Stage::HandDown => self.hand(node, Kind::HandDown, t),
                Stage::AwaitHandUp => {
                    self.count(node, Slot::HandUp) > 0 && !self.take(node, 1, Slot::HandUp, t).is_empty()
                }
                Stage::AwaitHandDown => {
                    self.count(node, Slot::HandDown) > 0 && !self.take(node, 1, Slot::HandDown, t).is_empty()
                }
            };
            if !advanced {
                return;
            }
            self.nodes[node as usize].stage += 1;
        }
    }

    /// What `node` does in its coming barrier. Two-layer DLCT tiles: the tile
    /// leader (local 0, fixed) represents the tile among leaders; once an
    /// adjustment moved the tile's DLCT root elsewhere, the root hands the
    /// tile's arrival up to the leader and the leader hands the release back
    /// (two extra messages per tile and barrier).
    fn stages_for(&self, node: NodeId) -> Vec<Stage> {
        let (group, local) = self.group_of(0, node);
        let layers = &self.sim.layers;
        let one_phase = matches!(layers[0].kinds[group as usize], LayerKind::Rounds { .. });
        if layers.len() == 1 {
            return if one_phase { vec![Stage::Rounds(0)] } else { vec![Stage::Gather(0), Stage::Release(0)] };
        }
        let leader = local == 0;
        if one_phase {
            return if leader {
                vec![Stage::Rounds(0), Stage::Gather(1), Stage::Release(1), Stage::ReleaseDirect(0)]
            } else {
                vec![Stage::Rounds(0), Stage::ReleaseDirect(0)]
            };
        }
        let n = layers[0].groups[group as usize].len();
        let root = (local + self.nodes[node as usize].k) % n == 0;
        match (leader, root) {
            (true, true) => vec![Stage::Gather(0), Stage::Gather(1), Stage::Release(1), Stage::Release(0)],
            (false, true) => vec![Stage::Gather(0), Stage::HandUp, Stage::AwaitHandDown, Stage::Release(0)],
            (true, false) => vec![
                Stage::Gather(0),
                Stage::AwaitHandUp,
                Stage::Gather(1),
                Stage::Release(1),
                Stage::HandDown,
                Stage::Release(0),
            ],
            (false, false) => vec![Stage::Gather(0), Stage::Release(0)],
        }
    }

    /// Sends a hand-over between a tile's DLCT root and its leader.
    fn hand(&mut self, node: NodeId, kind: Kind, t: u64) -> bool {
        let (group, _) = self.group_of(0, node);
        let to = if kind == Kind::HandUp {
            self.node_at(0, group, 0)
        } else {
            let n = self.sim.layers[0].groups[group as usize].len();
            let k = self.nodes[node as usize].k;
            self.node_at(0, group, (n - k % n) % n)
        };
        self.send(node, to, 0, kind, 0, t);
        true
    }

    fn leave_barrier(&mut self, node: NodeId, t: u64) {
        let state = &mut self.nodes[node as usize];
        self.leave[node as usize][state.barrier as usize] = t;
        state.barrier += 1;
        state.stage = 0;
        if state.barrier < self.sim.scenario.barriers {
            state.computing = true;
            let at = t + self.compute_time();
            self.push(at, Event::Enter(node));
        }
    }

    fn gather(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        let k = self.nodes[node as usize].k;
        let (parent, children) = relatives(&self.sim.layers[level as usize], group, local, k);
        if self.count(node, Slot::Gather(level)) < children.len() {
            return false;
        }
        // Clear the Gather queue before sending to the parent.
        let taken = self.take(node, children.len(), Slot::Gather(level), t);
        let sum: u64 = taken.iter().map(|&id| self.msgs[id].content).sum();
        if let Some(p) = parent {
            let to = self.node_at(level, group, p);
            self.send(node, to, level, Kind::Gather, sum, t);
        } else {
            let k = if self.is_dlct(level, group) {
                let k = self.judge(level, group, local, sum);
                let fault_free = self.fault_free(level, group, local);
                let barrier = self.nodes[node as usize].barrier;
                self.decisions.push(Decision { barrier, group, tick: t, root: node, path_sum: sum, fault_free, k });
                k
            } else {
                0
            };
            self.nodes[node as usize].decided_k = k;
        }
        true
    }

    fn release(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        let k_now = self.nodes[node as usize].k;
        let layer = &self.sim.layers[level as usize];
        let (parent, children) = (relatives(layer, group, local, k_now).0, wakes(layer, group, local, k_now));
        let k = if parent.is_none() {
            self.nodes[node as usize].decided_k
        } else {
            if self.count(node, Slot::Release(level)) == 0 {
                return false;
            }
            let taken = self.take(node, 1, Slot::Release(level), t);
            let Some(&id) = taken.first() else { return false };
            match self.msgs[id].kind {
                Kind::Release(k) => k,
                _ => unreachable!("filtered to releases"),
            }
        };
        // Forward first, then adjust.
        for c in children {
            let to = self.node_at(level, group, c);
            self.send(node, to, level, Kind::Release(k), 0, t);
        }
        if self.is_dlct(level, group) && k > 0 {
            let n = self.sim.layers[level as usize].groups[group as usize].len();
            self.nodes[node as usize].k = (k_now + k) % n;
            if parent.is_none() {
                self.adjustments.push((self.nodes[node as usize].barrier, group, k));
            }
        }
        true
    }

    fn rounds(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        let barrier = self.nodes[node as usize].barrier;
        loop {
            let LayerKind::Rounds { sends, expects } = &self.sim.layers[level as usize].kinds[group as usize] else {
                unreachable!("rounds stage on a rounds layer")
            };
            let round = self.nodes[node as usize].round;
            if round as usize == expects[local as usize].len() {
                self.nodes[node as usize].round = 0;
                return true;
            }
            let targets = sends[local as usize][round as usize].clone();
            let need = expects[local as usize][round as usize] as usize;
            if !self.nodes[node as usize].round_sent {
                self.nodes[node as usize].round_sent = true;
                for target in targets {
                    let to = self.node_at(level, group, target);
                    self.send(node, to, level, Kind::Round(round), 0, t);
                }
            }
            let this_round = Slot::Round(level, barrier, round);
            if self.count(node, this_round) < need {
                return false;
            }
            self.take(node, need, this_round, t);
            let state = &mut self.nodes[node as usize];
            state.round += 1;
            state.round_sent = false;
        }
    }

    fn release_direct(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        if local == 0 {
            let n = self.sim.layers[level as usize].groups[group as usize].len();
            for other in 1..n {
                let to = self.node_at(level, group, other);
                self.send(node, to, level, Kind::Release(0), 0, t);
            }
            return true;
        }
        self.count(node, Slot::Release(level)) > 0 && !self.take(node, 1, Slot::Release(level), t).is_empty()
    }

    /// Summed fault-free distances from every member to its LCT parent under
    /// the group's current numbering (`local` is the root's local id).
    fn fault_free(&self, level: u8, group: u32, local: u32) -> u64 {
        let k = self.nodes[self.node_at(level, group, local) as usize].k;
        let members = &self.sim.layers[level as usize].groups[group as usize].members;
        let n = members.len() as u32;
        let node_of = |id: u32| members[((id + n - k % n) % n) as usize];
        (1..n)
            .map(|id| u64::from(self.sim.mesh.distance(node_of(id), node_of(Structure::Lct.parent(id).unwrap_or(0)))))
            .sum()
    }

    /// The root's decision (`local` is the root's local id, `sum` the summed path lengths).
    fn judge(&mut self, level: u8, group: u32, local: u32, sum: u64) -> u32 {
        let k = self.nodes[self.node_at(level, group, local) as usize].k;
        let members = self.sim.layers[level as usize].groups[group as usize].members.clone();
        let n = members.len() as u32;
        let node_of = |id: u32, k: u32| members[((id + n - k % n) % n) as usize];
        match self.sim.scenario.judge {
            Judge::Never => 0,
            Judge::Threshold(threshold) => {
                let fault_free = self.fault_free(level, group, local);
                u32::from(sum as f64 > (1.0 + threshold) * fault_free as f64)
            }
            Judge::Oracle => {
                let mut best = (u64::MAX, 0);
                for extra in 0..n.min(64) {
                    let shift = (k + extra) % n;
                    let cost = self.critical_path(n, &|id| node_of(id, shift));
                    if cost < best.0 {
                        best = (cost, extra);
                    }
                }
                best.1
            }
        }
    }

    /// Contention-free gather + release critical path (in hops) of an LCT numbering.
    fn critical_path(&mut self, n: u32, node_of: &dyn Fn(u32) -> NodeId) -> u64 {
        let mut up = vec![0u64; n as usize];
        let mut down = vec![0u64; n as usize];
        let mut hops = vec![0u64; n as usize];
        for id in 1..n {
            let parent = Structure::Lct.parent(id).unwrap_or(0);
            match self.sim.router.route(node_of(id), node_of(parent)) {
                Some(p) => hops[id as usize] = p.len() as u64,
                None => return u64::MAX,
            }
        }
        for id in (1..n).rev() {
            let parent = Structure::Lct.parent(id).unwrap_or(0) as usize;
            up[parent] = up[parent].max(up[id as usize] + hops[id as usize]);
        }
        for id in 1..n {
            let parent = Structure::Lct.parent(id).unwrap_or(0) as usize;
            down[id as usize] = down[parent] + hops[id as usize];
        }
        up[0] + down.iter().copied().max().unwrap_or(0)
    }

    fn report(self) -> RunReport {
        let barriers = self.sim.scenario.barriers as usize;
        let completed = !self.partitioned && self.nodes.iter().all(|s| s.barrier as usize == barriers);
        let mut violations = self.violations;
        let mut delay_ticks = Vec::new();
        for b in 0..barriers {
            let last_arrival = self.arrive.iter().map(|a| a[b]).max().unwrap_or(0);
            let first_leave = self.leave.iter().map(|l| l[b]).min().unwrap_or(0);
            let last_leave = self.leave.iter().map(|l| l[b]).max().unwrap_or(0);
            if completed {
                if first_leave < last_arrival {
                    violations.push(format!(
                        "barrier {b}: a node left at tick {first_leave} before the last arrival at {last_arrival}"
                    ));
                }
                delay_ticks.push(last_leave - last_arrival);
            }
        }
        let messages = self.msgs.len() as u64;
        let hops: u64 = self.msgs.iter().map(|m| u64::from(m.hops)).sum();
        if completed {
            if self.delivered != messages || self.consumed != messages {
                violations.push(format!(
                    "{messages} messages sent, {} delivered, {} consumed",
                    self.delivered, self.consumed
                ));
            }
            if self.barrier_hops.iter().sum::<u64>() != hops || self.hop_events != hops {
                violations.push("hop counts do not add up".into());
            }
        }
        let (max_link_load, max_link) = self
            .link_load
            .iter()
            .enumerate()
            .max_by_key(|&(i, &l)| (l, Reverse(i)))
            .map_or((0, None), |(i, &l)| (l, (l > 0).then(|| self.sim.mesh.endpoints(i as LinkId))));
        let trace = if self.sim.scenario.record {
            self.msgs
                .iter()
                .enumerate()
                .map(|(i, m)| MessageRecord {
                    barrier: m.barrier,
                    level: m.level,
                    kind: m.kind,
                    from: m.from,
                    to: m.to,
                    sent: m.sent,
                    delivered: m.delivered,
                    path: self.routes[i].0.clone(),
                    times: self.routes[i].1.clone(),
                    content: if m.kind == Kind::Gather { m.content } else { 0 },
                    consumed: m.consumed,
                })
                .collect()
        } else {
            Vec::new()
        };
        RunReport {
            completed,
            partitioned: self.partitioned,
            unroutable: self.unroutable,
            safe: violations.is_empty(),
            violations,
            messages,
            hops,
            detour_hops: self.detour_hops,
            broken_links: self.sim.router.breaks().count(),
            delay_ticks,
            barrier_messages: self.barrier_messages,
            barrier_hops: self.barrier_hops,
            total_ticks: if completed { self.leave.iter().map(|l| l[barriers - 1]).max().unwrap_or(0) } else { 0 },
            max_link_load,
            max_link,
            adjustments: self.adjustments,
            decisions: self.decisions,
            arrive: self.arrive,
            leave: self.leave,
            events: self.hop_events,
            trace,
            dropped: self.dropped,
            broken: if self.sim.scenario.record {
                self.sim.router.breaks().links().into_iter().map(|l| self.sim.mesh.endpoints(l)).collect()
            } else {
                Vec::new()
            },
        }
    }
}

#[cfg(test)]
mod calendar_tests {
    use super::{Calendar, Event, RING};

    fn id(e: Event) -> usize {
        match e {
            Event::Hop(i) | Event::Deliver(i) => i,
            Event::Enter(n) => n as usize,
        }
    }

    /// The calendar pops in `(time, creation)` order, like a heap of `(time, sequence)`.
    #[test]
    fn pops_in_time_then_creation_order() {
        let mut cal = Calendar::default();
        let mut reference = Vec::new();
        let mut seq = 0;
        let mut push = |cal: &mut Calendar, reference: &mut Vec<(u64, usize)>, t: u64| {
            cal.push(t, Event::Hop(seq));
            reference.push((t, seq));
            seq += 1;
        };
        // Far events first (the compute phase), then near ones for the same ticks.
        for t in [500, RING + 3, 2, 500, 0, 2 * RING + 7] {
            push(&mut cal, &mut reference, t);
        }
        let mut out = Vec::new();
        while let Some((t, e)) = cal.pop() {
            out.push((t, id(e)));
            // Each popped event schedules follow-ups, some far, some at the same tick.
            if out.len() < 40 {
                push(&mut cal, &mut reference, t + (out.len() as u64 % 3) * 97);
            }
        }
        reference.sort_by_key(|&(t, s)| (t, s));
        assert_eq!(out, reference);
    }
}

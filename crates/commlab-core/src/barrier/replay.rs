//! A recorded barrier run as something to watch: the ticks where something
//! happens, the state of every node and message at a tick, the node IDs after
//! the `round(K)` adjustments applied so far, per-barrier statistics, and a
//! caption. The mesh view draws from this and nothing else.

use super::algorithm::{Layer, LayerKind};
use super::encoding::Numbering;
use super::engine::{Kind, MessageRecord, RunReport, Scenario, Simulation, Stepper};
use super::mesh::{Breaks, LinkId, Mesh, NodeId};
use crate::limits::ConfigError;
use std::fmt::Write as _;

/// What a node is doing at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeStatus {
    /// Computing before barrier `b` (released from `b − 1`, or not started).
    Computing(u32),
    /// Arrived at barrier `b`, waiting to be released.
    Waiting(u32),
    /// Left the last barrier.
    Done,
}

/// A message on its way at a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InFlight {
    /// Index into [`RunReport::trace`].
    pub index: usize,
    /// The node it has reached.
    pub at: NodeId,
    /// The node it goes to next (`None`: waiting for the receiver's overhead).
    pub next: Option<NodeId>,
    /// Kind.
    pub kind: Kind,
    /// Its route is longer than the Manhattan distance.
    pub detour: bool,
}

impl InFlight {
    /// Whether hop `hop` (an index into its route) of message `m` steps back
    /// along its own walk.
    pub fn is_back_step(m: &MessageRecord, hop: usize) -> bool {
        m.back_steps.binary_search(&(hop as u32)).is_ok()
    }
}

/// Statistics of one barrier from the recorded messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrierStats {
    /// Last leave − last arrival (`None` when the run did not complete).
    pub delay: Option<u64>,
    /// End-to-end messages.
    pub messages: u64,
    /// Link traversals.
    pub hops: u64,
    /// Hops beyond the Manhattan distances.
    pub detour_hops: u64,
    /// Hops that stepped back along their message's own walk.
    pub back_steps: u64,
    /// Most traversals of one link (both directions) in this barrier, and the link.
    pub max_load: u64,
    /// That link.
    pub max_link: Option<LinkId>,
    /// The `K` decided by the (first) DLCT root, when the algorithm has one.
    pub k: Option<u32>,
}

/// A recorded run, ready to be scrubbed through.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The scenario (with `record` set).
    pub scenario: Scenario,
    /// The mesh.
    pub mesh: Mesh,
    /// The broken links.
    pub breaks: Breaks,
    /// The numbering of the chosen encoding.
    pub numbering: Numbering,
    /// The algorithm's layers.
    pub layers: Vec<Layer>,
    /// The run, with its trace.
    pub report: RunReport,
    /// Ticks where something happens, ascending: step `s ≥ 1` shows `frames[s − 1]`.
    pub frames: Vec<u64>,
    /// `(group, local)` of every node in layer 0.
    member: Vec<(u32, u32)>,
}

impl Replay {
    /// Runs `scenario` with recording on.
    ///
    /// # Errors
    /// The first parameter out of range.
    pub fn new(scenario: Scenario) -> Result<Replay, ConfigError> {
        let mut run = ReplayRun::start(scenario)?;
        while !run.advance(u64::MAX) {}
        Ok(run.finish())
    }

    /// Builds the replay of a finished run.
    fn of_run(scenario: Scenario, mesh: Mesh, breaks: Breaks, layers: Vec<Layer>, report: RunReport) -> Replay {
        let numbering = Numbering::of_mesh(&mesh, scenario.encoding).expect("validated by Simulation::new");
        let mut member = vec![(0, 0); mesh.nodes() as usize];
        for (g, group) in layers[0].groups.iter().enumerate() {
            for (local, &node) in group.members.iter().enumerate() {
                member[node as usize] = (g as u32, local as u32);
            }
        }
        let mut frames: Vec<u64> = report
            .trace
            .iter()
            .flat_map(|m| std::iter::once(m.sent).chain(m.times.iter().copied()).chain(std::iter::once(m.delivered)))
            .chain(report.arrive.iter().chain(&report.leave).flatten().copied().filter(|&t| t != u64::MAX))
            .collect();
        frames.sort_unstable();
        frames.dedup();
        Replay { scenario, mesh, breaks, numbering, layers, report, frames, member }
    }

    /// Animation steps (step 0 is the start, before any barrier).
    pub fn steps(&self) -> usize {
        self.frames.len()
    }

    /// The tick shown at `step`.
    pub fn tick(&self, step: usize) -> u64 {
        match step {
            0 => 0,
            s => self.frames[s.min(self.frames.len()) - 1],
        }
    }

    /// What `node` does at tick `t`.
    pub fn status(&self, node: NodeId, t: u64) -> NodeStatus {
        let (arrive, leave) = (&self.report.arrive[node as usize], &self.report.leave[node as usize]);
        match leave.iter().position(|&l| l > t) {
            None => NodeStatus::Done,
            Some(b) if arrive[b] <= t => NodeStatus::Waiting(b as u32),
            Some(b) => NodeStatus::Computing(b as u32),
        }
    }

    /// Whether layer 0's group of `node` runs the DLCT.
    fn dlct_group(&self, node: NodeId) -> bool {
        matches!(self.layers[0].kinds[self.member[node as usize].0 as usize], LayerKind::Dlct)
    }

    /// The shift `K` that `node` has applied by tick `t` (sum of the Releases'
    /// `K` of the barriers it left, modulo its group's size).
    pub fn shift(&self, node: NodeId, t: u64) -> u32 {
        if !self.dlct_group(node) {
            return 0;
        }
        let (group, _) = self.member[node as usize];
        let n = self.layers[0].groups[group as usize].len();
        let leave = &self.report.leave[node as usize];
        self.report
            .adjustments
            .iter()
            .filter(|&&(b, g, _)| g == group && leave.get(b as usize).is_some_and(|&l| l <= t))
            .fold(0, |acc, &(_, _, k)| (acc + k) % n)
    }

    /// The ID `node` goes by at tick `t`: its DLCT ID (local to its tile in the
    /// two-layer forms) after the adjustments applied so far, otherwise the
    /// encoding's ID.
    pub fn id(&self, node: NodeId, t: u64) -> u32 {
        if self.dlct_group(node) {
            let (group, local) = self.member[node as usize];
            let n = self.layers[0].groups[group as usize].len();
            (local + self.shift(node, t)) % n
        } else {
            self.numbering.id(node, 0)
        }
    }

    /// Each node's label at tick `t`: its [`Replay::id`], with a prime (′)
    /// when it already goes by a newer numbering than another node of its
    /// group. Between the first and the last node leaving an adjusting
    /// barrier two numberings are in use at once, and without the mark an
    /// old and a new ID would read alike ("30" twice).
    pub fn labels(&self, t: u64) -> Vec<String> {
        let nodes = self.mesh.nodes();
        // Adjustments applied per node, and the fewest in each group.
        let applied: Vec<usize> = (0..nodes)
            .map(|node| {
                if !self.dlct_group(node) {
                    return 0;
                }
                let (group, _) = self.member[node as usize];
                let leave = &self.report.leave[node as usize];
                self.report
                    .adjustments
                    .iter()
                    .filter(|&&(b, g, _)| g == group && leave.get(b as usize).is_some_and(|&l| l <= t))
                    .count()
            })
            .collect();
        let mut fewest = std::collections::HashMap::new();
        for node in (0..nodes).filter(|&n| self.dlct_group(n)) {
            let group = self.member[node as usize].0;
            let f = fewest.entry(group).or_insert(usize::MAX);
            *f = (*f).min(applied[node as usize]);
        }
        (0..nodes)
            .map(|node| {
                let id = self.id(node, t);
                let newer = self.dlct_group(node)
                    && fewest.get(&self.member[node as usize].0).is_some_and(|&f| applied[node as usize] > f);
                if newer {
                    format!("{id}\u{2032}")
                } else {
                    id.to_string()
                }
            })
            .collect()
    }

    /// The messages under way at tick `t` (sent, not yet delivered).
    pub fn in_flight(&self, t: u64) -> Vec<InFlight> {
        self.report
            .trace
            .iter()
            .enumerate()
            .filter(|(_, m)| m.sent <= t && t < m.delivered)
            .map(|(index, m)| {
                let hops = m.times.partition_point(|&a| a <= t);
                let at = if hops == 0 { m.from } else { m.path[hops - 1] };
                InFlight { index, at, next: m.path.get(hops).copied(), kind: m.kind, detour: self.is_detour(m) }
            })
            .collect()
    }

    /// Whether a message's route is longer than the Manhattan distance.
    fn is_detour(&self, m: &MessageRecord) -> bool {
        m.path.len() as u64 > u64::from(self.mesh.distance(m.from, m.to))
    }

    /// The barrier the run is in at tick `t`: the lowest barrier some node has not left.
    pub fn barrier_at(&self, t: u64) -> u32 {
        let b = self.report.leave.iter().map(|l| l.iter().position(|&x| x > t).unwrap_or(l.len())).min();
        b.unwrap_or(0) as u32
    }

    /// Per-link traversals (both directions) of the messages of barrier `b`,
    /// or of all barriers when `b` is `None`.
    pub fn link_load(&self, b: Option<u32>) -> Vec<u64> {
        let mut load = vec![0u64; self.mesh.link_count() as usize];
        for m in self.report.trace.iter().filter(|m| b.is_none_or(|b| m.barrier == b)) {
            let mut at = m.from;
            for &next in &m.path {
                load[self.mesh.link(at, next) as usize] += 1;
                at = next;
            }
        }
        load
    }

    /// Statistics of every barrier.
    pub fn barrier_stats(&self) -> Vec<BarrierStats> {
        if !self.scenario.record {
            // A run too large to record: the engine's own counts per barrier,
            // no link loads (they come from the routes).
            let r = &self.report;
            let at = |v: &[u64], b: u32| v.get(b as usize).copied().unwrap_or(0);
            return (0..self.scenario.barriers)
                .map(|b| BarrierStats {
                    delay: r.delay_ticks.get(b as usize).copied(),
                    messages: at(&r.barrier_messages, b),
                    hops: at(&r.barrier_hops, b),
                    detour_hops: at(&r.barrier_detour_hops, b),
                    back_steps: at(&r.barrier_back_steps, b),
                    max_load: 0,
                    max_link: None,
                    k: r.decisions.iter().find(|d| d.barrier == b).map(|d| d.k),
                })
                .collect();
        }
        (0..self.scenario.barriers)
            .map(|b| {
                let msgs = self.report.trace.iter().filter(|m| m.barrier == b);
                let (mut messages, mut hops, mut detour_hops, mut back_steps) = (0, 0, 0, 0);
                for m in msgs {
                    messages += 1;
                    hops += m.path.len() as u64;
                    back_steps += m.back_steps.len() as u64;
                    detour_hops += m.path.len() as u64 - u64::from(self.mesh.distance(m.from, m.to));
                }
                let load = self.link_load(Some(b));
                let max = load.iter().enumerate().max_by_key(|&(i, &l)| (l, std::cmp::Reverse(i)));
                let (max_link, max_load) = max.map_or((None, 0), |(i, &l)| ((l > 0).then_some(i as LinkId), l));
                BarrierStats {
                    delay: self.report.delay_ticks.get(b as usize).copied(),
                    messages,
                    hops,
                    detour_hops,
                    back_steps,
                    max_load,
                    max_link,
                    k: self.report.decisions.iter().find(|d| d.barrier == b).map(|d| d.k),
                }
            })
            .collect()
    }

    /// One or two sentences on what happens at `step`.
    pub fn caption(&self, step: usize) -> String {
        let r = &self.report;
        let barriers = self.scenario.barriers;
        if step == 0 {
            return format!(
                "Start: {} nodes compute {} ticks, then enter barrier 1 of {barriers}. {} of {} links are broken. Press play or step forward.",
                self.mesh.nodes(),
                self.scenario.compute_ticks,
                self.breaks.count(),
                self.mesh.link_count()
            );
        }
        let t = self.tick(step);
        let mut counts = [0usize; 3];
        for node in 0..self.mesh.nodes() {
            counts[match self.status(node, t) {
                NodeStatus::Computing(_) => 0,
                NodeStatus::Waiting(_) => 1,
                NodeStatus::Done => 2,
            }] += 1;
        }
        let flying = self.in_flight(t);
        let by_kind = |k: fn(&Kind) -> bool| flying.iter().filter(|m| k(&m.kind)).count();
        let gathers = by_kind(|k| *k == Kind::Gather);
        let releases = by_kind(|k| matches!(k, Kind::Release(_)));
        let b = self.barrier_at(t).min(barriers - 1);
        let mut text = format!(
            "Tick {t}, barrier {} of {barriers}: {} computing, {} waiting, {} done; {} messages under way ({gathers} Gather, {releases} Release, {} other).",
            b + 1,
            counts[0],
            counts[1],
            counts[2],
            flying.len(),
            flying.len() - gathers - releases
        );
        let carried = flying
            .iter()
            .map(|f| &r.trace[f.index])
            .filter(|m| m.kind == Kind::Gather)
            .map(|m| m.content - (m.times.len() - m.times.partition_point(|&a| a <= t)) as u64);
        if let Some(most) = carried.max().filter(|&most| most > 0) {
            let _ = write!(text, " The Gather messages carry path sums of up to {most} hops so far.");
        }
        if let Some(d) = r.decisions.iter().rev().find(|d| d.tick <= t && d.tick + 2 * self.scenario.hop_ticks > t) {
            let _ = write!(
                text,
                " The root (node {}) sums the Gather path lengths: {} hops against {} fault-free ({:+.0} %) → {}.",
                d.root,
                d.path_sum,
                d.fault_free,
                if d.fault_free == 0 { 0.0 } else { (d.path_sum as f64 / d.fault_free as f64 - 1.0) * 100.0 },
                if d.k == 0 {
                    "no adjustment, K = 0 in the Release".to_owned()
                } else {
                    format!("adjust: K = {} in the Release; every node applies round({}) after forwarding it", d.k, d.k)
                }
            );
        }
        if step == self.steps() {
            if r.completed {
                let _ = write!(text, " All {barriers} barriers done at tick {}.", r.total_ticks);
            } else if r.partitioned {
                text.push_str(
                    " The broken links cut the mesh: some message has no route, so the barrier never completes.",
                );
            }
        }
        text
    }
}

/// A recorded run in progress: [`ReplayRun::advance`] runs it in slices so a
/// worker can report progress between them and a page can stay responsive.
pub struct ReplayRun {
    stepper: Stepper,
    expected: u64,
}

impl ReplayRun {
    /// Validates `scenario` (recording on) and starts it.
    ///
    /// # Errors
    /// The first parameter out of range (the message cap is checked before
    /// any break or structure is computed).
    pub fn start(scenario: Scenario) -> Result<ReplayRun, ConfigError> {
        ReplayRun::begin(Scenario { record: true, ..scenario })
    }

    /// Starts `scenario` without recording its messages (runs too large to
    /// record): the replay has node states and per-barrier counts, no
    /// messages.
    ///
    /// # Errors
    /// The first parameter out of range.
    pub fn start_unrecorded(scenario: Scenario) -> Result<ReplayRun, ConfigError> {
        ReplayRun::begin(Scenario { record: false, ..scenario })
    }

    fn begin(scenario: Scenario) -> Result<ReplayRun, ConfigError> {
        let sim = Simulation::new(scenario)?;
        let expected = sim.expected_messages().max(1);
        Ok(ReplayRun { stepper: sim.start(), expected })
    }

    /// Processes at most `events` events; `true` once the run is over.
    pub fn advance(&mut self, events: u64) -> bool {
        self.stepper.advance(events)
    }

    /// `(messages delivered, messages the run sends)`: the second is
    /// [`Simulation::expected_messages`]; the first is clipped to it and may
    /// stop short of it on a partitioned mesh.
    pub fn progress(&self) -> (u64, u64) {
        (self.stepper.delivered().min(self.expected), self.expected)
    }

    /// The replay (after [`ReplayRun::advance`] returned `true`).
    pub fn finish(self) -> Replay {
        let sim = self.stepper.simulation();
        let (scenario, mesh, breaks, layers) =
            (sim.scenario().clone(), sim.mesh(), sim.breaks().clone(), sim.layers().to_vec());
        Replay::of_run(scenario, mesh, breaks, layers, self.stepper.finish())
    }
}

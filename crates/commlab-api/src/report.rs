//! The one JSON shape of a barrier run, shared by `commlab barrier --json`
//! and the mesh view's JSON export. Barriers are numbered from 1 everywhere
//! a user reads them (table rows, decisions, adjustments); `broken_links` is
//! always the list of link ids, `broken_link_count` its length.

use commlab_core::barrier::engine::{RunReport, Scenario};
use commlab_core::barrier::mesh::{Breaks, LinkId, Mesh, NodeId};
use commlab_core::barrier::replay::Replay;
use serde::Serialize;

/// One barrier's statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BarrierJson {
    /// 1-based.
    pub barrier: u32,
    /// Last leave − last arrival (`null`: did not complete).
    pub delay: Option<u64>,
    /// End-to-end messages.
    pub messages: u64,
    /// Link traversals.
    pub hops: u64,
}

/// A DLCT root's decision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionJson {
    /// 1-based.
    pub barrier: u32,
    /// Tile (0: the whole mesh).
    pub group: u32,
    /// Tick.
    pub tick: u64,
    /// Root node.
    pub root: NodeId,
    /// Summed Gather path lengths.
    pub path_sum: u64,
    /// The fault-free sum.
    pub fault_free: u64,
    /// `K` in the Release (0: none).
    pub k: u32,
}

/// A barrier run: its scenario and its outcome.
#[allow(clippy::struct_excessive_bools, reason = "a flat JSON record; each flag is a separate fact")]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunJson {
    /// Mesh side.
    pub size: u64,
    /// `size²`.
    pub nodes: u64,
    /// Algorithm id.
    pub algorithm: &'static str,
    /// Encoding id.
    pub encoding: &'static str,
    /// Break rate of the seeded breaks.
    pub break_rate: f64,
    /// Seed.
    pub seed: u64,
    /// Seeded breaks kept the mesh connected.
    pub connected: bool,
    /// Judge id.
    pub judge: &'static str,
    /// Tile side.
    pub tile: u32,
    /// Barriers run.
    pub barriers: u32,
    /// Ticks per hop.
    pub hop_ticks: u64,
    /// Ticks per message at each end.
    pub overhead_ticks: u64,
    /// Computation before each barrier.
    pub compute_ticks: u64,
    /// Largest seeded extra computation.
    pub skew_ticks: u64,
    /// One message per directed link and tick.
    pub contention: bool,
    /// Fan-in of the combining tree.
    pub combining_k: u32,
    /// Routing rule id (`paper`, `shortest`).
    pub routing: &'static str,
    /// The broken links, by id (see ARCHITECTURE: link numbering).
    pub broken_links: Vec<LinkId>,
    /// How many.
    pub broken_link_count: usize,
    /// Every node left every barrier.
    pub completed: bool,
    /// The breaks cut the mesh.
    pub partitioned: bool,
    /// Messages dropped for want of a route.
    pub unroutable: u64,
    /// The checker's verdict.
    pub safe: bool,
    /// What the checker found.
    pub violations: Vec<String>,
    /// Messages.
    pub messages: u64,
    /// Hops.
    pub hops: u64,
    /// Hops beyond Manhattan.
    pub detour_hops: u64,
    /// Hops that stepped back along their message's own walk.
    pub back_steps: u64,
    /// Per barrier, last leave − last arrival (empty when the run did not complete).
    pub delay_ticks: Vec<u64>,
    /// Tick the last node left.
    pub total_ticks: u64,
    /// Most traversals of one link.
    pub max_link_load: u64,
    /// Its endpoints.
    pub max_link: Option<[NodeId; 2]>,
    /// Per barrier.
    pub per_barrier: Vec<BarrierJson>,
    /// Every DLCT root's decision.
    pub decisions: Vec<DecisionJson>,
    /// Hop events simulated.
    pub events: u64,
}

impl RunJson {
    /// The JSON of `report`, a run of `scenario` with `breaks`.
    pub fn new(scenario: &Scenario, breaks: &Breaks, report: &RunReport) -> RunJson {
        let s = scenario;
        let r = report;
        let per_barrier = (0..s.barriers as usize)
            .map(|b| BarrierJson {
                barrier: b as u32 + 1,
                delay: r.completed.then(|| r.delay_ticks.get(b).copied()).flatten(),
                messages: r.barrier_messages.get(b).copied().unwrap_or(0),
                hops: r.barrier_hops.get(b).copied().unwrap_or(0),
            })
            .collect();
        let decisions = r
            .decisions
            .iter()
            .map(|d| DecisionJson {
                barrier: d.barrier + 1,
                group: d.group,
                tick: d.tick,
                root: d.root,
                path_sum: d.path_sum,
                fault_free: d.fault_free,
                k: d.k,
            })
            .collect();
        let broken_links = breaks.links();
        RunJson {
            size: s.size,
            nodes: s.size * s.size,
            algorithm: s.algorithm.id(),
            encoding: s.encoding.id(),
            break_rate: s.break_rate,
            seed: s.seed,
            connected: s.connected,
            judge: s.judge.id(),
            tile: s.tile,
            barriers: s.barriers,
            hop_ticks: s.hop_ticks,
            overhead_ticks: s.overhead_ticks,
            compute_ticks: s.compute_ticks,
            skew_ticks: s.skew_ticks,
            contention: s.contention,
            combining_k: s.combining_k,
            routing: s.routing.id(),
            broken_link_count: broken_links.len(),
            broken_links,
            completed: r.completed,
            partitioned: r.partitioned,
            unroutable: r.unroutable,
            safe: r.safe,
            violations: r.violations.clone(),
            messages: r.messages,
            hops: r.hops,
            detour_hops: r.detour_hops,
            back_steps: r.back_steps,
            delay_ticks: if r.completed { r.delay_ticks.clone() } else { Vec::new() },
            total_ticks: r.total_ticks,
            max_link_load: r.max_link_load,
            max_link: r.max_link.map(|(a, b)| [a, b]),
            per_barrier,
            decisions,
            events: r.events,
        }
    }

    /// The JSON of a recorded run.
    pub fn of_replay(replay: &Replay) -> RunJson {
        RunJson::new(&replay.scenario, &replay.breaks, &replay.report)
    }

    /// Pretty-printed.
    pub fn pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// `barrier,kind,from,to,sent_tick,delivered_tick,hops,manhattan,back_steps,route`:
/// every recorded message (barriers from 1; `back_steps` the hops that step
/// back along the message's own walk).
pub fn messages_csv(replay: &Replay) -> String {
    use std::fmt::Write as _;
    let mut out = String::from("barrier,kind,from,to,sent_tick,delivered_tick,hops,manhattan,back_steps,route\n");
    let mesh: Mesh = replay.mesh;
    for m in &replay.report.trace {
        let _ = write!(
            out,
            "{},{},{},{},{},{},{},{},{},",
            m.barrier + 1,
            m.kind.name(),
            m.from,
            m.to,
            m.sent,
            m.delivered,
            m.path.len(),
            mesh.distance(m.from, m.to),
            m.back_steps.len()
        );
        for (i, n) in m.path.iter().enumerate() {
            let _ = write!(out, "{}{n}", if i == 0 { "" } else { " " });
        }
        out.push('\n');
    }
    out
}

//! The independent checker of a recorded barrier run.
//!
//! It reads only what a recorded run wrote down ([`RunReport`] with
//! `record: true`): every node's arrival and departure tick per barrier,
//! every message with its barrier, send tick, route (the nodes after the
//! sender, with the tick it reached each), delivery and consumption (tick and
//! the receiver's barrier then), the sends dropped for want of a route, the
//! totals the engine claims, and the broken links as node pairs. It
//! re-derives every invariant from that without calling engine or routing
//! code: its own coordinates (`node = x · size + y`), its own adjacency and
//! its own breadth-first search.
//!
//! The invariants, which hold for the part of a run that ran even when the
//! breaks cut the mesh:
//!
//! - **barrier**: no node leaves barrier `b` before every node has arrived at
//!   `b`; a node arrives before it leaves, and leaves `b` before it arrives at
//!   `b + 1`;
//! - **messages stay in their barrier**: a message of barrier `b` is sent by a
//!   node that has arrived at `b` and not left it, and consumed by its receiver
//!   during `b`, once, after its delivery; a message never consumed is only
//!   allowed at a receiver that never left `b`;
//! - **routes**: every route is a walk over unbroken links from the sender to
//!   the receiver, its ticks never go back, and it is no shorter than the
//!   shortest path of the checker's own BFS (on an intact mesh: exactly the
//!   Manhattan distance);
//! - **the routing rule** (under [`Routing::Paper`]): every hop is the one
//!   the paper's rule takes, re-derived with the checker's own depth-first
//!   walk (closest unvisited neighbour, ties `+x, −x, +y, −y`, a step back
//!   when every neighbour is visited), and the hops marked as back-steps are
//!   exactly its back-steps;
//! - **counts add up**: messages and hops in all and per barrier, detour hops,
//!   back-steps, dropped sends, and "completed" exactly when every node left every barrier
//!   and no send was dropped.

use super::engine::RunReport;
use super::mesh::{NodeId, Routing};
use std::collections::{HashSet, VecDeque};
use std::fmt;

/// Never (an arrival or departure that did not happen).
const NEVER: u64 = u64::MAX;

/// One broken invariant, naming where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// A node left barrier `barrier` at `tick` before `late` arrived there (at `arrival`, or never).
    EarlyDeparture {
        /// Barrier.
        barrier: u32,
        /// The node that left.
        node: NodeId,
        /// When it left.
        tick: u64,
        /// A node that had not arrived yet.
        late: NodeId,
        /// When that node arrived (`u64::MAX`: never).
        arrival: u64,
    },
    /// A node's own ticks are out of order (left before arriving, or arrived
    /// at the next barrier before leaving this one).
    NodeOrder {
        /// Barrier.
        barrier: u32,
        /// The node.
        node: NodeId,
    },
    /// Message `message` of barrier `barrier` was sent or consumed outside it.
    CrossBarrier {
        /// Index in the trace.
        message: usize,
        /// Its barrier.
        barrier: u32,
        /// What happened outside the barrier.
        what: String,
    },
    /// A route that is not a walk over unbroken links from sender to receiver,
    /// or whose ticks go back, or that is shorter than a shortest path.
    BadRoute {
        /// Index in the trace.
        message: usize,
        /// Why.
        what: String,
    },
    /// A total the engine reports differs from the recount.
    Count {
        /// Which total.
        what: String,
        /// The engine's number.
        claimed: u64,
        /// The checker's.
        recounted: u64,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::EarlyDeparture { barrier, node, tick, late, arrival } => {
                let when = if *arrival == NEVER { "never".to_owned() } else { format!("at tick {arrival}") };
                write!(f, "barrier {barrier}: node {node} left at tick {tick} before node {late} arrived ({when})")
            }
            Violation::NodeOrder { barrier, node } => {
                write!(f, "barrier {barrier}: node {node}'s arrival and departure ticks are out of order")
            }
            Violation::CrossBarrier { message, barrier, what } => {
                write!(f, "message {message} of barrier {barrier}: {what}")
            }
            Violation::BadRoute { message, what } => write!(f, "message {message}: {what}"),
            Violation::Count { what, claimed, recounted } => {
                write!(f, "{what}: the run reports {claimed}, the trace has {recounted}")
            }
        }
    }
}

/// The mesh as the checker sees it: side, and the broken links as node pairs.
struct Grid {
    size: u32,
    broken: HashSet<(NodeId, NodeId)>,
}

impl Grid {
    fn coords(&self, n: NodeId) -> (i64, i64) {
        (i64::from(n / self.size), i64::from(n % self.size))
    }

    fn manhattan(&self, a: NodeId, b: NodeId) -> u64 {
        let ((ax, ay), (bx, by)) = (self.coords(a), self.coords(b));
        ax.abs_diff(bx) + ay.abs_diff(by)
    }

    fn is_broken(&self, a: NodeId, b: NodeId) -> bool {
        self.broken.contains(&(a.min(b), a.max(b)))
    }

    /// The unbroken neighbours of `n`.
    fn neighbours(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let (x, y) = self.coords(n);
        let size = i64::from(self.size);
        [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
            .into_iter()
            .filter(move |&(x, y)| (0..size).contains(&x) && (0..size).contains(&y))
            .map(move |(x, y)| (x * size + y) as NodeId)
            .filter(move |&m| !self.is_broken(n, m))
    }

    /// The paper's walk `from → to` as the checker reads the rule: the nodes
    /// after `from`, each with whether it is a step back (`None`:
    /// unreachable, the walk ran out of nodes).
    fn paper_walk(&self, from: NodeId, to: NodeId) -> Option<Vec<(NodeId, bool)>> {
        let mut visited = HashSet::from([from]);
        let mut walk = vec![from];
        let mut out = Vec::new();
        while let Some(&at) = walk.last() {
            if at == to {
                return Some(out);
            }
            let mut best: Option<(u64, NodeId)> = None;
            for n in self.neighbours(at).filter(|n| !visited.contains(n)) {
                let d = self.manhattan(n, to);
                if best.is_none_or(|(b, _)| d < b) {
                    best = Some((d, n));
                }
            }
            if let Some((_, n)) = best {
                visited.insert(n);
                walk.push(n);
                out.push((n, false));
            } else {
                walk.pop();
                out.push((*walk.last()?, true));
            }
        }
        None
    }

    /// Hops of a shortest path from `from` to every node (`u32::MAX`: unreachable).
    fn bfs(&self, from: NodeId) -> Vec<u32> {
        let mut dist = vec![u32::MAX; (self.size * self.size) as usize];
        dist[from as usize] = 0;
        let mut queue = VecDeque::from([from]);
        while let Some(a) = queue.pop_front() {
            for b in self.neighbours(a) {
                if dist[b as usize] == u32::MAX {
                    dist[b as usize] = dist[a as usize] + 1;
                    queue.push_back(b);
                }
            }
        }
        dist
    }
}

/// Checks a recorded run of a barrier on a `size × size` mesh whose broken
/// links are `broken` (node pairs, either order) under `routing`. Returns every violation
/// found; empty means the run is safe.
///
/// # Panics
/// When `report` was not recorded (`Scenario::record`), or its per-node
/// tables do not cover `size × size` nodes.
pub fn check(size: u32, broken: &[(NodeId, NodeId)], routing: Routing, report: &RunReport) -> Vec<Violation> {
    let nodes = (size * size) as usize;
    assert!(report.arrive.len() == nodes && report.leave.len() == nodes, "one row of ticks per node");
    assert!(report.messages == 0 || !report.trace.is_empty(), "the checker needs a recorded run");
    let grid = Grid { size, broken: broken.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect() };
    let barriers = report.arrive.first().map_or(0, Vec::len);
    let mut out = Vec::new();
    check_barriers(report, barriers, &mut out);
    check_messages(report, &mut out);
    check_routes(&grid, report, &mut out);
    if routing == Routing::Paper {
        check_paper_rule(&grid, report, &mut out);
    }
    check_counts(&grid, report, barriers, &mut out);
    out
}

fn check_barriers(report: &RunReport, barriers: usize, out: &mut Vec<Violation>) {
    for b in 0..barriers {
        // The last arrival at b, and who it was.
        let (late, last) =
            report.arrive.iter().enumerate().map(|(n, a)| (n, a[b])).max_by_key(|&(n, t)| (t, n)).unwrap_or((0, 0));
        for (n, (a, l)) in report.arrive.iter().zip(&report.leave).enumerate() {
            let left = l[b];
            if left != NEVER && left < last {
                out.push(Violation::EarlyDeparture {
                    barrier: b as u32,
                    node: n as NodeId,
                    tick: left,
                    late: late as NodeId,
                    arrival: last,
                });
            }
            let next = a.get(b + 1).copied().unwrap_or(NEVER);
            let out_of_order =
                (left != NEVER && (a[b] == NEVER || a[b] > left)) || (next != NEVER && (left == NEVER || left > next));
            if out_of_order {
                out.push(Violation::NodeOrder { barrier: b as u32, node: n as NodeId });
            }
        }
    }
}

fn check_messages(report: &RunReport, out: &mut Vec<Violation>) {
    for (i, m) in report.trace.iter().enumerate() {
        let b = m.barrier as usize;
        let cross = |what: String| Violation::CrossBarrier { message: i, barrier: m.barrier, what };
        let (arrived, left) = (
            report.arrive.get(m.from as usize).and_then(|a| a.get(b)).copied().unwrap_or(NEVER),
            report.leave.get(m.from as usize).and_then(|l| l.get(b)).copied().unwrap_or(NEVER),
        );
        if arrived == NEVER || m.sent < arrived || (left != NEVER && m.sent > left) {
            out.push(cross(format!("sent by node {} at tick {} outside its barrier", m.from, m.sent)));
        }
        if let Some((tick, during)) = m.consumed {
            if during != m.barrier {
                out.push(cross(format!("consumed by node {} during barrier {during}", m.to)));
            }
            if tick < m.delivered {
                out.push(cross(format!("consumed at tick {tick} before its delivery at {}", m.delivered)));
            }
        } else {
            let receiver_left = report.leave.get(m.to as usize).and_then(|l| l.get(b)).copied().unwrap_or(NEVER);
            if receiver_left != NEVER {
                out.push(cross(format!("never consumed, yet node {} left the barrier", m.to)));
            }
        }
    }
}

fn check_routes(grid: &Grid, report: &RunReport, out: &mut Vec<Violation>) {
    let mut shortest: std::collections::HashMap<NodeId, Vec<u32>> = std::collections::HashMap::new();
    for (i, m) in report.trace.iter().enumerate() {
        let bad = |what: String| Violation::BadRoute { message: i, what };
        if m.path.len() != m.times.len() {
            out.push(bad("a route node without its tick".into()));
            continue;
        }
        let mut at = m.from;
        let mut t = m.sent;
        for (&next, &when) in m.path.iter().zip(&m.times) {
            if grid.manhattan(at, next) != 1 {
                out.push(bad(format!("jumps from node {at} to node {next}, not a neighbour")));
                break;
            }
            if grid.is_broken(at, next) {
                out.push(bad(format!("crosses the broken link {at}–{next}")));
            }
            if when < t {
                out.push(bad(format!("reaches node {next} at tick {when}, before tick {t}")));
            }
            (at, t) = (next, when);
        }
        if at != m.to {
            out.push(bad(format!("ends at node {at}, not at its receiver {}", m.to)));
            continue;
        }
        if m.delivered < t {
            out.push(bad(format!("delivered at tick {} before its last hop at {t}", m.delivered)));
        }
        let hops = m.path.len() as u64;
        let manhattan = grid.manhattan(m.from, m.to);
        if hops < manhattan {
            out.push(bad(format!("{hops} hops, shorter than the Manhattan distance {manhattan}")));
        } else if hops > manhattan {
            // A detour: no shorter than the shortest path around the breaks
            // (a BFS per sender that detours; a walk of Manhattan length is shortest).
            let best = shortest.entry(m.from).or_insert_with(|| grid.bfs(m.from))[m.to as usize];
            if best != u32::MAX && hops < u64::from(best) {
                out.push(bad(format!("{hops} hops, shorter than the shortest path of {best}")));
            }
        }
        if grid.broken.is_empty() && hops != grid.manhattan(m.from, m.to) {
            out.push(bad(format!("{hops} hops on an intact mesh, not the Manhattan distance")));
        }
    }
}

fn check_paper_rule(grid: &Grid, report: &RunReport, out: &mut Vec<Violation>) {
    type Walk = Option<Vec<(NodeId, bool)>>;
    let mut walks: std::collections::HashMap<(NodeId, NodeId), Walk> = std::collections::HashMap::new();
    for (i, m) in report.trace.iter().enumerate() {
        let bad = |what: String| Violation::BadRoute { message: i, what };
        let Some(walk) = walks.entry((m.from, m.to)).or_insert_with(|| grid.paper_walk(m.from, m.to)) else {
            out.push(bad(format!("the paper's rule finds no walk from node {} to node {}", m.from, m.to)));
            continue;
        };
        let mut at = m.from;
        for (hop, &next) in m.path.iter().enumerate() {
            match walk.get(hop) {
                Some(&(rule, _)) if rule == next => {}
                Some(&(rule, _)) => {
                    out.push(bad(format!(
                        "hop {hop} goes from node {at} to node {next}; the paper's rule goes to node {rule}"
                    )));
                    break;
                }
                None => {
                    out.push(bad(format!("hop {hop} goes on past the paper's walk of {} hops", walk.len())));
                    break;
                }
            }
            at = next;
        }
        if m.path.len() < walk.len() && m.path.iter().zip(walk.iter()).all(|(&a, &(b, _))| a == b) {
            out.push(bad(format!("stops after {} hops; the paper's walk takes {}", m.path.len(), walk.len())));
        }
        let back: Vec<u32> = walk.iter().enumerate().filter(|(_, s)| s.1).map(|(h, _)| h as u32).collect();
        if m.path.len() == walk.len() && m.back_steps != back {
            out.push(bad(format!(
                "marks hops {:?} as back-steps; the paper's walk steps back at {back:?}",
                m.back_steps
            )));
        }
    }
}

fn check_counts(grid: &Grid, report: &RunReport, barriers: usize, out: &mut Vec<Violation>) {
    let mut count = |what: &str, claimed: u64, recounted: u64| {
        if claimed != recounted {
            out.push(Violation::Count { what: what.to_owned(), claimed, recounted });
        }
    };
    let trace = &report.trace;
    count("messages", report.messages, trace.len() as u64);
    let hops: u64 = trace.iter().map(|m| m.path.len() as u64).sum();
    count("hops", report.hops, hops);
    let detours: u64 = trace.iter().map(|m| (m.path.len() as u64).saturating_sub(grid.manhattan(m.from, m.to))).sum();
    count("detour hops", report.detour_hops, detours);
    count("back-steps", report.back_steps, trace.iter().map(|m| m.back_steps.len() as u64).sum());
    for b in 0..barriers {
        let of_b = || trace.iter().filter(|m| m.barrier as usize == b);
        count(
            &format!("messages of barrier {b}"),
            report.barrier_messages.get(b).copied().unwrap_or(0),
            of_b().count() as u64,
        );
        let hops_b: u64 = of_b().map(|m| m.path.len() as u64).sum();
        count(&format!("hops of barrier {b}"), report.barrier_hops.get(b).copied().unwrap_or(0), hops_b);
    }
    count("dropped sends", report.unroutable, report.dropped.len() as u64);
    let all_left = report.leave.iter().all(|l| l.iter().all(|&t| t != NEVER));
    count("completed", u64::from(report.completed), u64::from(all_left && report.dropped.is_empty()));
}

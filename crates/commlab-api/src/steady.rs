//! The steady-state engine (`docs/systems.md`, "Two engines"): a planned
//! run's time from the steady pattern of its flows, not from every event.
//!
//! A ring is `N` tokens going round a node's hops (`docs/network.md`, "Rings
//! at any scale"): each hop a latency, then a transfer on a link the tokens
//! share. Where every hop of the lap is alike the tokens start together and
//! stay together (lockstep); where they differ (a hop to the next node) the
//! tokens spread, and the lap's time is that of the closed queueing network
//! they form, solved by mean value analysis (exact for processor sharing
//! in the stochastic steady state; checked against the flow band's mean).
//! Where latency hides under the transfers the ring runs at its busiest
//! link's work, which the time goes to.

use crate::ApiError;
use commlab_core::choose::{block_bytes, nccl_node_trees, Collective, NodeTree};
use commlab_core::net::topology::{Dir, LinkClass};
use commlab_core::net::{Network, Shape};
use std::collections::HashMap;
use std::fmt::Write as _;

/// How far the steady engine is from the flow engine on one part of its
/// check: the worst difference in each size region, held by the check's
/// tests (`tests/steady.rs`, `tests/steady_trees.rs`: a case past its
/// region's figure fails them). The one place these figures are written:
/// the CLI's note, the page's note and `docs/systems.md` take them from here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accuracy {
    /// What is checked, in words.
    pub schedule: &'static str,
    /// The node counts checked.
    pub nodes: &'static str,
    /// The worst difference at 1 MiB and less, 4 to 16 MiB, and 64 MiB and
    /// more (fractions).
    pub worst: [f64; 3],
    /// At 64 MiB and more, the median and the 90th percentile of the
    /// differences (fractions), where the check holds them.
    pub spread: Option<(f64, f64)>,
}

/// The steady engine's check against the flow engine (every preset, 1 KiB
/// to 4 GiB on 2, 4 and 8 nodes; 1, 16, 64 MiB and 1 GiB on 3, 5 and 16):
/// rings against the flow band's mean, trees against the flow run.
pub const ACCURACY: [Accuracy; 3] = [
    Accuracy {
        schedule: "rings (allreduce, allgather, reduce-scatter × LL, LL128, Simple)",
        nodes: "2, 4, 8",
        worst: [0.077, 0.126, 0.132],
        spread: Some((0.004, 0.040)),
    },
    Accuracy {
        schedule: "NCCL's tree (LL, LL128, Simple) and NVLS tree",
        nodes: "2, 4, 8",
        worst: [0.202, 0.190, 0.138],
        spread: None,
    },
    Accuracy { schedule: "NCCL's tree and NVLS tree", nodes: "3, 5, 16", worst: [0.151, 0.254, 0.258], spread: None },
];

/// A fraction as a percentage with one decimal (`0.132` → `13.2 %`).
fn percent(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

/// [`ACCURACY`] as the Markdown table of `docs/systems.md` ("Two engines").
pub fn accuracy_table() -> String {
    let mut out = String::from(
        "| schedule | node counts | ≤ 1 MiB | 4–16 MiB | ≥ 64 MiB | ≥ 64 MiB, median / p90 |\n|---|---|---|---|---|---|\n",
    );
    for a in ACCURACY {
        let spread = a.spread.map_or("—".to_owned(), |(m, p)| format!("{} / {}", percent(m), percent(p)));
        let [w0, w1, w2] = a.worst.map(percent);
        let _ = writeln!(out, "| {} | {} | {w0} | {w1} | {w2} | {spread} |", a.schedule, a.nodes);
    }
    out
}

/// [`ACCURACY`] in a sentence: the worst difference of each part, by region.
pub fn accuracy_sentence() -> String {
    let part = |a: &Accuracy| {
        let [w0, w1, w2] = a.worst.map(percent);
        format!(
            "{} on {} nodes up to {w0} at 1 MiB and less, {w1} from 4 to 16 MiB and {w2} at 64 MiB and more",
            a.schedule, a.nodes
        )
    };
    let parts: Vec<String> = ACCURACY.iter().map(part).collect();
    format!("Against the flow engine (every preset), {}", parts.join("; "))
}

/// One hop of a ring's lap: its latency, the bytes it moves, the bandwidth
/// and class of the link it waits on, its transfer's time when every flow
/// of that link is in transfer, and where that link is `NVLink`'s on a hop
/// to the next node, its transfer's time at its NIC (0 otherwise).
#[derive(Debug, Clone, Copy)]
struct Hop {
    latency: f64,
    bytes: f64,
    bandwidth: f64,
    class: usize,
    shared: f64,
    nic: f64,
}

/// A ring's lap: its hops per channel, per station (0: `NVLink`, 1: the
/// NIC) the most of its hops one link carries in a round, the most flows
/// any link carries (the tokens that share it), and the busiest link's
/// work in a round (ns at its bandwidth).
struct Laps {
    hops: Vec<Vec<Hop>>,
    most: [usize; 2],
    tokens: usize,
    work: f64,
}

/// A ring as the steady engine needs it (`predict::Planned::steady_ns`
/// makes one from a planned run).
#[derive(Debug, Clone)]
pub struct Ring {
    /// The collective (allreduce, allgather or reduce-scatter).
    pub collective: Collective,
    /// The network's shape (nodes of GPUs).
    pub shape: Shape,
    /// Its link classes, each link's latency with NCCL's step cost.
    pub classes: [LinkClass; 2],
    /// Ranks.
    pub p: u32,
    /// Channels.
    pub channels: u32,
    /// Bytes on the wire.
    pub wire: u64,
}

/// The ring's hops of one node's lap, per channel, and per station (0:
/// `NVLink`, 1: the NIC) the most of its hops one link carries in a round,
/// every token making one hop.
fn ring_laps(planned: &Ring) -> Result<Laps, ApiError> {
    let Shape::Nodes { n, g, r } = planned.shape else {
        return Err(ApiError::problem("network", "the steady state runs on nodes of GPUs"));
    };
    // Two nodes repeat as N do (`Planned::ring_quotient`); one is itself.
    let quotient = Shape::Nodes { n: n.min(2), g, r };
    let net = Network::new(quotient, planned.classes)?;
    let q = n.min(2) * g;
    // A link to or from a rail (after the hosts and the node switches) is
    // the NIC's; the others NVLink's.
    let nic = |d: Dir| {
        let (a, b) = net.ends(d);
        a.max(b) >= q + n.min(2)
    };
    let mut routes: Vec<Vec<(Vec<Dir>, f64)>> = Vec::new();
    let mut load: HashMap<Dir, usize> = HashMap::new();
    let mut bytes_on: HashMap<Dir, f64> = HashMap::new();
    for c in 0..planned.channels {
        let order = quotient.channel_order(q, c);
        let bytes = block_bytes(planned.wire, planned.channels, c) as f64 / f64::from(planned.p);
        let mut lap = Vec::new();
        for i in 0..q as usize {
            let path = net.fixed_path(order[i], order[(i + 1) % q as usize]);
            let route: Vec<Dir> = path.windows(2).filter_map(|w| net.dir(w[0], w[1])).collect();
            for &d in &route {
                *load.entry(d).or_default() += 1;
                *bytes_on.entry(d).or_default() += bytes;
            }
            lap.push((route, bytes));
        }
        routes.push(lap);
    }
    // Each hop waits on the link of its route with the least capacity per
    // flow when every hop is in transfer: its station, of that link's class.
    // A hop to the next node also waits at its NIC where that link is
    // NVLink's (NVLink and the NIC nearly balanced, as on H100 nodes: the
    // NIC's queue is then as long as NVLink's, and without it the flows'
    // bunching there goes unseen: `docs/systems.md`, "Two engines").
    let mut at: HashMap<(Dir, usize), usize> = HashMap::new();
    let mut laps = Vec::new();
    for lap in &routes {
        let mut hops = Vec::new();
        for (i, (route, bytes)) in lap.iter().enumerate() {
            let per_flow = |d: &Dir| net.class(*d).bandwidth / load[d] as f64;
            let Some(&neck) = route.iter().min_by(|a, b| per_flow(a).total_cmp(&per_flow(b))) else { continue };
            let class = usize::from(nic(neck));
            for &d in route {
                if usize::from(nic(d)) == class || nic(d) {
                    *at.entry((d, usize::from(nic(d)))).or_default() += 1;
                }
            }
            let its_nic =
                route.iter().filter(|&&d| class == 0 && nic(d)).min_by(|a, b| per_flow(a).total_cmp(&per_flow(b)));
            if i < g as usize {
                let latency = route.iter().map(|&d| net.class(d).latency).sum();
                let bandwidth = net.class(neck).bandwidth;
                let nic = its_nic.map_or(0.0, |&d| *bytes / net.class(d).bandwidth);
                hops.push(Hop { latency, bytes: *bytes, bandwidth, class, shared: *bytes / per_flow(&neck), nic });
            }
        }
        laps.push(hops);
    }
    let mut most = [0usize; 2];
    for (&(_, class), &k) in &at {
        most[class] = most[class].max(k);
    }
    let work = bytes_on.iter().map(|(&d, b)| b / net.class(d).bandwidth).fold(0.0, f64::max);
    Ok(Laps { hops: laps, most, tokens: load.values().copied().max().unwrap_or(1), work })
}

/// The ring's rounds: 2(p − 1) for allreduce, p − 1 for the others.
fn rounds(planned: &Ring) -> usize {
    (if planned.collective == Collective::Allreduce { 2 * (planned.p - 1) } else { planned.p - 1 }) as usize
}

/// A lower bound of the ring's time (ns): its busiest link's work, every
/// round's bytes on it at its bandwidth. The flow engine never beats it,
/// and at large sizes it runs close to it where latencies hide under the
/// transfers (`docs/systems.md`, "Two engines": on the check at 4 GiB,
/// 90 % of cases within 1.0 %), which [`ring_ns`] goes to there.
///
/// # Errors
/// A shape other than nodes, values the network refuses.
pub fn ring_bound_ns(planned: &Ring) -> Result<f64, ApiError> {
    Ok(rounds(planned) as f64 * ring_laps(planned)?.work)
}

/// The ring's time (ns), without NCCL's per-call cost.
///
/// # Errors
/// A shape other than nodes, values the network refuses.
pub fn ring_ns(planned: &Ring) -> Result<f64, ApiError> {
    let rounds = rounds(planned);
    let Laps { hops: laps, most, tokens, work } = ring_laps(planned)?;
    let c = laps.len() as f64;
    let Some(&first) = laps.first().and_then(|lap| lap.first()) else {
        return Err(ApiError::problem("network", "the ring has no hop between two GPUs"));
    };
    let g = laps[0].len();
    // Alike: the same latency and link everywhere, blocks a byte apart at most.
    let alike = laps.iter().flatten().all(|h| {
        (h.latency - first.latency).abs() <= 1e-12 * first.latency.max(1.0)
            && h.bandwidth == first.bandwidth
            && (h.bytes - first.bytes).abs() <= 1.0 + 1e-9 * first.bytes
    });
    if alike {
        // Lockstep: every token waits its latency, then all share the link,
        // which carries every token's bytes.
        let mean = laps.iter().flatten().map(|h| h.bytes).sum::<f64>() / (c * g as f64);
        return Ok(rounds as f64 * (first.latency + tokens as f64 * mean / first.bandwidth));
    }
    // `tokens` share the busiest link; over a lap of g rounds each visits a
    // station g·most/tokens times (every round brings `most` transfers to
    // the busiest link of that station). Per visit: the service alone.
    let mut service = [0.0f64; 2];
    let mut seen = [0usize; 2];
    for h in laps.iter().flatten() {
        service[h.class] += h.bytes / h.bandwidth;
        seen[h.class] += 1;
        if h.nic > 0.0 {
            service[1] += h.nic;
            seen[1] += 1;
        }
    }
    let per_visit: Vec<f64> = (0..2).map(|k| if seen[k] > 0 { service[k] / seen[k] as f64 } else { 0.0 }).collect();
    let visits: Vec<f64> = (0..2).map(|k| (g * most[k]) as f64 / tokens as f64).collect();
    let demand: Vec<f64> = (0..2).map(|k| visits[k] * per_visit[k]).collect();
    let z = laps.iter().flatten().map(|h| h.latency).sum::<f64>() / c;
    let queued = mva(tokens, z, &demand);
    // A hop's transfer takes its station's visits per lap over its hops.
    let share: Vec<f64> = (0..2).map(|k| if seen[k] > 0 { visits[k] * c / seen[k] as f64 } else { 1.0 }).collect();
    // Each hop's time: its latency and its transfer slowed by the queue it
    // meets; the last token to finish is the one whose hops cost the most.
    let time = |h: &Hop| {
        h.latency
            + h.bytes / h.bandwidth * share[h.class] * (1.0 + queued[h.class])
            + h.nic * share[1] * (1.0 + queued[1])
    };
    let mut worst = 0.0f64;
    for lap in &laps {
        let times: Vec<f64> = lap.iter().map(time).collect();
        worst = worst.max(window_max(&times, rounds));
    }
    // The tokens start together: their first rounds run nearer lockstep
    // (every hop's transfer shared by all the flows of its link) and they
    // spread over about half a lap (`TRANSIENT`), which costs that much of
    // the difference between a lockstep round and a steady one.
    let hops = c * g as f64;
    let steady = laps.iter().flatten().map(time).sum::<f64>() / hops;
    let lockstep = laps.iter().flatten().map(|h| h.latency + h.shared).sum::<f64>() / hops;
    let spread = TRANSIENT * g as f64;
    let queued = worst + spread * (lockstep - steady).max(0.0) * (1.0 - (-(rounds as f64) / spread).exp());
    // Where a hop's latency is small beside a round's work on the busiest
    // link, the flows keep that link full and its work is the time: the
    // queues of mean value analysis are those of random arrivals, which
    // the ring's are not. Their weight fades as the latency shrinks.
    let y = laps.iter().flatten().map(|h| h.latency).sum::<f64>() / hops / work.max(f64::MIN_POSITIVE);
    let bound = rounds as f64 * work;
    Ok(bound + (queued - bound) * y * y / (y * y + HIDDEN * HIDDEN))
}

/// The ratio of a hop's latency to a round's work on the busiest link
/// below which a ring runs at that link's work ([`ring_ns`]): the best of
/// 0.05, 0.1, 0.15, 0.2 and 0.3 on the whole check (`docs/systems.md`,
/// "Two engines": at 64 MiB and more 0.1 has the smallest worst case, 12.1
/// against 13.2 %, and 0.15 the fewest cases over 3 %, 163 against 192, and
/// the smallest worst case from 4 to 16 MiB, 12.6 against 14.8 %).
const HIDDEN: f64 = 0.15;

/// Laps over which a ring's tokens spread from their common start: measured
/// on the 8-token ring (`docs/systems.md`, "Two engines": 4 to 13 rounds of
/// lockstep's excess); half a lap is the best of 0.3, 0.5, 0.75 and 1 on the
/// whole check.
const TRANSIENT: f64 = 0.5;

/// The largest sum of `len` consecutive values of the cyclic `d`.
fn window_max(d: &[f64], len: usize) -> f64 {
    let p = d.len();
    let lap: f64 = d.iter().sum();
    let (laps, rest) = (len / p, len % p);
    let mut sum: f64 = d[..rest].iter().sum();
    let mut best = sum;
    for r in 1..p {
        sum += d[(r + rest - 1) % p] - d[r - 1];
        best = best.max(sum);
    }
    laps as f64 * lap + best
}

/// Mean value analysis of `n` tokens in a closed network: a delay `z` and
/// processor-sharing stations of demands `d` per lap; the tokens an
/// arriving one meets at each station (the arrival theorem: those of the
/// network with one token fewer).
fn mva(tokens: usize, delay: f64, demands: &[f64]) -> Vec<f64> {
    let mut queue = vec![0.0f64; demands.len()];
    for m in 1..tokens {
        let times: Vec<f64> = demands.iter().zip(&queue).map(|(d, q)| d * (1.0 + q)).collect();
        let rate = m as f64 / (delay + times.iter().sum::<f64>());
        for (q, t) in queue.iter_mut().zip(&times) {
            *q = rate * t;
        }
    }
    queue
}

/// A pipelined tree as the steady engine needs it: NCCL's NVLS tree or
/// its tree (`predict::Planned::steady_ns` makes one from a planned run).
#[derive(Debug, Clone)]
pub struct Tree {
    /// The network's shape (nodes of GPUs).
    pub shape: Shape,
    /// Its link classes, each link's latency with NCCL's step cost.
    pub classes: [LinkClass; 2],
    /// Channels.
    pub channels: u32,
    /// Pieces per channel.
    pub pieces: u32,
    /// Bytes on the wire.
    pub wire: u64,
}

/// A hop's latency (ns) and the bandwidth (B/ns) of the link it waits on.
#[derive(Debug, Clone, Copy)]
struct Link {
    latency: f64,
    bandwidth: f64,
}

/// A tree's values: nodes, GPUs and NICs per node, a hop through the
/// node's switch (GPU to switch for NVLS, GPU to GPU for the tree) and one
/// between two nodes' GPUs on a rail, and NCCL's two trees over the nodes.
struct Setup {
    n: u32,
    g: u32,
    r: u32,
    nv: Link,
    net: Link,
    trees: [NodeTree; 2],
}

impl Setup {
    fn new(t: &Tree, to_switch: bool) -> Result<Setup, ApiError> {
        let Shape::Nodes { n, g, r } = t.shape else {
            return Err(ApiError::problem("network", "the steady state runs on nodes of GPUs"));
        };
        let net = Network::new(Shape::Nodes { n: 2, g, r }, t.classes)?;
        let hop = |a: u32, z: u32| {
            let path = net.fixed_path(a, z);
            let dirs: Vec<Dir> = path.windows(2).filter_map(|w| net.dir(w[0], w[1])).collect();
            let latency = dirs.iter().map(|&d| net.class(d).latency).sum();
            Link { latency, bandwidth: dirs.iter().map(|&d| net.class(d).bandwidth).fold(f64::INFINITY, f64::min) }
        };
        let nv = if to_switch {
            Link { latency: t.classes[0].latency, bandwidth: t.classes[0].bandwidth }
        } else if g > 1 {
            hop(0, 1)
        } else {
            Link { latency: 0.0, bandwidth: f64::INFINITY }
        };
        // The last GPU's NIC: on every rail, the rail's first GPU's.
        let net_hop = hop(g - g / r, 2 * g - g / r);
        Ok(Setup { n, g, r, nv, net: net_hop, trees: nccl_node_trees(n) })
    }

    /// Hops between nodes after a node's last message before the piece
    /// reaches the deepest leaf, at most: NCCL's trees' height less two
    /// (the busiest nodes sit one level above the leaves' parents).
    fn hops_after(&self) -> f64 {
        let height = self.trees.iter().map(|t| t.height[t.root as usize]).max().unwrap_or(0);
        f64::from(height.saturating_sub(2))
    }

    /// The last node's finish of one piece alone ([`one_piece`]) in the
    /// first tree, or in either (two pieces or more, one down each).
    fn fill(&self, pieces: u32, ready: f64, alone: f64, tail: f64) -> f64 {
        let trees = if pieces > 1 { 2 } else { 1 };
        self.trees[..trees]
            .iter()
            .map(|t| one_piece(&t.children, t.root, ready, self.net.latency, alone, tail))
            .fold(0.0, f64::max)
    }

    /// NCCL's two trees over [`PERIOD_NODES`] nodes (the same parity as
    /// `n`) where `n` is more (`None`: its own trees): the steady period
    /// is set by the busiest node, and the kinds of node of the trees over
    /// more nodes are among them.
    fn period_trees(&self) -> Option<[NodeTree; 2]> {
        (self.n > PERIOD_NODES).then(|| nccl_node_trees(PERIOD_NODES + self.n % 2))
    }
}

/// Nodes whose trees stand for larger ones in the steady period
/// ([`Setup::period_trees`]): on `dgx-h100` at 100, 128, 1 000 and 1 024
/// nodes the trees over 32 give the times of those over 64 to 0.1 µs (over
/// 16: within 0.2 %), at half the cost.
const PERIOD_NODES: u32 = 32;

/// Two flows of the same size on one link, their transfers from `a` and
/// `b` (`a ≤ b`), each `alone` long with the link to itself, shared max–min
/// where they overlap: when each finishes.
fn pair(a: f64, b: f64, alone: f64) -> (f64, f64) {
    if b - a >= alone {
        return (a + alone, b + alone);
    }
    let left = alone - (b - a);
    (b + 2.0 * left, b + left + alone)
}

/// When the last of the flows whose transfers start at `a` and `b` (each
/// `alone` long) arrives through one link (a node of NCCL's trees has at
/// most two children in one tree).
fn last_of(a: f64, b: f64, alone: f64) -> f64 {
    pair(a.min(b), a.max(b), alone).1
}

/// One piece through one of NCCL's trees over nodes, alone: every node's
/// head ready to send up at `ready`, a hop between nodes `latency` then
/// `alone` of transfer (children sharing their parent's links), and each
/// node done `tail` after its piece came down. The last node's finish.
fn one_piece(children: &[Vec<u32>], root: u32, ready: f64, latency: f64, alone: f64, tail: f64) -> f64 {
    // Breadth-first order from the root; children before parents when reversed.
    let mut order = vec![root];
    let mut next = 0;
    while next < order.len() {
        order.extend(children[order[next] as usize].iter().copied());
        next += 1;
    }
    let mut up = vec![ready; children.len()];
    for &k in order.iter().rev() {
        let starts: Vec<f64> = children[k as usize].iter().map(|&c| up[c as usize] + latency).collect();
        let arrived = match starts.as_slice() {
            [] => 0.0,
            [a] => a + alone,
            [a, b, ..] => last_of(*a, *b, alone),
        };
        up[k as usize] = up[k as usize].max(arrived);
    }
    let mut down = vec![0.0f64; children.len()];
    down[root as usize] = up[root as usize];
    let mut last = 0.0f64;
    for &k in &order {
        let kids = &children[k as usize];
        // Sent to every child at once: they share the node's link.
        let at = down[k as usize] + latency + alone * kids.len() as f64;
        for &c in kids {
            down[c as usize] = at;
        }
        last = last.max(down[k as usize] + tail);
    }
    last
}

/// NCCL's NVLS tree (allreduce on several nodes, `choose::nvls`): its time
/// (ns), without NCCL's per-call cost: the fill of one piece alone, then a
/// steady period for every two more ([`Period`], [`Cycle`]).
///
/// # Errors
/// A shape other than nodes of GPUs; values the network refuses.
pub fn nvls_tree_ns(t: &Tree) -> Result<f64, ApiError> {
    let s = Setup::new(t, true)?;
    let (c, pieces) = (f64::from(t.channels.max(1)), t.pieces.max(1));
    // The channels are alike and share every link (`Planned::prepare`).
    let nv = Link { bandwidth: s.nv.bandwidth / c, ..s.nv };
    let net = Link { bandwidth: s.net.bandwidth / c, ..s.net };
    // NCCL's heads (at most 32 a node) each head one slice of a piece.
    let heads = commlab_core::libraries::nccl::nvls_heads(s.g);
    let b = block_bytes(t.wire, t.channels.max(1), 0) as f64 / f64::from(pieces * heads);
    let (an, ti) = (nv.latency + b / nv.bandwidth, b / net.bandwidth);
    // One piece: each GPU's parts one at a time, the last slice's sum back
    // at its head after h + 1 NVLink hops; up and down the tree; the `st`
    // and the switch's copy.
    let ready = f64::from(heads + 1) * an;
    let fill = s.fill(pieces, ready, ti, 2.0 * an);
    let cycle = nvls_period(s.period_trees().as_ref().unwrap_or(&s.trees), heads, nv, net, b).0;
    Ok(cycle.time(fill, pieces, ready + 2.0 * an + s.hops_after() * (net.latency + ti)))
}

/// NCCL's tree (allreduce, `choose::node_tree`): a chain of each node's
/// GPUs under each of the two trees over nodes, one channel per NIC. Its
/// time (ns), without NCCL's per-call cost: the fill of one piece, alone
/// for one and under the steady load for many ([`loaded`]), then a steady
/// period for every two more; and no less than the busiest NIC's work from
/// when the first pieces reach their node's head ([`chain_fill`]: their
/// windows crowd the chains as the pipeline starts, and a NIC waits for
/// them; on 2 × `hgx-b200` at 4 GiB that is 2.6 ms of a 13.6 ms run), nor
/// than the first window's way through the trees, its pieces sharing every
/// hop. Where one window holds every piece, that way is the run.
///
/// # Errors
/// A shape other than nodes of GPUs; values the network refuses.
pub fn node_tree_ns(t: &Tree) -> Result<f64, ApiError> {
    let s = Setup::new(t, false)?;
    let (channels, pieces) = (t.channels.max(1), t.pieces.max(1));
    let b = block_bytes(t.wire, channels, 0) as f64 / f64::from(pieces);
    let ti = b / s.net.bandwidth;
    let chain = f64::from(s.g - 1) * (s.nv.latency + b / s.nv.bandwidth);
    let up = chain_fill(s.g, s.r, channels, pieces, s.nv, b);
    let (cycle, busy) =
        tree_period(s.period_trees().as_ref().unwrap_or(&s.trees), (s.g, s.r, channels), s.nv, s.net, b);
    let after = s.hops_after() * (s.net.latency + ti);
    // The busiest NIC: idle until the first pieces are up the chains, then
    // busy with every piece.
    let nics = up + s.net.latency + f64::from(pieces) * cycle.network / 2.0 + chain + after;
    // The first window's journey: its pieces leave together and share every
    // hop between nodes (half of them in each tree); then the NIC's work of
    // the pieces after them.
    let batch = pieces.min(STEPS);
    let first =
        s.fill(pieces, up, f64::from(batch.div_ceil(2)) * ti, chain) + f64::from(pieces - batch) * cycle.network / 2.0;
    if pieces <= STEPS {
        // One window holds every piece: the run is its journey.
        return Ok(first.max(nics));
    }
    let alone = s.fill(pieces, chain, ti, chain);
    let fill = loaded(alone, s.fill(pieces, chain, busy, chain), pieces, cycle.hard.max(cycle.soft) / 2.0);
    Ok(cycle.time(fill, pieces, 2.0 * chain + after).max(nics).max(first))
}

/// The first piece's way up a node's chains as the pipeline starts: every
/// chain's leaf sends a window of pieces at once, and each further window
/// it sends joins the others on the links ahead, shared alike; the front
/// waits on every window upstream of it that has reached its link.
fn chain_fill(g: u32, r: u32, channels: u32, pieces: u32, nv: Link, b: f64) -> f64 {
    let batch = f64::from(pieces.min(STEPS));
    let windows = pieces.div_ceil(STEPS);
    let per = (g / r).max(1);
    let entries: Vec<u32> = (0..channels).map(|c| (c % r) * per + (c / r) % per).collect();
    // The stage (1 = the leaf's hop) at which channel `e`'s chain leaves GPU `x`.
    let stage = |e: u32, x: u32| {
        let j = (x + g - e) % g;
        (j > 0).then_some(g - j)
    };
    let mut fill = 0.0;
    for d in 1..g {
        let most = entries
            .iter()
            .map(|&e| {
                let x = (e + g - d) % g;
                entries.iter().filter(|&&o| stage(o, x).is_some_and(|s| s <= d && d - s < windows)).count()
            })
            .max()
            .unwrap_or(1);
        fill += nv.latency + most as f64 * batch * b / nv.bandwidth;
    }
    fill
}

/// The last piece's fill: alone for one piece, its hops between nodes
/// under the steady load (`busy`) once the pipeline holds as many pieces
/// as that fill lasts cycles, in proportion before.
fn loaded(alone: f64, busy: f64, pieces: u32, cycle: f64) -> f64 {
    let depth = if cycle > 0.0 { (busy / cycle).max(1.0) } else { 1.0 };
    alone + (f64::from(pieces - 1) / depth).min(1.0) * (busy - alone).max(0.0)
}

/// One message of a pipeline's steady period: the window it is held in
/// (from its send to its arrival), its latency, its bytes and the links it
/// crosses (at most two).
#[derive(Debug, Clone, Copy)]
struct Flow {
    window: usize,
    latency: f64,
    bytes: f64,
    links: [usize; 2],
    /// How many such messages the period sends (alike messages are one
    /// flow: their transfers stay equal through the fixed point).
    count: f64,
}

/// A pipeline's steady period: every message sent in it, each held in a
/// window of a few messages in flight (a NIC's), on links of known bandwidth.
#[derive(Debug, Default)]
struct Period {
    bandwidth: Vec<f64>,
    /// Whether each link is the network's (a NIC's), not `NVLink`'s.
    network: Vec<bool>,
    windows: Vec<f64>,
    flows: Vec<Flow>,
    /// Each window's flows (a few: alike ones are found among them).
    held_by: Vec<Vec<usize>>,
}

/// What a flow meets in [`Period::solve`]: its links, each with its
/// (window, link) slot, and the share of its window's own flows it can
/// meet on them ((w − 1)/w).
struct Meets {
    links: usize,
    on: [(usize, usize); 2],
    own: f64,
}

/// No link: a flow's second where it crosses one.
const NONE: usize = usize::MAX;

/// A steady period's length (ns): `hard` from its links and one-message
/// windows, `soft` from its slowest window of several messages.
#[derive(Debug, Clone, Copy)]
struct Cycle {
    hard: f64,
    soft: f64,
    /// The busiest network link's work (ns).
    network: f64,
}

impl Cycle {
    /// The time of `pieces` pieces after a first one's `fill` (a period is
    /// two pieces): the fill and the hard period for every two further
    /// pieces, and the window's period for all of them with what comes
    /// before its first message and after its last one (`outside`); for
    /// several pieces the two together as their smooth maximum ([`norm`]):
    /// a window of several messages lets its first ones go at once, so it
    /// bounds the time only past what it holds, and near there both bind.
    /// One piece is its fill.
    fn time(self, fill: f64, pieces: u32, outside: f64) -> f64 {
        let hard = fill + f64::from(pieces - 1) * self.hard / 2.0;
        let soft = outside + f64::from(pieces) * self.soft / 2.0;
        if pieces == 1 {
            hard.max(soft)
        } else {
            norm(hard, soft)
        }
    }
}

/// The smooth maximum of two bounds that act together: their 3-norm
/// (`docs/systems.md`, "Two engines": 3 fits the flow simulation best of
/// 2, 3, 4 and 6 near where the two bounds cross, and the max, which the
/// norm tends to far from there).
fn norm(a: f64, b: f64) -> f64 {
    let top = a.max(b);
    if top <= 0.0 {
        return 0.0;
    }
    top * (1.0 + (a.min(b) / top).powi(3)).cbrt()
}

/// Rounds of [`Period::solve`]'s fixed point (a fixed count keeps the
/// result smooth in every value).
const PERIOD_ROUNDS: usize = 60;

impl Period {
    fn link(&mut self, bandwidth: f64, network: bool) -> usize {
        self.bandwidth.push(bandwidth);
        self.network.push(network);
        self.bandwidth.len() - 1
    }

    fn window(&mut self, size: u32) -> usize {
        self.windows.push(f64::from(size));
        self.held_by.push(Vec::new());
        self.windows.len() - 1
    }

    fn add(&mut self, window: usize, latency: f64, bytes: f64, links: [usize; 2]) {
        let flows = &mut self.flows;
        let alike = self.held_by[window].iter().copied().find(|&i| {
            let f = &flows[i];
            f.latency.to_bits() == latency.to_bits() && f.bytes.to_bits() == bytes.to_bits() && f.links == links
        });
        let at = alike.unwrap_or_else(|| {
            flows.push(Flow { window, latency, bytes, links, count: 0.0 });
            self.held_by[window].push(flows.len() - 1);
            flows.len() - 1
        });
        flows[at].count += 1.0;
    }

    /// The period ([`Cycle`]) and the mean transfer of the flows that
    /// cross a network link (ns): the slowest of its windows
    /// (each message held for its latency and transfer, `size` at a time)
    /// and its links (their bytes), each transfer slowed by the flows it
    /// meets on its links (their mean number in transfer over the period,
    /// by Little's law; a window of w keeps at most w − 1 of its own beside
    /// a flow), solved as a fixed point.
    fn solve(&self) -> (Cycle, f64) {
        let on = |f: &Flow| f.links.into_iter().filter(|&l| l != NONE);
        let alone: Vec<f64> =
            self.flows.iter().map(|f| on(f).map(|l| f.bytes / self.bandwidth[l]).fold(0.0, f64::max)).collect();
        let mut work = vec![0.0f64; self.bandwidth.len()];
        // Each (flow, link) pair's slot among the (window, link) pairs.
        let mut slots = 0;
        let mut slot = vec![[NONE; 2]; self.flows.len()];
        for flows in &self.held_by {
            // This window's (link, slot) pairs.
            let mut here: Vec<(usize, usize)> = Vec::new();
            for &i in flows {
                let f = &self.flows[i];
                for (j, l) in on(f).enumerate() {
                    work[l] += f.count * f.bytes / self.bandwidth[l];
                    let known = here.iter().find(|(m, _)| *m == l).map(|&(_, k)| k);
                    slot[i][j] = known.unwrap_or_else(|| {
                        here.push((l, slots));
                        slots += 1;
                        slots - 1
                    });
                }
            }
        }
        let links = work.iter().copied().fold(0.0, f64::max);
        let network = work.iter().zip(&self.network).filter(|(_, &n)| n).map(|(&w, _)| w).fold(0.0, f64::max);
        let seen: Vec<Meets> = self
            .flows
            .iter()
            .zip(&slot)
            .map(|(f, s)| {
                let w = self.windows[f.window];
                let mut m = Meets { links: 0, on: [(0, 0); 2], own: (w - 1.0) / w };
                for (l, &k) in on(f).zip(s) {
                    m.on[m.links] = (l, k);
                    m.links += 1;
                }
                m
            })
            .collect();
        let mut transfer = alone.clone();
        let mut busy = vec![0.0f64; self.bandwidth.len()];
        let mut mine = vec![0.0f64; slots];
        let mut held = vec![0.0f64; self.windows.len()];
        for _ in 0..PERIOD_ROUNDS {
            held.fill(0.0);
            for (f, t) in self.flows.iter().zip(&transfer) {
                held[f.window] += f.count * (f.latency + t) / self.windows[f.window];
            }
            let period = held.iter().copied().fold(links, f64::max);
            busy.fill(0.0);
            mine.fill(0.0);
            for ((f, t), m) in self.flows.iter().zip(&transfer).zip(&seen) {
                let share = f.count * t / period;
                for &(l, k) in &m.on[..m.links] {
                    busy[l] += share;
                    mine[k] += share;
                }
            }
            for ((t, a), m) in transfer.iter_mut().zip(&alone).zip(&seen) {
                let me = *t / period;
                let mut others = 0.0f64;
                for &(l, k) in &m.on[..m.links] {
                    others = others.max((busy[l] - mine[k]) + (mine[k] - me).max(0.0) * m.own);
                }
                *t = 0.5 * *t + 0.5 * a * (1.0 + others);
            }
        }
        held.fill(0.0);
        let (mut sum, mut count) = (0.0, 0.0);
        for (f, t) in self.flows.iter().zip(&transfer) {
            held[f.window] += f.count * (f.latency + t) / self.windows[f.window];
            if on(f).any(|l| self.network[l]) {
                sum += f.count * t;
                count += f.count;
            }
        }
        let mut cycle = Cycle { hard: links, soft: 0.0, network };
        for (&h, &size) in held.iter().zip(&self.windows) {
            if size <= 1.0 {
                cycle.hard = cycle.hard.max(h);
            } else {
                cycle.soft = cycle.soft.max(h);
            }
        }
        (cycle, if count > 0.0 { sum / count } else { 0.0 })
    }
}

/// NCCL's steps in flight on one connection.
const STEPS: u32 = commlab_core::systems::NCCL_STEPS;

/// NVLS tree's steady period (two pieces, one down each tree), ns: per node
/// one head stands for all (each heads one slice): its parts to the switch
/// (`g` here: the heads, one slice each, a piece, one at a time) and its `st` (one at a time) on its `NVLink`
/// link, the switch port's sums and copies back on it (one at a time), its
/// hops up and down each tree on the NIC (8 in flight, NCCL's steps).
fn nvls_period(trees: &[NodeTree; 2], g: u32, nv: Link, net: Link, b: f64) -> (Cycle, f64) {
    let n = trees[0].children.len();
    let mut p = Period::default();
    let links: Vec<[usize; 4]> = (0..n)
        .map(|_| {
            [
                p.link(nv.bandwidth, false),
                p.link(nv.bandwidth, false),
                p.link(net.bandwidth, true),
                p.link(net.bandwidth, true),
            ]
        })
        .collect();
    for k in 0..n {
        let [nv_out, nv_in, nic_out, _] = links[k];
        let (parts, st, port, network) = (p.window(1), p.window(1), p.window(1), p.window(STEPS));
        for _ in 0..2 * g {
            p.add(parts, nv.latency, b, [nv_out, NONE]);
            p.add(port, nv.latency, b, [nv_in, NONE]);
        }
        for _ in 0..2 {
            p.add(st, nv.latency, b, [nv_out, NONE]);
            p.add(port, nv.latency, b, [nv_in, NONE]);
        }
        for tree in trees {
            let to = tree.parent[k].into_iter().chain(tree.children[k].iter().copied());
            for other in to {
                p.add(network, net.latency, b, [nic_out, links[other as usize][3]]);
            }
        }
    }
    p.solve()
}

/// NCCL tree's steady period (two pieces, one down each tree), ns: every
/// channel's chain through every node (NCCL's 8 steps in flight per GPU
/// and channel) and its entry GPU's hops up and down each tree on the
/// channel's NIC.
fn tree_period(trees: &[NodeTree; 2], shape: (u32, u32, u32), nv: Link, net: Link, bytes: f64) -> (Cycle, f64) {
    let (gpus, nics, channels) = shape;
    let nodes = trees[0].children.len();
    let mut period = Period::default();
    // Per node: each GPU's NVLink out and in, each NIC's out and in.
    let nvl: Vec<Vec<[usize; 2]>> = (0..nodes)
        .map(|_| (0..gpus).map(|_| [period.link(nv.bandwidth, false), period.link(nv.bandwidth, false)]).collect())
        .collect();
    let nic: Vec<Vec<[usize; 2]>> = (0..nodes)
        .map(|_| (0..nics).map(|_| [period.link(net.bandwidth, true), period.link(net.bandwidth, true)]).collect())
        .collect();
    for k in 0..nodes {
        for c in 0..channels {
            // The channel's chain through a node (`Shape::channel_order`): it
            // enters every node at its rail's GPU.
            let chain = Shape::Nodes { n: 1, g: gpus, r: nics }.channel_order(gpus, c);
            let rail = (c % nics) as usize;
            for (s, &x) in chain.iter().enumerate() {
                let x = x as usize;
                let window = period.window(STEPS);
                for tree in trees {
                    if s > 0 {
                        let to = chain[s - 1] as usize;
                        period.add(window, nv.latency, bytes, [nvl[k][x][0], nvl[k][to][1]]);
                    } else if let Some(parent) = tree.parent[k] {
                        period.add(window, net.latency, bytes, [nic[k][rail][0], nic[parent as usize][rail][1]]);
                    }
                    if s == 0 {
                        for &ch in &tree.children[k] {
                            period.add(window, net.latency, bytes, [nic[k][rail][0], nic[ch as usize][rail][1]]);
                        }
                    }
                    if let Some(&to) = chain.get(s + 1) {
                        period.add(window, nv.latency, bytes, [nvl[k][x][0], nvl[k][to as usize][1]]);
                    }
                }
            }
        }
    }
    period.solve()
}

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

use crate::ApiError;
use commlab_core::choose::{block_bytes, Collective};
use commlab_core::net::topology::{Dir, LinkClass};
use commlab_core::net::{Network, Shape};
use std::collections::HashMap;

/// One hop of a ring's lap: its latency, the bytes it moves, the bandwidth
/// and class of the link it waits on, and its transfer's time when every
/// flow of that link is in transfer.
#[derive(Debug, Clone, Copy)]
struct Hop {
    latency: f64,
    bytes: f64,
    bandwidth: f64,
    class: usize,
    shared: f64,
}

/// A ring's lap: its hops per channel, per station (0: `NVLink`, 1: the
/// NIC) the most of its hops one link carries in a round, and the most
/// flows any link carries (the tokens that share it).
struct Laps {
    hops: Vec<Vec<Hop>>,
    most: [usize; 2],
    tokens: usize,
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
    for c in 0..planned.channels {
        let order = quotient.channel_order(q, c);
        let bytes = block_bytes(planned.wire, planned.channels, c) as f64 / f64::from(planned.p);
        let mut lap = Vec::new();
        for i in 0..q as usize {
            let path = net.fixed_path(order[i], order[(i + 1) % q as usize]);
            let route: Vec<Dir> = path.windows(2).filter_map(|w| net.dir(w[0], w[1])).collect();
            for &d in &route {
                *load.entry(d).or_default() += 1;
            }
            lap.push((route, bytes));
        }
        routes.push(lap);
    }
    // Each hop waits on the link of its route with the least capacity per
    // flow when every hop is in transfer: its station, of that link's class.
    let mut at: HashMap<(Dir, usize), usize> = HashMap::new();
    let mut laps = Vec::new();
    for lap in &routes {
        let mut hops = Vec::new();
        for (i, (route, bytes)) in lap.iter().enumerate() {
            let per_flow = |d: &Dir| net.class(*d).bandwidth / load[d] as f64;
            let Some(&neck) = route.iter().min_by(|a, b| per_flow(a).total_cmp(&per_flow(b))) else { continue };
            let class = usize::from(nic(neck));
            for &d in route {
                if usize::from(nic(d)) == class {
                    *at.entry((d, class)).or_default() += 1;
                }
            }
            if i < g as usize {
                let latency = route.iter().map(|&d| net.class(d).latency).sum();
                let bandwidth = net.class(neck).bandwidth;
                hops.push(Hop { latency, bytes: *bytes, bandwidth, class, shared: *bytes / per_flow(&neck) });
            }
        }
        laps.push(hops);
    }
    let mut most = [0usize; 2];
    for (&(_, class), &k) in &at {
        most[class] = most[class].max(k);
    }
    Ok(Laps { hops: laps, most, tokens: load.values().copied().max().unwrap_or(1) })
}

/// The ring's time (ns), without NCCL's per-call cost.
///
/// # Errors
/// A shape other than nodes, values the network refuses.
pub fn ring_ns(planned: &Ring) -> Result<f64, ApiError> {
    let rounds = if planned.collective == Collective::Allreduce { 2 * (planned.p - 1) } else { planned.p - 1 } as usize;
    let Laps { hops: laps, most, tokens } = ring_laps(planned)?;
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
    let time = |h: &Hop| h.latency + h.bytes / h.bandwidth * share[h.class] * (1.0 + queued[h.class]);
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
    Ok(worst + spread * (lockstep - steady).max(0.0) * (1.0 - (-(rounds as f64) / spread).exp()))
}

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

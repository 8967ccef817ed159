//! The steady-state engine (`docs/systems.md`, "Two engines"): a planned
//! run's time as its latency part plus its bytes over the rate the network
//! gives it in steady state, the sharing solved once per pattern.

use crate::predict::{Planned, Scales};
use crate::ApiError;
use commlab_core::choose::{block_bytes, Collective};
use commlab_core::net::maxmin::progressive_filling;
use commlab_core::net::topology::{Dir, LinkClass};
use commlab_core::net::{Network, Shape};
use std::collections::HashMap;

/// One hop of a pattern: its route's links and latency.
#[derive(Debug, Clone)]
struct Hop {
    route: Vec<Dir>,
    latency: f64,
}

fn hop(net: &Network, a: u32, b: u32) -> Hop {
    let path = net.fixed_path(a, b);
    let route: Vec<Dir> = path.windows(2).filter_map(|w| net.dir(w[0], w[1])).collect();
    let latency = route.iter().map(|&d| net.class(d).latency).sum();
    Hop { route, latency }
}

/// Max–min rates of `hops` all in transfer at once, and each link's capacity.
fn rates(net: &Network, hops: &[&Hop]) -> (Vec<f64>, HashMap<Dir, (usize, f64)>) {
    let mut index: HashMap<Dir, (usize, f64)> = HashMap::new();
    let mut caps = Vec::new();
    let routes: Vec<Vec<Dir>> = hops
        .iter()
        .map(|h| {
            h.route
                .iter()
                .map(|&d| {
                    let next = index.len();
                    let e = index.entry(d).or_insert_with(|| {
                        caps.push(net.class(d).bandwidth);
                        (next, net.class(d).bandwidth)
                    });
                    e.0 as Dir
                })
                .collect()
        })
        .collect();
    let refs: Vec<&[Dir]> = routes.iter().map(Vec::as_slice).collect();
    (progressive_filling(&caps, &refs), index)
}

/// Debug parts of a ring: (chain, bandwidth bound).
pub fn ring_parts(planned: &Planned, s: Scales) -> Result<(f64, f64, f64, f64), ApiError> {
    let net = network(planned, s)?;
    let shape = net_shape(planned)?;
    let collective: Collective = planned.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
    let p = planned.p;
    let steps = if collective == Collective::Allreduce { 2 * (p - 1) } else { p - 1 } as usize;
    let c = planned.channels;
    let hops: Vec<Vec<Hop>> = (0..c)
        .map(|k| {
            let order = shape.channel_order(p, k);
            (0..p as usize).map(|i| hop(&net, order[i], order[(i + 1) % p as usize])).collect()
        })
        .collect();
    let all: Vec<&Hop> = hops.iter().flatten().collect();
    let (rate, _index) = rates(&net, &all);
    let mut chain = 0.0f64;
    let mut solo = 0.0f64;
    let mut lat = 0.0f64;
    let mut load: HashMap<Dir, f64> = HashMap::new();
    for k in 0..c as usize {
        let bytes = block_bytes(planned.wire, c, k as u32) as f64 / f64::from(p);
        let d: Vec<f64> = (0..p as usize).map(|i| hops[k][i].latency + bytes / rate[k * p as usize + i]).collect();
        for h in &hops[k] {
            for &dir in &h.route {
                *load.entry(dir).or_default() += bytes;
            }
        }
        chain = chain.max(window_max(&d, steps));
        let ds: Vec<f64> = (0..p as usize).map(|i| hops[k][i].latency + bytes / hops[k][i].route.iter().map(|&d| net.class(d).bandwidth).fold(f64::INFINITY, f64::min)).collect();
        solo = solo.max(window_max(&ds, steps));
        let dl: Vec<f64> = (0..p as usize).map(|i| hops[k][i].latency).collect();
        lat = lat.max(window_max(&dl, steps));
    }
    // MVA: tokens c·p, delay Z (mean lap latency), stations per link.
    let mut z = 0.0;
    for k in 0..c as usize { z += hops[k].iter().map(|h| h.latency).sum::<f64>(); }
    z /= f64::from(c);
    let mut groups: Vec<(f64, f64)> = Vec::new();
    for (&dir, &l) in &load {
        let dem = l / net.class(dir).bandwidth / f64::from(c);
        match groups.iter_mut().find(|g| (g.0 - dem).abs() <= 1e-9 * dem) { Some(g) => g.1 += 1.0, None => groups.push((dem, 1.0)) }
    }
    let n = (c * p) as usize;
    let mut q = vec![0.0f64; groups.len()];
    let mut x = 0.0;
    for m in 1..=n {
        let r: Vec<f64> = groups.iter().zip(&q).map(|(g, q)| g.0 * (1.0 + q)).collect();
        let total: f64 = z + groups.iter().zip(&r).map(|(g, r)| g.1 * r).sum::<f64>();
        x = m as f64 / total;
        for (qi, ri) in q.iter_mut().zip(&r) { *qi = x * ri; }
    }
    let mva = n as f64 / x * steps as f64 / f64::from(p);
    let _ = mva;
    let bw = load.iter().map(|(&dir, &l)| l / net.class(dir).bandwidth).fold(0.0, f64::max) * steps as f64;
    Ok((chain, bw, solo, lat))
}

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

fn net_shape(planned: &Planned) -> Result<Shape, ApiError> {
    planned.shape.parse().map_err(|e: String| ApiError::problem("network", e))
}

fn network(planned: &Planned, s: Scales) -> Result<Network, ApiError> {
    let class = |k: usize, scale: f64| LinkClass {
        bandwidth: planned.classes[k].0 * scale,
        latency: planned.classes[k].1 + planned.steps[k] * s.latency,
    };
    Ok(Network::new(net_shape(planned)?, [class(0, s.intra), class(1, s.inter)])?)
}


/// The ring with duty cycles: each flow is active (transferring) a share
/// u of the ring's step period; a link gives an active flow its capacity over
/// 1 + the other flows' mean number active; the period is the slowest
/// channel's chain. Solved by damped iteration from u = 0 (solo rates).
pub fn ring_duty(planned: &Planned, s: Scales, damping: f64) -> Result<f64, ApiError> {
    let net = network(planned, s)?;
    let shape = net_shape(planned)?;
    let collective: Collective = planned.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
    let p = planned.p as usize;
    let steps = if collective == Collective::Allreduce { 2 * (p - 1) } else { p - 1 };
    let c = planned.channels as usize;
    let mut flows: Vec<(usize, Hop, f64)> = Vec::new();
    for k in 0..c {
        let order = shape.channel_order(p as u32, k as u32);
        let bytes = block_bytes(planned.wire, c as u32, k as u32) as f64 / p as f64;
        for i in 0..p {
            flows.push((k, hop(&net, order[i], order[(i + 1) % p]), bytes));
        }
    }
    let mut on_link: HashMap<Dir, Vec<usize>> = HashMap::new();
    for (j, f) in flows.iter().enumerate() {
        for &d in &f.1.route {
            on_link.entry(d).or_default().push(j);
        }
    }
    let mut u = vec![0.0f64; flows.len()];
    let mut total = 0.0;
    for _ in 0..500 {
        let busy: HashMap<Dir, f64> = on_link.iter().map(|(&d, js)| (d, js.iter().map(|&j| u[j]).sum())).collect();
        let rate: Vec<f64> = flows
            .iter()
            .enumerate()
            .map(|(j, f)| {
                f.1.route.iter().map(|&d| net.class(d).bandwidth / (1.0 + (busy[&d] - u[j]).max(0.0))).fold(f64::INFINITY, f64::min)
            })
            .collect();
        let mut period = vec![0.0f64; c];
        let mut next_total = 0.0f64;
        for k in 0..c {
            let d: Vec<f64> = (0..p).map(|i| { let j = k * p + i; flows[j].1.latency + flows[j].2 / rate[j] }).collect();
            let w = window_max(&d, steps);
            period[k] = w / steps as f64;
            next_total = next_total.max(w);
        }
        let mut moved = 0.0f64;
        for (j, f) in flows.iter().enumerate() {
            let target = ((f.2 / rate[j]) / period[f.0]).min(1.0);
            let v = u[j] + damping * (target - u[j]);
            moved = moved.max((v - u[j]).abs());
            u[j] = v;
        }
        total = next_total;
        if moved < 1e-9 {
            break;
        }
    }
    Ok(total)
}


/// Paced by the slowest hop: a rank's sends are sequential (the NIC window)
/// and each waits for its receive, so the longest path may stay at one hop:
/// steps × the slowest hop's time. Returns (solo rates, all-shared rates).
pub fn ring_paced(planned: &Planned, s: Scales) -> Result<(f64, f64), ApiError> {
    let net = network(planned, s)?;
    let shape = net_shape(planned)?;
    let collective: Collective = planned.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
    let p = planned.p as usize;
    let steps = if collective == Collective::Allreduce { 2 * (p - 1) } else { p - 1 };
    let c = planned.channels as usize;
    let mut hops = Vec::new();
    let mut bytes = Vec::new();
    for k in 0..c {
        let order = shape.channel_order(p as u32, k as u32);
        let b = block_bytes(planned.wire, c as u32, k as u32) as f64 / p as f64;
        for i in 0..p {
            hops.push(hop(&net, order[i], order[(i + 1) % p]));
            bytes.push(b);
        }
    }
    let refs: Vec<&Hop> = hops.iter().collect();
    let (shared, _) = rates(&net, &refs);
    let mut solo_max = 0.0f64;
    let mut shared_max = 0.0f64;
    for (j, h) in hops.iter().enumerate() {
        let solo_rate = h.route.iter().map(|&d| net.class(d).bandwidth).fold(f64::INFINITY, f64::min);
        solo_max = solo_max.max(h.latency + bytes[j] / solo_rate);
        shared_max = shared_max.max(h.latency + bytes[j] / shared[j]);
    }
    Ok((solo_max * steps as f64, shared_max * steps as f64))
}

//! A network as a request (`docs/network.md`): topology id, link classes,
//! breaks and placement, validated into a `Network`; a network run and its
//! JSON (per-rank finish times, per-link load, the bottleneck, unreachable
//! pairs, the slowdown against the ideal switch).

use crate::ApiError;
use commlab_core::goal::Schedule;
use commlab_core::limits;
use commlab_core::net::topology::{parse_breaks, Shape};
use commlab_core::net::{LinkClass, NetOutcome, NetParams, NetSimulation, Network, Placement};
use serde::{Deserialize, Serialize};
use serde_json::{json as j, Value};

/// A network as users describe it. Absent classes take the topology's
/// defaults (`Shape::default_classes`). The topology and the placement are
/// held parsed (their text in JSON): whoever builds a request has checked them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NetRequest {
    /// The topology (`torus:8x8`, `fattree:16,16,4`, … as text).
    #[serde(with = "crate::wire::as_text")]
    pub topology: Shape,
    /// First link class: bandwidth (bytes per ns).
    pub bandwidth: Option<f64>,
    /// First link class: latency (ns).
    pub latency: Option<f64>,
    /// Second class (fat-tree leaf–spine, `nodes` NIC/rail).
    pub bandwidth2: Option<f64>,
    /// Second class latency.
    pub latency2: Option<f64>,
    /// Links broken by name, `a-b,c-d` (vertex ids).
    pub breaks: String,
    /// Fraction of links broken at random.
    pub break_rate: f64,
    /// Seed of the random breaks.
    pub seed: u64,
    /// `identity` or `random:SEED` (as text).
    #[serde(with = "crate::wire::as_text")]
    pub placement: Placement,
    /// Messages one (rank, NIC) holds at once, from the send's start until
    /// its flow arrives; 0: no limit (`docs/network.md`, a NIC sends in order).
    pub nic_window: u32,
}

impl Default for NetRequest {
    fn default() -> NetRequest {
        NetRequest {
            topology: Shape::Torus([4, 4, 1]),
            bandwidth: None,
            latency: None,
            bandwidth2: None,
            latency2: None,
            breaks: String::new(),
            break_rate: 0.0,
            seed: 1,
            placement: Placement::Identity,
            nic_window: 1,
        }
    }
}

impl NetRequest {
    /// A network of `topology` with the defaults.
    pub fn on(topology: Shape) -> NetRequest {
        NetRequest { topology, ..NetRequest::default() }
    }

    /// `nodes` nodes of `preset` (`docs/systems.md`): its `nodes:NxGxR`
    /// network with its `NVLink` and NIC bandwidths, no link broken; the
    /// one place a System becomes a network (the views' System control,
    /// `--system` of `choose` and `net sim`).
    pub fn system(&mut self, preset: &commlab_core::systems::Preset, nodes: u32) {
        self.topology = preset.shape(nodes);
        self.bandwidth = Some(preset.nvlink);
        self.bandwidth2 = Some(preset.nic);
        self.breaks.clear();
        self.break_rate = 0.0;
    }

    /// The link classes (given or default).
    ///
    /// # Errors
    /// A bandwidth or latency out of range.
    pub fn classes(&self, shape: Shape) -> Result<[LinkClass; 2], ApiError> {
        let [d1, d2] = shape.default_classes();
        let check = |v: Option<f64>, d: f64, range: limits::RealRange, name: &'static str| {
            limits::RealRange { name, ..range }.check(v.unwrap_or(d)).map_err(ApiError::from)
        };
        let (b, l) = (limits::net::BANDWIDTH, limits::net::LATENCY);
        Ok([
            LinkClass {
                bandwidth: check(self.bandwidth, d1.bandwidth, b, "bandwidth")?,
                latency: check(self.latency, d1.latency, l, "latency")?,
            },
            LinkClass {
                bandwidth: check(self.bandwidth2, d2.bandwidth, b, "bandwidth2")?,
                latency: check(self.latency2, d2.latency, l, "latency2")?,
            },
        ])
    }

    /// The network with its breaks.
    ///
    /// # Errors
    /// Any field out of range, a break that is not a link.
    pub fn network(&self) -> Result<Network, ApiError> {
        let shape = self.topology;
        let mut net = Network::new(shape, self.classes(shape)?)?;
        let list = parse_breaks(&self.breaks).map_err(|e| ApiError::problem("break", e))?;
        net.break_links(&list, self.break_rate, self.seed)?;
        Ok(net)
    }

    /// The simulator's options: `cpu`'s `o`, `g`, `O` and `S` with this
    /// network's NIC window.
    ///
    /// # Errors
    /// A window out of range.
    pub fn sim_params(&self, cpu: NetParams) -> Result<NetParams, ApiError> {
        let window = limits::net::WINDOW.check(u64::from(self.nic_window))?;
        Ok(NetParams { window: window as u32, ..cpu })
    }

    /// The ideal switch of the same NIC: `switch:H` with the first class,
    /// H the hosts (or `ranks`, when ranks sit on switches too).
    ///
    /// # Errors
    /// As [`NetRequest::network`].
    pub fn ideal(&self, ranks: u32) -> Result<Network, ApiError> {
        let shape = self.topology;
        let classes = self.classes(shape)?;
        // Ranks beyond the hosts (on NVSwitches) get a port of their own.
        let hosts = u32::try_from(shape.hosts()).unwrap_or(u32::MAX).max(ranks);
        Ok(Network::new(Shape::Switch(hosts), [classes[0]; 2])?)
    }
}

/// A whole network run: the outcome on the network, and the ideal switch's
/// max time for the slowdown.
pub struct NetRun {
    /// The network (with its breaks).
    pub net: Network,
    /// What the run gave.
    pub outcome: NetOutcome,
    /// The max finish time on the ideal switch of the same NIC bandwidth.
    pub ideal: f64,
}

/// Runs `schedule` on the request's network and on its ideal switch.
///
/// # Errors
/// Any field out of range, more ranks than hosts, too many flows at once.
pub fn run(schedule: &Schedule, request: &NetRequest, p: NetParams, trace: bool) -> Result<NetRun, ApiError> {
    let net = request.network()?;
    let placement = request.placement;
    let ideal_net = request.ideal(schedule.ranks())?;
    let p = request.sim_params(p)?;
    // One layout of the ops for both runs.
    let mut sim = NetSimulation::new(schedule, net.clone(), placement, p, trace)?;
    while !sim.advance(u64::MAX)? {}
    let (outcome, prepared) = sim.finish_prepared();
    let mut sim = NetSimulation::prepared(prepared, ideal_net, placement, p, false)?;
    while !sim.advance(u64::MAX)? {}
    let ideal = sim.finish().max().0;
    Ok(NetRun { net, outcome, ideal })
}

/// Unreachable pairs with the ops they block, as JSON (every op, by rank and label).
pub fn unreachable_json(schedule: &Schedule, outcome: &NetOutcome) -> Value {
    Value::Array(
        outcome
            .unreachable
            .iter()
            .map(|b| {
                let ops: Vec<String> = b.sends.iter().map(|&i| schedule.describe(i)).collect();
                j!({ "from": b.from, "to": b.to, "ops": ops })
            })
            .collect(),
    )
}

/// The run's JSON: `finish_times` (ns per rank), `max_time`, `links` (per
/// directed link with traffic: `from`, `to`, `bytes`, `busy_ns`,
/// `peak_flows`), `bottleneck` (busy longest), `most_utilised` (bytes over
/// bandwidth × run time, highest), `ideal_switch_ns`, `slowdown`, `unreachable`.
pub fn run_json(schedule: &Schedule, run: &NetRun, request: &NetRequest) -> Value {
    let out = &run.outcome;
    let net = &run.net;
    let links: Vec<Value> = out
        .links
        .iter()
        .enumerate()
        .filter(|(_, l)| l.bytes > 0.0)
        .map(|(d, l)| {
            let (from, to) = net.ends(d as u32);
            j!({ "from": from, "to": to, "bytes": l.bytes, "busy_ns": l.busy, "peak_flows": l.peak })
        })
        .collect();
    let (max_time, slowest) = out.max();
    let name = |d: u32| {
        let (from, to) = net.ends(d);
        format!("{}→{}", net.vertex_name(from), net.vertex_name(to))
    };
    // The bottleneck by utilisation (`NetOutcome::bottlenecks`), the links
    // tied with it named in `ties`.
    let ties = out.bottlenecks(net);
    let bottleneck = ties.first().map(|&d| {
        let (from, to) = net.ends(d);
        let l = out.links[d as usize];
        let utilisation = if max_time > 0.0 { l.bytes / (net.class(d).bandwidth * max_time) } else { 0.0 };
        j!({
            "from": from, "to": to,
            "name": name(d),
            "bytes": l.bytes, "busy_ns": l.busy, "peak_flows": l.peak,
            "busy_fraction": if max_time > 0.0 { l.busy / max_time } else { 0.0 },
            "utilisation": utilisation,
            "ties": ties[1..].iter().map(|&d| name(d)).collect::<Vec<_>>(),
        })
    });
    // Kept for links written before the bottleneck was named by utilisation: the same link.
    let most_utilised = self::bottleneck(net, out, max_time).map(|(name, u)| j!({ "name": name, "utilisation": u }));
    let [c1, c2] = net.classes;
    j!({
        "most_utilised": most_utilised,
        "topology": net.shape.to_string(),
        "hosts": net.hosts(),
        "vertices": net.vertices(),
        "link_count": net.links.len(),
        "broken": net.broken_count(),
        "bandwidth": c1.bandwidth, "latency": c1.latency,
        "bandwidth2": c2.bandwidth, "latency2": c2.latency,
        "placement": request.placement.to_string(),
        "nic_window": request.nic_window,
        "ranks": schedule.ranks(),
        "finish_times": out.finish,
        "max_time": max_time,
        "slowest_rank": slowest,
        "completes": out.completes(),
        "links": links,
        "bottleneck": bottleneck,
        "ideal_switch_ns": run.ideal,
        "slowdown": if run.ideal > 0.0 { max_time / run.ideal } else { 1.0 },
        "unreachable": unreachable_json(schedule, out),
        "unmatched": out.unmatched.iter().map(Vec::len).sum::<usize>(),
        "events": out.events,
        "peak_flows": out.peak_flows,
        "resharing": j!({ "count": out.resharing.0, "flows": out.resharing.1 }),
    })
}

/// The topology as JSON: its vertices (id, name, kind) and links (id, `a`,
/// `b`, class, bandwidth, latency, broken).
pub fn topology_json(net: &Network) -> Value {
    let hosts = net.hosts();
    let vertices: Vec<Value> = (0..net.vertices())
        .map(|v| j!({ "id": v, "name": net.vertex_name(v), "kind": if v < hosts { "host" } else { "switch" } }))
        .collect();
    let links: Vec<Value> = net
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let c = net.classes[usize::from(l.class)];
            j!({
                "id": i, "a": l.a, "b": l.b, "class": l.class,
                "bandwidth": c.bandwidth, "latency": c.latency, "broken": net.broken[i],
            })
        })
        .collect();
    j!({
        "topology": net.shape.to_string(),
        "hosts": hosts,
        "vertices": vertices,
        "links": links,
        "broken": net.broken_count(),
    })
}

/// One directed link of a [`NetSummary`]: its name and load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkSummary {
    /// Directed link id (`2·link` from the lower vertex to the higher).
    pub dir: u32,
    /// `h3→h4`, `leaf0→spine1`.
    pub name: String,
    /// Bytes carried.
    pub bytes: f64,
    /// ns with at least one flow in transfer.
    pub busy: f64,
    /// Most flows at once.
    pub peak: u32,
}

/// What the Schedule view shows of a network run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetSummary {
    /// The topology id as parsed.
    pub topology: String,
    /// Hosts, links, broken links.
    pub hosts: u32,
    /// Undirected links.
    pub links: u32,
    /// Broken links.
    pub broken: u32,
    /// Largest finish time (ns, exact).
    pub max_time: f64,
    /// The same schedule on `switch:H` with the first link class (`None`
    /// while that run is still under way: [`SimResponse::Partial`](crate::sim::SimResponse::Partial)).
    pub ideal: Option<f64>,
    /// `max_time / ideal`.
    pub slowdown: Option<f64>,
    /// The bottleneck: the link used closest to its bandwidth over the run
    /// (`NetOutcome::bottlenecks`).
    pub bottleneck: Option<LinkSummary>,
    /// The links tied with it, at most [`HOT_LINKS`] named.
    pub ties: Vec<String>,
    /// Links tied with it in all.
    pub tie_count: u32,
    /// The bottleneck's utilisation: bytes over bandwidth × the run's time.
    pub utilisation: f64,
    /// Ranks that did not finish (a receive without its message, a pair
    /// with no path); then there is no slowdown to give.
    pub stuck: u32,
    /// The hottest links by busy time, at most [`HOT_LINKS`].
    pub hottest: Vec<LinkSummary>,
    /// Unreachable pairs `(from rank, to rank, the first ops they block)`, at most 20.
    pub unreachable: Vec<(u32, u32, Vec<String>)>,
    /// Unreachable pairs in all.
    pub unreachable_pairs: u32,
    /// Most flows in transfer at once.
    pub peak_flows: u64,
    /// Re-sharings and the flows they re-shared.
    pub resharing: (u64, u64),
}

/// Links listed in [`NetSummary::hottest`].
pub const HOT_LINKS: usize = 8;

fn link_summary(net: &Network, out: &NetOutcome, d: u32) -> LinkSummary {
    let (a, b) = net.ends(d);
    let l = out.links[d as usize];
    LinkSummary {
        dir: d,
        name: format!("{}→{}", net.vertex_name(a), net.vertex_name(b)),
        bytes: l.bytes,
        busy: l.busy,
        peak: l.peak,
    }
}

impl NetSummary {
    /// Fills in the ideal switch's max finish time and the slowdown against it.
    pub fn set_ideal(&mut self, ideal: f64) {
        self.ideal = Some(ideal);
        self.slowdown = Some(if ideal > 0.0 { self.max_time / ideal } else { 1.0 });
    }
}

/// The summary of `run` (`schedule` names the blocked ops); the ideal
/// switch's time when `run` has it (not NaN).
pub fn summary(schedule: &Schedule, run: &NetRun) -> NetSummary {
    let (net, out) = (&run.net, &run.outcome);
    let max_time = out.max().0;
    let ties = out.bottlenecks(net);
    let mut busiest: Vec<u32> = (0..out.links.len() as u32).filter(|&d| out.links[d as usize].busy > 0.0).collect();
    busiest.sort_by(|&a, &b| out.links[b as usize].busy.total_cmp(&out.links[a as usize].busy).then(a.cmp(&b)));
    let mut summary = NetSummary {
        topology: net.shape.to_string(),
        hosts: net.hosts(),
        links: net.links.len() as u32,
        broken: net.broken_count() as u32,
        max_time,
        ideal: None,
        slowdown: None,
        bottleneck: ties.first().map(|&d| link_summary(net, out, d)),
        ties: ties.iter().skip(1).take(HOT_LINKS).map(|&d| link_summary(net, out, d).name).collect(),
        tie_count: ties.len().saturating_sub(1) as u32,
        utilisation: ties.first().map_or(0.0, |&d| {
            let bytes = out.links[d as usize].bytes;
            if max_time > 0.0 {
                bytes / (net.class(d).bandwidth * max_time)
            } else {
                0.0
            }
        }),
        stuck: out.stuck().len() as u32,
        hottest: busiest.iter().take(HOT_LINKS).map(|&d| link_summary(net, out, d)).collect(),
        unreachable: out
            .unreachable
            .iter()
            .take(20)
            .map(|b| (b.from, b.to, b.sends.iter().take(8).map(|&i| schedule.describe(i)).collect()))
            .collect(),
        unreachable_pairs: out.unreachable.len() as u32,
        peak_flows: out.peak_flows as u64,
        resharing: out.resharing,
    };
    if !run.ideal.is_nan() {
        summary.set_ideal(run.ideal);
    }
    summary
}

/// The network picture's data as flat arrays (the worker transfers them as
/// `Float64Array`s): the topology, per-link load and, for a traced run, the
/// flows with their rate changes, for the time scrubber.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NetPicture {
    /// The topology id.
    pub topology: String,
    /// Hosts (vertices `0..hosts`), then switches up to `vertices`.
    pub hosts: u32,
    /// Vertices.
    pub vertices: u32,
    /// Per link, [`PICTURE_LINK`] values: `a`, `b`, class, broken (0/1).
    pub links: Vec<f64>,
    /// Per class, its bandwidth (bytes/ns).
    pub classes: Vec<f64>,
    /// Per directed link, [`PICTURE_LOAD`] values: bytes, busy ns, peak flows.
    pub loads: Vec<f64>,
    /// Per rank, its host.
    pub ranks: Vec<f64>,
    /// Per message, [`PICTURE_FLOW`] values: from rank, to rank, transfer
    /// start, arrival, bytes, route (−1: none; times NaN when it never ran).
    pub flows: Vec<f64>,
    /// Rate changes, [`PICTURE_RATE`] values: flow, from when, bytes/ns.
    pub rates: Vec<f64>,
    /// Route `r`'s directed links are `route_dirs[route_first[r]..route_first[r + 1]]`.
    pub route_first: Vec<f64>,
    /// The routes' directed links.
    pub route_dirs: Vec<f64>,
    /// The run's end (ns).
    pub end: f64,
}

/// Values per link of [`NetPicture::links`].
pub const PICTURE_LINK: usize = 4;
/// Values per directed link of [`NetPicture::loads`].
pub const PICTURE_LOAD: usize = 3;
/// Values per message of [`NetPicture::flows`].
pub const PICTURE_FLOW: usize = 6;
/// Values per rate change of [`NetPicture::rates`].
pub const PICTURE_RATE: usize = 3;

/// What a link's colour stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heat {
    /// Bytes carried, against the link that carried most.
    Bytes,
    /// Busy time, against the run's end.
    Busy,
}

/// One flow in transfer at an instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moving {
    /// The message.
    pub flow: u32,
    /// Sending and receiving rank.
    pub from: u32,
    /// Receiving rank.
    pub to: u32,
    /// Its rate then (bytes/ns).
    pub rate: f64,
}

impl NetPicture {
    /// The picture of `run` (`ranks` placed on `hosts`).
    pub fn new(run: &NetRun, hosts: &[u32]) -> NetPicture {
        let (net, out) = (&run.net, &run.outcome);
        let mut p = NetPicture {
            topology: net.shape.to_string(),
            hosts: net.hosts(),
            vertices: net.vertices(),
            classes: net.classes.iter().map(|c| c.bandwidth).collect(),
            ranks: hosts.iter().map(|&h| f64::from(h)).collect(),
            end: out.max().0,
            ..NetPicture::default()
        };
        for (l, &broken) in net.links.iter().zip(&net.broken) {
            p.links.extend([f64::from(l.a), f64::from(l.b), f64::from(l.class), f64::from(u8::from(broken))]);
        }
        for l in &out.links {
            p.loads.extend([l.bytes, l.busy, f64::from(l.peak)]);
        }
        for f in &out.flows {
            let route = if f.route == u32::MAX { -1.0 } else { f64::from(f.route) };
            p.flows.extend([f64::from(f.from), f64::from(f.to), f.transfer, f.arrived, f.size as f64, route]);
        }
        for r in &out.rates {
            p.rates.extend([f64::from(r.flow), r.at, r.rate]);
        }
        p.route_first.push(0.0);
        for r in &out.routes {
            p.route_dirs.extend(r.iter().map(|&d| f64::from(d)));
            p.route_first.push(p.route_dirs.len() as f64);
        }
        p
    }

    /// Links in all.
    pub fn link_count(&self) -> usize {
        self.links.len() / PICTURE_LINK
    }

    /// Link `i`: `(a, b, class, broken)`.
    pub fn link(&self, i: usize) -> (u32, u32, u8, bool) {
        let v = &self.links[i * PICTURE_LINK..i * PICTURE_LINK + PICTURE_LINK];
        (v[0] as u32, v[1] as u32, v[2] as u8, v[3] != 0.0)
    }

    /// Directed link `d`'s load: `(bytes, busy ns, peak flows)`.
    pub fn load(&self, d: usize) -> (f64, f64, u32) {
        let v = &self.loads[d * PICTURE_LOAD..d * PICTURE_LOAD + PICTURE_LOAD];
        (v[0], v[1], v[2] as u32)
    }

    /// Per link, the heat of its busier direction in `0..=1`.
    pub fn heat(&self, by: Heat) -> Vec<f64> {
        let value = |d: usize| match by {
            Heat::Bytes => self.load(d).0,
            Heat::Busy => self.load(d).1,
        };
        let per_link: Vec<f64> = (0..self.link_count()).map(|i| value(2 * i).max(value(2 * i + 1))).collect();
        let scale = match by {
            Heat::Bytes => per_link.iter().copied().fold(0.0, f64::max),
            Heat::Busy => self.end,
        };
        per_link.iter().map(|&v| if scale > 0.0 { (v / scale).min(1.0) } else { 0.0 }).collect()
    }

    /// Whether the flows were traced (the scrubber can show them).
    pub fn traced(&self) -> bool {
        !self.flows.is_empty() || self.route_first.len() > 1
    }

    /// The flows in transfer at `t` (transfer start ≤ t < arrival) with
    /// their rates then, in message order.
    pub fn moving_at(&self, t: f64) -> Vec<Moving> {
        let mut rate = std::collections::HashMap::new();
        for r in self.rates.chunks_exact(PICTURE_RATE) {
            if r[1] > t {
                break;
            }
            rate.insert(r[0] as u32, r[2]);
        }
        let mut moving: Vec<Moving> = self
            .flows
            .chunks_exact(PICTURE_FLOW)
            .enumerate()
            .filter(|(_, f)| f[2] <= t && t < f[3])
            .map(|(m, f)| Moving {
                flow: m as u32,
                from: f[0] as u32,
                to: f[1] as u32,
                rate: rate.get(&(m as u32)).copied().unwrap_or(0.0),
            })
            .collect();
        moving.sort_by_key(|m| m.flow);
        moving
    }

    /// The directed links of message `m`'s route.
    pub fn route_of(&self, flow: u32) -> Vec<u32> {
        let Some(values) = self.flows.chunks_exact(PICTURE_FLOW).nth(flow as usize) else { return Vec::new() };
        if values[5] < 0.0 {
            return Vec::new();
        }
        let route = values[5] as usize;
        let (first, last) = (self.route_first[route] as usize, self.route_first[route + 1] as usize);
        self.route_dirs[first..last].iter().map(|&d| d as u32).collect()
    }

    /// Per directed link at `t`: `(flows in transfer, used fraction of its bandwidth)`.
    pub fn use_at(&self, t: f64) -> Vec<(u32, f64)> {
        let mut used = vec![(0u32, 0.0f64); 2 * self.link_count()];
        for m in self.moving_at(t) {
            for d in self.route_of(m.flow) {
                let u = &mut used[d as usize];
                u.0 += 1;
                u.1 += m.rate;
            }
        }
        for (d, u) in used.iter_mut().enumerate() {
            let class = self.link(d / 2).2 as usize;
            let cap = self.classes.get(class).copied().unwrap_or(1.0);
            u.1 /= cap;
        }
        used
    }
}

/// The link that bounds the bandwidth ([`commlab_core::net::NetOutcome::most_utilised`])
/// by name, with its utilisation.
pub fn bottleneck(
    net: &commlab_core::net::Network,
    out: &commlab_core::net::NetOutcome,
    time: f64,
) -> Option<(String, f64)> {
    out.most_utilised(net, time).map(|(d, u)| {
        let (a, b) = net.ends(d);
        (format!("{}→{}", net.vertex_name(a), net.vertex_name(b)), u)
    })
}

//! A network as a request (`docs/network.md`): topology id, link classes,
//! breaks and placement, validated into a `Network`; a network run and its
//! JSON (per-rank finish times, per-link load, the bottleneck, unreachable
//! pairs, the slowdown against the ideal switch).

use crate::ApiError;
use commlab_core::goal::Schedule;
use commlab_core::limits;
use commlab_core::net::topology::{parse_breaks, Shape, FORMS};
use commlab_core::net::{simulate, LinkClass, NetOutcome, NetParams, Network, Placement};
use serde::{Deserialize, Serialize};
use serde_json::{json as j, Value};

/// A network as users describe it. Absent classes take the topology's
/// defaults (`Shape::default_classes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NetRequest {
    /// Topology id (`torus:8x8`, `fattree:16,16,4`, …).
    pub topology: String,
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
    /// `identity` or `random:SEED`.
    pub placement: String,
}

impl Default for NetRequest {
    fn default() -> NetRequest {
        NetRequest {
            topology: "torus:4x4".to_owned(),
            bandwidth: None,
            latency: None,
            bandwidth2: None,
            latency2: None,
            breaks: String::new(),
            break_rate: 0.0,
            seed: 1,
            placement: "identity".to_owned(),
        }
    }
}

impl NetRequest {
    /// The shape.
    ///
    /// # Errors
    /// An id that is not one of the forms, or out of range.
    pub fn shape(&self) -> Result<Shape, ApiError> {
        self.topology.parse().map_err(|e: String| ApiError::new("topology", &self.topology, format!("{FORMS}: {e}")))
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
        let shape = self.shape()?;
        let mut net = Network::new(shape, self.classes(shape)?)?;
        let list = parse_breaks(&self.breaks).map_err(|e| ApiError::problem("break", e))?;
        net.break_links(&list, self.break_rate, self.seed)?;
        Ok(net)
    }

    /// The placement.
    ///
    /// # Errors
    /// Not `identity` or `random:SEED`.
    pub fn placement(&self) -> Result<Placement, ApiError> {
        self.placement.parse().map_err(|e: String| ApiError::new("placement", &self.placement, e))
    }

    /// The ideal switch of the same NIC: `switch:H` with the first class.
    ///
    /// # Errors
    /// As [`NetRequest::network`].
    pub fn ideal(&self) -> Result<Network, ApiError> {
        let shape = self.shape()?;
        let classes = self.classes(shape)?;
        let hosts = u32::try_from(shape.hosts()).unwrap_or(u32::MAX);
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
    let placement = request.placement()?;
    let outcome = simulate(schedule, net.clone(), placement, p, trace)?;
    let ideal = simulate(schedule, request.ideal()?, placement, p, false)?.max().0;
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
/// `peak_flows`), `bottleneck`, `ideal_switch_ns`, `slowdown`, `unreachable`.
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
    let bottleneck = out.bottleneck().map(|d| {
        let (from, to) = net.ends(d);
        let l = out.links[d as usize];
        j!({
            "from": from, "to": to,
            "name": format!("{}→{}", net.vertex_name(from), net.vertex_name(to)),
            "bytes": l.bytes, "busy_ns": l.busy, "peak_flows": l.peak,
            "busy_fraction": if max_time > 0.0 { l.busy / max_time } else { 0.0 },
        })
    });
    let [c1, c2] = net.classes;
    j!({
        "topology": net.shape.to_string(),
        "hosts": net.hosts(),
        "vertices": net.vertices(),
        "link_count": net.links.len(),
        "broken": net.broken_count(),
        "bandwidth": c1.bandwidth, "latency": c1.latency,
        "bandwidth2": c2.bandwidth, "latency2": c2.latency,
        "placement": request.placement,
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

//! commlab's network model against `SimGrid` itself (`docs/network.md`,
//! "Checked against SimGrid"): the same schedule on the same network in
//! Debian's `python3-simgrid` (`tests/simgrid/run.py`, which builds its own
//! links and routes from the topology id), finish times equal to 1e-6.

use commlab_core::choose::{goal, goal_channels, plan, Collective};
use commlab_core::goal::{parse, Kind, Schedule};
use commlab_core::net::{simulate, LinkClass, NetParams, Network, Placement, Shape};
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

fn simgrid(input: &Value) -> Vec<f64> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/simgrid/run.py");
    let mut child = Command::new("/usr/bin/python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("/usr/bin/python3 runs (scripts/setup.sh installs python3-simgrid)");
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "SimGrid run failed (python3-simgrid is installed by scripts/setup.sh): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("run.py prints JSON");
    v["finish"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

fn input(s: &Schedule, net: &Network, window: u32) -> Value {
    let kind = |k| match k {
        Kind::Send => "send",
        Kind::Recv => "recv",
        Kind::Calc => "calc",
    };
    let ops: Vec<Value> = s.ops.iter().map(|o| json!([o.rank, kind(o.kind), o.size, o.peer, o.tag, o.nic])).collect();
    let deps: Vec<Value> = s.deps.iter().map(|&(d, p, on)| json!([d, p, on])).collect();
    let breaks: Vec<Value> =
        net.links.iter().zip(&net.broken).filter(|(_, &b)| b).map(|(l, _)| json!([l.a, l.b])).collect();
    let [c1, c2] = net.classes;
    json!({
        "topology": net.shape.to_string(),
        "bandwidth": c1.bandwidth, "latency": c1.latency,
        "bandwidth2": c2.bandwidth, "latency2": c2.latency,
        "breaks": breaks, "ops": ops, "deps": deps, "window": window,
    })
}

/// A schedule with calcs, `irequires` and unequal sizes: every rank sends
/// to two others, computes, then forwards.
const WITH_CALCS: &str = "num_ranks 8
rank 0 {\nl1: send 3000b to 5 tag 1\nl2: send 9000b to 3 tag 2\nl3: calc 700\nl4: recv 4000b from 7 tag 3\nl5: send 2000b to 6 tag 4\nl3 irequires l1\nl5 requires l4\nl5 requires l3\n}
rank 1 {\nl1: send 5000b to 3 tag 1\nl2: calc 1500\nl2 requires l1\n}
rank 2 {\nl1: send 6000b to 5 tag 1\n}
rank 3 {\nl1: recv 9000b from 0 tag 2\nl2: recv 5000b from 1 tag 1\nl3: calc 300\nl3 requires l1\nl3 requires l2\nl4: send 4000b to 7 tag 9\nl4 requires l3\n}
rank 4 {\nl1: calc 100\n}
rank 5 {\nl1: recv 3000b from 0 tag 1\nl2: recv 6000b from 2 tag 1\n}
rank 6 {\nl1: recv 2000b from 0 tag 4\n}
rank 7 {\nl1: recv 4000b from 3 tag 9\nl2: send 4000b to 0 tag 3\nl2 requires l1\n}
";

fn schedules() -> Vec<(&'static str, Schedule)> {
    let chooser = |c: &str, id: &str| {
        let c: Collective = c.parse().unwrap();
        goal(&plan(c, id, 8, 1).unwrap(), 24_000)
    };
    vec![
        ("allreduce/ring", chooser("allreduce", "ring")),
        ("allreduce/rabenseifner", chooser("allreduce", "rabenseifner")),
        ("all-to-all/linear", chooser("all-to-all", "linear")),
        ("broadcast/binomial", chooser("broadcast", "binomial")),
        ("calcs", parse(WITH_CALCS).unwrap()),
        ("swizzle (rank shift)", swizzle(true)),
        ("swizzle (no shift)", swizzle(false)),
    ]
}

/// Schedules that pipeline or spread over NICs: what the NIC window changes.
fn pipelined(net: &Network) -> Vec<(&'static str, Schedule)> {
    let chain = plan(Collective::Broadcast, "chain", 8, 6).unwrap();
    let tree = plan(Collective::Allreduce, "double-binary-tree", 8, 3).unwrap();
    let ring = plan(Collective::Allreduce, "ring", 8, 1).unwrap();
    let orders: Vec<Vec<u32>> = (0..3).map(|c| net.shape.channel_order(8, c)).collect();
    vec![
        ("broadcast/chain, 6 pieces", goal(&chain, 24_000)),
        ("allreduce/double-binary-tree, 3 pieces", goal(&tree, 24_000)),
        ("allreduce/ring, 3 channels", goal_channels(&ring, 24_000, &orders)),
    ]
}

/// The CommSwizzle schedule on every rank (8 ranks, 4 × 2 cores, 2000 B
/// tiles): with the rank shift the cores spread over the ranks, without it
/// they pile onto one rank at a time.
fn swizzle(shift: bool) -> Schedule {
    use commlab_core::swizzle::{CoreSplit, GridShape, SwizzleConfig};
    let grid = GridShape { row: 4, column: 2, rank: 8 };
    let config = SwizzleConfig::new(grid, CoreSplit { row: 4, column: 2 }, 0, false, shift).unwrap();
    commlab_core::goal::patterns::swizzle(&config, 2000, false)
}

fn network(id: &str, broken: bool) -> Network {
    let shape: Shape = id.parse().unwrap();
    // Unequal classes, so the second class shows (fat-tree spines, NICs).
    let classes = [LinkClass { bandwidth: 12.5, latency: 150.0 }, LinkClass { bandwidth: 5.0, latency: 400.0 }];
    if !broken {
        return Network::new(shape, classes).unwrap();
    }
    // The first seed whose broken links (two; one on a ring, which two
    // would cut) leave every pair connected.
    for seed in 1..1000 {
        let mut net = Network::new(shape, classes).unwrap();
        let rate = breaks(shape) as f64 / net.links.len() as f64;
        net.break_links(&[], rate, seed).unwrap();
        let mut probe = net.clone();
        if (0..8).all(|a| (0..8).all(|b| probe.route(a, b).is_ok())) {
            return net;
        }
    }
    panic!("no seed below 1000 keeps {id} connected")
}

fn breaks(shape: Shape) -> usize {
    if matches!(shape, Shape::Ring(_)) {
        1
    } else {
        2
    }
}

/// `s` on `net` with NIC window `window`: every rank's finish equals
/// `SimGrid`'s to 1e-6 (relative).
fn same_as_simgrid(s: &Schedule, net: &Network, window: u32, what: &str) {
    let p = NetParams { window, ..NetParams::unlimited() };
    let ours = simulate(s, net.clone(), Placement::Identity, p, false).unwrap();
    assert!(ours.completes(), "{what}");
    let theirs = simgrid(&input(s, net, window));
    assert_eq!(theirs.len(), ours.finish.len());
    for (r, (a, b)) in ours.finish.iter().zip(&theirs).enumerate() {
        let rel = (a - b).abs() / a.abs().max(b.abs()).max(1.0);
        assert!(rel <= 1e-6, "{what} rank {r}: commlab {a} ns, SimGrid {b} ns");
    }
}

#[test]
fn finish_times_equal_simgrids() {
    let topologies = ["switch:8", "ring:8", "mesh:4x2", "torus:3x3", "fattree:2,4,2", "nodes:2x4", "nodes:2x4x2"];
    let mut compared = 0;
    for id in topologies {
        let shape: Shape = id.parse().unwrap();
        for broken in [false, true] {
            if broken && !shape.breakable() {
                continue;
            }
            let net = network(id, broken);
            assert_eq!(net.broken_count(), if broken { breaks(shape) } else { 0 });
            let all: Vec<_> = schedules().into_iter().chain(pipelined(&net)).collect();
            for window in [0, 1, 2] {
                for (name, s) in &all {
                    same_as_simgrid(s, &net, window, &format!("{name} on {id} (broken: {broken}, W = {window})"));
                    compared += 1;
                }
            }
        }
    }
    assert_eq!(compared, 11 * 10 * 3);
}

#[test]
fn nvls_with_the_switch_as_a_rank_equals_simgrid() {
    // NVLS: a rank on each node's switch vertex (in SimGrid, a host there),
    // on one node and, as NVLSTree, on two and three; 3 channels on NICs of their own.
    use commlab_core::choose::nvls;
    for (id, collective, pieces) in [
        ("nodes:1x4", "allreduce", 3),
        ("nodes:2x4", "allreduce", 2),
        ("nodes:3x2", "allreduce", 2),
        ("nodes:1x4", "allgather", 2),
        ("nodes:1x4", "reduce-scatter", 2),
    ] {
        let net = network(id, false);
        let Shape::Nodes { n, g, .. } = net.shape else { unreachable!() };
        let plan = nvls(collective.parse().unwrap(), n * g, g, pieces).unwrap();
        let identity: Vec<u32> = (0..plan.ranks).collect();
        let s = goal_channels(&plan, 48_000, &[identity.clone(), identity.clone(), identity]);
        for window in [0, 2] {
            same_as_simgrid(&s, &net, window, &format!("NVLS {collective} on {id} (W = {window})"));
        }
    }
}

#[test]
fn the_window_changes_what_pipelines() {
    // The check above is not empty: on these networks the window changes
    // the pipelined chain's time (W = 0 sends every piece at once).
    let net = network("ring:8", false);
    let (name, chain) = pipelined(&net).remove(0);
    let at = |window| {
        let p = NetParams { window, ..NetParams::unlimited() };
        simulate(&chain, net.clone(), Placement::Identity, p, false).unwrap().max().0
    };
    assert!(at(1) < 0.8 * at(0), "{name}: W = 1 {} ns, W = 0 {} ns", at(1), at(0));
}

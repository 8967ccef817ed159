//! The network model against closed forms worked by hand, and a harness
//! that checks the sharing at every event.

#![allow(clippy::many_single_char_names, reason = "closed forms in the names of docs/network.md")]

use super::maxmin::progressive_filling;
use super::sim::{simulate, NetParams, NetSimulation};
use super::topology::{LinkClass, Network, Placement, Shape};
use crate::choose::{goal, plan, Collective};
use crate::goal::{parse, Kind, Op, Schedule};
use std::fmt::Write as _;

const B: f64 = 2.0; // bytes per ns
const LAMBDA: f64 = 100.0; // ns per link

fn network(id: &str) -> Network {
    let shape: Shape = id.parse().unwrap();
    Network::new(shape, [LinkClass { bandwidth: B, latency: LAMBDA }; 2]).unwrap()
}

fn run(s: &Schedule, id: &str) -> Vec<f64> {
    simulate(s, network(id), Placement::Identity, NetParams::unlimited(), false).unwrap().finish
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Sends `(from, to, bytes)` all at time 0 (no dependencies), each with its receive.
fn messages(ranks: u32, list: &[(u32, u32, u64)]) -> Schedule {
    let mut s = Schedule::default();
    for r in 0..ranks {
        for (k, &(from, to, bytes)) in list.iter().enumerate() {
            let tag = k as u32;
            if from == r {
                s.push(r, Op { kind: Kind::Send, size: bytes, peer: to, tag, cpu: 0, nic: 0, rank: r }, "");
            }
            if to == r {
                s.push(r, Op { kind: Kind::Recv, size: bytes, peer: from, tag, cpu: 0, nic: 0, rank: r }, "");
            }
        }
    }
    s.close(ranks);
    s
}

#[test]
fn one_flow_takes_its_latency_plus_size_over_bandwidth() {
    // mesh:4x4 from host 0 to host 15: 3 x-hops and 3 y-hops.
    let s = messages(16, &[(0, 15, 1000)]);
    let finish = run(&s, "mesh:4x4");
    assert!(close(finish[15], 6.0 * LAMBDA + 1000.0 / B), "{}", finish[15]);
}

#[test]
fn k_flows_on_one_link_share_it() {
    for k in 1..=5u32 {
        let list: Vec<(u32, u32, u64)> = (0..k).map(|_| (0, 1, 600)).collect();
        let finish = run(&messages(2, &list), "ring:4");
        assert!(close(finish[1], LAMBDA + f64::from(k) * 600.0 / B), "k = {k}: {}", finish[1]);
    }
}

#[test]
fn incast_into_one_host_of_a_switch() {
    let p = 9;
    let list: Vec<(u32, u32, u64)> = (1..p).map(|r| (r, 0, 512)).collect();
    let finish = run(&messages(p, &list), "switch:9");
    // Every flow crosses up(r) alone and down(0) with the other p − 2.
    assert!(close(finish[0], 2.0 * LAMBDA + f64::from(p - 1) * 512.0 / B));
}

#[test]
fn ring_allreduce_on_a_ring_takes_one_hop_per_step_without_sharing() {
    for p in [4u32, 8, 16] {
        let n = 4096 * u64::from(p);
        let plan = plan(Collective::Allreduce, "ring", p, 1).unwrap();
        let t = run(&goal(&plan, n), &format!("ring:{p}")).into_iter().fold(0.0, f64::max);
        let step = LAMBDA + (n / u64::from(p)) as f64 / B;
        assert!(close(t, 2.0 * f64::from(p - 1) * step), "p = {p}: {t}");
    }
}

#[test]
fn rabenseifner_on_a_ring_loads_each_link_with_the_flows_that_cross_it() {
    // ring:8, n bytes. Reduce-scatter by halving: distance 4 (n/2 bytes), 2
    // (n/4), 1 (n/8); the allgather the same in reverse.
    // Distance 4 is a tie: all 8 flows go the + way over 4 links, so each +
    // link carries 4 of them and each gets B/4.
    // Distance 2: pairs (0,2) (1,3) (4,6) (5,7); the lower rank goes + over
    // two links, the higher −; link 1→2 carries 0→2 and 1→3: B/2 each.
    // Distance 1: one flow per link.
    let n = 8 * 4096u64;
    let nf = n as f64;
    let step = |d: f64, bytes: f64, sharing: f64| d * LAMBDA + bytes * sharing / B;
    let half = step(4.0, nf / 2.0, 4.0) + step(2.0, nf / 4.0, 2.0) + step(1.0, nf / 8.0, 1.0);
    let want = 2.0 * half; // 14λ + 5.25·n/B
    let plan = plan(Collective::Allreduce, "rabenseifner", 8, 1).unwrap();
    let t = run(&goal(&plan, n), "ring:8").into_iter().fold(0.0, f64::max);
    assert!(close(t, want), "{t} vs {want}");
    assert!(close(want, 14.0 * LAMBDA + 5.25 * nf / B));
    // Ring allreduce on the same ring: 14λ + 1.75·n/B, faster at this size.
    let ring = plan_time("ring", 8, n, "ring:8");
    assert!(ring < t);
}

fn plan_time(id: &str, p: u32, n: u64, topology: &str) -> f64 {
    let plan = plan(Collective::Allreduce, id, p, 1).unwrap();
    run(&goal(&plan, n), topology).into_iter().fold(0.0, f64::max)
}

#[test]
fn an_empty_break_list_equals_no_faults() {
    let plan = plan(Collective::Allreduce, "recursive-doubling", 16, 1).unwrap();
    let s = goal(&plan, 1 << 16);
    let intact = run(&s, "torus:4x4");
    let mut net = network("torus:4x4");
    net.break_links(&[], 0.0, 99).unwrap();
    let broken = simulate(&s, net, Placement::Identity, NetParams::unlimited(), false).unwrap().finish;
    assert_eq!(intact, broken);
}

#[test]
fn labels_do_not_change_results() {
    let a = "num_ranks 2\nrank 0 {\nl1: send 1000b to 1 tag 3\nl2: calc 50\nl2 requires l1\n}\nrank 1 {\nl1: recv 1000b from 0 tag 3\n}\n";
    let b = "num_ranks 2\nrank 0 {\nsendit: send 1000b to 1 tag 3\nwork: calc 50\nwork requires sendit\n}\nrank 1 {\nx: recv 1000b from 0 tag 3\n}\n";
    assert_eq!(run(&parse(a).unwrap(), "ring:2"), run(&parse(b).unwrap(), "ring:2"));
}

#[test]
fn a_broken_link_reroutes_and_costs_time() {
    // ring:6, 0 → 1 normally one hop; with 0-1 broken it goes the other way, 5 hops.
    let s = messages(6, &[(0, 1, 1000)]);
    let mut net = network("ring:6");
    net.break_links(&[(0, 1)], 0.0, 0).unwrap();
    let out = simulate(&s, net, Placement::Identity, NetParams::unlimited(), false).unwrap();
    assert!(close(out.finish[1], 5.0 * LAMBDA + 1000.0 / B));
}

#[test]
fn unreachable_pairs_block_their_ops_and_nothing_hangs() {
    let s = messages(4, &[(0, 2, 100), (1, 2, 100)]);
    let mut net = network("ring:4");
    net.break_links(&[(1, 2), (2, 3)], 0.0, 0).unwrap();
    let out = simulate(&s, net, Placement::Identity, NetParams::unlimited(), false).unwrap();
    assert_eq!(out.unreachable.len(), 2);
    assert_eq!((out.unreachable[0].from, out.unreachable[0].to), (0, 2));
    assert_eq!(out.unreachable[0].sends.len(), 1);
    assert!(!out.completes());
    assert_eq!(out.unmatched[2].len(), 2, "both receives of rank 2 stay posted");
}

#[test]
fn rendezvous_waits_for_the_receive() {
    // Rank 1 posts its receive after a 1000 ns calc; the 5000-byte message
    // is above S = 100, so its flow starts at 1000.
    let text = "num_ranks 2\nrank 0 {\nl1: send 5000b to 1 tag 0\n}\nrank 1 {\nl1: calc 1000\nl2: recv 5000b from 0 tag 0\nl2 requires l1\n}\n";
    let s = parse(text).unwrap();
    let p = NetParams { s: 100, ..NetParams::unlimited() };
    let out = simulate(&s, network("ring:2"), Placement::Identity, p, true).unwrap();
    let done = 1000.0 + LAMBDA + 5000.0 / B;
    assert!(close(out.ops[0].1, done), "the send completes when the flow arrives: {:?}", out.ops[0]);
    assert!(close(out.ops[2].1, done));
}

#[test]
fn messages_of_a_channel_match_in_send_order() {
    // Two messages on one channel: a big one, then a small one that arrives
    // first. The first receive still takes the big one.
    let text = "num_ranks 2\nrank 0 {\nl1: send 8000b to 1 tag 0\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: recv 8000b from 0 tag 0\nl2: recv 8b from 0 tag 0\n}\n";
    let s = parse(text).unwrap();
    let out = simulate(&s, network("ring:2"), Placement::Identity, NetParams::unlimited(), true).unwrap();
    let big = LAMBDA + 8000.0 / B + 8.0 / B; // they share the link while both are in transfer
    assert!(close(out.ops[2].1, big), "{:?}", out.ops[2]);
    assert!(out.ops[3].1 < big);
}

/// Runs event by event and checks, at every event: no link over capacity,
/// the rates are the max–min allocation (the literal progressive filling),
/// every flow's bytes equal its size when it arrives, and the per-link byte
/// totals equal the sum over the flows routed through the link.
fn audit(s: &Schedule, net: Network) {
    audit_with(s, net, NetParams::unlimited());
}

fn audit_with(s: &Schedule, net: Network, params: NetParams) {
    let dirs = 2 * net.links.len();
    let caps: Vec<f64> = (0..dirs as u32).map(|d| net.class(d).bandwidth).collect();
    let mut sim = NetSimulation::new(s, net, Placement::Identity, params, true).unwrap();
    let mut delivered: std::collections::HashMap<u32, (f64, f64)> = std::collections::HashMap::new();
    let mut events = 0;
    loop {
        sim.settle();
        let now = sim.now();
        let flows: Vec<(u32, f64, Vec<u32>)> = sim.in_transfer().map(|(m, r, route)| (m, r, route.to_vec())).collect();
        let mut load = vec![0.0; dirs];
        for (_, rate, route) in &flows {
            for &d in route {
                load[d as usize] += rate;
            }
        }
        for d in 0..dirs {
            assert!(load[d] <= caps[d] * (1.0 + 1e-9), "link {d} over capacity at {now}: {} > {}", load[d], caps[d]);
        }
        let routes: Vec<&[u32]> = flows.iter().map(|(_, _, r)| r.as_slice()).collect();
        let want = progressive_filling(&caps, &routes);
        for (k, (m, rate, _)) in flows.iter().enumerate() {
            assert!(close(*rate, want[k]), "flow {m} at {now}: rate {rate}, max–min {}", want[k]);
            delivered.entry(*m).or_insert((0.0, *rate)).1 = *rate;
        }
        let done = sim.advance(1).unwrap();
        let dt = sim.now() - now;
        let live: std::collections::HashSet<u32> = sim.in_transfer().map(|(m, _, _)| m).collect();
        for (m, (bytes, rate)) in &mut delivered {
            *bytes += *rate * dt;
            let _ = m;
        }
        let gone: Vec<u32> = delivered.keys().copied().filter(|m| !live.contains(m)).collect();
        for m in gone {
            let (bytes, _) = delivered.remove(&m).unwrap();
            let size = s.ops[sim.send_of(m) as usize].size as f64;
            // To 1e-6, or what the links move in the clock's resolution.
            let resolution = caps.iter().copied().fold(0.0, f64::max) * 64.0 * f64::EPSILON * sim.now();
            assert!((bytes - size).abs() <= 1e-6 * size + resolution, "message {m}: {bytes} bytes delivered of {size}");
        }
        events += 1;
        if done {
            break;
        }
    }
    assert!(events > 10);
    let out = sim.finish();
    let mut bytes = vec![0.0; dirs];
    let mut flows = vec![0.0; dirs];
    for f in &out.flows {
        for &d in &out.routes[f.route as usize] {
            bytes[d as usize] += f.size as f64;
            flows[d as usize] += 1.0;
        }
    }
    let end = out.max().0;
    for (d, (load, want)) in out.links.iter().zip(&bytes).enumerate() {
        assert!(close(load.bytes, *want), "link {d}: {} vs {want}", load.bytes);
        // No link carries more than its bandwidth: to 1e-9, plus the clock's
        // resolution (a few units of its last place) for each busy stretch.
        let resolution = 64.0 * f64::EPSILON * end * flows[d];
        assert!(
            load.bytes <= caps[d] * (load.busy * (1.0 + 1e-9) + resolution),
            "link {d} carried {} B in {} ns busy: {} B/ns on a {} B/ns link",
            load.bytes,
            load.busy,
            load.bytes / load.busy,
            caps[d]
        );
        assert!(load.busy <= end * (1.0 + 1e-12), "link {d} busy {} past the end {end}", load.busy);
        assert!((load.bytes > 0.0) == (load.busy > 0.0) && (load.peak > 0) == (load.bytes > 0.0));
    }
}

#[test]
fn sharing_is_max_min_at_every_event() {
    let cases = [
        ("all-to-all", "pairwise", 8, "fattree:2,4,2"),
        ("allreduce", "rabenseifner", 8, "ring:8"),
        ("allreduce", "recursive-doubling", 9, "torus:3x3"),
        ("allgather", "bruck", 6, "mesh:3x2"),
        ("broadcast", "binomial", 8, "nodes:2x4"),
    ];
    for (collective, id, p, topology) in cases {
        let c: Collective = collective.parse().unwrap();
        let s = goal(&plan(c, id, p, 1).unwrap(), 3000 * u64::from(p));
        audit(&s, network(topology));
    }
    // Unequal flows: sizes 1 000 to 9 000 from every rank to every other.
    let list: Vec<(u32, u32, u64)> = (0..6)
        .flat_map(|a| (0..6).filter(move |&b| b != a).map(move |b| (a, b, 1000 * u64::from(1 + (a * 7 + b) % 9))))
        .collect();
    let mut net = network("torus:3x2");
    net.break_links(&[(0, 1)], 0.0, 0).unwrap();
    audit(&messages(6, &list), net);
}

#[test]
fn late_in_a_long_run_short_flows_still_take_their_time() {
    // Rank 0 computes for a long time, then sends 8, 16, … 56 bytes to the 7
    // other GPUs of nodes:1x8 (450 B/ns links): flows far shorter than the
    // clock's 1e-12 used to arrive with the first, and the link carried up
    // to 8× its bandwidth.
    let nodes = |latency: f64| {
        let shape: Shape = "nodes:1x8".parse().unwrap();
        Network::new(shape, [LinkClass { bandwidth: 450.0, latency }, LinkClass { bandwidth: 50.0, latency }]).unwrap()
    };
    for calc in [1e11, 1e12] {
        let mut text = format!("num_ranks 8\nrank 0 {{\nc: calc {calc}\n");
        for k in 1..8 {
            let _ = write!(text, "s{k}: send {}b to {k} tag 0\ns{k} requires c\n", 8 * k);
        }
        text.push_str("}\n");
        for k in 1..8 {
            let _ = write!(text, "rank {k} {{\nr: recv {}b from 0 tag 0\n}}\n", 8 * k);
        }
        let s = parse(&text).unwrap();
        audit_with(&s, nodes(500.0), NetParams::unlimited());
        // With the NIC window they go one at a time, and each takes its own size over 450.
        audit_with(&s, nodes(500.0), NetParams::default());
    }
    // A chain of 1-byte pieces on links of latency 10^9 ns.
    let chain = goal(&plan(Collective::Broadcast, "chain", 8, 64).unwrap(), 64);
    audit_with(&chain, nodes(1e9), NetParams::unlimited());
    // o at its largest (2^40 ns) before every send of a ring allreduce.
    let ring = goal(&plan(Collective::Allreduce, "ring", 8, 1).unwrap(), 8 * 16384);
    let o = crate::limits::schedule::PARAM.max as f64;
    audit_with(&ring, nodes(500.0), NetParams { o, g: o, ..NetParams::unlimited() });
}

#[test]
fn a_link_is_busy_while_a_flow_is_in_transfer_on_it() {
    // Four flows of 600 bytes on link 0→1 from time λ: busy for 4·600/B exactly.
    let list: Vec<(u32, u32, u64)> = (0..4).map(|_| (0, 1, 600)).collect();
    let out =
        simulate(&messages(2, &list), network("ring:4"), Placement::Identity, NetParams::unlimited(), false).unwrap();
    let d = out.bottleneck(&network("ring:4")).unwrap();
    assert_eq!(d, 0);
    assert!(close(out.links[0].busy, 4.0 * 600.0 / B));
    assert_eq!(out.links[0].peak, 4);
    assert!(close(out.links[0].bytes, 2400.0));
}

#[test]
fn the_bottleneck_is_the_link_used_closest_to_its_bandwidth_and_ties_are_listed() {
    // Ring allreduce on nodes:2x8 (NVLink 450 B/ns, NICs 50 B/ns), one
    // channel: the ring leaves each node once, through one NIC. Every link
    // of the ring is busy about as long, but only the NIC links run at their
    // bandwidth: by utilisation the bottleneck is a NIC link (by busy time
    // it was an NVLink link used at 11 %). Both directions' NIC hops carry
    // the same bytes: they tie, and all are listed.
    let shape: Shape = "nodes:2x8".parse().unwrap();
    let net = Network::new(shape, shape.default_classes()).unwrap();
    let s = goal(&plan(Collective::Allreduce, "ring", 16, 1).unwrap(), 16 << 20);
    let out = simulate(&s, net.clone(), Placement::Identity, NetParams::default(), false).unwrap();
    let ties = out.bottlenecks(&net);
    assert!(!ties.is_empty());
    let load = |d: u32| out.links[d as usize].bytes / net.class(d).bandwidth;
    let most = (0..out.links.len() as u32).map(load).fold(0.0, f64::max);
    for &d in &ties {
        assert!(close(load(d), most), "link {d}");
        assert_eq!(net.class(d).bandwidth, 50.0, "link {d} is a NIC link");
    }
    // Every link at the most is listed, none below it.
    let at_most = (0..out.links.len() as u32).filter(|&d| load(d) >= most * (1.0 - 1e-9)).count();
    assert_eq!(ties.len(), at_most);
    assert!(ties.len() >= 2, "{ties:?}");
    let busiest = (0..out.links.len()).map(|d| out.links[d].busy).fold(0.0, f64::max);
    let (_, u) = out.most_utilised(&net, out.max().0).unwrap();
    assert!(u > 0.0 && u <= 1.0 + 1e-9, "{u}");
    assert!(busiest > 0.0);
}

#[test]
fn a_deadlocked_run_names_the_ranks_it_leaves_stuck() {
    // ring:8 cut in two (links 0-1 and 4-5): ring allreduce's messages
    // across the cuts never go, and the ranks on either side of each wait.
    let mut net = network("ring:8");
    net.break_links(&[(0, 1), (4, 5)], 0.0, 0).unwrap();
    let s = goal(&plan(Collective::Allreduce, "ring", 8, 1).unwrap(), 8 * 1024);
    let out = simulate(&s, net, Placement::Identity, NetParams::unlimited(), false).unwrap();
    assert!(!out.completes());
    let stuck = out.stuck();
    assert!(stuck.contains(&1) && stuck.contains(&5), "{stuck:?}");
    let intact = simulate(&s, network("ring:8"), Placement::Identity, NetParams::unlimited(), false).unwrap();
    assert!(intact.stuck().is_empty());
}

#[test]
fn progress_ends_at_its_expected_count() {
    // All eager, all rendezvous, and a channel mixing both (its own envelope events).
    let plan = plan(Collective::Allreduce, "rabenseifner", 8, 1).unwrap();
    let s = goal(&plan, 8000);
    let mixed = "num_ranks 2\nrank 0 {\nl1: send 5000b to 1 tag 0\nl2: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 5000b from 0 tag 0\nl2: recv 8b from 0 tag 0\n}\n";
    let mixed = parse(mixed).unwrap();
    for (schedule, eager_limit) in [(&s, u64::MAX), (&s, 10), (&mixed, 100)] {
        let p = NetParams { s: eager_limit, ..NetParams::unlimited() };
        let mut sim = NetSimulation::new(schedule, network("ring:8"), Placement::Identity, p, false).unwrap();
        while !sim.advance(7).unwrap() {}
        let (done, expected) = sim.progress();
        assert_eq!(done, expected, "S = {eager_limit}");
        let out = sim.finish();
        assert_eq!(out.events, expected, "S = {eager_limit}: the count is exact, not only clamped");
        assert!(out.completes());
    }
}

/// A run with `W = window` on a network whose links all have `(bandwidth, latency)`.
fn windowed(s: &Schedule, id: &str, bandwidth: f64, latency: f64, window: u32) -> Vec<f64> {
    let shape: Shape = id.parse().unwrap();
    let net = Network::new(shape, [LinkClass { bandwidth, latency }; 2]).unwrap();
    simulate(s, net, Placement::Identity, NetParams { window, ..NetParams::default() }, false).unwrap().finish
}

#[test]
fn a_chain_of_pieces_pipelines_on_a_line_of_hosts_as_the_article_says() {
    // docs/network.md, a NIC sends in order: with W = 1 every hop of a piece
    // takes λ + n/(m·B); the last piece leaves the root after m of them and
    // needs p − 2 more: T = (λ + n/(m·B))(p + m − 2).
    let n: u64 = 840 * 1024; // divisible by every m below
    for p in [2u32, 3, 5, 8, 13] {
        for m in [1u32, 2, 3, 4, 7, 16] {
            for (bandwidth, latency) in [(2.0, 100.0), (12.5, 1700.0), (0.5, 0.0)] {
                let chain = goal(&plan(Collective::Broadcast, "chain", p, m).unwrap(), n);
                let line = format!("mesh:{p}x1");
                let finish = windowed(&chain, &line, bandwidth, latency, 1);
                let t = finish.iter().copied().fold(0.0, f64::max);
                let want = (latency + n as f64 / (f64::from(m) * bandwidth)) * f64::from(p + m - 2);
                assert!(close(t, want), "p = {p}, m = {m}, B = {bandwidth}, λ = {latency}: {t} vs {want}");
                // Without the window every piece of a rank leaves at once: the
                // pieces share the link and the chain costs one piece of the
                // whole vector per hop, whatever m is.
                let all_at_once = windowed(&chain, &line, bandwidth, latency, 0).iter().copied().fold(0.0, f64::max);
                let one_piece = (latency + n as f64 / bandwidth) * f64::from(p - 1);
                assert!(all_at_once >= one_piece * (1.0 - 1e-9), "p = {p}, m = {m}: {all_at_once} < {one_piece}");
            }
        }
    }
}

#[test]
fn the_reduction_pipeline_pipelines_on_a_line_of_hosts_too() {
    // The Runtime-model view's chain (units toward unit 0), same closed form.
    let n: u64 = 3 * 5 * 7 * 64;
    for p in [2u64, 4, 9] {
        for m in [1u64, 3, 5, 7] {
            let s = crate::goal::generate::collective("pipeline", p, n, m).unwrap();
            let t = windowed(&s, &format!("mesh:{p}x1"), 4.0, 250.0, 1).iter().copied().fold(0.0, f64::max);
            let want = (250.0 + n as f64 / (m as f64 * 4.0)) * (p + m - 2) as f64;
            assert!(close(t, want), "p = {p}, m = {m}: {t} vs {want}");
        }
    }
}

#[test]
fn a_pipelined_tree_root_on_a_star_sends_one_piece_at_a_time() {
    // p = 3, binomial broadcast: the root's two children are leaves. On
    // switch:3 a message crosses two links (2λ) and, one at a time from
    // the root's NIC, never shares: the root's 2m messages go one after the
    // other, each 2λ + n/(m·B), and the last arrives at 2m(2λ + n/(m·B)).
    let n: u64 = 9 * 1000;
    for m in [1u32, 3, 9] {
        let s = goal(&plan(Collective::Broadcast, "pipelined-binomial", 3, m).unwrap(), n);
        let t = windowed(&s, "switch:3", B, LAMBDA, 1).iter().copied().fold(0.0, f64::max);
        let want = 2.0 * f64::from(m) * (2.0 * LAMBDA + n as f64 / (f64::from(m) * B));
        assert!(close(t, want), "m = {m}: {t} vs {want}");
        // W = 2: both children's flows share the root's up link; each pair
        // takes 2λ + 2·n/(m·B), m pairs one after the other.
        let t2 = windowed(&s, "switch:3", B, LAMBDA, 2).iter().copied().fold(0.0, f64::max);
        let want2 = f64::from(m) * (2.0 * LAMBDA + 2.0 * n as f64 / (f64::from(m) * B));
        assert!(close(t2, want2), "W = 2, m = {m}: {t2} vs {want2}");
    }
}

#[test]
fn waiting_sends_start_in_the_order_they_became_ready() {
    // Rank 0 sends 3 messages at time 0 to ranks 1, 2, 3 (GOAL order), W = 1,
    // on switch:4: they go one after the other in that order.
    let s = messages(4, &[(0, 1, 1000), (0, 2, 1000), (0, 3, 1000)]);
    let finish = windowed(&s, "switch:4", B, LAMBDA, 1);
    let hop = 2.0 * LAMBDA + 1000.0 / B;
    for (r, k) in [(1, 1.0), (2, 2.0), (3, 3.0)] {
        assert!(close(finish[r], k * hop), "rank {r}: {}", finish[r]);
    }
}

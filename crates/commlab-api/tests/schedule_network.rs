#![allow(clippy::many_single_char_names, reason = "p, n, r, b, t as in docs/network.md")]
//! The Schedule engine's network mode against closed forms worked by hand
//! (`docs/network.md`): the run, its timeline, the picture's scrubber, the
//! re-run with a broken link, the exports and the refusals.

use commlab_api::network::{Heat, NetRequest};
use commlab_api::schedule::{
    GenerateRequest, LogGops, ScheduleExport, ScheduleRequest, ScheduleResult, ScheduleSource, BAR, MESSAGE,
};
use commlab_api::sim::{SimEngine, SimQuery, SimResponse};

/// No CPU costs: the network alone decides (L and G are the network's).
const FREE: LogGops = LogGops { l: 2500, o: 0, g: 0, big_g: 6, big_o: 0, s: 65535 };

fn ring_allreduce(p: u64, bytes: u64) -> GenerateRequest {
    GenerateRequest { collective: "allreduce/ring".into(), p, bytes, ..GenerateRequest::default() }
}

fn on(topology: &str) -> NetRequest {
    NetRequest::on(topology.parse().unwrap())
}

fn ready(engine: &mut SimEngine, query: SimQuery) -> ScheduleResult {
    match engine.serve(query, 1000, &mut |_| {}) {
        SimResponse::Ready(r) => r,
        other => panic!("not a run: {other:?}"),
    }
}

fn run(generate: GenerateRequest, network: Option<NetRequest>) -> SimQuery {
    SimQuery::Run(ScheduleRequest {
        source: ScheduleSource::Generate(generate),
        params: FREE,
        libstdcxx: false,
        network,
    })
}

/// Ring allreduce on `ring:8`: 2(p−1) steps of one hop each, no sharing:
/// 2(p−1)(λ + n/p/B) with λ = 250 ns, B = 25 B/ns.
#[test]
fn ring_allreduce_on_a_ring_takes_its_closed_form() {
    let (p, n) = (8u64, 8192u64);
    let expect = 2.0 * (p as f64 - 1.0) * (250.0 + n as f64 / p as f64 / 25.0);
    let mut engine = SimEngine::new();
    // The network's result comes first, without the ideal switch; the final
    // one is the same with it.
    let mut partial = None;
    let r = match engine.serve(run(ring_allreduce(p, n), Some(on("ring:8"))), 1000, &mut |r| {
        if let SimResponse::Partial(r) = r {
            assert!(partial.replace(r.clone()).is_none(), "one partial result");
        }
    }) {
        SimResponse::Ready(r) => r,
        other => panic!("not a run: {other:?}"),
    };
    let mut partial = partial.expect("a partial result before the ideal switch");
    let early = partial.network.as_mut().expect("a network summary");
    assert_eq!((early.ideal, early.slowdown), (None, None));
    early.set_ideal(r.network.as_ref().and_then(|n| n.ideal).expect("the ideal switch"));
    assert_eq!(partial, r);
    let net = r.network.as_ref().expect("a network summary");
    assert!((net.max_time - expect).abs() < 1e-9 * expect, "{} vs {expect}", net.max_time);
    assert_eq!(r.max_time, expect.round() as u64);
    assert!(r.completes);
    // On the ideal switch each step is two hops: 2(p−1)(2λ + n/p/B).
    let ideal = 2.0 * (p as f64 - 1.0) * (500.0 + n as f64 / p as f64 / 25.0);
    let (got, slowdown) = (net.ideal.expect("the ideal switch"), net.slowdown.expect("the slowdown"));
    assert!((got - ideal).abs() < 1e-9 * ideal, "{got} vs {ideal}");
    assert!((slowdown - expect / ideal).abs() < 1e-12);
    // Every link carries 2(p−1) chunks one way: 14 KiB each.
    let b = net.bottleneck.as_ref().expect("a bottleneck");
    assert!((b.bytes - 2.0 * 7.0 * 1024.0).abs() < 1e-9, "{b:?}");
    assert!((b.busy - 14.0 * 1024.0 / 25.0).abs() < 1e-6, "{b:?}");
    assert_eq!(b.peak, 1);
    // The timeline: a line per message, NIC bars per flow, no critical path.
    let t = r.timeline.as_ref().expect("a timeline");
    assert_eq!(t.messages.len() / MESSAGE, r.messages as usize);
    assert_eq!(r.messages, 2 * 7 * 8);
    let nic_bars = (0..t.bars.len() / BAR).filter(|&i| t.bar(i).is_some_and(|b| b.kind >= 3)).count();
    assert_eq!(nic_bars, 2 * r.messages as usize);
    assert!(r.critical.is_empty());
}

/// The scrubber: in the first step every rank sends one chunk to its right
/// neighbour at the full 25 B/ns, each on its own link.
#[test]
fn the_scrubber_shows_each_flow_at_its_rate() {
    let mut engine = SimEngine::new();
    let r = ready(&mut engine, run(ring_allreduce(8, 8192), Some(on("ring:8"))));
    let pic = r.picture.as_ref().expect("a picture");
    assert!(pic.traced());
    // The first chunk's transfer runs from 250 ns to 250 + 1024/25 ns.
    let moving = pic.moving_at(260.0);
    assert_eq!(moving.len(), 8, "{moving:?}");
    assert!(moving.iter().all(|m| (m.rate - 25.0).abs() < 1e-12 && m.to == (m.from + 1) % 8));
    let used = pic.use_at(260.0);
    assert_eq!(used.iter().filter(|u| u.0 == 1).count(), 8);
    assert!(used.iter().all(|u| u.0 == 0 || (u.1 - 1.0).abs() < 1e-12));
    // Before the first byte (latency) nothing is in transfer.
    assert!(pic.moving_at(100.0).is_empty());
    // Heat: every link the same bytes in the used direction.
    let heat = pic.heat(Heat::Bytes);
    assert!(heat.iter().all(|&h| (h - 1.0).abs() < 1e-12), "{heat:?}");
    let busy = pic.heat(Heat::Busy);
    let expect = 14.0 * 1024.0 / 25.0 / pic.end;
    assert!(busy.iter().all(|&h| (h - expect).abs() < 1e-9), "{busy:?}");
}

/// Two flows on one link share it: on `switch:4`, ranks 1 and 2 both send
/// 1000 B to rank 0, whose downlink gives each 12.5 B/ns: 2λ + 2·1000/25.
#[test]
fn incast_shares_the_receiver_s_link() {
    let text = "num_ranks 3\nrank 0 {\nl1: recv 1000b from 1 tag 0\nl2: recv 1000b from 2 tag 0\n}\nrank 1 {\nl1: send 1000b to 0 tag 0\n}\nrank 2 {\nl1: send 1000b to 0 tag 0\n}\n";
    let mut engine = SimEngine::new();
    let q = SimQuery::Run(ScheduleRequest {
        source: ScheduleSource::Text(text.into()),
        params: FREE,
        libstdcxx: false,
        network: Some(on("switch:4")),
    });
    let r = ready(&mut engine, q);
    let net = r.network.unwrap();
    assert!((net.max_time - (500.0 + 80.0)).abs() < 1e-9, "{}", net.max_time);
    let pic = r.picture.unwrap();
    let moving = pic.moving_at(520.0);
    assert_eq!(moving.len(), 2);
    assert!(moving.iter().all(|m| (m.rate - 12.5).abs() < 1e-12));
}

/// A broken link re-routes the other way round the ring; cutting the ring
/// twice makes pairs unreachable, named with the ops they block; going
/// back to LogGOPS alone re-runs the kept schedule without a network.
#[test]
fn resimulating_with_breaks_reroutes_and_names_unreachable_pairs() {
    let mut engine = SimEngine::new();
    let whole = ready(&mut engine, run(ring_allreduce(8, 8192), Some(on("ring:8"))));
    let broken = NetRequest { breaks: "0-1".into(), ..on("ring:8") };
    let r = ready(&mut engine, SimQuery::Resimulate(FREE, false, Some(broken)));
    let net = r.network.as_ref().unwrap();
    assert_eq!(net.broken, 1);
    assert!(r.completes);
    // Rank 0's chunk to rank 1 now takes 7 hops the other way.
    assert!(net.max_time > whole.network.as_ref().unwrap().max_time);
    let pic = r.picture.as_ref().unwrap();
    assert!(pic.link(0).3, "link 0–1 is broken");
    assert_eq!(pic.load(0).0 + pic.load(1).0, 0.0, "nothing crosses a broken link");
    let cut = NetRequest { breaks: "0-1,4-5".into(), ..on("ring:8") };
    let r = ready(&mut engine, SimQuery::Resimulate(FREE, false, Some(cut)));
    assert!(!r.completes);
    let net = r.network.unwrap();
    assert!(net.unreachable_pairs > 0);
    assert!(net.unreachable.iter().all(|(_, _, ops)| !ops.is_empty()));
    let plain = ready(&mut engine, SimQuery::Resimulate(FREE, false, None));
    assert!(plain.network.is_none() && plain.picture.is_none());
    assert!(!plain.critical.is_empty());
}

#[test]
fn exports_of_a_network_run() {
    let mut engine = SimEngine::new();
    ready(&mut engine, run(ring_allreduce(8, 8192), Some(on("ring:8"))));
    let SimResponse::Export(_, json) = engine.serve(SimQuery::Export(ScheduleExport::Json), 1000, &mut |_| {}) else {
        panic!("json");
    };
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    for key in ["finish_times", "max_time", "links", "unreachable", "bottleneck", "slowdown", "params"] {
        assert!(v.get(key).is_some(), "{key} in {v}");
    }
    let SimResponse::Export(_, csv) = engine.serve(SimQuery::Export(ScheduleExport::Csv), 1000, &mut |_| {}) else {
        panic!("csv");
    };
    assert_eq!(csv.lines().count(), 9);
    let SimResponse::Export(_, trace) = engine.serve(SimQuery::Export(ScheduleExport::ChromeTrace), 1000, &mut |_| {})
    else {
        panic!("trace");
    };
    let v: serde_json::Value = serde_json::from_str(&trace).unwrap();
    let flows = v["traceEvents"].as_array().unwrap().iter().filter(|e| e["cat"] == "flow").count();
    assert_eq!(flows, 2 * 112);
}

#[test]
fn bad_networks_are_refused_by_name() {
    let mut engine = SimEngine::new();
    let cases = [
        (on("ring:4"), "hosts"),
        (NetRequest { breaks: "0-5".into(), ..on("ring:8") }, "break"),
        (NetRequest { bandwidth: Some(-1.0), ..on("ring:8") }, "bandwidth"),
    ];
    // A topology or placement that does not read never makes a request:
    // the boundary (JSON, the worker's messages) refuses it, naming the text.
    for (json, text) in [(r#"{"topology": "torus:0x4"}"#, "torus:0x4"), (r#"{"placement": "shuffle"}"#, "shuffle")] {
        let e = serde_json::from_str::<NetRequest>(json).unwrap_err().to_string();
        assert!(e.contains(text), "{json}: {e}");
    }
    for (network, field) in cases {
        let r = engine.serve(run(ring_allreduce(8, 8192), Some(network.clone())), 1000, &mut |_| {});
        let SimResponse::Error(e) = r else { panic!("{network:?} ran") };
        assert!(e.to_string().contains(field), "{network:?}: {e}");
    }
    // A refused re-run keeps the run it had.
    ready(&mut engine, run(ring_allreduce(8, 8192), Some(on("ring:8"))));
    let r = engine.serve(SimQuery::Resimulate(FREE, false, Some(on("ring:2"))), 1000, &mut |_| {});
    assert!(matches!(r, SimResponse::Error(_)));
    ready(&mut engine, SimQuery::Resimulate(FREE, false, Some(on("torus:4x4"))));
}

/// The last events, the critical path and the result are three steps, so a
/// page that runs the engine between frames never does two of them in one
/// task; a network run ends with its result in a step of its own too.
#[test]
fn a_run_ends_in_steps_of_their_own() {
    let phases = |query: SimQuery| {
        let mut engine = SimEngine::new();
        assert!(engine.begin(query).is_none());
        let mut seen = Vec::new();
        loop {
            match engine.step(u64::MAX).expect("a run under way") {
                SimResponse::Progress { phase, done, total } => seen.push((phase, done == total)),
                SimResponse::Partial(_) => seen.push(("partial".to_owned(), true)),
                SimResponse::Ready(_) => return seen,
                other => panic!("{other:?}"),
            }
        }
    };
    let dissemination =
        GenerateRequest { collective: "dissemination".into(), p: 64, bytes: 8, ..GenerateRequest::default() };
    assert_eq!(
        phases(run(dissemination, None)),
        [("the critical path".to_owned(), true), ("the timeline".to_owned(), true)]
    );
    assert_eq!(
        phases(run(ring_allreduce(8, 8192), Some(on("ring:8")))),
        [("partial".to_owned(), true), ("the result".to_owned(), true)]
    );
}

/// A channelled ring in the Schedule view on `nodes:2x8` (default links):
/// the run orders channel c over rail c, so eight channels put every rail to
/// work, one each, and give the closed form of `docs/network.md` (channels over rails):
/// 30 steps whose slowest hop crosses between the nodes with 1200 ns of
/// latency at 50 B/ns, T = 30·(1200 + n/(16·C·50)).
#[test]
fn a_channelled_ring_on_nodes_uses_every_rail() {
    let n = 16_777_216u64;
    for channels in [1u32, 8] {
        let g = GenerateRequest { channels, ..ring_allreduce(16, n) };
        let r = ready(&mut SimEngine::new(), run(g, Some(on("nodes:2x8"))));
        let net = r.network.as_ref().expect("a network summary");
        let want = 30.0 * (1200.0 + n as f64 / (16.0 * f64::from(channels) * 50.0));
        assert!((net.max_time - want).abs() <= 1e-9 * want, "C = {channels}: {} vs {want}", net.max_time);
        // Only possible if no two channels share a rail (the CLI's test
        // counts the rails carrying bytes).
    }
    // Out of range: named.
    let bad = GenerateRequest { channels: 65, ..ring_allreduce(16, n) };
    match SimEngine::new().serve(run(bad, None), 1000, &mut |_| {}) {
        SimResponse::Error(e) => assert_eq!(e.field, "channels"),
        other => panic!("not refused: {other:?}"),
    }
}

/// A schedule over the operation limit names the largest p that fits: ring
/// allreduce has 2p(p − 1) ≤ 4p² operations counted, and 4p² ≤ 2^23 up to
/// p = 1448 (4 · 1449² > 2^23).
#[test]
fn over_the_limit_the_largest_p_that_fits_is_named() {
    let e = ring_allreduce(4096, 1024).build().unwrap_err().to_string();
    assert!(e.contains("p up to 1448: allreduce/ring at p = 4096 takes about 67 108 864 operations"), "{e}");
    assert!(ring_allreduce(1448, 1024).build().is_ok());
    let e = ring_allreduce(1449, 1024).build().unwrap_err().to_string();
    assert!(e.contains("p up to 1448"), "{e}");
}

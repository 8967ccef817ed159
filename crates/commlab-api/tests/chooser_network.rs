#![allow(clippy::many_single_char_names, reason = "p, n, λ, B as in docs/network.md")]
//! The Chooser on a network (`docs/network.md`, "The Chooser on a
//! network"): its simulated times against closed forms worked by hand, the
//! acceptance example (ring beats Rabenseifner on a torus where the α–β model
//! never lets it at a power of two), the cache, the piece cap, the winner
//! map and cut-off ranks.

use commlab_api::chooser::{on_network, Cache, ChooseRequest, MapRequest, SimRun, NET_MAP_SIDE, NET_TRANSFERS};
use commlab_api::network::NetRequest;

fn on(topology: &str) -> NetRequest {
    NetRequest::on(topology.parse().unwrap())
}

fn request(collective: &str, p: u64, (lo, hi): (u64, u64), algorithms: &[&str], net: Option<&str>) -> ChooseRequest {
    ChooseRequest {
        collective: collective.into(),
        p,
        min_bytes: lo,
        max_bytes: hi,
        sizes: Vec::new(),
        alpha: 1.0,
        beta: 0.001,
        gamma: 0.0,
        algorithms: algorithms.iter().map(|a| (*a).to_owned()).collect(),
        simulate: true,
        sim_limit: 200_000,
        check_at: None,
        network: net.map(on),
    }
}

fn simulate(r: &ChooseRequest, cache: &mut Cache) -> (commlab_api::chooser::ChooseResult, u32) {
    let mut run = SimRun::new(r, cache).expect("a valid request");
    let mut steps = 1;
    while !run.step(cache) {
        steps += 1;
    }
    (run.result, steps)
}

/// On `ring:8` (λ = 250 ns, B = 25 B/ns), worked by hand in
/// `commlab-core/src/net/tests.rs`: ring allreduce is 2(p−1) one-hop steps
/// of n/p bytes with no sharing, 14λ + 1.75·n/B; Rabenseifner's exchanges
/// at distance 2^k load each link they cross with the flows crossing it,
/// 14λ + 5.25·n/B. The Chooser's simulated times must be these.
#[test]
fn ring_and_rabenseifner_on_a_ring_take_their_closed_forms() {
    let n = 65_536.0;
    let r = request("allreduce", 8, (65_536, 65_536), &["ring", "rabenseifner"], Some("ring:8"));
    let (result, _) = simulate(&r, &mut Cache::default());
    let net = result.rows[0].network.as_ref().expect("network times");
    let (ring, raben) = (net.times[0].unwrap(), net.times[1].unwrap());
    let (l, b) = (250.0, 25.0);
    assert!((ring - (14.0 * l + 1.75 * n / b)).abs() < 1e-6 * ring, "ring {ring}");
    assert!((raben - (14.0 * l + 5.25 * n / b)).abs() < 1e-6 * raben, "rabenseifner {raben}");
    assert_eq!(result.algorithms[net.winner], "ring");
    // Ring's bottleneck: every link carries 14 chunks of n/8 one way.
    let (name, busy, bytes, peak) = net.bottleneck.clone().expect("a bottleneck");
    assert!(name.contains('→'), "{name}");
    assert!((bytes - 14.0 * n / 8.0).abs() < 1e-6 && (busy - bytes / b).abs() < 1e-6 && peak == 1, "{bytes} {busy}");
    assert_eq!(result.network.as_ref().map(|x| x.0.as_str()), Some("ring:8"));
}

/// The acceptance example: on `torus:4x4` at p = 16 ring allreduce beats
/// Rabenseifner from 128 KiB; under α–β (textbook and LogGOPSim presets) it
/// never does at any power-of-two p from 4 to 256 over 8 B … 1 GiB.
#[test]
fn ring_beats_rabenseifner_on_a_torus_but_never_under_the_model() {
    // Every ready send at once (no NIC window), as this example was worked:
    // Rabenseifner's halving steps then put no two flows on one NIC anyway.
    let mut r = request("allreduce", 16, (8, 1 << 22), &["ring", "rabenseifner"], Some("torus:4x4"));
    r.network.as_mut().unwrap().nic_window = 0;
    let (result, _) = simulate(&r, &mut Cache::default());
    let (_, crossovers) = result.network.clone().expect("on a network");
    let last = crossovers.last().expect("a crossover on the torus");
    assert_eq!((last.from.as_str(), last.to.as_str()), ("rabenseifner", "ring"), "{crossovers:?}");
    assert_eq!(last.bytes, 131_072, "{crossovers:?}");
    let ring_wins = |r: &commlab_api::chooser::Row| r.network.as_ref().unwrap().winner == 0;
    assert!(result.rows.iter().filter(|r| r.bytes >= 131_072).all(ring_wins));
    for (alpha, beta) in [(1.0, 0.001), (5500.0, 6.0)] {
        for k in 2..=8 {
            let model = ChooseRequest {
                alpha,
                beta,
                network: None,
                simulate: false,
                ..request("allreduce", 1 << k, (8, 1 << 30), &["ring", "rabenseifner"], None)
            };
            let m = model.run().unwrap();
            assert!(m.rows.iter().all(|r| r.winner == 1), "α–β at p = {}: ring won somewhere", 1 << k);
        }
    }
}

/// A second request on the same network is answered from the cache in one
/// step; another network is simulated again.
#[test]
fn kept_points_are_not_simulated_again() {
    let mut cache = Cache::default();
    let r = request("allreduce", 16, (1024, 1 << 20), &[], Some("torus:4x4"));
    let (first, steps) = simulate(&r, &mut cache);
    assert!(steps > 10, "{steps}");
    let narrower = ChooseRequest { min_bytes: 4096, ..r.clone() };
    let (again, steps) = simulate(&narrower, &mut cache);
    assert_eq!(steps, 1);
    assert_eq!(again.rows[..], first.rows[2..]);
    let other = ChooseRequest { network: Some(on("mesh:4x4")), ..r };
    assert!(simulate(&other, &mut cache).1 > 10);
}

/// A pipelined plan over the limit is simulated with fewer pieces, and the
/// row says how many; the CLI's run (no limit) keeps the model's count.
#[test]
fn pipelined_plans_are_capped_by_halving_their_pieces() {
    let r = request("broadcast", 64, (1 << 30, 1 << 30), &["chain"], Some("torus:8x8"));
    let (result, _) = simulate(&r, &mut Cache::default());
    let row = &result.rows[0];
    let net = row.network.as_ref().unwrap();
    assert!(row.pieces[0] > net.pieces[0], "model m = {}, simulated {}", row.pieces[0], net.pieces[0]);
    assert!(u64::from(net.pieces[0]) * 63 <= NET_TRANSFERS && u64::from(net.pieces[0]) * 2 * 63 > NET_TRANSFERS);
    assert!(net.times[0].is_some());
}

/// On a network the piece count is the network's: of m/4, m/2, m, 2m and
/// 4m around the model's best m, the fastest simulated. On a line of hosts
/// the chain's time is the closed form (λ + n/(m·B))(p + m − 2)
/// (`docs/network.md`), so the pick is the candidate that minimises it, and
/// its time is that minimum.
#[test]
fn pipelined_pieces_are_chosen_on_the_network() {
    let (p, n) = (16u32, 1u64 << 20);
    let r = request("broadcast", u64::from(p), (n, n), &["chain"], Some("mesh:16x1"));
    let mut all = ChooseRequest { network: None, simulate: false, ..r.clone() }.run().unwrap();
    on_network(&mut all, r.network.as_ref().unwrap(), 0).unwrap();
    let m = all.rows[0].pieces[0];
    let net = all.rows[0].network.as_ref().unwrap();
    let closed = |m: u32| (250.0 + n as f64 / (f64::from(m) * 25.0)) * f64::from(p + m - 2);
    let best = [m / 4, m / 2, m, 2 * m, 4 * m]
        .into_iter()
        .filter(|&c| c > 0)
        .min_by(|&a, &b| closed(a).total_cmp(&closed(b)))
        .unwrap();
    assert_ne!(best, m, "the network's best differs from the model's here (m = {m})");
    assert_eq!(net.pieces[0], best, "model m = {m}");
    let t = net.times[0].unwrap();
    assert!((t - closed(best)).abs() <= 1e-9 * t, "{t} vs {}", closed(best));
}

/// The winner map on a network: p up to the hosts, at most 16 × 16 cells,
/// each cell's winner the fastest by a brute force from the core's plans.
#[test]
fn the_winner_map_on_a_network_agrees_with_a_brute_force() {
    let map = MapRequest {
        collective: "allreduce".into(),
        algorithms: vec!["ring".into(), "rabenseifner".into(), "recursive-doubling".into()],
        p_lo: 2,
        p_hi: 65,
        min_bytes: 8,
        max_bytes: 1 << 24,
        alpha: 1.0,
        beta: 0.001,
        gamma: 0.0,
        network: Some(on("torus:4x4")),
    };
    let mut run = map.start().unwrap();
    let mut cache = Cache::default();
    while !run.step(&mut cache) {}
    let m = run.map;
    assert!(m.ps.len() <= NET_MAP_SIDE && m.sizes.len() <= NET_MAP_SIDE, "{:?} {:?}", m.ps, m.sizes);
    assert_eq!((m.ps[0], *m.ps.last().unwrap()), (2, 16));
    assert_eq!(m.network.as_deref(), Some("torus:4x4"));
    // Brute force from the core: each (unpipelined) algorithm's plan on the torus, the fastest.
    let collective = commlab_core::choose::Collective::Allreduce;
    let net = on("torus:4x4");
    for (i, &p) in m.ps.iter().enumerate().filter(|(i, _)| i % 5 == 0) {
        for (j, &n) in m.sizes.iter().enumerate() {
            let times: Vec<f64> = m
                .algorithms
                .iter()
                .map(|id| {
                    let plan = commlab_core::choose::plan(collective, id, p, 1).unwrap();
                    let schedule = commlab_core::choose::goal(&plan, n);
                    let out = commlab_core::net::simulate(
                        &schedule,
                        net.network().unwrap(),
                        net.placement,
                        net.sim_params(commlab_core::net::NetParams::default()).unwrap(),
                        false,
                    )
                    .unwrap();
                    out.max().0
                })
                .collect();
            let w = (0..times.len()).min_by(|&a, &b| times[a].total_cmp(&times[b])).unwrap();
            assert_eq!(usize::from(m.winner[i * m.sizes.len() + j]), w, "p = {p}, {n} B: {times:?}");
        }
    }
    let too_many = MapRequest { p_lo: 17, ..map };
    assert_eq!(too_many.start().err().map(|e| e.field), Some("map".into()));
}

/// Breaks that cut the ring in two leave ring allreduce without a time
/// (cut off) and a p beyond the hosts is refused by field.
#[test]
fn cut_off_ranks_and_too_few_hosts_are_named() {
    let mut net = on("ring:8");
    net.breaks = "0-1,4-5".into();
    let r = ChooseRequest { network: Some(net), ..request("allreduce", 8, (1024, 1024), &["ring"], None) };
    let (result, _) = simulate(&r, &mut Cache::default());
    let row = result.rows[0].network.as_ref().unwrap();
    assert_eq!((row.times[0], row.cut[0]), (None, true));
    let big = request("allreduce", 32, (1024, 1024), &[], Some("torus:4x4"));
    let e = SimRun::new(&big, &mut Cache::default()).err().expect("refused");
    assert_eq!(e.field, "topology", "{e}");
}

/// A plan over the limit is named, not dropped: with a limit of 100
/// messages, ring allreduce at p = 16 (2·15·16 = 480) is simulated at no
/// size, recursive doubling (16·4 = 64) at every one.
#[test]
fn algorithms_over_the_limit_are_named() {
    let mut r = request("allreduce", 16, (1024, 1 << 20), &["ring", "recursive-doubling"], Some("torus:4x4"));
    r.sim_limit = 100;
    let (result, _) = simulate(&r, &mut Cache::default());
    assert_eq!(result.over_limit(), ["ring"]);
    assert!(result.rows.iter().all(|row| row.network.as_ref().is_some_and(|n| n.times[1].is_some())));
    // A cache that already knows the plan is over the limit gives the same rows.
    let mut cache = Cache::default();
    let _ = simulate(&ChooseRequest { min_bytes: 8, max_bytes: 64, ..r.clone() }, &mut cache);
    assert_eq!(simulate(&r, &mut cache).0, result);
    r.sim_limit = 1000;
    let (result, _) = simulate(&r, &mut Cache::default());
    assert!(result.over_limit().is_empty());
    let model = ChooseRequest { network: None, ..r };
    assert!(simulate(&model, &mut Cache::default()).0.over_limit().is_empty());
}

/// The network Chooser's CSV carries the network's numbers, against closed
/// forms on switch:4 (links 25 B/ns, 250 ns; a NIC sends one message at a
/// time): linear broadcast of 1024 B is 3 messages one after another, each
/// 2λ + n/B; binomial is 2 such rounds (the root's second message waits for
/// its first, rank 2 sends beside it). The α–β model's numbers follow.
#[test]
fn the_network_csv_carries_the_network_times_and_winner() {
    let r = request("broadcast", 4, (1024, 1024), &["binomial", "linear"], Some("switch:4"));
    let mut cache = Cache::default();
    let (result, _) = simulate(&r, &mut cache);
    let csv = commlab_api::exports::choose_csv(&result);
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        lines[0],
        [
            "bytes",
            "algorithm",
            "network_ns",
            "network_pieces",
            "winner",
            "model_time",
            "model_latency",
            "model_bandwidth",
            "model_compute",
            "model_pieces",
            "model_winner",
            "network_algbw",
            "network_busbw"
        ]
    );
    let hop = 2.0 * 250.0 + 1024.0 / 25.0;
    let num = |s: &str| s.parse::<f64>().unwrap();
    let (binomial, linear) = (&lines[1], &lines[2]);
    assert!((num(binomial[2]) - 2.0 * hop).abs() < 1e-9, "{binomial:?}");
    assert!((num(linear[2]) - 3.0 * hop).abs() < 1e-9, "{linear:?}");
    assert_eq!((binomial[4], linear[4]), ("1", "0"), "the network's winner");
    // α–β: binomial 2(1 + 1.024), linear 3(1 + 1.024).
    assert!((num(binomial[5]) - 2.0 * 2.024).abs() < 1e-9 && (num(linear[5]) - 3.0 * 2.024).abs() < 1e-9);
    assert_eq!(lines.len(), 3);
    // nccl-tests' terms: algbw = bytes / ns; a broadcast's busbw is its algbw.
    assert!((num(binomial[11]) - 1024.0 / (2.0 * hop)).abs() < 1e-9 && binomial[12] == binomial[11]);
}

/// A System's expected curve in the engine goes a size a step: progress
/// after each size but the last, then the points, equal to simulating each
/// planned size directly (what `commlab predict` does).
#[test]
fn the_expected_curve_comes_a_size_a_step() {
    use commlab_api::predict::{Expected, PredictRequest};
    use commlab_api::sim::{SimEngine, SimQuery, SimResponse};
    let request = PredictRequest {
        system: commlab_api::system::System::parse(
            "dgx-h100",
            2,
            commlab_core::libraries::nccl::Version::Current,
            commlab_api::system::STEADY_NODES,
        )
        .unwrap(),
        collective: "allreduce".into(),
        sizes: vec![1024, 1 << 20, 64 << 20, 1 << 30],
    };
    let planned = request.planned(commlab_api::predict::Engine::Flow).unwrap();
    let direct: Vec<Expected> = planned.iter().map(|p| Expected::of(p, p.simulate().unwrap().0)).collect();
    let mut seen = Vec::new();
    let answer = SimEngine::new().serve(SimQuery::Predict(planned), 1, &mut |r| {
        if let SimResponse::Progress { phase, done, total } = r {
            seen.push((phase.clone(), *done, *total));
        }
    });
    assert_eq!(seen, (1..4).map(|k| ("sizes".to_owned(), k, 4)).collect::<Vec<_>>());
    assert_eq!(answer, SimResponse::Expected(direct));
    assert_eq!(
        SimEngine::new().serve(SimQuery::Predict(Vec::new()), 1, &mut |_| {}),
        SimResponse::Expected(Vec::new())
    );
}

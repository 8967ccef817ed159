//! The barrier engine against `docs/barrier-model.md` and issue 4:
//! fault-free closed forms, every break set of a 3×3 mesh, seeded random
//! runs, determinism.

use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::checker::{self, Violation};
use commlab_core::barrier::encoding::{Encoding, Numbering, Structure};
use commlab_core::barrier::engine::{Judge, RunReport, Scenario, Simulation};
use commlab_core::barrier::mesh::{Breaks, Mesh, Routing};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn run(scenario: Scenario) -> RunReport {
    Simulation::new(scenario).expect("valid scenario").run()
}

fn scenario(size: u64, algorithm: Algorithm) -> Scenario {
    Scenario { size, algorithm, barriers: 1, ..Scenario::default() }
}

#[test]
fn fault_free_closed_forms() {
    for size in 2..=7u64 {
        let n = size * size;
        let mesh = Mesh::new(size).unwrap();
        let num = Numbering::of_mesh(&mesh, Encoding::SCurve).unwrap();
        let root = num.node(0, 0);
        let rounds = u64::from(n.next_power_of_two().trailing_zeros());
        for algorithm in [Algorithm::Ms, Algorithm::Tree, Algorithm::Tournament, Algorithm::Dlct, Algorithm::Combining]
        {
            let r = run(scenario(size, algorithm));
            assert!(r.completed && r.safe, "{algorithm} size {size}: {:?}", r.violations);
            assert_eq!(r.messages, 2 * (n - 1), "{algorithm} size {size}: messages");
            assert_eq!(r.detour_hops, 0, "{algorithm} size {size}: no detours on an intact mesh");
        }
        let ms: u64 = (0..mesh.nodes()).map(|v| 2 * u64::from(mesh.distance(v, root))).sum();
        assert_eq!(run(scenario(size, Algorithm::Ms)).hops, ms, "ms hops = routed distances");
        assert_eq!(run(scenario(size, Algorithm::Tree)).hops, 2 * (n - 1), "tree edges are single links");
        let lct: u64 = (1..mesh.nodes())
            .map(|id| 2 * u64::from(mesh.distance(num.node(id, 0), num.node(Structure::Lct.parent(id).unwrap(), 0))))
            .sum();
        assert_eq!(run(scenario(size, Algorithm::Dlct)).hops, lct, "dlct hops = routed LCT distances");
        let d = run(scenario(size, Algorithm::Dissemination));
        assert_eq!(d.messages, n * rounds, "dissemination size {size}: N·ceil(log2 N)");
        let a = run(scenario(size, Algorithm::AllToAll));
        assert_eq!(a.messages, n * (n - 1));
    }
}

/// MCS, BST, 2-level and the tournament on intact meshes: 2 (N − 1) messages
/// per barrier and the hops of their definitions, transcribed here from
/// `docs/barrier-model.md` (ids, parents and tiles computed directly, not
/// through the algorithm module): on an intact mesh every message takes a
/// shortest route, so hops are Manhattan distances.
#[test]
fn mcs_bst_two_level_and_tournament_closed_forms() {
    for size in 2..=9u64 {
        let n = size * size;
        let mesh = Mesh::new(size).unwrap();
        let d = |a: u32, b: u32| u64::from(mesh.distance(a, b));
        for encoding in [Encoding::SCurve, Encoding::Hilbert] {
            let Ok(num) = Numbering::of_mesh(&mesh, encoding) else { continue };
            let node = |id: u32| num.node(id, 0);
            let ids = 1..mesh.nodes();
            let bst: u64 = ids.clone().map(|id| 2 * d(node(id), node(id - (1 << id.ilog2())))).sum();
            let mcs: u64 =
                ids.clone().map(|id| d(node(id), node((id - 1) / 4)) + d(node(id), node((id - 1) / 2))).sum();
            // Tournament: row-major ranks are node numbers; loser r reports to r with its lowest bit cleared, rank 0 wakes all.
            let tournament: u64 = ids.clone().map(|r| d(r, r & (r - 1)) + d(0, r)).sum();
            for (algorithm, hops) in [(Algorithm::Bst, bst), (Algorithm::Mcs, mcs), (Algorithm::Tournament, tournament)]
            {
                let r = run(Scenario { encoding, ..scenario(size, algorithm) });
                assert!(r.completed && r.safe, "{algorithm} size {size}: {:?}", r.violations);
                assert_eq!(r.messages, 2 * (n - 1), "{algorithm} size {size} {encoding}: messages");
                assert_eq!(r.hops, hops, "{algorithm} size {size} {encoding}: hops");
                assert_eq!(r.detour_hops, 0);
            }
            for tile in 2..=4u32 {
                // Tiles of tile × tile nodes; each tile's leader is its member of smallest id,
                // the root is the leader of smallest id (id 0).
                let per_side = (size as u32).div_ceil(tile);
                let mut leader = vec![u32::MAX; (per_side * per_side) as usize];
                let tile_of = |v: u32| {
                    let (x, y) = mesh.coords(v);
                    ((x / tile) * per_side + y / tile) as usize
                };
                for id in 0..mesh.nodes() {
                    let t = tile_of(node(id));
                    if leader[t] == u32::MAX {
                        leader[t] = node(id);
                    }
                }
                let root = node(0);
                let inside: u64 = (0..mesh.nodes()).map(|v| 2 * d(v, leader[tile_of(v)])).sum();
                let among: u64 = leader.iter().map(|&l| 2 * d(l, root)).sum();
                let r = run(Scenario { encoding, tile, ..scenario(size, Algorithm::TwoLevel) });
                assert!(r.completed && r.safe, "two-level size {size} tile {tile}: {:?}", r.violations);
                assert_eq!(r.messages, 2 * (n - 1), "two-level size {size} tile {tile}: messages");
                assert_eq!(r.hops, inside + among, "two-level size {size} tile {tile} {encoding}: hops");
            }
        }
    }
}

#[test]
fn every_break_set_of_a_3x3_mesh() {
    let mesh = Mesh::new(3).unwrap();
    let links = mesh.link_count();
    for set in 0u32..(1 << links) {
        let broken: Vec<u32> = (0..links).filter(|l| set & (1 << l) != 0).collect();
        let connected = Breaks::from_links(&mesh, &broken).unwrap().connected(&mesh);
        for (algorithm, routing) in Algorithm::ALL.into_iter().flat_map(|a| Routing::ALL.map(|r| (a, r))) {
            let r = run(Scenario {
                size: 3,
                algorithm,
                breaks: Some(broken.clone()),
                barriers: 2,
                tile: 2,
                record: true,
                routing,
                ..Scenario::default()
            });
            assert!(r.safe, "{algorithm} {routing} breaks {broken:?}: {:?}", r.violations);
            assert_eq!(
                checker::check(3, &r.broken, routing, &r),
                [],
                "{algorithm} {routing} breaks {broken:?}: the trace checker"
            );
            assert_eq!(r.completed, connected, "{algorithm} breaks {broken:?}: completes iff connected");
            assert_eq!(r.partitioned, !connected);
        }
    }
}

#[test]
fn ten_thousand_seeded_runs_are_all_safe() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut back_steps = 0;
    for i in 0..10_000 {
        let s = Scenario {
            size: rng.gen_range(2..=7),
            algorithm: Algorithm::ALL[rng.gen_range(0..Algorithm::ALL.len())],
            break_rate: rng.gen_range(0.0..0.5),
            seed: rng.gen(),
            barriers: rng.gen_range(1..=3),
            tile: rng.gen_range(2..=4),
            judge: [Judge::Never, Judge::DEFAULT, Judge::Oracle][rng.gen_range(0..3)],
            hop_ticks: rng.gen_range(1..=3),
            overhead_ticks: rng.gen_range(0..=2),
            contention: rng.gen(),
            compute_ticks: rng.gen_range(0..=50),
            skew_ticks: rng.gen_range(0..=20),
            connected: rng.gen_bool(0.5),
            record: true,
            ..Scenario::default()
        };
        // Each scenario under both rules: the paper's (the default) and shortest.
        for routing in Routing::ALL {
            let s = Scenario { routing, ..s.clone() };
            let r = run(s.clone());
            assert!(r.safe, "run {i} {s:?}: {:?}", r.violations);
            assert_eq!(checker::check(s.size as u32, &r.broken, routing, &r), [], "run {i} {s:?}: the trace checker");
            assert!(r.completed || r.partitioned, "run {i} {s:?}: neither completed nor partitioned");
            back_steps += r.back_steps;
        }
    }
    assert!(back_steps > 1000, "the runs step back ({back_steps} back-steps)");
}

#[test]
fn deterministic_and_seed_dependent() {
    let s = Scenario {
        size: 12,
        algorithm: Algorithm::DlctTree,
        break_rate: 0.15,
        seed: 42,
        skew_ticks: 30,
        connected: true,
        ..Scenario::default()
    };
    assert_eq!(run(s.clone()), run(s.clone()));
    let mesh = Mesh::new(12).unwrap();
    let a = Breaks::random(&mesh, 0.15, 42).unwrap();
    let b = Breaks::random(&mesh, 0.15, 43).unwrap();
    assert_ne!(a.links(), b.links());
    assert_eq!(a.count(), (0.15f64 * f64::from(mesh.link_count())).round() as usize);
}

#[test]
fn the_oracle_never_does_worse_than_never_on_the_next_barrier_path() {
    // With breaks, the oracle's first adjustment targets a cheaper numbering;
    // a never-adjusting DLCT keeps paying the detours.
    let base = Scenario {
        size: 12,
        algorithm: Algorithm::Dlct,
        break_rate: 0.2,
        seed: 7,
        connected: true,
        barriers: 3,
        ..Scenario::default()
    };
    let never = run(Scenario { judge: Judge::Never, ..base.clone() });
    let oracle = run(Scenario { judge: Judge::Oracle, ..base });
    assert!(never.safe && oracle.safe);
    assert!(never.adjustments.is_empty());
    assert!(oracle.hops <= never.hops, "oracle {} hops vs never {}", oracle.hops, never.hops);
}

#[test]
fn replay_shows_the_adjustment_and_adds_up() {
    use commlab_core::barrier::replay::{NodeStatus, Replay};
    // Find a seeded 8 × 8 DLCT run whose root adjusts.
    let replay = (1..50)
        .map(|seed| {
            let s = Scenario { size: 8, break_rate: 0.25, seed, connected: true, ..Scenario::default() };
            Replay::new(s).unwrap()
        })
        .find(|r| !r.report.adjustments.is_empty())
        .expect("some seed makes the root adjust");
    let r = &replay.report;
    assert!(r.completed && r.safe);
    assert!(replay.frames.windows(2).all(|w| w[0] < w[1]));
    // Per-barrier statistics add up to the run's totals.
    let stats = replay.barrier_stats();
    assert_eq!(stats.iter().map(|s| s.messages).sum::<u64>(), r.messages);
    assert_eq!(stats.iter().map(|s| s.hops).sum::<u64>(), r.hops);
    assert_eq!(stats.iter().map(|s| s.detour_hops).sum::<u64>(), r.detour_hops);
    assert_eq!(stats.iter().map(|s| s.delay.unwrap()).collect::<Vec<_>>(), r.delay_ticks);
    // A decision per barrier; the adjusted barrier's K is in the stats.
    assert_eq!(r.decisions.len(), 3);
    let &(b, _, k) = &r.adjustments[0];
    assert_eq!(stats[b as usize].k, Some(k));
    // Before: everybody computes, IDs are the encoding's; after: every ID moved by the Ks.
    let n = replay.mesh.nodes();
    let total: u32 = r.adjustments.iter().map(|a| a.2).sum::<u32>() % n;
    let end = replay.tick(replay.steps());
    for node in 0..n {
        assert_eq!(replay.status(node, 0), NodeStatus::Computing(0));
        assert_eq!(replay.id(node, 0), replay.numbering.id(node, 0));
        assert_eq!(replay.status(node, end), NodeStatus::Done);
        assert_eq!(replay.id(node, end), (replay.numbering.id(node, 0) + total) % n);
    }
    assert!(replay.in_flight(end).is_empty());
    // While the adjusting barrier releases, old and new IDs are both in use:
    // the labels still name every node once (the renumbered ones primed).
    let (first_leave, last_leave) =
        (0..n).map(|node| r.leave[node as usize][b as usize]).fold((u64::MAX, 0), |(a, z), l| (a.min(l), z.max(l)));
    let mut mixed = 0;
    for t in first_leave..last_leave {
        let ids: Vec<u32> = (0..n).map(|node| replay.id(node, t)).collect();
        let labels = replay.labels(t);
        let distinct = |v: Vec<String>| v.iter().collect::<std::collections::HashSet<_>>().len();
        if distinct(ids.iter().map(ToString::to_string).collect()) < n as usize {
            mixed += 1;
        }
        assert_eq!(distinct(labels.clone()), n as usize, "tick {t}: {labels:?}");
        for node in 0..n {
            assert_eq!(labels[node as usize].trim_end_matches('\u{2032}'), ids[node as usize].to_string());
        }
    }
    assert!(mixed > 0, "some tick shows two numberings at once (the IDs alone repeat)");
    assert!(replay.labels(end).iter().all(|l| !l.ends_with('\u{2032}')), "one numbering again at the end");
    // Somewhere in the middle messages are under way along their routes.
    let busy = (1..=replay.steps()).map(|s| replay.in_flight(replay.tick(s)).len()).max().unwrap();
    assert!(busy > 0);
    // Gather sums add up: the root's decision sums what its children's Gathers carried.
    let first = r.decisions[0];
    let into_root: u64 = r
        .trace
        .iter()
        .filter(|m| m.barrier == 0 && m.to == first.root && m.kind == commlab_core::barrier::engine::Kind::Gather)
        .map(|m| m.content)
        .sum();
    assert_eq!(into_root, first.path_sum);
    // The caption of the decision step names K.
    let step = (1..=replay.steps()).find(|&s| replay.tick(s) == r.decisions[b as usize].tick).unwrap();
    assert!(replay.caption(step).contains(&format!("K = {k}")), "{}", replay.caption(step));
}

#[test]
fn runs_that_cannot_finish_are_refused_by_name() {
    let err = Simulation::new(scenario(128, Algorithm::AllToAll)).err().expect("N² messages refused");
    assert_eq!(err.name, "size");
    assert!(err.to_string().contains("all-to-all"), "{err}");
    // Recording (the animation) has a lower cap; the plain run is fine.
    let recorded = Scenario { record: true, ..scenario(64, Algorithm::AllToAll) };
    assert!(Simulation::new(recorded).is_err());
    assert!(Simulation::new(scenario(64, Algorithm::Dlct)).is_ok());
}

#[test]
fn a_run_in_slices_reports_the_same_as_a_whole_run() {
    use commlab_core::barrier::experiment::{run_one, Pending};
    for algorithm in [Algorithm::Dlct, Algorithm::Dissemination, Algorithm::DlctMs] {
        let s = Scenario { size: 8, algorithm, break_rate: 0.2, seed: 4, connected: true, ..Scenario::default() };
        let whole = run_one(&s);
        let mut pending = Pending::start(&s);
        let mut slices = 0;
        let row = loop {
            slices += 1;
            if pending.advance(7) {
                break pending.finish();
            }
        };
        assert!(slices > 10, "{algorithm}: the run was really sliced");
        assert_eq!(row, whole, "{algorithm}");
    }
}

#[test]
fn a_partitioned_run_goes_on_where_it_can() {
    let m = Mesh::new(4).unwrap();
    // Cut node 15 (corner (3, 3)) off: its two links.
    let breaks = vec![m.link(14, 15), m.link(11, 15)];
    let r = run(Scenario { size: 4, breaks: Some(breaks), ..scenario(4, Algorithm::Dlct) });
    assert!(r.partitioned && !r.completed && r.safe, "{r:?}");
    assert!(r.unroutable >= 1);
    assert!(r.messages > r.unroutable, "the rest of the mesh still sends its Gathers");
    assert!(r.delay_ticks.is_empty());
}

/// The connected-breaks rule as first written (issue 4): visit links in the
/// seeded order and break each one unless the mesh would fall apart, checked
/// by a breadth-first search from one endpoint to the other. Quadratic, so
/// only for small meshes; the engine's union–find version must agree exactly.
#[allow(
    clippy::many_single_char_names,
    clippy::similar_names,
    clippy::needless_range_loop,
    reason = "a literal transcription"
)]
fn connected_breaks_greedy(size: u64, rate: f64, seed: u64) -> Vec<bool> {
    let n = size as usize;
    let links = 2 * n * (n - 1);
    let horizontal = n * (n - 1);
    let ends = |l: usize| {
        if l < horizontal {
            let (x, y) = (l / (n - 1), l % (n - 1));
            (x * n + y, x * n + y + 1)
        } else {
            let v = l - horizontal;
            let (x, y) = (v / n, v % n);
            (x * n + y, (x + 1) * n + y)
        }
    };
    let target = (rate * links as f64).round() as usize;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xC0FF_EE00_D15C_0DE5);
    let order = rand::seq::index::sample(&mut rng, links, links).into_vec();
    let mut broken = vec![false; links];
    let mut count = 0;
    for link in order {
        if count == target {
            break;
        }
        broken[link] = true;
        let (a, b) = ends(link);
        // BFS over surviving links.
        let mut seen = vec![false; n * n];
        seen[a] = true;
        let mut queue = std::collections::VecDeque::from([a]);
        while let Some(u) = queue.pop_front() {
            for l in 0..links {
                if broken[l] {
                    continue;
                }
                let (p, q) = ends(l);
                let v = if p == u {
                    q
                } else if q == u {
                    p
                } else {
                    continue;
                };
                if !seen[v] {
                    seen[v] = true;
                    queue.push_back(v);
                }
            }
        }
        if seen[b] {
            count += 1;
        } else {
            broken[link] = false;
        }
    }
    broken
}

#[test]
fn connected_breaks_equal_the_greedy_rule() {
    for size in 2..=9u64 {
        let mesh = Mesh::new(size).unwrap();
        for &rate in &[0.0, 0.1, 0.3, 0.5, 0.9] {
            for seed in 0..12u64 {
                let fast = Breaks::random_connected(&mesh, rate, seed).unwrap();
                let slow = connected_breaks_greedy(size, rate, seed);
                let fast: Vec<bool> = (0..mesh.link_count()).map(|l| fast.is_broken(l)).collect();
                assert_eq!(fast, slow, "size {size} rate {rate} seed {seed}");
            }
        }
    }
}

#[test]
fn connected_breaks_are_connected_and_exact() {
    for size in [2u64, 3, 5, 16, 33, 64] {
        let mesh = Mesh::new(size).unwrap();
        let links = u64::from(mesh.link_count());
        let most = links - u64::from(mesh.nodes()) + 1;
        for &rate in &[0.05, 0.2, 0.45, 0.5, 0.9] {
            for seed in 0..20u64 {
                let b = Breaks::random_connected(&mesh, rate, seed).unwrap();
                assert!(b.connected(&mesh), "size {size} rate {rate} seed {seed}");
                let asked = (rate * links as f64).round() as u64;
                assert_eq!(b.count() as u64, asked.min(most), "size {size} rate {rate} seed {seed}");
            }
        }
    }
}

#[test]
fn expected_messages_match_intact_runs() {
    // On an intact mesh with the never-judge no DLCT tile hands over, so the
    // static count is exact for every algorithm but the two-layer DLCT forms,
    // where it may fall short by at most two per tile and barrier.
    for size in [4u64, 5, 8] {
        for algorithm in Algorithm::ALL {
            let s = Scenario { size, algorithm, barriers: 2, judge: Judge::Never, ..Scenario::default() };
            let sim = Simulation::new(s).unwrap();
            let expected = sim.expected_messages();
            let tiles = (size.div_ceil(4) * size.div_ceil(4)) * 2;
            let got = sim.run().messages;
            assert!(got >= expected && got <= expected + 2 * tiles, "{algorithm} on {size}: {got} vs {expected}");
            if !matches!(algorithm, Algorithm::DlctMs | Algorithm::DlctTree) {
                assert_eq!(got, expected, "{algorithm} on {size}");
            }
        }
    }
}

/// The kinds of `v`, in words.
fn kinds(v: &[Violation]) -> Vec<&'static str> {
    v.iter()
        .map(|v| match v {
            Violation::EarlyDeparture { .. } => "early",
            Violation::NodeOrder { .. } => "order",
            Violation::CrossBarrier { .. } => "cross",
            Violation::BadRoute { .. } => "route",
            Violation::Count { .. } => "count",
        })
        .collect()
}

/// Corrupted times and barriers: an early departure, a message moved to
/// the next barrier, a dropped message.
#[allow(clippy::many_single_char_names, reason = "indices of the corrupted node and messages")]
fn timing_corruptions_are_named(s: &Scenario, size: u32, r: &RunReport) {
    // An early departure: a node that arrived leaves before the last arrival.
    let last = r.arrive.iter().map(|a| a[0]).filter(|&t| t != u64::MAX).max().unwrap();
    let mut early = r.clone();
    let n = (0..early.arrive.len()).find(|&n| early.arrive[n][0] < last).unwrap();
    early.leave[n][0] = last - 1;
    let v = checker::check(size, &early.broken, s.routing, &early);
    assert!(kinds(&v).contains(&"early"), "{v:?}");
    assert!(v.iter().any(|v| v.to_string().contains(&format!("node {n} left at tick {}", last - 1))), "{v:?}");
    // A message moved to the next barrier.
    let mut moved = r.clone();
    let i = moved.trace.iter().position(|m| m.barrier == 0 && m.consumed.is_some()).unwrap();
    moved.trace[i].barrier = 1;
    let v = checker::check(size, &moved.broken, s.routing, &moved);
    assert!(kinds(&v).contains(&"cross") && kinds(&v).contains(&"count"), "{v:?}");
    assert!(v.iter().any(|v| matches!(v, Violation::CrossBarrier { message, .. } if *message == i)));
    // A dropped message.
    let mut dropped = r.clone();
    dropped.trace.remove(i);
    let v = checker::check(size, &dropped.broken, s.routing, &dropped);
    assert!(v.iter().any(|v| matches!(v, Violation::Count { what, .. } if what == "messages")), "{v:?}");
}

/// Corrupted routes: a skipped node, a broken link, a wrong completed flag.
#[allow(clippy::many_single_char_names, reason = "indices of the corrupted messages and link ends")]
fn route_corruptions_are_named(s: &Scenario, size: u32, r: &RunReport) {
    // A wrong hop count: a route that skips a node.
    let mut short = r.clone();
    let j = short.trace.iter().position(|m| !m.path.is_empty()).unwrap();
    short.trace[j].path.remove(0);
    short.trace[j].times.remove(0);
    let v = checker::check(size, &short.broken, s.routing, &short);
    assert!(v.iter().any(|v| matches!(v, Violation::BadRoute { message, .. } if *message == j)), "{v:?}");
    assert!(v.iter().any(|v| matches!(v, Violation::Count { what, .. } if what == "hops")), "{v:?}");
    // A route over a broken link (the checker's own adjacency), when there is one on a used link.
    if let Some((k, a, b)) = r.trace.iter().enumerate().find_map(|(k, m)| {
        let (a, b) = (m.from, *m.path.first()?);
        Some((k, a, b))
    }) {
        let mut cut = r.clone();
        cut.broken.push((a, b));
        let v = checker::check(size, &cut.broken, s.routing, &cut);
        assert!(
            v.iter().any(
                |v| matches!(v, Violation::BadRoute { message, what } if *message == k && what.contains("broken"))
            ),
            "{v:?}"
        );
    }
    // A completed flag that does not match.
    let mut flag = r.clone();
    flag.completed = !flag.completed;
    let v = checker::check(size, &flag.broken, s.routing, &flag);
    assert!(v.iter().any(|v| matches!(v, Violation::Count { what, .. } if what == "completed")), "{v:?}");
}

/// A walk the paper's rule does not take is named by the rule check only;
/// `false` when no message of `r` has two unbroken Manhattan routes.
fn paper_rule_swap_is_named(s: &Scenario, size: u32, r: &RunReport) -> bool {
    // A walk the paper's rule does not take: a message sent along its
    // other Manhattan route (y first instead of x first). It is a valid
    // shortest walk over unbroken links, so only the rule check names it.
    let mesh = Mesh::new(s.size).unwrap();
    let broken: std::collections::HashSet<(u32, u32)> = r.broken.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
    let y_first = |from: u32, to: u32| -> Option<Vec<u32>> {
        let ((fx, fy), (tx, ty)) = (mesh.coords(from), mesh.coords(to));
        let mut path = Vec::new();
        let (mut x, mut y) = (fx, fy);
        while y != ty {
            y = if ty > y { y + 1 } else { y - 1 };
            path.push(mesh.node(x, y));
        }
        while x != tx {
            x = if tx > x { x + 1 } else { x - 1 };
            path.push(mesh.node(x, y));
        }
        let mut at = from;
        for &n in &path {
            if broken.contains(&(at.min(n), at.max(n))) {
                return None;
            }
            at = n;
        }
        Some(path)
    };
    let swapped = r.trace.iter().enumerate().find_map(|(k, m)| {
        let other = y_first(m.from, m.to)?;
        (m.path.len() == other.len() && m.path != other).then_some((k, other))
    });
    if let Some((k, other)) = swapped {
        let mut wrong = r.clone();
        wrong.trace[k].path = other;
        let v = checker::check(size, &wrong.broken, Routing::Paper, &wrong);
        assert!(
            v.iter().any(|v| matches!(v, Violation::BadRoute { message, what } if *message == k && what.contains("the paper's rule goes to"))),
            "{v:?}"
        );
        assert_eq!(
            checker::check(size, &wrong.broken, Routing::Shortest, &wrong),
            [],
            "a valid walk under the shortest rule's checks"
        );
        return true;
    }
    false
}

/// A back-step claimed where the walk moves forward.
fn claimed_back_step_is_named(size: u32, r: &RunReport) {
    // A back-step claimed where the walk moves forward.
    let mut claimed = r.clone();
    let j = claimed.trace.iter().position(|m| !m.path.is_empty() && m.back_steps.is_empty()).unwrap();
    claimed.trace[j].back_steps.push(0);
    let v = checker::check(size, &claimed.broken, Routing::Paper, &claimed);
    assert!(
        v.iter().any(
            |v| matches!(v, Violation::BadRoute { message, what } if *message == j && what.contains("back-steps"))
        ),
        "{v:?}"
    );
    assert!(v.iter().any(|v| matches!(v, Violation::Count { what, .. } if what == "back-steps")), "{v:?}");
}

/// The trace checker catches and names each kind of corruption of a real
/// recorded run, on an intact run and on one whose breaks cut the mesh.
#[test]
fn the_trace_checker_names_corrupted_traces() {
    let cases = [
        Scenario {
            size: 4,
            algorithm: Algorithm::Dlct,
            break_rate: 0.2,
            seed: 3,
            barriers: 2,
            skew_ticks: 40,
            record: true,
            ..Scenario::default()
        },
        // Cut (the corner node 15 loses both links): the part that ran is still checked.
        Scenario {
            size: 4,
            algorithm: Algorithm::Tree,
            breaks: Some({
                let mesh = Mesh::new(4).unwrap();
                let corner = mesh.node(3, 3);
                vec![mesh.link(corner, mesh.node(2, 3)), mesh.link(corner, mesh.node(3, 2))]
            }),
            connected: false,
            barriers: 2,
            skew_ticks: 40,
            record: true,
            ..Scenario::default()
        },
    ];
    let mut swaps = 0;
    for s in cases {
        let size = s.size as u32;
        let r = run(s.clone());
        assert_eq!(r.partitioned, s.breaks.is_some(), "only the second case is cut");
        assert_eq!(checker::check(size, &r.broken, s.routing, &r), [], "{s:?}: clean");
        timing_corruptions_are_named(&s, size, &r);
        route_corruptions_are_named(&s, size, &r);
        swaps += usize::from(paper_rule_swap_is_named(&s, size, &r));
        claimed_back_step_is_named(size, &r);
    }
    assert!(swaps > 0, "some case has a message with two unbroken Manhattan routes");
}

/// A walk that steps back, recorded by the engine: the 3 × 3 pocket of
/// `mesh::tests` (3 → 5 with 4–5 and 7–8 broken) inside a run, and a copy
/// whose back-step is replaced by a jump forward, which the checker names.
#[test]
fn the_trace_checker_rederives_back_steps() {
    let mesh = Mesh::new(3).unwrap();
    let breaks = vec![mesh.link(4, 5), mesh.link(7, 8)];
    let s = Scenario {
        size: 3,
        algorithm: Algorithm::AllToAll,
        breaks: Some(breaks),
        barriers: 1,
        record: true,
        ..Scenario::default()
    };
    let r = run(s);
    assert!(r.completed && r.safe);
    assert_eq!(checker::check(3, &r.broken, Routing::Paper, &r), []);
    let k = r.trace.iter().position(|m| m.from == 3 && m.to == 5).unwrap();
    assert_eq!(r.trace[k].path, [4, 7, 6, 7, 4, 1, 2, 5]);
    assert_eq!(r.trace[k].back_steps, [3, 4]);
    assert!(r.back_steps >= 2);
    // The walk as a shortest-path router would take it after the dead end at 4
    // (4 → 1 → 2 → 5) is a valid walk, but not the paper's.
    let mut wrong = r.clone();
    wrong.trace[k].path = vec![4, 1, 2, 5];
    wrong.trace[k].times.truncate(4);
    wrong.trace[k].back_steps.clear();
    let v = checker::check(3, &wrong.broken, Routing::Paper, &wrong);
    assert!(v.iter().any(|v| matches!(v, Violation::BadRoute { message, what } if *message == k && what.contains("hop 1 goes from node 4 to node 1"))), "{v:?}");
}

/// The paper's worked example recounted by hand: the S-curve on 4 × 4, the
/// two binomial trees and the routing rule (`+x, −x, +y, −y`: on an intact
/// mesh, along x first, then along y), written here without the engine's
/// numbering, trees or router.
mod worked_example_recount {
    use commlab_core::barrier::encoding::{Encoding, Numbering};
    use commlab_core::barrier::mesh::Mesh;
    use commlab_core::barrier::uq::{round_changes, LinkSetDefinition};
    use std::collections::BTreeSet;

    type Link = ((u32, u32), (u32, u32));

    /// S-curve: row x left to right when x is even, right to left when odd.
    fn cell_of(id: u32) -> (u32, u32) {
        let (x, y) = (id / 4, id % 4);
        (x, if x % 2 == 0 { y } else { 3 - y })
    }

    /// The directed links of the route `from → to` on the intact mesh.
    fn route(from: (u32, u32), to: (u32, u32)) -> Vec<Link> {
        let (mut at, mut links) = (from, Vec::new());
        while at != to {
            let next = if at.0 == to.0 {
                (at.0, if to.1 > at.1 { at.1 + 1 } else { at.1 - 1 })
            } else {
                (if to.0 > at.0 { at.0 + 1 } else { at.0 - 1 }, at.1)
            };
            links.push((at, next));
            at = next;
        }
        links
    }

    /// Gather links of one barrier after `round(k)`: every id's message to its parent.
    fn used(parent: fn(u32) -> u32, k: u32) -> BTreeSet<Link> {
        // After round(k) the node that held number n holds id (n + k) mod 16.
        let node_of_id = |id: u32| cell_of((id + 16 - k) % 16);
        (1..16).flat_map(|id| route(node_of_id(id), node_of_id(parent(id)))).collect()
    }

    fn lct(id: u32) -> u32 {
        id & (id - 1)
    }

    fn bst(id: u32) -> u32 {
        id & !(1 << id.ilog2())
    }

    #[test]
    fn both_trees_before_and_after_round_one() {
        // LCT before, listed: each child's route to its parent (x first).
        let lct_before: BTreeSet<Link> = [
            ((0, 1), (0, 0)),
            ((0, 2), (0, 1)),
            ((0, 3), (0, 2)),
            ((1, 3), (0, 3)),
            ((1, 2), (1, 3)),
            ((1, 1), (1, 2)),
            ((1, 0), (1, 1)),
            ((2, 0), (1, 0)),
            ((1, 0), (0, 0)),
            ((2, 1), (2, 0)),
            ((2, 2), (2, 1)),
            ((2, 3), (2, 2)),
            ((3, 3), (2, 3)),
            ((3, 2), (3, 3)),
            ((3, 1), (3, 2)),
            ((3, 0), (3, 1)),
        ]
        .into();
        assert_eq!(used(lct, 0), lct_before);
        let count = |a: &BTreeSet<Link>, b: &BTreeSet<Link>| (a.intersection(b).count(), a.union(b).count());
        let recount = [count(&used(lct, 0), &used(lct, 1)), count(&used(bst, 0), &used(bst, 1))];
        assert_eq!(recount, [(7, 37), (15, 30)], "LCT keeps 7 of 37, BST 15 of 30");
        assert_eq!([used(lct, 1).len(), used(bst, 0).len(), used(bst, 1).len()], [28, 18, 27]);

        // The engine's counts and link sets are the same.
        let mesh = Mesh::new(4).unwrap();
        let numbering = Numbering::of_mesh(&mesh, Encoding::SCurve).unwrap();
        let changes = round_changes(&mesh, &numbering, 1, LinkSetDefinition::default());
        let as_cells = |links: &[(u32, u32)]| -> BTreeSet<Link> {
            links.iter().map(|&(a, b)| ((a / 4, a % 4), (b / 4, b % 4))).collect()
        };
        for (change, parent) in changes.iter().zip([lct as fn(u32) -> u32, bst]) {
            assert_eq!(as_cells(&change.before), used(parent, 0), "{} before", change.name);
            assert_eq!(as_cells(&change.after), used(parent, 1), "{} after", change.name);
        }
    }
}

/// A recorded run whose walks pass the recording's hop cap stops recording
/// there and goes on with counts only: `ms` on 128 × 128 at 30 % under the
/// paper's rule takes 21.3 M hops, over the 20 M a recording may hold.
#[test]
fn a_recording_past_its_hop_cap_goes_on_with_counts_only() {
    let s = Scenario {
        size: 128,
        algorithm: Algorithm::Ms,
        break_rate: 0.3,
        connected: true,
        barriers: 1,
        record: true,
        ..Scenario::default()
    };
    let r = run(s.clone());
    assert!(r.recording_stopped && r.completed && r.safe, "{:?}", r.violations);
    assert!(r.hops > commlab_core::barrier::engine::RECORDED_HOPS);
    assert!(r.trace.is_empty() && r.broken.is_empty(), "nothing recorded is kept");
    // The counts are those of the same run never recorded.
    let unrecorded = run(Scenario { record: false, ..s });
    assert!(!unrecorded.recording_stopped);
    assert_eq!(
        (r.hops, r.messages, &r.delay_ticks, r.back_steps),
        (unrecorded.hops, unrecorded.messages, &unrecorded.delay_ticks, unrecorded.back_steps)
    );
}

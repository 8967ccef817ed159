//! The steady-state trees (`commlab_api::steady`: NCCL's tree and NVLS
//! tree, `docs/systems.md`, "Two engines") against the flow simulation,
//! which they must stand for.

use commlab_api::predict::{plan_as, Planned, Scales};
use commlab_api::system::System;
use commlab_core::choose::Collective;
use commlab_core::systems::PRESETS;

/// NCCL's `algorithm` (`tree`, `nvls_tree`) at `bytes` on `nodes` nodes of `preset`.
fn tree(preset: &str, nodes: u32, algorithm: &'static str, bytes: u64, protocol: &'static str) -> Planned {
    plan_as(
        &System::parse(preset, nodes, commlab_core::libraries::nccl::Version::Current, commlab_api::system::NODES)
            .unwrap(),
        Collective::Allreduce,
        bytes,
        algorithm.parse().ok(),
        protocol.parse().unwrap(),
    )
}

/// The presets and algorithms the check runs: NCCL's tree on every
/// preset, its NVLS tree where the preset has NVLS.
fn cases() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    let mut out = Vec::new();
    // The presets whose node is one box: the 72-GPU domains are measured on
    // their own (`docs/systems.md`, "NVLink domains").
    for p in PRESETS.iter().filter(|p| p.tray == p.gpus) {
        out.push((p.id, "tree", vec!["ll", "ll128", "simple"]));
        if p.nvls {
            out.push((p.id, "nvls_tree", vec!["simple"]));
        }
    }
    out
}

/// One piece alone: NCCL's tree moves it up each node's chain, up and down
/// the tree of nodes (two children sharing their parent's links) and down
/// the chains: the steady engine's fill is the flow simulation's time to
/// 10⁻⁹ on every preset at 2 to 16 nodes; NVLS tree's within 2 % (its
/// switch copies the slices of a piece one after another, which the fill
/// takes as overlapping; measured 1.2 %).
#[test]
fn one_piece_through_a_tree_is_the_flow_simulation() {
    let mut checked = 0;
    for (preset, algorithm, _) in cases() {
        for nodes in [2u32, 3, 4, 5, 8, 16] {
            for bytes in [1u64 << 10, 1 << 14] {
                let planned = tree(preset, nodes, algorithm, bytes, "simple");
                if planned.pieces != 1 {
                    continue;
                }
                let flow = planned.simulate().unwrap().0;
                let steady = planned.steady_ns(Scales::NOMINAL).unwrap();
                let bound = if algorithm == "tree" { 1e-9 } else { 0.02 };
                assert!(
                    (steady / flow - 1.0).abs() <= bound,
                    "{preset} ×{nodes} {algorithm} {bytes} B: steady {steady} against {flow}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 150, "{checked} cases of one piece");
}

/// Smooth: a 10⁻⁶ relative change of any of the system's values moves the
/// steady trees by at most 10⁻⁵.
#[test]
fn the_steady_trees_are_smooth() {
    let moved = |k: usize| {
        let mut s = Scales::NOMINAL;
        *[&mut s.inter, &mut s.intra, &mut s.latency][k] *= 1.0 + 1e-6;
        s
    };
    for (preset, algorithm, protocols) in cases() {
        for nodes in [2u32, 4, 8, 100] {
            for &protocol in &protocols {
                for exp in [10u32, 20, 26, 30] {
                    let planned = tree(preset, nodes, algorithm, 1 << exp, protocol);
                    let at = planned.steady_ns(Scales::NOMINAL).unwrap();
                    for k in 0..3 {
                        let t = planned.steady_ns(moved(k)).unwrap();
                        assert!(
                            (t / at - 1.0).abs() <= 1e-5,
                            "{preset} ×{nodes} {algorithm} {protocol} 2^{exp} value {k}: {at} → {t}"
                        );
                    }
                }
            }
        }
    }
}

/// The steady trees against the flow simulation (trees have no band: their
/// flows do not couple): the worst differences by region (≤ 1 MiB, 4–16 MiB,
/// ≥ 64 MiB) and how many cases are over 10 % in each, every such case
/// printed where `print`.
fn worst(
    cases: &[(&'static str, &'static str, Vec<&'static str>)],
    nodes: &[u32],
    exps: &[u32],
    print: bool,
) -> ([f64; 3], [usize; 3]) {
    let mut worst = [0.0f64; 3];
    let mut over = [0usize; 3];
    for (preset, algorithm, protocols) in cases {
        for &n in nodes {
            for &protocol in protocols {
                for &exp in exps {
                    let planned = tree(preset, n, algorithm, 1 << exp, protocol);
                    let flow = planned.simulate().unwrap().0;
                    let steady = planned.steady_ns(Scales::NOMINAL).unwrap();
                    let off = steady / flow - 1.0;
                    let region = if exp >= 26 { 2 } else { usize::from(exp > 20) };
                    worst[region] = worst[region].max(off.abs());
                    over[region] += usize::from(off.abs() > 0.10);
                    if print && off.abs() > 0.10 {
                        println!(
                            "{preset} ×{n} {algorithm}/{protocol} 2^{exp} ({} pieces): steady {:+.1} % of the flow",
                            planned.pieces,
                            100.0 * off
                        );
                    }
                }
            }
        }
        if print {
            println!(
                "after {preset} {algorithm}: worst ≤ 1 MiB {:.1} %, 4–16 MiB {:.1} %, ≥ 64 MiB {:.1} %",
                100.0 * worst[0],
                100.0 * worst[1],
                100.0 * worst[2]
            );
        }
    }
    (worst, over)
}

/// The whole check, in the suite: every preset × 2, 4, 8 nodes × NCCL's
/// tree (LL, LL128, Simple) and NVLS tree where the preset has it × 1 KiB
/// to 4 GiB, against the flow simulation. Prints the worst per region and
/// every case over 10 % (`--nocapture`). Measured (`docs/systems.md`, "Two
/// engines"): 20.2 % at 1 MiB and less, 19.0 % from 4 to 16 MiB, 13.8 % at
/// 64 MiB and more; the bounds below keep every case from growing past
/// them. They are not the accuracy a prediction needs (10 % and 3 %).
/// Cases over 10 % (of 666, 222 and 444): 8, 40 and 6, held there; without
/// NCCL's tree's start bounds (the chains' start, the first window) they
/// were 18, 53 and 87.
#[test]
fn the_steady_trees_against_the_flow() {
    let exps: Vec<u32> = (10..=32).step_by(2).collect();
    let (w, over) = worst(&cases(), &[2, 4, 8], &exps, true);
    // The figures every note and doc shows (`steady::ACCURACY`), each the
    // measured value rounded to 0.1 %: a case past its figure fails here.
    let shown = commlab_api::steady::ACCURACY[1];
    assert!((0..3).all(|i| w[i] <= shown.worst[i] + 5e-4), "worst {w:?} against {:?}", shown.worst);
    assert!(over[0] <= 8 && over[1] <= 40 && over[2] <= 6, "cases over 10 %: {over:?}");
}

/// The node counts the check leaves out: odd ones (NCCL's trees over 3
/// nodes are two chains) and 16 (the flow engine's last on the page for an
/// 8-GPU node), at 1, 16, 64 MiB and 1 GiB. Measured (`docs/systems.md`,
/// "Two engines"): the steady trees are further from the flow there than
/// on 2, 4 and 8 nodes: 15.1 % at 1 MiB, 25.4 % at 16 MiB (NCCL's tree on
/// `p4d`), 25.8 % at 64 MiB and more (NVLS tree at 3 nodes, 26 % fast: its
/// time there is its NICs' fill and drain under sharing, which the steady
/// period leaves out); cases over 10 % (of 111, 111 and 222): 7, 23 and 47.
/// The bounds hold every case to what was measured.
#[test]
fn the_steady_trees_on_node_counts_the_check_leaves_out() {
    let (w, over) = worst(&cases(), &[3, 5, 16], &[20, 24, 26, 30], true);
    let shown = commlab_api::steady::ACCURACY[2];
    assert!((0..3).all(|i| w[i] <= shown.worst[i] + 5e-4), "worst {w:?} against {:?}", shown.worst);
    assert!(over[0] <= 7 && over[1] <= 23 && over[2] <= 47, "cases over 10 %: {over:?}");
}

/// The page's expected curve takes the flow engine up to 128 ranks and the
/// steady engine past them wherever it models the size (its time then the
/// steady engine's, as `commlab predict --engine steady` gives it); a
/// schedule only the flow engine runs keeps it.
#[test]
fn the_expected_curve_takes_the_steady_engine_past_128_ranks() {
    use commlab_api::predict::{Engine, Expected, PredictRequest, EXPECTED_FLOW_RANKS};
    let at = |nodes: u32, collective: &str| PredictRequest {
        system: commlab_api::system::System::parse(
            "dgx-h100",
            nodes,
            commlab_core::libraries::nccl::Version::Current,
            commlab_api::system::STEADY_NODES,
        )
        .unwrap(),
        collective: collective.to_owned(),
        sizes: vec![1 << 20, 1 << 30],
    };
    assert_eq!(EXPECTED_FLOW_RANKS, 128);
    for p in at(16, "allreduce").planned(Engine::Flow).unwrap() {
        assert_eq!((p.p, p.expected_engine()), (128, Engine::Flow));
    }
    let request = at(17, "allreduce");
    let cli = request.run(Engine::Steady).unwrap();
    for (p, row) in request.planned(Engine::Flow).unwrap().iter().zip(&cli.rows) {
        let e = Expected::by_its_engine(p).unwrap();
        assert_eq!(e.engine, Engine::Steady);
        assert!((e.time_ns / 1000.0 / row.time_us - 1.0).abs() < 1e-12, "{} B: {e:?} against {row:?}", p.bytes);
    }
    for p in at(17, "broadcast").planned(Engine::Flow).unwrap() {
        assert_eq!(p.expected_engine(), Engine::Flow, "{}", p.schedule);
    }
}

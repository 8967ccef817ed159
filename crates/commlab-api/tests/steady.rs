//! The steady-state ring (`commlab_api::steady`, `docs/systems.md`, "Two
//! engines") against the flow simulation, which it must stand for.

use commlab_api::predict::{plan_as, Planned, Scales};
use commlab_api::system::System;
use commlab_core::choose::Collective;
use commlab_core::systems::{Preset, PRESETS};

/// The presets whose node is one box (not an `NVLink` domain of trays): the
/// sweeps below were built on them. The 72-GPU domains are measured on
/// their own (`docs/systems.md`, "`NVLink` domains").
fn boxes() -> impl Iterator<Item = &'static Preset> {
    PRESETS.iter().filter(|p| p.tray == p.gpus)
}

const RINGS: [Collective; 3] = [Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter];

fn ring(preset: &str, nodes: u32, collective: Collective, bytes: u64, protocol: &'static str) -> Planned {
    plan_as(
        &System::parse(preset, nodes, commlab_core::libraries::nccl::Version::Current, commlab_api::system::NODES)
            .unwrap(),
        collective,
        bytes,
        Some(commlab_core::libraries::nccl::Algorithm::Ring),
        protocol.parse().unwrap(),
    )
}

/// On one node every hop of a ring is alike: its tokens start together and
/// stay together, so the flow simulation, message by message, ends when the
/// lockstep closed form does: to 10⁻⁹ where every block is the same size,
/// within 5·10⁻³ where some are a byte larger (LL, LL128: the byte parts the
/// tokens a little; measured up to 3.5·10⁻³).
#[test]
fn a_ring_on_one_node_runs_in_lockstep() {
    let (mut even, mut uneven) = (0, 0);
    for preset in boxes().filter(|p| p.nvswitch) {
        for collective in RINGS {
            for protocol in ["ll", "ll128", "simple"] {
                for exp in [12u32, 20, 26, 30] {
                    let planned = ring(preset.id, 1, collective, 1 << exp, protocol);
                    let flow = planned.simulate().unwrap().0;
                    let steady = planned.steady_ns(Scales::NOMINAL).unwrap();
                    let off = (steady / flow - 1.0).abs();
                    let whole = planned.wire % (u64::from(planned.channels) * u64::from(planned.p)) == 0;
                    let bound = if whole { 1e-9 } else { 5e-3 };
                    assert!(off < bound, "{} {collective} {protocol} 2^{exp}: {steady} against {flow}", preset.id);
                    if whole {
                        even += 1;
                    } else {
                        uneven += 1;
                    }
                }
            }
        }
    }
    assert!(even >= 60 && uneven >= 60, "{even} whole, {uneven} uneven");
}

/// Smooth: a 10⁻⁶ relative change of any of the system's values moves the
/// steady ring by at most 10⁻⁵, where the flow simulation's ring moves
/// within its band (`Planned::coupled`).
#[test]
fn the_steady_ring_is_smooth() {
    let moved = |s: Scales, k: usize| {
        let mut s = s;
        *[&mut s.inter, &mut s.intra, &mut s.latency][k] *= 1.0 + 1e-6;
        s
    };
    for preset in boxes() {
        for nodes in [1u32, 2, 4, 8] {
            for exp in [10u32, 20, 26, 30] {
                let planned = ring(preset.id, nodes, Collective::Allreduce, 1 << exp, "simple");
                let at = planned.steady_ns(Scales::NOMINAL).unwrap();
                for k in 0..3 {
                    let t = planned.steady_ns(moved(Scales::NOMINAL, k)).unwrap();
                    assert!((t / at - 1.0).abs() <= 1e-5, "{} ×{nodes} 2^{exp} value {k}: {at} → {t}", preset.id);
                }
            }
        }
    }
}

/// The steady ring against the mean of the flow's band (7 runs, the
/// system's values moved ±0.5 %): the worst differences, by region. Every
/// run is held to the ring's lower bound, its busiest link's work (with
/// bandwidths 0.5 % up, the fastest of the band's values). Also: at 4 GiB,
/// the flow's mean over that bound, every case; and every difference at
/// 64 MiB and more.
fn worst(
    presets: &[&str],
    nodes: &[u32],
    exps: &[u32],
    protocols: &[&'static str],
    print: bool,
) -> ([f64; 3], Vec<f64>, Vec<f64>) {
    let mut worst = [0.0f64; 3];
    let mut over_bound = Vec::new();
    let mut large = Vec::new();
    for preset in presets {
        for &n in nodes {
            for collective in RINGS {
                for &protocol in protocols {
                    for &exp in exps {
                        let planned = ring(preset, n, collective, 1 << exp, protocol);
                        let Some(prepared) = planned.prepare().unwrap() else { continue };
                        let band = planned.band(&prepared).unwrap();
                        let steady = planned.steady_ns(Scales::NOMINAL).unwrap();
                        let bound = planned.ring_bound_ns(Scales::NOMINAL).unwrap();
                        assert!(
                            band.min >= bound / 1.005 * (1.0 - 1e-9),
                            "{preset} ×{n} {collective} {protocol} 2^{exp}: the flow's {} ns beats the busiest link's work, {bound} ns",
                            band.min
                        );
                        if exp == 32 {
                            over_bound.push(band.mean / bound - 1.0);
                        }
                        let off = steady / band.mean - 1.0;
                        let region = if exp >= 26 { 2 } else { usize::from(exp > 20) };
                        worst[region] = worst[region].max(off.abs());
                        if region == 2 {
                            large.push(off.abs());
                        }
                        if print && off.abs() > 0.05 {
                            println!(
                                "{preset} ×{n} {collective} {protocol} 2^{exp}: steady {:+.1} % of the flow mean (band {:.1} %; busiest link's work {:+.1} %)",
                                100.0 * off,
                                100.0 * (band.max - band.min) / band.mean,
                                100.0 * (bound / band.mean - 1.0)
                            );
                        }
                    }
                }
            }
        }
        if print {
            println!(
                "after {preset}: worst ≤ 1 MiB {:.1} %, 4–16 MiB {:.1} %, ≥ 64 MiB {:.1} %",
                100.0 * worst[0],
                100.0 * worst[1],
                100.0 * worst[2]
            );
        }
    }
    (worst, over_bound, large)
}

/// The whole check, in the suite: every preset × 2, 4, 8 nodes ×
/// allreduce, allgather, reduce-scatter × LL, LL128, Simple × 1 KiB to
/// 4 GiB, against the mean of the flow's band (one node is lockstep, equal
/// to the flow: [`a_ring_on_one_node_runs_in_lockstep`]). Prints the worst
/// per region and every case over 5 % (`--nocapture`). Measured
/// (`docs/systems.md`, "Two engines"): 7.7 % at 1 MiB and less, 12.6 % from
/// 4 to 16 MiB, 13.2 % at 64 MiB and more; the bounds below keep every case
/// from growing past them. They are not the accuracy a prediction needs
/// (10 % and 3 %). At 4 GiB the flow runs at its busiest link's work:
/// 90 % of cases within 1.0 % of it, the worst 8.0 % over. The steady ring
/// goes to that work where latency hides under the transfers; without
/// that (mean value analysis alone, whose queues are those of random
/// arrivals) it was up to 15.8 % slow there, and at 64 MiB and more half
/// the cases were within 2.1 %, 90 % within 9.4 % and 85 over 10 %. With
/// it, 0.5 %, 6.4 % and 43; with a hop to the next node waiting at its NIC
/// too where its busiest link per flow is `NVLink`'s (H100 nodes, where the
/// NIC had no queue at all), 0.4 %, 4.0 % and 1, which the test holds.
#[test]
fn the_steady_ring_against_the_flow_band() {
    let ids: Vec<&str> = boxes().map(|p| p.id).collect();
    let exps: Vec<u32> = (10..=32).step_by(2).collect();
    let (w, mut over, mut large) = worst(&ids, &[2, 4, 8], &exps, &["ll", "ll128", "simple"], true);
    over.sort_by(f64::total_cmp);
    let (p90, most) = (over[over.len() * 9 / 10], over[over.len() - 1]);
    println!(
        "at 4 GiB the flow's mean is over the busiest link's work by {:.1} % (90 % of cases) and {:.1} % at most",
        100.0 * p90,
        100.0 * most
    );
    assert!(p90 <= 0.015 && most <= 0.085, "over the busiest link's work at 4 GiB: p90 {p90:.4}, worst {most:.4}");
    large.sort_by(f64::total_cmp);
    let (median, p90, tenth) =
        (large[large.len() / 2], large[large.len() * 9 / 10], large.iter().filter(|&&x| x > 0.1).count());
    println!(
        "at 64 MiB and more: half within {:.1} %, 90 % within {:.1} %, {tenth} of {} over 10 %",
        100.0 * median,
        100.0 * p90,
        large.len()
    );
    // The figures every note and doc shows (`steady::ACCURACY`), each the
    // measured value rounded to 0.1 %: a case past its figure fails here.
    let shown = commlab_api::steady::ACCURACY[0];
    let (m, p) = shown.spread.unwrap();
    assert!(median <= m + 5e-4 && p90 <= p + 5e-4 && tenth <= 3, "at 64 MiB and more: {median:.4}, {p90:.4}, {tenth}");
    assert!(
        (0..3).all(|i| w[i] <= shown.worst[i] + 5e-4),
        "worst ≤ 1 MiB {:.4}, 4–16 MiB {:.4}, ≥ 64 MiB {:.4} against {:?}",
        w[0],
        w[1],
        w[2],
        shown.worst
    );
}

/// A system fitted with the steady engine predicts another node count:
/// synthetic runs made by the same engine with the system's values moved
/// (NICs 0.9 ×, `NVLink` 1.05 ×, NCCL's costs 1.2 ×) and 1 % of noise (every
/// other size 1 % up, the rest 1 % down), fitted at N nodes, give the M-node
/// run within 2 % at every size from 1 KiB to 4 GiB. Three pairs miss:
/// `dgx-h100` fitted at 4 nodes predicts 2 nodes' NVLS tree at 1 and 4 GiB
/// 4.7 % slow (at 4 nodes those sizes run as rings, whose time does not pin
/// `NVLink`'s factor), so it is held to 5 %; `p4d` fitted at 2 nodes, whose
/// large sizes are NCCL's tree (the chains' start, `NVLink`'s, then the
/// NICs' work, both in proportion to the size), fits `NVLink` 0.87 × and the
/// NICs 0.92 × and predicts 4 and 8 nodes up to 2.16 % fast (2.02 % with
/// the noise's signs swapped), so those are held to 2.5 %. With the steady
/// engine the fit and its prediction reach 64 nodes: `dgx-a100` 2 → 64,
/// 64 → 8, `p4d` 8 → 64, 64 → 2 and `dgx-h100` 2 → 64 within 2 %;
/// `dgx-h100` fitted at 64 nodes, where every large size is an NVLS tree
/// bound by the NICs, leaves `NVLink`'s factor at the prior and predicts 4
/// nodes' rings within 1.26 % (1.53 % before a ring's hop to the next node
/// waited at its NIC, 1.9 % before the rings went to their busiest link's
/// work), within 2 %.
/// The same fits with the flow
/// engine's rings (their band) miss by up to 5.3 % (`dgx-a100` fitted at 2
/// nodes, 8 nodes at 256 MiB; `docs/systems.md`, "Two engines").
#[test]
fn a_steady_fit_predicts_another_node_count() {
    use commlab_api::predict::{Engine, PredictRequest};
    use commlab_api::sysfit::SystemFitRequest;
    let truth = Scales { inter: 0.9, intra: 1.05, latency: 1.2 };
    let sizes: Vec<u64> = (10..=32).step_by(2).map(|e| 1u64 << e).collect();
    let run = |preset: &str, nodes: u32| -> Vec<f64> {
        let request = PredictRequest {
            system: commlab_api::system::System::parse(
                preset,
                nodes,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::STEADY_NODES,
            )
            .unwrap(),
            collective: "allreduce".to_owned(),
            sizes: sizes.clone(),
        };
        let planned = request.planned(commlab_api::predict::Engine::Steady).unwrap();
        planned
            .iter()
            .map(|p| {
                let prepared = if p.steady_under(Engine::Steady) { None } else { p.prepare().unwrap() };
                p.time_by(Engine::Steady, prepared.as_ref(), truth).unwrap() / 1000.0
            })
            .collect()
    };
    let cases = [
        ("dgx-a100", 2u32, 4u32, 0.02),
        ("dgx-a100", 4, 2, 0.02),
        ("dgx-a100", 2, 8, 0.02),
        ("p4d", 2, 4, 0.025),
        ("p4d", 4, 2, 0.02),
        ("p4d", 2, 8, 0.025),
        ("dgx-h100", 2, 4, 0.02),
        ("dgx-h100", 2, 8, 0.02),
        ("dgx-h100", 4, 2, 0.05),
        ("dgx-a100", 2, 64, 0.02),
        ("dgx-a100", 64, 8, 0.02),
        ("p4d", 8, 64, 0.02),
        ("p4d", 64, 2, 0.02),
        ("dgx-h100", 2, 64, 0.02),
        ("dgx-h100", 64, 4, 0.02),
    ];
    for (preset, n, m, bound) in cases {
        let measured = run(preset, n);
        let points: Vec<(u64, f64)> = sizes
            .iter()
            .zip(&measured)
            .enumerate()
            .map(|(i, (&b, &t))| (b, t * if i % 2 == 0 { 1.01 } else { 0.99 }))
            .collect();
        let system = commlab_api::system::System::parse(
            preset,
            n,
            commlab_core::libraries::nccl::Version::Current,
            commlab_api::system::STEADY_NODES,
        )
        .unwrap();
        let request = SystemFitRequest::new(&system, Some(m), "allreduce", &points, Engine::Steady).unwrap();
        let fit = request.run_by(Some(Planned::steady_ns)).unwrap();
        let expected = run(preset, m);
        for ((&b, got), want) in sizes.iter().zip(&fit.then_us).zip(&expected) {
            let off = got / want - 1.0;
            assert!(
                off.abs() <= bound,
                "{preset} fitted at {n}, {m} nodes, {b} B: {got} against {want} ({:+.2} %)",
                100.0 * off
            );
        }
    }
}

/// `docs/systems.md` shows the check's figures as `steady::ACCURACY` holds them.
#[test]
fn the_docs_show_the_checks_figures() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/systems.md")).unwrap();
    let start = doc.find("<!-- accuracy:begin").expect("marked table");
    let start = start + doc[start..].find('\n').unwrap() + 1;
    let end = doc.find("<!-- accuracy:end -->").expect("marked table");
    assert_eq!(doc[start..end], commlab_api::steady::accuracy_table());
}

//! The steady-state ring (`commlab_api::steady`, `docs/systems.md`, "Two
//! engines") against the flow simulation, which it must stand for.

use commlab_api::predict::{plan_as, Planned, Scales};
use commlab_api::system::System;
use commlab_core::choose::Collective;
use commlab_core::systems::PRESETS;

const RINGS: [Collective; 3] = [Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter];

fn ring(preset: &str, nodes: u32, collective: Collective, bytes: u64, protocol: &'static str) -> Planned {
    plan_as(&System::new(preset, nodes, None).unwrap(), collective, bytes, "ring", protocol).0
}

/// On one node every hop of a ring is alike: its tokens start together and
/// stay together, so the flow simulation, message by message, ends when the
/// lockstep closed form does: to 10⁻⁹ where every block is the same size,
/// within 5·10⁻³ where some are a byte larger (LL, LL128: the byte parts the
/// tokens a little; measured up to 3.5·10⁻³).
#[test]
fn a_ring_on_one_node_runs_in_lockstep() {
    let (mut even, mut uneven) = (0, 0);
    for preset in PRESETS.iter().filter(|p| p.nvswitch) {
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
    for preset in PRESETS {
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
/// system's values moved ±0.5 %): the worst differences, by region.
fn worst(presets: &[&str], nodes: &[u32], exps: &[u32], protocols: &[&'static str], print: bool) -> [f64; 3] {
    let mut worst = [0.0f64; 3];
    for preset in presets {
        for &n in nodes {
            for collective in RINGS {
                for &protocol in protocols {
                    for &exp in exps {
                        let planned = ring(preset, n, collective, 1 << exp, protocol);
                        let Some(prepared) = planned.prepare().unwrap() else { continue };
                        let band = planned.band(&prepared).unwrap();
                        let steady = planned.steady_ns(Scales::NOMINAL).unwrap();
                        let off = steady / band.mean - 1.0;
                        let region = if exp >= 26 { 2 } else { usize::from(exp > 20) };
                        worst[region] = worst[region].max(off.abs());
                        if print && off.abs() > 0.05 {
                            println!(
                                "{preset} ×{n} {collective} {protocol} 2^{exp}: steady {:+.1} % of the flow mean (band {:.1} %)",
                                100.0 * off,
                                100.0 * (band.max - band.min) / band.mean
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
    worst
}

/// A guard on the measured agreement (`docs/systems.md`, "Two engines"):
/// on `dgx-h100`, `p4d` and `h800` at 2 and 4 nodes the steady ring stays
/// within 13 % of the flow mean at 64 MiB and more (measured: 10.8 %), 9 %
/// at 1 MiB and less (7.4 %). These bounds only keep the difference from
/// growing; they are not the accuracy a prediction needs.
#[test]
fn the_steady_ring_stays_near_the_flow_mean() {
    let w = worst(&["dgx-h100", "p4d", "h800"], &[2, 4], &[10, 16, 20, 26, 30], &["ll", "simple"], false);
    assert!(w[0] <= 0.09 && w[2] <= 0.13, "worst ≤ 1 MiB {:.3}, ≥ 64 MiB {:.3}", w[0], w[2]);
}

/// The whole check: every preset × 2, 4, 8 nodes × allreduce, allgather,
/// reduce-scatter × LL, LL128, Simple × 1 KiB to 4 GiB. Prints the worst
/// per region and every case over 5 %:
/// `cargo test --release -p commlab-api --test steady -- --ignored --nocapture`.
#[test]
#[ignore = "minutes: the whole check, printed"]
fn the_steady_ring_against_the_flow_band() {
    let ids: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
    let exps: Vec<u32> = (10..=32).step_by(2).collect();
    worst(&ids, &[2, 4, 8], &exps, &["ll", "ll128", "simple"], true);
}

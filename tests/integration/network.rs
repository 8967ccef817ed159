//! Properties of network runs over random collectives and topologies: an
//! empty break list is no fault, label names change nothing, and on a switch
//! every placement gives the same times.

use commlab_core::choose::{goal, plan, ALGORITHMS};
use commlab_core::goal::{parse, write};
use commlab_core::net::{simulate, NetParams, Network, Placement, Shape};
use proptest::prelude::*;

const TOPOLOGIES: [&str; 6] = ["switch:12", "ring:12", "mesh:4x3", "torus:3x4", "fattree:3,4,2", "nodes:3x4"];

fn network(id: &str) -> Network {
    let shape: Shape = id.parse().unwrap();
    Network::new(shape, shape.default_classes()).unwrap()
}

fn case() -> impl Strategy<Value = (usize, usize, u32, u64, u64)> {
    (0..TOPOLOGIES.len(), 0..ALGORITHMS.len(), 2u32..=12, 1u64..100_000, any::<u64>())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn empty_breaks_and_labels_change_nothing((t, a, p, n, seed) in case()) {
        let alg = ALGORITHMS[a];
        let schedule = goal(&plan(alg.collective, alg.id, p, 4).unwrap(), n);
        let run = |net: Network, s: &commlab_core::goal::Schedule| {
            simulate(s, net, Placement::Identity, NetParams::unlimited(), false).unwrap()
        };
        let intact = run(network(TOPOLOGIES[t]), &schedule);
        let mut no_breaks = network(TOPOLOGIES[t]);
        if no_breaks.shape.breakable() {
            no_breaks.break_links(&[], 0.0, seed).unwrap();
        }
        prop_assert_eq!(&run(no_breaks, &schedule), &intact);
        // The same schedule with every label renamed.
        let text = write(&schedule);
        let renamed: String = text
            .lines()
            .map(|line| {
                line.split(' ')
                    .map(|w| match w.strip_prefix('o') {
                        Some(rest) if rest.trim_end_matches(':').chars().all(|c| c.is_ascii_digit()) && !rest.is_empty() => {
                            format!("step_{rest}").replace(':', "") + if w.ends_with(':') { ":" } else { "" }
                        }
                        _ => w.to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
            .join("\n");
        prop_assert_ne!(&renamed, &text);
        prop_assert_eq!(&run(network(TOPOLOGIES[t]), &parse(&renamed).unwrap()), &intact);
    }

    #[test]
    fn on_a_switch_placement_changes_nothing((_, a, p, n, seed) in case()) {
        let alg = ALGORITHMS[a];
        let schedule = goal(&plan(alg.collective, alg.id, p, 2).unwrap(), n);
        let at = |placement| simulate(&schedule, network("switch:12"), placement, NetParams::unlimited(), false).unwrap().finish;
        prop_assert_eq!(at(Placement::Random(seed)), at(Placement::Identity));
    }
}

/// The Chooser's CSV on a network carries the network's times in
/// nccl-tests' terms: `network_algbw` = bytes / ns, `network_busbw` = that ×
/// 2(p − 1)/p for allreduce (GB/s).
#[test]
fn the_choosers_network_csv_has_busbw() {
    use commlab_api::chooser::{on_network, ChooseRequest};
    let request = ChooseRequest {
        collective: "allreduce".into(),
        p: 8,
        min_bytes: 1024,
        max_bytes: 1 << 20,
        sizes: Vec::new(),
        alpha: 1.0,
        beta: 0.001,
        gamma: 0.0,
        algorithms: vec!["ring".into(), "rabenseifner".into()],
        simulate: false,
        sim_limit: 0,
        check_at: None,
        network: None,
    };
    let mut result = request.run().unwrap();
    let net = commlab_api::network::NetRequest::on(commlab_core::net::Shape::Ring(8));
    on_network(&mut result, &net, 0).unwrap();
    let csv = commlab_api::exports::choose_csv(&result);
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (bytes, ns, algbw, busbw) = (col("bytes"), col("network_ns"), col("network_algbw"), col("network_busbw"));
    let mut rows = 0;
    for line in lines {
        let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect();
        assert!((f[algbw] - f[bytes] / f[ns]).abs() <= 1e-12 * f[algbw], "{line}");
        assert!((f[busbw] - f[algbw] * 2.0 * 7.0 / 8.0).abs() <= 1e-12 * f[busbw], "{line}");
        rows += 1;
    }
    assert_eq!(rows, 2 * 11);
}

/// NCCL's tree reduces later pieces while it broadcasts earlier ones
/// (`node_tree`'s plan overlaps its phases): on `nodes:2x8` with 32 pieces
/// at 64 MiB, its run takes well under its reduction and its broadcast run
/// one after the other, and no less than the longer of the two alone. The
/// same rounds without the overlap (every send waiting for its rank's
/// receives of earlier rounds) take about the sum.
#[test]
fn nccls_tree_overlaps_its_reduction_and_its_broadcast() {
    use commlab_core::choose::{node_tree, Plan};
    let (p, g, m, n) = (16, 8, 32, 1u64 << 26);
    let tree = node_tree(p, g, m).unwrap();
    assert!(tree.overlap);
    let net = network("nodes:2x8");
    let params = NetParams { window: 8, ..NetParams::default() };
    let time = |plan: &Plan| {
        let out = simulate(&goal(plan, n), net.clone(), Placement::Identity, params, false).unwrap();
        assert!(out.completes());
        out.max().0
    };
    let phase = |combine: bool| Plan {
        rounds: tree
            .rounds
            .iter()
            .map(|r| r.iter().filter(|t| t.combine == combine).cloned().collect::<Vec<_>>())
            .filter(|r| !r.is_empty())
            .collect(),
        overlap: false,
        ..tree.clone()
    };
    let (up, down) = (time(&phase(true)), time(&phase(false)));
    let overlapped = time(&tree);
    let serial = time(&Plan { overlap: false, ..tree.clone() });
    assert!(overlapped >= up.max(down) * (1.0 - 1e-9), "{overlapped} against {up} and {down}");
    assert!(overlapped < 0.75 * (up + down), "{overlapped} against {up} + {down}");
    assert!(serial > 0.9 * (up + down), "{serial} against {up} + {down}");
}

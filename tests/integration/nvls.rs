//! NVLS (`choose::nvls`): the `NVSwitch` as a rank on its node's switch
//! vertex. Checked by value replay, by the bytes each GPU's links carry
//! (S·(g+1)/g each way, `docs/network.md`), and by the closed form of one
//! node's bandwidth, B·g/(g+1).

use commlab_core::choose::{goal, nvls, Collective};
use commlab_core::net::topology::LinkClass;
use commlab_core::net::{simulate, NetParams, Network, Placement, Shape};

fn net(id: &str, nvlink: f64, nic: f64, latency: f64) -> Network {
    let shape: Shape = id.parse().unwrap();
    let classes = [LinkClass { bandwidth: nvlink, latency }, LinkClass { bandwidth: nic, latency }];
    Network::new(shape, classes).unwrap()
}

#[test]
fn nvls_plans_replay_by_value() {
    for nodes in 1..=5u32 {
        for g in 1..=8u32 {
            if nodes * g + nodes > 64 {
                continue;
            }
            for pieces in 1..=4 {
                let plan = nvls(Collective::Allreduce, nodes * g, g, pieces).unwrap();
                assert_eq!((plan.ranks, plan.switches), (nodes * g + nodes, nodes));
                plan.replay().unwrap_or_else(|e| panic!("{nodes} x {g}, {pieces} pieces: {e}"));
                if nodes == 1 {
                    for c in [Collective::Allgather, Collective::ReduceScatter] {
                        nvls(c, g, g, pieces).unwrap().replay().unwrap_or_else(|e| panic!("{c} {g}: {e}"));
                    }
                }
            }
        }
    }
    // The replay can fail: without the last copy of a result, a GPU ends short.
    let mut plan = nvls(Collective::Allreduce, 16, 8, 2).unwrap();
    plan.rounds.last_mut().unwrap().retain(|t| t.to != 1);
    assert!(plan.replay().unwrap_err().contains("ends with"));
    // A head that adds its node's sum to its own input counts it twice.
    let mut plan = nvls(Collective::Allreduce, 8, 8, 1).unwrap();
    plan.rounds[1][0].combine = true;
    assert!(plan.replay().unwrap_err().contains("twice"));
    assert!(nvls(Collective::Allgather, 16, 8, 1).unwrap_err().contains("one node"));
    assert!(nvls(Collective::Broadcast, 8, 8, 1).is_err());
    assert!(nvls(Collective::Allreduce, 12, 8, 1).is_err());
}

/// Bytes on the directed link `a → b`.
fn carried(net: &Network, out: &commlab_core::net::NetOutcome, a: u32, b: u32) -> f64 {
    let link = net.link(a, b).unwrap();
    let d = 2 * link + u32::from(a > b);
    out.links[d as usize].bytes
}

#[test]
fn each_gpu_moves_s_times_g_plus_1_over_g_each_way() {
    // nodes:1x8 and nodes:3x8: hosts 0.., then the node switches.
    for (id, pieces) in [("nodes:1x8", 4u32), ("nodes:3x8", 6)] {
        let network = net(id, 370.8, 50.0, 100.0);
        let Shape::Nodes { n, g, .. } = network.shape else { unreachable!() };
        let p = n * g;
        let s = 8 * 1024 * u64::from(pieces * g);
        let plan = nvls(Collective::Allreduce, p, g, pieces).unwrap();
        let params = NetParams { window: 8, ..NetParams::default() };
        let out = simulate(&goal(&plan, s), network.clone(), Placement::Identity, params, false).unwrap();
        assert!(out.completes());
        let each_way = s as f64 * f64::from(g + 1) / f64::from(g);
        for x in 0..p {
            let switch = p + x / g;
            assert_eq!(carried(&network, &out, x, switch), each_way, "{id}: GPU {x} to its switch");
            assert_eq!(carried(&network, &out, switch, x), each_way, "{id}: switch to GPU {x}");
        }
        // Between nodes, each of the n − 1 edges of a piece's tree carries
        // each slice once up and once down: 2·S·(n − 1) into the rails.
        let nic_bytes: f64 = (0..p).map(|x| carried(&network, &out, x, p + n + x % g)).sum();
        assert_eq!(nic_bytes, 2.0 * s as f64 * f64::from(n - 1), "{id}: bytes into the rails");
    }
}

#[test]
fn one_node_reaches_b_times_g_over_g_plus_1() {
    // With no latency and each of NCCL's streams one message at a time
    // (W = 1), the pipeline's steady state moves a piece per S_piece·(g+1)/g
    // / B: the time grows by exactly that per piece added (the fill, one
    // piece's time, cancels), and never beats it.
    let b = 370.8;
    for g in [2u32, 4, 8] {
        let network = net(&format!("nodes:1x{g}"), b, 50.0, 0.0);
        let piece = 128 * 1024 * u64::from(g);
        let time = |pieces: u32| {
            let plan = nvls(Collective::Allreduce, g, g, pieces).unwrap();
            let params = NetParams { window: 1, ..NetParams::default() };
            let s = piece * u64::from(pieces);
            simulate(&goal(&plan, s), network.clone(), Placement::Identity, params, false).unwrap().max().0
        };
        let per_piece = piece as f64 * f64::from(g + 1) / f64::from(g) / b;
        let (t32, t64) = (time(32), time(64));
        let steady = (t64 - t32) / 32.0;
        assert!((steady / per_piece - 1.0).abs() < 1e-9, "g = {g}: {steady} ns a piece against {per_piece}");
        assert!(t64 >= 64.0 * per_piece * (1.0 - 1e-12), "g = {g}: {t64} ns under the bound");
    }
}

/// `commlab predict`'s row for an allreduce of 16 GiB on one node of
/// `system`, checked to be NVLS.
fn one_node_at_16_gib(system: &str) -> commlab_api::predict::PredictRow {
    let request = commlab_api::predict::PredictRequest {
        system: commlab_api::system::System::parse(
            system,
            1,
            commlab_core::libraries::nccl::Version::Current,
            commlab_api::system::STEADY_NODES,
        )
        .unwrap(),
        collective: "allreduce".into(),
        sizes: vec![1 << 34],
    };
    let row = request.run(commlab_api::predict::Engine::Flow).unwrap().rows.remove(0);
    assert_eq!((row.algorithm, row.simulated, row.note), ("nvls", "nvls", None), "{system}");
    row
}

/// `commlab predict` on one H100 node at 16 GiB: NCCL picks NVLS, and its
/// busbw is within 1 % of the closed form 2·η·B·(g−1)/(g+1) with NCCL's η
/// (0.85 on Hopper) and B = 18 × 20.6 GB/s (its usable `NVLink`): 490.3 GB/s.
#[test]
fn one_h100_node_runs_nvls_at_its_closed_form() {
    let row = one_node_at_16_gib("dgx-h100");
    let closed = 2.0 * 0.85 * 18.0 * 20.6 * 7.0 / 9.0;
    assert!((row.busbw / closed - 1.0).abs() < 0.01, "{} GB/s against {closed}", row.busbw);
}

/// A custom 72-GPU Blackwell node (an `NVLink` domain of GB200 NVL72's
/// size): NCCL picks NVLS at 16 GiB, its channels run as one, and its 32
/// heads (NCCL's most) each move S·(h+1)/h each way, so the busbw is
/// 2·η·B·(g−1)/g · h/(h+1) with NCCL's η for Blackwell, B = 18 × 40.1
/// GB/s, g = 72 and h = 32, less the pipeline's fill: at most one piece's
/// time of m + 1 (with m = 64 pieces, 1.5 %; the 40 GPUs that head no slice
/// have room to spare, so the heads' fill is partly hidden: 0.95 % here).
#[test]
fn a_72_gpu_node_runs_nvls_at_its_closed_form() {
    use commlab_core::libraries::nccl::{nvls_efficiency, Arch};
    let row = one_node_at_16_gib("custom:gpus=72,arch=blackwell,nics=18");
    let closed = 2.0 * nvls_efficiency(Arch::Blackwell) * 18.0 * 40.1 * (71.0 / 72.0) * (32.0 / 33.0);
    let m = f64::from(row.pieces);
    let filled = closed * m / (m + 1.0);
    assert!(row.busbw <= closed && row.busbw >= filled, "{} GB/s between {filled} and {closed}", row.busbw);
}

/// NCCL's two-node rule: on 2 × p4d its tree may move at twice the network
/// inside a node, so from 128 MiB up NCCL's model picks its tree (the
/// published p4de run passes the ring's 50 GB/s NIC bound there), and on 3
/// nodes, where the rule does not apply, the ring.
#[test]
fn two_p4d_nodes_run_the_tree_at_large_sizes() {
    use commlab_api::predict::PredictRequest;
    let sizes: Vec<u64> = (27..=34).map(|k| 1u64 << k).collect();
    let on = |nodes| {
        PredictRequest {
            system: commlab_api::system::System::parse(
                "p4d",
                nodes,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::STEADY_NODES,
            )
            .unwrap(),
            collective: "allreduce".into(),
            sizes: sizes.clone(),
        }
        .planned(commlab_api::predict::Engine::Flow)
        .unwrap()
    };
    for p in on(2) {
        assert_eq!(p.algorithm, Some(commlab_core::libraries::nccl::Algorithm::Tree), "{} B", p.bytes);
    }
    for p in on(3).iter().filter(|p| p.bytes >= 1 << 30) {
        assert_eq!(p.algorithm, Some(commlab_core::libraries::nccl::Algorithm::Ring), "{} B", p.bytes);
    }
}

/// A custom system given a preset's values predicts what the preset does,
/// size by size, to the last bit.
#[test]
fn a_custom_system_with_a_presets_values_predicts_the_same() {
    use commlab_api::predict::PredictRequest;
    let run = |system: &str| {
        let sizes = vec![1024, 1 << 20, 1 << 26, 1 << 30];
        let request = PredictRequest {
            system: commlab_api::system::System::parse(
                system,
                2,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::STEADY_NODES,
            )
            .unwrap(),
            collective: "allreduce".into(),
            sizes,
        };
        request
            .run(commlab_api::predict::Engine::Flow)
            .unwrap()
            .rows
            .iter()
            .map(|r| (r.time_us, r.algorithm))
            .collect::<Vec<_>>()
    };
    assert_eq!(run("custom:gpus=8,arch=hopper,nvlinks=18,nics=8,nic-gbps=400"), run("dgx-h100"));
    assert_eq!(run("custom:arch=ampere,nvlinks=12,nics=4,nic-gbps=100,plugin=aws-p4d"), run("p4d"));
}

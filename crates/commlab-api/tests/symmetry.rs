//! Runs that repeat are simulated once (`Planned::prepare`): a ring over N
//! nodes as the ring of its first two nodes with all its rounds; NVLS's
//! alike channels as one on links of 1/C the bandwidth. Both checked against
//! the whole run simulated message by message, on every preset.

use commlab_api::predict::{plan_as, Planned};
use commlab_api::system::System;
use commlab_core::choose::{goal_channels, nvls, plan, Collective};
use commlab_core::net::topology::LinkClass;
use commlab_core::net::{NetParams, Network, Placement, Shape};
use commlab_core::systems::PRESETS;

/// The whole ring of `planned`, every rank and message: the last finish (ns).
fn whole(planned: &Planned) -> f64 {
    let collective: Collective = planned.collective.parse().unwrap();
    let shape: Shape = planned.shape.parse().unwrap();
    let ring = plan(collective, "ring", planned.p, 1).unwrap();
    let orders: Vec<Vec<u32>> = (0..planned.channels).map(|c| shape.channel_order(planned.p, c)).collect();
    let schedule = goal_channels(&ring, planned.wire, &orders);
    let class =
        |k: usize| LinkClass { bandwidth: planned.classes[k].0, latency: planned.classes[k].1 + planned.steps[k] };
    let net = Network::new(shape, [class(0), class(1)]).unwrap();
    let params = NetParams { window: planned.window(), ..NetParams::default() };
    commlab_core::net::simulate(&schedule, net, Placement::Identity, params, false).unwrap().max().0
}

#[test]
fn a_ring_over_n_nodes_runs_as_its_first_two() {
    let (mut checked, mut unequal) = (0, 0);
    for preset in PRESETS {
        for nodes in [3u32, 4, 5] {
            let system = System::new(preset.id, nodes, None).unwrap();
            for collective in [Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter] {
                for (bytes, protocol) in [(1u64 << 16, "ll"), (3 << 20, "ll128"), (1 << 27, "simple")] {
                    let (planned, note) = plan_as(&system, collective, bytes, "ring", protocol);
                    assert_eq!((note, planned.schedule.as_str()), (None, "ring"));
                    let quick = planned.simulate().unwrap();
                    let (net, _) = quick.1.as_ref().unwrap();
                    // The run was the two-node ring.
                    assert_eq!(net.shape.hosts(), 2 * u64::from(preset.gpus), "{} x{nodes}", preset.id);
                    let same_blocks = (0..planned.channels).all(|k| {
                        commlab_core::choose::block_bytes(planned.wire, planned.channels, k) % u64::from(planned.p) == 0
                    });
                    let full = whole(&planned);
                    if same_blocks {
                        assert_eq!(
                            quick.0.to_bits(),
                            full.to_bits(),
                            "{} x{nodes} {collective} {bytes} {protocol}",
                            preset.id
                        );
                    } else {
                        // A byte more in some blocks of other nodes: within the ring's band.
                        // A byte more in some blocks of the other nodes: a ring
                        // over channels moves within its band
                        // (about 6 % wide, `Planned::coupled`).
                        let band = if planned.coupled() { 0.06 } else { 0.005 };
                        let off = quick.0 / full - 1.0;
                        assert!(off.abs() < band, "{} x{nodes} {collective} {bytes}: {} vs {full}", preset.id, quick.0);
                        unequal += 1;
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, PRESETS.len() * 3 * 3 * 3);
    // Both kinds were met.
    assert!(unequal > 0 && unequal < checked, "{unequal} of {checked}");
}

/// The whole NVLS run of `planned`, every channel: the last finish (ns),
/// `None` where its channels' NICs wrap past GOAL's 256 (two channels then
/// share a NIC's window, which NCCL's channels do not).
fn whole_nvls(planned: &Planned) -> Option<f64> {
    let collective: Collective = planned.collective.parse().unwrap();
    let shape: Shape = planned.shape.parse().unwrap();
    let Shape::Nodes { g, .. } = shape else { panic!("NVLS runs on nodes") };
    let plan = nvls(collective, planned.p, g, planned.pieces).unwrap();
    let one = goal_channels(&plan, planned.wire, &[(0..plan.ranks).collect()]);
    let nics = one.ops.iter().map(|o| u32::from(o.nic) + 1).max().unwrap_or(1);
    if nics * planned.channels > 256 {
        return None;
    }
    let orders = vec![(0..plan.ranks).collect::<Vec<u32>>(); planned.channels as usize];
    let schedule = goal_channels(&plan, planned.wire, &orders);
    let class =
        |k: usize| LinkClass { bandwidth: planned.classes[k].0, latency: planned.classes[k].1 + planned.steps[k] };
    let net = Network::new(shape, [class(0), class(1)]).unwrap();
    let params = NetParams { window: planned.window(), ..NetParams::default() };
    Some(commlab_core::net::simulate(&schedule, net, Placement::Identity, params, false).unwrap().max().0)
}

#[test]
fn nvls_channels_run_as_one() {
    let (mut checked, mut wrapped) = (0, 0);
    for preset in PRESETS.iter().filter(|p| p.nvls) {
        for nodes in [1u32, 2, 4] {
            let system = System::new(preset.id, nodes, None).unwrap();
            let algorithm = if nodes == 1 { "nvls" } else { "nvls_tree" };
            let collectives: &[Collective] = if nodes == 1 {
                &[Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter]
            } else {
                &[Collective::Allreduce]
            };
            for &collective in collectives {
                for bytes in [1u64 << 16, 3 << 20, 1 << 28, (1 << 28) + 5] {
                    let (planned, _) = plan_as(&system, collective, bytes, algorithm, "simple");
                    assert_eq!(planned.schedule, "nvls");
                    assert!(planned.channels > 1, "{}", preset.id);
                    let quick = planned.simulate().unwrap().0;
                    let Some(full) = whole_nvls(&planned) else {
                        wrapped += 1;
                        continue;
                    };
                    let off = quick / full - 1.0;
                    let case = format!("{} x{nodes} {collective} {bytes}: {quick} vs {full}", preset.id);
                    if planned.wire % u64::from(planned.channels) == 0 {
                        assert!(off.abs() < 1e-12, "{case}");
                    } else {
                        // The first `wire mod C` parts a byte larger: the
                        // whole run's channels then drift apart by a byte's
                        // time, which moves it by up to 2.5 %; run as one,
                        // they stay alike.
                        assert!(off.abs() < 0.03, "{case}");
                    }
                    checked += 1;
                }
            }
        }
    }
    // 32 channels (Blackwell) wrap: 8 cases of hgx-b200 and p6-b200 × 2, 4 nodes.
    assert!(checked >= 40 && wrapped > 0, "{checked} checked, {wrapped} wrapped");
}

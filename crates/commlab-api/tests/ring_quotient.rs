//! A ring over N nodes runs as the ring of its first two nodes with all its
//! rounds (`Planned::prepare`): checked against the whole ring simulated
//! message by message, on every preset.

use commlab_api::predict::{plan_as, Planned};
use commlab_api::system::System;
use commlab_core::choose::{goal_channels, plan, Collective};
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

//! Runs that repeat are simulated once (`Planned::prepare`): a ring over N
//! nodes as the ring of its first two nodes with all its rounds; NVLS's
//! alike channels as one on links of 1/C the bandwidth. Both checked against
//! the whole run simulated message by message, on every preset.

use commlab_api::predict::{plan_as, Planned};
use commlab_api::system::System;
use commlab_core::choose::{goal_channels, nvls, plan, Collective};
use commlab_core::libraries::nccl::{Algorithm, Protocol, Schedule};
use commlab_core::net::topology::LinkClass;
use commlab_core::net::{NetParams, Network, Placement, Shape};
use commlab_core::systems::{Preset, PRESETS};

/// The presets whose node is one box (not an `NVLink` domain of trays, whose
/// whole runs take minutes: `docs/systems.md`, "`NVLink` domains").
fn boxes() -> impl Iterator<Item = &'static Preset> {
    PRESETS.iter().filter(|p| p.tray == p.gpus)
}

/// The whole ring of `planned`, every rank and message: the last finish (ns).
fn whole(planned: &Planned) -> f64 {
    let collective: Collective = planned.collective;
    let shape: Shape = planned.shape;
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
    for preset in boxes() {
        for nodes in [3u32, 4, 5] {
            let system = System::parse(
                preset.id,
                nodes,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::NODES,
            )
            .unwrap();
            for collective in [Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter] {
                for (bytes, protocol) in [(1u64 << 16, "ll"), (3 << 20, "ll128"), (1 << 27, "simple")] {
                    let planned = plan_as(&system, collective, bytes, Some(Algorithm::Ring), protocol.parse().unwrap());
                    assert_eq!((planned.note(), planned.schedule), (None, Schedule::Ring));
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
    assert_eq!(checked, boxes().count() * 3 * 3 * 3);
    // Both kinds were met.
    assert!(unequal > 0 && unequal < checked, "{unequal} of {checked}");
}

/// The whole NVLS run of `planned`, every channel: the last finish (ns),
/// `None` where its channels' NICs wrap past GOAL's 256 (two channels then
/// share a NIC's window, which NCCL's channels do not).
fn whole_nvls(planned: &Planned) -> Option<f64> {
    let collective: Collective = planned.collective;
    let shape: Shape = planned.shape;
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
    for preset in boxes().filter(|p| p.nvls) {
        for nodes in [1u32, 2, 4] {
            let system = System::parse(
                preset.id,
                nodes,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::NODES,
            )
            .unwrap();
            let algorithm = if nodes == 1 { Algorithm::Nvls } else { Algorithm::NvlsTree };
            let collectives: &[Collective] = if nodes == 1 {
                &[Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter]
            } else {
                &[Collective::Allreduce]
            };
            for &collective in collectives {
                for bytes in [1u64 << 16, 3 << 20, 1 << 28, (1 << 28) + 5] {
                    let planned = plan_as(&system, collective, bytes, Some(algorithm), Protocol::Simple);
                    assert_eq!(planned.schedule, Schedule::Nvls);
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

/// A ring's `g` kinds of tokens on one link (`docs/network.md`, "Rings at
/// any scale"), written apart from the network simulator: token `i` starts
/// at GPU `i` of a node, and each round crosses to the next GPU (`d_nv` of
/// latency) or, from the node's last GPU of the channel, to the next node
/// (`d_nic`). Every token in transfer shares one link of `c` bytes/ns (a
/// GPU's `NVLink`, which by the node and rail symmetry carries one copy of
/// every token's flow); those crossing nodes also share a NIC of `nic`
/// bytes/ns. Max–min between the two: the finish of the last round.
fn tokens(g: usize, rounds: u32, bytes: f64, c: f64, nic: f64, d_nv: f64, d_nic: f64) -> f64 {
    #[derive(Clone, Copy)]
    enum Phase {
        Latency(f64),
        Transfer(f64),
    }
    let crosses = |at: usize| at % g == g - 1;
    let latency = |at: usize| if crosses(at) { d_nic } else { d_nv };
    // (rounds done, where the token is, its phase)
    let mut state: Vec<(u32, usize, Phase)> = (0..g).map(|i| (0, i, Phase::Latency(latency(i)))).collect();
    let (mut now, mut last) = (0.0f64, 0.0f64);
    loop {
        let moving: Vec<usize> = (0..g).filter(|&k| state[k].0 < rounds).collect();
        if moving.is_empty() {
            return last;
        }
        let in_transfer: Vec<usize> =
            moving.iter().copied().filter(|&k| matches!(state[k].2, Phase::Transfer(_))).collect();
        let crossing = in_transfer.iter().filter(|&&k| crosses(state[k].1)).count();
        let mut rate = vec![0.0; g];
        if !in_transfer.is_empty() {
            let fair = c / in_transfer.len() as f64;
            let capped = if crossing > 0 { nic / crossing as f64 } else { f64::INFINITY };
            let rest = (c - capped * crossing as f64) / (in_transfer.len() - crossing).max(1) as f64;
            for &k in &in_transfer {
                rate[k] = match (capped < fair, crosses(state[k].1)) {
                    (false, _) => fair,
                    (true, true) => capped,
                    (true, false) => rest,
                };
            }
        }
        let step = moving
            .iter()
            .map(|&k| match state[k].2 {
                Phase::Latency(until) => until - now,
                Phase::Transfer(left) => left / rate[k],
            })
            .fold(f64::INFINITY, f64::min);
        now += step;
        for &k in &moving {
            let (done, at, phase) = state[k];
            state[k].2 = match phase {
                Phase::Latency(until) if until - now <= 1e-9 * now.max(1.0) => Phase::Transfer(bytes),
                Phase::Latency(until) => Phase::Latency(until),
                Phase::Transfer(left) => {
                    let left = left - rate[k] * step;
                    if left > 1e-9 * bytes {
                        Phase::Transfer(left)
                    } else {
                        last = now;
                        state[k].0 = done + 1;
                        state[k].1 = at + 1;
                        Phase::Latency(now + latency(at + 1))
                    }
                }
            };
        }
    }
}

/// The ring on a preset with a NIC per GPU, over 2 and 4 nodes, simulated
/// flow by flow over every channel, ends when `g` tokens on one link do
/// (`tokens`): the node symmetry makes every node alike, and turning GPU j
/// into GPU j + 1 turns channel c into channel c + 1, so a GPU's link carries
/// one copy of each of one channel's flows in a node. The flows of all
/// channels and nodes reduce to `g` tokens; the large sizes are in the
/// ring's band, whose chaos is therefore that of `g` tokens.
#[test]
fn a_ring_with_a_nic_per_gpu_is_g_tokens_on_one_link() {
    let (mut checked, mut exact) = (0, 0);
    for preset in boxes().filter(|p| p.nics == p.gpus && p.nvswitch) {
        for nodes in [2u32, 4] {
            let system = System::parse(
                preset.id,
                nodes,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::NODES,
            )
            .unwrap();
            for exp in [16u32, 26, 28] {
                let planned =
                    plan_as(&system, Collective::Allreduce, 1 << exp, Some(Algorithm::Ring), Protocol::Simple);
                let per_channel = planned.wire / u64::from(planned.channels);
                if planned.wire % u64::from(planned.channels) != 0 || per_channel % u64::from(planned.p) != 0 {
                    continue;
                }
                let flow = planned.simulate().unwrap().0;
                let nv = planned.classes[0].1 + planned.steps[0];
                let nic = planned.classes[1].1 + planned.steps[1];
                let t = tokens(
                    preset.gpus as usize,
                    2 * (planned.p - 1),
                    (per_channel / u64::from(planned.p)) as f64,
                    planned.classes[0].0,
                    planned.classes[1].0,
                    2.0 * nv,
                    2.0 * nv + 2.0 * nic,
                );
                let off = (t / flow - 1.0).abs();
                assert!(off < 1e-3, "{} x{nodes} 2^{exp}: {t} tokens vs {flow} flows", preset.id);
                exact += usize::from(off < 1e-7);
                checked += 1;
            }
        }
    }
    // Measured: 45 of 48 to 4·10⁻⁸; three at 4 nodes and 256 MiB, in the
    // band, to 4·10⁻⁴: the simulator takes flows ending within 10⁻⁹ of each
    // other as ending together, the tokens within 10⁻⁹ of a byte, and the
    // band amplifies the difference.
    assert!(checked >= 40 && exact + 3 >= checked, "{exact} of {checked} to 1e-7");
}

use commlab_api::predict::{plan_as, Scales};
use commlab_api::system::System;
use commlab_core::choose::Collective;

#[test]
#[ignore]
fn diag() {
    let preset = std::env::var("PRESET").unwrap_or("dgx-h100".into());
    let nodes: u32 = std::env::var("N").unwrap_or("2".into()).parse().unwrap();
    let proto = std::env::var("PROTO").unwrap_or("simple".into());
    let proto: &'static str = Box::leak(proto.into_boxed_str());
    let system = System::new(&preset, nodes, None).unwrap();
    for e in [16u32, 20, 24, 26, 28, 30, 32] {
        let bytes = 1u64 << e;
        let (planned, _) = plan_as(&system, Collective::Allreduce, bytes, "ring", proto);
        let prepared = planned.prepare().unwrap().unwrap();
        let (t, net, out) = planned.run(&prepared, Scales::NOMINAL).unwrap();
        let mut best = (0.0f64, 0usize);
        for (d, l) in out.links.iter().enumerate() {
            let bw = net.class(d as u32).bandwidth;
            if l.bytes / bw > best.0 { best = (l.bytes / bw, d); }
        }
        let steps = 2.0 * (planned.p as f64 - 1.0);
        let b = planned.wire as f64 / planned.channels as f64 / planned.p as f64;
        let lat_nv = planned.classes[0].1 + planned.steps[0];
        let lat_nic = planned.classes[1].1 + planned.steps[1];
        let (a, bb) = net.ends(best.1 as u32);
        println!("{preset}x{nodes} {proto} 2^{e}: p {} c {} b {:.0} flow {:.1} us bound {:.1} us ({}→{} busy {:.3}) ratio {:.3} diff {:.1} us; lat nv {:.0} nic {:.0} ns; per-step flow {:.2} us",
            planned.p, planned.channels, b, t/1e3, best.0/1e3, net.vertex_name(a), net.vertex_name(bb), out.links[best.1].busy / t, t / best.0, (t-best.0)/1e3, lat_nv, lat_nic, t/steps/1e3);
    }
}

#[test]
#[ignore]
fn trace() {
    let preset = std::env::var("PRESET").unwrap_or("dgx-h100".into());
    let nodes: u32 = std::env::var("N").unwrap_or("2".into()).parse().unwrap();
    let e: u32 = std::env::var("E").unwrap_or("26".into()).parse().unwrap();
    let rank: u32 = std::env::var("RANK").unwrap_or("0".into()).parse().unwrap();
    let system = System::new(&preset, nodes, None).unwrap();
    let (planned, _) = plan_as(&system, Collective::Allreduce, 1u64 << e, "ring", "simple");
    let prepared = planned.prepare().unwrap().unwrap();
    let (_, net, _) = planned.run(&prepared, Scales::NOMINAL).unwrap();
    let out = commlab_core::net::simulate(prepared.schedule(), net.clone(), commlab_core::net::Placement::Identity,
        commlab_core::net::NetParams { window: planned.window(), ..Default::default() }, true).unwrap();
    let mut fl: Vec<_> = out.flows.iter().filter(|f| f.from == rank).collect();
    fl.sort_by(|a, b| a.created.total_cmp(&b.created));
    let cap = planned.classes[0].0;
    for f in fl.iter().take(200) {
        println!("to {:3} created {:9.2} lat {:6.2} xfer {:7.2} share {:5.2}", f.to, f.created/1e3, (f.transfer-f.created)/1e3, (f.arrived-f.transfer)/1e3, (f.arrived-f.transfer)*cap/f.size as f64);
    }
}

/// The ring on 2 nodes with the rounds and block bytes of N nodes.
fn quotient(planned: &commlab_api::predict::Planned, rounds: usize) -> f64 {
    use commlab_core::net::{Network, Shape, topology::LinkClass};
    let Shape::Nodes { g, r, .. } = planned.shape.parse::<Shape>().unwrap() else { panic!() };
    let shape = Shape::Nodes { n: 2, g, r };
    let p2 = 2 * g;
    let c = planned.channels;
    let parts: Vec<_> = (0..c)
        .map(|k| {
            let nk = commlab_core::choose::block_bytes(planned.wire, c, k);
            let b = commlab_core::choose::block_bytes(nk, planned.p, 0);
            let s = commlab_core::goal::generate::from_round_fn(p2, rounds, |_, visit| {
                for i in 0..p2 { visit((i, (i + 1) % p2, b)); }
            });
            (s, shape.channel_order(p2, k))
        })
        .collect();
    let sched = commlab_core::goal::generate::channels(p2, &parts);
    let class = |k: usize| LinkClass { bandwidth: planned.classes[k].0, latency: planned.classes[k].1 + planned.steps[k] };
    let net = Network::new(shape, [class(0), class(1)]).unwrap();
    let out = commlab_core::net::simulate(&sched, net, commlab_core::net::Placement::Identity,
        commlab_core::net::NetParams { window: planned.window(), ..Default::default() }, false).unwrap();
    out.max().0
}

#[test]
#[ignore]
fn quotient_equals() {
    let preset = std::env::var("PRESET").unwrap_or("dgx-h100".into());
    for nodes in [2u32, 4, 8, 16] {
        let system = System::new(&preset, nodes, None).unwrap();
        for e in [16u32, 22, 26, 28, 30] {
            let (planned, _) = plan_as(&system, Collective::Allreduce, 1u64 << e, "ring", "simple");
            let prepared = planned.prepare().unwrap().unwrap();
            let t0 = std::time::Instant::now();
            let full = planned.run(&prepared, Scales::NOMINAL).unwrap().0;
            let d0 = t0.elapsed();
            let t1 = std::time::Instant::now();
            let q = quotient(&planned, 2 * (planned.p as usize - 1));
            let d1 = t1.elapsed();
            println!("{preset} x{nodes} 2^{e}: full {:.3} us ({:?}) quotient {:.3} us ({:?}) rel {:.2e}", full/1e3, d0, q/1e3, d1, q/full-1.0);
        }
    }
}

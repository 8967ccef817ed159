//! Criterion benchmark of a ring over many nodes on the network (the flow
//! simulation, run as the ring of its first two nodes with all its rounds:
//! `docs/network.md`, "Rings at any scale"). The goal: the 16-channel ring
//! allreduce over `nodes:128x8` at 1 GiB in ≤ 2 s.
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_api::predict::{plan_as, Scales};
use commlab_api::system::System;
use commlab_core::choose::Collective;
use commlab_core::libraries::nccl::{Algorithm, Protocol};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn rings(c: &mut Criterion) {
    let mut group = c.benchmark_group("ring allreduce on dgx-h100, 1 GiB");
    group.sample_size(10);
    for (nodes, channels) in [(16u32, 8u32), (128, 8), (128, 16)] {
        let system = System::parse(
            "dgx-h100",
            nodes,
            commlab_core::libraries::nccl::Version::Current,
            commlab_api::system::NODES,
        )
        .expect("a preset");
        let mut planned = plan_as(&system, Collective::Allreduce, 1 << 30, Some(Algorithm::Ring), Protocol::Simple);
        planned.channels = channels;
        group.bench_function(format!("{nodes} nodes, {channels} channels: prepare and run"), |b| {
            b.iter(|| {
                let prepared = planned.prepare().expect("a ring").expect("ranks");
                black_box(planned.run(&prepared, Scales::NOMINAL).expect("runs").0)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, rings);
criterion_main!(benches);

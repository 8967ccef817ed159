//! Criterion benchmark of `commlab predict --engine steady`'s work: every
//! size of an allreduce sweep (8 B to 16 GiB, 32 sizes) on `dgx-h100`,
//! planned by NCCL's model and timed by the steady engine (`docs/systems.md`,
//! "Two engines"). The goals: 100 ms at 128 and at 1 024 nodes.
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_api::predict::{PredictRequest, Scales};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn sweep(c: &mut Criterion) {
    let mut group = c.benchmark_group("steady allreduce sweep on dgx-h100, 8 B to 16 GiB");
    group.sample_size(10);
    for nodes in [16u32, 128, 1024] {
        let request = PredictRequest {
            system: commlab_api::system::System::parse(
                "dgx-h100",
                nodes,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::STEADY_NODES,
            )
            .unwrap(),
            collective: "allreduce".to_owned(),
            sizes: (3..=34).map(|k| 1u64 << k).collect(),
        };
        group.bench_function(format!("{nodes} nodes: plan and steady time"), |b| {
            b.iter(|| {
                let planned = request.planned(commlab_api::predict::Engine::Steady).expect("a sweep");
                let total: f64 = planned.iter().map(|p| p.steady_ns(Scales::NOMINAL).expect("steady")).sum();
                black_box(total)
            });
        });
    }
    group.finish();
}

criterion_group!(benches, sweep);
criterion_main!(benches);

//! Criterion benchmarks of the barrier engine: one barrier of each algorithm
//! on a 64 × 64 mesh with 20 % of the links broken (kept connected), and the
//! connected breaks alone.
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::engine::{Scenario, Simulation};
use commlab_core::barrier::mesh::{Breaks, Mesh};
use criterion::{criterion_group, criterion_main, Criterion};

fn one_barrier(c: &mut Criterion) {
    let mut group = c.benchmark_group("barrier 64x64 20%");
    group.sample_size(10);
    for algorithm in Algorithm::ALL.into_iter().filter(|&a| a != Algorithm::AllToAll) {
        let scenario = Scenario {
            size: 64,
            algorithm,
            break_rate: 0.2,
            seed: 1,
            connected: true,
            barriers: 1,
            ..Scenario::default()
        };
        group.bench_function(algorithm.id(), |b| b.iter(|| Simulation::new(scenario.clone()).unwrap().run().events));
    }
    group.finish();
}

/// Issue 10's budget: 256 × 256 at rate 0.5, kept connected, in ≤ 100 ms.
fn connected_breaks(c: &mut Criterion) {
    let mut group = c.benchmark_group("connected breaks");
    group.sample_size(10);
    for size in [64u64, 256, 1024] {
        let mesh = Mesh::new(size).unwrap();
        group.bench_function(format!("{size}x{size} rate 0.5"), |b| {
            b.iter(|| Breaks::random_connected(&mesh, 0.5, 7).unwrap().count());
        });
    }
    group.finish();
}

criterion_group!(benches, one_barrier, connected_breaks);
criterion_main!(benches);

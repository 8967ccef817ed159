//! Criterion benchmarks of the barrier engine: one barrier of each algorithm
//! on a 64 × 64 mesh with 20 % of the links broken (kept connected).
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::engine::{Scenario, Simulation};
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

criterion_group!(benches, one_barrier);
criterion_main!(benches);

//! Criterion benchmark of the swizzle budget: the schedule of 10^6 loop indices.
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_core::swizzle::{CoreSplit, GridShape, Schedule, SwizzleConfig};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn swizzle(c: &mut Criterion) {
    // 125 × 8 data tiles × 1000 ranks = 10^6 loop indices on 5 × 4 cores.
    let config = SwizzleConfig::new(
        GridShape { row: 125, column: 8, rank: 1000 },
        CoreSplit { row: 5, column: 4 },
        0,
        false,
        true,
    )
    .unwrap();
    let mut group = c.benchmark_group("swizzle");
    group.sample_size(20);
    group.bench_function("schedule, 10^6 loop indices", |b| {
        b.iter(|| Schedule::new(black_box(&config)).total_collisions());
    });
    group.finish();
}

criterion_group!(benches, swizzle);
criterion_main!(benches);

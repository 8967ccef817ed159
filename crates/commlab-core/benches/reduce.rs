//! Criterion benchmarks of the reduction engine: the budgets of the reduction
//! views (schedule + values at p = 65 536; schedule + timing at p = 2^20).
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_core::reduce::timing::{time, Costs};
use commlab_core::reduce::values::{random_inputs, ValueTrace};
use commlab_core::reduce::{Collective, CollectiveConfig, Operator, Schedule};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn tree(p: u64) -> Schedule {
    Schedule::collective(&CollectiveConfig::new(Collective::Reduce, p, false).unwrap())
}

fn reduce_engine(c: &mut Criterion) {
    let mut group = c.benchmark_group("reduce");
    group.sample_size(20);
    group.bench_function("schedule + inputs + values, p = 65536, m = 1", |b| {
        b.iter(|| {
            let s = tree(black_box(65_536));
            let inputs = random_inputs(1, 65_536, 1, Operator::Sum).unwrap();
            let trace = ValueTrace::new(&s, Operator::Sum, 1, &inputs);
            black_box(trace.after(trace.round_count()))
        });
    });
    let costs = Costs::new(1 << 20, 10.0, 0.001).unwrap();
    group.bench_function("schedule + timing, p = 2^20 (reduce)", |b| {
        b.iter(|| time(&tree(black_box(1 << 20)), &costs).finish);
    });
    group.bench_function("schedule + timing, p = 2^20 (pipeline, m = 1)", |b| {
        b.iter(|| time(&Schedule::pipeline(black_box(1 << 20), 1).unwrap(), &costs).finish);
    });
    group.bench_function("tree drawing data, p = 16 (schedule + values)", |b| {
        b.iter(|| {
            let s = tree(black_box(16));
            let inputs = random_inputs(1, 16, 1, Operator::Sum).unwrap();
            ValueTrace::new(&s, Operator::Sum, 1, &inputs)
        });
    });
    group.finish();
}

criterion_group!(benches, reduce_engine);
criterion_main!(benches);

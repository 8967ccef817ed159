//! Criterion benchmarks of the runtime model: what a parameter change in the
//! model view recomputes (summary, `T(m)` curve, `T(p)` curve).
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_core::model::ModelConfig;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn model_view_recompute(c: &mut Criterion) {
    let config = ModelConfig::new(1 << 20, 64, 10.0, 0.001, 1024).unwrap();
    c.bench_function("model summary", |b| b.iter(|| black_box(config).summary()));
    c.bench_function("model pieces curve (400 pts)", |b| b.iter(|| black_box(config).pieces_curve(400)));
    c.bench_function("model units curve (200 pts)", |b| b.iter(|| black_box(config).units_curve(16, 256, 200)));
}

criterion_group!(benches, model_view_recompute);
criterion_main!(benches);

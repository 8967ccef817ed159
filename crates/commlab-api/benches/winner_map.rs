//! Criterion benchmark of the Chooser's winner map: 64 p (2…65) × 64 sizes
//! (1 B…1 TiB) for every collective, all algorithms. A first draw builds
//! every algorithm's profile; a redraw with other α, β, γ reuses them (the
//! view's budget is the redraw: ≤ 100 ms in the worker). The view's widest
//! range (56 p over 2…1024) is measured for allreduce, whose first draw is
//! the longest.
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_api::chooser::{map_ps, Cache, MapRun};
use commlab_core::choose::AlphaBeta;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

const COLLECTIVES: [&str; 6] = ["broadcast", "reduce", "allreduce", "allgather", "reduce-scatter", "all-to-all"];

fn sizes() -> Vec<u64> {
    // 64 sizes from 1 B to 1 TiB (some repeat: the budget is per cell).
    (0..64u32).map(|k| 1u64 << (k * 40 / 63)).collect()
}

fn draw(collective: &str, ps: &[u32], ab: AlphaBeta, cache: &mut Cache) {
    let mut run = MapRun::new(collective, &[], ps.to_vec(), sizes(), ab).expect("a valid map");
    while !run.step(cache) {}
    black_box(run);
}

fn winner_map(c: &mut Criterion) {
    let first = AlphaBeta { alpha: 1.0, beta: 0.001, gamma: 0.0 };
    let other = AlphaBeta { alpha: 2.0, beta: 0.004, gamma: 0.001 };
    let ps: Vec<u32> = (2..=65).collect();
    let mut group = c.benchmark_group("winner map 64 p × 64 sizes");
    group.sample_size(10);
    for collective in COLLECTIVES {
        group.bench_function(format!("{collective}, first draw"), |b| {
            b.iter(|| draw(collective, &ps, first, &mut Cache::default()));
        });
        let mut cache = Cache::default();
        draw(collective, &ps, first, &mut cache);
        group.bench_function(format!("{collective}, redraw"), |b| b.iter(|| draw(collective, &ps, other, &mut cache)));
    }
    group.finish();
    let wide = map_ps(2, 1024);
    let mut group = c.benchmark_group("winner map, widest range");
    group.sample_size(10);
    group.bench_function(format!("allreduce, {} p over 2…1024, first draw", wide.len()), |b| {
        b.iter(|| draw("allreduce", &wide, first, &mut Cache::default()));
    });
    group.finish();
}

criterion_group!(benches, winner_map);
criterion_main!(benches);

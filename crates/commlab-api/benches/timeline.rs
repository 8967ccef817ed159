//! Criterion benchmark of the Schedule view's heaviest timeline: the
//! pipeline at p = 8 with 6 000 pieces (84 000 ops, 168 000 bars), the
//! largest a link can draw in full. What a first draw and a settled
//! pan/zoom recompute natively (the browser adds the canvas calls).
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_api::schedule::{GenerateRequest, LogGops, ScheduleRequest, ScheduleSource};
use commlab_api::sim::{SimEngine, SimQuery, SimResponse};
use commlab_plot::timeline::{scene, Layout, TimeUnit};
use commlab_plot::Theme;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn heavy_timeline(c: &mut Criterion) {
    let generate = GenerateRequest {
        collective: "pipeline".into(),
        p: 8,
        pieces: 6000,
        bytes: 1_000_000_000,
        ..GenerateRequest::default()
    };
    let request = ScheduleRequest {
        source: ScheduleSource::Generate(generate),
        params: LogGops::default(),
        libstdcxx: false,
        network: None,
    };
    let SimResponse::Ready(result) = SimEngine::new().serve(SimQuery::Run(request), 1 << 20, &mut |_| {}) else {
        panic!("the heavy pipeline runs");
    };
    let t = result.timeline.expect("84 000 ops are drawn in full");
    let mut on_path = vec![false; t.ops.len() / 6];
    for &i in &t.critical {
        on_path[i as usize] = true;
    }
    let end = result.max_time as f64 * 1.02;
    let whole = Layout {
        lanes: t.cpus + 2 * t.nics,
        cpus: t.cpus,
        first_rank: 0,
        ranks: 8,
        t0: 0.0,
        t1: end,
        width: 1100.0,
        unit: TimeUnit::Ns,
        hosts: u32::MAX,
    };
    let tenth = Layout { t0: end * 0.45, t1: end * 0.55, ..whole };
    let draw = |l: &Layout| scene(l, &t.bars, &t.messages, &on_path, None, &Theme::LIGHT, "timeline").shapes.len();
    eprintln!("shapes: whole run {}, a tenth {}", draw(&whole), draw(&tenth));
    c.bench_function("timeline scene, 84 000 ops, whole run", |b| b.iter(|| black_box(draw(black_box(&whole)))));
    c.bench_function("timeline scene, 84 000 ops, a tenth", |b| b.iter(|| black_box(draw(black_box(&tenth)))));
}

criterion_group!(benches, heavy_timeline);
criterion_main!(benches);

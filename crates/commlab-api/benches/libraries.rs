//! Criterion benchmark of the Chooser's library picks and fit. The view's
//! budgets: the picks add ≤ 1 ms to a chart update (31 sizes, all three
//! libraries, computed on the page); a pasted file of 10⁴ lines is read and
//! fitted (in the worker) and charted in ≤ 100 ms.
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_api::fit::FitRequest;
use commlab_api::libraries::{picks, LibraryRequest};
use criterion::{criterion_group, criterion_main, Criterion};
use std::fmt::Write as _;
use std::hint::black_box;

fn libraries(c: &mut Criterion) {
    let sizes: Vec<u64> = (0..=30).map(|k| 1u64 << k).collect();
    let request = LibraryRequest {
        mpich: true,
        ompi: true,
        nccl: Some("version=current,nodes=128,gpus=8".into()),
        dtype_size: 4,
        settings: commlab_core::libraries::nccl_env::Settings::default(),
    };
    let mut group = c.benchmark_group("library picks");
    for collective in ["allreduce", "allgather", "all-to-all"] {
        group.bench_function(format!("{collective}, p = 1024, 31 sizes, three libraries"), |b| {
            b.iter(|| black_box(picks(collective, 1024, &sizes, &request).expect("valid")));
        });
    }
    group.finish();

    // 10⁴ lines of nccl-tests output: sizes 8 B… in steps, ring-like times.
    let mut text = String::from("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n");
    for k in 0..10_000u64 {
        let n = 8 + k * 4096;
        #[allow(clippy::cast_precision_loss, reason = "benchmark data")]
        let t = 14.0 * 0.4 + 1.75 * n as f64 * 3.5e-5 * (1.0 + 0.01 * ((k % 7) as f64 - 3.0));
        let _ = writeln!(text, "{n:>12} {:>13} float sum -1 {t:8.2} 0.00 0.00 0 {t:8.2} 0.00 0.00 0", n / 4);
    }
    let mut group = c.benchmark_group("fit");
    group.sample_size(10);
    for algorithm in [Some("ring"), None] {
        let request = FitRequest {
            text: text.clone(),
            format: None,
            collective: "allreduce".into(),
            p: 8,
            algorithm: algorithm.map(str::to_owned),
            in_place: false,
            gamma: 0.0,
            run: None,
            library: None,
            p_from: commlab_api::fit::PFrom::Flag,
        };
        let name = algorithm.unwrap_or("every algorithm");
        group.bench_function(format!("10^4 lines of nccl-tests, p = 8, {name}, profiles built"), |b| {
            b.iter(|| black_box(request.run().expect("fits")));
        });
        let mut cache = commlab_api::chooser::Cache::default();
        group.bench_function(format!("10^4 lines of nccl-tests, p = 8, {name}, profiles kept"), |b| {
            b.iter(|| black_box(request.run_cached(&mut cache).expect("fits")));
        });
    }
    group.finish();
}

criterion_group!(benches, libraries);
criterion_main!(benches);

//! Criterion benchmarks of the network budgets (BENCHMARKS.md): ring
//! allreduce on `torus:32x32` at 64 MiB (p = 1024, 2 095 104 flows) and
//! linear all-to-all on `fattree:16,16,4` (p = 256, 65 280 flows), from the
//! built schedule to finish times; and how the cost grows with flows.
#![allow(missing_docs, reason = "criterion_main! generates undocumented items")]

use commlab_core::choose::{goal, plan, Collective};
use commlab_core::net::{simulate, NetParams, Network, Placement, Shape};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn net(id: &str) -> Network {
    let shape: Shape = id.parse().unwrap();
    Network::new(shape, shape.default_classes()).unwrap()
}

fn run(c: &mut Criterion) {
    let mut group = c.benchmark_group("net");
    group.sample_size(10);
    let cases = [
        ("allreduce/ring torus:32x32 64 MiB", Collective::Allreduce, "ring", 1024, 64 << 20, "torus:32x32"),
        ("all-to-all/linear fattree:16,16,4 64 KiB", Collective::AllToAll, "linear", 256, 64 << 10, "fattree:16,16,4"),
        ("allreduce/ring torus:16x16 16 MiB", Collective::Allreduce, "ring", 256, 16 << 20, "torus:16x16"),
        ("all-to-all/linear fattree:8,8,4 64 KiB", Collective::AllToAll, "linear", 64, 64 << 10, "fattree:8,8,4"),
        (
            "allreduce/rabenseifner torus:32x32 64 MiB",
            Collective::Allreduce,
            "rabenseifner",
            1024,
            64 << 20,
            "torus:32x32",
        ),
    ];
    for (name, collective, id, p, n, topology) in cases {
        let schedule = goal(&plan(collective, id, p, 1).unwrap(), n);
        let network = net(topology);
        group.bench_function(name, |b| {
            b.iter(|| {
                simulate(black_box(&schedule), network.clone(), Placement::Identity, NetParams::default(), false)
                    .unwrap()
                    .max()
            });
        });
    }
    group.finish();
}

criterion_group!(benches, run);
criterion_main!(benches);

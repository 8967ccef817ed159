//! Generation + simulation rate of a generated collective (BENCHMARKS.md,
//! "GOAL and LogGOPS"): `cargo run --release -p commlab-core --example
//! goal_rate -- reduce 1048576`; run under `/usr/bin/time -v` for the peak memory.

use commlab_core::goal::generate::collective;
use commlab_core::goal::sim::{simulate, Order, Params};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let id = args.get(1).map_or("reduce", String::as_str);
    let p: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1 << 20);
    let bytes: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1024);
    let started = Instant::now();
    let s = collective(id, p, bytes, 4).expect("a collective commlab generates");
    let generated = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let out = simulate(&s, Params::default(), Order::Stable, false);
    let simulated = started.elapsed().as_secs_f64();
    println!(
        "{id} p={p}: {} ops, generation {generated:.3} s, simulation {simulated:.3} s ({} events, {:.2} M events/s), end to end {:.3} s, max {}",
        s.ops.len(),
        out.events,
        out.events as f64 / simulated / 1e6,
        generated + simulated,
        out.max().0
    );
}

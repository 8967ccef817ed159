//! Benchmark hooks for `tests/e2e/bench.mjs`: the same core work as the native
//! criterion benchmarks, timed inside the browser, so BENCHMARKS.md can state
//! the wasm-to-native ratio. Exported to JavaScript; the app never calls them.

use commlab_core::reduce::timing::{time, Costs};
use commlab_core::reduce::values::{random_inputs, ValueTrace};
use commlab_core::reduce::{Collective, CollectiveConfig, Operator, Schedule};
use commlab_web::browser::now_ms;
use wasm_bindgen::prelude::*;

fn mean_ms(repeats: u32, mut work: impl FnMut() -> f64) -> f64 {
    let repeats = repeats.max(1);
    let start = now_ms();
    let mut sink = 0.0;
    for _ in 0..repeats {
        sink += work();
    }
    // `sink` keeps the work from being optimised away.
    (now_ms() - start) / f64::from(repeats) + sink * 0.0
}

/// Mean milliseconds of schedule + seeded inputs + value replay of a binomial
/// reduce on `units` units of one element (criterion's "p = 65536, m = 1").
#[wasm_bindgen]
pub fn commlab_bench_reduce_values(units: u32, repeats: u32) -> f64 {
    mean_ms(repeats, || {
        let Ok(config) = CollectiveConfig::new(Collective::Reduce, u64::from(units), false) else { return f64::NAN };
        let schedule = Schedule::collective(&config);
        let Ok(inputs) = random_inputs(1, u64::from(units), 1, Operator::Sum) else { return f64::NAN };
        let trace = ValueTrace::new(&schedule, Operator::Sum, 1, &inputs);
        trace.after(trace.round_count()).defined.len() as f64
    })
}

/// Mean milliseconds of schedule + event timing of a binomial reduce on `units` units.
#[wasm_bindgen]
pub fn commlab_bench_reduce_timing(units: u32, repeats: u32) -> f64 {
    mean_ms(repeats, || {
        let (Ok(config), Ok(costs)) =
            (CollectiveConfig::new(Collective::Reduce, u64::from(units), false), Costs::new(1 << 20, 10.0, 0.001))
        else {
            return f64::NAN;
        };
        time(&Schedule::collective(&config), &costs).finish
    })
}

/// Mean milliseconds of a swizzle schedule of `125 × 8 × 1000 = 10^6` loop
/// indices on 5 × 4 cores (criterion's "schedule, 10^6 loop indices").
#[wasm_bindgen]
pub fn commlab_bench_swizzle(repeats: u32) -> f64 {
    use commlab_core::swizzle::{CoreSplit, GridShape, Schedule, SwizzleConfig};
    mean_ms(repeats, || {
        let grid = GridShape { row: 125, column: 8, rank: 1000 };
        let Ok(config) = SwizzleConfig::new(grid, CoreSplit { row: 5, column: 4 }, 0, false, true) else {
            return f64::NAN;
        };
        Schedule::new(&config).total_collisions() as f64
    })
}

//! The runtime model against its definition (`docs/reduce-model.md`).

use commlab_core::model::{ModelConfig, Optimum};
use proptest::prelude::*;

/// Relative closeness for times that went through different float paths.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn check(n: u64, p: u64, t_start: f64, t_byte: f64, max_pieces: u64, expect_best: u64, expect_time: f64) {
    let model = ModelConfig::new(n, p, t_start, t_byte, max_pieces).unwrap();
    let summary = model.summary();
    assert_eq!(summary.best_pieces, expect_best, "best m for n={n} p={p} ts={t_start} tb={t_byte}");
    assert!(close(summary.time_at_best, expect_time), "T(best) = {} ≠ {expect_time}", summary.time_at_best);
}

#[test]
fn hand_computed_optima() {
    // m* = sqrt(1000·8·0.01/5) = 4 exactly: T(4) = (5 + 2.5)·12 = 90.
    check(1000, 10, 5.0, 0.01, 64, 4, 90.0);
    // The playground's defaults: n = 1 MiB, p = 64, T_start = 10, T_byte = 0.001.
    // m* = sqrt(1048576·62·0.001/10) = 80.63; T(80) = 3281.9, T(81) = 3281.84 → 81.
    check(1 << 20, 64, 10.0, 0.001, 1024, 81, (10.0 + 1_048_576.0 / 81.0 * 0.001) * 143.0);
    // max_pieces bounds the chart only: the best m is still 81, and the
    // chart's best is the range's end.
    check(1 << 20, 64, 10.0, 0.001, 50, 81, (10.0 + 1_048_576.0 / 81.0 * 0.001) * 143.0);
    assert_eq!(ModelConfig::new(1 << 20, 64, 10.0, 0.001, 50).unwrap().best_pieces_up_to(50), 50);
    // p = 2: one piece, T = T_start + n·T_byte.
    check(100, 2, 1.0, 1.0, 100, 1, 101.0);
    // p = 1: nothing to send.
    check(100, 1, 1.0, 1.0, 100, 1, 0.0);
}

#[test]
fn brute_force_agrees_on_a_grid() {
    for p in [1, 2, 3, 4, 7, 16, 100, 1000] {
        for n in [1, 7, 64, 1000, 1 << 16] {
            for (t_start, t_byte) in [(1.0, 1.0), (10.0, 0.001), (0.5, 3.0), (100.0, 1e-6), (0.0, 1.0), (1.0, 0.0)] {
                let model = ModelConfig::new(n, p, t_start, t_byte, 300).unwrap();
                let limit = model.piece_limit();
                let brute = (1..=n).map(|m| model.time_at(m)).fold(f64::INFINITY, f64::min);
                let best = model.best_pieces();
                assert!(close(model.time_at(best), brute), "n={n} p={p} ts={t_start} tb={t_byte}: best {best}");
                let in_range = (1..=limit).map(|m| model.time_at(m)).fold(f64::INFINITY, f64::min);
                let best_in_range = model.best_pieces_up_to(limit);
                assert!(best_in_range <= limit && close(model.time_at(best_in_range), in_range), "n={n} p={p}");
            }
        }
    }
}

proptest! {
    #[test]
    fn m_star_minimises_t_over_the_reals(
        n in 1u64..=(1 << 30),
        p in 3u64..=(1 << 20),
        t_start in 1e-3f64..1e4,
        t_byte in 1e-6f64..10.0,
    ) {
        let model = ModelConfig::new(n, p, t_start, t_byte, 1 << 20).unwrap();
        let Optimum::Interior(m_star) = model.optimum() else { panic!("interior expected") };
        let at = model.time(m_star);
        for factor in [0.5, 0.9, 0.99, 1.01, 1.1, 2.0] {
            prop_assert!(model.time(m_star * factor) >= at * (1.0 - 1e-12), "factor {factor}");
        }
    }

    #[test]
    fn integer_optimum_is_floor_or_ceil_of_m_star(
        n in 1u64..=(1 << 24),
        p in 1u64..=4096,
        t_start in 0.0f64..1e3,
        t_byte in 0.0f64..10.0,
        max_pieces in 1u64..=4096,
    ) {
        let model = ModelConfig::new(n, p, t_start, t_byte, max_pieces).unwrap();
        // The best m is sought in 1..=n; max_pieces only bounds the chart.
        let limit = n;
        let best = model.best_pieces();
        let chart = model.piece_limit();
        // T is convex in m: below the best it falls, so the chart's best is
        // the best itself or the chart's last m.
        prop_assert_eq!(model.best_pieces_up_to(chart), best.min(chart));
        prop_assert!((1..=limit).contains(&best));
        let summary = model.summary();
        prop_assert!(summary.time_at_best.is_finite() && summary.time_at_optimum.is_finite());
        match model.optimum() {
            Optimum::Interior(m) => {
                let candidates = [(m.floor() as u64).clamp(1, limit), (m.ceil() as u64).clamp(1, limit)];
                prop_assert!(candidates.contains(&best), "m* = {m}, best = {best}, limit = {limit}");
                // The real optimum is never worse than the integer one.
                prop_assert!(summary.time_at_optimum <= summary.time_at_best * (1.0 + 1e-12));
            }
            Optimum::Unbounded => prop_assert_eq!(best, limit),
            Optimum::OnePiece | Optimum::Zero | Optimum::Flat => prop_assert_eq!(best, 1),
        }
    }
}

//! The BSP runtime model of the pipelined reduction (`docs/reduce-model.md`).
//!
//! `T(n, p, m) = (T_start + n/m · T_byte) · (p + m − 2)` for a vector of `n`
//! bytes cut into `m` pieces travelling down a chain of `p` units, against the
//! binomial tree's `T_binomial = ceil(log2 p) · (T_start + n · T_byte)`.
//!
//! Expanded, `T(m) = T_start·(p − 2) + n·T_byte + T_start·m + n·T_byte·(p − 2)/m`:
//! a constant plus `a·m + b/m` with `a = T_start ≥ 0`, `b = n·T_byte·(p − 2)`.
//! For `a, b > 0` it is strictly convex on `m > 0` with its minimum at
//! `m* = sqrt(b / a)`, so the best integer is `floor(m*)` or `ceil(m*)`; the
//! degenerate signs (`p ≤ 2`, `T_start = 0`, `T_byte = 0`) are named cases of
//! [`Optimum`] instead of NaN or infinity.

use crate::limits::{ConfigError, BYTES, MAX_PIECES, T_BYTE, T_START, UNITS};

/// Validated inputs of the runtime model. Once built, every query succeeds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelConfig {
    bytes: u64,
    units: u64,
    t_start: f64,
    t_byte: f64,
    max_pieces: u64,
}

/// Where `T(m)` reaches its minimum over the reals `m > 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Optimum {
    /// `p ≤ 2`: `p − 2 ≤ 0`, so `T` does not fall as `m` grows; one piece is best and `m* = 1`.
    OnePiece,
    /// The interior minimum `m* = sqrt(n·(p−2)·T_byte / T_start)`.
    Interior(f64),
    /// `T_start = 0` with `p > 2` and `T_byte > 0`: more pieces are always
    /// faster; `T` approaches `n·T_byte` but never reaches it (`m* = ∞`).
    Unbounded,
    /// `T_byte = 0` with `p > 2` and `T_start > 0`: only start-ups cost, so
    /// fewer pieces are always faster (`m* = 0`, clipped to one piece).
    Zero,
    /// `T_start = T_byte = 0`: every piece count costs nothing.
    Flat,
}

impl Optimum {
    /// The real-valued `m*` where it is a number (`None` for `∞` and for a flat curve).
    pub fn pieces(self) -> Option<f64> {
        match self {
            Self::OnePiece => Some(1.0),
            Self::Interior(m) => Some(m),
            Self::Zero => Some(0.0),
            Self::Unbounded | Self::Flat => None,
        }
    }

    /// A one-sentence explanation for the degenerate cases, `None` for an interior optimum.
    pub fn note(self) -> Option<&'static str> {
        match self {
            Self::Interior(_) => None,
            Self::OnePiece => Some("p ≤ 2: pipelining cannot help, so m* = 1 (one piece is best)"),
            Self::Unbounded => {
                Some("T_start = 0: every extra piece is free, so there is no optimum m* (m* = ∞): more pieces are always faster, and the largest allowed m is best")
            }
            Self::Zero => Some("T_byte = 0: only start-ups cost, so there is no optimum m*: fewer pieces are always faster, and one piece is best"),
            Self::Flat => Some("T_start = T_byte = 0: every m costs nothing"),
        }
    }
}

/// The headline numbers of one model configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Where the real-valued minimum lies.
    pub optimum: Optimum,
    /// `T` at the real `m*` (its infimum for [`Optimum::Unbounded`] / [`Optimum::Zero`]).
    pub time_at_optimum: f64,
    /// The best integer piece count in `1..=n` (it may lie beyond the chart's
    /// `piece_limit`).
    pub best_pieces: u64,
    /// `T` at [`Summary::best_pieces`].
    pub time_at_best: f64,
    /// Parallel steps of the pipeline at [`Summary::best_pieces`]: `p + m − 2`.
    pub steps_at_best: u64,
    /// `ceil(log2 p) · (T_start + n·T_byte)`.
    pub binomial_time: f64,
    /// Rounds of the binomial tree: `ceil(log2 p)`.
    pub binomial_rounds: u32,
}

impl Summary {
    /// How many times faster the pipeline at the best `m` is than the
    /// binomial tree (`None` when the pipeline costs nothing).
    pub fn speedup(&self) -> Option<f64> {
        (self.time_at_best > 0.0).then(|| self.binomial_time / self.time_at_best)
    }
}

/// One sample of the `T(p)` comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnitsPoint {
    /// Number of units.
    pub units: u64,
    /// Pipeline time at the chosen piece count.
    pub time_chosen: f64,
    /// Best integer piece count for this `p`.
    pub best_pieces: u64,
    /// Pipeline time at that best piece count.
    pub time_best: f64,
    /// Binomial-tree time.
    pub binomial_time: f64,
}

/// Parallel steps of the chain pipeline: `p + m − 2`, and 0 for a single unit,
/// which already holds the result (the formula assumes `p ≥ 2`).
///
/// # Panics
/// When `p` or `m` is 0 (validated configurations never pass 0).
pub fn pipeline_steps(units: u64, pieces: u64) -> u64 {
    assert!(units >= 1 && pieces >= 1, "pipeline_steps needs p, m ≥ 1");
    if units == 1 {
        0
    } else {
        units + pieces - 2
    }
}

/// Rounds of the binomial tree on `p` units: `ceil(log2 p)`, 0 for one unit.
///
/// # Panics
/// When `p` is 0.
pub fn binomial_rounds(units: u64) -> u32 {
    assert!(units >= 1, "binomial_rounds needs p ≥ 1");
    units.next_power_of_two().trailing_zeros()
}

impl ModelConfig {
    /// Validates every input against [`crate::limits`].
    ///
    /// # Errors
    /// The first parameter outside its range, with the accepted range.
    pub fn new(bytes: u64, units: u64, t_start: f64, t_byte: f64, max_pieces: u64) -> Result<Self, ConfigError> {
        for (range, value) in [(BYTES, bytes), (UNITS, units), (MAX_PIECES, max_pieces)] {
            if !range.contains(value) {
                return Err(ConfigError::int(range, value));
            }
        }
        for (range, value) in [(T_START, t_start), (T_BYTE, t_byte)] {
            if !range.contains(value) {
                return Err(ConfigError::real(range, value));
            }
        }
        Ok(Self { bytes, units, t_start, t_byte, max_pieces })
    }

    /// Vector size `n` in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Number of units `p`.
    pub fn units(&self) -> u64 {
        self.units
    }

    /// `T_start`.
    pub fn t_start(&self) -> f64 {
        self.t_start
    }

    /// `T_byte`.
    pub fn t_byte(&self) -> f64 {
        self.t_byte
    }

    /// The largest piece count asked for (see [`ModelConfig::piece_limit`]).
    pub fn max_pieces(&self) -> u64 {
        self.max_pieces
    }

    /// The same configuration with another unit count (inside [`UNITS`]).
    ///
    /// # Errors
    /// When `units` is outside [`UNITS`].
    pub fn with_units(&self, units: u64) -> Result<Self, ConfigError> {
        Self::new(self.bytes, units, self.t_start, self.t_byte, self.max_pieces)
    }

    /// The largest piece count considered: `min(max_pieces, n)`, since a piece
    /// holds at least one byte.
    pub fn piece_limit(&self) -> u64 {
        self.max_pieces.min(self.bytes)
    }

    /// `T(n, p, m)` for a real piece count `m > 0`; 0 for `p = 1` (nothing to send).
    ///
    /// # Panics
    /// When `m ≤ 0`, where the model is undefined.
    pub fn time(&self, pieces: f64) -> f64 {
        assert!(pieces > 0.0, "T(m) is defined for m > 0");
        if self.units == 1 {
            return 0.0;
        }
        let p = self.units as f64;
        let n = self.bytes as f64;
        (self.t_start + n / pieces * self.t_byte) * (p + pieces - 2.0)
    }

    /// `T(n, p, m)` for an integer piece count.
    pub fn time_at(&self, pieces: u64) -> f64 {
        self.time(pieces as f64)
    }

    /// `T_binomial(n, p) = ceil(log2 p) · (T_start + n · T_byte)`.
    pub fn binomial_time(&self) -> f64 {
        f64::from(binomial_rounds(self.units)) * (self.t_start + self.bytes as f64 * self.t_byte)
    }

    /// Where `T` is minimal over the reals.
    pub fn optimum(&self) -> Optimum {
        if self.units <= 2 {
            return Optimum::OnePiece;
        }
        match (self.t_start > 0.0, self.t_byte > 0.0) {
            (true, true) => {
                let b = self.bytes as f64 * (self.units - 2) as f64 * self.t_byte;
                Optimum::Interior((b / self.t_start).sqrt())
            }
            (false, true) => Optimum::Unbounded,
            (true, false) => Optimum::Zero,
            (false, false) => Optimum::Flat,
        }
    }

    /// `T` at the real optimum; for an optimum at `0` or `∞` the infimum that
    /// `T` approaches there.
    fn time_at_optimum(&self, optimum: Optimum) -> f64 {
        let p_minus_2 = self.units as f64 - 2.0;
        match optimum {
            Optimum::OnePiece => self.time(1.0),
            Optimum::Interior(m) => self.time(m),
            Optimum::Unbounded => self.bytes as f64 * self.t_byte,
            Optimum::Zero => self.t_start * p_minus_2,
            Optimum::Flat => 0.0,
        }
    }

    /// The best integer piece count in `1..=n` (a piece holds at least one
    /// byte; `max_pieces` bounds only the chart); ties go to fewer pieces.
    pub fn best_pieces(&self) -> u64 {
        self.best_pieces_up_to(self.bytes)
    }

    /// The best integer piece count in `1..=limit` (`T` is convex in `m`, so
    /// it is the true best clipped to the range, or its neighbour).
    pub fn best_pieces_up_to(&self, limit: u64) -> u64 {
        let limit = limit.clamp(1, self.bytes);
        match self.optimum() {
            Optimum::OnePiece | Optimum::Zero | Optimum::Flat => 1,
            Optimum::Unbounded => limit,
            Optimum::Interior(m) => {
                // m ≤ sqrt(2^40 · 2^20 · 1e6 / tiny) may exceed u64 range only when T_start is
                // subnormal; the float-to-int cast saturates, and the clamp brings it back.
                let low = (m.floor() as u64).clamp(1, limit);
                let high = (m.ceil() as u64).clamp(1, limit);
                if self.time_at(high) < self.time_at(low) {
                    high
                } else {
                    low
                }
            }
        }
    }

    /// The headline numbers.
    pub fn summary(&self) -> Summary {
        let optimum = self.optimum();
        let best_pieces = self.best_pieces();
        Summary {
            optimum,
            time_at_optimum: self.time_at_optimum(optimum),
            best_pieces,
            time_at_best: self.time_at(best_pieces),
            steps_at_best: pipeline_steps(self.units, best_pieces),
            binomial_time: self.binomial_time(),
            binomial_rounds: binomial_rounds(self.units),
        }
    }

    /// `(m, T(m))` for integer `m` in `1..=piece_limit`: every `m` when there
    /// are at most `max_points`, otherwise log-spaced samples that always
    /// include `1`, the limit and the best integer `m` in that range.
    pub fn pieces_curve(&self, max_points: usize) -> Vec<(u64, f64)> {
        let mut ms = log_samples(1, self.piece_limit(), max_points);
        let best = self.best_pieces_up_to(self.piece_limit());
        if let Err(at) = ms.binary_search(&best) {
            ms.insert(at, best);
        }
        ms.into_iter().map(|m| (m, self.time_at(m))).collect()
    }

    /// The `T(p)` comparison for `p` in `2..=max_units` (log-spaced samples),
    /// pipelining with `chosen_pieces` (clipped to the piece limit) and with
    /// each `p`'s best integer piece count, against the binomial tree.
    pub fn units_curve(&self, chosen_pieces: u64, max_units: u64, max_points: usize) -> Vec<UnitsPoint> {
        let max_units = max_units.clamp(2, UNITS.max);
        let chosen = chosen_pieces.clamp(1, self.piece_limit());
        log_samples(2, max_units, max_points)
            .into_iter()
            .map(|units| {
                let at = Self { units, ..*self };
                let best_pieces = at.best_pieces();
                UnitsPoint {
                    units,
                    time_chosen: at.time_at(chosen),
                    best_pieces,
                    time_best: at.time_at(best_pieces),
                    binomial_time: at.binomial_time(),
                }
            })
            .collect()
    }
}

/// Sorted distinct integers in `low..=high`: all of them when there are at
/// most `max_points` (≥ 2), otherwise about `max_points` log-spaced ones
/// including both ends.
///
/// # Panics
/// Unless `1 ≤ low ≤ high`.
pub fn log_samples(low: u64, high: u64, max_points: usize) -> Vec<u64> {
    assert!(1 <= low && low <= high, "log_samples needs 1 ≤ low ≤ high");
    let max_points = max_points.max(2);
    if high - low < max_points as u64 {
        return (low..=high).collect();
    }
    let (log_low, log_high) = ((low as f64).ln(), (high as f64).ln());
    let last = (max_points - 1) as f64;
    let mut out: Vec<u64> = (0..max_points)
        .map(|i| (log_low + (log_high - log_low) * i as f64 / last).exp().round() as u64)
        .map(|v| v.clamp(low, high))
        .collect();
    out.dedup();
    if out.last() != Some(&high) {
        out.push(high);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(n: u64, p: u64, ts: f64, tb: f64, max: u64) -> ModelConfig {
        ModelConfig::new(n, p, ts, tb, max).unwrap()
    }

    /// The model view's speedup, from the spec's formulas by hand: 1 MiB on
    /// 64 units, `T_start` = 10, `T_byte` = 0.001. Binomial: 6 · (10 + 1048.576)
    /// = 6351.456. m* = sqrt(1048576 · 62 · 0.001 / 10) = 80.63, and the best
    /// integer m is 81: (10 + 1048.576 / 81) · 143 = 3281.196…
    #[test]
    fn speedup_of_the_default_view() {
        let s = cfg(1 << 20, 64, 10.0, 0.001, 1024).summary();
        assert_eq!(s.best_pieces, 81);
        let best = (10.0 + 1048.576 / 81.0) * 143.0;
        assert!((s.speedup().unwrap() - 6351.456 / best).abs() < 1e-9);
        assert!((6351.456 / best - 1.9357).abs() < 1e-4);
        assert_eq!(cfg(1 << 20, 64, 0.0, 0.0, 1024).summary().speedup(), None, "a pipeline that costs nothing");
    }

    #[test]
    fn formula_matches_hand_computed_values() {
        // n = 1000, p = 10, T_start = 5, T_byte = 0.01, m = 4:
        // (5 + 250·0.01)·(10 + 4 − 2) = 7.5 · 12 = 90.
        assert!((cfg(1000, 10, 5.0, 0.01, 64).time_at(4) - 90.0).abs() < 1e-12);
        // m* = sqrt(1000 · 8 · 0.01 / 5) = sqrt(16) = 4.
        assert_eq!(cfg(1000, 10, 5.0, 0.01, 64).optimum(), Optimum::Interior(4.0));
        // Binomial: ceil(log2 10) = 4 rounds of (5 + 10) = 60.
        assert!((cfg(1000, 10, 5.0, 0.01, 64).binomial_time() - 60.0).abs() < 1e-12);
    }

    #[test]
    fn small_unit_counts_prefer_one_piece() {
        for p in [1, 2] {
            let c = cfg(4096, p, 3.0, 0.5, 256);
            assert_eq!(c.optimum(), Optimum::OnePiece);
            assert_eq!(c.best_pieces(), 1);
            let s = c.summary();
            assert!(s.time_at_optimum.is_finite() && s.time_at_best.is_finite());
        }
        assert_eq!(cfg(4096, 1, 3.0, 0.5, 256).time_at(1), 0.0);
        assert_eq!(cfg(4096, 1, 3.0, 0.5, 256).binomial_time(), 0.0);
    }

    #[test]
    fn degenerate_costs_are_named_not_nan() {
        let unbounded = cfg(1 << 20, 64, 0.0, 1.0, 1000);
        assert_eq!(unbounded.optimum(), Optimum::Unbounded);
        assert_eq!(unbounded.best_pieces(), 1 << 20, "one byte per piece");
        assert_eq!(unbounded.best_pieces_up_to(1000), 1000);
        assert_eq!(cfg(1 << 20, 64, 1.0, 0.0, 1000).best_pieces(), 1);
        assert_eq!(cfg(1 << 20, 64, 0.0, 0.0, 1000).optimum(), Optimum::Flat);
        for c in [unbounded, cfg(1 << 20, 64, 1.0, 0.0, 1000), cfg(1 << 20, 64, 0.0, 0.0, 1000)] {
            let s = c.summary();
            assert!(s.time_at_optimum.is_finite() && s.time_at_best.is_finite(), "{s:?}");
        }
    }

    /// `max_pieces` bounds the chart, not the answer: n = 1 MiB, p = 1481,
    /// `T_start` = 1, `T_byte` = 0.05 has m* ≈ 8806 although the chart stops at
    /// 1024. Checked against a brute force over every m in 1..=n.
    #[test]
    fn best_pieces_is_the_true_integer_optimum_beyond_the_chart() {
        let c = cfg(1 << 20, 1481, 1.0, 0.05, 1024);
        let brute = (1..=1u64 << 20).min_by(|&a, &b| c.time_at(a).total_cmp(&c.time_at(b))).unwrap();
        assert_eq!(c.best_pieces(), brute);
        assert!((8805..=8807).contains(&brute), "{brute}");
        assert_eq!(c.best_pieces_up_to(c.piece_limit()), 1024);
        assert_eq!(c.summary().best_pieces, brute);
        assert!(c.pieces_curve(400).iter().all(|&(m, _)| m <= 1024));
    }

    #[test]
    fn piece_limit_never_exceeds_the_bytes() {
        let c = cfg(3, 1000, 1e-6, 1e3, 1 << 20);
        assert_eq!(c.piece_limit(), 3);
        assert_eq!(c.best_pieces(), 3);
    }

    #[test]
    fn rounds_and_steps() {
        let rounds: Vec<u32> = (1..=9).map(binomial_rounds).collect();
        assert_eq!(rounds, [0, 1, 2, 2, 3, 3, 3, 3, 4]);
        assert_eq!(pipeline_steps(8, 1), 7);
        assert_eq!(pipeline_steps(1, 1), 0);
        assert_eq!(pipeline_steps(1, 5), 0);
        assert_eq!(pipeline_steps(5, 10), 13);
    }

    #[test]
    fn rejects_out_of_range_inputs_by_name() {
        let err = ModelConfig::new(10, 0, 1.0, 1.0, 8).unwrap_err();
        assert_eq!(err.name, "p");
        assert_eq!(ModelConfig::new(0, 4, 1.0, 1.0, 8).unwrap_err().name, "n");
        assert_eq!(ModelConfig::new(10, 4, f64::NAN, 1.0, 8).unwrap_err().name, "t_start");
        assert_eq!(ModelConfig::new(10, 4, 1.0, -1.0, 8).unwrap_err().name, "t_byte");
        assert_eq!(ModelConfig::new(10, 4, 1.0, 1.0, 0).unwrap_err().name, "max_pieces");
        assert!(err.to_string().contains("1 to 1 048 576"), "{err}");
    }

    #[test]
    fn log_samples_cover_both_ends() {
        assert_eq!(log_samples(1, 5, 10), [1, 2, 3, 4, 5]);
        let s = log_samples(1, 1 << 20, 50);
        assert_eq!((s[0], *s.last().unwrap()), (1, 1 << 20));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
        assert!(s.len() <= 51);
    }

    #[test]
    fn curves_include_the_best_piece_count() {
        let c = cfg(1 << 20, 64, 10.0, 0.001, 1 << 16);
        let curve = c.pieces_curve(100);
        assert!(curve.iter().any(|&(m, _)| m == c.best_pieces()));
        let units = c.units_curve(16, 256, 40);
        assert_eq!(units.first().unwrap().units, 2);
        assert_eq!(units.last().unwrap().units, 256);
        assert!(units.iter().all(|u| u.time_best <= u.time_chosen + 1e-9));
    }
}

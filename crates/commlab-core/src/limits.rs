//! Accepted ranges of user-facing parameters.
//!
//! One table, used by the core's validating constructors, the CLI's error
//! messages and the web URL codec's notices, so a range is never stated twice.

use std::fmt;

/// The closed range of an integer parameter, with the parameter's public name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntRange {
    /// Name as used in URLs and messages (`p`, `n`, ...).
    pub name: &'static str,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
}

impl IntRange {
    /// Whether `value` lies inside the range.
    pub fn contains(&self, value: u64) -> bool {
        (self.min..=self.max).contains(&value)
    }
}

impl fmt::Display for IntRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an integer in {}..={}", self.min, self.max)
    }
}

/// The closed range of a real parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RealRange {
    /// Name as used in URLs and messages.
    pub name: &'static str,
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
}

impl RealRange {
    /// Whether `value` is finite and inside the range.
    pub fn contains(&self, value: f64) -> bool {
        value.is_finite() && (self.min..=self.max).contains(&value)
    }
}

impl fmt::Display for RealRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a number in {}..={}", self.min, self.max)
    }
}

/// Number of processing units `p` (2^20: the largest the engines promise to
/// schedule in well under a second).
pub const UNITS: IntRange = IntRange { name: "p", min: 1, max: 1 << 20 };

/// Message size `n` in bytes (1 TiB: far past any collective, still exact in f64).
pub const BYTES: IntRange = IntRange { name: "n", min: 1, max: 1 << 40 };

/// Upper bound of the piece counts considered (`max_pieces`).
pub const MAX_PIECES: IntRange = IntRange { name: "max_pieces", min: 1, max: 1 << 20 };

/// A chosen piece count `m`.
pub const PIECES: IntRange = IntRange { name: "m", min: 1, max: 1 << 20 };

/// Start-up cost of one message, `T_start`, in time units (µs in the UI).
pub const T_START: RealRange = RealRange { name: "t_start", min: 0.0, max: 1e9 };

/// Cost per byte, `T_byte`, in time units per byte.
pub const T_BYTE: RealRange = RealRange { name: "t_byte", min: 0.0, max: 1e6 };

/// Elements per input vector of the reduction views.
pub const ELEMENTS: IntRange = IntRange { name: "elements", min: 1, max: 1024 };

/// Upper bound of `p × elements` for value simulations (what the browser can
/// replay and draw summaries of in well under 100 ms).
pub const VALUE_CELLS: u64 = 1 << 22;

/// Seeds of the random inputs (any 64-bit value).
pub const SEED: IntRange = IntRange { name: "seed", min: 0, max: u64::MAX };

/// One extent of the swizzle grid (`row`, `column` of data tiles per rank).
pub const GRID_EXTENT: IntRange = IntRange { name: "grid", min: 1, max: 1 << 20 };

/// Remote ranks of the swizzle grid.
pub const RANKS: IntRange = IntRange { name: "rank", min: 1, max: 4096 };

/// Loop indices of one swizzle schedule (`row × column × rank`, rounded up in
/// deterministic mode): 2^20 ≥ 10^6, the interactive promise.
pub const LOOPS: IntRange = IntRange { name: "loops", min: 1, max: 1 << 20 };

/// One extent of the core split.
pub const CORE_EXTENT: IntRange = IntRange { name: "cores", min: 1, max: 1024 };

/// Cores in all (`coreSplit.row × coreSplit.column`).
pub const CORES: IntRange = IntRange { name: "cores", min: 1, max: 4096 };

/// Finds the member of a closed id set (`Algorithm::ALL`, `Operator::ALL`, …)
/// whose stable id is `text`, or says which ids exist. Shared by the `FromStr`
/// impls so every parse error reads the same.
///
/// # Errors
/// `unknown {what} "text"; expected one of: …`.
pub fn parse_id<T: Copy>(all: &[T], id: fn(T) -> &'static str, what: &str, text: &str) -> Result<T, String> {
    all.iter().copied().find(|&x| id(x) == text).ok_or_else(|| {
        let ids: Vec<&str> = all.iter().map(|&x| id(x)).collect();
        format!("unknown {what} {text:?}; expected one of: {}", ids.join(", "))
    })
}

//! Accepted ranges of user-facing parameters.
//!
//! One table, used by the core's validating constructors, the CLI's error
//! messages and the web URL codec's notices, so a range is never stated twice.

use std::fmt;

/// A rejected input: which parameter, what was given, what is accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The parameter's public name (`p`, `n`, `t_start`, ...).
    pub name: &'static str,
    /// The rejected value, as text.
    pub value: String,
    /// The accepted range in words.
    pub expected: String,
}

impl ConfigError {
    pub(crate) fn int(range: IntRange, value: u64) -> Self {
        Self { name: range.name, value: value.to_string(), expected: range.to_string() }
    }

    pub(crate) fn real(range: RealRange, value: f64) -> Self {
        Self { name: range.name, value: value.to_string(), expected: range.to_string() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {} is out of range: expected {}", self.name, self.value, self.expected)
    }
}

impl std::error::Error for ConfigError {}

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

    /// `value`, or the error naming this range.
    ///
    /// # Errors
    /// When `value` lies outside.
    pub fn check(&self, value: u64) -> Result<u64, ConfigError> {
        if self.contains(value) {
            Ok(value)
        } else {
            Err(ConfigError { name: self.name, value: value.to_string(), expected: self.to_string() })
        }
    }
}

impl fmt::Display for IntRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an integer from {} to {}", group(&self.min.to_string()), group(&self.max.to_string()))
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

    /// `value`, or the error naming this range.
    ///
    /// # Errors
    /// When `value` is not finite or lies outside.
    pub fn check(&self, value: f64) -> Result<f64, ConfigError> {
        if self.contains(value) {
            Ok(value)
        } else {
            Err(ConfigError { name: self.name, value: value.to_string(), expected: self.to_string() })
        }
    }
}

impl fmt::Display for RealRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a number from {} to {}", group(&self.min.to_string()), group(&self.max.to_string()))
    }
}

/// A number as people write it: digits in groups of three when there are
/// more than four (`1048576` → `1 048 576`, `1024` stays), the fraction kept.
pub fn group(number: &str) -> String {
    group_with(number, ' ')
}

/// [`group`] with `separator` between the groups (the charts use a thin space).
pub fn group_with(number: &str, separator: char) -> String {
    let (sign, rest) = number.strip_prefix('-').map_or(("", number), |r| ("-", r));
    let (int, frac) = rest.split_once('.').map_or((rest, None), |(i, f)| (i, Some(f)));
    if int.len() <= 4 || !int.bytes().all(|b| b.is_ascii_digit()) {
        return number.to_owned();
    }
    let mut out = String::from(sign);
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(separator);
        }
        out.push(ch);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// `min to max` of an integer range, grouped ([`group`]).
pub fn span(min: u64, max: u64) -> String {
    format!("{} to {}", group(&min.to_string()), group(&max.to_string()))
}

/// Bytes of text read from one file or paste (a GOAL schedule, after
/// unpacking a gzip file): 1 GiB. Beyond, nothing we simulate would finish
/// in reasonable time anyway, and reading on would only fill the memory.
pub const INPUT_BYTES: u64 = 1 << 30;

/// Bytes of a benchmark output the fit reads (16 MiB: far more than the
/// 100 000 points it takes).
pub const FIT_TEXT_BYTES: u64 = 16 << 20;

/// Number of processing units `p` (2^20: the largest the engines promise to
/// schedule in well under a second).
pub const UNITS: IntRange = IntRange { name: "p", min: 1, max: 1 << 20 };

/// `p` of the command line's collectives: natively there is no page to keep
/// responsive, only memory, which stays O(p · elements).
pub const NATIVE_UNITS: IntRange = IntRange { name: "p", min: 1, max: 1 << 24 };

/// Upper bound of `p × elements` natively (2^24 cells: ~1 GB peak for the
/// streamed report of `commlab reduce`).
pub const NATIVE_VALUE_CELLS: u64 = 1 << 24;

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

/// The ends of the views' log sliders where a range cannot be one (it
/// starts at 0) or is wider than the useful part; typed values may go to the
/// range's ends.
pub const BYTES_SLIDER: (f64, f64) = (1.0, 1_073_741_824.0);
/// `T_start`'s slider (µs).
pub const T_START_SLIDER: (f64, f64) = (0.01, 100_000.0);
/// `T_byte`'s slider (µs per byte).
pub const T_BYTE_SLIDER: (f64, f64) = (1e-7, 10.0);
/// The tree view's `p` slider (drawn trees stop at 32 units long before).
pub const UNITS_SLIDER: (f64, f64) = (1.0, 65_536.0);
/// The pipeline view's `p` slider (its diagram stops at 48 units).
pub const PIPELINE_UNITS_SLIDER: (f64, f64) = (2.0, 1024.0);
/// The pipeline view's `m` slider.
pub const PIECES_SLIDER: (f64, f64) = (1.0, 1024.0);
/// Seeds' sliders: typed values go to the range's end.
pub const SEED_SLIDER: (f64, f64) = (1.0, 1_000_000.0);
/// Seeds a number box takes exactly (a JavaScript number's exact integers).
pub const EXACT_SEED: IntRange = IntRange { name: "seed", min: 0, max: (1 << 53) - 1 };

/// Elements per input vector of the reduction views.
pub const ELEMENTS: IntRange = IntRange { name: "elements", min: 1, max: 1024 };

/// Upper bound of `p × elements` for value simulations (what the browser can
/// replay and draw summaries of in well under 100 ms).
pub const VALUE_CELLS: u64 = 1 << 22;

/// Seeds of the random inputs (any 64-bit value).
pub const SEED: IntRange = IntRange { name: "seed", min: 0, max: u64::MAX };

/// The swizzle view's data-extent sliders.
pub const GRID_SLIDER: (f64, f64) = (1.0, 1024.0);

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

/// Ranges of the swizzle view's cost model (the grid's are above).
pub mod swizzle_view {
    use super::{IntRange, RealRange};

    /// `SWIZZLE_DIRECTION`.
    pub const DIRECTION: IntRange = IntRange { name: "direction", min: 0, max: 1 };
    /// Bytes per tile.
    pub const TILE_BYTES: IntRange = IntRange { name: "tile", min: 1, max: 1 << 30 };
    /// Link bandwidth override (GiB/s), 0 for the preset's.
    pub const BANDWIDTH: RealRange = RealRange { name: "bandwidth", min: 0.0, max: 10_000.0 };
    /// Latency override (ns), 0 for the preset's.
    pub const LATENCY: RealRange = RealRange { name: "latency", min: 0.0, max: 1e9 };
    /// The view's sliders (typed values go to the ranges' ends).
    pub const TILE_SLIDER: (f64, f64) = (64.0, 16_777_216.0);
    /// Bandwidth slider (GiB/s).
    pub const BANDWIDTH_SLIDER: (f64, f64) = (0.1, 1000.0);
    /// Latency slider (ns).
    pub const LATENCY_SLIDER: (f64, f64) = (1.0, 100_000.0);
}

/// The fit's ranges.
pub mod fit {
    use super::IntRange;

    /// The run fitted in a file that holds several (1-based; 0 in a link: the first).
    pub const RUN: IntRange = IntRange { name: "fr", min: 0, max: 10_000 };
}

/// Animation steps a link may name (clipped to the run's length when shown).
pub const STEP: IntRange = IntRange { name: "step", min: 0, max: 1 << 24 };

/// Ranges of the collective chooser.
pub mod chooser {
    use super::{IntRange, RealRange};

    /// Ranks of a chooser run (the all-pairs plans hold p² transfers).
    pub const P: IntRange = IntRange { name: "p", min: 1, max: 1024 };
    /// Message sizes (bytes).
    pub const SIZE: IntRange = IntRange { name: "size", min: 1, max: 1 << 40 };
    /// Bytes per element of the libraries' rules (MPICH's and Open MPI's read element counts).
    pub const DTYPE_SIZE: IntRange = IntRange { name: "dtype-size", min: 1, max: 1024 };
    /// Exact sizes one comparison takes (a list instead of a range).
    pub const SIZES: IntRange = IntRange { name: "sizes", min: 1, max: 64 };
    /// α, β and γ.
    pub const COST: RealRange = RealRange { name: "cost", min: 0.0, max: 1e12 };
    /// The α slider (typed values go to the range's ends).
    pub const ALPHA_SLIDER: (f64, f64) = (1e-3, 1e6);
    /// The β and γ sliders.
    pub const PER_BYTE_SLIDER: (f64, f64) = (1e-6, 1e3);
}

/// Ranges of the Schedule view's generated collectives and LogGOPS parameters.
pub mod schedule {
    use super::{IntRange, RealRange};

    /// Ranks of a generated reduction-family collective in the browser.
    pub const P: IntRange = IntRange { name: "p", min: 1, max: 1 << 20 };
    /// Bytes per message.
    pub const BYTES: IntRange = IntRange { name: "bytes", min: 1, max: 1 << 40 };
    /// Side of the mesh of a barrier pattern (the barrier views' range).
    pub const MESH: IntRange = IntRange { name: "mesh", min: 2, max: 256 };
    /// Ranks of a chooser algorithm's schedule (`collective/algorithm`).
    pub const CHOOSER_P: IntRange = IntRange { name: "p", min: 1, max: 4096 };
    /// A LogGOPS parameter (ns or bytes).
    pub const PARAM: IntRange = IntRange { name: "parameter", min: 0, max: 1 << 40 };
    /// The view's sliders (typed values go to the ranges' ends): pieces.
    pub const PIECES_SLIDER: (f64, f64) = (1.0, 4096.0);
    /// The swizzle pattern's core extents.
    pub const CORES_SLIDER: (f64, f64) = (1.0, 64.0);
    /// `L`, `o`, `g` (ns).
    pub const TIME_SLIDER: (f64, f64) = (1.0, 1e7);
    /// `G`, `O` (ns per byte).
    pub const PER_BYTE_SLIDER: (f64, f64) = (1.0, 1e4);
    /// `S` (bytes).
    pub const EAGER_SLIDER: (f64, f64) = (1.0, 1e9);
    /// Ticks per unit of a link's `unit` (the Chooser's unit of α).
    pub const UNIT: RealRange = RealRange { name: "unit", min: 1e-3, max: 1e12 };
    /// The first rank a timeline shows.
    pub const FIRST_RANK: IntRange = IntRange { name: "r0", min: 0, max: u32::MAX as u64 };
}

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

/// Ranges of the barrier engine itself (the CLI's; the views' are narrower,
/// in [`mesh_view`]).
pub mod barrier {
    use super::IntRange;

    /// Mesh sides accepted (the CLI; the views bound it to 256).
    pub const MESH_SIZE: IntRange = IntRange { name: "size", min: 2, max: 1024 };
    /// Mesh sides of the all-conversions experiment (`N²` conversions of `N` link sets).
    pub const UQ_SIZE: IntRange = IntRange { name: "size", min: 2, max: 16 };
    /// Consecutive barriers of one run.
    pub const BARRIERS: IntRange = IntRange { name: "barriers", min: 1, max: 100 };
    /// Tile side of the two-layer forms.
    pub const TILE: IntRange = IntRange { name: "tile", min: 2, max: 64 };
    /// Ticks per hop (and, from 0, the overhead, compute and skew ticks).
    pub const TICKS: IntRange = IntRange { name: "hop_ticks", min: 1, max: 1_000_000 };
    /// Fan-in of the combining tree.
    pub const COMBINING: IntRange = IntRange { name: "combining_k", min: 2, max: 64 };
}

/// Ranges of the barrier mesh view, shared by the URL codec, the view's
/// controls and the engine API's mesh requests (the CLI accepts the wider
/// ranges of `barrier::engine`).
pub mod mesh_view {
    use super::{IntRange, RealRange};

    /// Mesh side (the engine accepts 1024 from the CLI; the view draws ≤ 256).
    pub const SIDE: IntRange = IntRange { name: "size", min: 2, max: 256 };
    /// Fraction of links broken.
    pub const RATE: RealRange = RealRange { name: "rate", min: 0.0, max: 0.9 };
    /// Tile side of the two-layer forms (the engine's).
    pub use super::barrier::TILE;
    /// Seed of the breaks and of the skew (any seed, as the engine's).
    pub use super::SEED;
    /// Threshold of the threshold judge (fraction above the fault-free sum).
    pub const THRESHOLD: RealRange = RealRange { name: "threshold", min: 0.0, max: 10.0 };
    /// Ticks per hop.
    pub const HOP_TICKS: IntRange = IntRange { name: "hop_ticks", min: 1, max: 1000 };
    /// Ticks per message at the sender and at the receiver.
    pub const OVERHEAD_TICKS: IntRange = IntRange { name: "overhead_ticks", min: 0, max: 1000 };
    /// Computation before each barrier.
    pub const COMPUTE_TICKS: IntRange = IntRange { name: "compute_ticks", min: 0, max: 100_000 };
    /// Largest seeded extra computation.
    pub const SKEW_TICKS: IntRange = IntRange { name: "skew_ticks", min: 0, max: 100_000 };
    /// Consecutive barriers.
    pub const BARRIERS: IntRange = IntRange { name: "barriers", min: 1, max: 20 };
    /// Fan-in of the combining tree (the engine's).
    pub const COMBINING_K: IntRange = super::barrier::COMBINING;
    /// `K` of the before/after panel.
    pub const UQ_K: IntRange = IntRange { name: "k", min: 0, max: 1 << 20 };
    /// The ends of the view's log sliders where a range cannot be one
    /// (it starts at 0) or is wider than the useful part.
    pub const RATE_SLIDER: (f64, f64) = (0.01, 0.9);
    pub use super::SEED_SLIDER;
    /// Threshold of the threshold judge.
    pub const THRESHOLD_SLIDER: (f64, f64) = (0.01, 10.0);
    /// `K`: typed values go to 2^20.
    pub const UQ_K_SLIDER: (f64, f64) = (1.0, 1024.0);
    /// Length of the hand-flipped link list in a link (characters).
    pub const FLIPS_TEXT_MAX: usize = 40_000;
    /// Messages of a run the view simulates without recording (metrics and
    /// node states, no messages on the drawing), when it has more than the
    /// 2 000 000 a recorded run may hold: ~100 bytes each in the worker's
    /// 4 GB of wasm memory (all-to-all on 64 × 64 sends 16.8 M).
    pub const UNRECORDED_MESSAGES: u64 = 20_000_000;
}

/// Ranges of the barrier lab.
pub mod lab {
    use super::IntRange;

    /// Seeds per point.
    pub const SEEDS: IntRange = IntRange { name: "seeds", min: 1, max: 20 };
    /// Largest mesh side of the sweeps.
    pub const MAX_SIZE: IntRange = IntRange { name: "max_size", min: 4, max: 64 };
    /// Barriers per run.
    pub const BARRIERS: IntRange = IntRange { name: "barriers", min: 1, max: 10 };
    /// Side of the UQ experiment's mesh.
    pub const UQ_SIZE: IntRange = IntRange { name: "uq_size", min: 2, max: 16 };
}

/// Ranges of networks (`net`): topologies, link classes, breaks, flows.
pub mod net {
    use super::{IntRange, RealRange};

    /// Hosts of one topology.
    pub const HOSTS: IntRange = IntRange { name: "hosts", min: 1, max: 4096 };
    /// Vertices (hosts and switches) of one topology.
    pub const VERTICES: IntRange = IntRange { name: "vertices", min: 1, max: 8192 };
    /// Links of one topology (each has two directions).
    pub const LINKS: IntRange = IntRange { name: "links", min: 0, max: 1 << 17 };
    /// Flows in transfer at once.
    pub const FLOWS: IntRange = IntRange { name: "flows", min: 0, max: 1 << 21 };
    /// A link's bandwidth, bytes per ns (= GB/s).
    pub const BANDWIDTH: RealRange = RealRange { name: "bandwidth", min: 1e-6, max: 1e6 };
    /// A link's latency, ns.
    pub const LATENCY: RealRange = RealRange { name: "latency", min: 0.0, max: 1e9 };
    /// Fraction of a topology's links broken.
    pub const RATE: RealRange = RealRange { name: "break_rate", min: 0.0, max: 1.0 };
    /// Links named in one break list.
    pub const BREAK_LIST: IntRange = IntRange { name: "break", min: 0, max: 4096 };
    /// Messages one (rank, NIC) holds at once (`docs/network.md`, the NIC
    /// window); 0 means no limit.
    pub const WINDOW: IntRange = IntRange { name: "nic_window", min: 0, max: 1024 };
    /// Channels a collective's data is split over (NCCL runs up to 32;
    /// each is a NIC and a CPU of the GOAL schedule).
    pub const CHANNELS: IntRange = IntRange { name: "channels", min: 1, max: 64 };
    /// The network controls' slider ends: a link class's bandwidth (B/ns) and latency (ns).
    pub const BANDWIDTH_SLIDER: (f64, f64) = (0.1, 1000.0);
    /// Latency slider (ns).
    pub const LATENCY_SLIDER: (f64, f64) = (1.0, 1e6);
    /// Break-rate slider.
    pub const RATE_SLIDER: (f64, f64) = (0.001, 1.0);
    /// NIC-window slider (the field takes 0, no limit, and up to the range's end).
    pub const WINDOW_SLIDER: (f64, f64) = (1.0, 64.0);
    /// Channels slider.
    pub const CHANNELS_SLIDER: (f64, f64) = (1.0, 64.0);
}

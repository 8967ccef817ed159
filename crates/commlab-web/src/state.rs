//! The playground's one source of truth: [`Params`], everything a link must
//! reproduce. Domain values only (no signals); `share.rs` turns it into a
//! query string and back.

use commlab_core::model::{ConfigError, ModelConfig};
use commlab_core::reduce::{Collective, Operator};

/// A view of the playground. Only views that exist are listed: later views are
/// added here, to [`View::ALL`], and to the app's view switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Binomial-tree reduction, broadcast and allreduce (playground spec view 1).
    Tree,
    /// Space-time diagram of the chain pipeline (view 2).
    Pipeline,
    /// Runtime model of the pipelined reduction (view 3).
    #[default]
    Model,
    /// CommSwizzle schedule (view 6).
    Swizzle,
}

impl View {
    /// Every view, in the order of the view switcher.
    pub const ALL: [View; 4] = [View::Tree, View::Pipeline, View::Model, View::Swizzle];

    /// Stable id used in URLs (`view=model`).
    pub fn id(self) -> &'static str {
        match self {
            View::Tree => "tree",
            View::Pipeline => "pipeline",
            View::Model => "model",
            View::Swizzle => "swizzle",
        }
    }

    /// Human label for the switcher.
    pub fn label(self) -> &'static str {
        match self {
            View::Tree => "Reduction tree",
            View::Pipeline => "Pipeline",
            View::Model => "Runtime model",
            View::Swizzle => "Swizzle schedule",
        }
    }

    /// The view with URL id `id`.
    pub fn from_id(id: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.id() == id)
    }
}

/// The colour theme the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeChoice {
    /// Follow the system's `prefers-color-scheme`.
    #[default]
    Auto,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// Every choice, in menu order.
    pub const ALL: [ThemeChoice; 3] = [ThemeChoice::Auto, ThemeChoice::Light, ThemeChoice::Dark];

    /// Stable id used in URLs (`theme=dark`).
    pub fn id(self) -> &'static str {
        match self {
            ThemeChoice::Auto => "auto",
            ThemeChoice::Light => "light",
            ThemeChoice::Dark => "dark",
        }
    }

    /// The choice with URL id `id`.
    pub fn from_id(id: &str) -> Option<ThemeChoice> {
        ThemeChoice::ALL.into_iter().find(|t| t.id() == id)
    }

    /// Whether the page is dark, given what the system prefers.
    pub fn is_dark(self, system_prefers_dark: bool) -> bool {
        match self {
            ThemeChoice::Auto => system_prefers_dark,
            ThemeChoice::Light => false,
            ThemeChoice::Dark => true,
        }
    }
}

/// Inputs of the runtime-model view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelParams {
    /// Vector size `n` in bytes.
    pub bytes: u64,
    /// Units `p`.
    pub units: u64,
    /// `T_start` (µs).
    pub t_start: f64,
    /// `T_byte` (µs per byte).
    pub t_byte: f64,
    /// Largest piece count considered.
    pub max_pieces: u64,
    /// The piece count the user is looking at.
    pub pieces: u64,
}

impl Default for ModelParams {
    /// 1 MiB over 64 units with a 10 µs start-up and 1 GB/s links: `m* ≈ 80.6`,
    /// where pipelining clearly beats the binomial tree.
    fn default() -> Self {
        Self { bytes: 1 << 20, units: 64, t_start: 10.0, t_byte: 0.001, max_pieces: 1024, pieces: 16 }
    }
}

impl ModelParams {
    /// The validated core configuration.
    ///
    /// # Errors
    /// The out-of-range parameter (the URL codec and the inputs already reject
    /// them, so the view only sees this for values typed between checks).
    pub fn config(&self) -> Result<ModelConfig, ConfigError> {
        ModelConfig::new(self.bytes, self.units, self.t_start, self.t_byte, self.max_pieces)
    }
}

/// Inputs of the reduction-tree view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeParams {
    /// Which collective.
    pub collective: Collective,
    /// Message-passing picture (send/recv arrows) instead of the PRAM picture.
    pub message_passing: bool,
    /// Units `p`.
    pub units: u64,
    /// Elements per vector.
    pub elements: u64,
    /// The operator `⊕`.
    pub operator: Operator,
    /// Seed of the random inputs.
    pub seed: u64,
    /// Show virtual units up to the next power of two.
    pub padded: bool,
    /// Typed input vectors (`3, 1; 4, 1`), replacing the seeded ones when set.
    pub inputs: Option<String>,
}

impl Default for TreeParams {
    fn default() -> Self {
        Self {
            collective: Collective::Reduce,
            message_passing: false,
            units: 8,
            elements: 1,
            operator: Operator::Sum,
            seed: 1,
            padded: false,
            inputs: None,
        }
    }
}

/// Inputs of the pipeline view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipelineParams {
    /// Units `p` of the chain.
    pub units: u64,
    /// Pieces `m`.
    pub pieces: u64,
    /// Elements per vector (grouped into the pieces).
    pub elements: u64,
    /// Seed of the random inputs (summed).
    pub seed: u64,
}

impl Default for PipelineParams {
    fn default() -> Self {
        Self { units: 5, pieces: 3, elements: 6, seed: 1 }
    }
}

/// What the swizzle view puts next to the current configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compare {
    /// Nothing.
    #[default]
    None,
    /// The same configuration without the rank shift.
    Shift,
    /// The same configuration with deterministic mode toggled.
    Deterministic,
}

impl Compare {
    /// Every choice.
    pub const ALL: [Compare; 3] = [Compare::None, Compare::Shift, Compare::Deterministic];

    /// Stable id.
    pub fn id(self) -> &'static str {
        match self {
            Compare::None => "none",
            Compare::Shift => "shift",
            Compare::Deterministic => "deterministic",
        }
    }

    /// Human label.
    pub fn label(self) -> &'static str {
        match self {
            Compare::None => "nothing",
            Compare::Shift => "shift on vs off",
            Compare::Deterministic => "deterministic vs not",
        }
    }
}

/// Inputs of the swizzle view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwizzleParams {
    /// `gridShape` `(row, column, rank)`.
    pub grid: (u32, u32, u32),
    /// `coreSplit` `(row, column)`.
    pub cores: (u32, u32),
    /// `SWIZZLE_DIRECTION`.
    pub direction: u8,
    /// `IS_DETERMINISTIC`.
    pub deterministic: bool,
    /// Apply the rank shift.
    pub shift: bool,
    /// Bytes per tile.
    pub tile_bytes: u64,
    /// Cost preset id (`a2`, `a5`).
    pub preset: &'static str,
    /// Remote reads (`true`) or writes: picks the preset's round trip.
    pub read: bool,
    /// Link bandwidth override (GiB/s), 0 for the preset's.
    pub bandwidth_gib_s: f64,
    /// Latency override (ns), 0 for the preset's.
    pub latency_ns: f64,
    /// Side-by-side comparison.
    pub compare: Compare,
}

impl Default for SwizzleParams {
    /// 8 data tiles over 8 ranks with 4 × 2 cores: the shift turns the naive
    /// order's pile-ups into a Latin square.
    fn default() -> Self {
        Self {
            grid: (4, 2, 8),
            cores: (4, 2),
            direction: 0,
            deterministic: false,
            shift: true,
            tile_bytes: 65_536,
            preset: "a2",
            read: false,
            bandwidth_gib_s: 0.0,
            latency_ns: 0.0,
            compare: Compare::None,
        }
    }
}

/// Everything a shared link reproduces.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params {
    /// The view shown.
    pub view: View,
    /// Embed mode: the view alone, compact, with a link back.
    pub embed: bool,
    /// Colour theme.
    pub theme: ThemeChoice,
    /// Runtime-model inputs.
    pub model: ModelParams,
    /// Reduction-tree inputs.
    pub tree: TreeParams,
    /// Pipeline inputs.
    pub pipeline: PipelineParams,
    /// Swizzle inputs.
    pub swizzle: SwizzleParams,
    /// The animation step shown by the animated views (clipped to the run's length).
    pub step: u64,
}

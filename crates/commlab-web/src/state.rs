//! The playground's one source of truth: [`Params`], everything a link must
//! reproduce. Domain values only (no signals); `share.rs` turns it into a
//! query string and back.

use commlab_api::mesh::MeshRequest;
use commlab_api::model::ModelRequest;
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::Judge;
use commlab_core::barrier::mesh::{LinkId, Mesh};
use commlab_core::barrier::uq::LinkSetDefinition;
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
    /// Barrier on a mesh with broken links (view 4).
    Mesh,
    /// Barrier experiments (view 5).
    Lab,
    /// CommSwizzle schedule (view 6).
    Swizzle,
    /// A GOAL schedule simulated under LogGOPS, as a timeline (view 7; in
    /// the lazy bundle, see [`crate::lazy`]).
    Schedule,
    /// The collective chooser: algorithms compared over message sizes, the
    /// winner map, the chunk optimizer (view 8; in the lazy bundle).
    Chooser,
}

impl View {
    /// Every view, in the order of the view switcher.
    pub const ALL: [View; 8] =
        [View::Tree, View::Pipeline, View::Model, View::Mesh, View::Lab, View::Swizzle, View::Schedule, View::Chooser];

    /// Stable id used in URLs (`view=model`).
    pub fn id(self) -> &'static str {
        match self {
            View::Tree => "tree",
            View::Pipeline => "pipeline",
            View::Model => "model",
            View::Mesh => "mesh",
            View::Lab => "lab",
            View::Swizzle => "swizzle",
            View::Schedule => "schedule",
            View::Chooser => "chooser",
        }
    }

    /// Human label for the switcher.
    pub fn label(self) -> &'static str {
        match self {
            View::Tree => "Reduction tree",
            View::Pipeline => "Pipeline",
            View::Model => "Runtime model",
            View::Mesh => "Barrier mesh",
            View::Lab => "Barrier lab",
            View::Swizzle => "Swizzle schedule",
            View::Schedule => "Schedule timeline",
            View::Chooser => "Collective chooser",
        }
    }

    /// Whether the view lives in the lazy bundle ([`crate::lazy`]): the
    /// shell passes its URL pairs through and the bundle reads them.
    pub fn is_lazy(self) -> bool {
        matches!(self, View::Lab | View::Schedule | View::Chooser)
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
    /// The engine request of this view's run (the chosen `m` is the view's own).
    pub fn request(&self) -> ModelRequest {
        ModelRequest {
            bytes: self.bytes,
            units: self.units,
            t_start: self.t_start,
            t_byte: self.t_byte,
            max_pieces: self.max_pieces,
        }
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

impl TreeParams {
    /// The engine request of this view's run.
    pub fn request(&self) -> commlab_api::tree::TreeRequest {
        commlab_api::tree::TreeRequest {
            collective: self.collective.id().to_owned(),
            message_passing: self.message_passing,
            units: self.units,
            elements: self.elements,
            operator: self.operator.id().to_owned(),
            seed: self.seed,
            padded: self.padded,
            inputs: self.inputs.clone(),
        }
    }
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

impl PipelineParams {
    /// The engine request of this view's run.
    pub fn request(&self) -> commlab_api::tree::PipelineRequest {
        commlab_api::tree::PipelineRequest {
            units: self.units,
            pieces: self.pieces,
            elements: self.elements,
            seed: self.seed,
        }
    }
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

impl SwizzleParams {
    /// The engine request of this view's run (`dark`: the chart's theme).
    pub fn request(&self, dark: bool) -> commlab_api::swizzle::SwizzleRequest {
        commlab_api::swizzle::SwizzleRequest {
            grid: self.grid,
            cores: self.cores,
            direction: self.direction,
            deterministic: self.deterministic,
            shift: self.shift,
            tile_bytes: self.tile_bytes,
            preset: self.preset.to_owned(),
            read: self.read,
            bandwidth_gib_s: self.bandwidth_gib_s,
            latency_ns: self.latency_ns,
            compare: self.compare.id().to_owned(),
            dark,
        }
    }
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

/// Inputs of the barrier mesh view.
#[allow(clippy::struct_excessive_bools, reason = "independent switches, each a URL flag")]
#[derive(Debug, Clone, PartialEq)]
pub struct MeshParams {
    /// Mesh side.
    pub size: u64,
    /// Fraction of links broken (seeded).
    pub rate: f64,
    /// Seed of the breaks and of the skew.
    pub seed: u64,
    /// Node encoding.
    pub encoding: Encoding,
    /// Barrier algorithm.
    pub algorithm: Algorithm,
    /// Tile side of the two-layer forms.
    pub tile: u64,
    /// When the DLCT root adjusts (the threshold policy's value is `threshold`).
    pub judge: Judge,
    /// Threshold of the threshold judge.
    pub threshold: f64,
    /// Ticks per hop.
    pub hop_ticks: u64,
    /// Ticks per message at sender and receiver.
    pub overhead_ticks: u64,
    /// Computation before each barrier.
    pub compute_ticks: u64,
    /// Largest seeded extra computation.
    pub skew_ticks: u64,
    /// Consecutive barriers.
    pub barriers: u64,
    /// Fan-in of the combining tree.
    pub combining_k: u64,
    /// One message per directed link per tick.
    pub contention: bool,
    /// Seeded breaks keep the mesh connected.
    pub connected: bool,
    /// Links flipped by hand relative to the seeded set, sorted (`"3,17,40"`).
    pub flips: Option<String>,
    /// Draw the algorithm's pattern.
    pub pattern: bool,
    /// Draw the link-load heat.
    pub heat: bool,
    /// `K` of the before/after panel.
    pub uq_k: u64,
    /// Link-set definition of the panel.
    pub uq_links: LinkSetDefinition,
}

impl Default for MeshParams {
    /// An 8 × 8 DLCT with 15 % broken links: seed 1 makes the root adjust.
    fn default() -> Self {
        Self {
            size: 8,
            rate: 0.15,
            seed: 1,
            encoding: Encoding::SCurve,
            algorithm: Algorithm::Dlct,
            tile: 4,
            judge: Judge::DEFAULT,
            threshold: 0.1,
            hop_ticks: 1,
            overhead_ticks: 0,
            compute_ticks: 500,
            skew_ticks: 0,
            barriers: 3,
            combining_k: 4,
            contention: true,
            connected: true,
            flips: None,
            pattern: true,
            heat: false,
            uq_k: 1,
            uq_links: LinkSetDefinition::default(),
        }
    }
}

/// Inputs of the barrier lab view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabParams {
    /// Seeds per point.
    pub seeds: u64,
    /// Largest mesh side of the sweeps.
    pub max_size: u64,
    /// Barriers per run.
    pub barriers: u64,
    /// Mesh side of the UQ experiment.
    pub uq_size: u64,
}

impl Default for LabParams {
    /// The default sweep: up to 32 × 32, 5 seeds, 3 barriers; UQ on 4 × 4.
    fn default() -> Self {
        Self { seeds: 5, max_size: 32, barriers: 3, uq_size: 4 }
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
    /// Barrier mesh inputs.
    pub mesh: MeshParams,
    /// Barrier lab inputs.
    pub lab: LabParams,
    /// The animation step shown by the animated views (clipped to the run's length).
    pub step: u64,
    /// A lazy view's own URL pairs, kept verbatim: the lazy bundle reads and
    /// checks them, and reports them back as they change.
    pub lazy: Vec<(String, String)>,
}

impl MeshParams {
    /// The hand-flipped links, parsed (sorted, distinct).
    ///
    /// # Errors
    /// A list entry that is not a link id of this mesh.
    pub fn flips(&self, link_count: u32) -> Result<Vec<LinkId>, String> {
        let Some(text) = self.flips.as_deref().filter(|t| !t.trim().is_empty()) else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for part in text.split(',') {
            match part.trim().parse::<LinkId>() {
                Ok(l) if l < link_count => out.push(l),
                _ => {
                    return Err(format!(
                        "flip: \"{}\" is not a link of this mesh (expected ids 0..{link_count}); the hand-made breaks are ignored",
                        part.chars().take(20).collect::<String>()
                    ))
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// The links broken in this view's run: the seeded breaks with the
    /// hand flips toggled (`None` when a value is out of range).
    pub fn broken(&self) -> Option<Vec<bool>> {
        use commlab_core::barrier::mesh::Breaks;
        let mesh = Mesh::new(self.size).ok()?;
        let seeded = if self.connected {
            Breaks::random_connected(&mesh, self.rate, self.seed)
        } else {
            Breaks::random(&mesh, self.rate, self.seed)
        }
        .ok()?;
        let mut out: Vec<bool> = (0..mesh.link_count()).map(|l| seeded.is_broken(l)).collect();
        for l in self.flips(mesh.link_count()).unwrap_or_default() {
            out[l as usize] = !out[l as usize];
        }
        Some(out)
    }

    /// `flips` with `link` toggled, as URL text (`None` when empty).
    pub fn toggled(&self, link: LinkId, link_count: u32) -> Option<String> {
        let mut flips = self.flips(link_count).unwrap_or_default();
        match flips.binary_search(&link) {
            Ok(i) => {
                flips.remove(i);
            }
            Err(i) => flips.insert(i, link),
        }
        (!flips.is_empty()).then(|| flips.iter().map(ToString::to_string).collect::<Vec<_>>().join(","))
    }

    /// Whether the run is small enough to do on the page at once: drawn as
    /// SVG (under 32 × 32), and at most 4096 messages by the closed-form
    /// upper estimate (the default 8 × 8 DLCT: 768; 16 × 16 DLCT, 3 barriers:
    /// 3072). The first such run also compiles the engine's code on the page
    /// (~40 ms), so the bound keeps that run under the 50 ms a task may take.
    pub fn small(&self) -> bool {
        let nodes = self.size * self.size;
        self.size < u64::from(commlab_plot::mesh::CANVAS_FROM)
            && self.algorithm.messages_per_barrier(nodes).saturating_mul(self.barriers) <= 4096
    }

    /// The engine request of this view's run.
    ///
    /// # Errors
    /// An invalid flip list (the engine validates the rest, by field).
    pub fn request(&self) -> Result<MeshRequest, String> {
        let links = Mesh::new(self.size).map_err(|e| e.to_string())?.link_count();
        Ok(MeshRequest {
            size: self.size,
            rate: self.rate,
            seed: self.seed,
            connected: self.connected,
            flips: self.flips(links)?,
            algorithm: self.algorithm.id().to_owned(),
            encoding: self.encoding.id().to_owned(),
            tile: self.tile,
            judge: self.judge.id().to_owned(),
            threshold: self.threshold,
            barriers: self.barriers,
            hop_ticks: self.hop_ticks,
            overhead_ticks: self.overhead_ticks,
            compute_ticks: self.compute_ticks,
            skew_ticks: self.skew_ticks,
            contention: self.contention,
            combining_k: self.combining_k,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flips_toggle_and_parse() {
        let p = MeshParams::default();
        let link_count = Mesh::new(p.size).unwrap().link_count();
        let once = MeshParams { flips: p.toggled(5, link_count), ..p.clone() };
        assert_eq!(once.flips.as_deref(), Some("5"));
        let twice = MeshParams { flips: once.toggled(2, link_count), ..once.clone() };
        assert_eq!(twice.flips.as_deref(), Some("2,5"));
        assert_eq!(twice.request().unwrap().flips, vec![2, 5]);
        let back = MeshParams { flips: twice.toggled(5, link_count), ..twice };
        let back = MeshParams { flips: back.toggled(2, link_count), ..back };
        assert_eq!(back.flips, None);
        let bad = MeshParams { flips: Some("3,x".into()), ..p };
        assert!(bad.request().unwrap_err().starts_with("flip:"));
    }

    #[test]
    fn small_runs_are_bounded() {
        let m = |size, algorithm, barriers| MeshParams { size, algorithm, barriers, ..MeshParams::default() };
        assert!(MeshParams::default().small());
        assert!(m(16, Algorithm::Dlct, 3).small());
        assert!(m(16, Algorithm::Ms, 4).small());
        assert!(!m(16, Algorithm::Ms, 5).small(), "4 · 256 · 5 > 4096");
        assert!(!m(16, Algorithm::Dissemination, 3).small());
        assert!(!m(32, Algorithm::Dlct, 1).small(), "canvas meshes go to the worker");
    }

    #[test]
    fn the_default_mesh_adjusts() {
        use commlab_api::protocol::{Engine, Request, Response};
        let mut engine = Engine::new();
        let frame = commlab_api::mesh::FrameRequest { step: 0, width: 640.0, pattern: true, heat: false, dark: false };
        let ready = engine.serve(Request::MeshRun(MeshParams::default().request().unwrap(), frame), 10_000, |_| {});
        let Response::MeshReady(summary, _) = ready else { panic!("{ready:?}") };
        assert!(summary.rows.iter().any(|r| r.k.is_some_and(|k| k > 0)), "the default view should show an adjustment");
    }
}

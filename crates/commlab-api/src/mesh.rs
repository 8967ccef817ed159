//! The barrier mesh: a request that names every input of the mesh view,
//! validated against `limits::mesh_view`; the recorded run advanced in slices
//! with progress; and the session that answers frame, metrics and export
//! requests from the recorded run, so the page never holds the trace.

use crate::report::{messages_csv, RunJson};
use crate::{parse_id, ApiError};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::{Judge, Scenario};
use commlab_core::barrier::mesh::{Breaks, LinkId, Mesh};
use commlab_core::barrier::replay::{Replay, ReplayRun};
use commlab_core::limits::mesh_view as lim;
use commlab_plot::mesh::{mesh_scene, scene_svg, MeshOptions, Scene, CANVAS_FROM};
use commlab_plot::Theme;
use serde::{Deserialize, Serialize};

/// Every input of a mesh run, as the view and its link hold them.
#[allow(clippy::struct_excessive_bools, reason = "the view's independent switches")]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeshRequest {
    /// Mesh side.
    pub size: u64,
    /// Fraction of links broken (seeded).
    pub rate: f64,
    /// Seed of the breaks and of the skew.
    pub seed: u64,
    /// Seeded breaks keep the mesh connected.
    pub connected: bool,
    /// Links toggled by hand relative to the seeded set.
    pub flips: Vec<LinkId>,
    /// Algorithm id.
    pub algorithm: String,
    /// Encoding id.
    pub encoding: String,
    /// Tile side of the two-layer forms.
    pub tile: u64,
    /// Judge id: `never`, `threshold`, `oracle`.
    pub judge: String,
    /// Threshold of the threshold judge.
    pub threshold: f64,
    /// Consecutive barriers.
    pub barriers: u64,
    /// Ticks per hop.
    pub hop_ticks: u64,
    /// Ticks per message at each end.
    pub overhead_ticks: u64,
    /// Computation before each barrier.
    pub compute_ticks: u64,
    /// Largest seeded extra computation.
    pub skew_ticks: u64,
    /// One message per directed link and tick.
    pub contention: bool,
    /// Fan-in of the combining tree.
    pub combining_k: u64,
    /// Routing rule id: `paper` or `shortest`.
    pub routing: String,
}

impl Default for MeshRequest {
    /// The view's default: 8 × 8 DLCT at 15 % (seed 1 makes the root adjust),
    /// the breaks keeping the mesh connected.
    fn default() -> Self {
        MeshRequest {
            size: 8,
            rate: 0.15,
            seed: 1,
            connected: true,
            flips: Vec::new(),
            algorithm: "dlct".into(),
            encoding: "s-curve".into(),
            tile: 4,
            judge: "threshold".into(),
            threshold: 0.1,
            barriers: 3,
            hop_ticks: 1,
            overhead_ticks: 0,
            compute_ticks: 500,
            skew_ticks: 0,
            contention: true,
            combining_k: 4,
            routing: "paper".into(),
        }
    }
}

impl MeshRequest {
    /// The scenario, validated field by field. The message cap is checked
    /// from the closed-form count before the breaks are computed, so a
    /// request the view cannot record is refused at once.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn scenario(&self) -> Result<Scenario, ApiError> {
        let size = lim::SIDE.check(self.size)?;
        let rate = lim::RATE.check(self.rate)?;
        let algorithm: Algorithm = parse_id("algorithm", &self.algorithm)?;
        let encoding: Encoding = parse_id("encoding", &self.encoding)?;
        let judge = match parse_id::<Judge>("judge", &self.judge)? {
            Judge::Threshold(_) => Judge::Threshold(lim::THRESHOLD.check(self.threshold)?),
            j => j,
        };
        let mut scenario = Scenario {
            size,
            algorithm,
            encoding,
            break_rate: rate,
            seed: self.seed,
            breaks: None,
            connected: self.connected,
            barriers: lim::BARRIERS.check(self.barriers)? as u32,
            tile: lim::TILE.check(self.tile)? as u32,
            judge,
            hop_ticks: lim::HOP_TICKS.check(self.hop_ticks)?,
            overhead_ticks: lim::OVERHEAD_TICKS.check(self.overhead_ticks)?,
            contention: self.contention,
            compute_ticks: lim::COMPUTE_TICKS.check(self.compute_ticks)?,
            skew_ticks: lim::SKEW_TICKS.check(self.skew_ticks)?,
            combining_k: lim::COMBINING_K.check(self.combining_k)? as u32,
            record: true,
            routing: parse_id("routing", &self.routing)?,
        };
        // Recorded (animated) up to the engine's recording cap; beyond it, up
        // to the view's own cap, simulated without recording (metrics only).
        if scenario.check_message_cap().is_err() {
            let nodes = size * size;
            let expected = algorithm.messages_per_barrier(nodes).saturating_mul(scenario.barriers.into());
            if expected > lim::UNRECORDED_MESSAGES {
                return Err(ApiError::new(
                    "size",
                    size,
                    format!(
                        "a run of at most {} messages in the view ({} when every message is recorded for the animation): {algorithm} sends about {} per barrier on {nodes} nodes; pick a smaller size or fewer barriers, or use the CLI",
                        lim::UNRECORDED_MESSAGES,
                        commlab_core::barrier::engine::RECORDED_MESSAGES,
                        algorithm.messages_per_barrier(nodes),
                    ),
                ));
            }
            scenario.record = false;
        }
        let mesh = Mesh::new(size)?;
        let links = mesh.link_count();
        if let Some(&bad) = self.flips.iter().find(|&&l| l >= links) {
            return Err(ApiError::new("flip", bad, format!("link ids 0..{links} of this mesh")));
        }
        let seeded = if self.connected {
            Breaks::random_connected(&mesh, rate, self.seed)?
        } else {
            Breaks::random(&mesh, rate, self.seed)?
        };
        scenario.breaks = Some(toggle(seeded.links(), &self.flips));
        Ok(scenario)
    }
}

impl MeshRequest {
    /// Whether the run is small enough to do on the page at once: drawn as
    /// SVG (under 32 × 32), and at most 4096 messages by the closed-form
    /// upper estimate (the default 8 × 8 DLCT: 768; 16 × 16 DLCT, 3 barriers:
    /// 3072). The first such run also compiles the engine's code on the page
    /// (~40 ms), so the bound keeps that run under the 50 ms a task may take.
    pub fn small(&self) -> bool {
        let nodes = self.size.saturating_mul(self.size);
        let messages = self.algorithm.parse::<Algorithm>().map_or(u64::MAX, |a| a.messages_per_barrier(nodes));
        self.size < u64::from(CANVAS_FROM) && messages.saturating_mul(self.barriers) <= 4096
    }

    /// The links broken in this run: the seeded breaks with the hand flips
    /// toggled, one flag per link (`None` when a value is out of range).
    pub fn broken(&self) -> Option<Vec<bool>> {
        let scenario = self.scenario().ok()?;
        let mesh = Mesh::new(self.size).ok()?;
        let mut out = vec![false; mesh.link_count() as usize];
        for &l in scenario.breaks.as_deref().unwrap_or_default() {
            out[l as usize] = true;
        }
        Some(out)
    }

    /// The hand flips with `link` toggled (sorted).
    pub fn toggled(&self, link: LinkId) -> Vec<LinkId> {
        toggle(self.flips.clone(), &[link])
    }
}

/// A hand-flip list as links write it (`3,17,40`), sorted and distinct.
///
/// # Errors
/// An entry that is not a link id.
pub fn parse_flips(text: &str) -> Result<Vec<LinkId>, ApiError> {
    let mut out = Vec::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let id =
            part.trim().parse::<LinkId>().map_err(|_| ApiError::new("flip", part, "link ids separated by commas"))?;
        out.push(id);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// A hand-flip list as URL text (`None` when empty).
pub fn flips_text(flips: &[LinkId]) -> Option<String> {
    (!flips.is_empty()).then(|| flips.iter().map(ToString::to_string).collect::<Vec<_>>().join(","))
}

/// `links` (sorted) with each of `flips` toggled.
pub fn toggle(mut links: Vec<LinkId>, flips: &[LinkId]) -> Vec<LinkId> {
    let mut flips = flips.to_vec();
    flips.sort_unstable();
    flips.dedup();
    for flip in flips {
        match links.binary_search(&flip) {
            Ok(i) => {
                links.remove(i);
            }
            Err(i) => links.insert(i, flip),
        }
    }
    links
}

/// One row of the per-barrier table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    /// 1-based.
    pub barrier: u32,
    /// Delay in ticks (`None`: did not complete).
    pub delay: Option<u64>,
    /// Messages.
    pub messages: u64,
    /// Hops.
    pub hops: u64,
    /// Hops beyond Manhattan.
    pub detour_hops: u64,
    /// Hops that stepped back along their own walk (`routing=paper`).
    pub back_steps: u64,
    /// The most-loaded link as `(x, y)–(x, y) ×load`, empty when none.
    pub link: String,
    /// The root's `K`.
    pub k: Option<u32>,
}

/// What the view shows of a finished run besides the drawing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeshSummary {
    /// Animation steps.
    pub steps: usize,
    /// Per barrier.
    pub rows: Vec<MetricRow>,
    /// The checker's verdict in a sentence.
    pub verdict: String,
    /// The verdict is bad news (partitioned or unsafe).
    pub bad: bool,
    /// Drawn on a canvas (side ≥ `CANVAS_FROM`) rather than as SVG.
    pub canvas: bool,
}

/// Which frame to draw.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FrameRequest {
    /// Animation step (clipped to the run).
    pub step: usize,
    /// Width of the drawing in CSS pixels.
    pub width: f64,
    /// Draw the algorithm's pattern.
    pub pattern: bool,
    /// Draw the link-load heat.
    pub heat: bool,
    /// Dark theme.
    pub dark: bool,
}

/// A drawn step. `svg` is the drawing below `CANVAS_FROM`; above it the
/// worker paints [`MeshSession::scene`] and sends the bitmap along.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The step drawn (after clipping).
    pub step: usize,
    /// What happens in it.
    pub caption: String,
    /// Accessible title of the drawing.
    pub title: String,
    /// Size in CSS pixels.
    pub width: f64,
    /// See `width`.
    pub height: f64,
    /// The SVG document (small meshes).
    pub svg: Option<String>,
}

/// What an export request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExportKind {
    /// Every message as CSV.
    Csv,
    /// The run as [`RunJson`].
    Json,
    /// The current frame as SVG, whatever the mesh size.
    Svg(usize),
}

/// A recorded run, answering the view's questions.
pub struct MeshSession {
    /// The run.
    pub replay: Replay,
    frame: FrameRequest,
}

impl MeshSession {
    /// Starts the run of `request`.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn start(request: &MeshRequest) -> Result<ReplayRun, ApiError> {
        let scenario = request.scenario()?;
        Ok(if scenario.record { ReplayRun::start(scenario)? } else { ReplayRun::start_unrecorded(scenario)? })
    }

    /// A session of a finished run.
    pub fn new(replay: Replay) -> MeshSession {
        MeshSession { replay, frame: FrameRequest { step: 0, width: 640.0, pattern: true, heat: false, dark: false } }
    }

    /// Runs `request` to the end (the CLI and tests).
    ///
    /// # Errors
    /// The first field out of range.
    pub fn run(request: &MeshRequest) -> Result<MeshSession, ApiError> {
        let mut run = MeshSession::start(request)?;
        while !run.advance(u64::MAX) {}
        Ok(MeshSession::new(run.finish()))
    }

    /// Metrics, verdict, steps.
    pub fn summary(&self) -> MeshSummary {
        let r = &self.replay;
        let report = &r.report;
        let mesh = r.mesh;
        let rows = r
            .barrier_stats()
            .into_iter()
            .enumerate()
            .map(|(b, s)| MetricRow {
                barrier: b as u32 + 1,
                delay: s.delay,
                messages: s.messages,
                hops: s.hops,
                detour_hops: s.detour_hops,
                back_steps: s.back_steps,
                link: s.max_link.map_or_else(String::new, |l| {
                    let (a, c) = mesh.endpoints(l);
                    let ((ax, ay), (cx, cy)) = (mesh.coords(a), mesh.coords(c));
                    format!("({ax}, {ay})–({cx}, {cy}) ×{}", s.max_load)
                }),
                k: s.k,
            })
            .collect();
        let unrecorded = if r.scenario.record {
            String::new()
        } else if report.recording_stopped {
            format!(
                "Not animated: the messages' routes passed {} hops, more than a run recorded for the animation may hold (under routing=paper the walks can wander far when many links are broken), so the rest of the run went on without recording (nodes arrive and leave on the drawing, no messages move; no per-message CSV). ",
                commlab_core::barrier::engine::RECORDED_HOPS
            )
        } else {
            format!(
                "Not animated: {} messages are more than the {} a run recorded for the animation may hold, so this run was simulated without recording (nodes arrive and leave on the drawing, no messages move; no per-message CSV). ",
                report.messages,
                commlab_core::barrier::engine::RECORDED_MESSAGES
            )
        };
        let verdict = if report.partitioned {
            format!(
                "Partitioned: the broken links cut the mesh. {} messages had no route and were dropped; the nodes waiting for them never leave, so the barrier cannot complete. Step through to see which part of the mesh got stuck.",
                report.unroutable
            )
        } else if report.safe {
            format!(
                "Checker: safe — no node left a barrier before every node arrived, no message crossed barriers; {} messages, {} hops ({} detour hops, {} of them back-steps), {} of {} links broken; routing {}.",
                report.messages,
                report.hops,
                report.detour_hops,
                report.back_steps,
                report.broken_links,
                mesh.link_count(),
                r.scenario.routing
            )
        } else {
            format!("Checker: UNSAFE — {}", report.violations.join("; "))
        };
        MeshSummary {
            steps: r.steps(),
            rows,
            verdict: unrecorded + &verdict,
            bad: report.partitioned || !report.safe,
            canvas: mesh.size() >= CANVAS_FROM,
        }
    }

    /// The frame of `request` (its scene is kept for [`MeshSession::scene`]).
    pub fn frame(&mut self, request: FrameRequest) -> Frame {
        let step = request.step.min(self.replay.steps());
        self.frame = FrameRequest { step, ..request };
        let scene = self.scene();
        let svg = (self.replay.mesh.size() < CANVAS_FROM).then(|| scene_svg(&scene));
        Frame {
            step,
            caption: self.replay.caption(step),
            title: scene.title.clone(),
            width: scene.width,
            height: scene.height,
            svg,
        }
    }

    /// The scene of the last frame asked for.
    pub fn scene(&self) -> Scene {
        let f = self.frame;
        let theme = if f.dark { Theme::DARK } else { Theme::LIGHT };
        mesh_scene(&self.replay, f.step, f.width, MeshOptions { pattern: f.pattern, heat: f.heat }, &theme)
    }

    /// An export.
    pub fn export(&mut self, kind: ExportKind) -> String {
        match kind {
            ExportKind::Csv => messages_csv(&self.replay),
            ExportKind::Json => RunJson::of_replay(&self.replay).pretty(),
            ExportKind::Svg(step) => {
                let f = FrameRequest { step: step.min(self.replay.steps()), ..self.frame };
                let theme = if f.dark { Theme::DARK } else { Theme::LIGHT };
                scene_svg(&mesh_scene(
                    &self.replay,
                    f.step,
                    f.width,
                    MeshOptions { pattern: f.pattern, heat: f.heat },
                    &theme,
                ))
            }
        }
    }
}

/// The before/after `round(K)` panel's inputs (the intact mesh only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRequest {
    /// Mesh side (`uq::UQ_SIZE`).
    pub size: u64,
    /// Encoding id.
    pub encoding: String,
    /// `K` (taken modulo the node count).
    pub k: u64,
    /// Link-set definition: `directed`, `undirected`, `gather-release`.
    pub links: String,
    /// Dark theme.
    pub dark: bool,
    /// The width to draw for, in px.
    #[serde(default = "round_width")]
    pub width: u32,
}

/// The before/after panel's default width.
fn round_width() -> u32 {
    900
}

impl RoundRequest {
    /// Whether the panel can draw this mesh, or the sentence the view shows.
    ///
    /// # Errors
    /// A side outside `uq::UQ_SIZE`.
    pub fn drawable(&self) -> Result<(), String> {
        use commlab_core::barrier::uq::UQ_SIZE;
        if UQ_SIZE.contains(self.size) {
            Ok(())
        } else {
            Err(format!(
                "The before/after panel draws meshes of side {} to {}; this one has side {}.",
                UQ_SIZE.min, UQ_SIZE.max, self.size
            ))
        }
    }
}

/// LCT and BST before and after `round(K)`: the drawing and one note per structure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundPanel {
    /// The SVG document.
    pub svg: String,
    /// `LCT: |A∩B| = …, |A∪B| = …, UQ = …` and the same for BST.
    pub notes: Vec<String>,
}

impl RoundRequest {
    /// Computes the panel.
    ///
    /// # Errors
    /// A side outside `uq::UQ_SIZE` (the message says what the panel draws), or an unknown id.
    pub fn run(&self) -> Result<RoundPanel, ApiError> {
        use commlab_core::barrier::encoding::Numbering;
        use commlab_core::barrier::uq::{round_changes, LinkSetDefinition, RoundChange, UQ_SIZE};
        use commlab_plot::barrier::round_figure;
        if !UQ_SIZE.contains(self.size) {
            return Err(ApiError::new(
                "size",
                self.size,
                format!("a side from {} to {} for the before/after panel", UQ_SIZE.min, UQ_SIZE.max),
            ));
        }
        let encoding: Encoding = parse_id("encoding", &self.encoding)?;
        let links: LinkSetDefinition = parse_id("links", &self.links)?;
        let mesh = Mesh::new(self.size)?;
        let numbering = Numbering::of_mesh(&mesh, encoding)?;
        let k = (self.k % u64::from(mesh.nodes())) as u32;
        let theme = if self.dark { Theme::DARK } else { Theme::LIGHT };
        let changes = round_changes(&mesh, &numbering, k, links);
        let mut notes: Vec<String> = changes.iter().map(RoundChange::note).collect();
        notes.extend(commlab_core::barrier::uq::paper_round_note(self.size, encoding, k, &changes));
        Ok(RoundPanel { svg: round_figure(&mesh, &numbering, (k, f64::from(self.width)), &changes, &theme), notes })
    }
}

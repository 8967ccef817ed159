//! The swizzle view's run: the schedule, the naive order, an optional
//! comparison, coverage and the cost model. Small grids are built on the page
//! (their drawings need the schedule); larger ones in the worker, which
//! answers with a [`SwizzleSummary`] and keeps the run for captions and
//! exports. Both paths show the numbers through the same summary.

use crate::ApiError;
use commlab_core::swizzle::{caption, CoreSplit, CostModel, Coverage, GridShape, Schedule, SwizzleConfig, PRESETS};
use commlab_plot::swizzle::CollisionBars;
use commlab_plot::{format_quantity as q, Theme};
use serde::{Deserialize, Serialize};

/// Loop indices above which the page leaves a swizzle run to the worker
/// (the drawn grid and timeline stay far below: 64 × 32 cells, 64 × 160 steps).
pub const PAGE_LOOPS: u64 = 1 << 14;

/// What the view can put beside the current configuration: id and label.
pub const COMPARES: [(&str, &str); 3] =
    [("none", "nothing"), ("shift", "shift on vs off"), ("deterministic", "deterministic vs not")];

/// Every input of the swizzle view.
#[allow(clippy::struct_excessive_bools, reason = "the view's independent switches")]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwizzleRequest {
    /// `gridShape` `(row, column, rank)`.
    pub grid: (u32, u32, u32),
    /// `coreSplit` `(row, column)`.
    pub cores: (u32, u32),
    /// `SWIZZLE_DIRECTION`.
    pub direction: u8,
    /// `IS_DETERMINISTIC`.
    pub deterministic: bool,
    /// The rank shift.
    pub shift: bool,
    /// Bytes per tile.
    pub tile_bytes: u64,
    /// Cost preset id.
    pub preset: String,
    /// Remote reads (else writes).
    pub read: bool,
    /// Bandwidth override (GiB/s), 0 for the preset's.
    pub bandwidth_gib_s: f64,
    /// Latency override (ns), 0 for the preset's.
    pub latency_ns: f64,
    /// Comparison: `none`, `shift`, `deterministic`.
    pub compare: String,
    /// Also run the schedule on `network`, with and without the shift.
    #[serde(default)]
    pub on_network: bool,
    /// The network (kept when switched off).
    #[serde(default = "default_network")]
    pub network: crate::network::NetRequest,
}

/// The swizzle's network until one is chosen: a ring of the default 8 ranks.
pub fn default_network() -> crate::network::NetRequest {
    crate::network::NetRequest::on(commlab_core::net::Shape::Ring(8))
}

impl Default for SwizzleRequest {
    /// 8 data tiles over 8 ranks with 4 × 2 cores: the shift turns the naive
    /// order's pile-ups into a Latin square.
    fn default() -> Self {
        SwizzleRequest {
            grid: (4, 2, 8),
            cores: (4, 2),
            direction: 0,
            deterministic: false,
            shift: true,
            tile_bytes: 65_536,
            preset: "a2".into(),
            read: false,
            bandwidth_gib_s: 0.0,
            latency_ns: 0.0,
            compare: "none".into(),
            on_network: false,
            network: default_network(),
        }
    }
}

/// One computed configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SwizzleRun {
    /// The schedule shown.
    pub schedule: Schedule,
    /// The same without the rank shift (the naive order).
    pub naive: Schedule,
    /// The comparison's label and schedule, when one is asked for.
    pub other: Option<Result<(String, Schedule), String>>,
    /// Coverage of `schedule`.
    pub coverage: Coverage,
    /// The cost model in use.
    pub cost: CostModel,
}

impl SwizzleRequest {
    fn config(&self, deterministic: bool, shift: bool) -> Result<SwizzleConfig, ApiError> {
        let grid = GridShape { row: self.grid.0, column: self.grid.1, rank: self.grid.2 };
        let cores = CoreSplit { row: self.cores.0, column: self.cores.1 };
        Ok(SwizzleConfig::new(grid, cores, self.direction, deterministic, shift)?)
    }

    /// The cost model: the preset, with the overrides that are non-zero.
    pub fn cost_model(&self) -> CostModel {
        let preset = PRESETS.iter().find(|x| x.id == self.preset).unwrap_or(&PRESETS[0]);
        let rtt = if self.read { preset.read_rtt_ns } else { preset.write_rtt_ns };
        CostModel {
            latency_ns: if self.latency_ns > 0.0 { self.latency_ns } else { rtt },
            bandwidth_gib_s: if self.bandwidth_gib_s > 0.0 { self.bandwidth_gib_s } else { preset.bandwidth_gib_s },
            tile_bytes: self.tile_bytes,
        }
    }

    /// Whether the page must leave this run to the worker (more than
    /// [`PAGE_LOOPS`] loop indices; an invalid configuration is refused at once on the page).
    pub fn heavy(&self) -> bool {
        self.config(self.deterministic, self.shift).is_ok_and(|c| c.loop_count() > PAGE_LOOPS)
    }

    /// Builds the run.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn run(&self) -> Result<SwizzleRun, ApiError> {
        use commlab_core::limits::swizzle_view as lim;
        let current = self.config(self.deterministic, self.shift)?;
        lim::DIRECTION.check(self.direction.into())?;
        lim::TILE_BYTES.check(self.tile_bytes)?;
        lim::BANDWIDTH.check(self.bandwidth_gib_s)?;
        lim::LATENCY.check(self.latency_ns)?;
        if !PRESETS.iter().any(|x| x.id == self.preset) {
            let ids: Vec<&str> = PRESETS.iter().map(|x| x.id).collect();
            return Err(ApiError::new("preset", &self.preset, format!("one of: {}", ids.join(", "))));
        }
        if !COMPARES.iter().any(|x| x.0 == self.compare) {
            let ids: Vec<&str> = COMPARES.iter().map(|x| x.0).collect();
            return Err(ApiError::new("compare", &self.compare, format!("one of: {}", ids.join(", "))));
        }
        let schedule = Schedule::new(&current);
        let naive = if self.shift { Schedule::new(&current.with_shift(false)) } else { schedule.clone() };
        let other = match self.compare.as_str() {
            "shift" => Some(Ok((
                if self.shift { "without the rank shift" } else { "with the rank shift" }.to_owned(),
                Schedule::new(&current.with_shift(!self.shift)),
            ))),
            "deterministic" => Some(
                self.config(!self.deterministic, self.shift)
                    .map(|c| {
                        let label = if self.deterministic { "non-deterministic" } else { "deterministic" };
                        (label.to_owned(), Schedule::new(&c))
                    })
                    .map_err(|e| e.to_string()),
            ),
            _ => None,
        };
        let coverage = schedule.coverage();
        Ok(SwizzleRun { schedule, naive, other, coverage, cost: self.cost_model() })
    }
}

/// One row of the numbers table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwizzleRow {
    /// What the row is.
    pub label: String,
    /// `current`, `naive` or `other` (tests find rows by it).
    pub id: String,
    /// Steps.
    pub steps: usize,
    /// Rank collisions in all.
    pub collisions: u64,
    /// Most cores on one rank in a step.
    pub busiest: u32,
    /// Modelled time, formatted (µs).
    pub time_us: String,
    /// Every cell visited exactly once.
    pub bijective: bool,
}

/// What the swizzle view shows besides the drawings that need the schedule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwizzleSummary {
    /// Cores, loop indices, steps.
    pub cores: u32,
    /// Loop indices.
    pub loops: usize,
    /// Steps.
    pub steps: usize,
    /// Data rows × ranks of the grid.
    pub cells: (u32, u32),
    /// The numbers table.
    pub rows: Vec<SwizzleRow>,
    /// Why the comparison could not be built.
    pub other_error: Option<String>,
    /// `(title, body)` of the warning when the mapping is not a bijection.
    pub coverage_warning: Option<(String, String)>,
    /// The table's caption (the cost model's parameters).
    pub cost_caption: String,
    /// The collisions per step (the view draws them for its width).
    pub collisions: CollisionBars,
}

impl SwizzleRun {
    /// The summary (its collisions are drawn by the view, for its width and theme).
    pub fn summary(&self) -> SwizzleSummary {
        let row = |label: String, s: &Schedule, id: &str| SwizzleRow {
            label,
            id: id.to_owned(),
            steps: s.steps(),
            collisions: s.total_collisions(),
            busiest: s.busiest_per_step().iter().copied().max().unwrap_or(0),
            time_us: q(self.cost.schedule_ns(s) / 1000.0),
            bijective: s.coverage().is_bijective(),
        };
        let mut rows = vec![row("this configuration".into(), &self.schedule, "current")];
        if self.schedule.config().shift() {
            rows.push(row("naive order (no rank shift)".into(), &self.naive, "naive"));
        }
        let mut other_error = None;
        match &self.other {
            Some(Ok((label, other))) => rows.push(row(label.clone(), other, "other")),
            Some(Err(e)) => other_error = Some(format!("comparison: {e}")),
            None => {}
        }
        let config = self.schedule.config();
        let coverage_warning = (!self.coverage.is_bijective()).then(|| {
            let (rank, column) = (config.grid().rank, config.effective_split().column);
            let why = if rank % column == 0 {
                String::new()
            } else {
                format!(
                    " (coreSplit.column = {column} does not divide rank = {rank}, so nStride = {} rounds down)",
                    rank / column
                )
            };
            let sample: Vec<String> =
                self.coverage.repeated.iter().take(4).map(|&(d, r, n)| format!("(data {d}, rank {r}) ×{n}")).collect();
            let missed: Vec<String> =
                self.coverage.missed.iter().take(4).map(|&(d, r)| format!("(data {d}, rank {r})")).collect();
            (
                format!("Not a bijection{why}:"),
                format!(
                    "{} cells are visited more than once, e.g. {}; {} cells are never visited, e.g. {}. The grid marks them in red.",
                    self.coverage.repeated.len(),
                    sample.join(", "),
                    self.coverage.missed.len(),
                    missed.join(", ")
                ),
            )
        });
        let c = self.cost;
        SwizzleSummary {
            cores: self.schedule.core_count(),
            loops: self.schedule.loop_count(),
            steps: self.schedule.steps(),
            cells: (config.grid().data(), config.grid().rank),
            rows,
            other_error,
            coverage_warning,
            cost_caption: format!(
                "Modelled with latency {} ns, {} GiB/s per link, {} B tiles: the swizzle's own step model (a step costs one latency plus its busiest rank's tiles over one link). Open in timeline simulates the same steps message by message, under LogGOPS or on the network below, so its time differs from these for that reason",
                q(c.latency_ns),
                q(c.bandwidth_gib_s),
                c.tile_bytes
            ),
            collisions: CollisionBars::of(&self.schedule, &self.naive),
        }
    }

    /// The caption of step `step` (1-based; 0 is the start).
    pub fn caption(&self, step: usize) -> String {
        if step == 0 {
            format!(
                "Start: {} cores, {} loop indices, {} steps. Each step every core takes the next loop index; press play or step forward.",
                self.schedule.core_count(),
                self.schedule.loop_count(),
                self.schedule.steps()
            )
        } else {
            caption(&self.schedule, step - 1)
        }
    }
}

/// One side of the swizzle on a network: with or without the rank shift.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwizzleNetSide {
    /// The rank shift on.
    pub shift: bool,
    /// When the last rank finished (ns).
    pub time_ns: f64,
    /// The hottest link (busy longest): `(name, busy ns, bytes, peak flows)`.
    pub hottest: Option<crate::chooser::Bottleneck>,
    /// Most flows in transfer at once.
    pub peak_flows: u64,
}

/// The swizzle's schedule on every rank, run on a network with and without
/// the rank shift (`o = g = 0`: the network alone decides).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SwizzleNet {
    /// Topology id.
    pub topology: String,
    /// The first link class: bandwidth (B/ns) and latency (ns).
    pub link: (f64, f64),
    /// With the rank shift, then without.
    pub sides: Vec<SwizzleNetSide>,
}

impl SwizzleNet {
    /// The comparison in a sentence.
    pub fn sentence(&self) -> String {
        let (with, without) = (self.sides[0].time_ns, self.sides[1].time_ns);
        format!(
            "On {} (links of {} B/ns and {} ns), the schedule on every rank takes {} ns with the rank shift and {} ns without it ({:.2}×).",
            self.topology,
            commlab_plot::format_quantity(self.link.0),
            commlab_plot::format_quantity(self.link.1),
            commlab_plot::format_quantity(with),
            commlab_plot::format_quantity(without),
            without / with.max(f64::MIN_POSITIVE)
        )
    }

    /// The comparison as bars with each side's hottest link, drawn for a box
    /// `width` px wide.
    pub fn figure(&self, width: f64, theme: &Theme) -> String {
        let label = |shift: bool| if shift { "with the rank shift" } else { "without (naive order)" }.to_owned();
        let bars: Vec<(String, f64, String)> = self
            .sides
            .iter()
            .map(|s| {
                let note = s.hottest.as_ref().map_or_else(
                    || "no link carried bytes".to_owned(),
                    |(name, busy, bytes, peak)| {
                        format!(
                            "hottest link {name}: busy {} ns, {}, at most {} at once",
                            commlab_plot::format_quantity(*busy),
                            whole_bytes(*bytes),
                            commlab_plot::count(u64::from(*peak), "flow", "flows")
                        )
                    },
                );
                (label(s.shift), s.time_ns, note)
            })
            .collect();
        let caption = format!("The swizzle on {}: time with and without the rank shift", self.topology);
        commlab_plot::swizzle::time_bars_svg(&caption, &bars, width, theme)
    }
}

/// Messages a swizzle may have to run on a network (each side).
pub const NET_MESSAGES: u64 = 1 << 18;

impl SwizzleRequest {
    /// The schedule (every rank runs it, one tile a message) on `net`, with
    /// and without the rank shift.
    ///
    /// # Errors
    /// A bad configuration or network, more ranks than hosts, more than
    /// [`NET_MESSAGES`] messages.
    pub fn on_network(&self, net: &crate::network::NetRequest) -> Result<SwizzleNet, ApiError> {
        commlab_core::limits::swizzle_view::TILE_BYTES.check(self.tile_bytes)?;
        let current = self.config(self.deterministic, self.shift)?;
        let ranks = u64::from(self.grid.2);
        let messages = ranks * current.loop_count();
        if messages > NET_MESSAGES {
            return Err(ApiError::new(
                "grid",
                format!("{}×{}×{}", self.grid.0, self.grid.1, self.grid.2),
                format!("at most {NET_MESSAGES} messages on a network (ranks × loops = {messages})"),
            ));
        }
        let network = net.network()?;
        let placement = net.placement;
        placement.hosts(self.grid.2, network.hosts())?;
        let params = net.sim_params(commlab_core::net::NetParams::default())?;
        let sides = [true, false]
            .into_iter()
            .map(|shift| {
                let schedule =
                    commlab_core::goal::patterns::swizzle(&current.with_shift(shift), self.tile_bytes, self.read);
                let out = commlab_core::net::simulate(&schedule, network.clone(), placement, params, false)?;
                let hottest = out.bottleneck(&network).map(|d| {
                    let (a, b) = network.ends(d);
                    let l = out.links[d as usize];
                    (format!("{}→{}", network.vertex_name(a), network.vertex_name(b)), l.busy, l.bytes, l.peak)
                });
                Ok(SwizzleNetSide { shift, time_ns: out.max().0, hottest, peak_flows: out.peak_flows as u64 })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        let class = net.classes(net.topology)?[0];
        Ok(SwizzleNet { topology: net.topology.to_string(), link: (class.bandwidth, class.latency), sides })
    }
}

/// A link's byte count (a sum of whole messages) in binary units when whole
/// (`3 584 KiB`), else in bytes with grouped digits; never in exponent form.
fn whole_bytes(bytes: f64) -> String {
    if bytes.is_finite() && (0.0..9.0e15).contains(&bytes) && bytes.fract() == 0.0 {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked: a whole number in 0..9e15"
        )]
        let whole = bytes as u64;
        commlab_plot::format_bytes(whole)
    } else {
        format!("{} B", commlab_plot::format_quantity(bytes))
    }
}

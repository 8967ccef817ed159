//! The collective chooser (issue 14; `docs/chooser.md`): for a collective,
//! every algorithm's α–β–γ time per message size (pipelined ones at their
//! best piece count), the winner and the crossovers, optionally LogGOPS
//! times of the same plans; and the winner map over p × size. `commlab
//! choose` prints [`ChooseResult`]; the Chooser view will draw it.
//!
//! Plans do not depend on the size, so each (algorithm, p, pieces) plan's
//! cost profile is built once and costed for every size (the pipelined
//! ones without building their plans: `choose::pipelined_profile`).

use crate::json::Json;
use crate::ApiError;
use commlab_core::choose::{goal, of, pipelined_profiles, plan, AlphaBeta, Collective, Cost, Load, Plan, Profile};
use commlab_core::limits;
use commlab_core::systems::Measure;

/// A cost split into its terms (the core's `Cost`, as a serde value).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Split {
    /// α × messages on the critical path.
    pub latency: f64,
    /// β × bytes on the critical path.
    pub bandwidth: f64,
    /// γ × bytes combined on the critical path.
    pub compute: f64,
}

impl Split {
    /// The total.
    pub fn total(&self) -> f64 {
        self.latency + self.bandwidth + self.compute
    }
}

impl From<Cost> for Split {
    fn from(c: Cost) -> Split {
        Split { latency: c.latency, bandwidth: c.bandwidth, compute: c.compute }
    }
}
use commlab_core::goal::sim::{simulate, Order, Params};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::rc::Rc;

pub use commlab_core::limits::chooser::P;
/// Piece counts tried for pipelined algorithms: powers of two up to this.
pub const MAX_PIECES: u32 = 4096;
/// Largest message size (bytes).
pub const MAX_BYTES: u64 = commlab_core::limits::chooser::SIZE.max;

/// What to compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChooseRequest {
    /// Collective id.
    pub collective: String,
    /// Ranks.
    pub p: u64,
    /// Smallest size (bytes); every power of two from here to `max_bytes`.
    pub min_bytes: u64,
    /// Largest size.
    pub max_bytes: u64,
    /// Exact sizes (bytes) instead of the powers of two of the range, when
    /// not empty (at most [`MAX_SIZES`]; sorted, each once).
    #[serde(default)]
    pub sizes: Vec<u64>,
    /// α, β, γ.
    pub alpha: f64,
    /// Per byte moved.
    pub beta: f64,
    /// Per byte combined.
    pub gamma: f64,
    /// Algorithm ids (empty: all of the collective).
    pub algorithms: Vec<String>,
    /// Also simulate under LogGOPS.
    pub simulate: bool,
    /// Simulate only plans of at most this many transfers (0: every plan);
    /// the view's bound on a simulation's work.
    #[serde(default)]
    pub sim_limit: u64,
    /// For [`check_pieces`]: check the pipelined algorithms' best piece
    /// count by simulation at the size nearest to this.
    #[serde(default)]
    pub check_at: Option<u64>,
    /// Simulate on this network instead of LogGOPS ([`SimRun`] and
    /// [`on_network`]): the winners and crossovers become the network's.
    #[serde(default)]
    pub network: Option<crate::network::NetRequest>,
}

/// One size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Bytes.
    pub bytes: u64,
    /// Per algorithm (in [`ChooseResult::algorithms`] order): the cost split at its best piece count.
    pub costs: Vec<Split>,
    /// Per algorithm: its best piece count (1 for the unpipelined).
    pub pieces: Vec<u32>,
    /// Per algorithm: LogGOPS time in units of α, when simulated (`None`
    /// for a plan over [`ChooseRequest::sim_limit`]).
    pub simulated: Option<Vec<Option<f64>>>,
    /// Index of the fastest.
    pub winner: usize,
    /// On a network ([`on_network`]): per algorithm, its time in ns
    /// (`None` for a plan over the limit), the fastest, and the winner's
    /// bottleneck link.
    #[serde(default)]
    pub network: Option<NetworkRow>,
}

/// A link that limited a run: `(name, busy ns, bytes, peak flows)`.
pub type Bottleneck = (String, f64, f64, u32);

/// One size on a network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkRow {
    /// Per algorithm: ns, when simulated (`None`: over the limit, or a
    /// break cut off ranks it needs, see `cut`).
    pub times: Vec<Option<f64>>,
    /// Index of the fastest simulated.
    pub winner: usize,
    /// The winner's bottleneck link.
    pub bottleneck: Option<Bottleneck>,
    /// Per algorithm: its bottleneck link.
    pub bottlenecks: Vec<Option<Bottleneck>>,
    /// Per algorithm: the piece count simulated: for pipelined algorithms
    /// the fastest on the network of m/4, m/2, m, 2m, 4m around the model's
    /// best m (each halved until the plan fits the limit).
    pub pieces: Vec<u32>,
    /// Per algorithm: broken links cut off ranks it exchanges with.
    pub cut: Vec<bool>,
}

impl NetworkRow {
    /// The row of `points` (one per algorithm): the fastest and its bottleneck.
    fn of(points: &[NetPoint]) -> NetworkRow {
        let times: Vec<Option<f64>> = points.iter().map(|p| p.time).collect();
        let winner = (0..times.len())
            .filter(|&k| times[k].is_some())
            .min_by(|&a, &b| times[a].unwrap_or(f64::INFINITY).total_cmp(&times[b].unwrap_or(f64::INFINITY)))
            .unwrap_or(0);
        NetworkRow {
            winner,
            bottleneck: points.get(winner).and_then(|p| p.bottleneck.clone()),
            bottlenecks: points.iter().map(|p| p.bottleneck.clone()).collect(),
            pieces: points.iter().map(|p| p.pieces).collect(),
            cut: points.iter().map(|p| p.cut).collect(),
            times,
        }
    }
}

/// One algorithm at one size on a network.
#[derive(Debug, Clone, PartialEq)]
struct NetPoint {
    time: Option<f64>,
    bottleneck: Option<Bottleneck>,
    pieces: u32,
    cut: bool,
}

/// Transfers a plan may have to be simulated on a network in the Chooser
/// view's chart (a pipelined plan with more runs with fewer pieces).
pub const NET_TRANSFERS: u64 = 65_536;
/// The same for each cell of a winner map on a network.
pub const NET_MAP_TRANSFERS: u64 = 8_192;
/// A winner map on a network has at most this many rows of p and columns of size.
pub const NET_MAP_SIDE: usize = 16;

/// A network checked for p ranks, ready to simulate plans on.
struct NetCtx {
    /// The request's text, the cache's key.
    key: String,
    topology: String,
    network: commlab_core::net::Network,
    placement: commlab_core::net::Placement,
    params: commlab_core::net::NetParams,
}

impl NetCtx {
    fn new(net: &crate::network::NetRequest, p: u32) -> Result<NetCtx, ApiError> {
        let network = net.network()?;
        let placement = net.placement;
        placement.hosts(p, network.hosts())?;
        let params = net.sim_params(commlab_core::net::NetParams::default())?;
        Ok(NetCtx { key: format!("{net:?}"), topology: net.topology.to_string(), network, placement, params })
    }

    /// `id` with (at most) `m` pieces and `n` bytes on this network, from
    /// `cache` when simulated before; pipelined plans over `limit`
    /// transfers get fewer pieces, others over it no time (0: no limit).
    #[allow(
        clippy::too_many_arguments,
        clippy::many_single_char_names,
        reason = "one point's coordinates, named as in the formulas"
    )]
    fn point(
        &self,
        cache: &mut Cache,
        collective: Collective,
        id: &'static str,
        p: u32,
        m: u32,
        n: u64,
        limit: u64,
    ) -> NetPoint {
        let key = (self.key.clone(), collective, id, p, m, n, limit);
        if let Some(point) = cache.net.get(&key) {
            return point.clone();
        }
        let over = (collective, id, p, m, limit);
        if let Some(&pieces) = cache.over.get(&over) {
            return NetPoint { time: None, bottleneck: None, pieces, cut: false };
        }
        let pipelined = of(collective).any(|a| a.id == id && a.pipelined);
        let mut pieces = m.max(1);
        let mut plan = within(collective, id, p, pieces, limit);
        while plan.is_none() && pipelined && pieces > 1 {
            pieces /= 2;
            plan = within(collective, id, p, pieces, limit);
        }
        if plan.is_none() {
            cache.over.insert(over, pieces);
        }
        let point = plan.map_or(NetPoint { time: None, bottleneck: None, pieces, cut: false }, |plan| {
            let run =
                commlab_core::net::simulate(&goal(&plan, n), self.network.clone(), self.placement, self.params, false);
            match run {
                Ok(out) if out.unreachable.is_empty() => NetPoint {
                    time: Some(out.max().0),
                    bottleneck: out.bottleneck(&self.network).map(|d| {
                        let (a, b) = self.network.ends(d);
                        let l = out.links[d as usize];
                        let name = format!("{}→{}", self.network.vertex_name(a), self.network.vertex_name(b));
                        (name, l.busy, l.bytes, l.peak)
                    }),
                    pieces,
                    cut: false,
                },
                Ok(_) => NetPoint { time: None, bottleneck: None, pieces, cut: true },
                Err(_) => NetPoint { time: None, bottleneck: None, pieces, cut: false },
            }
        });
        if cache.net.len() >= NET_CACHE_ENTRIES {
            cache.net.clear();
        }
        cache.net.insert(key, point.clone());
        point
    }
}

/// Network points kept at most (a full cache is emptied).
const NET_CACHE_ENTRIES: usize = 50_000;

/// The winners' changes along `rows` (by `winner` of each row).
fn changes(rows: &[Row], algorithms: &[String], winner: impl Fn(&Row) -> usize) -> Vec<Crossover> {
    rows.windows(2)
        .filter(|w| winner(&w[0]) != winner(&w[1]))
        .map(|w| Crossover {
            bytes: w[1].bytes,
            from: algorithms[winner(&w[0])].clone(),
            to: algorithms[winner(&w[1])].clone(),
        })
        .collect()
}

/// Where the fastest algorithm changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crossover {
    /// The smallest listed size at which `to` wins.
    pub bytes: u64,
    /// The winner below.
    pub from: String,
    /// The winner from here.
    pub to: String,
}

/// The comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChooseResult {
    /// Collective id.
    pub collective: String,
    /// Ranks.
    pub p: u32,
    /// Algorithm ids, in column order.
    pub algorithms: Vec<String>,
    /// Which of them are pipelined.
    pub pipelined: Vec<bool>,
    /// One row per size.
    pub rows: Vec<Row>,
    /// Winner changes.
    pub crossovers: Vec<Crossover>,
    /// On a network: its topology id and its winner changes (the rows'
    /// [`Row::network`]).
    #[serde(default)]
    pub network: Option<(String, Vec<Crossover>)>,
}

/// A pipelined algorithm's best piece count on the model, checked by
/// LogGOPS at the neighbouring powers of two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceCheck {
    /// Algorithm id.
    pub algorithm: String,
    /// Bytes.
    pub bytes: u64,
    /// The model's best piece count.
    pub model_pieces: u32,
    /// Per piece count tried (`m/4 … 4m`, powers of two in `1..=min(4096, n)`):
    /// `(m, model time, LogGOPS time)`.
    pub tried: Vec<(u32, f64, f64)>,
}

impl PieceCheck {
    /// The piece count LogGOPS finds fastest among those tried.
    pub fn simulated_best(&self) -> u32 {
        self.tried.iter().min_by(|a, b| a.2.total_cmp(&b.2)).map_or(self.model_pieces, |t| t.0)
    }
}

/// The cost profiles of one algorithm on one p: one per piece count tried.
pub(crate) struct Options {
    profiles: Vec<(u32, Profile)>,
}

impl Options {
    pub(crate) fn new(collective: Collective, id: &str, p: u32, pipelined: bool) -> Options {
        let profiles = if pipelined {
            let ms: Vec<u32> = (0..=MAX_PIECES.ilog2()).map(|k| 1 << k).collect();
            let profiles = pipelined_profiles(collective, id, p, &ms).expect("a pipelined algorithm");
            ms.into_iter().zip(profiles).collect()
        } else {
            vec![(1, plan(collective, id, p, 1).expect("a listed algorithm").profile())]
        };
        Options { profiles }
    }

    /// The best piece count for `n` bytes (at most one piece per byte) and its cost.
    pub(crate) fn best(&self, n: u64, ab: AlphaBeta) -> (u32, Cost) {
        self.profiles
            .iter()
            .filter(|(m, _)| u64::from(*m) <= n)
            .map(|(m, p)| (*m, p.cost(n, ab)))
            .min_by(|a, b| a.1.total().total_cmp(&b.1.total()))
            .expect("one piece always fits")
    }
}

fn check_ab(alpha: f64, beta: f64, gamma: f64) -> Result<AlphaBeta, ApiError> {
    for (name, v) in [("alpha", alpha), ("beta", beta), ("gamma", gamma)] {
        if !commlab_core::limits::chooser::COST.contains(v) {
            return Err(ApiError::new(name, v, "a time from 0 to 10^12"));
        }
    }
    Ok(AlphaBeta { alpha, beta, gamma })
}

/// The algorithms asked for (all of the collective when none).
pub(crate) fn algorithms(collective: Collective, asked: &[String]) -> Result<Vec<(&'static str, bool)>, ApiError> {
    if asked.is_empty() {
        return Ok(of(collective).map(|a| (a.id, a.pipelined)).collect());
    }
    asked
        .iter()
        .map(|a| {
            of(collective).find(|x| x.id == a).map(|x| (x.id, x.pipelined)).ok_or_else(|| {
                let ids: Vec<&str> = of(collective).map(|x| x.id).collect();
                ApiError::new("algorithms", a, format!("{collective} algorithms: {}", ids.join(", ")))
            })
        })
        .collect()
}

/// The powers of two in `lo..=hi`.
pub fn sizes(lo: u64, hi: u64) -> Vec<u64> {
    (0..=40).map(|k| 1u64 << k).filter(|&b| b >= lo && b <= hi).collect()
}

/// An α–β–γ preset of the Chooser: what its numbers are and where they come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostPreset {
    /// Its id (`preset=` in a link).
    pub id: &'static str,
    /// How the select names it.
    pub label: &'static str,
    /// α, β, γ.
    pub abg: [f64; 3],
    /// Where the numbers come from.
    pub source: &'static str,
}

/// The α–β–γ presets, the default first.
pub const COST_PRESETS: [CostPreset; 2] = [
    CostPreset {
        id: "textbook",
        label: "Textbook: α = 1, β = 0.001 (a start costs 1000 bytes)",
        abg: [1.0, 0.001, 0.0],
        source: "round numbers for teaching: a message start costs as much as 1000 bytes; times in units of α",
    },
    CostPreset {
        id: "loggopsim",
        label: "LogGOPSim defaults: α = L + 2o = 5500 ns, β = G = 6 ns/B",
        abg: [5500.0, 6.0, 0.0],
        source: "LogGOPSim's defaults L = 2500, o = 1500, G = 6 (ns); times in ns",
    },
];

/// The smallest size compared unless asked (bytes).
pub const DEFAULT_MIN_BYTES: u64 = 8;
/// The largest (bytes).
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

/// What every Chooser request shares: the collective, p, the sizes, α, β,
/// γ and the algorithms. The Chooser view's state holds one, `commlab
/// choose` builds one from its flags, and both ask through
/// [`Comparison::choose`] and [`Comparison::map`], so a field added to a
/// request is filled in one place.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The collective.
    pub collective: Collective,
    /// Ranks.
    pub p: u32,
    /// Smallest size (bytes).
    pub lo: u64,
    /// Largest size (bytes).
    pub hi: u64,
    /// α, β, γ.
    pub abg: [f64; 3],
    /// The algorithms compared, in the collective's order (empty: all of it).
    pub algorithms: Vec<String>,
}

impl Default for Comparison {
    fn default() -> Comparison {
        Comparison {
            collective: Collective::Allreduce,
            p: 64,
            lo: DEFAULT_MIN_BYTES,
            hi: DEFAULT_MAX_BYTES,
            abg: COST_PRESETS[0].abg,
            algorithms: Vec::new(),
        }
    }
}

impl Comparison {
    /// The algorithms compared (every one of the collective when none is named).
    pub fn included(&self) -> Vec<String> {
        if self.algorithms.is_empty() {
            of(self.collective).map(|a| a.id.to_owned()).collect()
        } else {
            self.algorithms.clone()
        }
    }

    /// The algorithms left out, in the collective's order.
    pub fn left_out(&self) -> Vec<String> {
        let on = self.included();
        of(self.collective).map(|a| a.id.to_owned()).filter(|id| !on.contains(id)).collect()
    }

    /// Leaves `off` out (an empty list: none), keeping the collective's order.
    pub fn leave_out(&mut self, off: &[String]) {
        let on: Vec<String> = of(self.collective).map(|a| a.id.to_owned()).filter(|id| !off.contains(id)).collect();
        self.algorithms = if off.is_empty() { Vec::new() } else { on };
    }

    /// α, β, γ as the core takes them.
    pub fn cost(&self) -> AlphaBeta {
        AlphaBeta { alpha: self.abg[0], beta: self.abg[1], gamma: self.abg[2] }
    }

    /// The comparison over the powers of two from `lo` to `hi` (or `sizes`
    /// when not empty), with LogGOPS points when `simulate` (plans of at most
    /// `sim_limit` transfers; 0: every plan), on `network` when given.
    pub fn choose(&self, simulate: bool, sim_limit: u64, network: Option<crate::network::NetRequest>) -> ChooseRequest {
        ChooseRequest {
            collective: self.collective.id().to_owned(),
            p: u64::from(self.p),
            min_bytes: self.lo,
            max_bytes: self.hi,
            sizes: Vec::new(),
            alpha: self.abg[0],
            beta: self.abg[1],
            gamma: self.abg[2],
            algorithms: self.algorithms.clone(),
            simulate,
            sim_limit,
            check_at: None,
            network,
        }
    }

    /// The winner map over p from `p_lo` to `p_hi` and this comparison's sizes.
    pub fn map(&self, (p_lo, p_hi): (u32, u32), network: Option<crate::network::NetRequest>) -> MapRequest {
        MapRequest {
            collective: self.collective.id().to_owned(),
            algorithms: self.algorithms.clone(),
            p_lo,
            p_hi,
            min_bytes: self.lo,
            max_bytes: self.hi,
            alpha: self.abg[0],
            beta: self.abg[1],
            gamma: self.abg[2],
            network,
        }
    }
}

impl ChooseRequest {
    /// The sizes compared: [`ChooseRequest::sizes`], or every power of two
    /// from `min_bytes` to `max_bytes`.
    ///
    /// # Errors
    /// A size out of range, too many sizes, a range that holds no power of two.
    pub fn size_list(&self) -> Result<Vec<u64>, ApiError> {
        if !self.sizes.is_empty() {
            let mut list = self.sizes.clone();
            list.sort_unstable();
            list.dedup();
            let bytes = |e| ApiError { field: "bytes".into(), ..ApiError::from(e) };
            limits::chooser::SIZES.check(list.len() as u64).map_err(bytes)?;
            for &n in &list {
                limits::chooser::SIZE.check(n).map_err(bytes)?;
            }
            return Ok(list);
        }
        let range = format!("{}..{}", self.min_bytes, self.max_bytes);
        if self.min_bytes == 0 || self.min_bytes > self.max_bytes || self.max_bytes > MAX_BYTES {
            return Err(ApiError::new("bytes", range, format!("MIN..MAX with 1 ≤ MIN ≤ MAX ≤ {MAX_BYTES}")));
        }
        let list = sizes(self.min_bytes, self.max_bytes);
        if list.is_empty() {
            return Err(ApiError::new("bytes", range, "a range that holds a power of two, or exact sizes".to_owned()));
        }
        Ok(list)
    }

    /// Compares the algorithms.
    ///
    /// # Errors
    /// An unknown collective or algorithm; p, a size or α, β, γ out of range.
    pub fn run(&self) -> Result<ChooseResult, ApiError> {
        self.run_cached(&mut Cache::default())
    }

    /// [`ChooseRequest::run`] with profiles kept in `cache` for the next request.
    ///
    /// # Errors
    /// As [`ChooseRequest::run`].
    ///
    /// # Panics
    /// Never: the algorithms were checked to be the collective's.
    pub fn run_cached(&self, cache: &mut Cache) -> Result<ChooseResult, ApiError> {
        let collective: Collective = crate::parse_id("collective", &self.collective)?;
        P.check(self.p).map_err(ApiError::from)?;
        let p = self.p as u32;
        let sizes = self.size_list()?;
        let ab = check_ab(self.alpha, self.beta, self.gamma)?;
        let algorithms = algorithms(collective, &self.algorithms)?;
        let options: Vec<Rc<Options>> =
            algorithms.iter().map(|&(id, pipelined)| cache.options(collective, id, p, pipelined)).collect();
        let rows: Vec<Row> = sizes
            .iter()
            .map(|&n| {
                let best: Vec<(u32, Cost)> = options.iter().map(|o| o.best(n, ab)).collect();
                let winner =
                    (0..best.len()).min_by(|&a, &b| best[a].1.total().total_cmp(&best[b].1.total())).unwrap_or(0);
                Row {
                    bytes: n,
                    costs: best.iter().map(|b| b.1.into()).collect(),
                    pieces: best.iter().map(|b| b.0).collect(),
                    simulated: None,
                    winner,
                    network: None,
                }
            })
            .collect();
        let ids: Vec<String> = algorithms.iter().map(|a| a.0.to_owned()).collect();
        let crossovers = changes(&rows, &ids, |r| r.winner);
        let mut result = ChooseResult {
            collective: collective.id().to_owned(),
            p,
            algorithms: ids,
            pipelined: algorithms.iter().map(|a| a.1).collect(),
            rows,
            crossovers,
            network: None,
        };
        if self.simulate && self.network.is_none() {
            for row in 0..result.rows.len() {
                simulate_row(&mut result, row, self.sim_limit, ab);
            }
        }
        Ok(result)
    }
}

/// Adds the LogGOPS times of row `row` (each algorithm at its best piece
/// count; plans over `limit` transfers are left out unless `limit` is 0).
///
/// # Panics
/// Never: the result's algorithms are its collective's.
pub fn simulate_row(result: &mut ChooseResult, row: usize, limit: u64, ab: AlphaBeta) {
    let Ok(collective) = result.collective.parse::<Collective>() else { return };
    let p = result.p;
    let r = &mut result.rows[row];
    let times = result
        .algorithms
        .iter()
        .zip(&r.pieces)
        .map(|(id, &m)| within(collective, id, p, m, limit).map(|plan| simulated(&plan, r.bytes, ab)))
        .collect();
    r.simulated = Some(times);
}

/// The static ids of `result`'s algorithms.
fn static_ids(collective: Collective, ids: &[String]) -> Vec<&'static str> {
    ids.iter().map(|id| of(collective).find(|a| a.id == id).map_or("", |a| a.id)).collect()
}

/// Simulates every algorithm of `result` (at its model-best piece count) on
/// `net`, size by size, and sets each row's [`Row::network`] and the
/// result's [`ChooseResult::network`]; returns the crossovers on that
/// network. Pipelined plans over `limit` transfers are simulated with fewer
/// pieces, others over it not at all (0: no limit).
///
/// # Errors
/// A bad network, more ranks than hosts.
pub fn on_network(
    result: &mut ChooseResult,
    net: &crate::network::NetRequest,
    limit: u64,
) -> Result<Vec<Crossover>, ApiError> {
    let mut run = SimRun::of(result.clone(), Some(net), limit, AlphaBeta { alpha: 1.0, beta: 0.0, gamma: 0.0 })?;
    let mut cache = Cache::default();
    while !run.step(&mut cache) {}
    *result = run.result;
    Ok(result.network.as_ref().map(|n| n.1.clone()).unwrap_or_default())
}

/// The simulated points of a comparison, a point a step (the Chooser view's
/// dots, after its model curves): LogGOPS a size a step, or on a network an
/// algorithm at a size a step.
pub struct SimRun {
    /// The comparison, its rows simulated so far.
    pub result: ChooseResult,
    next: usize,
    limit: u64,
    ab: AlphaBeta,
    net: Option<NetCtx>,
    points: Vec<NetPoint>,
}

impl SimRun {
    /// The model comparison of `request` (without simulation), to simulate
    /// step by step (on its network when it has one).
    ///
    /// # Errors
    /// As [`ChooseRequest::run`]; a bad network or more ranks than hosts.
    pub fn new(request: &ChooseRequest, cache: &mut Cache) -> Result<SimRun, ApiError> {
        let model = ChooseRequest { simulate: false, ..request.clone() };
        let result = model.run_cached(cache)?;
        let ab = AlphaBeta { alpha: request.alpha, beta: request.beta, gamma: request.gamma };
        let limit = if request.network.is_some() { request.sim_limit.min(NET_TRANSFERS) } else { request.sim_limit };
        SimRun::of(result, request.network.as_ref(), limit, ab)
    }

    fn of(
        result: ChooseResult,
        net: Option<&crate::network::NetRequest>,
        limit: u64,
        ab: AlphaBeta,
    ) -> Result<SimRun, ApiError> {
        let net = net.map(|n| NetCtx::new(n, result.p)).transpose()?;
        Ok(SimRun { result, next: 0, limit, ab, net, points: Vec::new() })
    }

    /// Steps done and in all (sizes; on a network, algorithms × sizes).
    pub fn progress(&self) -> (u64, u64) {
        let per = if self.net.is_some() { self.result.algorithms.len().max(1) } else { 1 };
        (self.next as u64, (self.result.rows.len() * per) as u64)
    }

    /// Whether the points are simulated on a network.
    pub fn on_network(&self) -> bool {
        self.net.is_some()
    }

    /// Simulates the next point (points kept in `cache` cost nothing, so
    /// as many of them as follow are taken too); true when all are.
    pub fn step(&mut self, cache: &mut Cache) -> bool {
        let Some(net) = &self.net else {
            if self.next < self.result.rows.len() {
                simulate_row(&mut self.result, self.next, self.limit, self.ab);
                self.next += 1;
            }
            return self.next >= self.result.rows.len();
        };
        let Ok(collective) = self.result.collective.parse::<Collective>() else { return true };
        let ids = static_ids(collective, &self.result.algorithms);
        let per = ids.len().max(1);
        let total = self.result.rows.len() * per;
        let mut fresh = false;
        while self.next < total {
            let (row, k) = (self.next / per, self.next % per);
            let r = &self.result.rows[row];
            let key = (net.key.clone(), collective, ids[k], self.result.p, r.pieces[k], r.bytes, self.limit);
            if fresh && !cache.net.contains_key(&key) {
                break;
            }
            fresh = true;
            let (ranks, m, bytes) = (self.result.p, r.pieces[k], r.bytes);
            let point = if self.result.pipelined[k] {
                // The piece count is the network's: m/4 … 4m around the
                // model's best, the fastest kept (the first on a tie).
                let mut best = net.point(cache, collective, ids[k], ranks, m, bytes, self.limit);
                for c in [m / 4, m / 2, m.saturating_mul(2), m.saturating_mul(4)] {
                    if c == 0 || c == m || c > commlab_core::limits::PIECES.max as u32 {
                        continue;
                    }
                    let other = net.point(cache, collective, ids[k], ranks, c, bytes, self.limit);
                    if other.time.is_some_and(|t| best.time.is_none_or(|b| t < b)) {
                        best = other;
                    }
                }
                best
            } else {
                net.point(cache, collective, ids[k], ranks, m, bytes, self.limit)
            };
            self.points.push(point);
            self.next += 1;
            if self.next % per == 0 {
                let points = std::mem::take(&mut self.points);
                self.result.rows[row].network = Some(NetworkRow::of(&points));
            }
        }
        if self.next >= total {
            let winner = |r: &Row| r.network.as_ref().map_or(r.winner, |n| n.winner);
            let crossovers = changes(&self.result.rows, &self.result.algorithms, winner);
            self.result.network = Some((net.topology.clone(), crossovers));
            return true;
        }
        false
    }
}

/// The plan of `id` with `m` pieces when it has at most `limit` transfers
/// (any number when `limit` is 0). A pipelined plan is not built to count
/// them: every piece crosses each of the p − 1 tree edges once per phase.
fn within(collective: Collective, id: &str, p: u32, m: u32, limit: u64) -> Option<Plan> {
    let pipelined = of(collective).any(|a| a.id == id && a.pipelined);
    let phases = if collective == Collective::Allreduce { 2 } else { 1 };
    if limit > 0 && pipelined && u64::from(m) * u64::from(p.saturating_sub(1)) * phases > limit {
        return None;
    }
    let plan = plan(collective, id, p, m).expect("a listed algorithm");
    let transfers: usize = plan.rounds.iter().map(Vec::len).sum();
    (limit == 0 || transfers as u64 <= limit).then_some(plan)
}

/// The chunk optimizer checked by simulation: at the row nearest to `at`,
/// each pipelined algorithm at `m/4 … 4m` around its model-best `m` (plans
/// over `limit` transfers left out unless `limit` is 0).
///
/// # Panics
/// Never: the result's algorithms are its collective's.
pub fn piece_checks(result: &ChooseResult, at: u64, limit: u64, ab: AlphaBeta) -> Vec<PieceCheck> {
    let Ok(collective) = result.collective.parse::<Collective>() else { return Vec::new() };
    let Some(row) = result.rows.iter().min_by_key(|r| r.bytes.abs_diff(at)) else { return Vec::new() };
    let n = row.bytes;
    result
        .algorithms
        .iter()
        .enumerate()
        .filter(|(k, _)| result.pipelined[*k])
        .map(|(k, id)| {
            let m = row.pieces[k];
            let tried = [m / 4, m / 2, m, m.saturating_mul(2), m.saturating_mul(4)]
                .into_iter()
                .filter(|&x| (1..=MAX_PIECES).contains(&x) && u64::from(x) <= n)
                .collect::<std::collections::BTreeSet<u32>>()
                .into_iter()
                .filter_map(|x| {
                    within(collective, id, result.p, x, limit)
                        .map(|plan| (x, plan.cost(n, ab).total(), simulated(&plan, n, ab)))
                })
                .collect();
            PieceCheck { algorithm: id.clone(), bytes: n, model_pieces: m, tried }
        })
        .collect()
}

/// [`piece_checks`] of `request` at its `check_at` (the model run first,
/// with profiles from `cache`; nothing without `check_at`).
///
/// # Errors
/// As [`ChooseRequest::run`].
pub fn check_pieces(request: &ChooseRequest, cache: &mut Cache) -> Result<Vec<PieceCheck>, ApiError> {
    let Some(at) = request.check_at else { return Ok(Vec::new()) };
    let model = ChooseRequest { simulate: false, ..request.clone() }.run_cached(cache)?;
    let ab = AlphaBeta { alpha: request.alpha, beta: request.beta, gamma: request.gamma };
    Ok(piece_checks(&model, at, request.sim_limit, ab))
}

/// LogGOPS time of `plan` with `n` bytes, in units of α: `G = 1000` ticks
/// per byte (`L = 1000·α/β` ticks, rounded) with `o = g = O = 0`, all eager.
/// γ has no LogGOPS counterpart and is left out.
pub fn simulated(plan: &Plan, n: u64, ab: AlphaBeta) -> f64 {
    let (params, scale) = loggops_of(ab);
    simulate(&goal(plan, n), params, Order::Stable, false).max().0 as f64 / scale
}

/// The LogGOPS parameters of the chooser's special case for `ab` — `L = α`,
/// `G = β` in ticks of `β/1000` (of `α/1000` when β = 0), `o = g = O = 0`,
/// every message eager — and the ticks per unit of α.
pub fn loggops_of(ab: AlphaBeta) -> (Params, f64) {
    let scale = if ab.beta > 0.0 { 1000.0 / ab.beta } else { 1000.0 / ab.alpha.max(1e-9) };
    let params = Params {
        l: (ab.alpha * scale).round() as u64,
        o: 0,
        g: 0,
        big_g: (ab.beta * scale).round() as u64,
        big_o: 0,
        s: u64::MAX / 4,
    };
    (params, scale)
}

/// The fastest algorithm on a p × size grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WinnerMap {
    /// Algorithm ids.
    pub algorithms: Vec<String>,
    /// The p of each row.
    pub ps: Vec<u32>,
    /// The size of each column.
    pub sizes: Vec<u64>,
    /// Row-major: the index of the fastest algorithm.
    pub winner: Vec<u8>,
    /// Row-major: how much slower the runner-up is (its time / the winner's; 1 when alone).
    pub margin: Vec<f64>,
    /// Row-major: the winner's best piece count.
    pub pieces: Vec<u32>,
    /// The topology the cells were simulated on (`None`: the model).
    #[serde(default)]
    pub network: Option<String>,
}

/// The winner map of `collective` over `ps` × `sizes` (all its algorithms or `asked`).
///
/// # Errors
/// An unknown collective or algorithm, a p out of [`P`], α, β, γ out of range.
pub fn winner_map(
    collective: &str,
    asked: &[String],
    ps: &[u32],
    sizes: &[u64],
    ab: AlphaBeta,
) -> Result<WinnerMap, ApiError> {
    let mut cache = Cache::default();
    let mut run = MapRun::new(collective, asked, ps.to_vec(), sizes.to_vec(), ab)?;
    while !run.step(&mut cache) {}
    Ok(run.map)
}

/// A winner map to compute (the Chooser view's, in the engine worker).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapRequest {
    /// Collective id.
    pub collective: String,
    /// Algorithm ids (empty: all of the collective).
    pub algorithms: Vec<String>,
    /// Smallest and largest p (rows: [`map_ps`]).
    pub p_lo: u32,
    /// Largest p.
    pub p_hi: u32,
    /// Smallest and largest size (columns: [`map_sizes`]).
    pub min_bytes: u64,
    /// Largest size.
    pub max_bytes: u64,
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// γ.
    pub gamma: f64,
    /// On this network instead of the model (a coarser map: at most
    /// [`NET_MAP_SIDE`] rows and columns, p up to the hosts).
    #[serde(default)]
    pub network: Option<crate::network::NetRequest>,
}

impl MapRequest {
    /// The run of this request.
    ///
    /// # Errors
    /// As [`MapRun::new`]; sizes beyond [`MAX_BYTES`].
    pub fn start(&self) -> Result<MapRun, ApiError> {
        if self.min_bytes == 0 || self.min_bytes > self.max_bytes || self.max_bytes > MAX_BYTES {
            let range = format!("{}..{}", self.min_bytes, self.max_bytes);
            return Err(ApiError::new("bytes", range, format!("MIN..MAX with 1 ≤ MIN ≤ MAX ≤ {MAX_BYTES}")));
        }
        let ab = AlphaBeta { alpha: self.alpha, beta: self.beta, gamma: self.gamma };
        let Some(net) = &self.network else {
            return MapRun::new(
                &self.collective,
                &self.algorithms,
                map_ps(self.p_lo, self.p_hi),
                map_sizes(self.min_bytes, self.max_bytes),
                ab,
            );
        };
        let hosts = net.network()?.hosts();
        if self.p_lo.min(self.p_hi) > hosts {
            return Err(ApiError::new(
                "map",
                format!("p from {}", self.p_lo),
                format!("p up to the topology's {hosts} hosts"),
            ));
        }
        let ps = thin(&map_ps(self.p_lo, self.p_hi.min(hosts)), NET_MAP_SIDE);
        let sizes = thin(&map_sizes(self.min_bytes, self.max_bytes), NET_MAP_SIDE);
        let mut run = MapRun::new(&self.collective, &self.algorithms, ps, sizes, ab)?;
        run.net = Some(NetCtx::new(net, hosts)?);
        run.map.network = Some(net.topology.to_string());
        Ok(run)
    }
}

/// Profiles kept between requests (a view's redraw with other α, β, γ or
/// sizes costs the kept profiles again instead of building them): per
/// (collective, algorithm, p), each piece count's profile.
#[derive(Default)]
pub struct Cache {
    options: HashMap<(Collective, &'static str, u32), Rc<Options>>,
    /// Points simulated on networks: (network, collective, algorithm, p, pieces, bytes, limit).
    net: HashMap<NetKey, NetPoint>,
    /// Plans over a limit, whatever the size: (collective, algorithm, p,
    /// pieces asked, limit) → the pieces last tried. Building one to count
    /// it is the cost (ring allreduce at p = 1024: 2 M transfers, 0.3 s
    /// natively), so it is built once, not once per size.
    over: HashMap<(Collective, &'static str, u32, u32, u64), u32>,
}

type NetKey = (String, Collective, &'static str, u32, u32, u64, u64);

/// Profiles kept at most (each a few hundred bytes; a full cache is emptied).
const CACHE_ENTRIES: usize = 20_000;

impl Cache {
    pub(crate) fn options(&mut self, collective: Collective, id: &'static str, p: u32, pipelined: bool) -> Rc<Options> {
        if self.options.len() >= CACHE_ENTRIES {
            self.options.clear();
        }
        self.options
            .entry((collective, id, p))
            .or_insert_with(|| Rc::new(Options::new(collective, id, p, pipelined)))
            .clone()
    }

    /// Whether every profile `request` needs is kept (then it costs
    /// microseconds: the view answers on the page instead of a worker round trip).
    pub fn covers(&self, request: &ChooseRequest) -> bool {
        let (Ok(collective), Ok(p)) = (request.collective.parse::<Collective>(), u32::try_from(request.p)) else {
            return false;
        };
        algorithms(collective, &request.algorithms)
            .is_ok_and(|list| list.iter().all(|(id, _)| self.options.contains_key(&(collective, *id, p))))
    }

    /// The kept profiles `request` needs, to hand to another cache (the
    /// worker's to the page's), in [`Cache::import`]'s form.
    pub fn export(&self, request: &ChooseRequest) -> Vec<KeptProfiles> {
        let (Ok(collective), Ok(p)) = (request.collective.parse::<Collective>(), u32::try_from(request.p)) else {
            return Vec::new();
        };
        let Ok(list) = algorithms(collective, &request.algorithms) else { return Vec::new() };
        list.iter()
            .filter_map(|(id, _)| {
                let o = self.options.get(&(collective, *id, p))?;
                Some(KeptProfiles {
                    collective: collective.id().to_owned(),
                    algorithm: (*id).to_owned(),
                    p,
                    profiles: o
                        .profiles
                        .iter()
                        .map(|(m, prof)| {
                            let shapes = prof
                                .shapes
                                .iter()
                                .map(|(loads, count)| {
                                    (loads.iter().map(|l| [l.messages, l.blocks, l.combined]).collect(), *count)
                                })
                                .collect();
                            (*m, prof.unit_blocks, shapes)
                        })
                        .collect(),
                })
            })
            .collect()
    }

    /// Keeps profiles exported by [`Cache::export`] (unknown ids are skipped).
    pub fn import(&mut self, kept: &[KeptProfiles]) {
        for k in kept {
            let Ok(collective) = k.collective.parse::<Collective>() else { continue };
            let Some(id) = of(collective).find(|a| a.id == k.algorithm).map(|a| a.id) else { continue };
            let profiles = k
                .profiles
                .iter()
                .map(|(m, unit_blocks, shapes)| {
                    let shapes = shapes
                        .iter()
                        .map(|(loads, count)| {
                            let loads =
                                loads.iter().map(|&[messages, blocks, combined]| Load { messages, blocks, combined });
                            (loads.collect(), *count)
                        })
                        .collect();
                    (*m, Profile { unit_blocks: *unit_blocks, shapes })
                })
                .collect();
            self.options.insert((collective, id, k.p), Rc::new(Options { profiles }));
        }
    }
}

/// One algorithm's kept profiles on one p, as plain data (piece count,
/// blocks, shapes of `[messages, blocks, combined]` loads with their counts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptProfiles {
    /// Collective id.
    pub collective: String,
    /// Algorithm id.
    pub algorithm: String,
    /// Ranks.
    pub p: u32,
    /// Per piece count: `(m, unit blocks, shapes)`.
    #[allow(clippy::type_complexity, reason = "plain data for the wire")]
    pub profiles: Vec<(u32, u32, Vec<(Vec<[u64; 3]>, u64)>)>,
}

/// At most `count` of `values`, evenly spread, the first and last kept.
fn thin<T: Copy>(values: &[T], count: usize) -> Vec<T> {
    if values.len() <= count || count < 2 {
        return values.to_vec();
    }
    let last = values.len() - 1;
    let mut picked: Vec<usize> = (0..count).map(|k| (k * last + (count - 1) / 2) / (count - 1)).collect();
    picked.dedup();
    picked.into_iter().map(|i| values[i]).collect()
}

/// A winner map being computed, one p (row) a step.
pub struct MapRun {
    collective: Collective,
    algorithms: Vec<(&'static str, bool)>,
    ab: AlphaBeta,
    /// On a network: the cells are simulated there.
    net: Option<NetCtx>,
    /// The map so far.
    pub map: WinnerMap,
}

impl MapRun {
    /// Checks the request and prepares an empty map.
    ///
    /// # Errors
    /// An unknown collective or algorithm, a p out of [`P`], α, β, γ out of range, no p or no size.
    pub fn new(
        collective: &str,
        asked: &[String],
        ps: Vec<u32>,
        sizes: Vec<u64>,
        ab: AlphaBeta,
    ) -> Result<MapRun, ApiError> {
        let collective: Collective = crate::parse_id("collective", collective)?;
        let ab = check_ab(ab.alpha, ab.beta, ab.gamma)?;
        let algorithms = algorithms(collective, asked)?;
        for &p in &ps {
            P.check(u64::from(p)).map_err(ApiError::from)?;
        }
        if ps.is_empty() || sizes.is_empty() || sizes.contains(&0) || sizes.iter().any(|&n| n > MAX_BYTES) {
            return Err(ApiError::new(
                "map",
                format!("{} p × {} sizes", ps.len(), sizes.len()),
                format!("at least one p and one size in 1..={MAX_BYTES}"),
            ));
        }
        let map = WinnerMap {
            algorithms: algorithms.iter().map(|a| a.0.to_owned()).collect(),
            ps,
            sizes,
            winner: Vec::new(),
            margin: Vec::new(),
            pieces: Vec::new(),
            network: None,
        };
        Ok(MapRun { collective, algorithms, ab, net: None, map })
    }

    /// Rows done and in all.
    pub fn progress(&self) -> (u64, u64) {
        let cols = self.map.sizes.len().max(1);
        ((self.map.winner.len() / cols) as u64, self.map.ps.len() as u64)
    }

    /// Computes the next row; true when the map is complete.
    pub fn step(&mut self, cache: &mut Cache) -> bool {
        let (done, total) = self.progress();
        if done >= total {
            return true;
        }
        let p = self.map.ps[done as usize];
        let options: Vec<Rc<Options>> =
            self.algorithms.iter().map(|&(id, pipelined)| cache.options(self.collective, id, p, pipelined)).collect();
        for &n in &self.map.sizes {
            let best: Vec<(u32, Cost)> = options.iter().map(|o| o.best(n, self.ab)).collect();
            let mut times: Vec<(f64, u32)> = match &self.net {
                None => best.iter().map(|b| (b.1.total(), b.0)).collect(),
                Some(net) => self
                    .algorithms
                    .iter()
                    .zip(&best)
                    .map(|(&(id, _), b)| {
                        let point = net.point(cache, self.collective, id, p, b.0, n, NET_MAP_TRANSFERS);
                        (point.time.unwrap_or(f64::INFINITY), point.pieces)
                    })
                    .collect(),
            };
            let winner = (0..times.len()).min_by(|&a, &b| times[a].0.total_cmp(&times[b].0)).unwrap_or(0);
            let best = times[winner];
            times.remove(winner);
            let runner_up = times.iter().map(|t| t.0).filter(|t| t.is_finite()).min_by(f64::total_cmp);
            self.map.winner.push(winner as u8);
            let margin = runner_up.map_or(1.0, |r| if best.0 > 0.0 && best.0.is_finite() { r / best.0 } else { 1.0 });
            self.map.margin.push(margin);
            self.map.pieces.push(best.1);
        }
        done + 1 >= total
    }
}

/// The p rows of a winner map over `lo..=hi`: every p when at most 64, else
/// 64 values spaced evenly on a log scale (rounded, distinct).
pub fn map_ps(lo: u32, hi: u32) -> Vec<u32> {
    let (lo, hi) = (lo.min(hi).max(1), hi.max(lo).max(1));
    if hi - lo < 64 {
        return (lo..=hi).collect();
    }
    let mut ps: Vec<u32> = (0..64)
        .map(|k| (f64::from(lo) * (f64::from(hi) / f64::from(lo)).powf(f64::from(k) / 63.0)).round() as u32)
        .collect();
    ps.dedup();
    ps
}

/// The size columns of a winner map over `lo..=hi`: 64 sizes spaced evenly
/// on a log scale (rounded, distinct), so at most 64.
pub fn map_sizes(lo: u64, hi: u64) -> Vec<u64> {
    let (lo, hi) = (lo.min(hi).max(1), hi.max(lo).max(1));
    let mut sizes: Vec<u64> =
        (0..64).map(|k| (lo as f64 * (hi as f64 / lo as f64).powf(f64::from(k) / 63.0)).round() as u64).collect();
    sizes.dedup();
    sizes
}

impl WinnerMap {
    /// The map as JSON (the Chooser view's export): the ids, the p rows, the
    /// size columns and, row-major, each cell's winner id, margin and pieces.
    pub fn to_json(&self) -> Json {
        json!({
            "algorithms": &self.algorithms,
            "ps": &self.ps,
            "sizes": &self.sizes,
            "winner": self.winner.iter().map(|&w| self.algorithms[usize::from(w)].clone()).collect::<Vec<_>>(),
            "margin": &self.margin,
            "pieces": &self.pieces,
            "topology": self.network.clone(),
        })
    }
}

impl ChooseResult {
    /// On a network, the algorithms simulated at no size because every plan
    /// had more messages than the limit (ring allreduce at p = 1024 has
    /// 2 095 104); those cut off by broken links are not among them.
    pub fn over_limit(&self) -> Vec<&str> {
        if self.network.is_none() {
            return Vec::new();
        }
        let unsimulated = |k: usize| {
            self.rows.iter().all(|r| {
                r.network.as_ref().is_some_and(|n| {
                    n.times.get(k).is_some_and(Option::is_none) && !n.cut.get(k).copied().unwrap_or(false)
                })
            })
        };
        (0..self.algorithms.len()).filter(|&k| unsimulated(k)).map(|k| self.algorithms[k].as_str()).collect()
    }

    /// The JSON of `commlab choose --json` (and the view's export): per size,
    /// `times` by algorithm id (units of α), `pieces` of the pipelined ones,
    /// `split` (latency, bandwidth, compute), `simulated` when asked, the `winner`;
    /// then the `crossovers`; on a network also `network`, `bottleneck`,
    /// `model_winner`, `model_crossovers`, `topology`.
    pub fn to_json(&self, alpha: f64, beta: f64, gamma: f64) -> Json {
        let by_id = |values: &mut dyn Iterator<Item = (usize, Json)>| {
            Json::Map(values.map(|(k, v)| (self.algorithms[k].clone(), v)).collect())
        };
        let crossovers = |list: &[Crossover]| {
            Json::Arr(
                list.iter().map(|c| json!({"bytes": c.bytes, "from": c.from.as_str(), "to": c.to.as_str()})).collect(),
            )
        };
        let rows = self.rows.iter().map(|r| {
            let k = 0..self.algorithms.len();
            let mut row = vec![
                ("bytes", json!(r.bytes)),
                ("times", by_id(&mut k.clone().map(|k| (k, json!(r.costs[k].total()))))),
                (
                    "split",
                    by_id(&mut k.clone().map(|k| {
                        let c = &r.costs[k];
                        (k, json!({"latency": c.latency, "bandwidth": c.bandwidth, "compute": c.compute}))
                    })),
                ),
            ];
            if self.pipelined.iter().any(|&p| p) {
                row.push((
                    "pieces",
                    by_id(&mut k.clone().filter(|&k| self.pipelined[k]).map(|k| (k, json!(r.pieces[k])))),
                ));
            }
            if let Some(simulated) = &r.simulated {
                row.push(("simulated", by_id(&mut k.clone().filter_map(|k| simulated[k].map(|t| (k, json!(t)))))));
            }
            let model_winner = json!(self.algorithms[r.winner].as_str());
            // On a network: the network's `winner`, times (ns) and
            // `bottleneck`; the model's winner kept as `model_winner`.
            match (&self.network, &r.network) {
                (Some(_), Some(n)) => {
                    row.push(("winner", json!(self.algorithms[n.winner].as_str())));
                    row.push(("model_winner", model_winner));
                    row.push(("network", by_id(&mut k.clone().filter_map(|k| n.times[k].map(|t| (k, json!(t)))))));
                    // nccl-tests' terms (GB/s) of the network's times.
                    if let Ok(c) = self.collective.parse::<Collective>() {
                        for (key, m) in [("network_algbw", Measure::Algbw), ("network_busbw", Measure::Busbw)] {
                            let values =
                                k.clone().filter_map(|k| n.times[k].map(|t| (k, json!(m.of(c, self.p, r.bytes, t)))));
                            row.push((key, by_id(&mut values.collect::<Vec<_>>().into_iter())));
                        }
                    }
                    let bottleneck = n.bottleneck.as_ref().map_or(Json::Null, |(name, busy, bytes, peak)| {
                        json!({"name": name.as_str(), "busy_ns": *busy, "bytes": *bytes, "peak_flows": *peak})
                    });
                    row.push(("bottleneck", bottleneck));
                }
                _ => row.push(("winner", model_winner)),
            }
            Json::Obj(row)
        });
        let mut value = vec![
            ("collective", json!(self.collective.as_str())),
            ("p", json!(self.p)),
            ("alpha", json!(alpha)),
            ("beta", json!(beta)),
            ("gamma", json!(gamma)),
            ("algorithms", json!(&self.algorithms)),
            ("rows", Json::Arr(rows.collect())),
        ];
        // On a network, `crossovers` are the network's, the model's kept as `model_crossovers`.
        match &self.network {
            Some((topology, net_crossovers)) => value.extend([
                ("crossovers", crossovers(net_crossovers)),
                ("model_crossovers", crossovers(&self.crossovers)),
                ("topology", json!(topology.as_str())),
                ("network_units", json!("ns")),
            ]),
            None => value.push(("crossovers", crossovers(&self.crossovers))),
        }
        Json::Obj(value)
    }
}

//! The collective chooser (issue 14; `docs/chooser.md`): for a collective,
//! every algorithm's α–β–γ time per message size (pipelined ones at their
//! best piece count), the winner and the crossovers, optionally LogGOPS
//! times of the same plans; and the winner map over p × size. `commlab
//! choose` prints [`ChooseResult`]; the Chooser view will draw it.
//!
//! Plans do not depend on the size, so each (algorithm, p, pieces) plan's
//! cost profile is built once and costed for every size (the pipelined
//! ones without building their plans: `choose::pipelined_profile`).
//!
//! By responsibility: this module holds the requests, the comparison and
//! its result; [`points`] the simulated points, [`check`] the piece check,
//! [`map`] the winner map, [`cache`] what is kept between requests.

mod cache;
mod check;
mod map;
mod points;
pub mod units;

pub use cache::*;
pub use check::*;
pub use map::*;
pub use points::*;

use crate::json::Json;

use crate::ApiError;

use commlab_core::choose::{goal, of, pipelined_profiles, plan, AlphaBeta, Collective, Cost, Plan, Profile};

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

use points::NetPoint;
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
    /// Whether α and β are in ns (else the chart's times are in units of α).
    pub ns: bool,
}

/// The α–β–γ presets, the default first.
pub const COST_PRESETS: [CostPreset; 2] = [
    CostPreset {
        id: "textbook",
        label: "Textbook: α = 1, β = 0.001 (a start costs 1000 bytes)",
        abg: [1.0, 0.001, 0.0],
        source: "round numbers for teaching: a message start costs as much as 1000 bytes",
        ns: false,
    },
    CostPreset {
        id: "loggopsim",
        label: "LogGOPSim defaults: α = L + 2o = 5500 ns, β = G = 6 ns/B",
        abg: [5500.0, 6.0, 0.0],
        source: "LogGOPSim's defaults L = 2500, o = 1500, G = 6 (ns)",
        ns: true,
    },
];

/// Comparisons up to this p are costed on the page even the first time: all
/// of a collective's profiles at p = 64 build in milliseconds (natively
/// under 1 ms; `BENCHMARKS.md`), so the first chart waits for no worker.
/// Larger p build their profiles in the engine worker, once.
pub const PAGE_P: u64 = 64;

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

/// The Schedule view's LogGOPS for the Chooser's α and β (`o = g = O = 0`,
/// every message eager): whole ns where `ns` (LogGOPSim's preset) and both
/// are whole ns in the view's range, else [`loggops_of`]'s ticks with their
/// count per unit of α; L and G at most the view's range.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "whole values in the view's range")]
pub fn schedule_loggops(ab: AlphaBeta, ns: bool) -> (crate::schedule::LogGops, Option<f64>) {
    let cap = crate::schedule::PARAM.max;
    #[allow(clippy::cast_precision_loss, reason = "the view's range is far below 2^52")]
    let whole = |x: f64| x.fract() == 0.0 && (0.0..=cap as f64).contains(&x);
    let ((l, big_g), unit) = if ns && whole(ab.alpha) && whole(ab.beta) {
        ((ab.alpha as u64, ab.beta as u64), None)
    } else {
        let (l, scale) = loggops_of(ab);
        ((l.l, l.big_g), Some(scale))
    };
    (crate::schedule::LogGops { l: l.min(cap), o: 0, g: 0, big_g: big_g.min(cap), big_o: 0, s: cap }, unit)
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
        let crossovers = |list: &[Crossover]| {
            Json::Arr(
                list.iter().map(|c| json!({"bytes": c.bytes, "from": c.from.as_str(), "to": c.to.as_str()})).collect(),
            )
        };
        let rows = self.rows.iter().map(|r| self.row_json(r));
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

    /// A row of [`ChooseResult::to_json`]: the times by algorithm id, their
    /// split, the pieces and simulated times where there are, and on a
    /// network its `winner`, times (ns), bandwidths and `bottleneck` (the
    /// model's winner kept as `model_winner`).
    fn row_json(&self, r: &Row) -> Json {
        let by_id = |values: &mut dyn Iterator<Item = (usize, Json)>| {
            Json::Map(values.map(|(k, v)| (self.algorithms[k].clone(), v)).collect())
        };
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
            row.push(("pieces", by_id(&mut k.clone().filter(|&k| self.pipelined[k]).map(|k| (k, json!(r.pieces[k]))))));
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
    }
}

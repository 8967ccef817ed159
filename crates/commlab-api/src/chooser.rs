//! The collective chooser (issue 14; `docs/chooser.md`): for a collective,
//! every algorithm's α–β–γ time per message size (pipelined ones at their
//! best piece count), the winner and the crossovers, optionally LogGOPS
//! times of the same plans; and the winner map over p × size. `commlab
//! choose` prints [`ChooseResult`]; the Chooser view will draw it.
//!
//! Plans do not depend on the size, so each (algorithm, p, pieces) plan's
//! cost profile is built once and costed for every size (the pipelined
//! ones without building their plans: `choose::pipelined_profile`).

use crate::ApiError;
use commlab_core::choose::{goal, of, pipelined_profiles, plan, AlphaBeta, Collective, Cost, Load, Plan, Profile};

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

/// One size on a network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetworkRow {
    /// Per algorithm: ns, when simulated.
    pub times: Vec<Option<f64>>,
    /// Index of the fastest simulated.
    pub winner: usize,
    /// The winner's bottleneck link: `(name, busy ns, bytes, peak flows)`.
    pub bottleneck: Option<(String, f64, f64, u32)>,
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
fn algorithms(collective: Collective, asked: &[String]) -> Result<Vec<(&'static str, bool)>, ApiError> {
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

impl ChooseRequest {
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
        if self.min_bytes == 0 || self.min_bytes > self.max_bytes || self.max_bytes > MAX_BYTES {
            let range = format!("{}..{}", self.min_bytes, self.max_bytes);
            return Err(ApiError::new("bytes", range, format!("MIN..MAX with 1 ≤ MIN ≤ MAX ≤ {MAX_BYTES}")));
        }
        let ab = check_ab(self.alpha, self.beta, self.gamma)?;
        let algorithms = algorithms(collective, &self.algorithms)?;
        let options: Vec<Rc<Options>> =
            algorithms.iter().map(|&(id, pipelined)| cache.options(collective, id, p, pipelined)).collect();
        let sizes = sizes(self.min_bytes, self.max_bytes);
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
        let crossovers = rows
            .windows(2)
            .filter(|w| w[0].winner != w[1].winner)
            .map(|w| Crossover {
                bytes: w[1].bytes,
                from: algorithms[w[0].winner].0.to_owned(),
                to: algorithms[w[1].winner].0.to_owned(),
            })
            .collect();
        let mut result = ChooseResult {
            collective: collective.id().to_owned(),
            p,
            algorithms: algorithms.iter().map(|a| a.0.to_owned()).collect(),
            pipelined: algorithms.iter().map(|a| a.1).collect(),
            rows,
            crossovers,
        };
        if self.simulate {
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

/// Simulates every algorithm of `result` (at its model-best piece count) on
/// the request's network, size by size, and sets each row's
/// [`Row::network`]; returns the crossovers on that network. Plans over
/// `limit` transfers are left out unless `limit` is 0.
///
/// # Errors
/// A bad network, more ranks than hosts, too many flows at once.
pub fn on_network(
    result: &mut ChooseResult,
    net: &crate::network::NetRequest,
    limit: u64,
) -> Result<Vec<Crossover>, ApiError> {
    use commlab_core::net::{simulate as net_simulate, NetParams};
    let collective: Collective = crate::parse_id("collective", &result.collective)?;
    let network = net.network()?;
    let placement = net.placement()?;
    let p = result.p;
    for r in &mut result.rows {
        let mut times = Vec::with_capacity(result.algorithms.len());
        let mut bottlenecks = Vec::with_capacity(result.algorithms.len());
        for (id, &m) in result.algorithms.iter().zip(&r.pieces) {
            let Some(plan) = within(collective, id, p, m, limit) else {
                times.push(None);
                bottlenecks.push(None);
                continue;
            };
            let out = net_simulate(&goal(&plan, r.bytes), network.clone(), placement, NetParams::default(), false)?;
            times.push(Some(out.max().0));
            bottlenecks.push(out.bottleneck().map(|d| {
                let (a, b) = network.ends(d);
                let l = out.links[d as usize];
                (format!("{}→{}", network.vertex_name(a), network.vertex_name(b)), l.busy, l.bytes, l.peak)
            }));
        }
        let winner = (0..times.len())
            .filter(|&k| times[k].is_some())
            .min_by(|&a, &b| times[a].unwrap_or(f64::INFINITY).total_cmp(&times[b].unwrap_or(f64::INFINITY)))
            .unwrap_or(0);
        let bottleneck = bottlenecks.get(winner).cloned().flatten();
        r.network = Some(NetworkRow { times, winner, bottleneck });
    }
    let winner = |r: &Row| r.network.as_ref().map_or(r.winner, |n| n.winner);
    Ok(result
        .rows
        .windows(2)
        .filter(|w| winner(&w[0]) != winner(&w[1]))
        .map(|w| Crossover {
            bytes: w[1].bytes,
            from: result.algorithms[winner(&w[0])].clone(),
            to: result.algorithms[winner(&w[1])].clone(),
        })
        .collect())
}

/// The LogGOPS points of a comparison, a size a step (the Chooser view's
/// simulated points, after its model curves).
pub struct SimRun {
    /// The comparison, its rows simulated so far.
    pub result: ChooseResult,
    next: usize,
    limit: u64,
    ab: AlphaBeta,
}

impl SimRun {
    /// The model comparison of `request` (without simulation), to simulate row by row.
    ///
    /// # Errors
    /// As [`ChooseRequest::run`].
    pub fn new(request: &ChooseRequest, cache: &mut Cache) -> Result<SimRun, ApiError> {
        let model = ChooseRequest { simulate: false, ..request.clone() };
        let result = model.run_cached(cache)?;
        let ab = AlphaBeta { alpha: request.alpha, beta: request.beta, gamma: request.gamma };
        Ok(SimRun { result, next: 0, limit: request.sim_limit, ab })
    }

    /// Sizes simulated and in all.
    pub fn progress(&self) -> (u64, u64) {
        (self.next as u64, self.result.rows.len() as u64)
    }

    /// Simulates the next size; true when every size is.
    pub fn step(&mut self) -> bool {
        if self.next < self.result.rows.len() {
            simulate_row(&mut self.result, self.next, self.limit, self.ab);
            self.next += 1;
        }
        self.next >= self.result.rows.len()
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
        MapRun::new(
            &self.collective,
            &self.algorithms,
            map_ps(self.p_lo, self.p_hi),
            map_sizes(self.min_bytes, self.max_bytes),
            ab,
        )
    }
}

/// Profiles kept between requests (a view's redraw with other α, β, γ or
/// sizes costs the kept profiles again instead of building them): per
/// (collective, algorithm, p), each piece count's profile.
#[derive(Default)]
pub struct Cache {
    options: HashMap<(Collective, &'static str, u32), Rc<Options>>,
}

/// Profiles kept at most (each a few hundred bytes; a full cache is emptied).
const CACHE_ENTRIES: usize = 20_000;

impl Cache {
    fn options(&mut self, collective: Collective, id: &'static str, p: u32, pipelined: bool) -> Rc<Options> {
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

/// A winner map being computed, one p (row) a step.
pub struct MapRun {
    collective: Collective,
    algorithms: Vec<(&'static str, bool)>,
    ab: AlphaBeta,
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
        };
        Ok(MapRun { collective, algorithms, ab, map })
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
            let mut times: Vec<(f64, u32)> =
                options.iter().map(|o| o.best(n, self.ab)).map(|b| (b.1.total(), b.0)).collect();
            let winner = (0..times.len()).min_by(|&a, &b| times[a].0.total_cmp(&times[b].0)).unwrap_or(0);
            let best = times[winner];
            times.remove(winner);
            let runner_up = times.iter().map(|t| t.0).min_by(f64::total_cmp);
            self.map.winner.push(winner as u8);
            self.map.margin.push(runner_up.map_or(1.0, |r| if best.0 > 0.0 { r / best.0 } else { 1.0 }));
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
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "algorithms": self.algorithms,
            "ps": self.ps,
            "sizes": self.sizes,
            "winner": self.winner.iter().map(|&w| self.algorithms[usize::from(w)].clone()).collect::<Vec<_>>(),
            "margin": self.margin,
            "pieces": self.pieces,
        })
    }
}

impl ChooseResult {
    /// The JSON of `commlab choose --json` (and the view's export): per size,
    /// `times` by algorithm id (units of α), `pieces` of the pipelined ones,
    /// `split` (latency, bandwidth, compute), `simulated` when asked, the `winner`;
    /// then the `crossovers`.
    pub fn to_json(&self, alpha: f64, beta: f64, gamma: f64) -> serde_json::Value {
        use serde_json::{json as j, Map, Value};
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut times = Map::new();
                let mut pieces = Map::new();
                let mut split = Map::new();
                let mut simulated = Map::new();
                for (k, id) in self.algorithms.iter().enumerate() {
                    times.insert(id.clone(), j!(r.costs[k].total()));
                    split.insert(id.clone(), j!({"latency": r.costs[k].latency, "bandwidth": r.costs[k].bandwidth, "compute": r.costs[k].compute}));
                    if self.pipelined[k] {
                        pieces.insert(id.clone(), j!(r.pieces[k]));
                    }
                    if let Some(Some(t)) = r.simulated.as_ref().map(|s| s[k]) {
                        simulated.insert(id.clone(), j!(t));
                    }
                }
                let mut row = j!({"bytes": r.bytes, "times": times, "split": split, "winner": self.algorithms[r.winner]});
                if !pieces.is_empty() {
                    row["pieces"] = Value::Object(pieces);
                }
                if r.simulated.is_some() {
                    row["simulated"] = Value::Object(simulated);
                }
                row
            })
            .collect();
        j!({
            "collective": self.collective,
            "p": self.p,
            "alpha": alpha,
            "beta": beta,
            "gamma": gamma,
            "algorithms": self.algorithms,
            "rows": rows,
            "crossovers": self.crossovers.iter().map(|c| j!({"bytes": c.bytes, "from": c.from, "to": c.to})).collect::<Vec<_>>(),
        })
    }
}

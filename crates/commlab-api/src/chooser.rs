//! The collective chooser (issue 14; `docs/chooser.md`): for a collective,
//! every algorithm's α–β–γ time per message size (pipelined ones at their
//! best piece count), the winner and the crossovers, optionally LogGOPS
//! times of the same plans; and the winner map over p × size. `commlab
//! choose` prints [`ChooseResult`]; the Chooser view will draw it.
//!
//! Plans do not depend on the size, so each (algorithm, p, pieces) plan is
//! built once and costed for every size.

use crate::ApiError;
use commlab_core::choose::{goal, of, plan, AlphaBeta, Collective, Cost, Plan};

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
use commlab_core::limits::IntRange;
use serde::{Deserialize, Serialize};

/// Ranks of a chooser run (the all-pairs plans hold p² transfers).
pub const P: IntRange = IntRange { name: "p", min: 1, max: 1024 };
/// Piece counts tried for pipelined algorithms: powers of two up to this.
pub const MAX_PIECES: u32 = 4096;
/// Largest message size (bytes).
pub const MAX_BYTES: u64 = 1 << 40;

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
    /// Per algorithm: LogGOPS time in units of α, when simulated.
    pub simulated: Option<Vec<f64>>,
    /// Index of the fastest.
    pub winner: usize,
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

/// The plans of one algorithm on one p: one per piece count tried.
struct Options {
    plans: Vec<(u32, Plan)>,
}

impl Options {
    fn new(collective: Collective, id: &str, p: u32, pipelined: bool) -> Options {
        let counts: Vec<u32> = if pipelined { (0..=MAX_PIECES.ilog2()).map(|k| 1 << k).collect() } else { vec![1] };
        Options {
            plans: counts.into_iter().map(|m| (m, plan(collective, id, p, m).expect("a listed algorithm"))).collect(),
        }
    }

    /// The best piece count for `n` bytes (at most one piece per byte), its plan and cost.
    fn best(&self, n: u64, ab: AlphaBeta) -> (u32, &Plan, Cost) {
        self.plans
            .iter()
            .filter(|(m, _)| u64::from(*m) <= n)
            .map(|(m, p)| (*m, p, p.cost(n, ab)))
            .min_by(|a, b| a.2.total().total_cmp(&b.2.total()))
            .expect("one piece always fits")
    }
}

fn check_ab(alpha: f64, beta: f64, gamma: f64) -> Result<AlphaBeta, ApiError> {
    for (name, v) in [("alpha", alpha), ("beta", beta), ("gamma", gamma)] {
        if !(v.is_finite() && (0.0..=1e12).contains(&v)) {
            return Err(ApiError::new(name, v, "a time in 0..=1e12"));
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
        let collective: Collective = crate::parse_id("collective", &self.collective)?;
        P.check(self.p).map_err(ApiError::from)?;
        let p = self.p as u32;
        if self.min_bytes == 0 || self.min_bytes > self.max_bytes || self.max_bytes > MAX_BYTES {
            let range = format!("{}..{}", self.min_bytes, self.max_bytes);
            return Err(ApiError::new("bytes", range, format!("MIN..MAX with 1 ≤ MIN ≤ MAX ≤ {MAX_BYTES}")));
        }
        let ab = check_ab(self.alpha, self.beta, self.gamma)?;
        let algorithms = algorithms(collective, &self.algorithms)?;
        let options: Vec<Options> =
            algorithms.iter().map(|&(id, pipelined)| Options::new(collective, id, p, pipelined)).collect();
        let sizes = sizes(self.min_bytes, self.max_bytes);
        let rows: Vec<Row> = sizes
            .iter()
            .map(|&n| {
                let best: Vec<(u32, &Plan, Cost)> = options.iter().map(|o| o.best(n, ab)).collect();
                let winner =
                    (0..best.len()).min_by(|&a, &b| best[a].2.total().total_cmp(&best[b].2.total())).unwrap_or(0);
                let simulated = self.simulate.then(|| best.iter().map(|(_, plan, _)| simulated(plan, n, ab)).collect());
                Row {
                    bytes: n,
                    costs: best.iter().map(|b| b.2.into()).collect(),
                    pieces: best.iter().map(|b| b.0).collect(),
                    simulated,
                    winner,
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
        Ok(ChooseResult {
            collective: collective.id().to_owned(),
            p,
            algorithms: algorithms.iter().map(|a| a.0.to_owned()).collect(),
            pipelined: algorithms.iter().map(|a| a.1).collect(),
            rows,
            crossovers,
        })
    }
}

/// LogGOPS time of `plan` with `n` bytes, in units of α: `G = 1000` ticks
/// per byte (`L = 1000·α/β` ticks, rounded) with `o = g = O = 0`, all eager.
/// γ has no LogGOPS counterpart and is left out.
pub fn simulated(plan: &Plan, n: u64, ab: AlphaBeta) -> f64 {
    let scale = if ab.beta > 0.0 { 1000.0 / ab.beta } else { 1000.0 / ab.alpha.max(1e-9) };
    let params = Params {
        l: (ab.alpha * scale).round() as u64,
        o: 0,
        g: 0,
        big_g: (ab.beta * scale).round() as u64,
        big_o: 0,
        s: u64::MAX / 4,
    };
    simulate(&goal(plan, n), params, Order::Stable, false).max().0 as f64 / scale
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
    let collective: Collective = crate::parse_id("collective", collective)?;
    let ab = check_ab(ab.alpha, ab.beta, ab.gamma)?;
    let algorithms = algorithms(collective, asked)?;
    let mut map = WinnerMap {
        algorithms: algorithms.iter().map(|a| a.0.to_owned()).collect(),
        ps: ps.to_vec(),
        sizes: sizes.to_vec(),
        winner: Vec::new(),
        margin: Vec::new(),
        pieces: Vec::new(),
    };
    for &p in ps {
        P.check(u64::from(p)).map_err(ApiError::from)?;
        let options: Vec<Options> =
            algorithms.iter().map(|&(id, pipelined)| Options::new(collective, id, p, pipelined)).collect();
        for &n in sizes {
            let mut times: Vec<(f64, u32)> =
                options.iter().map(|o| o.best(n, ab)).map(|b| (b.2.total(), b.0)).collect();
            let winner = (0..times.len()).min_by(|&a, &b| times[a].0.total_cmp(&times[b].0)).unwrap_or(0);
            let best = times[winner];
            times.remove(winner);
            let runner_up = times.iter().map(|t| t.0).min_by(f64::total_cmp);
            map.winner.push(winner as u8);
            map.margin.push(runner_up.map_or(1.0, |r| if best.0 > 0.0 { r / best.0 } else { 1.0 }));
            map.pieces.push(best.1);
        }
    }
    Ok(map)
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
                    if let Some(s) = &r.simulated {
                        simulated.insert(id.clone(), j!(s[k]));
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

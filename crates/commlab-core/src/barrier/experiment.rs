//! Experiment grids (algorithms × sizes × break rates × seeds) and their
//! aggregation: what `commlab sweep`, `commlab figures` and the lab view run.
//!
//! Every run breaks only links whose loss keeps the mesh connected
//! ([`Scenario::connected`]): a delay needs a completed barrier, and the
//! paper's figures compare delays. (At 20 % random breaks a 64 × 64 mesh is
//! almost never connected: some corner or edge node loses all its links.)

use super::algorithm::Algorithm;
use super::engine::{RunReport, Scenario, Simulation, Stepper};
use crate::model::ConfigError;
use std::fmt::Write as _;

/// A grid of runs around a base scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Algorithms.
    pub algorithms: Vec<Algorithm>,
    /// Mesh sides.
    pub sizes: Vec<u64>,
    /// Break rates.
    pub rates: Vec<f64>,
    /// Seeds per point: `1..=seeds`.
    pub seeds: u64,
    /// Everything else.
    pub base: Scenario,
}

/// One run of a grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Mesh side.
    pub size: u64,
    /// Break rate.
    pub rate: f64,
    /// Seed.
    pub seed: u64,
    /// The report.
    pub report: RunReport,
}

impl Row {
    /// Mean delay over the barriers (`None` when the run did not complete).
    pub fn mean_delay(&self) -> Option<f64> {
        let d = &self.report.delay_ticks;
        (self.report.completed && !d.is_empty()).then(|| d.iter().sum::<u64>() as f64 / d.len() as f64)
    }
}

/// The scenarios of `grid`, in order (algorithm, size, rate, seed).
///
/// # Errors
/// The first invalid scenario.
pub fn scenarios(grid: &Grid) -> Result<Vec<Scenario>, ConfigError> {
    let mut out = Vec::new();
    for &algorithm in &grid.algorithms {
        for &size in &grid.sizes {
            for &rate in &grid.rates {
                for seed in 1..=grid.seeds {
                    let s = Scenario {
                        algorithm,
                        size,
                        break_rate: rate,
                        seed,
                        connected: true,
                        record: false,
                        ..grid.base.clone()
                    };
                    // Validate now, so a bad grid fails before any run: once per
                    // point, with plain breaks (the connected variant's search
                    // is the costly part and validates nothing more).
                    if seed == 1 {
                        Simulation::new(Scenario { connected: false, ..s.clone() })?;
                    }
                    out.push(s);
                }
            }
        }
    }
    Ok(out)
}

/// A run of a grid, advanced in slices (see [`Stepper`]).
pub struct Pending {
    scenario: Scenario,
    stepper: Stepper,
}

impl Pending {
    /// Starts `s` (validated by [`scenarios`]).
    ///
    /// # Panics
    /// When the scenario was not produced by [`scenarios`].
    pub fn start(s: &Scenario) -> Pending {
        let stepper = Simulation::new(s.clone()).expect("validated by scenarios()").start();
        Pending { scenario: s.clone(), stepper }
    }

    /// Processes at most `events` events; `true` once the run is over.
    pub fn advance(&mut self, events: u64) -> bool {
        self.stepper.advance(events)
    }

    /// The row (after [`Pending::advance`] returned `true`).
    pub fn finish(self) -> Row {
        let s = &self.scenario;
        Row { algorithm: s.algorithm, size: s.size, rate: s.break_rate, seed: s.seed, report: self.stepper.finish() }
    }
}

/// Runs one scenario of a grid.
///
/// # Panics
/// When the scenario was not produced by [`scenarios`] (which validated it).
pub fn run_one(s: &Scenario) -> Row {
    let report = Simulation::new(s.clone()).expect("validated by scenarios()").run();
    Row { algorithm: s.algorithm, size: s.size, rate: s.break_rate, seed: s.seed, report }
}

/// Delay statistics of one (algorithm, size, rate) point over its seeds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Mesh side.
    pub size: u64,
    /// Break rate.
    pub rate: f64,
    /// Mean of the per-run mean delays.
    pub mean: f64,
    /// Smallest per-run mean delay.
    pub min: f64,
    /// Largest per-run mean delay.
    pub max: f64,
    /// Completed runs.
    pub runs: usize,
}

/// What [`aggregate`] needs of a run: a few numbers instead of the whole
/// report, so a worker can send it back cheaply.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSummary {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Mesh side.
    pub size: u64,
    /// Break rate.
    pub rate: f64,
    /// Seed.
    pub seed: u64,
    /// [`Row::mean_delay`].
    pub mean_delay: Option<f64>,
}

impl From<&Row> for RunSummary {
    fn from(row: &Row) -> RunSummary {
        RunSummary {
            algorithm: row.algorithm,
            size: row.size,
            rate: row.rate,
            seed: row.seed,
            mean_delay: row.mean_delay(),
        }
    }
}

/// Groups runs by (algorithm, size, rate), in first-seen order.
pub fn aggregate(rows: &[RunSummary]) -> Vec<Point> {
    let mut points: Vec<Point> = Vec::new();
    for row in rows {
        let Some(delay) = row.mean_delay else { continue };
        let same = |p: &&mut Point| p.algorithm == row.algorithm && p.size == row.size && p.rate == row.rate;
        match points.iter_mut().find(same) {
            Some(p) => {
                p.mean = (p.mean * p.runs as f64 + delay) / (p.runs + 1) as f64;
                p.min = p.min.min(delay);
                p.max = p.max.max(delay);
                p.runs += 1;
            }
            None => points.push(Point {
                algorithm: row.algorithm,
                size: row.size,
                rate: row.rate,
                mean: delay,
                min: delay,
                max: delay,
                runs: 1,
            }),
        }
    }
    points
}

/// `algorithm,size,nodes,break_rate,mean,min,max,runs`: aggregated delay points
/// (the lab's and `commlab figures`' CSV).
pub fn points_csv(points: &[Point]) -> String {
    let mut out =
        String::from("algorithm,size,nodes,break_rate,mean_delay_ticks,min_delay_ticks,max_delay_ticks,runs\n");
    for p in points {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            p.algorithm,
            p.size,
            p.size * p.size,
            p.rate,
            p.mean,
            p.min,
            p.max,
            p.runs
        );
    }
    out
}

/// The CSV header of [`csv_row`].
pub const CSV_HEADER: &str = "algorithm,size,nodes,break_rate,seed,completed,partitioned,safe,broken_links,messages,hops,detour_hops,mean_delay_ticks,max_delay_ticks,total_ticks,max_link_load";

/// One row as CSV.
pub fn csv_row(row: &Row) -> String {
    let r = &row.report;
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        row.algorithm,
        row.size,
        row.size * row.size,
        row.rate,
        row.seed,
        r.completed,
        r.partitioned,
        r.safe,
        r.broken_links,
        r.messages,
        r.hops,
        r.detour_hops,
        row.mean_delay().map(|d| d.to_string()).unwrap_or_default(),
        r.delay_ticks.iter().max().map(ToString::to_string).unwrap_or_default(),
        r.total_ticks,
        r.max_link_load
    )
}

/// The paper's two delay experiments as run lists: delay vs nodes for every
/// algorithm at 0, 10 and 20 % breaks on sides 4, 8, … up to `max_size`
/// (all-to-all, with O(N²) messages, only up to 16); and the delay range of
/// `dlct-ms`, `dlct-tree` and `tree` over 0–50 % on sides 8, 16, … up to
/// `max_size`. `commlab figures` and the lab view both run these.
///
/// # Errors
/// An invalid base scenario or seed count.
pub fn paper_grids(seeds: u64, max_size: u64, base: &Scenario) -> Result<(Vec<Scenario>, Vec<Scenario>), ConfigError> {
    let sides = |from: u64| std::iter::successors(Some(from), |s| Some(s * 2)).take_while(|&s| s <= max_size);
    let mut delay = Vec::new();
    for algorithm in Algorithm::ALL {
        let cap = if algorithm == Algorithm::AllToAll { 16 } else { u64::MAX };
        let grid = Grid {
            algorithms: vec![algorithm],
            sizes: sides(4).filter(|&s| s <= cap).collect(),
            rates: DELAY_RATES.to_vec(),
            seeds,
            base: base.clone(),
        };
        delay.extend(scenarios(&grid)?);
    }
    let grid = Grid {
        algorithms: RANGE_ALGORITHMS.to_vec(),
        sizes: sides(8).collect(),
        rates: RANGE_RATES.to_vec(),
        seeds,
        base: base.clone(),
    };
    Ok((delay, scenarios(&grid)?))
}

/// Break rates of the delay-vs-nodes figure.
pub const DELAY_RATES: [f64; 3] = [0.0, 0.1, 0.2];
/// Break rates of the delay-range figure.
pub const RANGE_RATES: [f64; 6] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5];
/// Algorithms of the delay-range figure.
pub const RANGE_ALGORITHMS: [Algorithm; 3] = [Algorithm::DlctMs, Algorithm::DlctTree, Algorithm::Tree];

/// A claim of the paper checked against our measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// What the paper reports.
    pub paper: &'static str,
    /// What we measured, in one sentence.
    pub measured: String,
    /// Whether the measurement agrees (`None`: not measured yet).
    pub agrees: Option<bool>,
}

fn point(points: &[Point], a: Algorithm, size: u64, rate: f64) -> Option<&Point> {
    points.iter().find(|p| p.algorithm == a && p.size == size && (p.rate - rate).abs() < 1e-9)
}

fn pending(paper: &'static str) -> Claim {
    Claim { paper, measured: "Not measured yet: run the sweep.".into(), agrees: None }
}

/// "Close" in the paper's sense: within 25 % of each other.
const CLOSE: f64 = 0.25;
/// "Clearly faster": at least 10 % less delay.
const CLEARLY: f64 = 0.10;

const CLOSE_TEXT: &str = "With intact links, Tree and DLCT have close delays.";
const GROWTH_TEXT: &str = "Tree's delay grows fastest as links break.";
const TWO_LAYER_TEXT: &str = "Under breaks the two-layer DLCT forms are clearly faster than Tree.";

/// The paper's claims on the delay-vs-nodes figure, at the largest side measured.
pub fn delay_claims(points: &[Point]) -> Vec<Claim> {
    let largest = |rate: f64| {
        points.iter().filter(|p| (p.rate - rate).abs() < 1e-9 && p.algorithm == Algorithm::Tree).map(|p| p.size).max()
    };
    let mut claims = Vec::new();
    claims.push(match largest(0.0).and_then(|s| Some((s, point(points, Algorithm::Tree, s, 0.0)?, point(points, Algorithm::Dlct, s, 0.0)?))) {
        Some((s, tree, dlct)) => {
            let gap = (dlct.mean - tree.mean).abs() / tree.mean.max(1.0);
            Claim {
                paper: CLOSE_TEXT,
                measured: format!(
                    "At {} nodes and 0 %: tree {:.1} ticks, dlct {:.1} ticks ({:.0} % apart; close means within {:.0} %).",
                    s * s, tree.mean, dlct.mean, gap * 100.0, CLOSE * 100.0
                ),
                agrees: Some(gap <= CLOSE),
            }
        }
        None => pending(CLOSE_TEXT),
    });
    let growth = |a: Algorithm, s: u64| Some(point(points, a, s, 0.2)?.mean / point(points, a, s, 0.0)?.mean.max(1.0));
    claims.push(match largest(0.2) {
        Some(s) if growth(Algorithm::Tree, s).is_some() => {
            let mut all: Vec<(Algorithm, f64)> =
                Algorithm::ALL.into_iter().filter_map(|a| Some((a, growth(a, s)?))).collect();
            all.sort_by(|x, y| y.1.total_cmp(&x.1));
            let tree = growth(Algorithm::Tree, s).unwrap_or(1.0);
            let rank = all.iter().position(|x| x.0 == Algorithm::Tree).unwrap_or(0) + 1;
            Claim {
                paper: GROWTH_TEXT,
                measured: format!(
                    "At {} nodes, 0 % → 20 %: tree's delay grows ×{tree:.2}, rank {rank} of {}; fastest is {} (×{:.2}).",
                    s * s, all.len(), all[0].0, all[0].1
                ),
                agrees: Some(rank == 1),
            }
        }
        _ => pending(GROWTH_TEXT),
    });
    claims.push(match largest(0.2).and_then(|s| {
        Some((s, point(points, Algorithm::Tree, s, 0.2)?, point(points, Algorithm::DlctMs, s, 0.2)?, point(points, Algorithm::DlctTree, s, 0.2)?))
    }) {
        Some((s, tree, ms, tr)) => Claim {
            paper: TWO_LAYER_TEXT,
            measured: format!(
                "At {} nodes and 20 %: tree {:.1}, dlct-ms {:.1} ({:+.0} %), dlct-tree {:.1} ({:+.0} %) ticks; clearly means at least {:.0} % less.",
                s * s, tree.mean, ms.mean, (ms.mean / tree.mean.max(1.0) - 1.0) * 100.0, tr.mean, (tr.mean / tree.mean.max(1.0) - 1.0) * 100.0, CLEARLY * 100.0
            ),
            agrees: Some(ms.mean <= (1.0 - CLEARLY) * tree.mean && tr.mean <= (1.0 - CLEARLY) * tree.mean),
        },
        None => pending(TWO_LAYER_TEXT),
    });
    claims
}

/// The paper's claim on the delay-range figure: Tree's range over the break
/// rates is the widest, at every side measured.
pub fn range_claim(points: &[Point]) -> Claim {
    const TEXT: &str = "Tree's delay range over 0–50 % breaks is wider than the two-layer DLCT forms'.";
    let range = |a: Algorithm, s: u64| {
        let at: Vec<f64> = points.iter().filter(|p| p.algorithm == a && p.size == s).map(|p| p.mean).collect();
        (at.len() >= 2)
            .then(|| at.iter().copied().fold(f64::MIN, f64::max) - at.iter().copied().fold(f64::MAX, f64::min))
    };
    let mut sizes: Vec<u64> = points.iter().map(|p| p.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let rows: Vec<(u64, f64, f64, f64)> = sizes
        .iter()
        .filter_map(|&s| {
            Some((s, range(Algorithm::Tree, s)?, range(Algorithm::DlctMs, s)?, range(Algorithm::DlctTree, s)?))
        })
        .collect();
    if rows.is_empty() {
        return pending(TEXT);
    }
    let wider = rows.iter().filter(|r| r.1 > r.2 && r.1 > r.3).count();
    let parts: Vec<String> = rows
        .iter()
        .map(|r| format!("{} nodes: tree {:.0}, dlct-ms {:.0}, dlct-tree {:.0}", r.0 * r.0, r.1, r.2, r.3))
        .collect();
    Claim {
        paper: TEXT,
        measured: format!("Range in ticks — {}; tree widest at {wider} of {} sizes.", parts.join("; "), rows.len()),
        agrees: Some(wider == rows.len()),
    }
}

/// The paper's claim on the UQ histogram: LCT's update quantity is larger in
/// the great majority (taken as ≥ 75 %) of the conversions.
pub fn uq_claim(lct_minus_bst: &[f64]) -> Claim {
    const TEXT: &str = "LCT's update quantity is larger than BST's in the great majority of conversions.";
    if lct_minus_bst.is_empty() {
        return pending(TEXT);
    }
    let larger = lct_minus_bst.iter().filter(|&&d| d > 1e-12).count();
    let smaller = lct_minus_bst.iter().filter(|&&d| d < -1e-12).count();
    let share = larger as f64 / lct_minus_bst.len() as f64;
    Claim {
        paper: TEXT,
        measured: format!(
            "LCT larger in {larger}, BST larger in {smaller}, equal in {} of {} conversions ({:.0} % LCT; great majority means at least 75 %).",
            lct_minus_bst.len() - larger - smaller,
            lct_minus_bst.len(),
            share * 100.0
        ),
        agrees: Some(share >= 0.75),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(algorithm: Algorithm, size: u64, rate: f64, mean: f64) -> Point {
        Point { algorithm, size, rate, mean, min: mean, max: mean, runs: 1 }
    }

    #[test]
    fn claims_follow_the_numbers() {
        assert!(delay_claims(&[]).iter().all(|c| c.agrees.is_none()));
        let good = [
            p(Algorithm::Tree, 8, 0.0, 100.0),
            p(Algorithm::Dlct, 8, 0.0, 110.0),
            p(Algorithm::DlctMs, 8, 0.0, 100.0),
            p(Algorithm::DlctTree, 8, 0.0, 100.0),
            p(Algorithm::Tree, 8, 0.2, 300.0),
            p(Algorithm::Dlct, 8, 0.2, 150.0),
            p(Algorithm::DlctMs, 8, 0.2, 120.0),
            p(Algorithm::DlctTree, 8, 0.2, 130.0),
        ];
        assert!(delay_claims(&good).iter().all(|c| c.agrees == Some(true)), "{:?}", delay_claims(&good));
        let mut bad = good;
        bad[1].mean = 200.0; // DLCT far from Tree when intact
        bad[5].mean = 900.0; // DLCT grows fastest
        bad[6].mean = 295.0; // dlct-ms barely faster
        assert!(delay_claims(&bad).iter().all(|c| c.agrees == Some(false)), "{:?}", delay_claims(&bad));
        assert_eq!(range_claim(&good).agrees, Some(true));
        assert_eq!(range_claim(&bad[..4]).agrees, None);
        assert_eq!(uq_claim(&[0.1, 0.2, 0.3, -0.1]).agrees, Some(true));
        assert_eq!(uq_claim(&[0.1, -0.2, 0.0]).agrees, Some(false));
        assert_eq!(uq_claim(&[]).agrees, None);
    }

    #[test]
    fn paper_grids_cap_all_to_all_and_sizes() {
        let (delay, range) = paper_grids(2, 32, &Scenario::default()).unwrap();
        assert_eq!(delay.len(), (14 * 4 + 3) * 3 * 2);
        assert!(delay.iter().filter(|s| s.algorithm == Algorithm::AllToAll).all(|s| s.size <= 16));
        assert_eq!(range.len(), 3 * 3 * 6 * 2);
        assert!(delay.iter().chain(&range).all(|s| s.connected && !s.record));
    }
}

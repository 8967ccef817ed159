//! Experiment grids (algorithms × sizes × break rates × seeds) and their
//! aggregation: what `commlab sweep`, `commlab figures` and the lab view run.
//!
//! Every run breaks only links whose loss keeps the mesh connected
//! ([`Scenario::connected`]): a delay needs a completed barrier, and the
//! paper's figures compare delays. (At 20 % random breaks a 64 × 64 mesh is
//! almost never connected: some corner or edge node loses all its links.)

use super::algorithm::Algorithm;
use super::engine::{RunReport, Scenario, Simulation, Stepper};
use crate::limits::ConfigError;
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
    grids(&Algorithm::ALL, seeds, max_size, base)
}

/// The runs the paper's delay claims need ([`delay_claims`], [`range_claim`]):
/// [`paper_grids`] restricted to Tree, ID1 and ID2 (the delay-range grid is
/// those three already). The lab runs them under the other routing rule, to
/// show each claim under both.
///
/// # Errors
/// As [`paper_grids`].
pub fn claim_grids(seeds: u64, max_size: u64, base: &Scenario) -> Result<(Vec<Scenario>, Vec<Scenario>), ConfigError> {
    let three: Vec<Algorithm> = Algorithm::ALL.into_iter().filter(|a| RANGE_ALGORITHMS.contains(a)).collect();
    grids(&three, seeds, max_size, base)
}

fn grids(
    algorithms: &[Algorithm],
    seeds: u64,
    max_size: u64,
    base: &Scenario,
) -> Result<(Vec<Scenario>, Vec<Scenario>), ConfigError> {
    let sides = |from: u64| std::iter::successors(Some(from), |s| Some(s * 2)).take_while(|&s| s <= max_size);
    let mut delay = Vec::new();
    for &algorithm in algorithms {
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
    /// Whether the measurement agrees (`None`: not measured yet, or within
    /// the seeds' noise: see [`Claim::verdict`]).
    pub agrees: Option<bool>,
    /// The verdict, with "within noise" where the difference the claim rests
    /// on lies inside the spread of the seeds' results.
    pub verdict: Verdict,
}

/// A claim's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Not measured yet.
    Pending,
    /// The measurement agrees, beyond the seeds' spread.
    Agrees,
    /// The measurement does not agree, beyond the seeds' spread.
    Disagrees,
    /// The difference the claim rests on lies within the seeds' spread:
    /// more seeds could tip it either way.
    WithinNoise,
}

impl Verdict {
    /// `agrees`, `does not agree`, `within noise`, `pending`.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Pending => "pending",
            Verdict::Agrees => "agrees",
            Verdict::Disagrees => "does not agree",
            Verdict::WithinNoise => "within noise",
        }
    }

    /// Of several comparisons a claim needs all: it fails if one fails beyond
    /// the noise, holds if all hold beyond it, and is within noise otherwise.
    fn all(parts: impl IntoIterator<Item = Verdict>) -> Verdict {
        let mut out = Verdict::Agrees;
        for v in parts {
            match v {
                Verdict::Disagrees => return Verdict::Disagrees,
                Verdict::WithinNoise => out = Verdict::WithinNoise,
                _ => {}
            }
        }
        out
    }

    /// Whether `value ± noise` lies in `low..=high` (agrees), outside it
    /// (does not), or across an end (within noise).
    fn inside(value: f64, noise: f64, (low, high): (f64, f64)) -> Verdict {
        if value - noise >= low && value + noise <= high {
            Verdict::Agrees
        } else if value + noise < low || value - noise > high {
            Verdict::Disagrees
        } else {
            Verdict::WithinNoise
        }
    }
}

impl Claim {
    /// A measured claim with its verdict.
    fn measured(paper: &'static str, measured: String, verdict: Verdict) -> Claim {
        let agrees = match verdict {
            Verdict::Agrees => Some(true),
            Verdict::Disagrees => Some(false),
            Verdict::Pending | Verdict::WithinNoise => None,
        };
        Claim { paper, measured, agrees, verdict }
    }
}

/// Half the spread of a point's per-seed means: the noise of its mean taken
/// as the half-range over its seeds (0 with one seed).
fn noise(p: &Point) -> f64 {
    (p.max - p.min) / 2.0
}

/// The noise of `id / tree` (first order): both points' half-ranges relative
/// to Tree's mean.
fn ratio_noise(tree: &Point, id: &Point) -> f64 {
    let t = tree.mean.max(1.0);
    noise(id) / t + id.mean / t * noise(tree) / t
}

fn point(points: &[Point], a: Algorithm, size: u64, rate: f64) -> Option<&Point> {
    points.iter().find(|p| p.algorithm == a && p.size == size && (p.rate - rate).abs() < 1e-9)
}

fn pending(paper: &'static str) -> Claim {
    Claim { paper, measured: "not measured yet: run the sweep.".into(), agrees: None, verdict: Verdict::Pending }
}

/// "Close" in the paper's sense: within 25 % of each other.
const CLOSE: f64 = 0.25;
/// The paper's band for "faster": the two-layer forms take 30–50 % less delay than Tree.
pub const FASTER_BAND: (f64, f64) = (0.30, 0.50);

const CLOSE_TEXT: &str = "With intact links, ID1 (DLCT+MS) and ID2 (DLCT+Tree) have delays close to Tree's.";
const FASTER_TEXT: &str = "Under breaks, ID1 (DLCT+MS) and ID2 (DLCT+Tree) are 30–50 % faster than Tree.";
const GROWTH_TEXT: &str =
    "Tree's delay grows fastest as links break: of Tree, ID1 and ID2, its delay range over the break rates is the widest.";

/// A relative change as a signed percentage: `+67 %`, `−35 %`.
fn signed(fraction: f64) -> String {
    let pct = (fraction * 100.0).round();
    if pct == 0.0 {
        "0 %".to_owned()
    } else if pct < 0.0 {
        format!("−{:.0} %", -pct)
    } else {
        format!("+{pct:.0} %")
    }
}

/// `1 − id / tree`: how much less delay than Tree, as a fraction.
fn less_than(tree: f64, id: f64) -> f64 {
    1.0 - id / tree.max(1.0)
}

/// The paper's claims under the three delay-vs-nodes charts, one per chart
/// (0 %, 10 %, 20 %): the paper compares ID1 = DLCT+MS and ID2 = DLCT+Tree
/// with Tree, at every size it measured.
pub fn delay_claims(points: &[Point]) -> Vec<Claim> {
    let sizes = |rate: f64| {
        let mut s: Vec<u64> = points
            .iter()
            .filter(|p| (p.rate - rate).abs() < 1e-9 && p.algorithm == Algorithm::Tree)
            .map(|p| p.size)
            .filter(|&s| {
                point(points, Algorithm::DlctMs, s, rate).is_some()
                    && point(points, Algorithm::DlctTree, s, rate).is_some()
            })
            .collect();
        s.sort_unstable();
        s
    };
    // (size, tree, id1, id2) at `rate`.
    let rows = |rate: f64| -> Vec<(u64, &Point, &Point, &Point)> {
        sizes(rate)
            .into_iter()
            .filter_map(|s| {
                let at = |a| point(points, a, s, rate);
                Some((s, at(Algorithm::Tree)?, at(Algorithm::DlctMs)?, at(Algorithm::DlctTree)?))
            })
            .collect()
    };
    let seeds = |rows: &[(u64, &Point, &Point, &Point)]| rows.iter().map(|r| r.1.runs).min().unwrap_or(0);
    let mut claims = Vec::new();
    let intact = rows(0.0);
    claims.push(if intact.is_empty() {
        pending(CLOSE_TEXT)
    } else {
        // Close at a size: both |id / tree − 1| ± noise within CLOSE.
        let verdict = Verdict::all(intact.iter().flat_map(|&(_, t, a, b)| {
            [a, b].map(|id| Verdict::inside((id.mean / t.mean.max(1.0) - 1.0).abs(), ratio_noise(t, id), (0.0, CLOSE)))
        }));
        let worst = intact
            .iter()
            .map(|&(_, t, a, b)| less_than(t.mean, a.mean).abs().max(less_than(t.mean, b.mean).abs()))
            .fold(0.0, f64::max);
        let spread = intact
            .iter()
            .flat_map(|&(_, t, a, b)| [ratio_noise(t, a), ratio_noise(t, b)])
            .fold(0.0, f64::max);
        let (s, t, a, b) = intact[intact.len() - 1];
        let (t, a, b) = (t.mean, a.mean, b.mean);
        Claim::measured(
            CLOSE_TEXT,
            format!(
                "At {} nodes and 0 %: Tree {t:.1}, ID1 {a:.1} ({}), ID2 {b:.1} ({}) ticks; at most {:.0} % apart over {} sizes (close means within {:.0} %); the seeds' spread is up to ±{:.0} % ({} seeds).",
                s * s,
                signed(a / t.max(1.0) - 1.0),
                signed(b / t.max(1.0) - 1.0),
                worst * 100.0,
                intact.len(),
                CLOSE * 100.0,
                spread * 100.0,
                seeds(&intact)
            ),
            verdict,
        )
    });
    for &rate in &DELAY_RATES[1..] {
        let broken = rows(rate);
        claims.push(if broken.is_empty() {
            pending(FASTER_TEXT)
        } else {
            let per_size: Vec<String> = broken
                .iter()
                .map(|&(s, t, a, b)| {
                    format!(
                        "{} nodes {} / {} (±{:.0} %)",
                        s * s,
                        signed(-less_than(t.mean, a.mean)),
                        signed(-less_than(t.mean, b.mean)),
                        ratio_noise(t, a).max(ratio_noise(t, b)) * 100.0
                    )
                })
                .collect();
            let inside = |f: f64| (FASTER_BAND.0..=FASTER_BAND.1).contains(&f);
            let within = broken
                .iter()
                .filter(|&&(_, t, a, b)| inside(less_than(t.mean, a.mean)) && inside(less_than(t.mean, b.mean)))
                .count();
            let verdict = Verdict::all(broken.iter().flat_map(|&(_, t, a, b)| {
                [a, b].map(|id| Verdict::inside(less_than(t.mean, id.mean), ratio_noise(t, id), FASTER_BAND))
            }));
            Claim::measured(
                FASTER_TEXT,
                format!(
                    "At {:.0} % broken links, delay of ID1 / ID2 relative to Tree: {} ({} seeds). The paper's band is −{:.0} to −{:.0} %; inside it at {within} of {} sizes.",
                    rate * 100.0,
                    per_size.join(", "),
                    seeds(&broken),
                    FASTER_BAND.0 * 100.0,
                    FASTER_BAND.1 * 100.0,
                    broken.len()
                ),
                verdict,
            )
        });
    }
    claims
}

/// The paper's claim on the delay-range figure: of Tree, ID1 and ID2, Tree's
/// delay grows fastest as links break, i.e. its range over the break rates
/// is the widest, at every size measured. A range's noise is the
/// half-ranges over the seeds of its two ends.
pub fn range_claim(points: &[Point]) -> Claim {
    /// A delay range over the break rates: its width, its noise and the seeds behind it.
    type Range = (f64, f64, usize);
    let range = |a: Algorithm, s: u64| -> Option<Range> {
        let at: Vec<&Point> = points.iter().filter(|p| p.algorithm == a && p.size == s).collect();
        let hi = at.iter().copied().max_by(|x, y| x.mean.total_cmp(&y.mean))?;
        let lo = at.iter().copied().min_by(|x, y| x.mean.total_cmp(&y.mean))?;
        (at.len() >= 2).then(|| (hi.mean - lo.mean, noise(hi) + noise(lo), hi.runs.min(lo.runs)))
    };
    let mut sizes: Vec<u64> = points.iter().map(|p| p.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let rows: Vec<(u64, Range, Range, Range)> = sizes
        .iter()
        .filter_map(|&s| {
            Some((s, range(Algorithm::Tree, s)?, range(Algorithm::DlctMs, s)?, range(Algorithm::DlctTree, s)?))
        })
        .collect();
    if rows.is_empty() {
        return pending(GROWTH_TEXT);
    }
    let wider = rows.iter().filter(|r| r.1 .0 > r.2 .0 && r.1 .0 > r.3 .0).count();
    // Widest at a size: Tree's range above each other's by more than the two ranges' noise.
    let verdict = Verdict::all(rows.iter().flat_map(|&(_, t, a, b)| {
        [a, b].map(|o| Verdict::inside(t.0 - o.0, t.1 + o.1, (f64::MIN_POSITIVE, f64::INFINITY)))
    }));
    let parts: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} nodes: Tree {:.0} ± {:.0}, ID1 {:.0} ± {:.0}, ID2 {:.0} ± {:.0}",
                r.0 * r.0,
                r.1 .0,
                r.1 .1,
                r.2 .0,
                r.2 .1,
                r.3 .0,
                r.3 .1
            )
        })
        .collect();
    let seeds = rows.iter().map(|r| r.1 .2.min(r.2 .2).min(r.3 .2)).min().unwrap_or(0);
    Claim::measured(
        GROWTH_TEXT,
        format!(
            "Range in ticks ({seeds} seeds; ± half the spread over the seeds of its ends) — {}; Tree widest at {wider} of {} sizes.",
            parts.join("; "),
            rows.len()
        ),
        verdict,
    )
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
    Claim::measured(
        TEXT,
        format!(
            "LCT larger in {larger}, BST larger in {smaller}, equal in {} of {} conversions ({:.0} % LCT; great majority means at least 75 %).",
            lct_minus_bst.len() - larger - smaller,
            lct_minus_bst.len(),
            share * 100.0
        ),
        if share >= 0.75 { Verdict::Agrees } else { Verdict::Disagrees },
    )
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
        // Tree 100 intact; ID1/ID2 within 25 %; at 10 % and 20 % they take 40 % and
        // 35 % less than Tree (inside 30–50 %).
        let mut good = Vec::new();
        for (rate, tree, id1, id2) in
            [(0.0, 100.0, 110.0, 95.0), (0.1, 200.0, 120.0, 130.0), (0.2, 300.0, 180.0, 195.0)]
        {
            good.extend([
                p(Algorithm::Tree, 8, rate, tree),
                p(Algorithm::DlctMs, 8, rate, id1),
                p(Algorithm::DlctTree, 8, rate, id2),
                p(Algorithm::Dlct, 8, rate, 1000.0),
            ]);
        }
        let claims = delay_claims(&good);
        assert!(claims.iter().all(|c| c.agrees == Some(true)), "{claims:?}");
        assert!(claims[1].measured.contains("64 nodes −40 % / −35 %"), "{}", claims[1].measured);
        assert!(
            claims[2].measured.contains("The paper's band is −30 to −50 %; inside it at 1 of 1 sizes"),
            "{}",
            claims[2].measured
        );
        // Plain DLCT plays no part: ID1 and ID2 are what the paper compares.
        assert!(claims[0].measured.contains("ID1 110.0 (+10 %)"), "{}", claims[0].measured);
        let mut bad = good.clone();
        bad[1].mean = 200.0; // ID1 twice Tree's delay when intact
        bad[5].mean = 60.0; // ID1 70 % faster at 10 %: outside the band, above it
        bad[9].mean = 285.0; // ID1 barely faster at 20 %: outside the band, below it
        let claims = delay_claims(&bad);
        assert!(claims.iter().all(|c| c.agrees == Some(false)), "{claims:?}");
        assert_eq!(range_claim(&good).agrees, Some(true));
        let mut flat_tree = good.clone();
        flat_tree[8].mean = 120.0; // Tree's range is now 100 (100 … 200)
        flat_tree[10].mean = 400.0; // and ID2's 305 (95 … 400): ID2 grows fastest
        assert_eq!(range_claim(&flat_tree).agrees, Some(false));
        assert_eq!(range_claim(&good[..4]).agrees, None);
        assert_eq!(uq_claim(&[0.1, 0.2, 0.3, -0.1]).agrees, Some(true));
        assert_eq!(uq_claim(&[0.1, -0.2, 0.0]).agrees, Some(false));
        assert_eq!(uq_claim(&[]).agrees, None);
    }

    /// A point over seeds: mean with its per-seed extremes.
    fn spread(algorithm: Algorithm, size: u64, rate: f64, mean: f64, half: f64) -> Point {
        Point { algorithm, size, rate, mean, min: mean - half, max: mean + half, runs: 3 }
    }

    /// A difference inside the seeds' spread is "within noise", never a
    /// verdict; the same difference with a tight spread decides.
    #[test]
    fn a_difference_inside_the_seeds_spread_is_within_noise() {
        // Tree's range 100 ± 20 against ID1's 90 and ID2's 40: ID1 within noise.
        let noisy = [
            spread(Algorithm::Tree, 8, 0.0, 50.0, 10.0),
            spread(Algorithm::Tree, 8, 0.5, 150.0, 10.0),
            spread(Algorithm::DlctMs, 8, 0.0, 50.0, 5.0),
            spread(Algorithm::DlctMs, 8, 0.5, 140.0, 5.0),
            spread(Algorithm::DlctTree, 8, 0.0, 50.0, 1.0),
            spread(Algorithm::DlctTree, 8, 0.5, 90.0, 1.0),
        ];
        let c = range_claim(&noisy);
        assert_eq!(c.verdict, Verdict::WithinNoise, "{}", c.measured);
        assert_eq!(c.agrees, None);
        assert!(c.measured.contains("Tree 100 ± 20, ID1 90 ± 10, ID2 40 ± 2"), "{}", c.measured);
        let tight: Vec<Point> = noisy.iter().map(|p| Point { min: p.mean, max: p.mean, ..*p }).collect();
        assert_eq!(range_claim(&tight).verdict, Verdict::Agrees);
        // ID1 wider beyond the noise: does not agree.
        let mut wider = tight.clone();
        wider[3].mean = 200.0;
        assert_eq!(range_claim(&wider).verdict, Verdict::Disagrees);
        // The band of "faster": 40 % less ± 15 % crosses 30 %: within noise; ± 5 % inside it.
        let faster = |half: f64| {
            let mut pts = Vec::new();
            for rate in DELAY_RATES {
                pts.extend([
                    spread(Algorithm::Tree, 8, rate, 100.0, 0.0),
                    spread(Algorithm::DlctMs, 8, rate, 60.0, half),
                    spread(Algorithm::DlctTree, 8, rate, 60.0, half),
                ]);
            }
            delay_claims(&pts)
        };
        assert_eq!(faster(15.0)[1].verdict, Verdict::WithinNoise, "{}", faster(15.0)[1].measured);
        assert_eq!(faster(5.0)[1].verdict, Verdict::Agrees, "{}", faster(5.0)[1].measured);
        assert!(faster(5.0)[1].measured.contains("64 nodes −40 % / −40 % (±5 %)"), "{}", faster(5.0)[1].measured);
    }

    /// A change that rounds to zero is written "0 %", never "+-0 %".
    #[test]
    fn no_signed_zero() {
        assert_eq!(signed(-0.004), "0 %");
        assert_eq!(signed(0.004), "0 %");
        assert_eq!(signed(-0.06), "−6 %");
        assert_eq!(signed(0.06), "+6 %");
    }

    #[test]
    fn paper_grids_cap_all_to_all_and_sizes() {
        let (delay, range) = paper_grids(2, 32, &Scenario::default()).unwrap();
        assert_eq!(delay.len(), (14 * 4 + 3) * 3 * 2);
        assert!(delay.iter().filter(|s| s.algorithm == Algorithm::AllToAll).all(|s| s.size <= 16));
        assert_eq!(range.len(), 3 * 3 * 6 * 2);
        assert!(delay.iter().chain(&range).all(|s| s.connected && !s.record));
        let (claims, again) = claim_grids(2, 32, &Scenario::default()).unwrap();
        assert_eq!(again, range);
        assert_eq!(
            claims,
            delay.iter().filter(|s| RANGE_ALGORITHMS.contains(&s.algorithm)).cloned().collect::<Vec<_>>()
        );
    }
}

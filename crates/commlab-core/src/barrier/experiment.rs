//! Experiment grids (algorithms × sizes × break rates × seeds) and their
//! aggregation: what `commlab sweep`, `commlab figures` and the lab view run.
//!
//! Every run breaks only links whose loss keeps the mesh connected
//! ([`Scenario::connected`]): a delay needs a completed barrier, and the
//! paper's figures compare delays. (At 20 % random breaks a 64 × 64 mesh is
//! almost never connected: some corner or edge node loses all its links.)

use super::algorithm::Algorithm;
use super::engine::{RunReport, Scenario, Simulation};
use crate::model::ConfigError;

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
                    // Validate now, so a bad grid fails before any run.
                    Simulation::new(s.clone())?;
                    out.push(s);
                }
            }
        }
    }
    Ok(out)
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

/// Groups rows by (algorithm, size, rate), in first-seen order.
pub fn aggregate(rows: &[Row]) -> Vec<Point> {
    let mut points: Vec<Point> = Vec::new();
    for row in rows {
        let Some(delay) = row.mean_delay() else { continue };
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

//! The barrier lab: the paper's two delay grids, one run per request (so a
//! pool of workers can share a sweep and its results stay in grid order),
//! and the UQ experiment.

use crate::{parse_id, ApiError};
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::Scenario;
use commlab_core::barrier::experiment::{
    claim_grids, paper_grids, Pending, RunSummary, DELAY_RATES, RANGE_ALGORITHMS, RANGE_RATES,
};
use commlab_core::barrier::mesh::Routing;
use commlab_core::barrier::uq::{LinkSetDefinition, UqExperiment, UqRun};
use commlab_core::limits::lab as lim;
use serde::{Deserialize, Serialize};

/// A lab sweep's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabRequest {
    /// Seeds per point.
    pub seeds: u64,
    /// Largest mesh side.
    pub max_size: u64,
    /// Barriers per run.
    pub barriers: u64,
    /// The charts' routing rule; the claims' runs are repeated under the other.
    #[serde(with = "crate::routing_id")]
    pub routing: Routing,
}

impl Default for LabRequest {
    /// The lab's default sweep: up to 32 × 32, 5 seeds, 3 barriers, the paper's routing.
    fn default() -> Self {
        LabRequest { seeds: 5, max_size: 32, barriers: 3, routing: Routing::Paper }
    }
}

/// The other routing rule (the lab's claims are shown under both).
pub fn other_rule(routing: Routing) -> Routing {
    match routing {
        Routing::Paper => Routing::Shortest,
        Routing::Shortest => Routing::Paper,
    }
}

/// The sweep's runs, in four parts: the delay-vs-nodes grid and the
/// delay-range grid under the request's rule, then the claims' runs (Tree,
/// ID1, ID2: [`claim_grids`]) under the other rule, delay grid then range grid.
#[derive(Debug, Clone, PartialEq)]
pub struct LabPlan {
    /// Every run, in grid order.
    pub runs: Vec<Scenario>,
    /// Where parts 2, 3 and 4 start in `runs`.
    pub splits: [usize; 3],
}

impl LabPlan {
    /// The four parts of `results` (indexed like `runs`).
    pub fn parts<T>(splits: [usize; 3], results: &[T]) -> [&[T]; 4] {
        let [a, b, c] = splits.map(|s| s.min(results.len()));
        [&results[..a], &results[a..b], &results[b..c], &results[c..]]
    }
}

impl LabRequest {
    /// `(runs, splits)` without building them: the page needs only the
    /// counts (the workers build the plan). Must equal [`LabRequest::plan`]'s
    /// (tested).
    ///
    /// # Errors
    /// A setting out of range.
    pub fn counts(&self) -> Result<(usize, [usize; 3]), ApiError> {
        let seeds = lim::SEEDS.check(self.seeds)? as usize;
        let max = lim::MAX_SIZE.check(self.max_size)?;
        lim::BARRIERS.check(self.barriers)?;
        let sides = |from: u64, cap: u64| {
            std::iter::successors(Some(from), |s| Some(s * 2)).take_while(|&s| s <= max.min(cap)).count()
        };
        let algorithms = commlab_core::barrier::algorithm::Algorithm::ALL.len();
        let delay = ((algorithms - 1) * sides(4, u64::MAX) + sides(4, 16)) * DELAY_RATES.len() * seeds;
        let range = RANGE_ALGORITHMS.len() * sides(8, u64::MAX) * RANGE_RATES.len() * seeds;
        let claims = RANGE_ALGORITHMS.len() * sides(4, u64::MAX) * DELAY_RATES.len() * seeds;
        let splits = [delay, delay + range, delay + range + claims];
        Ok((splits[2] + range, splits))
    }

    /// The runs of this sweep.
    ///
    /// # Errors
    /// A setting out of range.
    pub fn plan(&self) -> Result<LabPlan, ApiError> {
        lim::SEEDS.check(self.seeds)?;
        lim::MAX_SIZE.check(self.max_size)?;
        let barriers = lim::BARRIERS.check(self.barriers)? as u32;
        let base = Scenario { barriers, routing: self.routing, ..Scenario::default() };
        let (delay, range) = paper_grids(self.seeds, self.max_size, &base)?;
        let other = Scenario { routing: other_rule(self.routing), ..base };
        let (claims, claims_range) = claim_grids(self.seeds, self.max_size, &other)?;
        let splits = [delay.len(), delay.len() + range.len(), delay.len() + range.len() + claims.len()];
        let mut runs = delay;
        runs.extend(range);
        runs.extend(claims);
        runs.extend(claims_range);
        Ok(LabPlan { runs, splits })
    }
}

/// One finished run of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabResult {
    /// Index in [`LabPlan::runs`].
    pub index: usize,
    /// Algorithm id.
    pub algorithm: String,
    /// Mesh side.
    pub size: u64,
    /// Break rate.
    pub rate: f64,
    /// Seed.
    pub seed: u64,
    /// Mean delay over the barriers (`None`: did not complete).
    pub mean_delay: Option<f64>,
    /// Hop events simulated.
    pub events: u64,
}

impl LabResult {
    /// The summary [`commlab_core::barrier::experiment::aggregate`] takes
    /// (`None` only for an algorithm id no engine sends).
    pub fn summary(&self) -> Option<RunSummary> {
        Some(RunSummary {
            algorithm: self.algorithm.parse().ok()?,
            size: self.size,
            rate: self.rate,
            seed: self.seed,
            mean_delay: self.mean_delay,
        })
    }
}

/// Run `index` of `plan`, resumable.
pub struct LabRun {
    index: usize,
    pending: Pending,
}

impl LabRun {
    /// Starts run `index`.
    ///
    /// # Errors
    /// `index` outside the plan.
    pub fn start(plan: &LabPlan, index: usize) -> Result<LabRun, ApiError> {
        let scenario = plan
            .runs
            .get(index)
            .ok_or_else(|| ApiError::new("index", index, format!("a run index in 0..{}", plan.runs.len())))?;
        Ok(LabRun { index, pending: Pending::start(scenario) })
    }

    /// Processes at most `events` events; `true` once done.
    pub fn advance(&mut self, events: u64) -> bool {
        self.pending.advance(events)
    }

    /// The result (after [`LabRun::advance`] returned `true`).
    pub fn finish(self) -> LabResult {
        let row = self.pending.finish();
        LabResult {
            index: self.index,
            algorithm: row.algorithm.id().to_owned(),
            size: row.size,
            rate: row.rate,
            seed: row.seed,
            mean_delay: row.mean_delay(),
            events: row.report.events,
        }
    }
}

/// The UQ experiment's settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UqRequest {
    /// Mesh side.
    pub size: u64,
    /// Encoding id (`None`: the paper's S-curve).
    #[serde(default)]
    pub encoding: Option<String>,
    /// Link-set definition id (`None`: directed Gather links).
    #[serde(default)]
    pub links: Option<String>,
}

/// UQ of every conversion, LCT and BST, directed Gather links, S-curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UqResult {
    /// Mesh side.
    pub size: u64,
    /// Per conversion, LCT.
    pub lct: Vec<f64>,
    /// Per conversion, BST.
    pub bst: Vec<f64>,
    /// `lct − bst`.
    pub lct_minus_bst: Vec<f64>,
    /// Mean of `lct`.
    pub lct_mean: f64,
    /// Mean of `bst`.
    pub bst_mean: f64,
    /// Mean of `lct` without the identity conversions (`k2 = 0`, UQ 0).
    pub lct_mean_without_identity: f64,
    /// Encoding id.
    pub encoding: String,
    /// Link-set definition id.
    pub links: String,
    /// The means in one sentence, with the paper's number next to ours on 4 × 4.
    pub means_note: String,
}

impl UqResult {
    /// The histogram of `lct − bst`, drawn for a box `width` px wide.
    pub fn histogram(&self, width: f64, theme: &commlab_plot::Theme) -> String {
        commlab_plot::barrier::uq_histogram(&self.lct_minus_bst, self.lct_mean, self.bst_mean, width, theme)
    }
}

impl UqRequest {
    /// Runs it.
    ///
    /// # Errors
    /// The size out of range.
    pub fn run(&self) -> Result<UqResult, ApiError> {
        let mut build = self.start()?;
        build.advance(u64::MAX);
        Ok(build.finish())
    }

    /// Starts it, to be advanced in slices ([`UqBuild::advance`]).
    ///
    /// # Errors
    /// The size out of range.
    pub fn start(&self) -> Result<UqBuild, ApiError> {
        let size = lim::UQ_SIZE.check(self.size)?;
        let encoding: Encoding = self.encoding.as_deref().map_or(Ok(Encoding::SCurve), |e| parse_id("encoding", e))?;
        let links: LinkSetDefinition =
            self.links.as_deref().map_or(Ok(LinkSetDefinition::default()), |l| parse_id("links", l))?;
        let run = UqRun::start(size, encoding, links)?;
        Ok(UqBuild { request: self.clone(), run })
    }
}

/// The UQ experiment under way.
#[derive(Debug, Clone)]
pub struct UqBuild {
    request: UqRequest,
    run: UqRun,
}

impl UqBuild {
    /// About `events` more work (`N` per link set or row of conversions); true when done.
    pub fn advance(&mut self, events: u64) -> bool {
        self.run.advance(events)
    }

    /// Items done (link sets and rows of conversions), of `4N`.
    pub fn progress(&self) -> (u64, u64) {
        self.run.progress()
    }

    /// The result (once [`UqBuild::advance`] returned true).
    pub fn finish(self) -> UqResult {
        let (encoding, links) = (self.run.encoding(), self.run.definition());
        let e = self.run.finish();
        let (lct_mean, bst_mean, diff) = (UqExperiment::mean(&e.lct), UqExperiment::mean(&e.bst), e.lct_minus_bst());
        let size = self.request.size;
        let means_note = commlab_core::barrier::uq::means_note(size, encoding, links, &e);
        let lct_mean_without_identity =
            commlab_core::barrier::uq::mean_without_identity(&e.lct, (size * size) as usize);
        UqResult {
            size,
            lct_minus_bst: diff,
            lct_mean,
            bst_mean,
            lct_mean_without_identity,
            encoding: encoding.id().to_owned(),
            links: links.id().to_owned(),
            means_note,
            lct: e.lct,
            bst: e.bst,
        }
    }
}

//! The reduction views' runs: the binomial family (tree view) and the chain
//! pipeline (pipeline view). The page builds small runs itself (their cost is
//! bounded by the drawing limits); large ones are built in the worker, which
//! answers with a [`TreeSummary`] or [`PipelineSummary`] and keeps the run
//! for captions and exports.

use crate::{parse_id, ApiError};
use commlab_core::reduce::values::{
    check_native_size, check_size, parse_inputs, random_inputs, sequential_fold, ValueReplay, ValueTrace, Vectors,
};
use commlab_core::reduce::{caption, Collective, CollectiveConfig, Operator, PipelineConfig, Schedule};
use commlab_plot::pipeline::PIPELINE_DRAW_LIMIT;
use commlab_plot::tree::{round_label, TREE_DRAW_LIMIT};
use serde::{Deserialize, Serialize};

/// Every input of the tree view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeRequest {
    /// Collective id (`reduce`, `broadcast`, `allreduce`, `butterfly`).
    pub collective: String,
    /// Message-passing picture instead of PRAM.
    pub message_passing: bool,
    /// Units `p`.
    pub units: u64,
    /// Elements per vector.
    pub elements: u64,
    /// Operator id.
    pub operator: String,
    /// Seed of the random inputs.
    pub seed: u64,
    /// Pad to a power of two with virtual units.
    pub padded: bool,
    /// Typed inputs (`3, 1; 4, 1`), replacing the seeded ones.
    pub inputs: Option<String>,
}

impl Default for TreeRequest {
    /// The tree view's default: a sum reduce over 8 units, one element each.
    fn default() -> Self {
        TreeRequest {
            collective: "reduce".into(),
            message_passing: false,
            units: 8,
            elements: 1,
            operator: "sum".into(),
            seed: 1,
            padded: false,
            inputs: None,
        }
    }
}

/// One computed tree run: everything the view shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeRun {
    /// The schedule.
    pub schedule: Schedule,
    /// Values after every round.
    pub trace: ValueTrace,
    /// The real units' inputs.
    pub inputs: Vectors,
    /// Elements per vector.
    pub width: usize,
    /// Why typed inputs were not used, if they were not.
    pub inputs_error: Option<String>,
}

impl TreeRequest {
    /// Whether the page must leave this run to the worker: more units than
    /// the drawing shows (the work grows with `p`; below, it is bounded).
    pub fn heavy(&self) -> bool {
        let drawn = if self.padded { self.units.next_power_of_two() } else { self.units };
        drawn > u64::from(TREE_DRAW_LIMIT)
    }

    /// Builds the run.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn run(&self) -> Result<TreeRun, ApiError> {
        self.run_with(None)
    }

    /// Builds the run on `given` inputs (the CLI's `--inputs` file) instead
    /// of the seeded or typed ones.
    ///
    /// # Errors
    /// The first field out of range, or `given` not holding `p × elements`
    /// values of the operator's type.
    pub fn run_with(&self, given: Option<Vectors>) -> Result<TreeRun, ApiError> {
        let mut build = self.start_with(given)?;
        build.advance(u64::MAX);
        Ok(build.finish())
    }

    /// Starts the run, to be advanced in slices ([`TreeBuild::advance`]).
    ///
    /// # Errors
    /// As [`TreeRequest::run_with`].
    pub fn start_with(&self, given: Option<Vectors>) -> Result<TreeBuild, ApiError> {
        self.start_in(given, false)
    }

    /// [`TreeRequest::run_with`] under the command line's limits (`p` up to
    /// 2^24, `p × elements` up to 2^24 cells).
    ///
    /// # Errors
    /// As [`TreeRequest::run_with`], against the native limits.
    pub fn run_native_with(&self, given: Option<Vectors>) -> Result<TreeRun, ApiError> {
        let mut build = self.start_in(given, true)?;
        build.advance(u64::MAX);
        Ok(build.finish())
    }

    fn start_in(&self, given: Option<Vectors>, native: bool) -> Result<TreeBuild, ApiError> {
        let collective: Collective = parse_id("collective", &self.collective)?;
        let operator: Operator = parse_id("op", &self.operator)?;
        let config = if native {
            check_native_size(self.units, self.elements)?;
            CollectiveConfig::native(collective, self.units, self.padded)?
        } else {
            check_size(self.units, self.elements)?;
            CollectiveConfig::new(collective, self.units, self.padded)?
        };
        let schedule = Schedule::collective(&config);
        let seeded = || random_inputs(self.seed, self.units, self.elements, operator);
        let (inputs, inputs_error) = match (given, &self.inputs) {
            (Some(v), _) => {
                let fits = v.len() as u64 == self.units * self.elements
                    && matches!(v, Vectors::Float(_)) == operator.is_float();
                if !fits {
                    let kind = if operator.is_float() { "numbers" } else { "64-bit integers" };
                    return Err(ApiError::new(
                        "inputs",
                        "the given vectors",
                        format!("{} × {} {kind}", self.units, self.elements),
                    ));
                }
                (v, None)
            }
            (None, Some(text)) => match parse_inputs(text, self.units, self.elements, operator) {
                Ok(v) => (v, None),
                Err(e) => (seeded()?, Some(e)),
            },
            (None, None) => (seeded()?, None),
        };
        let width = self.elements as usize;
        let replay = ValueReplay::new(&schedule, operator, width, &inputs);
        Ok(TreeBuild { schedule, replay, inputs, width, inputs_error })
    }
}

/// A tree run being built: its value replay advances in slices of cells.
#[derive(Debug, Clone)]
pub struct TreeBuild {
    schedule: Schedule,
    replay: ValueReplay,
    inputs: Vectors,
    width: usize,
    inputs_error: Option<String>,
}

impl TreeBuild {
    /// Replays about `cells` more value cells; true when done.
    pub fn advance(&mut self, cells: u64) -> bool {
        self.replay.advance(&self.schedule, cells)
    }

    /// Cells replayed, of all.
    pub fn progress(&self) -> (u64, u64) {
        self.replay.progress()
    }

    /// The run (once [`TreeBuild::advance`] returned true).
    pub fn finish(self) -> TreeRun {
        let TreeBuild { schedule, replay, inputs, width, inputs_error } = self;
        TreeRun { schedule, trace: replay.finish(), inputs, width, inputs_error }
    }
}

/// One row of the round-by-round summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRow {
    /// What the round does.
    pub label: String,
    /// Messages between real units.
    pub messages: usize,
    /// Real units still active after it.
    pub active: usize,
}

/// What the tree view shows of a run too large to draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeSummary {
    /// Units `p`.
    pub units: u32,
    /// Messages in all.
    pub messages: usize,
    /// Per round.
    pub rows: Vec<RoundRow>,
    /// The caption of each round (step `s ≥ 1` shows `captions[s − 1]`).
    pub captions: Vec<String>,
    /// The result line.
    pub result: String,
    /// Why typed inputs were not used.
    pub inputs_error: Option<String>,
}

impl TreeRun {
    /// The round-by-round summary.
    pub fn summary(&self) -> TreeSummary {
        let s = &self.schedule;
        let mut active = s.units as usize;
        let rows = s
            .rounds
            .iter()
            .enumerate()
            .map(|(r, round)| {
                active -= round.deactivated.iter().filter(|&&u| !s.is_virtual(u)).count();
                let messages = round.messages.iter().filter(|m| !s.is_virtual(m.from) && !s.is_virtual(m.to)).count();
                RoundRow { label: round_label(s, r), messages, active }
            })
            .collect();
        TreeSummary {
            units: s.units,
            messages: s.message_count(),
            rows,
            captions: (0..s.rounds.len()).map(|r| caption(s, r)).collect(),
            result: self.result_line(),
            inputs_error: self.inputs_error.clone(),
        }
    }

    /// `[v] — equals the sequential fold ✓` (or why not): the result at p0.
    pub fn result_line(&self) -> String {
        let end = self.trace.after(self.trace.round_count());
        let at_root = self.trace.vector_text(&end, 0);
        let fold = sequential_fold(&self.inputs, self.trace.operator(), self.width);
        let expected: Vec<String> = fold.slice_text(0..self.width);
        let shown = if at_root.len() > 8 {
            format!("{}, … ({} elements)", at_root[..8].join(", "), at_root.len())
        } else {
            at_root.join(", ")
        };
        let check = if self.schedule.root_only_input {
            "the root's vector, delivered to every unit".to_owned()
        } else if at_root == expected {
            "equals the sequential fold v_0 ⊕ … ⊕ v_{p−1} ✓".to_owned()
        } else {
            format!("differs from the sequential fold ({}) — float rounding of typed inputs", expected.join(", "))
        };
        format!("Result at p0: [{shown}] — {check}")
    }
}

/// Every input of the pipeline view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineRequest {
    /// Units `p`.
    pub units: u64,
    /// Pieces `m`.
    pub pieces: u64,
    /// Elements per vector.
    pub elements: u64,
    /// Seed of the inputs.
    pub seed: u64,
}

impl Default for PipelineRequest {
    /// The pipeline view's default: 5 units, 3 pieces of 6 elements.
    fn default() -> Self {
        PipelineRequest { units: 5, pieces: 3, elements: 6, seed: 1 }
    }
}

/// One computed pipeline run.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineRun {
    /// The schedule.
    pub schedule: Schedule,
    /// Values after every step.
    pub trace: ValueTrace,
}

/// What the pipeline view shows of a run too large to draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineSummary {
    /// Units.
    pub units: u32,
    /// Steps `p + m − 2`.
    pub steps: usize,
    /// Messages.
    pub messages: usize,
    /// The result at p0 is the sum of every input (checked in the worker).
    pub sum_ok: bool,
}

/// Above this many units the pipeline's values table is left out.
pub const VALUES_TABLE_UNITS: u64 = 16;

impl PipelineRequest {
    /// Whether the page must leave this run to the worker: larger than the
    /// diagram or the values table, so the work grows with `p` and `m`.
    pub fn heavy(&self) -> bool {
        let steps = (self.units + self.pieces).saturating_sub(2);
        self.units > u64::from(PIPELINE_DRAW_LIMIT.0).min(VALUES_TABLE_UNITS) || steps > PIPELINE_DRAW_LIMIT.1 as u64
    }

    /// Builds the run.
    ///
    /// # Errors
    /// The first field out of range (`m ≤ elements` included, see [`PipelineConfig`]).
    pub fn run(&self) -> Result<PipelineRun, ApiError> {
        let mut build = self.start()?;
        build.advance(u64::MAX);
        Ok(build.finish())
    }

    /// Starts the run, to be advanced in slices ([`PipelineBuild::advance`]).
    ///
    /// # Errors
    /// As [`PipelineRequest::run`].
    pub fn start(&self) -> Result<PipelineBuild, ApiError> {
        let config = PipelineConfig::new(self.units, self.pieces, self.elements)?;
        let schedule = Schedule::pipeline_of(&config);
        let inputs = random_inputs(self.seed, self.units, self.elements, Operator::Sum)?;
        let replay = ValueReplay::new(&schedule, Operator::Sum, self.elements as usize, &inputs);
        Ok(PipelineBuild { schedule, replay })
    }
}

/// A pipeline run being built: its value replay advances in slices of cells.
#[derive(Debug, Clone)]
pub struct PipelineBuild {
    schedule: Schedule,
    replay: ValueReplay,
}

impl PipelineBuild {
    /// Replays about `cells` more value cells; true when done.
    pub fn advance(&mut self, cells: u64) -> bool {
        self.replay.advance(&self.schedule, cells)
    }

    /// Cells replayed, of all.
    pub fn progress(&self) -> (u64, u64) {
        self.replay.progress()
    }

    /// The run (once [`PipelineBuild::advance`] returned true).
    pub fn finish(self) -> PipelineRun {
        PipelineRun { schedule: self.schedule, trace: self.replay.finish() }
    }
}

impl PipelineRun {
    /// The summary; `sum_ok` checks p0's final vector against the fold of the inputs.
    pub fn summary(&self) -> PipelineSummary {
        let s = &self.schedule;
        let end = self.trace.after(self.trace.round_count());
        let start = self.trace.after(0);
        let width = self.trace.width();
        let units = s.units as usize;
        let inputs = match &start.values {
            Vectors::Int(v) => Vectors::Int(v[..units * width].to_vec()),
            Vectors::Float(v) => Vectors::Float(v[..units * width].to_vec()),
        };
        let fold = sequential_fold(&inputs, Operator::Sum, width);
        let sum_ok = self.trace.vector_text(&end, 0) == fold.slice_text(0..width);
        PipelineSummary { units: s.units, steps: s.rounds.len(), messages: s.message_count(), sum_ok }
    }
}

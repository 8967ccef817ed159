//! `commlab barrier` and `commlab uq`.

use crate::reduce::ArgError;
use commlab_api::lab::UqRequest;
use commlab_api::report::RunJson;
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::{Judge, RunReport, Scenario, Simulation};
use commlab_core::barrier::mesh::{Breaks, Routing};
use commlab_core::barrier::uq::LinkSetDefinition;
use commlab_core::limits::ConfigError;
use serde_json::{json, Value};

fn config_error(e: &ConfigError) -> ArgError {
    (crate::flag_of(e.name), format!("{} is out of range: expected {}", e.value, e.expected))
}

/// `commlab barrier`.
#[derive(clap::Args)]
pub struct BarrierCommand {
    /// Mesh side (size × size nodes).
    #[arg(long)]
    size: u64,
    /// Algorithm: ms, tree, tournament, dissemination, dissemination-tree, dlct, dlct-ms, dlct-tree, butterfly, pairwise, all-to-all, combining, mcs, bst, two-level.
    #[arg(long)]
    algorithm: Algorithm,
    /// Fraction of links broken, 0..=0.9.
    #[arg(long = "break-rate", default_value_t = 0.0)]
    break_rate: f64,
    /// Seed of the breaks and the compute skew.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Consecutive barriers.
    #[arg(long, default_value_t = 3)]
    barriers: u32,
    /// Break only links whose loss keeps the mesh connected (same count, seeded order).
    #[arg(long)]
    connected: bool,
    /// Encoding: s-curve, z-order, hilbert, row-major.
    #[arg(long, default_value = "s-curve")]
    encoding: Encoding,
    /// Tile side of the two-layer forms.
    #[arg(long, default_value_t = 4)]
    tile: u32,
    /// DLCT judge: never, threshold, oracle.
    #[arg(long, default_value = "threshold")]
    judge: Judge,
    /// Threshold of the threshold judge (fraction above the fault-free path sum).
    #[arg(long, default_value_t = 0.1)]
    threshold: f64,
    /// Ticks per hop.
    #[arg(long = "hop-ticks", default_value_t = 1)]
    hop_ticks: u64,
    /// Ticks per message at sender and at receiver.
    #[arg(long = "overhead-ticks", default_value_t = 0)]
    overhead_ticks: u64,
    /// Turn link contention off.
    #[arg(long = "no-contention")]
    no_contention: bool,
    /// Computation before each barrier (ticks).
    #[arg(long = "compute-ticks", default_value_t = 500)]
    compute_ticks: u64,
    /// Largest seeded extra computation per node and barrier (stragglers).
    #[arg(long = "skew-ticks", default_value_t = 0)]
    skew_ticks: u64,
    /// Fan-in of the combining tree.
    #[arg(long = "combining-k", default_value_t = 4)]
    combining_k: u32,
    /// Routing around broken links: paper (closest unvisited neighbour, a step back at a dead end; the default) or shortest (greedy, then a shortest path from a dead end).
    #[arg(long, default_value = "paper")]
    routing: Routing,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

impl BarrierCommand {
    /// The scenario these arguments describe.
    pub fn scenario(&self) -> Scenario {
        Scenario {
            size: self.size,
            algorithm: self.algorithm,
            encoding: self.encoding,
            break_rate: self.break_rate,
            seed: self.seed,
            breaks: None,
            connected: self.connected,
            barriers: self.barriers,
            tile: self.tile,
            judge: if matches!(self.judge, Judge::Threshold(_)) {
                Judge::Threshold(self.threshold)
            } else {
                self.judge
            },
            hop_ticks: self.hop_ticks,
            overhead_ticks: self.overhead_ticks,
            contention: !self.no_contention,
            compute_ticks: self.compute_ticks,
            skew_ticks: self.skew_ticks,
            combining_k: self.combining_k,
            record: false,
            routing: self.routing,
        }
    }

    /// Runs the command.
    ///
    /// # Errors
    /// The argument at fault.
    pub fn run(&self) -> Result<Value, ArgError> {
        let scenario = self.scenario();
        let sim = Simulation::new(scenario.clone()).map_err(|e| config_error(&e))?;
        let breaks = sim.breaks().clone();
        let expected = sim.expected_messages().max(1);
        // Long runs (all-to-all on 64 × 64: 720 M hop events) show their
        // progress on stderr once they take more than a second; Ctrl-C stops them.
        let started = std::time::Instant::now();
        let mut shown = false;
        let mut stepper = sim.start();
        while !stepper.advance(2_000_000) {
            if started.elapsed().as_secs_f64() > 1.0 {
                let done = stepper.delivered().min(expected);
                eprint!(
                    "\rbarrier: {done} of {expected} messages delivered ({:.0} %)",
                    done as f64 * 100.0 / expected as f64
                );
                shown = true;
            }
        }
        if shown {
            eprintln!("\rbarrier: done in {:.1} s{}", started.elapsed().as_secs_f64(), " ".repeat(40));
        }
        let report = stepper.finish();
        Ok(report_json(&scenario, &breaks, &report))
    }
}

/// The JSON of one run: the shape the mesh view's export has too
/// ([`commlab_api::report::RunJson`]).
pub fn report_json(s: &Scenario, breaks: &Breaks, r: &RunReport) -> Value {
    serde_json::to_value(RunJson::new(s, breaks, r)).unwrap_or(Value::Null)
}

/// `commlab uq`.
#[derive(clap::Args)]
pub struct UqCommand {
    /// Mesh side (2..=16).
    #[arg(long)]
    size: u64,
    /// Encoding: s-curve, z-order, hilbert, row-major.
    #[arg(long, default_value = "s-curve")]
    encoding: Encoding,
    /// Links: directed or undirected.
    #[arg(long, default_value = "directed", value_parser = ["directed", "undirected"])]
    links: String,
    /// Phases: gather or gather-release.
    #[arg(long, default_value = "gather", value_parser = ["gather", "gather-release"])]
    phases: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

impl UqCommand {
    /// Runs the command.
    ///
    /// # Errors
    /// The argument at fault.
    pub fn run(&self) -> Result<Value, ArgError> {
        // The engine API's UqRequest, as the lab's UQ chart.
        let def =
            LinkSetDefinition { undirected: self.links == "undirected", with_release: self.phases == "gather-release" };
        let request = UqRequest {
            size: self.size,
            encoding: Some(self.encoding.id().to_owned()),
            links: Some(def.id().to_owned()),
        };
        let e = request
            .run()
            .map_err(|e| (crate::flag_of(&e.field), format!("{} is out of range: expected {}", e.value, e.expected)))?;
        let diff = e.lct_minus_bst;
        let nonzero: Vec<f64> = diff.iter().copied().filter(|d| d.abs() > 1e-12).collect();
        Ok(json!({
            "size": self.size, "encoding": self.encoding.id(), "links": self.links, "phases": self.phases,
            "conversions": diff.len(),
            "lct_mean": e.lct_mean,
            "lct_mean_without_identity": e.lct_mean_without_identity,
            "paper_lct_mean": commlab_core::barrier::uq::PAPER_LCT_MEAN,
            "bst_mean": e.bst_mean,
            "means_note": e.means_note,
            "lct_greater": diff.iter().filter(|&&d| d > 1e-12).count(),
            "bst_greater": diff.iter().filter(|&&d| d < -1e-12).count(),
            "equal": diff.len() - nonzero.len(),
            "lct_minus_bst": diff,
        }))
    }
}

//! The runtime-model view's run (`T(m)`, `T(p)`, `m*`) and `commlab model` /
//! `commlab pipeline`. The model view computes it on the page (its cost does
//! not grow with the inputs: at most [`SIMULATED_POINTS`] event simulations
//! of at most [`SIMULATION_MESSAGES`] messages each); the worker computes the
//! same run for the CSV/JSON exports, and the CLI prints its JSON.

use crate::ApiError;
use commlab_core::limits::PIECES;
use commlab_core::model::{pipeline_steps, ModelConfig};
use commlab_core::reduce::timing::{simulated_binomial, simulated_pieces, time, Costs};
use commlab_core::reduce::Schedule;
use serde::{Deserialize, Serialize};

/// Simulated points per chart.
pub const SIMULATED_POINTS: usize = 14;

/// Points of the network twin (a network run costs more than the event
/// simulation: fewer points of fewer messages keep a redraw short).
pub const NETWORK_POINTS: usize = 6;

/// Messages one network-twin point may take.
pub const NETWORK_MESSAGES: u64 = 1 << 12;

/// Messages one simulated pipeline point may take: `(p − 1)·m ≤ 2^15` keeps
/// the 14 simulations of a redraw under a few milliseconds in the browser.
pub const SIMULATION_MESSAGES: u64 = 1 << 15;

/// Every input of the runtime model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// Vector size `n` in bytes.
    pub bytes: u64,
    /// Units `p`.
    pub units: u64,
    /// Start-up cost of a message.
    pub t_start: f64,
    /// Cost per byte.
    pub t_byte: f64,
    /// Largest piece count considered.
    pub max_pieces: u64,
}

impl Default for ModelRequest {
    /// 1 MiB over 64 units with a 10 µs start-up and 1 GB/s links: `m* ≈ 80.6`,
    /// where pipelining clearly beats the binomial tree.
    fn default() -> Self {
        ModelRequest { bytes: 1 << 20, units: 64, t_start: 10.0, t_byte: 0.001, max_pieces: 1024 }
    }
}

/// The `T(p)` chart spans `2..=max(4p, 64)`: the current `p` sits well inside.
pub fn units_axis_end(units: u64) -> u64 {
    (units * 4).clamp(64, commlab_core::limits::UNITS.max)
}

/// A computed model: the validated configuration and the event simulations
/// drawn on top of the analytic curves.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRun {
    /// The model.
    pub config: ModelConfig,
    /// Simulated `T(m)` of the pipeline at sampled piece counts.
    pub simulated: Vec<(u64, f64)>,
    /// Simulated binomial-tree times at sampled unit counts.
    pub simulated_tree: Vec<(u64, f64)>,
    /// The network twin: `T(m)` of the same chain on a line of `p` hosts
    /// (`mesh:px1`) with links of latency `T_start` and bandwidth
    /// `1/T_byte`, a NIC sending one message at a time (`docs/network.md`):
    /// equal to the model (its closed form). Empty when the line would have
    /// more hosts than a topology may, or `1/T_byte` is out of a link's range.
    pub network: Vec<(u64, f64)>,
}

/// The network twin of `config` at the piece counts of `simulated` (see
/// [`ModelRun::network`]).
pub fn network_twin(config: &ModelConfig, simulated: &[(u64, f64)]) -> Vec<(u64, f64)> {
    use commlab_core::net::topology::{LinkClass, Network, Placement, Shape};
    let p = config.units();
    let bandwidth = 1.0 / config.t_byte();
    let link = LinkClass { bandwidth, latency: config.t_start() };
    let fits = commlab_core::limits::net::BANDWIDTH.contains(bandwidth)
        && commlab_core::limits::net::LATENCY.contains(link.latency);
    let Ok(hosts) = u32::try_from(p) else { return Vec::new() };
    let Ok(net) = Network::new(Shape::Mesh([hosts, 1, 1]), [link; 2]) else { return Vec::new() };
    if !fits {
        return Vec::new();
    }
    let ms: Vec<u64> = simulated.iter().map(|&(m, _)| m).filter(|&m| (p - 1) * m <= NETWORK_MESSAGES).collect();
    // At most NETWORK_POINTS of them, spread over the list.
    let step = ms.len().div_ceil(NETWORK_POINTS).max(1);
    ms.iter()
        .step_by(step)
        .filter_map(|&m| {
            let s = commlab_core::goal::generate::collective("pipeline", p, config.bytes(), m).ok()?;
            let out = commlab_core::net::simulate(
                &s,
                net.clone(),
                Placement::Identity,
                commlab_core::net::NetParams::default(),
                false,
            )
            .ok()?;
            Some((m, out.max().0))
        })
        .collect()
}

/// One pipelined reduction simulated event by event (`commlab pipeline`).
#[derive(Debug, Clone, PartialEq)]
pub struct PipelinePoint {
    /// Pieces `m`.
    pub pieces: u64,
    /// `p + m − 2` (closed form).
    pub steps: u64,
    /// Rounds of the generated schedule.
    pub simulated_steps: usize,
    /// Messages.
    pub messages: usize,
    /// Finish time of the event simulation.
    pub time: f64,
    /// `T(n, p, m)`.
    pub model_time: f64,
}

impl ModelRequest {
    /// The validated model.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn config(&self) -> Result<ModelConfig, ApiError> {
        Ok(ModelConfig::new(self.bytes, self.units, self.t_start, self.t_byte, self.max_pieces)?)
    }

    /// The model with its simulated points.
    ///
    /// # Errors
    /// The first field out of range.
    pub fn run(&self) -> Result<ModelRun, ApiError> {
        let mut run = self.run_without_network()?;
        run.network = network_twin(&run.config, &run.simulated);
        Ok(run)
    }

    /// [`ModelRequest::run`] without the network twin (the page draws the
    /// model at once and asks the worker for the twin: the network
    /// simulator is not in the page's bundle).
    ///
    /// # Errors
    /// The first field out of range.
    pub fn run_without_network(&self) -> Result<ModelRun, ApiError> {
        let config = self.config()?;
        Ok(ModelRun {
            simulated: simulated_pieces(&config, SIMULATED_POINTS, SIMULATION_MESSAGES),
            simulated_tree: simulated_binomial(&config, units_axis_end(config.units()), SIMULATED_POINTS),
            network: Vec::new(),
            config,
        })
    }

    /// The pipelined reduction in `pieces` pieces, simulated event by event
    /// next to the model (`max_pieces` is ignored).
    ///
    /// # Errors
    /// The first field out of range; more pieces than bytes.
    pub fn pipeline_point(&self, pieces: u64) -> Result<PipelinePoint, ApiError> {
        PIECES.check(pieces)?;
        if pieces > self.bytes {
            return Err(ApiError::new("pieces", pieces, format!("at most n = {} (one byte per piece)", self.bytes)));
        }
        let config = ModelRequest { max_pieces: pieces, ..*self }.config()?;
        let costs = Costs::new(self.bytes, self.t_start, self.t_byte)?;
        let schedule = Schedule::pipeline(self.units, pieces)?;
        let simulated = time(&schedule, &costs);
        Ok(PipelinePoint {
            pieces,
            steps: pipeline_steps(self.units, pieces),
            simulated_steps: schedule.rounds.len(),
            messages: simulated.messages,
            time: simulated.finish,
            model_time: config.time_at(pieces),
        })
    }
}

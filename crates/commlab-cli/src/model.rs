//! `commlab model` and `commlab pipeline`.

use crate::reduce::ArgError;
use commlab_core::limits::PIECES;
use commlab_core::model::{pipeline_steps, ConfigError, ModelConfig, Optimum};
use commlab_core::reduce::timing::{time, Costs};
use commlab_core::reduce::Schedule;
use serde_json::{json, Value};

/// The model inputs shared by `model` and `pipeline`.
#[derive(clap::Args)]
pub struct ModelArgs {
    /// Vector size n in bytes.
    #[arg(long)]
    n: u64,
    /// Number of units p.
    #[arg(long)]
    p: u64,
    /// Start-up cost of one message (time units).
    #[arg(long = "t-start")]
    t_start: f64,
    /// Cost per byte (time units per byte).
    #[arg(long = "t-byte")]
    t_byte: f64,
}

/// `commlab model`.
#[derive(clap::Args)]
pub struct ModelCommand {
    #[command(flatten)]
    model: ModelArgs,
    /// Largest piece count considered.
    #[arg(long = "max-pieces", default_value_t = 1024)]
    max_pieces: u64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `commlab pipeline`.
#[derive(clap::Args)]
pub struct PipelineCommand {
    #[command(flatten)]
    model: ModelArgs,
    /// Number of pieces m (the URL's `m`; a vector's length is `--elements` in `reduce`).
    #[arg(long)]
    pieces: u64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

fn config_error(err: &ConfigError) -> ArgError {
    (crate::flag_of(err.name), format!("{} is out of range: expected {}", err.value, err.expected))
}

impl ModelCommand {
    /// Runs the command.
    ///
    /// # Errors
    /// The argument at fault.
    pub fn run(&self) -> Result<Value, ArgError> {
        let a = &self.model;
        let config = ModelConfig::new(a.n, a.p, a.t_start, a.t_byte, self.max_pieces).map_err(|e| config_error(&e))?;
        let s = config.summary();
        let m_star = match s.optimum {
            Optimum::Unbounded | Optimum::Flat => Value::Null,
            other => json!(other.pieces()),
        };
        Ok(json!({
            "n": a.n, "p": a.p, "t_start": a.t_start, "t_byte": a.t_byte,
            "max_pieces": self.max_pieces,
            "piece_limit": config.piece_limit(),
            "m_star": m_star,
            "m_star_note": s.optimum.note(),
            "t_m_star": s.time_at_optimum,
            "m_best": s.best_pieces,
            "t_m_best": s.time_at_best,
            "steps_m_best": s.steps_at_best,
            "t_binomial": s.binomial_time,
            "binomial_rounds": s.binomial_rounds,
        }))
    }
}

impl PipelineCommand {
    /// Runs the command: the event simulation of the schedule and the model.
    ///
    /// # Errors
    /// The argument at fault.
    pub fn run(&self) -> Result<Value, ArgError> {
        let a = &self.model;
        if !PIECES.contains(self.pieces) {
            return Err(config_error(&ConfigError {
                name: PIECES.name,
                value: self.pieces.to_string(),
                expected: PIECES.to_string(),
            }));
        }
        if self.pieces > a.n {
            return Err((
                "--pieces".into(),
                format!("{} is more pieces than bytes: expected at most n = {}", self.pieces, a.n),
            ));
        }
        let config = ModelConfig::new(a.n, a.p, a.t_start, a.t_byte, self.pieces).map_err(|e| config_error(&e))?;
        let costs = Costs::new(a.n, a.t_start, a.t_byte).map_err(|e| config_error(&e))?;
        let schedule = Schedule::pipeline(a.p, self.pieces).map_err(|e| config_error(&e))?;
        let simulated = time(&schedule, &costs);
        Ok(json!({
            "n": a.n, "p": a.p, "pieces": self.pieces, "t_start": a.t_start, "t_byte": a.t_byte,
            "steps": pipeline_steps(a.p, self.pieces),
            "simulated_steps": schedule.rounds.len(),
            "messages": simulated.messages,
            "bytes_per_piece": a.n as f64 / self.pieces as f64,
            "time": simulated.finish,
            "model_time": config.time_at(self.pieces),
        }))
    }
}

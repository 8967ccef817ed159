//! `commlab model` and `commlab pipeline`, built with the engine API's
//! `ModelRequest` (the runtime-model view's run and its JSON export).

use crate::reduce::ArgError;
use commlab_api::model::ModelRequest;
use commlab_api::ApiError;
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

fn api_error(err: &ApiError) -> ArgError {
    let field = match err.field.as_str() {
        "bytes" => "n",
        "units" => "p",
        other => other,
    };
    (crate::flag_of(field), format!("{} is out of range: expected {}", err.value, err.expected))
}

impl ModelArgs {
    fn request(&self, max_pieces: u64) -> ModelRequest {
        ModelRequest { bytes: self.n, units: self.p, t_start: self.t_start, t_byte: self.t_byte, max_pieces }
    }
}

impl ModelCommand {
    /// Runs the command: the same JSON as the model view's export.
    ///
    /// # Errors
    /// The argument at fault.
    pub fn run(&self) -> Result<Value, ArgError> {
        let run = self.model.request(self.max_pieces).run().map_err(|e| api_error(&e))?;
        Ok(serde_json::from_str(&commlab_api::exports::model_json(&run)).expect("the JSON writer writes JSON"))
    }
}

impl PipelineCommand {
    /// Runs the command: the event simulation of the schedule and the model.
    ///
    /// # Errors
    /// The argument at fault.
    pub fn run(&self) -> Result<Value, ArgError> {
        let a = &self.model;
        let point = a.request(self.pieces).pipeline_point(self.pieces).map_err(|e| api_error(&e))?;
        Ok(json!({
            "n": a.n, "p": a.p, "pieces": self.pieces, "t_start": a.t_start, "t_byte": a.t_byte,
            "steps": point.steps,
            "simulated_steps": point.simulated_steps,
            "messages": point.messages,
            "bytes_per_piece": a.n as f64 / self.pieces as f64,
            "time": point.time,
            "model_time": point.model_time,
        }))
    }
}

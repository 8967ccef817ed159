//! `commlab`: the native command line of commlab.
//!
//! It runs the same `commlab-core` calls as the playground and prints either a
//! readable table or, with `--json`, one JSON object. Subcommands:
//! `model` (runtime model of the pipelined reduction) and `pipeline` (steps
//! and time of one pipelined reduction). Out-of-range arguments exit with
//! status 2 and a message naming the argument and its accepted range.

use clap::{Parser, Subcommand};
use commlab_core::limits::PIECES;
use commlab_core::model::{pipeline_steps, ConfigError, ModelConfig, Optimum};
use serde_json::{json, Value};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "commlab", version, about = "Parallel communication algorithms, from the command line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The model inputs shared by `model` and `pipeline`.
#[derive(clap::Args)]
struct ModelArgs {
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

#[derive(Subcommand)]
enum Command {
    /// T(m) of the pipelined reduction: m*, the best integer m, and the binomial reference.
    Model {
        #[command(flatten)]
        model: ModelArgs,
        /// Largest piece count considered.
        #[arg(long = "max-pieces", default_value_t = 1024)]
        max_pieces: u64,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Steps and modelled time of the chain pipeline with m pieces.
    Pipeline {
        #[command(flatten)]
        model: ModelArgs,
        /// Number of pieces m.
        #[arg(long)]
        m: u64,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// Maps a core parameter name to the CLI flag that sets it.
fn flag_of(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

fn config(args: &ModelArgs, max_pieces: u64) -> Result<ModelConfig, ConfigError> {
    ModelConfig::new(args.n, args.p, args.t_start, args.t_byte, max_pieces)
}

fn model(args: &ModelArgs, max_pieces: u64) -> Result<Value, ConfigError> {
    let config = config(args, max_pieces)?;
    let s = config.summary();
    let m_star = match s.optimum {
        Optimum::Unbounded | Optimum::Flat => Value::Null,
        other => json!(other.pieces()),
    };
    Ok(json!({
        "n": args.n, "p": args.p, "t_start": args.t_start, "t_byte": args.t_byte,
        "max_pieces": max_pieces,
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

fn pipeline(args: &ModelArgs, pieces: u64) -> Result<Value, ConfigError> {
    if !PIECES.contains(pieces) {
        return Err(ConfigError { name: PIECES.name, value: pieces.to_string(), expected: PIECES.to_string() });
    }
    let config = config(args, pieces)?;
    if pieces > args.n {
        return Err(ConfigError {
            name: PIECES.name,
            value: pieces.to_string(),
            expected: format!("at most n = {} (a piece holds at least one byte)", args.n),
        });
    }
    Ok(json!({
        "n": args.n, "p": args.p, "m": pieces, "t_start": args.t_start, "t_byte": args.t_byte,
        "steps": pipeline_steps(args.p, pieces),
        "bytes_per_piece": args.n as f64 / pieces as f64,
        "time": config.time_at(pieces),
    }))
}

fn print_table(value: &Value) {
    let Value::Object(map) = value else { unreachable!("commands build JSON objects") };
    let width = map.keys().map(String::len).max().unwrap_or(0);
    for (key, v) in map {
        let shown = match v {
            Value::Null => "—".to_owned(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        println!("{key:<width$}  {shown}");
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (result, as_json) = match &cli.command {
        Command::Model { model: args, max_pieces, json } => (model(args, *max_pieces), *json),
        Command::Pipeline { model: args, m, json } => (pipeline(args, *m), *json),
    };
    match result {
        Ok(value) if as_json => {
            println!("{value}");
            ExitCode::SUCCESS
        }
        Ok(value) => {
            print_table(&value);
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: {} = {} is out of range: expected {}", flag_of(err.name), err.value, err.expected);
            ExitCode::from(2)
        }
    }
}

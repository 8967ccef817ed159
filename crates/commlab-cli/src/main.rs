//! `commlab`: the native command line of commlab.
//!
//! It runs the same `commlab-core` calls as the playground and prints either a
//! readable table or, with `--json`, one JSON object. Subcommands: `model`
//! (runtime model of the pipelined reduction), `pipeline` (steps and time of
//! one pipelined reduction, simulated and modelled), `reduce`, `broadcast`,
//! `allreduce` (binomial-tree collectives on seeded or given inputs), `swizzle`
//! (the CommSwizzle schedule).
//! Invalid arguments exit with status 2 and a message naming the argument and
//! its accepted range.

mod barrier;
mod choose;
mod experiments;
mod fit;
mod goal;
mod model;
mod net;
mod predict;
mod reduce;
mod swizzle;
mod system;

use clap::{Parser, Subcommand};
use commlab_core::reduce::Collective;
use serde_json::Value;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "commlab", version, about = "Parallel communication algorithms, from the command line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant, reason = "one command, parsed once per run")]
enum Command {
    /// T(m) of the pipelined reduction: m*, the best integer m, and the binomial reference.
    Model(model::ModelCommand),
    /// Steps and time of the chain pipeline with m pieces (event simulation and model).
    Pipeline(model::PipelineCommand),
    /// Binomial-tree reduction to unit 0.
    Reduce(reduce::CollectiveArgs),
    /// Binomial-tree broadcast from unit 0.
    Broadcast(reduce::CollectiveArgs),
    /// Allreduce: reduce + broadcast, or recursive doubling with --butterfly.
    Allreduce {
        #[command(flatten)]
        args: reduce::CollectiveArgs,
        /// Use recursive doubling (butterfly) instead of reduce + broadcast.
        #[arg(long)]
        butterfly: bool,
    },
    /// CommSwizzle: the mapping of every loop index, steps, rank collisions, coverage.
    Swizzle(swizzle::SwizzleCommand),
    /// One barrier scenario on a mesh with broken links: delays, messages, hops, checker verdict.
    Barrier(barrier::BarrierCommand),
    /// The update-quantity experiment: all N × N conversions for LCT and BST.
    Uq(barrier::UqCommand),
    /// An experiment grid (algorithms × sizes × break rates × seeds) as CSV.
    Sweep(experiments::SweepCommand),
    /// The paper's figures as SVG + CSV.
    Figures(experiments::FiguresCommand),
    /// Joins the outputs of `sweep --shard K/N` into the single-run CSV.
    Merge(experiments::MergeCommand),
    /// GOAL schedules under LogGOPS (LogGOPSim's rules).
    #[command(subcommand)]
    Goal(goal::GoalCommand),
    /// Schedules on a network: topologies, routes, shared links, broken links.
    #[command(subcommand)]
    Net(net::NetCommand),
    /// Which algorithm for a collective, per message size: α–β–γ times, the winner, crossovers.
    Choose(choose::ChooseArgs),
    /// α, β (and γ) fitted to benchmark output: nccl-tests, OSU or a CSV of size and time.
    Fit(fit::FitArgs),
    /// What a preset cluster should reach per message size: NCCL's pick simulated on its network, in nccl-tests' terms.
    Predict(predict::PredictArgs),
    /// The source documents' numbers beside commlab's, with why they differ.
    Sources {
        /// One JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// A Markdown table (the README's Sources section).
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// The app's Sources page (web/sources.html).
        #[arg(long, conflicts_with_all = ["json", "markdown"])]
        html: bool,
    },
}

/// Maps a core parameter name to the CLI flag that sets it.
pub(crate) fn flag_of(name: &str) -> String {
    match name {
        // Pieces `m` (the URL's name) are `--pieces` on the command line.
        "m" => "--pieces".to_owned(),
        "break_rate" => "--break-rate".to_owned(),
        _ => format!("--{}", name.replace('_', "-")),
    }
}

/// Writes to standard output; a closed pipe (`commlab … | head`) ends the
/// program quietly instead of panicking.
pub(crate) fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(1);
    }
}

fn print_table(value: &Value) {
    let Value::Object(map) = value else { unreachable!("commands build JSON objects") };
    let width = map.keys().map(String::len).max().unwrap_or(0);
    for (key, v) in map {
        let shown = match v {
            Value::Null => "—".to_owned(),
            Value::String(s) => s.clone(),
            Value::Array(items) if items.len() > 12 => format!("[{} items; use --json for all]", items.len()),
            other => other.to_string(),
        };
        out(&format!("{key:<width$}  {shown}\n"));
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (result, as_json) = match &cli.command {
        Command::Model(c) => (c.run(), c.json),
        Command::Pipeline(c) => (c.run(), c.json),
        Command::Reduce(a) => (reduce::run(Collective::Reduce, a), a.json),
        Command::Broadcast(a) => (reduce::run(Collective::Broadcast, a), a.json),
        Command::Allreduce { args, butterfly } => {
            let c = if *butterfly { Collective::Butterfly } else { Collective::Allreduce };
            (reduce::run(c, args), args.json)
        }
        Command::Swizzle(c) => (c.run(), c.json),
        Command::Barrier(c) => (c.run(), c.json),
        Command::Uq(c) => (c.run(), c.json),
        Command::Sweep(c) => (c.run(), true),
        Command::Figures(c) => (c.run(), true),
        Command::Merge(c) => (c.run(), true),
        Command::Goal(goal::GoalCommand::Sim(a)) => (a.run(), a.json),
        Command::Goal(goal::GoalCommand::Gen(a)) => (a.run(), true),
        Command::Goal(goal::GoalCommand::Check(a)) => (a.run(), true),
        Command::Choose(a) => (a.run(), a.json),
        Command::Fit(a) => (a.run(), a.json),
        Command::Predict(a) => {
            if !a.json {
                return match a.run() {
                    Ok(v) => {
                        out(&predict::table(&v));
                        ExitCode::SUCCESS
                    }
                    Err((flag, message)) => refuse(&flag, &message),
                };
            }
            (a.run(), true)
        }
        Command::Net(net::NetCommand::Sim(a)) => (a.run(), a.json),
        Command::Net(net::NetCommand::Topo(a)) => (a.run(), a.json),
        Command::Sources { json, markdown, html } => {
            let rows = commlab_api::sources::rows();
            if *html {
                out(&commlab_api::sources::html(&rows));
                return ExitCode::SUCCESS;
            }
            if *markdown {
                out(&commlab_api::sources::markdown(&rows));
                return ExitCode::SUCCESS;
            }
            if !*json {
                for r in &rows {
                    out(&format!(
                        "{} — {}\n  theirs: {}\n  ours:   {}\n  {}: {}\n\n",
                        r.source, r.item, r.theirs, r.ours, r.verdict, r.why
                    ));
                }
                return ExitCode::SUCCESS;
            }
            (Ok(serde_json::to_value(&rows).expect("rows are plain data")), true)
        }
    };
    match result {
        Ok(Value::Null) => ExitCode::SUCCESS,
        Ok(value) if as_json => {
            out(&format!("{value}\n"));
            ExitCode::SUCCESS
        }
        Ok(value) => {
            print_table(&value);
            ExitCode::SUCCESS
        }
        Err((arg, message)) => refuse(&arg, &message),
    }
}

/// Prints a refusal and exits with status 2. An engine field's name becomes
/// its flag's (`combining_k` is `--combining-k`).
fn refuse(arg: &str, message: &str) -> ExitCode {
    let arg = if arg.starts_with("--") { arg.replace('_', "-") } else { arg.to_owned() };
    eprintln!("error: {arg}: {message}");
    ExitCode::from(2)
}

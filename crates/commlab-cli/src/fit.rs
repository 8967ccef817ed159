//! `commlab fit`: α, β (and γ) fitted to a benchmark's output
//! (`docs/libraries.md`), for a named algorithm or the best-fitting one.

use crate::reduce::ArgError;
use commlab_api::fit::{FitRequest, PFrom};
use serde_json::Value;
use std::fmt::Write as _;

/// `commlab fit`.
#[derive(clap::Args)]
pub struct FitArgs {
    /// The benchmark output to read (`-`: standard input).
    file: String,
    /// nccl-tests, osu or csv (default: detected from the file).
    #[arg(long)]
    format: Option<String>,
    /// The collective measured: broadcast, reduce, allreduce, allgather, reduce-scatter, all-to-all
    /// (default: the one nccl-tests names in the file, `all_reduce_perf` …, or in the file's name; else allreduce).
    #[arg(long)]
    collective: Option<String>,
    /// Ranks measured (default: the ranks nccl-tests lists in its header, else its busbw / algbw for the
    /// collective, else --system × --nodes). Given, it wins over the file, with a warning when they differ.
    #[arg(long)]
    p: Option<u32>,
    /// The algorithm to fit (default: each, the best fit kept).
    #[arg(long)]
    algorithm: Option<String>,
    /// nccl-tests: fit the in-place times instead of the out-of-place ones.
    #[arg(long)]
    in_place: bool,
    /// γ per byte combined, held fixed (in the file's time unit). Bytes combined
    /// grow with bytes moved in every plan, so γ cannot be fitted from the same times.
    #[arg(long, default_value_t = 0.0)]
    gamma: f64,
    /// The run to fit when the file holds several outputs one after another
    /// (a size that does not grow, or a new banner, starts a run; default: the first).
    #[arg(long)]
    run: Option<u32>,
    /// The library measured (nccl, ompi, mpich): the advice names its
    /// algorithms only (default: nccl for an nccl-tests file, none otherwise).
    #[arg(long)]
    library: Option<String>,
    /// A preset (`commlab predict --system list`), or `log`: the System the file describes (its rank list,
    /// NCCL's lines, busbw / algbw, as `predict --from` reads them): also fit its inter-node and
    /// intra-node bandwidths and NCCL's fixed costs to the run (nccl-tests only).
    #[arg(long)]
    system: Option<String>,
    /// Nodes of the measured run (default: p over the preset's GPUs per node).
    #[arg(long)]
    nodes: Option<u32>,
    #[arg(long, help = crate::system::nodes_help(
        "With --system: predict the same sizes on this many nodes from the fit",
        commlab_api::system::FIT_NODES,
    ))]
    predict_nodes: Option<u32>,
    /// With --system: the NCCL release whose model picks (as `predict --nccl-version`).
    #[arg(long)]
    nccl_version: Option<String>,
    #[arg(long = "env", value_name = "NAME=VALUE", requires = "system", help = crate::system::env_help())]
    env: Vec<String>,
    /// With --system: the engine of the system's times, flow or steady (as `predict --engine`).
    #[arg(long)]
    engine: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

impl FitArgs {
    /// Reads the file and fits.
    ///
    /// # Errors
    /// An unreadable file, a malformed line (its line and column), an
    /// unknown collective or algorithm, p missing or out of range.
    pub fn run(&self) -> Result<Value, ArgError> {
        let text = crate::goal::read_at_most(&self.file, commlab_core::limits::FIT_TEXT_BYTES)?;
        let collective = self.collective.clone().unwrap_or_else(|| {
            let named = commlab_core::fit::collective_named(&text)
                .or_else(|| commlab_api::predict::collective_in_name(&self.file));
            named.unwrap_or(commlab_core::choose::Collective::Allreduce).id().to_owned()
        });
        // The p given: --p, else the System's GPUs; the file's own ranks are
        // read by the fit itself (`FitRequest::ranks`).
        let system_p = match (&self.system, self.nodes) {
            (Some(id), Some(n)) => crate::system::node_type(id).ok().map(|s| s.ranks(n)),
            _ => None,
        };
        let (p, p_from) = match (self.p, system_p) {
            (Some(p), _) => (p, PFrom::Flag),
            (None, Some(p)) => (p, PFrom::System),
            (None, None) => (0, PFrom::Page),
        };
        let request = FitRequest {
            text,
            format: self.format.clone(),
            collective,
            p,
            algorithm: self.algorithm.clone(),
            in_place: self.in_place,
            gamma: self.gamma,
            run: self.run,
            library: self.library.clone(),
            p_from,
        };
        let result = request.run().map_err(|e| {
            let flag = if e.field == "file" { "FILE".to_owned() } else { format!("--{}", e.field) };
            (flag, e.to_string())
        })?;
        if let Some(note) = &result.p_note {
            eprintln!("warning: {note}");
        }
        let system = self.system_fit(&result, &request.text)?;
        if self.json {
            let mut value = serde_json::to_value(result.to_json()).unwrap_or_default();
            if let Some(s) = &system {
                value["system_fit"] = serde_json::to_value(s.json.clone()).unwrap_or_default();
                if !s.from.is_null() {
                    value["system_fit"]["from"] = s.from.clone();
                }
                if let Some(m) = self.predict_nodes {
                    value["predict_nodes"] = Value::from(m);
                    value["prediction"] = serde_json::to_value(&s.prediction).unwrap_or_default();
                }
            }
            return Ok(value);
        }
        let f = commlab_plot::format_quantity;
        let tied = result.tied();
        let verdict = if tied.len() > 1 {
            format!(
                "{} fit equally well (one curve cannot tell them apart); shown: {}",
                tied.join(", "),
                result.algorithm
            )
        } else {
            format!("best fit {}", result.algorithm)
        };
        let mut out = format!(
            "{} on p = {} ({} points, {}): {verdict}\n  α = {} ± {} {u}\n  β = {} ± {} {u}/byte{}\n",
            result.collective,
            result.p,
            result.points.len(),
            result.format,
            f(result.alpha),
            f(result.alpha_err),
            f(result.beta),
            f(result.beta_err),
            result.beta_gbps().map_or(String::new(), |g| format!(" (1/β = {} GB/s)", f(g))),
            u = result.unit
        );
        if result.gamma > 0.0 {
            let _ = writeln!(out, "  γ = {} {}/byte (given)", f(result.gamma), result.unit);
        }
        for c in result.candidates.iter().take(6) {
            let _ = writeln!(out, "  {:<22} rms relative residual {:.3}", c.algorithm, c.rms);
        }
        let outliers: Vec<String> = result
            .outliers()
            .into_iter()
            .map(|i| {
                format!(
                    "{} ({:+.0} %)",
                    commlab_plot::format_bytes(result.points[i].0),
                    result.residuals[i] / result.points[i].1 * 100.0
                )
            })
            .collect();
        if !outliers.is_empty() {
            let _ = writeln!(out, "  outliers (the curve misses them far more than the rest): {}", outliers.join(", "));
        }
        out.push_str(&result.summary);
        out.push('\n');
        if let Some(s) = &system {
            out.push_str(&s.text);
        }
        crate::out(&out);
        Ok(Value::Null)
    }
}

/// The system fit's outputs: its JSON, its text, and the prediction rows.
struct SystemOut {
    json: commlab_api::json::Json,
    text: String,
    prediction: Vec<Value>,
    /// `--system log`: what the log said and what was assumed.
    from: Value,
}

impl FitArgs {
    /// `--system ID`'s System for the run: its nodes from `--nodes` or the
    /// run's p.
    fn system_named(
        &self,
        id: &str,
        result: &commlab_api::fit::FitResult,
        range: commlab_core::limits::IntRange,
    ) -> Result<commlab_api::system::System, ArgError> {
        let preset = crate::system::node_type(id)?;
        let nodes = match self.nodes {
            Some(n) if preset.ranks(n) != result.p && (self.p.is_some() || result.p % preset.gpus != 0) => {
                return Err((
                    "--nodes".to_owned(),
                    format!("{n} × {} has {} GPUs, the run has p = {}", preset.id, preset.ranks(n), result.p),
                ))
            }
            // The file's p over the System's GPUs (the warning said so): its nodes.
            Some(n) if preset.ranks(n) != result.p => result.p / preset.gpus,
            Some(n) => n,
            None if result.p % preset.gpus == 0 => result.p / preset.gpus,
            None => {
                return Err((
                    "--nodes".to_owned(),
                    format!("p = {} is not a whole number of {}-GPU {} nodes", result.p, preset.gpus, preset.id),
                ))
            }
        };
        crate::system::parse(id, nodes, self.nccl_version.as_deref(), &self.env, range)
    }

    /// `--system log`: the System the run's output describes (as `predict
    /// --from` reads it), and what it read and assumed, as lines.
    fn system_of_log(
        &self,
        text: &str,
        range: commlab_core::limits::IntRange,
    ) -> Result<(commlab_api::system::System, String, Value), ArgError> {
        let env = self.env.join(" ");
        let given = commlab_api::predict::Given {
            nodes: self.nodes,
            version: self.nccl_version.as_deref(),
            collective: self.collective.as_deref().and_then(|c| c.parse().ok()),
            named: commlab_api::predict::collective_in_name(&self.file),
            env: &env,
            named_from: "",
            system: None,
        };
        let log = commlab_api::predict::from_log(text, &given, range).map_err(|e| {
            let flag = if e.field == "file" { "--system".to_owned() } else { format!("--{}", e.field) };
            (flag, format!("the System of the log: {e}"))
        })?;
        let mut lines = String::new();
        for line in &log.read {
            let _ = writeln!(lines, "read from the log: {line}");
        }
        for line in &log.assumed {
            let _ = writeln!(lines, "assumed: {line}");
        }
        Ok((log.request.system, lines, serde_json::json!({ "read": log.read, "assumed": log.assumed })))
    }

    /// Without `--system`, the flags that only go with it are refused.
    fn without_system(&self) -> Result<(), ArgError> {
        let flag = if self.nodes.is_some() {
            "--nodes"
        } else if self.predict_nodes.is_some() {
            "--predict-nodes"
        } else if self.engine.is_some() {
            "--engine"
        } else if self.nccl_version.is_some() {
            "--nccl-version"
        } else {
            return Ok(());
        };
        Err((flag.to_owned(), "needs --system ID: the nodes of which system".to_owned()))
    }

    /// `--system` (with `--nodes`, `--predict-nodes`): the preset fitted to the run.
    fn system_fit(&self, result: &commlab_api::fit::FitResult, text: &str) -> Result<Option<SystemOut>, ArgError> {
        let Some(system) = &self.system else {
            return self.without_system().map(|()| None);
        };
        let arg = |flag: &str, e: commlab_api::ApiError| (format!("--{flag}"), e.to_string());
        if result.format != "nccl-tests" {
            return Err((
                "--system".to_owned(),
                format!(
                    "a system is fitted to an nccl-tests run (what NCCL runs on it is simulated); this file is {}",
                    result.format
                ),
            ));
        }
        let engine: commlab_api::predict::Engine =
            self.engine.as_deref().unwrap_or("flow").parse().map_err(|e| arg("engine", e))?;
        let range = match engine {
            commlab_api::predict::Engine::Flow => commlab_api::predict::FIT_NODES,
            commlab_api::predict::Engine::Steady => commlab_api::predict::STEADY_NODES,
        };
        let (system, mut text, from) = if system == "log" {
            self.system_of_log(text, range)?
        } else {
            (self.system_named(system, result, range)?, String::new(), Value::Null)
        };
        let (preset, nodes) = (system.preset, system.nodes);
        let request = commlab_api::sysfit::SystemFitRequest::new(
            &system,
            self.predict_nodes,
            &result.collective,
            &result.points,
            engine,
        )
        .map_err(|e| {
            let field = e.field.clone();
            arg(&field, e)
        })?;
        let fit = request.run_by(Some(commlab_api::predict::Planned::steady_ns)).map_err(|e| arg("system", e))?;
        let report =
            commlab_api::sysfit::Report { preset: &preset, nodes, request: &request, fit: &fit, rccl: result.rccl };
        text.push_str(&report.sentences().join("\n"));
        text.push('\n');
        let ranks = preset.ranks(self.predict_nodes.unwrap_or(nodes));
        let collective = result.collective.parse().unwrap_or(commlab_core::choose::Collective::Allreduce);
        let prediction: Vec<Value> = request
            .then
            .iter()
            .zip(&fit.then_us)
            .map(|(p, &t)| {
                let busbw = commlab_core::systems::Measure::Busbw.of(collective, ranks, p.bytes, t * 1000.0);
                serde_json::json!({
                    "bytes": p.bytes, "time_us": t, "busbw": busbw,
                    "algorithm": commlab_api::predict::algorithm_id(p.algorithm), "protocol": p.protocol.id(),
                })
            })
            .collect();
        if let Some(m) = self.predict_nodes {
            let _ = writeln!(
                text,
                "Predicted on {m} × {} from this fit:\n{:>14} {:>12} {:>9}  pick",
                preset.id, "bytes", "time µs", "busbw"
            );
            for row in &prediction {
                let _ = writeln!(
                    text,
                    "{:>14} {:>12.1} {:>9.2}  {}/{}",
                    row["bytes"].as_u64().unwrap_or(0),
                    row["time_us"].as_f64().unwrap_or(0.0),
                    row["busbw"].as_f64().unwrap_or(0.0),
                    row["algorithm"].as_str().unwrap_or(""),
                    row["protocol"].as_str().unwrap_or("")
                );
            }
        }
        Ok(Some(SystemOut { json: report.to_json(), text, prediction, from }))
    }
}

//! `commlab predict`: what a described cluster should reach, per message
//! size, in nccl-tests' terms (`docs/systems.md`).

use crate::choose::{bytes_arg, Bytes};
use crate::reduce::ArgError;
use commlab_api::predict::PredictRequest;
use commlab_core::systems::PRESETS;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// `commlab predict`.
#[derive(clap::Args)]
pub struct PredictArgs {
    #[arg(long, help = crate::system::system_help())]
    system: String,
    #[arg(long, default_value_t = 2, help = crate::system::nodes_help("Nodes", commlab_api::system::NODES))]
    nodes: u32,
    /// allreduce, allgather, reduce-scatter, broadcast, reduce or all-to-all.
    #[arg(long, default_value = "allreduce")]
    collective: String,
    /// Sizes as nccl-tests' size column: one (65536, 64K), a list (1K,1M), or MIN..MAX (every power of two in it).
    #[arg(long, default_value = "8..1G")]
    bytes: String,
    /// The NCCL release whose model picks: 2.22, 2.28, current (2.30.7), or any release from 2.18
    /// (2.26.2 uses 2.22's tables: the newest transcribed release not newer).
    #[arg(long)]
    nccl_version: Option<String>,
    #[arg(long = "env", value_name = "NAME=VALUE", help = crate::system::env_help())]
    env: Vec<String>,
    /// steady (rings, NCCL's tree and NVLS tree from their steady state: smooth, milliseconds at any node
    /// count) or flow (every flow simulated; a ring over several channels also reports its band over 7 runs
    /// with the system's values moved ±0.5 %).
    #[arg(long, default_value = "flow")]
    engine: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// The sizes `text` names: `N`, `A,B,…` or `MIN..MAX` (powers of two).
fn sizes(text: &str) -> Result<Vec<u64>, ArgError> {
    Ok(match bytes_arg(text)? {
        Bytes::Range(lo, hi) => commlab_api::chooser::sizes(lo, hi),
        Bytes::List(list) => list,
    })
}

impl PredictArgs {
    /// The System of `--system`, `--nodes` and `--nccl-version`, nodes
    /// within the steady engine's range (the flow engine's is checked
    /// where it runs, with a sentence of its own).
    ///
    /// # Errors
    /// The flag at fault and what it accepts.
    pub fn system(&self) -> Result<commlab_api::system::System, ArgError> {
        crate::system::parse(
            &self.system,
            self.nodes,
            self.nccl_version.as_deref(),
            &self.env,
            commlab_api::system::STEADY_NODES,
        )
    }

    /// Predicts, or lists the presets.
    ///
    /// # Errors
    /// An unknown system or collective, nodes or sizes out of range.
    pub fn run(&self) -> Result<Value, ArgError> {
        if self.system == "list" {
            let list: Vec<Value> = PRESETS
                .iter()
                .map(|p| json!({ "id": p.id, "name": p.name, "gpus_per_node": p.gpus, "nics_per_node": p.nics }))
                .collect();
            return Ok(json!({ "systems": list }));
        }
        let engine: commlab_api::predict::Engine =
            self.engine.parse().map_err(|e: commlab_api::ApiError| ("--engine".to_owned(), e.to_string()))?;
        let request =
            PredictRequest { system: self.system()?, collective: self.collective.clone(), sizes: sizes(&self.bytes)? };
        let prediction = request.run(engine).map_err(|e| {
            let flag = match e.field.as_str() {
                "hosts" => "--nodes".to_owned(),
                "bytes" | "size" => "--bytes".to_owned(),
                f => format!("--{f}"),
            };
            (flag, e.to_string())
        })?;
        Ok(prediction.to_json())
    }
}

/// The table of a prediction (or of the presets).
pub fn table(v: &Value) -> String {
    let mut out = String::new();
    if let Some(list) = v["systems"].as_array() {
        for s in list {
            let _ = writeln!(out, "{:<16} {}", s["id"].as_str().unwrap_or(""), s["name"].as_str().unwrap_or(""));
        }
        return out;
    }
    let _ = writeln!(
        out,
        "{} × {} ({}), {}: {} ranks; NCCL's pick by {}",
        v["nodes"],
        v["system"]["id"].as_str().unwrap_or(""),
        v["system"]["topology"].as_str().unwrap_or(""),
        v["collective"].as_str().unwrap_or(""),
        v["ranks"],
        v["system"]["nccl"]["version"].as_str().unwrap_or("")
    );
    if let Some(env) = v["system"]["env"].as_str().filter(|e| !e.is_empty()) {
        let channels = v["rows"][0]["channels"].as_u64().unwrap_or(0);
        let _ = writeln!(out, "under {env} (a ring, tree or chain runs {channels} channels)");
        for name in v["system"]["env_not_modelled"].as_array().into_iter().flatten() {
            let _ =
                writeln!(out, "{}: read, but nothing in commlab's model depends on it", name.as_str().unwrap_or(""));
        }
    }
    let _ = writeln!(
        out,
        "{:>12} {:>12} {:>9} {:>9}  {:<18} {:>12}  bottleneck",
        "bytes", "time (µs)", "algbw", "busbw", "NCCL runs", "NCCL's model"
    );
    let mut coupled = false;
    // The widest band of the rows, relative to its mean, and its size.
    let mut widest: Option<(f64, u64)> = None;
    for r in v["rows"].as_array().into_iter().flatten() {
        if let (Some(lo), Some(hi), Some(mean)) =
            (r["band"]["min_us"].as_f64(), r["band"]["max_us"].as_f64(), r["band"]["mean_us"].as_f64())
        {
            let w = (hi - lo) / mean;
            if widest.is_none_or(|(best, _)| w > best) {
                widest = Some((w, r["bytes"].as_u64().unwrap_or(0)));
            }
        }
        // A time that is one value of a band: marked, and said below.
        let mark = if r["coupled"].as_bool() == Some(true) {
            coupled = true;
            "~"
        } else {
            " "
        };
        let pick = format!("{}/{}", r["algorithm"].as_str().unwrap_or(""), r["protocol"].as_str().unwrap_or(""));
        let model = r["nccl_model_time_us"].as_f64().map_or("—".to_owned(), |t| format!("{t:.1}"));
        let neck = r["bottleneck"]["link"].as_str().map_or(String::new(), |l| {
            format!("{l} at {:.0} %", 100.0 * r["bottleneck"]["utilisation"].as_f64().unwrap_or(0.0))
        });
        let _ = writeln!(
            out,
            "{:>12} {mark}{:>11.1} {:>9.2} {:>9.2}  {:<18} {:>12}  {}",
            r["bytes"].as_u64().unwrap_or(0),
            r["time_us"].as_f64().unwrap_or(0.0),
            r["algbw"].as_f64().unwrap_or(0.0),
            r["busbw"].as_f64().unwrap_or(0.0),
            pick,
            model,
            neck
        );
    }
    if let Some(note) = v["model_note"].as_str() {
        let _ = writeln!(out, "{note}");
    }
    if let Some(note) = v["engine_note"].as_str() {
        let _ = writeln!(out, "{note}");
    }
    if let Some(left) = v["system"]["not_modelled"].as_str() {
        let _ = writeln!(out, "Not modelled: {left}.");
    }
    if coupled {
        let _ = writeln!(
            out,
            "~ simulated as a ring over several channels: the time is one value in a band (the channels' flows share links max–min, and the last digits of any parameter move it; docs/systems.md, \"Two engines\")"
        );
        if let Some((w, bytes)) = widest {
            let _ = writeln!(
                out,
                "  its 7 runs with the system's values moved ±0.5 % spread over {:.1} % of their mean at most (at {bytes} B); --engine steady gives a smooth value",
                100.0 * w
            );
        }
    }
    out
}

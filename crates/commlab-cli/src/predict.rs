//! `commlab predict`: what a described cluster should reach, per message
//! size, in nccl-tests' terms (`docs/systems.md`).

use crate::choose::{bytes_arg, Bytes};
use crate::reduce::ArgError;
use commlab_api::predict::PredictRequest;
use commlab_core::choose::Collective;
use commlab_core::systems::PRESETS;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// `commlab predict`.
#[derive(clap::Args)]
pub struct PredictArgs {
    #[arg(long, required_unless_present = "from", help = crate::system::system_help())]
    system: Option<String>,
    #[arg(long, help = format!("{} Default 2, or the log's with --from.", crate::system::nodes_help("Nodes", commlab_api::system::NODES)))]
    nodes: Option<u32>,
    /// allreduce, allgather, reduce-scatter, broadcast, reduce or all-to-all (default allreduce, or the log's
    /// with --from).
    #[arg(long)]
    collective: Option<String>,
    /// Sizes as nccl-tests' size column: one (65536, 64K), a list (1K,1M), or MIN..MAX (every power of two in
    /// it; default 8..1G, or the log's sizes with --from).
    #[arg(long)]
    bytes: Option<String>,
    /// The NCCL release whose model picks: 2.22, 2.28, current (2.30.7), or any release from 2.18
    /// (2.26.2 uses 2.22's tables: the newest transcribed release not newer).
    #[arg(long)]
    nccl_version: Option<String>,
    #[arg(long = "env", value_name = "NAME=VALUE", help = crate::system::env_help())]
    env: Vec<String>,
    /// A benchmark's output (nccl-tests, with `NCCL_DEBUG=INFO` lines or not; `-`: standard input): predict its
    /// sizes on the System it describes (its rank list's GPUs and hosts, NCCL's version, nRanks, nNodes,
    /// localRanks and settings), beside its own times; what it does not print is assumed and said. Flags win
    /// over the log.
    #[arg(long, value_name = "FILE")]
    from: Option<String>,
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
    /// The System of `--system`, `--nodes` (default 2) and
    /// `--nccl-version`, nodes within the steady engine's range (the flow
    /// engine's is checked where it runs, with a sentence of its own).
    ///
    /// # Errors
    /// The flag at fault and what it accepts.
    pub fn system(&self) -> Result<commlab_api::system::System, ArgError> {
        crate::system::parse(
            self.system.as_deref().unwrap_or_default(),
            self.nodes.unwrap_or(2),
            self.nccl_version.as_deref(),
            &self.env,
            commlab_api::system::STEADY_NODES,
        )
    }

    /// Predicts, or lists the presets.
    ///
    /// # Errors
    /// An unknown system or collective, nodes or sizes out of range, a log
    /// that does not say what it ran on.
    pub fn run(&self) -> Result<Value, ArgError> {
        if self.system.as_deref() == Some("list") {
            let list: Vec<Value> = PRESETS
                .iter()
                .map(|p| json!({ "id": p.id, "name": p.name, "gpus_per_node": p.gpus, "nics_per_node": p.nics }))
                .collect();
            return Ok(json!({ "systems": list }));
        }
        let engine: commlab_api::predict::Engine =
            self.engine.parse().map_err(|e: commlab_api::ApiError| ("--engine".to_owned(), e.to_string()))?;
        let collective = self
            .collective
            .as_deref()
            .map(|c| c.parse::<Collective>().map_err(|e| ("--collective".to_owned(), e)))
            .transpose()?;
        let (request, log) = if let Some(file) = &self.from {
            let (mut request, log) = self.read_log(file, collective, engine)?;
            if let Some(bytes) = &self.bytes {
                request.sizes = sizes(bytes)?;
            }
            (request, Some(log))
        } else {
            let system = self.system()?;
            let collective = collective.unwrap_or(Collective::Allreduce).id().to_owned();
            (PredictRequest { system, collective, sizes: sizes(self.bytes.as_deref().unwrap_or("8..1G"))? }, None)
        };
        let prediction = request.run(engine).map_err(|e| {
            let flag = match e.field.as_str() {
                "hosts" => "--nodes".to_owned(),
                "bytes" | "size" => "--bytes".to_owned(),
                f => format!("--{f}"),
            };
            (flag, e.to_string())
        })?;
        let mut value = prediction.to_json();
        if let Some(log) = log {
            log.annotate(&mut value);
        }
        Ok(value)
    }

    /// The System and sizes the log in `file` describes, the flags over it.
    fn read_log(
        &self,
        file: &str,
        collective: Option<Collective>,
        engine: commlab_api::predict::Engine,
    ) -> Result<(PredictRequest, commlab_api::predict::FromLog), ArgError> {
        let text = crate::goal::read_at_most(file, commlab_core::limits::FIT_TEXT_BYTES)?;
        let env = self.env.join(" ");
        let given = commlab_api::predict::Given {
            system: self.system.as_deref(),
            nodes: self.nodes,
            version: self.nccl_version.as_deref(),
            collective,
            named: commlab_api::predict::collective_in_name(file),
            env: &env,
            named_from: "",
        };
        let log = commlab_api::predict::from_log(&text, &given, engine.nodes()).map_err(|e| {
            let flag = match e.field.as_str() {
                "file" => "--from".to_owned(),
                "hosts" => "--nodes".to_owned(),
                f => format!("--{f}"),
            };
            (flag, e.to_string())
        })?;
        Ok((log.request.clone(), log))
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
    let from = v.get("from");
    for (key, head) in [("read", "read from the log"), ("assumed", "assumed")] {
        let said = from.and_then(|f| f[key].as_array()).into_iter().flatten().filter_map(Value::as_str);
        for (i, line) in said.enumerate() {
            let _ = writeln!(out, "{:<20}{line}", if i == 0 { format!("{head}:") } else { String::new() });
        }
    }
    let measured = if from.is_some() { format!(" {:>12} {:>7}", "measured", "off") } else { String::new() };
    let _ = writeln!(
        out,
        "{:>12} {:>12}{measured} {:>9} {:>9}  {:<18} {:>12}  bottleneck",
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
        let measured = match (from, r["measured_us"].as_f64(), r["off"].as_f64()) {
            (None, ..) => String::new(),
            (Some(_), Some(t), Some(off)) => format!(" {t:>12.1} {:>+6.0} %", 100.0 * off),
            (Some(_), ..) => format!(" {:>12} {:>7}", "—", ""),
        };
        let _ = writeln!(
            out,
            "{:>12} {mark}{:>11.1}{measured} {:>9.2} {:>9.2}  {:<18} {:>12}  {}",
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

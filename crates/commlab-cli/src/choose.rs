//! `commlab choose`: which algorithm, which piece count, per message size
//! (`docs/chooser.md`). Every time is the α–β–γ cost of the
//! algorithm's plan (rounds of block transfers, checked by value replay in
//! the tests); `--simulate` adds LogGOPS times of the same plans as GOAL.

use crate::reduce::ArgError;
use commlab_api::chooser::{ChooseRequest, Comparison, COST_PRESETS};
use commlab_api::system::System;
use serde_json::Value;

/// `commlab choose`.
#[derive(clap::Args)]
pub struct ChooseArgs {
    /// broadcast, reduce, allreduce, allgather, reduce-scatter, all-to-all.
    #[arg(long)]
    collective: String,
    #[arg(long, help = format!("Ranks ({}).", commlab_api::system::ranges(commlab_core::limits::chooser::P)))]
    p: u32,
    /// Message sizes: `MIN..MAX` (every power of two in the range) or exact sizes `N` or `A,B,…` (suffixes K, M, G, T are powers of 1024; 1 to 1T).
    #[arg(long, default_value = "8..1G")]
    bytes: String,
    /// α: time per message (default: the Chooser's first preset's).
    #[arg(long, default_value_t = COST_PRESETS[0].abg[0])]
    alpha: f64,
    /// β: time per byte moved.
    #[arg(long, default_value_t = COST_PRESETS[0].abg[1])]
    beta: f64,
    /// γ: time per byte combined with ⊕.
    #[arg(long, default_value_t = COST_PRESETS[0].abg[2])]
    gamma: f64,
    /// Algorithms to compare (default: all of the collective), comma-separated.
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// Also simulate each algorithm (at its best piece count) under LogGOPS with
    /// o = g = O = 0, L = α and G = β (in units of β/1000; γ is not simulated).
    #[arg(long)]
    simulate: bool,
    /// Simulate every algorithm on this network instead (see `commlab net sim`):
    /// the winners and crossovers are those of the network, times in ns.
    #[command(flatten)]
    net: crate::net::NetArgs,
    /// Also show what these libraries run by default (mpich, ompi, nccl):
    /// a `library_picks` object in each JSON row, a column in the table.
    #[arg(long, value_delimiter = ',')]
    library: Vec<String>,
    /// The system NCCL's model describes, `key=value,…`: version=2.22|2.28|current,
    /// nodes, gpus, arch=volta|ampere|hopper|blackwell, cpu=intel|amd, channels,
    /// bw-intra, bw-inter (GB/s per channel), pattern=balanced|tree|split,
    /// link=nvlink|pcie, nvls, collnet, nic-path, net-latency, same-channels
    /// (docs/libraries.md lists every default).
    #[arg(long)]
    nccl: Option<String>,
    /// The NCCL release whose model picks (as `predict --nccl-version`): with
    /// --system, or beside --nccl in place of its version key.
    #[arg(long)]
    nccl_version: Option<String>,
    #[arg(long = "env", value_name = "NAME=VALUE", help = crate::system::env_help())]
    env: Vec<String>,
    /// Bytes per element: MPICH's and Open MPI's rules read element counts (1..=1024).
    #[arg(long, default_value_t = 4)]
    dtype_size: u32,
    /// Write the winner map (p from --map-p, sizes from --bytes) as a tuner
    /// file: nccl-tuner, ompi-rules or mpich-json.
    #[arg(long)]
    export: Option<String>,
    /// The file --export writes (default: standard output).
    #[arg(short = 'o', long = "output")]
    output: Option<std::path::PathBuf>,
    /// The winner map's p range for --export, `LO..HI` (default 2..P).
    #[arg(long)]
    map_p: Option<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub(crate) fn size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t, ""),
    };
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return None,
    };
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

/// `--bytes`: `MIN..MAX` (every power of two between them) or exact sizes
/// (`N` or `A,B,…`), each from 1 to 1T.
pub(crate) enum Bytes {
    /// Every power of two from MIN to MAX.
    Range(u64, u64),
    /// These sizes.
    List(Vec<u64>),
}

pub(crate) fn bytes_arg(text: &str) -> Result<Bytes, ArgError> {
    let bad = || {
        let sizes = "sizes like 8, 40000, 64K, 1G, from 1 to 1T";
        (
            "--bytes".to_owned(),
            format!("{text:?} is not MIN..MAX (the powers of two between) or a list A,B,… ({sizes})"),
        )
    };
    let one = |t: &str| size(t).filter(|n| commlab_core::limits::chooser::SIZE.contains(*n)).ok_or_else(bad);
    let Some((lo, hi)) = text.split_once("..") else {
        return text.split(',').map(one).collect::<Result<_, _>>().map(Bytes::List);
    };
    let (lo, hi) = (one(lo)?, one(hi)?);
    if lo > hi {
        return Err(bad());
    }
    if commlab_api::chooser::sizes(lo, hi).is_empty() {
        return Err((
            "--bytes".to_owned(),
            format!("{text:?} holds no power of two: give exact sizes (40000 or 40000,50000)"),
        ));
    }
    Ok(Bytes::Range(lo, hi))
}

impl ChooseArgs {
    /// Compares the algorithms (`commlab_api::chooser`).
    ///
    /// # Errors
    /// An unknown collective or algorithm, p out of range, a bad size range.
    pub fn run(&self) -> Result<Value, ArgError> {
        let (lo, hi, sizes) = match bytes_arg(&self.bytes)? {
            Bytes::Range(lo, hi) => (lo, hi, Vec::new()),
            Bytes::List(list) => {
                let (lo, hi) = (list.iter().copied().min().unwrap_or(1), list.iter().copied().max().unwrap_or(1));
                (lo, hi, list)
            }
        };
        let collective = self.collective.parse().map_err(|e: String| ("--collective".to_owned(), e))?;
        let compare = Comparison {
            collective,
            p: self.p,
            lo,
            hi,
            abg: [self.alpha, self.beta, self.gamma],
            algorithms: self.algorithms.clone(),
        };
        let request = ChooseRequest { sizes, ..compare.choose(self.simulate, 0, None) };
        let api = |e: commlab_api::ApiError| (format!("--{}", e.field), e.to_string());
        // A system describes NCCL's view of it too, unless --nccl says otherwise.
        let version = crate::system::version(self.nccl_version.as_deref())?;
        let system = match self.net.system_for(self.p, version)? {
            Some(s) => Some(crate::system::with_env(s, &self.env)?),
            None => None,
        };
        if let Some(s) = system.filter(|s| !s.covers(self.p)) {
            let want = s.ranks();
            return Err(("--p".to_owned(), format!("{}: give --p {want}", s.not_all(self.p))));
        }
        if self.nccl_version.is_some() && self.nccl.as_deref().is_some_and(|t| t.contains("version=")) {
            let why = "give the version here or as --nccl's version key, not both";
            return Err(("--nccl-version".to_owned(), why.to_owned()));
        }
        let nccl = match (&self.nccl, system, &self.nccl_version) {
            (Some(t), _, Some(v)) => Some(format!("{t},version={v}")),
            (Some(t), _, None) => Some(t.clone()),
            (None, Some(s), _) => Some(s.nccl_text()),
            (None, None, v) => v.as_ref().map(|v| format!("version={v}")),
        };
        let mut libraries =
            commlab_api::libraries::LibraryRequest::from_list(&self.library, nccl, self.dtype_size).map_err(api)?;
        // NCCL's settings, read under the release its description names.
        if !self.env.is_empty() {
            let version = libraries.system(self.p).map_err(api)?.map_or(version, |s| s.version);
            libraries.settings = commlab_core::libraries::nccl_env::Settings::read(version, &self.env.join("\n"))
                .map_err(|e| ("--env".to_owned(), e.to_string()))?;
        }
        if self.export.as_deref() == Some("nccl-tuner") {
            return self.nccl_tuner(system, &request);
        }
        if let Some(format) = &self.export {
            return self.export(format, &compare, &libraries);
        }
        let mut result = request.run().map_err(api)?;
        if let Some(net) = self.net.request()? {
            commlab_api::chooser::on_network(&mut result, &net, 0).map_err(|e| crate::net::arg_error(&e))?;
        }
        let mut value = serde_json::to_value(result.to_json(self.alpha, self.beta, self.gamma)).unwrap_or_default();
        if !self.library.is_empty() {
            let sizes: Vec<u64> = result.rows.iter().map(|r| r.bytes).collect();
            let picks = commlab_api::libraries::picks(&result.collective, result.p, &sizes, &libraries).map_err(api)?;
            let described = libraries.system(result.p).map_err(api)?;
            value["libraries"] = Value::from(commlab_api::libraries::versions(described.as_ref()));
            // The page's sentences: what each library would gain among its own algorithms.
            // On a System (NCCL's view of it unchanged): NCCL's own algorithms simulated with its per-step costs.
            // (NCCL runs all-to-all as grouped sends: no algorithm of its own to compare.)
            let nccl_runs = commlab_core::libraries::tuner::nccl_collective(collective).is_some();
            let on_system =
                system.filter(|_| nccl_runs && self.nccl.is_none() && self.library.iter().any(|l| l == "nccl"));
            let nccl_said = match on_system {
                Some(s) => Some(Self::nccl_gain(&s, &result)?),
                None => None,
            };
            value["library_gains"] =
                Value::from(commlab_api::libraries::gains_on(&result, &picks, nccl_said.as_deref()));
            for (i, (row, p)) in value["rows"].as_array_mut().into_iter().flatten().zip(&picks).enumerate() {
                row["library_picks"] = commlab_api::libraries::to_json(p);
                let said = commlab_api::libraries::disagreements(&result, i, p);
                if !said.is_empty() {
                    row["library_notes"] = Value::from(said);
                }
            }
        }
        if self.json {
            return Ok(value);
        }
        let ids: Vec<&str> = result.algorithms.iter().map(String::as_str).collect();
        crate::out(&table(&value, &ids));
        Ok(Value::Null)
    }

    /// NCCL's gain sentence on `system`: its own algorithms and
    /// protocols simulated with its per-step costs at the result's sizes.
    fn nccl_gain(system: &System, result: &commlab_api::chooser::ChooseResult) -> Result<String, ArgError> {
        let api = |e: commlab_api::ApiError| (format!("--{}", e.field), e.to_string());
        let sizes: Vec<u64> = result.rows.iter().map(|r| r.bytes).collect();
        let plan = commlab_api::nccl_tuner::TunerPlan::new(system, &result.collective, &sizes).map_err(api)?;
        Ok(plan.gain_sentence(&plan.simulate().map_err(api)?))
    }

    /// `--export nccl-tuner`: NCCL's own algorithms simulated on the
    /// `--system` at every size of `--bytes`; a line where one beats NCCL's
    /// pick by 5 % or more (`commlab_api::nccl_tuner`). Without a system
    /// nothing is written: α–β alone cannot advise NCCL.
    fn nccl_tuner(&self, system: Option<System>, request: &ChooseRequest) -> Result<Value, ArgError> {
        let Some(system) = system else {
            return Err(("--export".to_owned(), commlab_api::nccl_tuner::NO_SYSTEM.to_owned()));
        };
        if self.map_p.is_some() {
            return Err((
                "--map-p".to_owned(),
                format!(
                    "an NCCL tuner file is written for the system described only ({} × {}, p = {})",
                    system.nodes, system.preset.id, self.p
                ),
            ));
        }
        let api = |e: commlab_api::ApiError| (format!("--{}", e.field), e.to_string());
        let sizes = request.size_list().map_err(api)?;
        let plan = commlab_api::nccl_tuner::TunerPlan::new(&system, &request.collective, &sizes).map_err(api)?;
        let times = plan.simulate().map_err(api)?;
        let advice = plan.file(&times).map_err(api)?;
        match &self.output {
            Some(path) => std::fs::write(path, &advice.text)
                .map_err(|e| ("--output".to_owned(), format!("cannot write {}: {e}", path.display())))?,
            None if self.json => {}
            None => crate::out(&advice.text),
        }
        if self.json {
            let bands: Vec<Value> = advice
                .bands
                .iter()
                .map(|b| {
                    serde_json::json!({
                        "min_bytes": b.lo, "max_bytes": b.hi,
                        "algorithm": b.write.map(|w| w.0.id()), "protocol": b.write.map(|w| w.1.id()),
                        "reason": b.reason,
                    })
                })
                .collect();
            return Ok(serde_json::json!({
                "format": "nccl-tuner",
                "system": system.id(),
                "nodes": system.nodes,
                "p": self.p,
                "file": self.output.as_ref().map(|p| p.display().to_string()),
                "bands": bands,
                "text": if self.output.is_none() { Value::from(advice.text) } else { Value::Null },
            }));
        }
        Ok(Value::Null)
    }

    /// `--export`: the winner map over `--map-p` × `--bytes` as a tuner file.
    fn export(
        &self,
        format: &str,
        compare: &Comparison,
        libraries: &commlab_api::libraries::LibraryRequest,
    ) -> Result<Value, ArgError> {
        let api = |e: commlab_api::ApiError| (format!("--{}", e.field), e.to_string());
        let (lo, hi) = match &self.map_p {
            None => (2.min(self.p), self.p),
            Some(text) => {
                let range = commlab_core::limits::chooser::P;
                let bad = || {
                    (
                        "--map-p".to_owned(),
                        format!("{text:?} is not LO..HI with {} ≤ LO ≤ HI ≤ {}", range.min, range.max),
                    )
                };
                let (a, b) = text.split_once("..").ok_or_else(bad)?;
                let (a, b) = (a.trim().parse::<u32>().map_err(|_| bad())?, b.trim().parse::<u32>().map_err(|_| bad())?);
                if !range.contains(u64::from(a)) || a > b || !range.contains(u64::from(b)) {
                    return Err(bad());
                }
                (a, b)
            }
        };
        let collective = compare.collective.id();
        let asked = compare.map((lo, hi), self.net.request()?);
        let algorithms =
            commlab_api::libraries::export_algorithms(format, collective, &asked.algorithms).map_err(api)?;
        let map_request = commlab_api::chooser::MapRequest { algorithms, ..asked };
        let mut run = map_request.start().map_err(api)?;
        let mut cache = commlab_api::chooser::Cache::default();
        while !run.step(&mut cache) {}
        let file = commlab_api::libraries::export(&run.map, collective, format, libraries).map_err(api)?;
        for (ours, put) in &file.substitutes {
            eprintln!("note: {format} has no counterpart of {ours}; the file names {put} instead");
        }
        match &self.output {
            Some(path) => std::fs::write(path, &file.text)
                .map_err(|e| ("--output".to_owned(), format!("cannot write {}: {e}", path.display())))?,
            None if self.json => {}
            None => crate::out(&file.text),
        }
        if self.json {
            return Ok(serde_json::json!({
                "format": format,
                "file": self.output.as_ref().map(|p| p.display().to_string()),
                "substitutes": file.substitutes,
                "ps": run.map.ps,
                "sizes": run.map.sizes,
                "text": if self.output.is_none() { Value::from(file.text) } else { Value::Null },
            }));
        }
        Ok(Value::Null)
    }
}

/// The result as a text table: a row per size, a column per algorithm (the
/// winner marked `*`, pipelined ones with their piece count), then the crossovers.
fn table(result: &Value, ids: &[&str]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    // On a network the times and the winners are the network's (ns), one
    // unit per table: the model's winner is named beside where it differs.
    let rows = result["rows"].as_array().map_or(&[][..], Vec::as_slice);
    let on_net = rows.iter().any(|r| r["network"].is_object());
    let (times, unit) = if on_net {
        ("network", format!("times in ns, simulated on {}", result["topology"].as_str().unwrap_or("the network")))
    } else {
        ("times", "times in units of α".to_owned())
    };
    let _ = writeln!(
        out,
        "{} on p = {} (α = {}, β = {}, γ = {}); {unit}",
        result["collective"].as_str().unwrap_or(""),
        result["p"],
        result["alpha"],
        result["beta"],
        result["gamma"]
    );
    let width = ids.iter().map(|i| i.len()).max().unwrap_or(8).max(12);
    let _ = write!(out, "{:>10}", "bytes");
    for id in ids {
        let _ = write!(out, "  {id:>width$}");
    }
    out.push('\n');
    for row in rows {
        let _ = write!(out, "{:>10}", commlab_plot::format_bytes(row["bytes"].as_u64().unwrap_or(0)));
        for id in ids {
            let t = row[times][*id].as_f64().unwrap_or(f64::NAN);
            let mut cell = commlab_plot::format_quantity(t);
            if let Some(m) = row["pieces"][*id].as_u64() {
                let _ = write!(cell, " (m={m})");
            }
            if row["winner"] == *id {
                cell.push('*');
            }
            let _ = write!(out, "  {cell:>width$}");
        }
        if let Some(m) = row["model_winner"].as_str().filter(|m| on_net && row["winner"] != *m) {
            let _ = write!(out, "  model: {m}");
        }
        let picks = &row["library_picks"];
        if let Some(m) = picks["mpich"]["name"].as_str() {
            let _ = write!(out, "  mpich {}", m.trim_start_matches("MPIR_"));
        }
        if let Some(o) = picks["ompi"]["name"].as_str() {
            let _ = write!(out, "  ompi {o} ({})", picks["ompi"]["id"]);
        }
        if let Some(a) = picks["nccl"]["algorithm"].as_str() {
            let _ = write!(
                out,
                "  nccl {a}/{} {:.1} µs",
                picks["nccl"]["protocol"].as_str().unwrap_or(""),
                picks["nccl"]["time_us"].as_f64().unwrap_or(f64::NAN)
            );
        }
        out.push('\n');
    }
    for c in result["crossovers"].as_array().into_iter().flatten() {
        let _ = writeln!(
            out,
            "{} beats {} from {}",
            c["to"].as_str().unwrap_or(""),
            c["from"].as_str().unwrap_or(""),
            commlab_plot::format_bytes(c["bytes"].as_u64().unwrap_or(0))
        );
    }
    // What each library would gain among its own algorithms: the page's sentences.
    for g in result["library_gains"].as_array().into_iter().flatten() {
        let _ = writeln!(out, "{}", g.as_str().unwrap_or(""));
    }
    out
}

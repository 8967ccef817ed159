//! `commlab goal sim FILE`: LogGOPS simulation of a GOAL schedule, as
//! LogGOPSim computes it (`docs/loggops.md`), with LogGOPSim's short flags.

use crate::reduce::ArgError;
use commlab_core::goal::sim::{simulate, Order, Outcome, Params};
use commlab_core::goal::{parse, Schedule};
use serde_json::{json, Value};
use std::io::Read;

/// `commlab goal …`.
#[derive(clap::Subcommand)]
pub enum GoalCommand {
    /// Simulate a GOAL schedule under LogGOPS: finish time per rank, events, unmatched ops.
    Sim(SimArgs),
    /// Write a collective commlab draws as GOAL.
    Gen(GenArgs),
}

/// `commlab goal gen`.
#[derive(clap::Args)]
pub struct GenArgs {
    /// reduce, broadcast, allreduce, allreduce-butterfly (LCT trees), reduce-bst,
    /// broadcast-bst, allreduce-bst (Schedgen's trees), dissemination (the barrier's pattern), pipeline.
    collective: String,
    /// Ranks.
    #[arg(long)]
    p: u64,
    /// Bytes per message (the whole vector; the pipeline cuts it into pieces).
    #[arg(long)]
    bytes: u64,
    /// Pieces of the pipeline.
    #[arg(long, default_value_t = 1)]
    pieces: u64,
    /// Output file (standard output when absent).
    #[arg(short = 'o', long = "out")]
    out: Option<std::path::PathBuf>,
}

impl GenArgs {
    /// Writes the GOAL text.
    ///
    /// # Errors
    /// An unknown collective, a size out of range, an unwritable file.
    pub fn run(&self) -> Result<Value, ArgError> {
        let schedule = commlab_core::goal::generate::collective(&self.collective, self.p, self.bytes, self.pieces)
            .map_err(|e| ("COLLECTIVE".to_owned(), e))?;
        let text = commlab_core::goal::write(&schedule);
        match &self.out {
            Some(path) => {
                std::fs::write(path, text)
                    .map_err(|e| ("--out".to_owned(), format!("cannot write {}: {e}", path.display())))?;
            }
            None => crate::out(&text),
        }
        Ok(Value::Null)
    }
}

/// `commlab goal sim`.
#[derive(clap::Args)]
pub struct SimArgs {
    /// The GOAL file (`-` for standard input; `.gz` files are read gzipped).
    file: String,
    /// Latency L (ns).
    #[arg(short = 'L', long = "latency", default_value_t = 2500)]
    l: u64,
    /// CPU overhead o per message (ns).
    #[arg(short = 'o', long = "overhead", default_value_t = 1500)]
    o: u64,
    /// NIC gap g per message (ns).
    #[arg(short = 'g', long = "gap", default_value_t = 1000)]
    g: u64,
    /// NIC gap G per byte after the first (ns).
    #[arg(short = 'G', long = "gap-per-byte", default_value_t = 6)]
    big_g: u64,
    /// CPU overhead O per byte after the first (ns).
    #[arg(short = 'O', long = "overhead-per-byte", default_value_t = 0)]
    big_o: u64,
    /// Largest eager message S (bytes); larger ones use rendezvous.
    #[arg(short = 'S', long = "eager-limit", default_value_t = 65535)]
    s: u64,
    /// Ready-list order: `stable` (commlab's rule) or `libstdcxx` (LogGOPSim bit for bit).
    #[arg(long, default_value = "stable")]
    order: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Write a Chrome trace (open it in Perfetto) of every op and message to this file.
    #[arg(long)]
    trace: Option<std::path::PathBuf>,
}

fn read(file: &str) -> Result<String, ArgError> {
    let bad = |e: std::io::Error| ("FILE".to_owned(), format!("cannot read {file}: {e}"));
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin().read_to_end(&mut bytes).map_err(bad)?;
    } else {
        bytes = std::fs::read(file).map_err(bad)?;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut text).map_err(bad)?;
        bytes = text;
    }
    String::from_utf8(bytes).map_err(|_| ("FILE".to_owned(), format!("{file} is not UTF-8 text")))
}

/// The Chrome trace-event JSON of a traced run (µs): a process per rank, a
/// thread per CPU with its busy spans (which never overlap), each posted
/// receive's wait as an async span, and an arrow (flow) per message from the
/// send's CPU span to the receiver's arrival span.
pub fn chrome_trace(s: &Schedule, out: &Outcome) -> Value {
    use commlab_core::goal::sim::Work;
    let us = |ns: u64| ns as f64 / 1000.0;
    let mut events: Vec<Value> = Vec::new();
    let mut threads = std::collections::BTreeSet::new();
    for span in &out.cpu {
        threads.insert((span.rank, span.cpu));
        let name = match span.work {
            Work::Op(i) => s.describe(i),
            Work::Arrival(send) => format!("arrival from rank {}", s.rank_of(send)),
        };
        events.push(json!({"ph": "X", "name": name, "cat": "cpu", "pid": span.rank, "tid": span.cpu,
            "ts": us(span.start), "dur": us(span.end.saturating_sub(span.start))}));
    }
    for r in 0..s.ranks() {
        events.push(json!({"ph": "M", "name": "process_name", "pid": r, "args": {"name": format!("rank {r}")}}));
    }
    for (r, c) in threads {
        events
            .push(json!({"ph": "M", "name": "thread_name", "pid": r, "tid": c, "args": {"name": format!("cpu {c}")}}));
    }
    for span in
        out.ops.iter().filter(|o| s.ops[o.op as usize].kind == commlab_core::goal::Kind::Recv && o.end > o.start)
    {
        let name = format!("waiting: {}", s.describe(span.op));
        events.push(json!({"ph": "b", "name": name, "cat": "recv", "id": span.op, "pid": span.rank, "tid": 0, "ts": us(span.start)}));
        events.push(json!({"ph": "e", "name": name, "cat": "recv", "id": span.op, "pid": span.rank, "tid": 0, "ts": us(span.end)}));
    }
    for (id, m) in out.messages.iter().enumerate() {
        let name = format!("{} B", m.size);
        events.push(json!({"ph": "s", "name": name, "cat": "message", "id": id, "pid": m.from, "tid": m.cpu, "ts": us(m.start)}));
        events.push(json!({"ph": "f", "bp": "e", "name": name, "cat": "message", "id": id, "pid": m.to, "tid": m.cpu, "ts": us(m.arrived)}));
    }
    json!({"traceEvents": events, "displayTimeUnit": "ns"})
}

impl SimArgs {
    /// Runs the simulation.
    ///
    /// # Errors
    /// An unreadable file, a GOAL error (with its line and column), a bad flag.
    pub fn run(&self) -> Result<Value, ArgError> {
        let order = match self.order.as_str() {
            "stable" => Order::Stable,
            "libstdcxx" => Order::Libstdcxx,
            other => return Err(("--order".into(), format!("{other:?} is not one of: stable, libstdcxx"))),
        };
        let text = read(&self.file)?;
        let started = std::time::Instant::now();
        let schedule = parse(&text).map_err(|e| ("FILE".to_owned(), format!("{}: {e}", self.file)))?;
        let parsed = started.elapsed().as_secs_f64();
        let params = Params { l: self.l, o: self.o, g: self.g, big_g: self.big_g, big_o: self.big_o, s: self.s };
        let started = std::time::Instant::now();
        let out = simulate(&schedule, params, order, self.trace.is_some());
        let seconds = started.elapsed().as_secs_f64();
        if let Some(path) = &self.trace {
            std::fs::write(path, chrome_trace(&schedule, &out).to_string())
                .map_err(|e| ("--trace".to_owned(), format!("cannot write {}: {e}", path.display())))?;
        }
        let (max_time, max_rank) = out.max();
        let completes = out.completes();
        let unmatched: Vec<Value> = out
            .unmatched
            .iter()
            .enumerate()
            .filter(|(_, u)| !u.is_empty())
            .map(|(r, u)| json!({"rank": r, "left": u}))
            .collect();
        Ok(json!({
            "ranks": schedule.ranks(),
            "ops": schedule.ops.len(),
            "completes": completes,
            "finish_times": if completes { json!(out.finish) } else { Value::Null },
            "max_time": if completes { json!(max_time) } else { Value::Null },
            "max_rank": if completes { json!(max_rank) } else { Value::Null },
            "events": out.events,
            "events_per_second": (out.events as f64 / seconds.max(1e-9)).round(),
            "parse_mb_per_second": (text.len() as f64 / 1e6 / parsed.max(1e-9) * 10.0).round() / 10.0,
            "unmatched": unmatched,
            "params": {"L": self.l, "o": self.o, "g": self.g, "G": self.big_g, "O": self.big_o, "S": self.s},
            "order": self.order,
        }))
    }
}

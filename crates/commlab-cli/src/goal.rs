//! `commlab goal sim FILE`: LogGOPS simulation of a GOAL schedule, as
//! LogGOPSim computes it (`docs/loggops.md`), with LogGOPSim's short flags.

use crate::reduce::ArgError;
use commlab_api::schedule::{run_json, GenerateRequest, LogGops};
use commlab_core::goal::parse;
use commlab_core::goal::sim::{simulate, Order, Params};
use serde_json::{json, Value};
use std::io::Read;

/// `commlab goal …`.
#[derive(clap::Subcommand)]
pub enum GoalCommand {
    /// Simulate a GOAL schedule under LogGOPS: finish time per rank, events, unmatched ops.
    Sim(SimArgs),
    /// Write a collective commlab draws as GOAL.
    Gen(GenArgs),
    /// Read a GOAL file and report its problems (line, column, what was expected) or its size.
    Check(CheckArgs),
}

/// `commlab goal check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The GOAL file (`-` for standard input; `.gz` files are read gzipped).
    file: String,
}

impl CheckArgs {
    /// Parses the file.
    ///
    /// # Errors
    /// An unreadable file, or the first GOAL error with its line and column.
    pub fn run(&self) -> Result<Value, ArgError> {
        use commlab_core::goal::Kind;
        let text = read(&self.file)?;
        let schedule = parse(&text).map_err(|e| ("FILE".to_owned(), format!("{}: {e}", self.file)))?;
        let count = |k| schedule.ops.iter().filter(|o| o.kind == k).count();
        Ok(json!({
            "file": self.file,
            "ok": true,
            "ranks": schedule.ranks(),
            "ops": schedule.ops.len(),
            "sends": count(Kind::Send),
            "recvs": count(Kind::Recv),
            "calcs": count(Kind::Calc),
            "dependencies": schedule.deps.len(),
        }))
    }
}

/// `commlab goal gen`.
#[derive(clap::Args)]
pub struct GenArgs {
    /// COLLECTIVE/ALGORITHM: any Chooser algorithm (allreduce/ring, all-to-all/swizzle-order, …); or
    /// reduce, broadcast, allreduce, allreduce-butterfly (LCT trees), reduce-bst,
    /// broadcast-bst, allreduce-bst (Schedgen's trees), dissemination, pipeline,
    /// barrier (a barrier algorithm's fault-free pattern on a mesh), swizzle (every rank's CommSwizzle steps).
    collective: String,
    /// Ranks (reduction family and dissemination).
    #[arg(long, default_value_t = 8)]
    p: u64,
    /// Bytes per message (the whole vector; the pipeline cuts it into pieces; a tile for swizzle).
    #[arg(long)]
    bytes: u64,
    /// Pieces of the pipeline.
    #[arg(long, default_value_t = 1)]
    pieces: u64,
    /// COLLECTIVE/ALGORITHM: channels the data is split over, channel c's sends on NIC c (1 to 64).
    #[arg(long, default_value_t = 1)]
    channels: u64,
    /// COLLECTIVE/ALGORITHM with channels: the network they are ordered for (on nodes:NxG channel c crosses between nodes on rail c; elsewhere every channel takes the ranks in order).
    #[arg(long)]
    topology: Option<String>,
    /// barrier: mesh side (ranks = side²).
    #[arg(long, default_value_t = 4)]
    mesh: u32,
    /// barrier: algorithm id (as `commlab barrier --algorithm`).
    #[arg(long, default_value = "dlct")]
    algorithm: String,
    /// barrier: encoding id.
    #[arg(long, default_value = "s-curve")]
    encoding: String,
    /// barrier: two-layer tile side.
    #[arg(long, default_value_t = 4)]
    tile: u32,
    /// barrier: combining-tree arity.
    #[arg(long, default_value_t = 4)]
    combining_k: u32,
    /// swizzle: grid `ROW,COLUMN,RANK`.
    #[arg(long, default_value = "4,4,4")]
    grid: String,
    /// swizzle: core split `ROW,COLUMN`.
    #[arg(long, default_value = "3,4")]
    cores: String,
    /// swizzle: remote writes instead of reads.
    #[arg(long)]
    write: bool,
    /// swizzle: no rank shift.
    #[arg(long)]
    no_shift: bool,
    /// swizzle: deterministic mode.
    #[arg(long)]
    deterministic: bool,
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
        let numbers = |flag: &str, text: &str| -> Result<Vec<u32>, ArgError> {
            text.split(',')
                .map(|x| {
                    x.trim().parse::<u32>().map_err(|_| (flag.to_owned(), format!("{text:?} is not a list of numbers")))
                })
                .collect()
        };
        let grid = numbers("--grid", &self.grid)?;
        let cores = numbers("--cores", &self.cores)?;
        let (&[row, column, rank], &[core_row, core_column]) = (grid.as_slice(), cores.as_slice()) else {
            return Err(("--grid".to_owned(), "--grid takes ROW,COLUMN,RANK and --cores ROW,COLUMN".to_owned()));
        };
        let request = GenerateRequest {
            collective: self.collective.clone(),
            p: self.p,
            bytes: self.bytes,
            pieces: self.pieces,
            mesh: self.mesh,
            encoding: self.encoding.clone(),
            algorithm: self.algorithm.clone(),
            tile: self.tile,
            combining_k: self.combining_k,
            grid: (row, column, rank),
            cores: (core_row, core_column),
            direction: 0,
            deterministic: self.deterministic,
            shift: !self.no_shift,
            read: !self.write,
            channels: u32::try_from(self.channels).unwrap_or(u32::MAX),
        };
        let schedule = if let Some((collective, algorithm)) = self.collective.split_once('/') {
            let channels = commlab_core::limits::net::CHANNELS
                .check(self.channels)
                .map_err(|e| ("--channels".to_owned(), e.to_string()))?;
            let shape: Option<commlab_core::net::Shape> = match &self.topology {
                Some(t) => Some(t.parse().map_err(|e: String| ("--topology".to_owned(), e))?),
                None => None,
            };
            chooser_schedule(collective, algorithm, (self.p, self.bytes, self.pieces), channels as u32, shape)?
        } else if ["barrier", "swizzle"].contains(&self.collective.as_str()) {
            request.build().map_err(|e| (format!("--{}", e.field), e.to_string()))?
        } else {
            // Natively p goes up to 2^24 (the browser's limit is lower).
            use commlab_core::limits::{BYTES, NATIVE_UNITS, PIECES};
            NATIVE_UNITS.check(self.p).map_err(|e| ("--p".to_owned(), e.to_string()))?;
            BYTES.check(self.bytes).map_err(|e| ("--bytes".to_owned(), e.to_string()))?;
            PIECES.check(self.pieces).map_err(|e| ("--pieces".to_owned(), e.to_string()))?;
            commlab_core::goal::generate::collective(&self.collective, self.p, self.bytes, self.pieces)
                .map_err(|e| ("COLLECTIVE".to_owned(), e))?
        };
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

/// A Chooser algorithm (`allreduce/ring`, `all-to-all/swizzle-order`, …) as GOAL.
fn chooser_schedule(
    collective: &str,
    algorithm: &str,
    (p, bytes, pieces): (u64, u64, u64),
    channels: u32,
    shape: Option<commlab_core::net::Shape>,
) -> Result<commlab_core::goal::Schedule, ArgError> {
    use commlab_core::choose::{goal_channels, plan, Collective};
    use commlab_core::limits::schedule::CHOOSER_P;
    let c: Collective = collective.parse().map_err(|e| ("COLLECTIVE".to_owned(), e))?;
    let p = CHOOSER_P.check(p).map_err(|e| ("--p".to_owned(), e.to_string()))?;
    let m = commlab_core::limits::PIECES.check(pieces).map_err(|e| ("--pieces".to_owned(), e.to_string()))?;
    commlab_core::limits::BYTES.check(bytes).map_err(|e| ("--bytes".to_owned(), e.to_string()))?;
    let plan = plan(c, algorithm, p as u32, m as u32)
        .map_err(|e| ("COLLECTIVE".to_owned(), format!("{collective}/{algorithm}: {e}")))?;
    let orders: Vec<Vec<u32>> = (0..channels)
        .map(|c| shape.map_or_else(|| (0..p as u32).collect(), |s| s.channel_order(p as u32, c)))
        .collect();
    Ok(goal_channels(&plan, bytes, &orders))
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

/// The text of `file` (`-`: standard input; gzip files unpacked), at most
/// [`commlab_core::limits::INPUT_BYTES`].
pub fn read(file: &str) -> Result<String, ArgError> {
    read_at_most(file, commlab_core::limits::INPUT_BYTES)
}

/// The text of `file`, refused past `cap` bytes (packed or unpacked): a
/// stream without end (`/dev/zero`) or a gzip bomb stops there.
pub fn read_at_most(file: &str, cap: u64) -> Result<String, ArgError> {
    let bad = |e: std::io::Error| ("FILE".to_owned(), format!("cannot read {file}: {e}"));
    let name = if file == "-" { "standard input" } else { file };
    let over = |what: &str| {
        let size = commlab_plot::format_bytes(cap);
        ("FILE".to_owned(), format!("{name} {what} more than {size}: at most {cap} bytes of text are read"))
    };
    let source: Box<dyn Read> =
        if file == "-" { Box::new(std::io::stdin()) } else { Box::new(std::fs::File::open(file).map_err(bad)?) };
    let mut bytes = Vec::new();
    source.take(cap + 1).read_to_end(&mut bytes).map_err(bad)?;
    if bytes.len() as u64 > cap {
        return Err(over("holds"));
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut text = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..]).take(cap + 1).read_to_end(&mut text).map_err(bad)?;
        if text.len() as u64 > cap {
            return Err(over("unpacks to"));
        }
        bytes = text;
    }
    String::from_utf8(bytes).map_err(|_| ("FILE".to_owned(), format!("{name} is not UTF-8 text")))
}

pub use commlab_api::schedule::chrome_trace;

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
        for (flag, v) in [
            ("--latency", self.l),
            ("--overhead", self.o),
            ("--gap", self.g),
            ("--gap-per-byte", self.big_g),
            ("--overhead-per-byte", self.big_o),
        ] {
            // As in the browser: each at most 2^40 ns.
            commlab_api::schedule::PARAM.check(v).map_err(|_| {
                (flag.to_owned(), format!("{v} is out of range: expected {}", commlab_api::schedule::PARAM))
            })?;
        }
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
        let p = LogGops { l: self.l, o: self.o, g: self.g, big_g: self.big_g, big_o: self.big_o, s: self.s };
        let mut v = run_json(&schedule, &out, &p, &self.order);
        v["events_per_second"] = json!((out.events as f64 / seconds.max(1e-9)).round());
        v["parse_mb_per_second"] = json!((text.len() as f64 / 1e6 / parsed.max(1e-9) * 10.0).round() / 10.0);
        Ok(v)
    }
}

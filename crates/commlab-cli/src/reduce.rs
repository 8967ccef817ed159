//! `commlab reduce | broadcast | allreduce`: the binomial-tree collectives on
//! seeded or given inputs, with their message schedule.

use commlab_api::tree::TreeRequest;
use commlab_core::limits::ConfigError;
use commlab_core::reduce::values::{check_native_size, Vectors};
use commlab_core::reduce::{caption, Collective, Operator};
use serde_json::{json, Value};

/// Arguments shared by the three collectives.
#[derive(clap::Args)]
pub struct CollectiveArgs {
    /// Number of units p.
    #[arg(long)]
    p: u64,
    /// Elements per input vector (pieces are a pipeline's `--pieces`).
    #[arg(long, default_value_t = 1)]
    elements: u64,
    /// Operator: sum, prod, min, max, and, or, xor, fsum, fmin, fmax.
    #[arg(long, default_value = "sum")]
    op: Operator,
    /// Seed of the random inputs (`ChaCha8`).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// JSON file with the inputs: an array of p arrays of `--elements` numbers (replaces --seed).
    #[arg(long)]
    inputs: Option<std::path::PathBuf>,
    /// Pad to the next power of two with virtual units holding the identity.
    #[arg(long)]
    padded: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// A failure, as (argument, message).
pub type ArgError = (String, String);

fn config_error(err: &ConfigError) -> ArgError {
    (crate::flag_of(err.name), format!("{} is out of range: expected {}", err.value, err.expected))
}

/// Reads `--inputs`: p rows of `--elements` numbers, integers unless the operator is a float one.
fn read_inputs(path: &std::path::Path, args: &CollectiveArgs) -> Result<Vectors, ArgError> {
    let bad = |msg: String| ("--inputs".to_owned(), msg);
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?;
    let rows: Vec<Vec<Value>> =
        serde_json::from_str(&text).map_err(|e| bad(format!("expected an array of arrays of numbers: {e}")))?;
    if rows.len() as u64 != args.p || rows.iter().any(|r| r.len() as u64 != args.elements) {
        return Err(bad(format!("expected {} rows of {} numbers (--p, --elements)", args.p, args.elements)));
    }
    let cells = rows.iter().flatten();
    if args.op.is_float() {
        let v: Option<Vec<f64>> = cells.map(Value::as_f64).collect();
        v.map(Vectors::Float).ok_or_else(|| bad("every input must be a number".into()))
    } else {
        let v: Option<Vec<i64>> = cells.map(Value::as_i64).collect();
        v.map(Vectors::Int).ok_or_else(|| bad(format!("operator {} needs 64-bit integers", args.op)))
    }
}

/// Unit `u`'s vector, serialised in place.
struct Row<'a>(&'a Vectors, usize, usize);

impl serde::Serialize for Row<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Row(values, u, width) = *self;
        match values {
            Vectors::Int(v) => s.collect_seq(&v[u * width..(u + 1) * width]),
            Vectors::Float(v) => s.collect_seq(&v[u * width..(u + 1) * width]),
        }
    }
}

/// The first `units` vectors, serialised one at a time (no JSON tree of p rows).
struct Rows<'a>(&'a Vectors, usize, usize);

impl serde::Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((0..self.1).map(|u| Row(self.0, u, self.2)))
    }
}

#[derive(serde::Serialize)]
struct MessageJson {
    from: u32,
    round: usize,
    to: u32,
}

/// The real messages, serialised one at a time.
struct Messages<'a>(&'a commlab_core::reduce::Schedule);

impl serde::Serialize for Messages<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.real_messages().map(|(round, m)| MessageJson { from: m.from, round, to: m.to }))
    }
}

/// The report, keys in alphabetical order (as `serde_json::Value` prints them).
#[derive(serde::Serialize)]
struct Report<'a> {
    captions: Vec<String>,
    collective: &'static str,
    elements: u64,
    #[serde(rename = "final")]
    final_values: Rows<'a>,
    inputs: Rows<'a>,
    message_count: usize,
    messages: Messages<'a>,
    op: &'static str,
    p: u64,
    padded: bool,
    result: Row<'a>,
    rounds: usize,
}

/// Runs `collective` and builds the JSON report. The run is built by the
/// engine API's `TreeRequest`, the same builder as the tree view's.
///
/// # Errors
/// The argument at fault and why.
pub fn run(collective: Collective, args: &CollectiveArgs) -> Result<Value, ArgError> {
    check_native_size(args.p, args.elements).map_err(|e| config_error(&e))?;
    let inputs = match &args.inputs {
        Some(path) => Some(read_inputs(path, args)?),
        None => None,
    };
    let request = TreeRequest {
        collective: collective.id().to_owned(),
        message_passing: true,
        units: args.p,
        elements: args.elements,
        operator: args.op.id().to_owned(),
        seed: args.seed,
        padded: args.padded,
        inputs: None,
    };
    let run = request
        .run_native_with(inputs)
        .map_err(|e| (crate::flag_of(&e.field), format!("{} is out of range: expected {}", e.value, e.expected)))?;
    let (schedule, trace, inputs) = (&run.schedule, &run.trace, &run.inputs);
    let width = run.width;
    let end = trace.after(trace.round_count());
    let units = args.p as usize;
    let report = Report {
        captions: (0..schedule.rounds.len()).map(|r| caption(schedule, r)).collect(),
        collective: collective.id(),
        elements: args.elements,
        final_values: Rows(&end.values, units, width),
        inputs: Rows(inputs, units, width),
        message_count: schedule.real_messages().count(),
        messages: Messages(schedule),
        op: args.op.id(),
        p: args.p,
        padded: args.padded,
        result: Row(&end.values, 0, width),
        rounds: schedule.rounds.len(),
    };
    if args.json {
        // Streamed: p = 2^20 would be gigabytes as a JSON tree.
        let stdout = std::io::stdout().lock();
        let mut writer = std::io::BufWriter::with_capacity(1 << 16, stdout);
        let written = serde_json::to_writer(&mut writer, &report).map_err(std::io::Error::from).and_then(|()| {
            use std::io::Write;
            writer.write_all(b"\n")?;
            writer.flush()
        });
        return match written {
            Ok(()) => Ok(Value::Null),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Value::Null),
            Err(e) => Err(("output".to_owned(), format!("cannot write the output: {e}"))),
        };
    }
    // The table shows long lists as counts: build only the short ones.
    let short = |n: usize, value: &dyn erased::ToValue| {
        if n > 12 {
            json!(format!("[{n} items; use --json for all]"))
        } else {
            value.to_value()
        }
    };
    Ok(json!({
        "captions": report.captions,
        "collective": report.collective,
        "elements": report.elements,
        "final": short(units, &report.final_values),
        "inputs": short(units, &report.inputs),
        "message_count": report.message_count,
        "messages": short(report.message_count, &report.messages),
        "op": report.op,
        "p": report.p,
        "padded": report.padded,
        "result": short(0, &report.result),
        "rounds": report.rounds,
    }))
}

mod erased {
    /// Serialises to a `serde_json::Value` behind a trait object.
    pub trait ToValue {
        fn to_value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> ToValue for T {
        fn to_value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
        }
    }
}

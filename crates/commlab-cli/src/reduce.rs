//! `commlab reduce | broadcast | allreduce`: the binomial-tree collectives on
//! seeded or given inputs, with their message schedule.

use commlab_api::tree::TreeRequest;
use commlab_core::model::ConfigError;
use commlab_core::reduce::values::{check_size, Vectors};
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

fn rows(values: &Vectors, units: usize, width: usize) -> Value {
    let row = |u: usize| -> Value {
        match values {
            Vectors::Int(v) => json!(v[u * width..(u + 1) * width]),
            Vectors::Float(v) => json!(v[u * width..(u + 1) * width]),
        }
    };
    Value::Array((0..units).map(row).collect())
}

/// Runs `collective` and builds the JSON report. The run is built by the
/// engine API's `TreeRequest`, the same builder as the tree view's.
///
/// # Errors
/// The argument at fault and why.
pub fn run(collective: Collective, args: &CollectiveArgs) -> Result<Value, ArgError> {
    check_size(args.p, args.elements).map_err(|e| config_error(&e))?;
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
        .run_with(inputs)
        .map_err(|e| (crate::flag_of(&e.field), format!("{} is out of range: expected {}", e.value, e.expected)))?;
    let (schedule, trace, inputs) = (&run.schedule, &run.trace, &run.inputs);
    let width = run.width;
    let end = trace.after(trace.round_count());
    let units = args.p as usize;
    let messages: Vec<Value> =
        schedule.real_messages().map(|(round, m)| json!({ "round": round, "from": m.from, "to": m.to })).collect();
    let result = rows(&end.values, 1, width)[0].clone();
    Ok(json!({
        "collective": collective.id(),
        "p": args.p,
        "elements": args.elements,
        "op": args.op.id(),
        "padded": args.padded,
        "inputs": rows(inputs, units, width),
        "result": result,
        "final": rows(&end.values, units, width),
        "rounds": schedule.rounds.len(),
        "message_count": messages.len(),
        "messages": messages,
        "captions": (0..schedule.rounds.len()).map(|r| caption(schedule, r)).collect::<Vec<_>>(),
    }))
}

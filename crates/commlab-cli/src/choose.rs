//! `commlab choose`: which algorithm, which piece count, per message size
//! (issue 14; `docs/chooser.md`). Every time is the α–β–γ cost of the
//! algorithm's plan (rounds of block transfers, checked by value replay in
//! the tests); `--simulate` adds LogGOPS times of the same plans as GOAL.

use crate::reduce::ArgError;
use commlab_core::choose::{goal, of, plan, AlphaBeta, Collective, Plan};
use commlab_core::goal::sim::{simulate, Order, Params};
use serde_json::{json, Map, Value};

/// Largest p of `commlab choose` (the all-pairs plans hold p² transfers).
pub const MAX_P: u32 = 1024;
/// Piece counts tried for pipelined algorithms: powers of two up to this.
pub const MAX_PIECES: u32 = 4096;

/// `commlab choose`.
#[derive(clap::Args)]
pub struct ChooseArgs {
    /// broadcast, reduce, allreduce, allgather, reduce-scatter, all-to-all.
    #[arg(long)]
    collective: String,
    /// Ranks (1..=1024).
    #[arg(long)]
    p: u32,
    /// Message sizes `MIN..MAX` (suffixes K, M, G are powers of 1024): every power of two in the range.
    #[arg(long, default_value = "8..1G")]
    bytes: String,
    /// α: time per message.
    #[arg(long, default_value_t = 1.0)]
    alpha: f64,
    /// β: time per byte moved.
    #[arg(long, default_value_t = 0.001)]
    beta: f64,
    /// γ: time per byte combined with ⊕.
    #[arg(long, default_value_t = 0.0)]
    gamma: f64,
    /// Algorithms to compare (default: all of the collective), comma-separated.
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// Also simulate each algorithm (at its best piece count) under LogGOPS with
    /// o = g = O = 0, L = α and G = β (in units of β/1000; γ is not simulated).
    #[arg(long)]
    simulate: bool,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

fn size(text: &str) -> Option<u64> {
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
        _ => return None,
    };
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

/// The powers of two in `MIN..MAX`.
fn sizes(text: &str) -> Result<Vec<u64>, ArgError> {
    let bad = || ("--bytes".to_owned(), format!("{text:?} is not MIN..MAX with sizes like 8, 64K, 1G (up to 1T)"));
    let (lo, hi) = text.split_once("..").ok_or_else(bad)?;
    let (lo, hi) = (size(lo).ok_or_else(bad)?, size(hi).ok_or_else(bad)?);
    if lo == 0 || lo > hi || hi > 1 << 40 {
        return Err(bad());
    }
    Ok((0..=40).map(|k| 1u64 << k).filter(|&b| b >= lo && b <= hi).collect())
}

impl ChooseArgs {
    /// Compares the algorithms.
    ///
    /// # Errors
    /// An unknown collective or algorithm, p out of range, a bad size range.
    pub fn run(&self) -> Result<Value, ArgError> {
        let collective: Collective = self.collective.parse().map_err(|e: String| ("--collective".to_owned(), e))?;
        if !(1..=MAX_P).contains(&self.p) {
            return Err(("--p".into(), format!("{} is out of range: expected 1..={MAX_P}", self.p)));
        }
        for (flag, v) in [("--alpha", self.alpha), ("--beta", self.beta), ("--gamma", self.gamma)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err((flag.into(), format!("{v} is not a time ≥ 0")));
            }
        }
        let sizes = sizes(&self.bytes)?;
        let ids: Vec<&'static str> = if self.algorithms.is_empty() {
            of(collective).map(|a| a.id).collect()
        } else {
            let known: Vec<&'static str> = of(collective).map(|a| a.id).collect();
            self.algorithms
                .iter()
                .map(|a| {
                    known.iter().copied().find(|k| k == a).ok_or_else(|| {
                        (
                            "--algorithms".to_owned(),
                            format!("{a:?} is not a {collective} algorithm: expected one of {}", known.join(", ")),
                        )
                    })
                })
                .collect::<Result<_, _>>()?
        };
        let ab = AlphaBeta { alpha: self.alpha, beta: self.beta, gamma: self.gamma };
        // Plans do not depend on the size: one per algorithm and piece count.
        let plans: Vec<(&str, Vec<(u32, Plan)>)> = ids
            .iter()
            .map(|&id| {
                let pipelined = of(collective).any(|a| a.id == id && a.pipelined);
                let counts: Vec<u32> =
                    if pipelined { (0..=MAX_PIECES.ilog2()).map(|k| 1 << k).collect() } else { vec![1] };
                let plans = counts
                    .into_iter()
                    .map(|m| (m, plan(collective, id, self.p, m).expect("a listed algorithm")))
                    .collect();
                (id, plans)
            })
            .collect();
        let mut rows = Vec::new();
        let mut winners: Vec<&str> = Vec::new();
        for &n in &sizes {
            let mut times = Map::new();
            let mut pieces = Map::new();
            let mut simulated = Map::new();
            let mut best: Option<(&str, f64)> = None;
            for (id, options) in &plans {
                // The best piece count that the vector can hold (at most one piece per byte).
                let (m, plan, t) = options
                    .iter()
                    .filter(|(m, _)| u64::from(*m) <= n)
                    .map(|(m, p)| (*m, p, p.cost(n, ab).total()))
                    .min_by(|a, b| a.2.total_cmp(&b.2))
                    .expect("m = 1 always fits");
                times.insert((*id).to_owned(), json!(t));
                if options.len() > 1 {
                    pieces.insert((*id).to_owned(), json!(m));
                }
                if self.simulate {
                    simulated.insert((*id).to_owned(), json!(self.simulated(plan, n)));
                }
                if best.is_none_or(|(_, b)| t < b) {
                    best = Some((id, t));
                }
            }
            let winner = best.map_or("", |b| b.0);
            winners.push(winner);
            let mut row = json!({"bytes": n, "times": times, "winner": winner});
            if !pieces.is_empty() {
                row["pieces"] = Value::Object(pieces);
            }
            if self.simulate {
                row["simulated"] = Value::Object(simulated);
            }
            rows.push(row);
        }
        let crossovers: Vec<Value> = winners
            .windows(2)
            .zip(&sizes[1..])
            .filter(|(w, _)| w[0] != w[1])
            .map(|(w, &b)| json!({"bytes": b, "from": w[0], "to": w[1]}))
            .collect();
        let result = json!({
            "collective": collective.id(),
            "p": self.p,
            "alpha": self.alpha,
            "beta": self.beta,
            "gamma": self.gamma,
            "algorithms": ids,
            "rows": rows,
            "crossovers": crossovers,
        });
        if self.json {
            return Ok(result);
        }
        crate::out(&table(&result, &ids));
        Ok(Value::Null)
    }

    /// LogGOPS time of `plan` with a vector of `n` bytes, in units of α:
    /// G = 1000 ticks per byte, L = α/β·1000 ticks (rounded), o = g = O = 0.
    fn simulated(&self, plan: &Plan, n: u64) -> f64 {
        let scale = if self.beta > 0.0 { 1000.0 / self.beta } else { 1000.0 / self.alpha.max(1e-9) };
        let params = Params {
            l: (self.alpha * scale).round() as u64,
            o: 0,
            g: 0,
            big_g: (self.beta * scale).round() as u64,
            big_o: 0,
            s: u64::MAX / 4,
        };
        let out = simulate(&goal(plan, n), params, Order::Stable, false);
        out.max().0 as f64 / scale
    }
}

/// The result as a text table: a row per size, a column per algorithm (the
/// winner marked `*`, pipelined ones with their piece count), then the crossovers.
fn table(result: &Value, ids: &[&str]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on p = {} (α = {}, β = {}, γ = {}); times in units of α",
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
    for row in result["rows"].as_array().into_iter().flatten() {
        let _ = write!(out, "{:>10}", commlab_plot::format_bytes(row["bytes"].as_u64().unwrap_or(0)));
        for id in ids {
            let t = row["times"][*id].as_f64().unwrap_or(f64::NAN);
            let mut cell = commlab_plot::format_quantity(t);
            if let Some(m) = row["pieces"][*id].as_u64() {
                let _ = write!(cell, " (m={m})");
            }
            if row["winner"] == *id {
                cell.push('*');
            }
            let _ = write!(out, "  {cell:>width$}");
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
    out
}

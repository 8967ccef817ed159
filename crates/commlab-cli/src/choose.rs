//! `commlab choose`: which algorithm, which piece count, per message size
//! (`docs/chooser.md`). Every time is the α–β–γ cost of the
//! algorithm's plan (rounds of block transfers, checked by value replay in
//! the tests); `--simulate` adds LogGOPS times of the same plans as GOAL.

use crate::reduce::ArgError;
use commlab_api::chooser::ChooseRequest;
use serde_json::Value;

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
    /// Simulate every algorithm on this network instead (see `commlab net sim`):
    /// the winners and crossovers are those of the network, times in ns.
    #[command(flatten)]
    net: crate::net::NetArgs,
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

/// `MIN..MAX` in bytes.
fn range(text: &str) -> Result<(u64, u64), ArgError> {
    let bad = || ("--bytes".to_owned(), format!("{text:?} is not MIN..MAX with sizes like 8, 64K, 1G (up to 1T)"));
    let (lo, hi) = text.split_once("..").ok_or_else(bad)?;
    let (lo, hi) = (size(lo).ok_or_else(bad)?, size(hi).ok_or_else(bad)?);
    if lo == 0 || lo > hi || hi > 1 << 40 {
        return Err(bad());
    }
    Ok((lo, hi))
}

impl ChooseArgs {
    /// Compares the algorithms (`commlab_api::chooser`).
    ///
    /// # Errors
    /// An unknown collective or algorithm, p out of range, a bad size range.
    pub fn run(&self) -> Result<Value, ArgError> {
        let (lo, hi) = range(&self.bytes)?;
        let request = ChooseRequest {
            collective: self.collective.clone(),
            p: u64::from(self.p),
            min_bytes: lo,
            max_bytes: hi,
            alpha: self.alpha,
            beta: self.beta,
            gamma: self.gamma,
            algorithms: self.algorithms.clone(),
            simulate: self.simulate,
            sim_limit: 0,
            check_at: None,
            network: None,
        };
        let mut result = request.run().map_err(|e| (format!("--{}", e.field), e.to_string()))?;
        if let Some(net) = self.net.request() {
            commlab_api::chooser::on_network(&mut result, &net, 0).map_err(|e| crate::net::arg_error(&e))?;
        }
        let value = result.to_json(self.alpha, self.beta, self.gamma);
        if self.json {
            return Ok(value);
        }
        let ids: Vec<&str> = result.algorithms.iter().map(String::as_str).collect();
        crate::out(&table(&value, &ids));
        Ok(Value::Null)
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

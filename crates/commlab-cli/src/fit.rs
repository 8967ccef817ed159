//! `commlab fit`: α, β (and γ) fitted to a benchmark's output
//! (`docs/libraries.md`), for a named algorithm or the best-fitting one.

use crate::reduce::ArgError;
use commlab_api::fit::FitRequest;
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
    /// The collective measured: broadcast, reduce, allreduce, allgather, reduce-scatter, all-to-all.
    #[arg(long, default_value = "allreduce")]
    collective: String,
    /// Ranks measured (default: the ranks nccl-tests lists in its header).
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
        let p = match (self.p, commlab_core::fit::ranks_listed(&text)) {
            (Some(p), _) => p,
            (None, Some(listed)) => u32::try_from(listed).map_err(|_| {
                let most = commlab_core::limits::chooser::P;
                (
                    "--p".to_owned(),
                    format!("the file lists ranks up to {}: p = {listed} is out of range: expected {most}", listed - 1),
                )
            })?,
            (None, None) => return Err(("--p".to_owned(), "the file does not list its ranks: give --p".to_owned())),
        };
        let request = FitRequest {
            text,
            format: self.format.clone(),
            collective: self.collective.clone(),
            p,
            algorithm: self.algorithm.clone(),
            in_place: self.in_place,
            gamma: self.gamma,
            run: self.run,
        };
        let result = request.run().map_err(|e| {
            let flag = if e.field == "file" { "FILE".to_owned() } else { format!("--{}", e.field) };
            (flag, e.to_string())
        })?;
        if self.json {
            return Ok(serde_json::to_value(result.to_json()).unwrap_or_default());
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
            "{} on p = {} ({} points, {}): {verdict}\n  α = {} ± {} {u}\n  β = {} ± {} {u}/byte\n",
            result.collective,
            result.p,
            result.points.len(),
            result.format,
            f(result.alpha),
            f(result.alpha_err),
            f(result.beta),
            f(result.beta_err),
            u = result.unit
        );
        if result.gamma > 0.0 {
            let _ = writeln!(out, "  γ = {} {}/byte (given)", f(result.gamma), result.unit);
        }
        for c in result.candidates.iter().take(6) {
            let _ = writeln!(out, "  {:<22} rms relative residual {:.3}", c.algorithm, c.rms);
        }
        out.push_str(&result.summary);
        out.push('\n');
        crate::out(&out);
        Ok(Value::Null)
    }
}

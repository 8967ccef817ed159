//! α, β (and γ) fitted to a benchmark's output (`docs/libraries.md`): the
//! file read by `commlab_core::fit`, each algorithm's critical path from
//! its plan (messages, bytes moved, bytes combined at each size) as the
//! regressors, a non-negative relative least-squares fit, and the Chooser
//! run again with the fitted parameters.
//!
//! γ is not fitted: in every plan the bytes combined grow with the bytes
//! moved, so one series of times cannot tell β from γ. A known γ (from a
//! compute benchmark) can be given; it is held fixed and α, β are fitted
//! to what remains.
//!
//! A plan's critical path depends on α : β : γ (which round and rank is
//! busiest, and the pipelined algorithms' piece count), so the fit is
//! repeated with the regressors of the last estimate until it settles.

use crate::chooser::{algorithms, Cache, ChooseRequest, Options};
use crate::ApiError;
use commlab_core::choose::{AlphaBeta, Collective};
use commlab_core::fit::{detect, least_squares, parse_run, Format, Point};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// What to fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitRequest {
    /// The benchmark's output.
    #[serde(with = "crate::wire::text")]
    pub text: String,
    /// `nccl-tests`, `osu` or `csv` (`None`: detected).
    #[serde(default)]
    pub format: Option<String>,
    /// The collective measured.
    pub collective: String,
    /// Ranks measured.
    pub p: u32,
    /// The algorithm to fit (`None`: each, the best fit kept).
    #[serde(default)]
    pub algorithm: Option<String>,
    /// nccl-tests: take the in-place time.
    #[serde(default)]
    pub in_place: bool,
    /// γ held fixed (per byte combined, in the file's unit; 0: none).
    #[serde(default)]
    pub gamma: f64,
    /// The run fitted when the file holds several (1-based; `None`: the first).
    #[serde(default)]
    pub run: Option<u32>,
    /// The library measured (`nccl`, `ompi`, `mpich`; `None`: NCCL for an
    /// nccl-tests file, none otherwise): the advice names its algorithms only.
    #[serde(default)]
    pub library: Option<String>,
    /// Where [`FitRequest::p`] came from, and so whether the file's own
    /// ranks override it ([`FitRequest::ranks`]).
    #[serde(default)]
    pub p_from: PFrom,
}

/// Where a fit's given p came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PFrom {
    /// The page's p: the file's own ranks win, with a notice.
    #[default]
    Page,
    /// A System's GPUs (`--system` × `--nodes`): the file's ranks win, with a warning.
    System,
    /// Asked for explicitly (`--p`): it wins, with a warning when the file says otherwise.
    Flag,
}

/// The ranks a fit uses, where they came from (`ranks`: the file's rank
/// list; `busbw`: its busbw / algbw; `flag`: `--p` or the page's p;
/// `system`: the System's GPUs) and, when the given p and the file
/// disagree, the sentence that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranks {
    /// Ranks.
    pub p: u32,
    /// `ranks`, `busbw`, `flag` or `system`.
    pub source: &'static str,
    /// The disagreement, when there is one.
    pub note: Option<String>,
}

/// One algorithm's fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Algorithm id.
    pub algorithm: String,
    /// α, β, γ.
    pub params: [f64; 3],
    /// Their standard errors.
    pub errors: [f64; 3],
    /// Root mean square relative residual.
    pub rms: f64,
}

/// The unit of a run's times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TimeUnit {
    /// Microseconds: nccl-tests and OSU print them.
    #[serde(rename = "µs")]
    Micros,
    /// Whatever unit a CSV file's times are in (not known).
    #[serde(rename = "the file's unit")]
    File,
}

impl TimeUnit {
    /// Its name in sentences and the JSON.
    pub fn label(self) -> &'static str {
        match self {
            TimeUnit::Micros => "µs",
            TimeUnit::File => "the file's unit",
        }
    }
}

impl std::fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// The fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitResult {
    /// The format read.
    pub format: String,
    /// The time unit (µs for nccl-tests and OSU; the file's own for CSV).
    pub unit: TimeUnit,
    /// The collective.
    pub collective: String,
    /// Ranks.
    pub p: u32,
    /// The algorithm fitted (the best-fitting one when none was named).
    pub algorithm: String,
    /// α: per message.
    pub alpha: f64,
    /// β: per byte moved.
    pub beta: f64,
    /// γ: per byte combined, as given (held fixed).
    pub gamma: f64,
    /// Standard error of α.
    pub alpha_err: f64,
    /// Standard error of β.
    pub beta_err: f64,
    /// Standard error of γ.
    pub gamma_err: f64,
    /// Measured points: (the Chooser's n in bytes, time).
    #[serde(with = "crate::wire::pairs")]
    pub points: Vec<(u64, f64)>,
    /// The model's time at each point.
    #[serde(with = "crate::wire::f64s")]
    pub predicted: Vec<f64>,
    /// Measured − predicted, at each point.
    #[serde(with = "crate::wire::f64s")]
    pub residuals: Vec<f64>,
    /// Every algorithm tried, best first.
    pub candidates: Vec<Candidate>,
    /// The Chooser's answer with these parameters, in a sentence
    /// ([`FitResult::summary`]).
    pub summary: String,
    /// The runs the file holds (outputs concatenated), first and last data
    /// line of each; the fit reads run [`FitResult::run`].
    pub runs: Vec<(u32, u32)>,
    /// The run fitted, 1-based.
    pub run: u32,
    /// The library whose algorithms the summary names (`nccl`, `ompi`,
    /// `mpich`; `None`: ours, the library not known).
    pub library: Option<String>,
    /// The file says RCCL ran it (rccl-tests, an AMD Instinct GPU): NCCL's
    /// model does not describe it ([`ran_rccl`]).
    #[serde(default)]
    pub rccl: bool,
    /// Where p came from: `ranks`, `busbw`, `flag` or `system` ([`Ranks`]).
    #[serde(default)]
    pub p_source: String,
    /// The given p and the file disagree: which was used, and why.
    #[serde(default)]
    pub p_note: Option<String>,
    /// Data rows of size 0 skipped (rccl-tests prints sizes below its type's width as 0).
    #[serde(default)]
    pub zero_rows: usize,
}

/// Whether a benchmark's output says RCCL ran it: rccl-tests prints its
/// name and RCCL's version, and the device list names AMD Instinct GPUs.
pub fn ran_rccl(text: &str) -> bool {
    text.lines().take(10_000).any(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("rccl") || l.contains("amd instinct")
    })
}

/// Run `run`'s part of `text` (1-based, `runs` the runs' data lines): from
/// the line after the previous run's last row to its own last row.
fn run_text<'a>(text: &'a str, runs: &[(u32, u32)], run: usize) -> &'a str {
    let from = run.checked_sub(2).and_then(|k| runs.get(k)).map_or(0, |r| r.1 as usize);
    let to = runs.get(run.wrapping_sub(1)).map_or(usize::MAX, |r| r.1 as usize);
    // Byte offsets of line `from` (0-based: after `from` lines) and of the end of line `to`.
    let mut start = 0;
    let mut end = text.len();
    let mut offset = 0;
    for (k, line) in text.split_inclusive('\n').enumerate() {
        if k == from {
            start = offset;
        }
        offset += line.len();
        if k + 1 == to {
            end = offset;
            break;
        }
    }
    &text[start..end.max(start)]
}

/// Points at most fitted (a longer file is refused).
pub const MAX_POINTS: usize = 100_000;

/// The Chooser's `n` of a benchmark's size: OSU's allgather and alltoall
/// report one rank's block, nccl-tests the whole buffer.
fn chooser_bytes(format: Format, c: Collective, p: u32, size: u64) -> u64 {
    match (format, c) {
        (Format::Osu, Collective::Allgather | Collective::AllToAll) => size.saturating_mul(u64::from(p)),
        _ => size,
    }
}

/// Fits α and β of one algorithm with γ held at `gamma`: the parameters,
/// their errors, the predictions.
fn fit_one(options: &Options, points: &[(u64, f64)], gamma: f64) -> Option<([f64; 3], [f64; 3], Vec<f64>)> {
    let guess = AlphaBeta { alpha: 1.0, beta: 1e-3, gamma };
    if points.len() <= SAMPLE {
        return settle(options, points, gamma, guess, 8);
    }
    // A long file: the critical paths settle on an even sample of it, and
    // the whole file is then fitted once with the sample's critical paths.
    let step = points.len().div_ceil(SAMPLE);
    let sample: Vec<(u64, f64)> = points.iter().copied().step_by(step).collect();
    let (p, _, _) = settle(options, &sample, gamma, guess, 8)?;
    settle(options, points, gamma, AlphaBeta { alpha: p[0], beta: p[1], gamma }, 1)
}

/// Points the estimate first settles on (see [`fit_one`]).
const SAMPLE: usize = 512;

/// Fits from `ab` until the critical paths stop changing (at most `rounds`
/// rounds). Repeated sizes are costed once.
fn settle(
    options: &Options,
    points: &[(u64, f64)],
    gamma: f64,
    mut ab: AlphaBeta,
    rounds: usize,
) -> Option<([f64; 3], [f64; 3], Vec<f64>)> {
    let mut out = None;
    let mut last_x: Option<Vec<[f64; 2]>> = None;
    for _ in 0..rounds {
        // Regressors at the current estimate (each term divided by its
        // parameter; a tiny positive value stands in for 0).
        let probe = AlphaBeta { alpha: ab.alpha.max(1e-12), beta: ab.beta.max(1e-18), gamma: gamma.max(1e-18) };
        let mut x = Vec::with_capacity(points.len());
        let mut fixed = Vec::with_capacity(points.len());
        let mut last: Option<(u64, [f64; 2], f64)> = None;
        for &(n, _) in points {
            let (row, f) = match last {
                Some((m, row, f)) if m == n => (row, f),
                _ => {
                    let (_, c) = options.best(n.max(1), probe);
                    ([c.latency / probe.alpha, c.bandwidth / probe.beta], gamma * c.compute / probe.gamma)
                }
            };
            last = Some((n, row, f));
            x.push(row);
            fixed.push(f);
        }
        // The same critical paths as the last round: the same solution.
        let same = last_x.as_ref().is_some_and(|l| {
            l.iter().zip(&x).all(|(a, b)| a.iter().zip(b).all(|(u, v)| (u - v).abs() <= 1e-12 * u.abs().max(v.abs())))
        });
        if same {
            break;
        }
        let y: Vec<f64> = points.iter().zip(&fixed).map(|(p, f)| p.1 - f).collect();
        let s = least_squares(&x, &y)?;
        let params = [s.theta[0], s.theta[1], gamma];
        let errors = [s.err[0], s.err[1], 0.0];
        let predicted: Vec<f64> =
            x.iter().zip(&fixed).map(|(r, f)| f + r.iter().zip(&s.theta).map(|(a, b)| a * b).sum::<f64>()).collect();
        ab = AlphaBeta { alpha: params[0], beta: params[1], gamma };
        out = Some((params, errors, predicted));
        last_x = Some(x);
    }
    out
}

/// Lines of the warm-up's synthetic output ([`FitRequest::warm_up`]).
pub const WARM_UP_LINES: u64 = 4096;

/// Times the warm-up is fitted: V8 runs a wasm function already on the
/// stack in the code it started with, so the optimized code of the fit's
/// inner functions is used from a later call on.
pub const WARM_UP_ROUNDS: usize = 3;

impl FitRequest {
    /// A synthetic nccl-tests output of [`WARM_UP_LINES`] sizes of
    /// `collective` at `p` (ring-like times with a little ripple), every
    /// algorithm fitted: the warm-up the Chooser's fit worker runs when its
    /// section opens.
    pub fn warm_up(collective: &str, p: u32) -> FitRequest {
        let mut text = String::from(
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n",
        );
        for k in 0..WARM_UP_LINES {
            let n = 8 + k * 4096;
            #[allow(clippy::cast_precision_loss, reason = "synthetic sizes")]
            let t = 5.0 + n as f64 * 3e-5 * (1.0 + 0.01 * ((k % 7) as f64 - 3.0));
            let _ = writeln!(text, "{n:>12} {:>13} float sum -1 {t:8.2} 0.00 0.00 0 {t:8.2} 0.00 0.00 0", n / 4);
        }
        FitRequest {
            text,
            format: None,
            collective: collective.to_owned(),
            p,
            algorithm: None,
            in_place: false,
            gamma: 0.0,
            run: None,
            library: None,
            p_from: PFrom::Flag,
        }
    }

    /// Fits [`WARM_UP_ROUNDS`] times with `cache`: the last fit, its points,
    /// predictions and residuals left out (nobody reads them).
    ///
    /// # Errors
    /// As [`FitRequest::run`].
    pub fn warm(&self, cache: &mut Cache) -> Result<FitResult, ApiError> {
        let mut last = self.run_cached(cache);
        for _ in 1..WARM_UP_ROUNDS {
            last = self.run_cached(cache);
        }
        last.map(|mut fit| {
            fit.points.clear();
            fit.predicted.clear();
            fit.residuals.clear();
            fit
        })
    }

    /// The ranks the fit uses: the file's own (its rank list, else its
    /// busbw / algbw for the collective) over the page's p or a System's
    /// GPUs, saying so when they differ; `--p` ([`PFrom::Flag`]) over the
    /// file, with a warning when the file says otherwise.
    pub fn ranks(&self, collective: Collective) -> Ranks {
        self.ranks_in(collective, &self.text)
    }

    /// The ranks of run `run` (its own part of the file, its header and
    /// rows, says them), checked.
    fn checked_ranks(&self, collective: Collective, runs: &[(u32, u32)], run: u32) -> Result<Ranks, ApiError> {
        let text = run_text(&self.text, runs, run as usize);
        if let Some(listed) = commlab_core::fit::ranks_listed(text).filter(|&r| r > crate::chooser::P.max) {
            return Err(ApiError::problem(
                "p",
                format!(
                    "the file lists ranks up to {}: p = {listed} is out of range: expected {}",
                    listed - 1,
                    crate::chooser::P
                ),
            ));
        }
        let ranks = self.ranks_in(collective, text);
        if ranks.p == 0 {
            return Err(ApiError::problem(
                "p",
                "the file does not list its ranks and its busbw / algbw does not tell them: give p",
            ));
        }
        crate::chooser::P.check(u64::from(ranks.p)).map_err(ApiError::from)?;
        Ok(ranks)
    }

    /// [`FitRequest::ranks`] as `text` (one run's part of the file) says them.
    fn ranks_in(&self, collective: Collective, text: &str) -> Ranks {
        let file = commlab_core::fit::ranks_listed(text)
            .and_then(|r| u32::try_from(r).ok())
            .map(|r| (r, "ranks"))
            .or_else(|| {
                commlab_core::fit::bus_ratio(text)
                    .and_then(|(f, a)| commlab_core::fit::ranks_from_bus(collective, f, a))
                    .map(|r| (r, "busbw"))
            });
        let how = |source: &str| if source == "ranks" { "its rank list" } else { "its busbw / algbw" };
        let given = match self.p_from {
            PFrom::Page => "the page's",
            PFrom::System => "the System's",
            PFrom::Flag => "--p",
        };
        let own = if self.p_from == PFrom::System { "system" } else { "flag" };
        match file {
            Some((p, source)) if p != self.p && self.p_from == PFrom::Flag => Ranks {
                p: self.p,
                source: own,
                note: Some(format!(
                    "--p {} differs from the file's p = {p} ({}): fitted with p = {} as asked",
                    self.p,
                    how(source),
                    self.p
                )),
            },
            Some((p, source)) if p != self.p => Ranks {
                p,
                source,
                // No p given (0): nothing to disagree with.
                note: (self.p != 0).then(|| {
                    format!("The run has p = {p} ({}), not {given} p = {}: fitted with p = {p}", how(source), self.p)
                }),
            },
            Some((p, source)) => Ranks { p, source, note: None },
            None => Ranks { p: self.p, source: own, note: None },
        }
    }

    /// Reads and fits.
    ///
    /// # Errors
    /// A file that does not read (line and column named), an unknown
    /// format, collective or algorithm, p out of range, too many points,
    /// fewer points than parameters.
    pub fn run(&self) -> Result<FitResult, ApiError> {
        self.run_cached(&mut Cache::default())
    }

    /// [`FitRequest::run`] with the plans' profiles kept in `cache` (the
    /// worker's, shared with its comparisons).
    ///
    /// # Errors
    /// As [`FitRequest::run`].
    pub fn run_cached(&self, cache: &mut Cache) -> Result<FitResult, ApiError> {
        let collective: Collective = crate::parse_id("collective", &self.collective)?;
        let format = match &self.format {
            Some(f) => crate::parse_id::<Format>("format", f)?,
            None => detect(&self.text),
        };
        let run = self.run.unwrap_or(1);
        let (read, runs): (Vec<Point>, _) =
            parse_run(&self.text, format, self.in_place, run as usize).map_err(|e| {
                let field = if e.message.starts_with("run ") { "run" } else { "file" };
                ApiError::problem(field, e.to_string())
            })?;
        let ranks = self.checked_ranks(collective, &runs.lines, run)?;
        if read.len() > MAX_POINTS {
            return Err(ApiError::new(
                "file",
                format!("{} points", read.len()),
                format!("at most {MAX_POINTS} points"),
            ));
        }
        let points: Vec<(u64, f64)> = read
            .iter()
            .filter(|p| p.bytes > 0 && p.time > 0.0)
            .map(|p| (chooser_bytes(format, collective, ranks.p, p.bytes), p.time))
            .collect();
        commlab_core::limits::RealRange { name: "gamma", ..commlab_core::limits::chooser::COST }.check(self.gamma)?;
        if points.len() < 2 {
            return Err(ApiError::problem(
                "file",
                format!("{} points of nonzero size and time: at least 2 are needed to fit α and β", points.len()),
            ));
        }
        // One size gives one equation for α and β: any α fits with its β.
        let mut sizes: Vec<u64> = points.iter().map(|p| p.0).collect();
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.len() < 2 {
            return Err(ApiError::problem(
                "file",
                format!(
                    "every point has one size ({} B): α and β need at least 2 sizes to tell them apart",
                    sizes.first().copied().unwrap_or(0)
                ),
            ));
        }
        let asked: Vec<String> = self.algorithm.iter().cloned().collect();
        // The fit's field is `algorithm` (one id), the Chooser's `algorithms`.
        let algs = algorithms(collective, &asked).map_err(|e| ApiError { field: "algorithm".into(), ..e })?;
        let mut candidates = Vec::new();
        let mut fits = Vec::new();
        for (id, pipelined) in algs {
            let options = cache.options(collective, id, ranks.p, pipelined);
            let Some((params, errors, predicted)) = fit_one(&options, &points, self.gamma) else { continue };
            let rel: f64 = points.iter().zip(&predicted).map(|(p, q)| ((p.1 - q) / p.1).powi(2)).sum();
            #[allow(clippy::cast_precision_loss, reason = "point counts are small")]
            let rms = (rel / points.len() as f64).sqrt();
            candidates.push(Candidate { algorithm: id.to_owned(), params, errors, rms });
            fits.push(predicted);
        }
        let best = (0..candidates.len())
            .min_by(|&a, &b| candidates[a].rms.total_cmp(&candidates[b].rms))
            .ok_or_else(|| ApiError::problem("file", "no algorithm could be fitted to these points"))?;
        let chosen = candidates[best].clone();
        let predicted = fits.swap_remove(best);
        candidates.sort_by(|a, b| a.rms.total_cmp(&b.rms));
        let mut result = FitResult {
            format: format.id().to_owned(),
            unit: if format == Format::Csv { TimeUnit::File } else { TimeUnit::Micros },
            collective: collective.id().to_owned(),
            p: ranks.p,
            algorithm: chosen.algorithm,
            alpha: chosen.params[0],
            beta: chosen.params[1],
            gamma: chosen.params[2],
            alpha_err: chosen.errors[0],
            beta_err: chosen.errors[1],
            gamma_err: chosen.errors[2],
            residuals: points.iter().zip(&predicted).map(|(p, q)| p.1 - q).collect(),
            points,
            predicted,
            candidates,
            summary: String::new(),
            runs: runs.lines,
            run,
            library: match self.library.as_deref() {
                None if format == Format::NcclTests => Some("nccl".to_owned()),
                None => None,
                Some(l @ ("nccl" | "ompi" | "mpich")) => Some(l.to_owned()),
                Some(_) => return Err(ApiError::problem("library", "nccl, ompi or mpich")),
            },
            rccl: ran_rccl(&self.text),
            p_source: ranks.source.to_owned(),
            p_note: ranks.note,
            zero_rows: commlab_core::fit::zero_size_rows(&self.text, format),
        };
        result.summary = result.summary_cached(cache);
        Ok(result)
    }
}

/// The algorithms `library` has for `collective` among ours: (our id, its
/// name there: "NCCL's tree", "Open MPI's ring (4)", "MPICH's ring").
pub fn library_algorithms(library: &str, collective: Collective) -> Vec<(&'static str, String)> {
    use commlab_core::libraries::{nccl, ompi, tuner};
    match library {
        "nccl" => [nccl::Algorithm::Ring, nccl::Algorithm::Tree]
            .into_iter()
            .filter_map(|a| nccl::ours(collective, a).map(|ours| (ours, format!("NCCL's {a}"))))
            .collect(),
        "ompi" => commlab_core::choose::of(collective)
            .filter_map(|a| {
                ompi::id_of(collective, a.id).map(|k| (a.id, format!("Open MPI's {} ({k})", ompi::name(collective, k))))
            })
            .collect(),
        "mpich" => commlab_core::choose::of(collective)
            .filter_map(|a| {
                let (name, exact) = tuner::mpich_target(collective, a.id);
                exact.then(|| (a.id, format!("MPICH's {}", name.trim_start_matches("MPIR_"))))
            })
            .collect(),
        _ => Vec::new(),
    }
}

impl FitResult {
    /// The algorithms that fit as well as the best, to 1e-9 (the best
    /// first): ring, Rabenseifner, recursive doubling and reduce-broadcast
    /// all cost `a·α + b·n·β`, so one curve cannot tell them apart.
    pub fn tied(&self) -> Vec<&str> {
        let best = self.candidates.first().map_or(0.0, |c| c.rms);
        self.candidates
            .iter()
            .filter(|c| (c.rms - best).abs() <= 1e-9 * best.abs().max(1e-6))
            .map(|c| c.algorithm.as_str())
            .collect()
    }

    /// Each point's bus bandwidth in GB/s, by nccl-tests' definition for the
    /// collective (bytes / time × its factor: `2(p−1)/p` for allreduce,
    /// `(p−1)/p` for allgather, reduce-scatter and all-to-all, 1 for
    /// broadcast and reduce); `None` where the times' unit is not known.
    pub fn busbw(&self) -> Vec<Option<f64>> {
        let Ok(collective) = self.collective.parse::<Collective>() else { return vec![None; self.points.len()] };
        let known = self.unit == TimeUnit::Micros;
        let busbw =
            |bytes, t_us: f64| commlab_core::systems::Measure::Busbw.of(collective, self.p, bytes, t_us * 1000.0);
        self.points.iter().map(|&(bytes, t)| (known && t > 0.0).then(|| busbw(bytes, t))).collect()
    }

    /// The points that are outliers (indices, in the file's order): a
    /// relative residual more than 3 robust standard deviations from the
    /// median (1.4826 × the median absolute deviation: a point the curve
    /// misses far more than it misses the rest, such as a warm-up).
    pub fn outliers(&self) -> Vec<usize> {
        let rel: Vec<f64> = self.residuals.iter().zip(&self.points).map(|(r, p)| r / p.1).collect();
        if rel.len() < 4 {
            return Vec::new();
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            let n = v.len();
            if n % 2 == 1 {
                v[n / 2]
            } else {
                f64::midpoint(v[n / 2 - 1], v[n / 2])
            }
        };
        let mid = median(&mut rel.clone());
        let mad = median(&mut rel.iter().map(|x| (x - mid).abs()).collect());
        let spread = 1.4826 * mad;
        (0..rel.len()).filter(|&i| spread > 0.0 && (rel[i] - mid).abs() > 3.0 * spread).collect()
    }

    /// The bandwidth β means, 1/β in GB/s (`None` where the times' unit is
    /// not known or β is 0).
    pub fn beta_gbps(&self) -> Option<f64> {
        (self.unit == TimeUnit::Micros && self.beta > 0.0).then(|| 1.0 / self.beta / 1000.0)
    }

    /// The points to list (indices, in the file's order): every point when
    /// there are at most `k`, else the `k` fitted worst (largest relative
    /// residual; the earlier point first among equals).
    pub fn worst(&self, k: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.points.len()).collect();
        if order.len() > k {
            let rel = |i: usize| (self.residuals[i] / self.points[i].1).abs();
            order.sort_by(|&a, &b| rel(b).total_cmp(&rel(a)).then(a.cmp(&b)));
            order.truncate(k);
            order.sort_unstable();
        }
        order
    }

    /// The Chooser over the measured sizes with the fitted α, β, γ (all
    /// algorithms; a collective the fit read is one the Chooser has).
    pub fn chooser(&self) -> ChooseRequest {
        let lo = self.points.iter().map(|p| p.0).min().unwrap_or(1).max(1);
        let hi = self.points.iter().map(|p| p.0).max().unwrap_or(lo).clamp(lo, crate::chooser::MAX_BYTES);
        let compare = crate::chooser::Comparison {
            collective: self.collective.parse().unwrap_or(commlab_core::choose::Collective::Allreduce),
            p: self.p,
            lo: lo.next_power_of_two().min(hi),
            hi,
            abg: [self.alpha, self.beta, self.gamma],
            algorithms: Vec::new(),
        };
        ChooseRequest { collective: self.collective.clone(), ..compare.choose(false, 0, None) }
    }

    /// "With your measured α and β, X wins up to …, Y above …", from the
    /// Chooser run with the fitted parameters.
    pub fn summary(&self) -> String {
        self.summary_cached(&mut Cache::default())
    }

    fn summary_cached(&self, cache: &mut Cache) -> String {
        let mut request = self.chooser();
        // Advice in the measured library's own algorithms: our schedule of
        // each is compared, named as the library names it.
        let Ok(c) = self.collective.parse::<Collective>() else { return String::new() };
        let names = self.library.as_deref().map(|l| library_algorithms(l, c));
        let library = match self.library.as_deref() {
            Some("nccl") => "NCCL",
            Some("ompi") => "Open MPI",
            Some("mpich") => "MPICH",
            _ => "",
        };
        match names.as_deref() {
            Some([]) => {
                return format!(
                    "{library} has no algorithm of this model for {c}: nothing to choose, so the fit advises none."
                );
            }
            Some([(_, only)]) => {
                return format!("{only} is {library}'s only algorithm for {c} in this model: nothing to choose; the fitted α and β describe it.");
            }
            Some(list) => request.algorithms = list.iter().map(|n| n.0.to_owned()).collect(),
            None => {}
        }
        let Ok(result) = request.run_cached(cache) else { return String::new() };
        let Some(first) = result.rows.first() else { return String::new() };
        let name = |ours: &str| {
            names.as_ref().and_then(|n| n.iter().find(|n| n.0 == ours)).map_or(ours.to_owned(), |n| n.1.clone())
        };
        let lead = match self.library.as_deref() {
            Some("nccl") => {
                "Among NCCL's algorithms in this model (ring and tree; NVLS and CollNet are not), w".to_owned()
            }
            Some(_) => format!("Among {library}'s algorithms in this model, w"),
            None if self.format == "osu" => {
                "The MPI library is not known (choose it for advice in its algorithms); among ours, w".to_owned()
            }
            None => "W".to_owned(),
        };
        let mut s = format!(
            "{lead}ith the measured α = {} and β = {} per byte{}, {} wins from {}",
            commlab_plot::format_quantity(self.alpha),
            commlab_plot::format_quantity(self.beta),
            if self.gamma > 0.0 {
                format!(" (γ = {})", commlab_plot::format_quantity(self.gamma))
            } else {
                String::new()
            },
            name(&result.algorithms[first.winner]),
            commlab_plot::format_bytes(first.bytes)
        );
        for c in &result.crossovers {
            let _ = write!(s, ", {} above {}", name(&c.to), commlab_plot::format_bytes(c.bytes));
        }
        s.push('.');
        s
    }

    /// The JSON of `commlab fit --json`.
    pub fn to_json(&self) -> crate::json::Json {
        json!({
            "format": self.format.as_str(),
            "unit": self.unit.label(),
            "collective": self.collective.as_str(),
            "p": self.p,
            "p_source": self.p_source.as_str(),
            "p_note": self.p_note.as_deref(),
            "rccl": self.rccl,
            "zero_size_rows_skipped": self.zero_rows,
            "algorithm": self.algorithm.as_str(),
            "alpha": self.alpha,
            "beta": self.beta,
            "gamma": self.gamma,
            "alpha_err": self.alpha_err,
            "beta_err": self.beta_err,
            "beta_gbps": self.beta_gbps(),
            "outliers": self.outliers().into_iter().map(|i| json!({
                "bytes": self.points[i].0, "relative": self.residuals[i] / self.points[i].1,
            })).collect::<Vec<_>>(),
            "library": self.library.as_deref(),
            "gamma_err": self.gamma_err,
            "points": self.points.iter().zip(self.busbw()).map(|(p, b)| json!({"bytes": p.0, "time": p.1, "busbw": b})).collect::<Vec<_>>(),
            "tied": self.tied().into_iter().map(str::to_owned).collect::<Vec<_>>(),
            "predicted": &self.predicted,
            "residuals": &self.residuals,
            "candidates": self.candidates.iter().map(|c| json!({
                "algorithm": c.algorithm.as_str(), "alpha": c.params[0], "beta": c.params[1], "gamma": c.params[2],
                "alpha_err": c.errors[0], "beta_err": c.errors[1], "gamma_err": c.errors[2], "rms_relative": c.rms,
            })).collect::<Vec<_>>(),
            "summary": self.summary.as_str(),
            "runs": self.runs.len(),
            "run": self.run,
            "run_lines": self.runs.get(self.run.saturating_sub(1) as usize).map(|l| vec![l.0, l.1]),
        })
    }
}

#[cfg(test)]
mod ranks_tests {
    use super::{FitRequest, PFrom};
    use commlab_core::choose::Collective;

    /// An nccl-tests file of a 2 × 8 allreduce without a rank list (busbw /
    /// algbw = 2·15/16), its rows as nccl-tests prints them.
    fn sixteen() -> String {
        use std::fmt::Write as _;
        (10..=30).step_by(4).fold(String::new(), |mut out, k| {
            let bytes = 1u64 << k;
            let t = 30.0 + bytes as f64 / 100_000.0;
            let a = bytes as f64 / t / 1000.0;
            let _ = writeln!(
                out,
                "{bytes} {} float sum -1 {t:.1} {a:.2} {:.2} 0 {t:.1} {a:.2} {:.2} 0",
                bytes / 4,
                a * 1.875,
                a * 1.875
            );
            out
        })
    }

    fn request(p: u32, p_from: PFrom) -> FitRequest {
        FitRequest {
            text: sixteen(),
            format: None,
            collective: "allreduce".into(),
            p,
            algorithm: None,
            in_place: false,
            gamma: 0.0,
            run: None,
            library: None,
            p_from,
        }
    }

    /// The file's p (16) wins over the page's and a System's, with a
    /// sentence naming both; `--p` wins over the file, with one too; agreeing
    /// values say nothing.
    #[test]
    fn the_files_p_against_the_given_one() {
        let r = request(64, PFrom::Page).ranks(Collective::Allreduce);
        assert_eq!((r.p, r.source), (16, "busbw"));
        assert_eq!(
            r.note.as_deref(),
            Some("The run has p = 16 (its busbw / algbw), not the page's p = 64: fitted with p = 16")
        );
        let r = request(32, PFrom::System).ranks(Collective::Allreduce);
        assert_eq!((r.p, r.source), (16, "busbw"));
        assert!(r.note.unwrap().contains("not the System's p = 32"));
        let r = request(64, PFrom::Flag).ranks(Collective::Allreduce);
        assert_eq!((r.p, r.source), (64, "flag"));
        assert_eq!(
            r.note.as_deref(),
            Some("--p 64 differs from the file's p = 16 (its busbw / algbw): fitted with p = 64 as asked")
        );
        for from in [PFrom::Page, PFrom::System, PFrom::Flag] {
            assert_eq!(request(16, from).ranks(Collective::Allreduce).note, None);
        }
        // A broadcast's factor is 1 at any p: the file cannot say, the given p stands.
        let r = request(64, PFrom::Page).ranks(Collective::Broadcast);
        assert_eq!((r.p, r.source, r.note), (64, "flag", None));
        // Read as an allgather the same ratio is no p: (p − 1)/p < 1.
        assert_eq!(request(64, PFrom::System).ranks(Collective::Allgather).source, "system");
    }

    /// The fit itself uses the file's p when the page's disagrees.
    #[test]
    fn the_fit_uses_the_files_p() {
        let f = request(64, PFrom::Page).run().unwrap();
        assert_eq!((f.p, f.p_source.as_str()), (16, "busbw"));
        assert!(f.p_note.is_some());
    }
}

//! Measurements to α–β–γ (`docs/libraries.md`): readers of benchmark
//! output (nccl-tests' `*_perf`, the OSU micro-benchmarks, a plain CSV of
//! size and time) and a weighted least-squares solver with the
//! uncertainty of each parameter.
//!
//! Times are fitted relatively (weights `1/t²`): a benchmark's sizes span
//! decades, and an unweighted fit would let the largest sizes decide α.
//! Parameters are kept non-negative: where the free solution has a
//! negative one, the best fit with it held at 0 is taken.

#![allow(clippy::many_single_char_names, reason = "X, y, w, θ, k: the least-squares notation")]
#![allow(clippy::needless_range_loop, reason = "row operations on a small dense matrix read best indexed")]

/// A benchmark output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// nccl-tests (`all_reduce_perf` and friends): size, count, type, redop,
    /// [root,] then time, algbw, busbw, #wrong out of place and in place.
    NcclTests,
    /// OSU micro-benchmarks: size, average latency (µs), optionally min,
    /// max, iterations and `--validation`'s column; or, under a
    /// `Bandwidth (MB/s)` header (`osu_bw`, `osu_bibw`), size and bandwidth,
    /// read as the time of one message: bytes / bandwidth (twice that for
    /// the bi-directional test, which counts both directions).
    Osu,
    /// Lines of `size,time` (comma, semicolon, tab or spaces).
    Csv,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 3] = [Format::NcclTests, Format::Osu, Format::Csv];

    /// Stable id (`--format`).
    pub fn id(self) -> &'static str {
        match self {
            Format::NcclTests => "nccl-tests",
            Format::Osu => "osu",
            Format::Csv => "csv",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::limits::parse_id(&Format::ALL, Format::id, "format", s)
    }
}

/// One measured point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Message size, bytes.
    pub bytes: u64,
    /// Time, in the file's unit (µs for nccl-tests and OSU).
    pub time: f64,
    /// Line in the file (1-based).
    pub line: u32,
}

/// A line that does not read: where, and what was expected (the GOAL
/// reader's error type).
pub use crate::goal::ParseError;

/// Lines read at most (a longer paste is refused, not truncated).
pub const MAX_LINES: usize = 200_000;

fn err(line: usize, column: usize, message: impl Into<String>) -> ParseError {
    ParseError { line, column, message: message.into() }
}

/// The line's tokens with their 1-based columns, after an `mpirun`
/// rank tag such as `[0]` or `[1,0]<stdout>:`.
fn tokens(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    tokens_into(line, &mut out);
    out
}

/// The length of the tag a parallel launcher puts before every line of its
/// ranks' output, 0 when there is none: `0: ` (`srun -l`),
/// `[1,0]<stdout>:` (`mpirun --tag-output`), `[0] ` (`mpirun
/// -prepend-rank`), with or without the space after it.
fn launcher_prefix(line: &str) -> usize {
    let b = line.as_bytes();
    let lead = b.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    let digits = |from: usize| b[from.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    let space = |at: usize| at + usize::from(b.get(at) == Some(&b' '));
    // `N:` (and `N: `): the digits end at a colon.
    let n = digits(lead);
    if n > 0 && b.get(lead + n) == Some(&b':') {
        return space(lead + n + 1);
    }
    if b.get(lead) != Some(&b'[') {
        return 0;
    }
    // `[N]` or `[N,M]`, then `<stdout>:` / `<stderr>:` when present.
    let mut at = lead + 1;
    let n = digits(at);
    if n == 0 {
        return 0;
    }
    at += n;
    if b.get(at) == Some(&b',') {
        let m = digits(at + 1);
        if m == 0 {
            return 0;
        }
        at += 1 + m;
    }
    if b.get(at) != Some(&b']') {
        return 0;
    }
    at += 1;
    for stream in [&b"<stdout>:"[..], &b"<stderr>:"[..]] {
        if b[at..].starts_with(stream) {
            at += stream.len();
        }
    }
    space(at)
}

/// [`tokens`] into `out` (emptied first): the reader's per-line buffer.
fn tokens_into<'a>(line: &'a str, out: &mut Vec<(usize, &'a str)>) {
    out.clear();
    let mut start = None;
    let bytes = line.as_bytes();
    let mut i = launcher_prefix(line);
    while i < bytes.len() {
        // Byte by byte (ASCII, what benchmarks print), a whole character
        // where one starts: the same separators as `char::is_whitespace`.
        let (sep, width) = match bytes[i] {
            b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b',' | b';' => (true, 1),
            b if b.is_ascii() => (false, 1),
            _ => line[i..].chars().next().map_or((false, 1), |c| (c.is_whitespace(), c.len_utf8())),
        };
        match (sep, start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
        i += width;
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    while out.first().is_some_and(|(_, t)| t.starts_with('[') && t.contains(']')) {
        let (col, t) = out[0];
        let rest = &t[t.find(']').map_or(t.len(), |i| i + 1)..];
        let rest = rest.trim_start_matches("<stdout>:").trim_start_matches("<stderr>:");
        if rest.is_empty() {
            out.remove(0);
        } else {
            out[0] = (col + t.len() - rest.len(), rest);
            break;
        }
    }
    for t in out.iter_mut() {
        t.0 += 1;
    }
}

fn size_of(tok: &str, line: usize, col: usize) -> Result<u64, ParseError> {
    tok.parse::<u64>().map_err(|_| err(line, col, format!("expected a size in bytes, found {tok:?}")))
}

fn time_of(tok: &str, line: usize, col: usize) -> Result<f64, ParseError> {
    match tok.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err(err(line, col, format!("expected a time (a number ≥ 0), found {tok:?}"))),
    }
}

/// Which format `text` looks like: nccl-tests' `algbw` header or rows of
/// size, count and a type name; OSU's `Latency(us)` header; else CSV.
pub fn detect(text: &str) -> Format {
    // A data row of nccl-tests: size, count, then the type's name.
    let nccl_row =
        text.lines().map(tokens).find(|t| t.first().is_some_and(|(_, s)| s.starts_with(|c: char| c.is_ascii_digit())));
    let nccl_row = nccl_row.is_some_and(|t| t.len() >= 8 && t[2].1.starts_with(|c: char| c.is_ascii_alphabetic()));
    if nccl_row || text.contains("algbw") || text.contains("busbw") {
        Format::NcclTests
    } else if text.contains("Latency(us)") || text.contains("# OSU") {
        Format::Osu
    } else {
        Format::Csv
    }
}

/// The ranks nccl-tests lists in its header (`#  Rank  3 Group  0 Pid …`):
/// the highest rank + 1, or `None` when it lists none.
pub fn ranks_listed(text: &str) -> Option<u64> {
    text.lines()
        .filter_map(|l| {
            let toks = tokens(l);
            let i = toks.iter().position(|(_, t)| *t == "Rank")?;
            let prev = i.checked_sub(1).map(|j| toks[j].1);
            (prev == Some("#") || (i == 0 && l.trim_start().starts_with('#')) || prev.is_some_and(|t| t.ends_with('#')))
                .then(|| toks.get(i + 1)?.1.parse::<u32>().ok())
                .flatten()
        })
        .max()
        .map(|r| u64::from(r) + 1)
}

/// nccl-tests' (and rccl-tests') bus factor as the file prints it: busbw /
/// algbw of its out-of-place row with the largest algbw (the most digits),
/// and that algbw (GB/s). `None` when no row has a nonzero algbw.
pub fn bus_ratio(text: &str) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None;
    let mut toks = Vec::new();
    for raw in text.lines() {
        tokens_into(raw, &mut toks);
        if toks.len() < 8 || !toks[0].1.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let rest = &toks[4..];
        let rest = if rest.len() == 9 || rest.len() == 5 { &rest[1..] } else { rest };
        let (Some(a), Some(b)) = (rest.get(1), rest.get(2)) else { continue };
        let (Ok(algbw), Ok(busbw)) = (a.1.parse::<f64>(), b.1.parse::<f64>()) else { continue };
        if algbw > 0.0 && algbw.is_finite() && busbw.is_finite() && best.is_none_or(|(_, a)| algbw > a) {
            best = Some((busbw / algbw, algbw));
        }
    }
    best
}

/// The ranks nccl-tests' bus factor `ratio` (busbw / algbw, read from a row
/// whose algbw is `algbw` GB/s printed to 2 decimals) means for
/// `collective`: allreduce's factor is 2(p − 1)/p, allgather's,
/// reduce-scatter's and all-to-all's (p − 1)/p. `None` for broadcast and
/// reduce (factor 1 at any p), a factor no p gives, or one the printed
/// digits cannot tell from the next p's.
pub fn ranks_from_bus(collective: crate::choose::Collective, ratio: f64, algbw: f64) -> Option<u32> {
    use crate::choose::Collective as C;
    // p as a function of the factor, and dp/df.
    let (p, slope) = match collective {
        C::Allreduce if ratio < 2.0 => (2.0 / (2.0 - ratio), 2.0 / (2.0 - ratio).powi(2)),
        C::Allgather | C::ReduceScatter | C::AllToAll if ratio < 1.0 => {
            (1.0 / (1.0 - ratio), 1.0 / (1.0 - ratio).powi(2))
        }
        _ => return None,
    };
    // Half a unit of the last printed digit on both numbers, carried to p.
    let digits = 0.005 / algbw * (1.0 + ratio);
    let rounded = p.round();
    let off = (p - rounded).abs();
    (rounded >= 1.0 && rounded <= f64::from(u32::MAX) && off <= 0.3 && slope * digits < 0.3).then_some(rounded as u32)
}

/// The collective nccl-tests or rccl-tests names in its output or command
/// line (`all_reduce_perf`, `Collective test starting: all_gather_perf`).
pub fn collective_named(text: &str) -> Option<crate::choose::Collective> {
    use crate::choose::Collective as C;
    const NAMES: [(&str, C); 6] = [
        ("all_reduce_perf", C::Allreduce),
        ("all_gather_perf", C::Allgather),
        ("reduce_scatter_perf", C::ReduceScatter),
        ("alltoall_perf", C::AllToAll),
        ("broadcast_perf", C::Broadcast),
        ("reduce_perf", C::Reduce),
    ];
    // `reduce_perf` is a suffix of the two others: the longest name that occurs wins.
    NAMES.iter().find(|(name, _)| text.contains(name)).map(|&(_, c)| c)
}

/// nccl-tests' (and rccl-tests') data rows of size 0 (rccl-tests prints
/// sizes below its type's width as 0): skipped by the reader, counted here.
pub fn zero_size_rows(text: &str, format: Format) -> usize {
    // OSU's size-0 latency is a measurement (a message's fixed cost): it is read.
    if format != Format::NcclTests {
        return 0;
    }
    let mut toks = Vec::new();
    text.lines()
        .filter(|raw| {
            tokens_into(raw, &mut toks);
            toks.len() >= 2 && toks[0].1 == "0" && toks[1].1.starts_with(|c: char| c.is_ascii_digit())
        })
        .count()
}

/// Reads `text` as `format`; `in_place` takes nccl-tests' in-place time.
/// Comment lines (`#`) and nccl-tests' and OSU's other lines (banners,
/// `NCCL INFO`, device lists) are skipped; a line that starts like a data
/// row but does not read is an error.
///
/// # Errors
/// A malformed data row (its line and column named), more than
/// [`MAX_LINES`] lines, or no data row at all.
pub fn parse(text: &str, format: Format, in_place: bool) -> Result<Vec<Point>, ParseError> {
    parse_run(text, format, in_place, 1).map(|(points, _)| points)
}

/// The runs of a file that holds several (nccl-tests or OSU outputs
/// concatenated): how many, and the lines each spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runs {
    /// First and last data line of each run (1-based).
    pub lines: Vec<(u32, u32)>,
}

impl Runs {
    /// How many runs.
    pub fn count(&self) -> usize {
        self.lines.len()
    }
}

/// Run `run` (1-based) of `text` read as `format`, and where every run is.
/// A run ends where the next one begins: in nccl-tests' and OSU's outputs a
/// data row whose size is not above the one before, or nccl-tests' banner
/// (`# nThread …`) after data rows. A CSV is one run.
///
/// # Errors
/// As [`parse`]; and a run that is not in the file (`run` 0 or over the count).
pub fn parse_run(text: &str, format: Format, in_place: bool, run: usize) -> Result<(Vec<Point>, Runs), ParseError> {
    let all = parse_all(text, format, in_place)?;
    let mut runs: Vec<Vec<Point>> = vec![Vec::new()];
    let mut banner_after_data = false;
    let mut next_banner = all.banners.iter().peekable();
    for p in all.points {
        while next_banner.peek().is_some_and(|&&b| b < p.line) {
            next_banner.next();
            banner_after_data = true;
        }
        let last = runs.last().and_then(|r| r.last()).map(|l: &Point| l.bytes);
        let new_run =
            format != Format::Csv && last.is_some() && (banner_after_data || last.is_some_and(|b| p.bytes <= b));
        if new_run {
            runs.push(Vec::new());
        }
        banner_after_data = false;
        if let Some(current) = runs.last_mut() {
            current.push(p);
        }
    }
    let lines = runs.iter().map(|r| (r.first().map_or(0, |p| p.line), r.last().map_or(0, |p| p.line))).collect();
    let count = runs.len();
    if run == 0 || run > count {
        return Err(err(1, 1, format!("run {run} is not in the file: it holds {count} (1 to {count})")));
    }
    Ok((runs.swap_remove(run - 1), Runs { lines }))
}

/// Every data row of `text`, and the lines of nccl-tests' banners (where a
/// run starts).
struct Read {
    points: Vec<Point>,
    banners: Vec<u32>,
}

fn parse_all(text: &str, format: Format, in_place: bool) -> Result<Read, ParseError> {
    let mut points = Vec::new();
    let mut banners = Vec::new();
    let mut toks = Vec::new();
    // OSU's bandwidth tests: bytes per µs (MB/s) in the second column, and
    // how many directions they count.
    let mut osu_bandwidth: Option<f64> = None;
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        if line > MAX_LINES {
            return Err(err(line, 1, format!("more than {MAX_LINES} lines")));
        }
        tokens_into(raw, &mut toks);
        let Some(&(c0, first)) = toks.first() else { continue };
        if first.starts_with('#') {
            if (format == Format::NcclTests && raw.contains("nThread"))
                || (format == Format::Osu && raw.contains("# OSU"))
            {
                banners.push(u32::try_from(line).unwrap_or(u32::MAX));
            }
            if format == Format::Osu && raw.contains("MB/s") {
                osu_bandwidth = Some(if text.contains("Bi-Directional") { 2.0 } else { 1.0 });
            } else if format == Format::Osu && raw.contains("Latency") {
                osu_bandwidth = None;
            }
            continue;
        }
        if !first.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        // A size of 0 (rccl-tests prints sizes below its type's width so):
        // no time per byte, and not the start of a new run ([`zero_size_rows`] counts them).
        if format == Format::NcclTests && first == "0" {
            continue;
        }
        match format {
            Format::NcclTests => {
                // size count type redop [root] time algbw busbw #wrong time algbw busbw #wrong
                if toks.len() < 8 {
                    return Err(err(
                        line,
                        c0,
                        "expected size, count, type, redop, [root,] time, algbw, busbw, #wrong…",
                    ));
                }
                let bytes = size_of(first, line, c0)?;
                let rest = &toks[4..];
                let rest = if rest.len() == 9 || rest.len() == 5 { &rest[1..] } else { rest };
                let at = if in_place { 4 } else { 0 };
                let Some(&(c, t)) = rest.get(at) else {
                    return Err(err(line, c0, "expected an in-place time after the out-of-place columns"));
                };
                points.push(Point { bytes, time: time_of(t, line, c)?, line: u32::try_from(line).unwrap_or(0) });
            }
            Format::Osu => {
                let bytes = size_of(first, line, c0)?;
                let Some(&(c, t)) = toks.get(1) else {
                    let what = if osu_bandwidth.is_some() { "bandwidth (MB/s)" } else { "average latency" };
                    return Err(err(line, c0 + first.len(), format!("expected the {what} after the size")));
                };
                let value = time_of(t, line, c)?;
                // MB/s are bytes per µs: one message takes bytes / bandwidth µs.
                let time = match osu_bandwidth {
                    Some(directions) if value > 0.0 => directions * bytes as f64 / value,
                    Some(_) => 0.0,
                    None => value,
                };
                points.push(Point { bytes, time, line: u32::try_from(line).unwrap_or(0) });
            }
            Format::Csv => {
                if toks.len() < 2 {
                    return Err(err(line, c0 + first.len(), "expected size, time"));
                }
                let bytes = size_of(first, line, c0)?;
                let (c, t) = toks[1];
                points.push(Point { bytes, time: time_of(t, line, c)?, line: u32::try_from(line).unwrap_or(0) });
            }
        }
    }
    if points.is_empty() {
        return Err(err(1, 1, format!("no {} data rows found", format.id())));
    }
    Ok(Read { points, banners })
}

/// A least-squares solution.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// The parameters.
    pub theta: Vec<f64>,
    /// Their standard errors (0 for one held at 0).
    pub err: Vec<f64>,
    /// Weighted residual sum of squares.
    pub rss: f64,
}

/// Solves `A x = b` for a small symmetric positive system (Gaussian
/// elimination with partial pivoting); `None` when singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let piv = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[piv][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, piv);
        b.swap(col, piv);
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            for k in col..n {
                a[row][k] -= f * a[col][k];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

fn inverse(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut cols = Vec::with_capacity(n);
    for j in 0..n {
        let e: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
        cols.push(solve(a.to_vec(), e)?);
    }
    Some((0..n).map(|i| (0..n).map(|j| cols[j][i]).collect()).collect())
}

/// Weighted least squares of `y ≈ X θ` with weights `w`, only the columns
/// in `free` fitted (the others held at 0); columns are scaled to unit
/// norm before solving.
fn fit_subset<R: AsRef<[f64]>>(x: &[R], y: &[f64], w: &[f64], free: &[usize]) -> Option<Solution> {
    let k = x.first()?.as_ref().len();
    let m = free.len();
    let scale: Vec<f64> = free
        .iter()
        .map(|&j| x.iter().zip(w).map(|(r, wi)| wi * r.as_ref()[j] * r.as_ref()[j]).sum::<f64>().sqrt().max(1e-300))
        .collect();
    let mut ata = vec![vec![0.0; m]; m];
    let mut atb = vec![0.0; m];
    for ((row, &yi), &wi) in x.iter().zip(y).zip(w) {
        let row = row.as_ref();
        for a in 0..m {
            let xa = row[free[a]] / scale[a];
            atb[a] += wi * xa * yi;
            for b in 0..m {
                ata[a][b] += wi * xa * row[free[b]] / scale[b];
            }
        }
    }
    let z = solve(ata.clone(), atb)?;
    let mut theta = vec![0.0; k];
    for (a, &j) in free.iter().enumerate() {
        theta[j] = z[a] / scale[a];
    }
    let rss: f64 = x
        .iter()
        .zip(y)
        .zip(w)
        .map(|((row, &yi), &wi)| {
            let r = yi - row.as_ref().iter().zip(&theta).map(|(a, b)| a * b).sum::<f64>();
            wi * r * r
        })
        .sum();
    let dof = y.len().saturating_sub(m).max(1);
    #[allow(clippy::cast_precision_loss, reason = "point counts are small")]
    let sigma2 = rss / dof as f64;
    let inv = inverse(&ata)?;
    let mut err = vec![0.0; k];
    for (a, &j) in free.iter().enumerate() {
        err[j] = (sigma2 * inv[a][a]).max(0.0).sqrt() / scale[a];
    }
    Some(Solution { theta, err, rss })
}

/// Non-negative weighted least squares of `y ≈ X θ` (every subset of free
/// columns tried, the best non-negative one kept; `X` has at most a few
/// columns). Weights are `1/y²` (relative residuals).
pub fn least_squares<R: AsRef<[f64]>>(x: &[R], y: &[f64]) -> Option<Solution> {
    let k = x.first()?.as_ref().len();
    if k == 0 || k > 8 || x.len() != y.len() {
        return None;
    }
    let w: Vec<f64> = y.iter().map(|&t| if t > 0.0 { 1.0 / (t * t) } else { 0.0 }).collect();
    let mut best: Option<Solution> = None;
    for mask in (1u32..(1 << k)).rev() {
        let free: Vec<usize> = (0..k).filter(|j| mask & (1 << j) != 0).collect();
        if free.len() > y.len() {
            continue;
        }
        let Some(s) = fit_subset(x, y, &w, &free) else { continue };
        if s.theta.iter().any(|&v| v < 0.0) {
            continue;
        }
        if best.as_ref().is_none_or(|b| s.rss < b.rss * (1.0 - 1e-12)) {
            best = Some(s);
        }
    }
    best
}

#[cfg(test)]
mod ranks_from_output_tests {
    use super::{bus_ratio, collective_named, ranks_from_bus, zero_size_rows, Format};
    use crate::choose::Collective;

    /// p from the bus factor, by the closed forms 2(p − 1)/p and (p − 1)/p,
    /// for every p up to 64 at nccl-tests' two decimals on a 300 GB/s row;
    /// refused where two decimals cannot tell p from p + 1.
    #[test]
    fn bus_factor_gives_p() {
        for p in 2..=64u32 {
            let algbw = 300.0;
            let two = |x: f64| (x * 100.0).round() / 100.0;
            let ar = two(algbw * 2.0 * f64::from(p - 1) / f64::from(p));
            assert_eq!(ranks_from_bus(Collective::Allreduce, ar / algbw, algbw), Some(p), "allreduce p = {p}");
            let ag = two(algbw * f64::from(p - 1) / f64::from(p));
            assert_eq!(ranks_from_bus(Collective::Allgather, ag / algbw, algbw), Some(p), "allgather p = {p}");
        }
        // At 0.05 GB/s two decimals say little: refused rather than guessed.
        assert_eq!(ranks_from_bus(Collective::Allreduce, 0.09 / 0.05, 0.05), None);
        assert_eq!(ranks_from_bus(Collective::Broadcast, 1.0, 300.0), None);
        assert_eq!(ranks_from_bus(Collective::Allgather, 1.2, 300.0), None);
    }

    #[test]
    fn rows_names_and_zero_sizes() {
        let text = "# Collective test starting: all_gather_perf\n           0             0     float    none      -1     0.09    0.00    0.00      0     0.08    0.00    0.00    N/A\n    1048576        262144     float    none      -1    50.00   20.97   19.66      0    50.00   20.97   19.66    N/A\n  268435456      67108864     float    none      -1  1000.00  268.44  251.66      0  1000.00  268.44  251.66    N/A\n";
        let (ratio, algbw) = bus_ratio(text).unwrap();
        assert!((algbw - 268.44).abs() < 1e-12);
        assert!((ratio - 251.66 / 268.44).abs() < 1e-12);
        assert_eq!(ranks_from_bus(Collective::Allgather, ratio, algbw), Some(16));
        assert_eq!(collective_named(text), Some(Collective::Allgather));
        assert_eq!(collective_named("/build/all_reduce_perf -b 8"), Some(Collective::Allreduce));
        assert_eq!(collective_named("./reduce_perf"), Some(Collective::Reduce));
        assert_eq!(collective_named("reduce_scatter_perf"), Some(Collective::ReduceScatter));
        assert_eq!(zero_size_rows(text, Format::NcclTests), 1);
        let points = super::parse(text, Format::NcclTests, false).unwrap();
        assert_eq!(points.iter().map(|p| p.bytes).collect::<Vec<_>>(), vec![1_048_576, 268_435_456]);
    }
}

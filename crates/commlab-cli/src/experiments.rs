//! `commlab sweep` and `commlab figures`: barrier experiment grids, run on
//! every core, with a progress bar on stderr.

use crate::reduce::ArgError;
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::{Encoding, Numbering};
use commlab_core::barrier::engine::Scenario;
use commlab_core::barrier::experiment::{
    aggregate, csv_row, delay_claims, paper_grids, points_csv, range_claim, run_one, scenarios, uq_claim, Claim, Grid,
    Row, RunSummary, CSV_HEADER, RANGE_ALGORITHMS,
};
use commlab_core::barrier::mesh::{Mesh, Routing};
use commlab_core::barrier::uq::{round_changes, LinkSetDefinition, UqExperiment};
use commlab_plot::barrier::{delay_range, delay_vs_nodes, round_figure, uq_histogram};
use commlab_plot::{render_svg, Theme};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn list<T: std::str::FromStr>(text: &str, flag: &str) -> Result<Vec<T>, ArgError>
where
    T::Err: std::fmt::Display,
{
    text.split(',').map(|s| s.trim().parse::<T>().map_err(|e| (flag.to_owned(), format!("{s:?}: {e}")))).collect()
}

/// Runs the scenarios on all cores (in order of the input), drawing a progress bar on stderr.
pub fn run_all(label: &str, list: &[Scenario]) -> Vec<Row> {
    let done = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get).max(1);
    let next = AtomicUsize::new(0);
    let mut rows: Vec<Option<Row>> = vec![None; list.len()];
    let results = std::sync::Mutex::new(&mut rows);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= list.len() {
                    break;
                }
                let row = run_one(&list[i]);
                results.lock().expect("no worker panics")[i] = Some(row);
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                // Redraw only when the percentage moves.
                if d * 100 / list.len() == (d - 1) * 100 / list.len() && d != list.len() {
                    continue;
                }
                let width = 30;
                let filled = d * width / list.len().max(1);
                let mut err = std::io::stderr().lock();
                let _ =
                    write!(err, "\r{label} [{}{}] {d}/{}", "#".repeat(filled), " ".repeat(width - filled), list.len());
                let _ = err.flush();
            });
        }
    });
    eprintln!();
    rows.into_iter().map(|r| r.expect("every run finished")).collect()
}

/// `commlab sweep`.
#[derive(clap::Args)]
pub struct SweepCommand {
    /// Comma-separated algorithm ids (default: all fifteen).
    #[arg(long)]
    algorithms: Option<String>,
    /// Comma-separated mesh sides.
    #[arg(long, default_value = "4,8,16")]
    sizes: String,
    /// Comma-separated break rates.
    #[arg(long, default_value = "0,0.1,0.2")]
    rates: String,
    /// Seeds per point.
    #[arg(long, default_value_t = 5)]
    seeds: u64,
    /// Barriers per run.
    #[arg(long, default_value_t = 3)]
    barriers: u32,
    /// Encoding.
    #[arg(long, default_value = "s-curve")]
    encoding: Encoding,
    /// Routing around broken links: paper or shortest.
    #[arg(long, default_value = "paper")]
    routing: Routing,
    /// Output CSV file (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run only the K-th of N disjoint slices of the grid (`3/8`): run index
    /// `i` belongs to shard `i mod N + 1`. The output keeps each run's index;
    /// `commlab merge` joins the N outputs into the single-run CSV.
    #[arg(long)]
    shard: Option<Shard>,
}

/// `K/N`: the K-th (from 1) of N shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    k: usize,
    n: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("{s:?}: expected K/N with 1 ≤ K ≤ N ≤ 100000 (e.g. 2/8)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if k == 0 || k > n || n > 100_000 {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

/// First line of a shard's output: which shard, of how many runs, of which grid.
fn shard_line(shard: Shard, runs: usize, grid: &str) -> String {
    format!("# commlab sweep shard {}/{} of {runs} runs; grid {grid}", shard.k, shard.n)
}

/// What identifies a sweep's grid across shards (its arguments, not the shard or output).
fn grid_text(c: &SweepCommand) -> String {
    format!(
        "algorithms={} sizes={} rates={} seeds={} barriers={} encoding={} routing={}",
        c.algorithms.as_deref().unwrap_or("all"),
        c.sizes,
        c.rates,
        c.seeds,
        c.barriers,
        c.encoding.id(),
        c.routing
    )
}

impl SweepCommand {
    /// Runs the sweep and writes the CSV.
    ///
    /// # Errors
    /// The argument at fault, or an unwritable file.
    pub fn run(&self) -> Result<Value, ArgError> {
        let algorithms = match &self.algorithms {
            Some(text) => list::<Algorithm>(text, "--algorithms")?,
            None => Algorithm::ALL.to_vec(),
        };
        let grid = Grid {
            algorithms,
            sizes: list(&self.sizes, "--sizes")?,
            rates: list(&self.rates, "--rates")?,
            seeds: self.seeds,
            base: Scenario {
                barriers: self.barriers,
                encoding: self.encoding,
                routing: self.routing,
                ..Scenario::default()
            },
        };
        let list = scenarios(&grid)
            .map_err(|e| (crate::flag_of(e.name), format!("{} is out of range: expected {}", e.value, e.expected)))?;
        let (csv, rows) = match self.shard {
            None => {
                let rows = run_all("sweep", &list);
                let mut csv = String::from(CSV_HEADER);
                csv.push('\n');
                for row in &rows {
                    csv.push_str(&csv_row(row));
                    csv.push('\n');
                }
                (csv, rows)
            }
            Some(shard) => {
                let mine: Vec<usize> = (shard.k - 1..list.len()).step_by(shard.n).collect();
                let part: Vec<Scenario> = mine.iter().map(|&i| list[i].clone()).collect();
                let rows = run_all(&format!("sweep {}/{}", shard.k, shard.n), &part);
                let mut csv = shard_line(shard, list.len(), &grid_text(self));
                let _ = write!(csv, "\nindex,{CSV_HEADER}\n");
                for (i, row) in mine.iter().zip(&rows) {
                    let _ = writeln!(csv, "{i},{}", csv_row(row));
                }
                (csv, rows)
            }
        };
        let Some(path) = &self.out else {
            // The CSV is the output; nothing else goes to standard output.
            crate::out(&csv);
            return Ok(Value::Null);
        };
        std::fs::write(path, &csv)
            .map_err(|e| ("--out".to_owned(), format!("cannot write {}: {e}", path.display())))?;
        Ok(
            json!({ "runs": rows.len(), "unsafe": rows.iter().filter(|r| !r.report.safe).count(), "out": self.out.as_ref().map(|p| p.display().to_string()) }),
        )
    }
}

/// `commlab merge`.
#[derive(clap::Args)]
pub struct MergeCommand {
    /// The outputs of `commlab sweep --shard K/N`, one per shard, any order.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Output CSV file (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
}

impl MergeCommand {
    /// Joins the shards into the CSV the unsharded sweep writes, checking
    /// that they are the N shards of one grid, each once, with every run.
    ///
    /// # Errors
    /// A missing, repeated or foreign shard, a missing or repeated run, an
    /// unreadable file.
    pub fn run(&self) -> Result<Value, ArgError> {
        let bad = |msg: String| ("shards".to_owned(), msg);
        let mut grid: Option<(usize, usize, String)> = None;
        let mut seen_shards = std::collections::BTreeSet::new();
        let mut rows: Vec<Option<String>> = Vec::new();
        for path in &self.shards {
            let name = path.display();
            let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read {name}: {e}")))?;
            let mut lines = text.lines();
            let first = lines.next().unwrap_or_default();
            let parsed = first.strip_prefix("# commlab sweep shard ").and_then(|rest| {
                let (kn, rest) = rest.split_once(" of ")?;
                let (runs, grid) = rest.split_once(" runs; grid ")?;
                let shard: Shard = kn.parse().ok()?;
                Some((shard, runs.parse::<usize>().ok()?, grid.to_owned()))
            });
            let Some((shard, runs, this_grid)) = parsed else {
                return Err(bad(format!("{name} is not the output of `commlab sweep --shard K/N`")));
            };
            match &grid {
                None => {
                    grid = Some((shard.n, runs, this_grid));
                    rows = vec![None; runs];
                }
                Some((n, r, g)) if *n == shard.n && *r == runs && *g == this_grid => {}
                Some((n, r, g)) => {
                    return Err(bad(format!(
                    "{name} is shard {}/{} of {runs} runs ({this_grid}), the others are of {n} shards, {r} runs ({g})",
                    shard.k, shard.n
                )))
                }
            }
            if !seen_shards.insert(shard.k) {
                return Err(bad(format!("shard {}/{} is given twice ({name})", shard.k, shard.n)));
            }
            if lines.next() != Some(&format!("index,{CSV_HEADER}")) {
                return Err(bad(format!("{name}: the second line is not the shard's column header")));
            }
            for line in lines {
                let (index, row) = line.split_once(',').ok_or_else(|| bad(format!("{name}: a line without index")))?;
                let index: usize = index.parse().map_err(|_| bad(format!("{name}: bad index {index:?}")))?;
                let slot = rows.get_mut(index).ok_or_else(|| bad(format!("{name}: index {index} out of range")))?;
                if slot.replace(row.to_owned()).is_some() {
                    return Err(bad(format!("{name}: run {index} appears twice")));
                }
            }
        }
        let (n, runs, _) = grid.unwrap_or_default();
        let missing: Vec<usize> = (1..=n).filter(|k| !seen_shards.contains(k)).collect();
        if !missing.is_empty() {
            return Err(bad(format!("missing shard(s) {missing:?} of {n}")));
        }
        if let Some(i) = rows.iter().position(Option::is_none) {
            return Err(bad(format!("run {i} is in no shard")));
        }
        let mut csv = String::from(CSV_HEADER);
        csv.push('\n');
        for row in rows.into_iter().flatten() {
            csv.push_str(&row);
            csv.push('\n');
        }
        match &self.out {
            None => {
                crate::out(&csv);
                Ok(Value::Null)
            }
            Some(path) => {
                std::fs::write(path, &csv)
                    .map_err(|e| ("--out".to_owned(), format!("cannot write {}: {e}", path.display())))?;
                Ok(json!({ "runs": runs, "shards": n, "out": path.display().to_string() }))
            }
        }
    }
}

/// `commlab figures`.
#[derive(clap::Args)]
pub struct FiguresCommand {
    /// Directory for the SVG and CSV files (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Seeds per point.
    #[arg(long, default_value_t = 3)]
    seeds: u64,
    /// Routing around broken links: paper (the default) or shortest. Run
    /// once with each to write both sets.
    #[arg(long, default_value = "paper")]
    routing: Routing,
}

fn write(dir: &Path, name: &str, text: &str) -> Result<(), ArgError> {
    std::fs::write(dir.join(name), text).map_err(|e| ("--out".to_owned(), format!("cannot write {name}: {e}")))
}

impl FiguresCommand {
    /// Writes every figure.
    ///
    /// # Errors
    /// An unwritable directory.
    pub fn run(&self) -> Result<Value, ArgError> {
        std::fs::create_dir_all(&self.out)
            .map_err(|e| ("--out".to_owned(), format!("cannot create {}: {e}", self.out.display())))?;
        let theme = Theme::LIGHT;
        let svg_err = |e: commlab_plot::PlotError| ("--out".to_owned(), e.to_string());
        let base = Scenario { barriers: 3, routing: self.routing, ..Scenario::default() };
        let mut files = Vec::new();

        // 1. Delay vs nodes for every algorithm at 0, 10, 20 %; 2. the delay range over 0–50 %.
        let (list, range_list) =
            paper_grids(self.seeds, 32, &base).map_err(|e| ("--seeds".to_owned(), e.to_string()))?;
        let rows = run_all("delay vs nodes", &list);
        let points = aggregate(&rows.iter().map(RunSummary::from).collect::<Vec<_>>());
        write(&self.out, "delay-vs-nodes.csv", &points_csv(&points))?;
        for rate in [0.0, 0.1, 0.2] {
            let name = format!("delay-vs-nodes-{:02}.svg", (rate * 100.0_f64).round() as u32);
            let svg = render_svg(900, 560, |root| delay_vs_nodes(root, &points, rate, &theme)).map_err(svg_err)?;
            write(&self.out, &name, &svg)?;
            files.push(name);
        }

        let range_algorithms = RANGE_ALGORITHMS;
        let list = range_list;
        let range_points = aggregate(&run_all("delay range", &list).iter().map(RunSummary::from).collect::<Vec<_>>());
        write(&self.out, "delay-range.csv", &points_csv(&range_points))?;
        let svg = render_svg(900, 560, |root| delay_range(root, &range_points, &range_algorithms, &theme))
            .map_err(svg_err)?;
        write(&self.out, "delay-range.svg", &svg)?;

        // 3. The UQ histogram on the 4 × 4 mesh.
        let uq = UqExperiment::run(4, Encoding::SCurve, LinkSetDefinition::default())
            .map_err(|e| ("--out".to_owned(), e.to_string()))?;
        let diffs = uq.lct_minus_bst();
        let (lct_mean, bst_mean) = (UqExperiment::mean(&uq.lct), UqExperiment::mean(&uq.bst));
        write(&self.out, "uq-histogram.svg", &uq_histogram(&diffs, lct_mean, bst_mean, 900.0, &theme))?;
        let mut csv = String::from("k1,k2,uq_lct,uq_bst,lct_minus_bst\n");
        for (i, d) in diffs.iter().enumerate() {
            let _ = writeln!(csv, "{},{},{},{},{d}", i / 16, i % 16, uq.lct[i], uq.bst[i]);
        }
        write(&self.out, "uq-histogram.csv", &csv)?;

        // 4. The round(1) worked example.
        let (svg, csv) = worked_example(&theme);
        write(&self.out, "round1-example.svg", &svg)?;
        write(&self.out, "round1-example.csv", &csv)?;
        files.extend(["delay-range.svg", "uq-histogram.svg", "round1-example.svg"].map(String::from));
        Ok(json!({
            "out": self.out.display().to_string(),
            "routing": self.routing.id(),
            "figures": files,
            "runs": rows.len() + list.len(),
            "uq_lct_mean": lct_mean,
            "uq_paper_lct_mean": commlab_core::barrier::uq::PAPER_LCT_MEAN,
            "uq_bst_mean": bst_mean,
            "uq_lct_greater": diffs.iter().filter(|&&d| d > 1e-12).count(),
            "uq_bst_greater": diffs.iter().filter(|&&d| d < -1e-12).count(),
            "claims": delay_claims(&points)
                .into_iter()
                .chain([range_claim(&range_points), uq_claim(&diffs)])
                .map(|c: Claim| json!({"paper": c.paper, "measured": c.measured, "agrees": c.agrees, "verdict": c.verdict.words()}))
                .collect::<Vec<_>>(),
        }))
    }
}

/// LCT and BST on the 4 × 4 S-curve mesh, before and after `round(1)`.
fn worked_example(theme: &Theme) -> (String, String) {
    let mesh = Mesh::new(4).expect("4 is a valid side");
    let num = Numbering::of_mesh(&mesh, Encoding::SCurve).expect("s-curve fits any side");
    let changes = round_changes(&mesh, &num, 1, LinkSetDefinition::default());
    let mut csv = String::from("structure,intersection,union,uq\n");
    for c in &changes {
        let _ = writeln!(csv, "{},{},{},{}", c.name, c.both, c.either, c.uq);
    }
    // The paper's numbers beside ours (it gives no BST counts).
    for (name, counts, uq) in commlab_core::barrier::uq::PAPER_ROUND1 {
        let (both, either) = counts.map_or((String::new(), String::new()), |(b, e)| (b.to_string(), e.to_string()));
        let _ = writeln!(csv, "{name} (paper),{both},{either},{uq}");
    }
    (round_figure(&mesh, &num, (1, 900.0), &changes, theme), csv)
}

//! The sources side by side: every headline number of the three source
//! documents (the binomial-tree article, the DLCT barrier paper, the catccos
//! CommSwizzle note) next to what commlab computes, with the reason for any
//! difference and a link (a query string) that opens the worked example.
//!
//! One list serves the app's Sources page (`sources.html`, written by
//! [`html`] and served beside the app: static text costs the UI bundle no
//! bytes), `commlab sources` and the README's "Sources" section. Tests
//! compare both files with what this module writes now. The delay claims are
//! measured by a fixed seeded sweep under both routing rules ([`CLAIMS_SWEEP`]);
//! their rows open the same sweep in the lab.

use crate::lab::LabRequest;
use commlab_core::barrier::encoding::{Encoding, Numbering, Structure};
use commlab_core::barrier::engine::Scenario;
use commlab_core::barrier::experiment::{
    aggregate, claim_grids, delay_claims, range_claim, run_one, Claim, RunSummary, Verdict,
};
use commlab_core::barrier::mesh::{Mesh, Routing};
use commlab_core::barrier::uq::{
    all_conversions, paper_means, round_changes, LinkSetDefinition, PAPER_LCT_MEAN, PAPER_ROUND1,
};
use commlab_core::model::{ModelConfig, Optimum};
use commlab_core::reduce::timing::{time, Costs};
use commlab_core::reduce::values::{ValueTrace, Vectors};
use commlab_core::reduce::{Collective, CollectiveConfig, Operator, Schedule};
use commlab_core::swizzle::{get_coord, CoreSplit, GridShape, Schedule as SwizzleSchedule, SwizzleConfig};
use commlab_plot::svg::escape;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One source number beside ours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRow {
    /// Which document.
    pub source: String,
    /// What is claimed or computed.
    pub item: String,
    /// The source's number or statement.
    pub theirs: String,
    /// commlab's number.
    pub ours: String,
    /// `same`, `differs` or `lab` (measured by a sweep in the Barrier lab).
    pub verdict: String,
    /// Why they differ (or how we checked that they agree).
    pub why: String,
    /// The query string that opens the example (`v=N&view=…`, N the [`crate::LINK_VERSION`]).
    pub link: String,
}

/// A worked example as a link: label and query string (without `v=`, which
/// the page and the rows put first).
pub const PRESETS: [(&str, &str); 7] = [
    ("Binomial article: reduction on p = 8", "view=tree&p=8"),
    ("Binomial article: pipelined T(n, p, m) and m*", "view=model"),
    ("Barrier paper: round(1) on the 4 × 4 S-curve mesh", "view=mesh&size=4&rate=0"),
    ("Barrier paper: UQ of all 256 conversions, delay figures", "view=lab"),
    (
        "catccos: worked table, grid (2, 2, 4), cores (2, 2)",
        "view=swizzle&rows=2&cols=2&ranks=4&core_rows=2&core_cols=2",
    ),
    (
        "catccos: 12 cores on 4 × 4 × 4, with and without deterministic mode",
        "view=swizzle&rows=4&cols=4&ranks=4&core_rows=3&core_cols=4&compare=deterministic",
    ),
    ("Barrier paper: the delay claims under both routing rules", "view=lab&seeds=3&max_size=16"),
];

const ARTICLE: &str = "Binomial-tree article";
const PAPER: &str = "DLCT barrier paper";
const CATCCOS: &str = "catccos CommSwizzle note";

fn row(source: &str, item: &str, theirs: String, ours: String, verdict: &str, why: &str, link: &str) -> SourceRow {
    SourceRow {
        source: source.to_owned(),
        item: item.to_owned(),
        theirs,
        ours,
        verdict: verdict.to_owned(),
        why: why.to_owned(),
        link: if link.starts_with("v=") { link.to_owned() } else { format!("v={}&{link}", crate::LINK_VERSION) },
    }
}

/// Every row, computed now (a few milliseconds: 4 × 4 meshes, small schedules).
///
/// # Panics
/// Never: every configuration here is a fixed, valid one.
pub fn rows() -> Vec<SourceRow> {
    let mut out = article_rows();
    out.extend(paper_rows());
    out.extend(catccos_rows());
    out
}

/// The binomial-tree article: the reduction on p = 8 and the pipelined model.
fn article_rows() -> Vec<SourceRow> {
    let mut out = Vec::new();
    // The article's PRAM reduction on p = 8, inputs 1 … 8.
    let schedule = Schedule::collective(&CollectiveConfig::new(Collective::Reduce, 8, false).expect("valid"));
    let inputs = Vectors::Int((1..=8).collect());
    let trace = ValueTrace::new(&schedule, Operator::Sum, 1, &inputs);
    let root = trace.vector_text(&trace.after(trace.round_count()), 0).join(",");
    out.push(row(
        &format!("{ARTICLE}: PRAM binomial-tree reduction and its p = 8 picture"),
        "Binomial-tree reduction, p = 8",
        "ceil(log2 8) = 3 steps; p0 ends with v0 ⊕ … ⊕ v7".into(),
        format!(
            "{} steps, {} messages; p0 ends with {root} for inputs 1 … 8",
            schedule.rounds.len(),
            schedule.message_count()
        ),
        "same",
        "Replayed value by value; the tests also check the operand order with a non-commutative ⊕.",
        PRESETS[0].1,
    ));

    // The pipelined reduction at the playground's defaults.
    let model = ModelConfig::new(1 << 20, 64, 10.0, 0.001, 1024).expect("valid");
    let summary = model.summary();
    let m_star = match summary.optimum {
        Optimum::Interior(m) => m,
        _ => f64::NAN,
    };
    let m_best = summary.best_pieces;
    let costs = Costs::new(1 << 20, 10.0, 0.001).expect("valid");
    let simulated = time(&Schedule::pipeline(64, m_best).expect("valid"), &costs).finish;
    out.push(row(
        &format!("{ARTICLE}: pipelined reduction, BSP runtime model"),
        "Pipelined reduction, n = 1 MiB, p = 64, T_start = 10, T_byte = 0.001",
        "T(n,p,m) = (T_start + n/m·T_byte)(p + m − 2); m* = √(n(p − 2)·T_byte / T_start)".into(),
        format!(
            "m* = {m_star:.2}; best integer m = {m_best}, T = {:.2}; the event simulation of the schedule gives {simulated:.2}",
            summary.time_at_best
        ),
        "same",
        "The closed form and an event-level simulation of the chain agree; m_best is searched in 1..=n, not only up to the chart's max pieces.",
        PRESETS[1].1,
    ));
    out
}

/// The DLCT barrier paper: the worked example, the UQ experiment, the delay claims.
fn paper_rows() -> Vec<SourceRow> {
    let mut out = Vec::new();
    // The barrier paper's round(1) worked example.
    let mesh = Mesh::new(4).expect("valid");
    let numbering = Numbering::of_mesh(&mesh, Encoding::SCurve).expect("valid");
    let changes = round_changes(&mesh, &numbering, 1, LinkSetDefinition::default());
    let (lct_change, bst_change) = (&changes[0], &changes[1]);
    let (paper_lct, paper_bst) = (PAPER_ROUND1[0], PAPER_ROUND1[1]);
    let (kept, union) = paper_lct.1.unwrap_or((0, 0));
    out.push(row(
        &format!("{PAPER}: worked example of round(1)"),
        "round(1) on 4 × 4, S-curve: UQ of LCT and BST",
        format!("LCT {:.1} % ({kept} of {union} links kept), BST {:.1} %", paper_lct.2 * 100.0, paper_bst.2 * 100.0),
        format!(
            "LCT {:.1} % ({} of {}), BST {:.1} % ({} of {}), directed Gather links",
            lct_change.uq * 100.0,
            lct_change.both,
            lct_change.either,
            bst_change.uq * 100.0,
            bst_change.both,
            bst_change.either
        ),
        "differs",
        "The paper's 26 exceeds the 24 undirected links of a 4 × 4 mesh, so it does not count undirected links; it does not say what it counts, and none of our four link sets gives 7 of 26. Ours is recounted by hand in the tests.",
        PRESETS[2].1,
    ));

    // The UQ experiment's mean.
    let means = paper_means();
    let listed: Vec<String> =
        means.iter().map(|(d, with, without)| format!("{} {with:.3} / {without:.3}", d.id())).collect();
    out.push(row(
        &format!("{PAPER}: UQ experiment, all conversions of 4 × 4"),
        "Mean UQ(LCT) over the 256 conversions of 4 × 4",
        format!("{PAPER_LCT_MEAN}"),
        format!(
            "{:.3} with the 16 identity conversions, {:.3} without (directed Gather links)",
            means[0].1, means[0].2
        ),
        "differs",
        &format!(
            "With / without the identities under every link set: {}. No definition we tried gives {PAPER_LCT_MEAN}.",
            listed.join(", ")
        ),
        PRESETS[3].1,
    ));

    // The histogram's majority.
    let lct_all = all_conversions(&mesh, &numbering, Structure::Lct, LinkSetDefinition::default());
    let bst_all = all_conversions(&mesh, &numbering, Structure::Bst, LinkSetDefinition::default());
    let diffs: Vec<f64> = lct_all.iter().zip(&bst_all).map(|(a, b)| a - b).collect();
    let larger = diffs.iter().filter(|&&d| d > 1e-12).count();
    let smaller = diffs.iter().filter(|&&d| d < -1e-12).count();
    out.push(row(
        &format!("{PAPER}: UQ experiment, histogram of UQ(LCT) − UQ(BST)"),
        "UQ(LCT) − UQ(BST) over the 256 conversions",
        "LCT's update quantity is larger in the great majority of conversions".into(),
        format!(
            "LCT larger in {larger}, BST larger in {smaller}, equal in {} ({:.0} % LCT)",
            diffs.len() - larger - smaller,
            100.0 * larger as f64 / diffs.len() as f64
        ),
        "differs",
        "Under our documented model (directed Gather links, routes on the intact mesh) LCT is larger in about half the conversions; the 16 equal ones are the identity conversions.",
        PRESETS[3].1,
    ));

    out.extend(claim_rows());
    out
}

/// The sweep behind the Sources page's delay claims: the lab's with 3 seeds up
/// to 16 × 16, only the runs the claims need (Tree, ID1, ID2), under each rule.
pub const CLAIMS_SWEEP: LabRequest = LabRequest { seeds: 3, max_size: 16, barriers: 3, routing: Routing::Paper };

/// The paper's three delay claims, each under both routing rules, from
/// [`CLAIMS_SWEEP`] (about 400 runs of the tree forms on meshes up to 16 × 16).
fn claim_rows() -> Vec<SourceRow> {
    let sweep = CLAIMS_SWEEP;
    let under = |routing: Routing| {
        let base = Scenario { barriers: sweep.barriers as u32, routing, ..Scenario::default() };
        let (delay, range) = claim_grids(sweep.seeds, sweep.max_size, &base).expect("a valid sweep");
        let points =
            |runs: &[Scenario]| aggregate(&runs.iter().map(|s| RunSummary::from(&run_one(s))).collect::<Vec<_>>());
        let (delay, range) = (points(&delay), points(&range));
        let mut claims = delay_claims(&delay);
        claims.push(range_claim(&range));
        claims
    };
    let (paper, shortest) = (under(Routing::Paper), under(Routing::Shortest));
    let word = |c: &Claim| match c.verdict {
        Verdict::Agrees => "holds",
        Verdict::Disagrees => "fails",
        Verdict::WithinNoise => "is within the seeds' noise",
        Verdict::Pending => "is not measured",
    };
    let link = |routing: Routing| {
        format!(
            "v={}&view=lab&seeds={}&max_size={}{}",
            crate::LINK_VERSION,
            sweep.seeds,
            sweep.max_size,
            match routing {
                Routing::Paper => "",
                Routing::Shortest => "&routing=shortest",
            }
        )
    };
    let items = [
        ("ID1 (DLCT+MS) and ID2 (DLCT+Tree) against Tree with intact links", "close to Tree"),
        ("ID1 and ID2 against Tree at 10 % broken links", "30–50 % faster"),
        ("ID1 and ID2 against Tree at 20 % broken links", "30–50 % faster"),
        ("Tree's delay as links break (range over 0–50 %), against ID1 and ID2", "grows fastest"),
    ];
    items
        .iter()
        .zip(paper.iter().zip(&shortest))
        .enumerate()
        .map(|(i, (&(item, theirs), (p, s)))| {
            let both = p.agrees == Some(true) && s.agrees == Some(true);
            let intact = if i == 0 { " With no broken link both rules take the same routes, so the numbers are equal." } else { "" };
            let why = format!(
                "The claim {} under routing=paper (the paper's rule: closest unvisited neighbour, a step back at a dead end) and {} under routing=shortest (greedy, then a shortest path from a dead end). A seeded sweep of {} seeds per point on meshes up to {} × {}, breaks that keep the mesh connected; the Barrier lab runs the same and more (open it under routing=shortest with {}).{intact}",
                word(p),
                word(s),
                sweep.seeds,
                sweep.max_size,
                sweep.max_size,
                link(Routing::Shortest),
            );
            row(
                &format!("{PAPER}: delay figures (vs nodes at 0, 10, 20 %; range over 0–50 %)"),
                item,
                theirs.into(),
                format!("Under routing=paper: {} Under routing=shortest: {}", p.measured, s.measured),
                if both { "same" } else { "differs" },
                &why,
                &link(Routing::Paper),
            )
        })
        .collect()
}

/// The catccos note: the worked table and the deterministic example.
fn catccos_rows() -> Vec<SourceRow> {
    let mut out = Vec::new();
    // The catccos worked table.
    let config =
        SwizzleConfig::new(GridShape { row: 2, column: 2, rank: 4 }, CoreSplit { row: 2, column: 2 }, 0, false, true)
            .expect("valid");
    let coords: Vec<String> = (0..4)
        .filter_map(|i| get_coord(&config, i))
        .map(|c| format!("({}, {}, {})", c.row, c.column, c.rank))
        .collect();
    out.push(row(
        &format!("{CATCCOS}: GetCoord, worked table"),
        "GetCoord, grid (2, 2, 4), cores (2, 2), loop indices 0 … 3",
        "(0, 0, 0), (0, 1, 1), (0, 0, 2), (0, 1, 3)".into(),
        coords.join(", "),
        "same",
        "The tests compare get_coord with a second, literal transcription of the note's steps on every small configuration.",
        PRESETS[4].1,
    ));

    // 12 cores on 4 × 4 × 4.
    let steps = |deterministic: bool| {
        let c = SwizzleConfig::new(
            GridShape { row: 4, column: 4, rank: 4 },
            CoreSplit { row: 3, column: 4 },
            0,
            deterministic,
            true,
        )
        .expect("valid");
        SwizzleSchedule::new(&c).steps()
    };
    out.push(row(
        &format!("{CATCCOS}: deterministic mode"),
        "12 cores on a 4 × 4 × 4 grid, steps without and with deterministic mode",
        "6 steps, 8 with deterministic mode".into(),
        format!("{} steps, {} with deterministic mode", steps(false), steps(true)),
        "same",
        "Deterministic mode rounds the 16 data rows up to 24 (a multiple of 12 cores): 96 loop indices, 12 a step.",
        PRESETS[5].1,
    ));
    out
}

/// The rows as a Markdown table (the README's "Sources" section).
pub fn markdown(rows: &[SourceRow]) -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = String::from(
        "| source, where it appears | item | theirs | ours | verdict | why |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&r.source),
            cell(&r.item),
            cell(&r.theirs),
            cell(&r.ours),
            cell(&r.verdict),
            cell(&r.why)
        );
    }
    out
}

/// The rows as the app's Sources page: a static HTML document whose "open"
/// links (`./?v=N&view=…`) open each worked example in the playground.
pub fn html(rows: &[SourceRow]) -> String {
    let mut examples = String::new();
    for (label, query) in PRESETS {
        let _ = writeln!(
            examples,
            "<li><a href=\"./?v={}&amp;{}\" data-testid=\"preset\">{}</a></li>",
            crate::LINK_VERSION,
            escape(query),
            escape(label)
        );
    }
    let mut body = String::new();
    for r in rows {
        let _ = writeln!(
            body,
            "<tr class=\"verdict-{}\" data-testid=\"source-row\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"verdict\">{}</td><td>{}</td><td><a href=\"./?{}\">open</a></td></tr>",
            escape(&r.verdict),
            escape(&r.source),
            escape(&r.item),
            escape(&r.theirs),
            escape(&r.ours),
            escape(&r.verdict),
            escape(&r.why),
            escape(&r.link)
        );
    }
    format!(
        r#"<!doctype html>
<!-- Written by `commlab sources --html > web/sources.html`; a test checks it is current. -->
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="color-scheme" content="light dark" />
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; style-src 'unsafe-inline'; img-src data:" />
<link rel="icon" href="data:," />
<title>commlab · sources beside our numbers</title>
<style>
body {{ font: 15px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 78rem; padding: 0 1rem; color: #202124; background: #fff; }}
@media (prefers-color-scheme: dark) {{ body {{ color: #e6e8eb; background: #181a1f; }} a {{ color: #56b4e9; }} }}
table {{ border-collapse: collapse; }}
th, td {{ border-bottom: 1px solid #8888; padding: 0.4rem 0.5rem; text-align: left; vertical-align: top; }}
td.verdict {{ font-weight: 600; white-space: nowrap; }}
tr.verdict-differs td.verdict {{ color: #b3261e; }}
@media (prefers-color-scheme: dark) {{ tr.verdict-differs td.verdict {{ color: #ff8a80; }} }}
/* A phone: each row a block, each cell on its own line under its column's name. */
@media (max-width: 760px) {{
  table, tbody, tr, td {{ display: block; }}
  thead {{ position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }}
  tr {{ border-bottom: 2px solid #8888; padding: 0.5rem 0; }}
  td {{ border: 0; padding: 0.1rem 0; overflow-wrap: anywhere; }}
  td.verdict {{ white-space: normal; }}
  td::before {{ font-weight: 600; opacity: 0.75; }}
  td:nth-child(1)::before {{ content: "source: "; }}
  td:nth-child(2)::before {{ content: "item: "; }}
  td:nth-child(3)::before {{ content: "theirs: "; }}
  td:nth-child(4)::before {{ content: "ours: "; }}
  td:nth-child(5)::before {{ content: "verdict: "; }}
  td:nth-child(6)::before {{ content: "why: "; }}
  code {{ overflow-wrap: anywhere; }}
}}
</style>
</head>
<body>
<nav><a href="./">← commlab</a></nav>
<main>
<h1>The sources beside our numbers</h1>
<p>Each headline number of the binomial-tree article, the DLCT barrier paper and the catccos CommSwizzle note, next to what commlab computes; where they differ, why. The paper's delay claims are measured by a seeded sweep under both routing rules (the paper's own and shortest); the Barrier lab runs the same and more, and prints our numbers against the paper's under each chart. “open” shows the worked example in the playground. The same table: <code>commlab sources</code>, and the README's Sources section.</p>
<h2>Worked examples</h2>
<ul>
{examples}</ul>
<h2>Numbers</h2>
<table>
<thead><tr><th>source, where it appears</th><th>item</th><th>theirs</th><th>ours</th><th>verdict</th><th>why</th><th>example</th></tr></thead>
<tbody>
{body}</tbody>
</table>
</main>
</body>
</html>
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows carry the numbers the sources give and ours as computed
    /// (pinned here from independent recounts in the integration tests).
    #[test]
    fn rows_hold_both_numbers() {
        let rows = rows();
        let find = |item: &str| rows.iter().find(|r| r.item.starts_with(item)).unwrap();
        assert!(find("Binomial-tree reduction").ours.starts_with("3 steps, 7 messages; p0 ends with 36"));
        assert!(find("Pipelined reduction").ours.starts_with("m* = 80.63; best integer m = 81"));
        assert!(find("round(1)").ours.starts_with("LCT 81.1 % (7 of 37), BST 50.0 % (15 of 30)"));
        assert_eq!(find("round(1)").theirs, "LCT 73.1 % (7 of 26 links kept), BST 18.2 %");
        assert!(find("Mean UQ(LCT)").ours.starts_with("0.524 with the 16 identity conversions, 0.559 without"));
        assert!(find("UQ(LCT) − UQ(BST)").ours.starts_with("LCT larger in 124, BST larger in 116, equal in 16"));
        assert_eq!(find("GetCoord").ours, find("GetCoord").theirs);
        assert_eq!(find("12 cores").ours, "6 steps, 8 with deterministic mode");
        assert!(rows.iter().all(|r| ["same", "differs", "lab"].contains(&r.verdict.as_str())));
        let md = markdown(&rows);
        assert_eq!(md.lines().count(), 2 + rows.len());
    }
}

//! The barrier engine's results on a fixed corpus of scenarios, recorded
//! before the engine's second version (issue 11) so that speed work cannot
//! change a delay, a hop or a message unnoticed.
//!
//! Each row of `tests/corpus/barrier.csv` is one scenario and what the engine
//! gave for it: the report's counts, per-barrier delays, messages and hops,
//! and FNV-1a digests of every node's arrival and departure ticks, of the
//! judge decisions and (for recorded runs) of every message with its route and
//! timing. `COMMLAB_BLESS_CORPUS=1 cargo test -p commlab-tests corpus` rewrites
//! the file; that is only done in a commit of its own that says why the
//! results changed (see `docs/barrier-model.md`, "Corpus").

use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::{Judge, Kind, RunReport, Scenario, Simulation};
use commlab_core::barrier::mesh::Routing;
use std::fmt::Write as _;

const CORPUS: &str = "corpus/barrier.csv";
const HEADER: &str = "scenario,completed,partitioned,unroutable,safe,messages,hops,detour_hops,broken_links,\
delay_ticks,barrier_messages,barrier_hops,total_ticks,max_link_load,adjustments,times_digest,decisions_digest,trace_digest";

/// FNV-1a over 64-bit words.
#[derive(Clone, Copy)]
struct Digest(u64);

impl Digest {
    fn new() -> Digest {
        Digest(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

fn joined(values: &[u64]) -> String {
    values.iter().map(ToString::to_string).collect::<Vec<_>>().join(";")
}

/// A scenario's name in the corpus.
fn scenario_name(s: &Scenario) -> String {
    format!(
        "{} s{} r{} seed{} enc={} tile{} judge={} b{} hop{} ovh{} comp{} skew{} k{} cont{} conn{} rec{}",
        s.algorithm.id(),
        s.size,
        s.break_rate,
        s.seed,
        s.encoding.id(),
        s.tile,
        match s.judge {
            Judge::Threshold(t) => format!("threshold:{t}"),
            other => other.id().to_owned(),
        },
        s.barriers,
        s.hop_ticks,
        s.overhead_ticks,
        s.compute_ticks,
        s.skew_ticks,
        s.combining_k,
        u8::from(s.contention),
        u8::from(s.connected),
        u8::from(s.record),
    )
}

/// Every algorithm on sizes, break rates and seeds, and with timing options.
fn grid_scenarios(push: &mut impl FnMut(Scenario)) {
    for algorithm in Algorithm::ALL {
        let all_pairs = matches!(algorithm, Algorithm::AllToAll);
        for size in [3u64, 5, 8, 16] {
            if all_pairs && size > 8 {
                continue;
            }
            for rate in [0.0, 0.15, 0.35] {
                for seed in [1u64, 7] {
                    push(Scenario {
                        size,
                        algorithm,
                        break_rate: rate,
                        seed,
                        connected: !(rate > 0.3 && seed == 7),
                        contention: seed == 1,
                        judge: if seed == 1 { Judge::DEFAULT } else { Judge::Oracle },
                        barriers: 2,
                        record: size <= 8,
                        ..Scenario::default()
                    });
                }
            }
        }
        // Timing options: overheads, compute, skew and slower hops.
        push(Scenario {
            size: 8,
            algorithm,
            break_rate: 0.2,
            seed: 3,
            overhead_ticks: 2,
            compute_ticks: 50,
            skew_ticks: 30,
            hop_ticks: 3,
            barriers: 3,
            record: true,
            ..Scenario::default()
        });
    }
}

/// Encodings, judges, tiles, fan-ins and a larger mesh.
fn option_scenarios(push: &mut impl FnMut(Scenario)) {
    for encoding in Encoding::ALL {
        for algorithm in [Algorithm::Dlct, Algorithm::Tree, Algorithm::DlctMs] {
            push(Scenario {
                size: 8,
                algorithm,
                encoding,
                break_rate: 0.2,
                seed: 5,
                barriers: 3,
                ..Scenario::default()
            });
        }
    }
    for judge in [Judge::Never, Judge::Threshold(0.0), Judge::Threshold(0.5), Judge::Oracle] {
        push(Scenario {
            size: 16,
            algorithm: Algorithm::Dlct,
            judge,
            break_rate: 0.25,
            seed: 11,
            barriers: 4,
            ..Scenario::default()
        });
    }
    for tile in [2u32, 4, 8] {
        for algorithm in [Algorithm::DlctMs, Algorithm::DlctTree, Algorithm::DisseminationTree] {
            push(Scenario { size: 16, algorithm, tile, break_rate: 0.15, seed: 2, barriers: 2, ..Scenario::default() });
        }
    }
    for k in [2u32, 3, 8] {
        push(Scenario {
            size: 16,
            algorithm: Algorithm::Combining,
            combining_k: k,
            break_rate: 0.1,
            seed: 4,
            ..Scenario::default()
        });
    }
    for algorithm in Algorithm::ALL {
        if !matches!(algorithm, Algorithm::AllToAll) {
            push(Scenario { size: 32, algorithm, break_rate: 0.2, seed: 9, barriers: 1, ..Scenario::default() });
        }
    }
}

/// Every scenario of the corpus, with its name. The rows recorded before
/// the paper's rule existed run under `shortest`; each is run again under
/// `paper` at the end, with ` routing=paper` added to its name.
fn scenarios() -> Vec<(String, Scenario)> {
    let mut out = Vec::new();
    let mut push = |s: Scenario| {
        let s = Scenario { routing: Routing::Shortest, ..s };
        out.push((scenario_name(&s), s));
    };
    grid_scenarios(&mut push);
    option_scenarios(&mut push);
    let paper: Vec<(String, Scenario)> = out
        .iter()
        .map(|(name, s)| (format!("{name} routing=paper"), Scenario { routing: Routing::Paper, ..s.clone() }))
        .collect();
    out.extend(paper);
    out
}

/// One corpus row.
fn row(name: &str, r: &RunReport) -> String {
    let mut times = Digest::new();
    for per_node in r.arrive.iter().chain(&r.leave) {
        for &t in per_node {
            times.add(t);
        }
    }
    let mut decisions = Digest::new();
    for d in &r.decisions {
        for v in [
            u64::from(d.barrier),
            u64::from(d.group),
            d.tick,
            u64::from(d.root),
            d.path_sum,
            d.fault_free,
            u64::from(d.k),
        ] {
            decisions.add(v);
        }
    }
    let mut trace = Digest::new();
    for m in &r.trace {
        let kind = match m.kind {
            Kind::Gather => 1 << 40,
            Kind::Release(k) => (2 << 40) | u64::from(k),
            Kind::Round(r) => (3 << 40) | u64::from(r),
            Kind::HandUp => 4 << 40,
            Kind::HandDown => 5 << 40,
        };
        for v in [
            u64::from(m.barrier),
            u64::from(m.level),
            kind,
            u64::from(m.from),
            u64::from(m.to),
            m.sent,
            m.delivered,
            m.content,
        ] {
            trace.add(v);
        }
        for (&node, &t) in m.path.iter().zip(&m.times) {
            trace.add(u64::from(node));
            trace.add(t);
        }
        trace.add(u64::MAX);
    }
    let adjustments: Vec<String> = r.adjustments.iter().map(|(b, g, k)| format!("{b}/{g}/{k}")).collect();
    let mut line = String::new();
    let _ = write!(
        line,
        "{name},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:016x},{:016x},{:016x}",
        r.completed,
        r.partitioned,
        r.unroutable,
        r.safe,
        r.messages,
        r.hops,
        r.detour_hops,
        r.broken_links,
        joined(&r.delay_ticks),
        joined(&r.barrier_messages),
        joined(&r.barrier_hops),
        r.total_ticks,
        r.max_link_load,
        adjustments.join(";"),
        times.0,
        decisions.0,
        trace.0,
    );
    line
}

#[test]
fn barrier_corpus_is_unchanged() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    let rows: Vec<String> = scenarios()
        .iter()
        .map(|(name, s)| row(name, &Simulation::new(s.clone()).expect("valid corpus scenario").run()))
        .collect();
    let text = format!("{HEADER}\n{}\n", rows.join("\n"));
    if std::env::var_os("COMMLAB_BLESS_CORPUS").is_some() {
        std::fs::write(&path, text).expect("write the corpus");
        return;
    }
    let recorded = std::fs::read_to_string(&path).expect("tests/corpus/barrier.csv (COMMLAB_BLESS_CORPUS=1 writes it)");
    let recorded: Vec<&str> = recorded.lines().collect();
    assert_eq!(recorded.first().copied(), Some(HEADER), "corpus columns");
    let name = |row: &str| row.split(',').next().unwrap_or_default().to_owned();
    let by_name: std::collections::HashMap<String, &str> = recorded[1..].iter().map(|r| (name(r), *r)).collect();
    let mut problems = Vec::new();
    for now in &rows {
        match by_name.get(&name(now)) {
            Some(was) if *was == now => {}
            Some(was) => problems.push(format!("changed:\n  recorded: {was}\n       now: {now}")),
            None => problems.push(format!("not recorded: {now}")),
        }
    }
    let names: std::collections::HashSet<String> = rows.iter().map(|r| name(r)).collect();
    problems.extend(by_name.keys().filter(|n| !names.contains(*n)).map(|n| format!("recorded but no longer run: {n}")));
    assert!(problems.is_empty(), "{} of {} corpus runs differ:\n{}", problems.len(), rows.len(), problems.join("\n"));
}

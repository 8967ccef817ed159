//! The `commlab` binary: JSON shape, tables, and errors that name the argument.

use serde_json::Value;
use std::fmt::Write as _;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_commlab")).args(args).output().expect("commlab runs")
}

fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn model_json_has_the_headline_numbers() {
    let v = json(&["model", "--n", "1000", "--p", "10", "--t-start", "5", "--t-byte", "0.01", "--json"]);
    assert_eq!(v["m_star"], 4.0);
    assert_eq!(v["m_best"], 4);
    assert_eq!(v["t_m_best"], 90.0);
    assert_eq!(v["t_m_star"], 90.0);
    assert_eq!(v["t_binomial"], 60.0);
}

/// `--max-pieces` bounds the chart, not `m_best`: n = 1 MiB, p = 1481,
/// `T_start` = 1, `T_byte` = 0.05 has m* ≈ 8806 (a brute force over every m ≤ n here).
#[test]
fn model_m_best_is_not_capped_by_the_chart() {
    let v = json(&["model", "--n", "1048576", "--p", "1481", "--t-start", "1", "--t-byte", "0.05", "--json"]);
    let t = |m: f64| (1.0 + 1_048_576.0 / m * 0.05) * (1481.0 + m - 2.0);
    let brute = (1..=1_048_576u64).min_by(|&a, &b| t(a as f64).total_cmp(&t(b as f64))).unwrap();
    assert_eq!(v["m_best"], brute);
    assert!((8805..=8807).contains(&brute));
    assert_eq!(v["max_pieces"], 1024, "the chart's range, reported separately");
}

#[test]
fn model_reports_small_p_instead_of_nan() {
    let v = json(&["model", "--n", "1000", "--p", "2", "--t-start", "5", "--t-byte", "0.01", "--json"]);
    assert_eq!(v["m_star"], 1.0);
    assert_eq!(v["m_best"], 1);
    assert!(v["m_star_note"].as_str().unwrap().contains("p ≤ 2"));
}

#[test]
fn pipeline_json_has_steps_and_time() {
    let v =
        json(&["pipeline", "--p", "8", "--pieces", "4", "--n", "400", "--t-start", "1", "--t-byte", "0.5", "--json"]);
    assert_eq!(v["steps"], 10);
    assert_eq!(v["time"], (1.0 + 100.0 * 0.5) * 10.0);
}

#[test]
fn tables_without_json() {
    let out = run(&["model", "--n", "1000", "--p", "10", "--t-start", "5", "--t-byte", "0.01"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().any(|l| l.starts_with("m_best") && l.trim_end().ends_with(" 4")), "{text}");
}

#[test]
fn bad_arguments_name_the_argument() {
    for (args, needle) in [
        (vec!["model", "--n", "10", "--p", "0", "--t-start", "1", "--t-byte", "1"], "--p"),
        (vec!["model", "--n", "10", "--p", "4", "--t-start", "-1", "--t-byte", "1"], "--t-start"),
        (vec!["model", "--n", "abc", "--p", "4", "--t-start", "1", "--t-byte", "1"], "--n"),
        (vec!["pipeline", "--n", "10", "--p", "4", "--t-start", "1", "--t-byte", "1", "--pieces", "11"], "--pieces"),
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn pipeline_simulation_matches_the_model() {
    let v = json(&[
        "pipeline",
        "--p",
        "16",
        "--pieces",
        "8",
        "--n",
        "1024",
        "--t-start",
        "3",
        "--t-byte",
        "0.25",
        "--json",
    ]);
    assert_eq!(v["simulated_steps"], 22);
    assert_eq!(v["messages"], 15 * 8);
    assert_eq!(v["time"], v["model_time"]);
}

#[test]
fn reduce_json_has_inputs_result_and_messages() {
    let v = json(&["reduce", "--p", "8", "--elements", "2", "--op", "sum", "--seed", "7", "--json"]);
    let inputs = v["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 8);
    let expect: Vec<i64> = (0..2).map(|e| inputs.iter().map(|row| row[e].as_i64().unwrap()).sum()).collect();
    assert_eq!(v["result"], serde_json::json!(expect));
    assert_eq!(v["rounds"], 3);
    let messages = v["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 7);
    assert_eq!(messages[0], serde_json::json!({"round": 0, "from": 1, "to": 0}));
    // Same seed, same inputs.
    assert_eq!(json(&["reduce", "--p", "8", "--elements", "2", "--seed", "7", "--json"])["inputs"], v["inputs"]);
}

#[test]
fn broadcast_and_allreduce_share_the_shape() {
    let b = json(&["broadcast", "--p", "6", "--elements", "1", "--json"]);
    let root = b["inputs"][0].clone();
    assert!(b["final"].as_array().unwrap().iter().all(|row| *row == root));
    assert_eq!(b["messages"][0], serde_json::json!({"round": 0, "from": 0, "to": 4}));
    for extra in [&[][..], &["--butterfly"][..]] {
        let mut args = vec!["allreduce", "--p", "6", "--elements", "3", "--op", "max", "--json"];
        args.extend_from_slice(extra);
        let a = json(&args);
        let result = a["result"].clone();
        assert!(a["final"].as_array().unwrap().iter().all(|row| *row == result), "{extra:?}");
    }
}

#[test]
fn reduce_reads_an_inputs_file() {
    let path = std::env::temp_dir().join(format!("commlab-inputs-{}.json", std::process::id()));
    std::fs::write(&path, "[[1, 2], [3, 4], [5, 6]]").unwrap();
    let v =
        json(&["reduce", "--p", "3", "--elements", "2", "--op", "prod", "--inputs", path.to_str().unwrap(), "--json"]);
    assert_eq!(v["result"], serde_json::json!([15, 48]));
    let out = run(&["reduce", "--p", "4", "--elements", "2", "--inputs", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--inputs"));
    std::fs::remove_file(path).unwrap();
}

#[test]
fn reduce_arguments_are_checked() {
    for (args, needle) in [
        (vec!["reduce", "--p", "0"], "--p"),
        (vec!["reduce", "--p", "4", "--elements", "5000"], "--elements"),
        (vec!["reduce", "--p", "4194304", "--elements", "8"], "--elements"),
        (vec!["reduce", "--p", "4", "--op", "median"], "median"),
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn swizzle_json_has_coords_steps_collisions_and_coverage() {
    let v = json(&["swizzle", "--grid", "2,2,4", "--cores", "2,2", "--json"]);
    assert_eq!(v["coords"][0], serde_json::json!([0, 0, 0]));
    assert_eq!(v["coords"][1], serde_json::json!([0, 1, 1]));
    assert_eq!(v["coords"][2], serde_json::json!([0, 0, 2]));
    assert_eq!(v["coords"][3], serde_json::json!([0, 1, 3]));
    assert_eq!(v["steps"], 4);
    assert_eq!(v["collisions_per_step"].as_array().unwrap().len(), 4);
    assert_eq!(v["bijective"], true);
    let d = json(&["swizzle", "--grid", "3,2,2", "--cores", "2,2", "--deterministic", "--json"]);
    assert_eq!(d["steps"], 4);
    assert!(d["coords"].as_array().unwrap().iter().any(serde_json::Value::is_null), "padding loops are null");
    let bad = json(&["swizzle", "--grid", "2,1,2", "--cores", "1,4", "--json"]);
    assert_eq!(bad["bijective"], false);
}

#[test]
fn swizzle_errors_name_the_argument() {
    for (args, needle) in [
        (vec!["swizzle", "--grid", "2,2", "--cores", "2,2"], "--grid"),
        (vec!["swizzle", "--grid", "2,2,4", "--cores", "0,2"], "--cores"),
        (
            vec!["swizzle", "--grid", "2,2,4", "--cores", "2,2", "--direction", "1", "--deterministic"],
            "--deterministic",
        ),
        (vec!["swizzle", "--grid", "2,2,4", "--cores", "2,2", "--preset", "a9"], "--preset"),
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn barrier_json_has_the_promised_fields() {
    let v = json(&[
        "barrier",
        "--size",
        "6",
        "--algorithm",
        "dlct-tree",
        "--break-rate",
        "0.1",
        "--seed",
        "3",
        "--barriers",
        "2",
        "--tile",
        "3",
        "--json",
    ]);
    for key in ["completed", "partitioned", "safe", "messages", "hops", "broken_links", "delay_ticks", "max_link_load"]
    {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    // One shape with the web export: the broken links as a list, their count beside it, barriers from 1.
    assert_eq!(v["broken_link_count"], 6, "round(0.1 × 60 links)");
    assert_eq!(v["broken_links"].as_array().unwrap().len(), 6);
    assert_eq!(v["per_barrier"][0]["barrier"], 1);
    assert_eq!(v["per_barrier"][1]["barrier"], 2);
    let ms = json(&["barrier", "--size", "4", "--algorithm", "ms", "--barriers", "1", "--json"]);
    assert_eq!(ms["messages"], 30, "2(N − 1)");
    assert_eq!(ms["safe"], true);
    let out = run(&["barrier", "--size", "4", "--algorithm", "gossip"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("gossip"));
    let out = run(&["barrier", "--size", "5", "--algorithm", "dlct", "--encoding", "hilbert"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--encoding"));
}

#[test]
fn uq_json_has_all_conversions() {
    let v = json(&["uq", "--size", "4", "--json"]);
    assert_eq!(v["conversions"], 256);
    assert_eq!(v["lct_minus_bst"].as_array().unwrap().len(), 256);
    // The recount of the issue: 0.524 with the 16 identity conversions, 0.559 without;
    // the paper's 0.5527 travels beside them.
    let near = |key: &str, want: f64| (v[key].as_f64().unwrap() - want).abs() < 5e-4;
    assert!(near("lct_mean", 0.524) && near("lct_mean_without_identity", 0.559) && near("bst_mean", 0.505), "{v}");
    assert_eq!(v["paper_lct_mean"], 0.5527);
    let diff = v["lct_minus_bst"].as_array().unwrap();
    let lct: f64 = diff.iter().map(|d| d.as_f64().unwrap()).sum::<f64>() / 256.0;
    assert!((lct - (v["lct_mean"].as_f64().unwrap() - v["bst_mean"].as_f64().unwrap())).abs() < 1e-12);
    let u = json(&["uq", "--size", "3", "--links", "undirected", "--phases", "gather-release", "--json"]);
    assert_eq!(u["conversions"], 81);
}

#[test]
fn sweep_writes_one_csv_row_per_run() {
    let out = run(&[
        "sweep",
        "--algorithms",
        "ms,tree",
        "--sizes",
        "3,4",
        "--rates",
        "0,0.2",
        "--seeds",
        "2",
        "--barriers",
        "1",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("algorithm,size,nodes,break_rate,seed,completed"));
    assert_eq!(lines.len(), 1 + 2 * 2 * 2 * 2);
    assert!(lines[1..].iter().all(|l| l.contains(",true,false,true,")), "completed, not partitioned, safe: {csv}");
}

/// A sweep cut into 3 shards run as separate processes, merged, equals the
/// unsharded sweep byte for byte; merge refuses a missing, repeated or
/// foreign shard.
#[test]
fn sharded_sweep_merges_into_the_single_run_csv() {
    let dir = std::env::temp_dir().join(format!("commlab-shards-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let grid = [
        "sweep",
        "--algorithms",
        "ms,tree,dlct,mcs",
        "--sizes",
        "4,8",
        "--rates",
        "0,0.2",
        "--seeds",
        "2",
        "--barriers",
        "1",
    ];
    let whole = run(&grid);
    assert!(whole.status.success());
    let mut files = Vec::new();
    let children: Vec<_> = (1..=3)
        .map(|k| {
            let file = dir.join(format!("shard-{k}.csv"));
            files.push(file.clone());
            let mut args: Vec<String> = grid.iter().map(ToString::to_string).collect();
            args.extend(["--shard".into(), format!("{k}/3"), "--out".into(), file.display().to_string()]);
            Command::new(env!("CARGO_BIN_EXE_commlab")).args(&args).spawn().expect("commlab starts")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let f = |i: usize| files[i].display().to_string();
    let merged = run(&["merge", &f(2), &f(0), &f(1)]);
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert_eq!(String::from_utf8(merged.stdout).unwrap(), String::from_utf8(whole.stdout).unwrap());
    // 4 algorithms × 2 sizes × 2 rates × 2 seeds = 32 runs, dealt round-robin.
    let first = std::fs::read_to_string(&files[0]).unwrap();
    assert!(first.starts_with("# commlab sweep shard 1/3 of 32 runs; grid "), "{first}");
    assert_eq!(first.lines().count(), 2 + 11);
    for (args, says) in
        [(vec![f(0), f(1)], "missing shard(s) [3] of 3"), (vec![f(0), f(1), f(1), f(2)], "shard 2/3 is given twice")]
    {
        let mut all = vec!["merge".to_owned()];
        all.extend(args);
        let out = Command::new(env!("CARGO_BIN_EXE_commlab")).args(&all).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains(says), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let other = dir.join("other.csv");
    let mut args: Vec<String> = grid.iter().map(ToString::to_string).collect();
    args[8] = "3".into(); // --seeds 3: another grid
    args.extend(["--shard".into(), "3/3".into(), "--out".into(), other.display().to_string()]);
    assert!(Command::new(env!("CARGO_BIN_EXE_commlab")).args(&args).output().unwrap().status.success());
    let out = run(&["merge", &f(0), &f(1), &other.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the others are of"));
    let bad = run(&["sweep", "--shard", "4/3"]);
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// p = 2^20 streams its JSON (BENCHMARKS.md: ~75 MB peak instead of 1.8 GB);
/// the result is the sum of the inputs it printed.
#[test]
fn reduce_with_a_million_units_streams_a_consistent_report() {
    let v = json(&["reduce", "--p", "1048576", "--json"]);
    let inputs = v["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 1 << 20);
    let sum: i64 = inputs.iter().map(|row| row[0].as_i64().unwrap()).sum();
    assert_eq!(v["result"][0].as_i64().unwrap(), sum);
    assert_eq!(v["message_count"], (1 << 20) - 1);
    assert_eq!(v["messages"].as_array().unwrap().len(), (1 << 20) - 1);
    assert_eq!(v["rounds"], 20);
}

/// Natively p reaches 2^24; one more is refused by name with the range.
#[test]
fn reduce_accepts_p_up_to_two_to_the_24() {
    let out = run(&["reduce", "--p", "16777217"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--p") && err.contains("1 to 16 777 216"), "{err}");
    let out = run(&["reduce", "--p", "4194304", "--elements", "8"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("p × elements ≤ 16777216"), "{err}");
}

/// `goal sim` prints LogGOPSim's numbers for its own schedules, reads stdin
/// and gzip, writes a Chrome trace, and names the line of a GOAL error.
#[test]
fn goal_sim_matches_loggopsim_and_writes_a_chrome_trace() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/loggops");
    let v = json(&["goal", "sim", &format!("{data}/binomialtreereduce_p8_1024.goal"), "--json"]);
    assert_eq!(v["finish_times"], serde_json::json!([34914, 24776, 13138, 13138, 1500, 1500, 1500, 1500]));
    assert_eq!((v["max_time"].as_u64(), v["events"].as_u64()), (Some(34914), Some(21)));
    // LogGOPSim's flags: a larger L delays every hop.
    let slow = json(&["goal", "sim", &format!("{data}/binomialtreereduce_p8_1024.goal"), "-L", "5000", "--json"]);
    assert_eq!(slow["max_time"], 34914 + 3 * 2500);
    let dead = json(&["goal", "sim", &format!("{data}/hand_deadlock.goal"), "--json"]);
    assert_eq!(dead["completes"], false);
    assert_eq!(dead["unmatched"].as_array().unwrap().len(), 2);
    let dir = std::env::temp_dir().join(format!("commlab-goal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace.json");
    for file in ["hand_wildcards_tags", "allreduce_recdoub_p16_4096", "hand_rendezvous_plain"] {
        json(&["goal", "sim", &format!("{data}/{file}.goal"), "--json", "--trace", trace.to_str().unwrap()]);
        check_chrome_trace(&std::fs::read_to_string(&trace).unwrap(), file);
    }
    // goal gen: Schedgen's binomial tree (BST labelling) gives LogGOPSim's times.
    let generated = dir.join("reduce.goal");
    let out = run(&["goal", "gen", "reduce-bst", "--p", "8", "--bytes", "1024", "-o", generated.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let g = json(&["goal", "sim", generated.to_str().unwrap(), "--json"]);
    assert_eq!(g["finish_times"], v["finish_times"]);
    let bad = dir.join("bad.goal");
    std::fs::write(&bad, "num_ranks 1\nrank 0 {\nsend 10b to 3\n}\n").unwrap();
    let out = run(&["goal", "sim", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3, column") && err.contains("outside num_ranks 1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Chrome trace is valid: JSON; per (pid, tid) the complete events nest
/// (here: never overlap); every flow and every async span has both ends, the
/// end not before the start.
fn check_chrome_trace(text: &str, what: &str) {
    use std::collections::HashMap;
    let t: Value = serde_json::from_str(text).unwrap();
    let events = t["traceEvents"].as_array().unwrap();
    let mut lanes: HashMap<(u64, u64), Vec<(f64, f64)>> = HashMap::new();
    let mut opened: HashMap<(String, u64), (usize, f64)> = HashMap::new();
    for e in events {
        let ph = e["ph"].as_str().unwrap();
        let ts = e["ts"].as_f64().unwrap_or(0.0);
        match ph {
            "X" => lanes
                .entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
                .or_default()
                .push((ts, ts + e["dur"].as_f64().unwrap())),
            "s" | "b" => {
                let key =
                    (format!("{}{}", e["cat"], if ph == "s" { "flow" } else { "async" }), e["id"].as_u64().unwrap());
                assert!(opened.insert(key, (1, ts)).is_none(), "{what}: id opened twice");
            }
            "f" | "e" => {
                let key =
                    (format!("{}{}", e["cat"], if ph == "f" { "flow" } else { "async" }), e["id"].as_u64().unwrap());
                let (n, start) = opened.get_mut(&key).unwrap_or_else(|| panic!("{what}: {e} ends what never began"));
                assert!(*n == 1 && ts >= *start, "{what}: {e}");
                *n = 2;
            }
            "M" => {}
            other => panic!("{what}: unexpected phase {other}"),
        }
    }
    assert!(opened.values().all(|(n, _)| *n == 2), "{what}: every flow and wait has both ends");
    assert!(!lanes.is_empty(), "{what}: CPU spans");
    for (lane, mut spans) in lanes {
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        for w in spans.windows(2) {
            assert!(w[0].1 <= w[1].0 + 1e-9, "{what}: spans overlap on {lane:?}: {w:?}");
        }
    }
}

#[test]
fn choose_lists_times_winners_and_crossovers() {
    let v = json(&["choose", "--collective", "allreduce", "--p", "13", "--bytes", "1K..1M", "--simulate", "--json"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 11, "powers of two from 1 KiB to 1 MiB");
    let algorithms: Vec<&str> = v["algorithms"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(
        algorithms,
        ["reduce-broadcast", "recursive-doubling", "ring", "rabenseifner", "double-binary-tree", "chain-up-down"]
    );
    let mut winners = Vec::new();
    for row in rows {
        let times = row["times"].as_object().unwrap();
        let (best, _) = times.iter().min_by(|a, b| a.1.as_f64().unwrap().total_cmp(&b.1.as_f64().unwrap())).unwrap();
        assert_eq!(row["winner"], best.as_str(), "the winner is the fastest");
        assert_eq!(row["simulated"].as_object().unwrap().len(), 6, "every algorithm simulated");
        assert!(row["pieces"]["chain-up-down"].as_u64().unwrap() >= 1);
        winners.push(row["winner"].as_str().unwrap().to_owned());
    }
    // A crossover is listed at the smallest size where the winner changes.
    let crossovers = v["crossovers"].as_array().unwrap();
    let changes = winners.windows(2).filter(|w| w[0] != w[1]).count();
    assert_eq!(crossovers.len(), changes);
    for c in crossovers {
        let at = rows.iter().position(|r| r["bytes"] == c["bytes"]).unwrap();
        assert_eq!(rows[at]["winner"], c["to"]);
        assert_eq!(rows[at - 1]["winner"], c["from"]);
    }
    // Ring allreduce at 1 MiB on 13 ranks, by its closed form with ragged blocks:
    // 24 messages of ⌈n/13⌉ or ⌊n/13⌋ bytes on the busiest path; here it is within a block of 2·12/13·n·β + 24α.
    let ring = rows[10]["times"]["ring"].as_f64().unwrap();
    let closed = 24.0 + 2.0 * 12.0 / 13.0 * 1_048_576.0 * 0.001;
    assert!((ring - closed).abs() < 2.0 * 0.001 * 2.0 * 12.0, "ring {ring} vs {closed}");
}

#[test]
fn choose_refuses_bad_input_by_name() {
    for (args, flag) in [
        (vec!["choose", "--collective", "gossip", "--p", "4"], "--collective"),
        (vec!["choose", "--collective", "reduce", "--p", "0"], "--p"),
        (vec!["choose", "--collective", "reduce", "--p", "4", "--bytes", "9..3"], "--bytes"),
        (vec!["choose", "--collective", "reduce", "--p", "4", "--algorithms", "ring"], "--algorithms"),
        (vec!["choose", "--collective", "reduce", "--p", "4", "--alpha=-1"], "--alpha"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("error: {flag}:")), "{args:?}");
    }
}

/// `commlab net sim`: the JSON keys outside checks read, on a case worked by
/// hand: ring allreduce of 64 KiB on `ring:8` (14 steps of one hop, 8 KiB
/// each, no sharing) at 25 B/ns and 250 ns per link.
#[test]
fn net_sim_json_on_a_ring() {
    let dir = std::env::temp_dir().join(format!("commlab-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ring.goal");
    let out = run(&["goal", "gen", "allreduce/ring", "--p", "8", "--bytes", "65536", "-o", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json(&["net", "sim", file.to_str().unwrap(), "--topology", "ring:8", "--json"]);
    let want = 14.0 * (250.0 + 8192.0 / 25.0);
    let finish = v["finish_times"].as_array().unwrap();
    assert_eq!(finish.len(), 8);
    assert!((v["max_time"].as_f64().unwrap() - want).abs() < 1e-6 * want);
    let links = v["links"].as_array().unwrap();
    assert_eq!(links.len(), 8, "only the + direction carries traffic");
    for l in links {
        for key in ["from", "to", "bytes", "busy_ns", "peak_flows"] {
            assert!(l.get(key).is_some(), "{key}");
        }
        assert_eq!(l["bytes"], 14.0 * 8192.0);
        assert_eq!(l["peak_flows"], 1);
    }
    assert_eq!(v["unreachable"], Value::Array(vec![]));
    // Breaking 0-1 sends 0 → 1 the long way round: 7 hops, shared with the others.
    let broken = json(&["net", "sim", file.to_str().unwrap(), "--topology", "ring:8", "--break", "0-1", "--json"]);
    assert!(broken["max_time"].as_f64().unwrap() > want);
    // A broken pair is reported with the ops it blocks.
    let cut = json(&["net", "sim", file.to_str().unwrap(), "--topology", "ring:8", "--break", "0-1,4-5", "--json"]);
    let blocked = cut["unreachable"].as_array().unwrap();
    assert!(blocked.iter().any(|b| b["from"] == 0 && b["to"] == 1 && !b["ops"].as_array().unwrap().is_empty()));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn net_topo_lists_vertices_and_links() {
    let v = json(&["net", "topo", "--topology", "fattree:4,3,2", "--json"]);
    assert_eq!(v["vertices"].as_array().unwrap().len(), 12 + 3 + 2);
    assert_eq!(v["links"].as_array().unwrap().len(), 12 + 6);
    assert_eq!(v["vertices"][12]["name"], "leaf0");
    let b = json(&["net", "topo", "--topology", "torus:4x4", "--break-rate", "0.25", "--seed", "3", "--json"]);
    assert_eq!(b["broken"], 8);
}

#[test]
fn net_errors_name_the_flag() {
    let cases: [(&[&str], &str); 4] = [
        (&["net", "topo", "--topology", "cube:3", "--json"], "--topology"),
        (&["net", "topo", "--topology", "ring:8", "--break", "0-3", "--json"], "--break"),
        (&["net", "topo", "--topology", "ring:8", "--bandwidth", "0", "--json"], "--bandwidth"),
        (&["net", "topo", "--topology", "switch:8", "--break-rate", "0.5", "--json"], "--break"),
    ];
    for (args, flag) in cases {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    // More ranks than hosts.
    let dir = std::env::temp_dir().join(format!("commlab-net-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a.goal");
    assert!(run(&["goal", "gen", "allreduce/ring", "--p", "8", "--bytes", "64", "-o", file.to_str().unwrap()])
        .status
        .success());
    let out = run(&["net", "sim", file.to_str().unwrap(), "--topology", "ring:4", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hosts"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The network's acceptance example: on a torus, ring allreduce beats
/// Rabenseifner at large sizes, while under α–β it never does at a power of two.
#[test]
fn choose_on_a_torus_lets_ring_win_where_alpha_beta_never_does() {
    for (p, torus) in [(16, "torus:4x4"), (64, "torus:8x8")] {
        let p = p.to_string();
        let args = [
            "choose",
            "--collective",
            "allreduce",
            "--p",
            &p,
            "--bytes",
            "1K..16M",
            "--algorithms",
            "ring,rabenseifner",
        ];
        let model = json(&[&args[..], &["--json"]].concat());
        assert!(model["rows"].as_array().unwrap().iter().all(|r| r["winner"] == "rabenseifner"), "α–β: {p}");
        let net = json(&[&args[..], &["--topology", torus, "--json"]].concat());
        let rows = net["rows"].as_array().unwrap();
        assert_eq!(rows.last().unwrap()["winner"], "ring", "{torus}");
        assert_eq!(rows[0]["winner"], "rabenseifner", "{torus}: latency wins at 1 KiB");
        assert!(rows.iter().all(|r| r["model_winner"] == "rabenseifner"));
        assert_eq!(net["crossovers"].as_array().unwrap().len(), 1);
        assert!(rows.last().unwrap()["bottleneck"]["name"].as_str().unwrap().starts_with('h'));
        // The network's times in nccl-tests' terms: algbw = bytes / ns (GB/s),
        // busbw = algbw · 2(p − 1)/p for allreduce.
        let pn: f64 = p.parse().unwrap();
        for row in rows {
            for id in ["ring", "rabenseifner"] {
                let (bytes, ns) = (row["bytes"].as_f64().unwrap(), row["network"][id].as_f64().unwrap());
                let algbw = row["network_algbw"][id].as_f64().unwrap();
                assert!((algbw - bytes / ns).abs() <= 1e-12 * algbw, "{id} at {bytes}");
                let busbw = row["network_busbw"][id].as_f64().unwrap();
                assert!((busbw - algbw * 2.0 * (pn - 1.0) / pn).abs() <= 1e-12 * busbw, "{id} at {bytes}");
            }
        }
    }
}

/// `--library`: each row's `library_picks` has MPICH's function name, Open
/// MPI's number and NCCL's pick with every pair's time.
#[test]
fn choose_library_picks_have_the_named_keys() {
    let v = json(&[
        "choose",
        "--collective",
        "allreduce",
        "--p",
        "24",
        "--bytes",
        "8..2K",
        "--library",
        "mpich,ompi,nccl",
        "--nccl",
        "version=2.22,nodes=3,gpus=8,pattern=tree",
        "--json",
    ]);
    let row = &v["rows"][0];
    assert_eq!(row["bytes"], 8);
    let picks = &row["library_picks"];
    assert_eq!(picks["mpich"]["name"], "MPIR_Allreduce_intra_recursive_doubling");
    // coll_tuned_decision_fixed.c: p < 32, below 64 B: segmented ring.
    assert_eq!(picks["ompi"]["id"], 5);
    // NCCL 2.22 printed "8 Bytes -> Algo 0 proto 0 time 25.200924" (nccl#1453).
    assert_eq!(picks["nccl"]["algorithm"], "tree");
    assert_eq!(picks["nccl"]["protocol"], "ll");
    assert!((picks["nccl"]["time_us"].as_f64().unwrap() - 25.200_924).abs() < 1e-4);
    assert!(picks["nccl"]["nccl_times"]["ring/ll"].as_f64().unwrap() > 25.2);
    assert_eq!(v["libraries"], "MPICH 5.0.1, Open MPI 5.0.10, NCCL 2.22.3");
    let out = run(&["choose", "--collective", "allreduce", "--p", "8", "--library", "nccl", "--nccl", "nodes=3"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--nccl"));
}

/// `--export … -o FILE` writes a file its format's reader accepts.
#[test]
fn choose_export_writes_the_tuner_file() {
    let dir = std::env::temp_dir().join(format!("commlab-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (format, first) in [("ompi-rules", "rule-file-version-1"), ("mpich-json", "{")] {
        let path = dir.join(format);
        let v = json(&[
            "choose",
            "--collective",
            "allreduce",
            "--p",
            "16",
            "--bytes",
            "1K..1M",
            "--export",
            format,
            "-o",
            path.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(v["format"], format);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(first), "{format}: {text}");
        assert_eq!(v["ps"].as_array().unwrap().len(), 15, "p from 2 to 16");
    }
    // NCCL's file comes from a described system only; α–β alone writes nothing.
    let path = dir.join("nccl-tuner");
    let out = run(&[
        "choose",
        "--collective",
        "allreduce",
        "--p",
        "16",
        "--export",
        "nccl-tuner",
        "-o",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: --export: α–β alone cannot advise NCCL"));
    assert!(!path.exists(), "nothing is written");
    let v = json(&[
        "choose",
        "--collective",
        "allreduce",
        "--p",
        "16",
        "--system",
        "p4d",
        "--bytes",
        "1K..1G",
        "--export",
        "nccl-tuner",
        "-o",
        path.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(
        (v["format"].as_str(), v["system"].as_str(), v["nodes"].as_u64()),
        (Some("nccl-tuner"), Some("p4d"), Some(2))
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# commlab"), "{text}");
    let rows = commlab_core::libraries::tuner::read_nccl(&text).unwrap();
    assert!(rows.iter().all(|r| r.nodes == 2 && r.ranks == 16), "{text}");
    assert_eq!(v["bands"].as_array().unwrap().iter().filter(|b| !b["algorithm"].is_null()).count(), rows.len());
    for (args, flag) in [
        (&["--collective", "all-to-all", "--p", "16", "--system", "p4d"][..], "--export"),
        (&["--collective", "allreduce", "--p", "12", "--system", "p4d"], "--p"),
        (&["--collective", "allreduce", "--p", "16", "--system", "p4d", "--map-p", "2..16"], "--map-p"),
        (&["--collective", "allreduce", "--p", "72", "--system", "dgx-h100"], "--nodes"),
    ] {
        let out = run(&[&["choose"][..], args, &["--export", "nccl-tuner"]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("error: {flag}:")), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `commlab fit FILE --json`: `alpha`, `beta` in the input's unit (µs for
/// nccl-tests), their errors and the residuals.
#[test]
fn fit_json_has_the_named_keys() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/bench/mscclpp-507-allreduce.txt");
    let v = json(&[
        "fit",
        file,
        "--format",
        "nccl-tests",
        "--collective",
        "allreduce",
        "--p",
        "8",
        "--algorithm",
        "ring",
        "--json",
    ]);
    assert_eq!(v["algorithm"], "ring");
    assert_eq!(v["unit"], "µs");
    let (a, b) = (v["alpha"].as_f64().unwrap(), v["beta"].as_f64().unwrap());
    assert!(a > 0.3 && a < 0.5 && b > 0.0, "{a} {b}");
    assert!(v["alpha_err"].as_f64().unwrap() > 0.0 && v["beta_err"].as_f64().unwrap() > 0.0);
    // β as the bandwidth it means: bytes per µs over 1000 is GB/s.
    assert!((v["beta_gbps"].as_f64().unwrap() - 1.0 / b / 1000.0).abs() <= 1e-9 / b);
    assert_eq!(v["library"], "nccl", "an nccl-tests file is NCCL's");
    assert_eq!(v["residuals"].as_array().unwrap().len(), 6);
    // No rank list: p from its busbw / algbw (2·7/8), as its run on 8 GPUs had.
    let v = json(&["fit", file, "--json"]);
    assert_eq!((v["p"].as_u64(), v["p_source"].as_str()), (Some(8), Some("busbw")));
    let bad = std::env::temp_dir().join(format!("commlab-fit-{}.csv", std::process::id()));
    std::fs::write(&bad, "64,1\n128,x\n").unwrap();
    let out = run(&["fit", bad.to_str().unwrap(), "--p", "4"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 2, column 5"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(bad);
}

/// `goal gen --channels` on `nodes:2x8` (every link at its default: 450 B/ns
/// and 100 ns from a GPU to its node switch, 50 B/ns and 500 ns from a NIC to
/// its rail switch). Ring allreduce is 2(p − 1) = 30 steps of n/(C·p) bytes
/// per channel; in each, the hop between the nodes is the slowest: it crosses
/// its node switch (PXN: the GPU before it is not on the next node's rail),
/// then a NIC and a rail switch, 2·100 + 2·500 = 1200 ns of latency, and moves
/// its bytes at 50 B/ns, alone on its rail. So with the NIC window of 1,
/// T = 30·(1200 + n/(16·C·50)) exactly, and channel c uses rail c only.
#[test]
fn channels_spread_a_ring_over_the_rails() {
    let dir = std::env::temp_dir().join(format!("commlab-channels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let time = |channels: &str| {
        let file = dir.join(format!("ring{channels}.goal"));
        let f = file.to_str().unwrap();
        let gen = ["goal", "gen", "allreduce/ring", "--p", "16", "--bytes", "16777216", "--channels", channels];
        let out = run(&[&gen[..], &["--topology", "nodes:2x8", "-o", f]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v = json(&["net", "sim", f, "--topology", "nodes:2x8", "--json"]);
        // The bound is a NIC: 30 steps of n/(16·C) bytes over 50 B/ns in T,
        // where the NVLink links (450 B/ns) are used far less.
        let most = &v["most_utilised"];
        assert!(most["name"].as_str().unwrap().contains("rail"), "{most}");
        let t = v["max_time"].as_f64().unwrap();
        let c: f64 = channels.parse().unwrap();
        let want = 30.0 * 16_777_216.0 / (16.0 * c) / (50.0 * t);
        assert!((most["utilisation"].as_f64().unwrap() - want).abs() <= 1e-9, "{most} vs {want}");
        // Every NIC-to-rail link that carries bytes carries an equal share.
        let rails: Vec<f64> = v["links"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["from"].as_u64().unwrap() >= 18 || l["to"].as_u64().unwrap() >= 18)
            .map(|l| l["bytes"].as_f64().unwrap())
            .collect();
        (v["max_time"].as_f64().unwrap(), rails)
    };
    let n = 16_777_216.0;
    let (one, rails_one) = time("1");
    let (eight, rails_eight) = time("8");
    for (t, c) in [(one, 1.0), (eight, 8.0)] {
        let want = 30.0 * (1200.0 + n / (16.0 * c * 50.0));
        assert!((t - want).abs() <= 1e-9 * want, "{c} channels: {t} ns, closed form {want} ns");
    }
    // One channel: rail 0 only (two directions into and out of the rail switch, per node).
    assert_eq!(rails_one.len(), 4, "{rails_one:?}");
    // Eight channels: all 8 rails, each NIC up and down on both nodes.
    assert_eq!(rails_eight.len(), 32, "{rails_eight:?}");
    let (lo, hi) = rails_eight.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
    assert!((hi - lo) <= 1e-9 * hi, "{rails_eight:?}");
    for bad in ["0", "65"] {
        let out = run(&["goal", "gen", "allreduce/ring", "--p", "16", "--bytes", "1024", "--channels", bad]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("error: --channels:"), "{bad}");
    }
    let bad_window = run(&["net", "sim", "-", "--topology", "ring:4", "--nic-window", "2000"]);
    assert_eq!(bad_window.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// `commlab predict`: the JSON keys outside checks read, and bounds worked
/// by hand. On p4d (4 rails of 100 Gb/s = 12.5 B/ns per node) a ring with
/// one channel per rail crosses between the nodes once each way on each
/// rail, so its busbw tends to 4 × 12.5 = 50 GB/s as the size grows (the
/// step costs fade): NCCL's pick on 3 nodes. On 2 nodes NCCL's search lets
/// its tree run at twice the network inside a node, its model picks the
/// tree, and the tree moves half a ring's bytes between the nodes: its busbw
/// passes the ring's 50 GB/s, under twice it.
#[test]
fn predict_reports_nccl_tests_terms() {
    let v = json(&[
        "predict",
        "--system",
        "p4d",
        "--nodes",
        "2",
        "--collective",
        "allreduce",
        "--bytes",
        "1K,1G,16G",
        "--json",
    ]);
    assert_eq!(v["ranks"], 16);
    assert_eq!(v["system"]["topology"], "nodes:2x8x4");
    assert!(!v["system"]["sources"].as_array().unwrap().is_empty());
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.iter().map(|r| r["bytes"].as_u64().unwrap()).collect::<Vec<_>>(), [1024, 1 << 30, 1 << 34]);
    for r in rows {
        for key in ["bytes", "time_us", "algbw", "busbw", "algorithm", "protocol", "channels", "nccl_model_time_us"] {
            assert!(r.get(key).is_some(), "{key}: {r}");
        }
        let (t, bytes) = (r["time_us"].as_f64().unwrap(), r["bytes"].as_f64().unwrap());
        let algbw = bytes / (t * 1000.0);
        assert!((r["algbw"].as_f64().unwrap() - algbw).abs() <= 1e-9 * algbw);
        assert!((r["busbw"].as_f64().unwrap() - algbw * 30.0 / 16.0).abs() <= 1e-9 * algbw);
    }
    let last = &rows[2];
    assert_eq!((last["algorithm"].as_str(), last["protocol"].as_str()), (Some("tree"), Some("simple")));
    let busbw = last["busbw"].as_f64().unwrap();
    assert!(busbw > 50.0 && busbw < 100.0, "{busbw}");
    assert!(last["bottleneck"]["link"].as_str().unwrap().contains("rail"), "{last}");
    let three = json(&["predict", "--system", "p4d", "--nodes", "3", "--bytes", "1K,16G", "--json"]);
    let ring = &three["rows"][1];
    assert_eq!((ring["algorithm"].as_str(), ring["protocol"].as_str()), (Some("ring"), Some("simple")));
    let busbw = ring["busbw"].as_f64().unwrap();
    assert!(busbw < 50.0 && busbw > 0.99 * 50.0, "{busbw}");
    // The busiest link is a NIC at nearly 100 %.
    assert!(ring["bottleneck"]["link"].as_str().unwrap().contains("rail"), "{ring}");
    assert!(ring["bottleneck"]["utilisation"].as_f64().unwrap() > 0.99);
    // The ring over 4 channels is marked as one value of a band; NCCL's
    // trees are not; the table says so under its rows.
    assert_eq!((three["rows"][0]["coupled"].as_bool(), ring["coupled"].as_bool()), (Some(false), Some(true)));
    assert_eq!(last["coupled"].as_bool(), Some(false));
    let table = run(&["predict", "--system", "p4d", "--nodes", "3", "--bytes", "1K,1G"]);
    let text = String::from_utf8_lossy(&table.stdout);
    let marked: Vec<&str> =
        text.lines().filter(|l| l.trim_start().starts_with(char::is_numeric) && l.contains('~')).collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(marked[0].trim_start().starts_with("1073741824"), "{text}");
    assert!(text.contains("~ simulated as a ring over several channels"), "{text}");
    // p4d's plugin has no tuner of its own: nothing is left out. On p5 above
    // 2 nodes aws-ofi-nccl's tuner decides, which the rows do not model: said.
    assert!(three["system"]["not_modelled"].is_null(), "{three}");
    assert!(!text.contains("Not modelled"), "{text}");
    let p5 = run(&["predict", "--system", "p5", "--nodes", "4", "--bytes", "1K"]);
    let p5 = String::from_utf8_lossy(&p5.stdout);
    assert!(
        p5.contains(
            "Not modelled: aws-ofi-nccl's own tuner picks the algorithm and protocol on this instance above 2 nodes"
        ),
        "{p5}"
    );
    let p5_two = json(&["predict", "--system", "p5", "--nodes", "2", "--bytes", "1K", "--json"]);
    assert!(p5_two["system"]["not_modelled"].is_null());
    // Exact sizes, lists and ranges; every preset listed.
    let presets = json(&["predict", "--system", "list", "--json"]);
    assert_eq!(presets["systems"].as_array().unwrap().len(), commlab_core::systems::PRESETS.len());
    let one = json(&["predict", "--system", "dgx-h100", "--bytes", "40000", "--json"]);
    assert_eq!(one["rows"][0]["bytes"], 40000);
    let a2a =
        json(&["predict", "--system", "gh200-slingshot", "--collective", "all-to-all", "--bytes", "1M", "--json"]);
    assert_eq!(a2a["rows"][0]["nccl_model_time_us"], Value::Null);
    assert!((a2a["busbw_factor"].as_f64().unwrap() - 7.0 / 8.0).abs() < 1e-12);
    for (args, flag) in [
        (&["--system", "dgx-h1000"][..], "--system"),
        (&["--system", "p4d", "--nodes", "0"], "--nodes"),
        (&["--system", "p4d", "--nodes", "1000"], "--nodes"),
        (&["--system", "p4d", "--bytes", "40000..40001"], "--bytes"),
        (&["--system", "p4d", "--bytes", "lots"], "--bytes"),
        (&["--system", "p4d", "--collective", "scan"], "--collective"),
        (&["--system", "p4d", "--nccl-version", "1.0"], "--nccl-version"),
        (&["--system", "custom:gpus=8,nics=3"], "--system"),
        (&["--system", "custom:colour=red"], "--system"),
        (&["--system", "p4d", "--nccl-version", "2.x"], "--nccl-version"),
    ] {
        let out = run(&[&["predict"][..], args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("error: {flag}:")), "{args:?}: {err}");
    }
}

/// `--system ID --nodes N` on `net sim` and `choose`: the preset's network
/// (`nodes:NxGxR`, its `NVLink` and NIC bandwidths) in place of `--topology`,
/// and for `choose --library nccl` its NCCL description.
#[test]
fn system_presets_on_net_sim_and_choose() {
    let dir = std::env::temp_dir().join(format!("commlab-system-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ring.goal");
    let f = file.to_str().unwrap();
    let gen = [
        "goal",
        "gen",
        "allreduce/ring",
        "--p",
        "16",
        "--bytes",
        "16777216",
        "--channels",
        "4",
        "--topology",
        "nodes:2x8x4",
        "-o",
        f,
    ];
    assert!(run(&gen).status.success());
    let v = json(&["net", "sim", f, "--system", "p4d", "--nodes", "2", "--json"]);
    assert_eq!(v["topology"], "nodes:2x8x4");
    assert_eq!((v["bandwidth"].as_f64(), v["bandwidth2"].as_f64()), (Some(240.0), Some(12.5)));
    // The same as naming the network by hand.
    let by_hand =
        json(&["net", "sim", f, "--topology", "nodes:2x8x4", "--bandwidth", "240", "--bandwidth2", "12.5", "--json"]);
    assert_eq!(v["max_time"], by_hand["max_time"]);
    let c = json(&[
        "choose",
        "--collective",
        "allreduce",
        "--p",
        "16",
        "--bytes",
        "1M..1M",
        "--system",
        "dgx-h100",
        "--nodes",
        "2",
        "--library",
        "nccl",
        "--json",
    ]);
    assert_eq!(c["topology"], "nodes:2x8");
    assert_eq!(c["rows"][0]["library_picks"]["nccl"]["algorithm"], "tree");
    // NCCL 2.22's NVLS model (busbw · 5/6, no efficiency) and the current
    // one's estimate NVLS tree differently at 64 MiB on the same system.
    let at_64m = |version: &str| {
        let args = ["choose", "--collective", "allreduce", "--p", "16", "--bytes", "64M..64M", "--system", "dgx-h100"];
        let v =
            json(&[&args[..], &["--nodes", "2", "--library", "nccl", "--nccl-version", version, "--json"]].concat());
        let pick = &v["rows"][0]["library_picks"]["nccl"];
        assert_eq!(pick["algorithm"], "nvls_tree", "{version}");
        pick["time_us"].as_f64().unwrap()
    };
    assert!(at_64m("2.22") < 0.9 * at_64m("current"));
    for (args, flag) in [
        (&["net", "sim", f, "--system", "p4d"][..], "--nodes"),
        (&["net", "sim", f, "--system", "p9", "--nodes", "2"], "--system"),
        (&["choose", "--collective", "allreduce", "--p", "8", "--system", "p4d", "--nodes", "2"], "--p"),
        (
            &[
                "choose",
                "--collective",
                "allreduce",
                "--p",
                "16",
                "--system",
                "p4d",
                "--nodes",
                "2",
                "--nccl-version",
                "1.2",
            ],
            "--nccl-version",
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("error: {flag}:")), "{args:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A run rccl-tests made (its name and an AMD Instinct device in the
/// header): the system fit says RCCL is not what NCCL's model describes and
/// gives no verdict on what the run should reach; the same numbers under
/// nccl-tests' header get one.
#[test]
fn an_rccl_run_gets_no_verdict_from_nccls_model() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/published/nccl-tests_dell-xe9680-h100-2nodes-x8gpu-8xcx7-ndr400_all_reduce.txt"
    );
    let text = std::fs::read_to_string(file).unwrap();
    let dir = std::env::temp_dir().join(format!("commlab-rccl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rccl = dir.join("rccl.txt");
    let header = "rccl-tests: Version develop:a7809b3\n# Using devices\n#  Rank  0 Group  0 Pid 7085 on node0 device  0 [0000:05:00] AMD Instinct MI300X\n";
    std::fs::write(&rccl, format!("{header}{text}")).unwrap();
    let args = |f: &str| {
        vec![
            "fit".to_owned(),
            f.to_owned(),
            "--p".into(),
            "16".into(),
            "--system".into(),
            "dgx-h100".into(),
            "--json".into(),
        ]
    };
    let ours = json(&args(rccl.to_str().unwrap()).iter().map(String::as_str).collect::<Vec<_>>());
    let fit = &ours["system_fit"];
    assert_eq!(fit["rccl"], true);
    assert!(fit["expectation"].is_null(), "{fit}");
    let summary = fit["summary"].as_str().unwrap();
    assert!(
        summary.contains("RCCL ran this run (AMD GPUs): NCCL's model and dgx-h100's NVIDIA links do not describe it"),
        "{summary}"
    );
    assert!(!summary.contains("This cluster reaches"), "{summary}");
    let nccl = json(&args(file).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(nccl["system_fit"]["rccl"], false);
    assert!(nccl["system_fit"]["summary"].as_str().unwrap().contains("This cluster reaches"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `commlab fit FILE --system ID --predict-nodes M --json`: the keys outside
/// checks read (`system_fit`, `prediction` with `bytes`, `time_us`, `busbw`;
/// `tied`; each point's `busbw`), the expectation equal to `commlab
/// predict`'s, a prediction at the measured node count equal to the fit, and
/// errors that name the flag.
#[test]
fn fit_a_system_and_predict_another_node_count() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/published/nccl-tests_dell-xe9680-h100-2nodes-x8gpu-8xcx7-ndr400_all_reduce.txt"
    );
    let v = json(&["fit", file, "--p", "16", "--system", "dgx-h100", "--predict-nodes", "2", "--json"]);
    assert!(v["tied"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(v["points"].as_array().unwrap().iter().all(|p| p["busbw"].as_f64().is_some()));
    let fit = &v["system_fit"];
    assert_eq!(fit["system"], "dgx-h100");
    assert_eq!(fit["nodes"], 2);
    let keys: Vec<&str> = fit["parameters"].as_array().unwrap().iter().map(|p| p["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["inter_bw", "intra_bw", "latency"]);
    for p in fit["parameters"].as_array().unwrap() {
        let (value, nominal, scale) =
            (p["value"].as_f64().unwrap(), p["nominal"].as_f64().unwrap(), p["scale"].as_f64().unwrap());
        assert!((value - nominal * scale).abs() <= 1e-9 * value.abs(), "{p}");
        assert_eq!(p["measured"].as_bool(), Some(p["scale_err"].as_f64().is_some_and(|e| e > 0.0)), "{p}");
    }
    // NCCL runs NVLS tree at the largest sizes, which moves at NVLink's pace:
    // NVLink is measured across nodes there (93 % ± 22 % on this run), and so
    // are the fixed costs.
    assert_eq!(fit["parameters"][1]["measured"], true);
    assert!((fit["parameters"][1]["scale"].as_f64().unwrap() - 1.0).abs() < 0.3, "{fit}");
    assert_eq!(fit["parameters"][2]["measured"], true);
    assert_eq!(fit["expectation"]["from_bytes"], 64 << 20);
    // The expectation is `commlab predict`'s time at each size.
    let predicted = json(&["predict", "--system", "dgx-h100", "--nodes", "2", "--bytes", "64M,1G", "--json"]);
    for row in predicted["rows"].as_array().unwrap() {
        let point = fit["points"].as_array().unwrap().iter().find(|p| p["bytes"] == row["bytes"]).unwrap();
        let (a, b) = (point["expected_us"].as_f64().unwrap(), row["time_us"].as_f64().unwrap());
        assert!((a - b).abs() <= 1e-9 * b, "{}: {a} against predict's {b}", row["bytes"]);
    }
    // At the measured node count the prediction is the fit itself, in
    // nccl-tests' busbw (allreduce on 16 ranks: 2 · 15/16).
    let prediction = v["prediction"].as_array().unwrap();
    assert_eq!(prediction.len(), fit["points"].as_array().unwrap().len());
    for (row, point) in prediction.iter().zip(fit["points"].as_array().unwrap()) {
        let t = row["time_us"].as_f64().unwrap();
        assert!((t - point["fitted_us"].as_f64().unwrap()).abs() <= 1e-9 * t);
        let busbw = row["bytes"].as_f64().unwrap() / (t * 1000.0) * 2.0 * 15.0 / 16.0;
        assert!((row["busbw"].as_f64().unwrap() - busbw).abs() <= 1e-9 * busbw);
    }
    let osu = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/published/osu_cscs-alps-gh200-ompi5.0.8_osu_alltoall_CPU-CPU_2nodes-x4ppn_cxi.txt"
    );
    for (args, flag) in [
        (&[file, "--p", "16", "--system", "dgx-h1000"][..], "--system"),
        (&[file, "--p", "16", "--system", "dgx-h100", "--nodes", "3"], "--nodes"),
        (&[file, "--p", "12", "--system", "dgx-h100"], "--nodes"),
        (&[file, "--p", "16", "--system", "dgx-h100", "--predict-nodes", "0"], "--predict-nodes"),
        (&[file, "--p", "16", "--system", "dgx-h100", "--predict-nodes", "1000"], "--predict-nodes"),
        (&[file, "--p", "16", "--system", "dgx-h100", "--predict-nodes", "9"], "--predict-nodes"),
        (&[file, "--p", "16", "--predict-nodes", "4"], "--predict-nodes"),
        (&[osu, "--p", "8", "--collective", "all-to-all", "--system", "gh200-slingshot"], "--system"),
    ] {
        let out = run(&[&["fit"][..], args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("error: {flag}:")), "{args:?}: {err}");
    }
}

/// `commlab fit FILE --json` with no `--p` and no `--collective` on every
/// published nccl-tests file: p and the collective as the file's name says
/// them (nodes × GPUs, written by the person who ran it), p from the rank
/// list where there is one and from busbw / algbw where there is none.
#[test]
fn fit_reads_p_and_the_collective_from_every_published_nccl_tests_file() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/published");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.starts_with("nccl-tests_") {
            continue;
        }
        // "…-2nodes-x8gpu-…" or "…-1node-x8gpu-…".
        let number_before = |suffix: &str| -> u32 {
            let at = name.find(suffix).unwrap();
            let digits: String = name[..at].chars().rev().take_while(char::is_ascii_digit).collect();
            digits.chars().rev().collect::<String>().parse().unwrap()
        };
        let nodes = if name.contains("nodes-") { number_before("nodes-") } else { number_before("node-") };
        let p = nodes * number_before("gpu");
        let collective = if name.ends_with("_all_gather.txt") { "allgather" } else { "allreduce" };
        let v = json(&["fit", path.to_str().unwrap(), "--json"]);
        assert_eq!(v["p"], p, "{name}");
        assert_eq!(v["collective"], collective, "{name}");
        let lists = std::fs::read_to_string(&path).unwrap().contains("#  Rank");
        assert_eq!(v["p_source"], if lists { "ranks" } else { "busbw" }, "{name}");
        assert!(v["p_note"].is_null(), "{name}: {}", v["p_note"]);
        seen += 1;
    }
    assert_eq!(seen, 5);
}

/// A 4 × 8 H100 run as published copies print it (no rank list): busbw /
/// algbw is allreduce's 2·31/32, so p = 32 with `--system dgx-h100 --nodes 4`
/// and with no flag; an explicit `--p` that disagrees is named with both
/// values and wins (a System of another size: `commlab_api::fit`'s tests).
#[test]
fn fit_takes_p_from_busbw_and_names_a_disagreeing_p() {
    let dir = std::env::temp_dir().join(format!("commlab-fit-p-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("h100-4nodes.txt");
    let mut text = String::from("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n");
    // Few sizes: the system fit simulates each many times (a debug build runs this).
    for k in (10..=30).step_by(4) {
        let bytes = 1u64 << k;
        let time = 40.0 + bytes as f64 / 180_000.0;
        let algbw = bytes as f64 / time / 1000.0;
        let busbw = algbw * 2.0 * 31.0 / 32.0;
        let _ = writeln!(text,
            "{bytes:>13} {:>13}     float     sum      -1 {time:8.1} {algbw:7.2} {busbw:7.2}      0 {time:8.1} {algbw:7.2} {busbw:7.2}      0",
            bytes / 4
        );
    }
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let v = json(&["fit", f, "--system", "dgx-h100", "--nodes", "4", "--json"]);
    assert_eq!((v["p"].as_u64(), v["p_source"].as_str()), (Some(32), Some("busbw")));
    assert!(v["p_note"].is_null(), "{}", v["p_note"]);
    assert!(v["system_fit"].is_object());
    let v = json(&["fit", f, "--json"]);
    assert_eq!((v["p"].as_u64(), v["p_source"].as_str()), (Some(32), Some("busbw")));
    let out = run(&["fit", f, "--p", "64", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["p"].as_u64(), v["p_source"].as_str()), (Some(64), Some("flag")));
    let warning = String::from_utf8_lossy(&out.stderr);
    assert!(warning.contains("--p 64") && warning.contains("p = 32"), "{warning}");
    // Only the System says p: its GPUs ("system"); nothing says it: the error names --p.
    let small = dir.join("small.txt");
    std::fs::write(&small, "           8             2     float     sum      -1    17.93    0.00    0.00      0    17.72    0.00    0.00      0\n          16             4     float     sum      -1    17.65    0.00    0.00      0    17.63    0.00    0.00      0\n").unwrap();
    let out = run(&["fit", small.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: --p:"));
    std::fs::remove_dir_all(&dir).ok();
}

/// rccl-tests' output as it prints it: the version line, AMD Instinct
/// devices, sizes below the type's width printed as 0, `N/A` in the in-place
/// `#wrong` column. Its `all_reduce` (with a rank list) and `alltoall` (without,
/// p from busbw / algbw = (p − 1)/p) are read; the size-0 rows are skipped
/// and counted; the JSON says `rccl`.
#[test]
fn rccl_tests_output_is_read() {
    let dir = std::env::temp_dir().join(format!("commlab-rccl-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let header = |ranks: u32| {
        let mut h = String::from("# nThread 1 nGpus 1 minBytes 1 maxBytes 1073741824 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\nrccl-tests: Version develop:ae3e635\n# Using devices\n");
        for r in 0..ranks {
            let _ = writeln!(
                h,
                "#  Rank {r:2} Group  0 Pid {} on mi355-0 device {r:2} [0000:{:02x}:00] AMD Instinct MI355X",
                4000 + r,
                5 + r
            );
        }
        h + "#\n#                                                              out-of-place                       in-place\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
    };
    let rows = |factor: f64, redop: &str, na: bool| {
        let mut t = String::new();
        for _ in 0..3 {
            let _ = writeln!(t, "           0             0     float {redop:>7}      -1     0.09    0.00    0.00      0     0.08    0.00    0.00    {}", if na { "N/A" } else { "0" });
        }
        for k in 7..=28 {
            let bytes = 1u64 << k;
            let time = 12.0 + bytes as f64 / 90_000.0;
            let algbw = bytes as f64 / time / 1000.0;
            let _ = writeln!(t,
                "{bytes:>12} {:>13}     float {redop:>7}      -1 {time:8.2} {algbw:7.2} {:7.2}      0 {time:8.2} {algbw:7.2} {:7.2}    {}",
                bytes / 4,
                algbw * factor,
                algbw * factor,
                if na { "N/A" } else { "0" }
            );
        }
        t
    };
    let all_reduce = dir.join("all_reduce_perf.txt");
    std::fs::write(&all_reduce, header(8) + &rows(2.0 * 7.0 / 8.0, "sum", false)).unwrap();
    let alltoall = dir.join("mi355x_alltoall.txt");
    std::fs::write(&alltoall, header(0) + &rows(15.0 / 16.0, "none", true)).unwrap();
    let v = json(&["fit", all_reduce.to_str().unwrap(), "--json"]);
    assert_eq!((v["p"].as_u64(), v["p_source"].as_str(), v["rccl"].as_bool()), (Some(8), Some("ranks"), Some(true)));
    assert_eq!((v["zero_size_rows_skipped"].as_u64(), v["points"].as_array().unwrap().len()), (Some(3), 22));
    let v = json(&["fit", alltoall.to_str().unwrap(), "--json"]);
    assert_eq!(v["collective"], "all-to-all");
    assert_eq!((v["p"].as_u64(), v["p_source"].as_str(), v["rccl"].as_bool()), (Some(16), Some("busbw"), Some(true)));
    assert_eq!((v["zero_size_rows_skipped"].as_u64(), v["points"].as_array().unwrap().len()), (Some(3), 22));
    std::fs::remove_dir_all(&dir).ok();
}

/// On a network the table is the network's, in one unit: each starred
/// winner is the fastest of its row's printed times, which are the JSON's
/// network times (ns), and the model's winner is named where it differs.
#[test]
fn choose_on_a_network_prints_the_networks_times() {
    let args = ["choose", "--collective", "allreduce", "--p", "8", "--topology", "ring:8", "--bytes", "1K,1M"];
    let out = run(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = json(&[&args[..], &["--json"]].concat());
    assert!(text.lines().next().unwrap().contains("times in ns, simulated on ring:8"), "{text}");
    assert!(!text.contains("units of α"), "{text}");
    let ids: Vec<&str> = v["algorithms"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    for (line, row) in text.lines().skip(2).zip(v["rows"].as_array().unwrap()) {
        let cells: Vec<&str> = line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        let printed: Vec<f64> = cells[1..=ids.len()]
            .iter()
            .map(|c| c.split(" (").next().unwrap().replace(['*', '\u{2009}'], "").parse().unwrap())
            .collect();
        for (k, id) in ids.iter().enumerate() {
            let ns = row["network"][*id].as_f64().unwrap();
            assert!((printed[k] - ns).abs() <= 0.01 * ns, "{id}: printed {} vs the network's {ns}", printed[k]);
        }
        let starred = cells.iter().position(|c| c.contains('*')).unwrap() - 1;
        let fastest = (0..ids.len()).min_by(|&a, &b| printed[a].total_cmp(&printed[b])).unwrap();
        assert_eq!(ids[starred], ids[fastest], "{line}");
        if row["model_winner"] != row["winner"] {
            assert!(line.contains(&format!("model: {}", row["model_winner"].as_str().unwrap())), "{line}");
        }
    }
}

/// The "NCCL's model" column is said to be NCCL's ranking estimate, and the
/// row where it is furthest from the simulation is named with both numbers.
#[test]
fn predict_says_what_nccls_model_is_and_where_it_is_furthest() {
    let args = ["predict", "--system", "hgx-b200", "--nodes", "2", "--bytes", "1M,1G"];
    let v = json(&[&args[..], &["--json"]].concat());
    let rows = v["rows"].as_array().unwrap();
    let gap = |r: &Value| (r["nccl_model_time_us"].as_f64().unwrap() / r["time_us"].as_f64().unwrap()).ln().abs();
    let worst = rows.iter().max_by(|a, b| gap(a).total_cmp(&gap(b))).unwrap();
    let note = v["model_note"].as_str().unwrap();
    for number in [
        format!("{:.1} µs", worst["nccl_model_time_us"].as_f64().unwrap()),
        format!("{:.1} µs", worst["time_us"].as_f64().unwrap()),
        format!("at {} B", worst["bytes"]),
    ] {
        assert!(note.contains(&number), "{number} in {note}");
    }
    assert!(note.contains("only to rank"), "{note}");
    let text = String::from_utf8_lossy(&run(&args).stdout).into_owned();
    assert!(text.contains(note), "{text}");
}

/// `commlab predict --engine`: `engine` on every row, the flow engine's
/// band on a ring over several channels (its 7 runs hold the nominal one,
/// which is the row's time), the steady engine's ring smooth, and any other
/// engine refused with exit 2 naming the flag.
#[test]
fn predict_names_its_engine_and_the_flow_band() {
    let args = ["predict", "--system", "dgx-h100", "--nodes", "4", "--bytes", "1K,1G", "--json"];
    let flow = json(&args);
    let ring = &flow["rows"][1];
    assert_eq!((ring["algorithm"].as_str(), ring["engine"].as_str()), (Some("ring"), Some("flow")));
    let (lo, hi, mean) = (
        ring["band"]["min_us"].as_f64().unwrap(),
        ring["band"]["max_us"].as_f64().unwrap(),
        ring["band"]["mean_us"].as_f64().unwrap(),
    );
    let t = ring["time_us"].as_f64().unwrap();
    assert_eq!(ring["band"]["runs"], 7);
    assert!(lo <= t && t <= hi && lo <= mean && mean <= hi && hi > lo, "{ring}");
    assert!(flow["rows"][0]["band"].is_null(), "a tree's time has no band");
    let steady = json(&[&args[..], &["--engine", "steady"]].concat());
    let ring = &steady["rows"][1];
    assert_eq!((ring["engine"].as_str(), ring["coupled"].as_bool()), (Some("steady"), Some(false)));
    assert!(ring["band"].is_null());
    // The steady ring is within the flow band's spread of its mean here
    // (docs/systems.md, "Two engines": worst cases measured there).
    let s = ring["time_us"].as_f64().unwrap();
    assert!((s / mean - 1.0).abs() < 0.1, "steady {s} against the flow mean {mean}");
    assert_eq!(steady["rows"][0]["engine"], "steady", "NCCL's tree from its steady state too");
    let out = run(&["predict", "--system", "dgx-h100", "--engine", "fast"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--engine") && err.contains("steady or flow"), "{err}");
    let table = String::from_utf8_lossy(&run(&args[..args.len() - 1]).stdout).into_owned();
    assert!(table.contains("its 7 runs with the system's values moved ±0.5 %"), "{table}");
}

/// The steady engine at scale: 1 024 nodes of `dgx-h100` (8 192 ranks),
/// 8 B to 16 GiB, every row from the steady state (NCCL's tree, NVLS tree
/// and ring), the time growing with the size; the flow engine refuses more
/// than 128 nodes and says which engine takes them, and a size that only
/// the flow engine runs (broadcast's chain) is refused past 128 nodes
/// naming its schedule.
#[test]
fn predict_at_a_thousand_nodes_with_the_steady_engine() {
    let v = json(&[
        "predict", "--system", "dgx-h100", "--nodes", "1024", "--bytes", "8..16G", "--engine", "steady", "--json",
    ]);
    assert_eq!(v["ranks"], 8192);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 32);
    let mut last = 0.0;
    for r in rows {
        assert_eq!(r["engine"], "steady", "{r}");
        let t = r["time_us"].as_f64().unwrap();
        assert!(t >= last && r["busbw"].as_f64().unwrap() > 0.0, "{r}");
        last = t;
    }
    let picks: std::collections::BTreeSet<&str> = rows.iter().filter_map(|r| r["algorithm"].as_str()).collect();
    assert!(picks.contains("tree") && picks.contains("nvls_tree"), "{picks:?}");
    for (args, wants) in [
        (&["predict", "--system", "dgx-h100", "--nodes", "256"][..], &["--nodes", "1 to 128", "--engine steady"][..]),
        (&["predict", "--system", "dgx-h100", "--nodes", "1025", "--engine", "steady"], &["--nodes", "1 to 1024"]),
        (
            &["predict", "--system", "dgx-h100", "--nodes", "256", "--engine", "steady", "--collective", "broadcast"],
            &["--nodes", "chain", "flow engine"],
        ),
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(wants.iter().all(|w| err.contains(w)), "{args:?}: {err}");
    }
}

/// `commlab fit … --system ID --engine steady`: the system's rings from
/// their steady state (the fit's accuracy across node counts is checked in
/// `crates/commlab-api/tests/steady.rs`); here the flag end to end: the
/// prediction has every size, and an unknown engine, or one without
/// `--system`, exits 2 naming `--engine`.
#[test]
fn fit_a_system_with_the_steady_engine() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/published/nccl-tests_dell-xe9680-h100-2nodes-x8gpu-8xcx7-ndr400_all_reduce.txt"
    );
    let v = json(&[
        "fit",
        file,
        "--p",
        "16",
        "--system",
        "dgx-h100",
        "--predict-nodes",
        "4",
        "--engine",
        "steady",
        "--json",
    ]);
    let rows = v["prediction"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|r| r["time_us"].as_f64().is_some_and(|t| t > 0.0)), "{v}");
    for args in [&["--system", "dgx-h100", "--engine", "fast"][..], &["--engine", "steady"][..]] {
        let out = run(&[&["fit", file, "--p", "16"][..], args].concat());
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--engine"), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // The steady engine predicts 64 nodes (512 ranks) from the 2-node run;
    // the flow engine stops at 8 and says so.
    let fit = |engine: &str| {
        let args =
            ["fit", file, "--p", "16", "--system", "dgx-h100", "--predict-nodes", "64", "--engine", engine, "--json"];
        run(&args)
    };
    let out = fit("steady");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["prediction"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|r| r["time_us"].as_f64().is_some_and(|t| t > 0.0)), "{v}");
    let out = fit("flow");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--predict-nodes") && err.contains("1 to 8"), "{err}");
}

/// `choose --system custom:… --library nccl` says NCCL's gain sentence on
/// that system; with DGX H100's values (8 Hopper GPUs on 18 `NVLink` links, 8
/// NICs of 400 Gb/s) it is the preset's sentence, word for word but the name.
#[test]
fn choose_on_a_custom_system_says_nccl_s_sentence() {
    let gains = |system: &str| {
        let args = ["choose", "--collective", "allreduce", "--p", "16", "--bytes", "1M..16M", "--system", system];
        json(&[&args[..], &["--nodes", "2", "--library", "nccl", "--json"]].concat())["library_gains"].clone()
    };
    let custom = gains("custom:gpus=8,arch=hopper,nvlinks=18,nics=8,nic-gbps=400");
    let said = custom[0].as_str().expect("a sentence");
    assert!(said.starts_with("NCCL on 2 × custom: its own algorithms"), "{said}");
    let preset = gains("dgx-h100");
    assert_eq!(said, preset[0].as_str().unwrap().replace("dgx-h100", "custom"));
}

/// The ranges the help texts write are the api's: a System's nodes by
/// engine, a fit's, and the Chooser's ranks (a range changed in one place
/// and not in the help fails here).
#[test]
fn the_help_texts_write_the_api_s_ranges() {
    use commlab_api::predict::{FIT_NODES, NODES, STEADY_NODES};
    let help = |command: &str| String::from_utf8(run(&[command, "--help"]).stdout).unwrap().replace('\n', " ");
    let squeeze = |t: String| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let range = |r: commlab_core::limits::IntRange| format!("{}..={}", r.min, r.max);
    let predict = squeeze(help("predict"));
    let want = format!("Nodes ({}; {} with --engine steady)", range(NODES), range(STEADY_NODES));
    assert!(predict.contains(&want), "{want} in {predict}");
    // Every preset and every custom key, with its range, as the api reads them.
    let listed = predict.split("A system preset (").nth(1).and_then(|t| t.split(')').next()).unwrap_or_default();
    let ids: Vec<&str> = commlab_core::systems::PRESETS.iter().map(|p| p.id).collect();
    assert_eq!(listed, ids.join(", "));
    for (key, _) in commlab_core::systems::CUSTOM_KEYS {
        assert!(predict.contains(&format!(" {key}: ")), "{key} in {predict}");
    }
    assert!(predict.contains("gpus: GPUs per node, 1..=72;"), "{predict}");
    let fit = squeeze(help("fit"));
    let want = format!("({}; {} with --engine steady)", range(FIT_NODES), range(STEADY_NODES));
    assert!(fit.contains(&want), "{want} in {fit}");
    let choose = squeeze(help("choose"));
    let want = format!("Ranks ({})", range(commlab_core::limits::chooser::P));
    assert!(choose.contains(&want), "{want} in {choose}");
}

/// NCCL's settings steer its pick as NCCL's own environment does: the run
/// of 128 × 8 H100 made with `NCCL_ALGO=Ring NCCL_PROTO=LL128
/// NCCL_MIN_NCHANNELS=32 NCCL_NVLS_ENABLE=0` is ring/LL128 on 32 channels
/// at every size; without them NCCL's own pick (NVLS tree, tree) comes
/// back; a name or value NCCL would refuse exits 2 naming it.
#[test]
fn nccl_s_settings_steer_its_pick() {
    let base =
        ["predict", "--system", "dgx-h100", "--nodes", "128", "--engine", "steady", "--bytes", "8..1G", "--json"];
    let env = [
        "--env",
        "NCCL_ALGO=Ring",
        "--env",
        "NCCL_PROTO=LL128",
        "--env",
        "NCCL_MIN_NCHANNELS=32",
        "--env",
        "NCCL_NVLS_ENABLE=0",
    ];
    let forced = json(&[&base[..], &env[..]].concat());
    let rows = forced["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 28);
    for r in rows {
        assert_eq!(
            (r["algorithm"].as_str(), r["protocol"].as_str(), r["channels"].as_u64()),
            (Some("ring"), Some("ll128"), Some(32)),
            "{r}"
        );
    }
    assert_eq!(forced["system"]["env"], "NCCL_ALGO=Ring NCCL_PROTO=LL128 NCCL_MIN_NCHANNELS=32 NCCL_NVLS_ENABLE=0");
    let own = json(&base);
    let picks: std::collections::BTreeSet<&str> =
        own["rows"].as_array().unwrap().iter().map(|r| r["algorithm"].as_str().unwrap()).collect();
    assert!(picks.contains("nvls_tree") && !picks.contains("ring"), "{picks:?}");
    assert_eq!(own["system"]["env"], "");
    // Per function (from 2.28): allgather is told ring, allreduce keeps NCCL's pick.
    let per = json(&[
        "predict",
        "--system",
        "dgx-h100",
        "--nodes",
        "2",
        "--bytes",
        "1G",
        "--env",
        "NCCL_ALGO=allgather:ring",
        "--json",
    ]);
    assert_eq!(per["rows"][0]["algorithm"], "nvls_tree");
    // Refused: an unknown name, a value NCCL refuses, a list NCCL 2.22 reads as nothing.
    for (args, said) in [
        (vec!["--env", "NCCL_ALGOS=Ring"], "NCCL_ALGOS: not a setting commlab reads"),
        (vec!["--env", "NCCL_ALGO=Rnig"], "unrecognized element \"Rnig\""),
        (vec!["--env", "NCCL_NVLS_ENABLE=yes"], "NCCL_NVLS_ENABLE: \"yes\": expected 0, 1 or 2"),
        (vec!["--env", "NCCL_ALGO=NVLS"], "leaves NCCL 2.30.7 no algorithm"),
        (
            vec!["--nccl-version", "2.22", "--env", "NCCL_ALGO=allreduce:ring"],
            "NCCL 2.22 ignores a name it does not know",
        ),
        (vec!["--env", "ring"], "expected NAME=VALUE"),
    ] {
        let out = run(&[&["predict", "--system", "dgx-h100", "--nodes", "2", "--bytes", "1G"][..], &args].concat());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--env") && err.contains(said), "{args:?}: {err}");
    }
}

/// Against published numbers no one here made: the poster of the Dell
/// XE9680 run (tests/data/published, its header) reports one node of 8 H100
/// at up to 482.12 GB/s busbw with NCCL's own pick (NVLS) and 368.76 GB/s
/// with `NCCL_NVLS_ENABLE=0`. `predict` on one `dgx-h100` node at 16 GiB,
/// with and without that setting, gives NVLS and the ring within 3 % of each.
#[test]
fn nvls_off_on_one_h100_node_meets_the_published_busbw() {
    let busbw = |env: &[&str]| {
        let base = ["predict", "--system", "dgx-h100", "--nodes", "1", "--bytes", "16G", "--json"];
        let v = json(&[&base[..], env].concat());
        let r = &v["rows"][0];
        (r["algorithm"].as_str().unwrap().to_owned(), r["busbw"].as_f64().unwrap())
    };
    let (own, with_nvls) = busbw(&[]);
    let (off, without) = busbw(&["--env", "NCCL_NVLS_ENABLE=0"]);
    assert_eq!((own.as_str(), off.as_str()), ("nvls", "ring"));
    assert!((with_nvls / 482.12 - 1.0).abs() < 0.03, "{with_nvls} GB/s against 482.12 published");
    assert!((without / 368.76 - 1.0).abs() < 0.03, "{without} GB/s against 368.76 published");
}

/// `predict --from FILE` on each published nccl-tests run: the ranks and
/// nodes its row in `tests/data/published`' source table states (p4de 2 × 8,
/// p5 one node of 8, Alps 2 × 4, Dell 2 × 8, A3 Ultra 2 × 8), read from
/// what the file prints (rank list and hosts, or busbw / algbw), every gap
/// named as an assumption, and each measured size beside its prediction.
#[test]
fn predict_from_a_published_log_finds_the_run_it_describes() {
    let dir = format!("{}/../../tests/data/published", env!("CARGO_MANIFEST_DIR"));
    for (name, ranks, nodes, node_assumed) in [
        ("nccl-tests_aws-p4de-a100-2nodes-x8gpu-efa400_all_reduce.txt", 16, 2, true),
        ("nccl-tests_aws-p5-h100-1node-x8gpu-batch_all_reduce.txt", 8, 1, true),
        ("nccl-tests_cscs-alps-gh200-2nodes-x4gpu-slingshot_all_reduce.txt", 8, 2, false),
        ("nccl-tests_dell-xe9680-h100-2nodes-x8gpu-8xcx7-ndr400_all_reduce.txt", 16, 2, true),
        ("nccl-tests_gcp-a3ultra-h200-2nodes-x8gpu-gke_all_gather.txt", 16, 2, true),
    ] {
        let v = json(&["predict", "--from", &format!("{dir}/{name}"), "--engine", "steady", "--json"]);
        assert_eq!((v["ranks"].as_u64(), v["nodes"].as_u64()), (Some(ranks), Some(nodes)), "{name}");
        let assumed: Vec<&str> = v["from"]["assumed"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        // A table without a rank list names no GPU: the node is an assumption, said.
        assert_eq!(assumed.iter().any(|a| a.starts_with("node: ")), node_assumed, "{name}: {assumed:?}");
        assert!(!assumed.is_empty(), "{name}");
        let rows = v["rows"].as_array().unwrap();
        assert!(rows.iter().all(|r| r["measured_us"].as_f64().is_some_and(|t| t > 0.0)), "{name}");
    }
    // The Alps run lists its GH200s on two hosts: its node, read, not assumed.
    let alps = json(&[
        "predict",
        "--from",
        &format!("{dir}/nccl-tests_cscs-alps-gh200-2nodes-x4gpu-slingshot_all_reduce.txt"),
        "--json",
    ]);
    assert_eq!(alps["system"]["id"], "gh200-slingshot");
    // Flags win over the log, and the table says where each fact came from.
    let p4de = format!("{dir}/nccl-tests_aws-p4de-a100-2nodes-x8gpu-efa400_all_reduce.txt");
    let v = json(&["predict", "--from", &p4de, "--system", "p4d", "--nccl-version", "2.20.3", "--json"]);
    assert_eq!((v["system"]["id"].as_str(), v["ranks"].as_u64()), (Some("p4d"), Some(16)));
    assert_eq!(v["system"]["nccl"]["version"], "NCCL 2.22.3");
    let out = run(&["predict", "--from", &p4de, "--system", "p4d", "--bytes", "1M"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("node: p4d (given)") && table.contains("measured") && table.contains("309.4"), "{table}");
}

/// A log `--from` cannot place: exit 2 naming `--from` and what to give.
#[test]
fn predict_from_a_log_it_cannot_place_names_the_flag() {
    let dir = std::env::temp_dir().join(format!("commlab-from-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let row = "     1048576        262144     float     sum      -1    100.0   10.49   18.35      0    100.0   10.49   18.35      0";
    for (text, says) in [
        (format!("#  Rank  0 Group  0 Pid 1 on a device  0 [0x01] NVIDIA L40S\n{row}\n"), "NVIDIA L40S"),
        ("# no rows here\n".to_owned(), "no nccl-tests data rows"),
    ] {
        let file = dir.join("log.txt");
        std::fs::write(&file, text).unwrap();
        let out = run(&["predict", "--from", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("--from") && err.contains(says), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `fit --system log`: the System fitted is the one the run prints (the
/// Alps run's rank list: 2 hosts of 4 GH200), said line by line.
#[test]
fn fit_takes_its_system_from_the_log() {
    let file = format!(
        "{}/../../tests/data/published/nccl-tests_cscs-alps-gh200-2nodes-x4gpu-slingshot_all_reduce.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let v = json(&["fit", &file, "--system", "log", "--engine", "steady", "--json"]);
    assert_eq!(
        (v["system_fit"]["system"].as_str(), v["system_fit"]["nodes"].as_u64()),
        (Some("gh200-slingshot"), Some(2))
    );
    let read: Vec<&str> =
        v["system_fit"]["from"]["read"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(read.iter().any(|r| r.starts_with("2 nodes (the rank list's hosts")), "{read:?}");
}

/// A node without `NVLink` (`nvlinks=0,pcie=gen4`): NCCL turns LL128 off
/// there (`tuning.cc`: LL128 only over `NVLink`), so no size picks it, where
/// the same node with `NVLink` does; and one node's large allreduce reaches
/// the closed form of a ring on a star of x16 gen4 links, NCCL's 24 GB/s
/// (`topo.cc`: 16 lanes × 120 / 80), as busbw.
#[test]
fn pcie_nodes_run_without_ll128_at_their_link_rate() {
    let picks = |system: &str, nodes: &str| -> std::collections::BTreeSet<String> {
        let v = json(&[
            "predict", "--system", system, "--nodes", nodes, "--engine", "steady", "--bytes", "8..16G", "--json",
        ]);
        v["rows"].as_array().unwrap().iter().map(|r| r["protocol"].as_str().unwrap().to_owned()).collect()
    };
    for nodes in ["1", "2"] {
        assert!(!picks("custom:gpus=8,nvlinks=0,pcie=gen4", nodes).contains("ll128"), "{nodes}");
        assert!(picks("custom:gpus=8,nvlinks=18,nvls=0", nodes).contains("ll128"), "{nodes}");
    }
    let v = json(&[
        "predict",
        "--system",
        "custom:gpus=8,nvlinks=0,pcie=gen4,nics=4",
        "--nodes",
        "1",
        "--bytes",
        "1G",
        "--json",
    ]);
    let busbw = v["rows"][0]["busbw"].as_f64().unwrap();
    assert!((0.9 * 24.0..=24.0).contains(&busbw), "{busbw}");
    assert!(
        v["system"]["nccl"]["description"].as_str().is_none_or(|d| d.contains("link=pcie")),
        "{}",
        v["system"]["nccl"]
    );
}

/// NVL72 racks: one `NVLink` domain of 72 GPUs is one NCCL node, whose large
/// allreduces run NVLS; two domains run NVLS tree or NCCL's other picks
/// (plain NVLS across nodes needs `CollNet`, `tuning.cc`), never plain NVLS;
/// rings and trees take at most NCCL's MAXCHANNELS (64), not one a NIC.
#[test]
fn nvl72_domains_run_nvls_inside_and_nvls_tree_across() {
    for id in ["gb200-nvl72", "gb300-nvl72"] {
        let one = json(&["predict", "--system", id, "--nodes", "1", "--bytes", "64M,1G", "--json"]);
        assert_eq!(one["ranks"], 72);
        assert!(one["rows"].as_array().unwrap().iter().all(|r| r["algorithm"] == "nvls"), "{id}: {}", one["rows"]);
        let two =
            json(&["predict", "--system", id, "--nodes", "2", "--engine", "steady", "--bytes", "8..16G", "--json"]);
        for r in two["rows"].as_array().unwrap() {
            let a = r["algorithm"].as_str().unwrap();
            assert!(["nvls_tree", "ring", "tree"].contains(&a), "{id}: {r}");
            assert!(r["channels"].as_u64().unwrap() <= 64, "{id}: {r}");
        }
    }
    // A domain that is not whole trays: refused, naming the key.
    let out = run(&["predict", "--system", "custom:gpus=4,domain=70", "--nodes", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("domain = 70"));
}

//! The CSV/JSON exports (`exports.rs`), natively: each file's rows checked
//! against numbers worked out here from the spec, and every JSON parsed.

use commlab_api::exports;
use commlab_api::model::ModelRequest;
use commlab_api::swizzle::SwizzleRequest;
use commlab_api::tree::{PipelineRequest, TreeRequest};
use serde_json::Value;

fn tree(collective: &str, p: u64, inputs: &str) -> TreeRequest {
    TreeRequest {
        collective: collective.into(),
        message_passing: true,
        units: p,
        elements: 1,
        operator: "sum".into(),
        seed: 1,
        padded: false,
        inputs: Some(inputs.into()),
    }
}

/// p = 5, inputs 1…5: the spec's loop leaves 1+2 at unit 0 and 3+4 at unit 2
/// after step 1, 1+…+4 at unit 0 after step 2 and 15 after step 3.
#[test]
fn tree_csv_and_json_hold_the_spec_values() {
    let request = tree("reduce", 5, "1; 2; 3; 4; 5");
    let run = request.run().unwrap();
    let csv = exports::tree_csv(&run);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "step,unit,state,x0");
    assert_eq!(lines.len(), 1 + 4 * 5, "every unit after every step, inputs included");
    for row in [
        "0,0,active,1",
        "1,0,active,3",
        "1,1,inactive,2",
        "1,2,active,7",
        "2,0,active,10",
        "3,0,active,15",
        "3,4,inactive,5",
    ] {
        assert!(lines.contains(&row), "{row} missing from\n{csv}");
    }
    let json: Value = serde_json::from_str(&exports::tree_json(&run, &request)).unwrap();
    assert_eq!(json["final"][0][0], 15);
    assert_eq!(json["inputs"], serde_json::json!([[1], [2], [3], [4], [5]]));
    let pairs: Vec<Vec<(u64, u64)>> = json["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| (m["from"].as_u64().unwrap(), m["to"].as_u64().unwrap()))
                .collect()
        })
        .collect();
    assert_eq!(pairs, [vec![(1, 0), (3, 2)], vec![(2, 0)], vec![(4, 0)]]);
}

/// p = 4, m = 3 pieces of 6 elements: (p − 1)·m = 9 messages over p + m − 2 = 5
/// steps, piece j covering elements 2j and 2j + 1.
#[test]
fn pipeline_csv_lists_every_piece_message() {
    let request = PipelineRequest { units: 4, pieces: 3, elements: 6, seed: 1 };
    let run = request.run().unwrap();
    let csv = exports::pipeline_csv(&run.schedule, 6);
    let rows: Vec<Vec<u64>> = csv.lines().skip(1).map(|l| l.split(',').map(|c| c.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len(), 9);
    assert_eq!(rows.iter().map(|r| r[0]).max(), Some(5));
    for r in &rows {
        let (from, to, piece) = (r[1], r[2], r[3]);
        assert_eq!(from, to + 1, "the chain sends p_i+1 → p_i");
        assert_eq!((r[4], r[5]), (2 * piece, 2 * piece + 1));
    }
    let json: Value = serde_json::from_str(&exports::pipeline_json(&run.schedule, &request)).unwrap();
    assert_eq!(json["steps"], 5);
}

/// The seed's worked table, (2, 2, 4) on (2, 2) cores, as CSV rows.
#[test]
fn swizzle_csv_is_the_seeds_table() {
    let request = SwizzleRequest { grid: (2, 2, 4), cores: (2, 2), tile_bytes: 4096, ..SwizzleRequest::default() };
    let run = request.run().unwrap();
    let csv = exports::swizzle_csv(&run.schedule);
    let lines: Vec<&str> = csv.lines().take(5).collect();
    assert_eq!(lines, ["loop,core,step,row,column,rank", "0,0,0,0,0,0", "1,1,0,0,1,1", "2,2,0,0,0,2", "3,3,0,0,1,3"]);
    assert_eq!(csv.lines().count(), 1 + 16);
    let json: Value = serde_json::from_str(&exports::swizzle_json(&run.schedule, &run.naive, &run.cost)).unwrap();
    assert_eq!(json["steps"], 4);
    assert_eq!(json["bijective"], true);
}

/// T(m) rows are the closed form; `m_best` is the brute-force best.
#[test]
fn model_csv_and_json_follow_the_closed_form() {
    let request = ModelRequest { bytes: 4096, units: 9, t_start: 3.0, t_byte: 0.5, max_pieces: 64 };
    let run = request.run().unwrap();
    let t = |m: f64| (3.0 + 4096.0 / m * 0.5) * (9.0 + m - 2.0);
    let csv = exports::model_csv(&run);
    // The twin's points read back (m divides n = 4096 for the powers of two).
    let twin = exports::network_points(&csv);
    assert!(!twin.is_empty() && twin.iter().all(|p| run.network.contains(p)), "{twin:?} of {:?}", run.network);
    for &(m, time) in twin.iter().filter(|(m, _)| 4096 % m == 0) {
        assert!((time - t(m as f64)).abs() < 1e-9 * time, "network m = {m}");
    }
    let mut rows = 0;
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let m: f64 = cells[0].parse().unwrap();
        let model: f64 = cells[1].parse().unwrap();
        assert!((model - t(m)).abs() < 1e-9 * model, "m = {m}");
        if let Ok(simulated) = cells[2].parse::<f64>() {
            assert!((simulated - model).abs() < 1e-6 * model, "simulated m = {m}");
        }
        rows += 1;
    }
    assert_eq!(rows, 64, "every m of 1 to 64");
    let json: Value = serde_json::from_str(&exports::model_json(&run)).unwrap();
    let best = (1..=4096u64).min_by(|&a, &b| t(a as f64).total_cmp(&t(b as f64))).unwrap();
    assert_eq!(json["m_best"], best);
}

#[test]
fn uq_csv_walks_k1_then_k2() {
    let csv = exports::uq_csv(&[0.0, 0.5, 0.25, 0.0], &[0.0, 0.25, 0.5, 0.0], 2);
    assert_eq!(csv, "k1,k2,uq_lct,uq_bst,lct_minus_bst\n0,0,0,0,0\n0,1,0.5,0.25,0.25\n1,0,0.25,0.5,-0.25\n1,1,0,0,0\n");
}

/// The Chooser's CSV, against the α–β closed forms by hand: broadcast on
/// p = 4 at 1024 bytes, α = 1, β = 0.001, γ = 0. Binomial: 2 rounds of the
/// whole vector, 2(1 + 1.024) = 4.048. Linear: rank 0 sends 3 vectors one
/// after another, 3(1 + 1.024) = 6.072. Every latency term is the rounds'
/// α, every bandwidth term the bytes' β.
#[test]
fn chooser_csv_holds_the_closed_forms() {
    use commlab_api::chooser::ChooseRequest;
    let request = ChooseRequest {
        collective: "broadcast".into(),
        p: 4,
        min_bytes: 1024,
        max_bytes: 1024,
        sizes: Vec::new(),
        alpha: 1.0,
        beta: 0.001,
        gamma: 0.0,
        algorithms: vec!["binomial".into(), "linear".into()],
        simulate: false,
        sim_limit: 0,
        check_at: None,
        network: None,
    };
    let csv = exports::choose_csv(&request.run().unwrap());
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(
        lines[0],
        ["bytes", "algorithm", "time", "latency", "bandwidth", "compute", "pieces", "simulated", "winner"]
    );
    let num = |s: &str| s.parse::<f64>().unwrap();
    let (binomial, linear) = (&lines[1], &lines[2]);
    assert_eq!((binomial[0], binomial[1], linear[1]), ("1024", "binomial", "linear"));
    for (row, rounds) in [(binomial, 2.0), (linear, 3.0)] {
        assert!((num(row[2]) - rounds * 2.024).abs() < 1e-9, "{row:?}");
        assert!((num(row[3]) - rounds).abs() < 1e-9 && (num(row[4]) - rounds * 1.024).abs() < 1e-9, "{row:?}");
        assert_eq!((row[5], row[6], row[7]), ("0", "1", ""), "{row:?}");
    }
    assert_eq!((binomial[8], linear[8]), ("1", "0"));
    assert_eq!(lines.len(), 3);
}

/// The winner map's CSV: one line per (p, size), the winner's id and piece
/// count, and a margin ≥ 1; p = 2 broadcast is one message for every
/// non-pipelined algorithm, so they tie (margin 1).
#[test]
fn winner_map_csv_lists_every_cell() {
    use commlab_api::chooser::winner_map;
    use commlab_core::choose::AlphaBeta;
    let ab = AlphaBeta { alpha: 1.0, beta: 0.001, gamma: 0.0 };
    let algorithms = vec!["binomial".to_owned(), "linear".to_owned()];
    let map = winner_map("broadcast", &algorithms, &[2, 8], &[8, 1 << 20], ab).unwrap();
    let csv = exports::winner_map_csv(&map);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "p,bytes,winner,margin,pieces");
    assert_eq!(lines.len(), 1 + 4);
    assert!(lines[1].starts_with("2,8,") && lines[1].ends_with(",1,1"), "{}", lines[1]);
    // p = 8: binomial's 3 rounds beat linear's 7 messages.
    assert!(lines[3].starts_with("8,8,binomial,") && lines[4].starts_with("8,1048576,binomial,"), "{csv}");
    let margin: f64 = lines[4].split(',').nth(3).unwrap().parse().unwrap();
    assert!((margin - 7.0 / 3.0).abs() < 1e-9, "linear/binomial = 7/3 at any size: {margin}");
}

/// 1 GB allreduce in 10 ms on 4 096 ranks: algbw 100 GB/s, busbw
/// 2·4095/4096 of it (nccl-tests' factor), 199.951171875 GB/s.
#[test]
fn expected_csv_and_json_hold_nccl_tests_bandwidths() {
    use commlab_api::predict::{Engine, Expected, PredictRequest};
    let rows = [Expected {
        bytes: 1_000_000_000,
        time_ns: 1e7,
        pick: "nvls_tree/simple, 16 channels".into(),
        coupled: false,
        engine: Engine::Steady,
    }];
    let csv = exports::expected_csv(commlab_core::choose::Collective::Allreduce, 4096, &rows);
    assert_eq!(
        csv,
        "bytes,pick,engine,time_us,algbw_GBps,busbw_GBps\n1000000000,\"nvls_tree/simple, 16 channels\",steady,10000,100,199.951171875\n"
    );
    let asked = PredictRequest {
        system: commlab_api::system::System::parse(
            "dgx-h100",
            512,
            commlab_core::libraries::nccl::Version::Current,
            commlab_api::system::STEADY_NODES,
        )
        .unwrap(),
        collective: "allreduce".into(),
        sizes: vec![1_000_000_000],
    };
    let doc: Value = serde_json::from_str(&exports::expected_json(&asked, 4096, &rows)).unwrap();
    assert_eq!(doc["nodes"], 512);
    assert_eq!(doc["ranks"], 4096);
    assert_eq!(doc["rows"][0]["engine"], "steady");
    assert_eq!(doc["rows"][0]["busbw"], 199.951_171_875);
}

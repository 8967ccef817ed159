//! What bad and extreme input does to the `commlab` binary: every refusal
//! exits 2 and names the flag a user typed, with the range it accepts.

use serde_json::Value;
use std::io::Write as _;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_commlab")).args(args).output().expect("commlab runs")
}

fn run_with(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_commlab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("commlab runs");
    // The binary may refuse before reading everything: a closed pipe is fine.
    let _ = child.stdin.take().expect("stdin").write_all(input);
    child.wait_with_output().expect("commlab ends")
}

/// The run is refused with status 2, and its message names `flag` and says `says`.
fn refused(out: &Output, flag: &str, says: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with(&format!("error: {flag}: ")), "{flag}: {err}");
    assert!(err.contains(says), "{says:?} in {err}");
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("commlab-extremes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn ring_goal() -> std::path::PathBuf {
    let file = temp("ring.goal");
    let out = run(&["goal", "gen", "allreduce/ring", "--p", "8", "--bytes", "1048576", "-o", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    file
}

#[test]
fn loggops_costs_are_bounded_as_in_the_browser() {
    let goal = ring_goal();
    let file = goal.to_str().unwrap();
    // 2^64 − 1 ns of o used to leave links that carried 114 688 B busy 0 ns.
    let o = u64::MAX.to_string();
    for (flag, args) in [
        ("--overhead", vec!["net", "sim", file, "--topology", "ring:8", "-o", &o]),
        ("--gap", vec!["net", "sim", file, "--topology", "ring:8", "-g", "1099511627777"]),
        ("--overhead-per-byte", vec!["net", "sim", file, "--topology", "ring:8", "-O", &o]),
        ("--latency", vec!["goal", "sim", file, "-L", &o]),
        ("--gap-per-byte", vec!["goal", "sim", file, "-G", "1099511627777"]),
    ] {
        refused(&run(&args), flag, "expected an integer from 0 to 1 099 511 627 776");
    }
    // At the bound it runs, and every link's bytes fit in its busy time.
    let bound = (1u64 << 40).to_string();
    let out = run(&["net", "sim", file, "--topology", "ring:8", "-o", &bound, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bw = v["bandwidth"].as_f64().unwrap(); // every link of a ring is of the first class
    for link in v["links"].as_array().unwrap() {
        let (bytes, busy) = (link["bytes"].as_f64().unwrap(), link["busy_ns"].as_f64().unwrap());
        assert!(bytes == 0.0 || busy > 0.0, "{link}");
        assert!(bytes <= bw * busy * (1.0 + 1e-6), "{link}");
    }
}

#[test]
fn input_is_read_up_to_a_cap() {
    // An endless stream stops at the fit's 16 MiB.
    let out = run(&["fit", "/dev/zero", "--p", "8"]);
    refused(&out, "FILE", "more than 16 MiB: at most 16777216 bytes of text are read");
    // A gzip bomb: 17 MiB of zeros packed into a few KB stops there too.
    let mut packed = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    packed.write_all(&vec![b' '; 17 << 20]).unwrap();
    let packed = packed.finish().unwrap();
    assert!(packed.len() < 100_000);
    let out = run_with(&["fit", "-", "--p", "8"], &packed);
    refused(&out, "FILE", "standard input unpacks to more than 16 MiB");
}

#[test]
fn values_once_and_in_range() {
    // A repeated NCCL key (the last used to win).
    let out = run(&[
        "choose",
        "--collective",
        "allreduce",
        "--p",
        "8",
        "--library",
        "nccl",
        "--nccl",
        "channels=4,channels=8",
    ]);
    refused(&out, "--nccl", "channels is given twice");
    // The reduction family's sizes, as the Chooser's algorithms refuse them.
    for bytes in ["0", "2199023255552"] {
        let out = run(&["goal", "gen", "reduce", "--p", "8", "--bytes", bytes]);
        refused(&out, "--bytes", "expected an integer from 1 to 1 099 511 627 776");
    }
    refused(&run(&["goal", "gen", "pipeline", "--p", "8", "--bytes", "8", "--pieces", "0"]), "--pieces", "m = 0");
    // net topo checks the placement as net sim does.
    let out = run(&["net", "topo", "--topology", "ring:8", "--placement", "bogus"]);
    refused(&out, "--placement", "\"bogus\" is not identity or random:SEED");
}

#[test]
fn the_flag_named_is_the_one_typed() {
    let out = run(&["goal", "gen", "barrier", "--bytes", "8", "--algorithm", "combining", "--combining-k", "1"]);
    refused(&out, "--combining-k", "from 2 to 64");
    let nccl_tests = "#  Rank  0 Group  0 Pid 1 on host device  0 [0x01] H100\n#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n          8             2     float     sum      -1    10.0    0.00    0.00      0    10.0    0.00    0.00      0\n       1024           256     float     sum      -1    12.0    0.09    0.16      0    12.0    0.09    0.16      0\n";
    let out = run_with(&["fit", "-", "--p", "8", "--algorithm", "bogus"], nccl_tests.as_bytes());
    refused(&out, "--algorithm", "bogus");
    // A topology error says the forms once.
    let out = run(&["net", "topo", "--topology", "cube:3"]);
    refused(&out, "--topology", "\"cube:3\" is not one of switch:H");
    assert_eq!(String::from_utf8_lossy(&out.stderr).matches("switch:H").count(), 1);
    // 1T is the largest size, and it is accepted.
    let out = run(&["choose", "--collective", "allreduce", "--p", "8", "--bytes", "8..1T", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_fit_refuses_what_it_cannot_fit() {
    // The highest rank listed is u32::MAX: p would be 2^32.
    let header = "#  Rank 4294967295 Group  0 Pid 1 on host device  0 [0x01] H100\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n          8             2     float     sum      -1    10.0    0.00    0.00      0    10.0    0.00    0.00      0\n       1024           256     float     sum      -1    12.0    0.09    0.16      0    12.0    0.09    0.16      0\n";
    let out = run_with(&["fit", "-"], header.as_bytes());
    refused(&out, "--p", "p = 4294967296 is out of range");
    // One size only: α and β cannot be told apart (it used to print α = 0 ± 0).
    let one = "bytes,time\n1024,10\n1024,11\n1024,10.5\n";
    let out = run_with(&["fit", "-", "--p", "8", "--format", "csv"], one.as_bytes());
    refused(&out, "FILE", "every point has one size (1024 B)");
}

#[test]
fn choose_takes_exact_sizes_and_says_when_a_range_holds_none() {
    let out = run(&["choose", "--collective", "allreduce", "--p", "8", "--bytes", "40000..50000"]);
    refused(&out, "--bytes", "holds no power of two: give exact sizes");
    let out = run(&["choose", "--collective", "allreduce", "--p", "8", "--bytes", "40000", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["bytes"], 40000);
    // Ring allreduce at p = 8 under α = 1, β = 0.001: 2(p − 1) steps of n/p bytes.
    let ring = rows[0]["times"]["ring"].as_f64().unwrap();
    let want = 14.0 * (1.0 + 40000.0 / 8.0 * 0.001);
    assert!((ring - want).abs() <= 1e-9 * want, "{ring} vs {want}");
    let out = run(&["choose", "--collective", "allreduce", "--p", "8", "--bytes", "3M,1000,40000,1000", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sizes: Vec<u64> = v["rows"].as_array().unwrap().iter().map(|r| r["bytes"].as_u64().unwrap()).collect();
    assert_eq!(sizes, [1000, 40000, 3 << 20], "sorted, each once");
}

//! The `commlab` binary: JSON shape, tables, and errors that name the argument.

use serde_json::Value;
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

#[test]
fn model_reports_small_p_instead_of_nan() {
    let v = json(&["model", "--n", "1000", "--p", "2", "--t-start", "5", "--t-byte", "0.01", "--json"]);
    assert_eq!(v["m_star"], 1.0);
    assert_eq!(v["m_best"], 1);
    assert!(v["m_star_note"].as_str().unwrap().contains("p ≤ 2"));
}

#[test]
fn pipeline_json_has_steps_and_time() {
    let v = json(&["pipeline", "--p", "8", "--m", "4", "--n", "400", "--t-start", "1", "--t-byte", "0.5", "--json"]);
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
        (vec!["pipeline", "--n", "10", "--p", "4", "--t-start", "1", "--t-byte", "1", "--m", "11"], "--m"),
    ] {
        let out = run(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

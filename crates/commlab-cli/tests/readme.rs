//! The README's command-line examples cannot go stale: every command of the
//! checked block that shows output is run, and its output (JSON compacted
//! with sorted keys) must match the text shown, where `…` stands for anything.

use std::process::Command;

/// `(command arguments, expected template)` of the README's checked block.
fn examples() -> Vec<(Vec<String>, String)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let start = readme.find("<!-- cli-examples:").expect("the README marks its checked block");
    let block = &readme[start..];
    let body = &block[block.find("```text\n").unwrap() + 8..];
    let body = &body[..body.find("```").unwrap()];
    let mut out: Vec<(Vec<String>, String)> = Vec::new();
    for line in body.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            let args = command.split(" -- ").nth(1).expect("cargo run … -- ARGS").split_whitespace();
            out.push((args.map(str::to_owned).collect(), String::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push_str(line);
            last.1.push('\n');
        }
    }
    out
}

/// Whether `text` matches `template`: the pieces between `…` appear in order,
/// the first at the start and the last at the end unless `…` stands there.
fn matches(template: &str, text: &str) -> bool {
    let pieces: Vec<&str> = template.split('…').collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if pieces.len() == 1 {
        return template == text;
    }
    if !text.starts_with(first) || !text.ends_with(last) || first.len() + last.len() > text.len() {
        return false;
    }
    let (mut at, end) = (first.len(), text.len() - last.len());
    for piece in &pieces[1..pieces.len() - 1] {
        let Some(found) = text[at..end].find(piece) else { return false };
        at += found + piece.len();
    }
    true
}

#[test]
fn every_shown_output_is_what_the_command_prints() {
    let examples = examples();
    assert!(examples.len() >= 8, "the block has its commands");
    let mut checked = 0;
    for (args, expected) in examples.iter().filter(|(_, e)| !e.is_empty()) {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let out = Command::new(env!("CARGO_BIN_EXE_commlab")).args(args).current_dir(root).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let shown = if args.contains(&"--json".to_owned()) {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            format!("{value}\n")
        } else {
            text
        };
        assert!(matches(expected, &shown), "README shows for {args:?}:\n{expected}\nbut the command prints:\n{shown}");
        checked += 1;
    }
    assert_eq!(checked, 14);
}

#[test]
fn the_matcher_can_fail() {
    assert!(matches("{\"a\":1,…}\n", "{\"a\":1,\"b\":2}\n"));
    assert!(!matches("{\"a\":2,…}\n", "{\"a\":1,\"b\":2}\n"));
    assert!(!matches("\"m_star\":80.6225…", "\"m_star\":80.6298"));
    assert!(matches("…\"b\":2}\n", "{\"a\":1,\"b\":2}\n"));
    assert!(!matches("{\"a\":1}\n", "{\"a\":1,\"b\":2}\n"));
}

/// The README's Sources section is exactly what `commlab sources --markdown` prints.
#[test]
fn the_sources_section_is_the_generated_table() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let start = readme.find("<!-- sources:begin -->\n").expect("marked section") + "<!-- sources:begin -->\n".len();
    let end = readme.find("<!-- sources:end -->").expect("marked section");
    let out = Command::new(env!("CARGO_BIN_EXE_commlab")).args(["sources", "--markdown"]).output().unwrap();
    assert_eq!(
        &readme[start..end],
        String::from_utf8(out.stdout).unwrap(),
        "regenerate with `commlab sources --markdown`"
    );
}

/// The app's Sources page is exactly what `commlab sources --html` writes.
#[test]
fn the_sources_page_is_current() {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../web/sources.html")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_commlab")).args(["sources", "--html"]).output().unwrap();
    assert_eq!(page, String::from_utf8(out.stdout).unwrap(), "regenerate: commlab sources --html > web/sources.html");
}

/// The text of the README between `<!-- NAME:begin -->` and `<!-- NAME:end -->`.
fn marked(name: &str) -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let begin = format!("<!-- {name}:begin -->\n");
    let start = readme.find(&begin).expect("marked section") + begin.len();
    let end = readme.find(&format!("<!-- {name}:end -->")).expect("marked section");
    readme[start..end].to_owned()
}

/// The README's preset list is every preset `commlab predict --system list` knows, in its order.
#[test]
fn the_preset_list_is_the_cli_s() {
    let out = Command::new(env!("CARGO_BIN_EXE_commlab")).args(["predict", "--system", "list", "--json"]).output();
    let v: serde_json::Value = serde_json::from_slice(&out.unwrap().stdout).unwrap();
    let list: Vec<String> = v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("- `{}`: {}\n", s["id"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect();
    assert!(list.len() >= 10);
    assert_eq!(marked("presets"), list.concat(), "the README's preset list");
}

/// The docs are references of where things stand: the README reaches its
/// two commands first and stays short, BENCHMARKS.md opens with where every
/// budget stands, and `docs/systems.md` keeps no dated or "before" passage
/// (history lives in git).
#[test]
fn the_docs_are_references() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let read = |f: &str| std::fs::read_to_string(format!("{root}/{f}")).unwrap();
    let readme = read("README.md");
    let line_of = |text: &str, what: &str| text[..text.find(what).expect(what)].lines().count() + 1;
    assert!(line_of(&readme, "scripts/serve.sh") <= 40 && line_of(&readme, "scripts/test.sh") <= 40);
    assert!(readme.lines().count() <= 250, "README: {} lines", readme.lines().count());
    let bench = read("BENCHMARKS.md");
    assert!(bench.lines().count() <= 600, "BENCHMARKS.md: {} lines", bench.lines().count());
    let first = bench.lines().find(|l| l.starts_with("## ")).unwrap();
    assert_eq!(first, "## Where it stands");
    let systems = read("docs/systems.md");
    for (n, line) in systems.lines().enumerate() {
        let words: Vec<&str> = line.split(|c: char| !c.is_alphanumeric()).collect();
        assert!(!words.iter().any(|w| w.eq_ignore_ascii_case("before")), "docs/systems.md:{}: {line}", n + 1);
        let dated = line
            .as_bytes()
            .windows(10)
            .any(|w| w.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() }));
        assert!(!dated, "docs/systems.md:{}: {line}", n + 1);
    }
}

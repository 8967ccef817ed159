//! The crates' module imports form no circle, and no view module of the
//! web crate imports another view's module (ARCHITECTURE.md, "Imports").
//!
//! Read from the sources: every `crate::a::b…` and `super::…` path outside
//! comments and `#[cfg(test)]` modules is an edge from the module it is
//! written in to the longest module prefix it names (a child naming its
//! parent is not an edge: `mod` declarations already order them).
//! Strongly connected components of that graph (Tarjan) are the circles.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a source file (`views::chooser::params`; `""` for the crate root).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts.join("::")
}

/// The text the build reads outside tests: comment lines and everything
/// from a `#[cfg(test)]` module on (tests sit at the end of a file) removed.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") && lines.peek().is_some_and(|n| n.trim_start().starts_with("mod ")) {
            break;
        }
        if !t.starts_with("//") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The paths written after `prefix` (`crate::`, `super::`), with braces
/// expanded one level: `crate::a::{b, c::d}` gives `a::b` and `a::c::d`.
fn paths_after(text: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        if text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &text[at + prefix.len()..];
        let head: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let head = head.trim_end_matches(':').to_owned();
        let after = &rest[head.len()..];
        if let Some(inner) = after.strip_prefix("::{") {
            let inner = &inner[..inner.find('}').unwrap_or(inner.len())];
            for item in inner.split(',') {
                let item = item.split_whitespace().next().unwrap_or("");
                let item = item.trim_end_matches(':');
                if item.is_empty() || item == "self" {
                    out.push(head.clone());
                } else {
                    out.push(format!("{head}::{item}"));
                }
            }
        } else {
            out.push(head);
        }
    }
    out
}

/// The crate's import graph: module → the modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeMap<String, PathBuf> = files.iter().map(|f| (module_of(src, f), f.clone())).collect();
    let resolve = |path: &str| -> Option<String> {
        let segs: Vec<&str> = path.split("::").collect();
        (1..=segs.len()).rev().map(|k| segs[..k].join("::")).find(|c| modules.contains_key(c))
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = code(&std::fs::read_to_string(file).unwrap());
        // `super::` names the module's parent (for `a/b.rs` and `a/b/mod.rs` alike: `a`).
        let parent = module.rsplit_once("::").map_or(String::new(), |(p, _)| p.to_owned());
        let mut named: Vec<String> = paths_after(&text, "crate::");
        for p in paths_after(&text, "super::") {
            named.push(if parent.is_empty() { p } else { format!("{parent}::{p}") });
        }
        let out = edges.entry(module.clone()).or_default();
        for p in named {
            if let Some(target) = resolve(&p) {
                let is_ancestor = target.is_empty() || module.starts_with(&format!("{target}::"));
                if target != *module && !is_ancestor {
                    out.insert(target);
                }
            }
        }
    }
    edges
}

/// The graph's circles: strongly connected components of more than one module.
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[v].min(self.low[w]);
                    self.low.insert(v, l);
                } else if self.on.contains(w) {
                    let l = self.low[v].min(self.index[w]);
                    self.low.insert(v, l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on.remove(w);
                    component.push(w.to_owned());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.out.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates").join(name).join("src")
}

#[test]
fn no_crate_has_an_import_circle() {
    for name in ["commlab-core", "commlab-api", "commlab-plot", "commlab-web", "commlab-cli"] {
        let edges = graph(&crate_src(name));
        assert!(edges.len() > 3, "{name}: {} modules read", edges.len());
        let found = circles(&edges);
        assert!(found.is_empty(), "{name}: modules that import each other: {found:?}");
    }
}

#[test]
fn no_view_imports_another_view() {
    let edges = graph(&crate_src("commlab-web"));
    let view_of = |m: &str| m.strip_prefix("views::").and_then(|r| r.split("::").next()).map(str::to_owned);
    let mut seen = 0;
    for (from, targets) in &edges {
        let Some(a) = view_of(from) else { continue };
        seen += 1;
        for t in targets {
            if let Some(b) = view_of(t) {
                assert_eq!(a, b, "view module {from} imports {t}, another view's");
            }
        }
    }
    assert!(seen >= 16, "{seen} view modules read");
}

/// The checker finds what it is for: a circle and a view importing another.
#[test]
fn the_import_checker_sees_a_circle() {
    let dir = std::env::temp_dir().join(format!("commlab-imports-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("views/a")).unwrap();
    std::fs::create_dir_all(dir.join("views/b")).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod codec; pub mod state; pub mod views;\n").unwrap();
    std::fs::write(dir.join("codec.rs"), "use crate::state::Params;\n").unwrap();
    std::fs::write(dir.join("state.rs"), "use crate::codec::{self, Field};\n// use crate::views::a;\n").unwrap();
    std::fs::write(dir.join("views/mod.rs"), "pub mod a; pub mod b;\n").unwrap();
    std::fs::write(dir.join("views/a/mod.rs"), "use super::b::x;\n").unwrap();
    std::fs::write(dir.join("views/b/mod.rs"), "#[cfg(test)]\nmod tests { use crate::views::a; }\n").unwrap();
    let edges = graph(&dir);
    let found = circles(&edges);
    assert_eq!(found.len(), 1, "{found:?}");
    let mut c = found[0].clone();
    c.sort();
    assert_eq!(c, ["codec", "state"]);
    assert!(edges["views::a"].contains("views::b"), "{edges:?}");
    assert!(edges["views::b"].is_empty(), "a test module is not an edge: {edges:?}");
    assert!(!edges["state"].contains("views::a"), "a comment is not an edge");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A System is read in one place (ARCHITECTURE.md, "Imports"): no source
/// outside `commlab_api::system` and the presets themselves looks a node
/// type up by its id or matches a network to one.
#[test]
fn a_system_is_parsed_in_one_place() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["crates", "tests/integration", "tests/published", "tests/simgrid"] {
        sources(&root.join(dir), &mut files);
    }
    let allowed = |f: &Path| {
        let f = f.to_string_lossy().replace('\\', "/");
        f.ends_with("commlab-api/src/system.rs")
            || f.contains("commlab-core/src/systems")
            || f.ends_with("tests/integration/imports.rs")
    };
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !allowed(f)) {
        let text = std::fs::read_to_string(f).unwrap();
        for needle in ["Preset::find", "systems::custom", "systems::matching"] {
            if text.contains(needle) {
                found.push(format!("{}: {needle}", f.display()));
            }
        }
    }
    assert!(files.len() > 100, "{} sources read", files.len());
    assert!(found.is_empty(), "a System parsed outside commlab_api::system: {found:?}");
}

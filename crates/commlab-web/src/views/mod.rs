//! The playground's views, one folder each: `params.rs` holds the view's URL
//! fields, their defaults and its engine request; the components live
//! beside it. The table of views ([`crate::state::VIEWS`]: ids, labels,
//! bundles) is plain data in the state; here the components are listed
//! apart, by bundle ([`PAGES`], [`LAZY`]), so no bundle links another's views.
//! A view module never imports another view's module: what two views share
//! lives in the shell ([`crate::lazy`], [`crate::codec`]) or below (api, core).
//!
//! A lazy view's code is loaded only when it is opened ([`crate::lazy`]): the
//! shell keeps its URL pairs as text and the lazy bundle (`lazy_main.rs`)
//! reads them with the same codec ([`crate::codec`]).

pub mod chooser;
pub mod lab;
pub mod mesh;
pub mod model;
pub mod pipeline;
pub mod schedule;
pub mod swizzle;
pub mod tree;

use crate::state::{Params, View};
use leptos::prelude::*;

/// A view compiled into the UI bundle: mounts its component (its state
/// is read and written by the shell, [`crate::state::from_query`]).
pub type Page = fn(RwSignal<Params>, Memo<bool>) -> AnyView;

/// The views on the page (the UI bundle links these).
pub const PAGES: [(View, Page); 4] =
    [(View::Tree, tree::PAGE), (View::Pipeline, pipeline::PAGE), (View::Model, model::PAGE), (View::Mesh, mesh::PAGE)];

/// Mounts a lazy view's component.
pub type MountLazy = fn(crate::lazy::LazyArgs) -> AnyView;

/// The lazy views (only the lazy bundles link these, each its own: see [`View::bundle`]).
pub const LAZY: [(View, MountLazy); 4] = [
    (View::Lab, |args| view! { <lab::view::LabView args=args /> }.into_any()),
    (View::Schedule, |args| view! { <schedule::view::ScheduleView args=args /> }.into_any()),
    (View::Chooser, |args| view! { <chooser::view::ChooserView args=args /> }.into_any()),
    (View::Swizzle, |args| view! { <swizzle::view::SwizzleView args=args /> }.into_any()),
];

impl View {
    /// The view's component, when it is on the page.
    pub fn page(self) -> Option<Page> {
        PAGES.iter().find(|(v, _)| *v == self).map(|&(_, p)| p)
    }

    /// Mounts the view: its component, or the lazy bundle's loader.
    pub fn mount(self, params: RwSignal<Params>, dark: Memo<bool>) -> AnyView {
        match self.page() {
            Some(page) => page(params, dark),
            None => view! { <crate::lazy::LazyView params=params dark=dark /> }.into_any(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::VIEWS;

    #[test]
    fn the_table_is_consistent() {
        for (i, e) in VIEWS.iter().enumerate() {
            assert_eq!(View::ALL[i], e.view);
            assert_eq!(e.view as usize, i, "{}: `View::entry` indexes the table by the enum", e.id);
            assert_eq!(View::from_id(e.id), Some(e.view));
        }
        for v in View::ALL {
            let lazy = LAZY.iter().any(|(x, _)| *x == v);
            assert_eq!(v.is_lazy(), lazy, "{}: the lazy flag and the lazy bundle's list agree", v.id());
            assert_eq!(v.is_lazy(), v.page().is_none(), "{}: a view is on the page or lazy", v.id());
        }
        assert_eq!(duplicates(VIEWS.iter().map(|e| e.id)), Vec::<&str>::new(), "view ids are unique");
    }

    /// The ids that occur more than once: sorted first, so that two equal
    /// ids anywhere in the table are found (a dedup alone only merges
    /// neighbours).
    fn duplicates<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        let mut ids: Vec<&str> = ids.collect();
        ids.sort_unstable();
        let mut twice: Vec<&str> = ids.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
        twice.dedup();
        twice
    }

    /// Each `#[component]` function in `source` whose body has more than
    /// `limit` lines (as clippy counts them): its name and its lines. Clippy's `too_many_lines` (100) does not
    /// look inside a macro's expansion, and `#[component]` rewrites the
    /// function, so the house rule "no long function" is checked here.
    fn long_components(source: &str, limit: usize) -> Vec<(String, usize)> {
        let lines: Vec<&str> = source.lines().collect();
        let mut out = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() != "#[component]" {
                continue;
            }
            let Some(at) = (i + 1..lines.len()).find(|&k| {
                let t = lines[k].trim_start();
                t.starts_with("fn ") || t.starts_with("pub fn ") || t.starts_with("pub(crate) fn ")
            }) else {
                continue;
            };
            let indent = lines[at].len() - lines[at].trim_start().len();
            let close = format!("{}}}", " ".repeat(indent));
            let Some(end) = (at + 1..lines.len()).find(|&k| lines[k] == close) else { continue };
            let name = lines[at].trim_start().split("fn ").nth(1).unwrap_or("").split(['(', '<']).next().unwrap_or("");
            // The signature's lines (props) are not the body: from the line that opens it.
            let open = (at..end).find(|&k| lines[k].trim_end().ends_with('{')).unwrap_or(at);
            // Counted as clippy counts: no blank lines, no comment lines.
            let counted = lines[open + 1..end]
                .iter()
                .filter(|l| {
                    let t = l.trim();
                    !t.is_empty() && !t.starts_with("//")
                })
                .count();
            if counted > limit {
                out.push((name.to_owned(), counted));
            }
        }
        out
    }

    /// No component of the web crate is over 100 lines, as clippy holds
    /// every other function; a planted 150-line component is caught.
    #[test]
    fn no_component_is_long() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")), &mut files);
        let mut long = Vec::new();
        let mut components = 0;
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            components += text.lines().filter(|l| l.trim() == "#[component]").count();
            long.extend(
                long_components(&text, 100).into_iter().map(|(n, k)| format!("{}: {n} ({k} lines)", f.display())),
            );
        }
        assert!(components > 30, "the scan found the components ({components})");
        assert_eq!(long, Vec::<String>::new());
        let planted = format!(
            "#[component]\npub fn Planted(\n    x: u32,\n) -> impl IntoView {{\n{}    view! {{ <p>{{x}}</p> }}\n}}\n",
            "    let _ = 1;\n".repeat(150)
        );
        assert_eq!(long_components(&planted, 100), vec![("Planted".to_owned(), 151)]);
    }

    /// The uniqueness guard finds a planted duplicate that is not next to
    /// its twin (the table's order), which a dedup without sorting missed.
    #[test]
    fn the_uniqueness_guard_finds_a_planted_duplicate() {
        let planted = ["tree", "model", "pipeline", "model"];
        assert_eq!(duplicates(planted.into_iter()), vec!["model"]);
        let mut unsorted_dedup = planted.to_vec();
        unsorted_dedup.dedup();
        assert_eq!(unsorted_dedup.len(), planted.len(), "the old check passed this table");
    }

    /// Every `view=` the user docs link to opens that view (the README once
    /// sent readers to `?view=sources`, which opens the model with a notice).
    #[test]
    fn every_view_the_docs_name_exists() {
        let docs = [
            include_str!("../../../../README.md"),
            include_str!("../../../../docs/links.md"),
            include_str!("../../../../docs/network.md"),
            include_str!("../../../../docs/systems.md"),
            include_str!("../../../../docs/chooser.md"),
            include_str!("../../../../docs/libraries.md"),
            include_str!("../../../../docs/loggops.md"),
            include_str!("../../../../docs/swizzle.md"),
            include_str!("../../../../docs/reduce-model.md"),
            include_str!("../../../../docs/barrier-model.md"),
        ];
        let mut seen = 0;
        for text in docs {
            for (at, _) in text.match_indices("view=") {
                let id: String = text[at + 5..].chars().take_while(char::is_ascii_lowercase).collect();
                if id.is_empty() {
                    continue;
                }
                seen += 1;
                assert!(View::from_id(&id).is_some(), "view={id} is not a view");
            }
        }
        assert!(seen > 5, "{seen} links read");
    }
}

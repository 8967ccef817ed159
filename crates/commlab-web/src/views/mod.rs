//! The playground's views, one folder each: `params.rs` holds the view's URL
//! fields, their defaults and its engine request; the component lives
//! beside it in `view.rs`. [`VIEWS`] is the one table of views: the switcher,
//! the shell's codec and the app's mount all read it, and whether a view sits
//! in the lazy bundle is its `lazy` flag. The components are listed apart,
//! by bundle ([`PAGES`], [`LAZY`]), so neither bundle links the other's views.
//!
//! A lazy view's code is loaded only when it is opened ([`lazy`]): the shell
//! keeps its URL pairs as text and the lazy bundle (`lazy_main.rs`) reads
//! them with the same codec ([`crate::codec`]).

pub mod chooser;
pub mod lab;
pub mod lazy;
pub mod mesh;
pub mod model;
pub mod pipeline;
pub mod schedule;
pub mod swizzle;
pub mod tree;

use crate::state::Params;
use leptos::prelude::*;

/// A view of the playground.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Binomial-tree reduction, broadcast and allreduce.
    Tree,
    /// Space-time diagram of the chain pipeline.
    Pipeline,
    /// Runtime model of the pipelined reduction.
    #[default]
    Model,
    /// Barrier on a mesh with broken links.
    Mesh,
    /// Barrier experiments.
    Lab,
    /// CommSwizzle schedule.
    Swizzle,
    /// A GOAL schedule simulated under LogGOPS, as a timeline.
    Schedule,
    /// The collective chooser: algorithms compared over message sizes, the
    /// winner map, the chunk optimizer.
    Chooser,
}

/// What every bundle knows of a view (plain data: the lazy bundle reads it
/// without linking the views on the page).
pub struct Entry {
    /// The view.
    pub view: View,
    /// Stable id used in URLs (`view=model`).
    pub id: &'static str,
    /// Label of the switcher's tab.
    pub label: &'static str,
    /// Shows the shell's animation `step` (and its link carries it).
    pub animated: bool,
    /// Lives in the lazy bundle: the shell keeps its URL pairs as text, the
    /// bundle reads them ([`lazy::LazyArgs`]) and mounts its component
    /// ([`LAZY`]). Otherwise the view is on the page ([`PAGES`]).
    pub lazy: bool,
}

/// Every view, in the order of the switcher (and of [`View`]).
pub const VIEWS: [Entry; 8] = [
    Entry { view: View::Tree, id: "tree", label: "Reduction tree", animated: true, lazy: false },
    Entry { view: View::Pipeline, id: "pipeline", label: "Pipeline", animated: true, lazy: false },
    Entry { view: View::Model, id: "model", label: "Runtime model", animated: false, lazy: false },
    Entry { view: View::Mesh, id: "mesh", label: "Barrier mesh", animated: true, lazy: false },
    Entry { view: View::Lab, id: "lab", label: "Barrier lab", animated: false, lazy: true },
    Entry { view: View::Swizzle, id: "swizzle", label: "Swizzle schedule", animated: false, lazy: true },
    Entry { view: View::Schedule, id: "schedule", label: "Schedule timeline", animated: false, lazy: true },
    Entry { view: View::Chooser, id: "chooser", label: "Collective chooser", animated: false, lazy: true },
];

/// Reads a view's own pairs into the app state, with the notices of reading them.
pub type ReadPairs = fn(&mut Params, &[(String, String)], &crate::codec::Link) -> Vec<crate::codec::Notice>;

/// A view compiled into the UI bundle: its component and its state's codec.
pub struct Page {
    /// Mounts the component.
    pub mount: fn(RwSignal<Params>, Memo<bool>) -> AnyView,
    /// Reads the view's pairs into the app state (see [`crate::codec::read`]).
    pub read: ReadPairs,
    /// The view's pairs that differ from their defaults.
    pub write: fn(&Params) -> Vec<(String, String)>,
}

/// The views on the page (the UI bundle links these).
pub const PAGES: [(View, Page); 4] =
    [(View::Tree, tree::PAGE), (View::Pipeline, pipeline::PAGE), (View::Model, model::PAGE), (View::Mesh, mesh::PAGE)];

/// Mounts a lazy view's component.
pub type MountLazy = fn(lazy::LazyArgs) -> AnyView;

/// The lazy views (only the lazy bundles link these, each its own: see [`bundle_of`]).
pub const LAZY: [(View, MountLazy); 4] = [
    (View::Lab, |args| view! { <lab::view::LabView args=args /> }.into_any()),
    (View::Schedule, |args| view! { <schedule::view::ScheduleView args=args /> }.into_any()),
    (View::Chooser, |args| view! { <chooser::view::ChooserView args=args /> }.into_any()),
    (View::Swizzle, |args| view! { <swizzle::view::SwizzleView args=args /> }.into_any()),
];

/// The lazy bundle a lazy view lives in: `timeline` (`timeline_main.rs`)
/// for the Schedule and Swizzle views (both draw schedules on a network)
/// and the barrier lab, `views` (`lazy_main.rs`) for the Chooser alone (the
/// largest view: libraries, fits, maps; BENCHMARKS.md says what each bundle
/// pays for). A `const fn` without the mounts, so the UI bundle asking it
/// links no view.
pub const fn bundle_of(view: View) -> &'static str {
    match view {
        View::Schedule | View::Swizzle | View::Lab => "timeline",
        _ => "views",
    }
}

impl View {
    /// Every view, in the order of the view switcher.
    pub const ALL: [View; 8] = {
        let mut out = [View::Model; 8];
        let mut i = 0;
        while i < VIEWS.len() {
            out[i] = VIEWS[i].view;
            i += 1;
        }
        out
    };

    /// The view's entry in [`VIEWS`] (listed in the order of the enum, tested).
    pub fn entry(self) -> &'static Entry {
        &VIEWS[self as usize]
    }

    /// Stable id used in URLs (`view=model`).
    pub fn id(self) -> &'static str {
        self.entry().id
    }

    /// Human label for the switcher.
    pub fn label(self) -> &'static str {
        self.entry().label
    }

    /// Whether the view lives in the lazy bundle ([`lazy`]).
    pub fn is_lazy(self) -> bool {
        self.entry().lazy
    }

    /// The view with URL id `id`.
    pub fn from_id(id: &str) -> Option<View> {
        VIEWS.iter().find(|e| e.id == id).map(|e| e.view)
    }

    /// The view's component and codec, when it is on the page.
    pub fn page(self) -> Option<&'static Page> {
        PAGES.iter().find(|(v, _)| *v == self).map(|(_, p)| p)
    }

    /// Mounts the view: its component, or the lazy bundle's loader.
    pub fn mount(self, params: RwSignal<Params>, dark: Memo<bool>) -> AnyView {
        match self.page() {
            Some(page) => (page.mount)(params, dark),
            None => view! { <lazy::LazyView params=params dark=dark /> }.into_any(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut ids: Vec<&str> = VIEWS.iter().map(|e| e.id).collect();
        ids.dedup();
        assert_eq!(ids.len(), VIEWS.len());
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

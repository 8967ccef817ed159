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

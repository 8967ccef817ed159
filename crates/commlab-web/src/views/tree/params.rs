//! The tree view's state and URL fields: its state is the engine request.

use crate::codec::{Field, Kind, ViewState};
use commlab_core::limits::{ELEMENTS, SEED, UNITS};
use commlab_core::reduce::values::INPUTS_TEXT_MAX;
use commlab_core::reduce::{Collective, Operator};

/// Everything a tree link reproduces (the step is the shell's).
pub type TreeParams = commlab_api::tree::TreeRequest;

impl ViewState for TreeParams {
    const FIELDS: &'static [Field<Self>] = &[
        Field {
            name: "collective",
            kind: Kind::Choice(
                || Collective::ALL.iter().map(|c| c.id()).collect(),
                |p| &p.collective,
                |p, id| id.clone_into(&mut p.collective),
            ),
        },
        Field {
            name: "mode",
            kind: Kind::Choice(
                || vec!["pram", "mp"],
                |p| if p.message_passing { "mp" } else { "pram" },
                |p, id| p.message_passing = id == "mp",
            ),
        },
        Field { name: UNITS.name, kind: Kind::Int(UNITS, |p| p.units, |p, v| p.units = v) },
        Field { name: ELEMENTS.name, kind: Kind::Int(ELEMENTS, |p| p.elements, |p, v| p.elements = v) },
        Field {
            name: "op",
            kind: Kind::Choice(
                || Operator::ALL.iter().map(|o| o.id()).collect(),
                |p| &p.operator,
                |p, id| id.clone_into(&mut p.operator),
            ),
        },
        Field { name: SEED.name, kind: Kind::Int(SEED, |p| p.seed, |p, v| p.seed = v) },
        Field { name: "padded", kind: Kind::Flag(|p| p.padded, |p, v| p.padded = v) },
        Field { name: "inputs", kind: Kind::Text(INPUTS_TEXT_MAX, |p| p.inputs.as_deref(), |p, v| p.inputs = v) },
    ];
}

/// The schedule this view draws, for the Schedule view (8-byte elements).
pub fn schedule(t: &TreeParams) -> commlab_api::schedule::GenerateRequest {
    commlab_api::schedule::GenerateRequest {
        collective: t.collective.clone(),
        p: t.units,
        bytes: t.elements * 8,
        ..Default::default()
    }
}

// Built on the page when small, in the worker when large (`engine::split`).
crate::split_request!(
    TreeParams,
    commlab_api::tree::TreeRun,
    Tree,
    std::sync::Arc<commlab_api::tree::TreeSummary>,
    std::sync::Arc::new
);

//! The pipeline view's state and URL fields: its state is the engine request.

use crate::codec::{Field, Kind, ViewState};
use commlab_core::limits::{ELEMENTS, PIECES, SEED, UNITS};

/// Everything a pipeline link reproduces (the step is the shell's).
pub type PipelineParams = commlab_api::tree::PipelineRequest;

impl ViewState for PipelineParams {
    const FIELDS: &'static [Field<Self>] = &[
        Field { name: UNITS.name, kind: Kind::Int(UNITS, |p| p.units, |p, v| p.units = v) },
        Field { name: PIECES.name, kind: Kind::Int(PIECES, |p| p.pieces, |p, v| p.pieces = v) },
        Field { name: ELEMENTS.name, kind: Kind::Int(ELEMENTS, |p| p.elements, |p, v| p.elements = v) },
        Field { name: SEED.name, kind: Kind::Int(SEED, |p| p.seed, |p, v| p.seed = v) },
    ];
}

/// The schedule this view draws, for the Schedule view (8-byte elements).
pub fn schedule(t: &PipelineParams) -> commlab_api::schedule::GenerateRequest {
    commlab_api::schedule::GenerateRequest {
        collective: "pipeline".into(),
        p: t.units,
        pieces: t.pieces,
        bytes: t.elements * 8,
        ..Default::default()
    }
}

// Built on the page when small, in the worker when large (`engine::split`).
crate::split_request!(
    PipelineParams,
    commlab_api::tree::PipelineRun,
    Pipeline,
    commlab_api::tree::PipelineSummary,
    std::convert::identity
);

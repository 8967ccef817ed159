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

impl crate::engine::split::SplitRequest for PipelineParams {
    type Local = std::sync::Arc<commlab_api::tree::PipelineRun>;
    type Remote = commlab_api::tree::PipelineSummary;

    fn heavy(&self) -> bool {
        commlab_api::tree::PipelineRequest::heavy(self)
    }

    fn local(&self) -> Result<Self::Local, String> {
        self.run().map(std::sync::Arc::new).map_err(|e| e.to_string())
    }

    fn remote(self) -> commlab_api::protocol::Request {
        commlab_api::protocol::Request::Pipeline(self)
    }

    fn answer(response: commlab_api::protocol::Response) -> Option<Result<Self::Remote, String>> {
        use commlab_api::protocol::Response;
        match response {
            Response::Pipeline(s) => Some(Ok(s)),
            Response::Error(e) => Some(Err(e.to_string())),
            _ => None,
        }
    }
}

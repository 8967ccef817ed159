//! The runtime model view's state and URL fields: the engine request plus
//! the piece count the user is looking at.

use crate::codec::{Field, Kind, ViewState};
use commlab_api::model::ModelRequest;
use commlab_core::limits::{BYTES, MAX_PIECES, PIECES, T_BYTE, T_START, UNITS};

/// Everything a model link reproduces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelParams {
    /// The model's inputs.
    pub request: ModelRequest,
    /// The piece count the user is looking at.
    pub pieces: u64,
}

impl Default for ModelParams {
    fn default() -> Self {
        ModelParams { request: ModelRequest::default(), pieces: 16 }
    }
}

impl ViewState for ModelParams {
    const FIELDS: &'static [Field<Self>] = &[
        Field { name: BYTES.name, kind: Kind::Int(BYTES, |p| p.request.bytes, |p, v| p.request.bytes = v) },
        Field { name: UNITS.name, kind: Kind::Int(UNITS, |p| p.request.units, |p, v| p.request.units = v) },
        Field { name: T_START.name, kind: Kind::Real(T_START, |p| p.request.t_start, |p, v| p.request.t_start = v) },
        Field { name: T_BYTE.name, kind: Kind::Real(T_BYTE, |p| p.request.t_byte, |p, v| p.request.t_byte = v) },
        Field {
            name: MAX_PIECES.name,
            kind: Kind::Int(MAX_PIECES, |p| p.request.max_pieces, |p, v| p.request.max_pieces = v),
        },
        Field { name: PIECES.name, kind: Kind::Int(PIECES, |p| p.pieces, |p, v| p.pieces = v) },
    ];
}

impl ModelParams {
    /// The pipeline at the chosen piece count, for the Schedule view.
    pub fn schedule(&self) -> commlab_api::schedule::GenerateRequest {
        commlab_api::schedule::GenerateRequest {
            collective: "pipeline".into(),
            p: self.request.units,
            pieces: self.pieces,
            bytes: self.request.bytes,
            ..Default::default()
        }
    }
}

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
    /// The Schedule view's run of the chosen piece count: the pipeline on
    /// the model's network twin, a line of p hosts whose links have latency
    /// `T_start` and bandwidth `1/T_byte` (in ns: the model's µs × 1000),
    /// with network mode's defaults (a NIC sends one message at a time): the
    /// timeline then shows `T(n, p, m)` exactly (`docs/reduce-model.md`).
    /// Where the twin is out of a network's ranges (more than 4096 hosts,
    /// `T_byte = 0`), the schedule alone under LogGOPSim's defaults.
    pub fn timeline(&self) -> crate::links::Timeline {
        use crate::links::Timeline;
        use commlab_core::limits::net;
        let (latency, bandwidth) = (self.request.t_start * 1000.0, 1.0 / (self.request.t_byte * 1000.0));
        let hosts = u32::try_from(self.request.units).ok().filter(|&h| net::HOSTS.contains(u64::from(h)));
        match hosts {
            Some(h) if net::LATENCY.contains(latency) && net::BANDWIDTH.contains(bandwidth) => {
                let network = commlab_api::network::NetRequest {
                    topology: commlab_core::net::Shape::Mesh([h, 1, 1]),
                    bandwidth: Some(bandwidth),
                    latency: Some(latency),
                    ..commlab_api::network::NetRequest::default()
                };
                Timeline::on(self.schedule(), network)
            }
            _ => Timeline::of(self.schedule()),
        }
    }

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

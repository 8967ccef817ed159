//! The swizzle view's state and URL fields: its state is the engine request
//! (its `dark` is set when the view sends it).

use crate::codec::{Field, Kind, ViewState};
use commlab_api::swizzle::COMPARES;
use commlab_core::limits::IntRange;
use commlab_core::limits::{swizzle_view as lim, CORE_EXTENT, GRID_EXTENT, RANKS};
use commlab_core::swizzle::PRESETS;

/// Everything a swizzle link reproduces (the step is the shell's).
pub type SwizzleParams = commlab_api::swizzle::SwizzleRequest;

macro_rules! extent {
    ($name:literal, $range:expr, $($at:tt)+) => {
        Field {
            name: $name,
            kind: Kind::Int(IntRange { name: $name, ..$range }, |p| p.$($at)+.into(), |p, v| p.$($at)+ = v as u32),
        }
    };
}

impl crate::net_fields::OnNetwork for SwizzleParams {
    fn on_network(&self) -> bool {
        self.on_network
    }
    fn set_on_network(&mut self, on: bool) {
        self.on_network = on;
    }
    fn network(&self) -> &commlab_api::network::NetRequest {
        &self.network
    }
    fn network_mut(&mut self) -> &mut commlab_api::network::NetRequest {
        &mut self.network
    }
    fn default_network() -> commlab_api::network::NetRequest {
        commlab_api::swizzle::default_network()
    }
}

impl ViewState for SwizzleParams {
    const FIELDS: &'static [Field<Self>] = crate::net_fields::with_network_fields![
        extent!("rows", GRID_EXTENT, grid.0),
        extent!("cols", GRID_EXTENT, grid.1),
        extent!("ranks", RANKS, grid.2),
        extent!("core_rows", CORE_EXTENT, cores.0),
        extent!("core_cols", CORE_EXTENT, cores.1),
        Field {
            name: lim::DIRECTION.name,
            kind: Kind::Int(lim::DIRECTION, |p| p.direction.into(), |p, v| p.direction = v as u8),
        },
        Field { name: "deterministic", kind: Kind::Flag(|p| p.deterministic, |p, v| p.deterministic = v) },
        Field { name: "shift", kind: Kind::Flag(|p| p.shift, |p, v| p.shift = v) },
        Field {
            name: lim::TILE_BYTES.name,
            kind: Kind::Int(lim::TILE_BYTES, |p| p.tile_bytes, |p, v| p.tile_bytes = v),
        },
        Field {
            name: "preset",
            kind: Kind::Choice(
                || PRESETS.iter().map(|p| p.id).collect(),
                |p| p.preset.as_str(),
                |p, id| id.clone_into(&mut p.preset),
            ),
        },
        Field { name: "read", kind: Kind::Flag(|p| p.read, |p, v| p.read = v) },
        Field {
            name: lim::BANDWIDTH.name,
            kind: Kind::Real(lim::BANDWIDTH, |p| p.bandwidth_gib_s, |p, v| p.bandwidth_gib_s = v),
        },
        Field { name: lim::LATENCY.name, kind: Kind::Real(lim::LATENCY, |p| p.latency_ns, |p, v| p.latency_ns = v) },
        Field {
            name: "compare",
            kind: Kind::Choice(
                || COMPARES.iter().map(|c| c.0).collect(),
                |p| p.compare.as_str(),
                |p, id| id.clone_into(&mut p.compare),
            ),
        },
    ];

    fn finish(&mut self, _read: &[&'static str], _link: &crate::codec::Link, _notices: &mut Vec<crate::codec::Notice>) {
        crate::net_fields::finish(self);
    }
}

/// The swizzle schedule on every rank, for the Schedule view (a tile per message).
pub fn schedule(s: &SwizzleParams) -> commlab_api::schedule::GenerateRequest {
    commlab_api::schedule::GenerateRequest {
        collective: "swizzle".into(),
        grid: s.grid,
        cores: s.cores,
        direction: s.direction,
        deterministic: s.deterministic,
        shift: s.shift,
        read: s.read,
        bytes: s.tile_bytes,
        ..Default::default()
    }
}

// Built on the page when small, in the worker when large (`engine::split`).
crate::split_request!(
    SwizzleParams,
    commlab_api::swizzle::SwizzleRun,
    Swizzle,
    std::sync::Arc<commlab_api::swizzle::SwizzleSummary>,
    std::sync::Arc::new
);

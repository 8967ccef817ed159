//! The swizzle view's state and URL fields: the engine request and the
//! step shown. The view is a lazy one
//! (`views` bundle), so its state reads its own `step`.

use crate::codec::{Field, Kind, ViewState};
use commlab_api::swizzle::COMPARES;
use commlab_core::limits::IntRange;
use commlab_core::limits::{swizzle_view as lim, CORE_EXTENT, GRID_EXTENT, RANKS};
use commlab_core::swizzle::PRESETS;

/// The swizzle's engine request.
pub type SwizzleParams = commlab_api::swizzle::SwizzleRequest;

/// Everything a swizzle link reproduces: the request and the step shown.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SwizzleState {
    /// The request.
    pub swizzle: SwizzleParams,
    /// The step shown (clipped to the run's length).
    pub step: u64,
    /// Embed mode (the shell's; not written by this view).
    pub embed: bool,
}

macro_rules! extent {
    ($name:literal, $range:expr, $($at:tt)+) => {
        Field {
            name: $name,
            kind: Kind::Int(
                IntRange { name: $name, ..$range },
                |p| p.swizzle.$($at)+.into(),
                |p, v| p.swizzle.$($at)+ = v as u32,
            ),
        }
    };
}

crate::net_fields::impl_on_network!(SwizzleState, [swizzle], commlab_api::swizzle::default_network());

impl ViewState for SwizzleState {
    const FIELDS: &'static [Field<Self>] = crate::net_fields::with_network_fields![
        extent!("rows", GRID_EXTENT, grid.0),
        extent!("cols", GRID_EXTENT, grid.1),
        extent!("ranks", RANKS, grid.2),
        extent!("core_rows", CORE_EXTENT, cores.0),
        extent!("core_cols", CORE_EXTENT, cores.1),
        Field {
            name: lim::DIRECTION.name,
            kind: Kind::Int(lim::DIRECTION, |p| p.swizzle.direction.into(), |p, v| p.swizzle.direction = v as u8),
        },
        Field {
            name: "deterministic",
            kind: Kind::Flag(|p| p.swizzle.deterministic, |p, v| p.swizzle.deterministic = v)
        },
        Field { name: "shift", kind: Kind::Flag(|p| p.swizzle.shift, |p, v| p.swizzle.shift = v) },
        Field {
            name: lim::TILE_BYTES.name,
            kind: Kind::Int(lim::TILE_BYTES, |p| p.swizzle.tile_bytes, |p, v| p.swizzle.tile_bytes = v),
        },
        Field {
            name: "preset",
            kind: Kind::Choice(
                || PRESETS.iter().map(|p| p.id).collect(),
                |p| p.swizzle.preset.as_str(),
                |p, id| id.clone_into(&mut p.swizzle.preset),
            ),
        },
        Field { name: "read", kind: Kind::Flag(|p| p.swizzle.read, |p, v| p.swizzle.read = v) },
        Field {
            name: lim::BANDWIDTH.name,
            kind: Kind::Real(lim::BANDWIDTH, |p| p.swizzle.bandwidth_gib_s, |p, v| p.swizzle.bandwidth_gib_s = v),
        },
        Field {
            name: lim::LATENCY.name,
            kind: Kind::Real(lim::LATENCY, |p| p.swizzle.latency_ns, |p, v| p.swizzle.latency_ns = v)
        },
        Field {
            name: "compare",
            kind: Kind::Choice(
                || COMPARES.iter().map(|c| c.0).collect(),
                |p| p.swizzle.compare.as_str(),
                |p, id| id.clone_into(&mut p.swizzle.compare),
            ),
        },
        Field { name: "step", kind: Kind::Int(crate::codec::STEP, |p| p.step, |p, v| p.step = v) },
    ];

    fn finish(&mut self, read: &[&'static str], link: &crate::codec::Link, _notices: &mut Vec<crate::codec::Notice>) {
        crate::net_fields::finish(self, read, link);
    }
}

/// What "Open in timeline" hands over: the schedule, on the view's network
/// with network mode's defaults when it has one (the timeline then shows
/// the network time the view shows for this shift).
pub fn timeline(s: &SwizzleParams) -> crate::links::Timeline {
    use crate::links::Timeline;
    if s.on_network {
        Timeline::on(schedule(s), s.network.clone())
    } else {
        Timeline::of(schedule(s))
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

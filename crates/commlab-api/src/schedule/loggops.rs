//! The LogGOPS parameters of a run, their presets, and network mode's CPU costs.

use super::PARAM;
use crate::ApiError;
use commlab_core::goal::sim::Params;
use commlab_core::limits::IntRange;
use commlab_core::net::NetParams;
use serde::{Deserialize, Serialize};

/// The LogGOPS parameters of a run (ns and bytes): the simulator's own
/// [`Params`], sent with LogGOPSim's names.
pub type LogGops = Params;

/// [`Params`] on the wire (`l`, `o`, `g`, `big_g`, `big_o`, `s`).
#[derive(Serialize, Deserialize)]
#[serde(remote = "Params")]
pub(crate) struct ParamsOnWire {
    l: u64,
    o: u64,
    g: u64,
    big_g: u64,
    big_o: u64,
    s: u64,
}

/// `params`, each checked against the range of a LogGOPS parameter.
///
/// # Errors
/// The first parameter out of range.
pub fn check_loggops(p: &Params) -> Result<Params, ApiError> {
    for (name, v) in [("L", p.l), ("o", p.o), ("g", p.g), ("G", p.big_g), ("O", p.big_o), ("S", p.s)] {
        IntRange { name, ..PARAM }.check(v).map_err(ApiError::from)?;
    }
    Ok(*p)
}

/// A named set of LogGOPS parameters, with where it comes from.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    /// URL id.
    pub id: &'static str,
    /// Label.
    pub label: &'static str,
    /// Parameters.
    pub params: LogGops,
    /// Where the numbers come from.
    pub source: &'static str,
}

/// The presets of the Schedule view.
pub const PRESETS: [Preset; 5] = [
    Preset {
        id: "loggopsim",
        label: "LogGOPSim defaults",
        params: LogGops { l: 2500, o: 1500, g: 1000, big_g: 6, big_o: 0, s: 65535 },
        source: "LogGOPSim's command-line defaults (L=2500, o=1500, g=1000, G=6, O=0, S=65535)",
    },
    Preset {
        id: "hops",
        label: "Latency only (o = g = 0)",
        params: LogGops { l: 2500, o: 0, g: 0, big_g: 6, big_o: 0, s: 65535 },
        source: "the closed-form case of docs/loggops.md: a binomial reduce takes ⌈log₂ p⌉·(L + (s−1)·G)",
    },
    Preset {
        id: "100g",
        label: "100 Gb/s link, rendezvous above 16 KiB",
        params: LogGops { l: 1000, o: 300, g: 100, big_g: 0, big_o: 0, s: 16384 },
        source: "G from the line rate: 100 Gb/s moves a byte in 0.08 ns, which rounds to G = 0 in LogGOPSim's integer ns; L, o, g and S are assumptions to edit, not measurements",
    },
    Preset {
        id: "1g",
        label: "1 Gb/s Ethernet",
        params: LogGops { l: 25_000, o: 5000, g: 2000, big_g: 8, big_o: 0, s: 65535 },
        source: "G from the line rate: 1 Gb/s moves a byte in 8 ns; L, o and g are assumptions to edit, not measurements",
    },
    Preset {
        id: NETWORK_PRESET,
        label: "Network defaults (o = g = O = 0, every message eager)",
        params: LogGops { l: 2500, o: 0, g: 0, big_g: 6, big_o: 0, s: PARAM.max },
        source: "what every view runs a network with (the Chooser, the swizzle, the Runtime model's twin, commlab net sim): no CPU costs, every message eager, the NIC sends one message at a time; on a network the routes' latencies and the links' shares replace L and G (kept at LogGOPSim's for runs without one)",
    },
];

/// The preset a network run starts with ([`PRESETS`]' last): network mode's
/// defaults, the same in every view.
pub const NETWORK_PRESET: &str = "network";

/// The network mode's CPU parameters from LogGOPS's (`L` and `G` are the network's).
pub fn net_params(l: &LogGops) -> NetParams {
    NetParams { o: l.o as f64, g: l.g as f64, big_o: l.big_o as f64, s: l.s, ..NetParams::default() }
}

//! Links from one view to another: "Open in timeline" under every view
//! that draws a schedule. A view says what to open ([`Timeline`]: api
//! requests only); this module writes it as the Schedule view's state, so no
//! view imports another view's module.

use crate::codec;
use crate::views::schedule::params::ScheduleParams;
use commlab_api::network::NetRequest;
use commlab_api::schedule::{GenerateRequest, LogGops};

/// What "Open in timeline" opens.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    /// The generated collective.
    pub generate: GenerateRequest,
    /// On this network with network mode's defaults (unless `loggops` says otherwise).
    pub network: Option<NetRequest>,
    /// These LogGOPS parameters (preset `custom`) instead of a preset's.
    pub loggops: Option<LogGops>,
    /// Ticks per unit shown (the Chooser's unit of α), when not ns.
    pub unit: Option<f64>,
}

impl Timeline {
    /// `generate` under LogGOPSim's default preset.
    pub fn of(generate: GenerateRequest) -> Timeline {
        Timeline { generate, ..Timeline::default() }
    }

    /// `generate` on `network` with network mode's defaults.
    pub fn on(generate: GenerateRequest, network: NetRequest) -> Timeline {
        Timeline { generate, network: Some(network), ..Timeline::default() }
    }

    /// The Schedule view's state that shows it.
    pub fn state(&self) -> ScheduleParams {
        match (&self.loggops, &self.network) {
            (None, None) => ScheduleParams::of(self.generate.clone()),
            (None, Some(n)) => ScheduleParams::on(self.generate.clone(), n.clone()),
            (Some(l), net) => ScheduleParams {
                generate: self.generate.clone(),
                preset: "custom".into(),
                loggops: *l,
                unit: self.unit,
                on_network: net.is_some(),
                network: net.clone().unwrap_or_default(),
                ..ScheduleParams::default()
            },
        }
    }

    /// The whole link's query: `v=…&view=schedule&…`.
    pub fn link(&self) -> String {
        codec::link("schedule", &query_of(&self.state()))
    }
}

/// The Schedule view's own pairs of `state`, as query text (without `v` and `view`).
pub fn query_of(state: &ScheduleParams) -> String {
    form_urlencoded::Serializer::new(String::new()).extend_pairs(codec::write(state)).finish()
}

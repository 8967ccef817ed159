//! What a described cluster should reach (`docs/systems.md`): per message
//! size, what NCCL's model would run on a preset system, that algorithm run
//! on the system's network with one channel per rail, and the result in
//! nccl-tests' terms (time, algbw, busbw), beside NCCL's own estimate.

mod engine;
mod expected;
mod flow;
mod from_log;
mod plan;

pub use engine::{steady_note, Engine, EXPECTED_FLOW_RANKS};
pub use expected::{flow_sentence, Expected, COUPLED_NOTE};
pub use flow::{Band, Prepared, BAND_SCALES};
pub use from_log::{collective_in_name, describe, from_log, Described, FromLog, Given};
pub use plan::{algorithm_id, plan_as, simulable, Planned, Scales};

use crate::ApiError;
use commlab_core::choose::Collective;
use commlab_core::libraries::nccl::Version;
use commlab_core::limits;
use commlab_core::systems::{self, Preset};
use engine::flow_only;
use plan::decide;
use serde_json::{json as j, Value};

use crate::system::System;
pub use crate::system::{FIT_NODES, NODES, STEADY_NODES};

/// A prediction's request.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PredictRequest {
    /// The System (in JSON its keys `system`, `nodes` and `nccl_version`).
    #[serde(flatten)]
    pub system: System,
    /// Collective id.
    pub collective: String,
    /// Sizes in nccl-tests' terms (its size column for that collective).
    pub sizes: Vec<u64>,
}

/// One size's prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictRow {
    /// nccl-tests' size column.
    pub bytes: u64,
    /// Predicted time, µs.
    pub time_us: f64,
    /// bytes / time, GB/s.
    pub algbw: f64,
    /// algbw × nccl-tests' factor, GB/s.
    pub busbw: f64,
    /// NCCL's pick (`ring`, `tree`, `nvls`, …; `p2p` for all-to-all).
    pub algorithm: &'static str,
    /// Its protocol (`ll`, `ll128`, `simple`).
    pub protocol: &'static str,
    /// Channels simulated.
    pub channels: u32,
    /// Pieces per channel (pipelined algorithms; 1 otherwise).
    pub pieces: u32,
    /// The schedule simulated (`ring`, `node-tree`, `chain`, `pairwise`).
    pub simulated: &'static str,
    /// Why the simulated schedule is not NCCL's pick, when it is not.
    pub note: Option<&'static str>,
    /// NCCL's own estimate, µs (none for all-to-all: NCCL has no model of it).
    pub nccl_model_time_us: Option<f64>,
    /// The most utilised link: name, bytes over (bandwidth × run time).
    pub bottleneck: Option<(String, f64)>,
    /// The time is one value of a band about 6 % wide ([`Planned::coupled`]).
    pub coupled: bool,
    /// The engine that made the time.
    pub engine: Engine,
    /// Where the time is one value of a band: the band (µs, as `time_us`).
    pub band: Option<Band>,
}

/// A prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The preset.
    pub preset: Preset,
    /// Nodes.
    pub nodes: u32,
    /// The NCCL release whose model picked.
    pub version: Version,
    /// NCCL's settings it ran under.
    pub settings: commlab_core::libraries::nccl_env::Settings,
    /// The collective.
    pub collective: Collective,
    /// One row per size.
    pub rows: Vec<PredictRow>,
}

impl PredictRequest {
    /// The page's expected curve of `collective` at `sizes` on the System
    /// shown: `None` without a System, or where `p` is not all its GPUs
    /// (unless the System is drawn past the page's network, `far`).
    pub fn expected(
        system: Option<System>,
        far: bool,
        p: u32,
        collective: Collective,
        sizes: &[u64],
    ) -> Option<PredictRequest> {
        let system = system.filter(|s| far || s.covers(p))?;
        (!sizes.is_empty()).then(|| PredictRequest {
            system,
            collective: collective.id().to_owned(),
            sizes: sizes.to_vec(),
        })
    }

    /// Every size planned for the network ([`Planned`]), nodes within
    /// `engine`'s range ([`NODES`] for the flow engine, [`STEADY_NODES`]
    /// for the steady one), checked as [`PredictRequest::run`] checks.
    ///
    /// # Errors
    /// An unknown collective, nodes or a size out of range.
    pub fn planned(&self, engine: Engine) -> Result<Vec<Planned>, ApiError> {
        let range = engine.nodes();
        let system = self.system.check(range)?;
        let collective: Collective = self.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
        self.sizes
            .iter()
            .map(|&b| {
                limits::BYTES.check(b)?;
                Ok(decide(&system, collective, b)?.0)
            })
            .collect()
    }

    /// What the page's expected curve runs ([`Expected::by_its_engine`]):
    /// every size planned on up to [`STEADY_NODES`] nodes; past [`NODES`]
    /// only where the steady engine models every size, as `predict
    /// --engine steady` does.
    ///
    /// # Errors
    /// As [`PredictRequest::planned`]; past [`NODES`], the first size only
    /// the flow engine runs.
    pub fn planned_expected(&self) -> Result<Vec<Planned>, ApiError> {
        let planned = self.planned(Engine::Steady)?;
        if u64::from(self.system.nodes) > NODES.max {
            if let Some(p) = planned.iter().find(|p| p.expected_engine() != Engine::Steady) {
                return Err(flow_only(self.system.nodes, p));
            }
        }
        Ok(planned)
    }

    /// Predicts every size with `engine`.
    ///
    /// # Errors
    /// An unknown system or collective, nodes or a size out of range.
    pub fn run(&self, engine: Engine) -> Result<Prediction, ApiError> {
        let range = engine.nodes();
        let nodes = self.system.nodes;
        let system = self.system.check(range).map_err(|e| {
            if e.field == "nodes" && engine == Engine::Flow && STEADY_NODES.contains(u64::from(nodes)) {
                ApiError::new("nodes", nodes, format!("{NODES} with the flow engine, which simulates every flow ({STEADY_NODES} with --engine steady)"))
            } else {
                e
            }
        })?;
        let collective: Collective = self.collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
        if self.sizes.is_empty() {
            return Err(ApiError::problem(
                "bytes",
                "no size in the range: give a size, a list or MIN..MAX holding a power of two",
            ));
        }
        let rows = self
            .sizes
            .iter()
            .map(|&b| {
                limits::BYTES.check(b)?;
                row(&system, collective, b, engine)
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(Prediction {
            preset: system.preset,
            nodes: system.nodes,
            version: system.version,
            settings: system.settings,
            collective,
            rows,
        })
    }
}

/// One size: NCCL's pick, simulated by `engine`.
fn row(system: &System, collective: Collective, bytes: u64, engine: Engine) -> Result<PredictRow, ApiError> {
    let (planned, nccl_model_time_us) = decide(system, collective, bytes)?;
    let engine = engine.choose(&planned);
    if engine == Engine::Flow && u64::from(system.nodes) > NODES.max {
        return Err(flow_only(system.nodes, &planned));
    }
    let (sim_ns, bottleneck, band, engine) = if engine == Engine::Steady {
        (planned.steady_ns(Scales::NOMINAL)?, None, None, Engine::Steady)
    } else {
        match planned.prepare()? {
            None => (0.0, None, None, Engine::Flow),
            Some(prepared) => {
                let (t, net, out) = planned.run(&prepared, Scales::NOMINAL)?;
                let band = if planned.coupled() { Some(planned.band(&prepared)?) } else { None };
                let us = |ns: f64| ns / 1000.0 + planned.base_us;
                let band = band.map(|b| Band { mean: us(b.mean), min: us(b.min), max: us(b.max), runs: b.runs });
                (t, crate::network::bottleneck(&net, &out, t), band, Engine::Flow)
            }
        }
    };
    let time_us = sim_ns / 1000.0 + planned.base_us;
    let of = |m: systems::Measure| m.of(collective, planned.p, bytes, time_us * 1000.0);
    Ok(PredictRow {
        bytes,
        time_us,
        algbw: of(systems::Measure::Algbw),
        busbw: of(systems::Measure::Busbw),
        algorithm: algorithm_id(planned.algorithm),
        protocol: planned.protocol.id(),
        channels: planned.channels,
        pieces: planned.pieces,
        simulated: planned.schedule.id(),
        note: planned.note(),
        nccl_model_time_us,
        bottleneck,
        coupled: planned.coupled() && engine == Engine::Flow,
        engine,
        band,
    })
}

impl Prediction {
    /// The JSON of `commlab predict`: `system` (every value with its
    /// source, the assumptions), `nodes`, `ranks`, `collective`, and `rows`
    /// (`bytes`, `time_us`, `algbw`, `busbw`, `algorithm`, `protocol`,
    /// `channels`, `nccl_model_time_us`, and how it was simulated).
    pub fn to_json(&self) -> Value {
        let s = &self.preset;
        let sources: Vec<Value> = s
            .sources()
            .iter()
            .map(|(what, value, source)| j!({ "what": what, "value": value, "source": source }))
            .collect();
        let p = s.ranks(self.nodes);
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let bottleneck = r.bottleneck.as_ref().map(|(name, u)| {
                    j!({ "link": name, "utilisation": u, "bound_busbw": if *u > 0.0 { r.busbw / u } else { 0.0 } })
                });
                j!({
                    "bytes": r.bytes, "time_us": r.time_us, "algbw": r.algbw, "busbw": r.busbw,
                    "algorithm": r.algorithm, "protocol": r.protocol, "channels": r.channels,
                    "pieces": r.pieces, "simulated": r.simulated, "note": r.note,
                    "nccl_model_time_us": r.nccl_model_time_us, "bottleneck": bottleneck,
                    "coupled": r.coupled, "engine": r.engine.id(),
                    "band": r.band.map(|b| j!({ "mean_us": b.mean, "min_us": b.min, "max_us": b.max, "runs": b.runs })),
                })
            })
            .collect();
        let nccl = s.nccl_at(self.nodes, self.version);
        j!({
            "system": {
                "id": s.id, "name": s.name, "gpus_per_node": s.gpus, "nics_per_node": s.nics,
                "nvlink_gbps": s.nvlink, "nvlink_line_gbps": s.nvlink_line, "nic_gbps": s.nic, "nvls": s.nvls,
                "topology": s.shape(self.nodes).to_string(),
                "nccl": {
                    "channels": nccl.channels, "bw_intra": nccl.bw_intra, "bw_inter": nccl.bw_inter,
                    "nvls": nccl.nvls, "version": nccl.version.label(),
                    "link": if nccl.nvlink { "nvlink" } else { "pcie" },
                },
                "pcie_gen": s.pcie,
                "sources": sources,
                "assumptions": systems::ASSUMPTIONS,
                "not_modelled": s.not_modelled(self.nodes),
                "env": self.settings.text(),
                "env_not_modelled": self.settings.not_modelled(),
            },
            "nodes": self.nodes,
            "ranks": p,
            "collective": self.collective.id(),
            "busbw_factor": systems::busbw_factor(self.collective, p),
            "rows": rows,
            "model_note": self.model_note(),
            "engine_note": self.engine_note(),
        })
    }

    /// What the steady engine is, where a row used it (`None`: no row did).
    pub fn engine_note(&self) -> Option<String> {
        self.rows.iter().any(|r| r.engine == Engine::Steady).then(steady_note)
    }

    /// What the "NCCL's model" column is, and where it is furthest from the
    /// simulation: both numbers and the simulation's busiest link (`None`:
    /// no row has NCCL's estimate).
    pub fn model_note(&self) -> Option<String> {
        let gap = |r: &PredictRow| r.nccl_model_time_us.map_or(-1.0, |m| (m / r.time_us).ln().abs());
        let worst =
            self.rows.iter().filter(|r| r.nccl_model_time_us.is_some()).max_by(|a, b| gap(a).total_cmp(&gap(b)))?;
        let model = worst.nccl_model_time_us?;
        let ratio = if model > worst.time_us { model / worst.time_us } else { worst.time_us / model };
        let side = if model > worst.time_us { "above" } else { "below" };
        let neck = worst.bottleneck.as_ref().map_or(String::new(), |(link, u)| {
            format!("; the simulation's busiest link is {link}, busy {:.0} % of the run", 100.0 * u)
        });
        Some(format!(
            "NCCL's model is NCCL's own estimate (tuning.cc), made only to rank its algorithms and protocols: it charges the bytes at its table's bus bandwidth per channel and never sees the links shared, so it is no prediction. Furthest from the simulation here at {} B: {model:.1} µs, {ratio:.2}× {side} the simulated {:.1} µs{neck}.",
            worst.bytes, worst.time_us
        ))
    }
}

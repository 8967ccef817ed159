//! The page's expected curve of a System: one [`Expected`] point per size
//! by the engine the curve takes, and the words the page shows beside it
//! (what the curve is, the steady rows, a size run flow by flow).

use super::{Band, Engine, Planned, PredictRequest, Scales, EXPECTED_FLOW_RANKS};
use crate::system::NODES;
use crate::ApiError;
use commlab_plot::format_quantity as q;

/// One size of the curve the Chooser draws for a preset system: the
/// prediction's time and what ran ([`Prediction::expected`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Expected {
    /// nccl-tests' size column.
    pub bytes: u64,
    /// Predicted time, ns.
    pub time_ns: f64,
    /// NCCL's pick and its protocol, `ring/ll128`, and the channels: `ring/ll128, 8 channels`.
    pub pick: String,
    /// The time is one value of a band a few percent wide ([`Planned::coupled`]).
    #[serde(default)]
    pub coupled: bool,
    /// The engine that made the time ([`Planned::expected_engine`]).
    #[serde(default)]
    pub engine: Engine,
}

impl Expected {
    /// The expected point of `planned` that the flow engine ran in `sim_ns`.
    pub fn of(planned: &Planned, sim_ns: f64) -> Expected {
        Expected {
            bytes: planned.bytes,
            time_ns: sim_ns + planned.base_us * 1000.0,
            pick: planned.pick(),
            coupled: planned.coupled(),
            engine: Engine::Flow,
        }
    }

    /// The expected point of `planned` by the engine the page's curve takes
    /// ([`Planned::expected_engine`]).
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn by_its_engine(planned: &Planned) -> Result<Expected, ApiError> {
        if planned.expected_engine() == Engine::Steady {
            let ns = planned.steady_ns(Scales::NOMINAL)?;
            return Ok(Expected { coupled: false, engine: Engine::Steady, ..Expected::of(planned, ns) });
        }
        Ok(Expected::of(planned, planned.simulate()?.0))
    }
}

impl PredictRequest {
    /// Whether the curve is past the flow engine's nodes (no size runs flow
    /// by flow there).
    pub fn far(&self) -> bool {
        u64::from(self.system.nodes) > NODES.max
    }

    /// The curve's name in the chart's legend.
    pub fn series_name(&self) -> String {
        format!("expected: {} × {} (NCCL's pick, its channels)", self.system.nodes, self.system.short_name())
    }

    /// What the expected table is: its summary line.
    pub fn expected_caption(&self) -> String {
        format!(
            "Dashed: what {} × {} should reach at each size: NCCL's pick {}",
            self.system.nodes,
            self.system.short_name(),
            if self.far() {
                "from its steady state (commlab predict --engine steady)"
            } else {
                "simulated on the network with a channel per rail (commlab predict)"
            }
        )
    }

    /// What the rows marked (steady) are, and how far they are from the
    /// flow engine ([`crate::steady::ACCURACY`]).
    pub fn steady_rows_note(&self) -> String {
        format!(
            "Rows marked (steady): on more than {EXPECTED_FLOW_RANKS} ranks the flow engine takes seconds to minutes a size, so NCCL's tree, NVLS tree and rings come from their steady state, in milliseconds. {}; on more nodes NVLS tree's steady state is faster by more, as it leaves out the NICs' fill and drain under sharing (docs/systems.md, \"Two engines\"). {}",
            crate::steady::accuracy_sentence(),
            if self.far() {
                format!("Past {} nodes nothing runs flow by flow: the flow engine's runs at such sizes take minutes to hours (commlab predict --engine steady gives these rows).", NODES.max)
            } else {
                "\"simulate\" runs one size flow by flow beside it (commlab predict --engine flow).".to_owned()
            }
        )
    }
}

/// Where a row is a ring over several channels ([`Planned::coupled`]).
pub const COUPLED_NOTE: &str = "Where a row is simulated as a ring over several channels, its time is one value in a band a few percent wide: the channels' flows share links max–min, and the last digits of any parameter move it (commlab predict --json gives each such row's band; docs/systems.md, \"Two engines\").";

/// The flow engine's run of the size `at` beside its steady value
/// (`steady_ns`), in words: `band` is `None` while it runs.
pub fn flow_sentence(at: u64, steady_ns: Option<f64>, band: Option<Result<Band, String>>) -> String {
    let size = commlab_plot::chooser::short_bytes(at);
    let band = match band {
        None => {
            return format!("Simulating {size} flow by flow in the engine worker (seconds to minutes on many nodes)…")
        }
        Some(Err(e)) => return format!("The flow engine at {size}: {e}"),
        Some(Ok(band)) => band,
    };
    let runs = if band.runs > 1 {
        format!(
            "the mean of {} runs with the System's values moved ±0.5 %, {}–{} µs",
            band.runs,
            q(band.min / 1000.0),
            q(band.max / 1000.0)
        )
    } else {
        "one run: these flows do not couple, so the time has no band".to_owned()
    };
    let against = steady_ns.map_or(String::new(), |s| {
        format!(" against the steady state's {} µs ({:+.1} %)", q(s / 1000.0), 100.0 * (s / band.mean - 1.0))
    });
    format!("The flow engine at {size}: {} µs ({runs}){against}.", q(band.mean / 1000.0))
}

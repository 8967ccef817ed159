//! The Chooser's one unit per chart: what its y axis shows at each stage
//! (the α–β model, a network's results on their way, the network's results
//! in), and what the cost preset's numbers mean there. The page and
//! `commlab choose` both ask here.

use super::CostPreset;
use commlab_core::systems::Measure;

/// Where the Chooser's times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The α–β model (and its LogGOPS points): times in the unit α is given in.
    Model,
    /// A network is picked and its results are not in yet.
    Pending,
    /// The network's simulated times (ns).
    Network,
}

/// What the chart draws, in one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChartUnits {
    /// The measure every curve is drawn in.
    pub measure: Measure,
    /// The y axis's label.
    pub axis: &'static str,
    /// The algorithms' curves are drawn (else a System's expected curve alone).
    pub algorithms: bool,
    /// A System's expected curve (in ns) may be drawn.
    pub expected: bool,
}

/// The chart's unit at `stage`, when `asked` was chosen for the y axis and
/// α, β are in ns (`ns`: LogGOPSim's preset) or not. A bandwidth needs times
/// in ns, and an expected curve (always ns) never shares an axis with times
/// in units of α: while a network's results are on their way, a System's
/// expected curve is drawn alone where one is asked (`expected_asked`: a
/// System is picked with p all its GPUs; until its curve is in, the chart
/// waits for it, never showing the α–β curves in its place), else the α–β
/// curves alone.
pub fn chart_units(stage: Stage, asked: Measure, ns: bool, expected_asked: bool) -> ChartUnits {
    match stage {
        Stage::Network => ChartUnits { measure: asked, axis: asked.axis(), algorithms: true, expected: true },
        Stage::Pending if expected_asked => {
            ChartUnits { measure: asked, axis: asked.axis(), algorithms: false, expected: true }
        }
        Stage::Pending | Stage::Model if ns => {
            ChartUnits { measure: asked, axis: asked.axis(), algorithms: true, expected: false }
        }
        Stage::Pending | Stage::Model => {
            ChartUnits { measure: Measure::Time, axis: "time (units of α)", algorithms: true, expected: false }
        }
    }
}

/// What the cost preset's numbers are, said for the stage the chart is in:
/// on a network the chart's times are simulated in ns, and α, β, γ only give
/// the model's crossovers beside them and the pipelined algorithms' piece
/// counts.
pub fn cost_note(preset: Option<&CostPreset>, on_network: bool) -> String {
    let source = preset.map_or("your own values", |x| x.source);
    if on_network {
        format!(
            "{source}. On a network the chart shows simulated times in ns: α, β and γ only give the model's crossovers beside them and the pipelined algorithms' piece counts."
        )
    } else {
        let unit = if preset.is_some_and(|x| x.ns) { "times in ns" } else { "times in units of α" };
        format!("{source}; {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chooser::COST_PRESETS;

    const STAGES: [Stage; 3] = [Stage::Model, Stage::Pending, Stage::Network];
    const MEASURES: [Measure; 3] = [Measure::Time, Measure::Algbw, Measure::Busbw];

    /// Every stage, measure and preset: one unit per chart. An axis in units
    /// of α never carries an expected curve or a bandwidth, and a bandwidth
    /// only comes with times in ns.
    #[test]
    fn one_unit_per_chart() {
        let mut seen_alone = false;
        for stage in STAGES {
            for asked in MEASURES {
                for ns in [false, true] {
                    for has_expected in [false, true] {
                        let u = chart_units(stage, asked, ns, has_expected);
                        // A System asked: never an α axis or the α–β curves before its results.
                        if has_expected && stage == Stage::Pending {
                            assert!(!u.algorithms && u.expected && u.measure == asked, "{asked:?} ns={ns}");
                        }
                        let alpha = u.axis == "time (units of α)";
                        assert!(!(alpha && u.expected), "{stage:?} {asked:?} ns={ns}: expected curve on an α axis");
                        assert!(!(alpha && u.measure != Measure::Time), "{stage:?} {asked:?}: a bandwidth in α");
                        assert_eq!(alpha, stage != Stage::Network && !ns && !(stage == Stage::Pending && has_expected));
                        if !alpha {
                            assert_eq!(u.axis, u.measure.axis());
                        }
                        assert!(u.algorithms || u.expected, "nothing drawn");
                        seen_alone |= !u.algorithms;
                    }
                }
            }
        }
        // While a System's results are pending, its expected curve alone, in the measure asked for.
        let u = chart_units(Stage::Pending, Measure::Busbw, false, true);
        assert_eq!((u.measure, u.algorithms, u.expected), (Measure::Busbw, false, true));
        assert!(seen_alone);
    }

    /// Off the network the note names the preset's unit; on it, no α unit is promised.
    #[test]
    fn the_cost_note_follows_the_stage() {
        let textbook = &COST_PRESETS[0];
        assert!(cost_note(Some(textbook), false).ends_with("times in units of α"));
        assert!(cost_note(Some(&COST_PRESETS[1]), false).ends_with("times in ns"));
        for preset in [Some(textbook), Some(&COST_PRESETS[1]), None] {
            let on = cost_note(preset, true);
            assert!(!on.contains("units of α"), "{on}");
            assert!(on.contains("simulated times in ns"), "{on}");
        }
        assert!(cost_note(None, false).starts_with("your own values"));
    }
}

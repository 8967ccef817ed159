//! The expected curve of a preset system (`docs/systems.md`): when the
//! Chooser's network is N nodes of a preset (the System select) and p is
//! all their GPUs, what `commlab predict` gives at the chart's sizes (NCCL's
//! pick, simulated on the network with a channel per rail) is drawn beside
//! the algorithms' curves, in the chart's measure.

use super::params::ChooserParams;
use commlab_api::predict::{Band, Engine, Expected, PredictRequest};
use commlab_api::system::System;
use commlab_core::choose::Collective;
use commlab_core::systems::Measure;
use commlab_plot::chooser::Series;
use commlab_plot::{format_quantity as q, RGBColor};
use leptos::prelude::*;

/// What to predict for `c` at `sizes`: `None` unless the network is a
/// preset's nodes and p is every rank of them, or the view draws a System
/// past its network ([`ChooserParams::far`]).
pub fn request(c: &ChooserParams, sizes: &[u64]) -> Option<PredictRequest> {
    PredictRequest::expected(c.system(), c.far().is_some(), c.compare.p, c.compare.collective, sizes)
}

/// A System's name in a sentence: a preset's id, or "custom system".
pub fn short(system: &System) -> &'static str {
    if system.preset.id == "custom" {
        "custom system"
    } else {
        system.preset.id
    }
}

/// The expected curve as a chart series in `measure` (dashed, in `color`),
/// if it was computed at exactly the chart's `sizes`.
pub fn series(
    (asked, rows): (&PredictRequest, &[Expected]),
    sizes: &[u64],
    (collective, p): (Collective, u32),
    measure: Measure,
    color: RGBColor,
) -> Option<Series> {
    (asked.sizes == sizes && rows.len() == sizes.len()).then(|| Series {
        name: format!("expected: {} × {} (NCCL's pick, its channels)", asked.system.nodes, short(&asked.system)),
        color,
        times: rows.iter().map(|e| measure.of(collective, p, e.bytes, e.time_ns)).collect(),
        simulated: vec![None; rows.len()],
        dashed: true,
    })
}

/// The expected curve's values: per size, NCCL's pick, the time and both
/// bandwidths (a stacked table on phones).
#[component]
pub fn ExpectedTable(
    /// What was predicted.
    asked: PredictRequest,
    /// Its rows.
    rows: Vec<Expected>,
    /// The collective (the bus bandwidth's factor).
    collective: Collective,
    /// The Chooser's parameters (`flow=`: the size simulated flow by flow).
    params: RwSignal<ChooserParams>,
    /// That size's flow run, once the worker answered.
    flowed: RwSignal<Option<super::ctx::Flowed>>,
) -> impl IntoView {
    let steady_at: Vec<(u64, f64)> =
        rows.iter().filter(|e| e.engine == Engine::Steady).map(|e| (e.bytes, e.time_ns)).collect();
    let p = asked.system.ranks();
    let heads = ["size", "NCCL's pick", "time (µs)", "algbw (GB/s)", "busbw (GB/s)"];
    let coupled = rows.iter().any(|e| e.coupled);
    let steady = !steady_at.is_empty();
    // Past the flow engine's nodes no size runs flow by flow.
    let far = u64::from(asked.system.nodes) > commlab_api::system::NODES.max;
    view! {
        <details class="expected" data-testid="expected">
            <summary>{format!(
                "Dashed: what {} × {} should reach at each size: NCCL's pick {}",
                asked.system.nodes, short(&asked.system),
                if far { "from its steady state (commlab predict --engine steady)" } else { "simulated on the network with a channel per rail (commlab predict)" }
            )}</summary>
            <div class="table-scroll" tabindex="0"><table class="numbers stack" data-testid="expected-table" style=crate::controls::stack::stack_labels(&heads)>
                <thead><tr>{heads.map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr></thead>
                <tbody>{rows.into_iter().map(|e| view! { <tr>
                    <td>{commlab_plot::chooser::short_bytes(e.bytes)}</td>
                    <td>{if e.engine == Engine::Steady && far {
                        format!("{} (steady)", e.pick).into_any()
                    } else if e.engine == Engine::Steady {
                        let bytes = e.bytes;
                        view! { {format!("{} (steady) ", e.pick)}<button type="button" class="link" data-testid=format!("flow-{bytes}") on:click=move |_| params.update(|c| c.flow = bytes)>"simulate"</button> }.into_any()
                    } else {
                        e.pick.clone().into_any()
                    }}</td>
                    <td>{q(e.time_ns / 1000.0)}</td>
                    <td>{q(Measure::Algbw.of(collective, p, e.bytes, e.time_ns))}</td>
                    <td>{q(Measure::Busbw.of(collective, p, e.bytes, e.time_ns))}</td>
                </tr> }).collect_view()}</tbody>
            </table></div>
            {asked.system.not_modelled().map(|left| view! {
                <p class="field-note" data-testid="expected-not-modelled">{format!("Not modelled: {left}.")}</p>
            })}
            {steady.then(|| view! { <p class="field-note" data-testid="expected-steady">{format!(
                "Rows marked (steady): on more than {} ranks the flow engine takes seconds to minutes a size, so NCCL's tree, NVLS tree and rings come from their steady state, in milliseconds. {}; on more nodes NVLS tree's steady state is faster by more, as it leaves out the NICs' fill and drain under sharing (docs/systems.md, \"Two engines\"). {}",
                commlab_api::predict::EXPECTED_FLOW_RANKS,
                commlab_api::steady::accuracy_sentence(),
                if far {
                    format!("Past {} nodes nothing runs flow by flow: the flow engine's runs at such sizes take minutes to hours (commlab predict --engine steady gives these rows).", commlab_api::system::NODES.max)
                } else {
                    "\"simulate\" runs one size flow by flow beside it (commlab predict --engine flow).".to_owned()
                }
            )}</p> })}
            {move || flowed.get().map(|(_, at, band)| {
                let steady = steady_at.iter().find(|(b, _)| *b == at).map(|(_, t)| *t);
                view! { <p class="field-note" data-testid="expected-flow" role="status">{flow_sentence(at, steady, band)}</p> }
            })}
            {coupled.then(|| view! { <p class="field-note" data-testid="expected-coupled">"Where a row is simulated as a ring over several channels, its time is one value in a band a few percent wide: the channels' flows share links max–min, and the last digits of any parameter move it (commlab predict --json gives each such row's band; docs/systems.md, \"Two engines\")."</p> })}
        </details>
    }
}

/// The flow engine's run of one size beside its steady value, in words.
fn flow_sentence(at: u64, steady_ns: Option<f64>, band: Option<Result<Band, String>>) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_preset_s_nodes_with_every_rank_get_a_curve() {
        let mut c = ChooserParams::default();
        assert_eq!(request(&c, &[1024]), None, "the α–β model");
        let preset = commlab_core::systems::PRESETS[0];
        assert_eq!(preset.id, "dgx-h100");
        c.on_network = true;
        c.network.system(&preset, 2);
        c.compare.p = 16;
        let r = request(&c, &[1024, 2048]).unwrap();
        assert_eq!((r.system.id().as_str(), r.system.nodes, r.collective.as_str()), ("dgx-h100", 2, "allreduce"));
        c.compare.p = 8;
        assert_eq!(request(&c, &[1024]), None, "p is not every rank of the nodes");
        // Past the page's network: one node of the System stands for it.
        c.network.system(&preset, 1);
        c.far = 512;
        assert_eq!(request(&c, &[1024]).map(|r| r.system.nodes), Some(512));
        c.compare.p = 16;
        assert_eq!(request(&c, &[1024]), None, "p left the System's one node");
        c.compare.p = 8;
        // Drawn in the chart's measure, only at the sizes it was asked for.
        let rows = [Expected {
            bytes: 1_000_000_000,
            time_ns: 1e7,
            pick: "ring/simple".into(),
            coupled: false,
            engine: commlab_api::predict::Engine::Flow,
        }];
        let s = series((&r, &rows), &[1024, 2048], (Collective::Allreduce, 16), Measure::Busbw, RGBColor(0, 0, 0));
        assert!(s.is_none(), "asked at other sizes");
        let asked = PredictRequest { sizes: vec![1_000_000_000], ..r };
        let s =
            series((&asked, &rows), &[1_000_000_000], (Collective::Allreduce, 16), Measure::Busbw, RGBColor(0, 0, 0));
        assert!((s.unwrap().times[0] - 187.5).abs() < 1e-9);
    }
}

//! The expected curve of a preset system (`docs/systems.md`): when the
//! Chooser's network is N nodes of a preset (the System select) and p is
//! all their GPUs, what `commlab predict` gives at the chart's sizes (NCCL's
//! pick, simulated on the network with a channel per rail) is drawn beside
//! the algorithms' curves, in the chart's measure.

use super::params::ChooserParams;
use commlab_api::predict::{flow_sentence, Engine, Expected, PredictRequest, COUPLED_NOTE};
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
        name: asked.series_name(),
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
    let far = asked.far();
    view! {
        <details class="expected" data-testid="expected">
            <summary>{asked.expected_caption()}</summary>
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
            {steady.then(|| view! { <p class="field-note" data-testid="expected-steady">{asked.steady_rows_note()}</p> })}
            {move || flowed.get().map(|(_, at, band)| {
                let steady = steady_at.iter().find(|(b, _)| *b == at).map(|(_, t)| *t);
                view! { <p class="field-note" data-testid="expected-flow" role="status">{flow_sentence(at, steady, band)}</p> }
            })}
            {coupled.then(|| view! { <p class="field-note" data-testid="expected-coupled">{COUPLED_NOTE}</p> })}
        </details>
    }
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

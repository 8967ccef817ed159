//! The Chooser's controls: the collective, p and the sizes; the cost model
//! (preset, α, β, γ, system, the chart's measure, the network); the
//! algorithms compared; the winner map's range of p.

use super::ctx::color_of;
use super::params::{ChooserParams, PRESETS, SIM_P};
use crate::controls::number_field::{int_range, real_range, NumberField};
use commlab_api::chooser::P;
use commlab_core::choose::{of, Collective};
use commlab_core::limits;
use commlab_core::systems::Measure;
use leptos::prelude::*;

/// The collectives, with labels.
const COLLECTIVES: [(&str, &str); 6] = [
    ("broadcast", "Broadcast (from rank 0)"),
    ("reduce", "Reduce (to rank 0)"),
    ("allreduce", "Allreduce"),
    ("allgather", "Allgather"),
    ("reduce-scatter", "Reduce-scatter"),
    ("all-to-all", "All-to-all"),
];

/// The collective, p and the range of sizes.
#[component]
fn SizeFields(params: RwSignal<ChooserParams>) -> impl IntoView {
    let set = move |f: fn(&mut ChooserParams, f64)| Callback::new(move |v: f64| params.update(|c| f(c, v)));
    let val = move |f: fn(&ChooserParams) -> f64| Signal::derive(move || params.with(f));
    view! {
        <div class="field">
            <label for="collective">"Collective"</label>
            <select id="collective" data-testid="collective" on:change=move |ev| {
                let v = event_target_value(&ev);
                if let Ok(x) = v.parse::<Collective>() {
                    params.update(|c| { c.compare.collective = x; c.compare.algorithms.clear(); c.fit_algorithm.clear(); });
                }
            }>
                {COLLECTIVES.iter().map(|&(id, label)| view! { <option value=id selected=move || params.with(|c| c.compare.collective.id() == id)>{label}</option> }).collect_view()}
            </select>
        </div>
        // Past the page's network p is the System's (its note says it).
        <div class="far-hide">
            <NumberField id="p" label="Ranks p" integer=true range=int_range(P)
                value=val(|c| f64::from(c.compare.p)) on_change=set(|c, v| c.compare.p = v as u32) />
        </div>
        <NumberField id="lo" label="Smallest message" unit="B" integer=true range=int_range(limits::chooser::SIZE)
            value=val(|c| c.compare.lo as f64) on_change=set(|c, v| { c.compare.lo = v as u64; c.compare.hi = c.compare.hi.max(c.compare.lo); }) />
        <NumberField id="hi" label="Largest message" unit="B" integer=true range=int_range(limits::chooser::SIZE)
            value=val(|c| c.compare.hi as f64) on_change=set(|c, v| { c.compare.hi = v as u64; c.compare.lo = c.compare.lo.min(c.compare.hi); }) />
    }
}

/// The cost model: preset, α, β, γ, the system, the chart's measure and the network.
#[component]
fn CostFields(params: RwSignal<ChooserParams>) -> impl IntoView {
    let val = move |f: fn(&ChooserParams) -> f64| Signal::derive(move || params.with(f));
    let abg = move |k: usize| {
        Callback::new(move |v: f64| {
            params.update(|c| {
                c.compare.abg[k] = v;
                c.preset = "custom".into();
            });
        })
    };
    let preset_source = move || {
        params.with(|c| commlab_api::chooser::units::cost_note(PRESETS.iter().find(|x| x.id == c.preset), c.on_network))
    };
    view! {
        <h3>"Cost model"</h3>
        // Past the page's network the System alone sets the costs.
        <div class="far-hide">
        <div class="field">
            <label for="preset">"Preset"</label>
            <select id="preset" data-testid="preset" on:change=move |ev| {
                let v = event_target_value(&ev);
                params.update(|c| if let Some(x) = PRESETS.iter().find(|x| x.id == v) { c.preset = x.id.into(); c.compare.abg = x.abg; });
            }>
                {PRESETS.iter().map(|x| { let id = x.id; view! { <option value=id selected=move || params.with(|c| c.preset == id)>{x.label}</option> } }).collect_view()}
                <option value="custom" disabled=true selected=move || params.with(|c| c.preset == "custom")>"custom"</option>
            </select>
        </div>
        <p class="preset-source" data-testid="preset-source">{preset_source}</p>
        <NumberField id="alpha" label="α: per message" range=real_range(limits::chooser::COST) slider=limits::chooser::ALPHA_SLIDER value=val(|c| c.compare.abg[0]) on_change=abg(0) />
        <NumberField id="beta" label="β: per byte moved" range=real_range(limits::chooser::COST) slider=limits::chooser::PER_BYTE_SLIDER value=val(|c| c.compare.abg[1]) on_change=abg(1) />
        <NumberField id="gamma" label="γ: per byte combined" range=real_range(limits::chooser::COST) slider=limits::chooser::PER_BYTE_SLIDER value=val(|c| c.compare.abg[2]) on_change=abg(2) />
        </div>
        <super::system::SystemSelect params=params />
        <div class="field">
            <label for="y-axis">"Chart's y axis"</label>
            <select id="y-axis" data-testid="y-axis" prop:value=move || params.with(|c| c.y.id())
                on:change=move |ev| { let m = Measure::parse(&event_target_value(&ev)).unwrap_or_default(); params.update(|c| c.y = m); }>
                <option value="time">"time"</option>
                <option value="algbw">"algbw (GB/s)"</option>
                <option value="busbw">"busbw (GB/s, nccl-tests)"</option>
            </select>
        </div>
        {move || params.with(|c| (c.y != Measure::Time && c.measure() == Measure::Time).then(|| view! {
            <p class="hint" data-testid="y-axis-note">"algbw and busbw need times in ns: pick a system, a network or LogGOPSim's preset. The chart shows times."</p>
        }))}
        <div class="far-hide">
            <crate::controls::network::NetworkControls params=params label="simulate on a network instead of the model"
                note="Each algorithm at each size runs on the network at the model's best piece count: every message a flow along its route, sharing links max–min (o = g = 0). The chart, the crossovers and the winner map become the network's; runs already simulated are kept." />
        </div>
    }
}

/// The algorithms compared, the simulated points and the map's range of p.
#[component]
fn AlgorithmFields(params: RwSignal<ChooserParams>) -> impl IntoView {
    let set = move |f: fn(&mut ChooserParams, f64)| Callback::new(move |v: f64| params.update(|c| f(c, v)));
    let val = move |f: fn(&ChooserParams) -> f64| Signal::derive(move || params.with(f));
    let algorithm_boxes = move || {
        let collective = params.with(|c| c.compare.collective);
        of(collective)
            .map(|a| {
                let id = a.id;
                let color = commlab_plot::svg::hex(color_of(collective, id));
                view! {
                    <label class="check algorithm-check">
                        <input type="checkbox" data-testid=format!("alg-{id}")
                            prop:checked=move || params.with(|c| c.compare.included().iter().any(|x| x == id))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                params.update(|c| {
                                    let mut off = c.compare.left_out();
                                    off.retain(|x| x != id);
                                    // The last algorithm compared stays.
                                    if !on && off.len() + 1 < of(c.compare.collective).count() {
                                        off.push(id.to_owned());
                                    }
                                    c.compare.leave_out(&off);
                                });
                            } />
                        <span class="swatch" style=format!("background:{color}")></span>
                        {format!(" {id}{}", if a.pipelined { " (pipelined)" } else { "" })}
                    </label>
                }
            })
            .collect_view()
    };
    view! {
        <h3>"Algorithms"</h3>
        <div class="algorithm-list" role="group" aria-label="Algorithms compared">{algorithm_boxes}</div>
        <Show when=move || params.with(|c| !c.on_network)>
            <label class="check"><input type="checkbox" data-testid="simulate" prop:checked=move || params.with(|c| c.simulate)
                on:change=move |ev| { let on = event_target_checked(&ev); params.update(|c| c.simulate = on); } />" LogGOPS points (L = α, G = β, o = g = 0)"</label>
        </Show>
        {move || params.with(|c| c.simulate && c.compare.p > SIM_P).then(|| view! {
            <p class="field-note" data-testid="sim-note">{format!("Simulated points are drawn up to p = {SIM_P} (each point is a full LogGOPS run).")}</p>
        })}
        <h3>"Winner map"</h3>
        <NumberField id="map-lo" label="Map: smallest p" integer=true range=int_range(P)
            value=val(|c| f64::from(c.map_p.0)) on_change=set(|c, v| { c.map_p.0 = v as u32; c.map_p.1 = c.map_p.1.max(c.map_p.0); }) />
        <NumberField id="map-hi" label="Map: largest p" integer=true range=int_range(P)
            value=val(|c| f64::from(c.map_p.1)) on_change=set(|c, v| { c.map_p.1 = v as u32; c.map_p.0 = c.map_p.0.min(c.map_p.1); }) />
    }
}

/// The controls column.
#[component]
pub fn ChooserControls(
    /// The view's state.
    params: RwSignal<ChooserParams>,
) -> impl IntoView {
    view! {
        <div class="controls" role="group" aria-label="Chooser">
            <h2 id="chooser-title">"Collective chooser"</h2>
            <SizeFields params=params />
            <CostFields params=params />
            // Past the page's network no algorithm is compared.
            <div class="far-hide"><AlgorithmFields params=params /></div>
        </div>
    }
}

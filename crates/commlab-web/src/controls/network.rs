//! The network controls of the views that run on a network (the Schedule
//! view, the Chooser): the switch, the topology (free text with examples,
//! a bad id named under the field), both link classes (the second only for
//! a fat tree and `nodes`), seeded and named breaks, the placement.

use crate::controls::number_field::{int_range, real_range, NumberField};
use crate::net_fields::OnNetwork;
use commlab_core::limits;
use commlab_core::net::Shape;
use leptos::prelude::*;

/// Topologies offered as examples beside the free text.
const EXAMPLES: [&str; 6] = ["torus:4x4", "ring:8", "mesh:4x4", "fattree:4,4,2", "nodes:2x4", "switch:16"];

fn shape_of<S: OnNetwork>(p: &S) -> Shape {
    p.network().topology
}

/// The network controls.
#[component]
pub fn NetworkControls<S>(
    /// The view's state.
    params: RwSignal<S>,
    /// The switch's words.
    label: &'static str,
    /// What running on the network means in this view.
    note: &'static str,
) -> impl IntoView
where
    S: OnNetwork + Send + Sync + 'static,
{
    let typed = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let on = move || params.with(S::on_network);
    let shape = move || params.with(shape_of);
    let two_classes = move || matches!(shape(), Shape::FatTree { .. } | Shape::Nodes { .. });
    let class = move |second: bool| shape().default_classes()[usize::from(second)];
    let set_topology = move |text: String| match text.trim().parse::<Shape>() {
        Ok(s) => {
            error.set(None);
            typed.set(None);
            params.update(|p| {
                let net = p.network_mut();
                if net.topology != s {
                    // Named breaks belong to the old topology's vertices.
                    net.breaks.clear();
                }
                net.topology = s;
            });
        }
        Err(e) => {
            typed.set(Some(text));
            error.set(Some(e));
        }
    };
    // A placement is kept only once it reads; what was typed stays in the box with why not.
    let (place_typed, place_error) = (RwSignal::new(None::<String>), RwSignal::new(None::<String>));
    let set_placement = move |text: String| match text.trim().parse::<commlab_core::net::Placement>() {
        Ok(placement) => {
            place_typed.set(None);
            place_error.set(None);
            params.update(|p| p.network_mut().placement = placement);
        }
        Err(e) => {
            place_typed.set(Some(text));
            place_error.set(Some(e));
        }
    };
    let real = move |f: fn(&S) -> f64| Signal::derive(move || params.with(f));
    view! {
        <h3>"Network"</h3>
        <label class="check"><input type="checkbox" data-testid="on-network" prop:checked=on
            on:change=move |ev| { let v = event_target_checked(&ev); params.update(|p| { p.set_on_network(v); p.switched(v); }); } />" "{label}</label>
        <Show when=on>
            <div class="field">
                <label for="net">"Topology"</label>
                <input id="net" data-testid="topology" type="text" spellcheck="false" list="net-examples"
                    aria-describedby="net-error"
                    prop:value=move || typed.get().unwrap_or_else(|| params.with(|p| p.network().topology.to_string()))
                    on:change=move |ev| set_topology(event_target_value(&ev)) />
                <datalist id="net-examples">{EXAMPLES.map(|e| view! { <option value=e></option> }).collect_view()}</datalist>
                <p class="field-error" id="net-error" role="alert" data-testid="topology-error">{move || error.get()}</p>
                <p class="hint">{commlab_core::net::topology::FORMS}{format!("; up to {} hosts", limits::net::HOSTS.max)}</p>
            </div>
            <NumberField id="bw" label="Link bandwidth" unit="B/ns" range=real_range(limits::net::BANDWIDTH) slider=limits::net::BANDWIDTH_SLIDER
                value=Signal::derive(move || params.with(|p| p.network().bandwidth).unwrap_or_else(|| class(false).bandwidth))
                on_change=Callback::new(move |v| params.update(|p| p.network_mut().bandwidth = Some(v))) />
            <NumberField id="lat" label="Link latency" unit="ns" range=real_range(limits::net::LATENCY) slider=limits::net::LATENCY_SLIDER
                value=Signal::derive(move || params.with(|p| p.network().latency).unwrap_or_else(|| class(false).latency))
                on_change=Callback::new(move |v| params.update(|p| p.network_mut().latency = Some(v))) />
            <Show when=two_classes>
                <NumberField id="bw2" label="Second class bandwidth (leaf–spine; NIC/rail)" unit="B/ns" range=real_range(limits::net::BANDWIDTH) slider=limits::net::BANDWIDTH_SLIDER
                    value=Signal::derive(move || params.with(|p| p.network().bandwidth2).unwrap_or_else(|| class(true).bandwidth))
                    on_change=Callback::new(move |v| params.update(|p| p.network_mut().bandwidth2 = Some(v))) />
                <NumberField id="lat2" label="Second class latency" unit="ns" range=real_range(limits::net::LATENCY) slider=limits::net::LATENCY_SLIDER
                    value=Signal::derive(move || params.with(|p| p.network().latency2).unwrap_or_else(|| class(true).latency))
                    on_change=Callback::new(move |v| params.update(|p| p.network_mut().latency2 = Some(v))) />
            </Show>
            <Show when=move || shape().breakable() fallback=|| view! { <p class="hint">"This topology's links do not break (switch and nodes)."</p> }>
                <NumberField id="brate" label="Broken links (fraction, seeded)" range=real_range(limits::net::RATE) slider=limits::net::RATE_SLIDER
                    value=real(|p| p.network().break_rate) on_change=Callback::new(move |v| params.update(|p| p.network_mut().break_rate = v)) />
                <NumberField id="bseed" label="Break seed" integer=true range=int_range(limits::EXACT_SEED) slider=limits::SEED_SLIDER
                    value=real(|p| p.network().seed as f64) on_change=Callback::new(move |v| params.update(|p| p.network_mut().seed = v as u64)) />
                <div class="field">
                    <label for="breaks">"Named breaks (vertex pairs a-b, or click a link)"</label>
                    <input id="breaks" data-testid="breaks" type="text" spellcheck="false" prop:value=move || params.with(|p| p.network().breaks.clone())
                        on:change=move |ev| { let v = event_target_value(&ev); params.update(|p| v.trim().clone_into(&mut p.network_mut().breaks)); } />
                </div>
            </Show>
            <NumberField id="nicw" label="NIC window: messages a NIC sends at once (0: no limit)" integer=true range=int_range(limits::net::WINDOW) slider=limits::net::WINDOW_SLIDER
                value=real(|p| f64::from(p.network().nic_window)) on_change=Callback::new(move |v| params.update(|p| p.network_mut().nic_window = v as u32)) />
            <div class="field">
                <label for="place">"Placement (identity or random:SEED)"</label>
                <input id="place" data-testid="placement" type="text" spellcheck="false" aria-describedby="place-error"
                    prop:value=move || place_typed.get().unwrap_or_else(|| params.with(|p| p.network().placement.to_string()))
                    on:change=move |ev| set_placement(event_target_value(&ev)) />
                <p class="field-error" id="place-error" role="alert" data-testid="placement-error">{move || place_error.get()}</p>
            </div>
            <p class="hint" data-testid="network-note">{note}</p>
        </Show>
    }
}

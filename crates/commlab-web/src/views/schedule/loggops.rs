//! The Schedule view's LogGOPS fields: the preset, L, o, g, G, O, S and
//! LogGOPSim's ready-list order (L, G and the order hide on a network).

use super::params::ScheduleParams;
use crate::controls::number_field::{int_range, NumberField};
use commlab_api::schedule::{LogGops, PARAM, PRESETS};
use commlab_core::limits::{self, IntRange};
use leptos::prelude::*;

/// A LogGOPS field's value and setter (a change makes the preset "custom").
fn field(
    params: RwSignal<ScheduleParams>,
    get: fn(&LogGops) -> u64,
    set: fn(&mut LogGops, u64),
) -> (Signal<f64>, Callback<f64>) {
    let value = Signal::derive(move || params.with(|p| get(&p.loggops) as f64));
    let change = Callback::new(move |v: f64| {
        params.update(|p| {
            set(&mut p.loggops, v as u64);
            p.preset = "custom".into();
        });
    });
    (value, change)
}

/// The preset select, its source and the link's unit note.
#[component]
fn PresetSelect(params: RwSignal<ScheduleParams>) -> impl IntoView {
    let source = move || {
        params.with(|p| PRESETS.iter().find(|x| x.id == p.preset).map_or("your own values", |x| x.source).to_owned())
    };
    view! {
        <div class="field">
            <label for="preset">"Preset"</label>
            <select id="preset" data-testid="preset" prop:value=move || params.with(|p| p.preset.clone()) on:change=move |ev| {
                let v = event_target_value(&ev);
                params.update(|p| if let Some(x) = PRESETS.iter().find(|x| x.id == v) { p.preset = x.id.into(); p.loggops = x.params; p.unit = None; });
            }>
                {PRESETS.iter().map(|x| { let id = x.id; view! { <option value=id selected=move || params.with(|p| p.preset == id)>{x.label}</option> } }).collect_view()}
                <option value="custom" disabled=true selected=move || params.with(|p| p.preset == "custom")>"custom"</option>
            </select>
        </div>
        <p class="preset-source" data-testid="preset-source">{source}</p>
        {move || params.with(|p| p.unit).map(|u| view! {
            <p class="unit-note" data-testid="unit-note">
                {format!("Times are in u, the unit the Chooser's α and β are given in: 1 u = {} ticks of the simulator, and L, o, g, G, O are in ticks. ", commlab_plot::format_quantity(u))}
                <button type="button" data-testid="unit-ns" on:click=move |_| params.update(|p| p.unit = None)>"Read ticks as ns"</button>
            </p>
        })}
    }
}

/// The LogGOPS parameters.
#[component]
pub fn LogGopsFields(
    /// The view's state.
    params: RwSignal<ScheduleParams>,
) -> impl IntoView {
    let range = |name: &'static str| int_range(IntRange { name, ..PARAM });
    // With a link's unit the parameters are ticks (1 u = `unit` ticks), else ns.
    let unit_of = move |ns: &'static str| {
        Signal::derive(move || match (params.with(|p| p.unit.is_some()), ns) {
            (false, _) => ns,
            (true, "ns") => "ticks",
            (true, _) => "ticks/B",
        })
    };
    let on_network = move || params.with(|p| p.on_network);
    let (l, set_l) = field(params, |l| l.l, |l, v| l.l = v);
    let (o, set_o) = field(params, |l| l.o, |l, v| l.o = v);
    let (g, set_g) = field(params, |l| l.g, |l, v| l.g = v);
    let (big_g, set_big_g) = field(params, |l| l.big_g, |l, v| l.big_g = v);
    let (big_o, set_big_o) = field(params, |l| l.big_o, |l, v| l.big_o = v);
    let (s, set_s) = field(params, |l| l.s, |l, v| l.s = v);
    let (time, per_byte) = (limits::schedule::TIME_SLIDER, limits::schedule::PER_BYTE_SLIDER);
    view! {
        <h3>"LogGOPS parameters"</h3>
        <PresetSelect params=params />
        // On a network its routes and links replace L and G (and the
        // ready-list order is LogGOPSim's alone): those fields hide.
        <Show when=move || !on_network()
            fallback=|| view! { <p class="field-note" data-testid="lg-on-network">"L and G are the network's: each route's latency and its links' shared bandwidth."</p> }>
            <NumberField id="L" unit_of=unit_of("ns") label="Latency L" integer=true range=range("L") slider=time value=l on_change=set_l />
        </Show>
        <NumberField id="o" unit_of=unit_of("ns") label="Overhead o" integer=true range=range("o") slider=time value=o on_change=set_o />
        <NumberField id="g" unit_of=unit_of("ns") label="Gap g" integer=true range=range("g") slider=time value=g on_change=set_g />
        <Show when=move || !on_network()>
            <NumberField id="G" unit_of=unit_of("ns/B") label="Gap per byte G" integer=true range=range("G") slider=per_byte value=big_g on_change=set_big_g />
        </Show>
        <NumberField id="O" unit_of=unit_of("ns/B") label="Overhead per byte O" integer=true range=range("O") slider=per_byte value=big_o on_change=set_big_o />
        <NumberField id="S" label="Eager limit S" unit="B" integer=true range=range("S") slider=limits::schedule::EAGER_SLIDER value=s on_change=set_s />
        <Show when=move || !on_network()>
            <label class="check"><input type="checkbox" data-testid="libstdcxx" prop:checked=move || params.with(|p| p.libstdcxx)
                on:change=move |ev| { let on = event_target_checked(&ev); params.update(|p| p.libstdcxx = on); } />" LogGOPSim's libstdc++ ready-list order"</label>
        </Show>
    }
}

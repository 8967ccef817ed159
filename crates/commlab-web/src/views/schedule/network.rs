//! The Schedule view's Network section: the controls (topology, link
//! classes, breaks, placement) and the results (the summary against the ideal
//! switch, the network picture with its heat, time scrubber and hover, the
//! hottest links, unreachable pairs). Clicking a link breaks or repairs it.

use super::params::ScheduleParams;
use crate::browser;
use crate::controls::number_field::{int_range, real_range, NumberField};
use commlab_api::network::{Heat, NetPicture, NetSummary};
use commlab_core::limits;
use commlab_core::net::Shape;
use commlab_plot::format_quantity;
use commlab_plot::network::{net_scene, NetLayout, NetMarks};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// Topologies offered as examples beside the free text.
const EXAMPLES: [&str; 6] = ["torus:4x4", "ring:8", "mesh:4x4", "fattree:4,4,2", "nodes:2x4", "switch:16"];

fn shape_of(p: &ScheduleParams) -> Option<Shape> {
    p.network.topology.parse().ok()
}

/// The network controls.
#[component]
pub fn NetworkControls(
    /// The view's state.
    params: RwSignal<ScheduleParams>,
) -> impl IntoView {
    let typed = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let on = move || params.with(|p| p.on_network);
    let shape = move || params.with(shape_of);
    let two_classes = move || shape().is_some_and(|s| matches!(s, Shape::FatTree { .. } | Shape::Nodes { .. }));
    let class = move |second: bool| {
        shape().map_or(commlab_core::net::topology::PORT, |s| s.default_classes()[usize::from(second)])
    };
    let set_topology = move |text: String| match text.trim().parse::<Shape>() {
        Ok(s) => {
            error.set(None);
            typed.set(None);
            params.update(|p| {
                let id = s.to_string();
                if p.network.topology != id {
                    // Named breaks belong to the old topology's vertices.
                    p.network.breaks.clear();
                }
                p.network.topology = id;
            });
        }
        Err(e) => {
            typed.set(Some(text));
            error.set(Some(e));
        }
    };
    let real = move |f: fn(&ScheduleParams) -> f64| Signal::derive(move || params.with(f));
    view! {
        <h3>"Network"</h3>
        <label class="check"><input type="checkbox" data-testid="on-network" prop:checked=on
            on:change=move |ev| { let v = event_target_checked(&ev); params.update(|p| p.on_network = v); } />" run on a network (it replaces L and G)"</label>
        <Show when=on>
            <div class="field">
                <label for="net">"Topology"</label>
                <input id="net" data-testid="topology" type="text" spellcheck="false" list="net-examples"
                    aria-describedby="net-error"
                    prop:value=move || typed.get().unwrap_or_else(|| params.with(|p| p.network.topology.clone()))
                    on:change=move |ev| set_topology(event_target_value(&ev)) />
                <datalist id="net-examples">{EXAMPLES.map(|e| view! { <option value=e></option> }).collect_view()}</datalist>
                <p class="field-error" id="net-error" role="alert" data-testid="topology-error">{move || error.get()}</p>
                <p class="hint">{commlab_core::net::topology::FORMS}{format!("; up to {} hosts", limits::net::HOSTS.max)}</p>
            </div>
            <NumberField id="bw" label="Link bandwidth" unit="B/ns" range=real_range(limits::net::BANDWIDTH) slider=(0.1, 1000.0)
                value=Signal::derive(move || params.with(|p| p.network.bandwidth).unwrap_or_else(|| class(false).bandwidth))
                on_change=Callback::new(move |v| params.update(|p| p.network.bandwidth = Some(v))) />
            <NumberField id="lat" label="Link latency" unit="ns" range=real_range(limits::net::LATENCY) slider=(1.0, 1e6)
                value=Signal::derive(move || params.with(|p| p.network.latency).unwrap_or_else(|| class(false).latency))
                on_change=Callback::new(move |v| params.update(|p| p.network.latency = Some(v))) />
            <Show when=two_classes>
                <NumberField id="bw2" label="Second class bandwidth (leaf–spine; NIC/rail)" unit="B/ns" range=real_range(limits::net::BANDWIDTH) slider=(0.1, 1000.0)
                    value=Signal::derive(move || params.with(|p| p.network.bandwidth2).unwrap_or_else(|| class(true).bandwidth))
                    on_change=Callback::new(move |v| params.update(|p| p.network.bandwidth2 = Some(v))) />
                <NumberField id="lat2" label="Second class latency" unit="ns" range=real_range(limits::net::LATENCY) slider=(1.0, 1e6)
                    value=Signal::derive(move || params.with(|p| p.network.latency2).unwrap_or_else(|| class(true).latency))
                    on_change=Callback::new(move |v| params.update(|p| p.network.latency2 = Some(v))) />
            </Show>
            <Show when=move || shape().is_some_and(Shape::breakable) fallback=|| view! { <p class="hint">"This topology's links do not break (switch and nodes)."</p> }>
                <NumberField id="brate" label="Broken links (fraction, seeded)" range=real_range(limits::net::RATE) slider=(0.001, 1.0)
                    value=real(|p| p.network.break_rate) on_change=Callback::new(move |v| params.update(|p| p.network.break_rate = v)) />
                <NumberField id="bseed" label="Break seed" integer=true range=int_range(limits::EXACT_SEED) slider=limits::SEED_SLIDER
                    value=real(|p| p.network.seed as f64) on_change=Callback::new(move |v| params.update(|p| p.network.seed = v as u64)) />
                <div class="field">
                    <label for="breaks">"Named breaks (vertex pairs a-b, or click a link)"</label>
                    <input id="breaks" data-testid="breaks" type="text" spellcheck="false" prop:value=move || params.with(|p| p.network.breaks.clone())
                        on:change=move |ev| { let v = event_target_value(&ev); params.update(|p| v.trim().clone_into(&mut p.network.breaks)); } />
                </div>
            </Show>
            <div class="field">
                <label for="place">"Placement (identity or random:SEED)"</label>
                <input id="place" data-testid="placement" type="text" spellcheck="false" prop:value=move || params.with(|p| p.network.placement.clone())
                    on:change=move |ev| { let v = event_target_value(&ev); params.update(|p| v.trim().clone_into(&mut p.network.placement)); } />
            </div>
            <p class="hint" data-testid="network-note">"On a network each message is a flow along its route: it spends the route's latency, then shares each link max–min with the flows crossing it. o, g, O and S still apply; L and G are the network's."</p>
        </Show>
    }
}

/// `breaks` with the link `a-b` added, or removed if it was there.
pub fn toggle_break(breaks: &str, a: u32, b: u32) -> String {
    let mut list: Vec<(u32, u32)> = commlab_core::net::topology::parse_breaks(breaks).unwrap_or_default();
    let key = (a.min(b), a.max(b));
    let before = list.len();
    list.retain(|&(x, y)| (x.min(y), x.max(y)) != key);
    if list.len() == before {
        list.push(key);
    }
    list.iter().map(|(x, y)| format!("{x}-{y}")).collect::<Vec<_>>().join(",")
}

/// A link in words: both directions' load, and whether it is broken.
pub fn link_text(p: &NetPicture, shape: Shape, i: usize, at: Option<f64>) -> String {
    let (a, b, class, broken) = p.link(i);
    let (na, nb) = (shape.vertex_name(a), shape.vertex_name(b));
    if broken {
        return format!("link {na}–{nb}: broken (click to repair a named break)");
    }
    let used = at.map(|t| p.use_at(t));
    let dir = |d: usize, from: &str, to: &str| {
        let (bytes, busy, peak) = p.load(d);
        let now = used.as_ref().map_or(String::new(), |u| {
            format!("; at the instant {} flows, {} % used", u[d].0, format_quantity(100.0 * u[d].1))
        });
        format!("{from}→{to} {} B, busy {} ns, peak {peak} flows{now}", format_quantity(bytes), format_quantity(busy))
    };
    format!(
        "link {na}–{nb} (class {}, {} B/ns): {}; {}",
        class + 1,
        format_quantity(p.classes.get(usize::from(class)).copied().unwrap_or(0.0)),
        dir(2 * i, &na, &nb),
        dir(2 * i + 1, &nb, &na)
    )
}

/// The network results: summary, picture, scrubber, tables.
#[allow(clippy::too_many_lines, reason = "one panel: summary, picture, scrubber, tables")]
#[component]
pub fn NetworkPanel(
    /// The view's state.
    params: RwSignal<ScheduleParams>,
    /// The run's network summary.
    summary: Signal<Option<Arc<NetSummary>>>,
    /// The run's network picture.
    picture: Signal<Option<Arc<NetPicture>>>,
    /// The page's theme.
    dark: Memo<bool>,
) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let hover = RwSignal::new(None::<usize>);
    let width = RwSignal::new(520.0f64);
    let frame = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        picture.track();
        if let Some(f) = frame.get() {
            width.set(f64::from(f.client_width()).clamp(240.0, 640.0));
        }
    });
    let layout = Memo::new(move |_| {
        let w = width.get();
        picture.with(|p| {
            let p = p.as_ref()?;
            let shape: Shape = p.topology.parse().ok()?;
            let ends: Vec<(u32, u32)> = (0..p.link_count()).map(|i| (p.link(i).0, p.link(i).1)).collect();
            Some(Arc::new(NetLayout::new(shape, &ends, w)))
        })
    });
    let heat = Memo::new(move |_| {
        let by = params.with(|p| p.heat);
        picture.with(|p| p.as_ref().map(|p| Arc::new(p.heat(by))))
    });
    let at = move || params.with(|p| p.at);
    let used = Memo::new(move |_| {
        let t = at()?;
        picture.with(|p| {
            let p = p.as_ref().filter(|p| p.traced())?;
            let u = p.use_at(t);
            Some(Arc::new((0..p.link_count()).map(|i| u[2 * i].1.max(u[2 * i + 1].1)).collect::<Vec<f64>>()))
        })
    });
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    let scene = move || {
        let (l, h) = (layout.get()?, heat.get()?);
        let u = used.get();
        let th = theme();
        picture.with(|p| {
            let p = p.as_ref()?;
            let broken: Vec<bool> = (0..p.link_count()).map(|i| p.link(i).3).collect();
            let marks = NetMarks {
                broken: &broken,
                heat: &h,
                used: u.as_deref().map_or(&[][..], Vec::as_slice),
                focus: hover.get(),
                hosts: p.hosts,
            };
            Some(net_scene(&l, &marks, &th, &format!("The network {}", p.topology)))
        })
    };
    Effect::new(move |_| {
        let (Some(sc), Some(c)) = (scene(), canvas.get()) else { return };
        if let Ok(bitmap) = crate::paint::paint(&sc, browser::pixel_ratio()) {
            browser::present_bitmap(&c, &bitmap.unchecked_into(), sc.width, sc.height);
        }
    });
    let shape = move || picture.with(|p| p.as_ref().and_then(|p| p.topology.parse::<Shape>().ok()));
    let link_under = move |ev: &web_sys::MouseEvent| {
        layout.get_untracked()?.link_at(f64::from(ev.offset_x()), f64::from(ev.offset_y()))
    };
    let on_move = move |ev: web_sys::MouseEvent| {
        let l = link_under(&ev);
        if l != hover.get_untracked() {
            hover.set(l);
        }
    };
    let on_click = move |ev: web_sys::MouseEvent| {
        let Some(i) = link_under(&ev) else { return };
        let Some(s) = shape().filter(|s| s.breakable()) else { return };
        let Some((a, b, _, _)) = picture.with_untracked(|p| p.as_ref().map(|p| p.link(i))) else { return };
        let _ = s;
        params.update(|p| p.network.breaks = toggle_break(&p.network.breaks, a, b));
    };
    let hover_text = move || {
        let i = hover.get()?;
        let s = shape()?;
        picture.with(|p| p.as_ref().map(|p| link_text(p, s, i, at())))
    };
    let end = move || picture.with(|p| p.as_ref().map_or(1.0, |p| p.end.max(1.0)));
    let moving_text = move || {
        let t = at()?;
        picture.with(|p| {
            let p = p.as_ref()?;
            if !p.traced() {
                return Some(
                    "The flows of a run this large are not traced: the picture shows the whole run's load.".to_owned(),
                );
            }
            let moving = p.moving_at(t);
            let listed: Vec<String> = moving
                .iter()
                .take(12)
                .map(|m| format!("{}→{} at {} B/ns", m.from, m.to, format_quantity(m.rate)))
                .collect();
            let more = if moving.len() > 12 { format!(" and {} more", moving.len() - 12) } else { String::new() };
            Some(format!(
                "At {} ns, {} flows in transfer{}{}{more}.",
                format_quantity(t),
                moving.len(),
                if listed.is_empty() { "" } else { ": " },
                listed.join(", ")
            ))
        })
    };
    view! {
        {move || summary.get().map(|s| {
            let b = s.bottleneck.as_ref().map_or_else(|| "no link carried anything".to_owned(), |b| {
                let frac = if s.max_time > 0.0 { 100.0 * b.busy / s.max_time } else { 0.0 };
                format!("the bottleneck is {}: {} B, busy {} ns ({} % of the run), at most {} flows at once", b.name, format_quantity(b.bytes), format_quantity(b.busy), format_quantity(frac), b.peak)
            });
            view! {
                <p class="net-summary" data-testid="net-summary">{format!(
                    "On {} ({} hosts, {} links, {} broken): the last rank finishes at {} ns, against {} ns on an ideal switch of the same links ({}× its time); {b}. At most {} flows were in transfer at once.",
                    s.topology, s.hosts, s.links, s.broken, format_quantity(s.max_time), format_quantity(s.ideal), format_quantity(s.slowdown), s.peak_flows)}</p>
                {(s.unreachable_pairs > 0).then(|| view! {
                    <div class="deadlock" data-testid="unreachable" role="alert">
                        <p>{format!("{} rank pairs have no surviving path; their messages never go:", s.unreachable_pairs)}</p>
                        <ul>{s.unreachable.iter().map(|(a, b, ops)| view! { <li>{format!("{a} → {b}: {}", ops.join("; "))}</li> }).collect_view()}</ul>
                    </div>
                })}
            }
        })}
        <div class="net-frame" node_ref=frame>
            {move || picture.with(Option::is_some).then(|| view! {
                <div class="net-tools" role="group" aria-label="Network picture">
                    <label for="heat">"Colour links by "</label>
                    <select id="heat" data-testid="heat" on:change=move |ev| { let v = event_target_value(&ev); params.update(|p| p.heat = if v == "busy" { Heat::Busy } else { Heat::Bytes }); }>
                        <option value="bytes" selected=move || params.with(|p| p.heat == Heat::Bytes)>"bytes carried"</option>
                        <option value="busy" selected=move || params.with(|p| p.heat == Heat::Busy)>"busy fraction"</option>
                    </select>
                    <label for="scrub">" Instant "</label>
                    <input id="scrub" data-testid="scrub" type="range" min="0" max=move || end().to_string() step="any"
                        prop:value=move || at().unwrap_or(0.0).to_string()
                        on:input=move |ev| { let v = event_target_value(&ev).parse::<f64>().ok(); params.update(|p| p.at = v.map(f64::round)); } />
                    <button type="button" data-testid="scrub-off" on:click=move |_| params.update(|p| p.at = None)>"Whole run"</button>
                </div>
                <canvas node_ref=canvas class="net-picture" data-testid="net-picture" role="img"
                    aria-label="The network: links coloured by load; point at a link for its numbers, click it to break or repair it"
                    on:mousemove=on_move on:mouseleave=move |_| hover.set(None) on:click=on_click></canvas>
                <p class="net-hover" data-testid="net-hover" aria-live="polite">{move || hover_text().unwrap_or_else(|| "Point at a link for its load; click it to break or repair it.".to_owned())}</p>
                <p class="net-moving" data-testid="net-moving" aria-live="polite">{moving_text}</p>
                <p class="timeline-legend">"Links: grey idle to red hottest; blue, the links in use at the instant (wider: more of their bandwidth); dashed red with a cross, broken."</p>
            })}
        </div>
        {move || summary.get().filter(|s| !s.hottest.is_empty()).map(|s| view! {
            <details class="hottest" data-testid="hottest-links">
                <summary>"The busiest links"</summary>
                <table class="numbers">
                    <thead><tr><th scope="col">"link"</th><th scope="col">"bytes"</th><th scope="col">"busy (ns)"</th><th scope="col">"peak flows"</th></tr></thead>
                    <tbody>{s.hottest.iter().map(|l| view! { <tr><td>{l.name.clone()}</td><td>{format_quantity(l.bytes)}</td><td>{format_quantity(l.busy)}</td><td>{l.peak}</td></tr> }).collect_view()}</tbody>
                </table>
            </details>
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::toggle_break;

    #[test]
    fn clicking_a_link_twice_repairs_it() {
        let once = toggle_break("", 1, 0);
        assert_eq!(once, "0-1");
        let twice = toggle_break(&format!("{once},2-3"), 0, 1);
        assert_eq!(twice, "2-3");
    }
}

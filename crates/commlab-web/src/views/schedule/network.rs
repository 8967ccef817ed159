//! The Schedule view's Network section: the controls (topology, link
//! classes, breaks, placement) and the results (the summary against the ideal
//! switch, the network picture with its heat, time scrubber and hover, the
//! hottest links, unreachable pairs). Clicking a link breaks or repairs it.

use super::params::ScheduleParams;
use crate::browser;
use commlab_api::network::{Heat, NetPicture, NetSummary};
use commlab_core::net::Shape;
use commlab_plot::format_quantity;
use commlab_plot::network::{net_scene, NetLayout, NetMarks};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::JsCast;

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

/// Whether `breaks` names the link `a-b` (a seeded break is not named).
pub fn is_named(breaks: &str, a: u32, b: u32) -> bool {
    let key = (a.min(b), a.max(b));
    commlab_core::net::topology::parse_breaks(breaks)
        .unwrap_or_default()
        .iter()
        .any(|&(x, y)| (x.min(y), x.max(y)) == key)
}

/// A link in words: both directions' load, and whether it is broken (by
/// name, which a click repairs, or by the seeded rate).
pub fn link_text(p: &NetPicture, shape: Shape, i: usize, at: Option<f64>, named: bool) -> String {
    let (a, b, class, broken) = p.link(i);
    let (na, nb) = (shape.vertex_name(a), shape.vertex_name(b));
    if broken {
        return if named {
            format!("link {na}–{nb}: broken (click to repair it)")
        } else {
            format!("link {na}–{nb}: broken by the seeded break rate (a lower rate or another seed repairs it)")
        };
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

/// The ideal switch's run, which follows the network's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ideal {
    /// Still running.
    Pending,
    /// Its max finish time (ns) and the network's slowdown against it.
    Done(f64, f64),
    /// Cancelled before it ended.
    Stopped,
}

/// Shows a new picture in the task after the one that shows the summary and
/// tables: on `torus:32x32` (4 096 links) the two together made one
/// main-thread task of about 60 ms.
fn deferred(arrived: Signal<Option<Arc<NetPicture>>>) -> RwSignal<Option<Arc<NetPicture>>> {
    let picture = RwSignal::new(None::<Arc<NetPicture>>);
    Effect::new(move |_| {
        let new = arrived.get();
        let same = picture.with_untracked(|p| match (p, &new) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        });
        if !same {
            if new.is_none() {
                picture.set(None);
            } else {
                // The latest picture when the timer fires (a newer one supersedes this one).
                set_timeout(move || picture.set(arrived.get_untracked()), std::time::Duration::ZERO);
            }
        }
    });
    picture
}

/// The picture frame's width after each layout that changes it (no forced
/// layout), between 240 and 640 px.
fn frame_width(frame: NodeRef<leptos::html::Div>) -> RwSignal<f64> {
    let width = RwSignal::new(520.0f64);
    // The frame's width after each layout that changes it (no forced layout).
    let watch = StoredValue::new_local(None::<crate::browser::WidthWatch>);
    Effect::new(move |_| {
        if let Some(f) = frame.get() {
            let on_width = move |w: f64| {
                let w = w.clamp(240.0, 640.0);
                if (w - width.get_untracked()).abs() >= 1.0 {
                    width.set(w);
                }
            };
            watch.set_value(crate::browser::WidthWatch::new(&f, on_width));
        }
    });
    on_cleanup(move || watch.set_value(None));
    width
}

/// The flows in transfer at `t` (ns), the first twelve named.
fn moving_sentence(p: &NetPicture, t: f64) -> String {
    if !p.traced() {
        return "The flows of a run this large are not traced: the picture shows the whole run's load.".to_owned();
    }
    let moving = p.moving_at(t);
    let listed: Vec<String> =
        moving.iter().take(12).map(|m| format!("{}→{} at {} B/ns", m.from, m.to, format_quantity(m.rate))).collect();
    let more = if moving.len() > 12 { format!(" and {} more", moving.len() - 12) } else { String::new() };
    format!(
        "At {} ns, {} flows in transfer{}{}{more}.",
        format_quantity(t),
        moving.len(),
        if listed.is_empty() { "" } else { ": " },
        listed.join(", ")
    )
}

/// The run's summary on the network: when ranks finish, against the ideal
/// switch, the bottleneck, and the rank pairs with no surviving path.
#[component]
fn NetSummaryLine(summary: Signal<Option<Arc<NetSummary>>>, ideal: Signal<Ideal>) -> impl IntoView {
    view! {
        {move || summary.get().map(|s| {
            let b = bottleneck_sentence(&s);
            let stuck = s.stuck;
            let against = move || match ideal.get() {
                // A run that did not finish has no slowdown.
                _ if stuck > 0 => "no slowdown is given, as the run did not finish".to_owned(),
                Ideal::Done(t, slowdown) => format!("against {} ns on an ideal switch of the same links ({}× its time)", format_quantity(t), format_quantity(slowdown)),
                Ideal::Pending => "the same schedule on an ideal switch of the same links is still running (for the slowdown)".to_owned(),
                Ideal::Stopped => "the ideal switch of the same links was not run to its end".to_owned(),
            };
            let finish = if stuck > 0 {
                format!("{} stuck (their messages never arrive); the others finish by {} ns, ", commlab_plot::count(u64::from(stuck), "rank is", "ranks are"), format_quantity(s.max_time))
            } else {
                format!("the last rank finishes at {} ns, ", format_quantity(s.max_time))
            };
            view! {
                <p class="net-summary" data-testid="net-summary">{format!(
                    "On {} ({} hosts, {} links, {} broken): {finish}",
                    s.topology, s.hosts, s.links, s.broken)}
                    <span data-testid="net-ideal">{against}</span>
                    {format!("; {b}. At most {} in transfer at once.", commlab_plot::count(s.peak_flows, "flow was", "flows were"))}</p>
                {(s.unreachable_pairs > 0).then(|| view! {
                    <div class="deadlock" data-testid="unreachable" role="alert">
                        <p>{format!("{} no surviving path; their messages never go:", commlab_plot::count(u64::from(s.unreachable_pairs), "rank pair has", "rank pairs have"))}</p>
                        <ul>{s.unreachable.iter().map(|(a, b, ops)| view! { <li>{format!("{a} → {b}: {}", ops.join("; "))}</li> }).collect_view()}</ul>
                    </div>
                })}
            }
        })}
    }
}

/// The picture's tools: what the colours stand for, the scrubber's instant.
#[component]
fn PictureTools(params: RwSignal<ScheduleParams>, end: Signal<f64>) -> impl IntoView {
    let at = move || params.with(|p| p.at);
    view! {
        <div class="net-tools" role="group" aria-label="Network picture">
            <label for="heat">"Colour links by "</label>
            <select id="heat" data-testid="heat" on:change=move |ev| { let v = event_target_value(&ev); params.update(|p| p.heat = if v == "busy" { Heat::Busy } else { Heat::Bytes }); }>
                <option value="bytes" selected=move || params.with(|p| p.heat == Heat::Bytes)>"bytes carried"</option>
                <option value="busy" selected=move || params.with(|p| p.heat == Heat::Busy)>"busy fraction"</option>
            </select>
            <label for="scrub">" Instant "</label>
            <input id="scrub" data-testid="scrub" type="range" min="0" max=move || end.get().to_string() step="any"
                prop:value=move || at().unwrap_or(0.0).to_string()
                on:input=move |ev| { let v = event_target_value(&ev).parse::<f64>().ok(); params.update(|p| p.at = v.map(f64::round)); } />
            <button type="button" data-testid="scrub-off" on:click=move |_| params.update(|p| p.at = None)>"Whole run"</button>
        </div>
    }
}

/// Paints `scene` on `canvas` whenever it changes; each redraw is a User
/// Timing measure `net-picture` (read by tests/e2e/bench-network.mjs).
fn paint_on(canvas: NodeRef<leptos::html::Canvas>, scene: impl Fn() -> Option<commlab_plot::mesh::Scene> + 'static) {
    Effect::new(move |_| {
        let start = browser::now_ms();
        let (Some(sc), Some(c)) = (scene(), canvas.get()) else { return };
        if let Ok(bitmap) = crate::paint::paint(&sc, browser::pixel_ratio()) {
            browser::present_bitmap(&c, &bitmap.unchecked_into(), sc.width, sc.height);
        }
        browser::measure_since("net-picture", start);
    });
}

/// The busiest links of the run, in a table that opens on demand.
#[component]
fn HottestLinks(summary: Signal<Option<Arc<NetSummary>>>) -> impl IntoView {
    view! {
    {move || summary.get().filter(|s| !s.hottest.is_empty()).map(|s| view! {
        <details class="hottest" data-testid="hottest-links">
            <summary>"The busiest links"</summary>
            <table class="numbers stack" style=crate::controls::stack::stack_labels(&["link", "bytes", "busy (ns)", "peak flows"])>
                <thead><tr><th scope="col">"link"</th><th scope="col">"bytes"</th><th scope="col">"busy (ns)"</th><th scope="col">"peak flows"</th></tr></thead>
                <tbody>{s.hottest.iter().map(|l| view! { <tr><td>{l.name.clone()}</td><td>{format_quantity(l.bytes)}</td><td>{format_quantity(l.busy)}</td><td>{l.peak}</td></tr> }).collect_view()}</tbody>
            </table>
        </details>
    })}
    }
}

/// The network results: summary, picture, scrubber, tables.
#[component]
pub fn NetworkPanel(
    /// The view's state.
    params: RwSignal<ScheduleParams>,
    /// The run's network summary.
    summary: Signal<Option<Arc<NetSummary>>>,
    /// The run's network picture.
    arrived: Signal<Option<Arc<NetPicture>>>,
    /// The ideal switch's run.
    ideal: Signal<Ideal>,
    /// The page's theme.
    dark: Memo<bool>,
) -> impl IntoView {
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let picture = deferred(arrived);
    let hover = RwSignal::new(None::<usize>);
    let frame = NodeRef::<leptos::html::Div>::new();
    let width = frame_width(frame);
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
    let theme = move || Theme::of(dark.get());
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
    paint_on(canvas, scene);
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
        let Some((a, b, _, broken)) = picture.with_untracked(|p| p.as_ref().map(|p| p.link(i))) else { return };
        let _ = s;
        // A seeded break is not the click's to repair (its hover says so).
        if broken && !params.with_untracked(|p| is_named(&p.network.breaks, a, b)) {
            return;
        }
        params.update(|p| p.network.breaks = toggle_break(&p.network.breaks, a, b));
    };
    let hover_text = move || {
        let i = hover.get()?;
        let s = shape()?;
        picture.with(|p| {
            p.as_ref().map(|p| {
                let (a, b, _, _) = p.link(i);
                link_text(p, s, i, at(), params.with(|q| is_named(&q.network.breaks, a, b)))
            })
        })
    };
    let end = move || picture.with(|p| p.as_ref().map_or(1.0, |p| p.end.max(1.0)));
    let moving_text = move || picture.with(|p| Some(moving_sentence(p.as_ref()?, at()?)));
    view! {
        <NetSummaryLine summary=summary ideal=ideal />
        <div class="net-frame" node_ref=frame>
            {move || picture.with(Option::is_some).then(|| view! {
                <PictureTools params=params end=Signal::derive(end) />
                <canvas node_ref=canvas class="net-picture" data-testid="net-picture" role="img"
                    aria-label="The network: links coloured by load; point at a link for its numbers, click it to break or repair it"
                    on:mousemove=on_move on:mouseleave=move |_| hover.set(None) on:click=on_click></canvas>
                <p class="net-hover" data-testid="net-hover" aria-live="polite">{move || hover_text().unwrap_or_else(|| "Point at a link for its load; click it to break or repair it.".to_owned())}</p>
                <p class="net-moving" data-testid="net-moving" aria-live="polite">{moving_text}</p>
                <p class="timeline-legend">"Links: grey idle to red hottest; blue, the links in use at the instant (wider: more of their bandwidth); dashed red with a cross, broken."</p>
            })}
        </div>
        <HottestLinks summary=summary />
    }
}

/// The bottleneck in words: the link used closest to its bandwidth, how
/// close, and the links tied with it.
fn bottleneck_sentence(s: &commlab_api::network::NetSummary) -> String {
    let Some(b) = &s.bottleneck else { return "no link carried anything".to_owned() };
    let ties = match s.tie_count {
        0 => String::new(),
        n => {
            let more = n as usize - s.ties.len();
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            format!("; tied with {}{more}", s.ties.join(", "))
        }
    };
    format!(
        "the bottleneck is {} (the link used closest to its bandwidth): {} B, {} % of what it can carry over the run, busy {} ns, at most {} at once{ties}",
        b.name,
        format_quantity(b.bytes),
        format_quantity(100.0 * s.utilisation),
        format_quantity(b.busy),
        commlab_plot::count(u64::from(b.peak), "flow", "flows")
    )
}

#[cfg(test)]
mod tests {
    use super::{is_named, toggle_break};

    #[test]
    fn clicking_a_link_twice_repairs_it() {
        let once = toggle_break("", 1, 0);
        assert_eq!(once, "0-1");
        let twice = toggle_break(&format!("{once},2-3"), 0, 1);
        assert_eq!(twice, "2-3");
    }

    #[test]
    fn a_named_break_is_told_from_a_seeded_one() {
        assert!(is_named("2-3,0-1", 1, 0));
        assert!(is_named("2-3", 3, 2));
        assert!(!is_named("2-3", 1, 2));
        assert!(!is_named("", 0, 1));
    }
}

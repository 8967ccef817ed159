//! View 4: the barrier on a mesh with broken links. The run is recorded and
//! drawn by the engine worker (see `crate::engine`): the page sends the inputs,
//! shows progress with a Cancel while the run is recorded, and then asks for
//! one frame per step: SVG text below 32 × 32, a bitmap painted off the page
//! from there. Click a link to break or repair it; the per-barrier metrics,
//! the verdict and the exports come from the same worker. The before/after
//! `round(K)` panel (at most 16 × 16, cheap) is computed on the page.

use super::params::MeshParams;
use crate::browser;
use crate::codec;
use crate::controls::chart::box_width;
use crate::controls::export_bar::{ExportBar, ExportFormat};
use crate::controls::number_field::NumberField;
use crate::controls::playback::Playback;
use crate::controls::run_progress::{Progress, RunProgress};
use crate::controls::select_field::SelectField;
use crate::engine::{Client, Handler};
use crate::state::Params;
use commlab_api::mesh::{ExportKind, Frame, FrameRequest, MeshRequest, MeshSummary, RoundPanel, RoundRequest};
use commlab_api::protocol::{Request, Response};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::Judge;
use commlab_core::barrier::mesh::{Mesh, Routing};
use commlab_core::barrier::uq::LinkSetDefinition;
use commlab_core::limits::mesh_view as lim;
use commlab_plot::mesh::MeshLayout;
use leptos::html::Canvas;
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsValue;

/// Widest mesh drawing, in CSS pixels (narrower boxes get their width).
const DRAW_WIDTH: f64 = 640.0;

/// Where the run of the current inputs stands. The last recorded run's
/// summary and frame stay on screen (marked stale) while a new one records,
/// so a quick parameter change replaces the drawing once, without flicker.
#[derive(Debug, Clone, PartialEq)]
enum RunState {
    /// Being recorded: messages delivered of the run's total.
    Running(u64, u64),
    /// Recorded (its summary is in `summary`).
    Ready,
    /// Cancelled by the user after this many of so many messages.
    Cancelled(u64, u64),
    /// Refused (the message names the field and its range).
    Failed(String),
}

/// The mesh view.
#[component]
pub fn MeshView(
    /// App state; the controls write `params.mesh` and `params.step`.
    params: RwSignal<Params>,
    /// Whether the page is dark.
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let client = StoredValue::new_local(Client::new());
    on_cleanup(move || {
        client.try_with_value(Client::close);
    });
    let mp = Memo::new(move |_| params.with(|p| p.mesh.clone()));
    let request = Memo::new(move |_| mp.with(|p| p.request.clone()));
    let state = RwSignal::new(RunState::Running(0, 0));
    let summary = RwSignal::new(None::<MeshSummary>);
    let frame = RwSignal::new(None::<Frame>);
    // The frame last asked for (with its step clipped as the worker clipped it).
    let asked = StoredValue::new(None::<FrameRequest>);
    let bitmap = StoredValue::new_local(None::<JsValue>);
    // Bumped whenever a new bitmap arrives (the canvas effect paints it).
    let painted = RwSignal::new(0u32);
    // Frames received: `data-frames` on the figure (tests and the timing harness wait on it).
    let frames = RwSignal::new(0u32);
    // The drawing's width: the figure's (inside its border), at most DRAW_WIDTH.
    let figure = NodeRef::<leptos::html::Figure>::new();
    let draw_width = box_width(figure, DRAW_WIDTH);

    let show_frame = move |f: Frame, bits: Option<JsValue>| {
        if bits.is_some() {
            bitmap.set_value(bits);
            painted.update(|n| *n += 1);
        }
        frame.set(Some(f));
        frames.update(|n| *n += 1);
    };
    let start = move |r: MeshRequest| {
        {
            // A quick run replaces the drawing without showing a "running"
            // state in between (no extra layout); the worker's first progress
            // message, after ~50 ms of work, switches to the progress row.
            if !matches!(state.get_untracked(), RunState::Ready) {
                state.set(RunState::Running(0, 0));
            }
            let (pattern, heat) = mp.with_untracked(|p| (p.pattern, p.heat));
            let step = params.with_untracked(|p| usize::try_from(p.step).unwrap_or(usize::MAX));
            let first =
                FrameRequest { step, width: draw_width.get_untracked(), pattern, heat, dark: dark.get_untracked() };
            let handler: Handler = Rc::new(move |response, bits| match response {
                Response::Progress { done, total } => state.set(RunState::Running(done, total)),
                Response::MeshReady(s, f) => {
                    // The engine on the page too, for small runs: loaded once
                    // the first run is on screen, so it never competes with it.
                    client.with_value(Client::load_here);
                    asked.set_value(Some(FrameRequest { step: f.step, ..first }));
                    summary.set(Some(s));
                    state.set(RunState::Ready);
                    show_frame(f, bits);
                }
                Response::Error(e) => {
                    summary.set(None);
                    frame.set(None);
                    state.set(RunState::Failed(e.to_string()));
                }
                _ => {}
            });
            // The run comes back with its first frame: one round trip per
            // change; a small run (bounded work) is done on the page at once.
            let small = mp.with_untracked(|p| p.request.small());
            client.with_value(|c| c.run_small(Request::MeshRun(r, first), handler, small));
        }
    };
    // A new request supersedes the run under way (the worker is restarted if busy).
    Effect::new(move |_| start(request.get()));

    let steps = Signal::derive(move || summary.with(|s| s.as_ref().map_or(0, |s| s.steps)));
    let step = Signal::derive(move || params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(steps.get()));
    let ready = Memo::new(move |_| state.with(|s| matches!(s, RunState::Ready)));
    let on_canvas = Memo::new(move |_| mp.with(|p| p.request.size >= u64::from(commlab_plot::mesh::CANVAS_FROM)));
    let frame_request = Memo::new(move |_| {
        ready.get().then(|| {
            let (pattern, heat) = mp.with(|p| (p.pattern, p.heat));
            FrameRequest { step: step.get(), width: draw_width.get(), pattern, heat, dark: dark.get() }
        })
    });
    follow_frames(client, frame_request, asked, show_frame);

    let caption = move || match state.get() {
        RunState::Failed(e) => e,
        _ => frame.with(|f| f.as_ref().map_or_else(|| "Simulating the run…".to_owned(), |f| f.caption.clone())),
    };
    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name = Signal::derive(move || mp.with(|p| file_name_of(&p.request, step.get())));
    let svg = Signal::derive(move || frame.with(|f| f.as_ref().and_then(|f| f.svg.clone())));
    let export_status = RwSignal::new(String::new());
    let remote = mesh_export(client, file_name, step, export_status);
    let on_rerun = Callback::new(move |()| start(request.get_untracked()));
    let (on_cancel, progress) = run_progress(client, state);

    view! {
        <section class="view mesh-view" data-testid="mesh-view" aria-labelledby="mesh-title">
            <MeshControls params=params mp=mp />
            <div class="results">
                <RunProgress progress=progress label="Simulating" unit="messages delivered" on_cancel=on_cancel on_rerun=on_rerun />
                <Playback step=step steps=steps on_step=on_step speed=Signal::derive(move || params.with(|p| p.speed.0)) on_speed=Callback::new(move |v| params.update(|p| p.speed = crate::state::Speed(v))) />
                <p class="caption" data-testid="caption" aria-live="polite">{caption}</p>
                <Legend />
                <figure node_ref=figure class="diagram mesh-figure" tabindex="0" data-testid="mesh-figure" class:stale=move || !ready.get()
                    data-step=move || frame.with(|f| f.as_ref().map_or(String::new(), |f| f.step.to_string()))
                    data-frames=move || frames.get().to_string()
                    data-renderer=move || if on_canvas.get() { "canvas" } else { "svg" }>
                    <figcaption id="mesh-keys">"Click a link to break or repair it, or focus the mesh and walk it with the arrow keys: Enter or Space flips the link just crossed."</figcaption>
                    <MeshStage params=params mp=mp frame=frame asked=asked bitmap=bitmap painted=painted on_canvas=on_canvas svg=svg />
                </figure>
                <Metrics state=state summary=summary />
                <ExportBar name=file_name svg=svg remote=remote remote_drawing=true />
                <crate::lazy::ScheduleLinks schedule=Signal::derive(move || params.with(|p| (!p.embed).then(|| crate::links::Timeline::of(p.mesh.schedule())))) />
                <p class="export-status" role="status">{move || export_status.get()}</p>
                <RoundPanel mp=mp dark=dark client=client />
            </div>
        </section>
    }
}

/// The export files' name: mesh, algorithm, break rate, seed and step.
fn file_name_of(r: &MeshRequest, step: usize) -> String {
    format!("commlab-mesh-{}x{}-{}-r{}-s{}-step{}", r.size, r.size, r.algorithm, r.rate, r.seed, step)
}

/// The exports, from the worker's kept run: CSV, JSON, and the drawing of
/// the current step as SVG or PNG.
fn mesh_export(
    client: StoredValue<Client, LocalStorage>,
    file_name: Signal<String>,
    step: Signal<usize>,
    export_status: RwSignal<String>,
) -> Callback<ExportFormat> {
    Callback::new(move |format: ExportFormat| {
        let kind = match format {
            ExportFormat::Csv => ExportKind::Csv,
            ExportFormat::Json => ExportKind::Json,
            ExportFormat::Svg | ExportFormat::Png => ExportKind::Svg(step.get_untracked()),
        };
        let name = file_name.get_untracked();
        export_status.set("Preparing…".into());
        let handler: Handler = Rc::new(move |response, _| {
            let Response::Export(text) = response else { return };
            let result = match format {
                ExportFormat::Csv => browser::download_text(&format!("{name}.csv"), "text/csv", &text),
                ExportFormat::Json => browser::download_text(&format!("{name}.json"), "application/json", &text),
                ExportFormat::Svg => browser::download_text(&format!("{name}.svg"), "image/svg+xml", &text),
                ExportFormat::Png => {
                    browser::download_png(&format!("{name}.png"), &text, Callback::new(move |e| export_status.set(e)));
                    Ok(())
                }
            };
            export_status.set(result.err().unwrap_or_default());
        });
        client.with_value(|c| c.query(Request::MeshExport(kind), handler));
    })
}

/// Cancel (the worker's run) and the progress row's state.
fn run_progress(
    client: StoredValue<Client, LocalStorage>,
    state: RwSignal<RunState>,
) -> (Callback<()>, Signal<Progress>) {
    let on_cancel = Callback::new(move |()| {
        client.with_value(Client::cancel);
        state.update(|s| {
            if let RunState::Running(done, total) = *s {
                *s = RunState::Cancelled(done, total);
            }
        });
    });
    let progress = Signal::derive(move || match state.get() {
        RunState::Running(done, total) => Progress::Running(done, total),
        RunState::Cancelled(done, total) => Progress::Cancelled(done, total),
        _ => Progress::Idle,
    });
    (on_cancel, progress)
}

/// One frame per step, option or theme change (not the one the run
/// brought), queued behind work in flight.
fn follow_frames(
    client: StoredValue<Client, LocalStorage>,
    frame_request: Memo<Option<FrameRequest>>,
    asked: StoredValue<Option<FrameRequest>>,
    show_frame: impl Fn(Frame, Option<JsValue>) + Copy + 'static,
) {
    Effect::new(move |_| {
        let Some(f) = frame_request.get() else { return };
        if asked.get_value() == Some(f) {
            return;
        }
        asked.set_value(Some(f));
        let handler: Handler = Rc::new(move |response, bits| {
            if let Response::Frame(f) = response {
                show_frame(f, bits);
            }
        });
        client.with_value(|c| c.query(Request::MeshFrame(f), handler));
    });
}

/// The drawing (canvas or SVG) with its click and keyboard handling: a click
/// on a link breaks or repairs it; the arrow keys walk the mesh.
///
/// (The keyboard cursor's sentence: [`cursor_sentence`].)
#[component]
#[allow(clippy::too_many_arguments, reason = "the view's run state, shared with its other parts")]
fn MeshStage(
    params: RwSignal<Params>,
    mp: Memo<MeshParams>,
    frame: RwSignal<Option<Frame>>,
    /// The frame last asked for (its width lays out the clicks).
    asked: StoredValue<Option<FrameRequest>>,
    /// The bitmap to paint next (canvas drawings).
    bitmap: StoredValue<Option<JsValue>, LocalStorage>,
    /// Bumped whenever a new bitmap arrives.
    painted: RwSignal<u32>,
    on_canvas: Memo<bool>,
    svg: Signal<Option<String>>,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    // Shows the painted bitmap; `data-frame` counts the paints (tests and the timing harness wait on it).
    Effect::new(move |_| {
        let n = painted.get();
        let Some(canvas) = canvas_ref.get() else { return };
        if let Some(b) = bitmap.try_update_value(Option::take).flatten() {
            browser::show_bitmap(&canvas, &b);
            let _ = canvas.set_attribute("data-frame", &n.to_string());
        }
    });

    // A click on a link breaks it or repairs it (the URL keeps the flip list).
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(width) = frame.with_untracked(|f| f.as_ref().map(|f| f.width)) else { return };
        let Some((x, y)) = browser::click_point(&ev, width) else { return };
        let size = mp.with_untracked(|p| p.request.size) as u32;
        let Ok(mesh) = Mesh::new(size.into()) else { return };
        let Some(asked_width) = asked.get_value().map(|a| a.width) else { return };
        let layout = MeshLayout::new(size, asked_width);
        if let Some(link) = layout.link_at(&mesh, x, y) {
            params.update(|p| p.mesh.request.flips = p.mesh.request.toggled(link));
        }
    };

    // The keyboard's path over the links: arrow keys walk from node to node
    // (row, column) and select the link just crossed; Enter or Space breaks
    // or repairs it, as a click does; Escape leaves the walk.
    let cursor = RwSignal::new(None::<(u32, u32, Option<u32>)>);
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let size = mp.with_untracked(|p| p.request.size) as u32;
        let Ok(mesh) = Mesh::new(size.into()) else { return };
        let (r, c, link) =
            cursor.get_untracked().map_or((0, 0, None), |(r, c, l)| (r.min(size - 1), c.min(size - 1), l));
        let step = |dr: i64, dc: i64| {
            let (nr, nc) = (i64::from(r) + dr, i64::from(c) + dc);
            let inside = (0..i64::from(size)).contains(&nr) && (0..i64::from(size)).contains(&nc);
            if inside {
                let (nr, nc) = (nr as u32, nc as u32);
                Some((nr, nc, Some(mesh.link(mesh.node(r, c), mesh.node(nr, nc)))))
            } else {
                Some((r, c, link))
            }
        };
        let next = match ev.key().as_str() {
            "ArrowRight" => step(0, 1),
            "ArrowLeft" => step(0, -1),
            "ArrowDown" => step(1, 0),
            "ArrowUp" => step(-1, 0),
            "Enter" | " " => {
                if let Some(l) = link {
                    params.update(|p| p.mesh.request.flips = p.mesh.request.toggled(l));
                }
                Some((r, c, link))
            }
            "Escape" => None,
            _ => return,
        };
        ev.prevent_default();
        cursor.set(next);
    };
    // Only while the keyboard walks the mesh: the run's broken links, to name them.
    let broken_now =
        Memo::new(move |_| if cursor.with(Option::is_some) { mp.with(|p| p.request.broken()) } else { None });
    let cursor_text = move || {
        let at = cursor.get()?;
        let broken =
            |l: u32| broken_now.with(|b| b.as_ref().is_some_and(|b| b.get(l as usize).copied().unwrap_or(false)));
        cursor_sentence(mp.with(|p| p.request.size) as u32, at, broken)
    };
    let cursor_marks = move || {
        let (row, col, link) = cursor.get()?;
        let size = mp.with(|p| p.request.size) as u32;
        let mesh = Mesh::new(size.into()).ok()?;
        let extent = frame.with(|f| f.as_ref().map(|f| (f.width, f.height)))?;
        let layout = MeshLayout::new(size, asked.get_value()?.width);
        let (cx, cy) = layout.position(&mesh, mesh.node(row, col));
        let crossed = link.map(|l| {
            let (a, b) = mesh.endpoints(l);
            let (pa, pb) = (layout.position(&mesh, a), layout.position(&mesh, b));
            view! { <line x1=pa.0 y1=pa.1 x2=pb.0 y2=pb.1 class="link-cursor" /> }
        });
        let radius = (layout.cell * 0.3).max(4.0);
        Some(view! {
            <svg class="mesh-cursor" aria-hidden="true" viewBox=format!("0 0 {} {}", extent.0, extent.1)>
                {crossed}
                <circle cx=cx cy=cy r=radius class="node-cursor" />
            </svg>
        })
    };

    view! {
        <div class="mesh-stage" tabindex="0" role="group" data-testid="mesh-stage" aria-describedby="mesh-keys"
            aria-label="Mesh links" on:keydown=on_key on:blur=move |_| cursor.set(None)>
        {move || if on_canvas.get() {
            view! { <canvas node_ref=canvas_ref class="mesh-canvas" data-testid="mesh-canvas" role="img"
                aria-label=move || frame.with(|f| f.as_ref().map(|f| f.title.clone()).unwrap_or_default())
                style=move || frame.with(|f| f.as_ref().map(|f| format!("width:{:.0}px;height:{:.0}px", f.width, f.height)).unwrap_or_default())
                on:click=on_click></canvas> }.into_any()
        } else {
            view! { <div class="mesh-svg" data-testid="mesh-svg" on:click=on_click inner_html=move || svg.get().unwrap_or_default()></div> }.into_any()
        }}
        {cursor_marks}
        </div>
        <p class="mesh-cursor-text" data-testid="mesh-cursor" aria-live="polite">{cursor_text}</p>
    }
}

/// What the colours mean.
#[component]
fn Legend() -> impl IntoView {
    let item = |class: &'static str, text: &'static str| view! { <span class="legend-item"><span class=format!("swatch {class}")></span>{text}</span> };
    view! {
        <p class="legend" data-testid="mesh-legend">
            {item("sw-gather", "Gather")} {item("sw-release", "Release")} {item("sw-other", "other rounds")}
            {item("sw-detour", "detour (longer than Manhattan)")} {item("sw-back", "step back (paper routing)")} {item("sw-broken", "broken link")}
            {item("sw-waiting", "waiting in the barrier")} {item("sw-released", "released")} " · ring: ID 0 (root) · 30′: already renumbered by the adjustment while others still go by the old IDs"
        </p>
    }
}

/// Per-barrier delay, messages, hops, detours, most-loaded link, the checker.
#[component]
fn Metrics(state: RwSignal<RunState>, summary: RwSignal<Option<MeshSummary>>) -> impl IntoView {
    move || {
        if let RunState::Failed(e) = state.get() {
            return view! { <p class="chart-error" data-testid="mesh-error" role="alert">{e}</p> }.into_any();
        }
        let Some(summary) = summary.get() else { return ().into_any() };
        let rows: Vec<_> = summary
            .rows
            .into_iter()
            .map(|r| {
                view! {
                    <tr>
                        <th scope="row">{r.barrier}</th>
                        <td class="delay">{r.delay.map_or_else(|| "—".to_owned(), |d| d.to_string())}</td>
                        <td>{r.messages}</td>
                        <td>{r.hops}</td>
                        <td>{r.detour_hops}</td>
                        <td>{r.back_steps}</td>
                        <td>{r.link}</td>
                        <td class="k">{r.k.map_or_else(|| "—".to_owned(), |k| k.to_string())}</td>
                    </tr>
                }
            })
            .collect();
        view! {
            <table class="numbers stack" data-testid="mesh-metrics"
                style=crate::controls::stack::stack_labels(&["barrier", "delay (ticks)", "messages", "hops", "detour hops", "back-steps", "most-loaded link", "K"])>
                <thead><tr><th scope="col">"barrier"</th><th scope="col">"delay (ticks)"</th><th scope="col">"messages"</th>
                    <th scope="col">"hops"</th><th scope="col">"detour hops"</th><th scope="col">"back-steps"</th><th scope="col">"most-loaded link"</th><th scope="col">"K"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <p class=if summary.bad { "verdict bad" } else { "verdict" } data-testid="mesh-verdict" role="status">{summary.verdict}</p>
        }
        .into_any()
    }
}

/// LCT and BST before and after `round(K)` on the intact mesh, with the used
/// links bold, `|A∩B|`, `|A∪B|` and UQ (the paper's Figure 3 analog),
/// computed by the engine worker.
#[component]
fn RoundPanel(
    mp: Memo<MeshParams>,
    #[prop(into)] dark: Signal<bool>,
    client: StoredValue<Client, LocalStorage>,
) -> impl IntoView {
    // Drawn for the panel's width, less the figure's border.
    let section = NodeRef::<leptos::html::Section>::new();
    let width = box_width(section, 902.0);
    // Only what the panel depends on: a new seed or algorithm does not redraw it.
    let inputs = Memo::new(move |_| mp.with(|p| p.round(false)));
    let panel = RwSignal::new(None::<Result<RoundPanel, String>>);
    Effect::new(move |_| {
        let request = RoundRequest { dark: dark.get(), width: width.get() as u32 - 2, ..inputs.get() };
        if let Err(e) = request.drawable() {
            panel.set(Some(Err(e)));
            return;
        }
        let handler: Handler = Rc::new(move |response, _| match response {
            Response::Round(p) => panel.set(Some(Ok(p))),
            Response::Error(e) => panel.set(Some(Err(e.to_string()))),
            _ => {}
        });
        client.with_value(|c| c.query(Request::Round(request), handler));
    });
    view! {
        <section node_ref=section class="round-panel" data-testid="round-panel" aria-labelledby="round-title">
            <h3 id="round-title">"Before / after round(K)"</h3>
            <p class="hint">"The link set A (before) and B (after) are the links the Gather messages of one barrier traverse on the intact mesh; UQ = 1 − |A∩B| / |A∪B|. K and the link-set definition are on the left."</p>
            {move || match panel.get() {
                Some(Ok(p)) => view! {
                    <ul class="uq-notes" data-testid="uq-notes">{p.notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                    <div class="diagram" tabindex="0" data-testid="round-svg" inner_html=p.svg></div>
                }.into_any(),
                Some(Err(e)) => view! { <p class="summary-note" data-testid="round-note">{e}</p> }.into_any(),
                None => ().into_any(),
            }}
        </section>
    }
}

/// The inputs of the mesh view.
#[component]
fn MeshControls(params: RwSignal<Params>, mp: Memo<MeshParams>) -> impl IntoView {
    let int = move |apply: fn(&mut MeshParams, u64)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.mesh, v as u64)))
    };
    let check =
        move |get: fn(&MeshParams) -> bool, set: fn(&mut MeshParams, bool), id: &'static str, label: &'static str| {
            view! {
                <label class="check">
                    <input type="checkbox" data-testid=id prop:checked=move || mp.with(get)
                        on:change=move |ev| params.update(|p| set(&mut p.mesh, event_target_checked(&ev))) />
                    " " {label}
                </label>
            }
        };
    let algorithms: Vec<(&'static str, &'static str)> = Algorithm::ALL.iter().map(|a| (a.id(), a.id())).collect();
    let encodings: Vec<(&'static str, &'static str)> = Encoding::ALL.iter().map(|e| (e.id(), e.id())).collect();
    let new_seed = move |_| {
        params.update(|p| {
            p.mesh.request.seed =
                p.mesh.request.seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407)
                    % 1_000_000;
            p.mesh.request.flips.clear();
        });
    };
    let flips = move || mp.with(|p| p.request.flips.len());
    // A number field drawn from the view's table: its range, value and setter.
    let number = move |name: &'static str, label: &'static str| {
        let f = codec::field::<MeshParams>(name);
        let range = f.bounds().unwrap_or((0.0, 1.0));
        view! {
            <NumberField id=name label=label integer=f.integer() range=range
                value=Signal::derive(move || mp.with(|p| f.number(p)))
                on_change=Callback::new(move |v: f64| params.update(|p| f.set_number(&mut p.mesh, v))) />
        }
    };
    view! {
        <div class="controls" role="group" aria-label="Barrier mesh parameters">
            <h2 id="mesh-title">"Barrier on a mesh"</h2>
            <p class="formula">"round(K): ID' = (ID + K) mod N"</p>
            <NumberField id="size" label="Mesh side" integer=true range={codec::range::<MeshParams>(lim::SIDE.name)}
                value=Signal::derive(move || mp.with(|p| p.request.size as f64)) on_change=int(|p, v| { p.request.size = v; p.request.flips.clear(); }) />
            <NumberField id="rate" label="Break rate" range={codec::range::<MeshParams>(lim::RATE.name)} slider=lim::RATE_SLIDER
                value=Signal::derive(move || mp.with(|p| p.request.rate))
                on_change=Callback::new(move |v: f64| params.update(|p| { p.mesh.request.rate = v; p.mesh.request.flips.clear(); })) />
            <div class="field-row">
                <NumberField id="seed" label="Seed" integer=true range={codec::range::<MeshParams>(lim::SEED.name)} slider=lim::SEED_SLIDER
                    value=Signal::derive(move || mp.with(|p| p.request.seed as f64)) on_change=int(|p, v| { p.request.seed = v; p.request.flips.clear(); }) />
                <button type="button" class="new-seed" data-testid="new-seed" on:click=new_seed>"new seed"</button>
            </div>
            {check(|p| p.request.connected, |p, v| { p.request.connected = v; p.request.flips.clear(); }, "connected", "seeded breaks keep the mesh connected")}
            <p class="hint" data-testid="flip-count">{move || match flips() {
                0 => "No links flipped by hand.".to_owned(),
                1 => "1 link flipped by hand (kept in the link).".to_owned(),
                n => format!("{n} links flipped by hand (kept in the link)."),
            }}
            " " <button type="button" data-testid="clear-flips" on:click=move |_| params.update(|p| p.mesh.request.flips.clear())
                disabled=move || flips() == 0>"undo hand flips"</button></p>
            <SelectField id="routing" label="Routing around broken links" options=Routing::ALL.iter().map(|r| (r.id(), r.label())).collect()
                value=Signal::derive(move || mp.with(|p| p.request.routing.clone()))
                on_change=Callback::new(move |v: String| params.update(|p| p.mesh.request.routing = v)) />
            <SelectField id="algorithm" label="Algorithm" options=algorithms
                value=Signal::derive(move || mp.with(|p| p.request.algorithm.clone()))
                on_change=Callback::new(move |v: String| params.update(|p| p.mesh.request.algorithm = v)) />
            <SelectField id="encoding" label="Encoding" options=encodings
                value=Signal::derive(move || mp.with(|p| p.request.encoding.clone()))
                on_change=Callback::new(move |v: String| params.update(|p| p.mesh.request.encoding = v)) />
            <NumberField id="tile" label="Tile side (two-layer forms)" integer=true range={codec::range::<MeshParams>(lim::TILE.name)}
                value=Signal::derive(move || mp.with(|p| p.request.tile as f64)) on_change=int(|p, v| p.request.tile = v) />
            <SelectField id="judge" label="Judge" options=Judge::ALL.iter().map(|j| (j.id(), j.label())).collect()
                value=Signal::derive(move || mp.with(|p| p.request.judge.clone()))
                on_change=Callback::new(move |v: String| params.update(|p| p.mesh.request.judge = v)) />
            <NumberField id="threshold" label="Threshold (fraction)" range={codec::range::<MeshParams>(lim::THRESHOLD.name)} slider=lim::THRESHOLD_SLIDER
                value=Signal::derive(move || mp.with(|p| p.request.threshold))
                on_change=Callback::new(move |v: f64| params.update(|p| p.mesh.request.threshold = v)) />
            <h3>"Timing"</h3>
            {super::params::TIMING.chunks(2).map(|row| view! {
                <div class="field-row">{row.iter().map(|&(name, label)| number(name, label)).collect_view()}</div>
            }).collect_view()}
            {check(|p| p.request.contention, |p, v| p.request.contention = v, "contention", "link contention (one message per link and tick)")}
            <NumberField id="combining_k" label="Combining tree fan-in" integer=true range={codec::range::<MeshParams>(lim::COMBINING_K.name)}
                value=Signal::derive(move || mp.with(|p| p.request.combining_k as f64)) on_change=int(|p, v| p.request.combining_k = v) />
            <h3>"Drawing"</h3>
            {check(|p| p.pattern, |p, v| p.pattern = v, "pattern", "algorithm's pattern (who talks to whom)")}
            {check(|p| p.heat, |p, v| p.heat = v, "heat", "link-load heat")}
            <h3>"Before / after round(K)"</h3>
            <NumberField id="k" label="K" integer=true range={codec::range::<MeshParams>(lim::UQ_K.name)} slider=lim::UQ_K_SLIDER
                value=Signal::derive(move || mp.with(|p| p.uq_k as f64)) on_change=int(|p, v| p.uq_k = v) />
            <SelectField id="links" label="Link set" options=LinkSetDefinition::ALL.iter().map(|l| (l.id(), l.label())).collect()
                value=Signal::derive(move || mp.with(|p| p.uq_links.id().to_owned()))
                on_change=Callback::new(move |v: String| if let Ok(l) = v.parse() { params.update(|p| p.mesh.uq_links = l) }) />
        </div>
    }
}

/// What the keyboard cursor at `(row, col, link)` on a `size` mesh says:
/// the link it selected and what Enter does to it (`broken(link)`: whether
/// the run has it broken), or the node it stands on.
fn cursor_sentence(
    size: u32,
    (row, col, link): (u32, u32, Option<u32>),
    broken: impl Fn(u32) -> bool,
) -> Option<String> {
    let mesh = Mesh::new(size.into()).ok()?;
    Some(match link {
        Some(l) => {
            let (a, b) = mesh.endpoints(l);
            let (pa, pb) = (mesh.coords(a), mesh.coords(b));
            let broken = broken(l);
            format!(
                "Link ({}, {})–({}, {}) selected, {}: Enter or Space {} it.",
                pa.0,
                pa.1,
                pb.0,
                pb.1,
                if broken { "broken" } else { "intact" },
                if broken { "repairs" } else { "breaks" }
            )
        }
        None => format!("Node ({row}, {col}): arrow keys cross to a neighbour and select that link."),
    })
}

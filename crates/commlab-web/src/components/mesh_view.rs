//! View 4: the barrier on a mesh with broken links. The mesh (SVG below
//! 32 × 32, canvas from there), click a link to break or repair it, the run
//! animated hop by hop with the shared playback, the per-barrier metrics, and
//! the before/after `round(K)` panel with the update quantity.

use crate::browser;
use crate::components::export_bar::ExportBar;
use crate::components::number_field::NumberField;
use crate::components::playback::Playback;
use crate::components::select_field::SelectField;
use crate::exports;
use crate::share::MESH_SIDE;
use crate::state::{MeshParams, Params, JUDGES, LINK_SETS};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::{Encoding, Numbering};
use commlab_core::barrier::mesh::Mesh;
use commlab_core::barrier::replay::Replay;
use commlab_core::barrier::uq::{round_changes, RoundChange, UQ_SIZE};
use commlab_plot::barrier::round_figure;
use commlab_plot::mesh::{mesh_scene, scene_svg, MeshLayout, MeshOptions, CANVAS_FROM};
use commlab_plot::Theme;
use leptos::html::Canvas;
use leptos::prelude::*;
use std::sync::Arc;

/// Width of the mesh drawing in CSS pixels.
const DRAW_WIDTH: f64 = 640.0;

/// A shared value compared by identity: a recomputed run is a new run, and
/// comparing two traces element by element would cost more than drawing them.
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The run of the current parameters.
pub fn replay_of(p: &MeshParams) -> Result<Shared<Replay>, String> {
    let scenario = p.scenario()?;
    Replay::new(scenario).map(|r| Shared(Arc::new(r))).map_err(|e| e.to_string())
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
    let mp = Memo::new(move |_| params.with(|p| p.mesh.clone()));
    let replay = Memo::new(move |_| replay_of(&mp.get()));
    // Derived signals, not memos, where recomputing is cheaper than the ~5 KB
    // of wasm each memo type costs.
    let steps = Signal::derive(move || replay.with(|r| r.as_ref().map_or(0, |r| r.0.steps())));
    let step = Signal::derive(move || params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(steps.get()));
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    let options = Signal::derive(move || mp.with(|p| MeshOptions { pattern: p.pattern, heat: p.heat }));
    let scene = Memo::new(move |_| {
        let r = replay.get().ok()?;
        Some(Arc::new(mesh_scene(&r.0, step.get(), DRAW_WIDTH, options.get(), &theme())))
    });
    let on_canvas = Memo::new(move |_| mp.with(|p| p.size >= u64::from(CANVAS_FROM)));
    let svg = Memo::new(move |_| if on_canvas.get() { None } else { scene.get().map(|s| scene_svg(&s)) });
    let canvas_svg = Callback::new(move |()| scene.get_untracked().map(|s| scene_svg(&s)));

    let canvas_ref = NodeRef::<Canvas>::new();
    // Paints the canvas; `data-frame` counts the paints (tests and the timing harness wait on it).
    Effect::new(move |frame: Option<u32>| {
        let frame = frame.unwrap_or(0);
        let Some(scene) = scene.get() else { return frame };
        let Some(canvas) = canvas_ref.get() else { return frame };
        browser::paint_scene(&canvas, &scene);
        let _ = canvas.set_attribute("data-frame", &(frame + 1).to_string());
        frame + 1
    });

    // A click on a link breaks it or repairs it (the URL keeps the flip list).
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(s) = scene.get_untracked() else { return };
        let Some((x, y)) = browser::click_point(&ev, s.width) else { return };
        let size = mp.with_untracked(|p| p.size) as u32;
        let Ok(mesh) = Mesh::new(size.into()) else { return };
        let layout = MeshLayout::new(size, DRAW_WIDTH);
        if let Some(link) = layout.link_at(&mesh, x, y) {
            params.update(|p| p.mesh.flips = p.mesh.toggled(link, mesh.link_count()));
        }
    };

    let caption = move || match replay.get() {
        Ok(r) => r.0.caption(step.get()),
        Err(e) => e,
    };
    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name = Signal::derive(move || {
        mp.with(|p| {
            format!("commlab-mesh-{}x{}-{}-r{}-s{}-step{}", p.size, p.size, p.algorithm, p.rate, p.seed, step.get())
        })
    });
    let csv = Callback::new(move |()| replay.with(|r| r.as_ref().map(|r| exports::mesh_csv(&r.0)).unwrap_or_default()));
    let json =
        Callback::new(move |()| replay.with(|r| r.as_ref().map(|r| exports::mesh_json(&r.0)).unwrap_or_default()));

    view! {
        <section class="view mesh-view" data-testid="mesh-view" aria-labelledby="mesh-title">
            <MeshControls params=params mp=mp />
            <div class="results">
                <Playback step=step steps=steps on_step=on_step />
                <p class="caption" data-testid="caption" aria-live="polite">{caption}</p>
                <Legend />
                <figure class="diagram mesh-figure" data-testid="mesh-figure"
                    data-renderer=move || if on_canvas.get() { "canvas" } else { "svg" }>
                    <figcaption>"Click a link to break or repair it."</figcaption>
                    {move || if on_canvas.get() {
                        view! { <canvas node_ref=canvas_ref class="mesh-canvas" data-testid="mesh-canvas" role="img"
                            aria-label=move || scene.with(|s| s.as_ref().map(|s| s.title.clone()).unwrap_or_default())
                            style=move || scene.with(|s| s.as_ref().map(|s| format!("width:{:.0}px;height:{:.0}px", s.width, s.height)).unwrap_or_default())
                            on:click=on_click></canvas> }.into_any()
                    } else {
                        view! { <div class="mesh-svg" data-testid="mesh-svg" on:click=on_click inner_html=move || svg.get().unwrap_or_default()></div> }.into_any()
                    }}
                </figure>
                <Metrics replay=replay />
                <ExportBar name=file_name svg=svg svg_on_demand=canvas_svg csv=csv json=json />
                <RoundPanel mp=mp dark=dark />
            </div>
        </section>
    }
}

/// What the colours mean.
#[component]
fn Legend() -> impl IntoView {
    let item = |class: &'static str, text: &'static str| view! { <span class="legend-item"><span class=format!("swatch {class}")></span>{text}</span> };
    view! {
        <p class="legend" data-testid="mesh-legend">
            {item("sw-gather", "Gather")} {item("sw-release", "Release")} {item("sw-other", "other rounds")}
            {item("sw-detour", "detour (longer than Manhattan)")} {item("sw-broken", "broken link")}
            {item("sw-waiting", "waiting in the barrier")} {item("sw-released", "released")} " · ring: ID 0 (root)"
        </p>
    }
}

/// Per-barrier delay, messages, hops, detours, most-loaded link, the checker.
#[component]
fn Metrics(replay: Memo<Result<Shared<Replay>, String>>) -> impl IntoView {
    move || {
        let r = match replay.get() {
            Ok(r) => r,
            Err(e) => return view! { <p class="chart-error" data-testid="mesh-error" role="alert">{e}</p> }.into_any(),
        };
        let r = &r.0;
        let report = &r.report;
        let mesh = r.mesh;
        let rows: Vec<_> = r
            .barrier_stats()
            .into_iter()
            .enumerate()
            .map(|(b, s)| {
                let link = s.max_link.map_or_else(String::new, |l| {
                    let (a, c) = mesh.endpoints(l);
                    let ((ax, ay), (cx, cy)) = (mesh.coords(a), mesh.coords(c));
                    format!("({ax}, {ay})–({cx}, {cy}) ×{}", s.max_load)
                });
                view! {
                    <tr>
                        <th scope="row">{b + 1}</th>
                        <td class="delay">{s.delay.map_or_else(|| "—".to_owned(), |d| d.to_string())}</td>
                        <td>{s.messages}</td>
                        <td>{s.hops}</td>
                        <td>{s.detour_hops}</td>
                        <td>{link}</td>
                        <td class="k">{s.k.map_or_else(|| "—".to_owned(), |k| k.to_string())}</td>
                    </tr>
                }
            })
            .collect();
        let verdict = if report.partitioned {
            format!(
                "Partitioned: the broken links cut the mesh. {} messages had no route and were dropped; the nodes waiting for them never leave, so the barrier cannot complete. Step through to see which part of the mesh got stuck.",
                report.unroutable
            )
        } else if report.safe {
            format!(
                "Checker: safe — no node left a barrier before every node arrived, no message crossed barriers; {} messages, {} hops ({} detour hops), {} of {} links broken.",
                report.messages, report.hops, report.detour_hops, report.broken_links, mesh.link_count()
            )
        } else {
            format!("Checker: UNSAFE — {}", report.violations.join("; "))
        };
        view! {
            <table class="numbers" data-testid="mesh-metrics">
                <thead><tr><th scope="col">"barrier"</th><th scope="col">"delay (ticks)"</th><th scope="col">"messages"</th>
                    <th scope="col">"hops"</th><th scope="col">"detour hops"</th><th scope="col">"most-loaded link"</th><th scope="col">"K"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <p class=if report.partitioned || !report.safe { "verdict bad" } else { "verdict" } data-testid="mesh-verdict" role="status">{verdict}</p>
        }
        .into_any()
    }
}

/// LCT and BST before and after `round(K)` on the intact mesh, with the used
/// links bold, `|A∩B|`, `|A∪B|` and UQ (the paper's Figure 3 analog).
#[component]
fn RoundPanel(mp: Memo<MeshParams>, #[prop(into)] dark: Signal<bool>) -> impl IntoView {
    // Only what the panel depends on: a new seed or algorithm does not redraw it.
    let inputs = Memo::new(move |_| mp.with(|p| (p.size, p.encoding, p.uq_k, p.uq_links)));
    let panel = Memo::new(move |_| {
        let (size, encoding, uq_k, uq_links) = inputs.get();
        let p = MeshParams { size, encoding, uq_k, uq_links, ..MeshParams::default() };
        if !UQ_SIZE.contains(p.size) {
            return Err(format!(
                "The before/after panel draws meshes of side {}..={}; this one has side {}.",
                UQ_SIZE.min, UQ_SIZE.max, p.size
            ));
        }
        let mesh = Mesh::new(p.size).map_err(|e| e.to_string())?;
        let numbering = Numbering::of_mesh(&mesh, p.encoding).map_err(|e| e.to_string())?;
        let k = (p.uq_k % u64::from(mesh.nodes())) as u32;
        let theme = if dark.get() { Theme::DARK } else { Theme::LIGHT };
        let changes = round_changes(&mesh, &numbering, k, p.link_set());
        let notes: Vec<String> = changes.iter().map(RoundChange::note).collect();
        Ok((round_figure(&mesh, &numbering, k, &changes, &theme), notes))
    });
    view! {
        <section class="round-panel" data-testid="round-panel" aria-labelledby="round-title">
            <h3 id="round-title">"Before / after round(K)"</h3>
            <p class="hint">"The link set A (before) and B (after) are the links the Gather messages of one barrier traverse on the intact mesh; UQ = 1 − |A∩B| / |A∪B|. K and the link-set definition are on the left."</p>
            {move || match panel.get() {
                Ok((svg, notes)) => view! {
                    <ul class="uq-notes" data-testid="uq-notes">{notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                    <div class="diagram" data-testid="round-svg" inner_html=svg></div>
                }.into_any(),
                Err(e) => view! { <p class="summary-note" data-testid="round-note">{e}</p> }.into_any(),
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
            p.mesh.seed =
                p.mesh.seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407) % 1_000_000;
            p.mesh.flips = None;
        });
    };
    let flips = move || mp.with(|p| p.flips.as_deref().map_or(0, |f| f.split(',').count()));
    view! {
        <div class="controls" role="group" aria-label="Barrier mesh parameters">
            <h2 id="mesh-title">"Barrier on a mesh"</h2>
            <p class="formula">"round(K): ID' = (ID + K) mod N"</p>
            <NumberField id="size" label="Mesh side" integer=true range=(MESH_SIDE.min as f64, MESH_SIDE.max as f64) slider=(2.0, 256.0)
                value=Signal::derive(move || mp.with(|p| p.size as f64)) on_change=int(|p, v| { p.size = v; p.flips = None; }) />
            <NumberField id="rate" label="Break rate" range=(0.0, 0.9) slider=(0.01, 0.9)
                value=Signal::derive(move || mp.with(|p| p.rate))
                on_change=Callback::new(move |v: f64| params.update(|p| { p.mesh.rate = v; p.mesh.flips = None; })) />
            <div class="field-row">
                <NumberField id="seed" label="Seed" integer=true range=(0.0, 18_446_744_073_709_551_615.0) slider=(1.0, 1_000_000.0)
                    value=Signal::derive(move || mp.with(|p| p.seed as f64)) on_change=int(|p, v| { p.seed = v; p.flips = None; }) />
                <button type="button" class="new-seed" data-testid="new-seed" on:click=new_seed>"new seed"</button>
            </div>
            {check(|p| p.connected, |p, v| { p.connected = v; p.flips = None; }, "connected", "seeded breaks keep the mesh connected")}
            <p class="hint" data-testid="flip-count">{move || match flips() {
                0 => "No links flipped by hand.".to_owned(),
                n => format!("{n} links flipped by hand (kept in the link)."),
            }}
            " " <button type="button" data-testid="clear-flips" on:click=move |_| params.update(|p| p.mesh.flips = None)
                disabled=move || flips() == 0>"undo hand flips"</button></p>
            <SelectField id="algorithm" label="Algorithm" options=algorithms
                value=Signal::derive(move || mp.with(|p| p.algorithm.id()))
                on_change=Callback::new(move |v: String| if let Ok(a) = v.parse() { params.update(|p| p.mesh.algorithm = a) }) />
            <SelectField id="encoding" label="Encoding" options=encodings
                value=Signal::derive(move || mp.with(|p| p.encoding.id()))
                on_change=Callback::new(move |v: String| if let Ok(e) = v.parse() { params.update(|p| p.mesh.encoding = e) }) />
            <NumberField id="tile" label="Tile side (two-layer forms)" integer=true range=(2.0, 64.0) slider=(2.0, 64.0)
                value=Signal::derive(move || mp.with(|p| p.tile as f64)) on_change=int(|p, v| p.tile = v) />
            <SelectField id="judge" label="Judge" options=JUDGES.to_vec()
                value=Signal::derive(move || mp.with(|p| p.judge))
                on_change=Callback::new(move |v: String| if let Some(j) = JUDGES.iter().find(|j| j.0 == v) { params.update(|p| p.mesh.judge = j.0) }) />
            <NumberField id="threshold" label="Threshold (fraction)" range=(0.0, 10.0) slider=(0.01, 10.0)
                value=Signal::derive(move || mp.with(|p| p.threshold))
                on_change=Callback::new(move |v: f64| params.update(|p| p.mesh.threshold = v)) />
            <h3>"Timing"</h3>
            <div class="field-row">
                <NumberField id="barriers" label="Barriers" integer=true range=(1.0, 20.0) slider=(1.0, 20.0)
                    value=Signal::derive(move || mp.with(|p| p.barriers as f64)) on_change=int(|p, v| p.barriers = v) />
                <NumberField id="hop_ticks" label="Ticks per hop" integer=true range=(1.0, 1000.0) slider=(1.0, 1000.0)
                    value=Signal::derive(move || mp.with(|p| p.hop_ticks as f64)) on_change=int(|p, v| p.hop_ticks = v) />
            </div>
            <div class="field-row">
                <NumberField id="overhead_ticks" label="Overhead ticks" integer=true range=(0.0, 1000.0) slider=(1.0, 1000.0)
                    value=Signal::derive(move || mp.with(|p| p.overhead_ticks as f64)) on_change=int(|p, v| p.overhead_ticks = v) />
                <NumberField id="compute_ticks" label="Compute ticks" integer=true range=(0.0, 100_000.0) slider=(1.0, 100_000.0)
                    value=Signal::derive(move || mp.with(|p| p.compute_ticks as f64)) on_change=int(|p, v| p.compute_ticks = v) />
            </div>
            <NumberField id="skew_ticks" label="Straggler skew (ticks)" integer=true range=(0.0, 100_000.0) slider=(1.0, 100_000.0)
                value=Signal::derive(move || mp.with(|p| p.skew_ticks as f64)) on_change=int(|p, v| p.skew_ticks = v) />
            {check(|p| p.contention, |p, v| p.contention = v, "contention", "link contention (one message per link and tick)")}
            <h3>"Drawing"</h3>
            {check(|p| p.pattern, |p, v| p.pattern = v, "pattern", "algorithm's pattern (who talks to whom)")}
            {check(|p| p.heat, |p, v| p.heat = v, "heat", "link-load heat")}
            <h3>"Before / after round(K)"</h3>
            <NumberField id="k" label="K" integer=true range=(0.0, 1_048_576.0) slider=(1.0, 1024.0)
                value=Signal::derive(move || mp.with(|p| p.uq_k as f64)) on_change=int(|p, v| p.uq_k = v) />
            <SelectField id="links" label="Link set" options=LINK_SETS.to_vec()
                value=Signal::derive(move || mp.with(|p| p.uq_links))
                on_change=Callback::new(move |v: String| if let Some(l) = LINK_SETS.iter().find(|l| l.0 == v) { params.update(|p| p.mesh.uq_links = l.0) }) />
        </div>
    }
}

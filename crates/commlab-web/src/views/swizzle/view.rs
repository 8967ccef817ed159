//! View 6: the CommSwizzle schedule: the reference grid, the core × step
//! timeline, collisions per step, coverage warnings, the cost model, and a
//! side-by-side comparison.

use super::params::{SwizzleParams, SwizzleState};
use crate::codec;
use crate::controls::chart::box_width;
use crate::controls::export_bar::ExportBar;
use crate::controls::number_field::NumberField;
use crate::controls::playback::Playback;
use crate::controls::select_field::SelectField;
use crate::engine::split::{split_run, worker_captions, Split, SplitRun};
use crate::engine::{Client, Handler};
use crate::lazy::LazyArgs;
use commlab_api::protocol::{DataView, Request, Response};
use commlab_api::swizzle::COMPARES;
use commlab_api::swizzle::{SwizzleRequest, SwizzleSummary};
use commlab_core::limits::swizzle_view as lim;
use commlab_core::limits::GRID_SLIDER;
use commlab_core::swizzle::{Schedule, PRESETS};
use commlab_plot::swizzle::{collisions_svg, grid_svg, timeline_svg, StepAxis, GRID_DRAW_LIMIT, TIMELINE_DRAW_LIMIT};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::rc::Rc;
use std::sync::Arc;

/// The width of a grid's drawing in a results column whose figures are
/// `inner` px wide: half of it (less the gap and borders) when a second grid
/// stands beside it, which it does from 2 × 22 rem on (`.side-by-side`).
fn grid_width(inner: f64, two: bool) -> f64 {
    if two && inner + 2.0 >= 2.0 * 352.0 + 12.0 {
        ((inner + 2.0 - 12.0) / 2.0 - 2.0).floor()
    } else {
        inner
    }
}

fn drawable_grid(s: &Schedule) -> bool {
    let g = s.config().grid();
    g.data() <= GRID_DRAW_LIMIT.0 && g.rank <= GRID_DRAW_LIMIT.1
}

fn drawable_timeline(s: &Schedule) -> bool {
    s.core_count() <= TIMELINE_DRAW_LIMIT.0 && s.steps() <= TIMELINE_DRAW_LIMIT.1
}

/// The summary of the current inputs: from the run built here (small grids,
/// whose drawings need the schedule) or from the engine worker.
#[derive(Debug, Clone, PartialEq)]
enum SummaryState {
    Ready(Arc<SwizzleSummary>),
    Pending,
    Failed(String),
}

/// The swizzle view.
#[component]
pub fn SwizzleView(
    /// The link's pairs, the page's theme and embed mode.
    args: LazyArgs,
) -> impl IntoView {
    let (start, notices) = args.read::<SwizzleState>();
    let params = RwSignal::new(SwizzleState { embed: args.embed, ..start });
    args.follow(params, false);
    let dark: Signal<bool> = args.dark.into();
    let sw = Memo::new(move |_| params.with(|p| p.swizzle.clone()));
    // Derived, not memoised: `sw` is a memo already (each memo type costs ~5 KB of wasm).
    let request = Signal::derive(move || sw.get());
    // The drawings' width: the results column's, less the figures' borders.
    let results = NodeRef::<leptos::html::Div>::new();
    let width = box_width(results, 902.0);
    let inner = Signal::derive(move || width.get() - 2.0);
    let heavy = Signal::derive(move || request.with(SwizzleRequest::heavy));
    // Started with the view, so its wasm is ready by the first large run.
    let client = StoredValue::new_local(Client::new());
    on_cleanup(move || {
        client.try_with_value(Client::close);
    });
    let SplitRun { state, .. } = split_run(client, request);
    let theme = move || Theme::of(dark.get());
    let summary = Memo::new(move |_| match state.get() {
        Split::Local(r) => SummaryState::Ready(Arc::new(r.summary())),
        Split::Remote(s) => SummaryState::Ready(s),
        Split::Failed(e) => SummaryState::Failed(e),
        Split::Pending => SummaryState::Pending,
    });
    let local = move || if let Split::Local(r) = state.get() { Some(r) } else { None };
    let steps = Memo::new(move |_| summary.with(|s| if let SummaryState::Ready(s) = s { s.steps } else { 0 }));
    let step = Memo::new(move |_| params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(steps.get()));
    let other_shown = move || sw.with(|p| p.compare != "none");
    let grid = Memo::new(move |_| {
        let w = grid_width(inner.get(), other_shown());
        local().filter(|r| drawable_grid(&r.schedule)).map(|r| grid_svg(&r.schedule, step.get(), w, &theme()))
    });
    let other_grid = Memo::new(move |_| {
        let run = local()?;
        let (label, other) = run.other.clone()?.ok()?;
        let w = grid_width(inner.get(), true);
        drawable_grid(&other).then(|| (label, grid_svg(&other, step.get().min(other.steps()), w, &theme())))
    });
    // Step-independent drawings: a step change moves their overlays, not their SVG.
    let timeline = Memo::new(move |_| {
        local().filter(|r| drawable_timeline(&r.schedule)).map(|r| timeline_svg(&r.schedule, inner.get(), &theme()))
    });
    let collisions = Memo::new(move |_| {
        let w = inner.get();
        summary.with(|s| {
            if let SummaryState::Ready(s) = s {
                Some(collisions_svg(&s.collisions, w, &theme()))
            } else {
                None
            }
        })
    });
    // A large run's captions come from the worker, one per step shown.
    let remote_caption = worker_captions(
        client,
        step,
        move |_| heavy.get() && matches!(summary.get(), SummaryState::Ready(_)),
        Request::SwizzleCaption,
    );
    let caption_text = move || match (local(), summary.get()) {
        (Some(r), _) => r.caption(step.get()),
        (_, SummaryState::Failed(e)) => e,
        (_, SummaryState::Pending) => "Building the run in the engine worker…".to_owned(),
        (_, SummaryState::Ready(_)) => remote_caption.get(),
    };
    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name = Signal::derive(move || sw.with(|p| file_name_of(p, step.get())));
    let export_status = RwSignal::new(String::new());
    // CSV and JSON come from the worker (a small run is built there first).
    let remote_export = crate::engine::data_export(
        move || client.get_value(),
        move || Some(request.get_untracked()).filter(|r| !r.heavy()).map(Request::Swizzle),
        DataView::Swizzle,
        file_name,
        export_status,
    );

    view! {
        <section class="view swizzle-view" data-testid="swizzle-view" aria-labelledby="swizzle-title">
            <crate::controls::notices::Notices notices=notices />
            <SwizzleControls params=params sw=sw />
            <div class="results" node_ref=results>
                <Playback step=step steps=steps on_step=on_step />
                <p class="caption" data-testid="caption" aria-live="polite">{caption_text}</p>
                <CoverageWarning summary=summary />
                <SwizzleNumbers summary=summary />
                <SwizzleNetwork params=params sw=sw client=client width=inner dark=dark />
                <div class="side-by-side">
                    {move || match grid.get() {
                        Some(svg) => view! { <figure class="diagram" tabindex="0" data-testid="swizzle-grid"><figcaption>"this configuration"</figcaption><div inner_html=svg></div></figure> }.into_any(),
                        None => view! { <GridSummary summary=summary /> }.into_any(),
                    }}
                    {move || other_grid.get().map(|(label, svg)| view! {
                        <figure class="diagram" tabindex="0" data-testid="swizzle-grid-other"><figcaption>{label}</figcaption><div inner_html=svg></div></figure>
                    })}
                </div>
                {move || timeline.get().map(|(svg, axis)| view! { <StepFigure svg=svg axis=axis step=step steps=steps testid="swizzle-timeline" /> })}
                {move || collisions.get().map(|(svg, axis)| view! { <StepFigure svg=svg axis=axis step=step steps=steps testid="swizzle-collisions" /> })}
                <ExportBar name=file_name svg=grid remote=remote_export />
                <crate::lazy::ScheduleLinks schedule=Signal::derive(move || params.with(|p| (!p.embed).then(|| super::params::timeline(&p.swizzle)))) />
                <p class="export-status" role="status">{move || export_status.get()}</p>
            </div>
        </section>
    }
}

/// The export files' name: the grid, the cores, the direction and the step.
fn file_name_of(p: &super::params::SwizzleParams, step: usize) -> String {
    format!(
        "commlab-swizzle-{}x{}x{}-c{}x{}-d{}-step{}",
        p.grid.0, p.grid.1, p.grid.2, p.cores.0, p.cores.1, p.direction, step
    )
}

/// What stands in for a grid too large to draw cell by cell.
#[component]
fn GridSummary(summary: Memo<SummaryState>) -> impl IntoView {
    view! {
        <p class="summary-note" data-testid="swizzle-summary">
            {move || summary.with(|s| match s {
                SummaryState::Ready(s) => format!("The grid has {} data rows × {} ranks, more than the {} × {} drawn cell by cell; the numbers above cover every loop index.",
                    s.cells.0, s.cells.1, GRID_DRAW_LIMIT.0, GRID_DRAW_LIMIT.1),
                SummaryState::Pending => "Building the run in the engine worker…".to_owned(),
                SummaryState::Failed(e) => e.clone(),
            })}
        </p>
    }
}

/// A step-indexed drawing with the current step outlined and the steps still
/// to come veiled, by two overlays positioned in percent of the drawing.
#[component]
fn StepFigure(
    svg: String,
    axis: StepAxis,
    step: Memo<usize>,
    steps: Memo<usize>,
    testid: &'static str,
) -> impl IntoView {
    let (top, height) = axis.rows_percent();
    let current = move || {
        let s = step.get();
        if s == 0 {
            return "display:none".to_owned();
        }
        let (left, width) = axis.column_percent(s - 1);
        format!("left:{left:.3}%;width:{width:.3}%;top:{top:.3}%;height:{height:.3}%")
    };
    let rest = move || {
        let (left, width) = axis.rest_percent(step.get(), steps.get());
        format!("left:{left:.3}%;width:{width:.3}%;top:{top:.3}%;height:{height:.3}%")
    };
    view! {
        <figure class="diagram" tabindex="0" data-testid=testid>
            <div class="step-figure">
                <div inner_html=svg></div>
                <div class="veil" style=rest></div>
                <div class="current-step" style=current></div>
            </div>
        </figure>
    }
}

/// The inputs of the swizzle view.
#[component]
fn SwizzleControls(params: RwSignal<SwizzleState>, sw: Memo<SwizzleParams>) -> impl IntoView {
    let int = move |apply: fn(&mut SwizzleParams, u32)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.swizzle, v as u32)))
    };
    let real = move |apply: fn(&mut SwizzleParams, f64)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.swizzle, v)))
    };
    let check = move |get: fn(&SwizzleParams) -> bool,
                      set: fn(&mut SwizzleParams, bool),
                      id: &'static str,
                      label: &'static str| {
        view! {
            <label class="check">
                <input type="checkbox" data-testid=id prop:checked=move || sw.with(get)
                    on:change=move |ev| params.update(|p| set(&mut p.swizzle, event_target_checked(&ev))) />
                " " {label}
            </label>
        }
    };
    let presets: Vec<(&'static str, &'static str)> = PRESETS.iter().map(|p| (p.id, p.label)).collect();
    let compares: Vec<(&'static str, &'static str)> = COMPARES.to_vec();
    view! {
        <div class="controls" role="group" aria-label="Swizzle parameters">
            <h2 id="swizzle-title">"CommSwizzle"</h2>
            <p class="formula">"gridShape (row, column, rank) · coreSplit (row, column)"</p>
            <div class="field-row">
                <NumberField id="rows" label="grid row" integer=true range={codec::range::<SwizzleState>("rows")} slider=GRID_SLIDER
                    value=Signal::derive(move || f64::from(sw.with(|p| p.grid.0))) on_change=int(|p, v| p.grid.0 = v) />
                <NumberField id="cols" label="grid column" integer=true range={codec::range::<SwizzleState>("cols")} slider=GRID_SLIDER
                    value=Signal::derive(move || f64::from(sw.with(|p| p.grid.1))) on_change=int(|p, v| p.grid.1 = v) />
                <NumberField id="ranks" label="grid rank" integer=true range={codec::range::<SwizzleState>("ranks")}
                    value=Signal::derive(move || f64::from(sw.with(|p| p.grid.2))) on_change=int(|p, v| p.grid.2 = v) />
            </div>
            <div class="field-row">
                <NumberField id="core_rows" label="cores row" integer=true range={codec::range::<SwizzleState>("core_rows")}
                    value=Signal::derive(move || f64::from(sw.with(|p| p.cores.0))) on_change=int(|p, v| p.cores.0 = v) />
                <NumberField id="core_cols" label="cores column" integer=true range={codec::range::<SwizzleState>("core_cols")}
                    value=Signal::derive(move || f64::from(sw.with(|p| p.cores.1))) on_change=int(|p, v| p.cores.1 = v) />
            </div>
            <SelectField id="direction" label="SWIZZLE_DIRECTION" options=vec![("0", "0: data rows first"), ("1", "1: swapped")]
                value=Signal::derive(move || sw.with(|p| p.direction.to_string()))
                on_change=Callback::new(move |v: String| params.update(|p| p.swizzle.direction = u8::from(v == "1"))) />
            {check(|p| p.deterministic, |p, v| p.deterministic = v, "deterministic", "deterministic (direction 0 only)")}
            {check(|p| p.shift, |p, v| p.shift = v, "shift", "rank shift")}
            <SelectField id="compare" label="Side by side" options=compares
                value=Signal::derive(move || sw.with(|p| p.compare.clone()))
                on_change=Callback::new(move |v: String| params.update(|p| p.swizzle.compare = v)) />
            <h3>"Cost model"</h3>
            <SelectField id="preset" label="Preset" options=presets
                value=Signal::derive(move || sw.with(|p| p.preset.clone()))
                on_change=Callback::new(move |v: String| params.update(|p| p.swizzle.preset = v)) />
            {check(|p| p.read, |p, v| p.read = v, "read", "remote reads (else writes)")}
            <NumberField id="tile" label="Tile bytes" unit="B" integer=true range={codec::range::<SwizzleState>("tile")} slider=lim::TILE_SLIDER
                value=Signal::derive(move || sw.with(|p| p.tile_bytes as f64)) on_change=real(|p, v| p.tile_bytes = v as u64) />
            <NumberField id="bandwidth" label="Link bandwidth (0: preset)" unit="GiB/s" range={codec::range::<SwizzleState>("bandwidth")} slider=lim::BANDWIDTH_SLIDER
                value=Signal::derive(move || sw.with(|p| p.bandwidth_gib_s)) on_change=real(|p, v| p.bandwidth_gib_s = v) />
            <NumberField id="latency" label="Latency (0: preset)" unit="ns" range={codec::range::<SwizzleState>("latency")} slider=lim::LATENCY_SLIDER
                value=Signal::derive(move || sw.with(|p| p.latency_ns)) on_change=real(|p, v| p.latency_ns = v) />
        </div>
    }
}

/// The swizzle's schedule on every rank run on a network, with and without
/// the rank shift: both times and each one's hottest link, as a sentence and
/// bars drawn in the engine worker (the simulation of `commlab net sim` on
/// `goal gen swizzle`). Plain strings only: each signal type costs UI bundle bytes.
#[component]
fn SwizzleNetwork(
    params: RwSignal<SwizzleState>,
    sw: Memo<SwizzleParams>,
    client: StoredValue<Client, LocalStorage>,
    /// The figure's width.
    width: Signal<f64>,
    dark: Signal<bool>,
) -> impl IntoView {
    // The sentence (or what is refused) and the figure, drawn for the width.
    let say = RwSignal::new(None::<String>);
    let outcome = RwSignal::new(None::<Arc<commlab_api::swizzle::SwizzleNet>>);
    let figure = Signal::derive(move || {
        let theme = Theme::of(dark.get());
        outcome.with(|n| n.as_ref().map(|n| n.figure(width.get(), &theme)))
    });
    Effect::new(move |_| {
        let Some((request, net)) = sw.with(|s| s.on_network.then(|| (s.clone(), s.network.clone()))) else {
            return;
        };
        say.set(Some("Simulating on the network…".into()));
        outcome.set(None);
        let handler: Handler = Rc::new(move |response, _| match response {
            Response::SwizzleNet(net) => {
                say.set(Some(net.sentence()));
                outcome.set(Some(Arc::from(net)));
            }
            Response::Error(e) => say.set(Some(e.to_string())),
            _ => {}
        });
        client.with_value(|c| c.query(Request::SwizzleNet(request, net), handler));
    });
    let set_topology = move |text: String| match text.trim().parse::<commlab_core::net::Shape>() {
        Ok(shape) => params.update(|p| {
            p.swizzle.network.topology = shape;
            p.swizzle.network.breaks.clear();
        }),
        Err(e) => {
            say.set(Some(e));
            outcome.set(None);
        }
    };
    view! {
        <div class="swizzle-net" role="group" aria-label="On a network">
            <label class="check"><input type="checkbox" data-testid="swizzle-on-network" prop:checked=move || sw.with(|p| p.on_network)
                on:change=move |ev| { let on = event_target_checked(&ev); params.update(|p| p.swizzle.on_network = on); } />
                " run on a network too (every rank runs the schedule, a tile per message, flows sharing links max–min)"</label>
            {move || sw.with(|p| p.on_network).then(|| view! {
                <div class="field">
                    <label for="swizzle-net">"Topology"</label>
                    <input id="swizzle-net" data-testid="swizzle-topology" type="text" spellcheck="false"
                        prop:value=move || sw.with(|p| p.network.topology.to_string())
                        on:change=move |ev| set_topology(event_target_value(&ev)) />
                </div>
                <p data-testid="swizzle-net-sentence" role="status">{move || say.get()}</p>
                <figure class="diagram" tabindex="0" data-testid="swizzle-network" role="img" aria-label=move || say.get().unwrap_or_default()>
                    <div inner_html=move || figure.get().unwrap_or_default()></div>
                </figure>
            })}
        </div>
    }
}

/// The warning for a mapping that is not a bijection onto the cells.
#[component]
fn CoverageWarning(summary: Memo<SummaryState>) -> impl IntoView {
    move || {
        let SummaryState::Ready(s) = summary.get() else { return None };
        let (title, body) = s.coverage_warning.clone()?;
        Some(view! {
            <div class="notices" role="alert" data-testid="coverage-warning">
                <p class="notices-title">{title}</p>
                <p>{body}</p>
            </div>
        })
    }
}

/// Steps, collisions and modelled time: this configuration, the naive order, and the comparison.
#[component]
fn SwizzleNumbers(summary: Memo<SummaryState>) -> impl IntoView {
    move || {
        let s = match summary.get() {
            SummaryState::Ready(s) => s,
            SummaryState::Failed(e) => {
                return view! { <p class="chart-error" data-testid="swizzle-error">{e}</p> }.into_any()
            }
            SummaryState::Pending => return ().into_any(),
        };
        let mut rows: Vec<_> = s
            .rows
            .iter()
            .map(|r| {
                view! {
                    <tr data-row=r.id.clone()>
                        <th scope="row">{r.label.clone()}</th>
                        <td class="steps">{r.steps}</td>
                        <td class="collisions">{r.collisions}</td>
                        <td class="busiest">{r.busiest}</td>
                        <td class="time">{r.time_us.clone()}</td>
                        <td class="bijective">{if r.bijective { "yes" } else { "no" }}</td>
                    </tr>
                }
                .into_any()
            })
            .collect();
        if let Some(e) = s.other_error.clone() {
            rows.push(view! { <tr><td colspan="6" class="chart-error">{e}</td></tr> }.into_any());
        }
        view! {
            <table class="numbers stack" data-testid="swizzle-numbers"
                style=crate::controls::stack::stack_labels(&["schedule", "steps", "collisions", "max cores on a rank", "time (µs)", "bijective"])>
                <caption>{s.cost_caption.clone()}</caption>
                <thead><tr><th scope="col">"schedule"</th><th scope="col">"steps"</th><th scope="col">"collisions"</th><th scope="col">"max cores on a rank"</th><th scope="col">"time (µs)"</th><th scope="col">"bijective"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    }
}

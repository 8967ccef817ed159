//! View 2: the chain pipeline's space-time diagram with `p + m − 2` steps,
//! the grouping of elements into pieces, playback and export.

use super::params::PipelineParams;
use crate::controls::chart::box_width;
use crate::controls::export_bar::ExportBar;
use crate::controls::number_field::{int_range, NumberField};
use crate::controls::playback::Playback;
use crate::controls::run_progress::RunProgress;
use crate::engine::split::{split_run, worker_captions, Split, SplitRun};
use crate::engine::Client;
use crate::state::Params;
use commlab_api::protocol::{DataView, Request};
use commlab_api::tree::{PipelineRun, VALUES_TABLE_UNITS};
use commlab_core::limits::{ELEMENTS, EXACT_SEED, PIECES, PIECES_SLIDER, PIPELINE_UNITS_SLIDER, SEED_SLIDER, UNITS};
use commlab_core::reduce::caption;
use commlab_core::reduce::values::piece_range;
use commlab_plot::pipeline::{pipeline_svg, PIPELINE_DRAW_LIMIT};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::sync::Arc;

/// The pipeline view.
#[component]
pub fn PipelineView(
    /// App state; the controls write `params.pipeline` and `params.step`.
    params: RwSignal<Params>,
    /// Whether the page is dark.
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let pp = Memo::new(move |_| params.with(|p| p.pipeline));
    // Derived, not memoised: `pp` is a memo already (each memo type costs ~5 KB of wasm).
    let request = Signal::derive(move || pp.get());
    // Started with the view, so its wasm is ready by the first large run.
    let client = StoredValue::new_local(Client::new());
    on_cleanup(move || {
        client.try_with_value(Client::close);
    });
    let SplitRun { state, progress, on_cancel, on_rerun } = split_run(client, request);
    let run = Signal::derive(move || match state.get() {
        Split::Local(r) => Ok(r),
        Split::Failed(e) => Err(e),
        _ => Err(String::new()),
    });
    let steps = Memo::new(move |_| match state.get() {
        Split::Local(r) => r.schedule.rounds.len(),
        Split::Remote(s) => s.steps,
        _ => 0,
    });
    let step = Memo::new(move |_| params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(steps.get()));
    let theme = move || Theme::of(dark.get());
    let figure = NodeRef::<leptos::html::Figure>::new();
    let width = box_width(figure, 900.0);
    let svg = Memo::new(move |_| {
        let run = run.get().ok()?;
        let (units, n) = PIPELINE_DRAW_LIMIT;
        (run.schedule.units <= units && run.schedule.rounds.len() <= n)
            .then(|| pipeline_svg(&run.schedule, pp.get().elements as usize, step.get(), width.get(), &theme()))
    });
    // A large run's captions come from the worker, one per step shown.
    let remote_caption = worker_captions(
        client,
        step,
        move |s| matches!(state.get(), Split::Remote(_)) && s > 0,
        Request::PipelineCaption,
    );
    let caption_text = move || caption_at(&state.get(), step.get(), pp.with(|p| p.pieces), remote_caption);
    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name =
        Signal::derive(move || pp.with(|p| format!("commlab-pipeline-p{}-m{}-step{}", p.units, p.pieces, step.get())));
    let export_status = RwSignal::new(String::new());
    // CSV and JSON come from the worker (a small run is built there first).
    let remote_export = crate::engine::data_export(
        move || client.get_value(),
        move || Some(request.get_untracked()).filter(|r| !r.heavy()).map(Request::Pipeline),
        DataView::Pipeline,
        file_name,
        export_status,
    );

    view! {
        <section class="view pipeline-view" data-testid="pipeline-view" aria-labelledby="pipeline-title">
            <PipelineControls params=params />
            <div class="results">
                <RunProgress progress=progress label="Replaying the values" unit="value cells" on_cancel=on_cancel on_rerun=on_rerun />
                <Playback step=step steps=steps on_step=on_step speed=Signal::derive(move || params.with(|p| p.speed.0)) on_speed=Callback::new(move |v| params.update(|p| p.speed = crate::state::Speed(v))) />
                <p class="caption" data-testid="caption" aria-live="polite">{caption_text}</p>
                {move || match svg.get() {
                    Some(markup) => view! { <figure node_ref=figure class="diagram" tabindex="0" data-testid="pipeline-svg" inner_html=markup></figure> }.into_any(),
                    None => view! { <PipelineSummary state=state /> }.into_any(),
                }}
                {move || run.get().ok().filter(|r| u64::from(r.schedule.units) <= VALUES_TABLE_UNITS).map(|r| view! { <PipelineValues run=r step=step.get() /> })}
                <ExportBar name=file_name svg=svg remote=remote_export />
                <crate::lazy::ScheduleLinks schedule=Signal::derive(move || params.with(|p| (!p.embed).then(|| crate::links::Timeline::of(super::params::schedule(&p.pipeline))))) />
                <p class="export-status" role="status">{move || export_status.get()}</p>
            </div>
        </section>
    }
}

/// The pipeline's parameters and its grouping of elements into pieces.
#[component]
fn PipelineControls(params: RwSignal<Params>) -> impl IntoView {
    let pp = Memo::new(move |_| params.with(|p| p.pipeline));
    let set = move |apply: fn(&mut PipelineParams, f64)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.pipeline, v)))
    };
    view! {
        <div class="controls" role="group" aria-label="Pipeline parameters">
            <h2 id="pipeline-title">"Pipelined reduction"</h2>
            <p class="formula">"steps(p, m) = p + m − 2"</p>
            <NumberField id="p" label="Units p" integer=true range=int_range(UNITS) slider=PIPELINE_UNITS_SLIDER
                value=Signal::derive(move || pp.with(|p| p.units as f64)) on_change=set(|p, v| p.units = v as u64) />
            <NumberField id="m" label="Pieces m" integer=true range=int_range(PIECES) slider=PIECES_SLIDER
                value=Signal::derive(move || pp.with(|p| p.pieces as f64)) on_change=set(|p, v| p.pieces = v as u64) />
            <NumberField id="elements" label="Elements per vector" integer=true range=int_range(ELEMENTS)
                value=Signal::derive(move || pp.with(|p| p.elements as f64)) on_change=set(|p, v| p.elements = v as u64) />
            <NumberField id="seed" label="Seed of the inputs (summed)" integer=true range=int_range(EXACT_SEED) slider=SEED_SLIDER
                value=Signal::derive(move || pp.with(|p| p.seed as f64)) on_change=set(|p, v| p.seed = v as u64) />
            <p class="model-notes">
                {move || pp.with(|p| {
                    let g = commlab_core::reduce::values::grouping(p.units, p.elements, p.pieces);
                    format!("Grouping: {} elements sent as {} pieces of up to {} elements: each step moves {}× the volume of one element, and there are {} steps instead of {}.",
                        p.elements, p.pieces, g.group, g.group, g.steps, g.steps_per_element)
                })}
            </p>
        </div>
    }
}

/// What stands in for a diagram too large to draw.
#[component]
fn PipelineSummary(state: Memo<Split<Arc<PipelineRun>, commlab_api::tree::PipelineSummary>>) -> impl IntoView {
    view! {
        <p class="summary-note" data-testid="pipeline-summary">
            {move || match state.get() {
                Split::Remote(s) => format!("{} units × {} steps is larger than the diagram shows legibly ({} × {}): {} messages of one piece each, {} steps = p + m − 2. p0 ends with {}.",
                    s.units, s.steps, PIPELINE_DRAW_LIMIT.0, PIPELINE_DRAW_LIMIT.1, s.messages, s.steps,
                    if s.sum_ok { "the sum of every input ✓" } else { "a vector that differs from the sum of the inputs ✗" }),
                // A run on the page is always drawn (`PipelineRequest::heavy`).
                Split::Local(_) | Split::Pending => "Building the run in the engine worker…".to_owned(),
                Split::Failed(e) => e,
            }}
        </p>
    }
}

/// The caption of step `step`: the start, the page run's own, or the
/// worker's (asked for by the view, kept in `remote`).
fn caption_at(
    state: &Split<Arc<PipelineRun>, commlab_api::tree::PipelineSummary>,
    step: usize,
    pieces: u64,
    remote: RwSignal<String>,
) -> String {
    let start = |units: u32, pieces: u64, steps: usize| {
        format!(
            "Start: the chain p{} → … → p0; each unit holds its vector, cut into {pieces} pieces. {steps} steps to go.",
            units.saturating_sub(1)
        )
    };
    match state {
        Split::Local(r) if step == 0 => start(r.schedule.units, r.schedule.pieces.into(), r.schedule.rounds.len()),
        Split::Local(r) => caption(&r.schedule, step - 1),
        Split::Remote(s) if step == 0 => start(s.units, pieces, s.steps),
        Split::Remote(_) => remote.get(),
        Split::Pending => "Building the run in the engine worker…".to_owned(),
        Split::Failed(e) => e.clone(),
    }
}

/// Every unit's vector at the current step, piece by piece.
#[component]
fn PipelineValues(run: Arc<PipelineRun>, step: usize) -> impl IntoView {
    let snapshot = run.trace.after(step);
    let width = run.trace.width();
    let pieces = run.schedule.pieces;
    let rows = (0..run.schedule.units)
        .rev()
        .map(|u| {
            let values = run.trace.vector_text(&snapshot, u as usize);
            let groups = (0..pieces)
                .map(|j| {
                    let range = piece_range(j, pieces, width);
                    let style =
                        format!("background:{}", commlab_plot::svg::hex(commlab_plot::pipeline::piece_color(j)));
                    view! { <span class="piece" style=style>{values[range].join(", ")}</span>" " }
                })
                .collect_view();
            view! { <tr data-unit=u><th scope="row">{format!("p{u}")}</th><td class="x">{groups}</td></tr> }
        })
        .collect_view();
    view! {
        <table class="values" data-testid="values">
            <caption>{format!("Vectors after step {step} (p0 ends with the sum)")}</caption>
            <tbody>{rows}</tbody>
        </table>
    }
}

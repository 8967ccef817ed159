//! View 2: the chain pipeline's space-time diagram with `p + m − 2` steps,
//! the grouping of elements into pieces, playback and export.

use crate::components::export_bar::ExportBar;
use crate::components::number_field::{int_range, NumberField};
use crate::components::playback::Playback;
use crate::exports;
use crate::state::{Params, PipelineParams};
use commlab_core::limits::{ELEMENTS, PIECES, UNITS};
use commlab_core::reduce::values::{check_size, piece_range, random_inputs, ValueTrace};
use commlab_core::reduce::{caption, Operator, Schedule};
use commlab_plot::pipeline::{pipeline_svg, PIPELINE_DRAW_LIMIT};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::sync::Arc;

/// Above this many units the values table is left out (the diagram still shows the pieces).
const VALUES_TABLE_UNITS: u64 = 16;

/// One computed pipeline run.
#[derive(Debug, Clone, PartialEq)]
struct PipelineRun {
    schedule: Schedule,
    trace: ValueTrace,
}

fn compute(p: &PipelineParams) -> Result<PipelineRun, String> {
    check_size(p.units, p.elements).map_err(|e| e.to_string())?;
    if p.pieces > p.elements {
        return Err(format!(
            "m = {} is out of range: expected at most elements = {} (a piece holds at least one element)",
            p.pieces, p.elements
        ));
    }
    let schedule = Schedule::pipeline(p.units, p.pieces).map_err(|e| e.to_string())?;
    let inputs = random_inputs(p.seed, p.units, p.elements, Operator::Sum).map_err(|e| e.to_string())?;
    let trace = ValueTrace::new(&schedule, Operator::Sum, p.elements as usize, &inputs);
    Ok(PipelineRun { schedule, trace })
}

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
    let run = Memo::new(move |_| compute(&pp.get()).map(Arc::new));
    let steps = Memo::new(move |_| run.with(|r| r.as_ref().map_or(0, |r| r.schedule.rounds.len())));
    let step = Memo::new(move |_| params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(steps.get()));
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    let svg = Memo::new(move |_| {
        let run = run.get().ok()?;
        let (units, n) = PIPELINE_DRAW_LIMIT;
        (run.schedule.units <= units && run.schedule.rounds.len() <= n)
            .then(|| pipeline_svg(&run.schedule, pp.get().elements as usize, step.get(), &theme()))
    });
    let caption_text = move || match run.get() {
        Ok(r) if step.get() == 0 => format!(
            "Start: the chain p{} → … → p0; each unit holds its vector, cut into {} pieces. {} steps to go.",
            r.schedule.units.saturating_sub(1),
            r.schedule.pieces,
            r.schedule.rounds.len()
        ),
        Ok(r) => caption(&r.schedule, step.get() - 1),
        Err(e) => e,
    };
    let set = move |apply: fn(&mut PipelineParams, f64)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.pipeline, v)))
    };
    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name =
        Signal::derive(move || pp.with(|p| format!("commlab-pipeline-p{}-m{}-step{}", p.units, p.pieces, step.get())));
    let csv = Callback::new(move |()| {
        run.with(|r| {
            r.as_ref()
                .map(|r| exports::pipeline_csv(&r.schedule, pp.get_untracked().elements as usize))
                .unwrap_or_default()
        })
    });
    let json = Callback::new(move |()| {
        run.with(|r| r.as_ref().map(|r| exports::pipeline_json(&r.schedule, &pp.get_untracked())).unwrap_or_default())
    });

    view! {
        <section class="view pipeline-view" data-testid="pipeline-view" aria-labelledby="pipeline-title">
            <div class="controls" role="group" aria-label="Pipeline parameters">
                <h2 id="pipeline-title">"Pipelined reduction"</h2>
                <p class="formula">"steps(p, m) = p + m − 2"</p>
                <NumberField id="p" label="Units p" integer=true range=int_range(UNITS) slider=(2.0, 1024.0)
                    value=Signal::derive(move || pp.with(|p| p.units as f64)) on_change=set(|p, v| p.units = v as u64) />
                <NumberField id="m" label="Pieces m" integer=true range=int_range(PIECES) slider=(1.0, 1024.0)
                    value=Signal::derive(move || pp.with(|p| p.pieces as f64)) on_change=set(|p, v| p.pieces = v as u64) />
                <NumberField id="elements" label="Elements per vector" integer=true range=int_range(ELEMENTS) slider=(1.0, 1024.0)
                    value=Signal::derive(move || pp.with(|p| p.elements as f64)) on_change=set(|p, v| p.elements = v as u64) />
                <NumberField id="seed" label="Seed of the inputs (summed)" integer=true range=(0.0, 9_007_199_254_740_991.0) slider=(1.0, 1_000_000.0)
                    value=Signal::derive(move || pp.with(|p| p.seed as f64)) on_change=set(|p, v| p.seed = v as u64) />
                <p class="model-notes">
                    {move || pp.with(|p| {
                        let group = p.elements.div_ceil(p.pieces.max(1));
                        format!("Grouping: {} elements sent as {} pieces of up to {group} elements: each step moves {group}× the volume of one element, and there are {} steps instead of {}.",
                            p.elements, p.pieces, p.units + p.pieces - 2, p.units + p.elements - 2)
                    })}
                </p>
            </div>
            <div class="results">
                <Playback step=step steps=steps on_step=on_step />
                <p class="caption" data-testid="caption" aria-live="polite">{caption_text}</p>
                {move || match svg.get() {
                    Some(markup) => view! { <figure class="diagram" data-testid="pipeline-svg" inner_html=markup></figure> }.into_any(),
                    None => view! {
                        <p class="summary-note" data-testid="pipeline-summary">
                            {move || match run.get() {
                                Ok(r) => format!("{} units × {} steps is larger than the diagram shows legibly ({} × {}): {} messages of one piece each, {} steps = p + m − 2.",
                                    r.schedule.units, r.schedule.rounds.len(), PIPELINE_DRAW_LIMIT.0, PIPELINE_DRAW_LIMIT.1, r.schedule.message_count(), r.schedule.rounds.len()),
                                Err(e) => e,
                            }}
                        </p>
                    }.into_any(),
                }}
                {move || run.get().ok().filter(|r| u64::from(r.schedule.units) <= VALUES_TABLE_UNITS).map(|r| view! { <PipelineValues run=r step=step.get() /> })}
                <ExportBar name=file_name svg=svg csv=csv json=json />
            </div>
        </section>
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

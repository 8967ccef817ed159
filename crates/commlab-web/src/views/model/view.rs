//! View 3: the runtime model of the pipelined reduction, `T(m)` and `T(p)`.

use crate::controls::chart::{box_width, Chart};
use crate::controls::export_bar::ExportBar;
use crate::controls::number_field::{int_range, real_range, NumberField};

use super::params::ModelParams;
use crate::engine::Client;
use crate::state::Params;
use commlab_api::model::{units_axis_end, ModelRequest, ModelRun};
use commlab_api::protocol::{DataView, Request};
use commlab_core::limits::{
    BYTES, BYTES_SLIDER, MAX_PIECES, PIECES, T_BYTE, T_BYTE_SLIDER, T_START, T_START_SLIDER, UNITS,
};
use commlab_core::model::{pipeline_steps, ModelConfig, Optimum, Summary};
use commlab_plot::model::{pieces_chart, units_chart, Marker};
use commlab_plot::{format_quantity as q, render_svg, PlotError, Theme};
use leptos::prelude::*;
use std::sync::Arc;

/// Chart size in px: drawn for the box's width up to 900, 420 high.
const CHART_SIZE: (f64, u32) = (900.0, 420);

/// The runtime-model view: inputs, two charts, and the numbers in a table.
#[component]
pub fn ModelView(
    /// App state; the inputs write `params.model`.
    params: RwSignal<Params>,
    /// Whether the page is dark (chart colours follow).
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let model = Memo::new(move |_| params.with(|p| p.model));
    // The model with its event simulations (bounded work: 2 × 14 simulations
    // of at most 2^15 messages), computed here through the engine API.
    let run = Memo::new(move |_| model.get().request.run_without_network().map(Arc::new).map_err(|e| e.to_string()));
    let config = move || run.get().map(|r| r.config);
    let theme = move || Theme::of(dark.get());
    let chosen = move || config().map_or(1, |c| model.with(|m| m.pieces).clamp(1, c.piece_limit()));

    let markers =
        |points: &[(u64, f64)]| -> Vec<Marker> { points.iter().map(|&(x, y)| Marker { x: x as f64, y }).collect() };
    let (twin, twin_client) = network_twin(model, run);
    let network = move || {
        let request = model.with(|m| m.request);
        twin.with(|t| t.as_ref().filter(|(r, _)| *r == request).map(|(_, p)| markers(p)).unwrap_or_default())
    };
    let (pieces_box, units_box) = (NodeRef::new(), NodeRef::new());
    let (pieces_width, units_width) = (box_width(pieces_box, CHART_SIZE.0), box_width(units_box, CHART_SIZE.0));
    let pieces_svg = Memo::new(move |_| -> Result<String, PlotError> {
        let run = run.get().map_err(PlotError)?;
        let (m, theme, network) = (chosen(), theme(), network());
        render_svg(pieces_width.get() as u32, CHART_SIZE.1, |root| {
            pieces_chart(root, &run.config, m, [&markers(&run.simulated), &network], &theme)
        })
    });
    let units_svg = Memo::new(move |_| -> Result<String, PlotError> {
        let run = run.get().map_err(PlotError)?;
        let (m, theme) = (chosen(), theme());
        let end = units_axis_end(run.config.units());
        let sim = markers(&run.simulated_tree);
        render_svg(units_width.get() as u32, CHART_SIZE.1, |root| units_chart(root, &run.config, m, end, &sim, &theme))
    });
    let file_name =
        Signal::derive(move || model.with(|m| format!("commlab-model-n{}-p{}", m.request.bytes, m.request.units)));
    let export_svg = Signal::derive(move || pieces_svg.get().ok());
    // The data exports come from the engine worker (the same run, kept there),
    // started on the first export so the view itself never waits for it.
    let client = StoredValue::new_local(None::<Client>);
    on_cleanup(move || {
        twin_client.try_with_value(|c| c.as_ref().map(Client::close));
        client.try_with_value(|c| c.as_ref().map(Client::close));
    });
    let export_status = RwSignal::new(String::new());
    let remote_export = crate::engine::data_export(
        move || {
            client.update_value(|c| {
                c.get_or_insert_with(Client::new);
            });
            client.with_value(|c| c.clone().expect("set above"))
        },
        move || Some(Request::Model(model.get_untracked().request)),
        DataView::Model,
        file_name,
        export_status,
    );
    let describe_pieces = move || match config() {
        Ok(c) => {
            let s = c.summary();
            format!(
                "Pipeline time T over piece count m: best integer m = {} with T = {}, binomial tree T = {}",
                s.best_pieces,
                q(s.time_at_best),
                q(s.binomial_time)
            )
        }
        Err(e) => e,
    };
    let describe_units = move || {
        format!(
            "Pipeline and binomial-tree time over the number of units p, with p = {} marked",
            model.with(|m| m.request.units)
        )
    };

    view! {
        <section class="view model-view" data-testid="model-view" aria-labelledby="model-title">
            <ModelControls params=params run=run />
            <div class="results">
                <Chart svg=pieces_svg description=Signal::derive(describe_pieces) testid="chart-pieces" node=pieces_box />
                <Chart svg=units_svg description=Signal::derive(describe_units) testid="chart-units" node=units_box />
            </div>
            <div class="summary">
                <ExportBar name=file_name svg=export_svg remote=remote_export />
                <crate::lazy::ScheduleLinks schedule=Signal::derive(move || params.with(|p| (!p.embed).then(|| p.model.timeline()))) />
                <p class="export-status" role="status">{move || export_status.get()}</p>
                {move || match config() {
                    Ok(c) => view! { <NumbersTable config=c chosen=chosen() /> }.into_any(),
                    Err(e) => view! { <p class="chart-error">{e}</p> }.into_any(),
                }}
            </div>
        </section>
    }
}

/// The twin's request and its points (pieces, ns).
type Twin = (ModelRequest, Vec<(u64, f64)>);

/// The model's network twin (the chain on a line of hosts), from a worker of
/// its own, which has the network simulator: the twin's request and its
/// points, and the worker (closed with the view).
fn network_twin(
    model: Memo<ModelParams>,
    run: Memo<Result<Arc<ModelRun>, String>>,
) -> (RwSignal<Option<Twin>>, StoredValue<Option<Client>, LocalStorage>) {
    // Each change supersedes the twin in flight (a slider drag queues
    // nothing), and no export waits behind it. It is drawn once it matches
    // the inputs.
    let twin_client = StoredValue::new_local(None::<Client>);
    let twin = RwSignal::new(None::<Twin>);
    Effect::new(move |_| {
        let request = model.with(|m| m.request);
        if run.with(Result::is_err) {
            return;
        }
        // The worker keeps the run (with its twin) and hands the twin back
        // as its CSV export.
        let export: crate::engine::Handler = std::rc::Rc::new(move |response, _| {
            if let commlab_api::protocol::Response::Export(csv) = response {
                twin.set(Some((request, commlab_api::exports::network_points(&csv))));
            }
        });
        let kept: crate::engine::Handler = std::rc::Rc::new(move |response, _| {
            if response == commlab_api::protocol::Response::Kept {
                let ask = Request::DataExport(DataView::Model, commlab_api::protocol::DataFormat::Csv);
                twin_client.with_value(|c| c.as_ref().map(|c| c.query(ask, export.clone())));
            }
        });
        twin_client.update_value(|c| {
            c.get_or_insert_with(Client::new);
        });
        twin_client.with_value(|c| c.as_ref().map(|c| c.run(Request::Model(request), kept)));
    });
    (twin, twin_client)
}

/// The model's inputs and "Use the best m".
#[component]
fn ModelControls(params: RwSignal<Params>, run: Memo<Result<Arc<ModelRun>, String>>) -> impl IntoView {
    let model = Memo::new(move |_| params.with(|p| p.model));
    let set =
        move |apply: fn(&mut ModelParams, f64)| Callback::new(move |v: f64| params.update(|p| apply(&mut p.model, v)));
    let use_best = move |_| {
        if let Ok(r) = run.get_untracked() {
            params.update(|p| p.model.pieces = r.config.best_pieces_up_to(r.config.piece_limit()));
        }
    };
    view! {
        <div class="controls" role="group" aria-label="Model parameters">
            <h2 id="model-title">"Pipelined reduction: runtime model"</h2>
            <p class="formula">"T(n,p,m) = (T"<sub>"start"</sub>" + n/m · T"<sub>"byte"</sub>")(p + m − 2)"</p>
            <NumberField id="n" label="Vector size n" unit="bytes" integer=true
                range=int_range(BYTES) slider=BYTES_SLIDER value=Signal::derive(move || model.with(|m| m.request.bytes as f64))
                on_change=set(|m, v| m.request.bytes = v as u64) />
            <NumberField id="p" label="Units p" integer=true
                range=int_range(UNITS) value=Signal::derive(move || model.with(|m| m.request.units as f64))
                on_change=set(|m, v| m.request.units = v as u64) />
            <NumberField id="t_start" label="Start-up T_start" unit="µs"
                range=real_range(T_START) slider=T_START_SLIDER value=Signal::derive(move || model.with(|m| m.request.t_start))
                on_change=set(|m, v| m.request.t_start = v) />
            <NumberField id="t_byte" label="Per byte T_byte" unit="µs/B"
                range=real_range(T_BYTE) slider=T_BYTE_SLIDER value=Signal::derive(move || model.with(|m| m.request.t_byte))
                on_change=set(|m, v| m.request.t_byte = v) />
            <NumberField id="max_pieces" label="Max pieces" integer=true
                range=int_range(MAX_PIECES) value=Signal::derive(move || model.with(|m| m.request.max_pieces as f64))
                on_change=set(|m, v| m.request.max_pieces = v as u64) />
            <NumberField id="m" label="Chosen pieces m" integer=true
                range=int_range(PIECES) value=Signal::derive(move || model.with(|m| m.pieces as f64))
                on_change=set(|m, v| m.pieces = v as u64) />
            <button type="button" data-testid="use-best" on:click=use_best>"Use the best m"</button>
        </div>
    }
}

/// The headline numbers of the model, each from `commlab-core`.
#[component]
fn NumbersTable(
    /// The validated configuration.
    config: ModelConfig,
    /// The chosen piece count, already clipped to the piece limit.
    chosen: u64,
) -> impl IntoView {
    let s: Summary = config.summary();
    let m_star = match s.optimum {
        Optimum::Zero => "none".to_owned(),
        Optimum::Flat => "any".to_owned(),
        other => other.pieces().map_or_else(|| "∞".to_owned(), q),
    };
    let t_chosen = config.time_at(chosen);
    let limit = config.piece_limit();
    // The best m the charts and "Use the best m" can take: the best within the piece limit.
    let best = config.best_pieces_up_to(limit);
    let speedup = match s.speedup() {
        None => view! { "Pipelining at the best m takes no time, as the binomial tree." }.into_any(),
        Some(x) if x >= 1.0 => view! {
            "Pipelining at the best m is " <strong data-testid="speedup">{format!("{}×", q(x))}</strong> " as fast as the binomial tree."
        }
        .into_any(),
        Some(x) => view! {
            "Pipelining at the best m is " <strong data-testid="speedup">{format!("{}× slower", q(1.0 / x))}</strong> " than the binomial tree."
        }
        .into_any(),
    };
    let clamped = (s.best_pieces > limit).then(|| {
        format!(
            " The best m over all piece counts, {}, lies beyond the piece limit: the table and \"Use the best m\" take {best}, the best within it.",
            s.best_pieces
        )
    });
    let rows = [
        ("m-star", "optimum m*", m_star, q(s.time_at_optimum), "—".to_owned()),
        (
            "m-best",
            "best m",
            best.to_string(),
            q(config.time_at(best)),
            pipeline_steps(config.units(), best).to_string(),
        ),
        ("m-chosen", "chosen m", chosen.to_string(), q(t_chosen), pipeline_steps(config.units(), chosen).to_string()),
        ("binomial", "binomial tree", "1".to_owned(), q(s.binomial_time), s.binomial_rounds.to_string()),
    ];
    view! {
        <table class="numbers" data-testid="numbers">
            <caption>"Numbers (times in µs)"</caption>
            <thead>
                <tr><th scope="col">"quantity"</th><th scope="col">"pieces"</th><th scope="col">"time T"</th><th scope="col">"steps"</th></tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|(id, name, pieces, time, steps)| view! {
                        <tr data-row=id>
                            <th scope="row">{name}</th>
                            <td class="pieces">{pieces}</td>
                            <td class="time">{time}</td>
                            <td class="steps">{steps}</td>
                        </tr>
                    })
                    .collect_view()}
            </tbody>
        </table>
        <p class="model-notes">
            {speedup}
            " Piece limit: " {limit} " (max pieces, and at most one piece per byte)."
            {clamped.map(|text| view! { <span data-testid="best-clamped">{text}</span> })}
            {s.optimum.note().map(|note| view! { <span class="optimum-note" data-testid="optimum-note">" " {note} "."</span> })}
        </p>
        <ul class="model-notes legend-notes" data-testid="legend-notes">
            <li title="The pipeline's schedule run by commlab's LogGOPS event simulator, message by message: it lands on the formula's curve.">
                "Dots, “pipeline, event simulation”: the pipeline's schedule run message by message by the event simulator; they sit on the formula's curve."
            </li>
            <li title="The same chain simulated on a network: p hosts in a line, each link with latency T_start and T_byte per byte, one message at a time per host (W = 1).">
                "Rings, “on a line of hosts”: the same chain on a simulated network of p hosts in a line whose links cost T_start and T_byte per byte, each host sending one message at a time (W = 1)."
            </li>
        </ul>
    }
}

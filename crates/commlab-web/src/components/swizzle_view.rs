//! View 6: the CommSwizzle schedule: the reference grid, the core × step
//! timeline, collisions per step, coverage warnings, the cost model, and a
//! side-by-side comparison.

use crate::components::export_bar::ExportBar;
use crate::components::number_field::NumberField;
use crate::components::playback::Playback;
use crate::components::select_field::SelectField;

use crate::state::{Compare, Params, SwizzleParams};
use commlab_api::exports;
use commlab_core::swizzle::{caption, CoreSplit, CostModel, Coverage, GridShape, Schedule, SwizzleConfig, PRESETS};
use commlab_plot::swizzle::{collisions_svg, grid_svg, timeline_svg, StepAxis, GRID_DRAW_LIMIT, TIMELINE_DRAW_LIMIT};
use commlab_plot::{format_quantity as q, Theme};
use leptos::prelude::*;
use std::sync::Arc;

/// One computed configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct SwizzleRun {
    /// The schedule shown.
    pub schedule: Schedule,
    /// The same without the rank shift (the naive order).
    pub naive: Schedule,
    /// The configuration of the comparison, when one is asked for.
    pub other: Option<Result<(String, Schedule), String>>,
    /// Its coverage.
    pub coverage: Coverage,
    /// The cost model in use.
    pub cost: CostModel,
}

fn config(p: &SwizzleParams, deterministic: bool, shift: bool) -> Result<SwizzleConfig, String> {
    let grid = GridShape { row: p.grid.0, column: p.grid.1, rank: p.grid.2 };
    let cores = CoreSplit { row: p.cores.0, column: p.cores.1 };
    SwizzleConfig::new(grid, cores, p.direction, deterministic, shift).map_err(|e| e.to_string())
}

/// The cost model of the parameters: the preset, with the overrides that are non-zero.
pub fn cost_model(p: &SwizzleParams) -> CostModel {
    let preset = PRESETS.iter().find(|x| x.id == p.preset).unwrap_or(&PRESETS[0]);
    let rtt = if p.read { preset.read_rtt_ns } else { preset.write_rtt_ns };
    CostModel {
        latency_ns: if p.latency_ns > 0.0 { p.latency_ns } else { rtt },
        bandwidth_gib_s: if p.bandwidth_gib_s > 0.0 { p.bandwidth_gib_s } else { preset.bandwidth_gib_s },
        tile_bytes: p.tile_bytes,
    }
}

fn compute(p: &SwizzleParams) -> Result<SwizzleRun, String> {
    let current = config(p, p.deterministic, p.shift)?;
    let schedule = Schedule::new(&current);
    let naive = if p.shift { Schedule::new(&current.with_shift(false)) } else { schedule.clone() };
    let other = match p.compare {
        Compare::None => None,
        Compare::Shift => Some(Ok((
            if p.shift { "without the rank shift" } else { "with the rank shift" }.to_owned(),
            Schedule::new(&current.with_shift(!p.shift)),
        ))),
        Compare::Deterministic => Some(config(p, !p.deterministic, p.shift).map(|c| {
            (if p.deterministic { "non-deterministic" } else { "deterministic" }.to_owned(), Schedule::new(&c))
        })),
    };
    let coverage = schedule.coverage();
    Ok(SwizzleRun { schedule, naive, other, coverage, cost: cost_model(p) })
}

fn drawable_grid(s: &Schedule) -> bool {
    let g = s.config().grid();
    g.data() <= GRID_DRAW_LIMIT.0 && g.rank <= GRID_DRAW_LIMIT.1
}

fn drawable_timeline(s: &Schedule) -> bool {
    s.core_count() <= TIMELINE_DRAW_LIMIT.0 && s.steps() <= TIMELINE_DRAW_LIMIT.1
}

/// The swizzle view.
#[component]
pub fn SwizzleView(
    /// App state; the controls write `params.swizzle` and `params.step`.
    params: RwSignal<Params>,
    /// Whether the page is dark.
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let sw = Memo::new(move |_| params.with(|p| p.swizzle));
    let run = Memo::new(move |_| compute(&sw.get()).map(Arc::new));
    let steps = Memo::new(move |_| run.with(|r| r.as_ref().map_or(0, |r| r.schedule.steps())));
    let step = Memo::new(move |_| params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(steps.get()));
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    let grid = Memo::new(move |_| {
        run.get().ok().filter(|r| drawable_grid(&r.schedule)).map(|r| grid_svg(&r.schedule, step.get(), &theme()))
    });
    let other_grid = Memo::new(move |_| {
        let run = run.get().ok()?;
        let (label, other) = run.other.clone()?.ok()?;
        drawable_grid(&other).then(|| (label, grid_svg(&other, step.get().min(other.steps()), &theme())))
    });
    // Step-independent drawings: a step change moves their overlays, not their SVG.
    let timeline = Memo::new(move |_| {
        run.get().ok().filter(|r| drawable_timeline(&r.schedule)).map(|r| timeline_svg(&r.schedule, &theme()))
    });
    let collisions = Memo::new(move |_| run.get().ok().map(|r| collisions_svg(&r.schedule, &r.naive, &theme())));
    let caption_text = move || {
        match run.get() {
        Ok(r) if step.get() == 0 => format!(
            "Start: {} cores, {} loop indices, {} steps. Each step every core takes the next loop index; press play or step forward.",
            r.schedule.core_count(),
            r.schedule.loop_count(),
            r.schedule.steps()
        ),
        Ok(r) => caption(&r.schedule, step.get() - 1),
        Err(e) => e,
    }
    };
    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name = Signal::derive(move || {
        sw.with(|p| {
            format!(
                "commlab-swizzle-{}x{}x{}-c{}x{}-d{}-step{}",
                p.grid.0,
                p.grid.1,
                p.grid.2,
                p.cores.0,
                p.cores.1,
                p.direction,
                step.get()
            )
        })
    });
    let csv = Callback::new(move |()| {
        run.with(|r| r.as_ref().map(|r| exports::swizzle_csv(&r.schedule)).unwrap_or_default())
    });
    let json = Callback::new(move |()| {
        run.with(|r| r.as_ref().map(|r| exports::swizzle_json(&r.schedule, &r.naive, &r.cost)).unwrap_or_default())
    });

    view! {
        <section class="view swizzle-view" data-testid="swizzle-view" aria-labelledby="swizzle-title">
            <SwizzleControls params=params sw=sw />
            <div class="results">
                <Playback step=step steps=steps on_step=on_step />
                <p class="caption" data-testid="caption" aria-live="polite">{caption_text}</p>
                <CoverageWarning run=run />
                <SwizzleNumbers run=run />
                <div class="side-by-side">
                    {move || match grid.get() {
                        Some(svg) => view! { <figure class="diagram" data-testid="swizzle-grid"><figcaption>"this configuration"</figcaption><div inner_html=svg></div></figure> }.into_any(),
                        None => view! { <p class="summary-note" data-testid="swizzle-summary">{move || run.with(|r| match r {
                            Ok(r) => format!("The grid has {} data rows × {} ranks, more than the {} × {} drawn cell by cell; the numbers above cover every loop index.",
                                r.schedule.config().grid().data(), r.schedule.config().grid().rank, GRID_DRAW_LIMIT.0, GRID_DRAW_LIMIT.1),
                            Err(e) => e.clone(),
                        })}</p> }.into_any(),
                    }}
                    {move || other_grid.get().map(|(label, svg)| view! {
                        <figure class="diagram" data-testid="swizzle-grid-other"><figcaption>{label}</figcaption><div inner_html=svg></div></figure>
                    })}
                </div>
                {move || timeline.get().map(|(svg, axis)| view! { <StepFigure svg=svg axis=axis step=step steps=steps testid="swizzle-timeline" /> })}
                {move || collisions.get().map(|(svg, axis)| view! { <StepFigure svg=svg axis=axis step=step steps=steps testid="swizzle-collisions" /> })}
                <ExportBar name=file_name svg=grid csv=csv json=json />
            </div>
        </section>
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
        <figure class="diagram" data-testid=testid>
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
fn SwizzleControls(params: RwSignal<Params>, sw: Memo<SwizzleParams>) -> impl IntoView {
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
    let compares: Vec<(&'static str, &'static str)> = Compare::ALL.iter().map(|c| (c.id(), c.label())).collect();
    view! {
        <div class="controls" role="group" aria-label="Swizzle parameters">
            <h2 id="swizzle-title">"CommSwizzle"</h2>
            <p class="formula">"gridShape (row, column, rank) · coreSplit (row, column)"</p>
            <div class="field-row">
                <NumberField id="rows" label="grid row" integer=true range=(1.0, 1_048_576.0) slider=(1.0, 1024.0)
                    value=Signal::derive(move || f64::from(sw.with(|p| p.grid.0))) on_change=int(|p, v| p.grid.0 = v) />
                <NumberField id="cols" label="grid column" integer=true range=(1.0, 1_048_576.0) slider=(1.0, 1024.0)
                    value=Signal::derive(move || f64::from(sw.with(|p| p.grid.1))) on_change=int(|p, v| p.grid.1 = v) />
                <NumberField id="ranks" label="grid rank" integer=true range=(1.0, 4096.0) slider=(1.0, 4096.0)
                    value=Signal::derive(move || f64::from(sw.with(|p| p.grid.2))) on_change=int(|p, v| p.grid.2 = v) />
            </div>
            <div class="field-row">
                <NumberField id="core_rows" label="cores row" integer=true range=(1.0, 1024.0) slider=(1.0, 1024.0)
                    value=Signal::derive(move || f64::from(sw.with(|p| p.cores.0))) on_change=int(|p, v| p.cores.0 = v) />
                <NumberField id="core_cols" label="cores column" integer=true range=(1.0, 1024.0) slider=(1.0, 1024.0)
                    value=Signal::derive(move || f64::from(sw.with(|p| p.cores.1))) on_change=int(|p, v| p.cores.1 = v) />
            </div>
            <SelectField id="direction" label="SWIZZLE_DIRECTION" options=vec![("0", "0: data rows first"), ("1", "1: swapped")]
                value=Signal::derive(move || if sw.with(|p| p.direction) == 0 { "0" } else { "1" })
                on_change=Callback::new(move |v: String| params.update(|p| p.swizzle.direction = u8::from(v == "1"))) />
            {check(|p| p.deterministic, |p, v| p.deterministic = v, "deterministic", "deterministic (direction 0 only)")}
            {check(|p| p.shift, |p, v| p.shift = v, "shift", "rank shift")}
            <SelectField id="compare" label="Side by side" options=compares
                value=Signal::derive(move || sw.with(|p| p.compare.id()))
                on_change=Callback::new(move |v: String| {
                    if let Some(&c) = Compare::ALL.iter().find(|c| c.id() == v) { params.update(|p| p.swizzle.compare = c) }
                }) />
            <h3>"Cost model"</h3>
            <SelectField id="preset" label="Preset" options=presets
                value=Signal::derive(move || sw.with(|p| p.preset))
                on_change=Callback::new(move |v: String| {
                    if let Some(x) = PRESETS.iter().find(|x| x.id == v) { params.update(|p| p.swizzle.preset = x.id) }
                }) />
            {check(|p| p.read, |p, v| p.read = v, "read", "remote reads (else writes)")}
            <NumberField id="tile" label="Tile bytes" unit="B" integer=true range=(1.0, 1_073_741_824.0) slider=(64.0, 16_777_216.0)
                value=Signal::derive(move || sw.with(|p| p.tile_bytes as f64)) on_change=real(|p, v| p.tile_bytes = v as u64) />
            <NumberField id="bandwidth" label="Link bandwidth (0: preset)" unit="GiB/s" range=(0.0, 10_000.0) slider=(0.1, 1000.0)
                value=Signal::derive(move || sw.with(|p| p.bandwidth_gib_s)) on_change=real(|p, v| p.bandwidth_gib_s = v) />
            <NumberField id="latency" label="Latency (0: preset)" unit="ns" range=(0.0, 1e9) slider=(1.0, 100_000.0)
                value=Signal::derive(move || sw.with(|p| p.latency_ns)) on_change=real(|p, v| p.latency_ns = v) />
        </div>
    }
}

/// The warning for a mapping that is not a bijection onto the cells.
#[component]
fn CoverageWarning(run: Memo<Result<Arc<SwizzleRun>, String>>) -> impl IntoView {
    move || {
        let run = run.get().ok()?;
        if run.coverage.is_bijective() {
            return None;
        }
        let config = run.schedule.config();
        let (rank, column) = (config.grid().rank, config.effective_split().column);
        let why = if rank % column == 0 {
            String::new()
        } else {
            format!(
                " (coreSplit.column = {column} does not divide rank = {rank}, so nStride = {} rounds down)",
                rank / column
            )
        };
        let sample: Vec<String> =
            run.coverage.repeated.iter().take(4).map(|&(d, r, n)| format!("(data {d}, rank {r}) ×{n}")).collect();
        let missed: Vec<String> =
            run.coverage.missed.iter().take(4).map(|&(d, r)| format!("(data {d}, rank {r})")).collect();
        Some(view! {
            <div class="notices" role="alert" data-testid="coverage-warning">
                <p class="notices-title">"Not a bijection" {why} ":"</p>
                <p>{format!("{} cells are visited more than once, e.g. {}; {} cells are never visited, e.g. {}. The grid marks them in red.",
                    run.coverage.repeated.len(), sample.join(", "), run.coverage.missed.len(), missed.join(", "))}</p>
            </div>
        })
    }
}

/// Steps, collisions and modelled time: this configuration, the naive order, and the comparison.
#[component]
fn SwizzleNumbers(run: Memo<Result<Arc<SwizzleRun>, String>>) -> impl IntoView {
    move || {
        let run = match run.get() {
            Ok(run) => run,
            Err(e) => return view! { <p class="chart-error" data-testid="swizzle-error">{e}</p> }.into_any(),
        };
        let row = |name: String, s: &Schedule, testid: &'static str| {
            let us = run.cost.schedule_ns(s) / 1000.0;
            view! {
                <tr data-row=testid>
                    <th scope="row">{name}</th>
                    <td class="steps">{s.steps()}</td>
                    <td class="collisions">{s.total_collisions()}</td>
                    <td class="busiest">{s.busiest_per_step().iter().copied().max().unwrap_or(0)}</td>
                    <td class="time">{q(us)}</td>
                    <td class="bijective">{if s.coverage().is_bijective() { "yes" } else { "no" }}</td>
                </tr>
            }
        };
        let mut rows = vec![row("this configuration".into(), &run.schedule, "current").into_any()];
        if run.schedule.config().shift() {
            rows.push(row("naive order (no rank shift)".into(), &run.naive, "naive").into_any());
        }
        match &run.other {
            Some(Ok((label, other))) => rows.push(row(label.clone(), other, "other").into_any()),
            Some(Err(e)) => rows.push(
                view! { <tr><td colspan="6" class="chart-error">{format!("comparison: {e}")}</td></tr> }.into_any(),
            ),
            None => {}
        }
        let cost = run.cost;
        view! {
            <table class="numbers" data-testid="swizzle-numbers">
                <caption>{format!("Modelled with latency {} ns, {} GiB/s per link, {} B tiles", q(cost.latency_ns), q(cost.bandwidth_gib_s), cost.tile_bytes)}</caption>
                <thead><tr><th scope="col">""</th><th scope="col">"steps"</th><th scope="col">"collisions"</th><th scope="col">"max cores on a rank"</th><th scope="col">"time (µs)"</th><th scope="col">"bijective"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    }
}

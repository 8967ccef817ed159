//! View 5: the paper's barrier experiments in the browser. The sweep runs on
//! the main thread in chunks of about 20 ms (one wasm core, no worker to
//! build and ship), so input stays live; a progress bar, a cancel button, and
//! charts that fill in as results come. Next to each chart, the paper's claim
//! and whether our measurement agrees.

use crate::browser;
use crate::components::export_bar::ExportBar;
use crate::components::number_field::NumberField;
use crate::exports;
use crate::share::{LAB_BARRIERS, LAB_SEEDS, LAB_SIZE};
use crate::state::{LabParams, Params};
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::Scenario;
use commlab_core::barrier::experiment::{
    aggregate, delay_claims, paper_grids, points_csv, range_claim, uq_claim, Claim, Pending, Point, Row, DELAY_RATES,
    RANGE_ALGORITHMS,
};
use commlab_core::barrier::uq::{LinkSetDefinition, UqExperiment, UQ_SIZE};
use commlab_plot::barrier::{delay_range, delay_vs_nodes, uq_histogram};
use commlab_plot::{render_svg, Theme};
use leptos::prelude::*;
use std::time::Duration;

/// Work per chunk before the page gets the main thread back.
const CHUNK_MS: f64 = 20.0;
/// Charts are redrawn at most this often while a sweep runs.
const PUBLISH_MS: f64 = 1000.0;
/// Events per slice of a run (a few milliseconds of wasm).
const SLICE_EVENTS: u64 = 20_000;

/// A sweep under way.
struct Job {
    list: Vec<Scenario>,
    /// `list[..split]` is the delay-vs-nodes grid, the rest the range grid.
    split: usize,
    next: usize,
    /// `list[next]` when it is under way.
    current: Option<Pending>,
    delay_rows: Vec<Row>,
    range_rows: Vec<Row>,
    started: f64,
    published: f64,
    generation: u64,
}

/// The sweep's signals (all `Copy`, so a chunk can schedule the next one).
#[derive(Clone, Copy)]
struct Sweep {
    job: StoredValue<Option<Job>>,
    generation: StoredValue<u64>,
    done: RwSignal<usize>,
    total: RwSignal<usize>,
    running: RwSignal<bool>,
    elapsed_ms: RwSignal<f64>,
    delay: RwSignal<Vec<Point>>,
    range: RwSignal<Vec<Point>>,
    error: RwSignal<Option<String>>,
}

impl Sweep {
    fn new() -> Sweep {
        Sweep {
            job: StoredValue::new(None),
            generation: StoredValue::new(0),
            done: RwSignal::new(0),
            total: RwSignal::new(0),
            running: RwSignal::new(false),
            elapsed_ms: RwSignal::new(0.0),
            delay: RwSignal::new(Vec::new()),
            range: RwSignal::new(Vec::new()),
            error: RwSignal::new(None),
        }
    }

    fn start(self, lab: LabParams) {
        let base = Scenario { barriers: lab.barriers as u32, ..Scenario::default() };
        let (delay, range) = match paper_grids(lab.seeds, lab.max_size, &base) {
            Ok(grids) => grids,
            Err(e) => {
                self.error.set(Some(e.to_string()));
                return;
            }
        };
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        let split = delay.len();
        let mut list = delay;
        list.extend(range);
        let now = browser::now_ms();
        self.total.set(list.len());
        self.done.set(0);
        self.delay.set(Vec::new());
        self.range.set(Vec::new());
        self.error.set(None);
        self.running.set(true);
        self.job.set_value(Some(Job {
            list,
            split,
            next: 0,
            current: None,
            delay_rows: Vec::new(),
            range_rows: Vec::new(),
            started: now,
            published: now,
            generation,
        }));
        set_timeout(move || self.chunk(generation), Duration::ZERO);
    }

    fn cancel(self) {
        self.generation.update_value(|g| *g += 1);
        self.job.set_value(None);
        self.running.set(false);
    }

    /// Runs scenarios for about [`CHUNK_MS`], publishes progress, and schedules the next chunk.
    fn chunk(self, generation: u64) {
        let mut publish = None;
        let mut finished = false;
        let mut progress = (0, 0.0);
        self.job.update_value(|job| {
            let Some(job) = job.as_mut().filter(|j| j.generation == generation) else { return };
            let start = browser::now_ms();
            while job.next < job.list.len() {
                // One run may be longer than a chunk (all-to-all on 16 × 16):
                // it is advanced in slices of events and resumed next chunk.
                let mut pending = job.current.take().unwrap_or_else(|| Pending::start(&job.list[job.next]));
                if pending.advance(SLICE_EVENTS) {
                    let row = pending.finish();
                    if job.next < job.split {
                        job.delay_rows.push(row);
                    } else {
                        job.range_rows.push(row);
                    }
                    job.next += 1;
                } else {
                    job.current = Some(pending);
                }
                if browser::now_ms() - start > CHUNK_MS {
                    break;
                }
            }
            let now = browser::now_ms();
            finished = job.next == job.list.len();
            progress = (job.next, now - job.started);
            if finished || now - job.published > PUBLISH_MS {
                job.published = now;
                publish = Some((aggregate(&job.delay_rows), aggregate(&job.range_rows)));
            }
        });
        if self.generation.get_value() != generation {
            return;
        }
        self.done.set(progress.0);
        self.elapsed_ms.set(progress.1);
        if let Some((delay, range)) = publish {
            self.delay.set(delay);
            self.range.set(range);
        }
        if finished {
            self.running.set(false);
            self.job.set_value(None);
        } else {
            set_timeout(move || self.chunk(generation), Duration::ZERO);
        }
    }
}

/// The lab view.
#[allow(clippy::too_many_lines, reason = "one template; the work is in Sweep and the core")]
#[component]
pub fn LabView(
    /// App state; the controls write `params.lab`.
    params: RwSignal<Params>,
    /// Whether the page is dark.
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let lab = Memo::new(move |_| params.with(|p| p.lab));
    let sweep = Sweep::new();
    on_cleanup(move || sweep.cancel());
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    let charts = Memo::new(move |_| {
        let points = sweep.delay.get();
        let theme = theme();
        DELAY_RATES
            .iter()
            .map(|&rate| {
                (!points.is_empty())
                    .then(|| render_svg(760, 460, |root| delay_vs_nodes(root, &points, rate, &theme)).ok())
                    .flatten()
            })
            .collect::<Vec<_>>()
    });
    let range_chart = Memo::new(move |_| {
        let points = sweep.range.get();
        let theme = theme();
        (!points.is_empty())
            .then(|| render_svg(760, 460, |root| delay_range(root, &points, &RANGE_ALGORITHMS, &theme)).ok())
            .flatten()
    });
    let uq = Memo::new(move |_| {
        UqExperiment::run(lab.get().uq_size, Encoding::SCurve, LinkSetDefinition::default())
            .map(|u| (u.lct_minus_bst(), UqExperiment::mean(&u.lct), UqExperiment::mean(&u.bst), u.lct, u.bst))
            .map_err(|e| e.to_string())
    });
    let uq_chart =
        Memo::new(move |_| uq.with(|u| u.as_ref().ok().map(|(d, l, b, ..)| uq_histogram(d, *l, *b, &theme()))));
    // Cheap: derived, not memoised (each memo type costs ~5 KB of wasm).
    let claims = Signal::derive(move || delay_claims(&sweep.delay.get()));
    let range_claim_memo = Signal::derive(move || range_claim(&sweep.range.get()));
    let uq_claim_memo =
        Signal::derive(move || uq.with(|u| uq_claim(u.as_ref().map(|u| u.0.as_slice()).unwrap_or_default())));

    let settings_name = move || lab.with(|l| format!("s{}-max{}-b{}", l.seeds, l.max_size, l.barriers));
    let delay_csv = Callback::new(move |()| points_csv(&sweep.delay.get_untracked()));
    let delay_json = Callback::new(move |()| exports::points_json(&sweep.delay.get_untracked()));
    let range_csv = Callback::new(move |()| points_csv(&sweep.range.get_untracked()));
    let range_json = Callback::new(move |()| exports::points_json(&sweep.range.get_untracked()));
    let numberings = move || (lab.get_untracked().uq_size * lab.get_untracked().uq_size) as usize;
    let uq_csv = Callback::new(move |()| {
        uq.with_untracked(|u| u.as_ref().map(|u| exports::uq_csv(&u.3, &u.4, numberings())).unwrap_or_default())
    });
    let uq_json = Callback::new(move |()| {
        uq.with_untracked(|u| {
            u.as_ref()
                .map(|u| {
                    json!({"size": lab.get_untracked().uq_size, "encoding": "s-curve", "links": "directed gather",
                        "lct_mean": u.1, "bst_mean": u.2, "lct": &u.3, "bst": &u.4, "lct_minus_bst": &u.0})
                    .pretty()
                })
                .unwrap_or_default()
        })
    });

    let int = move |apply: fn(&mut LabParams, u64)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.lab, v as u64)))
    };
    let percent = move || {
        let total = sweep.total.get();
        if total == 0 {
            0.0
        } else {
            sweep.done.get() as f64 * 100.0 / total as f64
        }
    };
    let status = move || {
        let (done, total) = (sweep.done.get(), sweep.total.get());
        let secs = sweep.elapsed_ms.get() / 1000.0;
        match (sweep.running.get(), total) {
            (_, 0) => "Press “Run sweep”: the results fill in as the runs finish.".to_owned(),
            (true, _) => format!("Running: {done} of {total} runs, {secs:.1} s"),
            (false, _) if done == total => format!("Done: {total} runs in {secs:.1} s"),
            (false, _) => format!("Cancelled after {done} of {total} runs ({secs:.1} s)"),
        }
    };
    let rate_names = ["0 %", "10 %", "20 %"];
    view! {
        <section class="view lab-view" data-testid="lab-view" aria-labelledby="lab-title">
            <div class="controls" role="group" aria-label="Sweep settings">
                <h2 id="lab-title">"Barrier lab"</h2>
                <p class="hint">"The paper's experiments under the documented model: every algorithm, seeded breaks that keep the mesh connected, mean delay over the barriers, seeds averaged, min–max as whiskers."</p>
                <NumberField id="seeds" label="Seeds per point" integer=true range=(LAB_SEEDS.min as f64, LAB_SEEDS.max as f64) slider=(1.0, 20.0)
                    value=Signal::derive(move || lab.with(|l| l.seeds as f64)) on_change=int(|l, v| l.seeds = v) />
                <NumberField id="max_size" label="Largest mesh side" integer=true range=(LAB_SIZE.min as f64, LAB_SIZE.max as f64) slider=(4.0, 64.0)
                    value=Signal::derive(move || lab.with(|l| l.max_size as f64)) on_change=int(|l, v| l.max_size = v) />
                <NumberField id="lab_barriers" label="Barriers per run" integer=true range=(LAB_BARRIERS.min as f64, LAB_BARRIERS.max as f64) slider=(1.0, 10.0)
                    value=Signal::derive(move || lab.with(|l| l.barriers as f64)) on_change=int(|l, v| l.barriers = v) />
                <NumberField id="uq_size" label="UQ mesh side" integer=true range=(UQ_SIZE.min as f64, UQ_SIZE.max as f64) slider=(2.0, 16.0)
                    value=Signal::derive(move || lab.with(|l| l.uq_size as f64)) on_change=int(|l, v| l.uq_size = v) />
                <div class="sweep-buttons">
                    <button type="button" data-testid="run-sweep" on:click=move |_| sweep.start(lab.get_untracked())
                        disabled=move || sweep.running.get()>"Run sweep"</button>
                    <button type="button" data-testid="cancel-sweep" on:click=move |_| sweep.cancel()
                        disabled=move || !sweep.running.get()>"Cancel"</button>
                </div>
                <progress data-testid="sweep-progress" max="100" prop:value=percent aria-label="Sweep progress"></progress>
                <p class="hint" data-testid="sweep-status" role="status">{status}</p>
                {move || sweep.error.get().map(|e| view! { <p class="chart-error" role="alert">{e}</p> })}
            </div>
            <div class="results">
                {(0..DELAY_RATES.len()).map(|i| view! {
                    <article class="lab-chart" data-testid=format!("delay-chart-{i}")>
                        {move || match charts.with(|c| c[i].clone()) {
                            Some(svg) => view! { <div class="diagram" inner_html=svg></div> }.into_any(),
                            None => view! { <p class="summary-note">{format!("Delay vs nodes at {} broken links: run the sweep.", rate_names[i])}</p> }.into_any(),
                        }}
                        <ClaimLine claim=Signal::derive(move || claims.with(|c| c[i].clone())) />
                        <ExportBar name=Signal::derive(move || format!("commlab-lab-delay-{}-{}", rate_names[i].replace(" %", "pct"), settings_name()))
                            svg=Signal::derive(move || charts.with(|c| c[i].clone())) csv=delay_csv json=delay_json />
                    </article>
                }).collect_view()}
                <article class="lab-chart" data-testid="range-chart">
                    {move || match range_chart.get() {
                        Some(svg) => view! { <div class="diagram" inner_html=svg></div> }.into_any(),
                        None => view! { <p class="summary-note">"Delay range over 0–50 % broken links: run the sweep."</p> }.into_any(),
                    }}
                    <ClaimLine claim=Signal::derive(move || range_claim_memo.get()) />
                    <ExportBar name=Signal::derive(move || format!("commlab-lab-range-{}", settings_name()))
                        svg=Signal::derive(move || range_chart.get()) csv=range_csv json=range_json />
                </article>
                <article class="lab-chart" data-testid="uq-chart">
                    {move || match uq.get() {
                        Ok((_, l, b, ..)) => view! {
                            <p class="uq-means" data-testid="uq-means">{format!("Mean UQ over all conversions: LCT {l:.3}, BST {b:.3}.")}</p>
                            <div class="diagram" inner_html=move || uq_chart.get().unwrap_or_default()></div>
                        }.into_any(),
                        Err(e) => view! { <p class="chart-error">{e}</p> }.into_any(),
                    }}
                    <ClaimLine claim=Signal::derive(move || uq_claim_memo.get()) />
                    <ExportBar name=Signal::derive(move || format!("commlab-lab-uq-{}", lab.with(|l| l.uq_size)))
                        svg=Signal::derive(move || uq_chart.get()) csv=uq_csv json=uq_json />
                </article>
            </div>
        </section>
    }
}

/// The paper's claim and our verdict, in one sentence each.
#[component]
fn ClaimLine(#[prop(into)] claim: Signal<Claim>) -> impl IntoView {
    move || {
        let c = claim.get();
        let (class, verdict) = match c.agrees {
            Some(true) => ("claim agrees", "agrees"),
            Some(false) => ("claim disagrees", "does not agree"),
            None => ("claim pending", "not measured yet"),
        };
        view! {
            <p class=class data-testid="claim">
                <strong>"Paper: "</strong>{c.paper}" "
                <strong>{format!("Here ({verdict}): ")}</strong>{c.measured}
            </p>
        }
    }
}

//! View 5: the paper's barrier experiments in the browser. The sweep's runs
//! are shared by a pool of engine workers (`navigator.hardwareConcurrency`,
//! 1 to 8); each result comes back with its index, so the aggregate is the
//! same as one worker's in grid order. A progress bar counts the runs, Cancel
//! terminates the workers at once, and the charts fill in as results arrive
//! (redrawn at most once a second). The UQ experiment runs in its own worker.
//! Next to each chart, the paper's claim and whether our measurement agrees.

use crate::browser;
use crate::codec;
use crate::controls::export_bar::ExportBar;
use crate::controls::notices::Notices;
use crate::controls::number_field::NumberField;
use crate::controls::run_progress::{tracked, Progress, RunProgress};
use crate::controls::select_field::SelectField;
use crate::engine::{Client, Pool};
use crate::lazy::LazyArgs;

use super::params::LabParams;
use crate::controls::chart::box_width;
use commlab_api::exports;
use commlab_api::lab::{other_rule, LabPlan, UqRequest, UqResult};
use commlab_api::protocol::{Request, Response};
use commlab_core::barrier::experiment::{
    aggregate, delay_claims, points_csv, range_claim, uq_claim, Claim, Point, RunSummary, Verdict, DELAY_RATES,
    RANGE_ALGORITHMS,
};
use commlab_core::barrier::mesh::Routing;
use commlab_core::limits::lab as lim;
use commlab_plot::barrier::{delay_range, delay_vs_nodes};
use commlab_plot::{render_svg, Theme};
use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;

/// Runs per request to a pool worker: one run per message left the workers
/// idle between short runs (a round trip each); 4 keeps the tail short.
const LAB_BATCH: usize = 4;
/// Charts are redrawn at most this often while a sweep runs. The four
/// charts take ~0.3 s of main-thread time per redraw (plotters measures its
/// labels through the DOM), time the workers lose on a 2-core machine; once a
/// second cost the 2-worker sweep a fifth of its speed-up.
const PUBLISH_MS: f64 = 2500.0;

/// A sweep under way: results by index.
struct Job {
    results: Vec<Option<RunSummary>>,
    splits: [usize; 3],
    done: usize,
    started: f64,
    published: f64,
    generation: u64,
    publish_pending: bool,
}

/// The sweep's signals (all `Copy`).
#[derive(Clone, Copy)]
struct Sweep {
    pool: StoredValue<Option<Pool>, LocalStorage>,
    job: StoredValue<Option<Job>, LocalStorage>,
    generation: StoredValue<u64>,
    done: RwSignal<usize>,
    total: RwSignal<usize>,
    workers: RwSignal<usize>,
    running: RwSignal<bool>,
    elapsed_ms: RwSignal<f64>,
    delay: RwSignal<Vec<Point>>,
    range: RwSignal<Vec<Point>>,
    /// The claims' runs under the other routing rule: delay points, range points.
    other: RwSignal<(Vec<Point>, Vec<Point>)>,
    /// The charts' rule of the sweep on screen.
    rule: RwSignal<Routing>,
    error: RwSignal<Option<String>>,
}

impl Sweep {
    fn new() -> Sweep {
        Sweep {
            pool: StoredValue::new_local(None),
            job: StoredValue::new_local(None),
            generation: StoredValue::new(0),
            done: RwSignal::new(0),
            total: RwSignal::new(0),
            workers: RwSignal::new(0),
            running: RwSignal::new(false),
            elapsed_ms: RwSignal::new(0.0),
            delay: RwSignal::new(Vec::new()),
            range: RwSignal::new(Vec::new()),
            other: RwSignal::new((Vec::new(), Vec::new())),
            rule: RwSignal::new(Routing::Paper),
            error: RwSignal::new(None),
        }
    }

    /// The pool, started on first use (after the first paint).
    fn pool(self) -> Pool {
        if self.pool.with_value(Option::is_none) {
            self.pool.set_value(Some(Pool::new()));
        }
        self.pool.with_value(|p| p.clone().expect("set above"))
    }

    fn start(self, lab: LabParams) {
        let request = lab.sweep;
        let (count, splits) = match request.counts() {
            Ok(c) => c,
            Err(e) => {
                self.error.set(Some(e.to_string()));
                return;
            }
        };
        let generation = self.generation.get_value() + 1;
        self.generation.set_value(generation);
        let now = browser::now_ms();
        self.total.set(count);
        self.done.set(0);
        self.delay.set(Vec::new());
        self.range.set(Vec::new());
        self.other.set((Vec::new(), Vec::new()));
        self.rule.set(request.routing);
        self.error.set(None);
        self.running.set(true);
        self.job.set_value(Some(Job {
            results: vec![None; count],
            splits,
            done: 0,
            started: now,
            published: now,
            generation,
            publish_pending: false,
        }));
        let pool = self.pool();
        self.workers.set(pool.size());
        let job = Rc::new(move |first, count| Request::LabRuns { lab: request, first, count });
        let done = Rc::new(move |response| self.result(generation, response));
        pool.run(count, LAB_BATCH, job, done);
    }

    fn cancel(self) {
        self.generation.update_value(|g| *g += 1);
        self.pool.with_value(|p| {
            if let Some(p) = p {
                p.cancel();
            }
        });
        self.running.set(false);
        if let Some(job) = self.job.try_update_value(Option::take).flatten() {
            self.elapsed_ms.set(browser::now_ms() - job.started);
        }
    }

    /// Stores a batch's results; publishes progress, and the charts at most once a second.
    fn result(self, generation: u64, response: Response) {
        if self.generation.get_value() != generation {
            return;
        }
        let results = match response {
            Response::Lab(r) => r,
            Response::Error(e) => {
                self.error.set(Some(e.to_string()));
                return;
            }
            _ => return,
        };
        let mut finished = false;
        let mut schedule = false;
        self.job.update_value(|job| {
            let Some(job) = job.as_mut().filter(|j| j.generation == generation) else { return };
            for r in &results {
                let Some(summary) = r.summary() else { continue };
                if let Some(slot) = job.results.get_mut(r.index) {
                    if slot.replace(summary).is_none() {
                        job.done += 1;
                    }
                }
            }
            finished = job.done == job.results.len();
            if !job.publish_pending {
                job.publish_pending = true;
                schedule = true;
            }
        });
        let (done, elapsed) =
            self.job.with_value(|j| j.as_ref().map_or((0, 0.0), |j| (j.done, browser::now_ms() - j.started)));
        self.done.set(done);
        self.elapsed_ms.set(elapsed);
        if finished {
            self.publish(generation);
            self.running.set(false);
        } else if schedule {
            let wait = self
                .job
                .with_value(|j| j.as_ref().map_or(0.0, |j| (j.published + PUBLISH_MS - browser::now_ms()).max(0.0)));
            set_timeout(move || self.publish(generation), Duration::from_millis(wait as u64));
        }
    }

    /// Aggregates the results so far, in grid order, and updates the charts.
    fn publish(self, generation: u64) {
        let points = self.job.try_update_value(|job| {
            let job = job.as_mut().filter(|j| j.generation == generation)?;
            job.publish_pending = false;
            job.published = browser::now_ms();
            let [delay, range, other, other_range] = LabPlan::parts(job.splits, &job.results);
            let points = |r: &[Option<RunSummary>]| aggregate(&r.iter().flatten().copied().collect::<Vec<_>>());
            Some((points(delay), points(range), (points(other), points(other_range))))
        });
        if let Some(Some((delay, range, other))) = points {
            // Two tasks: each set redraws its charts.
            self.delay.set(delay);
            set_timeout(
                move || {
                    self.range.set(range);
                    self.other.set(other);
                },
                Duration::ZERO,
            );
        }
    }
}

/// The lab view.
#[component]
pub fn LabView(
    /// The link's pairs and the page's theme.
    args: LazyArgs,
) -> impl IntoView {
    let (start, notices) = args.read::<LabParams>();
    let lab = RwSignal::new(start);
    args.follow(lab, false);
    let dark = args.dark;
    let sweep = Sweep::new();
    on_cleanup(move || {
        sweep.cancel();
        sweep.pool.try_with_value(|p| p.as_ref().map(Pool::close));
    });
    let theme = move || Theme::of(dark.get());
    // Every chart is drawn for the results column's width, less its borders.
    let results = NodeRef::<leptos::html::Div>::new();
    let width = box_width(results, 902.0);
    let charts = Memo::new(move |_| {
        let points = sweep.delay.get();
        let (theme, w) = (theme(), width.get() as u32 - 2);
        DELAY_RATES
            .iter()
            .map(|&rate| {
                (!points.is_empty())
                    .then(|| render_svg(w, 500, |root| delay_vs_nodes(root, &points, rate, &theme)).ok())
                    .flatten()
            })
            .collect::<Vec<_>>()
    });
    let range_chart = Memo::new(move |_| {
        let points = sweep.range.get();
        let (theme, w) = (theme(), width.get() as u32 - 2);
        (!points.is_empty())
            .then(|| render_svg(w, 500, |root| delay_range(root, &points, &RANGE_ALGORITHMS, &theme)).ok())
            .flatten()
    });
    // Cheap: derived, not memoised (each memo type costs ~5 KB of wasm).
    let claims = Signal::derive(move || delay_claims(&sweep.delay.get()));
    let range_claim_memo = Signal::derive(move || range_claim(&sweep.range.get()));
    // The same claims under the other rule.
    let other_claims = Signal::derive(move || sweep.other.with(|o| delay_claims(&o.0)));
    let other_range_claim = Signal::derive(move || sweep.other.with(|o| range_claim(&o.1)));
    let rule = sweep.rule;

    let settings_name = move || {
        lab.with(|l| format!("s{}-max{}-b{}-{}", l.sweep.seeds, l.sweep.max_size, l.sweep.barriers, l.sweep.routing))
    };
    let delay_csv = Callback::new(move |()| points_csv(&sweep.delay.get_untracked()));
    let delay_json = Callback::new(move |()| exports::points_json(&sweep.delay.get_untracked()));
    let range_csv = Callback::new(move |()| points_csv(&sweep.range.get_untracked()));
    let range_json = Callback::new(move |()| exports::points_json(&sweep.range.get_untracked()));
    let rate_names = ["0 %", "10 %", "20 %"];
    view! {
        <Notices notices=notices />
        <section class="view lab-view" data-testid="lab-view" aria-labelledby="lab-title">
            <SweepControls lab=lab sweep=sweep />
            <div class="results" node_ref=results>
                {(0..DELAY_RATES.len()).map(|i| view! {
                    <article class="lab-chart" data-testid=format!("delay-chart-{i}")>
                        {move || match charts.with(|c| c[i].clone()) {
                            Some(svg) => view! { <div class="diagram" tabindex="0" inner_html=svg></div> }.into_any(),
                            None => view! { <p class="summary-note">{format!("Delay vs nodes at {} broken links: run the sweep.", rate_names[i])}</p> }.into_any(),
                        }}
                        <ClaimLine claim=Signal::derive(move || claims.with(|c| c[i].clone())) rule=rule
                            other=Signal::derive(move || Some(other_claims.with(|c| c[i].clone()))) />
                        <ExportBar name=Signal::derive(move || format!("commlab-lab-delay-{}-{}", rate_names[i].replace(" %", "pct"), settings_name()))
                            svg=Signal::derive(move || charts.with(|c| c[i].clone())) csv=delay_csv json=delay_json />
                    </article>
                }).collect_view()}
                <article class="lab-chart" data-testid="range-chart">
                    {move || match range_chart.get() {
                        Some(svg) => view! { <div class="diagram" tabindex="0" inner_html=svg></div> }.into_any(),
                        None => view! { <p class="summary-note">"Delay range over 0–50 % broken links: run the sweep."</p> }.into_any(),
                    }}
                    <ClaimLine claim=Signal::derive(move || range_claim_memo.get()) rule=rule
                        other=Signal::derive(move || Some(other_range_claim.get())) />
                    <ExportBar name=Signal::derive(move || format!("commlab-lab-range-{}", settings_name()))
                        svg=Signal::derive(move || range_chart.get()) csv=range_csv json=range_json />
                </article>
                <UqSection lab=lab dark=dark width=width rule=rule />
            </div>
        </section>
    }
}

/// The sweep's settings, its buttons and its progress.
#[component]
fn SweepControls(lab: RwSignal<LabParams>, sweep: Sweep) -> impl IntoView {
    let int = move |apply: fn(&mut LabParams, u64)| Callback::new(move |v: f64| lab.update(|l| apply(l, v as u64)));
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
            (true, _) => format!("Running: {done} of {total} runs on {}, {secs:.1} s", workers(sweep.workers.get())),
            (false, _) if done == total => {
                format!("Done: {total} runs in {secs:.1} s on {}", workers(sweep.workers.get()))
            }
            (false, _) => format!("Cancelled after {done} of {total} runs ({secs:.1} s)"),
        }
    };
    view! {
        <div class="controls" role="group" aria-label="Sweep settings">
            <h2 id="lab-title">"Barrier lab"</h2>
            <p class="hint">"The paper's experiments under the documented model: every algorithm, seeded breaks that keep the mesh connected, mean delay over the barriers, seeds averaged, min–max as whiskers."</p>
            <NumberField id="seeds" label="Seeds per point" integer=true range={codec::range::<LabParams>(lim::SEEDS.name)}
                value=Signal::derive(move || lab.with(|l| l.sweep.seeds as f64)) on_change=int(|l, v| l.sweep.seeds = v) />
            <NumberField id="max_size" label="Largest mesh side" integer=true range={codec::range::<LabParams>(lim::MAX_SIZE.name)}
                value=Signal::derive(move || lab.with(|l| l.sweep.max_size as f64)) on_change=int(|l, v| l.sweep.max_size = v) />
            <NumberField id="lab_barriers" label="Barriers per run" integer=true range={codec::range::<LabParams>(lim::BARRIERS.name)}
                value=Signal::derive(move || lab.with(|l| l.sweep.barriers as f64)) on_change=int(|l, v| l.sweep.barriers = v) />
            <SelectField id="lab_routing" label="Routing (charts)"
                options=Routing::ALL.iter().map(|r| (r.id(), r.label())).collect()
                value=Signal::derive(move || lab.with(|l| l.sweep.routing.id().to_owned()))
                on_change=Callback::new(move |id: String| lab.update(|l| l.sweep.routing = id.parse().unwrap_or_default())) />
            <p class="hint">"The charts use this rule; each claim below is also checked under the other rule (Tree, ID1 and ID2 run again)."</p>
            <NumberField id="uq_size" label="UQ mesh side" integer=true range={codec::range::<LabParams>(lim::UQ_SIZE.name)}
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
    }
}

/// The UQ experiment (16 × 16: 65 536 conversions), in a worker of its own:
/// its progress, histogram, claim and exports.
#[component]
fn UqSection(
    lab: RwSignal<LabParams>,
    dark: Memo<bool>,
    width: Signal<f64>,
    /// The charts' routing rule.
    rule: RwSignal<Routing>,
) -> impl IntoView {
    let theme = move || Theme::of(dark.get());
    let uq_client = StoredValue::new_local(Client::new());
    on_cleanup(move || {
        uq_client.try_with_value(Client::close);
    });
    let uq = RwSignal::new(None::<Result<UqResult, String>>);
    let uq_progress = RwSignal::new(Progress::Idle);
    let start_uq = move |size: u64| {
        uq.set(None);
        let handler = tracked(uq_progress, move |response| match response {
            Response::Uq(u) => uq.set(Some(Ok(u))),
            Response::Error(e) => uq.set(Some(Err(e.to_string()))),
            _ => {}
        });
        uq_client.with_value(|c| c.run(Request::Uq(UqRequest { size, encoding: None, links: None }), handler));
    };
    Effect::new(move |_| start_uq(lab.with(|l| l.uq_size)));
    let on_uq_cancel = Callback::new(move |()| {
        uq_client.with_value(Client::cancel);
        uq_progress.update(|p| *p = p.cancelled());
        uq.set(Some(Err("The UQ experiment was cancelled.".into())));
    });
    let on_uq_rerun = Callback::new(move |()| start_uq(lab.with_untracked(|l| l.uq_size)));
    // The experiment's histogram (it does not depend on the sweep).
    let uq_chart = Signal::derive(move || {
        let (theme, w) = (theme(), width.get() - 2.0);
        uq.with(|u| u.as_ref().and_then(|u| u.as_ref().ok()).map(|u| u.histogram(w, &theme)))
    });
    let uq_claim_memo = Signal::derive(move || {
        uq.with(|u| uq_claim(u.as_ref().and_then(|u| u.as_ref().ok()).map_or(&[][..], |u| u.lct_minus_bst.as_slice())))
    });
    let numberings = move || (lab.get_untracked().uq_size * lab.get_untracked().uq_size) as usize;
    let uq_csv = Callback::new(move |()| {
        uq.with_untracked(|u| match u {
            Some(Ok(u)) => exports::uq_csv(&u.lct, &u.bst, numberings()),
            _ => String::new(),
        })
    });
    let uq_json = Callback::new(move |()| {
        uq.with_untracked(|u| match u {
            Some(Ok(u)) => exports::uq_json(u),
            _ => String::new(),
        })
    });

    view! {
        <article class="lab-chart" data-testid="uq-chart">
            <RunProgress progress=uq_progress label="Computing the UQ" unit="link sets and rows of conversions"
                on_cancel=on_uq_cancel on_rerun=on_uq_rerun />
            {move || match uq.get() {
                Some(Ok(u)) => view! {
                    <p class="uq-means" data-testid="uq-means">{u.means_note}</p>
                    <div class="diagram" tabindex="0" inner_html=move || uq_chart.get().unwrap_or_default()></div>
                }.into_any(),
                Some(Err(e)) => view! { <p class="chart-error">{e}</p> }.into_any(),
                None => view! { <p class="summary-note" data-testid="uq-pending">"Computing UQ for every conversion in the engine worker…"</p> }.into_any(),
            }}
            <ClaimLine claim=Signal::derive(move || uq_claim_memo.get()) rule=rule other=Signal::derive(|| None) />
            <ExportBar name=Signal::derive(move || format!("commlab-lab-uq-{}", lab.with(|l| l.uq_size)))
                svg=Signal::derive(move || uq_chart.get()) csv=uq_csv json=uq_json />
        </article>
    }
}

/// "1 worker", "2 workers".
fn workers(n: usize) -> String {
    if n == 1 {
        "1 worker".to_owned()
    } else {
        format!("{n} workers")
    }
}

/// The paper's claim and our verdict, in one sentence each; with `other`,
/// the verdict under the other routing rule beside it.
#[component]
fn ClaimLine(
    #[prop(into)] claim: Signal<Claim>,
    /// The charts' routing rule.
    rule: RwSignal<Routing>,
    /// The same claim under the other rule (`None`: routing plays no part).
    #[prop(into)]
    other: Signal<Option<Claim>>,
) -> impl IntoView {
    let verdict = |c: &Claim| match c.verdict {
        Verdict::Agrees => ("agrees", "agrees"),
        Verdict::Disagrees => ("disagrees", "does not agree"),
        Verdict::WithinNoise => ("noise", "within noise"),
        Verdict::Pending => ("pending", ""),
    };
    move || {
        let c = claim.get();
        let (class, word) = verdict(&c);
        let named = |rule: Routing, word: &str| {
            if word.is_empty() {
                format!("Under routing={rule}: ")
            } else {
                format!("Under routing={rule} ({word}): ")
            }
        };
        let here = if other.with(Option::is_some) {
            named(rule.get(), word)
        } else if word.is_empty() {
            "Here: ".to_owned()
        } else {
            format!("Here ({word}): ")
        };
        let second = other.get().map(|o| {
            let (class, word) = verdict(&o);
            view! {
                <span class=format!("claim-other {class}") data-testid="claim-other">
                    <br /><strong>{named(other_rule(rule.get()), word)}</strong>{o.measured}
                </span>
            }
        });
        view! {
            <p class=format!("claim {class}") data-testid="claim">
                <strong>"Paper: "</strong>{c.paper}" "
                <strong>{here}</strong>{c.measured}
                {second}
            </p>
        }
    }
}

//! The Chooser's "Fit α and β to your measurements" section
//! (`docs/libraries.md`): a benchmark's output pasted, dropped or opened
//! (kept in this browser's `IndexedDB`, never uploaded), fitted in the
//! engine worker for one algorithm or each, shown as the fitted values with
//! their uncertainty, the measured points over the model's curve and the
//! residuals; one click runs the whole Chooser with them.

use super::params::ChooserParams;
use crate::controls::export_bar::ExportBar;
use crate::controls::file_source::{self, KeptFile};
use crate::controls::store;
use crate::engine::sim::{OnResponse, SimClient};
use commlab_api::fit::{FitRequest, FitResult};
use commlab_api::sim::{SimQuery, SimResponse};
use commlab_core::choose::{of, Collective};
use commlab_core::systems::Measure;
use commlab_plot::chooser::{algorithm_color, short_bytes, times_chart, Series};
use commlab_plot::{format_quantity as q, render_svg, Theme};
use leptos::prelude::*;
use std::rc::Rc;

/// Longest text accepted (about 10⁵ lines of nccl-tests output).
const MAX_TEXT: usize = commlab_core::limits::FIT_TEXT_BYTES as usize;

/// Longest text left in the text box. A box holding 10⁴ lines (1 MB) takes
/// the browser 0.65 s to lay out, and 0.15 s again whenever the page around
/// it changes width (BENCHMARKS.md); a longer text is read and fitted, and
/// the box says so instead of holding it.
const SHOWN_TEXT: usize = 128 << 10;

/// "10 001 lines (1.0 MB)".
fn extent(t: &str) -> String {
    format!("{} lines ({})", t.lines().count(), commlab_plot::format_bytes(t.len() as u64))
}

/// A residual relative to the measurement, `+1.8 %` (never `-0.0 %`).
fn relative(residual: f64, measured: f64) -> String {
    let percent = residual / measured * 100.0;
    if percent.abs() < 0.05 {
        "0.0 %".to_owned()
    } else {
        format!("{percent:+.1} %")
    }
}

/// Points drawn at most: a denser file is thinned evenly by size for the
/// picture (the fit and the residual export use every point).
pub const DRAWN: usize = 400;

/// Residual rows listed at most (the points fitted worst; a table of 10⁴
/// rows would cost the page more than the fit itself).
const LISTED: usize = 40;

/// The fitted curve with the measured points on it (at most [`DRAWN`]), in
/// the Chooser's measure where the times are in µs (algbw and busbw in
/// nccl-tests' terms), in time otherwise.
fn chart(fit: &FitResult, (width, dark, measure): (f64, bool, Measure)) -> Option<String> {
    let collective: Collective = fit.collective.parse().ok()?;
    let mut points: Vec<(u64, f64, f64)> = fit.points.iter().zip(&fit.predicted).map(|(p, m)| (p.0, p.1, *m)).collect();
    points.sort_by_key(|p| p.0);
    if points.len() > DRAWN {
        let step = points.len().div_ceil(DRAWN);
        let last = points[points.len() - 1];
        points = points.into_iter().step_by(step).collect();
        if points.last() != Some(&last) {
            points.push(last);
        }
    }
    let sizes: Vec<u64> = points.iter().map(|p| p.0).collect();
    let k = of(collective).position(|a| a.id == fit.algorithm).unwrap_or(0);
    let series = vec![Series {
        name: format!("{} with the fitted α, β", fit.algorithm),
        color: algorithm_color(k),
        times: points.iter().map(|p| p.2).collect(),
        simulated: points.iter().map(|p| Some(p.1)).collect(),
        dashed: false,
    }];
    let theme = Theme::of(dark);
    let caption = format!("{} on p = {}: measured ({}) and the fitted model", fit.collective, fit.p, fit.format);
    let micros = fit.unit == commlab_api::fit::TimeUnit::Micros;
    let measure = if micros { measure } else { Measure::Time };
    let unit = match measure {
        Measure::Time => format!("time ({})", if micros { "µs" } else { "file's unit" }),
        m => m.axis().to_owned(),
    };
    let mut series = series;
    if measure != Measure::Time {
        // µs to ns, then the measure of each size.
        let of = |b: u64, t: f64| measure.of(collective, fit.p, b, t * 1000.0);
        for s in &mut series {
            s.times = sizes.iter().zip(&s.times).map(|(&b, &t)| of(b, t)).collect();
            s.simulated = sizes.iter().zip(&s.simulated).map(|(&b, t)| t.map(|t| of(b, t))).collect();
        }
    }
    render_svg(width as u32, 380, |root| times_chart(root, [&caption, &unit, "measured"], &sizes, &series, &[], &theme))
        .ok()
}

/// The residuals (the points fitted worst) and every algorithm's fit: drawn
/// in the task after the values and the chart.
fn residual_tables(f: &FitResult) -> impl IntoView + use<> {
    let unit = f.unit;
    view! {
            <div class="table-scroll" tabindex="0"><table class="numbers stack" data-testid="fit-residuals"
                style=crate::controls::stack::stack_labels(&["size", "measured", "model", "residual", "relative"])>
                <caption>{if f.points.len() > LISTED {
                    format!("Residuals: measured − model ({unit}), the {LISTED} points fitted worst of {}", f.points.len())
                } else {
                    format!("Residuals: measured − model ({unit})")
                }}</caption>
                <thead><tr><th scope="col">"size"</th><th scope="col">"measured"</th><th scope="col">"model"</th><th scope="col">"residual"</th><th scope="col">"relative"</th></tr></thead>
                <tbody>{
                    let outliers = f.outliers();
                    f.worst(LISTED).into_iter().map(|i| (outliers.contains(&i), f.points[i], f.predicted[i], f.residuals[i])).map(|(out, p, m, r)| view! { <tr class:outlier=out>
                        <td>{short_bytes(p.0)}</td><td>{q(p.1)}</td><td>{q(m)}</td><td>{q(r)}</td><td>{relative(r, p.1)}{out.then_some(" outlier")}</td>
                    </tr> }).collect_view()
                }</tbody>
            </table></div>
            {(f.points.len() > LISTED).then(|| view! { <p class="field-note">{format!("{LISTED} of {} points listed, in the file's order; the CSV and JSON exports above have them all.", f.points.len())}</p> })}
            <div class="table-scroll" tabindex="0"><table class="numbers stack" data-testid="fit-candidates"
                style=crate::controls::stack::stack_labels(&["algorithm", "α", "β", "rms relative residual"])>
                <caption>"Every algorithm fitted, best first (their bytes grow alike, so α tells them apart only through the message count)"</caption>
                <thead><tr><th scope="col">"algorithm"</th><th scope="col">"α"</th><th scope="col">"β"</th><th scope="col">"rms relative residual"</th></tr></thead>
                <tbody>{f.candidates.iter().map(|c| view! { <tr>
                    <td>{c.algorithm.clone()}</td><td>{format!("{} ± {}", q(c.params[0]), q(c.errors[0]))}</td>
                    <td>{format!("{} ± {}", q(c.params[1]), q(c.errors[1]))}</td><td>{format!("{:.2} %", c.rms * 100.0)}</td>
                </tr> }).collect_view()}</tbody>
            </table></div>
    }
}

/// The text to fit: pasted, opened, dropped or restored, and what the box
/// shows of it.
#[derive(Clone, Copy)]
struct FitInput {
    params: RwSignal<ChooserParams>,
    text: RwSignal<String>,
    /// What the text box shows when a file is opened or restored (not set
    /// back from what was typed: a 10⁴-line value laid out again costs tens
    /// of ms).
    display: RwSignal<String>,
    area: NodeRef<leptos::html::Textarea>,
    /// A text too long for the box: what it was ("pasted: 10 001 lines (1.0 MB)").
    hidden: RwSignal<Option<String>>,
    name: RwSignal<String>,
    kept: KeptFile,
    error: RwSignal<String>,
    /// Opened by a file arriving, closed only by the reader.
    opened: RwSignal<bool>,
}

impl FitInput {
    fn new(params: RwSignal<ChooserParams>) -> FitInput {
        let input = FitInput {
            params,
            text: RwSignal::new(String::new()),
            display: RwSignal::new(String::new()),
            area: NodeRef::new(),
            hidden: RwSignal::new(None),
            name: RwSignal::new(String::from("pasted text")),
            kept: KeptFile::new(store::BENCHMARK),
            error: RwSignal::new(String::new()),
            opened: RwSignal::new(false),
        };
        // A file kept from an earlier visit comes back.
        input.kept.restore(
            move |n, t| {
                input.opened.set(true);
                input.show(&n, &t);
                input.name.set(n);
                input.text.set(t);
            },
            |_| {},
        );
        input
    }

    /// What the box shows of a file opened, restored or pasted.
    fn show(self, n: &str, t: &str) {
        if t.len() > SHOWN_TEXT {
            self.display.set(String::new());
            self.hidden.set(Some(format!("{n}: {}", extent(t))));
        } else {
            self.hidden.set(None);
        }
    }

    /// Fits `t` (named `n`) and keeps it.
    fn take(self, n: String, t: String) {
        if t.len() > MAX_TEXT {
            self.error.set(format!("{n} has {} bytes; at most {} are read", t.len(), MAX_TEXT));
            return;
        }
        if t.len() > SHOWN_TEXT {
            // The box keeps only short texts (a long paste never enters it).
            if let Some(a) = self.area.get_untracked().filter(|a| !a.value().is_empty()) {
                a.set_value("");
            }
        }
        self.show(&n, &t);
        // A new file starts from its first run (a run chosen in another file may not be in it).
        if self.params.with_untracked(|c| c.fit_run != 0) {
            self.params.update(|c| c.fit_run = 0);
        }
        self.name.set(n.clone());
        self.text.set(t.clone());
        self.opened.set(true);
        self.kept.keep(n, Rc::new(t));
    }

    /// Reads an opened or dropped file.
    fn open(self, f: web_sys::File) {
        file_source::read(f, move |n, t| match t {
            Ok(t) => {
                if t.len() <= SHOWN_TEXT {
                    self.display.set(t.clone());
                }
                self.take(n, t);
            }
            Err(e) => self.error.set(format!("{n}: {e}")),
        });
    }

    fn forget(self) {
        let (text, display, hidden) = (self.text, self.display, self.hidden);
        self.kept.forget(move || {
            text.set(String::new());
            display.set(String::new());
            hidden.set(None);
        });
    }

    /// The request the text and the Chooser's state make (none for an empty text).
    fn request(self) -> Option<FitRequest> {
        let t = self.text.get();
        (!t.trim().is_empty()).then(|| {
            self.params.with(|c| FitRequest {
                text: t,
                format: Some(c.fit_format.clone()).filter(|f| !f.is_empty()),
                collective: c.compare.collective.id().to_owned(),
                p: c.compare.p,
                algorithm: Some(c.fit_algorithm.clone())
                    .filter(|a| !a.is_empty() && of(c.compare.collective).any(|x| x.id == *a)),
                in_place: c.fit_in_place,
                gamma: c.compare.abg[2],
                run: (c.fit_run > 0).then_some(c.fit_run),
                // The page's p: the file's own ranks win over it, with a notice.
                p_from: commlab_api::fit::PFrom::Page,
                // One library ticked above: the advice names its algorithms.
                library: match c.libraries {
                    [true, false, false] => Some("mpich".to_owned()),
                    [false, true, false] => Some("ompi".to_owned()),
                    [false, false, true] => Some("nccl".to_owned()),
                    _ => None,
                },
            })
        })
    }
}

/// The fit in the engine worker: its result, and how long it took.
#[derive(Clone, Copy)]
struct Fitting {
    input: FitInput,
    result: RwSignal<Option<Rc<FitResult>>, LocalStorage>,
    busy: RwSignal<bool>,
    took: RwSignal<f64>,
    /// The tables of a new result wait for the frame that shows its chart.
    tables: RwSignal<bool>,
    /// The fit's own worker, started when the section first opens or a file
    /// arrives (a Chooser visit that never fits starts none).
    worker: StoredValue<Option<SimClient>, LocalStorage>,
    warmed: StoredValue<bool>,
}

impl Fitting {
    fn new(input: FitInput) -> Fitting {
        let fitting = Fitting {
            input,
            result: RwSignal::new_local(None),
            busy: RwSignal::new(false),
            took: RwSignal::new(0.0),
            tables: RwSignal::new(false),
            worker: StoredValue::new_local(None),
            warmed: StoredValue::new(false),
        };
        let request = Memo::new(move |_| input.request());
        Effect::new(move |_| fitting.fit(request.get()));
        Effect::new(move |_| {
            if input.opened.get() {
                fitting.warm();
            }
        });
        fitting
    }

    fn client(self) -> Option<SimClient> {
        if self.worker.with_value(Option::is_none) {
            self.worker.set_value(Some(SimClient::new()));
        }
        self.worker.get_value()
    }

    fn on_page(self) -> bool {
        self.worker.with_value(|w| w.as_ref().is_some_and(SimClient::on_page))
    }

    fn fit(self, request: Option<FitRequest>) {
        let (result, error, busy, tables) = (self.result, self.input.error, self.busy, self.tables);
        let Some(r) = request else {
            result.set(None);
            error.set(String::new());
            return;
        };
        busy.set(true);
        let (started, took, name) = (crate::browser::now_ms(), self.took, self.input.name);
        let handler: OnResponse = Rc::new(move |resp, _| match resp {
            SimResponse::Fitted(f) => {
                took.set(crate::browser::now_ms() - started);
                result.set(Some(Rc::new(f)));
                tables.set(false);
                request_animation_frame(move || {
                    set_timeout(move || tables.set(true), std::time::Duration::ZERO);
                });
                error.set(String::new());
                busy.set(false);
            }
            SimResponse::Error(e) => {
                result.set(None);
                // The text's problems name what it came from: "pasted text" or the file's name.
                error.set(if e.field == "file" {
                    format!("{}: {}", name.get_untracked(), e.expected)
                } else {
                    e.to_string()
                });
                busy.set(false);
            }
            _ => {}
        });
        self.warmed.set_value(true);
        if let Some(c) = self.client() {
            c.send(SimQuery::Fit(r), handler);
        }
    }

    /// Opened with nothing to fit yet: the worker fits a synthetic file a few
    /// times, so the first real one runs in optimized code (a fresh worker's
    /// first run is in V8's baseline tier, about twice as slow; BENCHMARKS.md).
    fn warm(self) {
        if self.warmed.get_value() || !self.input.text.with_untracked(String::is_empty) {
            return;
        }
        self.warmed.set_value(true);
        let (collective, p) = self.input.params.with_untracked(|c| (c.compare.collective.id().to_owned(), c.compare.p));
        // Only a worker is warmed: on the page (no workers) it would only
        // hold the page up.
        if let Some(c) = self.client().filter(|c| !c.on_page()) {
            c.send(SimQuery::WarmFit { collective, p }, Rc::new(|_, _| {}));
        }
    }
}

/// The file input and the paste box.
#[component]
fn FitFileFields(input: FitInput) -> impl IntoView {
    let on_drop = file_source::on_drop(move |f| input.open(f));
    let hidden = input.hidden;
    view! {
        <div class="field file-field" on:dragover=|ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
            <label for="bench-file">"Open a benchmark output (or drop it here)"</label>
            <input id="bench-file" type="file" accept=".txt,.log,.csv,.out,.gz" data-testid="bench-file" on:change=file_source::on_pick(move |f| input.open(f)) />
        </div>
        <div class="field paste-field" on:dragover=|ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
            <label for="bench-text">"Or paste it"</label>
            <textarea id="bench-text" rows="5" spellcheck="false" data-testid="bench-text" node_ref=input.area
                aria-describedby="bench-hidden"
                placeholder=move || hidden.get().map(|h| format!("{h}, read and fitted below. Paste or open another to replace it."))
                prop:value=move || input.display.get()
                on:paste=move |ev: web_sys::ClipboardEvent| {
                    // A long paste is read from the clipboard event and never
                    // inserted: laying out 10⁴ lines in the box costs the
                    // browser over half a second (BENCHMARKS.md).
                    if let Some(t) = crate::browser::pasted_text(&ev).filter(|t| t.len() > SHOWN_TEXT) {
                        ev.prevent_default();
                        input.take("pasted text".into(), t);
                    }
                }
                on:input=move |ev| {
                    // A short paste is fitted at once; typing waits for the change.
                    if js_sys::Reflect::get(&ev, &"inputType".into()).ok().and_then(|v| v.as_string()).as_deref() == Some("insertFromPaste") {
                        input.take("pasted text".into(), event_target_value(&ev));
                    }
                }
                on:change=move |ev| input.take("pasted text".into(), event_target_value(&ev))></textarea>
            <p class="field-note" id="bench-hidden" data-testid="bench-hidden">{move || hidden.get().map(|h| format!("{h}: too long to show in the box, every line read."))}</p>
        </div>
    }
}

/// The format, the algorithm fitted and in-place times.
#[component]
fn FitOptions(params: RwSignal<ChooserParams>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="bench-format">"Format"</label>
            <select id="bench-format" data-testid="bench-format" on:change=move |ev| { let v = event_target_value(&ev); params.update(|c| c.fit_format = v); }>
                {super::params::FIT_FORMATS.iter().zip(["detect", "nccl-tests", "OSU", "CSV: size, time"]).map(|(&id, label)| view! {
                    <option value=id selected=move || params.with(|c| c.fit_format == id)>{label}</option>
                }).collect_view()}
            </select>
            <label for="bench-algorithm">"Algorithm"</label>
            <select id="bench-algorithm" data-testid="bench-algorithm" on:change=move |ev| { let v = event_target_value(&ev); params.update(|c| c.fit_algorithm = v); }>
                <option value="" selected=move || params.with(|c| c.fit_algorithm.is_empty())>"the best fit"</option>
                {move || of(params.with(|c| c.compare.collective)).map(|a| view! { <option value=a.id selected=move || params.with(|c| c.fit_algorithm == a.id)>{a.id}</option> }).collect_view()}
            </select>
            <label class="check"><input type="checkbox" data-testid="bench-in-place" prop:checked=move || params.with(|c| c.fit_in_place)
                on:change=move |ev| { let on = event_target_checked(&ev); params.update(|c| c.fit_in_place = on); } />" in-place times (nccl-tests)"</label>
        </div>
    }
}

/// "α = … ± …, β = … ± … (1/β = … GB/s) …".
fn fit_values(f: &FitResult) -> String {
    let unit = &f.unit;
    format!(
        "{}: α = {} ± {} {unit} per message, β = {} ± {} {unit} per byte{}{} ({} points, {} for p = {}; rms relative residual {:.1} %).",
        f.algorithm, q(f.alpha), q(f.alpha_err), q(f.beta), q(f.beta_err),
        f.beta_gbps().map_or(String::new(), |g| format!(" (1/β = {} GB/s)", q(g))),
        if f.gamma > 0.0 { format!(", γ = {} held", q(f.gamma)) } else { String::new() },
        f.points.len(), f.format, f.p, f.candidates.first().map_or(0.0, |c| c.rms) * 100.0
    )
}

/// The runs of a file holding several, and which one is fitted.
fn run_select(f: &FitResult, params: RwSignal<ChooserParams>) -> impl IntoView + use<> {
    (f.runs.len() > 1).then(|| {
        let spans: Vec<String> = f.runs.iter().enumerate().map(|(i, (a, b))| format!("{}: lines {a}–{b}", i + 1)).collect();
        view! {
            <div class="field" data-testid="fit-runs">
                <label for="fit-run">{format!("This file holds {} runs one after another ({}); the fit reads run", f.runs.len(), spans.join("; "))}</label>
                <select id="fit-run" data-testid="fit-run" on:change=move |ev| {
                    if let Ok(k) = event_target_value(&ev).parse::<u32>() { params.update(|c| c.fit_run = k); }
                }>
                    {(1..=f.runs.len() as u32).map(|k| view! { <option value=k.to_string() selected=k == f.run>{format!("run {k}")}</option> }).collect_view()}
                </select>
            </div>
        }
    })
}

/// A fit's values, ties, summary, chart, exports and tables.
#[component]
fn FitShown(fitting: Fitting, f: Rc<FitResult>, dark: Signal<bool>) -> impl IntoView {
    let (params, result, took) = (fitting.input.params, fitting.result, fitting.took);
    let use_fit = move |_| {
        if let Some(f) = result.get_untracked() {
            params.update(|c| {
                c.compare.abg = [f.alpha, f.beta, f.gamma];
                // The run's own p (the fit's, which may be the file's over the page's).
                c.compare.p = f.p;
                "custom".clone_into(&mut c.preset);
            });
        }
    };
    let figure = NodeRef::<leptos::html::Figure>::new();
    let width = crate::controls::chart::box_width(figure, 900.0);
    let svg = Memo::new(move |_| {
        let measure = params.with(|c| c.y);
        result.get().and_then(|f| chart(&f, (width.get(), dark.get(), measure)))
    });
    let place = move || if fitting.on_page() { "on this page (no worker could start)" } else { "in the engine worker" };
    view! {
        <div data-testid="fit-result">
            {f.p_note.clone().map(|note| view! { <p class="notice" role="status" data-testid="fit-p-note">{note}"."</p> })}
            <p class="fit-values" data-testid="fit-values">{fit_values(&f)}</p>
            {(f.zero_rows > 0).then(|| view! {
                <p data-testid="fit-zero-rows">{format!("{} of size 0 skipped (sizes below the type's width, as rccl-tests prints them).", commlab_plot::count(f.zero_rows as u64, "row", "rows"))}</p>
            })}
            {run_select(&f, params)}
            {(f.tied().len() > 1).then(|| view! {
                <p data-testid="fit-tied">{format!(
                    "These {} fit equally well: {}. They all cost a·α + b·n·β, so one curve cannot tell them apart; the values above are {}'s.",
                    f.tied().len(), f.tied().join(", "), f.algorithm
                )}</p>
            })}
            <p data-testid="fit-summary">{f.summary.clone()}" "
                <button type="button" data-testid="fit-use" on:click=use_fit>"Run the Chooser with these"</button></p>
            <p class="timing" data-testid="fit-timing">{move || format!("Read and fitted in {:.0} ms {}.", took.get(), place())}</p>
            <figure node_ref=figure class="chart" data-testid="fit-chart" role="img" aria-label="Measured times and the fitted model's curve">
                <div class="chart-svg" inner_html=move || svg.get().unwrap_or_default()></div>
            </figure>
            {(f.points.len() > DRAWN).then(|| view! { <p class="field-note">{format!("{DRAWN} of the {} points drawn, evenly by size; every point is fitted.", f.points.len())}</p> })}
            <ExportBar name=format!("commlab-fit-{}-p{}", f.collective, f.p) svg=Signal::derive(move || svg.get())
                csv=Callback::new(move |()| result.with_untracked(|r| r.as_deref().map(commlab_api::exports::fit_csv).unwrap_or_default()))
                json=Callback::new(move |()| result.with_untracked(|r| r.as_ref().map(|r| r.to_json().pretty()).unwrap_or_default())) />
            <super::sysfit::SystemFitPanel params=params result=result client=Callback::new(move |()| fitting.client()) />
            {move || fitting.tables.get().then(|| result.with_untracked(|r| r.as_deref().map(residual_tables)))}
        </div>
    }
}

/// The section.
#[component]
pub fn FitSection(
    /// The Chooser's state (its collective, p and γ are the fit's).
    params: RwSignal<ChooserParams>,
    /// Dark theme.
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let input = FitInput::new(params);
    let fitting = Fitting::new(input);
    let (text, kept, error, opened) = (input.text, input.kept.note, input.error, input.opened);
    view! {
        <details class="section" data-testid="fit" prop:open=move || opened.get()
            on:toggle=move |ev| opened.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
            <summary><h3>"Fit α and β to your measurements"</h3></summary>
            <p class="field-note">"Paste, drop or open the output of nccl-tests (all_reduce_perf and friends), of the OSU micro-benchmarks (osu_allreduce and friends) or a CSV of size and time. It is fitted for the collective and p above; the file stays in this browser."</p>
            <FitFileFields input=input />
            <FitOptions params=params />
            <p class="field-note" data-testid="bench-kept">{move || kept.get()}
                {move || (!text.with(String::is_empty)).then(|| view! { " " <button type="button" data-testid="bench-forget" on:click=move |_| input.forget()>"Forget the file"</button> })}</p>
            {move || (!error.with(String::is_empty)).then(|| view! { <p class="chart-error" role="alert" data-testid="fit-error">{move || error.get()}</p> })}
            {move || fitting.busy.get().then(|| view! { <p class="timing" role="status">"Fitting in the engine worker…"</p> })}
            {move || fitting.result.get().map(|f| view! { <FitShown fitting=fitting f=f dark=dark /> })}
        </details>
    }
}

//! The Chooser's "What the libraries run" section (`docs/libraries.md`):
//! MPICH's, Open MPI's and NCCL's default picks beside the model's winner
//! at every size (a band above the chart, a table, the disagreements in
//! words) and the winner map written as each library's tuner file. The
//! picks are pure core calls, microseconds a size, so they are computed
//! here on the page.

use super::params::{ChooserParams, LIBRARIES, NCCL_TEXT};
use crate::browser;
use crate::engine::sim::{OnResponse, SimClient};
use commlab_api::chooser::ChooseResult;
use commlab_api::libraries::{band, disagreement_notes, picks, table, versions, Picks};
use commlab_api::sim::{SimQuery, SimResponse};
use commlab_plot::chooser::library_band_svg;
use commlab_plot::Theme;
use leptos::prelude::*;
use std::rc::Rc;

/// The picks at every size of the chart, or why there are none.
pub type Shown = Option<Result<Vec<Picks>, String>>;

/// The picks of `result`'s sizes under `params`' libraries.
pub fn compute(params: &ChooserParams, result: &ChooseResult) -> Shown {
    let request = params.library_request()?;
    let sizes: Vec<u64> = result.rows.iter().map(|r| r.bytes).collect();
    Some(picks(&result.collective, result.p, &sizes, &request).map_err(|e| e.to_string()))
}

/// The band above the chart: one row per library.
pub fn band_svg(result: &ChooseResult, picks: &[Picks], (width, dark): (f64, bool)) -> Option<String> {
    let (caption, rows) = band(result, picks)?;
    let sizes: Vec<u64> = result.rows.iter().map(|r| r.bytes).collect();
    Some(library_band_svg(&caption, &sizes, &rows, width, &Theme::of(dark)))
}

/// Writes NCCL's tuner file: NCCL's algorithms simulated on the system
/// described (by `checker`), NCCL's choice kept wherever none beats it by 5 %.
fn save_nccl(
    params: RwSignal<ChooserParams>,
    result: Option<Rc<ChooseResult>>,
    checker: StoredValue<SimClient, LocalStorage>,
    note: RwSignal<String>,
) {
    let Some(r) = result else {
        note.set("The comparison is not ready yet.".into());
        return;
    };
    let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
    // Under the NCCL release the page shows (the System carries it).
    let system = params.with_untracked(ChooserParams::system);
    let plan = match commlab_api::nccl_tuner::TunerPlan::on_page(system.as_ref(), r.p, &r.collective, &sizes) {
        Ok(plan) => Rc::new(plan),
        Err(e) => {
            note.set(e);
            return;
        }
    };
    let what = format!("Simulating NCCL's algorithms on {} × {}", plan.system.nodes, plan.system.preset.id);
    note.set(format!("{what}…"));
    let planned = plan.planned();
    let handler: OnResponse = Rc::new(move |response, _| match response {
        SimResponse::Progress { done, total, .. } => note.set(format!("{what}: {done} of {total} runs done…")),
        SimResponse::Expected(rows) => {
            let times: Vec<f64> = rows.iter().map(|e| e.time_ns / 1000.0).collect();
            match plan.file(&times) {
                Ok(advice) => {
                    let lines = advice.bands.iter().filter(|b| b.write.is_some()).count();
                    let saved = format!(
                        "Saved {}: {} where one of NCCL's algorithms simulates 5 % or more faster than its own pick; everywhere else NCCL keeps its choice (each band's reason is a comment in the file).",
                        advice.file_name,
                        commlab_plot::count(lines as u64, "line", "lines")
                    );
                    note.set(
                        browser::download_text(&advice.file_name, "text/plain", &advice.text).err().unwrap_or(saved),
                    );
                }
                Err(e) => note.set(e.to_string()),
            }
        }
        SimResponse::Error(e) => note.set(e.to_string()),
        _ => {}
    });
    checker.get_value().send(SimQuery::Predict(planned), handler);
}

/// Writes Open MPI's or MPICH's file (`fmt`): the winner map over the
/// library's own algorithms, mapped by a worker of the export's own (the
/// shown map's worker keeps the shown map).
fn save_mpi(
    params: RwSignal<ChooserParams>,
    exporter: StoredValue<Option<SimClient>, LocalStorage>,
    note: RwSignal<String>,
    fmt: String,
) {
    let asked = params.with_untracked(ChooserParams::map_request);
    let algorithms = match commlab_api::libraries::export_algorithms(&fmt, &asked.collective, &asked.algorithms) {
        Ok(a) => a,
        Err(e) => {
            note.set(e.to_string());
            return;
        }
    };
    let request = commlab_api::chooser::MapRequest { algorithms, ..asked };
    let (collective, libraries) = params.with_untracked(|c| {
        let r = c.library_request().unwrap_or_default();
        (
            c.compare.collective.id().to_owned(),
            commlab_api::libraries::LibraryRequest { nccl: Some(c.nccl_system()), ..r },
        )
    });
    note.set("Mapping the library's own algorithms for its file…".into());
    let handler: OnResponse = Rc::new(move |response, _| match response {
        SimResponse::Map(m) => match commlab_api::libraries::export(&m, &collective, &fmt, &libraries) {
            Ok(file) => {
                let saved = format!(
                    "Saved {}: the fastest of the library's own algorithms in each band, with the reason beside it; outside the map's sizes and p the library decides.",
                    file.file_name
                );
                note.set(browser::download_text(&file.file_name, "text/plain", &file.text).err().unwrap_or(saved));
            }
            Err(e) => note.set(e.to_string()),
        },
        SimResponse::Error(e) => note.set(e.to_string()),
        _ => {}
    });
    if exporter.with_value(Option::is_none) {
        exporter.set_value(Some(SimClient::new()));
    }
    if let Some(c) = exporter.get_value() {
        c.send(SimQuery::Map(request), handler);
    }
}

/// The winner map as a tuner file: the format and Save.
#[component]
fn TunerExport(
    params: RwSignal<ChooserParams>,
    result: Signal<Option<Rc<ChooseResult>>, LocalStorage>,
    checker: StoredValue<SimClient, LocalStorage>,
) -> impl IntoView {
    let note = RwSignal::new(String::new());
    let format = RwSignal::new("ompi-rules".to_owned());
    let exporter = StoredValue::new_local(None::<SimClient>);
    let save = move |_| {
        let fmt = format.get_untracked();
        if fmt == "nccl-tuner" {
            save_nccl(params, result.get_untracked(), checker, note);
        } else {
            save_mpi(params, exporter, note, fmt);
        }
    };
    view! {
        <h4>"The winner map as a tuner file"</h4>
        <div class="field">
            <label for="tuner-format">"Format"</label>
            <select id="tuner-format" data-testid="tuner-format" on:change=move |ev| format.set(event_target_value(&ev))>
                <option value="ompi-rules" selected=true>"Open MPI dynamic rules (coll_tuned_dynamic_rules_filename)"</option>
                <option value="mpich-json">"MPICH JSON selection (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)"</option>
                <option value="nccl-tuner">"NCCL example tuner CSV (NCCL_TUNER_CONFIG_FILE), from a System's simulation"</option>
            </select>
            <button type="button" data-testid="tuner-save" on:click=save>"Save the file"</button>
        </div>
        <p class="field-note" data-testid="tuner-note" aria-live="polite">{move || note.get()}</p>
    }
}

/// The model's winner and each library's pick, size by size.
#[component]
fn PicksTable(result: Signal<Option<Rc<ChooseResult>>, LocalStorage>, shown: Signal<Shown>) -> impl IntoView {
    move || {
        let r = result.get()?;
        let Some(Ok(picks)) = shown.get() else { return None };
        let (heads, rows) = table(&r, &picks);
        Some(view! {
            <div class="table-scroll" tabindex="0"><table class="numbers picks stack" data-testid="library-table" style=crate::controls::stack::stack_labels(&heads)>
                <caption>"Ours fastest and what each library runs (✓: the same schedule)"</caption>
                <thead><tr>{heads.iter().map(|h| view! { <th scope="col">{*h}</th> }).collect_view()}</tr></thead>
                <tbody>{rows.into_iter().map(|row| view! { <tr>{row.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}</tr> }).collect_view()}</tbody>
            </table></div>
        })
    }
}

/// Where a library and the model disagree, in words.
#[component]
fn PickSentences(result: Signal<Option<Rc<ChooseResult>>, LocalStorage>, shown: Signal<Shown>) -> impl IntoView {
    move || {
        let r = result.get()?;
        let Some(Ok(picks)) = shown.get() else { return None };
        Some(view! {
            <ul class="library-notes" data-testid="library-notes">
                {disagreement_notes(&r, &picks).into_iter().map(|s| view! { <li>{s}</li> }).collect_view()}
            </ul>
        })
    }
}

/// The library switches, NCCL's system and the element size.
#[component]
fn LibraryControls(params: RwSignal<ChooserParams>) -> impl IntoView {
    let toggle = move |k: usize| {
        move |ev: web_sys::Event| {
            let on = event_target_checked(&ev);
            params.update(|c| c.libraries[k] = on);
        }
    };
    let nccl_text = RwSignal::new(params.get_untracked().nccl);
    let on_system = move || params.with(|c| c.system().is_some());
    let range = commlab_core::limits::chooser::DTYPE_SIZE;
    let set_dtype = move |text: &str| {
        if let Ok(v) = text.parse::<u32>() {
            if range.contains(u64::from(v)) {
                params.update(|c| c.dtype_size = v);
            }
        }
    };
    view! {
        <div class="library-switches" role="group" aria-label="Libraries">
            {LIBRARIES.iter().enumerate().map(|(k, &(id, label))| view! {
                <label class="check"><input type="checkbox" data-testid=format!("lib-{id}")
                    prop:checked=move || params.with(|c| c.libraries[k]) on:change=toggle(k) />" "{label}</label>
            }).collect_view()}
        </div>
        <div class="field">
            <label for="nccl-system">"NCCL's system"</label>
            <input id="nccl-system" data-testid="nccl-system" type="text" maxlength=NCCL_TEXT.to_string()
                placeholder="e.g. version=2.22,nodes=2,gpus=8,arch=hopper,channels=16,bw-inter=25"
                readonly=on_system
                prop:value=move || if on_system() { params.with(ChooserParams::nccl_system) } else { nccl_text.get() }
                on:input=move |ev| nccl_text.set(event_target_value(&ev))
                on:change=move |ev| { let v = event_target_value(&ev); params.update(|c| c.nccl = v); } />
        </div>
        {move || on_system().then(|| view! { <p class="field-note" data-testid="nccl-system-note">"It follows the System above (its nodes and NCCL version); pick \"custom\" there to describe another."</p> })}
        <details class="field-note" data-testid="nccl-keys"><summary>"Keys of NCCL's system and their defaults"</summary>
            <ul>{commlab_core::libraries::nccl::KEYS.iter().map(|(k, d)| view! { <li><code>{*k}</code>": "{*d}</li> }).collect_view()}</ul>
        </details>
        <div class="field">
            <label for="dtype-size">"Bytes per element"</label>
            <input id="dtype-size" data-testid="dtype-size" type="number" min=range.min.to_string() max=range.max.to_string()
                prop:value=move || params.with(|c| c.dtype_size.to_string())
                on:change=move |ev| set_dtype(&event_target_value(&ev)) />
        </div>
    }
}

/// The section: the library switches, NCCL's system, the table, the
/// disagreements and the tuner files.
#[component]
pub fn LibrariesSection(
    /// The Chooser's state.
    params: RwSignal<ChooserParams>,
    /// The comparison shown.
    result: Signal<Option<Rc<ChooseResult>>, LocalStorage>,
    /// The picks at its sizes.
    #[prop(into)]
    shown: Signal<Shown>,
    /// The engine worker that simulates NCCL's algorithms for its tuner file.
    checker: StoredValue<SimClient, LocalStorage>,
) -> impl IntoView {
    // Open when the link shows a library; then only the reader closes it.
    let opened = RwSignal::new(params.with_untracked(|c| c.libraries.iter().any(|&x| x)));
    let versions_note = move || {
        let p = params.with(|c| c.compare.p);
        let system = params.with(|c| {
            c.libraries[2].then(|| commlab_core::libraries::nccl::parse_system(&c.nccl_system(), p).ok()).flatten()
        });
        format!("Transcribed from {}. MPICH and Open MPI: a flat communicator, a commutative built-in operation (MPI_SUM), buffers not in place; Open MPI's fixed rules run every pipeline unsegmented (one piece). NCCL: its own latency and bandwidth model of the system described above, in µs.", versions(system.as_ref()))
    };
    view! {
        <details class="section" data-testid="libraries" prop:open=move || opened.get()
            on:toggle=move |ev| opened.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
            <summary><h3>"What the libraries run"</h3></summary>
            <LibraryControls params=params />
            {move || match shown.get() {
                Some(Err(e)) => view! { <p class="chart-error" role="alert" data-testid="library-error">{e}</p> }.into_any(),
                Some(Ok(_)) => view! { <p class="field-note" data-testid="library-versions">{versions_note}</p> }.into_any(),
                None => view! { <p class="field-note">"Tick a library to see what it runs at each size."</p> }.into_any(),
            }}
            <PicksTable result=result shown=shown />
            <PickSentences result=result shown=shown />
            <TunerExport params=params result=result checker=checker />
        </details>
    }
}

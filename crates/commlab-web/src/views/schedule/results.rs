//! What the Schedule view says of a run: its progress, its summary, the
//! critical path and the export row.

use super::run::{Run, Status};
use super::timeline::Window;
use crate::browser;
use commlab_api::schedule::ScheduleExport;
use commlab_plot::count;
use leptos::prelude::*;

/// The run's progress with Cancel, a cancelled run's "run again", or its error.
#[component]
pub fn StatusRow(
    /// The view's run.
    run: Run,
) -> impl IntoView {
    let status = run.status;
    // Which row the status shows (the row is rebuilt only when this changes,
    // so Cancel stays put under the pointer).
    let kind = Memo::new(move |_| match status.get() {
        Status::Idle => 0,
        Status::Running(..) => 1,
        Status::Cancelled => 2,
        Status::Failed(..) => 3,
    });
    let running = move || match status.get() {
        Status::Running(phase, done, total) => (phase, done, total),
        _ => (String::new(), 0, 0),
    };
    move || {
        match kind.get() {
        1 => view! {
            <div class="run-progress delayed" data-testid="run-progress" role="status">
                <progress max=move || running().2.max(1) value=move || running().1 data-testid="run-bar" aria-label="Schedule progress"></progress>
                <span class="run-count">{move || { let (phase, done, total) = running(); if total == 0 { format!("{phase}…") } else { format!("{phase}: {done} of {total}") } }}</span>
                <button type="button" data-testid="cancel-run" on:click=move |_| run.cancel()>"Cancel"</button>
            </div>
        }.into_any(),
        2 => view! {
            <div class="run-progress" data-testid="run-cancelled" role="status">
                <span>"Cancelled. Change a parameter, or "</span>
                <button type="button" data-testid="rerun" on:click=move |_| run.run()>"run again"</button>
            </div>
        }.into_any(),
        3 => view! { <p class="chart-error" data-testid="schedule-error" role="alert">{move || match status.get() { Status::Failed(e, _) => e, _ => String::new() }}" "
            {move || matches!(status.get(), Status::Failed(_, true)).then(|| view! {
                <button type="button" data-testid="rerun" on:click=move |_| run.run()>"Run again"</button>
            })}</p> }.into_any(),
        _ => ().into_any(),
    }
    }
}

/// Ranks, operations, who finishes when, and how long it took; a deadlock's leftovers.
#[component]
pub fn Summary(
    /// The view's run.
    run: Run,
) -> impl IntoView {
    let (took, ideal_took) = (run.took, run.ideal_took);
    move || {
        let unit = run.unit();
        run.shown.with(|s| {
            let r = &s.as_ref()?.result;
            let verdict = if r.completes {
                format!("every rank finishes; the last is rank {} at {}", r.max_rank, unit.format(r.max_time as f64))
            } else {
                format!("deadlock: {} unmatched operations", count(u64::from(r.unmatched_ranks), "rank has", "ranks have"))
            };
            let (ranks, ops, messages, events) = (count(u64::from(r.ranks), "rank", "ranks"), count(r.ops, "operation", "operations"), count(r.messages, "message", "messages"), count(r.events, "event", "events"));
            Some(view! {
                <p class="schedule-summary" data-testid="schedule-summary">
                    {format!("{ranks}, {ops}, {messages}, {events}: {verdict}. First rank done at {}.", unit.format(r.min_time as f64))}
                    <span class="timing">{move || match ideal_took.get() {
                        Some(more) => format!(" Built and simulated in {:.0} ms (then the ideal switch, for the slowdown, in {more:.0} ms more).", took.get()),
                        None => format!(" Built and simulated in {:.0} ms.", took.get()),
                    }}</span>
                </p>
                {(!r.unmatched.is_empty()).then(|| view! {
                    <div class="deadlock" data-testid="deadlock" role="alert">
                        <p>"Left unmatched at the end:"</p>
                        <ul>{r.unmatched.iter().map(|(rank, left)| view! { <li>{format!("rank {rank}: {}", left.join("; "))}</li> }).collect_view()}</ul>
                    </div>
                })}
            })
        })
    }
}

/// The critical path's last steps (LogGOPS runs; open when there is no timeline).
#[component]
pub fn CriticalTable(
    /// The view's run.
    run: Run,
) -> impl IntoView {
    move || {
        let unit = run.unit();
        run.shown.with(|s| {
            let open = s.as_ref()?.timeline.is_none();
            let r = s.as_ref()?.result.clone();
            if r.network.is_some() {
                return None;
            }
            let rows = r.critical.len();
            Some(view! {
                <details class="critical" data-testid="critical-path" open=open>
                    <summary>{format!("Critical path: {} steps{}", r.critical_steps, if r.traced { "" } else { " (not traced: too many operations)" })}</summary>
                    <table class="numbers stack" style=crate::controls::stack::stack_labels(&["rank", "operation", "start", "end"])>
                        <thead><tr><th scope="col">"rank"</th><th scope="col">"operation"</th><th scope="col">"start"</th><th scope="col">"end"</th></tr></thead>
                        <tbody>
                            {r.critical.iter().map(|x| view! {
                                <tr><td>{x.rank}</td><td>{x.what.clone()}</td><td>{unit.format(x.start as f64)}</td><td>{unit.format(x.end as f64)}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    {(r.critical_steps > rows as u64).then(|| view! { <p>{format!("The last {rows} steps are listed; the JSON export has them all.")}</p> })}
                </details>
            })
        })
    }
}

/// GOAL, Chrome trace, CSV and JSON from the worker; SVG and PNG of the window shown.
#[component]
pub fn ExportRow(
    /// The view's run (the worker's exports).
    run: Run,
    /// The window shown (the SVG and PNG).
    w: Window,
) -> impl IntoView {
    let status = run.export_status;
    let params = run.params;
    let file_stem = move || {
        let what = params.with_untracked(|p| if p.file { "file".to_owned() } else { p.generate.collective.clone() });
        format!("commlab-{what}-timeline")
    };
    let save_svg = move |_| match w.svg() {
        Some(svg) => status.set(
            browser::download_text(&format!("{}.svg", file_stem()), "image/svg+xml", &svg).err().unwrap_or_default(),
        ),
        None => status.set("Nothing drawn yet".into()),
    };
    let save_png = move |_| match w.svg() {
        Some(svg) => {
            browser::download_png(&format!("{}.png", file_stem()), &svg, Callback::new(move |e: String| status.set(e)));
        }
        None => status.set("Nothing drawn yet".into()),
    };
    view! {
        <div class="export-bar" role="group" aria-label="Export">
            <span class="export-label">"Export"</span>
            <button type="button" data-testid="export-goal" on:click=move |_| run.export(ScheduleExport::Goal)>"GOAL"</button>
            <button type="button" data-testid="export-trace" on:click=move |_| run.export(ScheduleExport::ChromeTrace)>"Chrome trace"</button>
            <button type="button" data-testid="export-csv" on:click=move |_| run.export(ScheduleExport::Csv)>"CSV"</button>
            <button type="button" data-testid="export-json" on:click=move |_| run.export(ScheduleExport::Json)>"JSON"</button>
            <button type="button" data-testid="export-svg" on:click=save_svg>"SVG"</button>
            <button type="button" data-testid="export-png" on:click=save_png>"PNG"</button>
            <span class="export-status" role="status" data-testid="export-status">{move || status.get()}</span>
        </div>
    }
}

//! The progress row of work done in the engine worker: a determinate bar,
//! what is counted, and Cancel; after a cancel, "run again". Shared by the
//! mesh run, large tree and pipeline runs and the UQ experiment.

use crate::engine::Handler;
use commlab_api::protocol::Response;
use leptos::prelude::*;
use std::rc::Rc;

/// Where a worker run stands, as the row shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Progress {
    /// Nothing under way (or done): no row.
    #[default]
    Idle,
    /// Under way: so many of so many counted things.
    Running(u64, u64),
    /// Cancelled by the user after so many of so many.
    Cancelled(u64, u64),
}

impl Progress {
    /// The cancelled state of a running one (anything else is kept).
    #[must_use]
    pub fn cancelled(self) -> Progress {
        match self {
            Progress::Running(done, total) => Progress::Cancelled(done, total),
            other => other,
        }
    }
}

/// The handler of a worker run shown by a [`RunProgress`] row: progress
/// messages move the bar; the final response goes to `done` and the row goes.
pub fn tracked(progress: RwSignal<Progress>, done: impl Fn(Response) + 'static) -> Handler {
    progress.set(Progress::Running(0, 0));
    Rc::new(move |response, _| {
        if let Response::Progress { done, total } = response {
            return progress.set(Progress::Running(done, total));
        }
        done(response);
        progress.set(Progress::Idle);
    })
}

/// The row: shown after 0.2 s of work (CSS `delayed`), so quick runs do not flash it.
#[component]
pub fn RunProgress(
    /// The state shown.
    #[prop(into)]
    progress: Signal<Progress>,
    /// What the work is (`Simulating`).
    label: &'static str,
    /// What is counted (`messages delivered`).
    unit: &'static str,
    /// Cancel pressed.
    on_cancel: Callback<()>,
    /// "run again" pressed.
    on_rerun: Callback<()>,
) -> impl IntoView {
    // The row is built once per state: progress messages change only the
    // bar and the count, so Cancel stays the same element in the same place
    // (rebuilt on every message, it moved under the pointer and a click
    // could land on a button already replaced).
    let state = Memo::new(move |_| match progress.get() {
        Progress::Idle => 0,
        Progress::Running(..) => 1,
        Progress::Cancelled(..) => 2,
    });
    let counts = move || match progress.get() {
        Progress::Running(done, total) | Progress::Cancelled(done, total) => (done, total),
        Progress::Idle => (0, 0),
    };
    move || {
        match state.get() {
        1 => view! {
            <div class="run-progress delayed" data-testid="run-progress" role="status">
                <progress max=move || counts().1.max(1) value=move || counts().0 data-testid="run-bar" aria-label=format!("{label} progress")></progress>
                <span class="run-count">{move || {
                    let (done, total) = counts();
                    if total == 0 { format!("{label}…") } else { format!("{label}: {done} of {total} {unit}") }
                }}</span>
                <button type="button" data-testid="cancel-run" on:click=move |_| on_cancel.run(())>"Cancel"</button>
            </div>
        }
        .into_any(),
        2 => view! {
            <div class="run-progress" data-testid="run-cancelled" role="status">
                <span>{move || { let (done, total) = counts(); format!("Cancelled after {done} of {total} {unit}. Change a parameter, or ") }}</span>
                <button type="button" data-testid="rerun" on:click=move |_| on_rerun.run(())>"run again"</button>
            </div>
        }
        .into_any(),
        _ => ().into_any(),
    }
    }
}

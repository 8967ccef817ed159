//! View 1: the binomial tree (reduce, broadcast, allreduce, butterfly) in the
//! PRAM or the message-passing picture, with playback, captions, values and
//! export.

use crate::controls::chart::box_width;
use crate::controls::export_bar::ExportBar;
use crate::controls::number_field::{int_range, NumberField};
use crate::controls::playback::Playback;
use crate::controls::run_progress::RunProgress;
use crate::controls::select_field::SelectField;
use crate::engine::split::{split_run, Split, SplitRun};
use crate::engine::Client;
use crate::state::Params;
use commlab_api::protocol::{DataView, Request};
use commlab_api::tree::{TreeRun, TreeSummary};
use commlab_core::limits::{ELEMENTS, UNITS, UNITS_SLIDER};
use commlab_core::reduce::{caption, Collective, Operator};
use commlab_plot::tree::{tree_svg, TreePicture, TREE_DRAW_LIMIT};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::sync::Arc;

/// The run of the current inputs: built here when it is small enough to draw
/// (bounded work), in the engine worker otherwise.
pub type TreeState = Split<Arc<TreeRun>, Arc<TreeSummary>>;

fn rounds_of(s: &TreeState) -> usize {
    match s {
        Split::Local(r) => r.schedule.rounds.len(),
        Split::Remote(s) => s.rows.len(),
        _ => 0,
    }
}

fn inputs_error(s: &TreeState) -> Option<String> {
    match s {
        Split::Local(r) => r.inputs_error.clone(),
        Split::Remote(s) => s.inputs_error.clone(),
        _ => None,
    }
}

/// The reduction-tree view.
#[component]
pub fn TreeView(
    /// App state; the controls write `params.tree` and `params.step`.
    params: RwSignal<Params>,
    /// Whether the page is dark.
    #[prop(into)]
    dark: Signal<bool>,
) -> impl IntoView {
    let tree = Memo::new(move |_| params.with(|p| p.tree.clone()));
    // Derived, not memoised: `tree` is a memo already (each memo type costs ~5 KB of wasm).
    let request = Signal::derive(move || tree.get());
    // Started with the view, so its wasm is ready by the first large run.
    let client = StoredValue::new_local(Client::new());
    on_cleanup(move || {
        client.try_with_value(Client::close);
    });
    let SplitRun { state, progress, on_cancel, on_rerun } = split_run(client, request);
    // Derived (a clone of an `Arc`): each memo type costs ~5 KB of wasm.
    let run = Signal::derive(move || match state.get() {
        Split::Local(r) => Ok(r),
        Split::Failed(e) => Err(e),
        _ => Err(String::new()),
    });
    let rounds = Memo::new(move |_| state.with(rounds_of));
    let step = Memo::new(move |_| params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(rounds.get()));
    let theme = move || Theme::of(dark.get());
    let figure = NodeRef::<leptos::html::Figure>::new();
    let width = box_width(figure, 900.0);
    let svg = Memo::new(move |_| {
        let run = run.get().ok()?;
        (run.schedule.drawn_units <= TREE_DRAW_LIMIT).then(|| {
            let picture = TreePicture {
                schedule: &run.schedule,
                trace: &run.trace,
                step: step.get(),
                message_passing: tree.with(|t| t.message_passing),
                width: width.get(),
            };
            tree_svg(&picture, &theme())
        })
    });
    let caption_text = move || {
        let s = step.get();
        match state.get() {
            Split::Local(r) if s == 0 => start_caption(r.schedule.rounds.len()),
            Split::Local(r) => caption(&r.schedule, s - 1),
            Split::Remote(sum) if s == 0 => start_caption(sum.rows.len()),
            Split::Remote(sum) => sum.captions.get(s - 1).cloned().unwrap_or_default(),
            Split::Pending => "Building the run in the engine worker…".to_owned(),
            Split::Failed(e) => e,
        }
    };

    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name = Signal::derive(move || {
        tree.with(|t| format!("commlab-{}-p{}-{}-step{}", t.collective, t.units, t.operator, step.get()))
    });
    let export_status = RwSignal::new(String::new());
    // CSV and JSON come from the worker: a large run is kept there; a small
    // one (drawn here) is built there first.
    let remote_export = crate::engine::data_export(
        move || client.get_value(),
        move || Some(request.get_untracked()).filter(|r| !r.heavy()).map(Request::Tree),
        DataView::Tree,
        file_name,
        export_status,
    );

    view! {
        <section class="view tree-view" data-testid="tree-view" aria-labelledby="tree-title">
            <TreeControls params=params tree=tree state=state />
            <div class="results">
                <RunProgress progress=progress label="Replaying the values" unit="value cells" on_cancel=on_cancel on_rerun=on_rerun />
                <Playback step=step steps=rounds on_step=on_step speed=Signal::derive(move || params.with(|p| p.speed.0)) on_speed=Callback::new(move |v| params.update(|p| p.speed = crate::state::Speed(v))) />
                <p class="caption" data-testid="caption" aria-live="polite">{caption_text}</p>
                {move || match svg.get() {
                    Some(markup) => view! { <figure node_ref=figure class="diagram" tabindex="0" data-testid="tree-svg" inner_html=markup></figure> }.into_any(),
                    None => view! { <TreeSummaryTable state=state step=step /> }.into_any(),
                }}
                <ValuesTable run=run step=step />
                <p class="result" data-testid="result">{move || match state.get() {
                    Split::Local(r) => r.result_line(),
                    Split::Remote(s) => s.result.clone(),
                    _ => String::new(),
                }}</p>
                <ExportBar name=file_name svg=svg remote=remote_export />
                <crate::lazy::ScheduleLinks schedule=Signal::derive(move || params.with(|p| (!p.embed).then(|| crate::links::Timeline::of(super::params::schedule(&p.tree))))) />
                <p class="export-status" role="status">{move || export_status.get()}</p>
            </div>
        </section>
    }
}

fn start_caption(rounds: usize) -> String {
    format!("Start: each unit p_i holds its input vector v_i. {rounds} rounds to go; press play or step forward.")
}

/// The tree view's inputs: collective, picture, sizes, operator, seed, padding, typed inputs.
#[component]
fn TreeControls(
    /// App state.
    params: RwSignal<Params>,
    /// The tree parameters (a memo over `params`).
    tree: Memo<super::params::TreeParams>,
    /// The current run (for "Edit current" and the inputs error).
    state: Memo<TreeState>,
) -> impl IntoView {
    let set_tree = move |apply: fn(&mut super::params::TreeParams, f64)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.tree, v)))
    };
    let collectives: Vec<(&'static str, &'static str)> = Collective::ALL.iter().map(|c| (c.id(), c.label())).collect();
    let operators: Vec<(&'static str, &'static str)> = Operator::ALL.iter().map(|o| (o.id(), o.label())).collect();
    let inputs_text = RwSignal::new(tree.with_untracked(|t| t.inputs.clone()).unwrap_or_default());
    view! {
            <div class="controls" role="group" aria-label="Reduction parameters">
                <h2 id="tree-title">"Binomial-tree reduction"</h2>
                <SelectField id="collective" label="Collective" options=collectives
                    value=Signal::derive(move || tree.with(|t| t.collective.clone()))
                    on_change=Callback::new(move |id: String| params.update(|p| p.tree.collective = id)) />
                <SelectField id="mode" label="Picture" options=vec![("pram", "PRAM (shared memory)"), ("mp", "message passing (send/recv)")]
                    value=Signal::derive(move || if tree.with(|t| t.message_passing) { "mp" } else { "pram" }.to_owned())
                    on_change=Callback::new(move |id: String| params.update(|p| p.tree.message_passing = id == "mp")) />
                <NumberField id="p" label="Units p" integer=true range=int_range(UNITS) slider=UNITS_SLIDER
                    value=Signal::derive(move || tree.with(|t| t.units as f64))
                    on_change=set_tree(|t, v| t.units = v as u64) />
                <NumberField id="elements" label="Elements per vector" integer=true range=int_range(ELEMENTS)
                    value=Signal::derive(move || tree.with(|t| t.elements as f64))
                    on_change=set_tree(|t, v| t.elements = v as u64) />
                <SelectField id="op" label="Operator ⊕" options=operators
                    value=Signal::derive(move || tree.with(|t| t.operator.clone()))
                    on_change=Callback::new(move |id: String| params.update(|p| p.tree.operator = id)) />
                <div class="field">
                    <label for="seed">"Seed of the random inputs"</label>
                    <div class="field-inputs">
                        <input id="seed" type="text" inputmode="numeric" autocomplete="off"
                            prop:value=move || tree.with(|t| t.seed.to_string())
                            on:change=move |ev| {
                                if let Ok(s) = event_target_value(&ev).trim().parse::<u64>() {
                                    params.update(|p| { p.tree.seed = s; p.tree.inputs = None; });
                                }
                            } />
                        <button type="button" data-testid="random-inputs"
                            on:click=move |_| params.update(|p| {
                                // A new seed from the old one: deterministic, and the link keeps it.
                                p.tree.seed = p.tree.seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407) >> 16;
                                p.tree.inputs = None;
                            })>"Random inputs"</button>
                    </div>
                </div>
                <label class="check">
                    <input type="checkbox" data-testid="padded" prop:checked=move || tree.with(|t| t.padded)
                        on:change=move |ev| params.update(|p| p.tree.padded = event_target_checked(&ev)) />
                    " pad to a power of two (virtual units)"
                </label>
                <div class="field">
                    <label for="inputs">"Your inputs (one vector per unit, ';' between vectors)"</label>
                    <textarea id="inputs" rows="3" spellcheck="false" placeholder="3, 1; 4, 1; 5, 9"
                        prop:value=move || inputs_text.get()
                        on:input=move |ev| inputs_text.set(event_target_value(&ev))></textarea>
                    <div class="field-inputs">
                        <button type="button" data-testid="use-inputs"
                            on:click=move |_| { let text = inputs_text.get_untracked(); params.update(|p| p.tree.inputs = Some(text).filter(|t| !t.trim().is_empty())) }>
                            "Use these inputs"
                        </button>
                        <button type="button" on:click=move |_| {
                            // Only a drawn run's inputs fit the text box.
                            let text = state.with_untracked(|s| match s {
                                Split::Local(r) => commlab_core::reduce::values::inputs_text(&r.inputs, r.width),
                                _ => String::new(),
                            });
                            inputs_text.set(text);
                        }>"Edit current"</button>
                    </div>
                    <span class="field-error" data-testid="inputs-error" aria-live="polite">
                        {move || state.with(|s| inputs_error(s).map(|e| format!("{e}; using the seeded inputs")))}
                    </span>
                </div>
            </div>
    }
}

/// Every drawn unit's `x_i` at the current step, in full (only for runs small
/// enough to draw; the check is here, not in a `<Show>` around it, so a large
/// run never reaches the row-building code, whatever order effects run in).
#[component]
fn ValuesTable(run: Signal<Result<Arc<TreeRun>, String>>, step: Memo<usize>) -> impl IntoView {
    move || {
        let run = match run.get() {
            Ok(run) if run.schedule.drawn_units <= TREE_DRAW_LIMIT => run,
            _ => return ().into_any(),
        };
        let s = step.get();
        let snapshot = run.trace.after(s);
        let deactivated: std::collections::BTreeSet<u32> =
            run.schedule.rounds[..s].iter().flat_map(|r| r.deactivated.iter().copied()).collect();
        let rows = (0..run.schedule.drawn_units)
            .map(|u| {
                let state = if run.schedule.is_virtual(u) {
                    "virtual"
                } else if deactivated.contains(&u) {
                    "inactive"
                } else if !snapshot.defined[u as usize] {
                    "waiting"
                } else {
                    "active"
                };
                let value = if snapshot.defined[u as usize] { run.trace.vector_text(&snapshot, u as usize).join(", ") } else { "—".into() };
                view! { <tr data-unit=u class=state><th scope="row">{format!("p{u}")}</th><td class="state">{state}</td><td class="x">{value}</td></tr> }
            })
            .collect_view();
        view! {
            <table class="values" data-testid="values">
                <caption>{format!("Values x_i after step {s}")}</caption>
                <thead><tr><th scope="col">"unit"</th><th scope="col">"state"</th><th scope="col">"x_i"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    }
}

/// For large `p`: one row per round instead of an unreadable drawing (from the worker).
#[component]
fn TreeSummaryTable(state: Memo<TreeState>, step: Memo<usize>) -> impl IntoView {
    move || {
        let summary = match state.get() {
            Split::Remote(s) => s,
            Split::Failed(e) => return view! { <p class="chart-error">{e}</p> }.into_any(),
            _ => return view! { <p class="summary-note" data-testid="tree-pending">"Building the run in the engine worker…"</p> }.into_any(),
        };
        let rows = summary
            .rows
            .iter()
            .enumerate()
            .map(|(r, row)| {
                view! {
                    <tr class:current=move || step.get() == r + 1>
                        <td>{r + 1}</td><td>{row.label.clone()}</td><td>{row.messages}</td><td>{row.active}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div class="summary-note" data-testid="tree-summary">
                <p>{format!(
                    "{} units is more than the {TREE_DRAW_LIMIT} the drawing shows legibly; here is the run round by round ({} messages in all).",
                    summary.units, summary.messages
                )}</p>
                <table class="values">
                    <thead><tr><th scope="col">"step"</th><th scope="col">"round"</th><th scope="col">"messages"</th><th scope="col">"units still active"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
        .into_any()
    }
}

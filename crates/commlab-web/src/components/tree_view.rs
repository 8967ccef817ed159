//! View 1: the binomial tree (reduce, broadcast, allreduce, butterfly) in the
//! PRAM or the message-passing picture, with playback, captions, values and
//! export.

use crate::components::export_bar::ExportBar;
use crate::components::number_field::{int_range, NumberField};
use crate::components::playback::Playback;
use crate::components::select_field::SelectField;
use crate::exports;
use crate::state::Params;
use commlab_core::limits::{ELEMENTS, UNITS};
use commlab_core::reduce::values::{check_size, parse_inputs, random_inputs, sequential_fold, ValueTrace, Vectors};
use commlab_core::reduce::{caption, Collective, CollectiveConfig, Operator, Schedule};
use commlab_plot::tree::{round_label, tree_svg, TreePicture, TREE_DRAW_LIMIT};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::sync::Arc;

/// One computed run: everything the view shows, from `commlab-core`.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeRun {
    /// The schedule.
    pub schedule: Schedule,
    /// Values after every round.
    pub trace: ValueTrace,
    /// The real units' inputs.
    pub inputs: Vectors,
    /// Elements per vector.
    pub width: usize,
    /// Why typed inputs were not used, if they were not.
    pub inputs_error: Option<String>,
}

/// Computes the run for the tree parameters.
fn compute(t: &crate::state::TreeParams) -> Result<TreeRun, String> {
    check_size(t.units, t.elements).map_err(|e| e.to_string())?;
    let config = CollectiveConfig::new(t.collective, t.units, t.padded).map_err(|e| e.to_string())?;
    let schedule = Schedule::collective(&config);
    let (inputs, inputs_error) = match &t.inputs {
        Some(text) => match parse_inputs(text, t.units, t.elements, t.operator) {
            Ok(v) => (v, None),
            Err(e) => (random_inputs(t.seed, t.units, t.elements, t.operator).map_err(|e| e.to_string())?, Some(e)),
        },
        None => (random_inputs(t.seed, t.units, t.elements, t.operator).map_err(|e| e.to_string())?, None),
    };
    let width = t.elements as usize;
    let trace = ValueTrace::new(&schedule, t.operator, width, &inputs);
    Ok(TreeRun { schedule, trace, inputs, width, inputs_error })
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
    let run = Memo::new(move |_| tree.with(compute).map(Arc::new));
    let rounds = Memo::new(move |_| run.with(|r| r.as_ref().map_or(0, |r| r.schedule.rounds.len())));
    let step = Memo::new(move |_| params.with(|p| usize::try_from(p.step).unwrap_or(usize::MAX)).min(rounds.get()));
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    let svg = Memo::new(move |_| {
        let run = run.get().ok()?;
        (run.schedule.drawn_units <= TREE_DRAW_LIMIT).then(|| {
            let picture = TreePicture {
                schedule: &run.schedule,
                trace: &run.trace,
                step: step.get(),
                message_passing: tree.with(|t| t.message_passing),
            };
            tree_svg(&picture, &theme())
        })
    });
    let caption_text = move || match run.get() {
        Ok(r) if step.get() == 0 => {
            format!(
                "Start: each unit p_i holds its input vector v_i. {} rounds to go; press play or step forward.",
                r.schedule.rounds.len()
            )
        }
        Ok(r) => caption(&r.schedule, step.get() - 1),
        Err(e) => e,
    };

    let on_step = Callback::new(move |s: usize| params.update(|p| p.step = s as u64));
    let file_name = Signal::derive(move || {
        tree.with(|t| format!("commlab-{}-p{}-{}-step{}", t.collective.id(), t.units, t.operator.id(), step.get()))
    });
    let csv = Callback::new(move |()| run.with(|r| r.as_ref().map(|r| exports::tree_csv(r)).unwrap_or_default()));
    let json = Callback::new(move |()| {
        run.with(|r| r.as_ref().map(|r| exports::tree_json(r, &tree.get_untracked())).unwrap_or_default())
    });

    view! {
        <section class="view tree-view" data-testid="tree-view" aria-labelledby="tree-title">
            <TreeControls params=params tree=tree run=run />
            <div class="results">
                <Playback step=step steps=rounds on_step=on_step />
                <p class="caption" data-testid="caption" aria-live="polite">{caption_text}</p>
                {move || match svg.get() {
                    Some(markup) => view! { <figure class="diagram" data-testid="tree-svg" inner_html=markup></figure> }.into_any(),
                    None => view! { <TreeSummary run=run step=step /> }.into_any(),
                }}
                <ValuesTable run=run step=step />
                <ResultLine run=run />
                <ExportBar name=file_name svg=svg csv=csv json=json />
            </div>
        </section>
    }
}

/// The tree view's inputs: collective, picture, sizes, operator, seed, padding, typed inputs.
#[component]
fn TreeControls(
    /// App state.
    params: RwSignal<Params>,
    /// The tree parameters (a memo over `params`).
    tree: Memo<crate::state::TreeParams>,
    /// The current run (for "Edit current" and the inputs error).
    run: Memo<Result<Arc<TreeRun>, String>>,
) -> impl IntoView {
    let set_tree = move |apply: fn(&mut crate::state::TreeParams, f64)| {
        Callback::new(move |v: f64| params.update(|p| apply(&mut p.tree, v)))
    };
    let collectives: Vec<(&'static str, &'static str)> = Collective::ALL.iter().map(|c| (c.id(), c.label())).collect();
    let operators: Vec<(&'static str, &'static str)> = Operator::ALL.iter().map(|o| (o.id(), o.label())).collect();
    let inputs_text = RwSignal::new(tree.with_untracked(|t| t.inputs.clone()).unwrap_or_default());
    view! {
            <div class="controls" role="group" aria-label="Reduction parameters">
                <h2 id="tree-title">"Binomial-tree reduction"</h2>
                <SelectField id="collective" label="Collective" options=collectives
                    value=Signal::derive(move || tree.with(|t| t.collective.id()))
                    on_change=Callback::new(move |id: String| {
                        if let Ok(c) = id.parse() { params.update(|p| p.tree.collective = c) }
                    }) />
                <SelectField id="mode" label="Picture" options=vec![("pram", "PRAM (shared memory)"), ("mp", "message passing (send/recv)")]
                    value=Signal::derive(move || if tree.with(|t| t.message_passing) { "mp" } else { "pram" })
                    on_change=Callback::new(move |id: String| params.update(|p| p.tree.message_passing = id == "mp")) />
                <NumberField id="p" label="Units p" integer=true range=int_range(UNITS) slider=(1.0, 65_536.0)
                    value=Signal::derive(move || tree.with(|t| t.units as f64))
                    on_change=set_tree(|t, v| t.units = v as u64) />
                <NumberField id="elements" label="Elements per vector" integer=true range=int_range(ELEMENTS) slider=(1.0, 1024.0)
                    value=Signal::derive(move || tree.with(|t| t.elements as f64))
                    on_change=set_tree(|t, v| t.elements = v as u64) />
                <SelectField id="op" label="Operator ⊕" options=operators
                    value=Signal::derive(move || tree.with(|t| t.operator.id()))
                    on_change=Callback::new(move |id: String| {
                        if let Ok(o) = id.parse() { params.update(|p| p.tree.operator = o) }
                    }) />
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
                            let text = run.with_untracked(|r| r.as_ref().map(|r| commlab_core::reduce::values::inputs_text(&r.inputs, r.width)).unwrap_or_default());
                            inputs_text.set(text);
                        }>"Edit current"</button>
                    </div>
                    <span class="field-error" data-testid="inputs-error" aria-live="polite">
                        {move || run.with(|r| r.as_ref().ok().and_then(|r| r.inputs_error.clone().map(|e| format!("{e}; using the seeded inputs"))))}
                    </span>
                </div>
            </div>
    }
}

/// Every drawn unit's `x_i` at the current step, in full (only for runs small
/// enough to draw; the check is here, not in a `<Show>` around it, so a large
/// run never reaches the row-building code, whatever order effects run in).
#[component]
fn ValuesTable(run: Memo<Result<Arc<TreeRun>, String>>, step: Memo<usize>) -> impl IntoView {
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

/// For large `p`: one row per round instead of an unreadable drawing.
#[component]
fn TreeSummary(run: Memo<Result<Arc<TreeRun>, String>>, step: Memo<usize>) -> impl IntoView {
    move || {
        let Ok(run) = run.get() else { return view! { <p class="chart-error">{run.get().err()}</p> }.into_any() };
        let s = &run.schedule;
        let mut active = s.units as usize;
        let rows = s
            .rounds
            .iter()
            .enumerate()
            .map(|(r, round)| {
                active -= round.deactivated.iter().filter(|&&u| !s.is_virtual(u)).count();
                let messages = round.messages.iter().filter(|m| !s.is_virtual(m.from) && !s.is_virtual(m.to)).count();
                view! {
                    <tr class:current=move || step.get() == r + 1>
                        <td>{r + 1}</td><td>{round_label(s, r)}</td><td>{messages}</td><td>{active}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div class="summary-note" data-testid="tree-summary">
                <p>{format!(
                    "{} units is more than the {TREE_DRAW_LIMIT} the drawing shows legibly; here is the run round by round ({} messages in all).",
                    s.units, s.message_count()
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

/// The result at unit 0 after the last round, checked against the sequential fold.
#[component]
fn ResultLine(run: Memo<Result<Arc<TreeRun>, String>>) -> impl IntoView {
    move || {
        let Ok(run) = run.get() else { return view! { <p></p> }.into_any() };
        let end = run.trace.after(run.trace.round_count());
        let at_root = run.trace.vector_text(&end, 0);
        let fold = sequential_fold(&run.inputs, run.trace.operator(), run.width);
        let expected: Vec<String> = fold.slice_text(0..run.width);
        let shown = if at_root.len() > 8 {
            format!("{}, … ({} elements)", at_root[..8].join(", "), at_root.len())
        } else {
            at_root.join(", ")
        };
        let agrees = if run.schedule.root_only_input { true } else { at_root == expected };
        let check = if run.schedule.root_only_input {
            "the root's vector, delivered to every unit".to_owned()
        } else if agrees {
            "equals the sequential fold v_0 ⊕ … ⊕ v_{p−1} ✓".to_owned()
        } else {
            format!("differs from the sequential fold ({}) — float rounding of typed inputs", expected.join(", "))
        };
        view! { <p class="result" data-testid="result">"Result at p0: [" {shown} "] — " {check}</p> }.into_any()
    }
}

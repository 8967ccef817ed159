//! The System control the Chooser and the Schedule view share
//! (`docs/systems.md`): a preset node type (or an option of the view's own:
//! the Chooser's custom system) and how many such nodes. Picking sets the
//! view's network, and what follows from it, through the view's own `pick`;
//! the control keeps nothing: it shows the System the view's network is, or
//! "custom network" once the user's own edits left every System. A node
//! count out of range is refused under the fields, naming the range.

use commlab_api::system::{System, NODES, STEADY_NODES};
use commlab_core::systems::PRESETS;
use leptos::prelude::*;

/// The node count typed, or why it is refused; past the page's nodes but
/// within the steady engine's, the command that predicts them for the
/// System shown (`system`: its id). A view that draws a System by the
/// steady engine (`steady`) takes its nodes.
fn nodes_of(text: &str, system: Option<&str>, steady: bool) -> Result<u32, String> {
    if steady {
        let range = STEADY_NODES;
        let refused = || {
            format!(
                "Nodes: an integer from {} to {} (past {}, the System's expected curve alone, from the steady state)",
                range.min, range.max, NODES.max
            )
        };
        let n = text.trim().parse::<u64>().map_err(|_| refused())?;
        return range.check(n).map(|n| n as u32).map_err(|_| refused());
    }
    let refused = || {
        format!(
            "Nodes: an integer from {} to {} (the page simulates every flow on the network; commlab predict --engine steady reaches {} nodes)",
            NODES.min, NODES.max, STEADY_NODES.max
        )
    };
    let n = text.trim().parse::<u64>().map_err(|_| refused())?;
    NODES.check(n).map(|n| n as u32).map_err(|_| match system.filter(|_| STEADY_NODES.contains(n)) {
        Some(id) => format!("{}. For {n} × {id}: commlab predict --system {id} --nodes {n} --engine steady", refused()),
        None => refused(),
    })
}

/// The preset select and the Nodes field beside it; a view may add an
/// option of its own (`extra`: its value and label, and whether it is the
/// one shown), which `pick` then receives as the id.
#[component]
pub fn SystemControl(
    /// The select's element id; the Nodes field is `{id}-nodes`.
    id: &'static str,
    /// The select's label.
    label: &'static str,
    /// The System the view's network is.
    #[prop(into)]
    current: Signal<Option<System>>,
    /// Sets the view to that many nodes of the System with that id (a
    /// preset's, or the extra option's value).
    pick: Callback<(String, u32)>,
    /// An option of the view's own after the presets: value, label, shown.
    #[prop(optional)]
    extra: Option<(&'static str, &'static str, Signal<bool>)>,
    /// A refusal of the view's own shown under the fields (its custom
    /// values), beside a refused node count.
    #[prop(optional, into)]
    refused: Option<Signal<Option<String>>>,
    /// The view draws a System past the page's nodes, up to the steady
    /// engine's ([`STEADY_NODES`]).
    #[prop(optional)]
    steady: bool,
) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let extra_shown = move || extra.is_some_and(|(_, _, shown)| shown.get());
    let nodes = move || current.with(|c| c.as_ref().map_or(2, |s| s.nodes));
    let on_preset = move |ev: leptos::ev::Event| {
        let picked = event_target_value(&ev);
        problem.set(None);
        let known =
            commlab_api::system::preset(&picked).is_some() || extra.is_some_and(|(value, _, _)| value == picked);
        if known {
            pick.run((picked, nodes()));
        }
    };
    let on_nodes = move |ev: leptos::ev::Event| {
        let shown = current.get_untracked().map(|s| s.id());
        match (nodes_of(&event_target_value(&ev), shown.as_deref(), steady), shown) {
            (Ok(n), Some(id)) => {
                problem.set(None);
                pick.run((id, n));
            }
            (Ok(_), None) => problem.set(None),
            (Err(e), _) => problem.set(Some(e)),
        }
    };
    let nodes_id = format!("{id}-nodes");
    let shown_problem = move || problem.get().or_else(|| refused.and_then(|r| r.get()));
    view! {
        <div class="system-row">
            <div class="field">
                <label for=id>{label}</label>
                <select id=id data-testid=id on:change=on_preset>
                    <option value="" selected=move || current.with(Option::is_none) && !extra_shown()>"custom network"</option>
                    {PRESETS.iter().map(|s| view! {
                        <option value=s.id selected=move || !extra_shown() && current.with(|c| c.as_ref().is_some_and(|c| c.preset.id == s.id))>{s.name}</option>
                    }).collect_view()}
                    {extra.map(|(value, text, _)| view! { <option value=value selected=extra_shown>{text}</option> })}
                </select>
            </div>
            <div class="field nodes">
                <label for=nodes_id.clone()>"Nodes"</label>
                <input id=nodes_id.clone() data-testid=nodes_id type="number" min=NODES.min.to_string() max=if steady { STEADY_NODES.max } else { NODES.max }.to_string()
                    disabled=move || current.with(Option::is_none)
                    prop:value=move || current.with(|c| c.as_ref().map_or(String::new(), |s| s.nodes.to_string()))
                    on:change=on_nodes />
            </div>
        </div>
        {move || shown_problem().map(|e| view! { <p class="field-error" role="alert" data-testid=format!("{id}-error")>{e}</p> })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_counts_outside_the_range_are_refused_naming_it() {
        let range = "Nodes: an integer from 1 to 128 (the page simulates every flow on the network; commlab predict --engine steady reaches 1024 nodes)";
        assert_eq!(nodes_of(" 4 ", Some("dgx-h100"), false), Ok(4));
        assert_eq!(nodes_of("128", None, false), Ok(128));
        for bad in ["0", "129", "-1", "2.5", "", "many", "1025"] {
            assert_eq!(nodes_of(bad, None, false), Err(range.to_owned()), "{bad}");
        }
        // Past the page's nodes, within the steady engine's: the command for the System shown.
        assert_eq!(
            nodes_of("512", Some("dgx-h100"), false),
            Err(format!("{range}. For 512 × dgx-h100: commlab predict --system dgx-h100 --nodes 512 --engine steady"))
        );
        for bad in ["0", "1025", "many"] {
            assert_eq!(nodes_of(bad, Some("dgx-h100"), false), Err(range.to_owned()), "{bad}");
        }
    }

    /// A view that draws a System by the steady engine takes its nodes.
    #[test]
    fn a_steady_view_takes_the_steady_engines_nodes() {
        let range =
            "Nodes: an integer from 1 to 1024 (past 128, the System's expected curve alone, from the steady state)";
        for (text, n) in [("1", 1), ("128", 128), ("129", 129), (" 1024 ", 1024)] {
            assert_eq!(nodes_of(text, Some("dgx-h100"), true), Ok(n));
        }
        for bad in ["0", "1025", "-1", "2.5", "", "many"] {
            assert_eq!(nodes_of(bad, Some("dgx-h100"), true), Err(range.to_owned()), "{bad}");
        }
    }
}

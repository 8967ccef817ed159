//! A labelled `<select>` over a closed set of ids.

use leptos::prelude::*;

/// A select whose options are `(id, label)` pairs.
#[component]
pub fn SelectField(
    /// Element id.
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// The options.
    options: Vec<(&'static str, &'static str)>,
    /// The selected id.
    #[prop(into)]
    value: Signal<String>,
    /// Receives the chosen id.
    on_change: Callback<String>,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <select id=id prop:value=move || value.get() on:change=move |ev| on_change.run(event_target_value(&ev))>
                {options
                    .into_iter()
                    .map(|(v, l)| view! { <option value=v selected=move || value.with(|x| x == v)>{l}</option> })
                    .collect_view()}
            </select>
        </div>
    }
}

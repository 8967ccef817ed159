//! Export of the current view: the drawing as SVG and PNG, its data as CSV and JSON.

use crate::browser;
use leptos::prelude::*;

/// Four download buttons. Each closure is called only when its button is pressed.
#[component]
pub fn ExportBar(
    /// File name without extension (`commlab-tree-p8-step3`).
    #[prop(into)]
    name: Signal<String>,
    /// The drawing as an SVG document, when there is one.
    #[prop(into)]
    svg: Signal<Option<String>>,
    /// A drawing too costly to keep as text (the canvas-painted mesh): built
    /// only when an SVG or PNG button is pressed, and used when `svg` is `None`.
    #[prop(optional)]
    svg_on_demand: Option<Callback<(), Option<String>>>,
    /// The data as CSV.
    csv: Callback<(), String>,
    /// The data as JSON.
    json: Callback<(), String>,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let report = move |result: Result<(), String>| status.set(result.err().unwrap_or_default());
    let on_error = Callback::new(move |e: String| status.set(e));
    let drawing = move || svg.get_untracked().or_else(|| svg_on_demand.and_then(|f| f.run(())));
    let none = move || svg.with(Option::is_none) && svg_on_demand.is_none();
    let save_svg = move |_| match drawing() {
        Some(s) => report(browser::download_text(&format!("{}.svg", name.get_untracked()), "image/svg+xml", &s)),
        None => status.set("No drawing at this size: export the data instead".into()),
    };
    let save_png = move |_| match drawing() {
        Some(s) => browser::download_png(&format!("{}.png", name.get_untracked()), &s, on_error),
        None => status.set("No drawing at this size: export the data instead".into()),
    };
    let save_csv = move |_| {
        report(browser::download_text(&format!("{}.csv", name.get_untracked()), "text/csv", &csv.run(())));
    };
    let save_json = move |_| {
        report(browser::download_text(&format!("{}.json", name.get_untracked()), "application/json", &json.run(())));
    };
    view! {
        <div class="export-bar" role="group" aria-label="Export">
            <span class="export-label">"Export"</span>
            <button type="button" data-testid="export-svg" on:click=save_svg disabled=none>"SVG"</button>
            <button type="button" data-testid="export-png" on:click=save_png disabled=none>"PNG"</button>
            <button type="button" data-testid="export-csv" on:click=save_csv>"CSV"</button>
            <button type="button" data-testid="export-json" on:click=save_json>"JSON"</button>
            <span class="export-status" role="status">{move || status.get()}</span>
        </div>
    }
}

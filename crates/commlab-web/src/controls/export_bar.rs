//! Export of the current view: the drawing as SVG and PNG, its data as CSV and JSON.

use crate::browser;
use leptos::prelude::*;

/// What a button exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// The drawing.
    Svg,
    /// The drawing, rasterised.
    Png,
    /// The data.
    Csv,
    /// The data.
    Json,
}

/// Four download buttons. Each closure is called only when its button is pressed.
#[allow(clippy::semicolon_if_nothing_returned, reason = "rustfmt drops the arm braces that would hold the semicolon")]
#[component]
pub fn ExportBar(
    /// File name without extension (`commlab-tree-p8-step3`).
    #[prop(into)]
    name: Signal<String>,
    /// The drawing as an SVG document, when there is one.
    #[prop(into)]
    svg: Signal<Option<String>>,
    /// The data as CSV (views whose data is on the page).
    #[prop(optional)]
    csv: Option<Callback<(), String>>,
    /// The data as JSON.
    #[prop(optional)]
    json: Option<Callback<(), String>>,
    /// Views whose data exports come from the engine worker: the CSV and
    /// JSON buttons ask it (the view downloads the answer when it comes).
    #[prop(optional)]
    remote: Option<Callback<ExportFormat>>,
    /// The drawing comes from the worker too (the mesh, drawn there).
    #[prop(optional)]
    remote_drawing: bool,
) -> impl IntoView {
    let data_remote = move || remote;
    let drawing_remote = move || remote.filter(|_| remote_drawing);
    let status = RwSignal::new(String::new());
    let report = move |result: Result<(), String>| status.set(result.err().unwrap_or_default());
    let on_error = Callback::new(move |e: String| status.set(e));
    let none = move || drawing_remote().is_none() && svg.with(Option::is_none);
    let save_svg = move |_| match (drawing_remote(), svg.get_untracked()) {
        (Some(r), _) => r.run(ExportFormat::Svg),
        (None, Some(s)) => {
            report(browser::download_text(&format!("{}.svg", name.get_untracked()), "image/svg+xml", &s))
        }
        (None, None) => status.set("No drawing at this size: export the data instead".into()),
    };
    let save_png = move |_| match (drawing_remote(), svg.get_untracked()) {
        (Some(r), _) => r.run(ExportFormat::Png),
        (None, Some(s)) => browser::download_png(&format!("{}.png", name.get_untracked()), &s, on_error),
        (None, None) => status.set("No drawing at this size: export the data instead".into()),
    };
    let save_csv = move |_| match (data_remote(), csv) {
        (Some(r), _) => r.run(ExportFormat::Csv),
        (None, Some(c)) => {
            report(browser::download_text(&format!("{}.csv", name.get_untracked()), "text/csv", &c.run(())));
        }
        (None, None) => {}
    };
    let save_json = move |_| match (data_remote(), json) {
        (Some(r), _) => r.run(ExportFormat::Json),
        (None, Some(j)) => {
            report(browser::download_text(&format!("{}.json", name.get_untracked()), "application/json", &j.run(())))
        }
        (None, None) => {}
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

//! "Share" (copy the link) and "Embed" (copy an `<iframe>` snippet).

use crate::browser;
use crate::state::to_query;
use crate::state::Params;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The full link that reproduces `params` in the normal (non-embed) layout.
pub fn share_link(params: &Params) -> String {
    let params = Params { embed: false, ..params.clone() };
    format!("{}?{}", browser::page_base(), to_query(&params))
}

/// The `<iframe>` snippet that embeds `params`' view.
fn embed_snippet(params: &Params) -> String {
    let params = Params { embed: true, ..params.clone() };
    let src = format!("{}?{}", browser::page_base(), to_query(&params));
    let src = src.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        r#"<iframe src="{src}" title="commlab: {}" width="860" height="800" style="border:0;max-width:100%" loading="lazy"></iframe>"#,
        params.view.label()
    )
}

/// Copies `text`, then reports the outcome in `status` and shows `text` in the
/// output box (so it can be copied by hand when the clipboard is refused).
/// `what` is `(sentence case, lower case)`: no `to_lowercase`, whose Unicode
/// tables cost ~3 KB of wasm.
fn copy(text: String, what: (&'static str, &'static str), output: RwSignal<String>, status: RwSignal<String>) {
    output.set(text.clone());
    spawn_local(async move {
        let message = match browser::copy_text(&text).await {
            Ok(()) => format!("{} copied to the clipboard", what.0),
            Err(_) => format!("Clipboard unavailable: select the {} below and copy it", what.1),
        };
        status.set(message);
    });
}

/// The two buttons, a status line and the copied text.
#[component]
pub fn ShareBar(
    /// The state to share.
    params: RwSignal<Params>,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    let output = RwSignal::new(String::new());
    view! {
        <div class="share-bar">
            <button type="button" data-testid="share" on:click=move |_| copy(params.with(share_link), ("Link", "link"), output, status)>
                "Share link"
            </button>
            <button type="button" data-testid="embed" on:click=move |_| copy(params.with(embed_snippet), ("Embed code", "embed code"), output, status)>
                "Embed"
            </button>
            <span class="share-status" role="status" aria-live="polite" data-testid="share-status">{move || status.get()}</span>
            <Show when=move || output.with(|o| !o.is_empty())>
                <input
                    class="share-output"
                    type="text"
                    readonly
                    aria-label="Copied text"
                    data-testid="share-output"
                    prop:value=move || output.get()
                    on:focus=|ev| {
                        use wasm_bindgen::JsCast;
                        if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                            input.select();
                        }
                    }
                />
            </Show>
        </div>
    }
}

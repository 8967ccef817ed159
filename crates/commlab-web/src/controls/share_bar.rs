//! "Share" (copy the link) and "Embed" (copy an `<iframe>` snippet).

use crate::browser;
use crate::state::to_query;
use crate::state::{Params, View};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The full link that reproduces `params` in the normal (non-embed) layout.
pub fn share_link(params: &Params) -> String {
    let params = Params { embed: false, ..params.clone() };
    format!("{}?{}", browser::page_base(), to_query(&params))
}

/// The frame's height when the page that embeds it runs no script (px):
/// about each view's height at the snippet's 860 px with its defaults. The
/// snippet's script replaces it with the view's own height.
fn default_height(view: View) -> u32 {
    match view {
        View::Tree => 850,
        View::Pipeline => 720,
        View::Model => 1050,
        View::Mesh => 1750,
        View::Lab => 1450,
        View::Swizzle => 1300,
        View::Schedule => 1200,
        View::Chooser => 3200,
    }
}

/// The lines after the frame that fit it to its view: they say hello to the
/// frame (at commlab's origin only) and take heights only from that origin
/// and that frame (the protocol: `web/embed-height.js`, docs/links.md).
const RESIZE_SCRIPT: &str = r#"<script>(function(f){var o=new URL(f.src).origin;function hi(){if(f.contentWindow)f.contentWindow.postMessage({commlab:"hello"},o)}f.addEventListener("load",hi);addEventListener("message",function(e){var d=e.data;if(e.origin!==o||e.source!==f.contentWindow||!d)return;if(d.commlab==="ready")hi();if(d.commlab==="height"&&d.height>0&&d.height<1e5)f.style.height=Math.ceil(d.height)+"px"})})(document.currentScript.previousElementSibling)</script>"#;

/// The `<iframe>` snippet that embeds `params`' view, with the script that
/// sizes the frame to the view.
fn embed_snippet(params: &Params) -> String {
    let params = Params { embed: true, ..params.clone() };
    let src = format!("{}?{}", browser::page_base(), to_query(&params));
    let src = src.replace('&', "&amp;").replace('"', "&quot;");
    format!(
        r#"<iframe src="{src}" title="commlab: {}" width="860" height="{}" style="border:0;width:100%;max-width:860px" loading="lazy"></iframe>{RESIZE_SCRIPT}"#,
        params.view.label(),
        default_height(params.view)
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

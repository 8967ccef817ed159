//! The link notices: which URL parameters were invalid and what was used,
//! and what changed since an older link was made.

use crate::codec::Notice;
use leptos::prelude::*;

/// A dismissible list of notices (hidden when empty). Parameter names and
/// values are inserted as text, never as markup.
#[component]
pub fn Notices(
    /// The notices to show; dismissing clears them.
    notices: RwSignal<Vec<Notice>>,
) -> impl IntoView {
    view! {
        <Show when=move || notices.with(|n| !n.is_empty())>
            <section class="notices" role="status" data-testid="notices" aria-label="About this link">
                <p class="notices-title">"About this link:"</p>
                <ul>
                    {move || {
                        notices
                            .get()
                            .into_iter()
                            .map(|n| view! { <li><code>{n.param}</code>": "{n.message}</li> })
                            .collect_view()
                    }}
                </ul>
                <button type="button" class="dismiss" on:click=move |_| notices.set(Vec::new())>"Dismiss"</button>
            </section>
        </Show>
    }
}

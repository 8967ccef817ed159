//! The first visit's orientation: what each view answers, one sentence each,
//! with a link to an example that shows it (both from the table of views,
//! `state::VIEWS`, so a new view is in the tour). Shown on a plain visit (no
//! parameters in the address) until dismissed; the dismissal is kept in
//! this browser, never in the URL, and embeds never show it.

use crate::browser;
use crate::state::VIEWS;
use leptos::prelude::*;

/// Where the dismissal is kept.
const KEY: &str = "commlab-welcomed";

/// Whether this visit gets the orientation: a plain address, not dismissed.
pub fn wanted(search: &str) -> bool {
    search.trim_start_matches('?').is_empty() && browser::stored(KEY).is_none()
}

/// The orientation panel.
#[component]
pub fn Welcome() -> impl IntoView {
    let open = RwSignal::new(true);
    let close = move |_| {
        browser::store(KEY, "1");
        open.set(false);
    };
    move || {
        open.get().then(|| {
            view! {
                <section class="welcome" data-testid="welcome" aria-labelledby="welcome-title">
                    <h2 id="welcome-title">"commlab: watch parallel communication algorithms run"</h2>
                    <p>"Set the parameters, press play, and share the address: it holds everything you see. Each view answers one question:"</p>
                    <ul>
                        {VIEWS.iter().map(|e| view! {
                            <li><a href=crate::codec::link(e.id, e.example)>{e.label}</a>": "{e.answers}</li>
                        }).collect_view()}
                    </ul>
                    <button type="button" data-testid="welcome-close" on:click=close>"Got it"</button>
                </section>
            }
        })
    }
}

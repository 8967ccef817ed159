//! The first visit's orientation: what each view answers, one sentence each,
//! with a link to an example that shows it. Shown on a plain visit (no
//! parameters in the address) until dismissed; the dismissal is kept in
//! this browser, never in the URL, and embeds never show it.

use crate::browser;
use leptos::prelude::*;

/// Where the dismissal is kept.
const KEY: &str = "commlab-welcomed";

/// Each view: its tab's name, what it answers, an example link (view id
/// and the pairs after it; `codec::link` adds the version).
const TOUR: [(&str, &str, &str, &str); 8] = [
    ("Reduction tree", "How a binomial tree combines p vectors in ⌈log₂ p⌉ rounds, value by value.", "tree", "p=8"),
    ("Pipeline", "How cutting a vector into m pieces lets a chain of units overlap its messages.", "pipeline", ""),
    ("Runtime model", "Which piece count m minimises the pipelined reduction's time T(n, p, m).", "model", ""),
    ("Barrier mesh", "How barriers route around broken links on a mesh, message by message.", "mesh", "rate=0.1"),
    (
        "Barrier lab",
        "How barrier delay grows with mesh size and break rate, beside the DLCT paper's claims.",
        "lab",
        "",
    ),
    (
        "Swizzle schedule",
        "How CommSwizzle spreads cores over ranks so that no rank is hit by every core at once.",
        "swizzle",
        "",
    ),
    (
        "Schedule timeline",
        "What a GOAL schedule does under LogGOPS, op by op, with LogGOPSim's numbers.",
        "schedule",
        "",
    ),
    (
        "Collective chooser",
        "Which algorithm of a collective is fastest at each message size and rank count.",
        "chooser",
        "coll=broadcast",
    ),
];

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
                        {TOUR.iter().map(|(name, what, view, rest)| view! {
                            <li><a href=crate::codec::link(view, rest)>{*name}</a>": "{*what}</li>
                        }).collect_view()}
                    </ul>
                    <button type="button" data-testid="welcome-close" on:click=close>"Got it"</button>
                </section>
            }
        })
    }
}

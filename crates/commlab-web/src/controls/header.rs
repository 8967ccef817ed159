//! The page header: product name, view switcher, theme choice, share controls.

use crate::controls::share_bar::ShareBar;
use crate::state::View;
use crate::state::{Params, ThemeChoice};
use leptos::prelude::*;

/// The header. Lists exactly the views that exist ([`View::ALL`]).
#[component]
pub fn Header(
    /// App state; the switcher and theme menu write to it.
    params: RwSignal<Params>,
) -> impl IntoView {
    let views = View::ALL
        .into_iter()
        .map(|view| {
            let current = move || params.with(|p| p.view == view);
            view! {
                <button
                    type="button"
                    class="view-tab"
                    class:active=current
                    aria-current=move || if current() { "page" } else { "false" }
                    data-view=view.id()
                    on:click=move |_| params.update(|p| p.view = view)
                >
                    {view.label()}
                </button>
            }
        })
        .collect_view();
    let themes = ThemeChoice::ALL
        .into_iter()
        .map(|t| view! { <option value=t.id() selected=move || params.with(|p| p.theme == t)>{t.id()}</option> })
        .collect_view();
    view! {
        <header class="app-header">
            <div class="brand">
                <span class="logo" aria-hidden="true">"⋔"</span>
                <h1>"commlab"</h1>
                <span class="tagline">"parallel communication algorithms, live"</span>
            </div>
            <nav class="view-switcher" aria-label="Views">{views}</nav>
            <div class="header-tools">
                // A static page beside the app (`commlab sources --html`): text costs the UI bundle nothing.
                <a class="sources-link" href="./sources.html" data-testid="sources-link">"Sources"</a>
                <label class="theme-choice">
                    "Theme "
                    <select
                        data-testid="theme"
                        prop:value=move || params.with(|p| p.theme.id())
                        on:change=move |ev| {
                            if let Some(theme) = ThemeChoice::from_id(&event_target_value(&ev)) {
                                params.update(|p| p.theme = theme);
                            }
                        }
                    >
                        {themes}
                    </select>
                </label>
                <ShareBar params=params />
            </div>
        </header>
    }
}

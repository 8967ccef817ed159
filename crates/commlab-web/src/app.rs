//! The app shell: state from the URL, header, notices, the current view and
//! the embed footer. Effects here only sync with the outside world (address
//! bar, document theme and title); they never write signals.

use crate::browser;
use crate::controls::header::Header;
use crate::controls::notices::Notices;
use crate::controls::share_bar::share_link;
use leptos::prelude::*;

/// The playground.
#[component]
pub fn App() -> impl IntoView {
    let search = browser::location_search();
    let (initial, notices) = crate::state::from_query(&search);
    let welcome = !initial.embed && crate::controls::welcome::wanted(&search);
    let params = RwSignal::new(initial);
    let notices = RwSignal::new(notices);

    let system_dark = RwSignal::new(browser::prefers_dark());
    browser::watch_color_scheme(Callback::new(move |dark| system_dark.set(dark)));
    let dark = Memo::new(move |_| params.with(|p| p.theme).is_dark(system_dark.get()));

    let url = browser::UrlWriter::default();
    let moved = url.clone();
    // A view switched to is a new history entry (not in an embed, whose
    // entries would be its host page's); Back and Forward read the entry's
    // state back, as a link opens it.
    Effect::new(move |last: Option<crate::state::View>| {
        let (query, view, embed) = params.with(|p| (crate::state::to_query(p), p.view, p.embed));
        url.write(&query, !embed && last.is_some_and(|v| v != view));
        view
    });
    browser::watch_history(move |search: String| {
        let (state, read) = crate::state::from_query(&search);
        moved.shown(search.trim_start_matches('?'));
        notices.set(read);
        if params.with_untracked(|p| p.view) == state.view {
            params.set(state);
            return;
        }
        // The view first, as its tab does: the view left is unmounted before
        // the entry's other values reach any of its effects (which would
        // otherwise queue work for a view that is gone).
        params.update(|p| p.view = state.view);
        set_timeout(move || params.set(state), std::time::Duration::ZERO);
    });
    Effect::new(move |_| browser::set_document_theme(dark.get()));
    Effect::new(move |_| browser::set_title(&format!("{} · commlab", params.with(|p| p.view.label()))));

    let embed = move || params.with(|p| p.embed);
    // A memo, so that the view is rebuilt only when the view changes, not on
    // every parameter change (which would reset focus and playback).
    let view_id = Memo::new(move |_| params.with(|p| p.view));
    // The view is mounted in the task after the shell's: instantiating the
    // wasm, mounting the shell and mounting a view in one task took 50–70 ms,
    // over the 50 ms a main-thread task may take.
    let shell_done = RwSignal::new(false);
    set_timeout(move || shell_done.set(true), std::time::Duration::ZERO);
    let current_view = move || {
        let view = view_id.get();
        if shell_done.get() {
            view.mount(params, dark)
        } else {
            ().into_any()
        }
    };
    view! {
        <div class="app" class:embed=embed data-testid="app">
            <Show when=move || !embed()>
                <Header params=params />
            </Show>
            {welcome.then(|| view! { <crate::controls::welcome::Welcome /> })}
            <Notices notices=notices />
            {move || crate::engine::engine_notice().get().map(|n| view! { <p class="notice engine-notice" data-testid="engine-notice" role="status">{n}</p> })}
            <main>
                // In embed mode the header is hidden: the page keeps one heading, for screen readers.
                <Show when=embed>
                    <h1 class="visually-hidden">{move || format!("commlab: {}", params.with(|p| p.view.label()))}</h1>
                </Show>
                {current_view}
            </main>
            <Show when=embed>
                <footer class="embed-footer">
                    <a href=move || params.with(share_link) target="_blank" rel="noopener" data-testid="open-in-commlab">
                        "open in commlab ↗"
                    </a>
                </footer>
            </Show>
        </div>
    }
}

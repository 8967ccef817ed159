//! The page's side of the lazy bundles (`views_bg.wasm`, `timeline_bg.wasm`):
//! views whose code is loaded only when they are opened, so the first paint does
//! not carry it. [`LazyView`] loads the bundle once (`views-loader.js`),
//! mounts the view into its element with the view's URL pairs, and receives
//! them back as they change (the shell keeps them in [`Params::lazy`], so the
//! address bar, share links and embed code stay the shell's); the theme is
//! passed on as it changes, and the view is unmounted with the element.

use crate::browser;
use crate::codec::{self, Link, Notice, ViewState};
use crate::state::Params;
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// What a lazy view is mounted with.
pub struct LazyArgs {
    /// Its URL pairs, as the shell kept them.
    pub initial: Vec<(String, String)>,
    /// What the link said of itself.
    pub link: Link,
    /// Embed mode.
    pub embed: bool,
    /// The page's theme.
    pub dark: Memo<bool>,
    /// Receives the view's URL pairs (as query text) as they change.
    pub report: Rc<dyn Fn(String)>,
}

impl LazyArgs {
    /// The view's state read from its pairs, and the notices of reading them.
    pub fn read<S: ViewState>(&self) -> (S, RwSignal<Vec<Notice>>) {
        let (state, notices) = codec::read::<S>(&self.initial, &self.link);
        (state, RwSignal::new(notices))
    }

    /// Reports `state`'s URL pairs to the shell whenever they change; in the
    /// next task when `later` (after a view's first drawing).
    pub fn follow<S: ViewState + Send + Sync>(&self, state: RwSignal<S>, later: bool) {
        let report = Rc::clone(&self.report);
        Effect::new(move |_| {
            let pairs = state.with(codec::write);
            let query = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
            if later {
                let report = Rc::clone(&report);
                set_timeout(move || report(query), std::time::Duration::ZERO);
            } else {
                report(query);
            }
        });
    }
}

/// Calls `target[name](args…)`, ignoring what it returns.
fn call(target: &JsValue, name: &str, args: &js_sys::Array) -> Result<JsValue, JsValue> {
    let f: js_sys::Function = js_sys::Reflect::get(target, &name.into())?.dyn_into()?;
    f.apply(target, args)
}

/// Loads lazy bundle `bundle` (`views` or `timeline`) once and returns its exports.
async fn load(bundle: &str) -> Result<JsValue, String> {
    let window = web_sys::window().ok_or("no window")?;
    if js_sys::Reflect::get(&window, &"commlabLoadViews".into()).map_or(true, |f| f.is_undefined()) {
        browser::load_script("./views-loader.js").await?;
    }
    let promise =
        call(&window, "commlabLoadViews", &js_sys::Array::of1(&bundle.into())).map_err(|e| browser::js_text(&e))?;
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise)).await.map_err(|e| browser::js_text(&e))
}

/// "Open in timeline" (a link to the Schedule view with this view's
/// schedule) and "Export GOAL" (the lazy bundle writes the GOAL in a worker
/// and downloads it), under every view that draws a schedule.
#[component]
pub fn ScheduleLinks(
    /// The current view's schedule, and what it runs under (`None`: no links).
    #[prop(into)]
    schedule: Signal<Option<crate::links::Timeline>>,
) -> impl IntoView {
    // Only the Schedule view's params write its keys.
    let schedule = Memo::new(move |_| schedule.with(|s| s.as_ref().map(crate::links::Timeline::state)));
    let query = Memo::new(move |_| schedule.with(|s| s.as_ref().map(crate::links::query_of)));
    // What the timeline runs it under, in words, so no number differs unexplained.
    let under = move || {
        schedule.with(|s| {
            let s = s.as_ref()?;
            if let Some(n) = s.network() {
                return Some(format!(
                    " (on {}: {}{}, network mode's defaults o = g = O = 0, every message eager)",
                    n.topology,
                    n.bandwidth.map_or(String::new(), |b| format!("{} B/ns", commlab_plot::format_quantity(b))),
                    n.latency.map_or(String::new(), |l| format!(", {} ns a link", commlab_plot::format_quantity(l))),
                ));
            }
            let l = s.loggops;
            Some(format!(
                " (under LogGOPS, preset {}: L = {}, o = {}, g = {}, G = {}, O = {} ns, eager up to {} B)",
                s.preset, l.l, l.o, l.g, l.big_g, l.big_o, l.s
            ))
        })
    };
    let status = RwSignal::new(String::new());
    let export = move |_| {
        let Some(q) = query.get_untracked() else { return };
        status.set("Writing the GOAL…".into());
        leptos::task::spawn_local(async move {
            let result = async {
                let exports = load("timeline").await?;
                let promise =
                    call(&exports, "export_goal", &js_sys::Array::of1(&q.into())).map_err(|e| browser::js_text(&e))?;
                wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise))
                    .await
                    .map_err(|e| browser::js_text(&e))
            }
            .await;
            status.set(result.err().unwrap_or_default());
        });
    };
    move || {
        query.get().map(|q| {
            view! {
                <p class="schedule-links" role="group" aria-label="Schedule">
                    <span class="export-label">"This schedule:"</span>
                    <a href=crate::codec::link("schedule", &q) data-testid="open-timeline">"Open in timeline"</a>
                    <span class="timeline-under" data-testid="timeline-under">{under}</span>
                    " "
                    <button type="button" data-testid="export-goal" on:click=export>"Export GOAL"</button>
                    <span class="export-status" role="status">{move || status.get()}</span>
                </p>
            }
        })
    }
}

/// The element a lazy view is mounted into.
#[component]
pub fn LazyView(
    /// The app state (the view, embed mode and the view's pairs in `lazy`).
    params: RwSignal<Params>,
    /// Dark theme.
    dark: Memo<bool>,
) -> impl IntoView {
    let node = NodeRef::<leptos::html::Div>::new();
    let status = RwSignal::new(Some("Loading this view…".to_owned()));
    let handle = StoredValue::new_local(None::<JsValue>);
    let on_query = StoredValue::new_local(None::<Closure<dyn Fn(String)>>);
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let bundle = params.with_untracked(|p| p.view.bundle());
        leptos::task::spawn_local(async move {
            let exports = match load(bundle).await {
                Ok(e) => e,
                Err(e) => {
                    return status
                        .set(Some(format!("This view could not be loaded ({e}). Reload the page to try again.")))
                }
            };
            let report = Closure::<dyn Fn(String)>::new(move |query: String| {
                let pairs = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
                params.update(|p| p.lazy = pairs);
            });
            let (view, query, embed, version) = params.with_untracked(|p| {
                let mut q = form_urlencoded::Serializer::new(String::new());
                q.extend_pairs(&p.lazy);
                (p.view.id(), q.finish(), p.embed, p.link.version)
            });
            let args = js_sys::Array::of5(
                &el.into(),
                &view.into(),
                &query.into(),
                &embed.into(),
                &dark.get_untracked().into(),
            );
            args.push(&version.into());
            args.push(report.as_ref());
            match call(&exports, "mount_view", &args) {
                Ok(h) => {
                    handle.set_value(Some(h));
                    on_query.set_value(Some(report));
                    status.set(None);
                }
                Err(e) => status.set(Some(format!("This view could not start ({}).", browser::js_text(&e)))),
            }
        });
    });
    Effect::new(move |_| {
        let dark = dark.get();
        handle.with_value(|h| h.as_ref().map(|h| call(h, "set_dark", &js_sys::Array::of1(&dark.into()))));
    });
    on_cleanup(move || {
        handle.with_value(|h| h.as_ref().map(|h| call(h, "unmount", &js_sys::Array::new())));
    });
    view! {
        {move || status.get().map(|s| view! { <p class="lazy-status" role="status" data-testid="lazy-status">{s}</p> })}
        <div class="lazy-view" node_ref=node></div>
    }
}

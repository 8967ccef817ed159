//! `views`: the lazy bundle. The UI bundle loads it (`views-loader.js`)
//! only when a view that lives here is opened, and calls [`mount_view`];
//! see `commlab_web::lazy` for the page's side.
#![allow(missing_docs, reason = "wasm_bindgen exports")]

use commlab_api::schedule::{ScheduleQuery, ScheduleResponse};
use commlab_web::chooser::view::ChooserView;
use commlab_web::components::lab_view::LabView;
use commlab_web::components::notices::Notices;
use commlab_web::schedule::client::ScheduleClient;
use commlab_web::schedule::params::ScheduleParams;
use commlab_web::schedule::view::ScheduleView;
use commlab_web::share;
use leptos::prelude::*;
use std::any::Any;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn main() {
    commlab_web::browser::install_panic_hook();
}

/// A mounted view: change its theme, unmount it.
#[wasm_bindgen]
pub struct ViewHandle {
    mounted: Option<Box<dyn Any>>,
    dark: RwSignal<bool>,
}

#[wasm_bindgen]
impl ViewHandle {
    /// Follows the page's theme.
    pub fn set_dark(&self, dark: bool) {
        self.dark.set(dark);
    }

    /// Removes the view (its worker goes with it).
    pub fn unmount(&mut self) {
        self.mounted = None;
    }
}

fn query_of(pairs: &[(String, String)]) -> String {
    form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
}

/// The barrier lab with the shell's app state rebuilt from its pairs: the
/// same component and URL codec as before it moved here; its notices are
/// shown here, and its pairs (without the shell's `v`, `view`, `embed`,
/// `theme`) go back to the shell.
fn lab(query: String, embed: bool, dark: RwSignal<bool>, report: Rc<dyn Fn(String)>) -> impl IntoView {
    let (mut start, first) = share::from_query_in_view(&format!("view=lab&{query}"));
    start.embed = embed;
    let params = RwSignal::new(start);
    let notices = RwSignal::new(first);
    let dark = Memo::new(move |_| dark.get());
    Effect::new(move |_| {
        let all = params.with(share::to_query);
        let own: Vec<(String, String)> = form_urlencoded::parse(all.as_bytes())
            .into_owned()
            .filter(|(k, _)| !["v", "view", "embed", "theme"].contains(&k.as_str()))
            .collect();
        report(query_of(&own));
    });
    view! {
        <Notices notices=notices />
        <LabView params=params dark=dark />
    }
}

/// Writes the generated collective of the Schedule view's pairs `query` as
/// GOAL (in a worker) and downloads it; the promise fails with the reason
/// (a size over the limits, a refused download).
#[wasm_bindgen]
pub fn export_goal(query: &str) -> js_sys::Promise {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let generate = ScheduleParams::from_pairs(&pairs).0.generate;
    let client = ScheduleClient::new();
    js_sys::Promise::new(&mut move |resolve, reject| {
        // The worker lives until it answered.
        let keep = std::cell::RefCell::new(Some(client.clone()));
        client.send(
            ScheduleQuery::Goal(generate.clone()),
            Rc::new(move |response, _| {
                let outcome = match response {
                    ScheduleResponse::Export(name, text) => {
                        commlab_web::browser::download_text(&name, "text/plain", &text).map_err(JsValue::from)
                    }
                    ScheduleResponse::Error(e) => Err(JsValue::from(e.to_string())),
                    ScheduleResponse::Progress { .. }
                    | ScheduleResponse::Ready(_)
                    | ScheduleResponse::Chosen(_)
                    | ScheduleResponse::Map(_)
                    | ScheduleResponse::Profiles(_)
                    | ScheduleResponse::Checked(_) => return,
                };
                let _ = match outcome {
                    Ok(()) => resolve.call0(&JsValue::NULL),
                    Err(e) => reject.call1(&JsValue::NULL, &e),
                };
                keep.borrow_mut().take();
            }),
        );
    })
}

/// Mounts lazy view `view` (its URL pairs in `query`) into `element`;
/// `on_query(text)` receives its URL pairs as they change.
#[wasm_bindgen]
pub fn mount_view(
    element: web_sys::HtmlElement,
    view: &str,
    query: &str,
    embed: bool,
    dark: bool,
    on_query: js_sys::Function,
) -> ViewHandle {
    let dark = RwSignal::new(dark);
    let initial: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let report: Rc<dyn Fn(String)> = Rc::new(move |q: String| {
        let _ = on_query.call1(&JsValue::NULL, &q.into());
    });
    let mounted: Option<Box<dyn Any>> = match view {
        "schedule" => Some(Box::new(leptos::mount::mount_to(element, move || {
            view! { <ScheduleView initial=initial dark=dark embed=embed report=report /> }
        }))),
        "chooser" => Some(Box::new(leptos::mount::mount_to(element, move || {
            view! { <ChooserView initial=initial dark=dark embed=embed report=report /> }
        }))),
        "lab" => Some(Box::new(leptos::mount::mount_to(element, move || lab(query_of(&initial), embed, dark, report)))),
        _ => None,
    };
    ViewHandle { mounted, dark }
}

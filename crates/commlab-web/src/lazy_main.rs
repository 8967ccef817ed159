//! `views`: the lazy bundle. The UI bundle loads it (`views-loader.js`)
//! only when a view that lives here is opened, and calls [`mount_view`];
//! see `commlab_web::views::lazy` for the page's side. A view is mounted
//! with its pairs as the shell kept them ([`LazyArgs`]) and reads them with
//! the one codec.
#![allow(missing_docs, reason = "wasm_bindgen exports")]

use commlab_api::schedule::{ScheduleQuery, ScheduleResponse};
use commlab_web::codec::Link;
use commlab_web::engine::schedule::ScheduleClient;
use commlab_web::views::lazy::LazyArgs;
use commlab_web::views::schedule::params::ScheduleParams;
use commlab_web::views::LAZY;
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

/// Writes the generated collective of the Schedule view's pairs `query` as
/// GOAL (in a worker) and downloads it; the promise fails with the reason
/// (a size over the limits, a refused download).
#[wasm_bindgen]
pub fn export_goal(query: &str) -> js_sys::Promise {
    let pairs = commlab_web::codec::pairs(query);
    let generate = commlab_web::codec::read::<ScheduleParams>(&pairs, &Link::default()).0.generate;
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

/// Mounts lazy view `view` (its URL pairs in `query`; `version`: the
/// link's `v=`) into `element`; `on_query(text)` receives its URL pairs as they change.
#[wasm_bindgen]
#[allow(clippy::needless_pass_by_value, clippy::too_many_arguments, reason = "wasm_bindgen exports take JS values")]
pub fn mount_view(
    element: web_sys::HtmlElement,
    view: &str,
    query: &str,
    embed: bool,
    dark: bool,
    version: u32,
    on_query: js_sys::Function,
) -> ViewHandle {
    let dark = RwSignal::new(dark);
    let args = LazyArgs {
        initial: commlab_web::codec::pairs(query),
        link: Link { version },
        embed,
        dark: Memo::new(move |_| dark.get()),
        report: Rc::new(move |q: String| {
            let _ = on_query.call1(&JsValue::NULL, &q.into());
        }),
    };
    let mounted: Option<Box<dyn Any>> = LAZY
        .iter()
        .find(|(v, _)| v.id() == view)
        .map(|&(_, mount)| Box::new(leptos::mount::mount_to(element, move || mount(args))) as Box<dyn Any>);
    ViewHandle { mounted, dark }
}

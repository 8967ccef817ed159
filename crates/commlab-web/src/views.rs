//! `views`: the lazy bundle. The UI bundle loads it (`views-loader.js`)
//! only when a view that lives here is opened, and calls [`mount_view`];
//! see `commlab_web::lazy` for the page's side.
#![allow(missing_docs, reason = "wasm_bindgen exports")]

use commlab_web::schedule::view::ScheduleView;
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

/// Mounts lazy view `view` (its URL pairs in `query`) into `element`;
/// `on_query(text)` receives its URL pairs as they change.
#[wasm_bindgen]
pub fn mount_view(element: web_sys::HtmlElement, view: &str, query: &str, embed: bool, dark: bool, on_query: js_sys::Function) -> ViewHandle {
    let dark = RwSignal::new(dark);
    let initial: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let report: Rc<dyn Fn(String)> = Rc::new(move |q: String| {
        let _ = on_query.call1(&JsValue::NULL, &q.into());
    });
    let mounted: Option<Box<dyn Any>> = match view {
        "schedule" => Some(Box::new(leptos::mount::mount_to(element, move || {
            view! { <ScheduleView initial=initial dark=dark embed=embed report=report /> }
        }))),
        _ => None,
    };
    ViewHandle { mounted, dark }
}

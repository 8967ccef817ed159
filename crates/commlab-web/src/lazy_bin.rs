// The lazy bundles' shared body (`include!`d by `lazy_main.rs` and
// `timeline_main.rs`; `BUNDLE` tells them apart).

use commlab_web::codec::Link;
use commlab_web::lazy::LazyArgs;
use commlab_web::views::LAZY;
use leptos::prelude::*;
use std::any::Any;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn main() {
    commlab_web::browser::install_panic_hook();
}

/// This bundle's name (the bin's): it mounts only the lazy views listed under it.
const BUNDLE: &str = env!("CARGO_BIN_NAME");

/// `a == b`, at compile time, so the other bundle's views are not linked.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

// `mount_view` unrolls `each!` over every index of `LAZY`: a lazy view
// added to the table fails the build until it is listed there.
const _: () = assert!(LAZY.len() == 4, "list every index of views::LAZY in mount_view's each!(…)");

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
    // Unrolled over the const list, so a view of the other bundle is never referenced here.
    macro_rules! each {
        ($($i:literal),*) => {$(
            if const { same(LAZY[$i].0.bundle(), BUNDLE) } && LAZY[$i].0.id() == view {
                let mount = LAZY[$i].1;
                let mounted: Box<dyn Any> = Box::new(leptos::mount::mount_to(element.clone(), move || mount(args)));
                return ViewHandle { mounted: Some(mounted), dark };
            }
        )*};
    }
    each!(0, 1, 2, 3);
    ViewHandle { mounted: None, dark }
}

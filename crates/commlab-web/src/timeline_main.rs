//! `timeline`: the lazy bundle of the Schedule view (timeline, network
//! picture), the swizzle view and the barrier lab, in its own wasm so
//! neither it nor the `views` bundle (the Chooser) outgrows its budget. Loaded and mounted like `views` (`lazy_main.rs`); it also
//! writes GOAL files (`export_goal`, for "Export GOAL" under every view that draws a schedule).
#![allow(missing_docs, reason = "wasm_bindgen exports")]

include!("lazy_bin.rs");

use commlab_api::sim::{SimQuery, SimResponse};
use commlab_web::engine::sim::SimClient;
use commlab_web::views::schedule::params::ScheduleParams;

/// Writes the generated collective of the Schedule view's pairs `query` as
/// GOAL (in a worker) and downloads it; the promise fails with the reason
/// (a size over the limits, a refused download).
#[wasm_bindgen]
pub fn export_goal(query: &str) -> js_sys::Promise {
    let pairs = commlab_web::codec::pairs(query);
    let generate = commlab_web::codec::read::<ScheduleParams>(&pairs, &Link::default()).0.generate;
    let client = SimClient::new();
    js_sys::Promise::new(&mut move |resolve, reject| {
        // The worker lives until it answered.
        let keep = std::cell::RefCell::new(Some(client.clone()));
        client.send(
            SimQuery::Goal(generate.clone()),
            Rc::new(move |response, _| {
                let outcome = match response {
                    SimResponse::Export(name, text) => {
                        commlab_web::browser::download_text(&name, "text/plain", &text).map_err(JsValue::from)
                    }
                    SimResponse::Error(e) => Err(JsValue::from(e.to_string())),
                    SimResponse::Progress { .. }
                    | SimResponse::Ready(_)
                    | SimResponse::Partial(_)
                    | SimResponse::Chosen(_)
                    | SimResponse::Map(_)
                    | SimResponse::Profiles(_)
                    | SimResponse::Checked(_)
                    | SimResponse::Fitted(_)
                    | SimResponse::Expected(_)
                    | SimResponse::SystemFitted(_)
                    | SimResponse::Flowed(..) => return,
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

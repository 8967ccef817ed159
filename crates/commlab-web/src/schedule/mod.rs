//! The Schedule view (lazy bundle): a GOAL schedule, generated or opened,
//! simulated under LogGOPS in the engine worker and drawn as a timeline.
//!
//! - [`params`]: the view's URL parameters (read, checked, written);
//! - [`client`]: the view's worker (`{gen, sched}` messages, the schedule
//!   protocol of `commlab_api::schedule`), with the page fallback;
//! - [`store`]: the opened file kept in the browser's `IndexedDB`;
//! - [`view`]: the component.
//!
//! This module's wire helpers are shared with the worker: a result's
//! timeline crosses as transferred `Float64Array`s, not as serde values.

pub mod client;
pub mod params;
pub mod store;
pub mod view;

use commlab_api::schedule::Timeline;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The timeline's arrays, by property name.
pub const TIMELINE_ARRAYS: [&str; 4] = ["bars", "messages", "ops", "critical"];

/// The timeline as a plain object of `Float64Array`s (plus `cpus`, `nics`).
pub fn timeline_to_js(t: &Timeline) -> js_sys::Object {
    let o = js_sys::Object::new();
    for (name, values) in TIMELINE_ARRAYS.iter().zip([&t.bars, &t.messages, &t.ops, &t.critical]) {
        let _ = js_sys::Reflect::set(&o, &(*name).into(), &js_sys::Float64Array::from(values.as_slice()));
    }
    let _ = js_sys::Reflect::set(&o, &"cpus".into(), &t.cpus.into());
    let _ = js_sys::Reflect::set(&o, &"nics".into(), &t.nics.into());
    o
}

/// The timeline back from [`timeline_to_js`]'s object.
pub fn timeline_from_js(o: &JsValue) -> Option<Timeline> {
    let array = |name: &str| -> Option<Vec<f64>> {
        js_sys::Reflect::get(o, &name.into()).ok()?.dyn_into::<js_sys::Float64Array>().ok().map(|a| a.to_vec())
    };
    let number = |name: &str| js_sys::Reflect::get(o, &name.into()).ok().and_then(|v| v.as_f64()).map(|v| v as u32);
    Some(Timeline {
        cpus: number("cpus")?,
        nics: number("nics")?,
        bars: array("bars")?,
        messages: array("messages")?,
        ops: array("ops")?,
        critical: array("critical")?,
    })
}

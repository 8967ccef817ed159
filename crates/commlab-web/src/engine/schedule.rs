//! The Schedule view's engine worker: the same engine bundle as the other
//! views (`worker_loader.js`), spoken to with `{gen, sched}` messages and
//! answered `{gen, sres, timeline}` (see `worker.rs`).
//!
//! - A new run supersedes: a busy worker is terminated at once and a fresh
//!   one started, so no stale result arrives; answers of older generations
//!   are dropped.
//! - Cancel terminates the worker.
//! - The worker keeps the last schedule, so new LogGOPS parameters re-run it
//!   without sending an opened file again ([`ScheduleClient::holds_run`]).
//! - Without workers the same engine runs on the page in slices of ~8 ms.

use crate::browser;
use commlab_api::schedule::{ScheduleEngine, ScheduleQuery, ScheduleResponse, Timeline};
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Receives each answer of the current query (progress, then the final one).
pub type OnResponse = Rc<dyn Fn(ScheduleResponse, Option<Timeline>)>;

/// Work per page slice when there is no worker.
const SLICE_MS: f64 = 8.0;

struct Inner {
    worker: Option<web_sys::Worker>,
    ready: bool,
    busy: bool,
    /// The worker holds a finished run.
    holds_run: bool,
    generation: u64,
    queued: Option<JsValue>,
    handler: Option<OnResponse>,
    on_message: Option<Closure<dyn FnMut(web_sys::MessageEvent)>>,
    /// The engine on the page when workers are unavailable.
    local: Option<Rc<RefCell<ScheduleEngine>>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(w) = &self.worker {
            browser::end_worker(w);
        }
    }
}

/// Runs the page engine for about [`SLICE_MS`], then yields to the page and goes on.
fn slice(engine: Rc<RefCell<ScheduleEngine>>, deliver: Rc<dyn Fn(ScheduleResponse) -> bool>) {
    let started = browser::now_ms();
    loop {
        let Some(r) = engine.borrow_mut().step(20_000) else { return };
        let last = r.is_final();
        if !deliver(r) || last {
            return;
        }
        if browser::now_ms() - started > SLICE_MS {
            break;
        }
    }
    leptos::prelude::set_timeout(move || slice(engine, deliver), Duration::ZERO);
}

/// The view's worker.
#[derive(Clone)]
pub struct ScheduleClient(Rc<RefCell<Inner>>);

fn to_js<T: Serialize>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true))
        .unwrap_or(JsValue::NULL)
}

impl ScheduleClient {
    /// Starts the worker (or prepares the page fallback).
    #[allow(clippy::new_without_default, reason = "new starts a worker: not a plain value")]
    pub fn new() -> ScheduleClient {
        let client = ScheduleClient(Rc::new(RefCell::new(Inner {
            worker: None,
            ready: false,
            busy: false,
            holds_run: false,
            generation: 0,
            queued: None,
            handler: None,
            on_message: None,
            local: None,
        })));
        client.spawn();
        client
    }

    /// Whether the engine holds a finished run (for [`ScheduleQuery::Resimulate`]).
    pub fn holds_run(&self) -> bool {
        self.0.borrow().holds_run
    }

    /// Whether runs happen on the page (no worker could start).
    pub fn on_page(&self) -> bool {
        self.0.borrow().local.is_some()
    }

    fn spawn(&self) {
        let disabled = browser::query_value("__commlab_no_worker").is_some();
        let worker = if disabled { Err(JsValue::NULL) } else { browser::start_worker() };
        let mut inner = self.0.borrow_mut();
        inner.ready = false;
        inner.busy = false;
        inner.holds_run = false;
        let Ok(worker) = worker else {
            inner.local = Some(Rc::new(RefCell::new(ScheduleEngine::new())));
            return;
        };
        let weak = Rc::downgrade(&self.0);
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let Some(inner) = weak.upgrade() else { return };
            let data = ev.data();
            let get = |k: &str| js_sys::Reflect::get(&data, &k.into()).unwrap_or(JsValue::UNDEFINED);
            let failed = get("failed").as_string().or_else(|| {
                // An error event (the script did not load, or the engine trapped).
                (data.is_undefined() && js_sys::Reflect::has(&ev, &"message".into()).unwrap_or(false)).then(|| {
                    js_sys::Reflect::get(&ev, &"message".into())
                        .ok()
                        .and_then(|m| m.as_string())
                        .unwrap_or_else(|| "the worker script failed to load".into())
                })
            });
            if let Some(text) = failed {
                ScheduleClient(inner).failed(&text);
                return;
            }
            if get("ready").is_truthy() {
                let queued = {
                    let mut i = inner.borrow_mut();
                    i.ready = true;
                    i.queued.take()
                };
                if let (Some(msg), Some(w)) = (queued, inner.borrow().worker.clone()) {
                    let _ = w.post_message(&msg);
                }
                return;
            }
            if let Some(text) = get("panic").as_string() {
                browser::show_panic(&text);
                return;
            }
            let generation = get("gen").as_f64().unwrap_or(-1.0) as u64;
            let (current, handler) = {
                let i = inner.borrow();
                (i.generation, i.handler.clone())
            };
            if generation != current {
                return;
            }
            let response = serde_wasm_bindgen::from_value::<ScheduleResponse>(get("sres")).unwrap_or_else(|e| {
                ScheduleResponse::Error(commlab_api::ApiError::new("response", e, "a ScheduleResponse"))
            });
            let timeline = timeline_from_js(&get("timeline"));
            if response.is_final() {
                let mut i = inner.borrow_mut();
                i.busy = false;
                if let ScheduleResponse::Ready(_) = response {
                    i.holds_run = true;
                }
            }
            if let Some(h) = handler {
                h(response, timeline);
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_message.as_ref().unchecked_ref()));
        inner.worker = Some(worker);
        inner.on_message = Some(on_message);
        inner.local = None;
    }

    fn restart(&self) {
        let old = self.0.borrow_mut().worker.take();
        if let Some(w) = old {
            browser::end_worker(&w);
            self.spawn();
        }
    }

    /// The worker could not start or stopped: the query in flight (or
    /// queued) is answered with the error, so the view shows it with its
    /// "run again"; the next query starts a fresh worker.
    fn failed(&self, text: &str) {
        let (handler, had_work) = {
            let mut i = self.0.borrow_mut();
            if let Some(w) = i.worker.take() {
                browser::end_worker(&w);
            }
            i.on_message = None;
            let had_work = i.busy || i.queued.is_some();
            i.busy = false;
            i.ready = false;
            i.holds_run = false;
            i.queued = None;
            i.generation += 1;
            (i.handler.clone(), had_work)
        };
        if let (Some(h), true) = (handler, had_work) {
            h(
                ScheduleResponse::Error(commlab_api::ApiError::problem(
                    "engine",
                    format!("the engine worker stopped before answering ({text})"),
                )),
                None,
            );
        }
    }

    /// Sends `query`; `handler` gets its answers. A run under way is dropped
    /// (its worker terminated) unless `query` only exports.
    pub fn send(&self, query: ScheduleQuery, handler: OnResponse) {
        let run = !matches!(query, ScheduleQuery::Export(_) | ScheduleQuery::Goal(_));
        if run && self.0.borrow().busy {
            self.restart();
        }
        let generation = {
            let mut i = self.0.borrow_mut();
            i.generation += 1;
            i.handler = Some(handler);
            if run {
                i.busy = true;
            }
            i.generation
        };
        let (local, none) = {
            let i = self.0.borrow();
            (i.local.clone(), i.worker.is_none())
        };
        if none && local.is_none() {
            self.spawn();
        }
        if let Some(engine) = local {
            self.run_here(&engine, query, generation);
            return;
        }
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"gen".into(), &(generation as f64).into());
        let _ = js_sys::Reflect::set(&msg, &"sched".into(), &to_js(&query));
        let msg: JsValue = msg.into();
        let mut i = self.0.borrow_mut();
        match (&i.worker, i.ready) {
            (Some(w), true) => {
                let _ = w.post_message(&msg);
            }
            _ => i.queued = Some(msg),
        }
    }

    /// Stops the run under way, if any (an idle worker is kept).
    pub fn stop(&self) {
        if self.0.borrow().busy {
            self.cancel();
        }
    }

    /// Stops the run under way.
    pub fn cancel(&self) {
        self.0.borrow_mut().generation += 1;
        self.restart();
    }

    /// The page fallback: the engine in slices between frames.
    fn run_here(&self, engine: &Rc<RefCell<ScheduleEngine>>, query: ScheduleQuery, generation: u64) {
        let deliver = {
            let inner = self.0.clone();
            move |r: ScheduleResponse| {
                let (current, handler) = {
                    let i = inner.borrow();
                    (i.generation, i.handler.clone())
                };
                if generation != current {
                    return false;
                }
                let timeline = match &r {
                    ScheduleResponse::Ready(result) => result.timeline.clone(),
                    _ => None,
                };
                if r.is_final() {
                    let mut i = inner.borrow_mut();
                    i.busy = false;
                    i.holds_run |= matches!(r, ScheduleResponse::Ready(_));
                }
                if let Some(h) = handler {
                    h(r, timeline);
                }
                true
            }
        };
        if let Some(done) = engine.borrow_mut().begin(query) {
            deliver(done);
            return;
        }
        slice(engine.clone(), Rc::new(deliver));
    }
}

// The timeline on the wire: a result's timeline crosses as transferred
// `Float64Array`s, not as serde values (shared with the worker).

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

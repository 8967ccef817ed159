//! `worker`: the engine bundle. Trunk builds it as a second wasm
//! (`data-type="worker"`, `opt-level = 3`) that serves
//! [`commlab_api::protocol::Engine`] requests in a Web Worker.
//!
//! Messages: the page posts `{gen, req}` (a serde [`Request`]); the worker
//! answers `{gen, res}` (a serde [`Response`]; progress about every 50 ms,
//! then the final response), with `bitmap` (an `ImageBitmap`, transferred)
//! when a canvas frame was painted. `{ready: true}` says it is listening;
//! `{panic: text}` that the engine panicked (the page shows its banner).
//!
//! When workers are unavailable the page loads this same bundle on the main
//! thread (`web/engine-fallback.js`) and drives [`EngineHandle`] in slices;
//! `main` then registers nothing.
#![allow(missing_docs, reason = "wasm_bindgen exports")]

use commlab_api::protocol::{Engine, Request, Response};
use commlab_api::sim::{SimEngine, SimQuery, SimResponse};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Events per slice between progress checks in the worker.
const SLICE_EVENTS: u64 = 50_000;
/// Progress messages at most this often.
const PROGRESS_MS: f64 = 50.0;

fn main() {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else { return };
    std::panic::set_hook(Box::new(|info| {
        if let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() {
            let msg = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&msg, &"panic".into(), &info.to_string().into());
            let _ = scope.post_message(&msg);
        }
    }));
    let mut engine = Engine::new();
    let mut schedules = SimEngine::new();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let data = ev.data();
        let generation = js_sys::Reflect::get(&data, &"gen".into()).unwrap_or(JsValue::UNDEFINED);
        // The Schedule view's queries (`{gen, sched}`), answered `{gen, sres}`.
        if let Ok(query) = js_sys::Reflect::get(&data, &"sched".into()) {
            if !query.is_undefined() {
                serve_schedule(&mut schedules, &generation, query);
                return;
            }
        }
        let request = js_sys::Reflect::get(&data, &"req".into()).unwrap_or(JsValue::UNDEFINED);
        let ratio = js_sys::Reflect::get(&data, &"ratio".into()).ok().and_then(|r| r.as_f64()).unwrap_or(1.0);
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let request: Request = match serde_wasm_bindgen::from_value(request) {
            Ok(r) => r,
            Err(e) => {
                let err = commlab_api::ApiError::new("request", e, "a commlab_api::protocol::Request");
                post(&scope, &generation, &Response::Error(err), None);
                return;
            }
        };
        let now =
            || js_sys::global().unchecked_into::<web_sys::WorkerGlobalScope>().performance().map_or(0.0, |p| p.now());
        let mut last = now();
        let response = engine.serve(request, SLICE_EVENTS, |progress| {
            let t = now();
            if t - last >= PROGRESS_MS {
                last = t;
                post(&scope, &generation, progress, None);
            }
        });
        let bitmap = painted(&engine, &response, ratio);
        post(&scope, &generation, &response, bitmap.as_ref());
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let ready = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&ready, &"ready".into(), &true.into());
    let _ = scope.post_message(&ready);
}

/// Events per slice of a schedule simulation between progress checks.
const SCHEDULE_SLICE_EVENTS: u64 = 200_000;

fn serve_schedule(engine: &mut SimEngine, generation: &JsValue, query: JsValue) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let query: SimQuery = match serde_wasm_bindgen::from_value(query) {
        Ok(q) => q,
        Err(e) => {
            let err = commlab_api::ApiError::new("query", e, "a commlab_api::sim::SimQuery");
            post_schedule(&scope, generation, &SimResponse::Error(err));
            return;
        }
    };
    let now = || js_sys::global().unchecked_into::<web_sys::WorkerGlobalScope>().performance().map_or(0.0, |p| p.now());
    let mut last = now();
    let response = engine.serve(query, SCHEDULE_SLICE_EVENTS, &mut |progress| {
        let t = now();
        // Progress is thinned out; a partial result always goes, and so does
        // each size of an expected curve (a few dozen at most, seconds apart
        // on a large System).
        let sized = matches!(progress, SimResponse::Progress { phase, .. } if phase == "sizes");
        if t - last >= PROGRESS_MS || sized || matches!(progress, SimResponse::Partial(_)) {
            last = t;
            post_schedule(&scope, generation, progress);
        }
    });
    post_schedule(&scope, generation, &response);
}

/// Posts `{gen, sres}`; a result's timeline goes as transferred `Float64Array`s (`timeline`).
fn post_schedule(scope: &DedicatedWorkerGlobalScope, generation: &JsValue, response: &SimResponse) {
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"gen".into(), generation);
    let _ = js_sys::Reflect::set(&msg, &"sres".into(), &to_js(response));
    let mut transfer = js_sys::Array::new();
    if let SimResponse::Ready(result) | SimResponse::Partial(result) = response {
        let (arrays, buffers) = commlab_web::engine::sim::arrays_to_js(result);
        for key in ["timeline", "picture"] {
            if let Ok(v) = js_sys::Reflect::get(&arrays, &key.into()) {
                if !v.is_undefined() {
                    let _ = js_sys::Reflect::set(&msg, &key.into(), &v);
                }
            }
        }
        transfer = buffers;
    }
    let _ = scope.post_message_with_transfer(&msg, &transfer);
}

/// The codec of both directions: `u64` as `BigInt` when large (seeds), plain objects.
fn to_js<T: Serialize>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true))
        .unwrap_or(JsValue::NULL)
}

fn post(scope: &DedicatedWorkerGlobalScope, generation: &JsValue, response: &Response, bitmap: Option<&JsValue>) {
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"gen".into(), generation);
    let _ = js_sys::Reflect::set(&msg, &"res".into(), &to_js(response));
    if let Some(b) = bitmap {
        let _ = js_sys::Reflect::set(&msg, &"bitmap".into(), b);
        let _ = scope.post_message_with_transfer(&msg, &js_sys::Array::of1(b));
    } else {
        let _ = scope.post_message(&msg);
    }
}

/// The bitmap of a canvas frame (a frame without SVG), painted off the page.
fn painted(engine: &Engine, response: &Response, ratio: f64) -> Option<JsValue> {
    let (Response::Frame(frame) | Response::MeshReady(_, frame)) = response else { return None };
    if frame.svg.is_some() {
        return None;
    }
    let scene = engine.scene()?;
    commlab_web::paint::paint(&scene, ratio).ok()
}

/// The engine on the page's main thread, when workers are unavailable:
/// `begin` a request, then `step` it in short slices between frames.
#[wasm_bindgen]
pub struct EngineHandle {
    engine: Engine,
}

#[wasm_bindgen]
impl EngineHandle {
    #[wasm_bindgen(constructor)]
    pub fn new() -> EngineHandle {
        EngineHandle { engine: Engine::new() }
    }

    /// Begins a request: the final response at once, or `undefined` when
    /// the work goes on with `step`.
    pub fn begin(&mut self, request: JsValue) -> JsValue {
        match serde_wasm_bindgen::from_value::<Request>(request) {
            Ok(r) => self.engine.begin(r).map_or(JsValue::UNDEFINED, |r| to_js(&r)),
            Err(e) => to_js(&Response::Error(commlab_api::ApiError::new("request", e, "a Request"))),
        }
    }

    /// Advances the work under way by at most `events` (progress or the final response).
    pub fn step(&mut self, events: f64) -> JsValue {
        self.engine.step(events as u64).map_or(JsValue::UNDEFINED, |r| to_js(&r))
    }

    /// The bitmap of the last canvas frame (as the worker would send it).
    pub fn bitmap(&self, ratio: f64) -> JsValue {
        self.engine.scene().and_then(|s| commlab_web::paint::paint(&s, ratio).ok()).unwrap_or(JsValue::UNDEFINED)
    }
}

impl Default for EngineHandle {
    fn default() -> Self {
        EngineHandle::new()
    }
}

/// The Schedule view's engine on the page's main thread, when workers are
/// unavailable (as [`EngineHandle`]); a result's timeline is kept for
/// `timeline`, as the worker transfers it beside the answer.
#[wasm_bindgen]
pub struct SimHandle {
    engine: SimEngine,
    timeline: JsValue,
}

#[wasm_bindgen]
impl SimHandle {
    #[wasm_bindgen(constructor)]
    pub fn new() -> SimHandle {
        SimHandle { engine: SimEngine::new(), timeline: JsValue::UNDEFINED }
    }

    /// Begins a query: the final answer at once, or `undefined` when the work goes on with `step`.
    pub fn begin(&mut self, query: JsValue) -> JsValue {
        match serde_wasm_bindgen::from_value::<SimQuery>(query) {
            Ok(q) => {
                let answer = self.engine.begin(q);
                self.answer(answer)
            }
            Err(e) => to_js(&SimResponse::Error(commlab_api::ApiError::new("query", e, "a SimQuery"))),
        }
    }

    /// Advances the work under way by at most `events` (progress or the final answer).
    pub fn step(&mut self, events: f64) -> JsValue {
        let answer = self.engine.step(events as u64);
        self.answer(answer)
    }

    /// The last result's arrays (`timeline`, `picture`; `undefined` when it has none).
    pub fn arrays(&self) -> JsValue {
        self.timeline.clone()
    }

    fn answer(&mut self, answer: Option<SimResponse>) -> JsValue {
        let Some(r) = answer else { return JsValue::UNDEFINED };
        if let SimResponse::Ready(result) | SimResponse::Partial(result) = &r {
            self.timeline = commlab_web::engine::sim::arrays_to_js(result).0.into();
        }
        to_js(&r)
    }
}

impl Default for SimHandle {
    fn default() -> Self {
        SimHandle::new()
    }
}

/// Milliseconds of one barrier of `algorithm` (an id) on a `size × size` mesh
/// with `rate` of the links broken (connected variant), structures, breaks and
/// routing included (criterion's "barrier 64x64 20%"), in this bundle's
/// build (`tests/e2e/bench.mjs` loads it on the page through the fallback).
#[cfg(feature = "bench")]
#[wasm_bindgen]
pub fn commlab_bench_barrier(algorithm: &str, size: u32, rate: f64, repeats: u32) -> f64 {
    use commlab_core::barrier::engine::{Scenario, Simulation};
    let Ok(algorithm) = algorithm.parse() else { return f64::NAN };
    let scenario = Scenario {
        size: size.into(),
        algorithm,
        break_rate: rate,
        seed: 1,
        connected: true,
        barriers: 1,
        ..Scenario::default()
    };
    let now = || js_sys::Date::now();
    let t0 = now();
    for _ in 0..repeats {
        if Simulation::new(scenario.clone()).map(|s| s.run().events).is_err() {
            return f64::NAN;
        }
    }
    (now() - t0) / f64::from(repeats.max(1))
}

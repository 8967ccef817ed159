//! The page's side of the engine: a [`Client`] owns one Web Worker running
//! the `worker` bundle and sends it [`Request`]s; a [`Pool`] shares a lab
//! sweep among several clients.
//!
//! - **Runs supersede.** [`Client::run`] starts heavy work; if the worker is
//!   still busy with older work it is terminated at once and a fresh one is
//!   started, so a stale result can never arrive. Every request carries a
//!   generation id and only the latest generation's responses are delivered.
//! - **Queries queue.** [`Client::query`] (a frame, an export) waits for the
//!   work in flight and only the latest query is kept.
//! - **Cancel** terminates a busy worker at once.
//! - **Fallback.** When a worker cannot start (blocked, or its script fails
//!   to load), the client loads the same bundle on the main thread
//!   (`engine-fallback.js`) and drives it in slices of about
//!   [`FALLBACK_SLICE_MS`], and [`engine_notice`] says so.
//! - **Panics.** A panic inside the worker reaches the page's panic banner
//!   with its message.

pub mod schedule;
pub mod split;

use crate::browser;
use commlab_api::protocol::{Request, Response};
use leptos::prelude::*;
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Work per main-thread slice when the engine runs on the page.
const FALLBACK_SLICE_MS: f64 = 8.0;
/// Events per fallback step between clock checks.
const FALLBACK_STEP_EVENTS: f64 = 2_000.0;

/// Called with each response of the current generation, and the painted
/// bitmap of a canvas frame.
pub type Handler = Rc<dyn Fn(Response, Option<JsValue>)>;

thread_local! {
    /// An `ArcRwSignal`: it belongs to no component, so it outlives the views that set it.
    static NOTICE: ArcRwSignal<Option<String>> = ArcRwSignal::new(None);
    /// The fallback engine's exports, once loaded (shared by every client).
    static FALLBACK: RefCell<FallbackState> = const { RefCell::new(FallbackState::Unloaded) };
}

/// A sentence for the page when the engine runs on the main thread.
pub fn engine_notice() -> ArcRwSignal<Option<String>> {
    NOTICE.with(Clone::clone)
}

/// Called once the fallback engine's exports are loaded (or failed to).
type OnLoaded = Box<dyn FnOnce(Result<JsValue, String>)>;

enum FallbackState {
    Unloaded,
    Loading(Vec<OnLoaded>),
    Loaded(JsValue),
    Failed(String),
}

enum Mode {
    Worker { worker: web_sys::Worker, ready: bool },
    Fallback { handle: Option<JsValue> },
}

struct Inner {
    mode: Mode,
    /// The worker reported a panic (its trap that follows is not news).
    panicked: bool,
    generation: u64,
    /// The request in flight: its generation and handler.
    current: Option<(u64, Handler)>,
    /// Requests waiting to be sent, in order (queries behind work in flight,
    /// or anything before the worker is ready); one per kind of request.
    queued: Vec<(u64, Request, Handler)>,
    /// Keeps the worker's callbacks alive.
    callbacks: Vec<Closure<dyn FnMut(web_sys::MessageEvent)>>,
    /// The engine bundle's handle on the page, for runs small enough to do
    /// at once ([`Client::run_small`]), once loaded.
    local: Option<JsValue>,
    /// The last run was done on the page: its frames and exports are asked there.
    session_here: bool,
}

impl Drop for Inner {
    /// A view that goes away takes its worker with it.
    fn drop(&mut self) {
        if let Mode::Worker { worker, .. } = &self.mode {
            browser::end_worker(worker);
        }
    }
}

/// One engine worker.
#[derive(Clone)]
pub struct Client(Rc<RefCell<Inner>>);

impl Client {
    /// Starts a worker (or the fallback when workers are unavailable).
    #[allow(clippy::new_without_default, reason = "new starts a worker: not a plain value")]
    pub fn new() -> Client {
        let client = Client(Rc::new(RefCell::new(Inner {
            mode: Mode::Fallback { handle: None },
            panicked: false,
            generation: 0,
            current: None,
            queued: Vec::new(),
            callbacks: Vec::new(),
            local: None,
            session_here: false,
        })));
        client.spawn();
        client
    }

    fn spawn(&self) {
        let force_fallback = browser::query_value("__commlab_no_worker").is_some();
        let worker = if force_fallback {
            Err(JsValue::from_str("workers disabled by the page's test switch"))
        } else {
            browser::start_worker()
        };
        let worker = match worker {
            Ok(w) => w,
            Err(e) => {
                self.fall_back(&crate::browser::js_text(&e));
                return;
            }
        };
        let weak = Rc::downgrade(&self.0);
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(inner) = weak.upgrade() {
                Client(inner).on_message(&ev.data());
            }
        });
        let weak = Rc::downgrade(&self.0);
        let on_error = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(inner) = weak.upgrade() {
                let text = js_sys::Reflect::get(&ev, &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_else(|| "the worker script failed to load".into());
                Client(inner).on_error(&text);
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let mut inner = self.0.borrow_mut();
        inner.mode = Mode::Worker { worker, ready: false };
        inner.callbacks = vec![on_message, on_error];
    }

    /// Heavy work: supersedes whatever is in flight (terminating a busy worker).
    pub fn run(&self, request: Request, handler: Handler) {
        self.0.borrow_mut().session_here = false;
        let generation = self.next_generation();
        let busy = self.0.borrow().current.is_some();
        if busy {
            self.restart();
        }
        // Queries queued for the superseded work are stale.
        self.0.borrow_mut().queued.clear();
        self.send(generation, request, handler);
    }

    /// A quick question (a frame, an export): waits behind work in flight.
    pub fn query(&self, request: Request, handler: Handler) {
        if self.0.borrow().session_here && matches!(request, Request::MeshFrame(_) | Request::MeshExport(_)) {
            return self.here(&request, handler);
        }
        let generation = self.next_generation();
        let busy = self.0.borrow().current.is_some();
        if busy {
            self.enqueue(generation, request, handler);
        } else {
            self.send(generation, request, handler);
        }
    }

    /// Loads the engine bundle on the page too (in the background), so that
    /// [`Client::run_small`] can answer small runs without the round trip to
    /// the worker.
    pub fn load_here(&self) {
        if self.0.borrow().local.is_some() {
            return;
        }
        let weak = Rc::downgrade(&self.0);
        load_fallback(Box::new(move |exports| {
            if let (Some(inner), Ok(handle)) = (weak.upgrade(), exports.and_then(|e| new_handle(&e))) {
                inner.borrow_mut().local = Some(handle);
            }
        }));
    }

    /// A run whose cost is bounded (`small`: the caller's closed-form check)
    /// is done at once on the page once the engine is loaded there; anything
    /// else is a [`Client::run`].
    pub fn run_small(&self, request: Request, handler: Handler, small: bool) {
        let ready = matches!(self.0.borrow().mode, Mode::Worker { .. }) && self.0.borrow().local.is_some();
        if !(small && ready) {
            return self.run(request, handler);
        }
        // Whatever the worker was doing is stale now.
        self.cancel();
        self.0.borrow_mut().session_here = true;
        self.here(&request, handler);
    }

    /// Serves `request` on the page's engine at once and hands the answer
    /// to `handler`.
    fn here(&self, request: &Request, handler: Handler) {
        let Some(handle) = self.0.borrow().local.clone() else { return };
        let mut answer = call(&handle, "begin", &[to_js(request)]);
        while matches!(&answer, Ok(r) if r.is_undefined()) {
            answer = call(&handle, "step", &[JsValue::from_f64(f64::MAX)]);
        }
        match answer.map(serde_wasm_bindgen::from_value::<Response>) {
            Ok(Ok(r)) => handler(r, None),
            _ => browser::show_panic("inside the engine on the page: no answer"),
        }
    }

    /// Stops the work in flight at once; its responses never arrive.
    pub fn cancel(&self) {
        self.next_generation();
        let busy = self.0.borrow().current.is_some();
        self.0.borrow_mut().queued.clear();
        if busy {
            self.restart();
        }
    }

    /// Queues `request`, replacing a queued request of the same kind (only the latest frame matters).
    fn enqueue(&self, generation: u64, request: Request, handler: Handler) {
        let mut inner = self.0.borrow_mut();
        let kind = std::mem::discriminant(&request);
        inner.queued.retain(|(_, r, _)| std::mem::discriminant(r) != kind);
        inner.queued.push((generation, request, handler));
    }

    /// Terminates the worker and forgets every request (a view going away).
    pub fn close(&self) {
        let mut inner = self.0.borrow_mut();
        inner.generation += 1;
        inner.current = None;
        inner.queued.clear();
        if let Mode::Worker { worker, .. } = &inner.mode {
            browser::end_worker(worker);
        }
    }

    fn next_generation(&self) -> u64 {
        let mut inner = self.0.borrow_mut();
        inner.generation += 1;
        inner.generation
    }

    /// Terminates a busy worker and starts another (the fallback just forgets its generation).
    fn restart(&self) {
        let worker = {
            let mut inner = self.0.borrow_mut();
            inner.current = None;
            match &inner.mode {
                Mode::Worker { worker, .. } => Some(worker.clone()),
                Mode::Fallback { .. } => None,
            }
        };
        if let Some(w) = worker {
            browser::end_worker(&w);
            self.spawn();
        }
    }

    fn send(&self, generation: u64, request: Request, handler: Handler) {
        let mut inner = self.0.borrow_mut();
        match &inner.mode {
            Mode::Worker { worker, ready: true } => {
                let msg = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&msg, &"gen".into(), &JsValue::from_f64(generation as f64));
                let _ = js_sys::Reflect::set(&msg, &"req".into(), &to_js(&request));
                let _ = js_sys::Reflect::set(&msg, &"ratio".into(), &browser::pixel_ratio().into());
                let _ = worker.post_message(&msg);
                inner.current = Some((generation, handler));
            }
            Mode::Worker { ready: false, .. } | Mode::Fallback { handle: None } => {
                drop(inner);
                self.enqueue(generation, request, handler);
            }
            Mode::Fallback { handle: Some(handle) } => {
                let handle = handle.clone();
                inner.current = Some((generation, handler));
                drop(inner);
                self.fallback_begin(&handle, generation, &request);
            }
        }
    }

    fn send_queued(&self) {
        let next = {
            let mut inner = self.0.borrow_mut();
            (!inner.queued.is_empty()).then(|| inner.queued.remove(0))
        };
        if let Some((generation, request, handler)) = next {
            self.send(generation, request, handler);
        }
    }

    fn on_message(&self, data: &JsValue) {
        let get = |k: &str| js_sys::Reflect::get(data, &k.into()).unwrap_or(JsValue::UNDEFINED);
        if let Some(text) = get("failed").as_string() {
            // The engine did not start in the worker (the loader's report).
            return self.on_error(&format!("the engine could not start: {text}"));
        }
        if get("ready").is_truthy() {
            if let Mode::Worker { ready, .. } = &mut self.0.borrow_mut().mode {
                *ready = true;
            }
            self.send_queued();
            return;
        }
        if let Some(text) = get("panic").as_string() {
            self.0.borrow_mut().panicked = true;
            browser::show_panic(&format!("inside the engine worker: {text}"));
            return;
        }
        let generation = get("gen").as_f64().unwrap_or(-1.0) as u64;
        let bitmap = Some(get("bitmap")).filter(|b| !b.is_undefined());
        match serde_wasm_bindgen::from_value::<Response>(get("res")) {
            Ok(response) => self.deliver(generation, response, bitmap),
            Err(e) => browser::show_panic(&format!("unreadable message from the engine worker: {e}")),
        }
    }

    fn on_error(&self, text: &str) {
        let ready = matches!(self.0.borrow().mode, Mode::Worker { ready: true, .. });
        if ready {
            // The trap after a panic follows the panic's own message, which stays on the banner.
            if !self.0.borrow().panicked {
                browser::show_panic(&format!("the engine worker stopped: {text}"));
            }
        } else {
            // Nothing is in flight before `ready`: the queued request goes to the fallback.
            if let Mode::Worker { worker, .. } = &self.0.borrow().mode {
                browser::end_worker(worker);
            }
            self.fall_back(text);
        }
    }

    fn deliver(&self, generation: u64, response: Response, bitmap: Option<JsValue>) {
        let handler = {
            let inner = self.0.borrow();
            match &inner.current {
                Some((g, h)) if *g == generation => h.clone(),
                _ => return,
            }
        };
        let last = response.is_final();
        if last {
            self.0.borrow_mut().current = None;
        }
        handler(response, bitmap);
        if last {
            self.send_queued();
        }
    }

    /// Switches to the engine on the page.
    fn fall_back(&self, why: &str) {
        engine_notice().set(Some(format!(
            "Web Workers are unavailable here ({why}): heavy work runs on this page in short slices, so large runs take longer."
        )));
        self.0.borrow_mut().mode = Mode::Fallback { handle: None };
        let weak = Rc::downgrade(&self.0);
        load_fallback(Box::new(move |exports| {
            let Some(inner) = weak.upgrade() else { return };
            let client = Client(inner);
            match exports.and_then(|e| new_handle(&e)) {
                Ok(handle) => {
                    client.0.borrow_mut().mode = Mode::Fallback { handle: Some(handle) };
                    client.send_queued();
                }
                Err(e) => engine_notice().set(Some(format!("The engine could not be loaded: {e}"))),
            }
        }));
    }

    fn fallback_begin(&self, handle: &JsValue, generation: u64, request: &Request) {
        if matches!(request, Request::SelfTestPanic) {
            browser::show_panic("inside the engine (page fallback): self-test panic requested inside the engine");
            return;
        }
        match call(handle, "begin", &[to_js(request)]) {
            Ok(r) if r.is_undefined() => self.fallback_slice(generation),
            Ok(r) => self.fallback_deliver(handle, generation, &r),
            Err(e) => browser::show_panic(&format!("inside the engine (page fallback): {e}")),
        }
    }

    fn fallback_slice(&self, generation: u64) {
        let client = self.clone();
        set_timeout(
            move || {
                let handle = match &client.0.borrow().mode {
                    Mode::Fallback { handle: Some(h) } => h.clone(),
                    _ => return,
                };
                if client.0.borrow().current.as_ref().is_none_or(|(g, _)| *g != generation) {
                    return;
                }
                let start = browser::now_ms();
                loop {
                    match call(&handle, "step", &[JsValue::from_f64(FALLBACK_STEP_EVENTS)]) {
                        Ok(r) if r.is_undefined() => return,
                        Ok(r) => {
                            let progress = js_sys::Reflect::has(&r, &"Progress".into()).unwrap_or(false);
                            if !progress {
                                client.fallback_deliver(&handle, generation, &r);
                                return;
                            }
                            if browser::now_ms() - start > FALLBACK_SLICE_MS {
                                client.fallback_deliver(&handle, generation, &r);
                                client.fallback_slice(generation);
                                return;
                            }
                        }
                        Err(e) => {
                            browser::show_panic(&format!("inside the engine (page fallback): {e}"));
                            return;
                        }
                    }
                }
            },
            Duration::ZERO,
        );
    }

    fn fallback_deliver(&self, handle: &JsValue, generation: u64, value: &JsValue) {
        let Ok(response) = serde_wasm_bindgen::from_value::<Response>(value.clone()) else { return };
        let bitmap = match &response {
            Response::Frame(f) | Response::MeshReady(_, f) if f.svg.is_none() => {
                call(handle, "bitmap", &[browser::pixel_ratio().into()]).ok().filter(|b| !b.is_undefined())
            }
            _ => None,
        };
        self.deliver(generation, response, bitmap);
    }
}

/// The codec (see the worker): `u64` as `BigInt` when large, plain objects.
fn to_js<T: Serialize>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true))
        .unwrap_or(JsValue::NULL)
}

/// `target[name](...args)`, with a thrown exception as text.
fn call(target: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let f: js_sys::Function = js_sys::Reflect::get(target, &name.into())
        .map_err(|e| crate::browser::js_text(&e))?
        .dyn_into()
        .map_err(|_| format!("no {name}"))?;
    let array: js_sys::Array = args.iter().collect();
    f.apply(target, &array).map_err(|e| crate::browser::js_text(&e))
}

fn new_handle(exports: &JsValue) -> Result<JsValue, String> {
    let ctor: js_sys::Function = js_sys::Reflect::get(exports, &"EngineHandle".into())
        .map_err(|e| crate::browser::js_text(&e))?
        .dyn_into()
        .map_err(|_| "the engine bundle has no EngineHandle".to_owned())?;
    js_sys::Reflect::construct(&ctor, &js_sys::Array::new()).map_err(|e| crate::browser::js_text(&e))
}

/// Loads `worker.js` and `engine-fallback.js` once, then calls `done` with the exports.
fn load_fallback(done: OnLoaded) {
    let start = FALLBACK.with(|f| {
        let mut f = f.borrow_mut();
        match &mut *f {
            FallbackState::Loaded(e) => {
                let e = e.clone();
                drop(f);
                done(Ok(e));
                false
            }
            FallbackState::Failed(e) => {
                let e = e.clone();
                drop(f);
                done(Err(e));
                false
            }
            FallbackState::Loading(waiting) => {
                waiting.push(done);
                false
            }
            FallbackState::Unloaded => {
                *f = FallbackState::Loading(vec![done]);
                true
            }
        }
    });
    if !start {
        return;
    }
    let finish = |result: Result<JsValue, String>| {
        let waiting = FALLBACK.with(|f| {
            let mut f = f.borrow_mut();
            let old = std::mem::replace(
                &mut *f,
                match &result {
                    Ok(e) => FallbackState::Loaded(e.clone()),
                    Err(e) => FallbackState::Failed(e.clone()),
                },
            );
            match old {
                FallbackState::Loading(w) => w,
                _ => Vec::new(),
            }
        });
        for w in waiting {
            w(result.clone());
        }
    };
    wasm_bindgen_futures::spawn_local(async move {
        let result = async {
            browser::load_script("./worker.js").await?;
            browser::load_script("./engine-fallback.js").await?;
            let load: js_sys::Function = js_sys::Reflect::get(&js_sys::global(), &"commlabLoadEngine".into())
                .map_err(|e| crate::browser::js_text(&e))?
                .dyn_into()
                .map_err(|_| "engine-fallback.js did not load".to_owned())?;
            let promise: js_sys::Promise = load
                .call0(&JsValue::NULL)
                .map_err(|e| crate::browser::js_text(&e))?
                .dyn_into()
                .map_err(|_| "not a promise")?;
            wasm_bindgen_futures::JsFuture::from(promise).await.map_err(|e| crate::browser::js_text(&e))
        }
        .await;
        finish(result);
    });
}

/// Several clients sharing independent jobs (the lab sweep): each idle
/// client takes the next job; results come back by index.
#[derive(Clone)]
pub struct Pool {
    clients: Rc<Vec<Client>>,
}

impl Pool {
    /// `navigator.hardwareConcurrency` clients, at least 1, at most 8 (the
    /// benchmark's `__commlab_workers=N` switch overrides the count).
    #[allow(clippy::new_without_default, reason = "new starts workers: not a plain value")]
    pub fn new() -> Pool {
        let n = browser::query_value("__commlab_workers")
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(browser::hardware_concurrency)
            .clamp(1, 8);
        Pool { clients: Rc::new((0..n).map(|_| Client::new()).collect()) }
    }

    /// Workers in the pool.
    pub fn size(&self) -> usize {
        self.clients.len()
    }

    /// Runs jobs `0..count` in batches of `batch` (`job(first, n)` makes
    /// the request of jobs `first..first + n`), calling `done` with each
    /// batch's final response; supersedes any earlier batch. An idle worker
    /// takes the next batch at once, from inside the previous one's handler.
    /// Batches are handed out from the end: in the lab's grids the costly
    /// runs (large meshes, all-pairs algorithms) come late, so they start
    /// first and the last batches are the cheap ones (a shorter tail).
    pub fn run(
        &self,
        count: usize,
        batch: usize,
        job: Rc<dyn Fn(usize, usize) -> Request>,
        done: Rc<dyn Fn(Response)>,
    ) {
        let next = Rc::new(std::cell::Cell::new(0usize));
        for client in self.clients.iter() {
            client.cancel();
        }
        for client in self.clients.iter() {
            Pool::feed(client, &next, count, batch.max(1), &job, &done);
        }
    }

    fn feed(
        client: &Client,
        next: &Rc<std::cell::Cell<usize>>,
        count: usize,
        batch: usize,
        job: &Rc<dyn Fn(usize, usize) -> Request>,
        done: &Rc<dyn Fn(Response)>,
    ) {
        // `next` counts the jobs handed out; batches go from the end of the list.
        let taken = next.get();
        if taken >= count {
            return;
        }
        let n = batch.min(count - taken);
        next.set(taken + n);
        let first = count - taken - n;
        let request = job(first, n);
        let (again, next_c, job_c, done_c) = (client.clone(), next.clone(), job.clone(), done.clone());
        let handler: Handler = Rc::new(move |response: Response, _| {
            if response.is_final() {
                done_c(response);
                Pool::feed(&again, &next_c, count, batch, &job_c, &done_c);
            }
        });
        client.run(request, handler);
    }

    /// Terminates every worker (the view goes away).
    pub fn close(&self) {
        for client in self.clients.iter() {
            client.close();
        }
    }

    /// Stops every worker's work at once.
    pub fn cancel(&self) {
        for client in self.clients.iter() {
            client.cancel();
        }
    }
}

/// The CSV/JSON buttons of a view whose data exports come from the engine
/// worker: `prepare` gives the request that makes the worker keep the view's
/// current run (`None` when it already does, a large run it built), then the
/// worker answers [`Request::DataExport`] and the answer is downloaded.
pub fn data_export(
    client: impl Fn() -> Client + Send + Sync + 'static,
    prepare: impl Fn() -> Option<Request> + Send + Sync + 'static,
    view: commlab_api::protocol::DataView,
    name: Signal<String>,
    status: RwSignal<String>,
) -> Callback<crate::controls::export_bar::ExportFormat> {
    use crate::controls::export_bar::ExportFormat;
    use commlab_api::protocol::DataFormat;
    Callback::new(move |format: ExportFormat| {
        let (data, ext, mime) = match format {
            ExportFormat::Json => (DataFormat::Json, "json", "application/json"),
            _ => (DataFormat::Csv, "csv", "text/csv"),
        };
        let file = format!("{}.{ext}", name.get_untracked());
        let refused: Handler = Rc::new(move |response, _| {
            if let Response::Error(e) = response {
                status.set(e.to_string());
            }
        });
        let handler: Handler = Rc::new(move |response, _| {
            if let Response::Export(text) = response {
                status.set(browser::download_text(&file, mime, &text).err().unwrap_or_default());
            }
        });
        let client = client();
        if let Some(request) = prepare() {
            client.query(request, refused);
        }
        client.query(Request::DataExport(view, data), handler);
    })
}

/// For the browser suite (exported by the UI bundle's `main.rs`): asks a
/// fresh engine worker to panic, so the test sees the banner.
pub fn selftest_worker_panic() {
    let client = Client::new();
    let keep = client.clone();
    client.run(
        Request::SelfTestPanic,
        Rc::new(move |_, _| {
            let _ = &keep;
        }),
    );
    // Kept alive until the page goes: the worker must live long enough to panic.
    std::mem::forget(client);
}

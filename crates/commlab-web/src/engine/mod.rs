//! The page's side of the engine: a [`Client`] owns one Web Worker running
//! the `worker` bundle and sends it [`Request`]s; a [`Pool`] shares a lab
//! sweep among several clients. Both protocols (this one and the simulation
//! protocol, [`sim`]: the Schedule view, the Chooser, the fit) are spoken by the one generic client of [`link`]:
//! runs supersede, queries queue, Cancel terminates, generation ids drop
//! stale answers, and without workers the same engine runs on the page in
//! slices. [`split`] is the page-or-worker state machine of the views whose
//! small runs are built on the page.

pub mod link;
pub mod sim;
pub mod split;

use crate::browser;
use commlab_api::protocol::{Request, Response};
use leptos::prelude::*;
use link::{Answer, Link, PageEngine, PageLoaded, Protocol};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Events per step of the engine on the page between clock checks.
const PAGE_STEP_EVENTS: f64 = 2_000.0;

/// Called with each response of the current generation, and the painted
/// bitmap of a canvas frame.
pub type Handler = Rc<dyn Fn(Response, Option<JsValue>)>;

thread_local! {
    /// An `ArcRwSignal`: it belongs to no component, so it outlives the views that set it.
    static NOTICE: ArcRwSignal<Option<String>> = ArcRwSignal::new(None);
    /// The page engine's exports, once loaded (shared by every client).
    static FALLBACK: RefCell<FallbackState> = const { RefCell::new(FallbackState::Unloaded) };
}

/// A sentence for the page when the engine runs on the main thread.
pub fn engine_notice() -> ArcRwSignal<Option<String>> {
    NOTICE.with(Clone::clone)
}

/// Called once the page engine's exports are loaded (or failed to).
type OnLoaded = Box<dyn FnOnce(Result<JsValue, String>)>;

enum FallbackState {
    Unloaded,
    Loading(Vec<OnLoaded>),
    Loaded(JsValue),
    Failed(String),
}

/// The engine's protocol: `{gen, req, ratio}`, answered `{gen, res, bitmap}`.
pub struct Engine;

impl Protocol for Engine {
    type Request = Request;
    type Response = Response;
    type Extra = JsValue;
    const REQUEST: &'static str = "req";
    const RESPONSE: &'static str = "res";

    fn is_final(response: &Response) -> bool {
        response.is_final()
    }

    fn is_query(_: &Request) -> bool {
        false
    }

    fn extra(data: &JsValue) -> Option<JsValue> {
        js_sys::Reflect::get(data, &"bitmap".into()).ok().filter(|b| !b.is_undefined())
    }

    fn decorate(message: &js_sys::Object) {
        let _ = js_sys::Reflect::set(message, &"ratio".into(), &browser::pixel_ratio().into());
    }

    /// The page engine takes over instead.
    fn stopped(_: &str) -> Option<Response> {
        None
    }

    fn load_page(done: PageLoaded<Self>) {
        load_fallback(Box::new(move |exports| {
            done(exports.and_then(|e| new_handle(&e)).map(|handle| Box::new(PageHandle(handle)) as _));
        }));
    }

    fn on_page(why: &str) {
        engine_notice().set(Some(format!(
            "Web Workers are unavailable here ({why}): heavy work runs on this page in short slices, so large runs take longer."
        )));
    }

    fn page_failed(error: &str) {
        engine_notice().set(Some(format!("The engine could not be loaded: {error}")));
    }
}

/// The engine bundle loaded on the page (`engine-fallback.js`): the UI
/// bundle does not carry the engine, so it drives the bundle's `EngineHandle`.
struct PageHandle(JsValue);

impl PageHandle {
    fn answer(&self, value: &JsValue) -> Result<Option<Answer<Engine>>, String> {
        if value.is_undefined() {
            return Ok(None);
        }
        let response: Response = serde_wasm_bindgen::from_value(value.clone()).map_err(|e| e.to_string())?;
        let bitmap = match &response {
            Response::Frame(f) | Response::MeshReady(_, f) if f.svg.is_none() => {
                call(&self.0, "bitmap", &[browser::pixel_ratio().into()]).ok().filter(|b| !b.is_undefined())
            }
            _ => None,
        };
        Ok(Some((response, bitmap)))
    }
}

impl PageEngine<Engine> for PageHandle {
    fn begin(&mut self, request: &Request) -> Result<Option<Answer<Engine>>, String> {
        if matches!(request, Request::SelfTestPanic) {
            return Err("self-test panic requested inside the engine".into());
        }
        let value = call(&self.0, "begin", &[link::to_js(request)])?;
        self.answer(&value)
    }

    fn step(&mut self) -> Result<Option<Answer<Engine>>, String> {
        let value = call(&self.0, "step", &[JsValue::from_f64(PAGE_STEP_EVENTS)])?;
        self.answer(&value)
    }
}

/// One engine worker, and the engine on the page for runs small enough to
/// do at once ([`Client::run_small`]).
#[derive(Clone)]
pub struct Client {
    link: Link<Engine>,
    /// The engine bundle's handle on the page, once loaded.
    local: Rc<RefCell<Option<JsValue>>>,
    /// The last run was done on the page: its frames and exports are asked there.
    session_here: Rc<Cell<bool>>,
}

impl Client {
    /// Starts a worker (or the page engine when workers are unavailable).
    #[allow(clippy::new_without_default, reason = "new starts a worker: not a plain value")]
    pub fn new() -> Client {
        Client { link: Link::new(), local: Rc::default(), session_here: Rc::default() }
    }

    /// Heavy work: supersedes whatever is in flight (terminating a busy worker).
    pub fn run(&self, request: Request, handler: Handler) {
        self.session_here.set(false);
        self.link.run(request, handler);
    }

    /// A quick question (a frame, an export): waits behind work in flight.
    pub fn query(&self, request: Request, handler: Handler) {
        if self.session_here.get() && matches!(request, Request::MeshFrame(_) | Request::MeshExport(_)) {
            return self.here(&request, &handler);
        }
        self.link.query(request, handler);
    }

    /// Loads the engine bundle on the page too (in the background), so that
    /// [`Client::run_small`] can answer small runs without the round trip to
    /// the worker.
    pub fn load_here(&self) {
        if self.local.borrow().is_some() {
            return;
        }
        let local = Rc::downgrade(&self.local);
        load_fallback(Box::new(move |exports| {
            if let (Some(local), Ok(handle)) = (local.upgrade(), exports.and_then(|e| new_handle(&e))) {
                *local.borrow_mut() = Some(handle);
            }
        }));
    }

    /// A run whose cost is bounded (`small`: the caller's closed-form check)
    /// is done at once on the page once the engine is loaded there; anything
    /// else is a [`Client::run`].
    pub fn run_small(&self, request: Request, handler: Handler, small: bool) {
        let ready = !self.link.on_page() && self.local.borrow().is_some();
        if !(small && ready) {
            return self.run(request, handler);
        }
        // Whatever the worker was doing is stale now.
        self.cancel();
        self.session_here.set(true);
        self.here(&request, &handler);
    }

    /// Serves `request` on the page's engine at once and hands the answer
    /// to `handler`.
    fn here(&self, request: &Request, handler: &Handler) {
        let Some(handle) = self.local.borrow().clone() else { return };
        let mut answer = call(&handle, "begin", &[link::to_js(request)]);
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
        self.link.cancel();
    }

    /// Terminates the worker and forgets every request (a view going away).
    pub fn close(&self) {
        self.link.close();
    }
}

/// `target[name](...args)`, with a thrown exception as text.
pub(crate) fn call(target: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let f: js_sys::Function = js_sys::Reflect::get(target, &name.into())
        .map_err(|e| crate::browser::js_text(&e))?
        .dyn_into()
        .map_err(|_| format!("no {name}"))?;
    let array: js_sys::Array = args.iter().collect();
    f.apply(target, &array).map_err(|e| crate::browser::js_text(&e))
}

fn new_handle(exports: &JsValue) -> Result<JsValue, String> {
    construct(exports, "EngineHandle")
}

/// `new exports[name]()`: a handle of the engine bundle loaded on the page.
pub(crate) fn construct(exports: &JsValue, name: &str) -> Result<JsValue, String> {
    let ctor: js_sys::Function = js_sys::Reflect::get(exports, &name.into())
        .map_err(|e| crate::browser::js_text(&e))?
        .dyn_into()
        .map_err(|_| format!("the engine bundle has no {name}"))?;
    js_sys::Reflect::construct(&ctor, &js_sys::Array::new()).map_err(|e| crate::browser::js_text(&e))
}

/// Loads `worker.js` and `engine-fallback.js` once, then calls `done` with the exports.
pub(crate) fn load_fallback(done: OnLoaded) {
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

//! The one worker client, generic over the protocol it speaks ([`Protocol`]):
//! the engine's [`Request`](commlab_api::protocol::Request)s and the Schedule
//! view's [`SimQuery`](commlab_api::sim::SimQuery)s are both
//! served by the engine bundle in a Web Worker, under their own message keys.
//!
//! - **Runs supersede.** [`Link::run`] starts heavy work; a worker still busy
//!   with older work is terminated at once and a fresh one started, so a
//!   stale result can never arrive. Every message carries a generation id and
//!   only the latest generation's answers are delivered.
//! - **Queries queue.** [`Link::query`] (a frame, an export) waits behind the
//!   work in flight; only the latest query of each kind is kept.
//! - **Cancel** terminates a busy worker at once; its successor starts in a
//!   task of its own when a request waits for it.
//! - **Start and failure.** Requests wait for the worker's `ready`. When no
//!   worker can start, the protocol's page engine runs the same requests on
//!   the main thread in slices of about [`SLICE_MS`]. A worker that fails
//!   later either answers the request in flight with the protocol's error
//!   (the views offer "Run again", and the next request starts a fresh
//!   worker) or, when the protocol has no such answer, hands over to the
//!   page engine.
//! - **Panics** inside the worker reach the page's panic banner.

use crate::browser;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Work per main-thread slice when the engine runs on the page.
pub const SLICE_MS: f64 = 8.0;

/// What a protocol adds to the generic client.
pub trait Protocol: Sized + 'static {
    /// What the page asks.
    type Request: Serialize + 'static;
    /// What the engine answers (progress, then one final answer).
    type Response: DeserializeOwned + 'static;
    /// What travels beside an answer (a painted bitmap, a timeline's arrays).
    type Extra: 'static;
    /// The message key of a request (`{gen, <key>}`).
    const REQUEST: &'static str;
    /// The message key of an answer.
    const RESPONSE: &'static str;
    /// Whether an answer is the last of its request.
    fn is_final(response: &Self::Response) -> bool;
    /// Whether the page engine yields to the page after this progress, however
    /// short its slice so far (the step after it is a long one of its own).
    fn yields(_response: &Self::Response) -> bool {
        false
    }
    /// Whether a request waits behind work in flight (else it supersedes it).
    fn is_query(request: &Self::Request) -> bool;
    /// The extra payload of a worker's message.
    fn extra(data: &JsValue) -> Option<Self::Extra>;
    /// Adds what every request message carries besides the request.
    fn decorate(_message: &js_sys::Object) {}
    /// The answer to the request in flight when the worker stopped or could
    /// not start; `None`: hand over to the page engine instead.
    fn stopped(text: &str) -> Option<Self::Response>;
    /// Loads the page engine and hands it to `done`.
    fn load_page(done: PageLoaded<Self>);
    /// Called when the requests go to the page engine (with why).
    fn on_page(_why: &str) {}
    /// Called when the page engine could not be loaded either.
    fn page_failed(error: &str) {
        browser::show_panic(&format!("the engine could not be loaded on the page: {error}"));
    }
}

/// Receives the page engine once loaded (or why it could not be).
pub type PageLoaded<P> = Box<dyn FnOnce(Result<Box<dyn PageEngine<P>>, String>)>;

/// An answer and what travels beside it.
pub type Answer<P> = (<P as Protocol>::Response, Option<<P as Protocol>::Extra>);

/// The engine on the main thread, driven in slices.
pub trait PageEngine<P: Protocol> {
    /// Starts `request`: its answer when done at once, `None` when it goes on in steps.
    ///
    /// # Errors
    /// The engine failed (shown on the panic banner).
    fn begin(&mut self, request: &P::Request) -> Result<Option<Answer<P>>, String>;
    /// One bounded step of the request under way: progress or the final answer (`None`: nothing under way).
    ///
    /// # Errors
    /// The engine failed.
    fn step(&mut self) -> Result<Option<Answer<P>>, String>;
}

/// Called with each answer of the current generation.
pub type Handler<P> = Rc<dyn Fn(<P as Protocol>::Response, Option<<P as Protocol>::Extra>)>;

enum Mode<P: Protocol> {
    /// No worker yet (or it failed): the next request starts one.
    Idle,
    Worker {
        worker: web_sys::Worker,
        ready: bool,
    },
    Page {
        engine: Option<Rc<RefCell<Box<dyn PageEngine<P>>>>>,
    },
}

struct Inner<P: Protocol> {
    mode: Mode<P>,
    /// The worker reported a panic (its trap that follows is not news).
    panicked: bool,
    generation: u64,
    /// Workers started so far (a fresh worker holds no earlier run); shared
    /// so a handler can read it without holding the client.
    epoch: Rc<std::cell::Cell<u64>>,
    /// The request in flight: its generation and handler.
    current: Option<(u64, Handler<P>)>,
    /// Requests waiting to be sent, in order; one query per kind.
    queued: Vec<(u64, P::Request, Handler<P>)>,
    /// Keeps the worker's callbacks alive.
    callbacks: Vec<Closure<dyn FnMut(web_sys::MessageEvent)>>,
}

impl<P: Protocol> Drop for Inner<P> {
    /// A view that goes away takes its worker with it.
    fn drop(&mut self) {
        if let Mode::Worker { worker, .. } = &self.mode {
            browser::end_worker(worker);
        }
    }
}

/// One engine worker speaking protocol `P`.
pub struct Link<P: Protocol>(Rc<RefCell<Inner<P>>>);

impl<P: Protocol> Clone for Link<P> {
    fn clone(&self) -> Self {
        Link(Rc::clone(&self.0))
    }
}

/// The codec (see the worker): `u64` as `BigInt` when large, plain objects.
pub fn to_js<T: Serialize>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true))
        .unwrap_or(JsValue::NULL)
}

impl<P: Protocol> Link<P> {
    /// Starts a worker (or the page engine when workers are unavailable).
    #[allow(clippy::new_without_default, reason = "new starts a worker: not a plain value")]
    pub fn new() -> Link<P> {
        let link = Link(Rc::new(RefCell::new(Inner {
            mode: Mode::Idle,
            panicked: false,
            generation: 0,
            epoch: Rc::default(),
            current: None,
            queued: Vec::new(),
            callbacks: Vec::new(),
        })));
        link.spawn();
        link
    }

    /// Workers started so far: a run kept by the worker is gone once this
    /// changes. A handle on the counter, not on the client (a handler that
    /// held the client would keep its worker alive).
    pub fn epoch(&self) -> Rc<std::cell::Cell<u64>> {
        Rc::clone(&self.0.borrow().epoch)
    }

    /// Whether the requests run on the page (no worker could start).
    pub fn on_page(&self) -> bool {
        matches!(self.0.borrow().mode, Mode::Page { .. })
    }

    /// Whether a request is in flight.
    pub fn busy(&self) -> bool {
        self.0.borrow().current.is_some()
    }

    fn spawn(&self) {
        let disabled = browser::query_value("__commlab_no_worker").is_some();
        let worker = if disabled {
            Err(JsValue::from_str("workers disabled by the page's test switch"))
        } else {
            browser::start_worker()
        };
        let worker = match worker {
            Ok(w) => w,
            Err(e) => return self.to_page(&browser::js_text(&e)),
        };
        let weak = Rc::downgrade(&self.0);
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(inner) = weak.upgrade() {
                Link(inner).on_message(&ev.data());
            }
        });
        let weak = Rc::downgrade(&self.0);
        let on_error = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if let Some(inner) = weak.upgrade() {
                let text = js_sys::Reflect::get(&ev, &"message".into())
                    .ok()
                    .and_then(|m| m.as_string())
                    .unwrap_or_else(|| "the worker script failed to load".into());
                Link(inner).on_failure(&text);
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let mut inner = self.0.borrow_mut();
        inner.mode = Mode::Worker { worker, ready: false };
        inner.epoch.set(inner.epoch.get() + 1);
        inner.panicked = false;
        inner.callbacks = vec![on_message, on_error];
    }

    /// Heavy work: supersedes whatever is in flight (terminating a busy worker).
    pub fn run(&self, request: P::Request, handler: Handler<P>) {
        let generation = self.next_generation();
        if self.busy() {
            self.restart();
        }
        // Queries queued for the superseded work are stale.
        self.0.borrow_mut().queued.clear();
        self.send(generation, request, handler);
    }

    /// A quick question (a frame, an export): waits behind work in flight.
    pub fn query(&self, request: P::Request, handler: Handler<P>) {
        let generation = self.next_generation();
        if self.busy() {
            self.enqueue(generation, request, handler);
        } else {
            self.send(generation, request, handler);
        }
    }

    /// `request` as [`Link::query`] or [`Link::run`], as the protocol says.
    pub fn send_any(&self, request: P::Request, handler: Handler<P>) {
        if P::is_query(&request) {
            self.query(request, handler);
        } else {
            self.run(request, handler);
        }
    }

    /// Stops the work in flight at once; its answers never arrive.
    pub fn cancel(&self) {
        self.next_generation();
        self.0.borrow_mut().queued.clear();
        if self.busy() {
            self.restart();
        }
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
        inner.mode = Mode::Idle;
    }

    fn next_generation(&self) -> u64 {
        let mut inner = self.0.borrow_mut();
        inner.generation += 1;
        inner.generation
    }

    /// Queues `request`, replacing a queued request of the same kind (only the latest frame matters).
    fn enqueue(&self, generation: u64, request: P::Request, handler: Handler<P>) {
        let mut inner = self.0.borrow_mut();
        let kind = std::mem::discriminant(&request);
        inner.queued.retain(|(_, r, _)| std::mem::discriminant(r) != kind);
        inner.queued.push((generation, request, handler));
    }

    /// Terminates a busy worker; the next request starts another (the page engine just forgets its generation).
    fn restart(&self) {
        let worker = {
            let mut inner = self.0.borrow_mut();
            inner.current = None;
            match &inner.mode {
                Mode::Worker { worker, .. } => Some(worker.clone()),
                Mode::Idle | Mode::Page { .. } => None,
            }
        };
        if let Some(w) = worker {
            browser::end_worker(&w);
            // What the old worker held is gone with it.
            let mut inner = self.0.borrow_mut();
            inner.mode = Mode::Idle;
            inner.epoch.set(inner.epoch.get() + 1);
        }
    }

    /// Starts a worker in a task of its own once requests wait for one: a
    /// worker's start costs the main thread milliseconds, which a change
    /// that cancels several runs would otherwise pay in its own task.
    fn spawn_later(&self) {
        let weak = Rc::downgrade(&self.0);
        leptos::prelude::set_timeout(
            move || {
                if let Some(inner) = weak.upgrade() {
                    let waiting = matches!(inner.borrow().mode, Mode::Idle) && !inner.borrow().queued.is_empty();
                    if waiting {
                        Link(inner).spawn();
                    }
                }
            },
            Duration::ZERO,
        );
    }

    fn send(&self, generation: u64, request: P::Request, handler: Handler<P>) {
        let mut inner = self.0.borrow_mut();
        match &inner.mode {
            Mode::Worker { worker, ready: true } => {
                let msg = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&msg, &"gen".into(), &JsValue::from_f64(generation as f64));
                let _ = js_sys::Reflect::set(&msg, &P::REQUEST.into(), &to_js(&request));
                P::decorate(&msg);
                let _ = worker.post_message(&msg);
                inner.current = Some((generation, handler));
            }
            Mode::Page { engine: Some(engine) } => {
                let engine = Rc::clone(engine);
                inner.current = Some((generation, handler));
                drop(inner);
                self.page_begin(&engine, generation, &request);
            }
            Mode::Worker { ready: false, .. } | Mode::Page { engine: None } => {
                drop(inner);
                self.enqueue(generation, request, handler);
            }
            Mode::Idle => {
                drop(inner);
                self.enqueue(generation, request, handler);
                self.spawn_later();
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
            return self.on_failure(&format!("the engine could not start: {text}"));
        }
        if get("ready").is_truthy() {
            if let Mode::Worker { ready, .. } = &mut self.0.borrow_mut().mode {
                *ready = true;
            }
            return self.send_queued();
        }
        if let Some(text) = get("panic").as_string() {
            self.0.borrow_mut().panicked = true;
            return browser::show_panic(&format!("inside the engine worker: {text}"));
        }
        let generation = get("gen").as_f64().unwrap_or(-1.0) as u64;
        match serde_wasm_bindgen::from_value::<P::Response>(get(P::RESPONSE)) {
            Ok(response) => self.deliver(generation, response, P::extra(data)),
            Err(e) => browser::show_panic(&format!("unreadable message from the engine worker: {e}")),
        }
    }

    /// The worker could not start, or stopped.
    fn on_failure(&self, text: &str) {
        let ready = matches!(self.0.borrow().mode, Mode::Worker { ready: true, .. });
        if let Some(answer) = P::stopped(text) {
            // Answered with the error; the next request starts a fresh worker.
            let handler = {
                let mut inner = self.0.borrow_mut();
                if let Mode::Worker { worker, .. } = &inner.mode {
                    browser::end_worker(worker);
                }
                inner.mode = Mode::Idle;
                inner.callbacks.clear();
                inner.generation += 1;
                let queued = inner.queued.drain(..).next().map(|(_, _, h)| h);
                inner.current.take().map(|(_, h)| h).or(queued)
            };
            if let Some(h) = handler {
                h(answer, None);
            }
        } else if ready {
            // The trap after a panic follows the panic's own message, which stays on the banner.
            if !self.0.borrow().panicked {
                browser::show_panic(&format!("the engine worker stopped: {text}"));
            }
        } else {
            // Nothing is in flight before `ready`: the queued requests go to the page engine.
            if let Mode::Worker { worker, .. } = &self.0.borrow().mode {
                browser::end_worker(worker);
            }
            self.to_page(text);
        }
    }

    fn deliver(&self, generation: u64, response: P::Response, extra: Option<P::Extra>) {
        let handler = {
            let inner = self.0.borrow();
            match &inner.current {
                Some((g, h)) if *g == generation => Rc::clone(h),
                _ => return,
            }
        };
        let last = P::is_final(&response);
        if last {
            self.0.borrow_mut().current = None;
        }
        handler(response, extra);
        if last {
            self.send_queued();
        }
    }

    /// Switches to the engine on the page.
    fn to_page(&self, why: &str) {
        P::on_page(why);
        self.0.borrow_mut().mode = Mode::Page { engine: None };
        let weak = Rc::downgrade(&self.0);
        P::load_page(Box::new(move |engine| {
            let Some(inner) = weak.upgrade() else { return };
            let link = Link(inner);
            match engine {
                Ok(engine) => {
                    link.0.borrow_mut().mode = Mode::Page { engine: Some(Rc::new(RefCell::new(engine))) };
                    link.send_queued();
                }
                Err(e) => P::page_failed(&e),
            }
        }));
    }

    fn page_begin(&self, engine: &Rc<RefCell<Box<dyn PageEngine<P>>>>, generation: u64, request: &P::Request) {
        let begun = engine.borrow_mut().begin(request);
        match begun {
            Ok(None) => self.page_slice(Rc::clone(engine), generation),
            Ok(Some((r, extra))) => self.deliver(generation, r, extra),
            Err(e) => browser::show_panic(&format!("inside the engine (page fallback): {e}")),
        }
    }

    /// Runs the page engine for about [`SLICE_MS`], then yields to the page and goes on.
    fn page_slice(&self, engine: Rc<RefCell<Box<dyn PageEngine<P>>>>, generation: u64) {
        let link = self.clone();
        leptos::prelude::set_timeout(
            move || {
                if link.0.borrow().current.as_ref().is_none_or(|(g, _)| *g != generation) {
                    return;
                }
                let start = browser::now_ms();
                loop {
                    let stepped = engine.borrow_mut().step();
                    match stepped {
                        Ok(None) => return,
                        Ok(Some((r, extra))) => {
                            if P::is_final(&r) {
                                // Its own task: the engine's last step and
                                // the page drawing the answer do not add up.
                                return leptos::prelude::set_timeout(
                                    move || link.deliver(generation, r, extra),
                                    Duration::ZERO,
                                );
                            }
                            if browser::now_ms() - start > SLICE_MS && !P::yields(&r) {
                                link.deliver(generation, r, extra);
                                return link.page_slice(engine, generation);
                            }
                            if P::yields(&r) {
                                // The answer in a task of its own too (a
                                // partial result is drawn there), then the next slice.
                                return leptos::prelude::set_timeout(
                                    move || {
                                        link.deliver(generation, r, extra);
                                        link.page_slice(engine, generation);
                                    },
                                    Duration::ZERO,
                                );
                            }
                        }
                        Err(e) => return browser::show_panic(&format!("inside the engine (page fallback): {e}")),
                    }
                }
            },
            Duration::ZERO,
        );
    }
}

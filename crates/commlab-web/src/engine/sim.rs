//! The simulation protocol (`commlab_api::sim`: the Schedule view's runs,
//! the Chooser's comparisons, maps and checks, the fit, predictions;
//! `{gen, sched}`, answered `{gen, sres, timeline}`; see `worker.rs`),
//! spoken by the generic client of [`super::link`]. Exports wait behind a run; anything else supersedes it.
//! The worker keeps the last schedule, so new LogGOPS parameters re-run it
//! without sending an opened file again ([`SimClient::holds_run`]).
//! Without workers the same engine bundle runs on the page (`SimHandle`
//! of `worker.rs`, loaded as the engine's own page fallback is), so the lazy
//! bundle does not carry the simulator.
//! A worker that stops answers the query in flight with the error, so the
//! view shows it with its "Run again".

use super::link::{Answer, Link, PageEngine, PageLoaded, Protocol};
use commlab_api::network::NetPicture;
use commlab_api::schedule::Timeline;
use commlab_api::sim::{SimQuery, SimResponse};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Receives each answer of the current query (progress, then the final one).
pub type OnResponse = Rc<dyn Fn(SimResponse, Option<Arrays>)>;

/// A result's arrays, transferred beside it: the timeline and the network picture.
#[derive(Debug, Clone, Default)]
pub struct Arrays {
    /// The timeline (small enough runs).
    pub timeline: Option<Timeline>,
    /// The network picture (network runs).
    pub picture: Option<NetPicture>,
}

impl Arrays {
    /// The arrays of `data` (`timeline` and `picture` properties).
    pub fn from_js(data: &JsValue) -> Arrays {
        let get = |name: &str| js_sys::Reflect::get(data, &name.into()).ok().filter(JsValue::is_object);
        Arrays {
            timeline: get("timeline").as_ref().and_then(timeline_from_js),
            picture: get("picture").as_ref().and_then(picture_from_js),
        }
    }
}

/// Events per step of the engine on the page.
const PAGE_STEP_EVENTS: u64 = 20_000;

/// The Schedule view's protocol.
pub struct Schedules;

impl Protocol for Schedules {
    type Request = SimQuery;
    type Response = SimResponse;
    type Extra = Arrays;
    const REQUEST: &'static str = "sched";
    const RESPONSE: &'static str = "sres";

    fn is_final(response: &SimResponse) -> bool {
        response.is_final()
    }

    fn yields(response: &SimResponse) -> bool {
        matches!(response, SimResponse::Progress { done, total, .. } if done >= total)
            || matches!(response, SimResponse::Partial(_))
    }

    fn is_query(query: &SimQuery) -> bool {
        // A fit (answered in tens of ms) waits behind the one in flight, the
        // warm-up included, rather than restarting a warmed worker.
        matches!(
            query,
            SimQuery::Export(_)
                | SimQuery::Goal(_)
                | SimQuery::Fit(_)
                | SimQuery::WarmFit { .. }
                | SimQuery::Predict(_)
                | SimQuery::Flow(_)
                | SimQuery::SystemFit(_)
        )
    }

    fn extra(data: &JsValue) -> Option<Arrays> {
        Some(Arrays::from_js(data))
    }

    fn stopped(text: &str) -> Option<SimResponse> {
        Some(SimResponse::Error(commlab_api::ApiError::problem(
            "engine",
            format!("the engine worker stopped before answering ({text})"),
        )))
    }

    fn load_page(done: PageLoaded<Self>) {
        super::load_fallback(Box::new(move |exports| {
            let handle = exports.and_then(|e| super::construct(&e, "SimHandle"));
            done(handle.map(|h| Box::new(PageSchedules(h)) as _));
        }));
    }
}

/// The engine bundle's `SimHandle` on the page.
struct PageSchedules(JsValue);

impl PageSchedules {
    fn answer(&self, value: &JsValue) -> Result<Option<Answer<Schedules>>, String> {
        if value.is_undefined() {
            return Ok(None);
        }
        let r: SimResponse = serde_wasm_bindgen::from_value(value.clone()).map_err(|e| e.to_string())?;
        let arrays = match &r {
            SimResponse::Ready(_) | SimResponse::Partial(_) => {
                Some(Arrays::from_js(&super::call(&self.0, "arrays", &[])?))
            }
            _ => None,
        };
        Ok(Some((r, arrays)))
    }
}

impl PageEngine<Schedules> for PageSchedules {
    fn begin(&mut self, query: &SimQuery) -> Result<Option<Answer<Schedules>>, String> {
        let value = super::call(&self.0, "begin", &[super::link::to_js(query)])?;
        self.answer(&value)
    }

    fn step(&mut self) -> Result<Option<Answer<Schedules>>, String> {
        let value = super::call(&self.0, "step", &[JsValue::from_f64(PAGE_STEP_EVENTS as f64)])?;
        self.answer(&value)
    }
}

/// The view's worker.
#[derive(Clone)]
pub struct SimClient {
    link: Link<Schedules>,
    /// The worker (by its epoch) that holds a finished run.
    held: Rc<Cell<Option<u64>>>,
}

impl SimClient {
    /// Starts the worker (or prepares the page engine).
    #[allow(clippy::new_without_default, reason = "new starts a worker: not a plain value")]
    pub fn new() -> SimClient {
        SimClient { link: Link::new(), held: Rc::default() }
    }

    /// Whether the engine holds a finished run (for [`SimQuery::Resimulate`]).
    pub fn holds_run(&self) -> bool {
        self.held.get() == Some(self.link.epoch().get())
    }

    /// Whether runs happen on the page (no worker could start).
    pub fn on_page(&self) -> bool {
        self.link.on_page()
    }

    /// Sends `query`; `handler` gets its answers. A run under way is dropped
    /// (its worker terminated) unless `query` only exports.
    pub fn send(&self, query: SimQuery, handler: OnResponse) {
        let (held, epoch) = (Rc::clone(&self.held), self.link.epoch());
        let handler: OnResponse = Rc::new(move |r, timeline| {
            if matches!(r, SimResponse::Ready(_)) {
                held.set(Some(epoch.get()));
            }
            handler(r, timeline);
        });
        self.link.send_any(query, handler);
    }

    /// Stops the run under way, if any (an idle worker is kept).
    pub fn cancel(&self) {
        self.link.cancel();
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

/// The picture's arrays, by property name.
pub const PICTURE_ARRAYS: [&str; 8] =
    ["links", "classes", "loads", "ranks", "flows", "rates", "route_first", "route_dirs"];

fn picture_arrays(p: &NetPicture) -> [&Vec<f64>; 8] {
    [&p.links, &p.classes, &p.loads, &p.ranks, &p.flows, &p.rates, &p.route_first, &p.route_dirs]
}

/// The picture as a plain object of `Float64Array`s (plus its scalars).
pub fn picture_to_js(p: &NetPicture) -> js_sys::Object {
    let o = js_sys::Object::new();
    for (name, values) in PICTURE_ARRAYS.iter().zip(picture_arrays(p)) {
        let _ = js_sys::Reflect::set(&o, &(*name).into(), &js_sys::Float64Array::from(values.as_slice()));
    }
    let _ = js_sys::Reflect::set(&o, &"topology".into(), &p.topology.as_str().into());
    let _ = js_sys::Reflect::set(&o, &"hosts".into(), &p.hosts.into());
    let _ = js_sys::Reflect::set(&o, &"vertices".into(), &p.vertices.into());
    let _ = js_sys::Reflect::set(&o, &"end".into(), &p.end.into());
    o
}

/// The picture back from [`picture_to_js`]'s object.
pub fn picture_from_js(o: &JsValue) -> Option<NetPicture> {
    let array = |name: &str| -> Option<Vec<f64>> {
        js_sys::Reflect::get(o, &name.into()).ok()?.dyn_into::<js_sys::Float64Array>().ok().map(|a| a.to_vec())
    };
    let number = |name: &str| js_sys::Reflect::get(o, &name.into()).ok().and_then(|v| v.as_f64());
    Some(NetPicture {
        topology: js_sys::Reflect::get(o, &"topology".into()).ok()?.as_string()?,
        hosts: number("hosts")? as u32,
        vertices: number("vertices")? as u32,
        end: number("end")?,
        links: array("links")?,
        classes: array("classes")?,
        loads: array("loads")?,
        ranks: array("ranks")?,
        flows: array("flows")?,
        rates: array("rates")?,
        route_first: array("route_first")?,
        route_dirs: array("route_dirs")?,
    })
}

/// A result's arrays as one object (`timeline`, `picture`), with the buffers to transfer.
pub fn arrays_to_js(result: &commlab_api::schedule::ScheduleResult) -> (js_sys::Object, js_sys::Array) {
    let o = js_sys::Object::new();
    let transfer = js_sys::Array::new();
    let add = |name: &str, obj: js_sys::Object| {
        let values = js_sys::Object::values(&obj);
        for v in values.iter() {
            if let Some(buffer) = v.dyn_ref::<js_sys::Float64Array>().map(js_sys::Float64Array::buffer) {
                transfer.push(&buffer);
            }
        }
        let _ = js_sys::Reflect::set(&o, &name.into(), &obj);
    };
    if let Some(t) = &result.timeline {
        add("timeline", timeline_to_js(t));
    }
    if let Some(p) = &result.picture {
        add("picture", picture_to_js(p));
    }
    (o, transfer)
}

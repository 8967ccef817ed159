//! The one state machine of a view whose run is built on the page when it is
//! small (bounded work: it can be drawn) and in the engine worker when it is
//! large: [`split_run`]. A new request supersedes the one in flight; a small
//! one cancels a large one still running; Cancel and Run again act on the
//! worker's run.

use super::Client;
use crate::controls::run_progress::{tracked, Progress};
use commlab_api::protocol::{Request, Response};
use leptos::prelude::*;

/// Where the run of the current inputs stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Split<L, R> {
    /// Built on the page.
    Local(L),
    /// Being built in the worker.
    Pending,
    /// Built in the worker (its summary).
    Remote(R),
    /// Refused, or cancelled.
    Failed(String),
}

/// A request that is run on the page or in the worker.
pub trait SplitRequest: Clone + PartialEq + Send + Sync + 'static {
    /// The run built on the page.
    type Local: Clone + PartialEq + Send + Sync + 'static;
    /// What the worker answers of a large run.
    type Remote: Clone + PartialEq + Send + Sync + 'static;
    /// Whether the page leaves this run to the worker (the api's closed-form bound).
    fn heavy(&self) -> bool;
    /// Builds the run on the page.
    ///
    /// # Errors
    /// The api's refusal, in words.
    fn local(&self) -> Result<Self::Local, String>;
    /// The worker's request.
    fn remote(self) -> Request;
    /// The worker's final answer (`None`: not one of this run's).
    fn answer(response: Response) -> Option<Result<Self::Remote, String>>;
}

/// Implements [`SplitRequest`] for an api request `$request` whose page run
/// is `$run()` (kept in an `Arc`), sent as `Request::$variant` and answered
/// `Response::$variant($summary)`; `$wrap` turns the summary into `Remote`.
#[macro_export]
macro_rules! split_request {
    ($request:ty, $run:ty, $variant:ident, $remote:ty, $wrap:expr) => {
        impl $crate::engine::split::SplitRequest for $request {
            type Local = std::sync::Arc<$run>;
            type Remote = $remote;

            fn heavy(&self) -> bool {
                <$request>::heavy(self)
            }

            fn local(&self) -> Result<Self::Local, String> {
                self.run().map(std::sync::Arc::new).map_err(|e| e.to_string())
            }

            fn remote(self) -> commlab_api::protocol::Request {
                commlab_api::protocol::Request::$variant(self)
            }

            fn answer(response: commlab_api::protocol::Response) -> Option<Result<Self::Remote, String>> {
                match response {
                    commlab_api::protocol::Response::$variant(s) => Some(Ok($wrap(s))),
                    commlab_api::protocol::Response::Error(e) => Some(Err(e.to_string())),
                    _ => None,
                }
            }
        }
    };
}

/// A split run's signals.
pub struct SplitRun<L: Send + Sync + 'static, R: Send + Sync + 'static> {
    /// Where it stands.
    pub state: Memo<Split<L, R>>,
    /// The worker run's progress row.
    pub progress: RwSignal<Progress>,
    /// Cancel (the worker's run).
    pub on_cancel: Callback<()>,
    /// Run again.
    pub on_rerun: Callback<()>,
}

/// Runs `request` on the page or in `client`'s worker, as it changes.
pub fn split_run<Q: SplitRequest>(
    client: StoredValue<Client, LocalStorage>,
    request: Signal<Q>,
) -> SplitRun<Q::Local, Q::Remote> {
    let remote = RwSignal::new(Split::<Q::Local, Q::Remote>::Pending);
    let progress = RwSignal::new(Progress::Idle);
    let start = move |r: Q| {
        if !r.heavy() {
            // Built here; a run in the worker is stale (no signal is set
            // when nothing changes: a redraw costs more).
            if progress.get_untracked() != Progress::Idle {
                client.with_value(Client::cancel);
                progress.set(Progress::Idle);
            }
            return;
        }
        remote.set(Split::Pending);
        let handler = tracked(progress, move |response| match Q::answer(response) {
            Some(Ok(s)) => remote.set(Split::Remote(s)),
            Some(Err(e)) => remote.set(Split::Failed(e)),
            None => {}
        });
        client.with_value(|c| c.run(r.remote(), handler));
    };
    Effect::new(move |_| start(request.get()));
    let on_cancel = Callback::new(move |()| {
        client.with_value(Client::cancel);
        progress.update(|p| *p = p.cancelled());
        remote.set(Split::Failed("The run was cancelled.".into()));
    });
    let on_rerun = Callback::new(move |()| start(request.get_untracked()));
    let state = Memo::new(move |_| {
        let r = request.get();
        if r.heavy() {
            return remote.get();
        }
        match r.local() {
            Ok(run) => Split::Local(run),
            Err(e) => Split::Failed(e),
        }
    });
    SplitRun { state, progress, on_cancel, on_rerun }
}

/// A worker-kept run's caption of the step shown: asked for (with `ask`)
/// whenever the step changes while `wanted` holds, kept in the signal
/// returned (the pipeline's and the swizzle's large runs).
pub fn worker_captions(
    client: StoredValue<Client, LocalStorage>,
    step: Memo<usize>,
    wanted: impl Fn(usize) -> bool + 'static,
    ask: fn(usize) -> Request,
) -> RwSignal<String> {
    let caption = RwSignal::new(String::new());
    Effect::new(move |_| {
        let s = step.get();
        if !wanted(s) {
            return;
        }
        let handler: super::Handler = std::rc::Rc::new(move |response, _| {
            if let Response::Caption(c) = response {
                caption.set(c);
            }
        });
        client.with_value(|c| c.query(ask(s), handler));
    });
    caption
}

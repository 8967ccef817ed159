//! Requests, responses, and the [`Engine`] that serves them. The Web Worker
//! runs `Engine::serve` (whole requests, progress between slices); the page's
//! fallback, when workers are unavailable, runs `Engine::begin` and
//! `Engine::step` in short slices on the main thread. Both give the same
//! responses for the same requests.

use crate::lab::{LabPlan, LabRequest, LabResult, LabRun, UqBuild, UqRequest, UqResult};
use crate::mesh::{ExportKind, Frame, FrameRequest, MeshRequest, MeshSession, MeshSummary, RoundPanel, RoundRequest};
use crate::model::{ModelRequest, ModelRun};
use crate::swizzle::{SwizzleRequest, SwizzleRun, SwizzleSummary};
use crate::tree::{
    PipelineBuild, PipelineRequest, PipelineRun, PipelineSummary, TreeBuild, TreeRequest, TreeRun, TreeSummary,
};
use crate::ApiError;
use commlab_core::barrier::replay::ReplayRun;
use commlab_plot::mesh::Scene;
use serde::{Deserialize, Serialize};

/// What the page asks of the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Record a mesh run (progress, then [`Response::MeshReady`] with the
    /// asked frame, so a parameter change is one round trip); it replaces the session.
    MeshRun(MeshRequest, FrameRequest),
    /// Draw a step of the session's run.
    MeshFrame(FrameRequest),
    /// Export the session's run.
    MeshExport(ExportKind),
    /// The before/after `round(K)` panel.
    Round(RoundRequest),
    /// Runs `first..first + count` of a lab sweep (a pool hands out such
    /// batches; one run per message would leave workers idle between runs).
    LabRuns {
        /// The sweep.
        lab: LabRequest,
        /// First index in its plan.
        first: usize,
        /// Runs (at least 1).
        count: usize,
    },
    /// The UQ experiment.
    Uq(UqRequest),
    /// A tree-view run too large for the page (kept for exports).
    Tree(TreeRequest),
    /// A pipeline run too large for the page (kept for captions and exports).
    Pipeline(PipelineRequest),
    /// The caption of a step of the kept pipeline run.
    PipelineCaption(usize),
    /// A swizzle run too large for the page (kept for captions and exports).
    Swizzle(SwizzleRequest),
    /// The caption of a step of the kept swizzle run.
    SwizzleCaption(usize),
    /// The swizzle on a network, with and without the rank shift.
    SwizzleNet(SwizzleRequest, crate::network::NetRequest),
    /// Compute the runtime model and keep it for [`Request::DataExport`]
    /// (the model view draws on the page; its data exports come from here).
    Model(ModelRequest),
    /// The kept tree, pipeline, swizzle or model run as CSV or JSON.
    DataExport(DataView, DataFormat),
    /// Panics inside the engine (the browser suite checks the banner).
    SelfTestPanic,
}

/// What the engine answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Response {
    /// Work done of a total (messages delivered, events), while a run goes on.
    Progress {
        /// Done.
        done: u64,
        /// Of.
        total: u64,
    },
    /// The mesh run is recorded.
    MeshReady(MeshSummary, Frame),
    /// A drawn step.
    Frame(Frame),
    /// An export's text.
    Export(String),
    /// The before/after `round(K)` panel.
    Round(RoundPanel),
    /// A batch of lab runs, in index order.
    Lab(Vec<LabResult>),
    /// The UQ experiment.
    Uq(UqResult),
    /// A tree run's summary.
    Tree(TreeSummary),
    /// A pipeline run's summary.
    Pipeline(PipelineSummary),
    /// A swizzle run's summary.
    Swizzle(SwizzleSummary),
    /// The swizzle on a network, with and without the shift (the view words and draws it).
    SwizzleNet(Box<crate::swizzle::SwizzleNet>),
    /// A caption.
    Caption(String),
    /// The run asked for is computed and kept for exports.
    Kept,
    /// The request was refused.
    Error(ApiError),
}

/// Which kept run an export is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataView {
    /// The tree view's run.
    Tree,
    /// The pipeline view's run.
    Pipeline,
    /// The swizzle view's run.
    Swizzle,
    /// The model view's run.
    Model,
}

/// The data format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataFormat {
    /// CSV.
    Csv,
    /// JSON.
    Json,
}

impl Response {
    /// Whether this ends its request (anything but progress).
    pub fn is_final(&self) -> bool {
        !matches!(self, Response::Progress { .. })
    }
}

fn progress((done, total): (u64, u64)) -> Response {
    Response::Progress { done, total }
}

enum Task {
    Mesh(ReplayRun, FrameRequest),
    Lab {
        run: Option<LabRun>,
        /// The next index to start, and the end of the batch.
        next: usize,
        end: usize,
        done: Vec<LabResult>,
    },
    /// Value cells replayed are the progress of these three; UQ counts `N` per link set or row.
    Tree(TreeRequest, TreeBuild),
    Pipeline(PipelineRequest, PipelineBuild),
    Uq(UqBuild),
}

/// Serves requests; holds the current mesh session and the last lab plan.
#[derive(Default)]
pub struct Engine {
    session: Option<MeshSession>,
    tree: Option<(TreeRequest, TreeRun)>,
    pipeline: Option<(PipelineRequest, PipelineRun)>,
    swizzle: Option<SwizzleRun>,
    model: Option<ModelRun>,
    plan: Option<(LabRequest, LabPlan)>,
    task: Option<Task>,
}

impl Engine {
    /// An engine with no session.
    pub fn new() -> Engine {
        Engine::default()
    }

    /// Begins `request`: quick requests are answered at once, runs return
    /// `None` and go on with [`Engine::step`]. A new request abandons the
    /// task under way.
    ///
    /// # Panics
    /// On [`Request::SelfTestPanic`], by design.
    pub fn begin(&mut self, request: Request) -> Option<Response> {
        self.task = None;
        match request {
            Request::MeshRun(r, frame) => {
                self.session = None;
                self.start(MeshSession::start(&r).map(|run| Task::Mesh(run, frame)))
            }
            Request::MeshFrame(f) => Some(match &mut self.session {
                Some(s) => Response::Frame(s.frame(f)),
                None => Response::Error(no_run()),
            }),
            Request::MeshExport(kind) => Some(match &mut self.session {
                Some(s) => Response::Export(s.export(kind)),
                None => Response::Error(no_run()),
            }),
            Request::Round(r) => Some(r.run().map_or_else(Response::Error, Response::Round)),
            Request::LabRuns { lab, first, count } => self.begin_lab(lab, first, count),
            Request::Uq(u) => self.start(u.start().map(Task::Uq)),
            Request::Tree(r) => {
                self.tree = None;
                let build = r.start_with(None);
                self.start(build.map(|b| Task::Tree(r, b)))
            }
            Request::Pipeline(r) => {
                self.pipeline = None;
                let build = r.start();
                self.start(build.map(|b| Task::Pipeline(r, b)))
            }
            Request::PipelineCaption(step) => Some(self.pipeline_caption(step)),
            Request::Swizzle(r) => {
                self.swizzle = None;
                Some(match r.run() {
                    Ok(run) => {
                        let summary = run.summary();
                        self.swizzle = Some(run);
                        Response::Swizzle(summary)
                    }
                    Err(e) => Response::Error(e),
                })
            }
            Request::SwizzleNet(r, net) => Some(match r.on_network(&net) {
                Ok(n) => Response::SwizzleNet(Box::new(n)),
                Err(e) => Response::Error(e),
            }),
            Request::SwizzleCaption(step) => Some(match &self.swizzle {
                Some(run) => Response::Caption(run.caption(step.min(run.schedule.steps()))),
                None => Response::Error(no_run()),
            }),
            Request::Model(r) => Some(match r.run() {
                Ok(run) => {
                    self.model = Some(run);
                    Response::Kept
                }
                Err(e) => {
                    self.model = None;
                    Response::Error(e)
                }
            }),
            Request::DataExport(view, format) => Some(self.data_export(view, format)),
            Request::SelfTestPanic => panic!("self-test panic requested inside the engine"),
        }
    }

    /// A task started (it answers as it steps), or why it could not start.
    fn start(&mut self, task: Result<Task, ApiError>) -> Option<Response> {
        match task {
            Ok(t) => {
                self.task = Some(t);
                None
            }
            Err(e) => Some(Response::Error(e)),
        }
    }

    /// Starts lab runs `first..first + count` of `lab`'s plan (planned once per lab).
    fn begin_lab(&mut self, lab: LabRequest, first: usize, count: usize) -> Option<Response> {
        if self.plan.as_ref().is_none_or(|(l, _)| *l != lab) {
            match lab.plan() {
                Ok(plan) => self.plan = Some((lab, plan)),
                Err(e) => return Some(Response::Error(e)),
            }
        }
        let plan = &self.plan.as_ref().expect("set above").1;
        let end = first.saturating_add(count.max(1));
        if end > plan.runs.len() {
            let range = format!("a batch inside 0..{}", plan.runs.len());
            return Some(Response::Error(ApiError::new("index", format!("{first}..{end}"), range)));
        }
        let run = LabRun::start(plan, first);
        self.start(run.map(|run| Task::Lab { run: Some(run), next: first + 1, end, done: Vec::new() }))
    }

    /// The kept pipeline run's caption of `step` (from 1).
    fn pipeline_caption(&self, step: usize) -> Response {
        match &self.pipeline {
            Some((_, run)) if step >= 1 && step <= run.schedule.rounds.len() => {
                Response::Caption(commlab_core::reduce::caption(&run.schedule, step - 1))
            }
            Some((_, run)) => Response::Error(ApiError::new(
                "step",
                step,
                format!("a step from 1 to {} of the kept run", run.schedule.rounds.len()),
            )),
            None => Response::Error(no_run()),
        }
    }

    /// Advances the task under way by at most `events` events: progress
    /// while it runs, its result when it ends, `None` when idle.
    ///
    /// # Panics
    /// Never: a lab batch keeps its plan and was checked against it when it began.
    pub fn step(&mut self, events: u64) -> Option<Response> {
        match self.task.as_mut()? {
            Task::Mesh(run, _) => {
                if !run.advance(events) {
                    let (done, total) = run.progress();
                    return Some(Response::Progress { done, total });
                }
                let Some(Task::Mesh(run, frame)) = self.task.take() else { unreachable!() };
                let mut session = MeshSession::new(run.finish());
                let summary = session.summary();
                let frame = session.frame(frame);
                self.session = Some(session);
                Some(Response::MeshReady(summary, frame))
            }
            Task::Lab { run, next, end, done } => {
                let total = (*end - *next + done.len() + 1) as u64;
                let current = run.as_mut().expect("a batch always has a run under way");
                if !current.advance(events) {
                    return Some(Response::Progress { done: done.len() as u64, total });
                }
                done.push(run.take().expect("checked above").finish());
                if *next < *end {
                    let plan = &self.plan.as_ref().expect("a batch has its plan").1;
                    *run = Some(LabRun::start(plan, *next).expect("checked when the batch began"));
                    *next += 1;
                    return Some(Response::Progress { done: done.len() as u64, total });
                }
                let Some(Task::Lab { done, .. }) = self.task.take() else { unreachable!() };
                Some(Response::Lab(done))
            }
            Task::Tree(_, build) => {
                if !build.advance(events) {
                    return Some(progress(build.progress()));
                }
                let Some(Task::Tree(request, build)) = self.task.take() else { unreachable!() };
                let run = build.finish();
                let summary = run.summary();
                self.tree = Some((request, run));
                Some(Response::Tree(summary))
            }
            Task::Pipeline(_, build) => {
                if !build.advance(events) {
                    return Some(progress(build.progress()));
                }
                let Some(Task::Pipeline(request, build)) = self.task.take() else { unreachable!() };
                let run = build.finish();
                let summary = run.summary();
                self.pipeline = Some((request, run));
                Some(Response::Pipeline(summary))
            }
            Task::Uq(build) => {
                if !build.advance(events) {
                    return Some(progress(build.progress()));
                }
                let Some(Task::Uq(build)) = self.task.take() else { unreachable!() };
                Some(Response::Uq(build.finish()))
            }
        }
    }

    /// Serves `request` to the end, calling `progress` between slices of
    /// `slice` events.
    pub fn serve(&mut self, request: Request, slice: u64, mut progress: impl FnMut(&Response)) -> Response {
        if let Some(done) = self.begin(request) {
            return done;
        }
        loop {
            match self.step(slice) {
                Some(r) if r.is_final() => return r,
                Some(r) => progress(&r),
                None => return Response::Error(no_run()),
            }
        }
    }

    fn data_export(&self, view: DataView, format: DataFormat) -> Response {
        use crate::exports;
        let text = match (view, format) {
            (DataView::Tree, f) => self.tree.as_ref().map(|(r, run)| match f {
                DataFormat::Csv => exports::tree_csv(run),
                DataFormat::Json => exports::tree_json(run, r),
            }),
            (DataView::Pipeline, f) => self.pipeline.as_ref().map(|(r, run)| match f {
                DataFormat::Csv => exports::pipeline_csv(&run.schedule, r.elements as usize),
                DataFormat::Json => exports::pipeline_json(&run.schedule, r),
            }),
            (DataView::Swizzle, f) => self.swizzle.as_ref().map(|run| match f {
                DataFormat::Csv => exports::swizzle_csv(&run.schedule),
                DataFormat::Json => exports::swizzle_json(&run.schedule, &run.naive, &run.cost),
            }),
            (DataView::Model, f) => self.model.as_ref().map(|run| match f {
                DataFormat::Csv => exports::model_csv(run),
                DataFormat::Json => exports::model_json(run),
            }),
        };
        text.map_or_else(|| Response::Error(no_run()), Response::Export)
    }

    /// The scene of the session's last frame (the worker paints it on a canvas).
    pub fn scene(&self) -> Option<Scene> {
        self.session.as_ref().map(MeshSession::scene)
    }

    /// The session's run, if any.
    pub fn session(&self) -> Option<&MeshSession> {
        self.session.as_ref()
    }
}

fn no_run() -> ApiError {
    ApiError::new(
        "request",
        "a frame, caption or export",
        "the run it is of first (MeshRun, Tree, Pipeline, Swizzle, Model)",
    )
}

/// Convenience for callers that want `Result`s: the lab results or the error.
///
/// # Errors
/// Whatever the engine refused.
pub fn lab_results(response: Response) -> Result<Vec<LabResult>, ApiError> {
    match response {
        Response::Lab(r) => Ok(r),
        Response::Error(e) => Err(e),
        other => Err(ApiError::new("response", format!("{other:?}"), "a lab result")),
    }
}

/// The UQ result or the error.
///
/// # Errors
/// Whatever the engine refused.
pub fn uq_result(response: Response) -> Result<UqResult, ApiError> {
    match response {
        Response::Uq(r) => Ok(r),
        Response::Error(e) => Err(e),
        other => Err(ApiError::new("response", format!("{other:?}"), "a UQ result")),
    }
}

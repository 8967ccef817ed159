//! The simulation protocol, the engine worker's second: every query that
//! simulates or fits, kept apart from [`crate::protocol`] (the views' runs)
//! so the first-paint UI bundle never carries its types. It serves the
//! Schedule view (a schedule run, re-simulated, exported: [`crate::schedule`]),
//! the Chooser (comparisons, LogGOPS or network points, winner maps, piece
//! checks, the profiles it keeps: [`crate::chooser`]), the fit
//! ([`crate::fit`]), a preset's expected curve and NCCL's tuner file
//! ([`crate::predict`], [`crate::nccl_tuner`]) and the system fit
//! ([`crate::sysfit`]). [`SimEngine::serve`] runs a query to the end with
//! progress (the worker); `begin`/`step` run it in slices (the page, when
//! workers are unavailable).

use crate::network::NetRequest;
use crate::schedule::{
    check_loggops, export, net_params, net_result, nothing_run, result, GenerateRequest, Kept, KeptRun, LogGops,
    ScheduleExport, ScheduleRequest, ScheduleResult, ScheduleSource, OPS, TIMELINE_OPS, TRACE_OPS,
};
use crate::ApiError;
use commlab_core::goal::critical::critical_path;
use commlab_core::goal::sim::{Order, Params, Simulation};
use commlab_core::goal::{self, Schedule};
use commlab_core::net::{NetParams, NetSimulation};
use serde::{Deserialize, Serialize};

/// What the page asks of the simulation engine.
///
/// With the feature `chooser-wire` (the Chooser's bundle, `index.html`) the
/// Schedule view's queries are not serialised and its answers not
/// deserialised: the Chooser never sends or receives them, and their serde
/// code is the largest part of that bundle's wire (`BENCHMARKS.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SimQuery {
    /// Build (or read) and simulate; the run is kept for exports.
    #[cfg_attr(feature = "chooser-wire", serde(skip_serializing))]
    Run(ScheduleRequest),
    /// Simulate the kept schedule again under other parameters (an opened
    /// file is then not sent and read again): LogGOPS, the ready-list order,
    /// the network.
    Resimulate(#[serde(with = "crate::schedule::ParamsOnWire")] LogGops, bool, Option<NetRequest>),
    /// An export of the kept run.
    #[cfg_attr(feature = "chooser-wire", serde(skip_serializing))]
    Export(ScheduleExport),
    /// A generated collective as GOAL text, without simulating it (the other
    /// views' "Export GOAL").
    #[cfg_attr(feature = "chooser-wire", serde(skip_serializing))]
    Goal(GenerateRequest),
    /// The Chooser view's comparison at one p (answered at once).
    Choose(crate::chooser::ChooseRequest),
    /// The Chooser view's winner map (a row of p a step, with progress).
    Map(crate::chooser::MapRequest),
    /// The profiles the worker keeps for a comparison, for the page's cache.
    Profiles(crate::chooser::ChooseRequest),
    /// The chunk optimizer checked by simulation at the request's `check_at`
    /// (answered at once: a handful of simulations).
    Check(crate::chooser::ChooseRequest),
    /// The Chooser view's LogGOPS points (a size a step, with progress;
    /// answered with the comparison, simulated).
    Simulate(crate::chooser::ChooseRequest),
    /// The Chooser view's fit of α and β to a benchmark's output (answered
    /// at once).
    Fit(crate::fit::FitRequest),
    /// What a preset system should reach at the Chooser's sizes: NCCL's
    /// picks, planned on the page ([`crate::predict::PredictRequest::planned`]),
    /// simulated with their channels (`commlab predict`; answered at once).
    Predict(Vec<crate::predict::Planned>),
    /// One size of the expected curve simulated by the flow engine, beside
    /// its steady value ([`crate::predict::Planned::flow_band`]; answered at
    /// once: one run, or 7 for a ring over several channels).
    Flow(crate::predict::Planned),
    /// A preset system fitted to a measured run (`crate::sysfit`), planned on
    /// the page; answered at once (seconds: every size simulated tens of times).
    SystemFit(crate::sysfit::SystemFitRequest),
    /// A synthetic benchmark output of the collective at p fitted a few
    /// times ([`crate::fit::FitRequest::warm_up`]), so that a reader's first
    /// file meets optimized code; answered with that fit, its points left out.
    WarmFit {
        /// The collective.
        collective: String,
        /// Ranks.
        p: u32,
    },
}

/// What the simulation engine answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SimResponse {
    /// Work done of a total, in a phase (`reading`, `simulating`, `analysing`).
    Progress {
        /// Phase.
        phase: String,
        /// Done.
        done: u64,
        /// Of.
        total: u64,
    },
    /// The run.
    #[cfg_attr(feature = "chooser-wire", serde(skip_deserializing))]
    Ready(ScheduleResult),
    /// A network run's result before its ideal switch has run: everything
    /// but [`NetSummary::ideal`](crate::network::NetSummary::ideal) and the
    /// slowdown (`None`). Not final: [`SimResponse::Ready`] follows
    /// with them, so a page shows the network's answer one run earlier.
    #[cfg_attr(feature = "chooser-wire", serde(skip_deserializing))]
    Partial(ScheduleResult),
    /// An export: file name and text.
    Export(String, String),
    /// Refused, with the reason.
    Error(ApiError),
    /// The comparison of [`SimQuery::Choose`].
    Chosen(crate::chooser::ChooseResult),
    /// The winner map of [`SimQuery::Map`].
    Map(crate::chooser::WinnerMap),
    /// The profiles of [`SimQuery::Profiles`].
    Profiles(Vec<crate::chooser::KeptProfiles>),
    /// The piece checks of [`SimQuery::Check`].
    Checked(Vec<crate::chooser::PieceCheck>),
    /// The fit of [`SimQuery::Fit`].
    Fitted(crate::fit::FitResult),
    /// The expected curve of [`SimQuery::Predict`].
    Expected(Vec<crate::predict::Expected>),
    /// The fit of [`SimQuery::SystemFit`].
    SystemFitted(crate::sysfit::SystemFit),
    /// The flow engine's run of [`SimQuery::Flow`]: its size and its band
    /// (ns, with NCCL's per-call cost; one run where the flows do not couple).
    Flowed(u64, crate::predict::Band),
}

impl SimResponse {
    /// Whether this ends its query.
    pub fn is_final(&self) -> bool {
        !matches!(self, SimResponse::Progress { .. } | SimResponse::Partial(_))
    }
}

/// The schedule a run asks for: generated (on its network's shape), or
/// read from GOAL text with `progress(done, total)` told about a hundred times.
fn schedule_of(request: &ScheduleRequest, progress: &mut dyn FnMut(u64, u64)) -> Result<Schedule, ApiError> {
    match &request.source {
        ScheduleSource::Generate(g) => g.build_on(request.network.as_ref().map(|n| n.topology)),
        ScheduleSource::Text(text) => {
            let total = text.len() as u64;
            let mut last = 0u64;
            let mut report = |at: usize| {
                if at as u64 > last + total / 100 {
                    last = at as u64;
                    progress(last, total);
                }
            };
            goal::parse_with(text, OPS, &mut report).map_err(|e| parse_error(&e))
        }
    }
}

#[allow(clippy::large_enum_variant, reason = "one run under way per engine")]
enum Running {
    LogGops {
        sim: Simulation<Schedule>,
        request: ScheduleRequest,
        traced: bool,
    },
    /// Every event is handled: the next step finds the critical path, the one
    /// after builds the result. Each is a step of its own, so a page running
    /// the engine between frames never does them in one task.
    Finishing {
        kept: Box<Kept>,
        traced: bool,
        critical: bool,
    },
    Net(Box<NetRunning>),
}

/// A network run under way: the network, then its ideal switch.
struct NetRunning {
    request: ScheduleRequest,
    /// The network, until its stage is over.
    net: Option<commlab_core::net::Network>,
    hosts: Vec<u32>,
    stage: NetStage,
    /// The network's run and the result sent as [`SimResponse::Partial`],
    /// once its stage is over.
    done: Option<(crate::network::NetRun, ScheduleResult)>,
    /// Events of one stage.
    expected: u64,
}

enum NetStage {
    Network(NetSimulation<Schedule>),
    Ideal(NetSimulation<Schedule>),
    /// Both runs are over: the next step builds the result (a step of its
    /// own, as [`Running::Finishing`]).
    Over(NetSimulation<Schedule>),
    Empty,
}

/// Serves [`SimQuery`]s and keeps the last run.
#[derive(Default)]
pub struct SimEngine {
    kept: Option<Kept>,
    running: Option<Running>,
    /// The chooser's profiles, kept between its requests.
    chooser: crate::chooser::Cache,
    /// A winner map under way.
    mapping: Option<crate::chooser::MapRun>,
    /// Simulated points under way.
    simulating: Option<crate::chooser::SimRun>,
    /// An expected curve under way: the planned sizes and the points so far,
    /// one size a step (a large System's size takes seconds).
    predicting: Option<(Vec<crate::predict::Planned>, Vec<crate::predict::Expected>)>,
}

/// `network` checked for a schedule of `ranks` ranks (before anything runs).
fn check_network(network: &NetRequest, ranks: u32) -> Result<(), ApiError> {
    network.network()?;
    network.placement.vertices(ranks, network.topology)?;
    Ok(())
}

fn parse_error(e: &goal::ParseError) -> ApiError {
    ApiError::problem(&format!("GOAL, line {}, column {}", e.line, e.column), e.message.clone())
}

impl SimEngine {
    /// An engine with no run.
    pub fn new() -> SimEngine {
        SimEngine::default()
    }

    /// Begins a query; `progress(done, total)` is told how far GOAL text is read.
    /// Exports answer at once; a run returns `None` and goes on with [`SimEngine::step`].
    pub fn begin_with(&mut self, query: SimQuery, progress: &mut dyn FnMut(u64, u64)) -> Option<SimResponse> {
        self.running = None;
        self.mapping = None;
        self.simulating = None;
        self.predicting = None;
        match query {
            SimQuery::Profiles(request) => Some(SimResponse::Profiles(self.chooser.export(&request))),
            SimQuery::Check(request) => Some(match crate::chooser::check_pieces(&request, &mut self.chooser) {
                Ok(checks) => SimResponse::Checked(checks),
                Err(e) => SimResponse::Error(e),
            }),
            SimQuery::Simulate(request) => match crate::chooser::SimRun::new(&request, &mut self.chooser) {
                Ok(run) => {
                    self.simulating = Some(run);
                    None
                }
                Err(e) => Some(SimResponse::Error(e)),
            },
            SimQuery::Predict(planned) => {
                if planned.is_empty() {
                    return Some(SimResponse::Expected(Vec::new()));
                }
                self.predicting = Some((planned, Vec::new()));
                None
            }
            SimQuery::Flow(planned) => Some(
                planned.flow_band().map_or_else(SimResponse::Error, |band| SimResponse::Flowed(planned.bytes, band)),
            ),
            SimQuery::SystemFit(request) => {
                Some(request.run().map_or_else(SimResponse::Error, SimResponse::SystemFitted))
            }
            SimQuery::Fit(request) => Some(match request.run_cached(&mut self.chooser) {
                Ok(fit) => SimResponse::Fitted(fit),
                Err(e) => SimResponse::Error(e),
            }),
            SimQuery::WarmFit { collective, p } => {
                Some(match crate::fit::FitRequest::warm_up(&collective, p).warm(&mut self.chooser) {
                    Ok(fit) => SimResponse::Fitted(fit),
                    Err(e) => SimResponse::Error(e),
                })
            }
            SimQuery::Choose(request) => Some(match request.run_cached(&mut self.chooser) {
                Ok(result) => SimResponse::Chosen(result),
                Err(e) => SimResponse::Error(e),
            }),
            SimQuery::Map(request) => match request.start() {
                Ok(run) => {
                    self.mapping = Some(run);
                    None
                }
                Err(e) => Some(SimResponse::Error(e)),
            },
            SimQuery::Goal(g) => Some(match g.build() {
                Ok(s) => SimResponse::Export(format!("commlab-{}-p{}.goal", g.collective, s.ranks()), goal::write(&s)),
                Err(e) => SimResponse::Error(e),
            }),
            SimQuery::Export(kind) => Some(
                self.kept
                    .as_ref()
                    .map_or_else(|| Err(nothing_run()), |k| export(k, kind))
                    .map_or_else(SimResponse::Error, |(name, text)| SimResponse::Export(name, text)),
            ),
            SimQuery::Resimulate(params, libstdcxx, network) => {
                let Some(kept) = self.kept.take() else {
                    return Some(SimResponse::Error(ApiError::problem("schedule", "no schedule has run yet")));
                };
                let checked = check_loggops(&params).and_then(|p| {
                    network.as_ref().map_or(Ok(()), |n| check_network(n, kept.schedule.ranks())).map(|()| p)
                });
                let checked = match checked {
                    Ok(p) => p,
                    Err(e) => {
                        self.kept = Some(kept);
                        return Some(SimResponse::Error(e));
                    }
                };
                let request = ScheduleRequest { params, libstdcxx, network, ..kept.request };
                self.start(kept.schedule, request, checked)
            }
            SimQuery::Run(request) => {
                self.kept = None;
                let params = match check_loggops(&request.params) {
                    Ok(p) => p,
                    Err(e) => return Some(SimResponse::Error(e)),
                };
                let schedule = match schedule_of(&request, progress) {
                    Ok(s) => s,
                    Err(e) => return Some(SimResponse::Error(e)),
                };
                let mut request = request;
                if let ScheduleSource::Text(text) = &mut request.source {
                    // The schedule is what is kept; the text's memory goes now.
                    *text = String::new();
                }
                self.start(schedule, request, params)
            }
        }
    }

    /// Starts the run; an answer only when it is refused.
    fn start(&mut self, schedule: Schedule, request: ScheduleRequest, params: Params) -> Option<SimResponse> {
        let Some(network) = request.network.clone() else {
            let traced = schedule.ops.len() <= TRACE_OPS;
            let order = if request.libstdcxx { Order::Libstdcxx } else { Order::Stable };
            let sim = Simulation::new(schedule, params, order, traced);
            self.running = Some(Running::LogGops { sim, request, traced });
            return None;
        };
        let started = (|| {
            let net = network.network()?;
            let placement = network.placement;
            let hosts = placement.vertices(schedule.ranks(), network.topology)?;
            let trace = schedule.ops.len() <= TIMELINE_OPS;
            let sim =
                NetSimulation::new(schedule, net.clone(), placement, network.sim_params(net_params(&params))?, trace)?;
            let expected = sim.progress().1;
            Ok::<_, ApiError>(NetRunning {
                request,
                net: Some(net),
                hosts,
                stage: NetStage::Network(sim),
                done: None,
                expected,
            })
        })();
        match started {
            Ok(run) => {
                self.running = Some(Running::Net(Box::new(run)));
                None
            }
            Err(e) => Some(SimResponse::Error(e)),
        }
    }

    /// Whether a run is kept (a [`SimQuery::Resimulate`] can use it).
    pub fn has_run(&self) -> bool {
        self.kept.is_some()
    }

    /// [`SimEngine::begin_with`] without reading progress.
    pub fn begin(&mut self, query: SimQuery) -> Option<SimResponse> {
        self.begin_with(query, &mut |_, _| {})
    }

    /// Advances the run by at most `events` events: progress, then the result.
    pub fn step(&mut self, events: u64) -> Option<SimResponse> {
        if let Some((planned, rows)) = self.predicting.as_mut() {
            // One size a step: its simulation, then progress or the curve.
            let p = &planned[rows.len()];
            match crate::predict::Expected::by_its_engine(p) {
                Ok(expected) => rows.push(expected),
                Err(e) => {
                    self.predicting = None;
                    return Some(SimResponse::Error(e));
                }
            }
            let (done, total) = (rows.len() as u64, planned.len() as u64);
            if done < total {
                return Some(SimResponse::Progress { phase: "sizes".into(), done, total });
            }
            return self.predicting.take().map(|(_, rows)| SimResponse::Expected(rows));
        }
        if let Some(run) = self.simulating.as_mut() {
            if !run.step(&mut self.chooser) {
                let (done, total) = run.progress();
                let phase = if run.on_network() { "network" } else { "simulating" };
                return Some(SimResponse::Progress { phase: phase.into(), done, total });
            }
            return self.simulating.take().map(|run| SimResponse::Chosen(run.result));
        }
        if let Some(run) = self.mapping.as_mut() {
            if !run.step(&mut self.chooser) {
                let (done, total) = run.progress();
                return Some(SimResponse::Progress { phase: "costing".into(), done, total });
            }
            return self.mapping.take().map(|run| SimResponse::Map(run.map));
        }
        match self.running.as_mut()? {
            Running::LogGops { sim, .. } => {
                let over = sim.advance(events);
                let (done, total) = sim.progress();
                if !over {
                    return Some(SimResponse::Progress { phase: "simulating".into(), done, total });
                }
                let Some(Running::LogGops { sim, request, traced }) = self.running.take() else { return None };
                let (outcome, schedule) = sim.finish();
                let kept = Kept { schedule, request, critical: Vec::new(), run: KeptRun::LogGops(outcome) };
                self.running = Some(Running::Finishing { kept: Box::new(kept), traced, critical: false });
                let phase = if traced { "the critical path" } else { "the result" };
                return Some(SimResponse::Progress { phase: phase.into(), done: total, total });
            }
            Running::Finishing { kept, traced, critical } if *traced && !*critical => {
                if let KeptRun::LogGops(outcome) = &kept.run {
                    kept.critical = critical_path(&kept.schedule, outcome);
                }
                *critical = true;
                let total = kept.schedule.ops.len() as u64;
                return Some(SimResponse::Progress { phase: "the timeline".into(), done: total, total });
            }
            Running::Finishing { .. } => {}
            Running::Net(_) => return self.step_net(events),
        }
        let Some(Running::Finishing { kept, traced, .. }) = self.running.take() else { return None };
        let result = result(&kept, traced);
        self.kept = Some(*kept);
        Some(SimResponse::Ready(result))
    }

    /// A step of a network run: the network, then the ideal switch.
    fn step_net(&mut self, events: u64) -> Option<SimResponse> {
        let Some(Running::Net(run)) = self.running.as_mut() else { return None };
        let failed = |e: commlab_core::limits::ConfigError| Some(SimResponse::Error(e.into()));
        let expected = run.expected;
        match &mut run.stage {
            NetStage::Network(sim) => match sim.advance(events) {
                Err(e) => {
                    self.running = None;
                    return failed(e);
                }
                Ok(false) => {
                    let done = sim.progress().0;
                    return Some(SimResponse::Progress {
                        phase: "simulating the network".into(),
                        done,
                        total: 2 * expected,
                    });
                }
                Ok(true) => {
                    let NetStage::Network(sim) = std::mem::replace(&mut run.stage, NetStage::Empty) else {
                        return None;
                    };
                    let (outcome, prepared) = sim.finish_prepared();
                    let net = run.net.take()?;
                    let net_run = crate::network::NetRun { net, outcome, ideal: f64::NAN };
                    let s = prepared.schedule();
                    let partial = net_result(s, &run.request, &net_run, &run.hosts, s.ops.len() <= TIMELINE_OPS);
                    let ideal = run.request.network.as_ref().map(|n| n.ideal(s.ranks()));
                    let placement = run.request.network.as_ref().map(|n| n.placement);
                    let (Some(Ok(ideal)), Some(placement)) = (ideal, placement) else {
                        self.running = None;
                        return Some(SimResponse::Error(ApiError::problem(
                            "network",
                            "its ideal switch could not be built",
                        )));
                    };
                    let window = run.request.network.as_ref().map_or(0, |n| n.nic_window);
                    let p = NetParams { window, ..net_params(&run.request.params) };
                    match NetSimulation::prepared(prepared, ideal, placement, p, false) {
                        Ok(s) => run.stage = NetStage::Ideal(s),
                        Err(e) => {
                            self.running = None;
                            return failed(e);
                        }
                    }
                    run.done = Some((net_run, partial.clone()));
                    return Some(SimResponse::Partial(partial));
                }
            },
            NetStage::Ideal(sim) => match sim.advance(events) {
                Err(e) => {
                    self.running = None;
                    return failed(e);
                }
                Ok(false) => {
                    let done = expected + sim.progress().0.min(expected);
                    return Some(SimResponse::Progress { phase: "the ideal switch".into(), done, total: 2 * expected });
                }
                Ok(true) => {
                    if let NetStage::Ideal(sim) = std::mem::replace(&mut run.stage, NetStage::Empty) {
                        run.stage = NetStage::Over(sim);
                    }
                    return Some(SimResponse::Progress {
                        phase: "the result".into(),
                        done: 2 * expected,
                        total: 2 * expected,
                    });
                }
            },
            NetStage::Over(_) => {}
            NetStage::Empty => return None,
        }
        let Some(Running::Net(run)) = self.running.take() else { return None };
        let NetStage::Over(sim) = run.stage else { return None };
        let (ideal, schedule) = sim.finish_with();
        let (mut net_run, mut result) = run.done?;
        net_run.ideal = ideal.max().0;
        if let Some(summary) = result.network.as_mut() {
            summary.set_ideal(net_run.ideal);
        }
        let kept = Kept {
            schedule,
            request: run.request,
            critical: Vec::new(),
            run: KeptRun::Net(Box::new(net_run), run.hosts),
        };
        self.kept = Some(kept);
        Some(SimResponse::Ready(result))
    }

    /// Serves a query to the end, with progress between slices of `slice` events.
    pub fn serve(&mut self, query: SimQuery, slice: u64, progress: &mut dyn FnMut(&SimResponse)) -> SimResponse {
        let mut reading = |done, total| {
            progress(&SimResponse::Progress { phase: "reading".into(), done, total });
        };
        if let Some(done) = self.begin_with(query, &mut reading) {
            return done;
        }
        loop {
            match self.step(slice) {
                Some(r) if r.is_final() => return r,
                Some(r) => progress(&r),
                None => return SimResponse::Error(ApiError::new("run", "none", "a run under way")),
            }
        }
    }
}

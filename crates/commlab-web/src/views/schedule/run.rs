//! The Schedule view's run: the signals a run fills, and what starts,
//! shows, re-simulates and cancels one in the engine worker.

use super::network::Ideal;
use super::params::ScheduleParams;
use crate::browser;
use crate::engine::sim::{Arrays, OnResponse, SimClient};
use commlab_api::network::{NetPicture, NetRequest};
use commlab_api::schedule::{
    GenerateRequest, LogGops, ScheduleExport, ScheduleRequest, ScheduleResult, ScheduleSource, Timeline,
};
use commlab_api::sim::{SimQuery, SimResponse};
use leptos::prelude::*;
use std::rc::Rc;
use std::sync::Arc;

/// What the view shows of a finished run.
#[derive(Clone)]
pub struct Shown {
    /// The run's numbers.
    pub result: Rc<ScheduleResult>,
    /// Its timeline (small enough runs).
    pub timeline: Option<Rc<Timeline>>,
    /// The network picture (network runs).
    pub picture: Option<Arc<NetPicture>>,
    /// `on_path[op]`: the op is on the critical path.
    pub on_path: Rc<Vec<bool>>,
}

/// The opened file.
#[derive(Clone)]
pub struct OpenedFile {
    /// Its name ("pasted.goal" for a paste).
    pub name: String,
    /// Its text.
    pub text: Rc<String>,
}

/// Where the run stands.
#[derive(Clone, PartialEq)]
pub enum Status {
    /// Nothing running.
    Idle,
    /// Running: the phase, and how far (done of total, 0 of 0: unknown).
    Running(String, u64, u64),
    /// Cancelled by the user.
    Cancelled,
    /// The run failed: why, and whether running it again could help (the
    /// engine stopped); a refused request fails the same way every time.
    Failed(String, bool),
}

/// What a run depends on: the source and the simulation parameters (not the window).
type RunKey = (bool, GenerateRequest, LogGops, bool, Option<NetRequest>);

/// The run's signals (all `Copy`: the view's parts share them).
#[derive(Clone, Copy)]
pub struct Run {
    /// The view's state.
    pub params: RwSignal<ScheduleParams>,
    /// The opened file (a file source).
    pub file: RwSignal<Option<OpenedFile>, LocalStorage>,
    /// Where the run stands.
    pub status: RwSignal<Status>,
    /// The last run's result.
    pub shown: RwSignal<Option<Shown>, LocalStorage>,
    /// The bar in keyboard focus.
    pub focus: RwSignal<Option<usize>>,
    /// What the export row says (an export's error, a refused run's).
    pub export_status: RwSignal<String>,
    /// The engine worker.
    pub client: StoredValue<SimClient, LocalStorage>,
    started: StoredValue<f64>,
    /// How long the run took (ms).
    pub took: RwSignal<f64>,
    /// A network run answers twice: its result, then the ideal switch's time.
    pub ideal: RwSignal<Ideal>,
    /// How long the ideal switch took after the network (ms).
    pub ideal_took: RwSignal<Option<f64>>,
    /// The network's result is on screen and the ideal switch is running.
    partial: StoredValue<bool>,
    key: Memo<RunKey>,
}

impl Run {
    /// A run of `params` (none started yet).
    pub fn new(params: RwSignal<ScheduleParams>) -> Run {
        Run {
            params,
            file: RwSignal::new_local(None),
            status: RwSignal::new(Status::Idle),
            shown: RwSignal::new_local(None),
            focus: RwSignal::new(None),
            export_status: RwSignal::new(String::new()),
            client: StoredValue::new_local(SimClient::new()),
            started: StoredValue::new(0.0),
            took: RwSignal::new(0.0),
            ideal: RwSignal::new(Ideal::Pending),
            ideal_took: RwSignal::new(None),
            partial: StoredValue::new(false),
            key: Memo::new(move |_| params.with(|p| (p.file, p.generate.clone(), p.loggops, p.libstdcxx, p.network()))),
        }
    }

    /// Runs whenever what a run depends on changes.
    pub fn follow(self) {
        Effect::new(move |_| {
            self.key.track();
            self.run();
        });
    }

    fn show(self, result: ScheduleResult, arrays: Option<Arrays>) {
        let arrays = arrays.unwrap_or_default();
        let (timeline, picture) = (arrays.timeline, arrays.picture);
        let mut on_path = Vec::new();
        if let Some(t) = &timeline {
            on_path = vec![false; t.op_count()];
            for &i in &t.critical {
                if let Some(x) = on_path.get_mut(i as usize) {
                    *x = true;
                }
            }
        }
        self.focus.set(None);
        self.shown.set(Some(Shown {
            result: Rc::new(result),
            timeline: timeline.map(Rc::new),
            picture: picture.map(Arc::new),
            on_path: Rc::new(on_path),
        }));
    }

    fn ready(self, result: ScheduleResult, arrays: Option<Arrays>) {
        let now = browser::now_ms() - self.started.get_value();
        let done = result.network.as_ref().and_then(|n| n.ideal.zip(n.slowdown));
        self.ideal.set(done.map_or(Ideal::Stopped, |(t, s)| Ideal::Done(t, s)));
        if self.partial.get_value() && self.shown.with_untracked(Option::is_some) {
            // The partial result is on screen: only the ideal switch is new.
            self.ideal_took.set(Some(now - self.took.get_untracked()));
        } else {
            self.took.set(now);
            self.ideal_took.set(None);
            self.show(result, arrays);
        }
        self.partial.set_value(false);
        self.status.set(Status::Idle);
    }

    fn on_response(self) -> OnResponse {
        Rc::new(move |r: SimResponse, arrays: Option<Arrays>| match r {
            SimResponse::Progress { phase, done, total } => self.status.set(Status::Running(phase, done, total)),
            SimResponse::Partial(result) => {
                self.took.set(browser::now_ms() - self.started.get_value());
                self.ideal.set(Ideal::Pending);
                self.ideal_took.set(None);
                self.show(result, arrays);
                self.partial.set_value(true);
                self.status.set(Status::Running("the ideal switch".into(), 0, 0));
            }
            SimResponse::Ready(result) => self.ready(result, arrays),
            SimResponse::Error(e) => {
                if self.status.get_untracked() == Status::Idle {
                    self.export_status.set(e.to_string());
                } else {
                    self.shown.set(None);
                    self.status.set(Status::Failed(e.to_string(), e.field == "engine"));
                }
            }
            // Exports answer the export row's own handler (`export` below).
            _ => {}
        })
    }

    /// Runs the current parameters (a file already in the worker is only
    /// simulated again).
    pub fn run(self) {
        let (is_file, generate, loggops, libstdcxx, network) = self.key.get_untracked();
        let c = self.client.get_value();
        let query = if is_file {
            let Some(f) = self.file.get_untracked() else { return };
            if c.holds_run()
                && self.shown.with_untracked(Option::is_some)
                && self.status.get_untracked() == Status::Idle
            {
                SimQuery::Resimulate(loggops, libstdcxx, network)
            } else {
                let source = ScheduleSource::Text((*f.text).clone());
                SimQuery::Run(ScheduleRequest { source, params: loggops, libstdcxx, network })
            }
        } else {
            let source = ScheduleSource::Generate(generate);
            SimQuery::Run(ScheduleRequest { source, params: loggops, libstdcxx, network })
        };
        self.started.set_value(browser::now_ms());
        self.partial.set_value(false);
        self.status.set(Status::Running("starting".into(), 0, 0));
        c.send(query, self.on_response());
    }

    /// Runs a file source whose file changed: read again, not re-simulated.
    pub fn run_file(self) {
        self.shown.set(None);
        self.run();
    }

    /// Stops the run under way.
    pub fn cancel(self) {
        self.client.get_value().cancel();
        self.status.set(Status::Cancelled);
        if self.ideal.get_untracked() == Ideal::Pending {
            self.ideal.set(Ideal::Stopped);
        }
    }

    /// Asks the worker for an export of the run; its answer (a download or
    /// why not) goes to the export row, whatever the run's state.
    pub fn export(self, kind: ScheduleExport) {
        self.export_status.set(String::new());
        let status = self.export_status;
        let answer: OnResponse = Rc::new(move |response, _| match response {
            SimResponse::Export(name, text) => {
                let extension = std::path::Path::new(&name).extension().and_then(|e| e.to_str()).unwrap_or("");
                let mime = match extension {
                    "csv" => "text/csv",
                    "goal" => "text/plain",
                    _ => "application/json",
                };
                status.set(browser::download_text(&name, mime, &text).err().unwrap_or_default());
            }
            SimResponse::Error(e) => status.set(e.to_string()),
            _ => {}
        });
        self.client.get_value().send(SimQuery::Export(kind), answer);
    }

    /// Where the run's time axis is read (ns, ticks or u).
    pub fn unit(self) -> commlab_plot::timeline::TimeUnit {
        self.params.with(ScheduleParams::time_unit)
    }
}

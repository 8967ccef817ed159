//! The Chooser's shared state: its signals, the workers it asks, and the
//! few helpers every part draws with. `Copy`, so each part takes it whole.

use super::params::ChooserParams;
use crate::engine::sim::SimClient;
use commlab_api::chooser::{Cache, ChooseResult, PieceCheck, WinnerMap};
use commlab_api::predict::{Band, Expected, PredictRequest};
use commlab_core::choose::{of, Collective};
use commlab_plot::chooser::{algorithm_color, MapGeometry};
use leptos::prelude::*;
use std::rc::Rc;

/// Chart size in px: drawn for the results column's width up to 900, 420 high.
pub const CHART: (u32, u32) = (900, 420);

/// Where a request stands.
#[derive(Clone, PartialEq)]
pub enum Status {
    /// Nothing asked, or answered.
    Idle,
    /// Under way: done of total (0 of 0: unknown).
    Running(u64, u64),
    /// Refused or failed, in words.
    Failed(String),
}

/// The chart's request and answer, with how long it took.
#[derive(Clone)]
pub struct Shown {
    /// The comparison.
    pub result: Rc<ChooseResult>,
    /// Request to model curves drawn.
    pub took_ms: f64,
    /// The result carries the LogGOPS points.
    pub simulated: bool,
    /// The request it answers (a count of the view's requests).
    pub request: u64,
    /// Costed on the page (a small p, or profiles kept from the worker; else in the worker).
    pub on_page: bool,
}

/// One size of the expected curve run by the flow engine: the curve's
/// request, the size, and its band once the worker answered (or why not).
pub type Flowed = (PredictRequest, u64, Option<Result<Band, String>>);

/// The view's signals and workers.
#[derive(Clone, Copy)]
pub struct Ctx {
    /// The view's state.
    pub params: RwSignal<ChooserParams>,
    /// The page's theme.
    pub dark: Memo<bool>,
    /// Every chart is drawn for the results column's width, inside its figure's border.
    pub inner: Signal<f64>,
    /// The comparison shown.
    pub shown: RwSignal<Option<Shown>, LocalStorage>,
    /// The comparison's state.
    pub status: RwSignal<Status>,
    /// The winner map.
    pub map: RwSignal<Option<Rc<WinnerMap>>, LocalStorage>,
    /// The map's state.
    pub map_status: RwSignal<Status>,
    /// How long the map took (ms).
    pub map_took: RwSignal<f64>,
    /// The map cell pointed at or in focus.
    pub hover: RwSignal<Option<(usize, usize)>>,
    /// Where the map's cells are drawn.
    pub geometry: RwSignal<Option<MapGeometry>>,
    /// The simulated points' state.
    pub sim_status: RwSignal<Status>,
    /// The comparison's worker.
    pub compare: StoredValue<SimClient, LocalStorage>,
    /// Profiles kept from the worker: α, β, γ or sizes changed are costed on the page.
    pub page_cache: StoredValue<Cache, LocalStorage>,
    /// The simulated points' worker.
    pub simulator: StoredValue<SimClient, LocalStorage>,
    /// The piece-count check's worker (and the system's expected curve).
    pub checker: StoredValue<SimClient, LocalStorage>,
    /// The piece counts checked by simulation.
    pub checks: RwSignal<Vec<PieceCheck>>,
    /// The check's state.
    pub check_status: RwSignal<Status>,
    /// The map's worker.
    pub mapper: StoredValue<SimClient, LocalStorage>,
    /// The preset system's expected curve (`expected.rs`), from the checker's
    /// worker: it only checks piece counts under the α–β model, the curve
    /// exists only on a network.
    pub expected: RwSignal<Option<(PredictRequest, Vec<Expected>)>>,
    /// Where the expected curve stands, in words.
    pub expected_note: RwSignal<Option<String>>,
    /// The expected curve's size simulated by the flow engine (`flow=`):
    /// the size, and its band once the worker answered (or why not).
    pub flowed: RwSignal<Option<Flowed>>,
    /// "Run again" after a failure (a worker that could not start) asks everything anew.
    pub attempt: RwSignal<u32>,
    /// The figures below the chart follow a task later, so the chart's update is not held up by them.
    pub later: RwSignal<Option<Shown>, LocalStorage>,
    /// How long the chart took to draw (ms).
    pub draw_ms: RwSignal<f64>,
    /// What the libraries run at the chart's sizes.
    pub library_picks: Memo<super::libraries::Shown>,
    /// On a System: what NCCL would gain among its own algorithms under its
    /// per-step costs (or that they are being simulated).
    pub nccl_gain: RwSignal<Option<String>>,
    /// Their worker, started when first asked.
    pub gainer: StoredValue<Option<SimClient>, LocalStorage>,
    /// The cost split's row: the one nearest to the chosen size.
    pub split_row: Memo<Option<usize>>,
}

impl Ctx {
    /// The view's state for `params`, its charts `inner` px wide.
    pub fn new(params: RwSignal<ChooserParams>, dark: Memo<bool>, inner: Signal<f64>) -> Ctx {
        let shown = RwSignal::new_local(None::<Shown>);
        let later = RwSignal::new_local(None::<Shown>);
        Effect::new(move |_| {
            let s = shown.get();
            set_timeout(move || later.set(s), std::time::Duration::ZERO);
        });
        Ctx {
            params,
            dark,
            inner,
            shown,
            status: RwSignal::new(Status::Idle),
            map: RwSignal::new_local(None),
            map_status: RwSignal::new(Status::Idle),
            map_took: RwSignal::new(0.0),
            hover: RwSignal::new(None),
            geometry: RwSignal::new(None),
            sim_status: RwSignal::new(Status::Idle),
            compare: StoredValue::new_local(SimClient::new()),
            page_cache: StoredValue::new_local(Cache::default()),
            simulator: StoredValue::new_local(SimClient::new()),
            checker: StoredValue::new_local(SimClient::new()),
            checks: RwSignal::new(Vec::new()),
            check_status: RwSignal::new(Status::Idle),
            mapper: StoredValue::new_local(SimClient::new()),
            expected: RwSignal::new(None),
            expected_note: RwSignal::new(None),
            flowed: RwSignal::new(None),
            attempt: RwSignal::new(0),
            later,
            draw_ms: RwSignal::new(0.0),
            library_picks: Memo::new(move |_| {
                let s = shown.get()?;
                params.with(|c| super::libraries::compute(c, &s.result))
            }),
            nccl_gain: RwSignal::new(None),
            gainer: StoredValue::new_local(None),
            split_row: Memo::new(move |_| {
                let at = params.with(|c| c.at);
                later.with(|s| {
                    let r = &s.as_ref()?.result;
                    r.rows.iter().enumerate().min_by_key(|(_, x)| x.bytes.abs_diff(at)).map(|(i, _)| i)
                })
            }),
        }
    }

    /// The file names of the view's exports.
    pub fn file_stem(self) -> String {
        self.params.with(|c| {
            let p = c.far().map_or(c.compare.p, |s| s.ranks());
            format!("commlab-chooser-{}-p{p}", c.compare.collective.id())
        })
    }
}

/// Colours follow the collective's algorithm order, so an algorithm keeps its colour when others are left out.
pub fn color_of(c: Collective, id: &str) -> commlab_plot::RGBColor {
    algorithm_color(of(c).position(|a| a.id == id).unwrap_or(0))
}

/// "Run again" after a failure: everything is asked anew.
pub fn again_button(attempt: RwSignal<u32>) -> impl IntoView {
    view! { <button type="button" data-testid="run-again" on:click=move |_| attempt.update(|n| *n += 1)>"Run again"</button> }
}

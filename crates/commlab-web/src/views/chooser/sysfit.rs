//! The system fit under the α–β fit (`docs/systems.md`, fitting a
//! system): when the Chooser shows N nodes of a preset with p = all their
//! GPUs and the fitted file is an nccl-tests run at that p, the preset's
//! inter-node bandwidth, `NVLink` bandwidth and NCCL's fixed costs are fitted
//! to it in the fit's engine worker (NCCL's picks are planned here, where
//! its model is), and the run is read against what the preset should reach.

use super::params::ChooserParams;
use crate::engine::sim::{OnResponse, SimClient};
use commlab_api::fit::FitResult;
use commlab_api::sim::{SimQuery, SimResponse};
use commlab_api::sysfit::{Report, SystemFit, SystemFitRequest};
use commlab_core::systems::Preset;
use leptos::prelude::*;
use std::rc::Rc;

/// What to fit: the preset, its nodes and the request, or why nothing is.
fn plan(c: &ChooserParams, f: &FitResult) -> Result<(Preset, u32, SystemFitRequest), String> {
    let system = c.system();
    let request = SystemFitRequest::on_page(system.as_ref(), f)?;
    system.map(|s| (s.preset, s.nodes, request)).ok_or_else(String::new)
}

/// The panel.
#[component]
pub fn SystemFitPanel(
    /// The Chooser's state (its System and p).
    params: RwSignal<ChooserParams>,
    /// The α–β fit shown.
    result: RwSignal<Option<Rc<FitResult>>, LocalStorage>,
    /// The fit's engine worker.
    client: Callback<(), Option<SimClient>>,
) -> impl IntoView {
    let asked = Memo::new(move |_| {
        let f = result.get()?;
        Some(params.with(|c| plan(c, &f)))
    });
    let answer = RwSignal::new_local(None::<(Preset, u32, Rc<SystemFitRequest>, SystemFit)>);
    let status = RwSignal::new(String::new());
    let started = StoredValue::new(0.0f64);
    Effect::new(move |_| {
        answer.set(None);
        let Some(Ok((preset, nodes, request))) = asked.get() else {
            status.set(String::new());
            return;
        };
        status.set(format!(
            "Fitting {nodes} × {}: every size simulated with the preset's values scaled, in the engine worker ({})…",
            preset.id,
            if nodes <= 2 { "a few seconds" } else { "up to a minute or two" }
        ));
        started.set_value(crate::browser::now_ms());
        let request = Rc::new(request);
        let kept = request.clone();
        // The answer may come after this panel was rebuilt (a new fit of the
        // same file while the worker fitted the system): then its signals are
        // gone, and the answer is dropped rather than written to them.
        let handler: OnResponse = Rc::new(move |r, _| match r {
            SimResponse::SystemFitted(fit) => {
                let Some(started) = started.try_get_value() else { return };
                status.try_set(format!("Fitted in {:.1} s.", (crate::browser::now_ms() - started) / 1000.0));
                answer.try_set(Some((preset, nodes, kept.clone(), fit)));
            }
            SimResponse::Error(e) => {
                status.try_set(e.to_string());
            }
            _ => {}
        });
        if let Some(c) = client.run(()) {
            c.send(SimQuery::SystemFit((*request).clone()), handler);
        }
    });
    view! {
        {move || match asked.get() {
            Some(Err(why)) if !why.is_empty() => view! { <p class="field-note" data-testid="system-fit-note">{why}</p> }.into_any(),
            Some(Ok(_)) => view! {
                <div class="system-fit" data-testid="system-fit">
                    <h4>"The system fitted"</h4>
                    {move || answer.with(|a| a.as_ref().map(|(preset, nodes, request, fit)| {
                        let rccl = result.with(|r| r.as_ref().is_some_and(|f| f.rccl));
                        let report = Report { preset, nodes: *nodes, request, fit, rccl };
                        view! { <ul data-testid="system-fit-sentences">
                            {report.sentences().into_iter().map(|s| view! { <li>{s.trim().to_owned()}</li> }).collect_view()}
                        </ul> }
                    }))}
                    <p class="timing" role="status" data-testid="system-fit-status">{move || status.get()}</p>
                </div>
            }.into_any(),
            _ => ().into_any(),
        }}
    }
}

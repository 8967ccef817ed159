//! What the Chooser asks its workers, and when: the comparison (the model
//! at once, the simulated points after a pause), the piece-count check,
//! the system's expected curve and the winner map.

use super::ctx::{Ctx, Shown, Status};
use super::params::ChooserParams;
use crate::browser;
use crate::controls::debounce::Debounce;
use crate::engine::sim::{OnResponse, SimClient};
use commlab_api::chooser::ChooseResult;
use commlab_api::sim::{SimQuery, SimResponse};
use commlab_core::choose::of;
use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;

/// The pause after a change before the LogGOPS points are asked for.
const SIM_PAUSE_MS: u64 = 300;

/// Asks everything anew whenever what it depends on changes.
pub fn follow(ctx: Ctx) {
    follow_compare(&ctx);
    follow_checks(&ctx);
    follow_expected(&ctx);
    follow_flow(&ctx);
    follow_map(&ctx);
    follow_nccl_gain(&ctx);
}

/// On a System with NCCL shown: NCCL's own algorithms and protocols at the
/// chart's sizes, simulated with its per-step costs in a worker of their
/// own, for NCCL's gain sentence.
fn follow_nccl_gain(ctx: &Ctx) {
    use commlab_api::nccl_tuner::TunerPlan;
    let Ctx { params, shown, nccl_gain, gainer, .. } = *ctx;
    // What to plan: cheap to compare, so the planning itself (every
    // candidate at every size: tens of milliseconds at a thousand ranks)
    // runs in a task of its own, after the change's own is drawn.
    let asked = Memo::new(move |_| {
        let sizes: Vec<u64> = shown.with(|s| s.as_ref().map(|s| s.result.rows.iter().map(|x| x.bytes).collect()))?;
        params.with(|c| {
            let system = c.system().filter(|_| c.libraries[2])?;
            if !TunerPlan::gain_asked(&system, c.compare.p, c.compare.collective) {
                // A System too large to compare NCCL's own on: said, not asked.
                return TunerPlan::gain_skipped(&system, c.compare.p, c.compare.collective).map(Err);
            }
            Some(Ok((system, c.compare.collective.id(), sizes)))
        })
    });
    let next_task = Debounce::new();
    Effect::new(move |_| {
        // Whatever the gain's worker still runs was asked for before.
        next_task.cancel();
        gainer.with_value(|g| g.as_ref().map(SimClient::cancel));
        let (system, collective, sizes) = match asked.get() {
            Some(Ok(asked)) => asked,
            said => {
                nccl_gain.set(said.and_then(Result::err));
                return;
            }
        };
        let what = format!(
            "NCCL on {} × {}: simulating its own algorithms and protocols with its per-step costs",
            system.nodes, system.preset.id
        );
        nccl_gain.set(Some(format!("{what}…")));
        next_task.after(Duration::ZERO, move || {
            let Ok(plan) = TunerPlan::new(&system, collective, &sizes) else {
                nccl_gain.set(None);
                return;
            };
            ask_gain(plan, what, nccl_gain, gainer);
        });
    });
}

/// Simulates NCCL's own candidates of `plan` in the gain's worker, the
/// progress (`what`, done of total) and then the sentence in `nccl_gain`.
fn ask_gain(
    plan: commlab_api::nccl_tuner::TunerPlan,
    what: String,
    nccl_gain: RwSignal<Option<String>>,
    gainer: StoredValue<Option<SimClient>, LocalStorage>,
) {
    let planned = plan.planned();
    let handler: OnResponse = Rc::new(move |r, _| match r {
        SimResponse::Progress { done, total, .. } => {
            nccl_gain.set(Some(format!("{what}: {done} of {total} runs done…")));
        }
        SimResponse::Expected(rows) => {
            let times: Vec<f64> = rows.iter().map(|e| e.time_ns / 1000.0).collect();
            nccl_gain.set(Some(plan.gain_sentence(&times)));
        }
        SimResponse::Error(e) => nccl_gain.set(Some(format!("NCCL: {e}"))),
        _ => {}
    });
    if gainer.with_value(Option::is_none) {
        gainer.set_value(Some(SimClient::new()));
    }
    gainer.with_value(|g| g.as_ref().map(|g| g.send(SimQuery::Predict(planned), handler)));
}

/// The comparison: on every change of what it depends on, the model at
/// once; the LogGOPS points after it, from a second worker, size by size.
fn follow_compare(ctx: &Ctx) {
    let Ctx { params, shown, status, sim_status, compare, page_cache, simulator, attempt, .. } = *ctx;
    let choose_request = Memo::new(move |_| params.with(ChooserParams::choose_request));
    let requests = StoredValue::new(0u64);
    // The simulated points wait for a pause after the last change.
    let pause = Debounce::new();
    Effect::new(move |_| {
        attempt.track();
        let request = choose_request.get();
        let started = browser::now_ms();
        requests.update_value(|n| *n += 1);
        let id = requests.get_value();
        status.set(Status::Running(0, 0));
        let simulate = request.simulate;
        let model = commlab_api::chooser::ChooseRequest { simulate: false, ..request.clone() };
        let show = move |result: ChooseResult, on_page: bool| {
            // Simulated points of the same request may have come first.
            if shown.with_untracked(|s| s.as_ref().is_none_or(|s| !(s.simulated && s.request == id))) {
                let took_ms = browser::now_ms() - started;
                shown.set(Some(Shown { result: Rc::new(result), took_ms, simulated: false, request: id, on_page }));
            }
            status.set(Status::Idle);
        };
        if model.p <= commlab_api::chooser::PAGE_P || page_cache.with_value(|c| c.covers(&model)) {
            // Every profile is kept here, or a small p builds them in
            // milliseconds: no round trip, and no wait for the worker.
            match page_cache.try_update_value(|c| model.run_cached(c)) {
                Some(Ok(result)) => show(result, true),
                Some(Err(e)) => status.set(Status::Failed(e.to_string())),
                None => {}
            }
        } else {
            let client = compare.get_value();
            let again = model.clone();
            let handler: OnResponse = Rc::new(move |r, _| match r {
                SimResponse::Chosen(result) => {
                    show(result, false);
                    // Keep the worker's profiles here, so the next change of α, β, γ or sizes is costed on the page.
                    let keep: OnResponse = Rc::new(move |r, _| {
                        if let SimResponse::Profiles(kept) = r {
                            page_cache.update_value(|c| c.import(&kept));
                        }
                    });
                    compare.get_value().send(SimQuery::Profiles(again.clone()), keep);
                }
                SimResponse::Error(e) => {
                    shown.set(None);
                    status.set(Status::Failed(e.to_string()));
                }
                _ => {}
            });
            client.send(SimQuery::Choose(model), handler);
        }
        if simulate {
            sim_status.set(Status::Running(0, 0));
            let handler: OnResponse = Rc::new(move |r, _| match r {
                SimResponse::Progress { done, total, .. } => sim_status.set(Status::Running(done, total)),
                SimResponse::Chosen(result) => {
                    let took = shown.with_untracked(|s| s.as_ref().map_or(0.0, |s| s.took_ms));
                    shown.set(Some(Shown {
                        result: Rc::new(result),
                        took_ms: took,
                        simulated: true,
                        request: id,
                        on_page: false,
                    }));
                    sim_status.set(Status::Idle);
                }
                SimResponse::Error(e) => sim_status.set(Status::Failed(e.to_string())),
                _ => {}
            });
            // After a pause: dragging a slider must not start (and stop) a
            // simulation per step, nor delay the model curves' frame.
            pause.after(Duration::from_millis(SIM_PAUSE_MS), move || {
                simulator.get_value().send(SimQuery::Simulate(request), handler);
            });
        } else {
            pause.cancel();
            simulator.get_value().cancel();
            sim_status.set(Status::Idle);
        }
    });
}

/// The chunk optimizer checked by simulation at the explained size: a
/// fourth worker, so a new size re-runs only this check.
fn follow_checks(ctx: &Ctx) {
    let Ctx { params, checker, checks, check_status, attempt, .. } = *ctx;
    let check_request = Memo::new(move |_| {
        params.with(|c| {
            (c.simulating()
                && !c.on_network
                && of(c.compare.collective).any(|a| a.pipelined && c.compare.included().iter().any(|x| x == a.id)))
            .then(|| c.check_request())
        })
    });
    let pause = Debounce::new();
    Effect::new(move |_| {
        attempt.track();
        let request = check_request.get();
        pause.cancel();
        checks.set(Vec::new());
        let Some(request) = request else {
            checker.get_value().cancel();
            check_status.set(Status::Idle);
            return;
        };
        check_status.set(Status::Running(0, 0));
        let handler: OnResponse = Rc::new(move |r, _| match r {
            SimResponse::Checked(c) => {
                checks.set(c);
                check_status.set(Status::Idle);
            }
            SimResponse::Error(e) => check_status.set(Status::Failed(e.to_string())),
            _ => {}
        });
        pause.after(Duration::from_millis(SIM_PAUSE_MS), move || {
            checker.get_value().send(SimQuery::Check(request), handler);
        });
    });
}

/// The system's expected curve at the chart's sizes.
fn follow_expected(ctx: &Ctx) {
    let Ctx { params, shown, checker, expected, expected_note, .. } = *ctx;
    let expected_request = Memo::new(move |_| {
        let sizes: Vec<u64> = shown.with(|s| s.as_ref().map(|s| s.result.rows.iter().map(|x| x.bytes).collect()))?;
        params.with(|c| super::expected::request(c, &sizes))
    });
    Effect::new(move |_| {
        let Some(request) = expected_request.get() else {
            expected.set(None);
            expected_note.set(None);
            return;
        };
        if expected.with_untracked(|e| e.as_ref().is_some_and(|(r, _)| *r == request)) {
            return;
        }
        let what = format!("Simulating what {} × {} should reach", request.system.nodes, request.system.short_name());
        // Another system's curve is never drawn while this one is computed.
        expected.set(None);
        expected_note.set(Some(format!("{what}…")));
        let asked = request.clone();
        let handler: OnResponse = Rc::new(move |r, _| match r {
            SimResponse::Progress { done, total, .. } => {
                expected_note.set(Some(format!("{what}: {done} of {total} sizes done…")));
            }
            SimResponse::Expected(rows) => {
                expected.set(Some((asked.clone(), rows)));
                expected_note.set(None);
            }
            SimResponse::Error(e) => expected_note.set(Some(e.to_string())),
            _ => {}
        });
        // NCCL's model decides here (this bundle has it); the worker simulates.
        match request.planned_expected() {
            Ok(planned) => checker.get_value().send(SimQuery::Predict(planned), handler),
            Err(e) => expected_note.set(Some(e.to_string())),
        }
    });
}

/// The expected curve's size asked for by the flow engine (`flow=`): once
/// the curve holds that size, the worker simulates it flow by flow (its
/// band where the flows couple) for the table to show beside the steady value.
fn follow_flow(ctx: &Ctx) {
    let Ctx { params, expected, flowed, checker, .. } = *ctx;
    Effect::new(move |_| {
        let at = params.with(|c| c.flow);
        let asked = expected.with(|e| {
            e.as_ref().filter(|(_, rows)| rows.iter().any(|r| r.bytes == at)).map(|(request, _)| request.clone())
        });
        let Some(asked) = asked.filter(|_| at > 0) else {
            flowed.set(None);
            return;
        };
        if flowed.with_untracked(|f| f.as_ref().is_some_and(|(r, b, _)| *r == asked && *b == at)) {
            return;
        }
        flowed.set(Some((asked.clone(), at, None)));
        let one = commlab_api::predict::PredictRequest { sizes: vec![at], ..asked.clone() };
        let planned = match one.planned(commlab_api::predict::Engine::Flow) {
            Ok(mut planned) if !planned.is_empty() => planned.remove(0),
            Ok(_) => return,
            Err(e) => {
                flowed.set(Some((asked, at, Some(Err(e.to_string())))));
                return;
            }
        };
        // An answer for a size no longer asked for (another "simulate"
        // clicked meanwhile) is dropped.
        let current = move || params.with_untracked(|c| c.flow) == at;
        let handler: OnResponse = Rc::new(move |r, _| match r {
            SimResponse::Flowed(bytes, band) if bytes == at && current() => {
                flowed.set(Some((asked.clone(), at, Some(Ok(band)))));
            }
            SimResponse::Error(e) if current() => flowed.set(Some((asked.clone(), at, Some(Err(e.to_string()))))),
            _ => {}
        });
        checker.get_value().send(SimQuery::Flow(planned), handler);
    });
}

/// The winner map: its own worker, with progress per row of p.
fn follow_map(ctx: &Ctx) {
    let Ctx { params, map, map_status, map_took, mapper, attempt, .. } = *ctx;
    let map_request = Memo::new(move |_| params.with(ChooserParams::map_request));
    let run_map = move || {
        let request = map_request.get_untracked();
        let started = browser::now_ms();
        map_status.set(Status::Running(0, 0));
        let handler: OnResponse = Rc::new(move |r, _| match r {
            SimResponse::Progress { done, total, .. } => map_status.set(Status::Running(done, total)),
            SimResponse::Map(m) => {
                map_took.set(browser::now_ms() - started);
                map.set(Some(Rc::new(m)));
                map_status.set(Status::Idle);
            }
            SimResponse::Error(e) => {
                map.set(None);
                map_status.set(Status::Failed(e.to_string()));
            }
            _ => {}
        });
        mapper.get_value().send(SimQuery::Map(request), handler);
    };
    let next_task = Debounce::new();
    Effect::new(move |_| {
        attempt.track();
        map_request.track();
        // In the next task, so the chart's update is drawn first.
        next_task.after(Duration::ZERO, run_map);
    });
}

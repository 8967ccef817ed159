//! The Chooser view: every algorithm of a collective compared over message
//! sizes (α–β–γ model at each algorithm's best piece count, LogGOPS points
//! on top), the crossovers, the cost split at one size, the best piece
//! count vs size, and the winner map over p × size. The comparison and the
//! map come from the engine worker (two workers, so a long map never holds
//! up the chart); a map cell opens that configuration in the timeline.

use super::params::{ChooserParams, PRESETS, SIM_P, SIM_TRANSFERS};
use crate::browser;
use crate::controls::export_bar::ExportBar;
use crate::controls::notices::Notices;
use crate::controls::number_field::{int_range, real_range, NumberField};
use crate::engine::schedule::{OnResponse, ScheduleClient};
use crate::lazy::LazyArgs;
use commlab_api::chooser::{ChooseResult, WinnerMap, P};
use commlab_api::predict::{Expected, PredictRequest};
use commlab_api::schedule::{ScheduleQuery, ScheduleResponse};
use commlab_core::choose::{of, Collective};
use commlab_core::limits;
use commlab_core::systems::Measure;
use commlab_plot::chooser::{
    algorithm_color, pieces_chart, short_bytes, split_bars_svg, times_chart, winner_map_svg, MapGeometry, MapInput,
    Series,
};
use commlab_plot::{format_quantity as q, render_svg, Theme};
use leptos::prelude::*;
use std::rc::Rc;

/// The pause after a change before the LogGOPS points are asked for.
const SIM_PAUSE_MS: u64 = 300;

/// Chart size in px: drawn for the results column's width up to 900, 420 high.
const CHART: (u32, u32) = (900, 420);

/// The collectives, with labels.
const COLLECTIVES: [(&str, &str); 6] = [
    ("broadcast", "Broadcast (from rank 0)"),
    ("reduce", "Reduce (to rank 0)"),
    ("allreduce", "Allreduce"),
    ("allgather", "Allgather"),
    ("reduce-scatter", "Reduce-scatter"),
    ("all-to-all", "All-to-all"),
];

/// Where a request stands.
#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Running(u64, u64),
    Failed(String),
}

/// The chart's request and answer, with how long it took.
#[derive(Clone)]
struct Shown {
    result: Rc<ChooseResult>,
    /// Request to model curves drawn.
    took_ms: f64,
    /// The result carries the LogGOPS points.
    simulated: bool,
    /// The request it answers (a count of the view's requests).
    request: u64,
    /// Costed on the page from kept profiles (else in the worker).
    on_page: bool,
}

/// How much longer the winner-map cell's runner-up takes, readable at any
/// margin: `12.5 %`, `0.0312 %` (never a rounded `0.0 %`), or a tie.
fn runner_up(margin: f64) -> String {
    let percent = (margin - 1.0) * 100.0;
    if percent <= 0.0 {
        "; the runner-up takes the same time".to_owned()
    } else if percent < 0.1 {
        format!("; the runner-up takes {} % longer", q(percent))
    } else {
        format!("; the runner-up takes {percent:.1} % longer")
    }
}

/// The Chooser view. `report` receives the view's URL pairs as they change.
#[allow(clippy::too_many_lines, reason = "one view: controls, chart, split, optimizer, map, exports")]
#[allow(clippy::many_single_char_names, reason = "α, β, γ as a, b, g; p, q as in the formulas")]
#[component]
pub fn ChooserView(
    /// The link's pairs, the page's theme and embed mode.
    args: LazyArgs,
) -> impl IntoView {
    let (start, notices) = args.read::<ChooserParams>();
    let params = RwSignal::new(start);
    args.follow(params, true);
    let (dark, embed) = (args.dark, args.embed);
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    // Every chart is drawn for the results column's width, inside its figure's border.
    let results = NodeRef::<leptos::html::Div>::new();
    let width = crate::controls::chart::box_width(results, f64::from(CHART.0) + 2.0);
    let inner = Signal::derive(move || width.get() - 2.0);
    let shown = RwSignal::new_local(None::<Shown>);
    let status = RwSignal::new(Status::Idle);
    let map = RwSignal::new_local(None::<Rc<WinnerMap>>);
    let map_status = RwSignal::new(Status::Idle);
    let map_took = RwSignal::new(0.0f64);
    let hover = RwSignal::new(None::<(usize, usize)>);
    let geometry = RwSignal::new(None::<MapGeometry>);
    let sim_status = RwSignal::new(Status::Idle);
    let compare = StoredValue::new_local(ScheduleClient::new());
    let page_cache = StoredValue::new_local(commlab_api::chooser::Cache::default());
    let simulator = StoredValue::new_local(ScheduleClient::new());
    let checker = StoredValue::new_local(ScheduleClient::new());
    let checks = RwSignal::new(Vec::<commlab_api::chooser::PieceCheck>::new());
    let check_status = RwSignal::new(Status::Idle);
    let mapper = StoredValue::new_local(ScheduleClient::new());
    // The preset system's expected curve (`expected.rs`), from the checker's
    // worker: it only checks piece counts under the α–β model, the curve
    // exists only on a network.
    let expected = RwSignal::new(None::<(PredictRequest, Vec<Expected>)>);
    let expected_note = RwSignal::new(None::<String>);

    // The comparison: on every change of what it depends on, the model at
    // once; the LogGOPS points after it, from a second worker, size by size.
    let choose_request = Memo::new(move |_| params.with(ChooserParams::choose_request));
    let requests = StoredValue::new(0u64);
    // "Run again" after a failure (a worker that could not start) asks everything anew.
    let attempt = RwSignal::new(0u32);
    let again = move || view! { <button type="button" data-testid="run-again" on:click=move |_| attempt.update(|n| *n += 1)>"Run again"</button> };
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
        if page_cache.with_value(|c| c.covers(&model)) {
            // Every profile is kept here: microseconds, no round trip.
            match page_cache.try_update_value(|c| model.run_cached(c)) {
                Some(Ok(result)) => show(result, true),
                Some(Err(e)) => status.set(Status::Failed(e.to_string())),
                None => {}
            }
        } else {
            let client = compare.get_value();
            let again = model.clone();
            let handler: OnResponse = Rc::new(move |r, _| match r {
                ScheduleResponse::Chosen(result) => {
                    show(result, false);
                    // Keep the worker's profiles here, so the next change of α, β, γ or sizes is costed on the page.
                    let keep: OnResponse = Rc::new(move |r, _| {
                        if let ScheduleResponse::Profiles(kept) = r {
                            page_cache.update_value(|c| c.import(&kept));
                        }
                    });
                    compare.get_value().send(ScheduleQuery::Profiles(again.clone()), keep);
                }
                ScheduleResponse::Error(e) => {
                    shown.set(None);
                    status.set(Status::Failed(e.to_string()));
                }
                _ => {}
            });
            client.send(ScheduleQuery::Choose(model), handler);
        }
        if simulate {
            sim_status.set(Status::Running(0, 0));
            let handler: OnResponse = Rc::new(move |r, _| match r {
                ScheduleResponse::Progress { done, total, .. } => sim_status.set(Status::Running(done, total)),
                ScheduleResponse::Chosen(result) => {
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
                ScheduleResponse::Error(e) => sim_status.set(Status::Failed(e.to_string())),
                _ => {}
            });
            // After a pause: dragging a slider must not start (and stop) a
            // simulation per step, nor delay the model curves' frame.
            leptos::prelude::set_timeout(
                move || {
                    if requests.get_value() == id {
                        simulator.get_value().send(ScheduleQuery::Simulate(request), handler);
                    }
                },
                std::time::Duration::from_millis(SIM_PAUSE_MS),
            );
        } else {
            simulator.get_value().cancel();
            sim_status.set(Status::Idle);
        }
    });
    // The chunk optimizer checked by simulation at the explained size: a
    // fourth worker, so a new size re-runs only this check.
    let check_request = Memo::new(move |_| {
        params.with(|c| {
            (c.simulating()
                && !c.on_network
                && of(c.collective).any(|a| a.pipelined && !c.excluded.iter().any(|x| x == a.id)))
            .then(|| c.check_request())
        })
    });
    let checks_asked = StoredValue::new(0u64);
    Effect::new(move |_| {
        attempt.track();
        let request = check_request.get();
        checks_asked.update_value(|n| *n += 1);
        let id = checks_asked.get_value();
        checks.set(Vec::new());
        let Some(request) = request else {
            checker.get_value().cancel();
            check_status.set(Status::Idle);
            return;
        };
        check_status.set(Status::Running(0, 0));
        let handler: OnResponse = Rc::new(move |r, _| match r {
            ScheduleResponse::Checked(c) => {
                checks.set(c);
                check_status.set(Status::Idle);
            }
            ScheduleResponse::Error(e) => check_status.set(Status::Failed(e.to_string())),
            _ => {}
        });
        leptos::prelude::set_timeout(
            move || {
                if checks_asked.get_value() == id {
                    checker.get_value().send(ScheduleQuery::Check(request), handler);
                }
            },
            std::time::Duration::from_millis(SIM_PAUSE_MS),
        );
    });
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
        expected_note.set(Some(format!("Simulating what {} × {} should reach…", request.nodes, request.system)));
        let asked = request.clone();
        let handler: OnResponse = Rc::new(move |r, _| match r {
            ScheduleResponse::Expected(rows) => {
                expected.set(Some((asked.clone(), rows)));
                expected_note.set(None);
            }
            ScheduleResponse::Error(e) => expected_note.set(Some(e.to_string())),
            _ => {}
        });
        // NCCL's model decides here (this bundle has it); the worker simulates.
        match request.planned() {
            Ok(planned) => checker.get_value().send(ScheduleQuery::Predict(planned), handler),
            Err(e) => expected_note.set(Some(e.to_string())),
        }
    });
    // The winner map: its own worker, with progress per row of p.
    let map_request = Memo::new(move |_| params.with(ChooserParams::map_request));
    let run_map = move || {
        let request = map_request.get_untracked();
        let started = browser::now_ms();
        map_status.set(Status::Running(0, 0));
        let handler: OnResponse = Rc::new(move |r, _| match r {
            ScheduleResponse::Progress { done, total, .. } => map_status.set(Status::Running(done, total)),
            ScheduleResponse::Map(m) => {
                map_took.set(browser::now_ms() - started);
                map.set(Some(Rc::new(m)));
                map_status.set(Status::Idle);
            }
            ScheduleResponse::Error(e) => {
                map.set(None);
                map_status.set(Status::Failed(e.to_string()));
            }
            _ => {}
        });
        mapper.get_value().send(ScheduleQuery::Map(request), handler);
    };
    let maps = StoredValue::new(0u64);
    Effect::new(move |_| {
        attempt.track();
        map_request.track();
        // In the next task, so the chart's update is drawn first.
        maps.update_value(|n| *n += 1);
        let id = maps.get_value();
        leptos::prelude::set_timeout(
            move || {
                if maps.get_value() == id {
                    run_map();
                }
            },
            std::time::Duration::ZERO,
        );
    });

    // Colours follow the collective's algorithm order, so an algorithm keeps its colour when others are left out.
    let color_of = move |c: Collective, id: &str| algorithm_color(of(c).position(|a| a.id == id).unwrap_or(0));
    let caption = move |r: &ChooseResult| {
        params.with_untracked(|c| {
            format!(
                "{} on p = {}: time vs message size (α = {}, β = {}, γ = {})",
                r.collective,
                r.p,
                q(c.abg[0]),
                q(c.abg[1]),
                q(c.abg[2])
            )
        })
    };
    // The figures below the chart follow a task later, so the chart's update is not held up by them.
    let later = RwSignal::new_local(None::<Shown>);
    Effect::new(move |_| {
        let s = shown.get();
        leptos::prelude::set_timeout(move || later.set(s), std::time::Duration::ZERO);
    });
    let draw_ms = RwSignal::new(0.0f64);
    let times_svg = Memo::new(move |_| {
        let s = shown.get()?;
        let drawing = browser::now_ms();
        let r = &s.result;
        let collective: Collective = r.collective.parse().ok()?;
        let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
        // On a network the lines join the simulated points (ns); else they are the model's.
        let on_net = |x: &commlab_api::chooser::Row, k: usize| x.network.as_ref().and_then(|n| n.times[k]);
        // An algorithm whose every plan is over the message limit has no line;
        // its legend entry says so (the sentence under the chart says why).
        let over = r.over_limit();
        let series: Vec<Series> = r
            .algorithms
            .iter()
            .enumerate()
            .map(|(k, id)| Series {
                name: if over.contains(&id.as_str()) { format!("{id} (not simulated)") } else { id.clone() },
                color: color_of(collective, id),
                times: if r.network.is_some() {
                    r.rows.iter().map(|x| on_net(x, k).unwrap_or(0.0)).collect()
                } else {
                    r.rows.iter().map(|x| x.costs[k].total()).collect()
                },
                simulated: if r.network.is_some() {
                    r.rows.iter().map(|x| on_net(x, k)).collect()
                } else {
                    r.rows.iter().map(|x| x.simulated.as_ref().and_then(|s| s[k])).collect()
                },
                dashed: false,
            })
            .collect();
        // Times in ns may be shown as nccl-tests' bandwidths; the system's expected curve beside them.
        // The bandwidths need times in ns: the network's (once its run is
        // shown; the model's result comes first) or LogGOPSim's preset's.
        let measure = params.with(|c| if r.network.is_some() || c.ns() { c.measure() } else { Measure::Time });
        let in_measure = |t: f64, n: u64| measure.of(collective, r.p, n, t);
        let mut series: Vec<Series> = series
            .into_iter()
            .map(|s| Series {
                times: s.times.iter().zip(&sizes).map(|(&t, &n)| in_measure(t, n)).collect(),
                simulated: s.simulated.iter().zip(&sizes).map(|(t, &n)| t.map(|t| in_measure(t, n))).collect(),
                ..s
            })
            .collect();
        let fg = theme().foreground;
        series.extend(expected.with(|e| {
            e.as_ref().and_then(|(asked, rows)| {
                super::expected::series((asked, rows), &sizes, (collective, r.p), measure, fg)
            })
        }));
        let shown_crossovers = r.network.as_ref().map_or(&r.crossovers, |n| &n.1);
        let crossovers: Vec<(u64, usize)> = shown_crossovers
            .iter()
            .filter_map(|c| Some((c.bytes, r.algorithms.iter().position(|a| *a == c.to)?)))
            .collect();
        let t = theme();
        let (caption, unit, dots) = match &r.network {
            Some((topology, _)) => (
                format!("{} on p = {} on {topology}: simulated {} vs message size", r.collective, r.p, measure.id()),
                measure.axis(),
                "simulated on the network",
            ),
            None if measure != Measure::Time => (caption(r), measure.axis(), "LogGOPS (simulated)"),
            None => (
                caption(r),
                params.with_untracked(|c| if c.preset == "loggopsim" { "time (ns)" } else { "time (units of α)" }),
                "LogGOPS (simulated)",
            ),
        };
        let svg = render_svg(inner.get() as u32, CHART.1, |root| {
            times_chart(root, [&caption, unit, dots], &sizes, &series, &crossovers, &t)
        })
        .ok();
        draw_ms.set(browser::now_ms() - drawing);
        svg
    });
    // What the libraries run at the chart's sizes, and their band above it.
    let library_picks = Memo::new(move |_| {
        let s = shown.get()?;
        params.with(|c| super::libraries::compute(c, &s.result))
    });
    let band_svg = Memo::new(move |_| {
        let Some(Ok(picks)) = library_picks.get() else { return None };
        let s = shown.get()?;
        super::libraries::band_svg(&s.result, &picks, (inner.get(), dark.get()))
    });
    let pieces_svg = Memo::new(move |_| {
        let s = later.get()?;
        let r = &s.result;
        let collective: Collective = r.collective.parse().ok()?;
        let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
        let series: Vec<(String, _, Vec<u32>)> = r
            .algorithms
            .iter()
            .enumerate()
            .filter(|(k, _)| r.pipelined[*k])
            .map(|(k, id)| (id.clone(), color_of(collective, id), r.rows.iter().map(|x| x.pieces[k]).collect()))
            .collect();
        if series.is_empty() {
            return None;
        }
        let [a, b, g] = params.with_untracked(|c| c.abg);
        let p = f64::from(r.p);
        // The chain's optimum: d/dm of (p + m − 2)(α + n/m·β') = 0 gives
        // m* = √((p − 2)·n·β'/α), with β' = β (+ γ reducing); the chain up
        // then down, (p + m − 2)(2α + n/m·(2β + γ)): β' = β + γ/2.
        let chain = r.algorithms.iter().find(|x| *x == "chain" || *x == "chain-up-down").map(|id| {
            let beta = match (collective, id.as_str()) {
                (Collective::Reduce, _) => b + g,
                (_, "chain-up-down") => b + g / 2.0,
                _ => b,
            };
            let m: Vec<f64> = sizes.iter().map(|&n| ((p - 2.0) * n as f64 * beta / a).sqrt()).collect();
            (
                if id == "chain" {
                    "chain: m* = √((p−2)·n·β′/α)"
                } else {
                    "chain-up-down: m* = √((p−2)·n·β′/α)"
                },
                m,
            )
        });
        let t = theme();
        let caption = format!("Best piece count vs message size, p = {} (powers of two up to 4096)", r.p);
        render_svg(inner.get() as u32, CHART.1, |root| pieces_chart(root, &caption, &sizes, &series, chain, &t)).ok()
    });
    // The cost split at the chosen size (the row nearest to `at`).
    let split_row = Memo::new(move |_| {
        let at = params.with(|c| c.at);
        later.with(|s| {
            let r = &s.as_ref()?.result;
            r.rows.iter().enumerate().min_by_key(|(_, x)| x.bytes.abs_diff(at)).map(|(i, _)| i)
        })
    });
    let split_svg = Memo::new(move |_| {
        let i = split_row.get()?;
        let s = later.get()?;
        let r = &s.result;
        let row = &r.rows[i];
        let bars: Vec<(String, [f64; 3])> = r
            .algorithms
            .iter()
            .enumerate()
            .map(|(k, id)| {
                let c = row.costs[k];
                let name = if r.pipelined[k] { format!("{id} (m = {})", row.pieces[k]) } else { id.clone() };
                (name, [c.latency, c.bandwidth, c.compute])
            })
            .collect();
        let model = if r.network.is_some() { " (α–β model)" } else { "" };
        let caption = format!("Where the time goes at {} on p = {}{model}", short_bytes(row.bytes), r.p);
        Some(split_bars_svg(&caption, &bars, row.winner, inner.get(), &theme()))
    });
    let chart_p = Memo::new(move |_| params.with(|c| c.p));
    let map_svg = Memo::new(move |_| {
        let m = map.get()?;
        let collective: Collective = params.with_untracked(|c| c.collective);
        let algorithms: Vec<(String, _)> =
            m.algorithms.iter().map(|id| (id.clone(), color_of(collective, id))).collect();
        let input = MapInput {
            algorithms: &algorithms,
            ps: &m.ps,
            sizes: &m.sizes,
            winner: &m.winner,
            margin: &m.margin,
            mark_p: Some(chart_p.get()),
        };
        let caption = match &m.network {
            Some(t) => format!("Fastest {collective} algorithm by p and message size on {t} (simulated)"),
            None => format!("Fastest {collective} algorithm by p and message size (model)"),
        };
        let (svg, g) = winner_map_svg(&input, &caption, inner.get(), &theme());
        geometry.set(Some(g));
        Some(svg)
    });
    let cell_text = move |(i, j): (usize, usize)| -> Option<String> {
        let m = map.get()?;
        let k = i * m.sizes.len() + j;
        let winner = &m.algorithms[usize::from(*m.winner.get(k)?)];
        let pieces = if m.pieces[k] > 1 { format!(" with {} pieces", m.pieces[k]) } else { String::new() };
        let margin = if m.algorithms.len() > 1 { runner_up(m.margin[k]) } else { String::new() };
        Some(format!(
            "p = {}, {}: {winner}{pieces}{margin}. Click to open it in the timeline.",
            m.ps[i],
            short_bytes(m.sizes[j])
        ))
    };
    let open_cell = move |(i, j): (usize, usize)| {
        let Some(m) = map.get_untracked() else { return };
        let k = i * m.sizes.len() + j;
        let Some(&w) = m.winner.get(k) else { return };
        let collective = params.with_untracked(|c| c.collective);
        let abg = params.with_untracked(|c| c.abg);
        let query = super::params::timeline_query(
            collective,
            &m.algorithms[usize::from(w)],
            (m.ps[i], m.sizes[j], m.pieces[k]),
            abg,
            params.with_untracked(ChooserParams::ns),
            params.with_untracked(ChooserParams::net).as_ref(),
        );
        if let Some(w) = web_sys::window() {
            let _ = w.location().set_href(&format!("{}{query}", browser::page_base()));
        }
    };
    let at_cell = move |ev: &web_sys::MouseEvent| {
        let g = geometry.get_untracked()?;
        let (x, y) = browser::click_point(ev, inner.get_untracked().min(f64::from(CHART.0)))?;
        g.cell_at(x, y)
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let Some(g) = geometry.get_untracked() else { return };
        let (i, j) = hover.get_untracked().unwrap_or((0, 0));
        let next = match ev.key().as_str() {
            "ArrowUp" => (i + 1).min(g.rows - 1),
            "ArrowDown" => i.saturating_sub(1),
            _ => i,
        };
        let col = match ev.key().as_str() {
            "ArrowRight" => (j + 1).min(g.cols - 1),
            "ArrowLeft" => j.saturating_sub(1),
            _ => j,
        };
        match ev.key().as_str() {
            "Enter" => open_cell((i, j)),
            "ArrowUp" | "ArrowDown" | "ArrowLeft" | "ArrowRight" => {
                ev.prevent_default();
                hover.set(Some((next, col)));
            }
            _ => {}
        }
    };

    let shown_gains = shown;
    let crossovers = move || {
        shown.with(|s| {
            let r = &s.as_ref()?.result;
            let line = |c: &commlab_api::chooser::Crossover| {
                format!("{} beats {} from {} at p = {}", c.to, c.from, short_bytes(c.bytes), r.p)
            };
            let shown = r.network.as_ref().map_or(&r.crossovers, |n| &n.1);
            let items: Vec<String> = shown.iter().map(line).collect();
            let winner = |x: &commlab_api::chooser::Row| x.network.as_ref().map_or(x.winner, |n| n.winner);
            let first = r.rows.first().map(|x| r.algorithms[winner(x)].clone()).unwrap_or_default();
            let place = r.network.as_ref().map_or(String::new(), |n| format!(" on {}", n.0));
            // On a network, the model's answer beside it.
            let model = r.network.as_ref().map(|_| {
                let m: Vec<String> = r.crossovers.iter().map(line).collect();
                if m.is_empty() {
                    let w = r.rows.first().map(|x| r.algorithms[x.winner].clone()).unwrap_or_default();
                    format!("Under the α–β model: {w} wins every size in this range.")
                } else {
                    format!("Under the α–β model: {}.", m.join("; "))
                }
            });
            // At p = 1 (or with α = β = γ = 0) nothing costs anything: no algorithm is fastest.
            let zero = |x: &commlab_api::chooser::Row| {
                x.costs.iter().all(|c| c.total() == 0.0)
                    && x.network.as_ref().is_none_or(|n| n.times.iter().flatten().all(|&t| t == 0.0))
            };
            if r.rows.iter().all(zero) {
                return Some(view! {
                    <div class="crossovers" data-testid="crossovers">
                        <p>{format!("Every algorithm takes 0 at p = {} in this range: none is faster than another.", r.p)}</p>
                    </div>
                }.into_any());
            }
            Some(view! {
                <div class="crossovers" data-testid="crossovers">
                    <p>{format!("Fastest{place} at {}: {first}.", r.rows.first().map_or(String::new(), |x| short_bytes(x.bytes)))}
                        {if items.is_empty() { " No crossover in this range.".to_owned() } else { String::new() }}</p>
                    <ul>{items.into_iter().map(|t| view! { <li>{t}</li> }).collect_view()}</ul>
                    {model.map(|m| view! { <p data-testid="model-crossovers">{m}</p> })}
                    {move || {
                        let Some(Ok(picks)) = library_picks.get() else { return None };
                        let said = shown_gains.with(|s| s.as_ref().map(|s| commlab_api::libraries::gains(&s.result, &picks)))?;
                        (!said.is_empty()).then(|| view! {
                            <ul class="library-gains" data-testid="library-gains">{said.into_iter().map(|t| view! { <li>{t}</li> }).collect_view()}</ul>
                        })
                    }}
                </div>
            }.into_any())
        })
    };
    let explain = move || {
        let i = split_row.get()?;
        later.with(|s| {
            let r = &s.as_ref()?.result;
            let collective: Collective = r.collective.parse().ok()?;
            let row = &r.rows[i];
            let [a, b, g] = params.with_untracked(|c| c.abg);
            let per = |v: f64, unit: f64| if unit > 0.0 { q(v / unit) } else { "—".to_owned() };
            let net = row.network.clone();
            let topology = r.network.as_ref().map(|n| n.0.clone());
            let request = params.with_untracked(ChooserParams::net).filter(|_| net.is_some());
            let winner = net.as_ref().map_or(row.winner, |n| n.winner);
            // The winner's bottleneck in a sentence.
            let bottleneck = net.as_ref().map(|n| {
                let w = &r.algorithms[n.winner];
                let place = topology.clone().unwrap_or_default();
                match (&n.bottleneck, n.times[n.winner]) {
                    (Some((name, busy, bytes, peak)), Some(t)) => format!(
                        "On {place} at {}, {w} is fastest: {} ns. Its bottleneck is link {name}, busy {} ns ({:.0} % of the run), carrying {} B, with at most {peak} {} at once.",
                        short_bytes(row.bytes), q(t), q(*busy), 100.0 * busy / t.max(1e-300), q(*bytes), if *peak == 1 { "flow" } else { "flows" }
                    ),
                    _ => format!("On {place} at {}, no algorithm could be simulated.", short_bytes(row.bytes)),
                }
            });
            let net_cell = move |k: usize| {
                net.as_ref().map(|n| {
                    let time = match (n.times[k], n.cut[k]) {
                        (Some(t), _) => q(t),
                        (None, true) => "cut off by breaks".to_owned(),
                        (None, false) => "over the limit".to_owned(),
                    };
                    let link = n.bottlenecks[k].as_ref().map_or_else(|| "—".to_owned(), |(name, busy, ..)| format!("{name} ({} ns busy)", q(*busy)));
                    let m = if r.pipelined[k] && n.pieces[k] != row.pieces[k] { format!(" (m = {})", n.pieces[k]) } else { String::new() };
                    view! { <td class="wraps" data-testid=format!("network-{}", r.algorithms[k])>{time}{m}</td><td class="wraps">{link}</td> }
                })
            };
            let net_head = topology.as_ref().map(|t| view! { <th scope="col">{format!("time on {t} (ns)")}</th><th scope="col">"its bottleneck link"</th> });
            Some(view! {
                {bottleneck.map(|b| view! { <p class="bottleneck" data-testid="bottleneck">{b}</p> })}
                <div class="table-scroll"><table class="numbers split-table stack" data-testid="split-table" style={
                    let mut heads = vec!["algorithm".to_owned(), "watch".to_owned()];
                    if let Some(t) = topology.as_ref() {
                        heads.extend([format!("time on {t} (ns)"), "its bottleneck link".to_owned()]);
                    }
                    heads.extend(["time (model)", "time (LogGOPS)", "messages on the path", "bytes moved on the path", "bytes combined"].map(String::from));
                    crate::controls::stack::stack_labels(&heads)
                }>
                    <thead><tr><th scope="col">"algorithm"</th><th scope="col">"watch"</th>{net_head}<th scope="col">"time (model)"</th><th scope="col">"time (LogGOPS)"</th><th scope="col">"messages on the path"</th><th scope="col">"bytes moved on the path"</th><th scope="col">"bytes combined"</th></tr></thead>
                    <tbody>
                        {r.algorithms.iter().enumerate().map(|(k, id)| {
                            let c = row.costs[k];
                            let name = if r.pipelined[k] { format!("{id} (m = {})", row.pieces[k]) } else { id.clone() };
                            let m = row.network.as_ref().map_or(row.pieces[k], |n| n.pieces[k]);
                            let link = super::params::timeline_query(collective, id, (r.p, row.bytes, m), [a, b, g], params.with_untracked(ChooserParams::ns), request.as_ref());
                            view! { <tr class:winner=winner == k>
                                <td class="wraps">{name}</td>
                                <td><a data-testid=format!("timeline-{id}") href=format!("{}{link}", browser::page_base())>"timeline"</a></td>
                                {net_cell(k)}
                                <td>{q(c.total())}</td>
                                <td data-testid=format!("loggops-{id}")>{row.simulated.as_ref().and_then(|t| t[k]).map_or_else(|| "—".to_owned(), q)}</td>
                                <td>{per(c.latency, a)}</td><td>{per(c.bandwidth, b)}</td><td>{per(c.compute, g)}</td>
                            </tr> }
                        }).collect_view()}
                    </tbody>
                </table></div>
                <ul class="formulas" data-testid="formulas">
                    {r.algorithms.iter().map(|id| view! { <li><strong>{id.clone()}</strong>": "{commlab_core::choose::of(collective).find(|a| a.id == id).map_or("", |a| a.formula)}</li> }).collect_view()}
                </ul>
            })
        })
    };

    // Controls.
    let set = move |f: fn(&mut ChooserParams, f64)| Callback::new(move |v: f64| params.update(|c| f(c, v)));
    let val = move |f: fn(&ChooserParams) -> f64| Signal::derive(move || params.with(f));
    let abg = move |k: usize| {
        Callback::new(move |v: f64| {
            params.update(|c| {
                c.abg[k] = v;
                c.preset = "custom".into();
            });
        })
    };
    let preset_source =
        move || params.with(|c| PRESETS.iter().find(|x| x.0 == c.preset).map_or("your own values", |x| x.3).to_owned());
    let algorithm_boxes = move || {
        let collective = params.with(|c| c.collective);
        of(collective)
            .map(|a| {
                let id = a.id;
                let color = commlab_plot::svg::hex(color_of(collective, id));
                view! {
                    <label class="check algorithm-check">
                        <input type="checkbox" data-testid=format!("alg-{id}")
                            prop:checked=move || params.with(|c| !c.excluded.iter().any(|x| x == id))
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                params.update(|c| {
                                    c.excluded.retain(|x| x != id);
                                    if !on && c.excluded.len() + 1 < of(c.collective).count() {
                                        c.excluded.push(id.to_owned());
                                    }
                                });
                            } />
                        <span class="swatch" style=format!("background:{color}")></span>
                        {format!(" {id}{}", if a.pipelined { " (pipelined)" } else { "" })}
                    </label>
                }
            })
            .collect_view()
    };
    let file_stem = move || params.with(|c| format!("commlab-chooser-{}-p{}", c.collective.id(), c.p));

    view! {
        <section class="view chooser-view" data-testid="chooser-view" aria-labelledby="chooser-title">
            <Notices notices=notices />
            <div class="controls" role="group" aria-label="Chooser">
                <h2 id="chooser-title">"Collective chooser"</h2>
                <div class="field">
                    <label for="collective">"Collective"</label>
                    <select id="collective" data-testid="collective" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if let Ok(x) = v.parse::<Collective>() {
                            params.update(|c| { c.collective = x; c.excluded.clear(); c.fit_algorithm.clear(); });
                        }
                    }>
                        {COLLECTIVES.iter().map(|&(id, label)| view! { <option value=id selected=move || params.with(|c| c.collective.id() == id)>{label}</option> }).collect_view()}
                    </select>
                </div>
                <NumberField id="p" label="Ranks p" integer=true range=int_range(P)
                    value=val(|c| f64::from(c.p)) on_change=set(|c, v| c.p = v as u32) />
                <NumberField id="lo" label="Smallest message" unit="B" integer=true range=int_range(limits::chooser::SIZE)
                    value=val(|c| c.lo as f64) on_change=set(|c, v| { c.lo = v as u64; c.hi = c.hi.max(c.lo); }) />
                <NumberField id="hi" label="Largest message" unit="B" integer=true range=int_range(limits::chooser::SIZE)
                    value=val(|c| c.hi as f64) on_change=set(|c, v| { c.hi = v as u64; c.lo = c.lo.min(c.hi); }) />
                <h3>"Cost model"</h3>
                <div class="field">
                    <label for="preset">"Preset"</label>
                    <select id="preset" data-testid="preset" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        params.update(|c| if let Some(x) = PRESETS.iter().find(|x| x.0 == v) { c.preset = x.0.into(); c.abg = x.2; });
                    }>
                        {PRESETS.iter().map(|x| { let id = x.0; view! { <option value=id selected=move || params.with(|c| c.preset == id)>{x.1}</option> } }).collect_view()}
                        <option value="custom" disabled=true selected=move || params.with(|c| c.preset == "custom")>"custom"</option>
                    </select>
                </div>
                <p class="preset-source" data-testid="preset-source">{preset_source}</p>
                <NumberField id="alpha" label="α: per message" range=real_range(limits::chooser::COST) slider=limits::chooser::ALPHA_SLIDER value=val(|c| c.abg[0]) on_change=abg(0) />
                <NumberField id="beta" label="β: per byte moved" range=real_range(limits::chooser::COST) slider=limits::chooser::PER_BYTE_SLIDER value=val(|c| c.abg[1]) on_change=abg(1) />
                <NumberField id="gamma" label="γ: per byte combined" range=real_range(limits::chooser::COST) slider=limits::chooser::PER_BYTE_SLIDER value=val(|c| c.abg[2]) on_change=abg(2) />
                <super::system::SystemSelect params=params />
                <div class="field">
                    <label for="y-axis">"Chart's y axis"</label>
                    <select id="y-axis" data-testid="y-axis" prop:value=move || params.with(|c| c.y.id())
                        on:change=move |ev| { let m = Measure::parse(&event_target_value(&ev)).unwrap_or_default(); params.update(|c| c.y = m); }>
                        <option value="time">"time"</option>
                        <option value="algbw">"algbw (GB/s)"</option>
                        <option value="busbw">"busbw (GB/s, nccl-tests)"</option>
                    </select>
                </div>
                {move || params.with(|c| (c.y != Measure::Time && c.measure() == Measure::Time).then(|| view! {
                    <p class="hint" data-testid="y-axis-note">"algbw and busbw need times in ns: pick a system, a network or LogGOPSim's preset. The chart shows times."</p>
                }))}
                <crate::controls::network::NetworkControls params=params label="simulate on a network instead of the model"
                    note="Each algorithm at each size runs on the network at the model's best piece count: every message a flow along its route, sharing links max–min (o = g = 0). The chart, the crossovers and the winner map become the network's; runs already simulated are kept." />
                <h3>"Algorithms"</h3>
                <div class="algorithm-list" role="group" aria-label="Algorithms compared">{algorithm_boxes}</div>
                <Show when=move || params.with(|c| !c.on_network)>
                    <label class="check"><input type="checkbox" data-testid="simulate" prop:checked=move || params.with(|c| c.simulate)
                        on:change=move |ev| { let on = event_target_checked(&ev); params.update(|c| c.simulate = on); } />" LogGOPS points (L = α, G = β, o = g = 0)"</label>
                </Show>
                {move || params.with(|c| c.simulate && c.p > SIM_P).then(|| view! {
                    <p class="field-note" data-testid="sim-note">{format!("Simulated points are drawn up to p = {SIM_P} (each point is a full LogGOPS run).")}</p>
                })}
                <h3>"Winner map"</h3>
                <NumberField id="map-lo" label="Map: smallest p" integer=true range=int_range(P)
                    value=val(|c| f64::from(c.map_p.0)) on_change=set(|c, v| { c.map_p.0 = v as u32; c.map_p.1 = c.map_p.1.max(c.map_p.0); }) />
                <NumberField id="map-hi" label="Map: largest p" integer=true range=int_range(P)
                    value=val(|c| f64::from(c.map_p.1)) on_change=set(|c, v| { c.map_p.1 = v as u32; c.map_p.0 = c.map_p.0.min(c.map_p.1); }) />
            </div>
            <div class="results" node_ref=results>
                {move || match status.get() {
                    Status::Failed(e) => view! { <p class="chart-error" data-testid="chooser-error" role="alert">{e}" "{again()}</p> }.into_any(),
                    Status::Running(..) => view! {
                        <div class="run-progress delayed" data-testid="compare-progress" role="status">
                            <progress aria-label="Comparison under way"></progress>
                            <span>{move || format!("Costing every algorithm on p = {} (the first time for a p, its plans' profiles are built in the engine worker)…", params.with(|c| c.p))}</span>
                        </div>
                    }.into_any(),
                    Status::Idle => ().into_any(),
                }}
                {move || band_svg.get().map(|svg| view! {
                    <figure class="chart library-band" data-testid="library-band" role="img" aria-label="What MPICH, Open MPI and NCCL run at each size; the table below lists it">
                        <div class="chart-svg" inner_html=svg></div>
                    </figure>
                })}
                <figure class="chart" data-testid="times-chart" role="img"
                    aria-label=move || shown.with(|s| s.as_ref().map_or("Computing…".to_owned(), |s| format!("Time vs message size for {} algorithms", s.result.algorithms.len())))>
                    <div class="chart-svg" inner_html=move || times_svg.get().unwrap_or_default()></div>
                </figure>
                <p class="timing" data-testid="chart-timing">{move || shown.with(|s| s.as_ref().map(|s| {
                    let simulated = match (&s.result.network, s.simulated) {
                        (Some((t, _)), _) => {
                            let limit = limits::group(&commlab_api::chooser::NET_TRANSFERS.to_string());
                            let over = s.result.over_limit();
                            let left_out = if over.is_empty() {
                                String::new()
                            } else {
                                format!(" Not simulated at this p, each plan over {limit} messages: {} (not drawn).", over.join(", "))
                            };
                            format!(" Lines and dots: simulated on {t} (pipelined plans with at most {limit} messages, fewer pieces if needed).{left_out}")
                        }
                        (None, true) => format!(" Dots: LogGOPS with L = α, G = β, o = g = 0 (plans of at most {SIM_TRANSFERS} messages)."),
                        (None, false) => String::new(),
                    };
                    let place = if s.on_page { "on the page (profiles kept from the engine worker)" } else { "in the engine worker" };
                    format!("Model compared in {:.1} ms {place}, drawn in {:.1} ms.{simulated}", s.took_ms, draw_ms.get())
                }))}</p>
                {move || expected_note.get().map(|n| view! { <p class="timing" data-testid="expected-note" role="status">{n}</p> })}
                {move || expected.get().map(|(asked, rows)| view! { <super::expected::ExpectedTable asked=asked rows=rows collective=params.with_untracked(|c| c.collective) /> })}
                {move || match sim_status.get() {
                    Status::Running(done, total) => view! {
                        <div class="run-progress delayed" data-testid="sim-progress" role="status">
                            <progress max=total.max(1) value=done aria-label="LogGOPS points progress"></progress>
                            <span>{move || match (total, params.with(ChooserParams::net)) {
                                (0, _) => "Simulated points…".to_owned(),
                                (_, Some(n)) => format!("Simulating on {}: {done} of {total} runs (algorithm × size)", n.topology),
                                (_, None) => format!("LogGOPS points: {done} of {total} sizes"),
                            }}</span>
                        </div>
                    }.into_any(),
                    Status::Failed(e) => view! { <p class="chart-error" role="alert">{e}" "{again()}</p> }.into_any(),
                    Status::Idle => ().into_any(),
                }}
                {crossovers}
                <ExportBar name=Signal::derive(file_stem) svg=Signal::derive(move || times_svg.get())
                    csv=Callback::new(move |()| shown.with_untracked(|s| s.as_ref().map(|s| commlab_api::exports::choose_csv(&s.result)).unwrap_or_default()))
                    json=Callback::new(move |()| shown.with_untracked(|s| s.as_ref().map(|s| {
                        let [a, b, g] = params.with_untracked(|c| c.abg);
                        s.result.to_json(a, b, g).pretty()
                    }).unwrap_or_default())) />
                <h3 id="split-title">"Explain: where the time goes"</h3>
                <div class="field">
                    <label for="at">"At message size"</label>
                    <select id="at" data-testid="split-size" on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<u64>() { params.update(|c| c.at = v); }
                    }>
                        {move || {
                            let (lo, hi) = params.with(|c| (c.lo, c.hi));
                            let chosen = split_row.get().and_then(|i| later.with(|s| s.as_ref().and_then(|s| s.result.rows.get(i).map(|r| r.bytes))));
                            commlab_api::chooser::sizes(lo, hi).into_iter().map(|n| view! { <option value=n.to_string() selected=chosen == Some(n)>{short_bytes(n)}</option> }).collect_view()
                        }}
                    </select>
                </div>
                <figure class="chart" data-testid="split-chart" role="img" aria-label="Each algorithm's time split into latency, bandwidth and compute">
                    <div class="chart-svg" inner_html=move || split_svg.get().unwrap_or_default()></div>
                </figure>
                {explain}
                {move || pieces_svg.get().map(|svg| view! {
                    <h3>"Chunk optimizer"</h3>
                    <figure class="chart" data-testid="pieces-chart" role="img" aria-label="Best piece count of each pipelined algorithm vs message size">
                        <div class="chart-svg" inner_html=svg></div>
                    </figure>
                    <p class="field-note">"Each pipelined algorithm's best piece count among the powers of two up to 4096 (at most one piece per byte), searched on its cost profile. Dashed: the chain's closed-form optimum m* = √((p − 2)·n·β′/α), with β′ = β for a broadcast, β + γ for a reduce, β + γ/2 for the chain up and down; the search follows it to a power of two until the 4096 cap."</p>
                    {move || match check_status.get() {
                        Status::Running(..) => view! { <p class="timing" data-testid="check-progress" role="status">"Checking the piece counts by simulation…"</p> }.into_any(),
                        Status::Failed(e) => view! { <p class="chart-error" role="alert">{e}" "{again()}</p> }.into_any(),
                        Status::Idle => ().into_any(),
                    }}
                    {move || checks.with(|checks| {
                        if checks.is_empty() { return None; }
                        Some(view! {
                            <div class="table-scroll"><table class="numbers piece-check stack" data-testid="piece-check"
                                style=crate::controls::stack::stack_labels(&["algorithm", "model's m", "LogGOPS's m", "tried: m — model / LogGOPS"])>
                                <caption>{format!("Checked by simulation at {} (LogGOPS with L = α, G = β, o = g = 0; model / LogGOPS time)", short_bytes(checks[0].bytes))}</caption>
                                <thead><tr><th scope="col">"algorithm"</th><th scope="col">"model's m"</th><th scope="col">"LogGOPS's m"</th><th scope="col">"tried: m — model / LogGOPS"</th></tr></thead>
                                <tbody>
                                    {checks.iter().map(|c| view! { <tr>
                                        <td>{c.algorithm.clone()}</td><td>{c.model_pieces}</td><td>{c.simulated_best()}</td>
                                        <td>{c.tried.iter().map(|t| format!("{}: {} / {}", t.0, q(t.1), q(t.2))).collect::<Vec<_>>().join(" · ")}</td>
                                    </tr> }).collect_view()}
                                </tbody>
                            </table></div>
                        })
                    })}
                })}
                <h3>"Winner map"</h3>
                {move || match map_status.get() {
                    Status::Running(done, total) => view! {
                        <div class="run-progress delayed" data-testid="map-progress" role="status">
                            <progress max=total.max(1) value=done aria-label="Winner map progress"></progress>
                            <span>{if total == 0 { "costing…".to_owned() } else { format!("{}: {done} of {total} rows of p", if params.with(|c| c.on_network) { "simulating" } else { "costing" }) }}</span>
                        </div>
                    }.into_any(),
                    Status::Failed(e) => view! { <p class="chart-error" role="alert">{e}" "{again()}</p> }.into_any(),
                    Status::Idle => view! { <p class="timing" data-testid="map-timing">{move || format!("{} cells in {:.0} ms in a second engine worker.", map.with(|m| m.as_ref().map_or(0, |m| m.winner.len())), map_took.get())}</p> }.into_any(),
                }}
                <figure class="chart winner-map" data-testid="winner-map" tabindex="0"
                    aria-label="Winner map: arrow keys move between cells, Enter opens the cell in the timeline; the cell is described below"
                    on:mousemove=move |ev| hover.set(at_cell(&ev))
                    on:click=move |ev| if let Some(c) = at_cell(&ev) { open_cell(c); }
                    on:keydown=on_key>
                    <div class="chart-svg" inner_html=move || map_svg.get().unwrap_or_default()></div>
                </figure>
                <p class="map-hover" data-testid="map-hover" aria-live="polite">{move || hover.get().and_then(cell_text).unwrap_or_else(|| "Point at a cell for its winner and margin; click it to watch that algorithm in the timeline.".into())}</p>
                <ExportBar name=Signal::derive(move || format!("{}-map", file_stem())) svg=Signal::derive(move || map_svg.get())
                    csv=Callback::new(move |()| map.with_untracked(|m| m.as_ref().map(|m| commlab_api::exports::winner_map_csv(m)).unwrap_or_default()))
                    json=Callback::new(move |()| map.with_untracked(|m| m.as_ref().map(|m| m.to_json().pretty()).unwrap_or_default())) />
                <super::libraries::LibrariesSection params=params
                    result=Signal::derive_local(move || shown.with(|s| s.as_ref().map(|s| s.result.clone())))
                    shown=Signal::derive(move || library_picks.get())
                    checker=checker />
                <super::fit::FitSection params=params dark=dark />
                {(!embed).then(|| view! { <p class="schedule-docs">"The algorithms, the cost model and how they compare with LogGOPS: docs/chooser.md; the libraries' picks, the fit and the tuner files: docs/libraries.md in the repository."</p> })}
            </div>
        </section>
    }
}

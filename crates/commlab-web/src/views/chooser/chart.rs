//! The Chooser's chart: every algorithm's time (or bandwidth) over the
//! sizes, the libraries' band above it, its progress rows, the crossovers
//! in words and its exports.

use super::ctx::{again_button, color_of, Ctx, Status, CHART};
use super::params::{ChooserParams, SIM_TRANSFERS};
use crate::browser;
use crate::controls::export_bar::ExportBar;
use commlab_api::chooser::units::{chart_units, Stage};
use commlab_api::chooser::ChooseResult;
use commlab_core::choose::Collective;
use commlab_core::limits;
use commlab_core::systems::Measure;
use commlab_plot::chooser::{short_bytes, times_chart, Series};
use commlab_plot::Theme;
use commlab_plot::{format_quantity as q, render_svg};
use leptos::prelude::*;

/// The chart's caption under the α–β model.
fn caption(params: RwSignal<ChooserParams>, r: &ChooseResult) -> String {
    params.with_untracked(|c| {
        let [a, b, g] = c.compare.abg.map(q);
        format!("{} on p = {}: time vs message size (α = {a}, β = {b}, γ = {g})", r.collective, r.p)
    })
}

/// The chart's SVG, redrawn with the comparison, the measure and the width.
fn times_svg(ctx: &Ctx) -> Memo<Option<String>> {
    let Ctx { params, dark, inner, shown, expected, draw_ms, .. } = *ctx;
    let theme = move || Theme::of(dark.get());
    let caption = move |r: &ChooseResult| caption(params, r);
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
        // One unit per chart (the api's rules): while a System's network
        // results are on their way, its expected curve alone in the measure
        // asked for; the bandwidths only where times are in ns.
        let fg = theme().foreground;
        let stage = match (params.with(|c| c.on_network), r.network.is_some()) {
            (_, true) => Stage::Network,
            (true, false) => Stage::Pending,
            (false, false) => Stage::Model,
        };
        let (asked, ns) = params.with(|c| (c.y, c.ns()));
        // Past the page's network: the System's expected curve alone, on its ranks.
        let far = params.with(|c| c.far().map(|s| s.ranks()));
        let p = far.unwrap_or(r.p);
        let expected_in = |m: Measure| {
            expected.with(|e| {
                e.as_ref()
                    .and_then(|(asked, rows)| super::expected::series((asked, rows), &sizes, (collective, p), m, fg))
            })
        };
        let alone = (stage == Stage::Pending || far.is_some()).then(|| expected_in(asked)).flatten();
        // A System's expected curve asked: the chart waits for it (its
        // progress says what is coming) rather than draw the α–β curves.
        let system = params.with(|c| c.system().is_some_and(|s| far.is_some() || s.covers(c.compare.p)));
        let units =
            chart_units(if far.is_some() { Stage::Pending } else { stage }, asked, ns, system || alone.is_some());
        (units.algorithms || alone.is_some()).then_some(())?;
        let measure = units.measure;
        let in_measure = |t: f64, n: u64| measure.of(collective, r.p, n, t);
        let mut series: Vec<Series> = series
            .into_iter()
            .map(|s| Series {
                times: s.times.iter().zip(&sizes).map(|(&t, &n)| in_measure(t, n)).collect(),
                simulated: s.simulated.iter().zip(&sizes).map(|(t, &n)| t.map(|t| in_measure(t, n))).collect(),
                ..s
            })
            .collect();
        if units.algorithms && units.expected {
            series.extend(expected_in(measure));
        }
        let shown_crossovers = r.network.as_ref().map_or(&r.crossovers, |n| &n.1);
        let crossovers: Vec<(u64, usize)> = shown_crossovers
            .iter()
            .filter_map(|c| Some((c.bytes, r.algorithms.iter().position(|a| *a == c.to)?)))
            .collect();
        let t = theme();
        let (caption, dots) = match &r.network {
            Some((topology, _)) => (
                format!("{} on p = {} on {topology}: simulated {} vs message size", r.collective, r.p, measure.id()),
                "simulated on the network",
            ),
            None => (caption(r), "LogGOPS (simulated)"),
        };
        // The expected curve alone (one render call either way: each is a
        // monomorph of the chart, bytes in the Chooser's bundle).
        let (caption, series, crossovers) = match alone.filter(|_| !units.algorithms) {
            Some(alone) => (
                format!(
                    "{} on p = {p}: the System's expected {} ({})",
                    r.collective,
                    asked.id(),
                    if far.is_some() { "its steady state" } else { "the network's results are on their way" }
                ),
                vec![alone],
                Vec::new(),
            ),
            None => (caption, series, crossovers),
        };
        let unit = units.axis;
        let svg = render_svg(inner.get() as u32, CHART.1, |root| {
            times_chart(root, [&caption, unit, dots], &sizes, &series, &crossovers, &t)
        })
        .ok();
        draw_ms.set(browser::now_ms() - drawing);
        svg
    });
    times_svg
}

/// The crossovers in words (on a network, the model's beside them) and what
/// a library would gain by following the winner.
#[component]
fn Crossovers(ctx: Ctx) -> impl IntoView {
    let Ctx { shown, library_picks, nccl_gain, .. } = ctx;
    let shown_gains = shown;
    move || {
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
                    let said = shown_gains.with(|s| s.as_ref().map(|s| commlab_api::libraries::gains_on(&s.result, &picks, nccl_gain.get().as_deref())))?;
                    (!said.is_empty()).then(|| view! {
                        <ul class="library-gains" data-testid="library-gains">{said.into_iter().map(|t| view! { <li>{t}</li> }).collect_view()}</ul>
                    })
                }}
            </div>
        }.into_any())
    })
    }
}

/// Past the page's network, the file the chart's exports give: the
/// System's expected curve on its `p` ranks, as CSV or JSON.
fn expected_file(ctx: &Ctx, p: u32, json: bool) -> Option<String> {
    let collective = ctx.params.with_untracked(|c| c.compare.collective);
    ctx.expected.with_untracked(|e| {
        let (asked, rows) = e.as_ref()?;
        Some(if json {
            commlab_api::exports::expected_json(asked, p, rows)
        } else {
            commlab_api::exports::expected_csv(collective, p, rows)
        })
    })
}

/// The chart with its band, progress rows, timing, crossovers and exports.
#[component]
pub fn ChartSection(
    /// The Chooser's state.
    ctx: Ctx,
) -> impl IntoView {
    let Ctx {
        params,
        dark,
        inner,
        shown,
        status,
        sim_status,
        expected,
        expected_note,
        attempt,
        draw_ms,
        library_picks,
        ..
    } = ctx;
    let again = move || again_button(attempt);
    let times_svg = times_svg(&ctx);
    let band_svg = Memo::new(move |_| {
        let Some(Ok(picks)) = library_picks.get() else { return None };
        let s = shown.get()?;
        super::libraries::band_svg(&s.result, &picks, (inner.get(), dark.get()))
    });
    let file_stem = move || ctx.file_stem();
    // Past the page's network the chart is the System's expected curve
    // alone: the comparison's progress, timing, crossovers and files are
    // those of the network's one node, not shown.
    let far = Memo::new(move |_| params.with(|c| c.far().map(|s| s.ranks())));
    let expected_file = move |json: bool| expected_file(&ctx, far.get_untracked()?, json);
    view! {
        {move || match status.get() {
            _ if far.get().is_some() => ().into_any(),
            Status::Failed(e) => view! { <p class="chart-error" data-testid="chooser-error" role="alert">{e}" "{again()}</p> }.into_any(),
            Status::Running(..) => view! {
                <div class="run-progress delayed" data-testid="compare-progress" role="status">
                    <progress aria-label="Comparison under way"></progress>
                    <span>{move || format!("Costing every algorithm on p = {} (the first time for a p, its plans' profiles are built in the engine worker)…", params.with(|c| c.compare.p))}</span>
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
            aria-label=move || match far.get() {
                Some(p) => format!("The System's expected curve on p = {p} vs message size; the table below lists it"),
                None => shown.with(|s| s.as_ref().map_or("Computing…".to_owned(), |s| format!("Time vs message size for {} algorithms", s.result.algorithms.len()))),
            }>
            <div class="chart-svg" inner_html=move || times_svg.get().unwrap_or_default()></div>
        </figure>
        <p class="timing far-hide" data-testid="chart-timing">{move || shown.with(|s| s.as_ref().map(|s| {
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
            let place = if s.on_page { "on the page" } else { "in the engine worker" };
            format!("Model compared in {:.1} ms {place}, drawn in {:.1} ms.{simulated}", s.took_ms, draw_ms.get())
        }))}</p>
        {move || expected_note.get().map(|n| view! { <p class="timing" data-testid="expected-note" role="status">{n}</p> })}
        {move || expected.get().map(|(asked, rows)| view! { <super::expected::ExpectedTable asked=asked rows=rows collective=params.with_untracked(|c| c.compare.collective) params=params flowed=ctx.flowed /> })}
        {move || match sim_status.get() {
            _ if far.get().is_some() => ().into_any(),
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
        <div class="far-hide"><Crossovers ctx=ctx /></div>
        <ExportBar name=Signal::derive(file_stem) svg=Signal::derive(move || times_svg.get())
            csv=Callback::new(move |()| expected_file(false).or_else(|| shown.with_untracked(|s| s.as_ref().map(|s| commlab_api::exports::choose_csv(&s.result)))).unwrap_or_default())
            json=Callback::new(move |()| expected_file(true).or_else(|| shown.with_untracked(|s| s.as_ref().map(|s| {
                let [a, b, g] = params.with_untracked(|c| c.compare.abg);
                s.result.to_json(a, b, g).pretty()
            }))).unwrap_or_default()) />
    }
}

//! The Chooser's "Explain" part: where the time goes at one size (the cost
//! split, the table with each algorithm's timeline link, the formulas) and
//! the chunk optimizer (best piece counts, checked by simulation).

use super::ctx::{again_button, color_of, Ctx, Status, CHART};
use super::params::ChooserParams;
use crate::browser;
use commlab_core::choose::Collective;
use commlab_plot::chooser::{pieces_chart, short_bytes, split_bars_svg};
use commlab_plot::Theme;
use commlab_plot::{format_quantity as q, render_svg};
use leptos::prelude::*;

/// Each pipelined algorithm's best piece count over the sizes, with the chain's closed form.
fn pieces_svg(ctx: &Ctx) -> Memo<Option<String>> {
    let Ctx { params, dark, inner, later, .. } = *ctx;
    let theme = move || Theme::of(dark.get());
    Memo::new(move |_| {
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
        let ab = params.with_untracked(|c| c.compare.cost());
        // The chain's closed-form optimum (core's `chain_optimum`), dashed beside the search.
        let chain = r.algorithms.iter().find(|x| *x == "chain" || *x == "chain-up-down").and_then(|id| {
            let m: Option<Vec<f64>> =
                sizes.iter().map(|&n| commlab_core::choose::chain_optimum(collective, id, r.p, n, ab)).collect();
            let label = if id == "chain" {
                "chain: m* = √((p−2)·n·β′/α)"
            } else {
                "chain-up-down: m* = √((p−2)·n·β′/α)"
            };
            Some((label, m?))
        });
        let t = theme();
        let caption = format!("Best piece count vs message size, p = {} (powers of two up to 4096)", r.p);
        render_svg(inner.get() as u32, CHART.1, |root| pieces_chart(root, &caption, &sizes, &series, chain, &t)).ok()
    })
}

/// The cost split's bars at the chosen size.
fn split_svg(ctx: &Ctx) -> Memo<Option<String>> {
    let Ctx { dark, inner, later, split_row, .. } = *ctx;
    let theme = move || Theme::of(dark.get());
    Memo::new(move |_| {
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
    })
}

/// The winner's bottleneck, the table of every algorithm at the chosen size and the formulas.
#[allow(clippy::many_single_char_names, reason = "α, β, γ as a, b, g")]
#[component]
fn ExplainTable(ctx: Ctx) -> impl IntoView {
    let Ctx { params, later, split_row, .. } = ctx;
    move || {
        let i = split_row.get()?;
        later.with(|s| {
            let r = &s.as_ref()?.result;
            let collective: Collective = r.collective.parse().ok()?;
            let row = &r.rows[i];
            let [a, b, g] = params.with_untracked(|c| c.compare.abg);
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
                <div class="table-scroll" tabindex="0"><table class="numbers split-table stack" data-testid="split-table" style={
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
    }
}

/// The chunk optimizer: its chart, and the piece counts checked by simulation.
#[component]
fn ChunkOptimizer(ctx: Ctx) -> impl IntoView {
    let Ctx { checks, check_status, attempt, .. } = ctx;
    let again = move || again_button(attempt);
    let pieces_svg = pieces_svg(&ctx);
    move || {
        pieces_svg.get().map(|svg| view! {
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
                <div class="table-scroll" tabindex="0"><table class="numbers piece-check stack" data-testid="piece-check"
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
    })
    }
}

/// Where the time goes at one size, and the chunk optimizer.
#[component]
pub fn ExplainSection(
    /// The Chooser's state.
    ctx: Ctx,
) -> impl IntoView {
    let Ctx { params, later, split_row, .. } = ctx;
    let split_svg = split_svg(&ctx);
    view! {
        <h3 id="split-title">"Explain: where the time goes"</h3>
        <div class="field">
            <label for="at">"At message size"</label>
            <select id="at" data-testid="split-size" on:change=move |ev| {
                if let Ok(v) = event_target_value(&ev).parse::<u64>() { params.update(|c| c.at = v); }
            }>
                {move || {
                    let (lo, hi) = params.with(|c| (c.compare.lo, c.compare.hi));
                    let chosen = split_row.get().and_then(|i| later.with(|s| s.as_ref().and_then(|s| s.result.rows.get(i).map(|r| r.bytes))));
                    commlab_api::chooser::sizes(lo, hi).into_iter().map(|n| view! { <option value=n.to_string() selected=chosen == Some(n)>{short_bytes(n)}</option> }).collect_view()
                }}
            </select>
        </div>
        <figure class="chart" data-testid="split-chart" role="img" aria-label="Each algorithm's time split into latency, bandwidth and compute">
            <div class="chart-svg" inner_html=move || split_svg.get().unwrap_or_default()></div>
        </figure>
        <ExplainTable ctx=ctx />
        <ChunkOptimizer ctx=ctx />
    }
}

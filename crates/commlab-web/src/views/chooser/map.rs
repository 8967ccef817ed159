//! The Chooser's winner map: the fastest algorithm over p × size, each
//! cell's margin on hover or keys, a click opening it in the timeline.

use super::ctx::{again_button, color_of, Ctx, Status, CHART};
use super::params::ChooserParams;
use crate::browser;
use crate::controls::export_bar::ExportBar;
use commlab_core::choose::Collective;
use commlab_plot::chooser::{short_bytes, winner_map_svg, MapInput};
use commlab_plot::format_quantity as q;
use commlab_plot::Theme;
use leptos::prelude::*;

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

/// The map's SVG (and where its cells are).
fn map_svg(ctx: &Ctx) -> Memo<Option<String>> {
    let Ctx { params, dark, inner, map, geometry, .. } = *ctx;
    let theme = move || Theme::of(dark.get());
    let chart_p = Memo::new(move |_| params.with(|c| c.compare.p));
    let map_svg = Memo::new(move |_| {
        let m = map.get()?;
        let collective: Collective = params.with_untracked(|c| c.compare.collective);
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
    map_svg
}

/// Opens map cell `(i, j)` in the timeline.
#[allow(clippy::many_single_char_names, reason = "i, j, k: the cell's row, column and index as in the map")]
fn open_cell(ctx: &Ctx, (i, j): (usize, usize)) {
    let Ctx { params, map, .. } = *ctx;
    let Some(m) = map.get_untracked() else { return };
    let k = i * m.sizes.len() + j;
    let Some(&w) = m.winner.get(k) else { return };
    let collective = params.with_untracked(|c| c.compare.collective);
    let abg = params.with_untracked(|c| c.compare.abg);
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
}

/// The winner map with its progress, hover text and exports.
#[component]
pub fn MapSection(
    /// The Chooser's state.
    ctx: Ctx,
) -> impl IntoView {
    let Ctx { params, inner, map, map_status, map_took, hover, geometry, attempt, .. } = ctx;
    let again = move || again_button(attempt);
    let map_svg = map_svg(&ctx);
    let open_cell = move |cell| open_cell(&ctx, cell);
    let file_stem = move || ctx.file_stem();
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
    view! {
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
    }
}

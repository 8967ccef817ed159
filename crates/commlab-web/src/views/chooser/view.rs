//! The Chooser view: every algorithm of a collective compared over message
//! sizes (α–β–γ model at each algorithm's best piece count, LogGOPS points
//! on top), the crossovers, the cost split at one size, the best piece
//! count vs size, and the winner map over p × size. The comparison and the
//! map come from the engine worker (two workers, so a long map never holds
//! up the chart); a map cell opens that configuration in the timeline.
//! Its parts: [`super::controls`], [`super::asks`] (what the workers are
//! asked), [`super::chart`], [`super::explain`], [`super::map`],
//! [`super::libraries`] and [`super::fit`], sharing [`super::ctx::Ctx`].

use super::chart::ChartSection;
use super::controls::ChooserControls;
use super::ctx::{Ctx, CHART};
use super::explain::ExplainSection;
use super::map::MapSection;
use super::params::ChooserParams;
use crate::controls::notices::Notices;
use crate::lazy::LazyArgs;
use leptos::prelude::*;

/// The Chooser view.
#[component]
pub fn ChooserView(
    /// The link's pairs, the page's theme and embed mode.
    args: LazyArgs,
) -> impl IntoView {
    let (start, notices) = args.read::<ChooserParams>();
    let params = RwSignal::new(start);
    args.follow(params, true);
    let (dark, embed) = (args.dark, args.embed);
    // Every chart is drawn for the results column's width, inside its figure's border.
    let results = NodeRef::<leptos::html::Div>::new();
    let width = crate::controls::chart::box_width(results, f64::from(CHART.0) + 2.0);
    let ctx = Ctx::new(params, dark, Signal::derive(move || width.get() - 2.0));
    super::asks::follow(ctx);
    let shown = ctx.shown;
    view! {
        // Past the page's network (`far`) what simulates on it is kept, not shown (`.far-hide`).
        <section class="view chooser-view" class:far=move || params.with(|c| c.far().is_some()) data-testid="chooser-view" aria-labelledby="chooser-title">
            <Notices notices=notices />
            <ChooserControls params=params />
            <div class="results" node_ref=results>
                <ChartSection ctx=ctx />
                // Past the page's network these are the network's one node: kept, not shown.
                <div class="far-hide">
                    <ExplainSection ctx=ctx />
                    <MapSection ctx=ctx />
                    <super::libraries::LibrariesSection params=params
                        result=Signal::derive_local(move || shown.with(|s| s.as_ref().map(|s| s.result.clone())))
                        shown=Signal::derive(move || ctx.library_picks.get())
                        checker=ctx.checker />
                    <super::fit::FitSection params=params dark=dark />
                </div>
                {(!embed).then(|| view! { <p class="schedule-docs">"The algorithms, the cost model and how they compare with LogGOPS: docs/chooser.md; the libraries' picks, the fit and the tuner files: docs/libraries.md in the repository."</p> })}
            </div>
        </section>
    }
}

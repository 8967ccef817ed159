//! The Schedule view: pick a collective (or open, drop or paste a GOAL
//! file), set LogGOPS parameters, and watch the simulated timeline — CPU and
//! NIC occupancy per rank, message arrows, the critical path — with zoom,
//! pan, hover and keyboard focus. Its parts: [`super::source`] (where the
//! schedule comes from), [`super::loggops`] (the parameters), [`super::run`]
//! (the worker's run), [`super::timeline`] (the drawing) and
//! [`super::results`] (summary, critical path, exports).

use super::loggops::LogGopsFields;
use super::params::ScheduleParams;
use super::results::{CriticalTable, ExportRow, StatusRow, Summary};
use super::run::Run;
use super::source::{FileFields, FileSource, SourceControls};
use super::timeline::{TimelineFrame, Window};
use crate::controls::file_source;
use crate::controls::notices::Notices;
use crate::lazy::LazyArgs;
use leptos::prelude::*;

/// The Schedule view.
#[component]
pub fn ScheduleView(
    /// The link's pairs, the page's theme and embed mode.
    args: LazyArgs,
) -> impl IntoView {
    let (start, notices) = args.read::<ScheduleParams>();
    let params = RwSignal::new(start);
    args.follow(params, false);
    let (dark, embed) = (args.dark, args.embed);
    let run = Run::new(params);
    run.follow();
    let source = FileSource::new(run, notices);
    let w = Window::new(run, dark);
    let on_network = move || params.with(|p| p.on_network);
    view! {
        <section class="view schedule-view" data-testid="schedule-view" aria-labelledby="schedule-title"
            on:dragover=|ev: web_sys::DragEvent| ev.prevent_default() on:drop=file_source::on_drop(move |f| source.open(f))>
            <Notices notices=notices />
            <div class="controls" role="group" aria-label="Schedule">
                <h2 id="schedule-title">{move || if on_network() { "Schedule timeline (on a network)" } else { "Schedule timeline (LogGOPS)" }}</h2>
                <SourceControls params=params file=run.file />
                <FileFields source=source />
                <LogGopsFields params=params />
                <super::system::SystemSelect params=params />
                <crate::controls::network::NetworkControls params=params label="run on a network (it replaces L and G)"
                    note="On a network each message is a flow along its route: it spends the route's latency, then shares each link max–min with the flows crossing it. o, g, O and S still apply; L and G are the network's." />
            </div>
            <div class="results">
                <StatusRow run=run />
                <Summary run=run />
                <super::network::NetworkPanel params=params dark=dark
                    summary=Signal::derive(move || run.shown.with(|s| s.as_ref().and_then(|s| s.result.network.clone()).map(|n| std::sync::Arc::new(*n))))
                    arrived=Signal::derive(move || run.shown.with(|s| s.as_ref().and_then(|s| s.picture.clone())))
                    ideal=run.ideal.into() />
                {move || params.with(|p| p.file).then(|| view! {
                    <p class="share-note" data-testid="share-note">"A link to this view holds the parameters, not the opened file (it stays in this browser): to share the schedule itself, export it as GOAL."</p>
                })}
                <TimelineFrame w=w />
                <CriticalTable run=run />
                <ExportRow run=run w=w />
                {(!embed).then(|| view! { <p class="schedule-docs">"The model, the GOAL format and how the simulator follows LogGOPSim: docs/loggops.md in the repository."</p> })}
            </div>
        </section>
    }
}

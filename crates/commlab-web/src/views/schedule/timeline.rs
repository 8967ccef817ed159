//! The Schedule view's timeline: the window of time and ranks shown, its
//! painting (kept and stretched while the window moves, painted anew once
//! it rests), zoom, pan, hover and keyboard focus; above
//! [`TIMELINE_OPS`] operations, the finish-time histogram instead.

use super::params::ScheduleParams;
use super::run::Run;
use crate::browser;
use crate::controls::chart::box_width;
use crate::controls::debounce::Debounce;
use commlab_api::schedule::{Bar, Timeline, TIMELINE_OPS};
use commlab_plot::mesh::scene_svg;
use commlab_plot::timeline::{self, Layout, TimeUnit, BAR_NAMES};
use commlab_plot::Theme;
use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// Ranks drawn at once (the rest are a scroll away).
const ROWS: u32 = 24;
/// How long (ms) the window must rest after a pan or zoom before it is painted anew.
const SETTLE_MS: u64 = 150;

/// A window in whole ticks, as its link writes it (so a shared link paints
/// what its page painted).
fn whole_ticks(t0: f64, t1: f64) -> (f64, f64) {
    let (a, b) = (t0.round(), t1.round());
    (a, b.max(a + 1.0))
}

fn describe_op(t: &Timeline, op: usize, unit: TimeUnit) -> String {
    let Some(v) = t.op(op) else { return format!("op {op}") };
    let any = |x: Option<u64>| x.map_or_else(|| "any".to_owned(), |x| x.to_string());
    let (peer, tag) = (any(v.peer.map(u64::from)), any(v.tag));
    match v.kind {
        0 => format!("send {} B to {peer} (tag {tag})", v.size),
        1 => format!("recv {} B from {peer} (tag {tag})", v.size),
        _ => format!("calc {}", unit.format(v.size)),
    }
}

/// The lanes of a rank, in words.
fn lane_name(lane: u32, cpus: u32) -> String {
    if lane < cpus {
        format!("cpu {lane}")
    } else {
        let k = lane - cpus;
        format!("nic {} {}", k / 2, if k % 2 == 0 { "out" } else { "in" })
    }
}

fn bar_text(t: &Timeline, bar: usize, (unit, hosts): (TimeUnit, u32)) -> String {
    let Some(b) = t.bar(bar) else { return String::new() };
    let what = BAR_NAMES.get(b.kind as usize).copied().unwrap_or("busy");
    format!(
        "{} {}: {} — {}, {} → {} ({})",
        commlab_plot::timeline::rank_name(b.rank, hosts, true),
        lane_name(b.lane, t.cpus),
        what,
        describe_op(t, b.op as usize, unit),
        unit.format(b.start),
        unit.format(b.end),
        unit.format(b.end - b.start)
    )
}

/// The time window while a drag or the wheel moves it.
#[derive(Clone, Copy, PartialEq)]
enum Live {
    /// Not moving: the URL's window is shown.
    Resting,
    /// Moving to this window (`None`: the whole run).
    To(Option<(f64, f64)>),
}

/// The window on the run and its painting.
#[derive(Clone, Copy)]
pub struct Window {
    run: Run,
    dark: Memo<bool>,
    canvas: NodeRef<leptos::html::Canvas>,
    frame: NodeRef<leptos::html::Div>,
    /// The window while a drag or the wheel moves it: the URL (and every
    /// field that reads the parameters) gets it when it rests.
    live: RwSignal<Live>,
    /// The timeline's layout for the current result, window and rows.
    pub layout: Memo<Option<Layout>>,
    /// What is painted follows `layout` at once, except while only the time
    /// window moves (drag, wheel, keys): then the kept painting is shown
    /// stretched and shifted (`Layout::carry`, one `drawImage`), and the
    /// window is painted once it has rested for `SETTLE_MS`.
    drawn: RwSignal<Option<Layout>>,
    /// A drag under way: where it started (x) and the window's start then.
    drag: StoredValue<Option<(f64, f64)>>,
    painted: StoredValue<Option<(web_sys::ImageBitmap, Layout)>, LocalStorage>,
    painted_for: StoredValue<(Option<usize>, Option<usize>)>,
    settle: Debounce,
    hover: RwSignal<String>,
    histogram_box: NodeRef<leptos::html::Div>,
    histogram_width: Signal<f64>,
}

impl Window {
    /// The window on `run`'s result, painted in `dark`'s theme.
    pub fn new(run: Run, dark: Memo<bool>) -> Window {
        let (frame, live) = (NodeRef::new(), RwSignal::new(Live::Resting));
        let frame_width = Self::watch_width(frame);
        let layout = Memo::new(move |_| {
            let width = frame_width.get();
            run.shown.with(|s| {
                let s = s.as_ref()?;
                let t = s.timeline.as_ref()?;
                let ranks = s.result.ranks;
                let (window, first) = run.params.with(|p| (p.window, p.first_rank.min(ranks.saturating_sub(1))));
                let window = match live.get() {
                    Live::To(w) => w,
                    Live::Resting => window,
                };
                let end = (s.result.max_time as f64).max(1.0);
                let (t0, t1) = window.unwrap_or((0.0, end * 1.02));
                let (lanes, cpus, ranks) = (t.cpus + 2 * t.nics, t.cpus, ROWS.min(ranks - first));
                let hosts = run.params.with(ScheduleParams::hosts);
                Some(Layout { lanes, cpus, first_rank: first, ranks, t0, t1, width, unit: run.unit(), hosts })
            })
        });
        let histogram_box = NodeRef::new();
        let w = Window {
            run,
            dark,
            canvas: NodeRef::new(),
            frame,
            live,
            layout,
            drawn: RwSignal::new(None),
            drag: StoredValue::new(None),
            painted: StoredValue::new_local(None),
            painted_for: StoredValue::new((None, None)),
            settle: Debounce::new(),
            hover: RwSignal::new(String::new()),
            histogram_box,
            histogram_width: box_width(histogram_box, 900.0),
        };
        Effect::new(move |_| w.follow(layout.get()));
        Effect::new(move |_| w.paint());
        w
    }

    /// The frame's width after each layout that changes it (a `ResizeObserver`:
    /// reading it while the view mounts, or on every pan frame, would force a
    /// layout of the page each time).
    fn watch_width(frame: NodeRef<leptos::html::Div>) -> RwSignal<f64> {
        let frame_width = RwSignal::new(900.0f64);
        let watch = StoredValue::new_local(None::<browser::WidthWatch>);
        Effect::new(move |_| {
            if let Some(f) = frame.get() {
                let on_width = move |w: f64| {
                    let w = w.max(240.0);
                    if (w - frame_width.get_untracked()).abs() >= 1.0 {
                        frame_width.set(w);
                    }
                };
                watch.set_value(browser::WidthWatch::new(&f, on_width));
            }
        });
        on_cleanup(move || watch.set_value(None));
        frame_width
    }

    /// The moving window goes to the URL.
    fn commit(self) {
        if let Live::To(w) = self.live.get_untracked() {
            self.run.params.update(|p| p.window = w);
            self.live.set(Live::Resting);
        }
    }

    /// The kept painting stretched to `l`, when only the time window moved.
    fn carry(self, l: &Layout) -> bool {
        let (Some(c), Some(kept)) =
            (self.canvas.get_untracked(), self.painted.with_value(|p| p.as_ref().map(|(b, pl)| (b.clone(), *pl))))
        else {
            return false;
        };
        kept.1.carry(l).is_some_and(|carry| {
            browser::present_carried(
                &c,
                &kept.0,
                l.width,
                (timeline::LEFT, l.width - timeline::RIGHT),
                (carry.from, carry.to),
                &commlab_plot::svg::hex(Theme::of(self.dark.get_untracked()).background),
            )
        })
    }

    /// What is painted after a new layout `l`.
    fn follow(self, l: Option<Layout>) {
        // A new run or another focused op is painted anew.
        let shown = self.run.shown;
        let timeline = shown.with(|s| s.as_ref().and_then(|s| s.timeline.as_ref()).map(|t| Rc::as_ptr(t) as usize));
        let now = (self.run.focus.get(), timeline);
        let new_run = self.painted_for.get_value().1 != now.1;
        let refocused = self.painted_for.get_value() != now;
        self.painted_for.set_value(now);
        self.settle.cancel();
        let (drawn, layout, drag) = (self.drawn, self.layout, self.drag);
        if !refocused && l.is_some_and(|l| self.carry(&l)) {
            self.settle.after(Duration::from_millis(SETTLE_MS), move || {
                // A drag is painted when the button is let go.
                if drag.get_value().is_none() {
                    self.commit();
                    drawn.set(layout.get_untracked());
                }
            });
        } else if new_run && l.is_some() {
            // A new run's summary and tables in this task, its painting in the next.
            self.settle.after(Duration::ZERO, move || drawn.set(layout.get_untracked()));
        } else {
            drawn.set(l);
        }
    }

    /// The drawing of `l`. Every recomputation is a new drawing: comparing
    /// two scenes of thousands of shapes to skip a repaint would cost about
    /// what the repaint does.
    fn scene(self, l: &Layout, focus: Option<usize>, th: &Theme) -> Option<commlab_plot::mesh::Scene> {
        self.run.shown.with_untracked(|s| {
            let s = s.as_ref()?;
            let t = s.timeline.as_ref()?;
            let focus_op = focus.and_then(|b| t.bar(b)).map(|b| b.op);
            let title = format!("Timeline of {} ranks", s.result.ranks);
            Some(timeline::scene(l, &t.bars, &t.messages, &s.on_path, focus_op, th, &title))
        })
    }

    fn paint(self) {
        let (Some(l), th) = (self.drawn.get(), Theme::of(self.dark.get())) else { return };
        let Some(c) = self.canvas.get() else { return };
        let Some(sc) = self.scene(&l, self.run.focus.get_untracked(), &th) else {
            self.painted.set_value(None);
            return;
        };
        match crate::paint::paint(&sc, browser::pixel_ratio())
            .map(wasm_bindgen::JsValue::unchecked_into::<web_sys::ImageBitmap>)
        {
            Ok(bitmap) => {
                browser::present_bitmap(&c, &bitmap, sc.width, sc.height);
                self.painted.set_value(Some((bitmap, l)));
            }
            Err(_) => self.painted.set_value(None),
        }
    }

    /// The window shown as SVG (exports: without the keyboard focus's outline),
    /// or the histogram when there is no timeline.
    pub fn svg(self) -> Option<String> {
        let drawing =
            self.layout.get_untracked().and_then(|l| self.scene(&l, None, &Theme::of(self.dark.get_untracked())));
        drawing.map(|s| scene_svg(&s)).or_else(|| self.histogram())
    }

    fn histogram(self) -> Option<String> {
        let th = Theme::of(self.dark.get());
        self.run.shown.with(|s| {
            let r = &s.as_ref()?.result;
            Some(scene_svg(&timeline::histogram(
                &r.histogram,
                (r.min_time as f64, r.bin_width as f64),
                self.run.unit(),
                self.histogram_width.get(),
                &th,
                "Finish time per rank",
            )))
        })
    }

    fn full(self) -> f64 {
        self.run.shown.with_untracked(|s| s.as_ref().map_or(1.0, |s| (s.result.max_time as f64).max(1.0) * 1.02))
    }

    /// Zooms by `factor` about `at` (the middle): `rests` writes the URL now.
    fn zoom(self, factor: f64, at: Option<f64>, rests: bool) {
        let Some(l) = self.layout.get_untracked() else { return };
        let full = self.full();
        let centre = at.unwrap_or(f64::midpoint(l.t0, l.t1));
        let span = ((l.t1 - l.t0) * factor).clamp(2.0, full * 4.0);
        let t0 = (centre - (centre - l.t0) * span / (l.t1 - l.t0)).max(-full);
        let w = if span >= full && factor > 1.0 { None } else { Some(whole_ticks(t0.max(0.0), t0.max(0.0) + span)) };
        if rests {
            self.live.set(Live::Resting);
            self.run.params.update(|p| p.window = w);
        } else {
            self.live.set(Live::To(w));
        }
    }

    fn whole(self) {
        self.live.set(Live::Resting);
        self.run.params.update(|p| p.window = None);
    }

    fn scroll(self, rows: i64) {
        let ranks = self.run.shown.with_untracked(|s| s.as_ref().map_or(1, |s| s.result.ranks));
        self.run.params.update(|p| {
            let max = i64::from(ranks.saturating_sub(ROWS));
            p.first_rank = (i64::from(p.first_rank) + rows).clamp(0, max.max(0)) as u32;
        });
    }

    /// The pointer over the canvas (its offset: reading the canvas's box would force a layout per move).
    fn point(self, ev: &web_sys::MouseEvent) -> Option<(f64, f64)> {
        self.canvas.get_untracked()?;
        Some((f64::from(ev.offset_x()), f64::from(ev.offset_y())))
    }

    fn on_move(self, ev: &web_sys::MouseEvent) {
        let (Some((x, y)), Some(l)) = (self.point(ev), self.layout.get_untracked()) else { return };
        if let Some((x0, t0)) = self.drag.get_value() {
            let dt = (x0 - x) / (l.width - timeline::LEFT - timeline::RIGHT) * (l.t1 - l.t0);
            let span = l.t1 - l.t0;
            let start = (t0 + dt).max(0.0);
            self.live.set(Live::To(Some(whole_ticks(start, start + span))));
            return;
        }
        let text = self.run.shown.with_untracked(|s| {
            let t = s.as_ref()?.timeline.as_ref()?;
            let (rank, lane) = l.lane_at(y)?;
            let slack = 2.0 / (l.width - timeline::LEFT) * (l.t1 - l.t0);
            t.bar_at(rank, lane, l.time(x), slack)
                .map(|b| bar_text(t, b, self.run.params.with_untracked(|p| (p.time_unit(), p.hosts()))))
        });
        self.hover.set(text.unwrap_or_default());
    }

    fn on_down(self, ev: &web_sys::MouseEvent) {
        if let (Some((x, _)), Some(l)) = (self.point(ev), self.layout.get_untracked()) {
            self.drag.set_value(Some((x, l.t0)));
        }
    }

    /// The end of a drag paints the window it left.
    fn end_drag(self) {
        if self.drag.get_value().is_some() {
            self.drag.set_value(None);
            self.commit();
            let now = self.layout.get_untracked();
            if now != self.drawn.get_untracked() {
                self.drawn.set(now);
            }
        }
    }

    fn on_wheel(self, ev: &web_sys::WheelEvent) {
        ev.prevent_default();
        if ev.shift_key() {
            self.scroll(if ev.delta_y() > 0.0 { 3 } else { -3 });
            return;
        }
        let at = self.point(ev).zip(self.layout.get_untracked()).map(|((x, _), l)| l.time(x));
        self.zoom(if ev.delta_y() > 0.0 { 1.25 } else { 0.8 }, at, false);
    }

    /// Keyboard: ←/→ the previous/next bar of the focused rank, ↑/↓ another rank, +/− zoom, 0 the whole run.
    fn on_key(self, ev: &web_sys::KeyboardEvent) {
        let step = |forward: bool, other_rank: i64| {
            self.run.shown.with_untracked(|s| {
                let t = s.as_ref()?.timeline.as_ref()?;
                let first = self.run.params.with_untracked(|p| p.first_rank);
                t.next_bar(self.run.focus.get_untracked(), first, forward, other_rank)
            })
        };
        let moved = match ev.key().as_str() {
            "ArrowRight" => step(true, 0),
            "ArrowLeft" => step(false, 0),
            "ArrowDown" => step(true, 1),
            "ArrowUp" => step(true, -1),
            "+" | "=" => {
                self.zoom(0.8, None, true);
                None
            }
            "-" => {
                self.zoom(1.25, None, true);
                None
            }
            "0" => {
                self.whole();
                None
            }
            _ => return,
        };
        ev.prevent_default();
        if let Some(b) = moved {
            self.focus_bar(b);
        }
    }

    /// Bar `b` in focus: described, and brought into the window.
    fn focus_bar(self, b: usize) {
        self.run.focus.set(Some(b));
        self.run.shown.with_untracked(|s| {
            let Some(t) = s.as_ref().and_then(|s| s.timeline.as_ref()) else { return };
            let Some(Bar { rank, start, end, .. }) = t.bar(b) else { return };
            self.hover.set(bar_text(t, b, self.run.params.with_untracked(|p| (p.time_unit(), p.hosts()))));
            let Some(l) = self.layout.get_untracked() else { return };
            self.commit();
            self.run.params.update(|p| {
                if rank < l.first_rank || rank >= l.first_rank + l.ranks {
                    p.first_rank = rank.saturating_sub(ROWS / 2);
                }
                if end < l.t0 || start > l.t1 {
                    let span = l.t1 - l.t0;
                    let t0 = (start - span / 2.0).max(0.0);
                    p.window = Some(whole_ticks(t0, t0 + span));
                }
            });
        });
    }

    fn range_text(self) -> Option<String> {
        let l = self.layout.get()?;
        let ranks = self.run.shown.with(|s| s.as_ref().map_or(0, |s| s.result.ranks));
        let (first, last) = (l.first_rank, l.first_rank + l.ranks - 1);
        Some(format!("ranks {first}–{last} of {ranks}; {} – {}", l.unit.format(l.t0), l.unit.format(l.t1)))
    }
}

/// The timeline with its tools, or the histogram of a run too large to draw bar by bar.
#[component]
pub fn TimelineFrame(
    /// The window on the run.
    w: Window,
) -> impl IntoView {
    let shown = w.run.shown;
    view! {
        <div class="timeline-frame" node_ref=w.frame>
            {move || shown.with(|s| match s {
                Some(s) if s.timeline.is_some() => view! {
                    <div class="timeline-tools" role="group" aria-label="Timeline">
                        <button type="button" data-testid="zoom-in" on:click=move |_| w.zoom(0.5, None, true)>"Zoom in"</button>
                        <button type="button" data-testid="zoom-out" on:click=move |_| w.zoom(2.0, None, true)>"Zoom out"</button>
                        <button type="button" data-testid="zoom-reset" on:click=move |_| w.whole()>"Whole run"</button>
                        <button type="button" data-testid="ranks-up" on:click=move |_| w.scroll(-i64::from(ROWS))>"Ranks ▲"</button>
                        <button type="button" data-testid="ranks-down" on:click=move |_| w.scroll(i64::from(ROWS))>"Ranks ▼"</button>
                        <span class="timeline-range">{move || w.range_text()}</span>
                    </div>
                    <canvas node_ref=w.canvas class="timeline" data-testid="timeline" tabindex="0"
                        aria-label="Timeline: arrow keys move between operations, + and − zoom, 0 shows the whole run; the operation in focus is described below"
                        on:mousemove=move |ev| w.on_move(&ev) on:mousedown=move |ev| w.on_down(&ev) on:mouseup=move |_| w.end_drag()
                        on:mouseleave=move |_| w.end_drag() on:wheel=move |ev| w.on_wheel(&ev) on:keydown=move |ev| w.on_key(&ev)></canvas>
                    <p class="timeline-hover" data-testid="timeline-hover" aria-live="polite">{move || w.hover.get()}</p>
                    <p class="timeline-legend">"Bars: blue send overhead, green taking in a message, grey calc, orange NIC sending, yellow NIC receiving; lines: messages (send → arrival); red: the critical path. Drag to pan, wheel to zoom, shift + wheel to scroll ranks."</p>
                }.into_any(),
                Some(s) => view! {
                    <p data-testid="large-note">{format!("{} operations: above {TIMELINE_OPS}, the view shows the finish-time histogram and the critical path instead of every bar.", s.result.ops)}</p>
                    <div node_ref=w.histogram_box class="diagram" tabindex="0" data-testid="finish-histogram" inner_html=move || w.histogram().unwrap_or_default()></div>
                }.into_any(),
                None => ().into_any(),
            })}
        </div>
    }
}

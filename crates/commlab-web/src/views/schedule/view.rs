//! The Schedule view: pick a collective (or open, drop or paste a GOAL
//! file), set LogGOPS parameters, and watch the simulated timeline — CPU and
//! NIC occupancy per rank, message arrows, the critical path — with zoom,
//! pan, hover and keyboard focus; above [`TIMELINE_OPS`] operations, the
//! finish-time histogram and the critical path only.

use super::params::ScheduleParams;
use crate::browser;
use crate::codec::Notice;
use crate::controls::chart::box_width;
use crate::controls::notices::Notices;
use crate::controls::number_field::{int_range, NumberField};
use crate::controls::store;
use crate::engine::schedule::ScheduleClient;
use crate::lazy::LazyArgs;
use commlab_api::schedule::{
    Bar, GenerateRequest, LogGops, ScheduleExport, ScheduleQuery, ScheduleRequest, ScheduleResponse, ScheduleResult,
    ScheduleSource, Timeline, BYTES, MESH, P, PARAM, PRESETS, TIMELINE_OPS,
};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::limits::{self, IntRange};
use commlab_plot::mesh::scene_svg;
use commlab_plot::timeline::{self, Layout, TimeUnit, BAR_NAMES};
use commlab_plot::{count, Theme};
use leptos::prelude::*;
use std::rc::Rc;
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

fn theme_untracked(dark: Memo<bool>) -> Theme {
    if dark.get_untracked() {
        Theme::DARK
    } else {
        Theme::LIGHT
    }
}

/// The collectives offered, with their labels.
const COLLECTIVE_LABELS: [(&str, &str); 11] = [
    ("reduce", "Binomial reduce (LCT: clear lowest bit)"),
    ("broadcast", "Binomial broadcast (LCT)"),
    ("allreduce", "Allreduce: reduce + broadcast (LCT)"),
    ("allreduce-butterfly", "Allreduce: butterfly"),
    ("reduce-bst", "Binomial reduce (BST: clear highest bit, Schedgen's)"),
    ("broadcast-bst", "Binomial broadcast (BST)"),
    ("allreduce-bst", "Allreduce: reduce + broadcast (BST)"),
    ("pipeline", "Pipelined chain reduction (m pieces)"),
    ("dissemination", "Dissemination barrier on p ranks"),
    ("barrier", "Barrier on a mesh (fault-free pattern)"),
    ("swizzle", "CommSwizzle: every rank's steps"),
];

/// What the view shows of a finished run.
#[derive(Clone)]
struct Shown {
    result: Rc<ScheduleResult>,
    timeline: Option<Rc<Timeline>>,
    /// The network picture (network runs).
    picture: Option<std::sync::Arc<commlab_api::network::NetPicture>>,
    /// `on_path[op]`: the op is on the critical path.
    on_path: Rc<Vec<bool>>,
}

/// The opened file.
#[derive(Clone)]
struct OpenedFile {
    name: String,
    text: Rc<String>,
}

/// Where the run stands.
#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Running(String, u64, u64),
    Cancelled,
    /// The run failed: why, and whether running it again could help (the
    /// engine stopped); a refused request fails the same way every time.
    Failed(String, bool),
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

/// Whether `id` is a pipelined chooser algorithm (`broadcast/chain`): it takes a piece count.
fn pipelined_chooser(id: &str) -> bool {
    id.split_once('/').is_some_and(|(c, a)| {
        c.parse::<commlab_core::choose::Collective>()
            .is_ok_and(|c| commlab_core::choose::of(c).any(|x| x.id == a && x.pipelined))
    })
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

fn bar_text(t: &Timeline, bar: usize, unit: TimeUnit) -> String {
    let Some(b) = t.bar(bar) else { return String::new() };
    let what = BAR_NAMES.get(b.kind as usize).copied().unwrap_or("busy");
    format!(
        "rank {} {}: {} — {}, {} → {} ({})",
        b.rank,
        lane_name(b.lane, t.cpus),
        what,
        describe_op(t, b.op as usize, unit),
        unit.format(b.start),
        unit.format(b.end),
        unit.format(b.end - b.start)
    )
}

/// The Schedule view. `report` receives the view's URL pairs as they change.
#[allow(clippy::too_many_lines, reason = "one view: controls, run, timeline, exports")]
#[component]
pub fn ScheduleView(
    /// The link's pairs, the page's theme and embed mode.
    args: LazyArgs,
) -> impl IntoView {
    let (start, notices) = args.read::<ScheduleParams>();
    let params = RwSignal::new(start);
    args.follow(params, false);
    let (dark, embed) = (args.dark, args.embed);
    let file = RwSignal::new_local(None::<OpenedFile>);
    let kept_note = RwSignal::new(None::<String>);
    let status = RwSignal::new(Status::Idle);
    // Which row the status shows (the row is rebuilt only when this changes).
    let status_kind = Memo::new(move |_| match status.get() {
        Status::Idle => 0,
        Status::Running(..) => 1,
        Status::Cancelled => 2,
        Status::Failed(..) => 3,
    });
    let running = move || match status.get() {
        Status::Running(phase, done, total) => (phase, done, total),
        _ => (String::new(), 0, 0),
    };
    let shown = RwSignal::new_local(None::<Shown>);
    let hover = RwSignal::new(String::new());
    let focus = RwSignal::new(None::<usize>);
    let paste = RwSignal::new(String::new());
    let export_status = RwSignal::new(String::new());
    let client = StoredValue::new_local(ScheduleClient::new());
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    let frame = NodeRef::<leptos::html::Div>::new();
    let started = StoredValue::new(0.0f64);
    let took = RwSignal::new(0.0f64);
    // A network run answers twice: its result, then the ideal switch's time.
    let ideal = RwSignal::new(super::network::Ideal::Pending);
    let ideal_took = RwSignal::new(None::<f64>);
    // The network's result is on screen and the ideal switch is running.
    let partial = StoredValue::new(false);

    // What a run depends on: the source and the simulation parameters (not the window).
    let run_key =
        Memo::new(move |_| params.with(|p| (p.file, p.generate.clone(), p.loggops, p.libstdcxx, p.network())));
    let show = move |result: ScheduleResult, arrays: Option<crate::engine::schedule::Arrays>| {
        let arrays = arrays.unwrap_or_default();
        let (timeline, picture) = (arrays.timeline, arrays.picture);
        let mut on_path = Vec::new();
        if let Some(t) = &timeline {
            on_path = vec![false; t.op_count()];
            for &i in &t.critical {
                if let Some(x) = on_path.get_mut(i as usize) {
                    *x = true;
                }
            }
        }
        focus.set(None);
        shown.set(Some(Shown {
            result: Rc::new(result),
            timeline: timeline.map(Rc::new),
            picture: picture.map(std::sync::Arc::new),
            on_path: Rc::new(on_path),
        }));
    };
    let on_response = move || -> crate::engine::schedule::OnResponse {
        Rc::new(move |r: ScheduleResponse, arrays: Option<crate::engine::schedule::Arrays>| match r {
            ScheduleResponse::Progress { phase, done, total } => status.set(Status::Running(phase, done, total)),
            ScheduleResponse::Partial(result) => {
                took.set(browser::now_ms() - started.get_value());
                ideal.set(super::network::Ideal::Pending);
                ideal_took.set(None);
                show(result, arrays);
                partial.set_value(true);
                status.set(Status::Running("the ideal switch".into(), 0, 0));
            }
            ScheduleResponse::Ready(result) => {
                let now = browser::now_ms() - started.get_value();
                let done = result.network.as_ref().and_then(|n| n.ideal.zip(n.slowdown));
                ideal.set(done.map_or(super::network::Ideal::Stopped, |(t, s)| super::network::Ideal::Done(t, s)));
                if partial.get_value() && shown.with_untracked(Option::is_some) {
                    // The partial result is on screen: only the ideal switch is new.
                    ideal_took.set(Some(now - took.get_untracked()));
                } else {
                    took.set(now);
                    ideal_took.set(None);
                    show(result, arrays);
                }
                partial.set_value(false);
                status.set(Status::Idle);
            }
            // Exports answer the export row's own handler (`export` below).
            ScheduleResponse::Export(..)
            | ScheduleResponse::Chosen(_)
            | ScheduleResponse::Map(_)
            | ScheduleResponse::Profiles(_)
            | ScheduleResponse::Checked(_)
            | ScheduleResponse::Fitted(_)
            | ScheduleResponse::Expected(_)
            | ScheduleResponse::SystemFitted(_) => {}
            ScheduleResponse::Error(e) => {
                if status.get_untracked() == Status::Idle {
                    export_status.set(e.to_string());
                } else {
                    shown.set(None);
                    status.set(Status::Failed(e.to_string(), e.field == "engine"));
                }
            }
        })
    };
    let run = move || {
        let (is_file, generate, loggops, libstdcxx, network) = run_key.get_untracked();
        let c = client.get_value();
        let query = if is_file {
            let Some(f) = file.get_untracked() else { return };
            if c.holds_run()
                && shown.with_untracked(std::option::Option::is_some)
                && status.get_untracked() == Status::Idle
            {
                ScheduleQuery::Resimulate(loggops, libstdcxx, network)
            } else {
                let source = ScheduleSource::Text((*f.text).clone());
                ScheduleQuery::Run(ScheduleRequest { source, params: loggops, libstdcxx, network })
            }
        } else {
            ScheduleQuery::Run(ScheduleRequest {
                source: ScheduleSource::Generate(generate),
                params: loggops,
                libstdcxx,
                network,
            })
        };
        started.set_value(browser::now_ms());
        partial.set_value(false);
        status.set(Status::Running("starting".into(), 0, 0));
        c.send(query, on_response());
    };
    // A file source whose file changed must be read again, not re-simulated.
    let run_file = move || {
        shown.set(None);
        run();
    };
    Effect::new(move |_| {
        run_key.track();
        run();
    });

    // The kept file: restored on open when the link asks for it.
    if params.with_untracked(|p| p.file) {
        leptos::task::spawn_local(async move {
            match store::load(store::SCHEDULE).await {
                Ok(Some((name, text))) => {
                    kept_note.set(Some(format!(
                        "Restored {name} ({}) from this browser's storage.",
                        commlab_plot::format_bytes(text.len() as u64)
                    )));
                    file.set(Some(OpenedFile { name, text: Rc::new(text) }));
                    run_file();
                }
                Ok(None) => {
                    notices.update(|n| n.push(Notice::new("src", "this link shows an opened GOAL file, but none is kept in this browser; showing a generated collective")));
                    params.update(|p| p.file = false);
                }
                Err(e) => {
                    notices
                        .update(|n| n.push(Notice::new("src", format!("the opened file could not be restored: {e}"))));
                    params.update(|p| p.file = false);
                }
            }
        });
    }
    let open_text = move |name: String, text: String| {
        let text = Rc::new(text);
        file.set(Some(OpenedFile { name: name.clone(), text: text.clone() }));
        kept_note.set(None);
        leptos::task::spawn_local(async move {
            let note = match store::save(store::SCHEDULE, &name, &text).await {
                Ok(()) => format!("{name} is kept in this browser's storage (never uploaded) until you forget it."),
                Err(e) => format!("{name} could not be kept in this browser's storage ({e}): a reload will lose it."),
            };
            kept_note.set(Some(note));
        });
        if params.with_untracked(|p| p.file) {
            run_file();
        } else {
            shown.set(None);
            params.update(|p| p.file = true);
        }
    };
    let read_file = move |f: web_sys::File| {
        let name = f.name();
        status.set(Status::Running("reading the file".into(), 0, 0));
        leptos::task::spawn_local(async move {
            match store::read_text(&f).await {
                Ok(t) => open_text(name, t),
                Err(e) => status.set(Status::Failed(format!("{name}: {e}"), true)),
            }
        });
    };
    let on_pick = move |ev: web_sys::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(f) = input.files().and_then(|l| l.get(0)) {
            read_file(f);
        }
        input.set_value("");
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        if let Some(f) = ev.data_transfer().and_then(|d| d.files()).and_then(|l| l.get(0)) {
            read_file(f);
        }
    };
    let forget = move |_| {
        leptos::task::spawn_local(async move {
            let note = match store::forget(store::SCHEDULE).await {
                Ok(()) => "Forgotten: nothing of the file is kept in this browser.".to_owned(),
                Err(e) => format!("Could not forget the file: {e}"),
            };
            file.set(None);
            kept_note.set(Some(note));
            params.update(|p| p.file = false);
        });
    };

    // Controls.
    let gen =
        move |f: fn(&mut GenerateRequest, f64)| Callback::new(move |v: f64| params.update(|p| f(&mut p.generate, v)));
    let lg = move |f: fn(&mut LogGops, u64)| {
        Callback::new(move |v: f64| {
            params.update(|p| {
                f(&mut p.loggops, v as u64);
                p.preset = "custom".into();
            });
        })
    };
    let gval = move |f: fn(&GenerateRequest) -> f64| Signal::derive(move || params.with(|p| f(&p.generate)));
    let lval = move |f: fn(&LogGops) -> u64| Signal::derive(move || params.with(|p| f(&p.loggops) as f64));
    let collective = move || params.with(|p| p.generate.collective.clone());
    let is = move |ids: &'static [&'static str]| move || ids.contains(&collective().as_str());
    let param_range = |name: &'static str| int_range(IntRange { name, ..PARAM });
    // With a link's unit the parameters are ticks (1 u = `unit` ticks), else ns.
    let tick_unit = move |ns: &'static str| {
        Signal::derive(move || {
            if params.with(|p| p.unit.is_some()) {
                if ns == "ns" {
                    "ticks"
                } else {
                    "ticks/B"
                }
            } else {
                ns
            }
        })
    };

    // The frame's width after each layout that changes it (a ResizeObserver:
    // reading it while the view mounts, or on every pan frame, would force a
    // layout of the page each time).
    let frame_width = RwSignal::new(900.0f64);
    let watch = StoredValue::new_local(None::<crate::browser::WidthWatch>);
    Effect::new(move |_| {
        if let Some(f) = frame.get() {
            let on_width = move |w: f64| {
                let w = w.max(240.0);
                if (w - frame_width.get_untracked()).abs() >= 1.0 {
                    frame_width.set(w);
                }
            };
            watch.set_value(crate::browser::WidthWatch::new(&f, on_width));
        }
    });
    on_cleanup(move || watch.set_value(None));
    // The window while a drag or the wheel moves it: the URL (and every
    // field that reads the parameters) gets it when it rests.
    let live = RwSignal::new(None::<Option<(f64, f64)>>);
    let commit = move || {
        if let Some(w) = live.get_untracked() {
            params.update(|p| p.window = w);
            live.set(None);
        }
    };
    // The timeline's layout for the current result, window and rows.
    let layout = Memo::new(move |_| {
        let width = frame_width.get();
        shown.with(|s| {
            let s = s.as_ref()?;
            let t = s.timeline.as_ref()?;
            let ranks = s.result.ranks;
            let (window, first) = params.with(|p| (p.window, p.first_rank.min(ranks.saturating_sub(1))));
            let window = live.get().unwrap_or(window);
            let end = (s.result.max_time as f64).max(1.0);
            let (t0, t1) = window.unwrap_or((0.0, end * 1.02));
            Some(Layout {
                lanes: t.cpus + 2 * t.nics,
                cpus: t.cpus,
                first_rank: first,
                ranks: ROWS.min(ranks - first),
                t0,
                t1,
                width,
                unit: params.with(ScheduleParams::time_unit),
            })
        })
    });
    let theme = move || if dark.get() { Theme::DARK } else { Theme::LIGHT };
    // What is painted follows `layout` at once, except while only the time
    // window moves (drag, wheel, keys): then the kept painting is shown
    // stretched and shifted (`Layout::carry`, one `drawImage`), and the
    // window is painted once it has rested for `SETTLE_MS`.
    let drawn = RwSignal::new(None::<Layout>);
    // A drag under way: where it started (x) and the window's start then.
    let drag = StoredValue::new(None::<(f64, f64)>);
    let painted = StoredValue::new_local(None::<(web_sys::ImageBitmap, Layout)>);
    let painted_for = StoredValue::new((None::<usize>, None::<usize>));
    let settle = StoredValue::new(0u64);
    Effect::new(move |_| {
        let l = layout.get();
        // A new run or another focused op is painted anew.
        let now =
            (focus.get(), shown.with(|s| s.as_ref().and_then(|s| s.timeline.as_ref()).map(|t| Rc::as_ptr(t) as usize)));
        let new_run = painted_for.get_value().1 != now.1;
        let refocused = painted_for.get_value() != now;
        painted_for.set_value(now);
        settle.update_value(|g| *g += 1);
        let carried = !refocused
            && l.is_some_and(|l| {
                let (Some(c), Some(kept)) =
                    (canvas.get_untracked(), painted.with_value(|p| p.as_ref().map(|(b, pl)| (b.clone(), *pl))))
                else {
                    return false;
                };
                kept.1.carry(&l).is_some_and(|carry| {
                    browser::present_carried(
                        &c,
                        &kept.0,
                        l.width,
                        (timeline::LEFT, l.width - timeline::RIGHT),
                        (carry.from, carry.to),
                        &commlab_plot::svg::hex(theme_untracked(dark).background),
                    )
                })
            });
        if carried {
            let generation = settle.get_value();
            leptos::prelude::set_timeout(
                move || {
                    // A drag is painted when the button is let go.
                    if settle.get_value() == generation && drag.get_value().is_none() {
                        commit();
                        drawn.set(layout.get_untracked());
                    }
                },
                std::time::Duration::from_millis(SETTLE_MS),
            );
        } else if new_run && l.is_some() {
            // A new run's summary and tables in this task, its painting in the next.
            let generation = settle.get_value();
            leptos::prelude::set_timeout(
                move || {
                    if settle.get_value() == generation {
                        drawn.set(layout.get_untracked());
                    }
                },
                std::time::Duration::ZERO,
            );
        } else {
            drawn.set(l);
        }
    });
    // Every recomputation is a new drawing: comparing two scenes of thousands
    // of shapes to skip a repaint would cost about what the repaint does.
    let scene_for = move |l: &Layout, focus: Option<usize>, th: &Theme| {
        shown.with_untracked(|s| {
            let s = s.as_ref()?;
            let t = s.timeline.as_ref()?;
            let focus_op = focus.and_then(|b| t.bar(b)).map(|b| b.op);
            let title = format!("Timeline of {} ranks", s.result.ranks);
            Some(timeline::scene(l, &t.bars, &t.messages, &s.on_path, focus_op, th, &title))
        })
    };
    Effect::new(move |_| {
        let (Some(l), th) = (drawn.get(), theme()) else { return };
        let Some(c) = canvas.get() else { return };
        let Some(sc) = scene_for(&l, focus.get_untracked(), &th) else {
            painted.set_value(None);
            return;
        };
        match crate::paint::paint(&sc, browser::pixel_ratio())
            .map(wasm_bindgen::JsValue::unchecked_into::<web_sys::ImageBitmap>)
        {
            Ok(bitmap) => {
                browser::present_bitmap(&c, &bitmap, sc.width, sc.height);
                painted.set_value(Some((bitmap, l)));
            }
            Err(_) => painted.set_value(None),
        }
    });

    // Zoom, pan, scroll.
    let full = move || shown.with_untracked(|s| s.as_ref().map_or(1.0, |s| (s.result.max_time as f64).max(1.0) * 1.02));
    let zoom = move |factor: f64, at: Option<f64>, rests: bool| {
        let Some(l) = layout.get_untracked() else { return };
        let centre = at.unwrap_or(f64::midpoint(l.t0, l.t1));
        let span = ((l.t1 - l.t0) * factor).clamp(2.0, full() * 4.0);
        let t0 = (centre - (centre - l.t0) * span / (l.t1 - l.t0)).max(-full());
        let w = if span >= full() && factor > 1.0 { None } else { Some(whole_ticks(t0.max(0.0), t0.max(0.0) + span)) };
        if rests {
            live.set(None);
            params.update(|p| p.window = w);
        } else {
            live.set(Some(w));
        }
    };
    let scroll = move |rows: i64| {
        let ranks = shown.with_untracked(|s| s.as_ref().map_or(1, |s| s.result.ranks));
        params.update(|p| {
            let max = i64::from(ranks.saturating_sub(ROWS));
            p.first_rank = (i64::from(p.first_rank) + rows).clamp(0, max.max(0)) as u32;
        });
    };
    // The pointer over the canvas (its offset: reading the canvas's box would force a layout per move).
    let point = move |ev: &web_sys::MouseEvent| -> Option<(f64, f64)> {
        canvas.get_untracked()?;
        Some((f64::from(ev.offset_x()), f64::from(ev.offset_y())))
    };
    let on_move = move |ev: web_sys::MouseEvent| {
        let (Some((x, y)), Some(l)) = (point(&ev), layout.get_untracked()) else { return };
        if let Some((x0, t0)) = drag.get_value() {
            let dt = (x0 - x) / (l.width - timeline::LEFT - timeline::RIGHT) * (l.t1 - l.t0);
            let span = l.t1 - l.t0;
            let start = (t0 + dt).max(0.0);
            live.set(Some(Some(whole_ticks(start, start + span))));
            return;
        }
        let text = shown.with_untracked(|s| {
            let t = s.as_ref()?.timeline.as_ref()?;
            let (rank, lane) = l.lane_at(y)?;
            let slack = 2.0 / (l.width - timeline::LEFT) * (l.t1 - l.t0);
            t.bar_at(rank, lane, l.time(x), slack)
                .map(|b| bar_text(t, b, params.with_untracked(ScheduleParams::time_unit)))
        });
        hover.set(text.unwrap_or_default());
    };
    let on_down = move |ev: web_sys::MouseEvent| {
        if let (Some((x, _)), Some(l)) = (point(&ev), layout.get_untracked()) {
            drag.set_value(Some((x, l.t0)));
        }
    };
    // The end of a drag paints the window it left.
    let end_drag = move || {
        if drag.get_value().is_some() {
            drag.set_value(None);
            commit();
            let now = layout.get_untracked();
            if now != drawn.get_untracked() {
                drawn.set(now);
            }
        }
    };
    let on_up = move |_| end_drag();
    let on_wheel = move |ev: web_sys::WheelEvent| {
        ev.prevent_default();
        if ev.shift_key() {
            scroll(if ev.delta_y() > 0.0 { 3 } else { -3 });
            return;
        }
        let at = point(&ev).zip(layout.get_untracked()).map(|((x, _), l)| l.time(x));
        zoom(if ev.delta_y() > 0.0 { 1.25 } else { 0.8 }, at, false);
    };
    // Keyboard: ←/→ the previous/next bar of the focused rank, ↑/↓ another rank, +/− zoom, 0 the whole run.
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        let step = |forward: bool, other_rank: i64| {
            shown.with_untracked(|s| {
                let t = s.as_ref()?.timeline.as_ref()?;
                let first = params.with_untracked(|p| p.first_rank);
                t.next_bar(focus.get_untracked(), first, forward, other_rank)
            })
        };
        let moved = match key.as_str() {
            "ArrowRight" => step(true, 0),
            "ArrowLeft" => step(false, 0),
            "ArrowDown" => step(true, 1),
            "ArrowUp" => step(true, -1),
            "+" | "=" => {
                zoom(0.8, None, true);
                None
            }
            "-" => {
                zoom(1.25, None, true);
                None
            }
            "0" => {
                live.set(None);
                params.update(|p| p.window = None);
                None
            }
            _ => return,
        };
        ev.prevent_default();
        if let Some(b) = moved {
            focus.set(Some(b));
            shown.with_untracked(|s| {
                if let Some(t) = s.as_ref().and_then(|s| s.timeline.as_ref()) {
                    let Some(Bar { rank, start, end, .. }) = t.bar(b) else { return };
                    hover.set(bar_text(t, b, params.with_untracked(ScheduleParams::time_unit)));
                    let Some(l) = layout.get_untracked() else { return };
                    commit();
                    params.update(|p| {
                        if rank < l.first_rank || rank >= l.first_rank + l.ranks {
                            p.first_rank = rank.saturating_sub(ROWS / 2);
                        }
                        if end < l.t0 || start > l.t1 {
                            let span = l.t1 - l.t0;
                            let t0 = (start - span / 2.0).max(0.0);
                            p.window = Some(whole_ticks(t0, t0 + span));
                        }
                    });
                }
            });
        }
    };

    // An export's answer goes to the export row, whatever the run's state:
    // a refused run has nothing to export, and the row says so.
    let export = move |kind: ScheduleExport| {
        export_status.set(String::new());
        let answer: crate::engine::schedule::OnResponse = std::rc::Rc::new(move |response, _| match response {
            ScheduleResponse::Export(name, text) => {
                let extension = std::path::Path::new(&name).extension().and_then(|e| e.to_str()).unwrap_or("");
                let mime = match extension {
                    "csv" => "text/csv",
                    "goal" => "text/plain",
                    _ => "application/json",
                };
                export_status.set(browser::download_text(&name, mime, &text).err().unwrap_or_default());
            }
            ScheduleResponse::Error(e) => export_status.set(e.to_string()),
            _ => {}
        });
        client.get_value().send(ScheduleQuery::Export(kind), answer);
    };
    // Exports draw the window shown, without the keyboard focus's outline.
    let drawing_svg =
        move || layout.get_untracked().and_then(|l| scene_for(&l, None, &theme_untracked(dark))).map(|s| scene_svg(&s));
    let histogram_box = NodeRef::<leptos::html::Div>::new();
    let histogram_width = box_width(histogram_box, 900.0);
    let histogram_svg = move || {
        let th = theme();
        shown.with(|s| {
            let r = &s.as_ref()?.result;
            Some(scene_svg(&timeline::histogram(
                &r.histogram,
                (r.min_time as f64, r.bin_width as f64),
                params.with(ScheduleParams::time_unit),
                histogram_width.get(),
                &th,
                "Finish time per rank",
            )))
        })
    };
    let file_stem = move || {
        format!(
            "commlab-{}-timeline",
            params.with_untracked(|p| if p.file { "file".to_owned() } else { p.generate.collective.clone() })
        )
    };
    let save_svg = move |_| match drawing_svg().or_else(histogram_svg) {
        Some(svg) => export_status.set(
            browser::download_text(&format!("{}.svg", file_stem()), "image/svg+xml", &svg).err().unwrap_or_default(),
        ),
        None => export_status.set("Nothing drawn yet".into()),
    };
    let save_png = move |_| match drawing_svg().or_else(histogram_svg) {
        Some(svg) => browser::download_png(
            &format!("{}.png", file_stem()),
            &svg,
            Callback::new(move |e: String| export_status.set(e)),
        ),
        None => export_status.set("Nothing drawn yet".into()),
    };

    let source_controls = move || {
        if params.with(|p| p.file) {
            view! {
                <p class="schedule-file" data-testid="schedule-file">
                    {move || file.with(|f| f.as_ref().map_or_else(|| "No file opened yet.".to_owned(), |f| format!("Simulating {} ({})", f.name, commlab_plot::format_bytes(f.text.len() as u64))))}
                </p>
                <button type="button" data-testid="use-generated" on:click=move |_| params.update(|p| p.file = false)>"Use a generated collective"</button>
            }
            .into_any()
        } else {
            view! {
                <div class="field">
                    <label for="coll">"Collective"</label>
                    <select id="coll" data-testid="collective" prop:value=collective on:change=move |ev| {
                        let v = event_target_value(&ev);
                        params.update(|p| p.generate.collective = v);
                    }>
                        {COLLECTIVE_LABELS.iter().map(|&(id, label)| view! { <option value=id selected=move || collective() == id>{label}</option> }).collect_view()}
                        {commlab_core::choose::Collective::ALL.iter().map(|&c| view! {
                            <optgroup label=format!("Chooser: {c}")>
                                {commlab_core::choose::of(c).map(|a| {
                                    let id = format!("{c}/{}", a.id);
                                    let selected = id.clone();
                                    view! { <option value=id.clone() selected=move || collective() == selected>{format!("{c}: {}", a.id)}</option> }
                                }).collect_view()}
                            </optgroup>
                        }).collect_view()}
                    </select>
                </div>
                <Show when=is(&["reduce", "broadcast", "allreduce", "allreduce-butterfly", "reduce-bst", "broadcast-bst", "allreduce-bst", "pipeline", "dissemination"])>
                    <NumberField id="p" label="Ranks p" integer=true range=int_range(P)
                        value=gval(|g| g.p as f64) on_change=gen(|g, v| g.p = v as u64) />
                </Show>
                <Show when=move || collective().contains('/')>
                    <NumberField id="p-chooser" label="Ranks p" integer=true range=int_range(commlab_api::schedule::CHOOSER_P)
                        value=gval(|g| g.p as f64) on_change=gen(|g, v| g.p = v as u64) />
                </Show>
                <Show when=move || collective().contains('/')>
                    <NumberField id="ch" label="Channels (the data split; channel c sends on NIC c, on nodes over rail c)" integer=true range=int_range(limits::net::CHANNELS) slider=(1.0, 64.0)
                        value=gval(|g| f64::from(g.channels)) on_change=gen(|g, v| g.channels = v as u32) />
                </Show>
                <Show when=move || is(&["pipeline"])() || pipelined_chooser(&collective())>
                    <NumberField id="pieces" label="Pieces m" integer=true range=int_range(limits::PIECES) slider=limits::schedule::PIECES_SLIDER
                        value=gval(|g| g.pieces as f64) on_change=gen(|g, v| g.pieces = v as u64) />
                </Show>
                // A chooser algorithm's size is its vector (all-to-all: each rank's send buffer), cut into messages by the plan.
                <Show when=move || !collective().contains('/') && !is(&["pipeline", "swizzle"])()>
                    <NumberField id="bytes" label="Bytes per message" unit="B" integer=true range=int_range(BYTES) slider=limits::BYTES_SLIDER
                        value=gval(|g| g.bytes as f64) on_change=gen(|g, v| g.bytes = v as u64) />
                </Show>
                <Show when=is(&["pipeline"])>
                    <NumberField id="bytes" label="Vector size n (bytes, cut into m pieces)" unit="B" integer=true range=int_range(BYTES) slider=limits::BYTES_SLIDER
                        value=gval(|g| g.bytes as f64) on_change=gen(|g, v| g.bytes = v as u64) />
                </Show>
                <Show when=is(&["swizzle"])>
                    <NumberField id="bytes" label="Bytes per tile" unit="B" integer=true range=int_range(BYTES) slider=limits::BYTES_SLIDER
                        value=gval(|g| g.bytes as f64) on_change=gen(|g, v| g.bytes = v as u64) />
                </Show>
                <Show when=move || collective().contains('/')>
                    <NumberField id="bytes" label="Vector size n (bytes per rank)" unit="B" integer=true range=int_range(BYTES) slider=limits::BYTES_SLIDER
                        value=gval(|g| g.bytes as f64) on_change=gen(|g, v| g.bytes = v as u64) />
                </Show>
                <Show when=is(&["barrier"])>
                    <NumberField id="mesh" label="Mesh side" integer=true range=int_range(MESH)
                        value=gval(|g| f64::from(g.mesh)) on_change=gen(|g, v| g.mesh = v as u32) />
                    <p class="hint" data-testid="barrier-routing-note">"The pattern is the fault-free one: with no broken link both routing rules (the paper's and shortest) send every message along its Manhattan route, so the rule plays no part here. Break links in the barrier mesh view to see them differ."</p>
                    <div class="field">
                        <label for="alg">"Barrier algorithm"</label>
                        <select id="alg" prop:value=move || params.with(|p| p.generate.algorithm.clone()) on:change=move |ev| {
                            let v = event_target_value(&ev);
                            params.update(|p| p.generate.algorithm = v);
                        }>
                            {Algorithm::ALL.iter().map(|a| { let id = a.id(); view! { <option value=id selected=move || params.with(|p| p.generate.algorithm == id)>{id}</option> } }).collect_view()}
                        </select>
                    </div>
                    <div class="field">
                        <label for="enc">"Encoding"</label>
                        <select id="enc" prop:value=move || params.with(|p| p.generate.encoding.clone()) on:change=move |ev| {
                            let v = event_target_value(&ev);
                            params.update(|p| p.generate.encoding = v);
                        }>
                            {Encoding::ALL.iter().map(|e| { let id = e.id(); view! { <option value=id selected=move || params.with(|p| p.generate.encoding == id)>{id}</option> } }).collect_view()}
                        </select>
                    </div>
                    <NumberField id="tile" label="Tile side (two-layer)" integer=true range=int_range(limits::mesh_view::TILE)
                        value=gval(|g| f64::from(g.tile)) on_change=gen(|g, v| g.tile = v as u32) />
                </Show>
                <Show when=is(&["swizzle"])>
                    <NumberField id="grid-rank" label="Ranks" integer=true range=int_range(limits::RANKS)
                        value=gval(|g| f64::from(g.grid.2)) on_change=gen(|g, v| g.grid.2 = v as u32) />
                    <NumberField id="grid-row" label="Tile rows" integer=true range=int_range(limits::GRID_EXTENT) slider=limits::GRID_SLIDER
                        value=gval(|g| f64::from(g.grid.0)) on_change=gen(|g, v| g.grid.0 = v as u32) />
                    <NumberField id="grid-col" label="Tile columns" integer=true range=int_range(limits::GRID_EXTENT) slider=limits::GRID_SLIDER
                        value=gval(|g| f64::from(g.grid.1)) on_change=gen(|g, v| g.grid.1 = v as u32) />
                    <NumberField id="cores-row" label="Core rows" integer=true range=int_range(limits::CORE_EXTENT) slider=limits::schedule::CORES_SLIDER
                        value=gval(|g| f64::from(g.cores.0)) on_change=gen(|g, v| g.cores.0 = v as u32) />
                    <NumberField id="cores-col" label="Core columns" integer=true range=int_range(limits::CORE_EXTENT) slider=limits::schedule::CORES_SLIDER
                        value=gval(|g| f64::from(g.cores.1)) on_change=gen(|g, v| g.cores.1 = v as u32) />
                    <label class="check"><input type="checkbox" prop:checked=move || params.with(|p| !p.generate.read)
                        on:change=move |ev| { let on = event_target_checked(&ev); params.update(|p| p.generate.read = !on); } />" remote writes (else reads)"</label>
                    <label class="check"><input type="checkbox" prop:checked=move || params.with(|p| p.generate.shift)
                        on:change=move |ev| { let on = event_target_checked(&ev); params.update(|p| p.generate.shift = on); } />" rank shift"</label>
                </Show>
            }
            .into_any()
        }
    };

    let preset_source = move || {
        params.with(|p| {
            PRESETS.iter().find(|x| x.id == p.preset).map_or("your own values".to_owned(), |x| x.source.to_owned())
        })
    };
    let summary = move || {
        let unit = params.with(ScheduleParams::time_unit);
        shown.with(|s| {
            let s = s.as_ref()?;
            let r = &s.result;
            let verdict = if r.completes {
                format!("every rank finishes; the last is rank {} at {}", r.max_rank, unit.format(r.max_time as f64))
            } else {
                format!("deadlock: {} unmatched operations", commlab_plot::count(u64::from(r.unmatched_ranks), "rank has", "ranks have"))
            };
            Some(view! {
                <p class="schedule-summary" data-testid="schedule-summary">
                    {format!("{}, {}, {}, {}: {verdict}. First rank done at {}.", count(u64::from(r.ranks), "rank", "ranks"), count(r.ops, "operation", "operations"), count(r.messages, "message", "messages"), count(r.events, "event", "events"), unit.format(r.min_time as f64))}
                    <span class="timing">{move || match ideal_took.get() {
                        Some(more) => format!(" Built and simulated in {:.0} ms (then the ideal switch, for the slowdown, in {more:.0} ms more).", took.get()),
                        None => format!(" Built and simulated in {:.0} ms.", took.get()),
                    }}</span>
                </p>
                {(!r.unmatched.is_empty()).then(|| view! {
                    <div class="deadlock" data-testid="deadlock" role="alert">
                        <p>"Left unmatched at the end:"</p>
                        <ul>{r.unmatched.iter().map(|(rank, left)| view! { <li>{format!("rank {rank}: {}", left.join("; "))}</li> }).collect_view()}</ul>
                    </div>
                })}
            })
        })
    };
    let critical_table = move || {
        let unit = params.with(ScheduleParams::time_unit);
        shown.with(|s| {
            let open = s.as_ref()?.timeline.is_none();
            let r = s.as_ref()?.result.clone();
            if r.network.is_some() {
                return None;
            }
            let rows = r.critical.len();
            Some(view! {
                <details class="critical" data-testid="critical-path" open=open>
                    <summary>{format!("Critical path: {} steps{}", r.critical_steps, if r.traced { "" } else { " (not traced: too many operations)" })}</summary>
                    <table class="numbers stack" style=crate::controls::stack::stack_labels(&["rank", "operation", "start", "end"])>
                        <thead><tr><th scope="col">"rank"</th><th scope="col">"operation"</th><th scope="col">"start"</th><th scope="col">"end"</th></tr></thead>
                        <tbody>
                            {r.critical.iter().map(|x| view! {
                                <tr><td>{x.rank}</td><td>{x.what.clone()}</td><td>{unit.format(x.start as f64)}</td><td>{unit.format(x.end as f64)}</td></tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                    {(r.critical_steps > rows as u64).then(|| view! { <p>{format!("The last {rows} steps are listed; the JSON export has them all.")}</p> })}
                </details>
            })
        })
    };

    view! {
        <section class="view schedule-view" data-testid="schedule-view" aria-labelledby="schedule-title"
            on:dragover=|ev: web_sys::DragEvent| ev.prevent_default() on:drop=on_drop>
            <Notices notices=notices />
            <div class="controls" role="group" aria-label="Schedule">
                <h2 id="schedule-title">{move || if params.with(|p| p.on_network) { "Schedule timeline (on a network)" } else { "Schedule timeline (LogGOPS)" }}</h2>
                {source_controls}
                <div class="field file-field">
                    <label for="goal-file">"Open a GOAL file (.goal, .gz; or drop it on the view)"</label>
                    <input id="goal-file" type="file" accept=".goal,.txt,.gz" data-testid="goal-file" on:change=on_pick />
                </div>
                <div class="field paste-field">
                    <label for="goal-text">"Or paste GOAL text"</label>
                    <textarea id="goal-text" rows="4" spellcheck="false" data-testid="goal-text" prop:value=move || paste.get()
                        on:input=move |ev| paste.set(event_target_value(&ev))></textarea>
                    <button type="button" data-testid="simulate-pasted" disabled=move || paste.with(String::is_empty)
                        on:click=move |_| open_text("pasted.goal".into(), paste.get_untracked())>"Simulate the pasted text"</button>
                </div>
                {move || kept_note.get().map(|n| view! { <p class="kept-note" data-testid="kept-note" role="status">{n}
                    {file.with(Option::is_some).then(|| view! { " " <button type="button" data-testid="forget-file" on:click=forget>"Forget"</button> })}</p> })}
                <h3>"LogGOPS parameters"</h3>
                <div class="field">
                    <label for="preset">"Preset"</label>
                    <select id="preset" data-testid="preset" prop:value=move || params.with(|p| p.preset.clone()) on:change=move |ev| {
                        let v = event_target_value(&ev);
                        params.update(|p| if let Some(x) = PRESETS.iter().find(|x| x.id == v) { p.preset = x.id.into(); p.loggops = x.params; p.unit = None; });
                    }>
                        {PRESETS.iter().map(|x| { let id = x.id; view! { <option value=id selected=move || params.with(|p| p.preset == id)>{x.label}</option> } }).collect_view()}
                        <option value="custom" disabled=true selected=move || params.with(|p| p.preset == "custom")>"custom"</option>
                    </select>
                </div>
                <p class="preset-source" data-testid="preset-source">{preset_source}</p>
                {move || params.with(|p| p.unit).map(|u| view! {
                    <p class="unit-note" data-testid="unit-note">
                        {format!("Times are in u, the unit the Chooser's α and β are given in: 1 u = {} ticks of the simulator, and L, o, g, G, O are in ticks. ", commlab_plot::format_quantity(u))}
                        <button type="button" data-testid="unit-ns" on:click=move |_| params.update(|p| p.unit = None)>"Read ticks as ns"</button>
                    </p>
                })}
                // On a network its routes and links replace L and G (and the
                // ready-list order is LogGOPSim's alone): those fields hide.
                <Show when=move || !params.with(|p| p.on_network)
                    fallback=|| view! { <p class="field-note" data-testid="lg-on-network">"L and G are the network's: each route's latency and its links' shared bandwidth."</p> }>
                    <NumberField id="L" unit_of=tick_unit("ns") label="Latency L" integer=true range=param_range("L") slider=limits::schedule::TIME_SLIDER value=lval(|l| l.l) on_change=lg(|l, v| l.l = v) />
                </Show>
                <NumberField id="o" unit_of=tick_unit("ns") label="Overhead o" integer=true range=param_range("o") slider=limits::schedule::TIME_SLIDER value=lval(|l| l.o) on_change=lg(|l, v| l.o = v) />
                <NumberField id="g" unit_of=tick_unit("ns") label="Gap g" integer=true range=param_range("g") slider=limits::schedule::TIME_SLIDER value=lval(|l| l.g) on_change=lg(|l, v| l.g = v) />
                <Show when=move || !params.with(|p| p.on_network)>
                    <NumberField id="G" unit_of=tick_unit("ns/B") label="Gap per byte G" integer=true range=param_range("G") slider=limits::schedule::PER_BYTE_SLIDER value=lval(|l| l.big_g) on_change=lg(|l, v| l.big_g = v) />
                </Show>
                <NumberField id="O" unit_of=tick_unit("ns/B") label="Overhead per byte O" integer=true range=param_range("O") slider=limits::schedule::PER_BYTE_SLIDER value=lval(|l| l.big_o) on_change=lg(|l, v| l.big_o = v) />
                <NumberField id="S" label="Eager limit S" unit="B" integer=true range=param_range("S") slider=limits::schedule::EAGER_SLIDER value=lval(|l| l.s) on_change=lg(|l, v| l.s = v) />
                <Show when=move || !params.with(|p| p.on_network)>
                    <label class="check"><input type="checkbox" data-testid="libstdcxx" prop:checked=move || params.with(|p| p.libstdcxx)
                        on:change=move |ev| { let on = event_target_checked(&ev); params.update(|p| p.libstdcxx = on); } />" LogGOPSim's libstdc++ ready-list order"</label>
                </Show>
                <super::system::SystemSelect params=params />
                <crate::controls::network::NetworkControls params=params label="run on a network (it replaces L and G)"
                    note="On a network each message is a flow along its route: it spends the route's latency, then shares each link max–min with the flows crossing it. o, g, O and S still apply; L and G are the network's." />
            </div>
            <div class="results">
                // Built once per state kind: progress changes the bar and the
                // count only, so Cancel stays put under the pointer.
                {move || match status_kind.get() {
                    1 => view! {
                        <div class="run-progress delayed" data-testid="run-progress" role="status">
                            <progress max=move || running().2.max(1) value=move || running().1 data-testid="run-bar" aria-label="Schedule progress"></progress>
                            <span class="run-count">{move || { let (phase, done, total) = running(); if total == 0 { format!("{phase}…") } else { format!("{phase}: {done} of {total}") } }}</span>
                            <button type="button" data-testid="cancel-run" on:click=move |_| {
                                client.get_value().cancel();
                                status.set(Status::Cancelled);
                                if ideal.get_untracked() == super::network::Ideal::Pending {
                                    ideal.set(super::network::Ideal::Stopped);
                                }
                            }>"Cancel"</button>
                        </div>
                    }.into_any(),
                    2 => view! {
                        <div class="run-progress" data-testid="run-cancelled" role="status">
                            <span>"Cancelled. Change a parameter, or "</span>
                            <button type="button" data-testid="rerun" on:click=move |_| run()>"run again"</button>
                        </div>
                    }.into_any(),
                    3 => view! { <p class="chart-error" data-testid="schedule-error" role="alert">{move || match status.get() { Status::Failed(e, _) => e, _ => String::new() }}" "
                        {move || matches!(status.get(), Status::Failed(_, true)).then(|| view! {
                            <button type="button" data-testid="rerun" on:click=move |_| run()>"Run again"</button>
                        })}</p> }.into_any(),
                    _ => ().into_any(),
                }}
                {summary}
                <super::network::NetworkPanel params=params dark=dark
                    summary=Signal::derive(move || shown.with(|s| s.as_ref().and_then(|s| s.result.network.clone()).map(|n| std::sync::Arc::new(*n))))
                    arrived=Signal::derive(move || shown.with(|s| s.as_ref().and_then(|s| s.picture.clone())))
                    ideal=ideal.into() />
                {move || params.with(|p| p.file).then(|| view! {
                    <p class="share-note" data-testid="share-note">"A link to this view holds the parameters, not the opened file (it stays in this browser): to share the schedule itself, export it as GOAL."</p>
                })}
                <div class="timeline-frame" node_ref=frame>
                    {move || shown.with(|s| match s {
                        Some(s) if s.timeline.is_some() => view! {
                            <div class="timeline-tools" role="group" aria-label="Timeline">
                                <button type="button" data-testid="zoom-in" on:click=move |_| zoom(0.5, None, true)>"Zoom in"</button>
                                <button type="button" data-testid="zoom-out" on:click=move |_| zoom(2.0, None, true)>"Zoom out"</button>
                                <button type="button" data-testid="zoom-reset" on:click=move |_| { live.set(None); params.update(|p| p.window = None); }>"Whole run"</button>
                                <button type="button" data-testid="ranks-up" on:click=move |_| scroll(-i64::from(ROWS))>"Ranks ▲"</button>
                                <button type="button" data-testid="ranks-down" on:click=move |_| scroll(i64::from(ROWS))>"Ranks ▼"</button>
                                <span class="timeline-range">{move || layout.get().map(|l| format!("ranks {}–{} of {}; {} – {}", l.first_rank, l.first_rank + l.ranks - 1, shown.with(|s| s.as_ref().map_or(0, |s| s.result.ranks)), l.unit.format(l.t0), l.unit.format(l.t1)))}</span>
                            </div>
                            <canvas node_ref=canvas class="timeline" data-testid="timeline" tabindex="0"
                                aria-label="Timeline: arrow keys move between operations, + and − zoom, 0 shows the whole run; the operation in focus is described below"
                                on:mousemove=on_move on:mousedown=on_down on:mouseup=on_up on:mouseleave=move |_| end_drag()
                                on:wheel=on_wheel on:keydown=on_key></canvas>
                            <p class="timeline-hover" data-testid="timeline-hover" aria-live="polite">{move || hover.get()}</p>
                            <p class="timeline-legend">"Bars: blue send overhead, green taking in a message, grey calc, orange NIC sending, yellow NIC receiving; lines: messages (send → arrival); red: the critical path. Drag to pan, wheel to zoom, shift + wheel to scroll ranks."</p>
                        }.into_any(),
                        Some(s) => view! {
                            <p data-testid="large-note">{format!("{} operations: above {TIMELINE_OPS}, the view shows the finish-time histogram and the critical path instead of every bar.", s.result.ops)}</p>
                            <div node_ref=histogram_box class="diagram" data-testid="finish-histogram" inner_html=move || histogram_svg().unwrap_or_default()></div>
                        }.into_any(),
                        None => ().into_any(),
                    })}
                </div>
                {critical_table}
                <div class="export-bar" role="group" aria-label="Export">
                    <span class="export-label">"Export"</span>
                    <button type="button" data-testid="export-goal" on:click=move |_| export(ScheduleExport::Goal)>"GOAL"</button>
                    <button type="button" data-testid="export-trace" on:click=move |_| export(ScheduleExport::ChromeTrace)>"Chrome trace"</button>
                    <button type="button" data-testid="export-csv" on:click=move |_| export(ScheduleExport::Csv)>"CSV"</button>
                    <button type="button" data-testid="export-json" on:click=move |_| export(ScheduleExport::Json)>"JSON"</button>
                    <button type="button" data-testid="export-svg" on:click=save_svg>"SVG"</button>
                    <button type="button" data-testid="export-png" on:click=save_png>"PNG"</button>
                    <span class="export-status" role="status" data-testid="export-status">{move || export_status.get()}</span>
                </div>
                {(!embed).then(|| view! { <p class="schedule-docs">"The model, the GOAL format and how the simulator follows LogGOPSim: docs/loggops.md in the repository."</p> })}
            </div>
        </section>
    }
}

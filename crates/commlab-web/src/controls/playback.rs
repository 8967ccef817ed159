//! The shared playback control of the animated views: play, pause, step
//! forward and back, jump to either end, speed, and a scrubber.

use leptos::prelude::*;
use std::time::Duration;

use crate::state::{DEFAULT_SPEED, SPEEDS};

/// Ticks per second at most: above this speed a tick moves several steps
/// (browsers run intervals no faster than every 4 ms, and a frame is 16 ms).
const TICKS: f64 = 30.0;

/// Playback of a run with `steps` steps; position `0` is the initial state.
#[component]
pub fn Playback(
    /// The current position, `0..=steps`.
    #[prop(into)]
    step: Signal<usize>,
    /// Number of steps of the run.
    #[prop(into)]
    steps: Signal<usize>,
    /// Receives every new position.
    on_step: Callback<usize>,
    /// Steps per second (one of [`SPEEDS`]); none: the control keeps its own.
    #[prop(optional, into)]
    speed: Option<Signal<f64>>,
    /// Receives the speed the user picks (with `speed`: to keep it in the link).
    #[prop(optional)]
    on_speed: Option<Callback<f64>>,
) -> impl IntoView {
    let playing = RwSignal::new(false);
    let kept_speed = RwSignal::new(DEFAULT_SPEED);
    let speed = speed.unwrap_or_else(|| kept_speed.into());
    let set_speed = move |v: f64| match on_speed {
        Some(f) => f.run(v),
        None => kept_speed.set(v),
    };
    let timer = StoredValue::new(None::<IntervalHandle>);
    let stop_timer = move || {
        if let Some(handle) = timer.try_update_value(Option::take).flatten() {
            handle.clear();
        }
    };
    // The interval advances the step; it is restarted when playing or speed changes.
    Effect::new(move |_| {
        stop_timer();
        if !playing.get() {
            return;
        }
        let rate = speed.get().max(SPEEDS[0]);
        let ticks = rate.min(TICKS);
        let period = Duration::from_secs_f64(1.0 / ticks);
        // Whole steps per tick; the fraction carried to the next tick.
        let carry = StoredValue::new(0.0_f64);
        let tick = move || {
            let (s, n) = (step.get_untracked(), steps.get_untracked());
            let due = carry.get_value() + rate / ticks;
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "at most 2 000 / 30 steps")]
            let moves = due.floor().max(1.0) as usize;
            carry.set_value((due - moves as f64).max(0.0));
            if s < n {
                on_step.run((s + moves).min(n));
            }
            if s + moves >= n {
                playing.set(false);
            }
        };
        if let Ok(handle) = set_interval_with_handle(tick, period) {
            timer.set_value(Some(handle));
        }
    });
    on_cleanup(stop_timer);

    let go = move |s: usize| {
        playing.set(false);
        on_step.run(s.min(steps.get_untracked()));
    };
    let toggle = move |_| {
        if !playing.get_untracked() && step.get_untracked() >= steps.get_untracked() {
            on_step.run(0);
        }
        playing.update(|p| *p = !*p);
    };
    view! {
        <div class="playback" role="group" aria-label="Playback">
            <button type="button" title="First step" data-testid="first" on:click=move |_| go(0)><span aria-hidden="true">"« "</span>"start"</button>
            <button type="button" title="Step back" data-testid="back" on:click=move |_| go(step.get_untracked().saturating_sub(1))><span aria-hidden="true">"‹ "</span>"back"</button>
            <button type="button" class="play" data-testid="play" on:click=toggle>
                <span aria-hidden="true">{move || if playing.get() { "❚❚ " } else { "▶ " }}</span>
                {move || if playing.get() { "pause" } else { "play" }}
            </button>
            <button type="button" title="Step forward" data-testid="forward" on:click=move |_| go(step.get_untracked() + 1)>"next"<span aria-hidden="true">" ›"</span></button>
            <button type="button" title="Last step" data-testid="last" on:click=move |_| go(steps.get_untracked())>"end"<span aria-hidden="true">" »"</span></button>
            <input
                type="range"
                class="scrubber"
                data-testid="scrubber"
                aria-label="Step"
                min="0"
                max=move || steps.get()
                step="1"
                prop:value=move || step.get()
                on:input=move |ev| {
                    if let Ok(s) = event_target_value(&ev).parse::<usize>() {
                        go(s);
                    }
                }
            />
            <span class="step-count" data-testid="step-count">{move || format!("step {} / {}", step.get(), steps.get())}</span>
            <label class="speed">
                "speed "
                <select
                    aria-label="Speed in steps per second"
                    on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                            set_speed(v);
                        }
                    }
                >
                    {SPEEDS
                        .iter()
                        .map(|&s| view! { <option value=s.to_string() selected=move || speed.get() == s>{format!("{s} steps/s")}</option> })
                        .collect_view()}
                </select>
            </label>
        </div>
    }
}

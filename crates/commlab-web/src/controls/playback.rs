//! The shared playback control of the animated views: play, pause, step
//! forward and back, jump to either end, speed, and a scrubber.

use leptos::prelude::*;
use std::time::Duration;

/// Steps per second offered by the speed menu.
const SPEEDS: [f64; 5] = [0.5, 1.0, 2.0, 4.0, 8.0];

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
) -> impl IntoView {
    let playing = RwSignal::new(false);
    let speed = RwSignal::new(2.0_f64);
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
        let period = Duration::from_secs_f64(1.0 / speed.get());
        let tick = move || {
            let (s, n) = (step.get_untracked(), steps.get_untracked());
            if s < n {
                on_step.run(s + 1);
            }
            if s + 1 >= n {
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
                            speed.set(v);
                        }
                    }
                >
                    {SPEEDS
                        .iter()
                        .map(|&s| view! { <option value=s.to_string() selected=move || speed.get() == s>{format!("{s}×/s")}</option> })
                        .collect_view()}
                </select>
            </label>
        </div>
    }
}

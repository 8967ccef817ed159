//! A labelled numeric input with a logarithmic slider, validated against the
//! core's range. Every parameter of the model spans decades, so the slider
//! position is `log10(value)` over a useful sub-range; the text box takes any
//! value of the full range (0 included).

use leptos::prelude::*;

/// The `(min, max)` of an integer range, for [`NumberField`]'s `range`.
pub fn int_range(r: commlab_core::limits::IntRange) -> (f64, f64) {
    (r.min as f64, r.max as f64)
}

/// The `(min, max)` of a real range, for [`NumberField`]'s `range`.
pub fn real_range(r: commlab_core::limits::RealRange) -> (f64, f64) {
    (r.min, r.max)
}

/// Slider resolution: positions across the whole range.
const SLIDER_STEPS: f64 = 400.0;

/// The value in `min..=max` nearest to the slider position.
fn from_position(position: f64, integer: bool, (min, max): (f64, f64)) -> f64 {
    let raw = 10f64.powf(position);
    let value = if integer { raw.round() } else { round_sig(raw, 3) };
    value.clamp(min, max)
}

/// Slider position of `value` on a slider spanning `(low, high)` (both > 0).
fn to_position(value: f64, (low, high): (f64, f64)) -> f64 {
    value.clamp(low, high).log10()
}

/// Rounds to `digits` significant digits, so slider values read like 0.00125, not 0.0012489.
fn round_sig(value: f64, digits: i32) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let scale = 10f64.powi(digits - 1 - value.abs().log10().floor() as i32);
    (value * scale).round() / scale
}

/// The value one slider step (`step`, in log10) up or down from `value`,
/// and never `value` itself while there is room in `range`: integers move
/// by at least 1.
fn step_value(value: f64, up: bool, integer: bool, range: (f64, f64), slider: (f64, f64), step: f64) -> f64 {
    let position = to_position(value.max(slider.0), slider) + if up { step } else { -step };
    let mut next = from_position(position, integer, range);
    if integer && up && next <= value {
        next = value + 1.0;
    } else if integer && !up && next >= value {
        next = value - 1.0;
    }
    next.clamp(range.0, range.1)
}

/// Parses typed text, or says why it is not accepted.
fn parse(text: &str, integer: bool, (min, max): (f64, f64)) -> Result<f64, String> {
    let kind = if integer { "an integer" } else { "a number" };
    let g = |x: f64| commlab_core::limits::group(&x.to_string());
    let expected = format!("expected {kind} from {} to {}", g(min), g(max));
    let value: f64 = text.trim().parse().map_err(|_| expected.clone())?;
    if !value.is_finite() || value < min || value > max || (integer && value.fract() != 0.0) {
        return Err(expected);
    }
    Ok(value)
}

/// A parameter input: label, number box for exact values and a slider for
/// exploring. Invalid text is flagged next to the box and not applied.
#[component]
pub fn NumberField(
    /// Element id; also the parameter's URL name.
    id: &'static str,
    /// Visible label (may contain math like `T_start`).
    label: &'static str,
    /// Unit shown after the box.
    #[prop(optional)]
    unit: &'static str,
    /// A unit that follows the view's state (replaces `unit`).
    #[prop(optional)]
    unit_of: Option<Signal<&'static str>>,
    /// The current value.
    #[prop(into)]
    value: Signal<f64>,
    /// Accepted range, inclusive (the core's limits).
    range: (f64, f64),
    /// The values at the slider's two ends (> 0), which the slider covers
    /// logarithmically: the whole `range` (from 1 when it starts at 0) unless
    /// a view narrows it to the useful part. Typed values may go beyond it.
    #[prop(optional)]
    slider: Option<(f64, f64)>,
    /// Whether only integers are accepted.
    #[prop(optional)]
    integer: bool,
    /// Receives every valid new value.
    on_change: Callback<f64>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    // What the user last typed: kept on screen while it still means the current
    // value, so typing "1." towards "1.5" is not rewritten to "1".
    let typed = RwSignal::new(None::<String>);
    let shown = move || {
        let current = value.get();
        match typed.get_untracked() {
            Some(text) if parse(&text, integer, range) == Ok(current) => text,
            _ => current.to_string(),
        }
    };
    let slider = slider.unwrap_or((range.0.max(1.0), range.1));
    assert!(0.0 < slider.0 && slider.0 < slider.1, "log slider bounds must be positive and ordered");
    let (low, high) = (slider.0.log10(), slider.1.log10());
    let step = (high - low) / SLIDER_STEPS;
    let slider_id = format!("{id}-slider");
    let error_id = format!("{id}-error");
    let on_text = move |ev| {
        let text = event_target_value(&ev);
        let parsed = parse(&text, integer, range);
        typed.set(Some(text));
        match parsed {
            Ok(v) => {
                error.set(None);
                on_change.run(v);
            }
            Err(msg) => error.set(Some(msg)),
        }
    };
    let on_slide = move |ev| {
        if let Ok(position) = event_target_value(&ev).parse::<f64>() {
            error.set(None);
            on_change.run(from_position(position, integer, range));
        }
    };
    // An arrow key moves one slider step, but at least to the next value:
    // a step of a log slider is less than one at small integers, and the
    // browser's own move rounded back to where it started.
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let up = match ev.key().as_str() {
            "ArrowRight" | "ArrowUp" => true,
            "ArrowLeft" | "ArrowDown" => false,
            _ => return,
        };
        ev.prevent_default();
        let current = value.get_untracked();
        error.set(None);
        on_change.run(step_value(current, up, integer, range, slider, step));
    };
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for=id>{label}</label>
            <div class="field-inputs">
                <input
                    id=id
                    name=id
                    type="text"
                    inputmode="decimal"
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=shown
                    aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                    aria-describedby=error_id.clone()
                    on:input=on_text
                />
                <span class="unit">{move || unit_of.map_or(unit, |u| u.get())}</span>
            </div>
            <input
                id=slider_id
                class="slider"
                type="range"
                min=low
                max=high
                step=step
                aria-label=format!("{label} (slider)")
                prop:value=move || to_position(value.get(), slider).to_string()
                on:input=on_slide
                on:keydown=on_key
            />
            <span id=error_id class="field-error" aria-live="polite">{move || error.get()}</span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_slider_round_trips_integers() {
        let range = (1.0, 1_048_576.0);
        for v in [1.0, 2.0, 64.0, 1000.0, 1_048_576.0] {
            let back = from_position(to_position(v, range), true, range);
            assert_eq!(back, v);
        }
    }

    #[test]
    fn values_beyond_the_slider_pin_to_its_ends() {
        assert_eq!(to_position(0.0, (0.01, 1e5)), -2.0);
        assert_eq!(to_position(1e9, (0.01, 1e5)), 5.0);
    }

    #[test]
    fn typed_text_is_checked() {
        assert_eq!(parse(" 64 ", true, (1.0, 100.0)), Ok(64.0));
        assert!(parse("6.5", true, (1.0, 100.0)).is_err());
        assert!(parse("abc", false, (0.0, 1.0)).unwrap_err().contains("0 to 1"));
        assert!(parse("NaN", false, (0.0, 1.0)).is_err());
        assert_eq!(parse("1e-3", false, (0.0, 1.0)), Ok(0.001));
    }

    #[test]
    fn an_arrow_key_moves_an_integer_by_at_least_one() {
        // p from 1 to 1024 over 400 steps: a step is ×1.017, so 16 → 16.3 → 16 before.
        let (range, slider) = ((1.0, 1024.0), (1.0, 1024.0));
        let step = (1024f64.log10() - 0.0) / SLIDER_STEPS;
        assert_eq!(step_value(16.0, true, true, range, slider, step), 17.0);
        assert_eq!(step_value(16.0, false, true, range, slider, step), 15.0);
        assert_eq!(step_value(8.0, true, true, range, slider, step), 9.0);
        // At the ends it stays in range.
        assert_eq!(step_value(1024.0, true, true, range, slider, step), 1024.0);
        assert_eq!(step_value(1.0, false, true, range, slider, step), 1.0);
        // Large values move by the slider's step (more than one).
        assert!(step_value(900.0, true, true, range, slider, step) > 910.0);
        // Reals move by a step of the slider, rounded to 3 digits.
        let r = step_value(1.25, true, false, (0.0, 1e6), (0.01, 1e5), 7.0 / SLIDER_STEPS);
        assert!(r > 1.25 && r <= 1.31, "{r}");
    }
}

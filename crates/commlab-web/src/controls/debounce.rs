//! Work that waits for a pause: a slider dragged, a window panned, a result
//! arriving. Each call supersedes the ones still waiting, so only the last
//! runs (a generation counter: a waiting call runs only if no later one came).

use leptos::prelude::*;
use std::time::Duration;

/// The waiting call's generation.
#[derive(Clone, Copy)]
pub struct Debounce(StoredValue<u64>);

impl Debounce {
    /// Nothing waiting.
    pub fn new() -> Debounce {
        Debounce(StoredValue::new(0))
    }

    /// Drops whatever waits (it will not run).
    pub fn cancel(self) {
        // Nothing to do once its view is gone.
        let _ = self.0.try_update_value(|g| *g += 1);
    }

    /// Runs `f` after `pause`, unless [`Debounce::after`] or
    /// [`Debounce::cancel`] is called again before.
    pub fn after(self, pause: Duration, f: impl FnOnce() + 'static) {
        self.cancel();
        let Some(generation) = self.0.try_get_value() else { return };
        set_timeout(
            move || {
                // A view left before the pause ends takes its waiting work
                // with it (its signals are gone: `f` must not run).
                if self.0.try_get_value() == Some(generation) {
                    f();
                }
            },
            pause,
        );
    }
}

impl Default for Debounce {
    fn default() -> Debounce {
        Debounce::new()
    }
}

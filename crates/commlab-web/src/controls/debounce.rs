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
        self.0.update_value(|g| *g += 1);
    }

    /// Runs `f` after `pause`, unless [`Debounce::after`] or
    /// [`Debounce::cancel`] is called again before.
    pub fn after(self, pause: Duration, f: impl FnOnce() + 'static) {
        self.cancel();
        let generation = self.0.get_value();
        set_timeout(
            move || {
                if self.0.get_value() == generation {
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

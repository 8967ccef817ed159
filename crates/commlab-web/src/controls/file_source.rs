//! A view's input file: opened with a file input, dropped, or pasted, and
//! kept in this browser's storage ([`super::store`], never uploaded) until
//! the user forgets it. The Schedule view (GOAL files) and the Chooser's fit
//! (benchmark outputs) read their files through it, so both open, drop, keep,
//! restore and forget alike and say so in the same words.

use super::store;
use leptos::prelude::*;
use std::rc::Rc;

/// The kept copy of one view's file, and what the storage did last.
#[derive(Clone, Copy)]
pub struct KeptFile {
    key: &'static str,
    /// What the storage did last, in words (empty: nothing yet).
    pub note: RwSignal<String>,
}

impl KeptFile {
    /// The file kept under `key` (one of [`store`]'s keys).
    pub fn new(key: &'static str) -> KeptFile {
        KeptFile { key, note: RwSignal::new(String::new()) }
    }

    /// Brings back the kept file: `found(name, text)` when there is one, else
    /// `missing(None)` (none kept) or `missing(Some(why))` (storage failed).
    pub fn restore(self, found: impl FnOnce(String, String) + 'static, missing: impl FnOnce(Option<String>) + 'static) {
        leptos::task::spawn_local(async move {
            match store::load(self.key).await {
                Ok(Some((name, text))) => {
                    let size = commlab_plot::format_bytes(text.len() as u64);
                    self.note.set(format!("Restored {name} ({size}) from this browser's storage (never uploaded)."));
                    found(name, text);
                }
                Ok(None) => missing(None),
                Err(e) => missing(Some(e)),
            }
        });
    }

    /// Keeps `text` as `name`, replacing what was kept; the note says whether
    /// it could once the storage answers (until then it stays as it was: a
    /// note emptied at once would move the Forget button under the pointer).
    pub fn keep(self, name: String, text: Rc<String>) {
        leptos::task::spawn_local(async move {
            self.note.set(match store::save(self.key, &name, &text).await {
                Ok(()) => format!("{name} is kept in this browser's storage (never uploaded) until you forget it."),
                Err(e) => format!("{name} could not be kept in this browser's storage ({e}): a reload will lose it."),
            });
        });
    }

    /// Forgets the kept file, then runs `then` (the view drops its copy).
    pub fn forget(self, then: impl FnOnce() + 'static) {
        leptos::task::spawn_local(async move {
            self.note.set(match store::forget(self.key).await {
                Ok(()) => "Forgotten: nothing of the file is kept in this browser.".to_owned(),
                Err(e) => format!("Could not forget the file: {e}"),
            });
            then();
        });
    }
}

/// Reads `file` as text (gzip unpacked): `done(name, text or why not)`.
pub fn read(file: web_sys::File, done: impl FnOnce(String, Result<String, String>) + 'static) {
    let name = file.name();
    leptos::task::spawn_local(async move {
        let text = store::read_text(&file).await;
        done(name, text);
    });
}

/// A file input's `change`: reads its first file with `open`, then empties
/// the input (so opening the same file again is a change too).
pub fn on_pick(open: impl Fn(web_sys::File) + Copy + 'static) -> impl Fn(web_sys::Event) + Copy + 'static {
    move |ev| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        if let Some(f) = input.files().and_then(|l| l.get(0)) {
            open(f);
        }
        input.set_value("");
    }
}

/// A drop on the view: its first file goes to `open` (the browser does not
/// open it in the tab, and an outer drop zone does not see it again).
pub fn on_drop(open: impl Fn(web_sys::File) + Copy + 'static) -> impl Fn(web_sys::DragEvent) + Copy + 'static {
    move |ev| {
        ev.prevent_default();
        ev.stop_propagation();
        if let Some(f) = ev.data_transfer().and_then(|d| d.files()).and_then(|l| l.get(0)) {
            open(f);
        }
    }
}

//! `commlab-web`: the commlab playground, a Leptos client-side app, in three
//! wasm bundles built from this crate by Trunk:
//!
//! - the **UI** (`main.rs`): the shell and the first-paint views;
//! - the **engine** (`worker.rs`): every heavy computation, in a Web Worker;
//! - the **lazy views** (`views.rs`): views loaded only when opened (the
//!   barrier lab, the Schedule timeline, the collective chooser), so the
//!   first paint does not carry them.
//!
//! The app state is one [`state::Params`] value, serialised to the URL by
//! [`share`]; [`browser`] is the only module touching `web_sys` for the
//! shell; each view and control lives in its own file under [`components`].

pub mod app;
pub mod browser;
pub mod chooser;
pub mod components;
pub mod engine;
pub mod lazy;
pub mod paint;
pub mod schedule;
pub mod share;
pub mod state;

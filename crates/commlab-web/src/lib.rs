//! `commlab-web`: the commlab playground, a Leptos client-side app, in four
//! wasm bundles built from this crate by Trunk:
//!
//! - the **UI** (`main.rs`): the shell and the views on the page;
//! - the **engine** (`worker.rs`): every heavy computation, in a Web Worker;
//! - two **lazy** bundles of views loaded only when opened, so the first
//!   paint does not carry them: `views` (`lazy_main.rs`: the collective
//!   chooser) and `timeline` (`timeline_main.rs`: the Schedule view, the
//!   swizzle and the barrier lab).
//!
//! The app state is one [`state::Params`] value, serialised to the URL by
//! [`state::to_query`] with the generic [`codec`]; [`browser`] is the only
//! module touching `web_sys` for the shell. Each view is a folder under
//! [`views`] (its state and URL fields in `params.rs`, its components in
//! `view.rs`); the controls they share are in [`controls`], the links from
//! one view to another in [`links`], the lazy bundles' loader in [`lazy`],
//! the engine workers' clients in [`engine`].

pub mod app;
pub mod browser;
pub mod codec;
pub mod controls;
pub mod engine;
pub mod lazy;
pub mod links;
pub mod net_fields;
pub mod paint;
pub mod state;
pub mod views;

//! `commlab-web`: the commlab playground, a Leptos client-side app.
//!
//! `main` only installs the panic banner and mounts [`app::App`]. The app
//! state is one [`state::Params`] value, serialised to the URL by
//! [`share`]; [`browser`] is the only module touching `web_sys`; each view and
//! control lives in its own file under [`components`].

mod app;
#[cfg(feature = "bench")]
mod bench;
mod browser;
mod components;
mod engine;
mod share;
mod state;

fn main() {
    browser::install_panic_hook();
    browser::remember_query();
    leptos::mount::mount_to_body(app::App);
}

//! `commlab-web`: the UI bundle. `main` only installs the panic banner and
//! mounts [`commlab_web::app::App`] (see the library's docs). The JavaScript
//! exports of the browser suite live here, in the UI bundle only (an export
//! in the library would be kept alive in every bundle that links it).
#![allow(missing_docs, reason = "wasm_bindgen exports")]

#[cfg(feature = "bench")]
mod bench;

use wasm_bindgen::prelude::*;

fn main() {
    commlab_web::browser::install_panic_hook();
    commlab_web::browser::remember_query();
    leptos::mount::mount_to_body(commlab_web::app::App);
}

/// Panics on purpose, so the browser suite can check that a panic shows the
/// banner. Exported to JavaScript as `wasmBindings.commlab_selftest_panic()`.
///
/// # Panics
/// Always, by design.
#[wasm_bindgen]
pub fn commlab_selftest_panic() {
    panic!("self-test panic requested from JavaScript");
}

/// Asks a fresh engine worker to panic (the browser suite checks the banner).
#[wasm_bindgen]
pub fn commlab_selftest_worker_panic() {
    commlab_web::engine::selftest_worker_panic();
}

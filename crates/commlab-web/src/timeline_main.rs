//! `timeline`: the lazy bundle of the Schedule view (timeline, network
//! picture), the swizzle view and the barrier lab, in its own wasm so
//! neither it nor the `views` bundle (the Chooser) outgrows its budget. Loaded and mounted like `views` (`lazy_main.rs`).
#![allow(missing_docs, reason = "wasm_bindgen exports")]

include!("lazy_bin.rs");

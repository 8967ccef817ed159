//! `views`: a lazy bundle (the collective chooser). The UI
//! bundle loads it (`views-loader.js`) only when one of its views is
//! opened, and calls `mount_view`; see `commlab_web::lazy` for the
//! page's side. A view is mounted with its pairs as the shell kept them
//! (`LazyArgs`) and reads them with the one codec.
#![allow(missing_docs, reason = "wasm_bindgen exports")]

include!("lazy_bin.rs");

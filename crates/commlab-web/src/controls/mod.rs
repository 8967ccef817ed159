//! The controls every view shares, one per file.

pub mod chart;
pub mod debounce;
pub mod export_bar;
pub mod file_source;
pub mod header;
pub mod network;
pub mod notices;
pub mod number_field;
pub mod playback;
pub mod run_progress;
pub mod select_field;
pub mod share_bar;
pub mod stack;
pub mod store;
pub mod system;
pub mod welcome;

//! One view or control per file.

pub mod chart;
pub mod export_bar;
pub mod header;
pub mod lab_view;
pub mod mesh_view;
pub mod model_view;
pub mod notices;
pub mod number_field;
pub mod pipeline_view;
pub mod playback;
pub mod run_progress;
pub mod select_field;
pub mod share_bar;
pub mod swizzle_view;
pub mod tree_view;
pub mod welcome;

//! One view or control per file.

pub mod chart;
pub mod header;
pub mod model_view;
pub mod notices;
pub mod number_field;
pub mod share_bar;

//! The Chooser view (lazy bundle): the algorithms of a collective compared
//! under the α–β–γ model and LogGOPS, in the engine worker
//! (`commlab_api::chooser`, served through the schedule protocol).
//!
//! - [`params`]: the view's URL parameters (read, checked, written);
//! - [`view`]: the component.

pub mod params;
pub mod view;

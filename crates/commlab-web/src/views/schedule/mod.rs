//! The Schedule view (lazy bundle): a GOAL schedule, generated or opened,
//! simulated under LogGOPS in the engine worker and drawn as a timeline.
//!
//! - [`params`]: the view's URL parameters (read, checked, written);
//! - [`system`]: the system select (a preset node type sets the network);
//! - [`view`]: the component.

pub mod network;
pub mod params;
pub mod system;
pub mod view;

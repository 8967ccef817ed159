//! The Schedule view (lazy bundle): a GOAL schedule, generated or opened,
//! simulated under LogGOPS in the engine worker and drawn as a timeline.
//!
//! - [`params`]: the view's URL parameters (read, checked, written);
//! - [`view`]: the component, made of
//!   - [`source`]: a generated collective's fields, or a file opened, dropped or pasted;
//!   - [`loggops`]: the LogGOPS parameters;
//!   - [`system`]: the system select (a preset node type sets the network);
//!   - [`run`]: the run in the engine worker;
//!   - [`network`]: a network run's results;
//!   - [`timeline`]: the timeline (or histogram) with zoom, pan and focus;
//!   - [`results`]: progress, summary, critical path, exports.

pub mod loggops;
pub mod network;
pub mod params;
pub mod results;
pub mod run;
pub mod source;
pub mod system;
pub mod timeline;
pub mod view;

//! The swizzle view: CommSwizzle's per-core, per-step schedule.
//!
//! - [`params`]: the view's state, URL fields and engine request;
//! - [`view`]: the component (a lazy view, in the `views` bundle).

pub mod params;
pub mod view;

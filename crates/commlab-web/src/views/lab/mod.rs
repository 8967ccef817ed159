//! The barrier lab (lazy bundle): the paper's barrier experiments on a pool
//! of engine workers, their charts and the paper's claims.
//!
//! - [`params`]: the view's state and URL fields;
//! - [`view`]: the component.

pub mod params;
pub mod view;

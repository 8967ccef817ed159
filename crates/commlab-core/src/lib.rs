//! `commlab-core`: the pure, deterministic engine of commlab.
//!
//! Everything a commlab view shows is computed here, natively testable and
//! free of web, IO and clock dependencies. Entry points:
//!
//! - [`model`]: the BSP runtime model of the pipelined reduction,
//!   `T(n,p,m) = (T_start + n/m·T_byte)(p+m−2)`, its optimal piece count `m*`,
//!   the best integer piece count and the binomial-tree reference time
//!   (`docs/reduce-model.md`). Build a [`model::ModelConfig`] with
//!   [`model::ModelConfig::new`], which bounds every input; after that nothing
//!   can fail.
//! - [`limits`]: the accepted range of every user-facing parameter, shared by
//!   the validating constructors, the CLI and the web URL codec so that all
//!   three report the same range.

pub mod barrier;
pub mod choose;
pub mod fit;
pub mod goal;
pub mod libraries;
pub mod limits;
pub mod model;
pub mod net;
pub mod reduce;
pub mod runlog;
pub mod swizzle;
pub mod systems;

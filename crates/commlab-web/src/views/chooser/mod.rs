//! The Chooser view (lazy bundle): the algorithms of a collective compared
//! under the α–β–γ model and LogGOPS, in the engine worker
//! (`commlab_api::chooser`, served through the schedule protocol).
//!
//! - [`params`]: the view's URL parameters (read, checked, written);
//! - [`view`]: the component;
//! - [`libraries`]: what MPICH, Open MPI and NCCL run, and the tuner files;
//! - [`fit`]: α and β fitted to a benchmark's output;
//! - [`system`], [`expected`]: a preset system and the curve it should reach;
//! - [`sysfit`]: that system fitted to a measured nccl-tests run.

pub mod asks;
pub mod chart;
pub mod controls;
pub mod ctx;
pub mod expected;
pub mod explain;
pub mod fit;
pub mod libraries;
pub mod map;
pub mod params;
pub mod sysfit;
pub mod system;
pub mod view;

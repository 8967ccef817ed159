//! commlab integration tests: one binary, one module per area.

mod barrier;
mod choose;
mod corpus;
mod fit;
mod goal;
mod imports;
mod libraries;
mod model;
mod network;
mod nvls;
mod plot;
mod reduce;
mod simgrid;
mod swizzle;

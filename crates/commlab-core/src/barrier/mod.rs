//! Barriers on a mesh with broken links (`../shared/spec/barrier.md`).
//!
//! [`mesh`]: the mesh, seeded breaks and routing; [`encoding`]: the node
//! encodings and the LCT/BST structures; [`uq`]: the update-quantity
//! experiment.

pub mod encoding;
pub mod mesh;
pub mod uq;

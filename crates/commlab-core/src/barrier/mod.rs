//! Barriers on a mesh with broken links (`docs/barrier-model.md`).
//!
//! [`mesh`]: the mesh, seeded breaks and routing; [`encoding`]: the node
//! encodings and the LCT/BST structures; [`algorithm`]: the fifteen barrier
//! algorithms as layers of groups; [`engine`]: the discrete-event simulator
//! with the DLCT protocol and judges (and its own quick checks); [`checker`]: the
//! independent checker of a recorded run's trace; [`uq`]: the
//! update-quantity experiment; [`experiment`]: grids of runs; [`replay`]: a
//! recorded run as frames to watch.

pub mod algorithm;
pub mod checker;
pub mod encoding;
pub mod engine;
pub mod experiment;
pub mod mesh;
pub mod replay;
pub mod uq;

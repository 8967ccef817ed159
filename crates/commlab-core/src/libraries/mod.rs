//! What the libraries run by default (`docs/libraries.md`): MPICH's JSON
//! selection tree, Open MPI `coll/tuned`'s fixed decision rules and NCCL's
//! cost model, each transcribed with its version and evaluated for one
//! (collective, p, size); and the tuner files a winner map exports to, with
//! a reader for each.
//!
//! Every rule reads the message in the library's own terms (element counts
//! of `dtype_size` bytes, per-rank blocks for allgather and all-to-all);
//! [`Query`] turns the Chooser's `n` into them.

pub mod mpich;
pub mod nccl;
pub mod nccl_env;
pub mod ompi;
pub mod tuner;

use crate::choose::Collective;

/// One question to a library: which algorithm for this collective, on `p`
/// ranks, with the Chooser's `bytes` (`n`: the vector; the gathered size for
/// allgather; all a rank sends for all-to-all) in elements of `dtype_size`
/// bytes. The operation is a commutative built-in one (`MPI_SUM`), the
/// communicator an intra-communicator, the buffers not in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query {
    /// The collective.
    pub collective: Collective,
    /// Ranks (≥ 1).
    pub p: u32,
    /// The Chooser's `n` in bytes.
    pub bytes: u64,
    /// Bytes per element (≥ 1).
    pub dtype_size: u32,
}

impl Query {
    /// Elements of the whole vector (`n / dtype_size`, rounded down).
    pub fn count(&self) -> u64 {
        self.bytes / u64::from(self.dtype_size.max(1))
    }

    /// Elements of one rank's block for allgather and all-to-all (the
    /// `recvcount` / `sendcount` an MPI call passes): `n / (p·dtype_size)`.
    pub fn block_count(&self) -> u64 {
        self.count() / u64::from(self.p.max(1))
    }

    /// The count the MPI call passes for this collective: the block for
    /// allgather and all-to-all, the whole vector otherwise (reduce-scatter:
    /// the sum of the `recvcounts`).
    pub fn call_count(&self) -> u64 {
        match self.collective {
            Collective::Allgather | Collective::AllToAll => self.block_count(),
            _ => self.count(),
        }
    }
}

/// Largest power of two ≤ `p` (MPICH's `MPL_pof2`; 0 for 0).
pub(crate) fn pof2(p: u32) -> u32 {
    if p == 0 {
        0
    } else {
        1 << p.ilog2()
    }
}

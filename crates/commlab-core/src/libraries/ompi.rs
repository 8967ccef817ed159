//! Open MPI's `coll/tuned` fixed decision rules (`docs/libraries.md`):
//! `ompi/mca/coll/tuned/coll_tuned_decision_fixed.c` of Open MPI 5.0.10,
//! the rules that run when no dynamic rules file is given. Each collective's
//! rule is a chain of communicator-size bands (`communicator_size < N`, or
//! `== 2`), each a chain of message-size steps (`total_dsize < S`), ending
//! in an algorithm number; the tables below transcribe them in file order,
//! the commutative branch (our ⊕ is commutative).
//!
//! Every rule passes segment size 0, so the pipelined algorithms (chain,
//! pipeline, segmented ring) run unsegmented: one piece.
//!
//! `total_dsize` is the datatype size times the call's count: the vector
//! for bcast, reduce and allreduce, the sum of the receive counts for
//! `reduce_scatter`, one rank's block for allgather and alltoall.

#![allow(clippy::match_same_arms, reason = "one arm per library algorithm, as the sources list them")]
#![allow(clippy::unreadable_literal, reason = "the thresholds are written as the source writes them")]

use super::Query;
use crate::choose::Collective;

/// Open MPI's release the rules are transcribed from.
pub const VERSION: &str = "Open MPI 5.0.10";

/// One communicator-size band: it applies when `p < comm` (or `p == comm`
/// when `equal`); then the first step with `total_dsize < size` gives the
/// algorithm, else `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    /// The band tests `p == comm` rather than `p < comm`.
    pub equal: bool,
    /// The bound on the communicator size (`u32::MAX`: the final `else`).
    pub comm: u32,
    /// `(size bound, algorithm)` in order.
    pub steps: &'static [(u64, u8)],
    /// The algorithm past every step.
    pub last: u8,
}

const fn band(equal: bool, comm: u32, steps: &'static [(u64, u8)], last: u8) -> Band {
    Band { equal, comm, steps, last }
}

/// The rule of `collective`.
pub fn rule(collective: Collective) -> &'static [Band] {
    match collective {
        Collective::Allreduce => ALLREDUCE,
        Collective::Broadcast => BCAST,
        Collective::Reduce => REDUCE,
        Collective::Allgather => ALLGATHER,
        Collective::AllToAll => ALLTOALL,
        Collective::ReduceScatter => REDUCE_SCATTER,
    }
}

/// `total_dsize` of the call.
pub fn total_dsize(q: &Query) -> u64 {
    q.call_count() * u64::from(q.dtype_size.max(1))
}

/// The algorithm number the fixed rules pick for `q`.
pub fn decide(q: &Query) -> u8 {
    let size = total_dsize(q);
    let band = rule(q.collective)
        .iter()
        .find(|b| if b.equal { q.p == b.comm } else { q.p < b.comm })
        .copied()
        .unwrap_or(band(false, u32::MAX, &[], 0));
    band.steps.iter().find(|(s, _)| size < *s).map_or(band.last, |(_, a)| *a)
}

/// The algorithm names of `collective`, by number (index 0 is number 1),
/// as the decision file's comments and `coll_tuned_<coll>_algorithm` list them.
pub fn names(collective: Collective) -> &'static [&'static str] {
    match collective {
        Collective::Allreduce => {
            &["basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"]
        }
        Collective::Broadcast => &[
            "basic_linear",
            "chain",
            "pipeline",
            "split_binary_tree",
            "binary_tree",
            "binomial",
            "knomial",
            "scatter_allgather",
            "scatter_allgather_ring",
        ],
        Collective::Reduce => &["linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"],
        Collective::Allgather => &["linear", "bruck", "recursive_doubling", "ring", "neighbor", "two_proc"],
        Collective::AllToAll => &["linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"],
        Collective::ReduceScatter => &["non-overlapping", "recursive_halving", "ring", "butterfly"],
    }
}

/// The name of algorithm `id` of `collective` ("" for an unknown number).
pub fn name(collective: Collective, id: u8) -> &'static str {
    names(collective).get(usize::from(id).wrapping_sub(1)).copied().unwrap_or("")
}

/// Ours for Open MPI's algorithm `id`, or `None` where we have none.
/// Unsegmented chain and pipeline are our chain at one piece.
pub fn ours(collective: Collective, id: u8) -> Option<&'static str> {
    Some(match (collective, id) {
        (Collective::Allreduce, 2) => "reduce-broadcast",
        (Collective::Allreduce, 3) => "recursive-doubling",
        (Collective::Allreduce, 4 | 5) => "ring",
        (Collective::Allreduce, 6) => "rabenseifner",
        (Collective::Broadcast | Collective::Reduce, 1) => "linear",
        (Collective::Broadcast | Collective::Reduce, 2 | 3) => "chain",
        (Collective::Broadcast, 5) => "binary-tree",
        (Collective::Broadcast, 6) | (Collective::Reduce, 5) => "binomial",
        (Collective::Broadcast, 9) => "scatter-allgather",
        (Collective::Reduce, 7) => "reduce-scatter-gather",
        (Collective::Allgather, 2) | (Collective::AllToAll, 3) => "bruck",
        (Collective::Allgather, 3) => "recursive-doubling",
        (Collective::Allgather, 4) | (Collective::ReduceScatter, 3) => "ring",
        (Collective::AllToAll, 1 | 4) => "linear",
        (Collective::AllToAll, 2 | 5) => "pairwise",
        (Collective::ReduceScatter, 2) => "recursive-halving",
        _ => return None,
    })
}

/// Open MPI's algorithm number for ours (the tuner export), or `None`.
pub fn id_of(collective: Collective, ours_id: &str) -> Option<u8> {
    // The first number mapping to it: 4 (ring) before 5 (segmented ring),
    // 1 (linear) before 4 (linear_sync), 2 (chain) before 3 (pipeline).
    (1..=u8::try_from(names(collective).len()).unwrap_or(0)).find(|&id| ours(collective, id) == Some(ours_id))
}

/// What Open MPI's algorithm actually runs where the number alone would
/// mislead: the fallbacks inside `coll/base` for this `p` and count.
pub fn note(q: &Query, id: u8) -> Option<String> {
    let pow2 = q.p.is_power_of_two();
    let count = q.call_count();
    let half = u64::from(super::pof2(q.p));
    match (q.collective, id) {
        (Collective::Allgather, 3) if !pow2 => Some("recursive doubling needs a power of two: it runs bruck".into()),
        (Collective::Allgather, 5) if q.p % 2 == 1 => Some("neighbor exchange needs an even p: it runs ring".into()),
        (Collective::Allreduce, 6) | (Collective::Reduce, 7) if count < half => {
            Some(format!("rabenseifner needs a count of at least {half}: it runs basic linear"))
        }
        (Collective::Allreduce, 5) | (Collective::Broadcast | Collective::Reduce, 2 | 3) => {
            Some("segment size 0: one piece".into())
        }
        _ => None,
    }
}

// Transcribed from coll_tuned_decision_fixed.c of Open MPI 5.0.10:
// allreduce lines 55–218 (the `else` of `!ompi_op_is_commute`),
// bcast 512–652, reduce 662–815 (commutative branch), allgather 1093–1229,
// alltoall 228–411, reduce_scatter 824–962 (commutative branch).

/// `allreduce`, commutative operations.
pub const ALLREDUCE: &[Band] = &[
    band(false, 4, &[(8, 4), (4096, 3), (8192, 4), (16384, 3), (65536, 4), (262144, 5)], 6),
    band(false, 8, &[(16, 4), (8192, 3)], 6),
    band(false, 16, &[(8192, 3)], 6),
    band(false, 32, &[(64, 5), (4096, 3)], 6),
    band(false, 64, &[(128, 5)], 6),
    band(false, 128, &[(262144, 3)], 6),
    band(false, 256, &[(131072, 2), (262144, 3)], 6),
    band(false, 512, &[(4096, 2)], 6),
    band(false, 2048, &[(2048, 2), (16384, 3)], 6),
    band(false, 4096, &[(2048, 2), (4096, 5), (16384, 3)], 6),
    band(false, u32::MAX, &[(2048, 2), (16384, 5), (32768, 3)], 6),
];

/// `bcast`, commutative operations.
pub const BCAST: &[Band] = &[
    band(
        false,
        4,
        &[(32, 3), (256, 5), (512, 3), (1024, 7), (32768, 1), (131072, 5), (262144, 2), (524288, 1), (1048576, 6)],
        5,
    ),
    band(false, 8, &[(64, 5), (128, 6), (2048, 5), (8192, 6), (1048576, 1)], 2),
    band(false, 16, &[(8, 7), (64, 5), (4096, 7), (16384, 5), (32768, 6)], 1),
    band(false, 32, &[(4096, 7), (1048576, 6)], 8),
    band(false, 64, &[(2048, 6)], 7),
    band(false, 128, &[], 7),
    band(false, 256, &[(2, 6), (16384, 5), (32768, 1), (65536, 5)], 7),
    band(false, 1024, &[(16384, 7), (32768, 4)], 7),
    band(false, 2048, &[(524288, 7)], 8),
    band(false, 4096, &[(262144, 7)], 8),
    band(false, u32::MAX, &[(8192, 7), (16384, 5), (262144, 7)], 8),
];

/// `reduce`, commutative operations.
pub const REDUCE: &[Band] = &[
    band(false, 4, &[(8, 7), (16, 4), (32, 3), (262144, 1), (524288, 3), (1048576, 2)], 3),
    band(false, 8, &[(4096, 4), (65536, 2), (262144, 5), (524288, 1), (1048576, 5)], 1),
    band(false, 16, &[(8192, 4)], 5),
    band(false, 32, &[(4096, 4)], 5),
    band(false, 256, &[], 5),
    band(false, 512, &[(8192, 5), (16384, 6)], 5),
    band(false, 2048, &[], 5),
    band(false, 4096, &[(512, 5), (1024, 6), (8192, 5), (16384, 6)], 5),
    band(false, u32::MAX, &[(16, 5), (32, 6), (1024, 5), (2048, 6), (8192, 5), (16384, 6)], 5),
];

/// `allgather`, commutative operations.
pub const ALLGATHER: &[Band] = &[
    band(true, 2, &[], 6),
    band(false, 32, &[], 3),
    band(false, 64, &[(1024, 3), (65536, 5)], 4),
    band(false, 128, &[(512, 3), (65536, 5)], 4),
    band(false, 256, &[(512, 3), (131072, 5), (524288, 4), (1048576, 5)], 4),
    band(false, 512, &[(32, 3), (128, 2), (1024, 3), (131072, 5), (524288, 4), (1048576, 5)], 4),
    band(false, 1024, &[(64, 3), (256, 2), (2048, 3)], 5),
    band(false, 2048, &[(4, 3), (8, 2), (16, 3), (32, 2), (256, 3), (512, 2), (4096, 3)], 5),
    band(false, 4096, &[(32, 2), (128, 3), (512, 2), (4096, 3)], 5),
    band(false, u32::MAX, &[(2, 3), (8, 2), (16, 3), (512, 2), (4096, 3)], 5),
];

/// `alltoall`, commutative operations.
pub const ALLTOALL: &[Band] = &[
    band(true, 2, &[(2, 2), (4, 5), (16, 2), (64, 5), (256, 2), (4096, 5), (32768, 2), (262144, 4), (1048576, 5)], 2),
    band(false, 8, &[(8192, 4), (16384, 1), (65536, 4), (524288, 1), (1048576, 2)], 1),
    band(false, 16, &[(262144, 4)], 1),
    band(false, 32, &[(4, 4), (512, 3), (8192, 4), (32768, 1), (262144, 4), (524288, 1)], 4),
    band(false, 64, &[(512, 3), (524288, 1)], 4),
    band(false, 128, &[(1024, 3), (2048, 1), (4096, 4), (262144, 1)], 2),
    band(false, 256, &[(1024, 3), (2048, 4), (262144, 1)], 2),
    band(false, 512, &[(1024, 3), (8192, 4), (32768, 1)], 2),
    band(false, 1024, &[(512, 3), (8192, 4), (16384, 1), (131072, 4), (262144, 1)], 2),
    band(false, 2048, &[(512, 3), (1024, 4), (2048, 1), (16384, 4), (262144, 1)], 4),
    band(false, 4096, &[(1024, 3), (4096, 4), (8192, 1), (131072, 4)], 1),
    band(false, u32::MAX, &[(2048, 3), (8192, 4), (16384, 1), (32768, 4), (65536, 1)], 4),
];

/// `reduce_scatter`, commutative operations.
pub const REDUCE_SCATTER: &[Band] = &[
    band(false, 4, &[(65536, 3), (131072, 4)], 3),
    band(false, 8, &[(8, 1), (262144, 2)], 3),
    band(false, 32, &[(262144, 2)], 3),
    band(false, 64, &[(64, 1), (2048, 2), (524288, 4)], 3),
    band(false, 128, &[(256, 1), (512, 2), (2048, 4), (4096, 2)], 4),
    band(false, 256, &[(256, 1), (512, 2)], 4),
    band(false, 512, &[(256, 1), (1024, 2)], 4),
    band(false, 1024, &[(512, 1), (2048, 2), (8192, 4), (16384, 2)], 4),
    band(false, 2048, &[(512, 1), (4096, 2), (16384, 4), (32768, 2)], 4),
    band(false, 4096, &[(512, 1), (4096, 2)], 4),
    band(false, u32::MAX, &[(1024, 1), (8192, 2)], 4),
];

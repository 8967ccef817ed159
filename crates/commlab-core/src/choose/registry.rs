//! The chooser's algorithm registry: every algorithm's stable id (URLs, the
//! CLI), its collective, whether it is pipelined, and its formula in words.

use super::plan::Collective;

/// An algorithm: its id and the collective it performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Algorithm {
    /// Stable id.
    pub id: &'static str,
    /// The collective.
    pub collective: Collective,
    /// It cuts the vector into `pieces` pieces (the chunk optimizer's knob).
    pub pipelined: bool,
    /// How it spends its time, in words: the α–β–γ closed form where the
    /// textbooks give one (`n` bytes, `p` ranks, `m` pieces).
    pub formula: &'static str,
}

const fn alg(id: &'static str, collective: Collective, pipelined: bool, formula: &'static str) -> Algorithm {
    Algorithm { id, collective, pipelined, formula }
}

/// Every algorithm, by collective.
pub const ALGORITHMS: [Algorithm; 29] = [
    alg(
        "binomial",
        Collective::Broadcast,
        false,
        "⌈log₂p⌉ rounds, each forwarding the whole vector: ⌈log₂p⌉(α + nβ).",
    ),
    alg(
        "binary-tree",
        Collective::Broadcast,
        false,
        "Each rank sends the whole vector to two children, one after the other: about 2·log₂p·(α + nβ).",
    ),
    alg(
        "chain",
        Collective::Broadcast,
        true,
        "m pieces along a chain: (p + m − 2) steps of one piece, (p + m − 2)(α + n/m·β) (+ γ per byte for the reduce) — the seed's T(n,p,m).",
    ),
    alg(
        "pipelined-binomial",
        Collective::Broadcast,
        true,
        "m pieces through the binomial tree; rank 0 handles each piece once per child, so about m·⌈log₂p⌉ steps of n/m bytes.",
    ),
    alg(
        "scatter-allgather",
        Collective::Broadcast,
        false,
        "Binomial scatter of p blocks, then a ring allgather (van de Geijn): (⌈log₂p⌉ + p − 1)α + 2(p−1)/p·nβ.",
    ),
    alg(
        "double-binary-tree",
        Collective::Broadcast,
        true,
        "Two complementary binary trees (NCCL's) each carry half of the m pieces; a leaf of one is inner in the other and the edges are 2-coloured, so every rank sends and takes one piece a step: about m + 3·log₂p steps of n/m bytes.",
    ),
    alg(
        "linear",
        Collective::Broadcast,
        false,
        "Rank 0 sends p − 1 whole vectors one after another: (p − 1)(α + nβ).",
    ),
    alg(
        "binomial",
        Collective::Reduce,
        false,
        "⌈log₂p⌉ rounds, each combining a whole vector: ⌈log₂p⌉(α + nβ + nγ).",
    ),
    alg(
        "binomial-bst",
        Collective::Reduce,
        false,
        "⌈log₂p⌉ rounds, each combining a whole vector: ⌈log₂p⌉(α + nβ + nγ).",
    ),
    alg(
        "chain",
        Collective::Reduce,
        true,
        "m pieces along a chain: (p + m − 2) steps of one piece, (p + m − 2)(α + n/m·β) (+ γ per byte for the reduce) — the seed's T(n,p,m).",
    ),
    alg(
        "pipelined-binomial",
        Collective::Reduce,
        true,
        "m pieces through the binomial tree; rank 0 handles each piece once per child, so about m·⌈log₂p⌉ steps of n/m bytes.",
    ),
    alg(
        "reduce-scatter-gather",
        Collective::Reduce,
        false,
        "Recursive halving, then a binomial gather (Rabenseifner): 2·log₂p·α + 2(p−1)/p·nβ + (p−1)/p·nγ on powers of two; a fold before otherwise.",
    ),
    alg(
        "linear",
        Collective::Reduce,
        false,
        "Rank 0 receives and combines p − 1 vectors: (p − 1)(α + nβ + nγ).",
    ),
    alg(
        "reduce-broadcast",
        Collective::Allreduce,
        false,
        "A binomial reduce, then a binomial broadcast: 2⌈log₂p⌉α + 2⌈log₂p⌉·nβ + ⌈log₂p⌉·nγ.",
    ),
    alg(
        "recursive-doubling",
        Collective::Allreduce,
        false,
        "log₂p exchanges of the whole vector: log₂p(α + nβ + nγ) on powers of two; a fold before and after otherwise.",
    ),
    alg(
        "ring",
        Collective::Allreduce,
        false,
        "Ring reduce-scatter, then ring allgather: 2(p−1)α + 2(p−1)/p·nβ + (p−1)/p·nγ.",
    ),
    alg(
        "rabenseifner",
        Collective::Allreduce,
        false,
        "Recursive halving, then recursive doubling: 2·log₂p·α + 2(p−1)/p·nβ + (p−1)/p·nγ on powers of two; a fold otherwise.",
    ),
    alg(
        "double-binary-tree",
        Collective::Allreduce,
        true,
        "A pipelined reduce up both binary trees, then a pipelined broadcast down them (the phases do not overlap here).",
    ),
    alg(
        "chain-up-down",
        Collective::Allreduce,
        true,
        "The pipelined chain reduce, then the chain broadcast: 2(p + m − 2) steps of n/m bytes.",
    ),
    alg(
        "ring",
        Collective::Allgather,
        false,
        "p − 1 steps of one block: (p − 1)α + (p−1)/p·nβ.",
    ),
    alg(
        "recursive-doubling",
        Collective::Allgather,
        false,
        "log₂p exchanges of doubling size: log₂p·α + (p−1)/p·nβ on powers of two; a fold otherwise.",
    ),
    alg(
        "bruck",
        Collective::Allgather,
        false,
        "⌈log₂p⌉ steps for any p: ⌈log₂p⌉α + (p−1)/p·nβ.",
    ),
    alg(
        "ring",
        Collective::ReduceScatter,
        false,
        "p − 1 steps of one block: (p − 1)α + (p−1)/p·n(β + γ).",
    ),
    alg(
        "recursive-halving",
        Collective::ReduceScatter,
        false,
        "log₂p exchanges of halving size: log₂p·α + (p−1)/p·n(β + γ) on powers of two; a fold otherwise.",
    ),
    alg(
        "pairwise",
        Collective::ReduceScatter,
        false,
        "p − 1 steps of one block: (p − 1)α + (p−1)/p·n(β + γ).",
    ),
    alg(
        "linear",
        Collective::AllToAll,
        false,
        "p − 1 messages of n/p bytes, posted at once: (p − 1)(α + n/p·β).",
    ),
    alg(
        "pairwise",
        Collective::AllToAll,
        false,
        "p − 1 exchange steps of n/p bytes: (p − 1)(α + n/p·β).",
    ),
    alg(
        "bruck",
        Collective::AllToAll,
        false,
        "⌈log₂p⌉ steps, each moving about half the data: ⌈log₂p⌉α + ⌈log₂p⌉·n/2·β.",
    ),
    alg(
        "swizzle-order",
        Collective::AllToAll,
        false,
        "The CommSwizzle rank shift as the step order: each step a permutation, so as pairwise, (p − 1)(α + n/p·β).",
    ),
];

/// The algorithms of `collective`.
pub fn of(collective: Collective) -> impl Iterator<Item = Algorithm> {
    ALGORITHMS.into_iter().filter(move |a| a.collective == collective)
}

#[cfg(test)]
mod tests {
    /// Every algorithm says how it spends its time (the Chooser's explain
    /// panel shows it).
    #[test]
    fn every_algorithm_has_its_formula() {
        for a in super::ALGORITHMS {
            assert!(a.formula.ends_with('.') && a.formula.len() > 20, "{} {}", a.collective, a.id);
        }
    }
}

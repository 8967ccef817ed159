//! A collective algorithm as data: rounds of transfers of blocks, with what
//! each transfer does to the receiver's copy (replace, or combine with ⊕).
//!
//! The vector is cut into `blocks` blocks (near-equal bytes, the first
//! `n mod blocks` one byte longer). For all-to-all, block `i·p + j` is what
//! rank `i` sends to rank `j`, `n / p` bytes (rank `i`'s whole send buffer
//! is `n`).
//!
//! [`Plan::replay`] checks a plan by value: every (rank, block) holds the set
//! of ranks whose input it contains (a 64-bit mask, so `p ≤ 64`). A round's
//! transfers all read the state at the round's start. A combining transfer
//! must add contributions the receiver does not have yet (no input counted
//! twice); a copy replaces. At the end every rank must hold exactly what
//! the collective defines.

use std::fmt;
use std::str::FromStr;

/// Which collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collective {
    /// Rank 0's vector to every rank.
    Broadcast,
    /// The ⊕ of every rank's vector at rank 0.
    Reduce,
    /// The ⊕ of every rank's vector at every rank.
    Allreduce,
    /// Every rank's block at every rank (`n` is the gathered size).
    Allgather,
    /// Block `r` of the ⊕ at rank `r`.
    ReduceScatter,
    /// Block `i·p + j` from rank `i` to rank `j`.
    AllToAll,
}

impl Collective {
    /// Every collective.
    pub const ALL: [Collective; 6] = [
        Collective::Broadcast,
        Collective::Reduce,
        Collective::Allreduce,
        Collective::Allgather,
        Collective::ReduceScatter,
        Collective::AllToAll,
    ];

    /// Stable id.
    pub fn id(self) -> &'static str {
        match self {
            Collective::Broadcast => "broadcast",
            Collective::Reduce => "reduce",
            Collective::Allreduce => "allreduce",
            Collective::Allgather => "allgather",
            Collective::ReduceScatter => "reduce-scatter",
            Collective::AllToAll => "all-to-all",
        }
    }
}

impl FromStr for Collective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::limits::parse_id(&Collective::ALL, Collective::id, "collective", s)
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One message of a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    /// Sender.
    pub from: u32,
    /// Receiver.
    pub to: u32,
    /// The blocks it carries.
    pub blocks: Vec<u32>,
    /// The receiver combines them with its own (⊕); else it takes them.
    pub combine: bool,
}

/// An algorithm's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The collective it performs.
    pub collective: Collective,
    /// Ranks, the switch ranks included.
    pub ranks: u32,
    /// The last `switches` ranks are switches that reduce and multicast
    /// (NVLS, `algorithms::nvls`): they start with no data, and the
    /// collective's result is checked on the other ranks only.
    pub switches: u32,
    /// Blocks the vector is cut into.
    pub blocks: u32,
    /// Rounds of transfers.
    pub rounds: Vec<Vec<Transfer>>,
    /// Each piece moves as soon as it has arrived, and each tree's reduction
    /// and broadcast keep their own order (`goal::generate::from_round_keyed`:
    /// a transfer of one block, the pieces alternating between two trees),
    /// as NCCL's tree reduces later pieces while it broadcasts earlier ones,
    /// each tree on channels of its own; else every send waits for its
    /// rank's receives of earlier rounds.
    pub overlap: bool,
    /// With [`Plan::overlap`], each transfer's lane (a sequence of its
    /// sender's sends kept in order, `goal::generate::from_round_keyed`),
    /// round by round as [`Plan::rounds`]; empty: NCCL's tree's rule (a
    /// lane per tree and phase).
    pub lanes: Vec<Vec<u32>>,
}

/// Bytes of block `b` when `n` bytes are cut into `blocks` blocks.
pub fn block_bytes(n: u64, blocks: u32, b: u32) -> u64 {
    let k = u64::from(blocks.max(1));
    n / k + u64::from(u64::from(b) < n % k)
}

/// The α–β–γ parameters: α per message, β per byte moved, γ per byte combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AlphaBeta {
    /// Per message (start-up).
    pub alpha: f64,
    /// Per byte moved.
    pub beta: f64,
    /// Per byte combined with ⊕.
    pub gamma: f64,
}

/// The cost of a plan split into its terms.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    /// Latency: α times the messages on the critical path.
    pub latency: f64,
    /// Bandwidth: β times the bytes on the critical path.
    pub bandwidth: f64,
    /// Compute: γ times the bytes combined on the critical path.
    pub compute: f64,
}

impl Cost {
    /// The total.
    pub fn total(&self) -> f64 {
        self.latency + self.bandwidth + self.compute
    }
}

/// What one side of a rank does in a round: messages, blocks moved, blocks
/// combined (its cost is `α·messages + (β·blocks + γ·combined)·n/unit_blocks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Load {
    /// Messages sent or received one after another.
    pub messages: u64,
    /// Blocks they carry.
    pub blocks: u64,
    /// Blocks combined with ⊕ (receive side).
    pub combined: u64,
}

impl Load {
    fn cost(self, unit: f64, ab: AlphaBeta) -> Cost {
        Cost {
            latency: ab.alpha * self.messages as f64,
            bandwidth: ab.beta * self.blocks as f64 * unit,
            compute: ab.gamma * self.combined as f64 * unit,
        }
    }

    fn covers(self, other: Load) -> bool {
        self.messages >= other.messages && self.blocks >= other.blocks && self.combined >= other.combined
    }
}

/// A plan's α–β–γ cost as a function of the size, without its transfers:
/// the distinct round shapes (the loads that can be a round's busiest) and
/// how often each occurs. Built once per plan, it costs any size in time
/// proportional to the shapes, not the transfers; the chooser's pipelined
/// algorithms build theirs from counts for any piece count
/// ([`super::algorithms::pipelined_profile`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The blocks the size is cut into (a block is `n / unit_blocks` bytes).
    pub unit_blocks: u32,
    /// Round shapes (loads, sorted) and their counts.
    pub shapes: Vec<(Vec<Load>, u64)>,
}

/// The loads no other load of the same round covers, sorted and deduplicated.
fn undominated(mut loads: Vec<Load>) -> Vec<Load> {
    loads.sort_unstable();
    loads.dedup();
    let keep: Vec<Load> = loads.iter().copied().filter(|&l| !loads.iter().any(|&o| o != l && o.covers(l))).collect();
    keep
}

/// Adds `count` rounds of `shape`. A one-load shape costs in proportion to
/// its load, so `k` times a load is kept as the load divided by `k`, counted
/// `k` times as often (a pipelined tree's rounds then reduce to "one piece
/// moved" and "one piece combined", counted).
pub(crate) fn push_shape(shapes: &mut Vec<(Vec<Load>, u64)>, mut shape: Vec<Load>, mut count: u64) {
    if shape.is_empty() || count == 0 {
        return;
    }
    if let [l] = shape.as_mut_slice() {
        let g = gcd(gcd(l.messages, l.blocks), l.combined);
        if g > 1 {
            *l = Load { messages: l.messages / g, blocks: l.blocks / g, combined: l.combined / g };
            count *= g;
        }
    }
    if let Some(found) = shapes.iter_mut().find(|(s, _)| *s == shape) {
        found.1 += count;
    } else {
        shapes.push((shape, count));
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Profile {
    /// The cost for a vector of `n` bytes (see [`Plan::cost`]).
    pub fn cost(&self, n: u64, ab: AlphaBeta) -> Cost {
        let unit = n as f64 / f64::from(self.unit_blocks.max(1));
        let mut total = Cost::default();
        for (loads, count) in &self.shapes {
            let busiest = loads.iter().map(|l| l.cost(unit, ab)).max_by(|a, b| a.total().total_cmp(&b.total()));
            if let Some(b) = busiest {
                let c = *count as f64;
                total.latency += c * b.latency;
                total.bandwidth += c * b.bandwidth;
                total.compute += c * b.compute;
            }
        }
        total
    }
}

impl Plan {
    /// Bytes of one transfer for a vector of `n` bytes.
    pub fn transfer_bytes(&self, t: &Transfer, n: u64) -> u64 {
        if self.collective == Collective::AllToAll {
            t.blocks.iter().map(|&b| block_bytes(n, self.ranks, b % self.ranks)).sum()
        } else {
            t.blocks.iter().map(|&b| block_bytes(n, self.blocks, b)).sum()
        }
    }

    /// The blocks a byte count is cut into for costing: `p` for all-to-all
    /// (rank `i`'s `n` bytes to `p` destinations), else [`Plan::blocks`].
    pub fn unit_blocks(&self) -> u32 {
        if self.collective == Collective::AllToAll {
            self.ranks
        } else {
            self.blocks
        }
    }

    /// The α–β–γ cost for a vector of `n` bytes: rounds follow one another;
    /// in a round every rank sends and receives concurrently (full duplex),
    /// its own sends one after another and its receives one after another,
    /// each message α + β·bytes (+ γ·bytes when combined at the receiver);
    /// the round lasts as long as its busiest rank. A block is `n / blocks`
    /// bytes, a real number (the closed forms' convention; the GOAL messages
    /// round to whole bytes). The same as `self.profile().cost(n, ab)`.
    pub fn cost(&self, n: u64, ab: AlphaBeta) -> Cost {
        self.profile().cost(n, ab)
    }

    /// The plan's [`Profile`]: per round, the loads of its ranks' send and
    /// receive sides, kept when no other load of the round is at least as
    /// large in every term, identical rounds counted once.
    pub fn profile(&self) -> Profile {
        let p = self.ranks as usize;
        let mut send = vec![Load::default(); p];
        let mut recv = vec![Load::default(); p];
        let mut shapes: Vec<(Vec<Load>, u64)> = Vec::new();
        for round in &self.rounds {
            for l in send.iter_mut().chain(recv.iter_mut()) {
                *l = Load::default();
            }
            for t in round {
                let k = t.blocks.len() as u64;
                let s = &mut send[t.from as usize];
                s.messages += 1;
                s.blocks += k;
                let r = &mut recv[t.to as usize];
                r.messages += 1;
                r.blocks += k;
                if t.combine {
                    r.combined += k;
                }
            }
            let loads: Vec<Load> = send.iter().chain(recv.iter()).copied().filter(|l| l.messages > 0).collect();
            push_shape(&mut shapes, undominated(loads), 1);
        }
        Profile { unit_blocks: self.unit_blocks(), shapes }
    }

    /// Replays the plan by value (module docs).
    ///
    /// # Errors
    /// The first transfer that sends nothing or counts an input twice, a rank
    /// or block out of range, or a rank that ends without what the collective
    /// defines; each names the round, ranks and block.
    pub fn replay(&self) -> Result<(), String> {
        let p = self.ranks as usize;
        if p == 0 || p > 64 || self.switches >= self.ranks {
            return Err(format!("replay needs 1 ≤ p ≤ 64 (p = {p}) and a rank that is not a switch"));
        }
        // The ranks that hold data; switches start empty and end unchecked.
        let gpus = p - self.switches as usize;
        let blocks = self.blocks as usize;
        let full: u64 = if gpus == 64 { u64::MAX } else { (1u64 << gpus) - 1 };
        let bit = |r: usize| 1u64 << r;
        let mut state = vec![0u64; p * blocks];
        for r in 0..gpus {
            for b in 0..blocks {
                state[r * blocks + b] = match self.collective {
                    Collective::Broadcast => {
                        if r == 0 {
                            bit(0)
                        } else {
                            0
                        }
                    }
                    Collective::Reduce | Collective::Allreduce | Collective::ReduceScatter => bit(r),
                    Collective::Allgather => {
                        if b % gpus == r {
                            bit(r)
                        } else {
                            0
                        }
                    }
                    Collective::AllToAll => {
                        if b / p == r {
                            bit(r)
                        } else {
                            0
                        }
                    }
                };
            }
        }
        for (k, round) in self.rounds.iter().enumerate() {
            let before = state.clone();
            for t in round {
                let (from, to) = (t.from as usize, t.to as usize);
                if from >= p || to >= p || from == to {
                    return Err(format!("round {k}: transfer {from} → {to} is not between two ranks of 0..{p}"));
                }
                for &b in &t.blocks {
                    let b = b as usize;
                    if b >= blocks {
                        return Err(format!("round {k}: block {b} of {from} → {to} is beyond {blocks} blocks"));
                    }
                    let src = before[from * blocks + b];
                    if src == 0 {
                        return Err(format!("round {k}: {from} sends block {b} to {to} before it holds any of it"));
                    }
                    let dst = &mut state[to * blocks + b];
                    if t.combine {
                        if *dst & src != 0 {
                            return Err(format!(
                                "round {k}: {from} → {to} block {b} counts an input twice ({src:#x} into {:#x})",
                                *dst
                            ));
                        }
                        *dst |= src;
                    } else {
                        *dst = src;
                    }
                }
            }
        }
        for r in 0..gpus {
            for b in 0..blocks {
                let want = match self.collective {
                    Collective::Broadcast => Some(bit(0)),
                    Collective::Reduce => (r == 0).then_some(full),
                    Collective::Allreduce => Some(full),
                    Collective::Allgather => Some(bit(b % gpus)),
                    Collective::ReduceScatter => (b % gpus == r).then_some(full),
                    Collective::AllToAll => (b % p == r).then_some(bit(b / p)),
                };
                if let Some(w) = want {
                    let got = state[r * blocks + b];
                    if got != w {
                        return Err(format!("rank {r} ends with block {b} = {got:#x}, expected {w:#x}"));
                    }
                }
            }
        }
        Ok(())
    }
}

//! Schedules as data: LogGOPSim's GOAL format (`docs/loggops.md`).
//!
//! [`Schedule`] is a GOAL-shaped schedule in flat arrays: per rank a range of
//! operations (send, recv, calc, each with its cpu and nic), and the
//! dependency lines as two adjacency lists (`requires`: after completion,
//! `irequires`: after start) in line order. [`parse`] reads GOAL text,
//! [`write`] writes it as LogGOPSim's `txt2bin` accepts it, and [`sim`]
//! simulates a schedule under LogGOPS exactly as LogGOPSim does.

pub mod critical;
pub mod generate;
pub(crate) mod matching;
mod parse;
pub mod patterns;
pub mod sim;
mod write;

pub use parse::{parse, parse_with, ParseError};
pub use write::write;

/// "Any source" / "any tag" (`-1` in GOAL text).
pub const ANY: u32 = u32::MAX;

/// Largest `cpu` or `nic` index.
pub const MAX_UNIT: u8 = 254;

/// Ranks accepted natively.
pub const MAX_RANKS: u32 = 1 << 24;

/// Operations of one schedule (op indices are `u32`; the simulator keeps one bit).
pub const MAX_OPS: usize = (1 << 31) - 1;

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `send S b to R`.
    Send,
    /// `recv S b from R` (`R` may be [`ANY`]).
    Recv,
    /// `calc D` (a duration in ns).
    Calc,
}

/// One operation of a rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Op {
    /// Send, receive or computation.
    pub kind: Kind,
    /// Bytes (send, recv) or nanoseconds (calc).
    pub size: u64,
    /// Destination (send), source (recv, maybe [`ANY`]); 0 for calc.
    pub peer: u32,
    /// Tag (maybe [`ANY`]); 0 for calc.
    pub tag: u32,
    /// CPU index.
    pub cpu: u8,
    /// NIC index (0 for calc).
    pub nic: u8,
    /// The rank it belongs to (set by [`Schedule::push`]).
    pub rank: u32,
}

/// A whole schedule: `ranks` blocks of operations with their dependencies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Schedule {
    /// Operations of all ranks, rank by rank, each rank's in file order.
    pub ops: Vec<Op>,
    /// `ops[first[r]..first[r + 1]]` are rank `r`'s (`ranks + 1` entries).
    pub first: Vec<u32>,
    /// The labels, one text; `label_ends[i]` ends op `i`'s (ops past the end
    /// of `label_ends` are unlabelled: generated schedules store none).
    label_text: String,
    label_ends: Vec<u32>,
    /// Dependency lines in file order: `(dependent, prerequisite, on start)`,
    /// global op indices; `on start` is `irequires`.
    pub deps: Vec<(u32, u32, bool)>,
}

impl Schedule {
    /// Number of ranks.
    pub fn ranks(&self) -> u32 {
        self.first.len().saturating_sub(1) as u32
    }

    /// Rank `r`'s operations as a global index range.
    pub fn range(&self, r: u32) -> std::ops::Range<usize> {
        self.first[r as usize] as usize..self.first[r as usize + 1] as usize
    }

    /// The rank owning global op `i`.
    pub fn rank_of(&self, i: u32) -> u32 {
        self.ops[i as usize].rank
    }

    /// Appends `op` to rank `r` and returns its global index. Ranks are
    /// filled in order; [`Schedule::close`] ends the last.
    ///
    /// # Panics
    /// When a later rank already has operations.
    pub fn push(&mut self, r: u32, op: Op, label: &str) -> u32 {
        assert!(self.first.len() <= r as usize + 1, "ranks are filled in order");
        while self.first.len() <= r as usize {
            self.first.push(self.ops.len() as u32);
        }
        let i = self.ops.len() as u32;
        self.ops.push(Op { rank: r, ..op });
        if !label.is_empty() {
            let end = self.label_text.len() as u32;
            self.label_ends.resize(i as usize, end);
            self.label_text.push_str(label);
            self.label_ends.push(self.label_text.len() as u32);
        }
        i
    }

    /// Op `i`'s label (empty when it has none).
    pub fn label(&self, i: u32) -> &str {
        let i = i as usize;
        if i >= self.label_ends.len() {
            return "";
        }
        let start = if i == 0 { 0 } else { self.label_ends[i - 1] as usize };
        &self.label_text[start..self.label_ends[i] as usize]
    }

    /// Ends the schedule at `ranks` ranks (ranks without operations included).
    pub fn close(&mut self, ranks: u32) {
        while self.first.len() <= ranks as usize {
            self.first.push(self.ops.len() as u32);
        }
    }

    /// `dependent requires prerequisite` (or `irequires` when `on_start`).
    pub fn depend(&mut self, dependent: u32, prerequisite: u32, on_start: bool) {
        self.deps.push((dependent, prerequisite, on_start));
    }

    /// How op `i` reads in a report: its label, or `#k` (its index in its rank) and what it is.
    pub fn describe(&self, i: u32) -> String {
        let r = self.rank_of(i);
        let k = i - self.first[r as usize];
        let op = self.ops[i as usize];
        let what = match op.kind {
            Kind::Send => format!("send {}b to {}", op.size, op.peer),
            Kind::Recv => {
                format!("recv {}b from {}", op.size, if op.peer == ANY { "-1".into() } else { op.peer.to_string() })
            }
            Kind::Calc => format!("calc {}", op.size),
        };
        match self.label(i) {
            "" => format!("#{k} ({what})"),
            l => format!("{l} ({what})"),
        }
    }
}

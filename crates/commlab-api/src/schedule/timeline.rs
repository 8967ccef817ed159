//! What the timeline draws: bars, messages and ops as flat arrays
//! (`Timeline`), built from a LogGOPS or a network run.

use super::{Kept, LogGops};
use commlab_core::goal::sim::{Outcome, Work};
use commlab_core::goal::{self, Kind, Schedule};
use serde::{Deserialize, Serialize};

/// One step of the critical path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathStep {
    /// Rank.
    pub rank: u32,
    /// Global op index.
    pub op: u32,
    /// The op in words (its label and statement).
    pub what: String,
    /// Start of its work (ns): a send's or calc's CPU span, a receive taking in its message.
    pub start: u64,
    /// When it left the CPU free (ns); the last step's end is the run's finish time.
    pub end: u64,
}

/// The timeline's drawing data as flat arrays (the worker transfers them as
/// `Float64Array`s; every value is an integer below 2^53).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    /// CPUs per rank.
    pub cpus: u32,
    /// NICs per rank.
    pub nics: u32,
    /// Busy spans, [`BAR`] values each: rank, lane (CPU `c` is lane `c`, NIC
    /// `k` send side is `cpus + 2k`, receive side `cpus + 2k + 1`), start,
    /// end, [`BarKind`] as a number, op (for taking in a message, the
    /// receive that matched it).
    pub bars: Vec<f64>,
    /// Messages, [`MESSAGE`] values each: from, to, start, arrived, matched, send op, receive op, bytes.
    pub messages: Vec<f64>,
    /// Per op, [`OP`] values: kind (0 send, 1 recv, 2 calc), size, peer (−1: any), tag (−1: any), start, end.
    pub ops: Vec<f64>,
    /// The critical path's ops, first to last.
    pub critical: Vec<f64>,
}

/// One busy span of [`Timeline::bars`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    /// Rank.
    pub rank: u32,
    /// Lane: CPU `c` is lane `c`; NIC `k` sends on `cpus + 2k` and takes in on `cpus + 2k + 1`.
    pub lane: u32,
    /// Start.
    pub start: f64,
    /// End.
    pub end: f64,
    /// [`BarKind`] as a number.
    pub kind: u32,
    /// Its op (for taking in a message, the receive that matched it).
    pub op: u32,
}

/// One op of [`Timeline::ops`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OpRow {
    /// 0 send, 1 receive, 2 calc.
    pub kind: u32,
    /// Bytes, or the calc's time.
    pub size: f64,
    /// The peer rank (`None`: any).
    pub peer: Option<u32>,
    /// The tag (`None`: any).
    pub tag: Option<u64>,
}

impl Timeline {
    /// Bars in all.
    pub fn bar_count(&self) -> usize {
        self.bars.len() / BAR
    }

    /// Bar `i`.
    pub fn bar(&self, i: usize) -> Option<Bar> {
        let b = self.bars.get(i * BAR..i * BAR + BAR)?;
        Some(Bar { rank: b[0] as u32, lane: b[1] as u32, start: b[2], end: b[3], kind: b[4] as u32, op: b[5] as u32 })
    }

    /// Op `i`.
    pub fn op(&self, i: usize) -> Option<OpRow> {
        let v = self.ops.get(i * OP..i * OP + OP)?;
        let any = |x: f64| (x >= 0.0).then_some(x as u64);
        Some(OpRow { kind: v[0] as u32, size: v[1], peer: any(v[2]).map(|r| r as u32), tag: any(v[3]) })
    }

    /// Ops in all.
    pub fn op_count(&self) -> usize {
        self.ops.len() / OP
    }

    /// The bar under `(rank, lane)` at time `at` (± `slack`).
    pub fn bar_at(&self, rank: u32, lane: u32, at: f64, slack: f64) -> Option<usize> {
        (0..self.bar_count()).find(|&i| {
            self.bar(i)
                .is_some_and(|b| b.rank == rank && b.lane == lane && b.start - slack <= at && at <= b.end + slack)
        })
    }

    /// The keyboard's next bar from bar `current` (or from rank `first_rank`
    /// when none): the next (`forward`) or previous bar of the same rank in
    /// time order when `other_rank` is 0; else the first bar of the rank
    /// `other_rank` away that starts at or after the current one (or its last).
    pub fn next_bar(&self, current: Option<usize>, first_rank: u32, forward: bool, other_rank: i64) -> Option<usize> {
        let now = current.and_then(|b| self.bar(b).map(|x| (x, b)));
        let rank = now.map_or(i64::from(first_rank), |(x, _)| i64::from(x.rank)) + other_rank;
        let time = now.map_or(-1.0, |(x, _)| x.start);
        let starts: Vec<Bar> = (0..self.bar_count()).filter_map(|i| self.bar(i)).collect();
        let mut on_rank: Vec<usize> = (0..starts.len()).filter(|&b| i64::from(starts[b].rank) == rank).collect();
        on_rank.sort_by(|&a, &b| starts[a].start.total_cmp(&starts[b].start).then(a.cmp(&b)));
        let at = on_rank.iter().position(|&b| Some(b) == current);
        let next = match (other_rank, at, forward) {
            (0, Some(i), true) => on_rank.get(i + 1),
            (0, Some(i), false) => i.checked_sub(1).and_then(|i| on_rank.get(i)),
            _ => on_rank.iter().find(|&&b| starts[b].start >= time).or(on_rank.last()),
        };
        next.copied()
    }
}

/// Values per bar of [`Timeline::bars`].
pub const BAR: usize = 6;
/// Values per message of [`Timeline::messages`].
pub const MESSAGE: usize = 8;
/// Values per op of [`Timeline::ops`].
pub const OP: usize = 6;

/// What a bar is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarKind {
    /// A send's CPU overhead.
    Send = 0,
    /// Taking in a message.
    Arrival = 1,
    /// A calc.
    Calc = 2,
    /// The NIC sending.
    NicOut = 3,
    /// The NIC receiving.
    NicIn = 4,
}

/// The timeline of a traced network run: CPU bars from LogGOPS's CPU rules
/// (a send's `o + (s−1)O`, a calc, a receive's `o + (s−1)O` before it
/// completes), the flows as NIC bars (the sender's from the flow's creation,
/// the receiver's from its first byte, both to its arrival), the messages as lines.
pub(crate) fn net_timeline(s: &Schedule, out: &commlab_core::net::NetOutcome, p: &LogGops) -> Timeline {
    let (cpus, nics) = lanes(s);
    let mut t = Timeline { cpus, nics, ..Timeline::default() };
    let work = |size: u64| p.o as f64 + size.saturating_sub(1) as f64 * p.big_o as f64;
    let bar = |t: &mut Timeline, rank: u32, lane: u32, (a, b): (f64, f64), kind: BarKind, op: u32| {
        if b > a {
            t.bars.extend([f64::from(rank), f64::from(lane), a, b, f64::from(kind as u32), f64::from(op)]);
        }
    };
    let mut size_of_recv = std::collections::HashMap::new();
    for f in &out.flows {
        if f.recv != u32::MAX {
            size_of_recv.insert(f.recv, f.size);
        }
    }
    for (i, op) in s.ops.iter().enumerate() {
        let (start, end) = out.ops[i];
        if start.is_nan() || end.is_nan() {
            continue;
        }
        let lane = u32::from(op.cpu);
        match op.kind {
            Kind::Send => bar(&mut t, op.rank, lane, (start, start + work(op.size)), BarKind::Send, i as u32),
            Kind::Calc => bar(&mut t, op.rank, lane, (start, end), BarKind::Calc, i as u32),
            Kind::Recv => {
                let w = size_of_recv.get(&(i as u32)).map_or(0.0, |&n| work(n));
                bar(&mut t, op.rank, lane, ((end - w).max(start), end), BarKind::Arrival, i as u32);
            }
        }
    }
    for f in out.flows.iter().filter(|f| !f.arrived.is_nan()) {
        let nic = u32::from(s.ops[f.send as usize].nic);
        let shown = if f.recv == u32::MAX { f.send } else { f.recv };
        bar(&mut t, f.from, cpus + 2 * nic, (f.created, f.arrived), BarKind::NicOut, f.send);
        bar(&mut t, f.to, cpus + 2 * nic + 1, (f.transfer, f.arrived), BarKind::NicIn, shown);
    }
    for f in out.flows.iter().filter(|f| !f.arrived.is_nan()) {
        let matched = if f.recv == u32::MAX { f.arrived } else { f.arrived.max(out.ops[f.recv as usize].0) };
        let recv = if f.recv == u32::MAX { -1.0 } else { f64::from(f.recv) };
        t.messages.extend([
            f64::from(f.from),
            f64::from(f.to),
            f.start,
            f.arrived,
            matched,
            f64::from(f.send),
            recv,
            f.size as f64,
        ]);
    }
    t.ops = op_rows(s, |i| out.ops[i]);
    t
}

/// [`Timeline::ops`]: per op its kind, size, peer, tag and `span(op)`.
pub(crate) fn op_rows(s: &Schedule, span: impl Fn(usize) -> (f64, f64)) -> Vec<f64> {
    let any = |v: u32| if v == goal::ANY { -1.0 } else { f64::from(v) };
    let mut rows = Vec::with_capacity(OP * s.ops.len());
    for (i, op) in s.ops.iter().enumerate() {
        let kind = match op.kind {
            Kind::Send => 0.0,
            Kind::Recv => 1.0,
            Kind::Calc => 2.0,
        };
        let (start, end) = span(i);
        rows.extend([kind, op.size as f64, any(op.peer), any(op.tag), start, end]);
    }
    rows
}

/// CPUs and NICs per rank: one more than the highest the schedule names.
pub(crate) fn lanes(s: &Schedule) -> (u32, u32) {
    let cpus = 1 + s.ops.iter().map(|o| u32::from(o.cpu)).max().unwrap_or(0);
    let nics = 1 + s.ops.iter().map(|o| u32::from(o.nic)).max().unwrap_or(0);
    (cpus, nics)
}

/// `(start, end)` of every op (0, 0 for ops that never ran).
pub(crate) fn op_spans(s: &Schedule, out: &Outcome) -> Vec<(u64, u64)> {
    let mut spans = vec![(0, 0); if out.ops.is_empty() { 0 } else { s.ops.len() }];
    for o in &out.ops {
        spans[o.op as usize] = (o.start, o.end);
    }
    spans.resize(s.ops.len(), (0, 0));
    spans
}

pub(crate) fn timeline(k: &Kept, out: &Outcome, span_of: &[(u64, u64)]) -> Timeline {
    let s = &k.schedule;
    let (cpus, nics) = lanes(s);
    let mut t = Timeline { cpus, nics, ..Timeline::default() };
    // Taking in a message is shown as the receive that matched it (the send when none did).
    let mut recv_of_send = vec![u32::MAX; s.ops.len()];
    for m in &out.messages {
        recv_of_send[m.send as usize] = m.recv;
    }
    let receiver_side = |send: u32| match recv_of_send[send as usize] {
        u32::MAX => send,
        recv => recv,
    };
    t.bars.reserve(BAR * (out.cpu.len() + out.nic.len()));
    t.messages.reserve(MESSAGE * out.messages.len());
    for c in &out.cpu {
        let (kind, op) = match c.work {
            Work::Op(i) if s.ops[i as usize].kind == Kind::Send => (BarKind::Send, i),
            Work::Op(i) => (BarKind::Calc, i),
            Work::Arrival(i) => (BarKind::Arrival, receiver_side(i)),
        };
        t.bars.extend([c.rank, c.cpu.into(), 0, 0, kind as u32, op].map(f64::from));
        let n = t.bars.len();
        (t.bars[n - 4], t.bars[n - 3]) = (c.start as f64, c.end as f64);
    }
    for x in &out.nic {
        let lane = cpus + 2 * u32::from(x.nic) + u32::from(!x.out);
        let (kind, op) = if x.out { (BarKind::NicOut, x.send) } else { (BarKind::NicIn, receiver_side(x.send)) };
        t.bars.extend([
            f64::from(x.rank),
            f64::from(lane),
            x.start as f64,
            x.end as f64,
            f64::from(kind as u32),
            f64::from(op),
        ]);
    }
    for m in &out.messages {
        t.messages.extend([
            f64::from(m.from),
            f64::from(m.to),
            m.start as f64,
            m.arrived as f64,
            m.matched as f64,
            f64::from(m.send),
            f64::from(m.recv),
            m.size as f64,
        ]);
    }
    t.ops = op_rows(s, |i| (span_of[i].0 as f64, span_of[i].1 as f64));
    t.critical = k.critical.iter().map(|&i| f64::from(i)).collect();
    t
}

//! The critical path of a traced run: walking back from the op that ends
//! last, at each op the constraint that held it to its start time
//! (`docs/loggops.md`, "Critical path").
//!
//! At op `x`, in this order of preference:
//! 1. a receive that waited for its message (it completed after it was
//!    posted) goes to the message's send;
//! 2. otherwise the prerequisite (a `requires` line's completion, an
//!    `irequires` line's start) released last, if it released `x` at its start;
//! 3. otherwise the CPU span (a send's overhead, a calc, taking in a
//!    message) or, for a send, the NIC span that ended exactly when `x`
//!    started;
//! 4. otherwise the prerequisite released last, if any; else the walk stops.

use super::sim::{Outcome, Work};
use super::{Kind, Schedule};

const NONE: u64 = u64::MAX;

/// A busy span's `(rank, unit, end, op)`, sorted: the spans that ended at a time.
type Ends = Vec<(u32, u8, u64, u32)>;

/// What the walk reads of a traced run: each op's start, completion and
/// last moment, its message, its prerequisites, and the busy spans.
struct Tables {
    start: Vec<u64>,
    end: Vec<u64>,
    last: Vec<u64>,
    /// The message a receive matched (`u32::MAX`: none).
    message_of: Vec<u32>,
    /// Op `i`'s prerequisites are `prereqs[prereqs_first[i]..prereqs_first[i + 1]]`.
    prereqs_first: Vec<u32>,
    /// `(prerequisite, released at its start)`.
    prereqs: Vec<(u32, bool)>,
    /// Busy spans per (rank, cpu), by end time; a CPU busy taking in a
    /// message stands for the receive that matched it (the walk then goes
    /// on to the message's send).
    cpu_ends: Ends,
    /// Busy spans per (rank, nic out), by end time.
    nic_ends: Ends,
}

impl Tables {
    fn new(s: &Schedule, out: &Outcome) -> Tables {
        let (start, end, last) = Self::times(s, out);
        let n = s.ops.len();
        let mut message_of = vec![u32::MAX; n];
        for (k, m) in out.messages.iter().enumerate() {
            message_of[m.recv as usize] = k as u32;
        }
        let (prereqs_first, prereqs) = Self::prerequisites(s);
        let (cpu_ends, nic_ends) = Self::ends(n, out);
        Tables { start, end, last, message_of, prereqs_first, prereqs, cpu_ends, nic_ends }
    }

    /// Each op's start, completion and last moment: its completion, or its
    /// CPU span's end (a send's overhead), or taking in its message.
    fn times(s: &Schedule, out: &Outcome) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let n = s.ops.len();
        let mut start = vec![NONE; n];
        let mut end = vec![NONE; n];
        for span in &out.ops {
            start[span.op as usize] = span.start;
            end[span.op as usize] = span.end;
        }
        let mut last = end.clone();
        for span in &out.cpu {
            if let Work::Op(i) = span.work {
                last[i as usize] = if last[i as usize] == NONE { span.end } else { last[i as usize].max(span.end) };
            }
        }
        // Taking in a message belongs to the receive that matched it.
        let mut arrival_end = vec![NONE; n];
        for span in &out.cpu {
            if let Work::Arrival(send) = span.work {
                arrival_end[send as usize] = span.end;
            }
        }
        for m in &out.messages {
            let (r, a) = (m.recv as usize, arrival_end[m.send as usize]);
            if last[r] != NONE && a != NONE {
                last[r] = last[r].max(a);
            }
        }
        (start, end, last)
    }

    /// The prerequisites of every op, grouped by op (compressed rows).
    fn prerequisites(s: &Schedule) -> (Vec<u32>, Vec<(u32, bool)>) {
        let n = s.ops.len();
        let mut first = vec![0u32; n + 1];
        for &(dependent, _, _) in &s.deps {
            first[dependent as usize + 1] += 1;
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut prereqs = vec![(0u32, false); s.deps.len()];
        for &(dependent, prerequisite, on_start) in &s.deps {
            prereqs[fill[dependent as usize] as usize] = (prerequisite, on_start);
            fill[dependent as usize] += 1;
        }
        (first, prereqs)
    }

    fn ends(n: usize, out: &Outcome) -> (Ends, Ends) {
        let mut recv_of_send = vec![u32::MAX; n];
        for m in &out.messages {
            recv_of_send[m.send as usize] = m.recv;
        }
        let mut cpu_ends: Ends = out
            .cpu
            .iter()
            .map(|c| {
                let op = match c.work {
                    Work::Op(i) => i,
                    Work::Arrival(send) if recv_of_send[send as usize] != u32::MAX => recv_of_send[send as usize],
                    Work::Arrival(send) => send,
                };
                (c.rank, c.cpu, c.end, op)
            })
            .collect();
        cpu_ends.sort_unstable();
        let mut nic_ends: Ends = out.nic.iter().filter(|x| x.out).map(|x| (x.rank, x.nic, x.end, x.send)).collect();
        nic_ends.sort_unstable();
        (cpu_ends, nic_ends)
    }

    /// The op other than `not` whose span on (`rank`, `unit`) ended at `t`.
    fn ended_at(table: &[(u32, u8, u64, u32)], rank: u32, unit: u8, t: u64, not: u32) -> Option<u32> {
        let from = table.partition_point(|e| (e.0, e.1, e.2) < (rank, unit, t));
        table[from..].iter().take_while(|e| (e.0, e.1, e.2) == (rank, unit, t)).map(|e| e.3).find(|&k| k != not)
    }

    /// The op that held op `x` to its start, in the order of preference of
    /// the module's rules.
    fn held_by(&self, s: &Schedule, out: &Outcome, x: usize) -> Option<usize> {
        let op = s.ops[x];
        let t = self.start[x];
        if op.kind == Kind::Recv && self.message_of[x] != u32::MAX && self.end[x] > t {
            return Some(out.messages[self.message_of[x] as usize].send as usize);
        }
        let released = (self.prereqs_first[x] as usize..self.prereqs_first[x + 1] as usize)
            .filter_map(|k| {
                let (j, on_start) = self.prereqs[k];
                let at = if on_start { self.start[j as usize] } else { self.end[j as usize] };
                (at != NONE).then_some((at, j as usize))
            })
            .max();
        if let Some((_, j)) = released.filter(|&(at, _)| at == t) {
            return Some(j);
        }
        if t != NONE && t > 0 {
            let cpu = Self::ended_at(&self.cpu_ends, op.rank, op.cpu, t, x as u32);
            let nic =
                if op.kind == Kind::Send { Self::ended_at(&self.nic_ends, op.rank, op.nic, t, x as u32) } else { None };
            if let Some(k) = cpu.or(nic) {
                return Some(k as usize);
            }
        }
        released.map(|(_, j)| j)
    }
}

/// The ops on the critical path, first to last (empty when nothing ran).
/// `out` must come from a traced simulation of `s`.
pub fn critical_path(s: &Schedule, out: &Outcome) -> Vec<u32> {
    let n = s.ops.len();
    let tables = Tables::new(s, out);
    let last = &tables.last;
    let Some(tail) = (0..n).filter(|&i| last[i] != NONE).max_by_key(|&i| (last[i], std::cmp::Reverse(i))) else {
        return Vec::new();
    };
    let mut path = vec![tail as u32];
    let mut seen = vec![false; n];
    seen[tail] = true;
    let mut x = tail;
    while let Some(j) = tables.held_by(s, out, x).filter(|&j| !seen[j]) {
        seen[j] = true;
        path.push(j as u32);
        x = j;
    }
    path.reverse();
    path
}

/// Each op's working span `(start, end)`: from the start of the first CPU
/// span that works for it (a send's or calc's own span; for a receive,
/// taking in the message it matched) to the last moment of any of them,
/// which is when the op leaves its rank's CPU free. An op with no CPU work
/// (a receive of an empty schedule) keeps its `(start, completion)`; one that
/// never ran is `None`. The finish time of a rank is the largest end over its
/// ops, so the critical path's last op ends at the run's finish time.
/// `out` must come from a traced simulation of `s`.
pub fn work_spans(s: &Schedule, out: &Outcome) -> Vec<Option<(u64, u64)>> {
    let n = s.ops.len();
    let mut spans: Vec<Option<(u64, u64)>> = vec![None; n];
    let mut recv_of_send = vec![u32::MAX; n];
    for m in &out.messages {
        recv_of_send[m.send as usize] = m.recv;
    }
    let mut worked = vec![false; n];
    for c in &out.cpu {
        let op = match c.work {
            Work::Op(i) => i,
            Work::Arrival(send) if recv_of_send[send as usize] != u32::MAX => recv_of_send[send as usize],
            Work::Arrival(_) => continue,
        } as usize;
        spans[op] = Some(spans[op].map_or((c.start, c.end), |(a, b)| (a.min(c.start), b.max(c.end))));
        worked[op] = true;
    }
    for o in &out.ops {
        let x = o.op as usize;
        if !worked[x] {
            spans[x] = Some((o.start, o.end));
        }
    }
    spans
}

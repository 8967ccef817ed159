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

/// The ops on the critical path, first to last (empty when nothing ran).
/// `out` must come from a traced simulation of `s`.
#[allow(
    clippy::many_single_char_names,
    reason = "s, n, x, t, j: the schedule, op count and the walk's op, time, prerequisite"
)]
#[allow(clippy::too_many_lines, reason = "one walk with its tables; split, the tables would travel as arguments")]
pub fn critical_path(s: &Schedule, out: &Outcome) -> Vec<u32> {
    let n = s.ops.len();
    let mut start = vec![NONE; n];
    let mut end = vec![NONE; n];
    for span in &out.ops {
        start[span.op as usize] = span.start;
        end[span.op as usize] = span.end;
    }
    // An op's last moment: its completion, or its CPU span's end (a send's overhead).
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
    let Some(tail) = (0..n).filter(|&i| last[i] != NONE).max_by_key(|&i| (last[i], std::cmp::Reverse(i))) else {
        return Vec::new();
    };
    let mut message_of = vec![u32::MAX; n];
    for (k, m) in out.messages.iter().enumerate() {
        message_of[m.recv as usize] = k as u32;
    }
    let mut prereqs_first = vec![0u32; n + 1];
    for &(dependent, _, _) in &s.deps {
        prereqs_first[dependent as usize + 1] += 1;
    }
    for i in 0..n {
        prereqs_first[i + 1] += prereqs_first[i];
    }
    let mut fill = prereqs_first.clone();
    let mut prereqs = vec![(0u32, false); s.deps.len()];
    for &(dependent, prerequisite, on_start) in &s.deps {
        prereqs[fill[dependent as usize] as usize] = (prerequisite, on_start);
        fill[dependent as usize] += 1;
    }
    // Busy spans per (rank, cpu) and per (rank, nic out), by end time.
    // A CPU busy taking in a message stands for the receive that matched it
    // (the walk then goes on to the message's send).
    let mut recv_of_send = vec![u32::MAX; n];
    for m in &out.messages {
        recv_of_send[m.send as usize] = m.recv;
    }
    let mut cpu_ends: Vec<(u32, u8, u64, u32)> = out
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
    let mut nic_ends: Vec<(u32, u8, u64, u32)> =
        out.nic.iter().filter(|x| x.out).map(|x| (x.rank, x.nic, x.end, x.send)).collect();
    nic_ends.sort_unstable();
    let ended_at = |table: &[(u32, u8, u64, u32)], rank: u32, unit: u8, t: u64, not: u32| {
        let from = table.partition_point(|e| (e.0, e.1, e.2) < (rank, unit, t));
        table[from..].iter().take_while(|e| (e.0, e.1, e.2) == (rank, unit, t)).map(|e| e.3).find(|&k| k != not)
    };

    let mut path = vec![tail as u32];
    let mut seen = vec![false; n];
    seen[tail] = true;
    let mut x = tail;
    loop {
        let op = s.ops[x];
        let t = start[x];
        let mut next = None;
        if op.kind == Kind::Recv && message_of[x] != u32::MAX && end[x] > t {
            next = Some(out.messages[message_of[x] as usize].send as usize);
        }
        let released = (prereqs_first[x] as usize..prereqs_first[x + 1] as usize)
            .filter_map(|k| {
                let (j, on_start) = prereqs[k];
                let at = if on_start { start[j as usize] } else { end[j as usize] };
                (at != NONE).then_some((at, j as usize))
            })
            .max();
        if next.is_none() {
            next = released.filter(|&(at, _)| at == t).map(|(_, j)| j);
        }
        if next.is_none() && t != NONE && t > 0 {
            let cpu = ended_at(&cpu_ends, op.rank, op.cpu, t, x as u32);
            let nic = if op.kind == Kind::Send { ended_at(&nic_ends, op.rank, op.nic, t, x as u32) } else { None };
            next = cpu.or(nic).map(|k| k as usize);
        }
        if next.is_none() {
            next = released.map(|(_, j)| j);
        }
        match next {
            Some(j) if !seen[j] => {
                seen[j] = true;
                path.push(j as u32);
                x = j;
            }
            _ => break,
        }
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

//! A kept run's exports: GOAL, Chrome trace, CSV, JSON.

use super::{Kept, KeptRun, LogGops, ScheduleExport, ScheduleSource, TIMELINE_OPS, TRACE_OPS};
use crate::ApiError;
use commlab_core::goal::sim::{Outcome, Work};
use commlab_core::goal::{self, Kind, Schedule};
use serde_json::{json as j, Value};
use std::fmt::Write as _;

/// An export of a kept run: its file name and text.
pub(crate) fn export(k: &Kept, kind: ScheduleExport) -> Result<(String, String), ApiError> {
    let base = match &k.request.source {
        ScheduleSource::Generate(g) => format!("commlab-{}-p{}", g.collective, k.schedule.ranks()),
        ScheduleSource::Text(_) => "commlab-schedule".to_owned(),
    };
    let traced = match &k.run {
        KeptRun::LogGops(out) => !out.cpu.is_empty(),
        KeptRun::Net(run, _) => !run.outcome.ops.is_empty(),
    };
    match kind {
        ScheduleExport::Goal => Ok((format!("{base}.goal"), goal::write(&k.schedule))),
        ScheduleExport::ChromeTrace => {
            if !traced && !k.schedule.ops.is_empty() {
                let most = if matches!(k.run, KeptRun::Net(..)) { TIMELINE_OPS } else { TRACE_OPS };
                let e =
                    ApiError::new("trace", k.schedule.ops.len(), format!("a schedule of at most {most} operations"));
                return Err(e);
            }
            let trace = match &k.run {
                KeptRun::LogGops(out) => chrome_trace(&k.schedule, out),
                KeptRun::Net(run, _) => net_chrome_trace(&k.schedule, &run.outcome),
            };
            Ok((format!("{base}.trace.json"), trace.to_string()))
        }
        ScheduleExport::Csv => {
            let mut text = String::from("rank,finish_ns\n");
            match &k.run {
                KeptRun::LogGops(out) => out.finish.iter().enumerate().for_each(|(r, t)| {
                    let _ = writeln!(text, "{r},{t}");
                }),
                KeptRun::Net(run, _) => run.outcome.finish.iter().enumerate().for_each(|(r, t)| {
                    let _ = writeln!(text, "{r},{t}");
                }),
            }
            Ok((format!("{base}-finish.csv"), text))
        }
        ScheduleExport::Json => {
            let p = k.request.params;
            let v = match (&k.run, &k.request.network) {
                (KeptRun::Net(run, _), Some(network)) => {
                    let mut v = crate::network::run_json(&k.schedule, run, network);
                    v["params"] = j!({"o": p.o, "g": p.g, "O": p.big_o, "S": p.s});
                    v
                }
                (KeptRun::LogGops(out), _) => {
                    let order = if k.request.libstdcxx { "libstdcxx" } else { "stable" };
                    let mut v = run_json(&k.schedule, out, &p, order);
                    v["critical_path"] = k.critical.iter().map(|&i| j!(k.schedule.describe(i))).collect();
                    v
                }
                (KeptRun::Net(..), None) => Value::Null,
            };
            Ok((format!("{base}.json"), v.to_string()))
        }
    }
}

/// The Chrome trace of a traced network run (µs): a process per rank, its
/// ops on thread 0 and its flows on thread 1000 (sending) and 2000
/// (receiving, from the first byte), with an arrow per message.
pub fn net_chrome_trace(s: &Schedule, out: &commlab_core::net::NetOutcome) -> Value {
    let us = |ns: f64| ns / 1000.0;
    let mut events: Vec<Value> = Vec::new();
    for (i, &(start, end)) in out.ops.iter().enumerate() {
        if start.is_nan() || end.is_nan() {
            continue;
        }
        let rank = s.ops[i].rank;
        events.push(j!({"ph": "X", "name": s.describe(i as u32), "cat": "op", "pid": rank, "tid": 0,
            "ts": us(start), "dur": us(end - start)}));
    }
    for (id, f) in out.flows.iter().enumerate().filter(|(_, f)| !f.arrived.is_nan()) {
        let name = format!("{} B", f.size);
        events
            .push(j!({"ph": "X", "name": format!("flow to rank {}", f.to), "cat": "flow", "pid": f.from, "tid": 1000,
            "ts": us(f.created), "dur": us(f.arrived - f.created)}));
        events.push(
            j!({"ph": "X", "name": format!("flow from rank {}", f.from), "cat": "flow", "pid": f.to, "tid": 2000,
            "ts": us(f.transfer), "dur": us(f.arrived - f.transfer)}),
        );
        events.push(
            j!({"ph": "s", "name": name, "cat": "message", "id": id, "pid": f.from, "tid": 1000, "ts": us(f.created)}),
        );
        events.push(j!({"ph": "f", "bp": "e", "name": name, "cat": "message", "id": id, "pid": f.to, "tid": 2000, "ts": us(f.arrived)}));
    }
    for r in 0..s.ranks() {
        events.push(j!({"ph": "M", "name": "process_name", "pid": r, "args": {"name": format!("rank {r}")}}));
        for (tid, name) in [(0, "ops"), (1000, "flows out"), (2000, "flows in")] {
            events.push(j!({"ph": "M", "name": "thread_name", "pid": r, "tid": tid, "args": {"name": name}}));
        }
    }
    j!({"traceEvents": events, "displayTimeUnit": "ns"})
}

/// The JSON of a run (`commlab goal sim --json` prints it, with its timing added).
pub fn run_json(s: &Schedule, out: &Outcome, p: &LogGops, order: &str) -> Value {
    let (max_time, max_rank) = out.max();
    let completes = out.completes();
    let unmatched: Vec<Value> = out
        .unmatched
        .iter()
        .enumerate()
        .filter(|(_, u)| !u.is_empty())
        .map(|(r, u)| j!({"rank": r, "left": u}))
        .collect();
    j!({
        "ranks": s.ranks(),
        "ops": s.ops.len(),
        "completes": completes,
        "finish_times": if completes { j!(out.finish) } else { Value::Null },
        "max_time": if completes { j!(max_time) } else { Value::Null },
        "max_rank": if completes { j!(max_rank) } else { Value::Null },
        "events": out.events,
        "unmatched": unmatched,
        "params": {"L": p.l, "o": p.o, "g": p.g, "G": p.big_g, "O": p.big_o, "S": p.s},
        "order": order,
    })
}

/// The Chrome trace-event JSON of a traced run (µs): a process per rank
/// with a thread per CPU (its busy spans: send overheads, calcs, taking in
/// messages) and a thread per NIC side (sending, receiving; spans on one
/// thread never overlap), each posted receive's wait as an async span, and
/// an arrow (flow) per message from the send's CPU span to the receiver's
/// arrival span.
pub fn chrome_trace(s: &Schedule, out: &Outcome) -> Value {
    let us = |ns: u64| ns as f64 / 1000.0;
    let mut events: Vec<Value> = Vec::new();
    let mut threads = std::collections::BTreeMap::new();
    for span in &out.cpu {
        threads.insert((span.rank, u32::from(span.cpu)), format!("cpu {}", span.cpu));
        let name = match span.work {
            Work::Op(i) => s.describe(i),
            Work::Arrival(send) => format!("arrival from rank {}", s.rank_of(send)),
        };
        events.push(j!({"ph": "X", "name": name, "cat": "cpu", "pid": span.rank, "tid": span.cpu,
            "ts": us(span.start), "dur": us(span.end.saturating_sub(span.start))}));
    }
    for span in &out.nic {
        let (tid, side) =
            if span.out { (1000 + u32::from(span.nic), "out") } else { (2000 + u32::from(span.nic), "in") };
        threads.insert((span.rank, tid), format!("nic {} {side}", span.nic));
        let name = if span.out {
            format!("sending to rank {}", s.ops[span.send as usize].peer)
        } else {
            format!("receiving from rank {}", s.rank_of(span.send))
        };
        events.push(j!({"ph": "X", "name": name, "cat": "nic", "pid": span.rank, "tid": tid,
            "ts": us(span.start), "dur": us(span.end.saturating_sub(span.start))}));
    }
    for r in 0..s.ranks() {
        events.push(j!({"ph": "M", "name": "process_name", "pid": r, "args": {"name": format!("rank {r}")}}));
    }
    for ((r, tid), name) in threads {
        events.push(j!({"ph": "M", "name": "thread_name", "pid": r, "tid": tid, "args": {"name": name}}));
    }
    for span in out.ops.iter().filter(|o| s.ops[o.op as usize].kind == Kind::Recv && o.end > o.start) {
        let name = format!("waiting: {}", s.describe(span.op));
        events.push(j!({"ph": "b", "name": name, "cat": "recv", "id": span.op, "pid": span.rank, "tid": 0, "ts": us(span.start)}));
        events.push(
            j!({"ph": "e", "name": name, "cat": "recv", "id": span.op, "pid": span.rank, "tid": 0, "ts": us(span.end)}),
        );
    }
    for (id, m) in out.messages.iter().enumerate() {
        let name = format!("{} B", m.size);
        events.push(
            j!({"ph": "s", "name": name, "cat": "message", "id": id, "pid": m.from, "tid": m.cpu, "ts": us(m.start)}),
        );
        events.push(j!({"ph": "f", "bp": "e", "name": name, "cat": "message", "id": id, "pid": m.to, "tid": m.cpu, "ts": us(m.arrived)}));
    }
    j!({"traceEvents": events, "displayTimeUnit": "ns"})
}

//! A finished run as the page shows it (`ScheduleResult`).

use super::timeline::{net_timeline, op_spans, timeline};
use super::{Kept, KeptRun, PathStep, ScheduleRequest, ScheduleResult, HISTOGRAM_BINS, PATH_STEPS, TIMELINE_OPS};
use commlab_core::goal::critical::work_spans;
use commlab_core::goal::sim::Outcome;
use commlab_core::goal::{Kind, Schedule};

pub(crate) fn result(k: &Kept, traced: bool) -> ScheduleResult {
    match &k.run {
        KeptRun::LogGops(out) => loggops_result(k, out, traced),
        KeptRun::Net(run, hosts) => net_result(&k.schedule, &k.request, run, hosts, traced),
    }
}

/// `(histogram, bin width, min)` of finish times.
pub(crate) fn histogram(finish: &[u64], max_time: u64) -> (Vec<u64>, u64, u64) {
    let min_time = finish.iter().copied().min().unwrap_or(0);
    let bin_width = (max_time - min_time).div_ceil(HISTOGRAM_BINS as u64).max(1);
    let mut histogram = vec![0u64; HISTOGRAM_BINS];
    for &t in finish {
        histogram[(((t - min_time) / bin_width) as usize).min(HISTOGRAM_BINS - 1)] += 1;
    }
    (histogram, bin_width, min_time)
}

/// The ranks left with unmatched operations: the first 20, 8 of each; and their count.
pub(crate) fn unmatched_of(unmatched: &[Vec<String>]) -> (Vec<(u32, Vec<String>)>, u32) {
    let count = unmatched.iter().filter(|u| !u.is_empty()).count() as u32;
    let listed = unmatched
        .iter()
        .enumerate()
        .filter(|(_, u)| !u.is_empty())
        .take(20)
        .map(|(r, u)| (r as u32, u.iter().take(8).cloned().collect()))
        .collect();
    (listed, count)
}

pub(crate) fn loggops_result(k: &Kept, out: &Outcome, traced: bool) -> ScheduleResult {
    let s = &k.schedule;
    let (max_time, max_rank) = out.max();
    let (histogram, bin_width, min_time) = histogram(&out.finish, max_time);
    let (unmatched, unmatched_ranks) = unmatched_of(&out.unmatched);
    let span_of = op_spans(s, out);
    let work = if k.critical.is_empty() { Vec::new() } else { work_spans(s, out) };
    let critical = k
        .critical
        .iter()
        .skip(k.critical.len().saturating_sub(PATH_STEPS))
        .map(|&i| {
            let (start, end) = work[i as usize].unwrap_or(span_of[i as usize]);
            PathStep { rank: s.ops[i as usize].rank, op: i, what: s.describe(i), start, end }
        })
        .collect();
    let timeline = (s.ops.len() <= TIMELINE_OPS && traced).then(|| timeline(k, out, &span_of));
    ScheduleResult {
        ranks: s.ranks(),
        ops: s.ops.len() as u64,
        messages: s.ops.iter().filter(|o| o.kind == Kind::Send).count() as u64,
        events: out.events,
        completes: out.completes(),
        max_time,
        max_rank,
        min_time,
        unmatched,
        unmatched_ranks,
        histogram,
        bin_width,
        critical,
        critical_steps: k.critical.len() as u64,
        traced,
        timeline,
        network: None,
        picture: None,
    }
}

/// A network run as the page shows it: no critical path (it is LogGOPS's),
/// the network's summary and picture instead.
pub(crate) fn net_result(
    s: &Schedule,
    request: &ScheduleRequest,
    run: &crate::network::NetRun,
    hosts: &[u32],
    traced: bool,
) -> ScheduleResult {
    let out = &run.outcome;
    let (max, max_rank) = out.max();
    let finish: Vec<u64> = out.finish.iter().map(|t| t.round() as u64).collect();
    let max_time = max.round() as u64;
    let (histogram, bin_width, min_time) = histogram(&finish, max_time);
    let (unmatched, unmatched_ranks) = unmatched_of(&out.unmatched);
    let timeline = (traced && !out.ops.is_empty()).then(|| net_timeline(s, out, &request.params));
    ScheduleResult {
        ranks: s.ranks(),
        ops: s.ops.len() as u64,
        messages: s.ops.iter().filter(|o| o.kind == Kind::Send).count() as u64,
        events: out.events,
        completes: out.completes(),
        max_time,
        max_rank,
        min_time,
        unmatched,
        unmatched_ranks,
        histogram,
        bin_width,
        critical: Vec::new(),
        critical_steps: 0,
        traced,
        timeline,
        network: Some(Box::new(crate::network::summary(s, run))),
        picture: Some(Box::new(crate::network::NetPicture::new(run, hosts))),
    }
}

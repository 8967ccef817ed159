//! The report of a finished run: statistics, the engine's own quick checks,
//! and the recorded trace (which the independent `checker` re-derives).

use super::{Kind, MessageRecord, Run, RunReport};
use crate::barrier::mesh::LinkId;
use std::cmp::Reverse;

impl Run {
    pub(super) fn report(self) -> RunReport {
        let barriers = self.sim.scenario.barriers as usize;
        let completed = !self.partitioned && self.nodes.iter().all(|s| s.barrier as usize == barriers);
        let mut violations = self.violations;
        let mut delay_ticks = Vec::new();
        for b in 0..barriers {
            let last_arrival = self.arrive.iter().map(|a| a[b]).max().unwrap_or(0);
            let first_leave = self.leave.iter().map(|l| l[b]).min().unwrap_or(0);
            let last_leave = self.leave.iter().map(|l| l[b]).max().unwrap_or(0);
            if completed {
                if first_leave < last_arrival {
                    violations.push(format!(
                        "barrier {b}: a node left at tick {first_leave} before the last arrival at {last_arrival}"
                    ));
                }
                delay_ticks.push(last_leave - last_arrival);
            }
        }
        let messages = self.msgs.len() as u64;
        let hops: u64 = self.msgs.iter().map(|m| u64::from(m.hops)).sum();
        if completed {
            if self.delivered != messages || self.consumed != messages {
                violations.push(format!(
                    "{messages} messages sent, {} delivered, {} consumed",
                    self.delivered, self.consumed
                ));
            }
            if self.barrier_hops.iter().sum::<u64>() != hops || self.hop_events != hops {
                violations.push("hop counts do not add up".into());
            }
        }
        let (max_link_load, max_link) = self
            .link_load
            .iter()
            .enumerate()
            .max_by_key(|&(i, &l)| (l, Reverse(i)))
            .map_or((0, None), |(i, &l)| (l, (l > 0).then(|| self.sim.mesh.endpoints(i as LinkId))));
        let trace = if self.sim.scenario.record {
            self.msgs
                .iter()
                .enumerate()
                .map(|(i, m)| MessageRecord {
                    barrier: m.barrier,
                    level: m.level,
                    kind: m.kind,
                    from: m.from,
                    to: m.to,
                    sent: m.sent,
                    delivered: m.delivered,
                    path: self.routes[i].0.clone(),
                    times: self.routes[i].1.clone(),
                    back_steps: self.routes[i].2.clone(),
                    content: if m.kind == Kind::Gather { m.content } else { 0 },
                    consumed: m.consumed,
                })
                .collect()
        } else {
            Vec::new()
        };
        RunReport {
            completed,
            partitioned: self.partitioned,
            unroutable: self.unroutable,
            safe: violations.is_empty(),
            violations,
            messages,
            hops,
            detour_hops: self.detour_hops,
            back_steps: self.back_steps,
            recording_stopped: self.recording_stopped,
            broken_links: self.sim.router.breaks().count(),
            delay_ticks,
            barrier_messages: self.barrier_messages,
            barrier_hops: self.barrier_hops,
            barrier_detour_hops: self.barrier_detour_hops,
            barrier_back_steps: self.barrier_back_steps,
            total_ticks: if completed { self.leave.iter().map(|l| l[barriers - 1]).max().unwrap_or(0) } else { 0 },
            max_link_load,
            max_link,
            adjustments: self.adjustments,
            decisions: self.decisions,
            arrive: self.arrive,
            leave: self.leave,
            events: self.hop_events,
            trace,
            dropped: self.dropped,
            broken: if self.sim.scenario.record {
                self.sim.router.breaks().links().into_iter().map(|l| self.sim.mesh.endpoints(l)).collect()
            } else {
                Vec::new()
            },
        }
    }
}

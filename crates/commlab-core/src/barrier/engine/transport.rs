//! Messages on the wire: sending (with the dead-end bookkeeping of cut
//! meshes), one hop at a time under link contention, delivery into the
//! receiver's queue, and taking queued messages by slot.

use super::{DroppedSend, Event, Kind, Run};
use crate::barrier::mesh::{NodeId, RouteState};

/// A message in flight or delivered (its route, when recording, is in `Run::routes`).
pub(super) struct Msg {
    pub(super) from: NodeId,
    pub(super) to: NodeId,
    pub(super) barrier: u32,
    pub(super) level: u8,
    pub(super) kind: Kind,
    pub(super) content: u64,
    /// The node it has reached.
    pub(super) at: NodeId,
    /// What it remembers of its route ([`RouteState`]).
    pub(super) detour: RouteState,
    /// Hops taken so far.
    pub(super) hops: u32,
    pub(super) sent: u64,
    /// Tick it was handed to the receiver.
    pub(super) delivered: u64,
    /// Tick and receiver's barrier when taken from the queue.
    pub(super) consumed: Option<(u64, u32)>,
}

/// What a queued message counts as: the literal protocol counts Gather,
/// Release and hand-over messages by kind only, one-phase rounds by barrier and round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Slot {
    Gather(u8),
    Release(u8),
    Round(u8, u32, u32),
    HandUp,
    HandDown,
}

/// Queued messages per slot of one node: a few slots at a time, so a short
/// list (a map per node cost ~250 bytes per node on million-node meshes).
#[derive(Default)]
pub(super) struct SlotCounts(Vec<(Slot, usize)>);

impl SlotCounts {
    pub(super) fn get(&self, slot: Slot) -> usize {
        self.0.iter().find(|(s, _)| *s == slot).map_or(0, |&(_, n)| n)
    }

    pub(super) fn add(&mut self, slot: Slot) {
        match self.0.iter_mut().find(|(s, _)| *s == slot) {
            Some((_, n)) => *n += 1,
            None => self.0.push((slot, 1)),
        }
    }

    pub(super) fn remove(&mut self, slot: Slot, taken: usize) {
        if let Some(i) = self.0.iter().position(|(s, _)| *s == slot) {
            self.0[i].1 -= taken;
            if self.0[i].1 == 0 {
                self.0.swap_remove(i);
            }
        }
    }
}

pub(super) fn slot(m: &Msg) -> Slot {
    match m.kind {
        Kind::Gather => Slot::Gather(m.level),
        Kind::Release(_) => Slot::Release(m.level),
        Kind::Round(r) => Slot::Round(m.level, m.barrier, r),
        Kind::HandUp => Slot::HandUp,
        Kind::HandDown => Slot::HandDown,
    }
}

impl Run {
    pub(super) fn send(&mut self, from: NodeId, to: NodeId, level: u8, kind: Kind, content: u64, t: u64) {
        let barrier = self.nodes[from as usize].barrier;
        if !self.sim.router.reachable(from, to) {
            self.partitioned = true;
            self.unroutable += 1;
            if self.sim.scenario.record {
                self.dropped.push(DroppedSend { barrier, from, to, tick: t });
            }
            return;
        }
        let id = self.msgs.len();
        self.barrier_messages[barrier as usize] += 1;
        if self.sim.scenario.record {
            self.routes.push((Vec::new(), Vec::new(), Vec::new()));
        }
        self.msgs.push(Msg {
            from,
            to,
            barrier,
            level,
            kind,
            content,
            at: from,
            detour: RouteState::default(),
            hops: 0,
            sent: t,
            delivered: u64::MAX,
            consumed: None,
        });
        let depart = t + self.sim.scenario.overhead_ticks;
        if from == to {
            self.push(depart + self.sim.scenario.overhead_ticks, Event::Deliver(id));
        } else {
            self.push(depart, Event::Hop(id));
        }
    }

    /// The message is at its current node at `t` and takes the next link.
    pub(super) fn hop(&mut self, id: usize, t: u64) {
        let mesh = self.sim.mesh;
        let record = self.sim.scenario.record;
        let msg = &mut self.msgs[id];
        let at = msg.at;
        let step = self.sim.router.next_step(msg.from, at, msg.to, msg.hops, &mut msg.detour);
        let (next, direction) = (step.next, step.direction);
        if step.back {
            self.back_steps += 1;
            self.barrier_back_steps[msg.barrier as usize] += 1;
            if record {
                self.routes[id].2.push(msg.hops);
            }
        }
        let slot = at as usize * 4 + direction;
        let start = if self.sim.scenario.contention { t.max(self.link_free[slot]) } else { t };
        self.link_free[slot] = start + 1;
        self.link_load[mesh.link(at, next) as usize] += 1;
        self.hop_events += 1;
        let arrival = start + self.sim.scenario.hop_ticks;
        msg.hops += 1;
        msg.at = next;
        self.barrier_hops[msg.barrier as usize] += 1;
        if record {
            // Nodes visited after `from` and the tick at each, kept beside the
            // messages so unrecorded runs carry no route state per message.
            let (path, times, _) = &mut self.routes[id];
            path.push(next);
            times.push(arrival);
        }
        if next == msg.to {
            if msg.kind == Kind::Gather {
                msg.content += u64::from(msg.hops);
            }
            let detour = u64::from(msg.hops - mesh.distance(msg.from, msg.to));
            self.detour_hops += detour;
            self.barrier_detour_hops[msg.barrier as usize] += detour;
            let done = arrival + self.sim.scenario.overhead_ticks;
            self.push(done, Event::Deliver(id));
        } else {
            self.push(arrival, Event::Hop(id));
        }
        if record && self.hop_events > super::RECORDED_HOPS {
            self.stop_recording();
        }
    }

    /// Drops what a recorded run holds and goes on with counts only.
    fn stop_recording(&mut self) {
        self.sim.scenario.record = false;
        self.recording_stopped = true;
        self.routes = Vec::new();
        self.dropped = Vec::new();
    }

    /// Takes `limit` queued messages of `want` (in arrival order), checking their barrier.
    pub(super) fn take(&mut self, node: NodeId, limit: usize, want: Slot, t: u64) -> Vec<usize> {
        let barrier = self.nodes[node as usize].barrier;
        let mut taken = Vec::with_capacity(limit);
        let msgs = &self.msgs;
        self.nodes[node as usize].queue.retain(|&id| {
            let take = taken.len() < limit && slot(&msgs[id]) == want;
            if take {
                taken.push(id);
            }
            !take
        });
        let state = &mut self.nodes[node as usize];
        state.counts.remove(want, taken.len());
        for &id in &taken {
            let m = &mut self.msgs[id];
            m.consumed = Some((t, barrier));
            if m.barrier != barrier {
                self.violations
                    .push(format!("node {node} consumed a message of barrier {} during barrier {barrier}", m.barrier));
            }
        }
        self.consumed += taken.len() as u64;
        taken
    }

    pub(super) fn count(&self, node: NodeId, want: Slot) -> usize {
        self.nodes[node as usize].counts.get(want)
    }
}

#[cfg(test)]
mod tests {
    use super::{Slot, SlotCounts};

    /// Counts per slot, independent of each other; emptied slots leave the list.
    #[test]
    fn slot_counts_count_per_slot() {
        let mut c = SlotCounts::default();
        for s in [Slot::Gather(0), Slot::Release(0), Slot::Gather(0), Slot::Round(0, 1, 2), Slot::Gather(1)] {
            c.add(s);
        }
        assert_eq!((c.get(Slot::Gather(0)), c.get(Slot::Gather(1)), c.get(Slot::Release(0))), (2, 1, 1));
        assert_eq!(c.get(Slot::Round(0, 1, 2)), 1);
        assert_eq!(c.get(Slot::Round(0, 2, 2)), 0);
        c.remove(Slot::Gather(0), 2);
        assert_eq!(c.get(Slot::Gather(0)), 0);
        assert_eq!(c.0.len(), 3, "an emptied slot leaves the list");
        c.remove(Slot::HandUp, 1);
        assert_eq!(c.0.len(), 3, "removing from an absent slot does nothing");
    }
}

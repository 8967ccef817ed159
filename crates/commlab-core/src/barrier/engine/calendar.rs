//! The event queue of the simulator: per-tick buckets for the near future
//! and an ordered map beyond, popping in `(time, creation)` order.

use crate::barrier::mesh::NodeId;

#[derive(Clone, Copy)]
pub(super) enum Event {
    Enter(NodeId),
    Hop(usize),
    Deliver(usize),
}

/// Ticks the calendar's ring covers ahead of the current tick.
pub(super) const RING: u64 = 256;

/// The event queue: a ring of per-tick buckets for the next [`RING`] ticks
/// (hops and overheads land there) and an ordered map beyond (the compute
/// phases). Within a tick, events come out in creation order, which is the
/// `(time, sequence)` order without storing sequences: events for a far tick
/// are created before any for the same tick in the ring, and move to the ring
/// before any ring event for that tick can be created.
#[derive(Default)]
pub(super) struct Calendar {
    /// The tick being drained.
    now: u64,
    /// Events of the current bucket already returned.
    cursor: usize,
    /// `ring[t % RING]`: the events of tick `t`, `now ≤ t < now + RING`.
    ring: Vec<Vec<Event>>,
    /// Events in the ring.
    in_ring: usize,
    /// Events at `now + RING` or later.
    far: std::collections::BTreeMap<u64, Vec<Event>>,
}

impl Calendar {
    pub(super) fn push(&mut self, time: u64, event: Event) {
        debug_assert!(time >= self.now, "events are never scheduled in the past");
        if self.ring.is_empty() {
            self.ring = vec![Vec::new(); RING as usize];
        }
        if time < self.now + RING {
            self.ring[(time % RING) as usize].push(event);
            self.in_ring += 1;
        } else {
            self.far.entry(time).or_default().push(event);
        }
    }

    /// Moves the far events that the ring now covers into it.
    pub(super) fn migrate(&mut self) {
        while let Some(entry) = self.far.first_entry() {
            if *entry.key() >= self.now + RING {
                break;
            }
            let (time, events) = entry.remove_entry();
            self.in_ring += events.len();
            self.ring[(time % RING) as usize].extend(events);
        }
    }

    pub(super) fn pop(&mut self) -> Option<(u64, Event)> {
        loop {
            if self.ring.is_empty() {
                return None;
            }
            let slot = (self.now % RING) as usize;
            if let Some(&event) = self.ring[slot].get(self.cursor) {
                self.cursor += 1;
                self.in_ring -= 1;
                return Some((self.now, event));
            }
            self.ring[slot].clear();
            self.cursor = 0;
            if self.in_ring == 0 {
                // Jump over idle ticks to the next far event, if any.
                let &next = self.far.keys().next()?;
                self.now = next;
            } else {
                self.now += 1;
            }
            self.migrate();
        }
    }
}

#[cfg(test)]
mod calendar_tests {
    use super::{Calendar, Event, RING};

    fn id(e: Event) -> usize {
        match e {
            Event::Hop(i) | Event::Deliver(i) => i,
            Event::Enter(n) => n as usize,
        }
    }

    /// The calendar pops in `(time, creation)` order, like a heap of `(time, sequence)`.
    #[test]
    fn pops_in_time_then_creation_order() {
        let mut cal = Calendar::default();
        let mut reference = Vec::new();
        let mut seq = 0;
        let mut push = |cal: &mut Calendar, reference: &mut Vec<(u64, usize)>, t: u64| {
            cal.push(t, Event::Hop(seq));
            reference.push((t, seq));
            seq += 1;
        };
        // Far events first (the compute phase), then near ones for the same ticks.
        for t in [500, RING + 3, 2, 500, 0, 2 * RING + 7] {
            push(&mut cal, &mut reference, t);
        }
        let mut out = Vec::new();
        while let Some((t, e)) = cal.pop() {
            out.push((t, id(e)));
            // Each popped event schedules follow-ups, some far, some at the same tick.
            if out.len() < 40 {
                push(&mut cal, &mut reference, t + (out.len() as u64 % 3) * 97);
            }
        }
        reference.sort_by_key(|&(t, s)| (t, s));
        assert_eq!(out, reference);
    }
}

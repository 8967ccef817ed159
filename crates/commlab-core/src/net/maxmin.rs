//! Max–min fair sharing of directed links by flows with equal weights
//! (`docs/network.md` §5): the literal progressive filling, and the
//! incremental form the simulator keeps (only the component of flows linked
//! to a changed link is re-shared; arrivals come from a heap of finish times).

#![allow(clippy::many_single_char_names, reason = "f, d, r: flows, links, routes")]

use super::topology::Dir;
use std::collections::BTreeMap;

/// A flow's rate from `at` on (with `trace`; one entry per change).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateChange {
    /// The message (an index into [`super::sim::NetOutcome::flows`]).
    pub flow: u32,
    /// From when (ns).
    pub at: f64,
    /// Bytes per ns.
    pub rate: f64,
}

/// Two shares this close (relative) are the same level.
const LEVEL: f64 = 1e-12;
/// A flow finishing this close after the first arrives with it, relative to
/// its own transfer (from entering the links to finishing): rounding noise,
/// not time a link could carry bytes in. Relative to the clock instead, a
/// flow of 8 bytes late in a long run (the clock at 10^11 ns) would arrive
/// with one finishing 0.1 ns before it, and its link would carry more than
/// its bandwidth.
const TOGETHER: f64 = 1e-12;
/// And never closer than this many units of the clock's last place (times
/// computed from the same numbers can differ by a few roundings).
const CLOCK_ULPS: f64 = 16.0;

/// The max–min fair rates of `routes` over links of capacities `caps`:
/// raise every unfrozen flow's rate equally; when a link is full, freeze its
/// flows; repeat. Written for clarity (the reference of the tests).
pub fn progressive_filling(caps: &[f64], routes: &[&[Dir]]) -> Vec<f64> {
    let mut rate = vec![0.0; routes.len()];
    let mut frozen = vec![false; routes.len()];
    let mut left = caps.to_vec();
    loop {
        let mut count = vec![0usize; caps.len()];
        for (f, r) in routes.iter().enumerate() {
            if !frozen[f] {
                r.iter().for_each(|&d| count[d as usize] += 1);
            }
        }
        let share =
            (0..caps.len()).filter(|&d| count[d] > 0).map(|d| left[d] / count[d] as f64).fold(f64::INFINITY, f64::min);
        if share == f64::INFINITY {
            return rate;
        }
        let full: Vec<bool> =
            (0..caps.len()).map(|d| count[d] > 0 && left[d] / count[d] as f64 <= share * (1.0 + LEVEL)).collect();
        for (f, r) in routes.iter().enumerate() {
            if !frozen[f] && r.iter().any(|&d| full[d as usize]) {
                frozen[f] = true;
                rate[f] = share;
                r.iter().for_each(|&d| left[d as usize] -= share);
            }
        }
    }
}

/// A flow's finish time as computed at its last re-sharing.
#[derive(Clone, Copy)]
struct Finish {
    time: f64,
    /// The flow's place among flows finishing at the same time.
    order: u32,
    slot: u32,
    version: u32,
}

/// Finish times in buckets per time: many flows finish at the same instant
/// (a collective's step), so a push finds one of a few buckets and an
/// arrival takes whole buckets, where a heap would sift every entry through
/// `log n` levels. Entries of flows re-shared or gone since are stale and
/// skipped when met.
#[derive(Default)]
struct Finishes {
    buckets: BTreeMap<u64, Vec<Finish>>,
    /// Emptied buckets, reused.
    spare: Vec<Vec<Finish>>,
    /// Entries pushed since the last [`Finishes::compact`] (or its count):
    /// at least as many as are held.
    pushed: usize,
}

impl Finishes {
    /// Finish times are ≥ 0, so their bits order like the numbers.
    fn key(time: f64) -> u64 {
        (time + 0.0).max(0.0).to_bits()
    }

    fn push(&mut self, e: Finish) {
        self.pushed += 1;
        let spare = &mut self.spare;
        self.buckets.entry(Self::key(e.time)).or_insert_with(|| spare.pop().unwrap_or_default()).push(e);
    }

    /// Drops the stale entries (`valid` false) of every bucket, keeping
    /// the others in their order: each re-sharing pushes a new entry for
    /// every flow it re-shared, and a large component re-shared at every
    /// event leaves far more stale entries than flows, which every push
    /// and arrival then searches past. What is taken, and in what order,
    /// does not change.
    fn compact(&mut self, valid: impl Fn(&Finish) -> bool) {
        let mut held = 0;
        let spare = &mut self.spare;
        self.buckets.retain(|_, bucket| {
            bucket.retain(|e| valid(e));
            held += bucket.len();
            if bucket.is_empty() {
                spare.push(std::mem::take(bucket));
                false
            } else {
                true
            }
        });
        self.pushed = held;
    }
}

/// A flow in transfer.
#[derive(Clone, Default)]
struct Flow {
    message: u32,
    order: u32,
    remaining: f64,
    rate: f64,
    since: f64,
    /// When it entered its links.
    entered: f64,
    version: u32,
    route: Vec<Dir>,
    /// Its index in each of its links' lists.
    at: Vec<u32>,
    live: bool,
}

/// The flows in transfer and their shares.
pub struct Sharing {
    caps: Vec<f64>,
    /// Per directed link: `(slot, index in the slot's route)`.
    on: Vec<Vec<(u32, u32)>>,
    flows: Vec<Flow>,
    free: Vec<u32>,
    slot_of: Vec<u32>,
    live: usize,
    peak: usize,
    dirty_links: Vec<Dir>,
    finishes: Finishes,
    /// Scratch of a re-sharing, kept for its allocations.
    links: Vec<Dir>,
    slots: Vec<u32>,
    stack: Vec<Dir>,
    // Scratch of a re-sharing, stamped by `epoch`.
    epoch: u32,
    link_seen: Vec<u32>,
    flow_seen: Vec<u32>,
    frozen: Vec<u32>,
    left: Vec<f64>,
    count: Vec<u32>,
    reshares: u64,
    reshared: u64,
    trace: bool,
    rates: Vec<RateChange>,
    /// Stale finish entries allowed beyond 4 per flow before they are dropped.
    compact_slack: usize,
}

impl Sharing {
    /// No flows on links of capacities `caps`.
    pub fn new(caps: Vec<f64>, trace: bool) -> Sharing {
        let n = caps.len();
        Sharing {
            caps,
            on: vec![Vec::new(); n],
            flows: Vec::new(),
            free: Vec::new(),
            slot_of: Vec::new(),
            live: 0,
            peak: 0,
            dirty_links: Vec::new(),
            finishes: Finishes::default(),
            links: Vec::new(),
            slots: Vec::new(),
            stack: Vec::new(),
            epoch: 0,
            link_seen: vec![0; n],
            flow_seen: Vec::new(),
            frozen: Vec::new(),
            left: vec![0.0; n],
            count: vec![0; n],
            reshares: 0,
            reshared: 0,
            compact_slack: 4096,
            trace,
            rates: Vec::new(),
        }
    }

    /// Flows in transfer.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether no flow is in transfer.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Flows in transfer through directed link `d`.
    pub fn count(&self, d: Dir) -> u32 {
        self.on[d as usize].len() as u32
    }

    /// Whether some link changed since the last re-sharing.
    pub fn dirty(&self) -> bool {
        !self.dirty_links.is_empty()
    }

    /// `(message, rate)` of every flow in transfer.
    pub fn active(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.flows.iter().filter(|f| f.live).map(|f| (f.message, f.rate))
    }

    /// Bytes left at `now`, counting the flow's current rate since its last change.
    pub fn remaining_at(&self, m: u32, now: f64) -> Option<f64> {
        let slot = *self.slot_of.get(m as usize)?;
        let f = self.flows.get(slot as usize)?;
        f.live.then_some(f.remaining - f.rate * (now - f.since))
    }

    /// Message `m` enters its transfer at `t` with `bytes` along `route`.
    /// Flows finishing at the same time arrive in increasing `order`.
    pub fn enter(&mut self, m: u32, order: u32, bytes: f64, route: &[Dir], t: f64) {
        let slot = self.free.pop().unwrap_or_else(|| {
            self.flows.push(Flow::default());
            self.flow_seen.push(0);
            self.frozen.push(0);
            (self.flows.len() - 1) as u32
        });
        if self.slot_of.len() <= m as usize {
            self.slot_of.resize(m as usize + 1, u32::MAX);
        }
        self.slot_of[m as usize] = slot;
        let f = &mut self.flows[slot as usize];
        f.message = m;
        f.order = order;
        f.remaining = bytes;
        f.rate = 0.0;
        f.since = t;
        f.entered = t;
        f.version = f.version.wrapping_add(1);
        f.live = true;
        f.route.clear();
        f.route.extend_from_slice(route);
        f.at.clear();
        for (k, &d) in route.iter().enumerate() {
            f.at.push(self.on[d as usize].len() as u32);
            self.on[d as usize].push((slot, k as u32));
            self.dirty_links.push(d);
        }
        self.live += 1;
        self.peak = self.peak.max(self.live);
    }

    /// The earliest finish time of a flow in transfer (valid once re-shared).
    pub fn next_arrival(&mut self) -> Option<f64> {
        if self.dirty() {
            return None;
        }
        let flows = &self.flows;
        let valid = |e: &Finish| flows[e.slot as usize].live && flows[e.slot as usize].version == e.version;
        loop {
            let mut first = self.finishes.buckets.first_entry()?;
            let bucket = first.get_mut();
            // Stale entries leave from the end; one valid entry is enough.
            while bucket.last().is_some_and(|e| !valid(e)) {
                bucket.pop();
            }
            if let Some(e) = bucket.last() {
                return Some(e.time);
            }
            let empty = first.remove();
            self.finishes.spare.push(empty);
        }
    }

    /// Removes every flow finishing at `t` (or within [`TOGETHER`] of its
    /// own transfer after it); returns their messages in finish order.
    pub fn arrive(&mut self, t: f64) -> Vec<u32> {
        let clock = CLOCK_ULPS * f64::EPSILON * t.abs();
        // No flow's transfer began before 0, so none is merged past this.
        let until = t + (TOGETHER * t.abs()).max(clock);
        let mut batch: Vec<Finish> = Vec::new();
        let mut later: Vec<Finish> = Vec::new();
        while let Some(first) = self.finishes.buckets.first_entry() {
            if f64::from_bits(*first.key()) > until {
                break;
            }
            let mut bucket = first.remove();
            let flows = &self.flows;
            for e in bucket.drain(..) {
                let f = &flows[e.slot as usize];
                if !f.live || f.version != e.version {
                    continue;
                }
                if e.time <= t + (TOGETHER * (e.time - f.entered)).max(clock) {
                    batch.push(e);
                } else {
                    later.push(e);
                }
            }
            self.finishes.spare.push(bucket);
        }
        for e in later {
            self.finishes.push(e);
        }
        // By time, then `order`, then slot (times ≥ 0 order like their bits).
        batch.sort_unstable_by_key(|e| (Finishes::key(e.time), e.order, e.slot));
        let mut out = Vec::with_capacity(batch.len());
        for e in batch {
            out.push(self.flows[e.slot as usize].message);
            self.remove(e.slot);
        }
        out
    }

    fn remove(&mut self, slot: u32) {
        let f = std::mem::take(&mut self.flows[slot as usize]);
        for (k, &d) in f.route.iter().enumerate() {
            let list = &mut self.on[d as usize];
            let at = f.at[k] as usize;
            list.swap_remove(at);
            if let Some(&(moved, mk)) = list.get(at) {
                self.flows[moved as usize].at[mk as usize] = at as u32;
            }
            self.dirty_links.push(d);
        }
        let mut f = f;
        f.live = false;
        f.version = f.version.wrapping_add(1);
        self.slot_of[f.message as usize] = u32::MAX;
        self.flows[slot as usize] = f;
        self.free.push(slot);
        self.live -= 1;
    }

    /// Re-shares the component of flows linked to the changed links, at `now`.
    pub fn reshare(&mut self, now: f64) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.link_seen.fill(0);
            self.flow_seen.fill(0);
            self.frozen.fill(0);
            self.epoch = 1;
        }
        let epoch = self.epoch;
        let mut links = std::mem::take(&mut self.links);
        let mut slots = std::mem::take(&mut self.slots);
        links.clear();
        slots.clear();
        let mut stack = std::mem::replace(&mut self.dirty_links, std::mem::take(&mut self.stack));
        while let Some(d) = stack.pop() {
            if self.link_seen[d as usize] == epoch {
                continue;
            }
            self.link_seen[d as usize] = epoch;
            links.push(d);
            for &(slot, _) in &self.on[d as usize] {
                if self.flow_seen[slot as usize] != epoch {
                    self.flow_seen[slot as usize] = epoch;
                    slots.push(slot);
                    let seen = &self.link_seen;
                    stack
                        .extend(self.flows[slot as usize].route.iter().copied().filter(|&e| seen[e as usize] != epoch));
                }
            }
        }
        self.stack = stack;
        self.reshares += 1;
        self.reshared += slots.len() as u64;
        for &slot in &slots {
            let f = &mut self.flows[slot as usize];
            f.remaining -= f.rate * (now - f.since);
            f.since = now;
        }
        // Progressive filling over the component's links.
        links.retain(|&d| !self.on[d as usize].is_empty());
        for &d in &links {
            self.left[d as usize] = self.caps[d as usize];
            self.count[d as usize] = self.on[d as usize].len() as u32;
        }
        let mut unfrozen = slots.len();
        while unfrozen > 0 {
            let share = links
                .iter()
                .filter(|&&d| self.count[d as usize] > 0)
                .map(|&d| self.left[d as usize] / f64::from(self.count[d as usize]))
                .fold(f64::INFINITY, f64::min);
            let bound = share * (1.0 + LEVEL);
            let mut k = 0;
            while k < links.len() {
                let d = links[k] as usize;
                if self.count[d] > 0 && self.left[d] / f64::from(self.count[d]) <= bound {
                    for j in 0..self.on[d].len() {
                        let slot = self.on[d][j].0;
                        if self.frozen[slot as usize] == epoch {
                            continue;
                        }
                        self.frozen[slot as usize] = epoch;
                        unfrozen -= 1;
                        let f = &mut self.flows[slot as usize];
                        let old = f.rate;
                        f.rate = share;
                        for &e in &f.route {
                            self.left[e as usize] -= share;
                            self.count[e as usize] -= 1;
                        }
                        if self.trace && old != share {
                            self.rates.push(RateChange { flow: f.message, at: now, rate: share });
                        }
                    }
                }
                if self.count[d] == 0 {
                    links.swap_remove(k);
                } else {
                    k += 1;
                }
            }
        }
        for &slot in &slots {
            let f = &mut self.flows[slot as usize];
            f.version = f.version.wrapping_add(1);
            let time = now + f.remaining.max(0.0) / f.rate;
            self.finishes.push(Finish { time, order: f.order, slot, version: f.version });
        }
        self.links = links;
        self.slots = slots;
        if self.finishes.pushed > (4 * self.live).saturating_add(self.compact_slack) {
            let flows = &self.flows;
            self.finishes.compact(|e| flows[e.slot as usize].live && flows[e.slot as usize].version == e.version);
        }
    }

    /// The rate trace, `(re-sharings, flows re-shared)`, the most flows at once.
    pub fn finish(self) -> (Vec<RateChange>, (u64, u64), usize) {
        (self.rates, (self.reshares, self.reshared), self.peak)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progressive_filling_by_hand() {
        // Links 0 (cap 1) and 1 (cap 3); flow a on 0, b on 0 and 1, c on 1.
        // Link 0: a and b get 1/2 each; then c takes 3 − 1/2 = 5/2.
        let rates = progressive_filling(&[1.0, 3.0], &[&[0], &[0, 1], &[1]]);
        assert_eq!(rates, vec![0.5, 0.5, 2.5]);
        // k equal flows on one link share it equally.
        assert_eq!(progressive_filling(&[10.0], &[&[0], &[0], &[0], &[0]]), vec![2.5; 4]);
    }

    #[test]
    fn incremental_sharing_equals_progressive_filling() {
        let caps = vec![1.0, 3.0, 2.0];
        let mut s = Sharing::new(caps.clone(), false);
        s.enter(0, 0, 10.0, &[0], 0.0);
        s.enter(1, 1, 10.0, &[0, 1], 0.0);
        s.enter(2, 2, 10.0, &[1], 0.0);
        s.enter(3, 3, 10.0, &[2], 0.0);
        s.reshare(0.0);
        let mut got: Vec<(u32, f64)> = s.active().collect();
        got.sort_by_key(|&(m, _)| m);
        let want = progressive_filling(&caps, &[&[0], &[0, 1], &[1], &[2]]);
        assert_eq!(got.iter().map(|&(_, r)| r).collect::<Vec<_>>(), want);
        // Flow 2 (10 bytes at 5/2) finishes first, at 4; flow 3 (alone at 2) at 5.
        assert_eq!(s.next_arrival(), Some(4.0));
        assert_eq!(s.arrive(4.0), vec![2]);
        // Flow 1 is then alone on link 1 but still held to 1/2 by link 0.
        s.reshare(4.0);
        assert_eq!(s.remaining_at(1, 4.0), Some(8.0));
        assert_eq!(s.next_arrival(), Some(5.0));
    }

    /// Dropping stale finish entries changes nothing: flows entering and
    /// arriving on shared links, with the entries dropped at every
    /// re-sharing and never, arrive in the same order at the same times,
    /// to the bit.
    #[test]
    fn dropping_stale_finishes_changes_nothing() {
        let caps: Vec<f64> = (0..6).map(|k| 1.0 + f64::from(k) * 0.7).collect();
        let run = |slack: usize| {
            let mut s = Sharing::new(caps.clone(), false);
            s.compact_slack = slack;
            let (mut now, mut next, mut log, mut most) = (0.0, 0u32, Vec::new(), 0);
            let mut seed = 12345u64;
            let mut draw = |k: u64| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (seed >> 33) % k
            };
            for _ in 0..400 {
                // A few flows enter over one to three links.
                for _ in 0..draw(3) {
                    let first = draw(6) as Dir;
                    let route: Vec<Dir> = (0..=draw(3) as Dir).map(|i| (first + i) % 6).collect();
                    s.enter(next, next, 1.0 + draw(50) as f64, &route, now);
                    next += 1;
                }
                s.reshare(now);
                most = s.finishes.pushed.max(most);
                let Some(t) = s.next_arrival() else { continue };
                now = t;
                log.push((t.to_bits(), s.arrive(t)));
                s.reshare(now);
            }
            while let Some(t) = s.next_arrival() {
                log.push((t.to_bits(), s.arrive(t)));
                s.reshare(t);
            }
            (log, most)
        };
        let (kept, held_kept) = run(usize::MAX);
        let (dropped, held_dropped) = run(0);
        assert!(kept.len() > 300 && kept.iter().map(|(_, m)| m.len()).sum::<usize>() > 300);
        assert_eq!(kept, dropped);
        // The entries were dropped on the way.
        assert!(held_dropped < held_kept / 4, "{held_dropped} held against {held_kept}");
    }
}

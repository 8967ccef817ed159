//! The schedule's ops as a network run keeps them: one 32-byte record per op
//! holding everything a step reads (what the op is, its unsatisfied
//! dependency count, where its dependents start), stored level by level — the
//! first op of every rank, then the second of every rank, and so on.
//!
//! A schedule stores its ops rank by rank. A collective's ranks move in near
//! lockstep, so in that order a step of p ranks touches p places far apart,
//! each for the first time: on `torus:32x32` the 1 024 streams defeat the
//! prefetcher and most loads miss. Level by level, the same step reads one
//! stretch of memory. The order changes only where ops live: the run's
//! tie-breaks (the ready list, dependency-line order, send order) are those
//! of the schedule, and every op index the run reports is the schedule's.

use crate::goal::sim::{dependents, Dependents, ON_START, RELEASED};
use crate::goal::{Kind, Schedule};

/// An op as the run reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec {
    /// Bytes (send) or ns (calc). A receive's own size is never read (the
    /// sender's is), so its field holds the time it was posted during a run
    /// ([`Rec::posted`]): matching then reads one record, not a second list.
    pub size: u64,
    pub peer: u32,
    pub tag: u32,
    pub rank: u32,
    /// Its dependents are `after[after_first..]` up to the next record's.
    pub after_first: u32,
    /// Unsatisfied dependency lines ([`RELEASED`] once the op is queued).
    pub waiting: i32,
    pub kind: Kind,
    pub cpu: u8,
    pub nic: u8,
}

impl Rec {
    /// A receive: the time it was posted.
    pub fn posted(&self) -> f64 {
        f64::from_bits(self.size)
    }

    /// A receive: posted at `t`.
    pub fn set_posted(&mut self, t: f64) {
        self.size = t.to_bits();
    }
}

/// The records level by level, their dependents, and the way back to the
/// schedule's op indices.
pub(crate) struct Layout {
    pub recs: Vec<Rec>,
    /// Dependents (record indices), `irequires` ones first and marked with
    /// [`ON_START`], each group in dependency-line order.
    pub after: Vec<u32>,
    /// The schedule's index of each record.
    pub orig: Vec<u32>,
    /// Records with nothing to wait for, in the schedule's order.
    pub ready: Vec<u32>,
    /// CPUs and NICs per rank (the largest index + 1).
    pub cpus: usize,
    pub nics: usize,
    /// Send ops, and the smallest and largest message.
    pub sends: usize,
    pub smallest: u64,
    pub largest: u64,
}

/// A tile: this many levels of this many ranks. Its reads (rank by rank)
/// and writes (level by level) stay on a few hundred pages, which the TLB
/// holds; walking a whole level at once would touch a page per rank.
const TILE_LEVELS: usize = 32;
const TILE_RANKS: usize = 64;

/// Visits every op as `(level, schedule index, record index)`, tile by
/// tile. Within a level, ranks come in rank order.
fn tiled(first: &[u32], level_start: &[u32], mut f: impl FnMut(usize, u32, u32)) {
    let ranks = first.len().saturating_sub(1);
    let len = |r: u32| (first[r as usize + 1] - first[r as usize]) as usize;
    let levels = level_start.len().saturating_sub(1);
    let mut active: Vec<u32> = (0..ranks as u32).filter(|&r| len(r) > 0).collect();
    // Per level of the block: its records placed so far.
    let mut placed = [0u32; TILE_LEVELS];
    let mut from = 0;
    while from < levels {
        let to = (from + TILE_LEVELS).min(levels);
        placed.fill(0);
        for chunk in active.chunks(TILE_RANKS) {
            for k in from..to {
                let mut at = placed[k - from];
                for &r in chunk {
                    if len(r) > k {
                        f(k, first[r as usize] + k as u32, level_start[k] + at);
                        at += 1;
                    }
                }
                placed[k - from] = at;
            }
        }
        active.retain(|&r| len(r) > to);
        from = to;
    }
}

impl Layout {
    pub fn new(s: &Schedule) -> Layout {
        let n = s.ops.len();
        let first = &s.first;
        // Dependents in the schedule's order first (its lines are local there).
        let Dependents { after_first: start, after: after_old, waiting } = dependents(s);
        // Level k holds the k-th op of every rank that has one.
        let lens = || first.windows(2).map(|w| (w[1] - w[0]) as usize);
        let levels = lens().max().unwrap_or(0);
        let mut ending = vec![0u32; levels + 1];
        lens().for_each(|l| ending[l] += 1);
        let mut level_start = vec![0u32; levels + 1];
        let mut width = s.ranks() - ending[0];
        for k in 0..levels {
            level_start[k + 1] = level_start[k] + width;
            width -= ending[k + 1];
        }
        let mut perm = vec![0u32; n];
        let mut orig = vec![0u32; n];
        let mut level_deps = vec![0u32; levels + 1];
        tiled(first, &level_start, |k, old, new| {
            perm[old as usize] = new;
            orig[new as usize] = old;
            level_deps[k + 1] += start[old as usize + 1] - start[old as usize];
        });
        for k in 0..levels {
            level_deps[k + 1] += level_deps[k];
        }
        let blank =
            Rec { size: 0, peer: 0, tag: 0, rank: 0, after_first: 0, waiting: 0, kind: Kind::Calc, cpu: 0, nic: 0 };
        let mut recs = vec![blank; n];
        let mut after = vec![0u32; s.deps.len()];
        let (mut cpu, mut nic, mut sends, mut smallest, mut largest) = (0, 0, 0, u64::MAX, 0);
        tiled(first, &level_start, |k, old, new| {
            let op = s.ops[old as usize];
            let at = level_deps[k];
            let (from, to) = (start[old as usize] as usize, start[old as usize + 1] as usize);
            for (slot, &e) in after[at as usize..].iter_mut().zip(&after_old[from..to]) {
                *slot = perm[(e & !ON_START) as usize] | (e & ON_START);
            }
            level_deps[k] = at + (to - from) as u32;
            recs[new as usize] = Rec {
                size: op.size,
                peer: op.peer,
                tag: op.tag,
                rank: op.rank,
                after_first: at,
                waiting: waiting[old as usize],
                kind: op.kind,
                cpu: op.cpu,
                nic: op.nic,
            };
            cpu = cpu.max(op.cpu);
            nic = nic.max(op.nic);
            if op.kind == Kind::Send {
                sends += 1;
                smallest = smallest.min(op.size);
                largest = largest.max(op.size);
            }
        });
        // In the schedule's order, as its ready list.
        let ready = (0..n).filter(|&i| waiting[i] == 0).map(|i| perm[i]).collect();
        Layout {
            recs,
            after,
            orig,
            ready,
            cpus: usize::from(cpu) + 1,
            nics: usize::from(nic) + 1,
            sends,
            smallest,
            largest,
        }
    }

    /// Puts every count back as before a run (after one).
    pub fn reset(&mut self) {
        self.recs.iter_mut().for_each(|r| r.waiting = 0);
        for &y in &self.after {
            self.recs[(y & !ON_START) as usize].waiting += 1;
        }
    }

    /// Marks record `i` as queued.
    pub fn release(&mut self, i: u32) {
        self.recs[i as usize].waiting = RELEASED;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::goal::{Op, ANY};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A schedule of `ranks` ranks of random lengths (some empty, some longer
    /// than a tile) with random `requires` and `irequires` lines within each
    /// rank, in random line order.
    fn random(seed: u64, ranks: u32) -> Schedule {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut s = Schedule::default();
        let mut lines = Vec::new();
        for r in 0..ranks {
            let len = if rng.gen_bool(0.1) { 0 } else { rng.gen_range(1..90) };
            let mut mine = Vec::new();
            for _ in 0..len {
                let kind = [Kind::Send, Kind::Recv, Kind::Calc][rng.gen_range(0..3)];
                let op = Op {
                    kind,
                    size: rng.gen_range(0..1 << 20),
                    peer: if rng.gen_bool(0.1) { ANY } else { rng.gen_range(0..ranks) },
                    tag: rng.gen_range(0..5),
                    cpu: rng.gen_range(0..2),
                    nic: rng.gen_range(0..3),
                    rank: 0,
                };
                let i = s.push(r, op, "");
                for _ in 0..rng.gen_range(0..3) {
                    if let Some(&before) = mine.get(rng.gen_range(0..mine.len().max(1))) {
                        lines.push((i, before, rng.gen_bool(0.3)));
                    }
                }
                mine.push(i);
            }
        }
        s.close(ranks);
        // Lines in a random order: each prerequisite's list keeps line order.
        for k in (1..lines.len()).rev() {
            lines.swap(k, rng.gen_range(0..=k));
        }
        for (dependent, prerequisite, on_start) in lines {
            s.depend(dependent, prerequisite, on_start);
        }
        s
    }

    #[test]
    fn the_layout_holds_every_op_and_every_line_of_the_schedule() {
        for (seed, ranks) in [(1, 1), (2, 7), (3, 64), (4, 65), (5, 200), (6, 3)] {
            let s = random(seed, ranks);
            let lay = Layout::new(&s);
            let n = s.ops.len();
            assert_eq!(lay.recs.len(), n);
            // `orig` is a permutation, level by level: the k-th op of each
            // rank that has one, ranks in order.
            let mut want = Vec::new();
            for k in 0..n {
                want.extend((0..ranks).filter(|&r| s.range(r).len() > k).map(|r| s.first[r as usize] + k as u32));
            }
            assert_eq!(lay.orig, want, "seed {seed}");
            let mut perm = vec![u32::MAX; n];
            for (new, &old) in lay.orig.iter().enumerate() {
                perm[old as usize] = new as u32;
            }
            // Each record is its op; its dependents are the op's lines, on-start
            // ones first, each group in line order; its count is its lines.
            for (new, rec) in lay.recs.iter().enumerate() {
                let old = lay.orig[new];
                let op = s.ops[old as usize];
                assert_eq!(
                    (rec.kind, rec.size, rec.peer, rec.tag, rec.rank, rec.cpu, rec.nic),
                    (op.kind, op.size, op.peer, op.tag, op.rank, op.cpu, op.nic)
                );
                let mut want: Vec<u32> = Vec::new();
                for on_start in [true, false] {
                    want.extend(
                        s.deps
                            .iter()
                            .filter(|&&(_, p, st)| p == old && st == on_start)
                            .map(|&(d, _, _)| perm[d as usize] | if on_start { ON_START } else { 0 }),
                    );
                }
                let end = lay.recs.get(new + 1).map_or(lay.after.len(), |r| r.after_first as usize);
                assert_eq!(&lay.after[rec.after_first as usize..end], want.as_slice(), "seed {seed}, op {old}");
                let waiting = s.deps.iter().filter(|&&(d, _, _)| d == old).count();
                assert_eq!(usize::try_from(rec.waiting), Ok(waiting));
            }
            // The ready list: ops without lines, in the schedule's order.
            let ready: Vec<u32> =
                (0..n as u32).filter(|&i| !s.deps.iter().any(|&(d, _, _)| d == i)).map(|i| perm[i as usize]).collect();
            assert_eq!(lay.ready, ready);
            let sends: Vec<u64> = s.ops.iter().filter(|o| o.kind == Kind::Send).map(|o| o.size).collect();
            assert_eq!(lay.sends, sends.len());
            assert_eq!(lay.largest, sends.iter().copied().max().unwrap_or(0));
            assert_eq!(lay.cpus, 1 + s.ops.iter().map(|o| usize::from(o.cpu)).max().unwrap_or(0));
            assert_eq!(lay.nics, 1 + s.ops.iter().map(|o| usize::from(o.nic)).max().unwrap_or(0));
            // After a reset, the counts are back.
            let mut again = Layout::new(&s);
            again.recs.iter_mut().for_each(|r| r.waiting = RELEASED);
            again.reset();
            assert!(again.recs.iter().zip(&lay.recs).all(|(a, b)| a.waiting == b.waiting));
        }
    }
}

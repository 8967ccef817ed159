//! MPI matching queues: per rank, the posted receives or the unexpected
//! messages, searched for the oldest entry that matches.
//!
//! A rank's queue is a list scanned from its oldest entry while it is short
//! (most ranks of most schedules hold a few entries, and a scan of a few
//! beats any index). Past [`SHORT`] entries it is indexed: buckets by the
//! exact `(source, tag)` key ([`ANY`] being a key like any other), each
//! oldest first, with a sequence number per entry. Every entry of a bucket
//! matches a probe or none does, so the oldest match is the oldest of the
//! matching buckets' fronts: a probe with concrete fields looks at one to
//! four buckets, where a scan took time in the queue's length (a rank of a
//! 16-channel ring on 256 ranks posts 8 160 receives before the first
//! message comes). A wildcard probe (a receive from [`ANY`] source or tag, a
//! send with tag [`ANY`]) looks at every bucket of the rank. An indexed
//! queue turns back into a list when it empties.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::ANY;

/// The longest queue kept as a list.
const SHORT: u32 = 16;

/// The hash of a key: `source · K + tag` in the low bits, which pick the
/// slot, so a rank's receives of one source with consecutive tags (each
/// channel's steps) sit side by side and a run of matches stays in cache;
/// a multiplicative mix in the top 7 bits, which the table compares first.
/// The keys are a schedule's ranks and tags, not an adversary's input (the
/// default `SipHash`, slots scattered, took a quarter of a channelled ring's run).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        const LOW: u64 = (1 << 57) - 1;
        (self.0 & LOW) | (self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) & !LOW)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = self.0.wrapping_mul(0x0001_0000_0000_0F0F).wrapping_add(x);
    }
}

type Hash = BuildHasherDefault<KeyHasher>;

const NIL: u32 = u32::MAX;

/// A list of items threaded through [`MatchQueues::next`].
#[derive(Clone, Copy)]
struct List {
    first: u32,
    last: u32,
    len: u32,
}

const EMPTY: List = List { first: NIL, last: NIL, len: 0 };

/// A rank's list while the rank is indexed (its `len` says so without a
/// lookup; its `first` is the index's slot in [`MatchQueues::indexes`]).
const INDEXED: u32 = u32::MAX;

/// An indexed queue: a list per key, and how many entries have a key
/// holding [`ANY`] (while none does, a concrete probe looks at its own key only).
#[derive(Default)]
struct Index {
    buckets: HashMap<(u32, u32), List, Hash>,
    wild: u32,
    /// The last sequence number given (they order the rank's entries).
    seq: u64,
}

/// Per rank, a matching queue of `u32` items (op or message indices, each
/// in at most one queue at a time), each under the `(source, tag)` key of
/// what it is. Lists are threaded through arrays indexed by the item (no
/// allocation per entry).
pub(crate) struct MatchQueues {
    /// Per rank, its list; while the rank is indexed, `len` is [`INDEXED`]
    /// and `first` the slot of its index.
    lists: Vec<List>,
    /// The indexes of the indexed ranks, and the slots free again.
    indexes: Vec<Index>,
    free: Vec<u32>,
    /// Per item: the next item of its list and (while its rank is indexed)
    /// its sequence number. An item's key is the caller's to look up
    /// (`key_of`: the op's or its message's fields), as a scan needs it.
    next: Vec<u32>,
    seqs: Vec<u64>,
}

/// Whether a receive from `recv_source` with `recv_tag` takes a message from
/// `from` with `tag` (either may be [`ANY`]; a send's tag [`ANY`] matches any
/// receive tag, as in LogGOPSim).
pub(crate) fn matches(recv_source: u32, recv_tag: u32, from: u32, tag: u32) -> bool {
    (recv_source == ANY || recv_source == from) && (recv_tag == ANY || tag == ANY || recv_tag == tag)
}

fn wild(key: (u32, u32)) -> bool {
    key.0 == ANY || key.1 == ANY
}

impl MatchQueues {
    /// Queues for `ranks` ranks, with room for items below `items`.
    pub(crate) fn new(ranks: usize, items: usize) -> MatchQueues {
        MatchQueues {
            lists: vec![EMPTY; ranks],
            indexes: Vec::new(),
            free: Vec::new(),
            next: vec![NIL; items],
            seqs: vec![0; items],
        }
    }

    /// Appends `item` to rank `r`'s queue under `key` (`(source, tag)`;
    /// `key_of` gives any item's).
    pub(crate) fn push(&mut self, r: usize, key: (u32, u32), item: u32, key_of: &dyn Fn(u32) -> (u32, u32)) {
        let e = item as usize;
        if self.next.len() <= e {
            let len = (e + 1).max(self.next.len() * 2);
            self.next.resize(len, NIL);
            self.seqs.resize(len, 0);
        }
        self.next[e] = NIL;
        if self.lists[r].len == INDEXED {
            let index = &mut self.indexes[self.lists[r].first as usize];
            index.wild += u32::from(wild(key));
            index.seq += 1;
            self.seqs[e] = index.seq;
            let bucket = index.buckets.entry(key).or_insert(EMPTY);
            append(&mut self.next, bucket, item);
            return;
        }
        append(&mut self.next, &mut self.lists[r], item);
        if self.lists[r].len > SHORT {
            // Index the rank: its entries move to their buckets, in order.
            let mut index = Index::default();
            let mut at = self.lists[r].first;
            while at != NIL {
                let next = self.next[at as usize];
                let key = key_of(at);
                self.next[at as usize] = NIL;
                index.wild += u32::from(wild(key));
                index.seq += 1;
                self.seqs[at as usize] = index.seq;
                append(&mut self.next, index.buckets.entry(key).or_insert(EMPTY), at);
                at = next;
            }
            let slot = if let Some(slot) = self.free.pop() {
                self.indexes[slot as usize] = index;
                slot
            } else {
                self.indexes.push(index);
                u32::try_from(self.indexes.len() - 1).expect("fewer indexes than ranks")
            };
            self.lists[r] = List { first: slot, last: NIL, len: INDEXED };
        }
    }

    /// In a queue of posted receives (keys: the receives' source and tag),
    /// removes and returns the oldest that takes a message from `from` with `tag`.
    pub(crate) fn take_receive(
        &mut self,
        r: usize,
        (from, tag): (u32, u32),
        key_of: &dyn Fn(u32) -> (u32, u32),
    ) -> Option<u32> {
        let accepts = |(source, t): (u32, u32)| matches(source, t, from, tag);
        if tag == ANY {
            self.take(r, &[], &accepts, key_of)
        } else {
            self.take(r, &[(from, tag), (from, ANY), (ANY, tag), (ANY, ANY)], &accepts, key_of)
        }
    }

    /// In a queue of unexpected messages (keys: the senders and their tags),
    /// removes and returns the oldest that a receive from `source` with `tag` takes.
    pub(crate) fn take_message(
        &mut self,
        r: usize,
        (source, tag): (u32, u32),
        key_of: &dyn Fn(u32) -> (u32, u32),
    ) -> Option<u32> {
        let accepts = |(from, t): (u32, u32)| matches(source, tag, from, t);
        if source == ANY || tag == ANY {
            self.take(r, &[], &accepts, key_of)
        } else {
            self.take(r, &[(source, tag), (source, ANY)], &accepts, key_of)
        }
    }

    /// Rank `r`'s items, oldest first.
    pub(crate) fn items(&self, r: usize) -> Vec<u32> {
        // Each item under its sequence number (a list's place is its own),
        // as one `u64` to sort: the number above, the item below.
        let mut all: Vec<u64> = Vec::new();
        let mut collect = |list: &List, indexed: bool| {
            let mut at = list.first;
            while at != NIL {
                let seq = if indexed { self.seqs[at as usize] } else { all.len() as u64 };
                all.push(seq << 32 | u64::from(at));
                at = self.next[at as usize];
            }
        };
        let list = self.lists[r];
        if list.len == INDEXED {
            for bucket in self.indexes[list.first as usize].buckets.values() {
                collect(bucket, true);
            }
        } else {
            collect(&list, false);
        }
        all.sort_unstable();
        #[allow(clippy::cast_possible_truncation, reason = "the low half is the item")]
        all.into_iter().map(|x| x as u32).collect()
    }

    /// Removes and returns the oldest entry of rank `r` whose key `accepts`:
    /// in a list by a scan; indexed, the oldest front among the buckets
    /// under `keys` (every bucket when `keys` is empty: a wildcard probe).
    fn take(
        &mut self,
        r: usize,
        keys: &[(u32, u32)],
        accepts: &dyn Fn((u32, u32)) -> bool,
        key_of: &dyn Fn(u32) -> (u32, u32),
    ) -> Option<u32> {
        let list = self.lists[r];
        if list.len != INDEXED {
            return take_first(&mut self.next, &mut self.lists[r], &|i| accepts(key_of(i)));
        }
        let index = &mut self.indexes[list.first as usize];
        let seqs = &self.seqs;
        let front = |(k, list): (&(u32, u32), &List)| (seqs[list.first as usize], *k);
        let best = if keys.is_empty() {
            index.buckets.iter().filter(|(k, _)| accepts(**k)).map(front).min()
        } else if index.wild == 0 {
            index.buckets.get_key_value(&keys[0]).map(front)
        } else {
            keys.iter().filter_map(|k| index.buckets.get_key_value(k)).map(front).min()
        }?;
        let key = best.1;
        let bucket = index.buckets.get_mut(&key)?;
        let item = take_first(&mut self.next, bucket, &|_| true)?;
        if bucket.len == 0 {
            index.buckets.remove(&key);
        }
        index.wild -= u32::from(wild(key));
        if index.buckets.is_empty() {
            // Back to a list; the slot's table is kept for the next rank.
            self.free.push(list.first);
            self.lists[r] = EMPTY;
        }
        Some(item)
    }
}

/// Appends `item` (its `next` is [`NIL`]) to `list`.
fn append(next: &mut [u32], list: &mut List, item: u32) {
    if list.first == NIL {
        list.first = item;
    } else {
        next[list.last as usize] = item;
    }
    list.last = item;
    list.len += 1;
}

/// Removes and returns the oldest item of `list` that `accepts`.
fn take_first(next: &mut [u32], list: &mut List, accepts: &dyn Fn(u32) -> bool) -> Option<u32> {
    let (mut prev, mut at) = (NIL, list.first);
    while at != NIL {
        let after = next[at as usize];
        if accepts(at) {
            if prev == NIL {
                list.first = after;
            } else {
                next[prev as usize] = after;
            }
            if list.last == at {
                list.last = prev;
            }
            list.len -= 1;
            return Some(at);
        }
        prev = at;
        at = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue as it was: a list scanned from its oldest entry.
    struct Scanned(Vec<((u32, u32), u32)>);

    impl Scanned {
        fn take(&mut self, accepts: impl Fn((u32, u32)) -> bool) -> Option<u32> {
            let k = self.0.iter().position(|&(key, _)| accepts(key))?;
            Some(self.0.remove(k).1)
        }
    }

    /// A seeded generator (xorshift), enough for drawing test cases.
    fn draws(mut x: u64) -> impl FnMut(u32) -> u32 {
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % u64::from(n)) as u32
        }
    }

    /// A field: one of three values or, one time in four, [`ANY`] (never
    /// with `wild` false).
    fn field(draw: &mut impl FnMut(u32) -> u32, wild: bool) -> u32 {
        match draw(4) {
            0 if wild => ANY,
            _ => draw(3),
        }
    }

    #[test]
    fn the_oldest_match_as_a_scan_finds_it() {
        for seed in 1..40 {
            let mut draw = draws(seed * 7919);
            let (mut posted, mut posted_scan) = (MatchQueues::new(1, 0), Scanned(Vec::new()));
            let (mut unexpected, mut unexpected_scan) = (MatchQueues::new(1, 0), Scanned(Vec::new()));
            // Each item's key, as the simulators look it up in their ops.
            let mut keys = vec![(0, 0); 2000];
            for item in 0..2000 {
                let wild = seed % 3 != 0;
                let (a, b) = (field(&mut draw, wild), field(&mut draw, wild));
                // Odd seeds take more than they push: the queues empty
                // and grow again, crossing between list and index.
                let op = if seed % 2 == 0 { draw(4) } else { [0, 1, 2, 3, 2, 3][draw(6) as usize] };
                match op {
                    0 => {
                        keys[item as usize] = (a, b);
                        posted.push(0, (a, b), item, &|i| keys[i as usize]);
                        posted_scan.0.push(((a, b), item));
                    }
                    1 => {
                        // A message's source is a rank, never ANY.
                        let from = a % 3;
                        keys[item as usize] = (from, b);
                        unexpected.push(0, (from, b), item, &|i| keys[i as usize]);
                        unexpected_scan.0.push(((from, b), item));
                    }
                    2 => {
                        let from = a % 3;
                        let want = posted_scan.take(|(source, tag)| matches(source, tag, from, b));
                        assert_eq!(
                            posted.take_receive(0, (from, b), &|i| keys[i as usize]),
                            want,
                            "seed {seed}, message ({from}, {b})"
                        );
                    }
                    _ => {
                        let want = unexpected_scan.take(|(from, tag)| matches(a, b, from, tag));
                        assert_eq!(
                            unexpected.take_message(0, (a, b), &|i| keys[i as usize]),
                            want,
                            "seed {seed}, receive ({a}, {b})"
                        );
                    }
                }
            }
            let left: Vec<u32> = posted_scan.0.iter().map(|&(_, i)| i).collect();
            assert_eq!(posted.items(0), left);
            let left: Vec<u32> = unexpected_scan.0.iter().map(|&(_, i)| i).collect();
            assert_eq!(unexpected.items(0), left);
        }
    }
}

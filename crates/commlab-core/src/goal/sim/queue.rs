//! The simulator's event queue: entries ordered by `(time, seq)`, in
//! buckets per time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What an event is about.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Item {
    /// An op of the schedule.
    Op(u32),
    /// A message.
    Message(u32),
}

/// The event queue: entries ordered by `(time, seq)`. Many events share a
/// time, so entries sit in buckets per time (an ordered map). A new entry has
/// the largest `seq` so far, so a bucket's new entries form a FIFO in `seq`
/// order; only entries put back (older `seq`) need a small heap. A pop then
/// compares two candidates instead of sifting a heap of every entry.
/// Generic over the item (the network mode keys its times by their `f64`
/// bits, which order like the numbers for times ≥ 0).
pub(crate) struct Queue<I = Item> {
    /// The earliest time's bucket, held out of the map (its time is below
    /// every key there): most pushes are at the current time (dependents
    /// released now) and every pop takes from it, so neither searches the map.
    front: Option<(u64, Bucket<I>)>,
    buckets: std::collections::BTreeMap<u64, Bucket<I>>,
    /// Emptied buckets, reused (their allocations kept).
    spare: Vec<Bucket<I>>,
}

impl<I> Default for Queue<I> {
    fn default() -> Self {
        Queue { front: None, buckets: std::collections::BTreeMap::new(), spare: Vec::new() }
    }
}

struct Bucket<I> {
    fresh: std::collections::VecDeque<(u64, I)>,
    put_back: BinaryHeap<Reverse<(u64, I)>>,
}

impl<I: Ord> Default for Bucket<I> {
    fn default() -> Self {
        Bucket { fresh: std::collections::VecDeque::new(), put_back: BinaryHeap::new() }
    }
}

impl<I: Ord + Copy> Queue<I> {
    /// The bucket of `time`, created if need be.
    fn bucket(&mut self, time: u64) -> &mut Bucket<I> {
        if let Some((t, _)) = &self.front {
            if time < *t {
                // Earlier than the front: the front goes back to the map.
                if let Some((t, b)) = self.front.take() {
                    self.buckets.insert(t, b);
                }
            }
        }
        match &mut self.front {
            Some((t, b)) if *t == time => b,
            _ => {
                let spare = &mut self.spare;
                self.buckets.entry(time).or_insert_with(|| spare.pop().unwrap_or_default())
            }
        }
    }

    /// A new entry (`seq` larger than every earlier one).
    pub(crate) fn push(&mut self, time: u64, seq: u64, item: I) {
        self.bucket(time).fresh.push_back((seq, item));
    }

    /// An entry put back with its old `seq`.
    pub(crate) fn put_back(&mut self, time: u64, seq: u64, item: I) {
        self.bucket(time).put_back.push(Reverse((seq, item)));
    }

    /// The earliest entry's time.
    pub(crate) fn peek_time(&self) -> Option<u64> {
        match &self.front {
            Some((t, _)) => Some(*t),
            None => self.buckets.first_key_value().map(|(&t, _)| t),
        }
    }

    /// Whether no entry is left.
    pub(crate) fn is_empty(&self) -> bool {
        self.front.is_none() && self.buckets.is_empty()
    }

    pub(crate) fn pop(&mut self) -> Option<(u64, u64, I)> {
        if self.front.is_none() {
            self.front = Some(self.buckets.pop_first()?);
        }
        let (time, bucket) = self.front.as_mut()?;
        let time = *time;
        let from_heap = match (bucket.fresh.front(), bucket.put_back.peek()) {
            (Some(f), Some(Reverse(h))) => h.0 < f.0,
            (None, _) => true,
            (Some(_), None) => false,
        };
        let (seq, item) = if from_heap {
            bucket.put_back.pop().expect("one side has an entry").0
        } else {
            bucket.fresh.pop_front().expect("checked")
        };
        if bucket.fresh.is_empty() && bucket.put_back.is_empty() {
            if let Some((_, b)) = self.front.take() {
                self.spare.push(b);
            }
        }
        Some((time, seq, item))
    }
}

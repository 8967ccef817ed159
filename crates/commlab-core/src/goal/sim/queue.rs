//! The simulator's event queue: entries ordered by `(time, seq)`, in
//! buckets per time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// What an event is about.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Item {
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
#[derive(Default)]
pub(super) struct Queue {
    buckets: std::collections::BTreeMap<u64, Bucket>,
    /// Emptied buckets, reused (their allocations kept).
    spare: Vec<Bucket>,
}

#[derive(Default)]
struct Bucket {
    fresh: std::collections::VecDeque<(u64, Item)>,
    put_back: BinaryHeap<Reverse<(u64, Item)>>,
}

impl Queue {
    /// A new entry (`seq` larger than every earlier one).
    pub(super) fn push(&mut self, time: u64, seq: u64, item: Item) {
        let spare = &mut self.spare;
        self.buckets.entry(time).or_insert_with(|| spare.pop().unwrap_or_default()).fresh.push_back((seq, item));
    }

    /// An entry put back with its old `seq`.
    pub(super) fn put_back(&mut self, time: u64, seq: u64, item: Item) {
        let spare = &mut self.spare;
        self.buckets.entry(time).or_insert_with(|| spare.pop().unwrap_or_default()).put_back.push(Reverse((seq, item)));
    }

    /// Whether no entry is left.
    pub(super) fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }

    pub(super) fn pop(&mut self) -> Option<(u64, u64, Item)> {
        let mut first = self.buckets.first_entry()?;
        let time = *first.key();
        let bucket = first.get_mut();
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
            let bucket = first.remove();
            self.spare.push(bucket);
        }
        Some((time, seq, item))
    }
}

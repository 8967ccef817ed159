//! LogGOPS simulation of a GOAL [`Schedule`], following LogGOPSim's default
//! `LogGP` backend rule by rule (`docs/loggops.md`): the event queue ordered
//! by `(time, seq)`, resources put back without a new `seq`, posted and
//! unexpected queues searched from the oldest entry, eager and rendezvous
//! messages, ready lists queued in ascending rank order and ordered by kind.

#![allow(clippy::many_single_char_names, reason = "the rule names of docs/loggops.md: t, r, c, n, p, q")]

pub(crate) mod queue;
mod sort;

pub use sort::libstdcxx_sort;

use super::matching::MatchQueues;
use super::{Kind, Schedule};
use queue::{Item, Queue};
use std::borrow::Borrow;

/// The LogGOPS parameters (ns and bytes); defaults are LogGOPSim's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    /// Latency.
    pub l: u64,
    /// CPU overhead per message.
    pub o: u64,
    /// NIC gap per message.
    pub g: u64,
    /// NIC gap per byte after the first.
    pub big_g: u64,
    /// CPU overhead per byte after the first.
    pub big_o: u64,
    /// Largest eager message; larger ones use rendezvous.
    pub s: u64,
}

impl Default for Params {
    fn default() -> Params {
        Params { l: 2500, o: 1500, g: 1000, big_g: 6, big_o: 0, s: 65535 }
    }
}

/// How a ready list is ordered by kind (sends, receives, calcs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// A stable sort: file order within a kind (commlab's rule).
    #[default]
    Stable,
    /// GCC libstdc++'s `std::sort`, as LogGOPSim compiled with it orders
    /// (differs from stable above 16 entries).
    Libstdcxx,
}

/// One operation's span in the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpSpan {
    /// Rank.
    pub rank: u32,
    /// Global op index.
    pub op: u32,
    /// When it started (ns).
    pub start: u64,
    /// When it completed (ns).
    pub end: u64,
}

/// One message: sent, taken in by the receiver's CPU, matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageSpan {
    /// Sending rank.
    pub from: u32,
    /// Receiving rank.
    pub to: u32,
    /// The send op.
    pub send: u32,
    /// The receive op that took it.
    pub recv: u32,
    /// The send's start (its CPU span on the sender begins here).
    pub start: u64,
    /// When the receiver's CPU began taking it in (its arrival span).
    pub arrived: u64,
    /// When it met its receive.
    pub matched: u64,
    /// Bytes.
    pub size: u64,
    /// The CPU index it uses on both sides (the send's).
    pub cpu: u8,
}

/// What a CPU was busy with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Op `i` (a calc, or a send's overhead).
    Op(u32),
    /// Taking in the message sent by op `i`.
    Arrival(u32),
}

/// A stretch of time one CPU of one rank was busy (never overlapping another
/// span of the same CPU).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuSpan {
    /// Rank.
    pub rank: u32,
    /// CPU index.
    pub cpu: u8,
    /// Start (ns).
    pub start: u64,
    /// End (ns).
    pub end: u64,
    /// What it did.
    pub work: Work,
}

/// A stretch of time one NIC of one rank was busy sending (`out`) or
/// receiving a message (never overlapping another span of the same side).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicSpan {
    /// Rank.
    pub rank: u32,
    /// NIC index.
    pub nic: u8,
    /// The send side (else the receive side).
    pub out: bool,
    /// Start (ns).
    pub start: u64,
    /// End (ns).
    pub end: u64,
    /// The send op of the message.
    pub send: u32,
}

/// What a simulation gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Per rank, the largest CPU "free from" time (NIC time does not count).
    pub finish: Vec<u64>,
    /// Ops that became ready plus messages sent (LogGOPSim's event count).
    pub events: u64,
    /// Per rank, the posted receives and unexpected messages left at the end
    /// (empty everywhere when the run completes).
    pub unmatched: Vec<Vec<String>>,
    /// With [`simulate`]'s `trace`: every op's span, in completion order.
    pub ops: Vec<OpSpan>,
    /// With `trace`: every matched message.
    pub messages: Vec<MessageSpan>,
    /// With `trace`: every CPU's busy spans.
    pub cpu: Vec<CpuSpan>,
    /// With `trace`: every NIC's busy spans.
    pub nic: Vec<NicSpan>,
}

impl Outcome {
    /// Whether every posted receive and every message was matched.
    pub fn completes(&self) -> bool {
        self.unmatched.iter().all(Vec::is_empty)
    }

    /// `(max finish time, lowest rank with it)`.
    pub fn max(&self) -> (u64, u32) {
        let mut best = (0, 0);
        for (r, &t) in self.finish.iter().enumerate() {
            if t > best.0 {
                best = (t, r as u32);
            }
        }
        best
    }
}

/// A receive op's matching key: its source and tag.
fn receive_key(ops: &[super::Op]) -> impl Fn(u32) -> (u32, u32) + '_ {
    move |i| (ops[i as usize].peer, ops[i as usize].tag)
}

/// A message's matching key: its send op's rank and tag.
fn message_key<'a>(ops: &'a [super::Op], messages: &'a [Sent]) -> impl Fn(u32) -> (u32, u32) + 'a {
    move |m| {
        let send = ops[messages[m as usize].send as usize];
        (send.rank, send.tag)
    }
}

/// Marks an `irequires` dependent in [`Sim::after`] (op indices stay below 2^31).
pub(crate) const ON_START: u32 = 1 << 31;

/// `waiting` of an op already made ready: far below 0, so later decrements never reach 0.
pub(crate) const RELEASED: i32 = i32::MIN / 2;

/// A message as stored: its send op and when it was sent (16 bytes; the
/// rest is the send op's, see [`Sim::msg`]).
#[derive(Clone, Copy)]
struct Sent {
    send: u32,
    start: u64,
}

/// A message with the send op's fields, built on demand.
#[derive(Clone, Copy)]
struct Message {
    from: u32,
    to: u32,
    tag: u32,
    size: u64,
    send: u32,
    cpu: u8,
    nic: u8,
    start: u64,
}

struct Sim<S: Borrow<Schedule>> {
    s: S,
    p: Params,
    order: Order,
    cpus: usize,
    nics: usize,
    cpu: Vec<u64>,
    nout: Vec<u64>,
    nin: Vec<u64>,
    /// Dependents of each op, in dependency-line order: `(dependent, on start)`.
    after_first: Vec<u32>,
    /// Per op, its `irequires` dependents first (marked with [`ON_START`]),
    /// then its `requires` dependents, each group in dependency-line order.
    after: Vec<u32>,
    /// Unsatisfied dependency lines per op; [`RELEASED`] once it was made ready
    /// (a second completion of an eager send then never releases it again).
    waiting: Vec<i32>,
    queue: Queue,
    seq: u64,
    messages: Vec<Sent>,
    /// Posted receives per rank (op indices), oldest first.
    prq: MatchQueues,
    /// Unexpected messages per rank (message indices), oldest first.
    uq: MatchQueues,
    /// Ops freed by the current handler, `(rank, op)` in release order.
    freed: Vec<(u32, u32)>,
    started: Vec<u64>,
    trace: bool,
    spans: Vec<OpSpan>,
    message_spans: Vec<MessageSpan>,
    cpu_spans: Vec<CpuSpan>,
    nic_spans: Vec<NicSpan>,
    /// Per message, when the receiver's CPU began taking it in.
    arrived: Vec<u64>,
    /// Events of a run that completes.
    expected: u64,
}

/// Every op's dependents in one array (`after[after_first[i]..after_first[i + 1]]`):
/// its `irequires` dependents first (marked with [`ON_START`]), then its
/// `requires` dependents, each group in dependency-line order; and the
/// unsatisfied dependency lines per op.
pub(crate) struct Dependents {
    pub(crate) after_first: Vec<u32>,
    pub(crate) after: Vec<u32>,
    pub(crate) waiting: Vec<i32>,
}

pub(crate) fn dependents(s: &Schedule) -> Dependents {
    let n = s.ops.len();
    // Count per prerequisite (as running ends), then fill each list from its
    // end backwards, `requires` lines before `irequires` ones, both walked in
    // reverse line order: each group lands in line order, on-start first, and
    // every end has moved back to its list's start (no second cursor array).
    let mut after_first = vec![0u32; n + 1];
    let mut waiting = vec![0i32; n];
    for &(dependent, prerequisite, _) in &s.deps {
        after_first[prerequisite as usize] += 1;
        waiting[dependent as usize] += 1;
    }
    let mut sum = 0;
    for end in &mut after_first {
        sum += *end;
        *end = sum;
    }
    let mut after = vec![0u32; s.deps.len()];
    for on_start in [false, true] {
        for &(dependent, prerequisite, line_on_start) in s.deps.iter().rev() {
            if line_on_start == on_start {
                let end = &mut after_first[prerequisite as usize];
                *end -= 1;
                after[*end as usize] = dependent | if on_start { ON_START } else { 0 };
            }
        }
    }
    Dependents { after_first, after, waiting }
}

/// Simulates `s` under `p`. `trace` keeps every op's span and every message.
pub fn simulate(s: &Schedule, p: Params, order: Order, trace: bool) -> Outcome {
    let mut run = Simulation::new(s, p, order, trace);
    while !run.advance(u64::MAX) {}
    run.finish().0
}

/// A simulation advanced in slices of events ([`Simulation::advance`]), so a
/// worker can report progress and a page can run it between frames. It owns
/// or borrows its schedule (`S` is `Schedule` or `&Schedule`).
pub struct Simulation<S: Borrow<Schedule>>(Sim<S>);

impl<S: Borrow<Schedule>> Simulation<S> {
    /// Prepares the run: dependency lists, the ops ready at time 0.
    pub fn new(schedule: S, p: Params, order: Order, trace: bool) -> Simulation<S> {
        let s = schedule.borrow();
        let ranks = s.ranks() as usize;
        let cpus = 1 + s.ops.iter().map(|o| usize::from(o.cpu)).max().unwrap_or(0);
        let nics = 1 + s.ops.iter().map(|o| usize::from(o.nic)).max().unwrap_or(0);
        let n = s.ops.len();
        let Dependents { after_first, after, waiting } = dependents(s);
        let sends = s.ops.iter().filter(|o| o.kind == Kind::Send).count();
        let expected = (n + sends) as u64;
        let mut sim = Sim {
            s: schedule,
            p,
            order,
            cpus,
            nics,
            cpu: vec![0; ranks * cpus],
            nout: vec![0; ranks * nics],
            nin: vec![0; ranks * nics],
            after_first,
            after,
            waiting,
            queue: Queue::default(),
            seq: 0,
            messages: Vec::with_capacity(sends),
            prq: MatchQueues::new(ranks, n),
            uq: MatchQueues::new(ranks, 0),
            freed: Vec::new(),
            started: if trace { vec![0; n] } else { Vec::new() },
            trace,
            spans: Vec::new(),
            message_spans: Vec::new(),
            cpu_spans: Vec::new(),
            nic_spans: Vec::new(),
            arrived: Vec::new(),
            expected,
        };
        for r in 0..ranks as u32 {
            let s = sim.s.borrow();
            let mut ready: Vec<(u32, u32)> =
                s.range(r).map(|i| (r, i as u32)).filter(|&(_, i)| sim.waiting[i as usize] == 0).collect();
            for &(_, i) in &ready {
                sim.waiting[i as usize] = RELEASED;
            }
            sim.sort(&mut ready);
            for (_, i) in ready {
                sim.push(0, Item::Op(i));
            }
        }
        Simulation(sim)
    }

    /// Handles at most `events` queue entries; `true` once the queue is empty.
    pub fn advance(&mut self, events: u64) -> bool {
        let sim = &mut self.0;
        for _ in 0..events {
            let Some((t, seq, item)) = sim.queue.pop() else { return true };
            match item {
                Item::Op(i) => sim.op(t, seq, i),
                Item::Message(m) => sim.message(t, seq, m),
            }
            sim.queue_freed();
        }
        sim.queue.is_empty()
    }

    /// `(events so far, events of a run that completes)`: every op once, every send's message once.
    pub fn progress(&self) -> (u64, u64) {
        (self.0.seq.min(self.0.expected), self.0.expected)
    }

    /// The outcome (call once [`Simulation::advance`] returned `true`), and the schedule back.
    pub fn finish(self) -> (Outcome, S) {
        let sim = self.0;
        let s = sim.s.borrow();
        let ranks = s.ranks() as usize;
        let cpus = sim.cpus;
        let finish = (0..ranks).map(|r| sim.cpu[r * cpus..(r + 1) * cpus].iter().copied().max().unwrap_or(0)).collect();
        let unmatched = (0..ranks)
            .map(|r| {
                let posted = sim.prq.items(r).into_iter().map(|i| format!("posted receive {}", s.describe(i)));
                let unexpected = sim.uq.items(r).into_iter().map(|m| {
                    let msg = sim.messages[m as usize];
                    format!("unexpected message from rank {}: {}", s.rank_of(msg.send), s.describe(msg.send))
                });
                posted.chain(unexpected).collect()
            })
            .collect();
        let outcome = Outcome {
            finish,
            events: sim.seq,
            unmatched,
            ops: sim.spans,
            messages: sim.message_spans,
            cpu: sim.cpu_spans,
            nic: sim.nic_spans,
        };
        (outcome, sim.s)
    }
}

impl<S: Borrow<Schedule>> Sim<S> {
    fn push(&mut self, t: u64, item: Item) {
        self.queue.push(t, self.seq, item);
        self.seq += 1;
    }

    /// Orders `(rank, op)` entries by the op's kind (§7).
    fn sort(&self, ops: &mut [(u32, u32)]) {
        let kind = |&(_, i): &(u32, u32)| self.s.borrow().ops[i as usize].kind;
        match self.order {
            Order::Stable => ops.sort_by_key(kind),
            Order::Libstdcxx => libstdcxx_sort(ops, &|a, b| kind(a) < kind(b)),
        }
    }

    fn visit(&mut self, x: u32, on_start: bool) {
        let (from, to) = (self.after_first[x as usize] as usize, self.after_first[x as usize + 1] as usize);
        for k in from..to {
            let entry = self.after[k];
            if (entry & ON_START != 0) != on_start {
                if on_start {
                    break; // the on-start group is over
                }
                continue;
            }
            let y = entry & !ON_START;
            self.waiting[y as usize] -= 1;
            if self.waiting[y as usize] == 0 {
                self.waiting[y as usize] = RELEASED;
                self.freed.push((self.s.borrow().rank_of(y), y));
            }
        }
    }

    fn start(&mut self, x: u32, t: u64) {
        if self.trace {
            self.started[x as usize] = t;
        }
        self.visit(x, true);
    }

    fn complete(&mut self, x: u32, t: u64) {
        if self.trace {
            self.spans.push(OpSpan {
                rank: self.s.borrow().rank_of(x),
                op: x,
                start: self.started[x as usize],
                end: t,
            });
        }
        self.visit(x, false);
    }

    /// After a handler: the freed ops, rank by rank in ascending order, each
    /// rank's ordered by kind, queued at the time their resources free up.
    fn queue_freed(&mut self) {
        if self.freed.is_empty() {
            return;
        }
        let mut freed = std::mem::take(&mut self.freed);
        freed.sort_by_key(|&(r, _)| r); // stable: release order kept within a rank
        let mut at = 0;
        while at < freed.len() {
            let r = freed[at].0;
            let end = at + freed[at..].iter().take_while(|f| f.0 == r).count();
            self.sort(&mut freed[at..end]);
            for &(_, i) in &freed[at..end] {
                let op = self.s.borrow().ops[i as usize];
                let c = r as usize * self.cpus + usize::from(op.cpu);
                let time = match op.kind {
                    Kind::Send => self.cpu[c].max(self.nout[r as usize * self.nics + usize::from(op.nic)]),
                    Kind::Recv | Kind::Calc => self.cpu[c],
                };
                self.push(time, Item::Op(i));
            }
            at = end;
        }
        freed.clear();
        self.freed = freed;
    }

    fn op(&mut self, t: u64, seq: u64, i: u32) {
        let op = self.s.borrow().ops[i as usize];
        let r = self.s.borrow().rank_of(i) as usize;
        let c = r * self.cpus + usize::from(op.cpu);
        let nc = r * self.nics + usize::from(op.nic);
        let p = self.p;
        match op.kind {
            Kind::Calc => {
                if self.cpu[c] > t {
                    self.queue.put_back(self.cpu[c], seq, Item::Op(i));
                    return;
                }
                self.cpu[c] = t.wrapping_add(op.size);
                self.busy(r, op.cpu, t, self.cpu[c], Work::Op(i));
                self.start(i, t);
                self.complete(i, t.wrapping_add(op.size));
            }
            Kind::Send => {
                let a = self.cpu[c].max(self.nout[nc]);
                if a > t {
                    self.queue.put_back(a, seq, Item::Op(i));
                    return;
                }
                self.start(i, t);
                let bytes = op.size.wrapping_sub(1);
                self.cpu[c] = t.wrapping_add(p.o).wrapping_add(bytes.wrapping_mul(p.big_o));
                self.nout[nc] = t.wrapping_add(p.g).wrapping_add(bytes.wrapping_mul(p.big_g));
                self.busy(r, op.cpu, t, self.cpu[c], Work::Op(i));
                if self.trace {
                    let (rank, nic, end) = (r as u32, op.nic, self.nout[nc]);
                    self.nic_spans.push(NicSpan { rank, nic, out: true, start: t, end, send: i });
                }
                let m = self.messages.len() as u32;
                self.messages.push(Sent { send: i, start: t });
                self.push(t.wrapping_add(p.o).wrapping_add(p.l), Item::Message(m));
                if op.size <= p.s {
                    self.complete(i, t);
                }
            }
            Kind::Recv => {
                self.start(i, t);
                let ops = &self.s.borrow().ops;
                let found = self.uq.take_message(r, (op.peer, op.tag), &message_key(ops, &self.messages));
                match found {
                    // At a posted receive the receive's size and indices decide (§4.1).
                    Some(m) => self.match_made(m, i, op.size, (op.cpu, op.nic), t),
                    None => self.prq.push(r, (op.peer, op.tag), i, &receive_key(ops)),
                }
            }
        }
    }

    /// Message `m` with its send op's fields.
    fn msg(&self, m: u32) -> Message {
        let Sent { send, start } = self.messages[m as usize];
        let op = self.s.borrow().ops[send as usize];
        Message { from: op.rank, to: op.peer, tag: op.tag, size: op.size, send, cpu: op.cpu, nic: op.nic, start }
    }

    fn message(&mut self, t: u64, seq: u64, m: u32) {
        let msg = self.msg(m);
        let r = msg.to as usize;
        let c = r * self.cpus + usize::from(msg.cpu);
        let nc = r * self.nics + usize::from(msg.nic);
        let a = self.cpu[c].max(self.nin[nc]);
        if a > t {
            self.queue.put_back(a, seq, Item::Message(m));
            return;
        }
        let p = self.p;
        let bytes = msg.size.wrapping_sub(1);
        self.cpu[c] = t.wrapping_add(p.o).wrapping_add(bytes.wrapping_mul(p.big_o).max(bytes.wrapping_mul(p.big_g)));
        self.nin[nc] = t.wrapping_add(p.g).wrapping_add(bytes.wrapping_mul(p.big_g));
        if self.trace {
            self.busy(r, msg.cpu, t, self.cpu[c], Work::Arrival(msg.send));
            let (rank, nic, end) = (r as u32, msg.nic, self.nin[nc]);
            self.nic_spans.push(NicSpan { rank, nic, out: false, start: t, end, send: msg.send });
            self.arrived.resize(self.messages.len(), 0);
            self.arrived[m as usize] = t;
        }
        let ops = &self.s.borrow().ops;
        let found = self.prq.take_receive(r, (msg.from, msg.tag), &receive_key(ops));
        if let Some(i) = found {
            // At an arrival the message's size and the send's indices decide.
            self.match_made(m, i, msg.size, (msg.cpu, msg.nic), t);
        } else {
            self.uq.push(r, (msg.from, msg.tag), m, &message_key(ops, &self.messages));
        }
    }

    /// Message `m` meets receive `i` at `t`. Above the eager limit (`size`,
    /// the receive's or the message's as the path says) the send completes now
    /// and its rank's CPU and NIC (`units`: cpu and nic indices, again as the
    /// path says) wait until now; then the receive completes.
    fn match_made(&mut self, m: u32, i: u32, size: u64, (cpu, nic): (u8, u8), t: u64) {
        let msg = self.msg(m);
        if size > self.p.s {
            self.complete(msg.send, t);
            let q = msg.from as usize;
            let (qc, qn) = (q * self.cpus + usize::from(cpu), q * self.nics + usize::from(nic));
            self.cpu[qc] = self.cpu[qc].max(t);
            self.nout[qn] = self.nout[qn].max(t);
        }
        self.matched(m, i, t);
        self.complete(i, t);
    }

    fn busy(&mut self, rank: usize, cpu: u8, start: u64, end: u64, work: Work) {
        if self.trace {
            self.cpu_spans.push(CpuSpan { rank: rank as u32, cpu, start, end, work });
        }
    }

    fn matched(&mut self, m: u32, recv: u32, t: u64) {
        if self.trace {
            let msg = self.msg(m);
            self.message_spans.push(MessageSpan {
                from: msg.from,
                to: msg.to,
                send: msg.send,
                recv,
                start: msg.start,
                arrived: self.arrived.get(m as usize).copied().unwrap_or(t),
                matched: t,
                size: msg.size,
                cpu: msg.cpu,
            });
        }
    }
}

//! A GOAL schedule on a network (`docs/network.md` §4–5): LogGOPS's CPU
//! rules (`o`, `O`, the send gap `g`, the eager limit `S`) with the network
//! in place of `L` and `G`. A message is a flow along its route: it spends
//! the route's latency, then holds its max–min share until its bytes are
//! through.
//!
//! Rates change only when a flow enters its transfer or arrives. Only the
//! flows connected to a changed link (through shared links) are re-shared,
//! and the next arrival comes from a heap of finish times, so a step costs the
//! size of the affected component, not of every flow in the network.

#![allow(clippy::many_single_char_names, reason = "the names of docs/network.md: t, m, i, r, c, n, p")]

use super::layout::{Layout, Rec};
pub use super::maxmin::RateChange;
use super::maxmin::{self, Sharing};
use super::topology::{Dir, Network, Placement};
use crate::goal::matching::MatchQueues;
use crate::goal::sim::queue::Queue;
use crate::goal::sim::{ON_START, RELEASED};
use crate::goal::{Kind, Schedule};
use crate::limits::{self, ConfigError};
use std::borrow::Borrow;
use std::collections::{HashMap, VecDeque};

/// Per directed link, what it carried.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LinkLoad {
    /// Bytes of every flow routed through it.
    pub bytes: f64,
    /// Time (ns) at least one flow was in transfer through it.
    pub busy: f64,
    /// Most flows in transfer through it at once.
    pub peak: u32,
}

/// A rank pair with no surviving path, and the send ops it blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// Sending rank.
    pub from: u32,
    /// Receiving rank.
    pub to: u32,
    /// The send ops whose messages cannot go (global op indices).
    pub sends: Vec<u32>,
}

/// One message as a flow (with `trace`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowSpan {
    /// Sending rank.
    pub from: u32,
    /// Receiving rank.
    pub to: u32,
    /// The send op.
    pub send: u32,
    /// The receive op that took it (`u32::MAX` if none did).
    pub recv: u32,
    /// When the send op started.
    pub start: f64,
    /// When the flow was created (the first byte could go).
    pub created: f64,
    /// When its transfer began (created + the route's latency).
    pub transfer: f64,
    /// When it arrived.
    pub arrived: f64,
    /// Bytes.
    pub size: u64,
    /// Its route (an index into [`NetOutcome::routes`]).
    pub route: u32,
}

/// What a network run gives.
#[derive(Debug, Clone, PartialEq)]
pub struct NetOutcome {
    /// Per rank, when its last op completed or its CPUs were done, whichever is later (ns).
    pub finish: Vec<f64>,
    /// Per directed link (`2·link` from the lower vertex to the higher).
    pub links: Vec<LinkLoad>,
    /// Pairs with no path, with the ops they block.
    pub unreachable: Vec<Blocked>,
    /// Per rank, the posted receives and unexpected messages left at the end.
    pub unmatched: Vec<Vec<String>>,
    /// Events handled.
    pub events: u64,
    /// Most flows in transfer at once.
    pub peak_flows: usize,
    /// Re-sharings and the flows they re-shared (the cost of max–min).
    pub resharing: (u64, u64),
    /// With `trace`: every message, in send order.
    pub flows: Vec<FlowSpan>,
    /// With `trace`: every flow's rate changes, in time order.
    pub rates: Vec<RateChange>,
    /// With `trace`: the routes the flows used, as directed links.
    pub routes: Vec<Vec<Dir>>,
    /// With `trace`: every op's `(start, end)`.
    pub ops: Vec<(f64, f64)>,
}

impl NetOutcome {
    /// `(max finish time, lowest rank with it)`.
    pub fn max(&self) -> (f64, u32) {
        let mut best = (0.0, 0);
        for (r, &t) in self.finish.iter().enumerate() {
            if t > best.0 {
                best = (t, r as u32);
            }
        }
        best
    }

    /// Whether every message met its receive and no pair was unreachable.
    pub fn completes(&self) -> bool {
        self.unreachable.is_empty() && self.unmatched.iter().all(Vec::is_empty)
    }

    /// The bottleneck: the directed links that carried the most bytes for
    /// their bandwidth (the highest utilisation, bytes over bandwidth × run
    /// time, over any run time), lowest index first; the others tie with the
    /// first to 1e-9. Busy time alone would favour a fast link that carries
    /// little: eight links busy equally long tie, and the lowest index may
    /// be a 450 B/ns link used at 11 %.
    pub fn bottlenecks(&self, net: &Network) -> Vec<Dir> {
        let load = |d: usize| self.links[d].bytes / net.class(d as Dir).bandwidth;
        let most = (0..self.links.len()).map(load).fold(0.0, f64::max);
        if most <= 0.0 {
            return Vec::new();
        }
        (0..self.links.len()).filter(|&d| load(d) >= most * (1.0 - 1e-9)).map(|d| d as Dir).collect()
    }

    /// The first of [`NetOutcome::bottlenecks`].
    pub fn bottleneck(&self, net: &Network) -> Option<Dir> {
        self.bottlenecks(net).first().copied()
    }

    /// The bottleneck and its utilisation over a run of `time` ns.
    pub fn most_utilised(&self, net: &Network, time: f64) -> Option<(Dir, f64)> {
        self.bottleneck(net).map(|d| (d, self.links[d as usize].bytes / (net.class(d).bandwidth * time)))
    }

    /// Ranks that did not finish: a receive left without its message, or a
    /// pair with no surviving path.
    pub fn stuck(&self) -> Vec<u32> {
        let mut ranks: Vec<u32> =
            (0..self.unmatched.len() as u32).filter(|&r| !self.unmatched[r as usize].is_empty()).collect();
        ranks.extend(self.unreachable.iter().flat_map(|b| [b.from, b.to]));
        ranks.sort_unstable();
        ranks.dedup();
        ranks
    }
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    /// An op is ready (it waits for its CPU or NIC).
    Op(u32),
    /// An op completes.
    Done(u32),
    /// Message `m`'s envelope reaches its receiver's matching.
    Envelope(u32),
    /// Message `m`'s latency is over: its transfer begins.
    Transfer(u32),
    /// NIC slot `n` hands its free places to its waiting sends, once
    /// everything else of the instant has been handled.
    Grant(u32),
}

const NIL: u32 = u32::MAX;
/// A route id for a pair with no path.
const NO_ROUTE: u32 = u32::MAX;

/// A message as stored.
#[derive(Clone, Copy)]
struct Message {
    send: u32,
    route: u32,
    /// When it arrived (NaN until then).
    arrived: f64,
    /// The receive it met (NIL until then).
    recv: u32,
    /// When that receive was posted.
    posted: f64,
    /// The (rank, NIC) slot it holds until it arrives (NIL: none).
    nic: u32,
}

/// What the sender's side decides from the network: the options of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetParams {
    /// `o` (ns per message).
    pub o: f64,
    /// `g` (ns between two sends of one NIC).
    pub g: f64,
    /// `O` (ns per byte after the first).
    pub big_o: f64,
    /// `S`: the largest eager message (bytes).
    pub s: u64,
    /// `W`: messages one (rank, NIC) holds at once, from the send's start
    /// until its flow arrives (`docs/network.md`, a NIC sends in order);
    /// 0: no limit (every ready send goes at once).
    pub window: u32,
}

impl Default for NetParams {
    /// Network mode's defaults: no CPU costs, every message eager, a NIC
    /// moves one message at a time.
    fn default() -> NetParams {
        NetParams { o: 0.0, g: 0.0, big_o: 0.0, s: u64::MAX, window: 1 }
    }
}

impl NetParams {
    /// The defaults with no NIC window: every ready send goes at once (the
    /// rule before the window; what `SimGrid` computes without a semaphore).
    pub fn unlimited() -> NetParams {
        NetParams { window: 0, ..NetParams::default() }
    }
}

/// A schedule with the layout a network run keeps its ops in, so a second
/// run (the ideal switch after the network) does not build it again.
pub struct Prepared<S: Borrow<Schedule>> {
    s: S,
    lay: Layout,
}

impl<S: Borrow<Schedule>> Prepared<S> {
    /// Lays out `s`'s ops for a run.
    pub fn new(s: S) -> Prepared<S> {
        let lay = Layout::new(s.borrow());
        Prepared { s, lay }
    }

    /// The schedule.
    pub fn schedule(&self) -> &Schedule {
        self.s.borrow()
    }
}

/// The network run of a schedule, advanced in slices of events.
pub struct NetSimulation<S: Borrow<Schedule>> {
    s: S,
    /// The ops, level by level (`layout.rs`); every op index below is a
    /// record's, mapped back to the schedule's when reported.
    lay: Layout,
    net: Network,
    p: NetParams,
    host: Vec<u32>,
    cpus: usize,
    nics: usize,
    cpu: Vec<f64>,
    nout: Vec<f64>,
    /// Per (rank, NIC), the messages it holds (with a window).
    held: Vec<u32>,
    /// Per (rank, NIC), the sends waiting for room: `(ready time, op in
    /// the schedule's order, record)`, in the order they start.
    nic_wait: Vec<VecDeque<(f64, u32, u32)>>,
    /// Sends handed a NIC slot as it freed, not yet started.
    reserved: std::collections::HashSet<u32>,
    /// Per (rank, NIC), whether a [`Item::Grant`] is queued.
    granting: Vec<bool>,
    /// Per rank, when its last op completed.
    done: Vec<f64>,
    queue: Queue<Item>,
    seq: u64,
    now: f64,
    messages: Vec<Message>,
    /// Message slots free again (reused without `trace`).
    free_messages: Vec<u32>,
    /// Per rank: posted receives (their records hold when they were posted)
    /// and unexpected messages, matched oldest first.
    posted: MatchQueues,
    unexpected: MatchQueues,
    /// Per (from, to, tag) channel, the last envelope time: kept only when
    /// some channel could mix eager and rendezvous messages (otherwise
    /// envelopes of a channel come in send order by themselves: sends start
    /// in time order and a channel's messages share one route).
    channel: Option<HashMap<(u32, u32, u32), f64>>,
    /// Per rank, the last `(peer, route)` it sent on.
    last_route: Vec<(u32, u32)>,
    /// Routes by host pair: id into `route_links`.
    route_ids: HashMap<(u32, u32), u32>,
    route_links: Vec<Vec<Dir>>,
    route_latency: Vec<f64>,
    sharing: Sharing,
    loads: Vec<LinkLoad>,
    busy_since: Vec<f64>,
    blocked: Vec<Blocked>,
    blocked_at: HashMap<(u32, u32), usize>,
    trace: bool,
    flows: Vec<FlowSpan>,
    started: Vec<f64>,
    ops: Vec<(f64, f64)>,
    events: u64,
    expected: u64,
}

/// Runs `s` on `net` with ranks placed by `placement`.
///
/// # Errors
/// More ranks than hosts.
pub fn simulate(
    s: &Schedule,
    net: Network,
    placement: Placement,
    p: NetParams,
    trace: bool,
) -> Result<NetOutcome, ConfigError> {
    let mut run = NetSimulation::new(s, net, placement, p, trace)?;
    while !run.advance(u64::MAX)? {}
    Ok(run.finish())
}

impl<S: Borrow<Schedule>> NetSimulation<S> {
    /// Prepares the run.
    ///
    /// # Errors
    /// More ranks than hosts.
    pub fn new(
        s: S,
        net: Network,
        placement: Placement,
        p: NetParams,
        trace: bool,
    ) -> Result<NetSimulation<S>, ConfigError> {
        let ranks = s.borrow().ranks();
        placement.vertices(ranks, net.shape)?;
        NetSimulation::prepared(Prepared::new(s), net, placement, p, trace)
    }

    /// Prepares the run of a schedule laid out before.
    ///
    /// # Errors
    /// More ranks than hosts.
    pub fn prepared(
        prepared: Prepared<S>,
        net: Network,
        placement: Placement,
        p: NetParams,
        trace: bool,
    ) -> Result<NetSimulation<S>, ConfigError> {
        let Prepared { s, lay } = prepared;
        let sched: &Schedule = s.borrow();
        let ranks = sched.ranks() as usize;
        let host = placement.vertices(sched.ranks(), net.shape)?;
        let (cpus, nics, sends) = (lay.cpus, lay.nics, lay.sends);
        let dirs = 2 * net.links.len();
        let caps: Vec<f64> = (0..dirs as Dir).map(|d| net.class(d).bandwidth).collect();
        // Sends bigger than `S` go by rendezvous. Only a mix of both needs
        // the channel table (see `channel`).
        let any_rendezvous = sends > 0 && lay.largest > p.s;
        let mixed = any_rendezvous && lay.smallest <= p.s;
        let channel = mixed.then(HashMap::new);
        // Every op once, a transfer and an arrival per message, and the
        // envelopes that are events of their own (not handled with the
        // transfer): every message's with a channel table, else the rendezvous ones.
        let separate = if any_rendezvous { sends } else { 0 };
        let n_ops = lay.recs.len();
        let expected = (n_ops + 2 * sends + separate) as u64;
        let ready = lay.ready.clone();
        let mut sim = NetSimulation {
            s,
            net,
            p,
            host,
            cpus,
            nics,
            cpu: vec![0.0; ranks * cpus],
            nout: vec![0.0; ranks * nics],
            held: if p.window > 0 { vec![0; ranks * nics] } else { Vec::new() },
            nic_wait: if p.window > 0 { vec![VecDeque::new(); ranks * nics] } else { Vec::new() },
            reserved: std::collections::HashSet::new(),
            granting: if p.window > 0 { vec![false; ranks * nics] } else { Vec::new() },
            done: vec![0.0; ranks],
            lay,
            queue: Queue::default(),
            seq: 0,
            now: 0.0,
            messages: Vec::with_capacity(if trace { sends } else { 0 }),
            free_messages: Vec::new(),
            posted: MatchQueues::new(ranks, 0),
            unexpected: MatchQueues::new(ranks, 0),
            channel,
            last_route: vec![(NIL, NIL); ranks],
            route_ids: HashMap::new(),
            route_links: Vec::new(),
            route_latency: Vec::new(),
            sharing: Sharing::new(caps, trace),
            loads: vec![LinkLoad::default(); dirs],
            busy_since: vec![0.0; dirs],
            blocked: Vec::new(),
            blocked_at: HashMap::new(),
            trace,
            flows: Vec::new(),
            started: if trace { vec![0.0; n_ops] } else { Vec::new() },
            ops: if trace { vec![(f64::NAN, f64::NAN); n_ops] } else { Vec::new() },
            events: 0,
            expected,
        };
        for i in ready {
            sim.lay.release(i);
            sim.push(0.0, Item::Op(i));
        }
        Ok(sim)
    }

    /// `(events so far, events of a run that completes)`.
    pub fn progress(&self) -> (u64, u64) {
        (self.events.min(self.expected), self.expected)
    }

    /// The flows in transfer now: `(message, rate, route)`, for a harness
    /// that checks the sharing at every event.
    pub fn in_transfer(&self) -> impl Iterator<Item = (u32, f64, &[Dir])> + '_ {
        self.sharing.active().map(|(m, rate)| {
            let route = self.messages[m as usize].route as usize;
            (m, rate, self.route_links[route].as_slice())
        })
    }

    /// Re-shares now if a flow entered or left (what [`NetSimulation::advance`]
    /// does before time moves on), so [`NetSimulation::in_transfer`] shows
    /// the rates in force until the next event.
    pub fn settle(&mut self) {
        if self.sharing.dirty() {
            self.sharing.reshare(self.now);
        }
    }

    /// The send op of message `m` (messages are numbered as their sends start).
    pub fn send_of(&self, m: u32) -> u32 {
        self.lay.orig[self.messages[m as usize].send as usize]
    }

    /// The current time (ns).
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Handles at most `events` events; `true` once nothing is left.
    ///
    /// # Errors
    /// More flows in transfer at once than `limits::net::FLOWS`.
    pub fn advance(&mut self, events: u64) -> Result<bool, ConfigError> {
        for _ in 0..events {
            let next = self.queue.peek_time().map(f64::from_bits);
            // Re-share only when time moves on: events at one instant batch.
            if self.sharing.dirty() && next.is_none_or(|t| t > self.now) {
                self.sharing.reshare(self.now);
            }
            let done = self.sharing.next_arrival();
            match (next, done) {
                (None, None) => return Ok(true),
                (_, Some(t)) if next.is_none_or(|q| t <= q) => {
                    self.now = self.now.max(t);
                    for m in self.sharing.arrive(t) {
                        self.events += 1;
                        self.leave(m);
                        self.arrive(m, self.now);
                    }
                }
                _ => {
                    if let Some((time, seq, item)) = self.queue.pop() {
                        self.now = f64::from_bits(time);
                        self.events += 1;
                        self.handle(self.now, seq, item);
                    }
                }
            }
            if self.sharing.len() as u64 > limits::net::FLOWS.max {
                return Err(ConfigError::int(limits::net::FLOWS, self.sharing.len() as u64));
            }
        }
        Ok(self.queue.is_empty() && self.sharing.is_empty())
    }

    /// The outcome (once [`NetSimulation::advance`] returned `true`).
    pub fn finish(self) -> NetOutcome {
        self.finish_with().0
    }

    /// The outcome and the schedule back.
    pub fn finish_with(self) -> (NetOutcome, S) {
        let (outcome, s, _) = self.finish_parts();
        (outcome, s)
    }

    /// The outcome and the laid-out schedule back, ready for another run.
    pub fn finish_prepared(self) -> (NetOutcome, Prepared<S>) {
        let (outcome, s, mut lay) = self.finish_parts();
        lay.reset();
        (outcome, Prepared { s, lay })
    }

    fn finish_parts(self) -> (NetOutcome, S, Layout) {
        let ranks = self.s.borrow().ranks() as usize;
        let finish = (0..ranks)
            .map(|r| self.cpu[r * self.cpus..(r + 1) * self.cpus].iter().copied().fold(self.done[r], f64::max))
            .collect();
        let s: &Schedule = self.s.borrow();
        let orig = &self.lay.orig;
        let unmatched = (0..ranks)
            .map(|r| {
                let posted = self
                    .posted
                    .items(r)
                    .into_iter()
                    .map(|i| format!("posted receive {}", s.describe(orig[i as usize])));
                let unexpected = self.unexpected.items(r).into_iter().map(|m| {
                    let send = orig[self.messages[m as usize].send as usize];
                    format!("unexpected message from rank {}: {}", s.rank_of(send), s.describe(send))
                });
                posted.chain(unexpected).collect()
            })
            .collect();
        let (rates, resharing, peak_flows) = self.sharing.finish();
        let mut ops = self.ops;
        if !ops.is_empty() {
            let mut back = vec![(f64::NAN, f64::NAN); ops.len()];
            for (i, span) in ops.drain(..).enumerate() {
                back[orig[i] as usize] = span;
            }
            ops = back;
        }
        let mut flows = self.flows;
        for f in &mut flows {
            f.send = orig[f.send as usize];
            if f.recv != NIL {
                f.recv = orig[f.recv as usize];
            }
        }
        let mut blocked = self.blocked;
        for b in &mut blocked {
            b.sends.iter_mut().for_each(|i| *i = orig[*i as usize]);
        }
        let outcome = NetOutcome {
            finish,
            links: self.loads,
            unreachable: blocked,
            unmatched,
            events: self.events,
            peak_flows,
            resharing,
            flows,
            rates,
            routes: if self.trace { self.route_links } else { Vec::new() },
            ops,
        };
        (outcome, self.s, self.lay)
    }

    /// Times are ≥ 0, so their bits order like the numbers (`+0.0` for `-0.0`).
    fn key(time: f64) -> u64 {
        (time + 0.0).max(0.0).to_bits()
    }

    fn push(&mut self, time: f64, item: Item) {
        self.queue.push(Self::key(time), self.seq, item);
        self.seq += 1;
    }

    fn put_back(&mut self, time: f64, seq: u64, item: Item) {
        self.queue.put_back(Self::key(time), seq, item);
    }

    fn handle(&mut self, time: f64, seq: u64, item: Item) {
        match item {
            Item::Op(i) => self.op(time, seq, i),
            Item::Done(i) => self.complete(i, time),
            Item::Envelope(m) => self.envelope(m, time),
            Item::Transfer(m) => self.transfer(m, time),
            Item::Grant(n) => self.grant(n as usize, time),
        }
    }

    fn release(&mut self, x: u32, t: f64, on_start: bool) {
        let from = self.lay.recs[x as usize].after_first as usize;
        let to = self.lay.recs.get(x as usize + 1).map_or(self.lay.after.len(), |r| r.after_first as usize);
        for k in from..to {
            let entry = self.lay.after[k];
            if (entry & ON_START != 0) != on_start {
                if on_start {
                    break;
                }
                continue;
            }
            let y = entry & !ON_START;
            let waiting = &mut self.lay.recs[y as usize].waiting;
            *waiting -= 1;
            if *waiting == 0 {
                *waiting = RELEASED;
                self.push(t, Item::Op(y));
            }
        }
    }

    fn start(&mut self, i: u32, t: f64) {
        if self.trace {
            self.started[i as usize] = t;
        }
        self.release(i, t, true);
    }

    fn complete(&mut self, i: u32, t: f64) {
        let r = self.lay.recs[i as usize].rank as usize;
        self.done[r] = self.done[r].max(t);
        if self.trace {
            self.ops[i as usize] = (self.started[i as usize], t);
        }
        self.release(i, t, false);
    }

    fn op(&mut self, t: f64, seq: u64, i: u32) {
        let op = self.lay.recs[i as usize];
        let r = op.rank as usize;
        let c = r * self.cpus + usize::from(op.cpu);
        match op.kind {
            Kind::Calc => {
                if self.cpu[c] > t {
                    self.put_back(self.cpu[c], seq, Item::Op(i));
                    return;
                }
                let end = t + op.size as f64;
                self.cpu[c] = end;
                self.start(i, t);
                self.push(end, Item::Done(i));
            }
            Kind::Send => {
                let n = r * self.nics + usize::from(op.nic);
                let a = self.cpu[c].max(self.nout[n]);
                if a > t {
                    self.put_back(a, seq, Item::Op(i));
                    return;
                }
                let nic = self.take_nic(i, n, t);
                if nic == Some(NIL) {
                    return; // waits for its NIC
                }
                self.start(i, t);
                let p = self.p;
                self.cpu[c] = t + p.o + op.size.saturating_sub(1) as f64 * p.big_o;
                self.nout[n] = t + p.g;
                let ready = t + p.o;
                let route = self.route_of(op.rank, op.peer, i);
                let nic = nic.unwrap_or(NIL);
                let message = Message { send: i, route, arrived: f64::NAN, recv: NIL, posted: f64::NAN, nic };
                let m = if let Some(m) = self.free_messages.pop() {
                    self.messages[m as usize] = message;
                    m
                } else {
                    self.messages.push(message);
                    (self.messages.len() - 1) as u32
                };
                if self.trace {
                    self.flows.push(FlowSpan {
                        from: op.rank,
                        to: op.peer,
                        send: i,
                        recv: NIL,
                        start: t,
                        created: f64::NAN,
                        transfer: f64::NAN,
                        arrived: f64::NAN,
                        size: op.size,
                        route,
                    });
                }
                let eager = op.size <= p.s;
                if route != NO_ROUTE {
                    let latency = self.route_latency[route as usize];
                    let natural = if eager { ready + latency } else { ready };
                    let env = match &mut self.channel {
                        Some(channel) => {
                            let last = channel.entry((op.rank, op.peer, op.tag)).or_insert(natural);
                            *last = last.max(natural);
                            *last
                        }
                        None => natural,
                    };
                    if eager {
                        self.create(m, ready);
                    }
                    // An eager envelope without a channel table comes with
                    // the transfer (same time): `transfer` handles it.
                    if !eager || self.channel.is_some() {
                        self.push(env, Item::Envelope(m));
                    }
                }
                if eager {
                    self.complete(i, t);
                }
            }
            Kind::Recv => {
                self.start(i, t);
                let found =
                    self.unexpected.take_message(r, (op.peer, op.tag), &message_key(&self.lay.recs, &self.messages));
                if let Some(m) = found {
                    self.meet(m, i, t, t);
                } else {
                    self.lay.recs[i as usize].set_posted(t);
                    self.posted.push(r, (op.peer, op.tag), i, &receive_key(&self.lay.recs));
                }
            }
        }
    }

    /// With a NIC window, send `i` (ready at `t`) on NIC slot `n`: `Some(n)`
    /// when it holds a place, `Some(NIL)` when it waits (queued; a
    /// [`Item::Grant`] starts it), `None` when it holds no NIC (no window, a
    /// rank on its own host, no route). A send never takes a free place at
    /// once: the places go out after every event of the instant, so the
    /// sends ready at one time start in GOAL order, whichever event made
    /// them ready first.
    fn take_nic(&mut self, i: u32, n: usize, t: f64) -> Option<u32> {
        if self.p.window == 0 {
            return None;
        }
        if self.reserved.remove(&i) {
            return Some(n as u32);
        }
        let op = self.lay.recs[i as usize];
        if self.host[op.rank as usize] == self.host[op.peer as usize] || self.route_id(op.rank, op.peer) == NO_ROUTE {
            return None;
        }
        // In the order they became ready; at one time, in GOAL order. Times
        // equal but for rounding (two sums of the same terms in another
        // order) count as one time.
        let orig = self.lay.orig[i as usize];
        let wait = &mut self.nic_wait[n];
        let same = |tw: f64| (t - tw).abs() <= 1e-9 * t.abs().max(1.0);
        let at =
            wait.iter().rposition(|&(tw, ow, _)| (tw < t && !same(tw)) || (same(tw) && ow < orig)).map_or(0, |k| k + 1);
        wait.insert(at, (t, orig, i));
        self.ask_grant(n, t);
        Some(NIL)
    }

    /// Queues a [`Item::Grant`] of slot `n` at `t` when it has room, sends
    /// waiting and none queued.
    fn ask_grant(&mut self, n: usize, t: f64) {
        if !self.granting[n] && self.held[n] < self.p.window && !self.nic_wait[n].is_empty() {
            self.granting[n] = true;
            self.push(t, Item::Grant(n as u32));
        }
    }

    /// Slot `n`'s free places go to its first waiting sends, which start now.
    fn grant(&mut self, n: usize, t: f64) {
        self.granting[n] = false;
        while self.held[n] < self.p.window {
            let Some((_, _, i)) = self.nic_wait[n].pop_front() else { break };
            self.held[n] += 1;
            self.reserved.insert(i);
            self.push(t, Item::Op(i));
        }
    }

    /// A message holding NIC slot `n` arrived at `t`: its place frees.
    fn free_nic(&mut self, n: u32, t: f64) {
        self.held[n as usize] -= 1;
        self.ask_grant(n as usize, t);
    }

    /// The route id from rank `a` to rank `b` (computed once per host pair).
    fn route_id(&mut self, a: u32, b: u32) -> u32 {
        let (ha, hb) = (self.host[a as usize], self.host[b as usize]);
        let (last_peer, last_id) = self.last_route[a as usize];
        if last_peer == b {
            return last_id;
        }
        let id = if let Some(&id) = self.route_ids.get(&(ha, hb)) {
            id
        } else {
            let id = match self.net.route(ha, hb) {
                Ok(links) => {
                    let latency = links.iter().map(|&d| self.net.class(d).latency).sum();
                    self.route_links.push(links);
                    self.route_latency.push(latency);
                    (self.route_links.len() - 1) as u32
                }
                Err(_) => NO_ROUTE,
            };
            self.route_ids.insert((ha, hb), id);
            id
        };
        self.last_route[a as usize] = (b, id);
        id
    }

    /// The route id from rank `a` to rank `b`; records a blocked send.
    fn route_of(&mut self, a: u32, b: u32, send: u32) -> u32 {
        let id = self.route_id(a, b);
        if id == NO_ROUTE {
            let at = *self.blocked_at.entry((a, b)).or_insert_with(|| {
                self.blocked.push(Blocked { from: a, to: b, sends: Vec::new() });
                self.blocked.len() - 1
            });
            self.blocked[at].sends.push(send);
        }
        id
    }

    /// The flow of message `m` is created at `t`.
    fn create(&mut self, m: u32, t: f64) {
        let route = self.messages[m as usize].route as usize;
        let latency = self.route_latency[route];
        if self.trace {
            self.flows[m as usize].created = t;
        }
        self.push(t + latency, Item::Transfer(m));
    }

    /// Message `m`'s latency is over at `t`.
    fn transfer(&mut self, m: u32, t: f64) {
        let msg = self.messages[m as usize];
        let size = self.lay.recs[msg.send as usize].size;
        if self.trace {
            self.flows[m as usize].transfer = t;
        }
        let route = msg.route as usize;
        let envelope = size <= self.p.s && self.channel.is_none();
        if size == 0 || self.route_links[route].is_empty() {
            self.arrive(m, t);
            if envelope {
                self.envelope(m, t);
            }
            return;
        }
        for &d in &self.route_links[route] {
            let load = &mut self.loads[d as usize];
            load.bytes += size as f64;
            if self.sharing.count(d) == 0 {
                self.busy_since[d as usize] = t;
            }
        }
        // Flows finishing together arrive in the order of their sends'
        // records (level by level), which keeps a step's accesses in order.
        self.sharing.enter(m, msg.send, size as f64, &self.route_links[route], t);
        for &d in &self.route_links[route] {
            let load = &mut self.loads[d as usize];
            load.peak = load.peak.max(self.sharing.count(d));
        }
        if envelope {
            self.envelope(m, t);
        }
    }

    /// Message `m` left the network (its links' busy time).
    fn leave(&mut self, m: u32) {
        let route = self.messages[m as usize].route as usize;
        for &d in &self.route_links[route] {
            if self.sharing.count(d) == 0 {
                // Flows leaving together each see the link empty: count it once.
                self.loads[d as usize].busy += self.now - self.busy_since[d as usize];
                self.busy_since[d as usize] = self.now;
            }
        }
    }

    /// Message `m` arrived at `t`.
    fn arrive(&mut self, m: u32, t: f64) {
        self.messages[m as usize].arrived = t;
        let nic = self.messages[m as usize].nic;
        if nic != NIL {
            self.free_nic(nic, t);
        }
        if self.trace {
            self.flows[m as usize].arrived = t;
        }
        let msg = self.messages[m as usize];
        let op = self.lay.recs[msg.send as usize];
        if op.size > self.p.s {
            self.complete(msg.send, t);
        }
        if msg.recv != NIL {
            self.finish_receive(m);
        }
    }

    /// The envelope of `m` reaches its receiver at `t`.
    fn envelope(&mut self, m: u32, t: f64) {
        let send = self.lay.recs[self.messages[m as usize].send as usize];
        let r = send.peer as usize;
        let found = self.posted.take_receive(r, (send.rank, send.tag), &receive_key(&self.lay.recs));
        if let Some(i) = found {
            self.meet(m, i, self.lay.recs[i as usize].posted(), t);
        } else {
            self.unexpected.push(r, (send.rank, send.tag), m, &message_key(&self.lay.recs, &self.messages));
        }
    }

    /// Message `m` meets receive `i` (posted at `posted`) at `t`.
    fn meet(&mut self, m: u32, i: u32, posted: f64, t: f64) {
        let msg = &mut self.messages[m as usize];
        msg.recv = i;
        msg.posted = posted;
        if self.trace {
            self.flows[m as usize].recv = i;
        }
        let send = self.lay.recs[msg.send as usize];
        if send.size > self.p.s {
            self.create(m, t); // rendezvous: the flow starts once both sides are there
        } else if !msg.arrived.is_nan() {
            self.finish_receive(m);
        }
    }

    /// Both the message and its receive are there: the receive completes
    /// after its CPU part.
    fn finish_receive(&mut self, m: u32) {
        let msg = self.messages[m as usize];
        let op = self.lay.recs[msg.recv as usize];
        let r = op.rank as usize;
        let c = r * self.cpus + usize::from(op.cpu);
        let work = self.p.o + self.lay.recs[msg.send as usize].size.saturating_sub(1) as f64 * self.p.big_o;
        let end = msg.arrived.max(msg.posted).max(self.now) + work;
        if work > 0.0 {
            self.cpu[c] = self.cpu[c].max(end);
        }
        if end <= self.now {
            self.complete(msg.recv, end);
        } else {
            self.push(end, Item::Done(msg.recv));
        }
        // Both ends are done with it: nothing refers to `m` again.
        if !self.trace {
            self.free_messages.push(m);
        }
    }
}

/// A receive's matching key: its source and tag.
fn receive_key(recs: &[Rec]) -> impl Fn(u32) -> (u32, u32) + '_ {
    move |i| (recs[i as usize].peer, recs[i as usize].tag)
}

/// A message's matching key: its send's rank and tag.
fn message_key<'a>(recs: &'a [Rec], messages: &'a [Message]) -> impl Fn(u32) -> (u32, u32) + 'a {
    move |m| {
        let send = recs[messages[m as usize].send as usize];
        (send.rank, send.tag)
    }
}

/// Rates of `routes` sharing links of capacities `caps` (max–min, equal
/// weights), for tests and callers without a schedule.
pub fn max_min(caps: &[f64], routes: &[&[Dir]]) -> Vec<f64> {
    maxmin::progressive_filling(caps, routes)
}

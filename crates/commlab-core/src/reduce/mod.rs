//! Binomial-tree reduction, broadcast and allreduce, and the chain pipeline
//! (`docs/reduce-model.md`).
//!
//! A collective is first a [`Schedule`]: rounds of messages `(from, to)`, each
//! carrying one piece of the vector, plus the units that go inactive. The
//! schedule alone drives the message-passing picture and the event timing
//! ([`timing`]); [`values`] replays it on concrete input vectors with an
//! [`Operator`] to get every unit's `x_i` after every round.
//!
//! Build schedules with [`Schedule::collective`] (validated by
//! [`CollectiveConfig::new`]) and [`Schedule::pipeline`].

pub mod operator;
pub mod timing;
pub mod values;

pub use operator::Operator;

use crate::limits::ConfigError;
use crate::limits::{NATIVE_UNITS, PIECES, UNITS};
use crate::model::binomial_rounds;
use std::fmt;
use std::str::FromStr;

/// Index of a processing unit, `0..p` (`0` is the root).
pub type UnitId = u32;

/// The collectives of the reduction family. Ids are stable (URLs, CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Collective {
    /// Binomial-tree reduction to unit 0 (§1, §2).
    #[default]
    Reduce,
    /// Binomial-tree broadcast from unit 0, the reverse of reduce (§3).
    Broadcast,
    /// Reduce to unit 0, then broadcast from it: `2·ceil(log2 p)` rounds (§3).
    Allreduce,
    /// Recursive doubling: partners `i XOR 2^k` exchange and both combine;
    /// for `p` not a power of two the extra units fold in first and get the
    /// result back last (§3, "offering one for comparison is welcome").
    Butterfly,
}

impl Collective {
    /// Every collective, in menu order.
    pub const ALL: [Collective; 4] =
        [Collective::Reduce, Collective::Broadcast, Collective::Allreduce, Collective::Butterfly];

    /// Stable id.
    pub fn id(self) -> &'static str {
        match self {
            Collective::Reduce => "reduce",
            Collective::Broadcast => "broadcast",
            Collective::Allreduce => "allreduce",
            Collective::Butterfly => "allreduce-butterfly",
        }
    }

    /// Human label.
    pub fn label(self) -> &'static str {
        match self {
            Collective::Reduce => "reduce",
            Collective::Broadcast => "broadcast",
            Collective::Allreduce => "allreduce (reduce + broadcast)",
            Collective::Butterfly => "allreduce (butterfly)",
        }
    }
}

impl FromStr for Collective {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::limits::parse_id(&Collective::ALL, Collective::id, "collective", s)
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What a round does, for captions and colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Binomial gather towards unit 0; receivers combine.
    Reduce,
    /// Binomial scatter of the root's vector; receivers overwrite.
    Broadcast,
    /// Butterfly: the units beyond the largest power of two hand their vectors in.
    FoldIn,
    /// Butterfly: partners `i XOR 2^k` exchange and both combine.
    Exchange,
    /// Butterfly: the folded-in units get the result back.
    FoldOut,
    /// Chain pipeline: every unit forwards one combined piece to its left neighbour.
    Pipeline,
}

/// One message of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    /// Sender.
    pub from: UnitId,
    /// Receiver.
    pub to: UnitId,
    /// Which piece of the vector it carries (always 0 for the tree collectives,
    /// which send the whole vector).
    pub piece: u32,
    /// Whether the receiver combines (`x_to ← x_lo ⊕ x_hi`) or overwrites.
    pub combine: bool,
}

/// One parallel step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// What the round does.
    pub phase: Phase,
    /// Its messages, sorted by sender.
    pub messages: Vec<Message>,
    /// Units that go inactive in this round (reduce: the senders).
    pub deactivated: Vec<UnitId>,
}

/// Validated inputs of a tree collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectiveConfig {
    collective: Collective,
    units: u32,
    padded: bool,
}

impl CollectiveConfig {
    /// Checks `p` against [`UNITS`].
    ///
    /// # Errors
    /// When `units` is out of range.
    pub fn new(collective: Collective, units: u64, padded: bool) -> Result<Self, ConfigError> {
        if !UNITS.contains(units) {
            return Err(ConfigError::int(UNITS, units));
        }
        Ok(Self { collective, units: units as u32, padded })
    }

    /// Checks `p` against the command line's [`NATIVE_UNITS`].
    ///
    /// # Errors
    /// When `units` is out of range.
    pub fn native(collective: Collective, units: u64, padded: bool) -> Result<Self, ConfigError> {
        if !NATIVE_UNITS.contains(units) {
            return Err(ConfigError::int(NATIVE_UNITS, units));
        }
        Ok(Self { collective, units: units as u32, padded })
    }

    /// The collective.
    pub fn collective(&self) -> Collective {
        self.collective
    }

    /// Real units `p`.
    pub fn units(&self) -> u32 {
        self.units
    }

    /// Units including the virtual ones of the padded variant (`p` rounded up
    /// to a power of two), or `p`.
    pub fn drawn_units(&self) -> u32 {
        if self.padded {
            self.units.next_power_of_two()
        } else {
            self.units
        }
    }

    /// Whether the padded variant (virtual units up to a power of two) is shown.
    pub fn padded(&self) -> bool {
        self.padded
    }
}

/// A complete communication schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    /// Real units `p`.
    pub units: u32,
    /// Units drawn, `≥ p`; the ones `≥ p` are virtual (padding) and their
    /// messages are not real communication.
    pub drawn_units: u32,
    /// Pieces the vector is cut into (1 for the tree collectives).
    pub pieces: u32,
    /// Whether only unit 0 starts with a vector (broadcast); otherwise every unit does.
    pub root_only_input: bool,
    /// The rounds, in order.
    pub rounds: Vec<Round>,
}

/// Largest power of two `≤ p` (`p ≥ 1`).
fn floor_pow2(p: u32) -> u32 {
    1 << p.ilog2()
}
/// The limits of [`Schedule::pipeline`], checked without building it.
fn check_pipeline(units: u64, pieces: u64) -> Result<(), ConfigError> {
    if !UNITS.contains(units) {
        return Err(ConfigError::int(UNITS, units));
    }
    if !PIECES.contains(pieces) {
        return Err(ConfigError::int(PIECES, pieces));
    }
    if (units - 1) * pieces > PIPELINE_MESSAGES {
        return Err(ConfigError {
            name: "m",
            value: pieces.to_string(),
            expected: format!("(p − 1)·m ≤ {PIPELINE_MESSAGES} messages"),
        });
    }
    Ok(())
}

/// A pipelined reduction whose values are replayed: `p` units, `m` pieces,
/// `elements` per vector. Validated once; the rule "a piece holds at least
/// one element" (`m ≤ elements`) lives here, not in a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PipelineConfig {
    units: u64,
    pieces: u64,
    elements: u64,
}

impl PipelineConfig {
    /// Validates `p`, `m` and `elements`.
    ///
    /// # Errors
    /// The first out of range: `p`, `m` ([`Schedule::pipeline`]'s limits, and
    /// at most `elements`), `elements` and `p × elements`
    /// ([`values::check_size`]).
    pub fn new(units: u64, pieces: u64, elements: u64) -> Result<PipelineConfig, ConfigError> {
        values::check_size(units, elements)?;
        if pieces > elements {
            return Err(ConfigError {
                name: "m",
                value: pieces.to_string(),
                expected: format!("at most elements = {elements} (a piece holds at least one element)"),
            });
        }
        check_pipeline(units, pieces)?;
        Ok(PipelineConfig { units, pieces, elements })
    }

    /// `p`.
    pub fn units(&self) -> u64 {
        self.units
    }

    /// `m`.
    pub fn pieces(&self) -> u64 {
        self.pieces
    }

    /// Elements per vector.
    pub fn elements(&self) -> u64 {
        self.elements
    }
}

impl Schedule {
    /// The schedule of a tree collective.
    pub fn collective(config: &CollectiveConfig) -> Schedule {
        let p = config.drawn_units();
        let rounds = match config.collective {
            Collective::Reduce => reduce_rounds(p),
            Collective::Broadcast => broadcast_rounds(p),
            Collective::Allreduce => {
                let mut rounds = reduce_rounds(p);
                rounds.extend(broadcast_rounds(p));
                rounds
            }
            Collective::Butterfly => butterfly_rounds(p),
        };
        let root_only_input = config.collective == Collective::Broadcast;
        Schedule { units: config.units, drawn_units: p, pieces: 1, root_only_input, rounds }
    }

    /// The chain pipeline of a validated value run ([`PipelineConfig`]).
    ///
    /// # Panics
    /// Never: the config passed [`Schedule::pipeline`]'s checks.
    pub fn pipeline_of(config: &PipelineConfig) -> Schedule {
        Schedule::pipeline(config.units, config.pieces).expect("validated by PipelineConfig::new")
    }

    /// The chain pipeline `p_{p−1} → … → p_0` with `m` pieces: in step `s`,
    /// unit `i ≥ 1` sends piece `s − (p − 1 − i)` to `i − 1` when that piece
    /// exists; `p + m − 2` steps in all.
    ///
    /// # Errors
    /// When `p` or `m` is out of range, or `(p − 1)·m` exceeds [`PIPELINE_MESSAGES`].
    pub fn pipeline(units: u64, pieces: u64) -> Result<Schedule, ConfigError> {
        check_pipeline(units, pieces)?;
        let (p, m) = (units as u32, pieces as u32);
        let steps = crate::model::pipeline_steps(units, pieces) as u32;
        // In step s, unit i sends piece j = s − (p − 1 − i): the senders are
        // i = j − s + p − 1 for the pieces j that exist, so building costs
        // O(messages), not O(steps × p).
        let rounds = (0..steps)
            .map(|s| {
                // 1 ≤ i ≤ p − 1 and 0 ≤ j < m  ⇔  max(0, s + 2 − p) ≤ j ≤ min(m − 1, s).
                let first = (s + 2).saturating_sub(p);
                let last = (m - 1).min(s);
                // Increasing j means increasing sender: the round is sorted by sender.
                let messages: Vec<Message> = (first..=last)
                    .map(|j| {
                        let i = j + p - 1 - s;
                        Message { from: i, to: i - 1, piece: j, combine: true }
                    })
                    .collect();

                Round { phase: Phase::Pipeline, messages, deactivated: Vec::new() }
            })
            .collect();
        Ok(Schedule { units: p, drawn_units: p, pieces: m, root_only_input: false, rounds })
    }

    /// Whether `unit` is a virtual (padding) unit.
    pub fn is_virtual(&self, unit: UnitId) -> bool {
        unit >= self.units
    }

    /// Messages between real units only.
    pub fn real_messages(&self) -> impl Iterator<Item = (usize, &Message)> {
        self.rounds
            .iter()
            .enumerate()
            .flat_map(|(r, round)| round.messages.iter().map(move |m| (r, m)))
            .filter(|(_, m)| !self.is_virtual(m.from) && !self.is_virtual(m.to))
    }

    /// Number of real messages.
    pub fn message_count(&self) -> usize {
        self.real_messages().count()
    }
}

/// Upper bound of messages in a pipeline schedule (keeps the schedule and its
/// timing within a few hundred MB natively and far less in the browser).
pub const PIPELINE_MESSAGES: u64 = 1 << 22;

/// §2: in round `k`, active unit `i` with bit `k` set sends to `i − 2^k` and
/// goes inactive; active `i` with bit `k` clear receives from `i + 2^k` when
/// that unit exists.
fn reduce_rounds(p: u32) -> Vec<Round> {
    (0..binomial_rounds(u64::from(p)))
        .map(|k| {
            let step = 1u32 << k;
            // Active before round k: multiples of 2^k. Senders: odd multiples.
            let senders: Vec<UnitId> = (step..p).step_by((2 * step) as usize).collect();
            let messages =
                senders.iter().map(|&i| Message { from: i, to: i - step, piece: 0, combine: true }).collect();
            Round { phase: Phase::Reduce, messages, deactivated: senders }
        })
        .collect()
}

/// §3: for `k = R−1 … 0`, unit `i` with its low `k+1` bits zero sends to
/// `i + 2^k` when that exists.
fn broadcast_rounds(p: u32) -> Vec<Round> {
    (0..binomial_rounds(u64::from(p)))
        .rev()
        .map(|k| {
            let step = 1u32 << k;
            let messages = (0..p)
                .step_by((2 * step) as usize)
                .filter(|&i| i + step < p)
                .map(|i| Message { from: i, to: i + step, piece: 0, combine: false })
                .collect();
            Round { phase: Phase::Broadcast, messages, deactivated: Vec::new() }
        })
        .collect()
}

/// Recursive doubling over the largest power of two `q ≤ p`; units `q..p`
/// first send to `i − q` (which combines) and get the result back at the end.
fn butterfly_rounds(p: u32) -> Vec<Round> {
    let q = floor_pow2(p);
    let extra: Vec<UnitId> = (q..p).collect();
    let mut rounds = Vec::new();
    if !extra.is_empty() {
        let messages = extra.iter().map(|&i| Message { from: i, to: i - q, piece: 0, combine: true }).collect();
        rounds.push(Round { phase: Phase::FoldIn, messages, deactivated: extra.clone() });
    }
    for k in 0..q.trailing_zeros() {
        let messages = (0..q).map(|i| Message { from: i, to: i ^ (1 << k), piece: 0, combine: true }).collect();
        rounds.push(Round { phase: Phase::Exchange, messages, deactivated: Vec::new() });
    }
    if !extra.is_empty() {
        let messages = extra.iter().map(|&i| Message { from: i - q, to: i, piece: 0, combine: false }).collect();
        rounds.push(Round { phase: Phase::FoldOut, messages, deactivated: Vec::new() });
    }
    rounds
}

/// One sentence saying what happens in `round` ("units 1, 3, 5, 7 send to 0,
/// 2, 4, 6; 4 units go inactive"). Long unit lists are shortened.
pub fn caption(schedule: &Schedule, round: usize) -> String {
    let Some(r) = schedule.rounds.get(round) else {
        return if round == 0 {
            "Nothing to do: a single unit already holds the result.".into()
        } else {
            "Done.".into()
        };
    };
    let senders: Vec<UnitId> = r.messages.iter().map(|m| m.from).collect();
    let receivers: Vec<UnitId> = r.messages.iter().map(|m| m.to).collect();
    let n = r.messages.len();
    let head = format!("Step {} of {}: ", round + 1, schedule.rounds.len());
    let body = match r.phase {
        Phase::Reduce => format!(
            "{} send{} to {} ({}); {} inactive.",
            units_text(&senders),
            plural_verb(n),
            list_text(&receivers),
            if n == 1 { "which combines" } else { "receivers combine" },
            if r.deactivated.len() == 1 {
                "1 unit goes".to_owned()
            } else {
                format!("{} units go", r.deactivated.len())
            },
        ),
        Phase::Broadcast => {
            format!("{} send{} the root's vector to {}.", units_text(&senders), plural_verb(n), list_text(&receivers))
        }
        Phase::FoldIn => format!(
            "{} hand{} {} vector{} to {}, which combine{}.",
            units_text(&senders),
            plural_verb(n),
            if n == 1 { "its" } else { "their" },
            if n == 1 { "" } else { "s" },
            list_text(&receivers),
            plural_verb(n)
        ),
        Phase::Exchange => {
            let distance = r.messages.first().map_or(0, |m| m.from ^ m.to);
            format!("every unit i exchanges with i XOR {distance} and both combine ({n} messages).")
        }
        Phase::FoldOut => {
            format!("{} return{} the result to {}.", units_text(&senders), plural_verb(n), list_text(&receivers))
        }
        Phase::Pipeline => {
            let pieces: Vec<u32> = r.messages.iter().map(|m| m.piece).collect();
            if n == 1 {
                format!("{} forwards piece {} to its left neighbour.", units_text(&senders), list_text(&pieces))
            } else {
                format!("{} forward pieces {} to their left neighbours.", units_text(&senders), list_text(&pieces))
            }
        }
    };
    head + &body
}

fn plural_verb(n: usize) -> &'static str {
    if n == 1 {
        "s"
    } else {
        ""
    }
}

fn units_text(units: &[UnitId]) -> String {
    match units.len() {
        0 => "no unit".into(),
        1 => format!("unit {}", units[0]),
        _ => format!("units {}", list_text(units)),
    }
}

/// `1, 3, 5, 7`, or `1, 3, 5, …, 65535 (32768 in all)` for long lists.
fn list_text<T: fmt::Display>(items: &[T]) -> String {
    if items.len() <= 8 {
        return items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
    }
    let head: Vec<String> = items[..3].iter().map(ToString::to_string).collect();
    format!("{}, …, {} ({} in all)", head.join(", "), items[items.len() - 1], items.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(c: Collective, p: u64) -> Schedule {
        Schedule::collective(&CollectiveConfig::new(c, p, false).unwrap())
    }

    #[test]
    fn reduce_of_eight_units_is_the_classic_tree() {
        let s = schedule(Collective::Reduce, 8);
        let pairs: Vec<Vec<(u32, u32)>> =
            s.rounds.iter().map(|r| r.messages.iter().map(|m| (m.from, m.to)).collect()).collect();
        assert_eq!(pairs, vec![vec![(1, 0), (3, 2), (5, 4), (7, 6)], vec![(2, 0), (6, 4)], vec![(4, 0)]]);
        assert_eq!(
            caption(&s, 0),
            "Step 1 of 3: units 1, 3, 5, 7 send to 0, 2, 4, 6 (receivers combine); 4 units go inactive."
        );
    }

    #[test]
    fn broadcast_reverses_reduce() {
        let s = schedule(Collective::Broadcast, 6);
        let pairs: Vec<Vec<(u32, u32)>> =
            s.rounds.iter().map(|r| r.messages.iter().map(|m| (m.from, m.to)).collect()).collect();
        assert_eq!(pairs, vec![vec![(0, 4)], vec![(0, 2)], vec![(0, 1), (2, 3), (4, 5)]]);
    }

    #[test]
    fn butterfly_folds_extra_units() {
        let s = schedule(Collective::Butterfly, 6);
        let phases: Vec<Phase> = s.rounds.iter().map(|r| r.phase).collect();
        assert_eq!(phases, [Phase::FoldIn, Phase::Exchange, Phase::Exchange, Phase::FoldOut]);
        assert_eq!(s.message_count(), 2 + 4 + 4 + 2);
    }

    #[test]
    fn pipeline_steps_and_pieces() {
        let s = Schedule::pipeline(4, 3).unwrap();
        assert_eq!(s.rounds.len(), 5);
        let first: Vec<(u32, u32)> = s.rounds[0].messages.iter().map(|m| (m.from, m.piece)).collect();
        assert_eq!(first, [(3, 0)]);
        let third: Vec<(u32, u32)> = s.rounds[2].messages.iter().map(|m| (m.from, m.piece)).collect();
        assert_eq!(third, [(1, 0), (2, 1), (3, 2)]);
        assert_eq!(s.message_count(), 9);
    }

    #[test]
    fn pipeline_matches_its_definition() {
        for p in 1..=9u32 {
            for m in 1..=9u32 {
                let s = Schedule::pipeline(u64::from(p), u64::from(m)).unwrap();
                for (step, round) in s.rounds.iter().enumerate() {
                    let brute: Vec<(u32, u32)> = (1..p)
                        .filter_map(|i| {
                            let j = i64::try_from(step).unwrap() - i64::from(p - 1 - i);
                            (0..i64::from(m)).contains(&j).then_some((i, j as u32))
                        })
                        .collect();
                    let got: Vec<(u32, u32)> = round.messages.iter().map(|msg| (msg.from, msg.piece)).collect();
                    assert_eq!(got, brute, "p={p} m={m} step={step}");
                }
            }
        }
    }

    #[test]
    fn long_lists_are_shortened() {
        let items: Vec<u32> = (0..100).collect();
        assert_eq!(list_text(&items), "0, 1, 2, …, 99 (100 in all)");
    }
}

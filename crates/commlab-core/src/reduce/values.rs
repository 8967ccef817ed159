//! Replays a [`Schedule`] on concrete vectors: every unit's `x_i` after every
//! round.
//!
//! Storage is flat and incremental: the initial `p × width` values plus, per
//! round, only the units whose vector changed (about `p` updates in all for a
//! reduction), so `p = 65 536` costs a few MB, and [`ValueTrace::after`]
//! rebuilds any round by replay.

use super::{Operator, Schedule, UnitId};
use crate::limits::ConfigError;
use crate::limits::{IntRange, ELEMENTS, NATIVE_UNITS, NATIVE_VALUE_CELLS, SEED, UNITS, VALUE_CELLS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Flat vectors, unit-major (`unit × width + element`).
#[derive(Debug, Clone, PartialEq)]
pub enum Vectors {
    /// For the integer operators.
    Int(Vec<i64>),
    /// For the float operators.
    Float(Vec<f64>),
}

impl Vectors {
    /// Number of elements stored.
    pub fn len(&self) -> usize {
        match self {
            Vectors::Int(v) => v.len(),
            Vectors::Float(v) => v.len(),
        }
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `index` as text (`7`, `-0.375`, `∞`).
    pub fn text(&self, index: usize) -> String {
        match self {
            Vectors::Int(v) => v[index].to_string(),
            Vectors::Float(v) => float_text(v[index]),
        }
    }

    /// Elements `range` as a JSON-ready list of numbers (floats as `f64`, integers as `i64`).
    pub fn slice_text(&self, range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| self.text(i)).collect()
    }
}

fn float_text(x: f64) -> String {
    if x == f64::INFINITY {
        "∞".into()
    } else if x == f64::NEG_INFINITY {
        "−∞".into()
    } else {
        x.to_string()
    }
}

/// Checks the size of a value simulation: `p` units of `width` elements.
///
/// # Errors
/// When `width` is outside [`ELEMENTS`] or `p × width` exceeds [`VALUE_CELLS`].
pub fn check_size(units: u64, width: u64) -> Result<(), ConfigError> {
    check_size_within(units, width, UNITS, VALUE_CELLS)
}

/// [`check_size`] against the command line's limits ([`NATIVE_UNITS`],
/// [`NATIVE_VALUE_CELLS`]).
///
/// # Errors
/// As [`check_size`].
pub fn check_native_size(units: u64, width: u64) -> Result<(), ConfigError> {
    check_size_within(units, width, NATIVE_UNITS, NATIVE_VALUE_CELLS)
}

fn check_size_within(units: u64, width: u64, unit_range: IntRange, cells: u64) -> Result<(), ConfigError> {
    if !unit_range.contains(units) {
        return Err(ConfigError::int(unit_range, units));
    }
    if !ELEMENTS.contains(width) {
        return Err(ConfigError::int(ELEMENTS, width));
    }
    if units * width > cells {
        return Err(ConfigError {
            name: ELEMENTS.name,
            value: width.to_string(),
            expected: format!("p × elements ≤ {cells} (here p = {units})"),
        });
    }
    Ok(())
}

/// Seeded random inputs for `units × width` elements, suited to `operator`:
/// small integers (sums stay readable, products 1–3), bytes for bitwise
/// operators, multiples of 1/8 in [−8, 8) for floats (sums exact). `ChaCha8`
/// seeded with `seed`: the same seed gives the same inputs on every platform.
///
/// # Errors
/// As [`check_native_size`] (the loosest bound; callers check their own
/// limits first, as the views' requests do with [`check_size`]).
pub fn random_inputs(seed: u64, units: u64, width: u64, operator: Operator) -> Result<Vectors, ConfigError> {
    check_native_size(units, width)?;
    debug_assert!(SEED.contains(seed));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = (units * width) as usize;
    Ok(if operator.is_float() {
        Vectors::Float((0..n).map(|_| f64::from(rng.gen_range(-64i32..64)) / 8.0).collect())
    } else {
        let (low, high) = match operator {
            Operator::Product => (1, 3),
            Operator::Min | Operator::Max => (0, 99),
            Operator::And | Operator::Or | Operator::Xor => (0, 255),
            _ => (0, 9),
        };
        Vectors::Int((0..n).map(|_| rng.gen_range(low..=high)).collect())
    })
}

/// The units changed by one round and their new vectors.
/// What one round wrote: `(unit, first element, elements)` per message, in
/// message order, with the written elements concatenated in `values`. Only
/// the elements a message changes are stored (a piece, not the vector), so a
/// pipeline's trace grows with its messages × piece size, not rounds × p × n.
#[derive(Debug, Clone, PartialEq)]
struct RoundUpdate {
    writes: Vec<(UnitId, u32, u32)>,
    values: Vectors,
}

/// Every unit's vector after every round of a schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueTrace {
    operator: Operator,
    width: usize,
    units: usize,
    initial: Vectors,
    initial_defined: Vec<bool>,
    rounds: Vec<RoundUpdate>,
}

/// Values at one moment: `values` flat (`unit × width`), `defined[unit]` false
/// where a unit holds nothing yet (broadcast).
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Flat vectors.
    pub values: Vectors,
    /// Whether each unit holds a vector.
    pub defined: Vec<bool>,
}

/// Elements of piece `piece` when `width` elements are grouped into `pieces`
/// pieces of `ceil(width / pieces)` elements (the last may be shorter).
pub fn piece_range(piece: u32, pieces: u32, width: usize) -> std::ops::Range<usize> {
    let group = width.div_ceil(pieces as usize);
    let start = (piece as usize * group).min(width);
    start..((piece as usize + 1) * group).min(width)
}

/// What grouping `elements` into `pieces` pieces does to the chain pipeline
/// of `units` units (the pipeline view's note).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grouping {
    /// Elements in the largest piece (`ceil(elements / pieces)`, as [`piece_range`] groups them).
    pub group: u64,
    /// Steps with the pieces: `p + m − 2` (0 for one unit).
    pub steps: u64,
    /// Steps with one element per piece: `p + elements − 2`.
    pub steps_per_element: u64,
}

/// The [`Grouping`] of a pipeline (every argument at least 1).
pub fn grouping(units: u64, elements: u64, pieces: u64) -> Grouping {
    let (units, elements, pieces) = (units.max(1), elements.max(1), pieces.max(1));
    Grouping {
        group: elements.div_ceil(pieces),
        steps: crate::model::pipeline_steps(units, pieces),
        steps_per_element: crate::model::pipeline_steps(units, elements),
    }
}

/// Replays the messages of `round` from index `from` on, for about `budget`
/// cells (a message's elements, at least one per message): reads use
/// `current` as it was before the round (its writes are applied only when
/// the round ends), the written elements go to `values` in message order.
/// Returns the next message index and the cells done.
#[allow(clippy::too_many_arguments, reason = "the replay state of one element type, borrowed field by field")]
fn replay_messages<T: Copy>(
    round: &super::Round,
    pieces: u32,
    width: usize,
    from: usize,
    budget: u64,
    current: &[T],
    writes: &mut Vec<(UnitId, u32, u32)>,
    values: &mut Vec<T>,
    op: impl Fn(T, T) -> T,
) -> (usize, u64) {
    let mut cells = 0;
    let mut next = from;
    for m in &round.messages[from..] {
        if cells >= budget {
            break;
        }
        let range = piece_range(m.piece, pieces, width);
        let (lo, hi) = (m.from.min(m.to) as usize, m.from.max(m.to) as usize);
        cells += range.len().max(1) as u64;
        writes.push((m.to, range.start as u32, range.len() as u32));
        values.extend(range.map(|e| {
            if m.combine {
                op(current[lo * width + e], current[hi * width + e])
            } else {
                current[m.from as usize * width + e]
            }
        }));
        next += 1;
    }
    (next, cells)
}

/// Applies one round's writes to `current`.
fn apply<T: Copy>(current: &mut [T], width: usize, writes: &[(UnitId, u32, u32)], values: &[T]) {
    let mut offset = 0;
    for &(u, start, len) in writes {
        let (start, len) = (u as usize * width + start as usize, len as usize);
        current[start..start + len].copy_from_slice(&values[offset..offset + len]);
        offset += len;
    }
}

/// Replays `schedule` on `p × width` elements of any type with any
/// associative `op` and returns every drawn unit's final vector (virtual
/// units start from `identity`). Same message rule as [`ValueReplay`]: a
/// combining receiver computes `x_lo ⊕ x_hi` (the lower unit's value on the
/// left). The tests run it with a non-commutative operator to check the
/// operand order the spec defines.
///
/// # Panics
/// When `inputs` does not hold `p × width` elements.
pub fn replay_with<T: Copy>(
    schedule: &Schedule,
    width: usize,
    inputs: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Copy,
) -> Vec<T> {
    assert_eq!(inputs.len(), schedule.units as usize * width, "inputs must hold p × width elements");
    let mut current = inputs.to_vec();
    current.resize(schedule.drawn_units as usize * width, identity);
    let (mut writes, mut values) = (Vec::new(), Vec::new());
    for round in &schedule.rounds {
        writes.clear();
        values.clear();
        replay_messages(round, schedule.pieces, width, 0, u64::MAX, &current, &mut writes, &mut values, op);
        apply(&mut current, width, &writes, &values);
    }
    current
}

/// A [`ValueTrace`] being built, advanced in slices of about a given number
/// of cells (the engine worker reports progress between slices; the page's
/// fallback keeps each slice short). Every message of a round reads the
/// values from before the round (butterfly partners swap simultaneously), so
/// a slice may stop in the middle of a round.
#[derive(Debug, Clone)]
pub struct ValueReplay {
    operator: Operator,
    width: usize,
    units: usize,
    initial: Vectors,
    initial_defined: Vec<bool>,
    current: Vectors,
    rounds: Vec<RoundUpdate>,
    /// The round under way and its next message.
    round: usize,
    message: usize,
    /// The round under way's writes so far.
    writes: Vec<(UnitId, u32, u32)>,
    values: Vectors,
    done: u64,
    total: u64,
}

impl ValueReplay {
    /// Starts replaying `schedule` on `inputs` (the real units' vectors,
    /// `p × width`, matching `operator`'s element type). Virtual units hold
    /// the identity.
    ///
    /// # Panics
    /// When `inputs` does not hold `p × width` elements of `operator`'s type.
    pub fn new(schedule: &Schedule, operator: Operator, width: usize, inputs: &Vectors) -> ValueReplay {
        let (real, drawn) = (schedule.units as usize, schedule.drawn_units as usize);
        assert_eq!(inputs.len(), real * width, "inputs must hold p × width elements");
        let initial = match inputs {
            Vectors::Int(v) => {
                assert!(!operator.is_float(), "integer inputs need an integer operator");
                let mut all = v.clone();
                all.resize(drawn * width, operator.int_identity());
                Vectors::Int(all)
            }
            Vectors::Float(v) => {
                assert!(operator.is_float(), "float inputs need a float operator");
                let mut all = v.clone();
                all.resize(drawn * width, operator.float_identity());
                Vectors::Float(all)
            }
        };
        let values = match initial {
            Vectors::Int(_) => Vectors::Int(Vec::new()),
            Vectors::Float(_) => Vectors::Float(Vec::new()),
        };
        let total = schedule
            .rounds
            .iter()
            .flat_map(|r| &r.messages)
            .map(|m| piece_range(m.piece, schedule.pieces, width).len().max(1) as u64)
            .sum();
        ValueReplay {
            operator,
            width,
            units: drawn,
            current: initial.clone(),
            initial_defined: (0..drawn).map(|u| !schedule.root_only_input || u == 0).collect(),
            initial,
            rounds: Vec::with_capacity(schedule.rounds.len()),
            round: 0,
            message: 0,
            writes: Vec::new(),
            values,
            done: 0,
            total,
        }
    }

    /// Replays about `cells` more cells of `schedule` (the one given to
    /// [`ValueReplay::new`]); true once every round is replayed.
    pub fn advance(&mut self, schedule: &Schedule, cells: u64) -> bool {
        let mut budget = cells.max(1);
        while self.round < schedule.rounds.len() && budget > 0 {
            let round = &schedule.rounds[self.round];
            let (pieces, width, from) = (schedule.pieces, self.width, self.message);
            let (next, spent) = match (&self.current, &mut self.values) {
                (Vectors::Int(cur), Vectors::Int(vals)) => {
                    let op = self.operator;
                    replay_messages(round, pieces, width, from, budget, cur, &mut self.writes, vals, move |a, b| {
                        op.int(a, b)
                    })
                }
                (Vectors::Float(cur), Vectors::Float(vals)) => {
                    let op = self.operator;
                    replay_messages(round, pieces, width, from, budget, cur, &mut self.writes, vals, move |a, b| {
                        op.float(a, b)
                    })
                }
                _ => unreachable!("one element type per replay"),
            };
            self.message = next;
            self.done += spent;
            budget = budget.saturating_sub(spent);
            if next == round.messages.len() {
                let writes = std::mem::take(&mut self.writes);
                let values = match (&mut self.current, &mut self.values) {
                    (Vectors::Int(cur), Vectors::Int(vals)) => {
                        apply(cur, width, &writes, vals);
                        Vectors::Int(std::mem::take(vals))
                    }
                    (Vectors::Float(cur), Vectors::Float(vals)) => {
                        apply(cur, width, &writes, vals);
                        Vectors::Float(std::mem::take(vals))
                    }
                    _ => unreachable!("one element type per replay"),
                };
                self.rounds.push(RoundUpdate { writes, values });
                self.round += 1;
                self.message = 0;
            }
        }
        self.round >= schedule.rounds.len()
    }

    /// Cells replayed, of all.
    pub fn progress(&self) -> (u64, u64) {
        (self.done, self.total)
    }

    /// The trace (call once [`ValueReplay::advance`] returned true).
    ///
    /// # Panics
    /// When rounds are left to replay.
    pub fn finish(self) -> ValueTrace {
        assert!(self.writes.is_empty() && self.message == 0, "finish a replay only once every round is replayed");
        ValueTrace {
            operator: self.operator,
            width: self.width,
            units: self.units,
            initial: self.initial,
            initial_defined: self.initial_defined,
            rounds: self.rounds,
        }
    }
}

impl ValueTrace {
    /// Replays `schedule` on `inputs` (the real units' vectors, `p × width`,
    /// matching `operator`'s element type). Virtual units hold the identity.
    ///
    /// # Panics
    /// When `inputs` does not hold `p × width` elements of `operator`'s type.
    pub fn new(schedule: &Schedule, operator: Operator, width: usize, inputs: &Vectors) -> ValueTrace {
        let mut replay = ValueReplay::new(schedule, operator, width, inputs);
        replay.advance(schedule, u64::MAX);
        replay.finish()
    }

    /// The operator.
    pub fn operator(&self) -> Operator {
        self.operator
    }

    /// Elements per unit.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Rounds replayed.
    pub fn round_count(&self) -> usize {
        self.rounds.len()
    }

    /// Values after the first `rounds_done` rounds (0: the inputs).
    ///
    /// # Panics
    /// When `rounds_done` exceeds the number of rounds.
    pub fn after(&self, rounds_done: usize) -> Snapshot {
        assert!(rounds_done <= self.rounds.len(), "round out of range");
        let mut values = self.initial.clone();
        let mut defined = self.initial_defined.clone();
        for update in &self.rounds[..rounds_done] {
            let mut offset = 0;
            for &(u, start, len) in &update.writes {
                let dst = u as usize * self.width + start as usize;
                let (dst, src) = (dst..dst + len as usize, offset..offset + len as usize);
                match (&mut values, &update.values) {
                    (Vectors::Int(d), Vectors::Int(s)) => d[dst].copy_from_slice(&s[src]),
                    (Vectors::Float(d), Vectors::Float(s)) => d[dst].copy_from_slice(&s[src]),
                    _ => unreachable!("one element type per trace"),
                }
                offset += len as usize;
                defined[u as usize] = true;
            }
        }
        Snapshot { values, defined }
    }

    /// Unit `unit`'s vector in `snapshot`, as text.
    ///
    /// # Panics
    /// When `unit` is not a drawn unit.
    pub fn vector_text(&self, snapshot: &Snapshot, unit: usize) -> Vec<String> {
        assert!(unit < self.units, "unit out of range");
        snapshot.values.slice_text(unit * self.width..(unit + 1) * self.width)
    }
}

/// The sequential left fold `v_0 ⊕ v_1 ⊕ … ⊕ v_{p−1}`, element-wise: what every
/// reduction must produce.
pub fn sequential_fold(inputs: &Vectors, operator: Operator, width: usize) -> Vectors {
    fn fold<T: Copy>(v: &[T], width: usize, op: impl Fn(T, T) -> T) -> Vec<T> {
        let mut acc = v[..width].to_vec();
        for chunk in v.chunks(width).skip(1) {
            for (a, &b) in acc.iter_mut().zip(chunk) {
                *a = op(*a, b);
            }
        }
        acc
    }
    match inputs {
        Vectors::Int(v) => Vectors::Int(fold(v, width, |a, b| operator.int(a, b))),
        Vectors::Float(v) => Vectors::Float(fold(v, width, |a, b| operator.float(a, b))),
    }
}

/// Longest inputs text accepted (a URL stays shareable).
pub const INPUTS_TEXT_MAX: usize = 4000;

/// Parses typed input vectors: one vector per unit separated by `;` (or new
/// lines), elements separated by `,` or spaces: `3, 1; 4, 1; 5, 9`.
/// Integers for integer operators, any finite number for float operators.
///
/// # Errors
/// A sentence saying what is wrong (count, position, number).
pub fn parse_inputs(text: &str, units: u64, width: u64, operator: Operator) -> Result<Vectors, String> {
    if text.len() > INPUTS_TEXT_MAX {
        return Err(format!("inputs: at most {INPUTS_TEXT_MAX} characters"));
    }
    check_size(units, width).map_err(|e| e.to_string())?;
    let rows: Vec<&str> = text.split([';', '\n']).map(str::trim).filter(|r| !r.is_empty()).collect();
    if rows.len() as u64 != units {
        return Err(format!("inputs: expected {units} vectors (one per unit, separated by ';'), found {}", rows.len()));
    }
    let mut ints = Vec::new();
    let mut floats = Vec::new();
    for (unit, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row.split([',', ' ', '\t']).filter(|c| !c.is_empty()).collect();
        if cells.len() as u64 != width {
            return Err(format!("inputs: vector {unit} has {} elements, expected {width}", cells.len()));
        }
        for cell in cells {
            if operator.is_float() {
                match cell.parse::<f64>() {
                    Ok(v) if v.is_finite() => floats.push(v),
                    _ => return Err(format!("inputs: {cell:?} in vector {unit} is not a finite number")),
                }
            } else {
                let v = cell
                    .parse::<i64>()
                    .map_err(|_| format!("inputs: {cell:?} in vector {unit} is not a 64-bit integer"))?;
                ints.push(v);
            }
        }
    }
    Ok(if operator.is_float() { Vectors::Float(floats) } else { Vectors::Int(ints) })
}

/// The inverse of [`parse_inputs`]: `3, 1; 4, 1`.
pub fn inputs_text(inputs: &Vectors, width: usize) -> String {
    let units = inputs.len() / width.max(1);
    (0..units).map(|u| inputs.slice_text(u * width..(u + 1) * width).join(", ")).collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_round_trip_and_errors() {
        let v = parse_inputs("3, 1; 4 1;\n5,9", 3, 2, Operator::Sum).unwrap();
        assert_eq!(v, Vectors::Int(vec![3, 1, 4, 1, 5, 9]));
        assert_eq!(inputs_text(&v, 2), "3, 1; 4, 1; 5, 9");
        assert!(parse_inputs("1; 2", 3, 1, Operator::Sum).unwrap_err().contains("expected 3 vectors"));
        assert!(parse_inputs("1; 2 3", 2, 1, Operator::Sum).unwrap_err().contains("vector 1 has 2 elements"));
        assert!(parse_inputs("1.5; 2", 2, 1, Operator::Sum).unwrap_err().contains("\"1.5\""));
        assert_eq!(parse_inputs("1.5; -2", 2, 1, Operator::FloatSum).unwrap(), Vectors::Float(vec![1.5, -2.0]));
        assert!(parse_inputs("inf; 2", 2, 1, Operator::FloatMax).is_err());
    }

    /// A replay stopped anywhere, even mid-round, ends with the same trace as
    /// one replay to the end; and the final values are the sequential fold
    /// (an independent computation), so slicing cannot hide a wrong replay.
    #[test]
    fn sliced_replay_is_the_whole_replay() {
        use crate::reduce::{Collective, CollectiveConfig, PipelineConfig};
        let tree = |c, p| Schedule::collective(&CollectiveConfig::new(c, p, false).unwrap());
        let cases = [
            (tree(Collective::Reduce, 13), 3, Operator::Sum),
            (tree(Collective::Allreduce, 10), 2, Operator::FloatSum),
            (tree(Collective::Butterfly, 6), 4, Operator::Max),
            (Schedule::pipeline_of(&PipelineConfig::new(5, 3, 7).unwrap()), 7, Operator::Sum),
        ];
        for (schedule, width, op) in cases {
            let inputs = random_inputs(9, u64::from(schedule.units), width as u64, op).unwrap();
            let whole = ValueTrace::new(&schedule, op, width, &inputs);
            for budget in [1, 2, 5, 17, 1000] {
                let mut replay = ValueReplay::new(&schedule, op, width, &inputs);
                let mut slices = 0;
                while !replay.advance(&schedule, budget) {
                    slices += 1;
                    assert!(slices < 100_000, "the replay must end");
                }
                let (done, total) = replay.progress();
                assert_eq!(done, total);
                assert_eq!(replay.finish(), whole, "budget {budget}");
            }
            if schedule.root_only_input {
                continue;
            }
            let last = whole.after(whole.round_count());
            let folded = sequential_fold(&inputs, op, width);
            assert_eq!(last.values.slice_text(0..width), folded.slice_text(0..width));
        }
    }
}

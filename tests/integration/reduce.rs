//! The reduction family against `docs/reduce-model.md`: results equal
//! the sequential fold, message and round counts, activity, broadcast delivery,
//! simulated time equal to the closed forms.

use commlab_core::model::{binomial_rounds, pipeline_steps, ModelConfig};
use commlab_core::reduce::timing::{time, Costs};
use commlab_core::reduce::values::{random_inputs, sequential_fold, Snapshot, ValueTrace, Vectors};
use commlab_core::reduce::{Collective, CollectiveConfig, Operator, Schedule};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn schedule(c: Collective, p: u64, padded: bool) -> Schedule {
    Schedule::collective(&CollectiveConfig::new(c, p, padded).unwrap())
}

fn unit(snapshot: &Snapshot, u: usize, width: usize) -> Vectors {
    match &snapshot.values {
        Vectors::Int(v) => Vectors::Int(v[u * width..(u + 1) * width].to_vec()),
        Vectors::Float(v) => Vectors::Float(v[u * width..(u + 1) * width].to_vec()),
    }
}

/// Every check of §5 for one (collective, p, operator, width, padding).
fn check(c: Collective, p: u64, op: Operator, width: usize, padded: bool, seed: u64) {
    let s = schedule(c, p, padded);
    let inputs = random_inputs(seed, p, width as u64, op).unwrap();
    let trace = ValueTrace::new(&s, op, width, &inputs);
    let end = trace.after(trace.round_count());
    let fold = sequential_fold(&inputs, op, width);
    let rounds = binomial_rounds(p) as usize;
    let what = format!("{c} p={p} op={op} width={width} padded={padded}");
    match c {
        Collective::Reduce => {
            assert_eq!(unit(&end, 0, width), fold, "{what}: root holds the fold");
            assert_eq!(s.rounds.len(), rounds, "{what}: rounds");
            assert_eq!(s.message_count(), p as usize - 1, "{what}: messages");
            // Nobody sends after going inactive, and every non-root unit goes inactive once.
            let mut inactive = BTreeSet::new();
            for round in &s.rounds {
                for m in &round.messages {
                    assert!(
                        !inactive.contains(&m.from) && !inactive.contains(&m.to),
                        "{what}: {m:?} involves an inactive unit"
                    );
                }
                inactive.extend(round.deactivated.iter().copied());
            }
            assert_eq!(inactive.len(), s.drawn_units as usize - 1, "{what}: all but the root go inactive");
        }
        Collective::Broadcast => {
            let root = unit(&trace.after(0), 0, width);
            for u in 0..p as usize {
                assert_eq!(unit(&end, u, width), root, "{what}: unit {u} got the root's vector");
                assert!(end.defined[u]);
            }
            assert_eq!(s.rounds.len(), rounds, "{what}: rounds");
            assert_eq!(s.message_count(), p as usize - 1, "{what}: messages");
        }
        Collective::Allreduce | Collective::Butterfly => {
            for u in 0..p as usize {
                assert_eq!(unit(&end, u, width), fold, "{what}: unit {u} holds the fold");
            }
            if c == Collective::Allreduce {
                assert_eq!(s.rounds.len(), 2 * rounds, "{what}: rounds");
                assert_eq!(s.message_count(), 2 * (p as usize - 1), "{what}: messages");
            }
        }
    }
}

#[test]
fn exhaustive_small_unit_counts() {
    for p in 1..=64 {
        for op in Operator::ALL {
            for width in [1, 3] {
                for c in Collective::ALL {
                    check(c, p, op, width, false, p * 31 + width as u64);
                }
                check(Collective::Reduce, p, op, width, true, p);
                check(Collective::Allreduce, p, op, width, true, p);
            }
        }
    }
}

#[test]
fn padding_adds_only_virtual_messages() {
    for p in 1..=40 {
        let plain = schedule(Collective::Reduce, p, false);
        let padded = schedule(Collective::Reduce, p, true);
        assert_eq!(plain.message_count(), padded.message_count(), "p = {p}");
        assert_eq!(padded.drawn_units, (p as u32).next_power_of_two());
    }
}

#[test]
fn tree_timing_equals_the_closed_form() {
    for p in [1, 2, 3, 5, 8, 100, 1000, 4096] {
        let costs = Costs::new(1 << 16, 7.0, 0.01).unwrap();
        let model = ModelConfig::new(1 << 16, p, 7.0, 0.01, 1).unwrap();
        let t = time(&schedule(Collective::Reduce, p, false), &costs).finish;
        assert!(
            (t - model.binomial_time()).abs() < 1e-9 * t.max(1.0),
            "reduce p={p}: {t} vs {}",
            model.binomial_time()
        );
        let b = time(&schedule(Collective::Broadcast, p, false), &costs).finish;
        assert!((b - t).abs() < 1e-9 * t.max(1.0), "broadcast p={p}");
        let a = time(&schedule(Collective::Allreduce, p, false), &costs).finish;
        assert!((a - 2.0 * t).abs() < 1e-9 * t.max(1.0), "allreduce p={p}");
    }
}

#[test]
fn pipeline_values_and_steps() {
    for p in 1..=12u64 {
        for m in 1..=6u64 {
            let width = 6;
            let s = Schedule::pipeline(p, m).unwrap();
            assert_eq!(s.rounds.len() as u64, pipeline_steps(p, m), "p={p} m={m}");
            let inputs = random_inputs(p * m, p, width, Operator::Sum).unwrap();
            let trace = ValueTrace::new(&s, Operator::Sum, width as usize, &inputs);
            let end = trace.after(trace.round_count());
            assert_eq!(
                unit(&end, 0, width as usize),
                sequential_fold(&inputs, Operator::Sum, width as usize),
                "p={p} m={m}"
            );
        }
    }
}

proptest! {
    #[test]
    fn simulated_pipeline_time_is_the_model(
        p in 1u64..=300,
        m in 1u64..=300,
        n in 1u64..=(1 << 30),
        t_start in 0.0f64..100.0,
        t_byte in 0.0f64..1.0,
    ) {
        let s = Schedule::pipeline(p, m).unwrap();
        let simulated = time(&s, &Costs::new(n, t_start, t_byte).unwrap()).finish;
        let model = ModelConfig::new(n, p, t_start, t_byte, m).unwrap().time_at(m);
        prop_assert!((simulated - model).abs() <= 1e-9 * model.max(1.0), "{simulated} vs {model}");
    }

    #[test]
    fn larger_reductions_match_the_fold(p in 65u64..3000, seed in any::<u64>(), op_index in 0usize..10) {
        let op = Operator::ALL[op_index];
        for c in Collective::ALL {
            check(c, p, op, 2, false, seed);
        }
    }
}

/// 2 × 2 matrices over wrapping u64 arithmetic: associative, not commutative.
type Matrix = [u64; 4];

fn mul(a: Matrix, b: Matrix) -> Matrix {
    let f = |x: u64, y: u64, z: u64, w: u64| x.wrapping_mul(y).wrapping_add(z.wrapping_mul(w));
    [f(a[0], b[0], a[1], b[2]), f(a[0], b[1], a[1], b[3]), f(a[2], b[0], a[3], b[2]), f(a[2], b[1], a[3], b[3])]
}

const IDENTITY: Matrix = [1, 0, 0, 1];

fn matrices(p: usize, width: usize, seed: u64) -> Vec<Matrix> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % 7 + 1
    };
    (0..p * width).map(|_| [next(), next(), next(), next()]).collect()
}

/// `v_0 ⊕ v_1 ⊕ … ⊕ v_{p−1}` element by element, in index order.
fn ordered_product(inputs: &[Matrix], p: usize, width: usize) -> Vec<Matrix> {
    (0..width).map(|e| (0..p).fold(IDENTITY, |acc, u| mul(acc, inputs[u * width + e]))).collect()
}

/// With a non-commutative ⊕ the result must be `v_0 ⊕ v_1 ⊕ … ⊕ v_{p−1}` in
/// that order (§1: `x_i ← x_i ⊕ x_{i+2^k}`; §4: the chain from `p_{p−1}` to
/// `p_0`), for every p ≤ 64, padded or not, and the pipeline for every m ≤ 8.
#[test]
fn operand_order_with_a_non_commutative_operator() {
    use commlab_core::reduce::values::replay_with;
    for p in 1..=64usize {
        for padded in [false, true] {
            let inputs = matrices(p, 1, p as u64 * 2 + u64::from(padded));
            let want = ordered_product(&inputs, p, 1)[0];
            let order_matters = (0..p).rev().fold(IDENTITY, |acc, u| mul(acc, inputs[u])) != want;
            assert!(p < 3 || order_matters, "p={p}: the inputs must tell the orders apart");
            for c in [Collective::Reduce, Collective::Allreduce] {
                let s = schedule(c, p as u64, padded);
                let end = replay_with(&s, 1, &inputs, IDENTITY, mul);
                let holders = if c == Collective::Reduce { 1 } else { p };
                for (u, got) in end.iter().enumerate().take(holders) {
                    assert_eq!(*got, want, "{c} p={p} padded={padded}: unit {u}");
                }
            }
            let s = schedule(Collective::Broadcast, p as u64, padded);
            let end = replay_with(&s, 1, &inputs, IDENTITY, mul);
            assert!(end[..p].iter().all(|&m| m == inputs[0]), "broadcast p={p}");
            if p.is_power_of_two() {
                // Recursive doubling keeps the order when partners' blocks are adjacent
                // halves; with the fold for other p it does not (fine for the
                // commutative operators the views offer).
                let s = schedule(Collective::Butterfly, p as u64, padded);
                let end = replay_with(&s, 1, &inputs, IDENTITY, mul);
                assert!(end[..p].iter().all(|&m| m == want), "butterfly p={p}");
            }
        }
        for m in 1..=8usize {
            let s = Schedule::pipeline(p as u64, m as u64).unwrap();
            let inputs = matrices(p, m, 1000 + p as u64 * 8 + m as u64);
            let end = replay_with(&s, m, &inputs, IDENTITY, mul);
            assert_eq!(end[..m].to_vec(), ordered_product(&inputs, p, m), "pipeline p={p} m={m}");
        }
    }
}

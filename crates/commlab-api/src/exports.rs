//! The data behind each view as CSV and JSON (pure functions, tested natively).
//!
//! JSON is built with the crate's small [`crate::json::Json`] writer (the
//! page's bundle links these for small runs; `serde_json` stays in the
//! worker). The mesh run's JSON is [`crate::report::RunJson`].

use crate::chooser::{ChooseResult, WinnerMap};
use crate::json::Json as Value;
use crate::tree::{PipelineRequest, TreeRequest, TreeRun};
use commlab_core::barrier::experiment::Point;
use commlab_core::reduce::values::{piece_range, Vectors};
use commlab_core::reduce::{caption, Schedule};
use commlab_core::systems::Measure;
use std::fmt::Write;

/// Rows of per-step values above which the CSV keeps only the first and last step.
const CSV_VALUE_ROWS: usize = 200_000;

fn vectors_json(v: &Vectors, width: usize, units: usize) -> Value {
    let row = |u: usize| -> Value {
        match v {
            Vectors::Int(x) => json!(&x[u * width..(u + 1) * width]),
            Vectors::Float(x) => json!(&x[u * width..(u + 1) * width]),
        }
    };
    Value::Arr((0..units).map(row).collect())
}

/// `step,unit,state,x0,x1,…`: every drawn unit's vector after every step
/// (first and last step only when that would exceed 200 000 rows).
pub fn tree_csv(run: &TreeRun) -> String {
    let s = &run.schedule;
    let units = s.drawn_units as usize;
    let rounds = s.rounds.len();
    let mut out = String::from("step,unit,state");
    for e in 0..run.width {
        let _ = write!(out, ",x{e}");
    }
    out.push('\n');
    let steps: Vec<usize> =
        if units * (rounds + 1) <= CSV_VALUE_ROWS { (0..=rounds).collect() } else { vec![0, rounds] };
    let mut inactive = vec![false; units];
    let mut done = 0;
    for step in steps {
        for round in &s.rounds[done..step] {
            for &u in &round.deactivated {
                inactive[u as usize] = true;
            }
        }
        done = step;
        let snapshot = run.trace.after(step);
        for (u, &is_inactive) in inactive.iter().enumerate() {
            let state = if s.is_virtual(u as u32) {
                "virtual"
            } else if is_inactive {
                "inactive"
            } else if snapshot.defined[u] {
                "active"
            } else {
                "waiting"
            };
            let _ = write!(out, "{step},{u},{state}");
            for v in run.trace.vector_text(&snapshot, u) {
                let _ = write!(out, ",{}", v.replace('∞', "inf").replace('−', "-"));
            }
            out.push('\n');
        }
    }
    out
}

/// The run as JSON: parameters, inputs, every round's messages and caption, the final vectors.
pub fn tree_json(run: &TreeRun, params: &TreeRequest) -> String {
    let s = &run.schedule;
    let rounds: Vec<Value> = s
        .rounds
        .iter()
        .enumerate()
        .map(|(r, round)| {
            json!({
                "step": r + 1,
                "messages": round.messages.iter().map(|m| json!({"from": m.from, "to": m.to, "combine": m.combine})).collect::<Vec<_>>(),
                "deactivated": &round.deactivated,
                "caption": caption(s, r),
            })
        })
        .collect();
    let end = run.trace.after(run.trace.round_count());
    let doc = json!({
        "collective": params.collective.as_str(),
        "picture": if params.message_passing { "message-passing" } else { "pram" },
        "p": s.units,
        "drawn_units": s.drawn_units,
        "elements": run.width,
        "op": params.operator.as_str(),
        "seed": params.seed,
        "inputs": vectors_json(&run.inputs, run.width, s.units as usize),
        "rounds": rounds,
        "final": vectors_json(&end.values, run.width, s.units as usize),
    });
    doc.pretty()
}

/// `step,from,to,piece,first_element,last_element`: every message of the pipeline.
pub fn pipeline_csv(schedule: &Schedule, elements: usize) -> String {
    let mut out = String::from("step,from,to,piece,first_element,last_element\n");
    for (s, round) in schedule.rounds.iter().enumerate() {
        for m in &round.messages {
            let range = piece_range(m.piece, schedule.pieces, elements);
            let _ = writeln!(
                out,
                "{},{},{},{},{},{}",
                s + 1,
                m.from,
                m.to,
                m.piece,
                range.start,
                range.end.saturating_sub(1)
            );
        }
    }
    out
}

/// The pipeline run as JSON.
pub fn pipeline_json(schedule: &Schedule, params: &PipelineRequest) -> String {
    let steps: Vec<Value> = schedule
        .rounds
        .iter()
        .map(|r| Value::Arr(r.messages.iter().map(|m| json!({"from": m.from, "to": m.to, "piece": m.piece})).collect()))
        .collect();
    let doc = json!({
        "p": params.units, "pieces": params.pieces, "elements": params.elements,
        "steps": schedule.rounds.len(),
        "messages_per_step": steps,
    });
    doc.pretty()
}

/// Points of the `T(m)` curve in the model's CSV (as drawn).
pub const MODEL_CURVE_POINTS: usize = 400;

/// One simulated point of the model view.
pub type SimulatedPoint = (u64, f64);

/// `m,t_model,t_simulated,t_network`: the `T(m)` curve with the event-simulated points and the network twin where computed (their piece counts are rows even where the curve skips them).
pub fn model_csv(run: &crate::model::ModelRun) -> String {
    let mut rows = run.config.pieces_curve(MODEL_CURVE_POINTS);
    // The simulated piece counts are rows too, where the curve's samples miss them.
    for &(m, _) in run.simulated.iter().chain(&run.network) {
        if let Err(at) = rows.binary_search_by_key(&m, |r| r.0) {
            rows.insert(at, (m, run.config.time_at(m)));
        }
    }
    let mut out = String::from("m,t_model,t_simulated,t_network\n");
    let cell = |points: &[SimulatedPoint], m: u64| {
        points.iter().find(|p| p.0 == m).map(|p| p.1.to_string()).unwrap_or_default()
    };
    for (m, t) in rows {
        let _ = writeln!(out, "{m},{t},{},{}", cell(&run.simulated, m), cell(&run.network, m));
    }
    out
}

/// The network twin's points from [`model_csv`]'s text: the page reads them
/// from the worker's CSV export of the kept run (the engine's responses are
/// deserialised in every bundle, and one bundle is at its budget: no
/// response of their own).
pub fn network_points(csv: &str) -> Vec<SimulatedPoint> {
    csv.lines()
        .skip(1)
        .filter_map(|line| {
            let mut cells = line.split(',');
            let m = cells.next()?.parse().ok()?;
            let t = cells.nth(2)?.parse().ok()?;
            Some((m, t))
        })
        .collect()
}

/// The model's numbers as JSON: the view's export and `commlab model --json`
/// (`m_star` is null where the model has no optimum: unbounded or flat).
pub fn model_json(run: &crate::model::ModelRun) -> String {
    let model = &run.config;
    let s = model.summary();
    let doc = json!({
        "n": model.bytes(), "p": model.units(), "t_start": model.t_start(), "t_byte": model.t_byte(),
        "max_pieces": model.max_pieces(),
        "piece_limit": model.piece_limit(),
        "m_star": s.optimum.pieces(),
        "m_star_note": s.optimum.note(),
        "t_m_star": s.time_at_optimum,
        "m_best": s.best_pieces,
        "t_m_best": s.time_at_best,
        "steps_m_best": s.steps_at_best,
        "t_binomial": s.binomial_time,
        "binomial_rounds": s.binomial_rounds,
        "simulated": run.simulated.iter().map(|&(m, t)| json!({"m": m, "t": t, "t_model": model.time_at(m)})).collect::<Vec<_>>(),
        "network": run.network.iter().map(|&(m, t)| json!({"m": m, "t": t, "t_model": model.time_at(m)})).collect::<Vec<_>>(),
    });
    doc.pretty()
}

/// `loop,core,step,row,column,rank`: every loop index (padding rows have empty cells).
pub fn swizzle_csv(schedule: &commlab_core::swizzle::Schedule) -> String {
    let grid = schedule.config().grid();
    let nc = schedule.core_count() as usize;
    let mut out = String::from("loop,core,step,row,column,rank\n");
    for i in 0..schedule.loop_count() {
        match schedule.task(i) {
            Some(t) => {
                let _ = writeln!(
                    out,
                    "{i},{},{},{},{},{}",
                    i % nc,
                    i / nc,
                    t.data / grid.column,
                    t.data % grid.column,
                    t.rank
                );
            }
            None => {
                let _ = writeln!(out, "{i},{},{},,,", i % nc, i / nc);
            }
        }
    }
    out
}

/// The swizzle schedule as JSON: the CLI's shape plus the modelled times.
pub fn swizzle_json(
    schedule: &commlab_core::swizzle::Schedule,
    naive: &commlab_core::swizzle::Schedule,
    cost: &commlab_core::swizzle::CostModel,
) -> String {
    let c = schedule.config();
    let grid = c.grid();
    let coords: Vec<Value> = (0..schedule.loop_count())
        .map(|i| schedule.task(i).map_or(Value::Null, |t| json!([t.data / grid.column, t.data % grid.column, t.rank])))
        .collect();
    let coverage = schedule.coverage();
    let doc = json!({
        "grid": [grid.row, grid.column, grid.rank],
        "cores": [c.cores().row, c.cores().column],
        "direction": c.direction(), "deterministic": c.deterministic(), "shift": c.shift(),
        "coords": coords,
        "steps": schedule.steps(),
        "collisions_per_step": schedule.collisions_per_step(),
        "bijective": coverage.is_bijective(),
        "repeated_cells": coverage.repeated.len(),
        "missed_cells": coverage.missed.len(),
        "modelled_ns": cost.schedule_ns(schedule),
        "naive_modelled_ns": cost.schedule_ns(naive),
    });
    doc.pretty()
}

/// The same points as JSON.
pub fn points_json(points: &[Point]) -> String {
    let doc: Vec<Value> = points
        .iter()
        .map(|p| {
            json!({"algorithm": p.algorithm.id(), "size": p.size, "nodes": p.size * p.size, "break_rate": p.rate,
            "mean_delay_ticks": p.mean, "min_delay_ticks": p.min, "max_delay_ticks": p.max, "runs": p.runs})
        })
        .collect();
    Value::Arr(doc).pretty()
}

/// `k1,k2,uq_lct,uq_bst,lct_minus_bst` of the UQ experiment (`side` numberings).
pub fn uq_csv(lct: &[f64], bst: &[f64], numberings: usize) -> String {
    let mut out = String::from("k1,k2,uq_lct,uq_bst,lct_minus_bst\n");
    for (i, (a, b)) in lct.iter().zip(bst).enumerate() {
        let _ = writeln!(out, "{},{},{a},{b},{}", i / numberings.max(1), i % numberings.max(1), a - b);
    }
    out
}

/// The UQ experiment as JSON.
pub fn uq_json(u: &crate::lab::UqResult) -> String {
    json!({"size": u.size, "encoding": u.encoding.as_str(), "links": u.links.as_str(),
        "lct_mean": u.lct_mean, "lct_mean_without_identity": u.lct_mean_without_identity, "bst_mean": u.bst_mean,
        "paper_lct_mean": commlab_core::barrier::uq::PAPER_LCT_MEAN, "means_note": u.means_note.as_str(),
        "lct": &u.lct, "bst": &u.bst, "lct_minus_bst": &u.lct_minus_bst})
    .pretty()
}

/// The comparison as CSV: per size and algorithm, the time, its terms, the
/// piece count and the simulated time. On a network the network's numbers
/// lead (`network_ns`, the piece count it ran with, its `winner`), the α–β
/// model's follow under `model_` names.
pub fn choose_csv(r: &ChooseResult) -> String {
    if r.network.is_some() {
        return choose_network_csv(r);
    }
    let mut out = String::from("bytes,algorithm,time,latency,bandwidth,compute,pieces,simulated,winner\n");
    for row in &r.rows {
        for (k, id) in r.algorithms.iter().enumerate() {
            let c = row.costs[k];
            let sim = row.simulated.as_ref().and_then(|s| s[k]).map(|t| t.to_string()).unwrap_or_default();
            let _ = writeln!(
                out,
                "{},{id},{},{},{},{},{},{sim},{}",
                row.bytes,
                c.total(),
                c.latency,
                c.bandwidth,
                c.compute,
                row.pieces[k],
                u8::from(row.winner == k)
            );
        }
    }
    out
}

fn choose_network_csv(r: &ChooseResult) -> String {
    let mut out = String::from(
        "bytes,algorithm,network_ns,network_pieces,winner,model_time,model_latency,model_bandwidth,model_compute,model_pieces,model_winner,network_algbw,network_busbw\n",
    );
    let collective = r.collective.parse::<commlab_core::choose::Collective>().ok();
    for row in &r.rows {
        let Some(net) = &row.network else { continue };
        for (k, id) in r.algorithms.iter().enumerate() {
            let c = row.costs[k];
            // Empty where the network could not run it (over the message limit, cut off).
            let ns = net.times.get(k).copied().flatten();
            let time = ns.map(|t| t.to_string()).unwrap_or_default();
            // nccl-tests' terms, GB/s (bytes per ns).
            let bw = |m: Measure| {
                ns.zip(collective).map(|(t, c)| m.of(c, r.p, row.bytes, t).to_string()).unwrap_or_default()
            };
            let _ = writeln!(
                out,
                "{},{id},{time},{},{},{},{},{},{},{},{},{},{}",
                row.bytes,
                net.pieces.get(k).copied().unwrap_or(row.pieces[k]),
                u8::from(net.winner == k),
                c.total(),
                c.latency,
                c.bandwidth,
                c.compute,
                row.pieces[k],
                u8::from(row.winner == k),
                bw(Measure::Algbw),
                bw(Measure::Busbw)
            );
        }
    }
    out
}

/// The winner map as CSV: per p and size, the winner, how much longer the
/// runner-up takes (a ratio ≥ 1) and the winner's piece count.
pub fn winner_map_csv(m: &WinnerMap) -> String {
    let mut out = String::from("p,bytes,winner,margin,pieces\n");
    for (i, p) in m.ps.iter().enumerate() {
        for (j, n) in m.sizes.iter().enumerate() {
            let k = i * m.sizes.len() + j;
            let _ = writeln!(out, "{p},{n},{},{},{}", m.algorithms[usize::from(m.winner[k])], m.margin[k], m.pieces[k]);
        }
    }
    out
}

/// A fit's points as CSV, in the file's order: the Chooser's size in bytes,
/// the measured time, the model's, the residual (measured − model) and the
/// residual relative to the measurement, times in the file's unit.
pub fn fit_csv(f: &crate::fit::FitResult) -> String {
    let mut out = String::from("bytes,measured,model,residual,relative\n");
    for ((&(n, t), m), r) in f.points.iter().zip(&f.predicted).zip(&f.residuals) {
        let _ = writeln!(out, "{n},{t},{m},{r},{}", r / t);
    }
    out
}

/// A System's expected curve as CSV: per size NCCL's pick, the engine that
/// made the time, the time (µs) and both bandwidths (GB/s) on `p` ranks.
pub fn expected_csv(collective: commlab_core::choose::Collective, p: u32, rows: &[crate::predict::Expected]) -> String {
    let mut out = String::from("bytes,pick,engine,time_us,algbw_GBps,busbw_GBps\n");
    for e in rows {
        let _ = writeln!(
            out,
            "{},\"{}\",{},{},{},{}",
            e.bytes,
            e.pick,
            e.engine.id(),
            e.time_ns / 1000.0,
            Measure::Algbw.of(collective, p, e.bytes, e.time_ns),
            Measure::Busbw.of(collective, p, e.bytes, e.time_ns)
        );
    }
    out
}

/// A System's expected curve as JSON: what was asked and, per size, the
/// CSV's columns.
pub fn expected_json(asked: &crate::predict::PredictRequest, p: u32, rows: &[crate::predict::Expected]) -> String {
    let collective = asked.collective.parse().unwrap_or(commlab_core::choose::Collective::Allreduce);
    let rows: Vec<Value> = rows
        .iter()
        .map(|e| {
            json!({
                "bytes": e.bytes, "pick": e.pick.as_str(), "engine": e.engine.id(), "time_us": e.time_ns / 1000.0,
                "algbw": Measure::Algbw.of(collective, p, e.bytes, e.time_ns),
                "busbw": Measure::Busbw.of(collective, p, e.bytes, e.time_ns),
            })
        })
        .collect();
    let id = asked.system.id();
    json!({
        "system": id.as_str(), "nodes": asked.system.nodes, "ranks": p, "collective": asked.collective.as_str(),
        "rows": Value::Arr(rows),
    })
    .pretty()
}

//! Event-level timing of a [`Schedule`] under the BSP costs of
//! `docs/reduce-model.md`: a message of `b` bytes takes
//! `T_start + b · T_byte`.
//!
//! Each unit has one send port and one receive port (full duplex: it may send
//! and receive at once, as the pipeline needs). A message starts when its
//! sender holds the data (every earlier message into the sender carrying the
//! same piece has arrived), the sender's port is free and the receiver's port
//! is free. Within a round every message reads the state from before the
//! round, so butterfly partners exchange simultaneously. For the pipeline this
//! gives exactly `T(n,p,m)`; for the binomial tree `ceil(log2 p)·(T_start + n·T_byte)`.

use super::{Collective, CollectiveConfig, Schedule};
use crate::limits::ConfigError;
use crate::limits::{BYTES, T_BYTE, T_START};
use crate::model::{log_samples, ModelConfig};

/// Cost parameters of a timing run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    bytes: f64,
    t_start: f64,
    t_byte: f64,
}

impl Costs {
    /// Validates `n` (bytes of the whole vector), `T_start`, `T_byte`.
    ///
    /// # Errors
    /// The first out-of-range parameter.
    pub fn new(bytes: u64, t_start: f64, t_byte: f64) -> Result<Costs, ConfigError> {
        if !BYTES.contains(bytes) {
            return Err(ConfigError::int(BYTES, bytes));
        }
        for (range, value) in [(T_START, t_start), (T_BYTE, t_byte)] {
            if !range.contains(value) {
                return Err(ConfigError::real(range, value));
            }
        }
        Ok(Costs { bytes: bytes as f64, t_start, t_byte })
    }
}

/// The outcome of a timing run.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// When the last message arrives (0 when there is none).
    pub finish: f64,
    /// Per round, when its last message arrives.
    pub round_finish: Vec<f64>,
    /// Real messages timed.
    pub messages: usize,
}

/// Times `schedule` under `costs`; virtual (padding) messages cost nothing.
pub fn time(schedule: &Schedule, costs: &Costs) -> Timing {
    let units = schedule.drawn_units as usize;
    let pieces = schedule.pieces as usize;
    let per_message = costs.t_start + costs.bytes / pieces as f64 * costs.t_byte;
    let mut send_free = vec![0.0_f64; units];
    let mut recv_free = vec![0.0_f64; units];
    let mut ready = vec![0.0_f64; units * pieces];
    let mut round_finish = Vec::with_capacity(schedule.rounds.len());
    let mut arrivals = Vec::new();
    let mut messages = 0;
    let mut finish = 0.0_f64;
    for round in &schedule.rounds {
        arrivals.clear();
        let mut last = finish;
        for m in round.messages.iter().filter(|m| !schedule.is_virtual(m.from) && !schedule.is_virtual(m.to)) {
            let (from, to, piece) = (m.from as usize, m.to as usize, m.piece as usize);
            let start = ready[from * pieces + piece].max(send_free[from]).max(recv_free[to]);
            let end = start + per_message;
            send_free[from] = end;
            recv_free[to] = end;
            arrivals.push((to * pieces + piece, end));
            last = last.max(end);
            messages += 1;
        }
        for &(slot, end) in &arrivals {
            ready[slot] = ready[slot].max(end);
        }
        finish = finish.max(last);
        round_finish.push(last);
    }
    Timing { finish, round_finish, messages }
}

/// Event-simulated pipeline times `(m, T)` at up to `max_points` log-spaced
/// piece counts in `1..=piece_limit` (always including the best `m`), each
/// simulation limited to `message_budget` messages (`(p − 1)·m`): the points
/// the model view draws on top of the analytic `T(m)`.
pub fn simulated_pieces(model: &ModelConfig, max_points: usize, message_budget: u64) -> Vec<(u64, f64)> {
    let costs = Costs { bytes: model.bytes() as f64, t_start: model.t_start(), t_byte: model.t_byte() };
    let mut ms = log_samples(1, model.piece_limit(), max_points);
    ms.push(model.best_pieces_up_to(model.piece_limit()));
    ms.sort_unstable();
    ms.dedup();
    ms.into_iter()
        .filter(|&m| (model.units() - 1) * m <= message_budget)
        .filter_map(|m| Schedule::pipeline(model.units(), m).ok().map(|s| (m, time(&s, &costs).finish)))
        .collect()
}

/// Event-simulated binomial-reduce times `(p, T)` at up to `max_points`
/// log-spaced unit counts in `2..=max_units` (capped at `2^16` units).
pub fn simulated_binomial(model: &ModelConfig, max_units: u64, max_points: usize) -> Vec<(u64, f64)> {
    let costs = Costs { bytes: model.bytes() as f64, t_start: model.t_start(), t_byte: model.t_byte() };
    log_samples(2, max_units.clamp(2, 1 << 16), max_points)
        .into_iter()
        .filter_map(|p| {
            let config = CollectiveConfig::new(Collective::Reduce, p, false).ok()?;
            Some((p, time(&Schedule::collective(&config), &costs).finish))
        })
        .collect()
}

//! The chunk optimizer checked by simulation: each pipelined algorithm's
//! piece count around the model's best, simulated.

use super::points::within;
use super::{simulated, Cache, ChooseRequest, ChooseResult, MAX_PIECES};
use crate::ApiError;
use commlab_core::choose::{AlphaBeta, Collective};
use serde::{Deserialize, Serialize};

/// A pipelined algorithm's best piece count on the model, checked by
/// LogGOPS at the neighbouring powers of two.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceCheck {
    /// Algorithm id.
    pub algorithm: String,
    /// Bytes.
    pub bytes: u64,
    /// The model's best piece count.
    pub model_pieces: u32,
    /// Per piece count tried (`m/4 … 4m`, powers of two in `1..=min(4096, n)`):
    /// `(m, model time, LogGOPS time)`.
    pub tried: Vec<(u32, f64, f64)>,
}

impl PieceCheck {
    /// The piece count LogGOPS finds fastest among those tried.
    pub fn simulated_best(&self) -> u32 {
        self.tried.iter().min_by(|a, b| a.2.total_cmp(&b.2)).map_or(self.model_pieces, |t| t.0)
    }
}

/// The chunk optimizer checked by simulation: at the row nearest to `at`,
/// each pipelined algorithm at `m/4 … 4m` around its model-best `m` (plans
/// over `limit` transfers left out unless `limit` is 0).
///
/// # Panics
/// Never: the result's algorithms are its collective's.
pub fn piece_checks(result: &ChooseResult, at: u64, limit: u64, ab: AlphaBeta) -> Vec<PieceCheck> {
    let Ok(collective) = result.collective.parse::<Collective>() else { return Vec::new() };
    let Some(row) = result.rows.iter().min_by_key(|r| r.bytes.abs_diff(at)) else { return Vec::new() };
    let n = row.bytes;
    result
        .algorithms
        .iter()
        .enumerate()
        .filter(|(k, _)| result.pipelined[*k])
        .map(|(k, id)| {
            let m = row.pieces[k];
            let tried = [m / 4, m / 2, m, m.saturating_mul(2), m.saturating_mul(4)]
                .into_iter()
                .filter(|&x| (1..=MAX_PIECES).contains(&x) && u64::from(x) <= n)
                .collect::<std::collections::BTreeSet<u32>>()
                .into_iter()
                .filter_map(|x| {
                    within(collective, id, result.p, x, limit)
                        .map(|plan| (x, plan.cost(n, ab).total(), simulated(&plan, n, ab)))
                })
                .collect();
            PieceCheck { algorithm: id.clone(), bytes: n, model_pieces: m, tried }
        })
        .collect()
}

/// [`piece_checks`] of `request` at its `check_at` (the model run first,
/// with profiles from `cache`; nothing without `check_at`).
///
/// # Errors
/// As [`ChooseRequest::run`].
pub fn check_pieces(request: &ChooseRequest, cache: &mut Cache) -> Result<Vec<PieceCheck>, ApiError> {
    let Some(at) = request.check_at else { return Ok(Vec::new()) };
    let model = ChooseRequest { simulate: false, ..request.clone() }.run_cached(cache)?;
    let ab = AlphaBeta { alpha: request.alpha, beta: request.beta, gamma: request.gamma };
    Ok(piece_checks(&model, at, request.sim_limit, ab))
}

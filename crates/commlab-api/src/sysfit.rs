//! A preset system fitted to a measured nccl-tests run (`docs/systems.md`,
//! fitting the system): the few physical values a preset states, scaled
//! until what NCCL would run on it, simulated, matches the measured times.
//!
//! Three factors ([`Scales`]) on the preset: the NIC–rail links' bandwidth,
//! the `NVLink` links' bandwidth, and NCCL's fixed costs (its per-step and
//! per-call latencies). NCCL's pick at each size stays the one its model
//! makes on the preset as described (that is what the measured library
//! decided from the hardware it found); only the simulation is scaled.
//!
//! A run measures two or three of them: across nodes the NICs and the
//! fixed costs (every preset's NICs are at least 6 times slower than its
//! `NVLink`, so a ring's or tree's times depend on `NVLink` too little to
//! measure it: it is held at the preset's value and reported as not
//! measured), and `NVLink` too where NCCL picks NVLS at the largest size
//! (its reduction in the switch moves at `NVLink`'s pace, not the NICs') or
//! its tree on two nodes (which may move at twice the network inside a node);
//! on one node `NVLink` and the fixed costs (no time depends on the NICs).
//!
//! The fit is Levenberg–Marquardt on the logarithms of the factors and of
//! the times (every size weighs alike, as relative errors), with a
//! finite-difference Jacobian, restarted from the best point of a small
//! grid around its end. The uncertainty is the 95 % half-width from slopes
//! over ±20 % and the residuals' variance, with the fit's resolution (5 %)
//! added; a factor whose interval spans more than a factor of 2 is reported
//! as not measured.
//!
//! The page keeps NCCL's model and plans ([`crate::predict::PredictRequest::planned`]);
//! the engine worker runs [`SystemFitRequest::run`] (it carries the simulator, not the model).

use crate::predict::{algorithm_id, Engine, Planned, Prepared, Scales};
use crate::system::System;
use crate::ApiError;
use commlab_core::libraries::nccl::{Algorithm, Protocol, Schedule};
use commlab_core::net::Shape;
use serde::{Deserialize, Serialize};

/// The factors' range (each between 1/50 and 50 of the preset's value).
const LN_BOUND: f64 = 3.912_023_005_428_146; // ln 50

/// The finite-difference step on a factor's logarithm: 5 %. A simulated
/// time is not smooth in the factors: as they move, flows that share a link
/// start in another order and a size's time jumps by a few percent (on
/// `dgx-h100` × 2 at 64 MiB, 447 to 476 µs as the latency factor goes from
/// 1.34 to 1.36). Slopes taken over 5 % see through those jumps; the fit
/// cannot resolve a factor finer than that step, so the step is added to
/// every stated uncertainty ([`RESOLUTION`]).
const STEP: f64 = 5e-2;

/// The half-span of the slopes the uncertainty is read from (20 % on a
/// factor's logarithm).
const BROAD: f64 = 0.2;

/// The offsets (on the measured bandwidth's and the latency's logarithms)
/// of the grid a fit restarts from.
const GRID: [f64; 3] = [-0.15, 0.0, 0.15];

/// The resolution added (in quadrature) to each factor's uncertainty, as a share of it.
const RESOLUTION: f64 = STEP;

/// Levenberg–Marquardt iterations at most.
const ITERATIONS: u32 = 12;

/// The weight of a weak prior pulling each factor's logarithm to 0 (the
/// preset as described): a factor the times barely depend on stays near 1
/// instead of drifting to a bound, and its uncertainty says how little the
/// run measures it. Against a point's weight of 1 it moves a well-measured
/// factor by far less than its uncertainty.
const PRIOR: f64 = 1e-2;

/// A fit's request: the measured sizes as NCCL would run them on the preset,
/// the measured times, and the sizes of another node count to predict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemFitRequest {
    /// One per measured size, in the measurement's order.
    pub planned: Vec<Planned>,
    /// The measured times, µs.
    pub measured_us: Vec<f64>,
    /// Sizes to predict with the fitted factors (another node count; may be empty).
    #[serde(default)]
    pub then: Vec<Planned>,
    /// The engine that makes the model's times (`predict::Engine`).
    #[serde(default)]
    pub engine: Engine,
}

/// A fit's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemFit {
    /// The fitted factors.
    pub scales: Scales,
    /// Their 95 % half-widths (inter, intra, latency); `None`: not measured
    /// (its interval spans more than a factor of 2; one no time depends on
    /// stays at 1).
    pub errors: [Option<f64>; 3],
    /// The fitted model's time per measured size, µs.
    pub fitted_us: Vec<f64>,
    /// The preset's time as described per measured size, µs (what `commlab predict` gives).
    pub nominal_us: Vec<f64>,
    /// Root mean square of ln(fitted / measured) (≈ a relative residual).
    pub rms: f64,
    /// Iterations taken.
    pub iterations: u32,
    /// Per size of [`SystemFitRequest::then`], the fitted model's time, µs.
    pub then_us: Vec<f64>,
}

fn scales_of(x: [f64; 3]) -> Scales {
    Scales { inter: x[0].exp(), intra: x[1].exp(), latency: x[2].exp() }
}

/// Times in µs of every planned size with the preset's values scaled by `s`.
///
/// # Errors
/// A network the simulator refuses.
pub fn times_at(planned: &[Planned], s: Scales) -> Result<Vec<f64>, ApiError> {
    times(planned, &prepare(planned, None)?, s, None)
}

/// The steady engine's time of a run without NCCL's per-call cost
/// ([`Planned::steady_ns`]), handed to [`SystemFitRequest::run_by`] by
/// those that fit with it: the engine worker, which fits with the flow
/// engine only, does not carry it.
pub type SteadyTime = fn(&Planned, Scales) -> Result<f64, ApiError>;

/// Times in µs: from `steady` where it models the run, else simulated.
fn times(
    planned: &[Planned],
    prepared: &[Option<Prepared>],
    s: Scales,
    steady: Option<SteadyTime>,
) -> Result<Vec<f64>, ApiError> {
    planned
        .iter()
        .zip(prepared)
        .map(|(p, prep)| match steady {
            Some(time) if p.steady_under(Engine::Steady) => Ok((time(p, s)? + p.base_us * 1000.0 * s.latency) / 1000.0),
            _ => Ok(p.time_ns(prep.as_ref(), s)? / 1000.0),
        })
        .collect()
}

/// What the flow engine runs again and again (nothing where `steady`
/// models the run).
fn prepare(planned: &[Planned], steady: Option<SteadyTime>) -> Result<Vec<Option<Prepared>>, ApiError> {
    planned
        .iter()
        .map(|p| if steady.is_some() && p.steady_under(Engine::Steady) { Ok(None) } else { p.prepare() })
        .collect()
}

/// Solves the `k`×`k` system `a · x = b` (Gaussian elimination with
/// partial pivoting); `None` when singular.
fn solve(mut a: [[f64; 3]; 3], mut b: [f64; 3], k: usize) -> Option<[f64; 3]> {
    for col in 0..k {
        let pivot = (col..k).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..k {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (c, v) in a[row].iter_mut().enumerate().take(k).skip(col) {
                *v -= f * pivot_row[c];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..k).rev() {
        let rest: f64 = (row + 1..k).map(|c| a[row][c] * x[c]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

/// The factor a fit of `planned` holds at the preset's value: the NICs (0)
/// on one node; `NVLink` (1) across nodes, unless the largest size (where
/// the bandwidth shows) runs where `NVLink` can bound it (NVLS, or NCCL's
/// tree on two nodes): then none.
fn held_of(planned: &[Planned]) -> Option<usize> {
    let across = planned.iter().any(|p| matches!(p.shape, Shape::Nodes { n, .. } if n > 1));
    // The bandwidth shows at the largest size: what runs there.
    let largest = planned.iter().max_by_key(|p| p.bytes);
    let nvlink_bound =
        largest.is_some_and(|p| p.schedule == Schedule::Nvls || (p.schedule == Schedule::Tree && two_nodes(p)));
    match (across, nvlink_bound) {
        (false, _) => Some(0),
        (true, false) => Some(1),
        (true, true) => None,
    }
}

/// Whether `p` runs on two nodes, where NCCL's tree may move at up to twice
/// the network inside a node, so `NVLink` can bound it.
fn two_nodes(p: &Planned) -> bool {
    matches!(p.shape, Shape::Nodes { n: 2, .. })
}

/// Levenberg–Marquardt from the preset, then again from the best of a grid
/// around its end over the measured bandwidth and the latency (the
/// simulated times' jitter leaves local minima a gradient step does not
/// leave): the end, its residuals, the iterations and the factors left free.
fn fit_with_restart(problem: &Problem<'_>) -> Result<Descent, ApiError> {
    let (mut at, mut resid, mut iterations, free) = levenberg_marquardt(problem, [0.0; 3])?;
    // Restart from the best of a grid around the end over the measured
    // bandwidth and the latency: the simulated times' jitter leaves
    // local minima a gradient step does not leave.
    let bandwidth = usize::from(problem.held == 0);
    let mut best = (sum_sq(&resid), None);
    for di in GRID {
        for dj in GRID {
            if di == 0.0 && dj == 0.0 {
                continue;
            }
            let mut y = at;
            y[bandwidth] = (at[bandwidth] + di).clamp(-LN_BOUND, LN_BOUND);
            y[2] = (at[2] + dj).clamp(-LN_BOUND, LN_BOUND);
            let c = sum_sq(&problem.residuals(y)?);
            if c < best.0 {
                best = (c, Some(y));
            }
        }
    }
    if let Some(start) = best.1 {
        let (a, r, more, _) = levenberg_marquardt(problem, start)?;
        if sum_sq(&r) < sum_sq(&resid) {
            (at, resid) = (a, r);
        }
        iterations += more;
    }
    Ok((at, resid, iterations, free))
}

/// The fitting problem: the measured points that can be fitted and the runs
/// prepared once.
struct Problem<'a> {
    /// The factor held at the preset's value ([`SystemFitRequest::held`];
    /// 3: none).
    held: usize,
    planned: &'a [Planned],
    prepared: Vec<Option<Prepared>>,
    ln_measured: Vec<f64>,
    steady: Option<SteadyTime>,
}

impl Problem<'_> {
    /// ln(model) − ln(measured) per point, then the prior's three.
    fn residuals(&self, x: [f64; 3]) -> Result<Vec<f64>, ApiError> {
        let t = times(self.planned, &self.prepared, scales_of(x), self.steady)?;
        let mut r: Vec<f64> = t.iter().zip(&self.ln_measured).map(|(m, ln)| m.max(1e-12).ln() - ln).collect();
        r.extend(x.iter().map(|v| PRIOR * v));
        Ok(r)
    }

    /// The measured points' part of a residual vector or column.
    fn data<'v>(&self, v: &'v [f64]) -> &'v [f64] {
        &v[..self.ln_measured.len()]
    }

    /// Columns of d r / d x over a broad span (central differences of
    /// ±[`BROAD`]): the slope of the basin the fit ends in rather than of the
    /// jitter on its floor, for the uncertainty.
    fn broad_jacobian(&self, x: [f64; 3]) -> Result<[Vec<f64>; 3], ApiError> {
        let mut cols: [Vec<f64>; 3] = Default::default();
        for (j, col) in cols.iter_mut().enumerate() {
            let (mut up, mut down) = (x, x);
            up[j] += BROAD;
            down[j] -= BROAD;
            let (a, b) = (self.residuals(up)?, self.residuals(down)?);
            *col = a.iter().zip(&b).map(|(a, b)| (a - b) / (2.0 * BROAD)).collect();
        }
        Ok(cols)
    }

    /// Columns of d r / d x (forward differences from `r` at `x`).
    fn jacobian(&self, x: [f64; 3], r: &[f64]) -> Result<[Vec<f64>; 3], ApiError> {
        let mut cols: [Vec<f64>; 3] = Default::default();
        for (j, col) in cols.iter_mut().enumerate() {
            let mut y = x;
            y[j] += STEP;
            *col = self.residuals(y)?.iter().zip(r).map(|(a, b)| (a - b) / STEP).collect();
        }
        Ok(cols)
    }
}

/// The factors the measured times depend on (the others stay at 1).
fn measured(problem: &Problem<'_>, cols: &[Vec<f64>; 3]) -> Vec<usize> {
    let n = problem.ln_measured.len() as f64;
    (0..3).filter(|&j| j != problem.held && sum_sq(problem.data(&cols[j])) > 1e-8 * n).collect()
}

fn sum_sq(r: &[f64]) -> f64 {
    r.iter().map(|v| v * v).sum()
}

/// `JᵀJ` and `Jᵀr` over the free columns (`free[i]` is the i-th free factor).
fn normal(cols: &[Vec<f64>; 3], r: &[f64], free: &[usize]) -> ([[f64; 3]; 3], [f64; 3]) {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let mut a = [[0.0; 3]; 3];
    let mut g = [0.0; 3];
    for (i, &fi) in free.iter().enumerate() {
        g[i] = dot(&cols[fi], r);
        for (j, &fj) in free.iter().enumerate() {
            a[i][j] = dot(&cols[fi], &cols[fj]);
        }
    }
    (a, g)
}

impl SystemFitRequest {
    /// The fit of `points` (size in nccl-tests' terms, time in µs) measured
    /// on `system`, and the same sizes on `then_nodes` nodes to predict,
    /// its model's times made by `engine`: the flow engine fits and
    /// predicts up to [`crate::predict::FIT_NODES`] (8) nodes, the steady
    /// engine up to [`crate::predict::STEADY_NODES`] (1 024) wherever every
    /// size runs a schedule it models.
    ///
    /// # Errors
    /// An unknown collective, nodes or a size out of range; with the
    /// steady engine, past 8 nodes, a size whose schedule only the flow
    /// engine runs.
    pub fn new(
        system: &System,
        then_nodes: Option<u32>,
        collective: &str,
        points: &[(u64, f64)],
        engine: Engine,
    ) -> Result<SystemFitRequest, ApiError> {
        let nodes = system.nodes;
        let fit_nodes = match engine {
            Engine::Flow => crate::predict::FIT_NODES,
            Engine::Steady => crate::predict::STEADY_NODES,
        };
        fit_nodes.check(u64::from(nodes))?;
        if let Some(m) = then_nodes {
            fit_nodes.check(u64::from(m)).map_err(|e| {
                let mut e = ApiError::from(e);
                "predict-nodes".clone_into(&mut e.field);
                e
            })?;
        }
        let sizes: Vec<u64> = points.iter().map(|p| p.0).collect();
        let at = |nodes: u32| crate::predict::PredictRequest {
            system: system.with_nodes(nodes),
            collective: collective.to_owned(),
            sizes: sizes.clone(),
        };
        let planned = at(nodes).planned(engine)?;
        let then = match then_nodes {
            Some(m) => at(m).planned(engine).map_err(|mut e| {
                if e.field == "nodes" || e.field == "hosts" {
                    "predict-nodes".clone_into(&mut e.field);
                }
                e
            })?,
            None => Vec::new(),
        };
        // Past the flow engine's fit, every size must be the steady engine's.
        for (rows, field, n) in [(&planned, "nodes", nodes), (&then, "predict-nodes", then_nodes.unwrap_or(nodes))] {
            let flow_only = rows.iter().find(|p| !p.steady_under(engine) && p.p > 1);
            if let (Some(p), false) = (flow_only, crate::predict::FIT_NODES.contains(u64::from(n))) {
                return Err(ApiError::new(
                    field,
                    n,
                    format!(
                        "{} where a size runs as {} ({} at {} B): only the flow engine runs it",
                        crate::predict::FIT_NODES,
                        p.schedule,
                        p.pick(),
                        p.bytes
                    ),
                ));
            }
        }
        Ok(SystemFitRequest { planned, measured_us: points.iter().map(|p| p.1).collect(), then, engine })
    }

    /// The page's fit of `run` on the System shown: an nccl-tests run
    /// whose p is all the System's GPUs, fitted with the flow engine.
    ///
    /// # Errors
    /// What the page says instead (empty where the run is no nccl-tests
    /// run: the page then says nothing of a System): no System, the run's
    /// p not all its GPUs, or the request's refusal.
    pub fn on_page(system: Option<&System>, run: &crate::fit::FitResult) -> Result<SystemFitRequest, String> {
        if run.format != "nccl-tests" {
            return Err(String::new());
        }
        let Some(system) = system else {
            return Err(
                "Pick a System above (with p = all its GPUs) to fit its links and NCCL's fixed costs to this run, and to see how far it is from what that system should reach."
                    .into(),
            );
        };
        if !system.covers(run.p) {
            return Err(format!(
                "{} (the run's ranks): pick the System the run was made on to fit it.",
                system.not_all(run.p)
            ));
        }
        SystemFitRequest::new(system, None, &run.collective, &run.points, Engine::Flow).map_err(|e| e.to_string())
    }

    /// Fits the factors, then predicts [`SystemFitRequest::then`].
    ///
    /// # Errors
    /// No measured point with a positive time on more than one rank, a
    /// measured list of another length than the planned one, a network the
    /// simulator refuses.
    pub fn run(&self) -> Result<SystemFit, ApiError> {
        self.run_by(None)
    }

    /// [`SystemFitRequest::run`] with the steady engine's time where the
    /// request's engine is steady (`steady`: [`Planned::steady_ns`]).
    ///
    /// # Errors
    /// As [`SystemFitRequest::run`]; the steady engine asked for and not given.
    pub fn run_by(&self, steady: Option<SteadyTime>) -> Result<SystemFit, ApiError> {
        let steady = match (self.engine, steady) {
            (Engine::Flow, _) => None,
            (Engine::Steady, Some(time)) => Some(time),
            (Engine::Steady, None) => {
                return Err(ApiError::problem(
                    "engine",
                    "the page fits with the flow engine; `commlab fit --engine steady` fits with the steady state",
                ))
            }
        };
        if self.planned.len() != self.measured_us.len() {
            return Err(ApiError::problem("measured", "one measured time per planned size"));
        }
        let keep: Vec<usize> =
            (0..self.planned.len()).filter(|&i| self.measured_us[i] > 0.0 && self.planned[i].p > 1).collect();
        if keep.is_empty() {
            return Err(ApiError::problem(
                "system",
                "no measured time to fit: a system is fitted to times on two ranks or more",
            ));
        }
        let planned: Vec<Planned> = keep.iter().map(|&i| self.planned[i].clone()).collect();
        let problem = Problem {
            held: held_of(&planned).unwrap_or(3),
            prepared: prepare(&planned, steady)?,
            planned: &planned,
            ln_measured: keep.iter().map(|&i| self.measured_us[i].ln()).collect(),
            steady,
        };
        let (at, resid, iterations, free) = fit_with_restart(&problem)?;
        let errors = uncertainty(&problem, at, &resid, &free)?;
        let scales = scales_of(at);
        let then_prepared = prepare(&self.then, steady)?;
        let all = prepare(&self.planned, steady)?;
        let fitted_all = times(&self.planned, &all, scales, steady)?;
        let nominal_all = times(&self.planned, &all, Scales::NOMINAL, steady)?;
        Ok(SystemFit {
            scales,
            errors,
            fitted_us: fitted_all,
            nominal_us: nominal_all,
            rms: (sum_sq(problem.data(&resid)) / problem.ln_measured.len() as f64).sqrt(),
            iterations,
            then_us: times(&self.then, &then_prepared, scales, steady)?,
        })
    }
}

/// Where a descent ends: the factors' logarithms, the residuals, the
/// iterations taken and the factors the times depend on.
type Descent = ([f64; 3], Vec<f64>, u32, Vec<usize>);

/// Levenberg–Marquardt from `start`: the end, its residuals, the
/// iterations taken and the factors the times depend on.
fn levenberg_marquardt(problem: &Problem<'_>, start: [f64; 3]) -> Result<Descent, ApiError> {
    let mut at = start;
    let mut resid = problem.residuals(at)?;
    let mut cost = sum_sq(&resid);
    let mut lambda = 1e-3;
    let mut iterations = 0;
    let mut free: Vec<usize> = Vec::new();
    for _ in 0..ITERATIONS {
        iterations += 1;
        let cols = problem.jacobian(at, &resid)?;
        free = measured(problem, &cols);
        if free.is_empty() {
            break;
        }
        let (jtj, jtr) = normal(&cols, &resid, &free);
        let nfree = free.len();
        let mut improved = None;
        for _ in 0..12 {
            let mut damped = jtj;
            for (i, row) in damped.iter_mut().enumerate().take(nfree) {
                row[i] += lambda * jtj[i][i].max(1e-12);
            }
            let Some(delta) = solve(damped, [-jtr[0], -jtr[1], -jtr[2]], nfree) else { break };
            let mut y = at;
            for (i, &fi) in free.iter().enumerate() {
                y[fi] = (at[fi] + delta[i]).clamp(-LN_BOUND, LN_BOUND);
            }
            let ry = problem.residuals(y)?;
            let cy = sum_sq(&ry);
            if cy < cost {
                improved = Some((y, ry, cy));
                lambda = (lambda / 4.0).max(1e-12);
                break;
            }
            lambda *= 4.0;
        }
        let Some((y, ry, cy)) = improved else { break };
        let gain = (cost - cy) / cost.max(1e-300);
        (at, resid, cost) = (y, ry, cy);
        if gain < 1e-4 {
            break;
        }
    }
    Ok((at, resid, iterations, free))
}

/// 95 % half-widths of the factors at `x`: 1.96 standard errors of each
/// logarithm (from s² (JᵀJ)⁻¹) and the fit's resolution, in quadrature,
/// as a share of the factor.
fn uncertainty(
    problem: &Problem<'_>,
    at: [f64; 3],
    resid: &[f64],
    free: &[usize],
) -> Result<[Option<f64>; 3], ApiError> {
    let mut out = [None; 3];
    let cols = problem.broad_jacobian(at)?;
    let free: Vec<usize> = if free.is_empty() { measured(problem, &cols) } else { free.to_vec() };
    if free.is_empty() {
        return Ok(out);
    }
    let (jtj, _) = normal(&cols, resid, &free);
    let k = free.len();
    let data = problem.data(resid);
    let dof = data.len().saturating_sub(k).max(1) as f64;
    let s2 = sum_sq(data) / dof;
    for (i, &fi) in free.iter().enumerate() {
        let mut e = [0.0; 3];
        e[i] = 1.0;
        let Some(column) = solve(jtj, e, k) else { continue };
        let sigma = (s2 * column[i].max(0.0)).sqrt();
        let half = (1.96 * sigma).hypot(RESOLUTION);
        // A 95 % interval wider than a factor of 2 either way: not measured.
        if half < std::f64::consts::LN_2 {
            out[fi] = Some(half * at[fi].exp());
        }
    }
    Ok(out)
}

/// One fitted value against the preset's.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// JSON key: `inter_bw`, `intra_bw`, `latency`.
    pub key: &'static str,
    /// What it is, for a sentence.
    pub what: &'static str,
    /// The fitted value (GB/s for bandwidths, a factor on NCCL's table for the latency).
    pub value: f64,
    /// The preset's value.
    pub nominal: f64,
    /// The unit of both.
    pub unit: &'static str,
    /// value / nominal.
    pub scale: f64,
    /// The scale's 95 % half-width (`None`: not measured by this run).
    pub err: Option<f64>,
}

/// The measured run against the busbw the preset should reach.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// The smallest size compared (64 MiB, or the largest quarter of the sizes when none reaches it).
    pub from: u64,
    /// Mean of measured busbw / expected busbw over the sizes compared.
    pub ratio: f64,
    /// The sizes furthest short, with their ratio (at most 3, worst first).
    pub worst: Vec<(u64, f64)>,
}

/// A run of sizes where NCCL makes one pick.
#[derive(Debug, Clone, PartialEq)]
pub struct Regime {
    /// NCCL's algorithm (`None`: all-to-all's point-to-point sends).
    pub algorithm: Option<Algorithm>,
    /// Its protocol.
    pub protocol: Protocol,
    /// First and last size.
    pub sizes: (u64, u64),
    /// Points.
    pub points: usize,
    /// Geometric mean of measured / fitted time.
    pub measured_over_fitted: f64,
}

/// The size from which busbw is compared with the expectation.
pub const EXPECTATION_FROM: u64 = 64 << 20;

/// A fit read against its preset: the sentences and JSON of `commlab fit --system`.
#[derive(Debug, Clone, Copy)]
pub struct Report<'a> {
    /// The preset fitted.
    pub preset: &'a commlab_core::systems::Preset,
    /// Its nodes in the measured run.
    pub nodes: u32,
    /// The request fitted.
    pub request: &'a SystemFitRequest,
    /// The fit.
    pub fit: &'a SystemFit,
    /// RCCL ran the measured run ([`crate::fit::ran_rccl`]): the preset's
    /// NCCL says nothing of what it should reach, and no verdict is given.
    pub rccl: bool,
}

impl Report<'_> {
    /// The three fitted values.
    pub fn parameters(&self) -> [Param; 3] {
        let s = self.fit.scales;
        let [inter, intra, latency] = self.fit.errors;
        [
            Param {
                key: "inter_bw",
                what: "the inter-node links (a NIC to its rail)",
                value: self.preset.nic * s.inter,
                nominal: self.preset.nic,
                unit: "GB/s",
                scale: s.inter,
                err: inter,
            },
            Param {
                key: "intra_bw",
                what: "NVLink (a GPU to its node's switch)",
                value: self.preset.nvlink * s.intra,
                nominal: self.preset.nvlink,
                unit: "GB/s",
                scale: s.intra,
                err: intra,
            },
            Param {
                key: "latency",
                what: "NCCL's fixed costs (per step and per call)",
                value: s.latency,
                nominal: 1.0,
                unit: "× NCCL's table",
                scale: s.latency,
                err: latency,
            },
        ]
    }

    /// Measured busbw against the preset's from 64 MiB up (`None`: no point).
    pub fn expectation(&self) -> Option<Expectation> {
        let points: Vec<(u64, f64)> = self
            .request
            .planned
            .iter()
            .zip(&self.request.measured_us)
            .zip(&self.fit.nominal_us)
            .filter(|((_, &m), &e)| m > 0.0 && e > 0.0)
            .map(|((p, &m), &e)| (p.bytes, e / m))
            .collect();
        let largest = points.iter().map(|p| p.0).max()?;
        let from = if largest >= EXPECTATION_FROM {
            EXPECTATION_FROM
        } else {
            let mut sizes: Vec<u64> = points.iter().map(|p| p.0).collect();
            sizes.sort_unstable();
            sizes[sizes.len() - sizes.len().div_ceil(4)]
        };
        let mut compared: Vec<(u64, f64)> = points.into_iter().filter(|p| p.0 >= from).collect();
        let ratio = compared.iter().map(|p| p.1).sum::<f64>() / compared.len() as f64;
        compared.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        compared.truncate(3);
        Some(Expectation { from, ratio, worst: compared })
    }

    /// NCCL's picks in size order, each with how the fitted model meets it.
    pub fn regimes(&self) -> Vec<Regime> {
        let mut out: Vec<Regime> = Vec::new();
        let mut logs: Vec<f64> = Vec::new();
        for ((p, &m), &f) in self.request.planned.iter().zip(&self.request.measured_us).zip(&self.fit.fitted_us) {
            if m <= 0.0 || f <= 0.0 {
                continue;
            }
            let ratio = (m / f).ln();
            match out.last_mut() {
                Some(last) if last.algorithm == p.algorithm && last.protocol == p.protocol => {
                    last.sizes.1 = p.bytes;
                    last.points += 1;
                    *logs.last_mut().unwrap_or(&mut 0.0) += ratio;
                }
                _ => {
                    out.push(Regime {
                        algorithm: p.algorithm,
                        protocol: p.protocol,
                        sizes: (p.bytes, p.bytes),
                        points: 1,
                        measured_over_fitted: 1.0,
                    });
                    logs.push(ratio);
                }
            }
        }
        for (r, l) in out.iter_mut().zip(logs) {
            r.measured_over_fitted = (l / r.points as f64).exp();
        }
        out
    }

    /// What the fit says, a sentence per line.
    pub fn sentences(&self) -> Vec<String> {
        use commlab_plot::format_bytes as b;
        let mut out = vec![format!(
            "System fit: {} × {}, NCCL's pick at each size simulated with the preset's values scaled ({} points, rms relative residual {:.3}):",
            self.preset.id,
            self.nodes,
            self.fit.fitted_us.iter().filter(|&&t| t > 0.0).count(),
            self.fit.rms
        )];
        if self.rccl {
            out.push(format!(
                "  RCCL ran this run (AMD GPUs): NCCL's model and {}'s NVIDIA links do not describe it. The factors below read it as if NCCL ran on {}; no verdict on what it should reach is given.",
                self.preset.id, self.preset.id
            ));
        }
        let held = match held_of(&self.request.planned) {
            Some(0) => "inter_bw",
            Some(_) => "intra_bw",
            None => "",
        };
        for p in self.parameters() {
            out.push(match (p.key, p.err) {
                (key, None) if key == held && self.nodes > 1 => format!(
                    "  {}: held at {:.0} GB/s (the NICs are far slower: times across nodes depend on it too little to measure it)",
                    p.what, p.nominal
                ),
                (key, None) if key == held => format!("  {}: not used by a run on one node", p.what),
                (_, None) => {
                    format!("  {}: not measured by this run (its 95 % interval spans more than a factor of 2)", p.what)
                }
                ("latency", Some(e)) => {
                    format!("  {} are {:.2} ± {:.2} × NCCL's table", p.what, p.scale, e)
                }
                ("inter_bw", Some(e)) => format!(
                    "  {} reach {:.0} % ± {:.0} % of {:.0} Gb/s ({:.1} GB/s)",
                    p.what,
                    p.scale * 100.0,
                    e * 100.0,
                    p.nominal * 8.0,
                    p.value
                ),
                (_, Some(e)) => format!(
                    "  {} reaches {:.0} % ± {:.0} % of {:.0} GB/s ({:.1} GB/s)",
                    p.what,
                    p.scale * 100.0,
                    e * 100.0,
                    p.nominal,
                    p.value
                ),
            });
        }
        if self.parameters().iter().any(|p| p.unit == "GB/s" && p.err.is_some_and(|e| p.scale - e > 1.0)) {
            out.push(
                "  Above the line rate: no link does that. The schedule simulated moves more over those links than what NCCL ran."
                    .to_owned(),
            );
        }
        if let Some(e) = self.expectation().filter(|_| !self.rccl) {
            let worst: Vec<String> = e.worst.iter().map(|(s, r)| format!("{} ({:.0} %)", b(*s), r * 100.0)).collect();
            out.push(format!(
                "This cluster reaches {:.0} % of the busbw {} × {} should, from {} up; furthest short at {}.",
                e.ratio * 100.0,
                self.preset.id,
                self.nodes,
                b(e.from),
                worst.join(", ")
            ));
        }
        let regimes: Vec<String> = self
            .regimes()
            .iter()
            .map(|r| {
                // One size is written once ("tree/ll128 1 MiB", not "1 MiB–1 MiB").
                let sizes =
                    if r.sizes.0 == r.sizes.1 { b(r.sizes.0) } else { format!("{}–{}", b(r.sizes.0), b(r.sizes.1)) };
                format!(
                    "{}/{} {sizes} (measured / fitted {:.2})",
                    algorithm_id(r.algorithm),
                    r.protocol,
                    r.measured_over_fitted
                )
            })
            .collect();
        if !regimes.is_empty() {
            out.push(format!("NCCL's picks by size: {}.", regimes.join("; ")));
        }
        out
    }

    /// `system_fit` of `commlab fit --system --json`.
    pub fn to_json(&self) -> crate::json::Json {
        let params: Vec<crate::json::Json> = self
            .parameters()
            .iter()
            .map(|p| {
                json!({
                    "key": p.key, "what": p.what, "value": p.value, "nominal": p.nominal, "unit": p.unit,
                    "scale": p.scale, "scale_err": p.err, "measured": p.err.is_some(),
                })
            })
            .collect();
        let expectation = self.expectation().filter(|_| !self.rccl).map(|e| {
            json!({
                "from_bytes": e.from, "busbw_ratio": e.ratio,
                "worst": e.worst.iter().map(|(s, r)| json!({"bytes": *s, "busbw_ratio": *r})).collect::<Vec<_>>(),
            })
        });
        let points: Vec<crate::json::Json> = self
            .request
            .planned
            .iter()
            .zip(&self.request.measured_us)
            .zip(self.fit.fitted_us.iter().zip(&self.fit.nominal_us))
            .map(|((p, &m), (&f, &e))| {
                json!({
                    "bytes": p.bytes, "measured_us": m, "fitted_us": f, "expected_us": e,
                    "algorithm": algorithm_id(p.algorithm), "protocol": p.protocol.id(),
                })
            })
            .collect();
        let regimes: Vec<crate::json::Json> = self
            .regimes()
            .iter()
            .map(|r| {
                json!({
                    "algorithm": algorithm_id(r.algorithm), "protocol": r.protocol.id(),
                    "min_bytes": r.sizes.0, "max_bytes": r.sizes.1, "points": r.points,
                    "measured_over_fitted": r.measured_over_fitted,
                })
            })
            .collect();
        json!({
            "system": self.preset.id,
            "nodes": self.nodes,
            "parameters": params,
            "rms_relative": self.fit.rms,
            "iterations": self.fit.iterations,
            "expectation": expectation,
            "rccl": self.rccl,
            "regimes": regimes,
            "points": points,
            "summary": self.sentences().join("\n"),
        })
    }
}

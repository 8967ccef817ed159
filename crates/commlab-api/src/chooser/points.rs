//! The Chooser's simulated points: LogGOPS a size a step, or on a network an
//! algorithm at a size a step (`SimRun`, `on_network`), with the network's
//! context and its kept points.

use super::{
    changes, simulate_row, static_ids, Bottleneck, Cache, ChooseRequest, ChooseResult, Crossover, NetworkRow, Row,
};
use crate::ApiError;
use commlab_core::choose::{goal, of, plan, AlphaBeta, Collective, Plan};

/// One algorithm at one size on a network.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NetPoint {
    pub(super) time: Option<f64>,
    pub(super) bottleneck: Option<Bottleneck>,
    pub(super) pieces: u32,
    pub(super) cut: bool,
}

/// Transfers a plan may have to be simulated on a network in the Chooser
/// view's chart (a pipelined plan with more runs with fewer pieces).
pub const NET_TRANSFERS: u64 = 65_536;

/// The same for each cell of a winner map on a network.
pub const NET_MAP_TRANSFERS: u64 = 8_192;

/// A winner map on a network has at most this many rows of p and columns of size.
pub const NET_MAP_SIDE: usize = 16;

/// A network checked for p ranks, ready to simulate plans on.
pub(super) struct NetCtx {
    /// The request's text, the cache's key.
    pub(super) key: String,
    pub(super) topology: String,
    pub(super) network: commlab_core::net::Network,
    pub(super) placement: commlab_core::net::Placement,
    pub(super) params: commlab_core::net::NetParams,
}

impl NetCtx {
    pub(super) fn new(net: &crate::network::NetRequest, p: u32) -> Result<NetCtx, ApiError> {
        let network = net.network()?;
        let placement = net.placement;
        placement.hosts(p, network.hosts())?;
        let params = net.sim_params(commlab_core::net::NetParams::default())?;
        Ok(NetCtx { key: format!("{net:?}"), topology: net.topology.to_string(), network, placement, params })
    }

    /// `id` with (at most) `m` pieces and `n` bytes on this network, from
    /// `cache` when simulated before; pipelined plans over `limit`
    /// transfers get fewer pieces, others over it no time (0: no limit).
    #[allow(
        clippy::too_many_arguments,
        clippy::many_single_char_names,
        reason = "one point's coordinates, named as in the formulas"
    )]
    pub(super) fn point(
        &self,
        cache: &mut Cache,
        collective: Collective,
        id: &'static str,
        p: u32,
        m: u32,
        n: u64,
        limit: u64,
    ) -> NetPoint {
        let key = (self.key.clone(), collective, id, p, m, n, limit);
        if let Some(point) = cache.net.get(&key) {
            return point.clone();
        }
        let over = (collective, id, p, m, limit);
        if let Some(&pieces) = cache.over.get(&over) {
            return NetPoint { time: None, bottleneck: None, pieces, cut: false };
        }
        let pipelined = of(collective).any(|a| a.id == id && a.pipelined);
        let mut pieces = m.max(1);
        let mut plan = within(collective, id, p, pieces, limit);
        while plan.is_none() && pipelined && pieces > 1 {
            pieces /= 2;
            plan = within(collective, id, p, pieces, limit);
        }
        if plan.is_none() {
            cache.over.insert(over, pieces);
        }
        let point = plan.map_or(NetPoint { time: None, bottleneck: None, pieces, cut: false }, |plan| {
            let run =
                commlab_core::net::simulate(&goal(&plan, n), self.network.clone(), self.placement, self.params, false);
            match run {
                Ok(out) if out.unreachable.is_empty() => NetPoint {
                    time: Some(out.max().0),
                    bottleneck: out.bottleneck(&self.network).map(|d| {
                        let (a, b) = self.network.ends(d);
                        let l = out.links[d as usize];
                        let name = format!("{}→{}", self.network.vertex_name(a), self.network.vertex_name(b));
                        (name, l.busy, l.bytes, l.peak)
                    }),
                    pieces,
                    cut: false,
                },
                Ok(_) => NetPoint { time: None, bottleneck: None, pieces, cut: true },
                Err(_) => NetPoint { time: None, bottleneck: None, pieces, cut: false },
            }
        });
        if cache.net.len() >= NET_CACHE_ENTRIES {
            cache.net.clear();
        }
        cache.net.insert(key, point.clone());
        point
    }
}

/// Network points kept at most (a full cache is emptied).
pub(super) const NET_CACHE_ENTRIES: usize = 50_000;

/// Simulates every algorithm of `result` (at its model-best piece count) on
/// `net`, size by size, and sets each row's [`Row::network`] and the
/// result's [`ChooseResult::network`]; returns the crossovers on that
/// network. Pipelined plans over `limit` transfers are simulated with fewer
/// pieces, others over it not at all (0: no limit).
///
/// # Errors
/// A bad network, more ranks than hosts.
pub fn on_network(
    result: &mut ChooseResult,
    net: &crate::network::NetRequest,
    limit: u64,
) -> Result<Vec<Crossover>, ApiError> {
    let mut run = SimRun::of(result.clone(), Some(net), limit, AlphaBeta { alpha: 1.0, beta: 0.0, gamma: 0.0 })?;
    let mut cache = Cache::default();
    while !run.step(&mut cache) {}
    *result = run.result;
    Ok(result.network.as_ref().map(|n| n.1.clone()).unwrap_or_default())
}

/// The simulated points of a comparison, a point a step (the Chooser view's
/// dots, after its model curves): LogGOPS a size a step, or on a network an
/// algorithm at a size a step.
pub struct SimRun {
    /// The comparison, its rows simulated so far.
    pub result: ChooseResult,
    pub(super) next: usize,
    pub(super) limit: u64,
    pub(super) ab: AlphaBeta,
    pub(super) net: Option<NetCtx>,
    pub(super) points: Vec<NetPoint>,
}

impl SimRun {
    /// The model comparison of `request` (without simulation), to simulate
    /// step by step (on its network when it has one).
    ///
    /// # Errors
    /// As [`ChooseRequest::run`]; a bad network or more ranks than hosts.
    pub fn new(request: &ChooseRequest, cache: &mut Cache) -> Result<SimRun, ApiError> {
        let model = ChooseRequest { simulate: false, ..request.clone() };
        let result = model.run_cached(cache)?;
        let ab = AlphaBeta { alpha: request.alpha, beta: request.beta, gamma: request.gamma };
        let limit = if request.network.is_some() { request.sim_limit.min(NET_TRANSFERS) } else { request.sim_limit };
        SimRun::of(result, request.network.as_ref(), limit, ab)
    }

    pub(super) fn of(
        result: ChooseResult,
        net: Option<&crate::network::NetRequest>,
        limit: u64,
        ab: AlphaBeta,
    ) -> Result<SimRun, ApiError> {
        let net = net.map(|n| NetCtx::new(n, result.p)).transpose()?;
        Ok(SimRun { result, next: 0, limit, ab, net, points: Vec::new() })
    }

    /// Steps done and in all (sizes; on a network, algorithms × sizes).
    pub fn progress(&self) -> (u64, u64) {
        let per = if self.net.is_some() { self.result.algorithms.len().max(1) } else { 1 };
        (self.next as u64, (self.result.rows.len() * per) as u64)
    }

    /// Whether the points are simulated on a network.
    pub fn on_network(&self) -> bool {
        self.net.is_some()
    }

    /// Simulates the next point (points kept in `cache` cost nothing, so
    /// as many of them as follow are taken too); true when all are.
    pub fn step(&mut self, cache: &mut Cache) -> bool {
        let Some(net) = &self.net else {
            if self.next < self.result.rows.len() {
                simulate_row(&mut self.result, self.next, self.limit, self.ab);
                self.next += 1;
            }
            return self.next >= self.result.rows.len();
        };
        let Ok(collective) = self.result.collective.parse::<Collective>() else { return true };
        let ids = static_ids(collective, &self.result.algorithms);
        let per = ids.len().max(1);
        let total = self.result.rows.len() * per;
        let mut fresh = false;
        while self.next < total {
            let (row, k) = (self.next / per, self.next % per);
            let r = &self.result.rows[row];
            let key = (net.key.clone(), collective, ids[k], self.result.p, r.pieces[k], r.bytes, self.limit);
            if fresh && !cache.net.contains_key(&key) {
                break;
            }
            fresh = true;
            let (ranks, m, bytes) = (self.result.p, r.pieces[k], r.bytes);
            let point = if self.result.pipelined[k] {
                // The piece count is the network's: m/4 … 4m around the
                // model's best, the fastest kept (the first on a tie).
                let mut best = net.point(cache, collective, ids[k], ranks, m, bytes, self.limit);
                for c in [m / 4, m / 2, m.saturating_mul(2), m.saturating_mul(4)] {
                    if c == 0 || c == m || c > commlab_core::limits::PIECES.max as u32 {
                        continue;
                    }
                    let other = net.point(cache, collective, ids[k], ranks, c, bytes, self.limit);
                    if other.time.is_some_and(|t| best.time.is_none_or(|b| t < b)) {
                        best = other;
                    }
                }
                best
            } else {
                net.point(cache, collective, ids[k], ranks, m, bytes, self.limit)
            };
            self.points.push(point);
            self.next += 1;
            if self.next % per == 0 {
                let points = std::mem::take(&mut self.points);
                self.result.rows[row].network = Some(NetworkRow::of(&points));
            }
        }
        if self.next >= total {
            let winner = |r: &Row| r.network.as_ref().map_or(r.winner, |n| n.winner);
            let crossovers = changes(&self.result.rows, &self.result.algorithms, winner);
            self.result.network = Some((net.topology.clone(), crossovers));
            return true;
        }
        false
    }
}

/// The plan of `id` with `m` pieces when it has at most `limit` transfers
/// (any number when `limit` is 0). A pipelined plan is not built to count
/// them: every piece crosses each of the p − 1 tree edges once per phase.
pub(super) fn within(collective: Collective, id: &str, p: u32, m: u32, limit: u64) -> Option<Plan> {
    let pipelined = of(collective).any(|a| a.id == id && a.pipelined);
    let phases = if collective == Collective::Allreduce { 2 } else { 1 };
    if limit > 0 && pipelined && u64::from(m) * u64::from(p.saturating_sub(1)) * phases > limit {
        return None;
    }
    let plan = plan(collective, id, p, m).expect("a listed algorithm");
    let transfers: usize = plan.rounds.iter().map(Vec::len).sum();
    (limit == 0 || transfers as u64 <= limit).then_some(plan)
}

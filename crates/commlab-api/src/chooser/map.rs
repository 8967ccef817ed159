//! The winner map: the fastest algorithm over p × size, a row of p a step
//! (`MapRun`), on the model or a network.

use super::points::NetCtx;
use super::{algorithms, check_ab, Cache, Options, MAX_BYTES, NET_MAP_SIDE, NET_MAP_TRANSFERS, P};
use crate::json::Json;
use crate::ApiError;
use commlab_core::choose::{AlphaBeta, Collective, Cost};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The fastest algorithm on a p × size grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WinnerMap {
    /// Algorithm ids.
    pub algorithms: Vec<String>,
    /// The p of each row.
    pub ps: Vec<u32>,
    /// The size of each column.
    pub sizes: Vec<u64>,
    /// Row-major: the index of the fastest algorithm.
    pub winner: Vec<u8>,
    /// Row-major: how much slower the runner-up is (its time / the winner's; 1 when alone).
    pub margin: Vec<f64>,
    /// Row-major: the winner's best piece count.
    pub pieces: Vec<u32>,
    /// The topology the cells were simulated on (`None`: the model).
    #[serde(default)]
    pub network: Option<String>,
}

/// The winner map of `collective` over `ps` × `sizes` (all its algorithms or `asked`).
///
/// # Errors
/// An unknown collective or algorithm, a p out of [`P`], α, β, γ out of range.
pub fn winner_map(
    collective: &str,
    asked: &[String],
    ps: &[u32],
    sizes: &[u64],
    ab: AlphaBeta,
) -> Result<WinnerMap, ApiError> {
    let mut cache = Cache::default();
    let mut run = MapRun::new(collective, asked, ps.to_vec(), sizes.to_vec(), ab)?;
    while !run.step(&mut cache) {}
    Ok(run.map)
}

/// A winner map to compute (the Chooser view's, in the engine worker).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MapRequest {
    /// Collective id.
    pub collective: String,
    /// Algorithm ids (empty: all of the collective).
    pub algorithms: Vec<String>,
    /// Smallest and largest p (rows: [`map_ps`]).
    pub p_lo: u32,
    /// Largest p.
    pub p_hi: u32,
    /// Smallest and largest size (columns: [`map_sizes`]).
    pub min_bytes: u64,
    /// Largest size.
    pub max_bytes: u64,
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// γ.
    pub gamma: f64,
    /// On this network instead of the model (a coarser map: at most
    /// [`NET_MAP_SIDE`] rows and columns, p up to the hosts).
    #[serde(default)]
    pub network: Option<crate::network::NetRequest>,
}

impl MapRequest {
    /// The run of this request.
    ///
    /// # Errors
    /// As [`MapRun::new`]; sizes beyond [`MAX_BYTES`].
    pub fn start(&self) -> Result<MapRun, ApiError> {
        if self.min_bytes == 0 || self.min_bytes > self.max_bytes || self.max_bytes > MAX_BYTES {
            let range = format!("{}..{}", self.min_bytes, self.max_bytes);
            return Err(ApiError::new("bytes", range, format!("MIN..MAX with 1 ≤ MIN ≤ MAX ≤ {MAX_BYTES}")));
        }
        let ab = AlphaBeta { alpha: self.alpha, beta: self.beta, gamma: self.gamma };
        let Some(net) = &self.network else {
            return MapRun::new(
                &self.collective,
                &self.algorithms,
                map_ps(self.p_lo, self.p_hi),
                map_sizes(self.min_bytes, self.max_bytes),
                ab,
            );
        };
        let hosts = net.network()?.hosts();
        if self.p_lo.min(self.p_hi) > hosts {
            return Err(ApiError::new(
                "map",
                format!("p from {}", self.p_lo),
                format!("p up to the topology's {hosts} hosts"),
            ));
        }
        let ps = thin(&map_ps(self.p_lo, self.p_hi.min(hosts)), NET_MAP_SIDE);
        let sizes = thin(&map_sizes(self.min_bytes, self.max_bytes), NET_MAP_SIDE);
        let mut run = MapRun::new(&self.collective, &self.algorithms, ps, sizes, ab)?;
        run.net = Some(NetCtx::new(net, hosts)?);
        run.map.network = Some(net.topology.to_string());
        Ok(run)
    }
}

/// At most `count` of `values`, evenly spread, the first and last kept.
pub(super) fn thin<T: Copy>(values: &[T], count: usize) -> Vec<T> {
    if values.len() <= count || count < 2 {
        return values.to_vec();
    }
    let last = values.len() - 1;
    let mut picked: Vec<usize> = (0..count).map(|k| (k * last + (count - 1) / 2) / (count - 1)).collect();
    picked.dedup();
    picked.into_iter().map(|i| values[i]).collect()
}

/// A winner map being computed, one p (row) a step.
pub struct MapRun {
    pub(super) collective: Collective,
    pub(super) algorithms: Vec<(&'static str, bool)>,
    pub(super) ab: AlphaBeta,
    /// On a network: the cells are simulated there.
    pub(super) net: Option<NetCtx>,
    /// The map so far.
    pub map: WinnerMap,
}

impl MapRun {
    /// Checks the request and prepares an empty map.
    ///
    /// # Errors
    /// An unknown collective or algorithm, a p out of [`P`], α, β, γ out of range, no p or no size.
    pub fn new(
        collective: &str,
        asked: &[String],
        ps: Vec<u32>,
        sizes: Vec<u64>,
        ab: AlphaBeta,
    ) -> Result<MapRun, ApiError> {
        let collective: Collective = crate::parse_id("collective", collective)?;
        let ab = check_ab(ab.alpha, ab.beta, ab.gamma)?;
        let algorithms = algorithms(collective, asked)?;
        for &p in &ps {
            P.check(u64::from(p)).map_err(ApiError::from)?;
        }
        if ps.is_empty() || sizes.is_empty() || sizes.contains(&0) || sizes.iter().any(|&n| n > MAX_BYTES) {
            return Err(ApiError::new(
                "map",
                format!("{} p × {} sizes", ps.len(), sizes.len()),
                format!("at least one p and one size in 1..={MAX_BYTES}"),
            ));
        }
        let map = WinnerMap {
            algorithms: algorithms.iter().map(|a| a.0.to_owned()).collect(),
            ps,
            sizes,
            winner: Vec::new(),
            margin: Vec::new(),
            pieces: Vec::new(),
            network: None,
        };
        Ok(MapRun { collective, algorithms, ab, net: None, map })
    }

    /// Rows done and in all.
    pub fn progress(&self) -> (u64, u64) {
        let cols = self.map.sizes.len().max(1);
        ((self.map.winner.len() / cols) as u64, self.map.ps.len() as u64)
    }

    /// Computes the next row; true when the map is complete.
    pub fn step(&mut self, cache: &mut Cache) -> bool {
        let (done, total) = self.progress();
        if done >= total {
            return true;
        }
        let p = self.map.ps[done as usize];
        let options: Vec<Rc<Options>> =
            self.algorithms.iter().map(|&(id, pipelined)| cache.options(self.collective, id, p, pipelined)).collect();
        for &n in &self.map.sizes {
            let best: Vec<(u32, Cost)> = options.iter().map(|o| o.best(n, self.ab)).collect();
            let mut times: Vec<(f64, u32)> = match &self.net {
                None => best.iter().map(|b| (b.1.total(), b.0)).collect(),
                Some(net) => self
                    .algorithms
                    .iter()
                    .zip(&best)
                    .map(|(&(id, _), b)| {
                        let point = net.point(cache, self.collective, id, p, b.0, n, NET_MAP_TRANSFERS);
                        (point.time.unwrap_or(f64::INFINITY), point.pieces)
                    })
                    .collect(),
            };
            let winner = (0..times.len()).min_by(|&a, &b| times[a].0.total_cmp(&times[b].0)).unwrap_or(0);
            let best = times[winner];
            times.remove(winner);
            let runner_up = times.iter().map(|t| t.0).filter(|t| t.is_finite()).min_by(f64::total_cmp);
            self.map.winner.push(winner as u8);
            let margin = runner_up.map_or(1.0, |r| if best.0 > 0.0 && best.0.is_finite() { r / best.0 } else { 1.0 });
            self.map.margin.push(margin);
            self.map.pieces.push(best.1);
        }
        done + 1 >= total
    }
}

/// The p rows of a winner map over `lo..=hi`: every p when at most 64, else
/// 64 values spaced evenly on a log scale (rounded, distinct).
pub fn map_ps(lo: u32, hi: u32) -> Vec<u32> {
    let (lo, hi) = (lo.min(hi).max(1), hi.max(lo).max(1));
    if hi - lo < 64 {
        return (lo..=hi).collect();
    }
    let mut ps: Vec<u32> = (0..64)
        .map(|k| (f64::from(lo) * (f64::from(hi) / f64::from(lo)).powf(f64::from(k) / 63.0)).round() as u32)
        .collect();
    ps.dedup();
    ps
}

/// The size columns of a winner map over `lo..=hi`: 64 sizes spaced evenly
/// on a log scale (rounded, distinct), so at most 64.
pub fn map_sizes(lo: u64, hi: u64) -> Vec<u64> {
    let (lo, hi) = (lo.min(hi).max(1), hi.max(lo).max(1));
    let mut sizes: Vec<u64> =
        (0..64).map(|k| (lo as f64 * (hi as f64 / lo as f64).powf(f64::from(k) / 63.0)).round() as u64).collect();
    sizes.dedup();
    sizes
}

impl WinnerMap {
    /// The map as JSON (the Chooser view's export): the ids, the p rows, the
    /// size columns and, row-major, each cell's winner id, margin and pieces.
    pub fn to_json(&self) -> Json {
        json!({
            "algorithms": &self.algorithms,
            "ps": &self.ps,
            "sizes": &self.sizes,
            "winner": self.winner.iter().map(|&w| self.algorithms[usize::from(w)].clone()).collect::<Vec<_>>(),
            "margin": &self.margin,
            "pieces": &self.pieces,
            "topology": self.network.clone(),
        })
    }
}

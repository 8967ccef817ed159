//! A generated schedule: the collectives commlab writes as GOAL, their
//! parameters and bounds (`GenerateRequest`).

use super::{BYTES, CHOOSER_P, MESH, OPS, P};
use crate::ApiError;
use commlab_core::goal::{self, Schedule};
use commlab_core::limits;
use serde::{Deserialize, Serialize};

/// The reduction-family, barrier and swizzle schedules commlab generates.
pub const COLLECTIVES: [&str; 11] = [
    "reduce",
    "broadcast",
    "allreduce",
    "allreduce-butterfly",
    "reduce-bst",
    "broadcast-bst",
    "allreduce-bst",
    "pipeline",
    "dissemination",
    "barrier",
    "swizzle",
];

/// A schedule commlab generates, with the inputs of the view it comes from.
#[allow(clippy::struct_excessive_bools, reason = "the swizzle view's independent switches")]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerateRequest {
    /// One of [`COLLECTIVES`].
    pub collective: String,
    /// Ranks (reduction family, dissemination).
    pub p: u64,
    /// Bytes per message (the whole vector for the pipeline; a tile for swizzle).
    pub bytes: u64,
    /// Pieces of the pipeline.
    pub pieces: u64,
    /// Barrier: mesh side, encoding id, algorithm id, tile side, combining arity.
    pub mesh: u32,
    /// Barrier encoding id.
    pub encoding: String,
    /// Barrier algorithm id.
    pub algorithm: String,
    /// Two-layer tile side.
    pub tile: u32,
    /// Combining-tree arity.
    pub combining_k: u32,
    /// Swizzle `(row, column, rank)`.
    pub grid: (u32, u32, u32),
    /// Swizzle core split `(row, column)`.
    pub cores: (u32, u32),
    /// Swizzle direction (0 or 1).
    pub direction: u8,
    /// Swizzle deterministic mode.
    pub deterministic: bool,
    /// Swizzle rank shift.
    pub shift: bool,
    /// Swizzle remote reads (else writes).
    pub read: bool,
    /// Chooser algorithms: channels the data is split over, channel c's
    /// sends on NIC c (`docs/network.md`, channels over rails).
    #[serde(default = "one")]
    pub channels: u32,
}

fn one() -> u32 {
    1
}

impl Default for GenerateRequest {
    fn default() -> GenerateRequest {
        GenerateRequest {
            collective: "reduce".into(),
            p: 8,
            bytes: 1024,
            pieces: 4,
            mesh: 4,
            encoding: "s-curve".into(),
            algorithm: "dlct".into(),
            tile: 4,
            combining_k: 4,
            grid: (4, 4, 4),
            cores: (3, 4),
            direction: 0,
            deterministic: false,
            shift: true,
            read: true,
            channels: 1,
        }
    }
}

/// The algorithm id of NCCL's NVLS (`allreduce/nvls`): on a `nodes:NxG`
/// network, with a rank on each node's `NVSwitch` after the GPUs (NVLS on
/// one node, NVLS tree on several; `docs/network.md`).
pub const NVLS: &str = "nvls";

/// The collectives NCCL runs with NVLS (allgather and reduce-scatter on one
/// node only).
pub const NVLS_COLLECTIVES: [commlab_core::choose::Collective; 3] = [
    commlab_core::choose::Collective::Allreduce,
    commlab_core::choose::Collective::Allgather,
    commlab_core::choose::Collective::ReduceScatter,
];

impl GenerateRequest {
    /// NVLS's schedule on `shape`: the GPUs' ranks, then a switch rank per
    /// node, every channel over the same slices.
    fn nvls(
        &self,
        id: &str,
        collective: commlab_core::choose::Collective,
        shape: Option<commlab_core::net::Shape>,
    ) -> Result<Schedule, ApiError> {
        let Some(commlab_core::net::Shape::Nodes { n, g, .. }) = shape else {
            return Err(ApiError::new(
                "collective",
                id,
                "NVLS on a nodes:NxG network (its switch ranks sit on the NVSwitches)",
            ));
        };
        if self.p != u64::from(n) * u64::from(g) {
            return Err(ApiError::new(
                "p",
                self.p,
                format!("every GPU of the network, {}", u64::from(n) * u64::from(g)),
            ));
        }
        limits::PIECES.check(self.pieces).map_err(ApiError::from)?;
        let channels = limits::net::CHANNELS.check(u64::from(self.channels)).map_err(ApiError::from)?;
        let ops = |p: u64| 4 * channels * p * (self.pieces.min(1 << 16) + 2);
        if ops(self.p) > OPS as u64 {
            return Err(over_ops(id, self.p, ops));
        }
        let plan = commlab_core::choose::nvls(collective, self.p as u32, g, self.pieces.min(1 << 16) as u32)
            .map_err(|e| ApiError::new("collective", id, e))?;
        let orders = vec![(0..plan.ranks).collect(); channels as usize];
        Ok(commlab_core::choose::goal_channels(&plan, self.bytes, &orders))
    }

    /// The schedule.
    ///
    /// # Errors
    /// The field out of range, or an unknown id.
    pub fn build(&self) -> Result<Schedule, ApiError> {
        self.build_on(None)
    }

    /// The schedule, its channels ordered for the network `shape` (on
    /// `nodes`, channel c crosses between nodes on rail c mod R).
    ///
    /// # Errors
    /// As [`GenerateRequest::build`].
    pub fn build_on(&self, shape: Option<commlab_core::net::Shape>) -> Result<Schedule, ApiError> {
        BYTES.check(self.bytes).map_err(ApiError::from)?;
        match self.collective.as_str() {
            "barrier" => {
                MESH.check(u64::from(self.mesh)).map_err(ApiError::from)?;
                limits::mesh_view::TILE.check(u64::from(self.tile)).map_err(ApiError::from)?;
                limits::mesh_view::COMBINING_K.check(u64::from(self.combining_k)).map_err(ApiError::from)?;
                let encoding = crate::parse_id("encoding", &self.encoding)?;
                let algorithm: commlab_core::barrier::algorithm::Algorithm =
                    crate::parse_id("algorithm", &self.algorithm)?;
                // Checked before anything is built: all-to-all on 256 × 256 would be 4.3 G messages.
                let nodes = u64::from(self.mesh) * u64::from(self.mesh);
                let ops = 2 * algorithm.messages_per_barrier(nodes);
                if ops > OPS as u64 {
                    return Err(ApiError::new(
                        "mesh",
                        self.mesh,
                        format!("a {algorithm} barrier of at most {OPS} operations (2 per message; {nodes} nodes give up to {ops})"),
                    ));
                }
                goal::patterns::barrier(self.mesh, encoding, algorithm, self.tile, self.combining_k, self.bytes)
                    .map_err(|e| ApiError::new("mesh", self.mesh, e))
            }
            "swizzle" => {
                use commlab_core::swizzle::{CoreSplit, GridShape, SwizzleConfig};
                let (row, column, rank) = self.grid;
                let config = SwizzleConfig::new(
                    GridShape { row, column, rank },
                    CoreSplit { row: self.cores.0, column: self.cores.1 },
                    self.direction,
                    self.deterministic,
                    self.shift,
                )?;
                // Every rank moves every remote tile once: ranks × loops messages, two ops each.
                let ops = 2 * u64::from(rank) * config.loop_count();
                if ops > OPS as u64 {
                    return Err(ApiError::new(
                        "grid",
                        format!("{row}×{column}×{rank}"),
                        format!("at most {OPS} operations (2 × ranks × loops = {ops})"),
                    ));
                }
                Ok(goal::patterns::swizzle(&config, self.bytes, self.read))
            }
            id if id.contains('/') => {
                // A chooser algorithm, `collective/algorithm` (`allreduce/ring`).
                use commlab_core::choose;
                let (c, a) = id.split_once('/').unwrap_or_default();
                let collective: choose::Collective = crate::parse_id("collective", c)?;
                if a == NVLS {
                    return self.nvls(id, collective, shape);
                }
                if !choose::of(collective).any(|x| x.id == a) {
                    let ids: Vec<&str> = choose::of(collective).map(|x| x.id).collect();
                    return Err(ApiError::new(
                        "collective",
                        id,
                        format!("{c}/ followed by one of: {}", ids.join(", ")),
                    ));
                }
                CHOOSER_P.check(self.p).map_err(ApiError::from)?;
                limits::PIECES.check(self.pieces).map_err(ApiError::from)?;
                let channels = limits::net::CHANNELS.check(u64::from(self.channels)).map_err(ApiError::from)?;
                let (p, m) = (self.p, self.pieces.min(1 << 16));
                // Operations, generously: the all-pairs algorithms send p² messages.
                let ops = |p: u64| {
                    let log = u64::from(64 - p.saturating_sub(1).leading_zeros());
                    let messages =
                        if ["ring", "pairwise", "linear"].contains(&a) { 2 * p * p } else { 2 * p * (log + 2 + m) };
                    2 * channels * messages
                };
                if ops(p) > OPS as u64 {
                    return Err(over_ops(id, p, ops));
                }
                let plan =
                    choose::plan(collective, a, p as u32, m as u32).map_err(|e| ApiError::new("collective", id, e))?;
                let orders: Vec<Vec<u32>> = (0..channels as u32)
                    .map(|c| shape.map_or_else(|| (0..p as u32).collect(), |s| s.channel_order(p as u32, c)))
                    .collect();
                Ok(choose::goal_channels(&plan, self.bytes, &orders))
            }
            id => {
                P.check(self.p).map_err(ApiError::from)?;
                let pieces = self.pieces;
                if estimated_ops(id, self.p, pieces) > OPS as u64 {
                    return Err(over_ops(id, self.p, |p| estimated_ops(id, p, pieces)));
                }
                goal::generate::collective(id, self.p, self.bytes, self.pieces).map_err(|e| {
                    if e.starts_with("unknown collective") {
                        ApiError::new("collective", id, COLLECTIVES.join(", "))
                    } else {
                        ApiError::new("p", self.p, e)
                    }
                })
            }
        }
    }
}

/// An export with no run kept (the last one was refused, or none ran).
pub(crate) fn nothing_run() -> ApiError {
    ApiError::problem("export", "nothing to export: no schedule has run (change what the message above names)")
}

/// The refusal of a schedule over [`OPS`] operations at `p` (`ops(p)`
/// counts them): the largest p that fits, found by bisection (`ops` grows with p).
fn over_ops(id: &str, p: u64, ops: impl Fn(u64) -> u64) -> ApiError {
    let (mut fits, mut over) = (0u64, p);
    while over - fits > 1 {
        let mid = fits + (over - fits) / 2;
        if ops(mid) <= OPS as u64 {
            fits = mid;
        } else {
            over = mid;
        }
    }
    let most = commlab_core::limits::group(&OPS.to_string());
    let needs = commlab_core::limits::group(&ops(p).to_string());
    let largest = if fits == 0 {
        "no p".to_owned()
    } else {
        format!("p up to {}", commlab_core::limits::group(&fits.to_string()))
    };
    ApiError::new(
        "p",
        p,
        format!("{largest}: {id} at p = {p} takes about {needs} operations, over the {most} a schedule may have"),
    )
}

/// Operations of a reduction-family schedule, from its message count.
fn estimated_ops(id: &str, p: u64, pieces: u64) -> u64 {
    let log = u64::from(64 - p.saturating_sub(1).leading_zeros());
    let messages = match id {
        "allreduce" | "allreduce-bst" => 2 * p,
        "allreduce-butterfly" => p * (log + 2),
        "dissemination" => p * log,
        "pipeline" => p * pieces,
        _ => p,
    };
    2 * messages
}

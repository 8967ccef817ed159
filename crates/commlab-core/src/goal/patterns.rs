//! The barrier algorithms' fault-free patterns and the CommSwizzle schedule
//! as GOAL (`docs/loggops.md`, "Generated schedules").
//!
//! **Barriers.** One barrier on a `size × size` mesh without broken links
//! (every node's `K` is 0, so the DLCT is the plain local continuous tree
//! and no tile hands its arrival over). Rank = node id. Each node runs the
//! stages of the barrier engine (`barrier::engine::protocol`): a gather up
//! the arrival tree and a release down the wake-up tree, or one-phase
//! rounds; two-layer forms run the tile's layer, then the leaders' layer on
//! the tile leaders, then the tile's release (or, after one-phase tile
//! rounds, the leader wakes its tile directly). A stage's sends require
//! everything the node did before it; receives are posted at once (tags
//! keep the stages apart: gather `10 + level`, release `20 + level`, direct
//! wake-up 30, round `k` of a level `100 · (level + 1) + k`).
//!
//! **Swizzle.** Every rank runs the same per-core schedule: at step `s`
//! core `c` moves the tile `(data, q)` of its task. A remote read is `q`
//! sending the tile to the rank (a write: the rank sending to `q`); tiles of
//! the rank itself move no message. Each rank's core `c` is CPU `c`; every
//! rank has one NIC, so cores that meet on one rank queue at its NIC. A
//! core's operations keep the step order (each requires its previous one on
//! the same rank and CPU); tag = the tile's data index.

use super::{Kind, Op, Schedule};
use crate::barrier::algorithm::{layers, Algorithm, Layer, LayerKind};
use crate::barrier::encoding::{Encoding, Numbering, Structure};
use crate::barrier::mesh::Mesh;
use crate::swizzle::{Schedule as Swizzle, SwizzleConfig};

/// Operations per rank with dependencies on the rank's own earlier ops.
struct Builder {
    ops: Vec<Vec<Op>>,
    /// `(rank, dependent local index, prerequisite local index)`.
    deps: Vec<(u32, u32, u32)>,
}

impl Builder {
    fn new(ranks: u32) -> Builder {
        Builder { ops: vec![Vec::new(); ranks as usize], deps: Vec::new() }
    }

    #[allow(clippy::too_many_arguments, reason = "the fields of one GOAL statement")]
    fn op(&mut self, rank: u32, kind: Kind, size: u64, peer: u32, tag: u32, cpu: u8, after: &[u32]) -> u32 {
        let list = &mut self.ops[rank as usize];
        let at = list.len() as u32;
        list.push(Op { kind, size, peer, tag, cpu, nic: 0, rank });
        self.deps.extend(after.iter().map(|&p| (rank, at, p)));
        at
    }

    fn finish(self) -> Schedule {
        let ranks = self.ops.len() as u32;
        let mut s = Schedule::default();
        for (r, ops) in self.ops.into_iter().enumerate() {
            for op in ops {
                s.push(r as u32, op, "");
            }
        }
        s.close(ranks);
        for (rank, dependent, prerequisite) in self.deps {
            let base = s.first[rank as usize];
            s.depend(base + dependent, base + prerequisite, false);
        }
        s
    }
}

/// A stage of one node's barrier (the engine's, without hand-overs).
#[derive(Clone, Copy)]
enum Stage {
    Gather(usize),
    Release(usize),
    Rounds(usize),
    Direct,
}

/// The fault-free pattern of one `algorithm` barrier on a `size × size` mesh
/// under `encoding` (`tile`: two-layer tile side; `combining_k`: the
/// combining tree's arity), each message `bytes` long.
///
/// # Errors
/// A mesh size, tile or arity the barrier views refuse.
pub fn barrier(
    size: u32,
    encoding: Encoding,
    algorithm: Algorithm,
    tile: u32,
    combining_k: u32,
    bytes: u64,
) -> Result<Schedule, String> {
    let mesh = Mesh::new(u64::from(size)).map_err(|e| e.to_string())?;
    let numbering = Numbering::of_mesh(&mesh, encoding).map_err(|e| e.to_string())?;
    if tile == 0 || combining_k == 0 {
        return Err("tile and combining arity must be at least 1".into());
    }
    let layers = layers(&mesh, &numbering, algorithm, tile, combining_k);
    let nodes = mesh.nodes();
    // (group, local) of every node in each layer (u32::MAX: not a member).
    let mut place = vec![vec![(u32::MAX, u32::MAX); nodes as usize]; layers.len()];
    for (level, layer) in layers.iter().enumerate() {
        for (g, group) in layer.groups.iter().enumerate() {
            for (local, &m) in group.members.iter().enumerate() {
                place[level][m as usize] = (g as u32, local as u32);
            }
        }
    }
    // Per layer and group: each local's wake-up parent, and the round messages it receives.
    let derived: Vec<Vec<Derived>> = layers
        .iter()
        .map(|layer| layer.kinds.iter().zip(&layer.groups).map(|(k, g)| Derived::of(k, g.len())).collect())
        .collect();
    let mut b = Builder::new(nodes);
    for node in 0..nodes {
        let (group, local) = place[0][node as usize];
        let one_phase = matches!(layers[0].kinds[group as usize], LayerKind::Rounds { .. });
        let stages: &[Stage] = match (layers.len(), one_phase, local == 0) {
            (1, true, _) => &[Stage::Rounds(0)],
            (1, false, _) | (_, false, false) => &[Stage::Gather(0), Stage::Release(0)],
            (_, true, true) => &[Stage::Rounds(0), Stage::Gather(1), Stage::Release(1), Stage::Direct],
            (_, true, false) => &[Stage::Rounds(0), Stage::Direct],
            (_, false, true) => &[Stage::Gather(0), Stage::Gather(1), Stage::Release(1), Stage::Release(0)],
        };
        let mut frontier: Vec<u32> = Vec::new();
        for &stage in stages {
            frontier = emit(&mut b, (&layers, &derived), &place, node, stage, bytes, &frontier);
        }
    }
    Ok(b.finish())
}

/// What a layer's structure gives each local id, computed once per group.
struct Derived {
    /// Wake-up parent (trees with a separate wake-up tree).
    woken_by: Vec<Option<u32>>,
    /// `(round, sender)` of the messages each local receives (rounds layers).
    incoming: Vec<Vec<(usize, u32)>>,
}

impl Derived {
    fn of(kind: &LayerKind, n: u32) -> Derived {
        let mut d = Derived { woken_by: Vec::new(), incoming: Vec::new() };
        match kind {
            LayerKind::Tree { release: Some(release), .. } => {
                d.woken_by = vec![None; n as usize];
                for (p, woken) in release.iter().enumerate() {
                    for &c in woken {
                        d.woken_by[c as usize] = Some(p as u32);
                    }
                }
            }
            LayerKind::Rounds { sends, .. } => {
                d.incoming = vec![Vec::new(); n as usize];
                for (from, rounds) in sends.iter().enumerate() {
                    for (k, targets) in rounds.iter().enumerate() {
                        for &to in targets {
                            d.incoming[to as usize].push((k, from as u32));
                        }
                    }
                }
            }
            _ => {}
        }
        d
    }
}

/// Arrival parent and children, wake-up parent and children of `local` in a tree layer.
struct Tree {
    up: Option<u32>,
    from_below: Vec<u32>,
    woken_by: Option<u32>,
    wakes: Vec<u32>,
}

fn tree(kind: &LayerKind, derived: &Derived, local: u32, n: u32) -> Tree {
    if let LayerKind::Tree { parent, children, release } = kind {
        let wakes = release.as_ref().map_or(&children[local as usize], |r| &r[local as usize]).clone();
        let woken_by = match release {
            None => parent[local as usize],
            Some(_) => derived.woken_by[local as usize],
        };
        Tree { up: parent[local as usize], from_below: children[local as usize].clone(), woken_by, wakes }
    } else {
        let children = Structure::Lct.children(local, n);
        let parent = Structure::Lct.parent(local);
        Tree { up: parent, from_below: children.clone(), woken_by: parent, wakes: children }
    }
}

/// The ops of one stage of `node`, after `frontier`; returns the new frontier.
fn emit(
    b: &mut Builder,
    (layers, derived): (&[Layer], &[Vec<Derived>]),
    place: &[Vec<(u32, u32)>],
    node: u32,
    stage: Stage,
    bytes: u64,
    frontier: &[u32],
) -> Vec<u32> {
    let level = match stage {
        Stage::Gather(l) | Stage::Release(l) | Stage::Rounds(l) => l,
        Stage::Direct => 0,
    };
    let (group, local) = place[level][node as usize];
    let members = &layers[level].groups[group as usize].members;
    let kind = &layers[level].kinds[group as usize];
    let derived = &derived[level][group as usize];
    let n = members.len() as u32;
    let tag_of = |base: u32| base + level as u32;
    match stage {
        Stage::Gather(_) => {
            let t = tree(kind, derived, local, n);
            let mut got: Vec<u32> = t
                .from_below
                .iter()
                .map(|&c| b.op(node, Kind::Recv, bytes, members[c as usize], tag_of(10), 0, &[]))
                .collect();
            got.extend_from_slice(frontier);
            match t.up {
                Some(p) => vec![b.op(node, Kind::Send, bytes, members[p as usize], tag_of(10), 0, &got)],
                None => got,
            }
        }
        Stage::Release(_) => {
            let t = tree(kind, derived, local, n);
            let mut before = frontier.to_vec();
            if let Some(p) = t.woken_by {
                before.push(b.op(node, Kind::Recv, bytes, members[p as usize], tag_of(20), 0, &[]));
            }
            let sends: Vec<u32> = t
                .wakes
                .iter()
                .map(|&c| b.op(node, Kind::Send, bytes, members[c as usize], tag_of(20), 0, &before))
                .collect();
            if sends.is_empty() {
                before
            } else {
                sends
            }
        }
        Stage::Rounds(_) => {
            let LayerKind::Rounds { sends, .. } = kind else { unreachable!("one-phase stages run on rounds layers") };
            let mut before = frontier.to_vec();
            for (k, targets) in sends[local as usize].iter().enumerate() {
                let tag = 100 * (level as u32 + 1) + k as u32;
                let mut next: Vec<u32> = targets
                    .iter()
                    .map(|&to| b.op(node, Kind::Send, bytes, members[to as usize], tag, 0, &before))
                    .collect();
                for &(_, from) in derived.incoming[local as usize].iter().filter(|&&(round, _)| round == k) {
                    next.push(b.op(node, Kind::Recv, bytes, members[from as usize], tag, 0, &[]));
                }
                if !next.is_empty() {
                    before = next;
                }
            }
            before
        }
        Stage::Direct => {
            if local == 0 {
                (1..n).map(|m| b.op(node, Kind::Send, bytes, members[m as usize], 30, 0, frontier)).collect()
            } else {
                let mut before = frontier.to_vec();
                before.push(b.op(node, Kind::Recv, bytes, members[0], 30, 0, &[]));
                before
            }
        }
    }
}

/// The swizzle schedule of `config` on every rank as GOAL (rules in the
/// module docs), `tile_bytes` per tile; `read`: remote reads, else writes.
pub fn swizzle(config: &SwizzleConfig, tile_bytes: u64, read: bool) -> Schedule {
    let schedule = Swizzle::new(config);
    let ranks = config.grid().rank;
    let mut b = Builder::new(ranks);
    // The last op of each (rank, core), for the step order.
    let cores = schedule.core_count() as usize;
    let mut last: Vec<Option<u32>> = vec![None; ranks as usize * cores];
    for step in 0..schedule.steps() {
        for r in 0..ranks {
            for (core, task) in schedule.step_tasks(step) {
                let q = task.rank;
                if q == r {
                    continue;
                }
                let cpu = core.min(u32::from(super::MAX_UNIT)) as u8;
                let (sender, receiver) = if read { (q, r) } else { (r, q) };
                for (rank, kind, peer) in [(sender, Kind::Send, receiver), (receiver, Kind::Recv, sender)] {
                    let slot = rank as usize * cores + core as usize;
                    let after: Vec<u32> = last[slot].into_iter().collect();
                    last[slot] = Some(b.op(rank, kind, tile_bytes, peer, task.data, cpu, &after));
                }
            }
        }
    }
    b.finish()
}

//! The barrier protocols on top of the transport: each node's stages per
//! barrier (gather, release, one-phase rounds, tile hand-overs), the literal
//! DLCT protocol with its judges, and leaving a barrier.

use super::transport::{Slot, SlotCounts};
use super::{Decision, Event, Judge, Kind, Run};
use crate::barrier::algorithm::{Layer, LayerKind};
use crate::barrier::encoding::Structure;
use crate::barrier::mesh::NodeId;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    Gather(u8),
    Release(u8),
    Rounds(u8),
    ReleaseDirect(u8),
    /// A tile's DLCT root that is not the tile's leader tells the leader the tile arrived.
    HandUp,
    /// The leader waits for that message.
    AwaitHandUp,
    /// The leader hands the global release back to the tile's DLCT root.
    HandDown,
    /// The tile's DLCT root waits for it.
    AwaitHandDown,
}

pub(super) struct NodeState {
    /// Queued messages per slot, so waiting costs O(log) instead of a queue scan.
    pub(super) counts: SlotCounts,
    pub(super) stages: Vec<Stage>,
    pub(super) barrier: u32,
    pub(super) stage: usize,
    pub(super) computing: bool,
    pub(super) round: u32,
    pub(super) round_sent: bool,
    pub(super) queue: Vec<usize>,
    pub(super) k: u32,
    pub(super) decided_k: u32,
}

/// The nodes a node releases in one layer, given its DLCT shift: the
/// wake-up tree's children (the arrival tree's, except for MCS and the
/// tournament).
pub(super) fn wakes(layer: &Layer, group: u32, local: u32, k: u32) -> Vec<u32> {
    match &layer.kinds[group as usize] {
        LayerKind::Tree { release: Some(release), .. } => release[local as usize].clone(),
        _ => relatives(layer, group, local, k).1,
    }
}

/// Parent and children of a node in one layer, given its DLCT shift.
pub(super) fn relatives(layer: &Layer, group: u32, local: u32, k: u32) -> (Option<u32>, Vec<u32>) {
    let g = group as usize;
    let n = layer.groups[g].len();
    match &layer.kinds[g] {
        LayerKind::Tree { parent, children, .. } => (parent[local as usize], children[local as usize].clone()),
        LayerKind::Dlct => {
            let id = (local + k) % n;
            let to_local = |id: u32| (id + n - k % n) % n;
            (
                Structure::Lct.parent(id).map(to_local),
                Structure::Lct.children(id, n).into_iter().map(to_local).collect(),
            )
        }
        LayerKind::Rounds { .. } => (None, Vec::new()),
    }
}

impl Run {
    /// Advances `node` as far as its queue allows.
    pub(super) fn progress(&mut self, node: NodeId, t: u64) {
        loop {
            let state = &self.nodes[node as usize];
            if state.computing || state.barrier >= self.sim.scenario.barriers {
                return;
            }
            if state.stage == state.stages.len() {
                self.leave_barrier(node, t);
                continue;
            }
            let advanced = match state.stages[state.stage] {
                Stage::Gather(level) => self.gather(node, level, t),
                Stage::Release(level) => self.release(node, level, t),
                Stage::Rounds(level) => self.rounds(node, level, t),
                Stage::ReleaseDirect(level) => self.release_direct(node, level, t),
                Stage::HandUp => self.hand(node, Kind::HandUp, t),
                Stage::HandDown => self.hand(node, Kind::HandDown, t),
                Stage::AwaitHandUp => {
                    self.count(node, Slot::HandUp) > 0 && !self.take(node, 1, Slot::HandUp, t).is_empty()
                }
                Stage::AwaitHandDown => {
                    self.count(node, Slot::HandDown) > 0 && !self.take(node, 1, Slot::HandDown, t).is_empty()
                }
            };
            if !advanced {
                return;
            }
            self.nodes[node as usize].stage += 1;
        }
    }

    /// What `node` does in its coming barrier. Two-layer DLCT tiles: the tile
    /// leader (local 0, fixed) represents the tile among leaders; once an
    /// adjustment moved the tile's DLCT root elsewhere, the root hands the
    /// tile's arrival up to the leader and the leader hands the release back
    /// (two extra messages per tile and barrier).
    pub(super) fn stages_for(&self, node: NodeId) -> Vec<Stage> {
        let (group, local) = self.group_of(0, node);
        let layers = &self.sim.layers;
        let one_phase = matches!(layers[0].kinds[group as usize], LayerKind::Rounds { .. });
        if layers.len() == 1 {
            return if one_phase { vec![Stage::Rounds(0)] } else { vec![Stage::Gather(0), Stage::Release(0)] };
        }
        let leader = local == 0;
        if one_phase {
            return if leader {
                vec![Stage::Rounds(0), Stage::Gather(1), Stage::Release(1), Stage::ReleaseDirect(0)]
            } else {
                vec![Stage::Rounds(0), Stage::ReleaseDirect(0)]
            };
        }
        let n = layers[0].groups[group as usize].len();
        let root = (local + self.nodes[node as usize].k) % n == 0;
        match (leader, root) {
            (true, true) => vec![Stage::Gather(0), Stage::Gather(1), Stage::Release(1), Stage::Release(0)],
            (false, true) => vec![Stage::Gather(0), Stage::HandUp, Stage::AwaitHandDown, Stage::Release(0)],
            (true, false) => vec![
                Stage::Gather(0),
                Stage::AwaitHandUp,
                Stage::Gather(1),
                Stage::Release(1),
                Stage::HandDown,
                Stage::Release(0),
            ],
            (false, false) => vec![Stage::Gather(0), Stage::Release(0)],
        }
    }

    /// Sends a hand-over between a tile's DLCT root and its leader.
    pub(super) fn hand(&mut self, node: NodeId, kind: Kind, t: u64) -> bool {
        let (group, _) = self.group_of(0, node);
        let to = if kind == Kind::HandUp {
            self.node_at(0, group, 0)
        } else {
            let n = self.sim.layers[0].groups[group as usize].len();
            let k = self.nodes[node as usize].k;
            self.node_at(0, group, (n - k % n) % n)
        };
        self.send(node, to, 0, kind, 0, t);
        true
    }

    pub(super) fn leave_barrier(&mut self, node: NodeId, t: u64) {
        let state = &mut self.nodes[node as usize];
        self.leave[node as usize][state.barrier as usize] = t;
        state.barrier += 1;
        state.stage = 0;
        if state.barrier < self.sim.scenario.barriers {
            state.computing = true;
            let at = t + self.compute_time();
            self.push(at, Event::Enter(node));
        }
    }

    pub(super) fn gather(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        let k = self.nodes[node as usize].k;
        let (parent, children) = relatives(&self.sim.layers[level as usize], group, local, k);
        if self.count(node, Slot::Gather(level)) < children.len() {
            return false;
        }
        // Clear the Gather queue before sending to the parent.
        let taken = self.take(node, children.len(), Slot::Gather(level), t);
        let sum: u64 = taken.iter().map(|&id| self.msgs[id].content).sum();
        if let Some(p) = parent {
            let to = self.node_at(level, group, p);
            self.send(node, to, level, Kind::Gather, sum, t);
        } else {
            let k = if self.is_dlct(level, group) {
                let k = self.judge(level, group, local, sum);
                let fault_free = self.fault_free(level, group, local);
                let barrier = self.nodes[node as usize].barrier;
                self.decisions.push(Decision { barrier, group, tick: t, root: node, path_sum: sum, fault_free, k });
                k
            } else {
                0
            };
            self.nodes[node as usize].decided_k = k;
        }
        true
    }

    pub(super) fn release(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        let k_now = self.nodes[node as usize].k;
        let layer = &self.sim.layers[level as usize];
        let (parent, children) = (relatives(layer, group, local, k_now).0, wakes(layer, group, local, k_now));
        let k = if parent.is_none() {
            self.nodes[node as usize].decided_k
        } else {
            if self.count(node, Slot::Release(level)) == 0 {
                return false;
            }
            let taken = self.take(node, 1, Slot::Release(level), t);
            let Some(&id) = taken.first() else { return false };
            match self.msgs[id].kind {
                Kind::Release(k) => k,
                _ => unreachable!("filtered to releases"),
            }
        };
        // Forward first, then adjust.
        for c in children {
            let to = self.node_at(level, group, c);
            self.send(node, to, level, Kind::Release(k), 0, t);
        }
        if self.is_dlct(level, group) && k > 0 {
            let n = self.sim.layers[level as usize].groups[group as usize].len();
            self.nodes[node as usize].k = (k_now + k) % n;
            if parent.is_none() {
                self.adjustments.push((self.nodes[node as usize].barrier, group, k));
            }
        }
        true
    }

    pub(super) fn rounds(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        let barrier = self.nodes[node as usize].barrier;
        loop {
            let LayerKind::Rounds { sends, expects } = &self.sim.layers[level as usize].kinds[group as usize] else {
                unreachable!("rounds stage on a rounds layer")
            };
            let round = self.nodes[node as usize].round;
            if round as usize == expects[local as usize].len() {
                self.nodes[node as usize].round = 0;
                return true;
            }
            let targets = sends[local as usize][round as usize].clone();
            let need = expects[local as usize][round as usize] as usize;
            if !self.nodes[node as usize].round_sent {
                self.nodes[node as usize].round_sent = true;
                for target in targets {
                    let to = self.node_at(level, group, target);
                    self.send(node, to, level, Kind::Round(round), 0, t);
                }
            }
            let this_round = Slot::Round(level, barrier, round);
            if self.count(node, this_round) < need {
                return false;
            }
            self.take(node, need, this_round, t);
            let state = &mut self.nodes[node as usize];
            state.round += 1;
            state.round_sent = false;
        }
    }

    pub(super) fn release_direct(&mut self, node: NodeId, level: u8, t: u64) -> bool {
        let (group, local) = self.group_of(level, node);
        if local == 0 {
            let n = self.sim.layers[level as usize].groups[group as usize].len();
            for other in 1..n {
                let to = self.node_at(level, group, other);
                self.send(node, to, level, Kind::Release(0), 0, t);
            }
            return true;
        }
        self.count(node, Slot::Release(level)) > 0 && !self.take(node, 1, Slot::Release(level), t).is_empty()
    }

    /// Summed fault-free distances from every member to its LCT parent under
    /// the group's current numbering (`local` is the root's local id).
    pub(super) fn fault_free(&self, level: u8, group: u32, local: u32) -> u64 {
        let k = self.nodes[self.node_at(level, group, local) as usize].k;
        let members = &self.sim.layers[level as usize].groups[group as usize].members;
        let n = members.len() as u32;
        let node_of = |id: u32| members[((id + n - k % n) % n) as usize];
        (1..n)
            .map(|id| u64::from(self.sim.mesh.distance(node_of(id), node_of(Structure::Lct.parent(id).unwrap_or(0)))))
            .sum()
    }

    /// The root's decision (`local` is the root's local id, `sum` the summed path lengths).
    pub(super) fn judge(&mut self, level: u8, group: u32, local: u32, sum: u64) -> u32 {
        let k = self.nodes[self.node_at(level, group, local) as usize].k;
        let members = self.sim.layers[level as usize].groups[group as usize].members.clone();
        let n = members.len() as u32;
        let node_of = |id: u32, k: u32| members[((id + n - k % n) % n) as usize];
        match self.sim.scenario.judge {
            Judge::Never => 0,
            Judge::Threshold(threshold) => {
                let fault_free = self.fault_free(level, group, local);
                u32::from(sum as f64 > (1.0 + threshold) * fault_free as f64)
            }
            Judge::Oracle => {
                let mut best = (u64::MAX, 0);
                for extra in 0..n.min(64) {
                    let shift = (k + extra) % n;
                    let cost = self.critical_path(n, &|id| node_of(id, shift));
                    if cost < best.0 {
                        best = (cost, extra);
                    }
                }
                best.1
            }
        }
    }

    /// Contention-free gather + release critical path (in hops) of an LCT numbering.
    pub(super) fn critical_path(&mut self, n: u32, node_of: &dyn Fn(u32) -> NodeId) -> u64 {
        let mut up = vec![0u64; n as usize];
        let mut down = vec![0u64; n as usize];
        let mut hops = vec![0u64; n as usize];
        for id in 1..n {
            let parent = Structure::Lct.parent(id).unwrap_or(0);
            match self.sim.router.route(node_of(id), node_of(parent)) {
                Some(p) => hops[id as usize] = p.len() as u64,
                None => return u64::MAX,
            }
        }
        for id in (1..n).rev() {
            let parent = Structure::Lct.parent(id).unwrap_or(0) as usize;
            up[parent] = up[parent].max(up[id as usize] + hops[id as usize]);
        }
        for id in 1..n {
            let parent = Structure::Lct.parent(id).unwrap_or(0) as usize;
            down[id as usize] = down[parent] + hops[id as usize];
        }
        up[0] + down.iter().copied().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::{relatives, wakes};
    use crate::barrier::algorithm::{layers, Algorithm};
    use crate::barrier::encoding::{Encoding, Numbering};
    use crate::barrier::mesh::Mesh;

    /// MCS wakes along its binary tree, the tournament's champion wakes
    /// everyone, a DLCT shift of `k` moves the LCT by `k` local ids.
    #[test]
    fn arrival_and_wake_up_trees() {
        let mesh = Mesh::new(4).unwrap();
        let num = Numbering::of_mesh(&mesh, Encoding::SCurve).unwrap();
        let mcs = &layers(&mesh, &num, Algorithm::Mcs, 4, 4)[0];
        assert_eq!(relatives(mcs, 0, 0, 0), (None, vec![1, 2, 3, 4]));
        assert_eq!(wakes(mcs, 0, 0, 0), vec![1, 2]);
        assert_eq!((relatives(mcs, 0, 5, 0).0, wakes(mcs, 0, 5, 0)), (Some(1), vec![11, 12]));
        let tournament = &layers(&mesh, &num, Algorithm::Tournament, 4, 4)[0];
        let champion = (0..16).find(|&l| relatives(tournament, 0, l, 0).0.is_none()).unwrap();
        assert_eq!(wakes(tournament, 0, champion, 0).len(), 15);
        let dlct = &layers(&mesh, &num, Algorithm::Dlct, 4, 4)[0];
        // Unshifted, local 4's LCT children are 5 and 6; shifted by 3, id 4 is local 1.
        assert_eq!(relatives(dlct, 0, 4, 0), (Some(0), vec![5, 6]));
        assert_eq!(relatives(dlct, 0, 1, 3), (Some(13), vec![2, 3]));
        assert_eq!(wakes(dlct, 0, 1, 3), vec![2, 3]);
    }
}

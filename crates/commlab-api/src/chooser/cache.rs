//! The profiles and network points kept between requests (`Cache`), and
//! their copy for the page (`KeptProfiles`).

use super::points::NetPoint;
use super::{algorithms, ChooseRequest, Options};
use commlab_core::choose::{of, Collective, Load, Profile};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::rc::Rc;

/// Profiles kept between requests (a view's redraw with other α, β, γ or
/// sizes costs the kept profiles again instead of building them): per
/// (collective, algorithm, p), each piece count's profile.
#[derive(Default)]
pub struct Cache {
    pub(super) options: HashMap<(Collective, &'static str, u32), Rc<Options>>,
    /// Points simulated on networks: (network, collective, algorithm, p, pieces, bytes, limit).
    pub(super) net: HashMap<NetKey, NetPoint>,
    /// Plans over a limit, whatever the size: (collective, algorithm, p,
    /// pieces asked, limit) → the pieces last tried. Building one to count
    /// it is the cost (ring allreduce at p = 1024: 2 M transfers, 0.3 s
    /// natively), so it is built once, not once per size.
    pub(super) over: HashMap<(Collective, &'static str, u32, u32, u64), u32>,
}

pub(super) type NetKey = (String, Collective, &'static str, u32, u32, u64, u64);

/// Profiles kept at most (each a few hundred bytes; a full cache is emptied).
pub(super) const CACHE_ENTRIES: usize = 20_000;

impl Cache {
    pub(crate) fn options(&mut self, collective: Collective, id: &'static str, p: u32, pipelined: bool) -> Rc<Options> {
        if self.options.len() >= CACHE_ENTRIES {
            self.options.clear();
        }
        self.options
            .entry((collective, id, p))
            .or_insert_with(|| Rc::new(Options::new(collective, id, p, pipelined)))
            .clone()
    }

    /// Whether every profile `request` needs is kept (then it costs
    /// microseconds: the view answers on the page instead of a worker round trip).
    pub fn covers(&self, request: &ChooseRequest) -> bool {
        let (Ok(collective), Ok(p)) = (request.collective.parse::<Collective>(), u32::try_from(request.p)) else {
            return false;
        };
        algorithms(collective, &request.algorithms)
            .is_ok_and(|list| list.iter().all(|(id, _)| self.options.contains_key(&(collective, *id, p))))
    }

    /// The kept profiles `request` needs, to hand to another cache (the
    /// worker's to the page's), in [`Cache::import`]'s form.
    pub fn export(&self, request: &ChooseRequest) -> Vec<KeptProfiles> {
        let (Ok(collective), Ok(p)) = (request.collective.parse::<Collective>(), u32::try_from(request.p)) else {
            return Vec::new();
        };
        let Ok(list) = algorithms(collective, &request.algorithms) else { return Vec::new() };
        list.iter()
            .filter_map(|(id, _)| {
                let o = self.options.get(&(collective, *id, p))?;
                Some(KeptProfiles {
                    collective: collective.id().to_owned(),
                    algorithm: (*id).to_owned(),
                    p,
                    profiles: o
                        .profiles
                        .iter()
                        .map(|(m, prof)| {
                            let shapes = prof
                                .shapes
                                .iter()
                                .map(|(loads, count)| {
                                    (loads.iter().map(|l| [l.messages, l.blocks, l.combined]).collect(), *count)
                                })
                                .collect();
                            (*m, prof.unit_blocks, shapes)
                        })
                        .collect(),
                })
            })
            .collect()
    }

    /// Keeps profiles exported by [`Cache::export`] (unknown ids are skipped).
    pub fn import(&mut self, kept: &[KeptProfiles]) {
        for k in kept {
            let Ok(collective) = k.collective.parse::<Collective>() else { continue };
            let Some(id) = of(collective).find(|a| a.id == k.algorithm).map(|a| a.id) else { continue };
            let profiles = k
                .profiles
                .iter()
                .map(|(m, unit_blocks, shapes)| {
                    let shapes = shapes
                        .iter()
                        .map(|(loads, count)| {
                            let loads =
                                loads.iter().map(|&[messages, blocks, combined]| Load { messages, blocks, combined });
                            (loads.collect(), *count)
                        })
                        .collect();
                    (*m, Profile { unit_blocks: *unit_blocks, shapes })
                })
                .collect();
            self.options.insert((collective, id, k.p), Rc::new(Options { profiles }));
        }
    }
}

/// One algorithm's kept profiles on one p, as plain data (piece count,
/// blocks, shapes of `[messages, blocks, combined]` loads with their counts).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptProfiles {
    /// Collective id.
    pub collective: String,
    /// Algorithm id.
    pub algorithm: String,
    /// Ranks.
    pub p: u32,
    /// Per piece count: `(m, unit blocks, shapes)`.
    #[allow(clippy::type_complexity, reason = "plain data for the wire")]
    pub profiles: Vec<(u32, u32, Vec<(Vec<[u64; 3]>, u64)>)>,
}

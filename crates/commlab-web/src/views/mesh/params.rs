//! The barrier mesh view's state and URL fields: the engine request plus
//! what only the view draws (pattern, heat, the before/after panel).

use crate::codec::{Field, Kind, Link, Notice, ViewState};
use commlab_api::mesh::{flips_text, parse_flips, MeshRequest, RoundRequest};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::Judge;
use commlab_core::barrier::mesh::Routing;
use commlab_core::barrier::uq::LinkSetDefinition;
use commlab_core::limits::mesh_view as lim;

/// Everything a mesh link reproduces (the step is the shell's).
#[derive(Debug, Clone, PartialEq)]
pub struct MeshParams {
    /// The run.
    pub request: MeshRequest,
    /// Draw the algorithm's pattern.
    pub pattern: bool,
    /// Draw the link-load heat.
    pub heat: bool,
    /// `K` of the before/after panel.
    pub uq_k: u64,
    /// Link-set definition of the panel.
    pub uq_links: LinkSetDefinition,
}

impl Default for MeshParams {
    fn default() -> Self {
        MeshParams {
            request: MeshRequest::default(),
            pattern: true,
            heat: false,
            uq_k: 1,
            uq_links: LinkSetDefinition::default(),
        }
    }
}

impl MeshParams {
    /// The barrier's fault-free pattern, for the Schedule view (8-byte messages).
    pub fn schedule(&self) -> commlab_api::schedule::GenerateRequest {
        let r = &self.request;
        commlab_api::schedule::GenerateRequest {
            collective: "barrier".into(),
            mesh: r.size as u32,
            bytes: 8,
            algorithm: r.algorithm.clone(),
            encoding: r.encoding.clone(),
            tile: r.tile as u32,
            combining_k: r.combining_k as u32,
            ..Default::default()
        }
    }

    /// The before/after panel's request.
    pub fn round(&self, dark: bool) -> RoundRequest {
        RoundRequest {
            size: self.request.size,
            encoding: self.request.encoding.clone(),
            k: self.uq_k,
            links: self.uq_links.id().to_owned(),
            dark,
            width: 900,
        }
    }
}

/// The Timing section's number fields, in order: URL name and label. The
/// view renders them from the table, so a new timing parameter is a field
/// here (and in the request and `limits`).
pub const TIMING: [(&str, &str); 5] = [
    ("barriers", "Barriers"),
    ("hop_ticks", "Ticks per hop"),
    ("overhead_ticks", "Overhead ticks"),
    ("compute_ticks", "Compute ticks"),
    ("skew_ticks", "Straggler skew (ticks)"),
];

macro_rules! int {
    ($range:expr, $field:ident) => {
        Field { name: $range.name, kind: Kind::Int($range, |p| p.request.$field, |p, v| p.request.$field = v) }
    };
}

impl ViewState for MeshParams {
    const FIELDS: &'static [Field<Self>] = &[
        int!(lim::SIDE, size),
        Field { name: lim::RATE.name, kind: Kind::Real(lim::RATE, |p| p.request.rate, |p, v| p.request.rate = v) },
        int!(lim::SEED, seed),
        Field {
            name: "encoding",
            kind: Kind::Choice(
                || Encoding::ALL.iter().map(|e| e.id()).collect(),
                |p| p.request.encoding.as_str(),
                |p, id| id.clone_into(&mut p.request.encoding),
            ),
        },
        Field {
            name: "algorithm",
            kind: Kind::Choice(
                || Algorithm::ALL.iter().map(|a| a.id()).collect(),
                |p| p.request.algorithm.as_str(),
                |p, id| id.clone_into(&mut p.request.algorithm),
            ),
        },
        int!(lim::TILE, tile),
        Field {
            name: "judge",
            kind: Kind::Choice(
                || Judge::ALL.iter().map(|j| j.id()).collect(),
                |p| p.request.judge.as_str(),
                |p, id| id.clone_into(&mut p.request.judge),
            ),
        },
        Field {
            name: lim::THRESHOLD.name,
            kind: Kind::Real(lim::THRESHOLD, |p| p.request.threshold, |p, v| p.request.threshold = v),
        },
        int!(lim::HOP_TICKS, hop_ticks),
        int!(lim::OVERHEAD_TICKS, overhead_ticks),
        int!(lim::COMPUTE_TICKS, compute_ticks),
        int!(lim::SKEW_TICKS, skew_ticks),
        int!(lim::BARRIERS, barriers),
        int!(lim::COMBINING_K, combining_k),
        Field {
            name: "routing",
            kind: Kind::Choice(
                || Routing::ALL.iter().map(|r| r.id()).collect(),
                |p| p.request.routing.as_str(),
                |p, id| id.clone_into(&mut p.request.routing),
            ),
        },
        Field { name: "contention", kind: Kind::Flag(|p| p.request.contention, |p, v| p.request.contention = v) },
        Field { name: "connected", kind: Kind::Flag(|p| p.request.connected, |p, v| p.request.connected = v) },
        Field {
            name: "flip",
            kind: Kind::Custom {
                write: |p| flips_text(&p.request.flips),
                read: |p, text| {
                    if text.chars().count() > lim::FLIPS_TEXT_MAX {
                        return Err(format!("a list of at most {} characters", lim::FLIPS_TEXT_MAX));
                    }
                    p.request.flips = parse_flips(text).map_err(|e| e.expected)?;
                    Ok(())
                },
                used: "none",
            },
        },
        Field { name: "pattern", kind: Kind::Flag(|p| p.pattern, |p, v| p.pattern = v) },
        Field { name: "heat", kind: Kind::Flag(|p| p.heat, |p, v| p.heat = v) },
        Field { name: lim::UQ_K.name, kind: Kind::Int(lim::UQ_K, |p| p.uq_k, |p, v| p.uq_k = v) },
        Field {
            name: "links",
            kind: Kind::Choice(
                || LinkSetDefinition::ALL.iter().map(|l| l.id()).collect(),
                |p| p.uq_links.id(),
                |p, id| p.uq_links = id.parse().unwrap_or_default(),
            ),
        },
    ];

    fn finish(&mut self, read: &[&'static str], link: &Link, notices: &mut Vec<Notice>) {
        // v=1 links made before the tournament barrier followed the spec.
        if link.v1() && self.request.algorithm == Algorithm::Tournament.id() {
            notices.push(Notice::new("v", crate::codec::TOURNAMENT_CHANGED));
        }
        // Links made before the paper's routing rule keep the rule they had.
        if link.before_paper_routing() && !read.contains(&"routing") {
            Routing::Shortest.id().clone_into(&mut self.request.routing);
            notices.push(Notice::new("v", crate::codec::ROUTING_KEPT));
        }
        // A hand flip that is not a link of this mesh (the size is read by now).
        let links = commlab_core::barrier::mesh::Mesh::new(self.request.size).map_or(0, |m| m.link_count());
        if let Some(&bad) = self.request.flips.iter().find(|&&l| l >= links) {
            let expected = format!("a link of this mesh (ids 0..{links})");
            notices.push(Notice::refused("flip", &bad.to_string(), &expected, "none"));
            self.request.flips.clear();
        }
    }
}

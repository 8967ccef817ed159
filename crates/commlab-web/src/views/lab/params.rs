//! The barrier lab's state and URL fields: the sweep's engine request plus
//! the UQ experiment's mesh side.

use crate::codec::{Field, Kind, Link, Notice, ViewState};
use commlab_api::lab::LabRequest;
use commlab_core::barrier::mesh::Routing;
use commlab_core::limits::lab as lim;

/// Everything a lab link reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabParams {
    /// The sweep.
    pub sweep: LabRequest,
    /// Mesh side of the UQ experiment.
    pub uq_size: u64,
}

impl Default for LabParams {
    /// The default sweep; UQ on 4 × 4.
    fn default() -> Self {
        LabParams { sweep: LabRequest::default(), uq_size: 4 }
    }
}

impl ViewState for LabParams {
    const FIELDS: &'static [Field<Self>] = &[
        Field { name: lim::SEEDS.name, kind: Kind::Int(lim::SEEDS, |p| p.sweep.seeds, |p, v| p.sweep.seeds = v) },
        Field {
            name: lim::MAX_SIZE.name,
            kind: Kind::Int(lim::MAX_SIZE, |p| p.sweep.max_size, |p, v| p.sweep.max_size = v),
        },
        Field {
            name: lim::BARRIERS.name,
            kind: Kind::Int(lim::BARRIERS, |p| p.sweep.barriers, |p, v| p.sweep.barriers = v),
        },
        Field { name: lim::UQ_SIZE.name, kind: Kind::Int(lim::UQ_SIZE, |p| p.uq_size, |p, v| p.uq_size = v) },
        Field {
            name: "routing",
            kind: Kind::Choice(
                || Routing::ALL.iter().map(|r| r.id()).collect(),
                |p| p.sweep.routing.id(),
                |p, id| p.sweep.routing = id.parse().unwrap_or_default(),
            ),
        },
    ];

    fn finish(&mut self, read: &[&'static str], link: &Link, notices: &mut Vec<Notice>) {
        // Every lab chart includes the tournament barrier.
        if link.v1() {
            notices.push(Notice::new("v", crate::codec::TOURNAMENT_CHANGED));
        }
        // Links made before the paper's routing rule keep the rule they had.
        if link.before_paper_routing() && !read.contains(&"routing") {
            self.sweep.routing = Routing::Shortest;
            notices.push(Notice::new("v", crate::codec::ROUTING_KEPT));
        }
    }
}

//! The system a prediction is about (`docs/systems.md`): a preset node
//! type, how many of them, and the NCCL release whose model picks the
//! algorithm. Read and checked once, where it is given (a CLI flag, a JSON
//! field); everything after takes the typed value.

use crate::ApiError;
use commlab_core::libraries::nccl::{self, Version};
use commlab_core::limits::IntRange;
use commlab_core::systems::Preset;

/// Nodes of one prediction by the flow engine (and of the page).
pub const NODES: IntRange = IntRange { name: "nodes", min: 1, max: 128 };

/// Nodes of one prediction by the steady engine, which never builds the
/// whole network (`docs/systems.md`, "Two engines").
pub const STEADY_NODES: IntRange = IntRange { name: "nodes", min: 1, max: 1024 };

/// N nodes of a preset under one NCCL release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct System {
    /// The node type.
    pub preset: Preset,
    /// Nodes.
    pub nodes: u32,
    /// NCCL's constants and formulas.
    pub version: Version,
}

impl System {
    /// The system `id` × `nodes` under NCCL `version` (`None`: the current
    /// release), checked: a known preset, nodes within [`NODES`], ranks
    /// within the network simulator's hosts, a known release.
    ///
    /// # Errors
    /// The field at fault (`system`, `nodes`, `hosts`, `nccl-version`) and
    /// what it accepts.
    pub fn new(id: &str, nodes: u32, version: Option<&str>) -> Result<System, ApiError> {
        System::within(id, nodes, version, NODES)
    }

    /// [`System::new`] with nodes within `range` ([`NODES`] or
    /// [`STEADY_NODES`]); the ranks within the network simulator's hosts
    /// where the range is the flow engine's.
    ///
    /// # Errors
    /// As [`System::new`].
    pub fn within(id: &str, nodes: u32, version: Option<&str>, range: IntRange) -> Result<System, ApiError> {
        let preset = Preset::find(id).map_err(|e| ApiError::problem("system", e))?;
        let nodes = range.check(u64::from(nodes))? as u32;
        if u64::from(nodes) <= NODES.max {
            commlab_core::limits::net::HOSTS.check(u64::from(preset.ranks(nodes)))?;
        }
        let version = match version {
            None => Version::Current,
            Some(v) => Version::parse(v).map_err(|e| ApiError::problem("nccl-version", e))?,
        };
        Ok(System { preset, nodes, version })
    }

    /// Ranks: every GPU of every node.
    pub fn ranks(&self) -> u32 {
        self.preset.ranks(self.nodes)
    }

    /// NCCL's description of it.
    pub fn nccl(&self) -> nccl::System {
        self.preset.nccl_at(self.nodes, self.version)
    }
}

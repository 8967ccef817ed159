//! The playground's one source of truth: [`Params`], everything a link must
//! reproduce. Domain values only (no signals); [`crate::codec`] turns it into
//! a query string and back. Each view's part is its own state type, defined
//! in the view's `params.rs`.

use crate::codec::Link;
use crate::views::mesh::params::MeshParams;
use crate::views::model::params::ModelParams;
use crate::views::pipeline::params::PipelineParams;
use crate::views::tree::params::TreeParams;
use crate::views::View;

/// The colour theme the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeChoice {
    /// Follow the system's `prefers-color-scheme`.
    #[default]
    Auto,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// Every choice, in menu order.
    pub const ALL: [ThemeChoice; 3] = [ThemeChoice::Auto, ThemeChoice::Light, ThemeChoice::Dark];

    /// Stable id used in URLs (`theme=dark`).
    pub fn id(self) -> &'static str {
        match self {
            ThemeChoice::Auto => "auto",
            ThemeChoice::Light => "light",
            ThemeChoice::Dark => "dark",
        }
    }

    /// The choice with URL id `id`.
    pub fn from_id(id: &str) -> Option<ThemeChoice> {
        ThemeChoice::ALL.into_iter().find(|t| t.id() == id)
    }

    /// Whether the page is dark, given what the system prefers.
    pub fn is_dark(self, system_prefers_dark: bool) -> bool {
        match self {
            ThemeChoice::Auto => system_prefers_dark,
            ThemeChoice::Light => false,
            ThemeChoice::Dark => true,
        }
    }
}

/// Everything a shared link reproduces.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params {
    /// The view shown.
    pub view: View,
    /// Embed mode: the view alone, compact, with a link back.
    pub embed: bool,
    /// Colour theme.
    pub theme: ThemeChoice,
    /// What the opened link said of itself (its version); never written.
    pub link: Link,
    /// The animation step shown by the animated views (clipped to the run's length).
    pub step: u64,
    /// Runtime-model state.
    pub model: ModelParams,
    /// Reduction-tree state.
    pub tree: TreeParams,
    /// Pipeline state.
    pub pipeline: PipelineParams,
    /// Barrier mesh state.
    pub mesh: MeshParams,
    /// A lazy view's own URL pairs, kept verbatim: the lazy bundle reads and
    /// checks them, and reports them back as they change.
    pub lazy: Vec<(String, String)>,
}

//! The Schedule view's system select (`docs/systems.md`): a preset node type
//! sets the network to N such nodes (`nodes:NxGxR`, its `NVLink` and NIC
//! bandwidths), a Chooser algorithm to every GPU with a channel per rail, and
//! LogGOPS to network mode's defaults (o = g = 0: NCCL's kernels post their own
//! sends). The select keeps nothing of its own: it shows the preset the
//! network matches, or "custom", and the link carries the network it set.

use super::params::ScheduleParams;
use crate::controls::system::SystemControl;
use commlab_api::network::NetRequest;
use commlab_core::systems::Preset;
use leptos::prelude::*;

/// The preset `network` is, and its nodes.
pub fn matching(network: &NetRequest) -> Option<(&'static Preset, u32)> {
    commlab_core::systems::matching(network.topology, network.bandwidth, network.bandwidth2)
}

/// Sets the view to `nodes` nodes of `preset`.
fn apply(p: &mut ScheduleParams, preset: &Preset, nodes: u32) {
    p.on_network = true;
    p.network.system(preset, nodes);
    if p.generate.collective.contains('/') {
        p.generate.p = u64::from(preset.ranks(nodes));
        p.generate.channels = preset.nics;
    }
    p.use_preset(commlab_api::schedule::NETWORK_PRESET);
}

/// The System (preset and nodes, [`SystemControl`]) and what it set, in words.
#[component]
pub fn SystemSelect(
    /// The view's state: the select writes its network.
    params: RwSignal<ScheduleParams>,
) -> impl IntoView {
    let current = Signal::derive(move || params.with(|p| if p.on_network { matching(&p.network) } else { None }));
    let control = Signal::derive(move || current.get().map(|(p, n)| (*p, p.id.to_owned(), n)));
    let pick = Callback::new(move |(id, nodes): (String, u32)| {
        if let Some(preset) = commlab_core::systems::PRESETS.iter().find(|p| p.id == id) {
            params.update(|p| apply(p, preset, nodes));
        }
    });
    view! {
        <SystemControl id="system" label="System (custom network: as set below)" current=control pick=pick />
        {move || current.get().map(|(s, n)| view! {
            <p class="hint" data-testid="system-note">
                {format!(
                    "{n} × {}: {} (NVLink {} GB/s a GPU, NICs {} GB/s each); o = g = 0 and every message eager (network mode's defaults: NCCL's kernels post their own sends). Sources and assumptions: docs/systems.md.",
                    s.id, s.shape(n), s.nvlink, s.nic,
                )}
            </p>
        })}
    }
}

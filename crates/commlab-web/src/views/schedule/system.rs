//! The Schedule view's system select (`docs/systems.md`): a preset node type
//! sets the network to N such nodes (`nodes:NxGxR`, its `NVLink` and NIC
//! bandwidths), a Chooser algorithm to every GPU with a channel per rail, and
//! LogGOPS to network mode's defaults (o = g = 0: NCCL's kernels post their own
//! sends). The select keeps nothing of its own: it shows the preset the
//! network matches, or "custom", and the link carries the network it set.

use super::params::ScheduleParams;
use crate::controls::system::SystemControl;
use commlab_api::system::System;
use commlab_core::libraries::nccl::Version;
use leptos::prelude::*;

/// Sets the view to `system`.
fn apply(p: &mut ScheduleParams, system: &System) {
    p.on_network = true;
    p.network.system(&system.preset, system.nodes);
    if p.generate.collective.contains('/') {
        p.generate.p = u64::from(system.ranks());
        p.generate.channels = system.preset.nics;
    }
    p.use_preset(commlab_api::schedule::NETWORK_PRESET);
}

/// The System (preset and nodes, [`SystemControl`]) and what it set, in words.
#[component]
pub fn SystemSelect(
    /// The view's state: the select writes its network.
    params: RwSignal<ScheduleParams>,
) -> impl IntoView {
    let current = Signal::derive(move || {
        params.with(|p| Some(&p.network).filter(|_| p.on_network).and_then(|n| System::of(n, None, Version::Current)))
    });
    let pick = Callback::new(move |(id, nodes): (String, u32)| {
        // Presets only: the Schedule view has no custom systems.
        let picked = commlab_api::system::preset(&id)
            .and_then(|t| System::of_type(t, nodes, Version::Current, commlab_api::system::NODES).ok());
        if let Some(system) = picked {
            params.update(|p| apply(p, &system));
        }
    });
    view! {
        <SystemControl id="system" label="System (custom network: as set below)" current=current pick=pick />
        {move || current.get().map(|System { preset: s, nodes: n, .. }| view! {
            <p class="hint" data-testid="system-note">
                {format!(
                    "{n} × {}: {} (NVLink {} GB/s a GPU, NICs {} GB/s each); o = g = 0 and every message eager (network mode's defaults: NCCL's kernels post their own sends). Sources and assumptions: docs/systems.md.",
                    s.id, s.shape(n), s.nvlink, s.nic,
                )}
            </p>
        })}
    }
}

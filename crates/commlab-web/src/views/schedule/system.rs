//! The Schedule view's system select (`docs/systems.md`): a preset node type
//! sets the network to N such nodes (`nodes:NxGxR`, its `NVLink` and NIC
//! bandwidths), a Chooser algorithm to every GPU with a channel per rail, and
//! LogGOPS to network mode's defaults (o = g = 0: NCCL's kernels post their own
//! sends). The select keeps nothing of its own: it shows the preset the
//! network matches, or "custom", and the link carries the network it set.

use super::params::ScheduleParams;
use commlab_api::network::NetRequest;
use commlab_core::systems::{Preset, PRESETS};
use leptos::prelude::*;

/// The preset `network` is, and its nodes.
pub fn matching(network: &NetRequest) -> Option<(&'static Preset, u32)> {
    commlab_core::systems::matching(network.topology, network.bandwidth, network.bandwidth2)
}

/// Sets the view to `nodes` nodes of `preset`.
fn apply(p: &mut ScheduleParams, preset: &Preset, nodes: u32) {
    p.on_network = true;
    p.network.topology = preset.shape(nodes);
    p.network.bandwidth = Some(preset.nvlink);
    p.network.bandwidth2 = Some(preset.nic);
    if p.generate.collective.contains('/') {
        p.generate.p = u64::from(preset.ranks(nodes));
        p.generate.channels = preset.nics;
    }
    p.use_preset(commlab_api::schedule::NETWORK_PRESET);
}

/// The select and what it set, in words.
#[component]
pub fn SystemSelect(
    /// The view's state: the select writes its network.
    params: RwSignal<ScheduleParams>,
) -> impl IntoView {
    let current = move || params.with(|p| if p.on_network { matching(&p.network) } else { None });
    let on_change = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        let Ok(preset) = Preset::find(&id) else { return };
        // Keep the node count when switching between presets; two nodes otherwise.
        let nodes = current().map_or(2, |(_, n)| n);
        params.update(|p| apply(p, &preset, nodes));
    };
    view! {
        <div class="field">
            <label for="system">"System (custom: the network as set below)"</label>
            <select id="system" data-testid="system" on:change=on_change>
                <option value="" selected=move || current().is_none()>"custom"</option>
                {PRESETS.iter().map(|s| view! {
                    <option value=s.id selected=move || current().is_some_and(|(c, _)| c.id == s.id)>{s.name}</option>
                }).collect_view()}
            </select>
        </div>
        {move || current().map(|(s, n)| view! {
            <p class="hint" data-testid="system-note">
                {format!(
                    "{n} × {}: {} (NVLink {} GB/s a GPU, NICs {} GB/s each); o = g = 0 and every message eager (network mode's defaults: NCCL's kernels post their own sends). Sources and assumptions: docs/systems.md.",
                    s.id, s.shape(n), s.nvlink, s.nic,
                )}
            </p>
        })}
    }
}

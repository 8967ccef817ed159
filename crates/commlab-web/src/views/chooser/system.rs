//! The Chooser's system select (`docs/systems.md`): a preset node type sets
//! the comparison to N such nodes: the network (`nodes:NxGxR` with its
//! `NVLink` and NIC bandwidths, network mode's defaults), p = N × G, and NCCL
//! shown with the preset's system description. The select keeps nothing of
//! its own but the id picked (`sys=`, which of the presets with one network
//! to name): it shows the preset the network matches, or "custom", and the
//! link carries what it set.

use super::params::ChooserParams;
use commlab_core::systems::{Preset, PRESETS};
use leptos::prelude::*;

/// The preset the Chooser's network is, and its nodes.
pub(super) fn current(c: &ChooserParams) -> Option<(&'static Preset, u32)> {
    let shape = Some(c.network.topology).filter(|_| c.on_network)?;
    let (first, nodes) = commlab_core::systems::matching(shape, c.network.bandwidth, c.network.bandwidth2)?;
    // Presets with the same network are one to the model: the one picked is shown.
    let same =
        |p: &&Preset| p.gpus == first.gpus && p.nics == first.nics && p.nvlink == first.nvlink && p.nic == first.nic;
    Some((PRESETS.iter().filter(same).find(|p| p.id == c.system).unwrap_or(first), nodes))
}

/// Sets the Chooser to `nodes` nodes of `preset`.
fn apply(c: &mut ChooserParams, preset: &Preset, nodes: u32) {
    c.on_network = true;
    c.network.topology = preset.shape(nodes);
    c.network.bandwidth = Some(preset.nvlink);
    c.network.bandwidth2 = Some(preset.nic);
    c.network.breaks.clear();
    c.compare.p = preset.ranks(nodes);
    c.libraries[2] = true;
    c.nccl = preset.nccl_text(nodes);
    preset.id.clone_into(&mut c.system);
}

/// The select and what it set, in words.
#[component]
pub fn SystemSelect(
    /// The view's state: the select writes its network, p and NCCL's system.
    params: RwSignal<ChooserParams>,
) -> impl IntoView {
    let shown = move || params.with(current);
    let on_change = move |ev: leptos::ev::Event| {
        let Ok(preset) = Preset::find(&event_target_value(&ev)) else { return };
        // Keep the node count when switching between presets; two nodes otherwise.
        let nodes = shown().map_or(2, |(_, n)| n);
        params.update(|c| apply(c, &preset, nodes));
    };
    view! {
        <div class="field">
            <label for="chooser-system">"System (custom: the network and p as set)"</label>
            <select id="chooser-system" data-testid="chooser-system" on:change=on_change>
                <option value="" selected=move || shown().is_none()>"custom"</option>
                {PRESETS.iter().map(|s| view! {
                    <option value=s.id selected=move || shown().is_some_and(|(c, _)| c.id == s.id)>{s.name}</option>
                }).collect_view()}
            </select>
        </div>
        {move || shown().map(|(s, n)| view! {
            <p class="hint" data-testid="chooser-system-note">
                {format!(
                    "{n} × {}: {} (NVLink {} GB/s a GPU, NICs {} GB/s each), p = {}; every algorithm runs on it with o = g = 0, every message eager, a NIC sending one message at a time, and NCCL's pick is shown for this system. Change the node count in the topology (nodes:NxGxR). Sources: docs/systems.md.",
                    s.id, s.shape(n), s.nvlink, s.nic, s.ranks(n),
                )}
            </p>
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dgx-h100` and `hgx-h200` are one network: the one picked is the one named.
    #[test]
    fn the_preset_picked_is_named_among_equal_networks() {
        let mut c = ChooserParams::default();
        assert!(current(&c).is_none(), "the α–β model");
        for id in ["hgx-h200", "dgx-h100"] {
            let preset = Preset::find(id).unwrap();
            apply(&mut c, &preset, 2);
            assert_eq!(current(&c).map(|(s, n)| (s.id, n)), Some((id, 2)));
        }
        // A stale id names nothing it does not match.
        "p4d".clone_into(&mut c.system);
        assert_eq!(current(&c).map(|(s, _)| s.id), Some("dgx-h100"));
    }
}

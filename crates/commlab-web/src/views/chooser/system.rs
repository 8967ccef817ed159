//! The Chooser's System (`docs/systems.md`): a preset node type and a node
//! count set the comparison to N such nodes: the network (`nodes:NxGxR` with
//! its `NVLink` and NIC bandwidths, network mode's defaults), p = N × G, and
//! NCCL described by the System at the version picked (`ncclv=`). Nothing
//! is kept but the id picked (`sys=`, which of the presets with one network
//! to name) and the version: the control shows the preset the network
//! matches, or "custom"; where the user's own p leaves the System, it says so.
//! Past the page's network (129 to 1 024 nodes) the network is one node of
//! the System and the view draws its expected curve alone
//! ([`ChooserParams::far`]).

use super::params::{ChooserParams, NCCL_TEXT};
use crate::controls::system::SystemControl;
use commlab_api::system::{custom_value, with_custom_value, System, CUSTOM, STEADY_NODES};
use commlab_core::libraries::nccl::Version;
use commlab_core::libraries::nccl_env::Settings;
use commlab_core::systems::CUSTOM_KEYS;
use leptos::prelude::*;

/// The System the control picked: `nodes` of the node type `id` under the
/// release the view shows, or why the page cannot show it.
fn picked(c: &ChooserParams, id: &str, nodes: u32) -> Result<System, String> {
    System::parse(id, nodes, c.nccl_version, STEADY_NODES).and_then(System::for_page).map_err(|e| e.to_string())
}

/// The System (preset and nodes, [`SystemControl`]), NCCL's version, and
/// what they set, in words; where the user's own p leaves the System, the
/// page says so.
#[component]
pub fn SystemSelect(
    /// The view's state: the select writes its network, p and NCCL's system.
    params: RwSignal<ChooserParams>,
) -> impl IntoView {
    let shown = Signal::derive(move || params.with(ChooserParams::system));
    // The custom fields: shown once picked, or while the System is a custom one.
    let editing = RwSignal::new(false);
    let typed = RwSignal::new(String::new());
    let refused = RwSignal::new(None::<String>);
    let is_custom = Signal::derive(move || editing.get() || shown.with(|s| s.is_some_and(|s| s.preset.id == "custom")));
    let pick = Callback::new(move |(id, nodes): (String, u32)| {
        refused.set(None);
        let id = if id == CUSTOM {
            // Start from the System shown, or the first preset.
            editing.set(true);
            shown.with_untracked(|s| s.map_or(commlab_core::systems::PRESETS[0], |s| s.preset).custom_text())
        } else {
            editing.set(id.starts_with(CUSTOM));
            id
        };
        typed.set(id.clone());
        match params.with_untracked(|c| picked(c, &id, nodes)) {
            Ok(system) => params.update(|c| c.set_system(&system)),
            Err(e) => refused.set(Some(e)),
        }
    });
    // NCCL's settings, read under a release (a new one, or the one shown):
    // refused ones leave the view as it was, and say why.
    let env_refused = RwSignal::new(None::<String>);
    let apply = move |version: Version, text: &str, refused: &str| match Settings::read(version, text) {
        Ok(settings) => {
            env_refused.set(None);
            params.update(|c| {
                c.nccl_version = version;
                c.settings = settings;
            });
        }
        Err(e) => env_refused.set(Some(format!("{e}{refused}"))),
    };
    let on_version = move |ev: leptos::ev::Event| {
        if let Ok(v) = Version::parse(&event_target_value(&ev)) {
            let text = params.with_untracked(|c| c.settings.text());
            apply(v, &text, " (under that release): the release is kept");
        }
    };
    let on_env = move |ev: leptos::ev::Event| {
        let version = params.with_untracked(|c| c.nccl_version);
        apply(version, &event_target_value(&ev), ": nothing changed");
    };
    let p = move || params.with(|c| c.compare.p);
    view! {
        <SystemControl id="chooser-system" label="System" current=shown pick=pick steady=true
            extra=(CUSTOM, "custom system (fields below)", is_custom) refused=refused />
        {move || is_custom.get().then(|| view! { <CustomSystemFields current=shown typed=typed refused=refused pick=pick /> })}
        {move || (params.with(|c| c.on_network) && shown.get().is_none()).then(|| view! {
            <p class="hint" data-testid="chooser-system-none">{commlab_api::system::NO_SYSTEM_NOTE}</p>
        })}
        {move || shown.get().map(|_| view! {
            <div class="field">
                <label for="nccl-version">"NCCL version (its model picks)"</label>
                <select id="nccl-version" data-testid="nccl-version" on:change=on_version>
                    {Version::ALL.iter().rev().map(|&v| view! {
                        <option value=v.id() selected=move || params.with(|c| c.nccl_version == v)>{v.label()}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="nccl-env">"NCCL settings (NAME=VALUE, as in a job script)"</label>
                <textarea id="nccl-env" data-testid="nccl-env" rows="3" spellcheck="false" maxlength=NCCL_TEXT
                    placeholder="NCCL_ALGO=Ring NCCL_PROTO=LL128"
                    prop:value=move || params.with(|c| c.settings.text().replace(' ', "\n"))
                    on:change=on_env></textarea>
            </div>
            {move || env_refused.get().map(|e| view! { <p class="field-error" role="alert" data-testid="nccl-env-refused">{e}</p> })}
            {move || params.with(|c| !c.settings.not_modelled().is_empty()).then(|| view! {
                <p class="hint" data-testid="nccl-env-not-modelled">{move || params.with(|c| c.settings.not_modelled().join(", "))}": read, but nothing in commlab's model depends on it."</p>
            })}
        })}
        {move || params.with(ChooserParams::far).map(|system| view! {
            <p class="hint" data-testid="chooser-system-far">{system.far_note()}</p>
        })}
        {move || shown.get().filter(|_| params.with(|c| c.far().is_none())).map(|system| { let System { preset: s, nodes: n, .. } = system; view! {
            <p class="hint" data-testid="chooser-system-note">{system.page_note()}</p>
            {(!system.covers(p())).then(|| view! {
                <p class="field-error" role="alert" data-testid="chooser-system-p">
                    {format!("{}: no expected curve, and NCCL's description assumes all of them. ", system.not_all(p()))}
                    <button type="button" data-testid="chooser-system-use-p" on:click=move |_| params.update(|c| c.compare.p = s.ranks(n))>
                        {format!("Use p = {}", s.ranks(n))}
                    </button>
                </p>
            })}
        }})}
    }
}

/// A custom system's fields, one per key of [`CUSTOM_KEYS`] with its range;
/// a set that describes a system is picked, else the reason is shown.
#[component]
fn CustomSystemFields(
    /// The System shown.
    current: Signal<Option<System>>,
    /// The fields as typed (they may not describe a system yet).
    typed: RwSignal<String>,
    /// Why they do not.
    refused: RwSignal<Option<String>>,
    /// Picks a custom system's text.
    pick: Callback<(String, u32)>,
) -> impl IntoView {
    let shown_text = move || {
        current.with(|c| match c {
            Some(s) if s.preset.id == "custom" && refused.with(Option::is_none) => s.id(),
            _ => typed.get(),
        })
    };
    let on_key = move |key: &'static str| {
        move |ev: leptos::ev::Event| {
            let text = with_custom_value(&typed.get_untracked(), key, &event_target_value(&ev));
            typed.set(text.clone());
            match commlab_api::system::node_type(&text) {
                Ok(_) => pick.run((text, current.with_untracked(|c| c.as_ref().map_or(2, |s| s.nodes)))),
                Err(e) => refused.set(Some(e.expected)),
            }
        }
    };
    view! {
        <fieldset class="custom-system" data-testid="chooser-system-custom">
            <legend>"Custom system: a node"</legend>
            {CUSTOM_KEYS.iter().map(|&(key, range)| {
                let field_id = format!("chooser-system-{key}");
                view! {
                    <div class="field">
                        <label for=field_id.clone()>{key}</label>
                        <input id=field_id.clone() data-testid=field_id type="text" title=range placeholder=range
                            prop:value=move || custom_value(&shown_text(), key).to_owned()
                            on:change=on_key(key) />
                    </div>
                }
            }).collect_view()}
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn system(id: &str, nodes: u32) -> System {
        System::parse(id, nodes, Version::Current, STEADY_NODES).unwrap()
    }

    /// `dgx-h100` and `hgx-h200` are one network: the one picked is the one named.
    #[test]
    fn the_preset_picked_is_named_among_equal_networks() {
        let mut c = ChooserParams::default();
        assert!(c.system().is_none(), "the α–β model");
        for id in ["hgx-h200", "dgx-h100"] {
            c.set_system(&system(id, 2));
            assert_eq!(c.system().map(|s| (s.preset.id, s.nodes)), Some((id, 2)));
        }
        // A stale id names nothing it does not match.
        c.system = commlab_api::system::preset("p4d");
        assert_eq!(c.system().map(|s| s.preset.id), Some("dgx-h100"));
    }

    /// A custom system is its own System while the network is its nodes;
    /// NCCL's description and `predict`'s id follow it, and the release picked.
    #[test]
    fn a_custom_system_is_the_system_while_the_network_is_its_nodes() {
        let mut c = ChooserParams::default();
        let id = "custom:gpus=4,nvlinks=6,nvswitch=0,nics=2,nic-gbps=200";
        c.set_system(&system(id, 3));
        let s = c.system().unwrap();
        assert_eq!((s.preset.id, s.preset.gpus, s.preset.nics, s.nodes), ("custom", 4, 2, 3));
        assert_eq!(commlab_api::system::node_type(&s.id()).unwrap(), s.preset);
        assert!(s.id().starts_with("custom:gpus=4,arch=hopper,nvlinks=6,nvswitch=0,"), "{}", s.id());
        assert_eq!(c.compare.p, 12);
        assert!(c.nccl_system().starts_with("nodes=3,gpus=4,arch=hopper,channels=2,"), "{}", c.nccl_system());
        c.nccl_version = Version::V2_22;
        assert!(c.nccl_system().ends_with(",version=2.22"), "{}", c.nccl_system());
        // Its network edited by hand: no System (no preset has 4 GPUs on 2 NICs of 25 GB/s).
        c.network.bandwidth2 = Some(30.0);
        assert!(c.system().is_none());
    }

    /// Any System (every preset × nodes × release, and random custom
    /// descriptions) goes into a Chooser link and comes back unchanged.
    #[test]
    fn any_system_goes_through_a_link_unchanged() {
        use crate::codec::{self, Link};
        for s in commlab_api::system::examples(11, 400) {
            let mut c = ChooserParams::default();
            // More ranks than the page compares: refused, naming the nodes that fit.
            if let Err(e) = picked(&c, &s.id(), s.nodes) {
                assert!(s.ranks() > 1024 && s.nodes <= 128 && e.contains("the page compares at most 1024"), "{e}");
                continue;
            }
            c.set_system(&s);
            let pairs = codec::write(&c);
            let (again, notices) = codec::read::<ChooserParams>(&pairs, &Link::default());
            assert!(notices.is_empty(), "{}: {notices:?}", s.id());
            assert_eq!(again.system(), Some(s), "{pairs:?}");
        }
    }

    /// Past the page's network one node of the System stands for it: the
    /// System is drawn at its nodes, the link carries them and reopens them,
    /// and another p or network leaves them.
    #[test]
    fn past_the_page_s_network_one_node_stands_for_the_system() {
        use crate::codec::{self, Link};
        let mut c = ChooserParams::default();
        c.set_system(&system("dgx-h100", 512));
        assert_eq!(c.system().map(|s| (s.preset.id, s.nodes)), Some(("dgx-h100", 512)));
        assert_eq!(c.far().map(|s| s.nodes), Some(512));
        assert_eq!((c.compare.p, c.network.topology.to_string()), (8, "nodes:1x8".to_owned()));
        assert!(c.library_request().is_none(), "no library picks past the network");
        assert!(c.nccl_system().starts_with("nodes=512,"), "{}", c.nccl_system());
        let pairs = codec::write(&c);
        assert!(pairs.iter().any(|(k, v)| k == "far" && v == "512"), "{pairs:?}");
        let (again, notices) = codec::read::<ChooserParams>(&pairs, &Link::default());
        assert!(notices.is_empty(), "{notices:?}");
        // NCCL's description follows from the System: not in the link.
        assert_eq!(again, ChooserParams { nccl: String::new(), ..c.clone() });
        let mut d = c.clone();
        d.compare.p = 16;
        assert_eq!(d.system().map(|s| s.nodes), Some(1));
        assert!(!codec::write(&d).iter().any(|(k, _)| k == "far"));
        c.set_system(&system("dgx-h100", 4));
        assert_eq!((c.far, c.far().is_none(), c.compare.p), (0, true, 32));
        // Without one node of a System as the network it is named and dropped.
        let (e, notices) = codec::read::<ChooserParams>(&[("far".to_owned(), "512".to_owned())], &Link::default());
        assert_eq!(e.far, 0);
        assert!(notices.len() == 1 && notices[0].message.starts_with("512 nodes of a System need"), "{notices:?}");
        for bad in ["128", "1025", "many"] {
            let (e, notices) = codec::read::<ChooserParams>(&[("far".to_owned(), bad.to_owned())], &Link::default());
            assert_eq!(e.far, 0);
            assert!(notices.len() == 1 && notices[0].message.contains("129 to 1024"), "{notices:?}");
        }
    }
}

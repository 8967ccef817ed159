//! The system a prediction is about (`docs/systems.md`): a node type (a
//! preset, or a custom description), how many of them, and the NCCL release
//! whose model picks the algorithm. This is the one reader of a System's
//! text: the CLI's `--system/--nodes/--nccl-version`, the page's `sys=` and
//! the workers' requests all parse here, once, and everything after takes
//! the typed value. Past this module no System is a string.

use crate::network::NetRequest;
use crate::ApiError;
use commlab_core::libraries::nccl::{self, Version};
use commlab_core::libraries::nccl_env::Settings;
use commlab_core::limits::IntRange;
use commlab_core::systems::{Preset, PRESETS};

// The System wing's node and rank ranges, all here: the api checks them,
// the CLI's help ([`ranges`]) and the page's notices write them.

/// Nodes of one prediction by the flow engine (and of the page).
pub const NODES: IntRange = IntRange { name: "nodes", min: 1, max: 128 };

/// Nodes of one prediction by the steady engine, which never builds the
/// whole network (`docs/systems.md`, "Two engines").
pub const STEADY_NODES: IntRange = IntRange { name: "nodes", min: 1, max: 1024 };

/// Nodes of a system fit (measured or predicted) and of an NCCL tuner file:
/// each simulates every size tens of times (a fit) or once per NCCL pair, so
/// their work is bounded to about a minute on 8 nodes (BENCHMARKS.md).
pub const FIT_NODES: IntRange = IntRange { name: "nodes", min: 1, max: 8 };

/// Ranks the page compares on a System's network ([`System::for_page`]):
/// the Chooser's p.
pub const PAGE_RANKS: IntRange = commlab_core::limits::chooser::P;

/// A range as the help texts write it: `1..=128`.
pub fn ranges(r: IntRange) -> String {
    format!("{}..={}", r.min, r.max)
}

/// The prefix of a custom node type's id.
pub const CUSTOM: &str = "custom:";

/// N nodes of a node type under one NCCL release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct System {
    /// The node type: a preset's values, or a custom description's (id
    /// `custom`).
    pub preset: Preset,
    /// Nodes.
    pub nodes: u32,
    /// NCCL's constants and formulas.
    pub version: Version,
    /// NCCL's settings (`NCCL_ALGO=Ring`, …), read as that release reads them.
    pub settings: Settings,
}

/// The node type called `id`: a preset's id (`commlab_core::systems::PRESETS`)
/// or `custom:KEY=VALUE,…` (`commlab_core::systems::CUSTOM_KEYS`).
///
/// # Errors
/// Field `system`: no such preset, or a custom description out of range.
pub fn node_type(id: &str) -> Result<Preset, ApiError> {
    Preset::find(id).map_err(|e| ApiError::problem("system", e))
}

/// The preset called `id` (no custom description: what a preset select
/// picks, without the custom reader).
pub fn preset(id: &str) -> Option<Preset> {
    PRESETS.iter().copied().find(|p| p.id == id)
}

/// The id of a node type: a preset's, or a custom one's whole description
/// ([`node_type`] reads it back to the same values).
pub fn type_id(preset: &Preset) -> String {
    if preset.id == "custom" {
        preset.custom_text()
    } else {
        preset.id.to_owned()
    }
}

impl System {
    /// `id` × `nodes` under NCCL `version`, checked: a known node type,
    /// nodes within `range` ([`NODES`] or [`STEADY_NODES`]), and where the
    /// range is the flow engine's, ranks within the network simulator's
    /// hosts.
    ///
    /// # Errors
    /// The field at fault (`system`, `nodes`, `hosts`) and what it accepts.
    pub fn parse(id: &str, nodes: u32, version: Version, range: IntRange) -> Result<System, ApiError> {
        System::of_type(node_type(id)?, nodes, version, range)
    }

    /// `nodes` of `preset` under `version`, checked as [`System::parse`] checks.
    ///
    /// # Errors
    /// As [`System::parse`].
    pub fn of_type(preset: Preset, nodes: u32, version: Version, range: IntRange) -> Result<System, ApiError> {
        let nodes = range.check(u64::from(nodes))? as u32;
        if u64::from(nodes) <= NODES.max {
            commlab_core::limits::net::HOSTS.check(u64::from(preset.ranks(nodes)))?;
        }
        Ok(System { preset, nodes, version, settings: Settings::default() })
    }

    /// Itself, with nodes within `range` and, where the range is the flow
    /// engine's, ranks within the network simulator's hosts.
    ///
    /// # Errors
    /// As [`System::parse`].
    pub fn check(self, range: IntRange) -> Result<System, ApiError> {
        let checked = System::of_type(self.preset, self.nodes, self.version, range)?;
        Ok(System { settings: self.settings, ..checked })
    }

    /// Itself where the Chooser's page shows it: up to [`NODES`] nodes its
    /// network with every GPU a rank, so at most the Chooser's p
    /// (`limits::chooser::P`) ranks; past them one node stands for it.
    ///
    /// # Errors
    /// Field `nodes`: more ranks than the page compares, with the nodes
    /// that fit and the ones past [`NODES`] that it draws.
    pub fn for_page(self) -> Result<System, ApiError> {
        let p = PAGE_RANKS;
        if u64::from(self.nodes) <= NODES.max && u64::from(self.ranks()) > p.max {
            let fit = p.max / u64::from(self.preset.gpus);
            return Err(ApiError::new(
                "nodes",
                self.nodes,
                format!(
                    "1 to {fit} nodes of {} GPUs (the page compares at most {} ranks), or {} to {}, where one node stands for the System",
                    self.preset.gpus,
                    p.max,
                    NODES.max + 1,
                    STEADY_NODES.max
                ),
            ));
        }
        Ok(self)
    }

    /// The NCCL release named `text` (`None`: the current one).
    ///
    /// # Errors
    /// Field `nccl-version`: an unknown release.
    pub fn version(text: Option<&str>) -> Result<Version, ApiError> {
        text.map_or(Ok(Version::Current), |v| Version::parse(v).map_err(|e| ApiError::problem("nccl-version", e)))
    }

    /// Its name in a sentence: a preset's id, or "custom system".
    pub fn short_name(&self) -> &'static str {
        if self.preset.id == "custom" {
            "custom system"
        } else {
            self.preset.id
        }
    }

    /// The node type's id ([`type_id`]).
    pub fn id(&self) -> String {
        type_id(&self.preset)
    }

    /// The same node type and release on `nodes` nodes (unchecked: the
    /// caller's range holds).
    #[must_use]
    pub fn with_nodes(self, nodes: u32) -> System {
        System { nodes, ..self }
    }

    /// Ranks: every GPU of every node.
    pub fn ranks(&self) -> u32 {
        self.preset.ranks(self.nodes)
    }

    /// Whether `p` ranks are all its GPUs, what a prediction, NCCL's
    /// description and a system fit assume.
    pub fn covers(&self, p: u32) -> bool {
        p == self.ranks()
    }

    /// The sentence said where `p` is not all its GPUs.
    pub fn not_all(&self, p: u32) -> String {
        format!("p = {p} is not the {} GPUs of {} × {}", self.ranks(), self.nodes, self.preset.id)
    }

    /// The System a network is: the node type `named` (a preset, or a
    /// custom description's values) when the network is its nodes, else the
    /// first preset whose nodes it is (`None`: a network of the user's own).
    pub fn of(net: &NetRequest, named: Option<&Preset>, version: Version) -> Option<System> {
        use commlab_core::net::Shape;
        let Shape::Nodes { n, g, r } = net.topology else { return None };
        let is =
            |p: &Preset| p.gpus == g && p.nics == r && net.bandwidth == Some(p.nvlink) && net.bandwidth2 == Some(p.nic);
        let preset = match named.copied().filter(is) {
            Some(p) => p,
            None => *PRESETS.iter().find(|p| is(p))?,
        };
        Some(System { preset, nodes: n, version, settings: Settings::default() })
    }

    /// NCCL's description of it, its settings applied (`NCCL_NVLS_ENABLE=0`:
    /// no NVLS).
    pub fn nccl(&self) -> nccl::System {
        self.preset.nccl_at(self.nodes, self.version).with_settings(self.settings)
    }

    /// The same System under NCCL's settings read from `text` (`NAME=VALUE`
    /// words or lines, `-x` and `export` as a job script has them).
    ///
    /// # Errors
    /// Field `env`: an unknown setting or a value the release refuses,
    /// named with what is accepted.
    pub fn with_env(self, text: &str) -> Result<System, ApiError> {
        let settings = Settings::read(self.version, text).map_err(|e| ApiError::problem("env", e.to_string()))?;
        Ok(System { settings, ..self })
    }

    /// NCCL's Simple step, bytes: `NCCL_BUFFSIZE` / 8 where it is set,
    /// else the node type's ([`Preset::simple_step`]).
    pub fn simple_step(&self) -> u64 {
        self.settings.buffsize.map_or(self.preset.simple_step(), |b| b / u64::from(commlab_core::systems::NCCL_STEPS))
    }

    /// NVLS's chunk, bytes: `NCCL_NVLS_CHUNKSIZE` where it is set, else the
    /// node type's ([`Preset::nvls_chunk`]).
    pub fn nvls_chunk(&self) -> u64 {
        self.settings.nvls_chunksize.unwrap_or(self.preset.nvls_chunk())
    }

    /// The channels a ring, a tree or a chain runs on: one per rail (NIC),
    /// at most one per rank and NCCL's `MAXCHANNELS`, unless `NCCL_MAX_NCHANNELS` lowers or
    /// `NCCL_MIN_NCHANNELS` raises it (`connect.cc`: the maximum first, then
    /// the minimum).
    pub fn channels(&self) -> u32 {
        // One a rail, at most NCCL's MAXCHANNELS (a 72-GPU domain has 72 rails).
        let most = commlab_core::libraries::nccl_env::max_channels(self.version);
        let mut c = self.preset.nics.min(self.ranks().max(1)).min(most);
        if let Some(max) = self.settings.max_channels {
            c = c.min(max);
        }
        if let Some(min) = self.settings.min_channels {
            c = c.max(min);
        }
        c.max(1)
    }

    /// NCCL's description as `--nccl` text.
    pub fn nccl_text(&self) -> String {
        self.preset.nccl_text_at(self.nodes, self.version)
    }

    /// What a prediction for it leaves out, in a sentence.
    pub fn not_modelled(&self) -> Option<&'static str> {
        self.preset.not_modelled(self.nodes)
    }

    /// Its CLI flags: `--system ID --nodes N` and `--nccl-version V` for
    /// an older release.
    pub fn flags(&self) -> Vec<String> {
        let mut out = vec!["--system".to_owned(), self.id(), "--nodes".to_owned(), self.nodes.to_string()];
        if self.version != Version::Current {
            out.extend(["--nccl-version".to_owned(), self.version.id().to_owned()]);
        }
        for (name, value) in self.settings.pairs() {
            out.extend(["--env".to_owned(), format!("{name}={value}")]);
        }
        out
    }
}

/// Systems to check a round trip with (a link, CLI flags): every preset ×
/// 1, 3, 128, 129 and 1 024 nodes × every NCCL release, then `customs`
/// custom descriptions drawn from `seed` (every key given or left out at
/// random, values within and at the ends of their ranges; the draws that
/// describe no system or more ranks than the simulator's hosts skipped).
pub fn examples(seed: u64, customs: usize) -> Vec<System> {
    use commlab_core::systems::CUSTOM_KEYS;
    let mut out = Vec::new();
    // NCCL's settings: every one read, lists in both forms.
    let settings = |version: Version, k: u64| {
        let texts = [
            "",
            "NCCL_ALGO=Ring NCCL_PROTO=^LL NCCL_MIN_NCHANNELS=16",
            "NCCL_ALGO=ring;allreduce:tree,nvlstree NCCL_PROTO=allgather:LL128 NCCL_MAX_NCHANNELS=4",
            "NCCL_NVLS_ENABLE=0 NCCL_BUFFSIZE=8388608 NCCL_NVLS_CHUNKSIZE=262144 NCCL_NCHANNELS_PER_NET_PEER=4",
        ];
        Settings::read(version, texts[(k % 4) as usize]).unwrap_or_default()
    };
    for preset in PRESETS {
        for nodes in [1, 3, 128, 129, 1024] {
            for version in Version::ALL {
                let system = System::of_type(preset, nodes, version, STEADY_NODES).ok();
                out.extend(system.map(|s| System { settings: settings(version, u64::from(nodes)), ..s }));
            }
        }
    }
    // splitmix64: a seeded draw with no dependency.
    let mut state = seed;
    let mut next = move |n: u64| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    };
    let mut found = 0;
    while found < customs {
        let mut keys = Vec::new();
        for (key, _) in CUSTOM_KEYS {
            if next(3) == 0 {
                continue;
            }
            let value = match key {
                "gpus" => [1, 2, 4, 8, 16, 36, 72][next(7) as usize].to_string(),
                "arch" => ["ampere", "hopper", "blackwell"][next(3) as usize].to_owned(),
                "nvlinks" => next(19).to_string(),
                "pcie" => ["gen3", "gen4", "gen5", "gen6"][next(4) as usize].to_owned(),
                "link-gbps" => format!("{}", (1 + next(100_000)) as f64 / 1000.0),
                "nvswitch" | "nvls" => next(2).to_string(),
                "nics" => [1, 2, 4, 8][next(4) as usize].to_string(),
                "nic-gbps" => format!("{}", (1 + next(3_200_000)) as f64 / 1000.0),
                _ => ["none", "aws-p4d", "aws-p5", "aws-p5en", "aws-p6"][next(5) as usize].to_owned(),
            };
            keys.push(format!("{key}={value}"));
        }
        let Ok(preset) = node_type(&format!("{CUSTOM}{}", keys.join(","))) else { continue };
        let nodes = [1, 2, 5, 64, 128, 200, 1024][next(7) as usize] as u32;
        let version = Version::ALL[next(Version::ALL.len() as u64) as usize];
        if let Ok(system) = System::of_type(preset, nodes, version, STEADY_NODES) {
            out.push(System { settings: settings(version, next(4)), ..system });
            found += 1;
        }
    }
    out
}

/// A System in a request's JSON: its id, nodes and NCCL release, each
/// checked when read (nodes within [`STEADY_NODES`]; an engine's own limit
/// is checked where it runs).
#[derive(serde::Serialize, serde::Deserialize)]
struct Keys {
    system: String,
    nodes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nccl_version: Option<String>,
    /// NCCL's settings, `NAME=VALUE` separated by spaces.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    env: String,
}

impl serde::Serialize for System {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let version = (self.version != Version::Current).then(|| self.version.id().to_owned());
        Keys { system: self.id(), nodes: self.nodes, nccl_version: version, env: self.settings.text() }.serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for System {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<System, D::Error> {
        let k = Keys::deserialize(d)?;
        let version = System::version(k.nccl_version.as_deref()).map_err(serde::de::Error::custom)?;
        let preset = node_type(&k.system).map_err(serde::de::Error::custom)?;
        let nodes = STEADY_NODES.check(u64::from(k.nodes)).map_err(serde::de::Error::custom)? as u32;
        let settings = Settings::read(version, &k.env).map_err(serde::de::Error::custom)?;
        Ok(System { preset, nodes, version, settings })
    }
}

/// What the page says of a network of the user's own, where no System is.
pub const NO_SYSTEM_NOTE: &str = "A network of your own: no expected curve. What NCCL would reach needs a System (nodes of a preset, with its NVLink and NIC bandwidths); the curves are our algorithms on this network, one channel each, and NCCL's picks follow the description given to it under \"What the libraries run\".";

impl System {
    /// What the page's System sets, in words.
    pub fn page_note(&self) -> String {
        let (s, n) = (&self.preset, self.nodes);
        format!(
            "{n} × {}: {} (NVLink {} GB/s a GPU, NICs {} GB/s each), p = {}; every algorithm runs on it with o = g = 0, every message eager, a NIC sending one message at a time, and NCCL's pick is shown for this system. Sources: docs/systems.md.",
            s.id,
            s.shape(n),
            s.nvlink,
            s.nic,
            s.ranks(n),
        )
    }

    /// What the page draws of a System past its network ([`NODES`]).
    pub fn far_note(&self) -> String {
        let (s, n) = (&self.preset, self.nodes);
        format!(
            "{n} × {}: {}, p = {}. Past {} nodes the page draws the System's expected curve alone, from the steady state (docs/systems.md, \"Two engines\"): the algorithms' curves, the libraries' picks, the winner map and the fit simulate every flow on the network, which the page does up to {} nodes.",
            s.id,
            s.shape(n),
            s.ranks(n),
            NODES.max,
            NODES.max,
        )
    }
}

/// The value of `key` in a custom description (`custom:k=v,…`; empty
/// where it is not set).
pub fn custom_value<'a>(text: &'a str, key: &str) -> &'a str {
    let keys = text.strip_prefix(CUSTOM).unwrap_or("");
    keys.split(',').filter_map(|kv| kv.split_once('=')).find(|(k, _)| k.trim() == key).map_or("", |(_, v)| v.trim())
}

/// The custom description `text` with `key` set to `value` (left out when
/// empty), keys in `CUSTOM_KEYS` order.
pub fn with_custom_value(text: &str, key: &str, value: &str) -> String {
    let parts: Vec<String> = commlab_core::systems::CUSTOM_KEYS
        .iter()
        .map(|(k, _)| (*k, if *k == key { value.trim() } else { custom_value(text, k) }))
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{CUSTOM}{}", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_sets_its_key_and_keeps_the_others_in_order() {
        let t = with_custom_value("custom:nics=4,gpus=8", "arch", "ampere");
        assert_eq!(t, "custom:gpus=8,arch=ampere,nics=4");
        assert_eq!(with_custom_value(&t, "arch", " "), "custom:gpus=8,nics=4");
        assert_eq!(custom_value(&t, "nics"), "4");
        assert_eq!(custom_value(&t, "plugin"), "");
    }

    /// A custom node type's id reads back to the same values, per-link
    /// bandwidth and plugin included; a preset's id is its own.
    #[test]
    fn ids_read_back() {
        for text in [
            "custom:gpus=8,arch=hopper,nvlinks=18,nics=8,nic-gbps=400",
            "custom:gpus=4,nics=2,nic-gbps=200,link-gbps=23.3,nvlinks=7",
            "custom:gpus=72,arch=blackwell,plugin=aws-p6",
            "custom:gpus=2,arch=ampere,nvswitch=0,nvlinks=3,link-gbps=0.1",
        ] {
            let t = node_type(text).unwrap();
            assert_eq!(node_type(&type_id(&t)).unwrap(), t, "{text} → {}", type_id(&t));
        }
        for p in PRESETS {
            assert_eq!(type_id(&p), p.id);
        }
        assert_eq!(node_type("nope").unwrap_err().field, "system");
    }

    /// Every example reads back from its id, nodes, release and settings,
    /// and through its JSON; some have settings.
    #[test]
    fn examples_read_back() {
        let all = examples(7, 300);
        assert!(all.len() > 300 && all.iter().filter(|s| s.preset.id == "custom").count() == 300);
        assert!(all.iter().filter(|s| !s.settings.is_empty()).count() > 200);
        for s in all {
            let back = System::parse(&s.id(), s.nodes, s.version, STEADY_NODES).unwrap().with_env(&s.settings.text());
            assert_eq!(back.unwrap(), s, "{} {}", s.id(), s.settings.text());
            let json = serde_json::to_value(s).unwrap();
            assert_eq!(serde_json::from_value::<System>(json).unwrap(), s);
        }
    }

    /// A System's JSON is its id, nodes and release, and reads back.
    #[test]
    fn serde_by_id() {
        let s = System::parse("custom:gpus=4,nics=2", 3, Version::V2_22, NODES).unwrap();
        let v = serde_json::to_value(s).unwrap();
        assert_eq!(v["nodes"], 3);
        assert_eq!(v["nccl_version"], "2.22");
        assert!(v["system"].as_str().unwrap().starts_with("custom:gpus=4,"));
        assert_eq!(serde_json::from_value::<System>(v).unwrap(), s);
        let bad = serde_json::json!({ "system": "dgx-h100", "nodes": 2000 });
        assert!(serde_json::from_value::<System>(bad).unwrap_err().to_string().contains("nodes"));
    }
}

//! The Schedule view's state and URL fields (`docs/links.md`, "Lazy views"):
//! the generated collective's engine request, the LogGOPS parameters, and
//! what only the view shows (window, first rank, time unit).

use crate::codec::{self, Field, Kind, Link, Notice, ViewState};
use commlab_api::network::{Heat, NetRequest};
use commlab_api::schedule::{GenerateRequest, LogGops, BYTES, COLLECTIVES, MESH, NETWORK_PRESET, P, PARAM, PRESETS};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::limits::{self, IntRange};

/// Everything a Schedule link reproduces.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleParams {
    /// The schedule is the opened file (kept in this browser), not a generated one.
    pub file: bool,
    /// The generated collective.
    pub generate: GenerateRequest,
    /// Preset id, or `custom` once a parameter was edited.
    pub preset: String,
    /// LogGOPS parameters.
    pub loggops: LogGops,
    /// LogGOPSim's libstdc++ ready-list order.
    pub libstdcxx: bool,
    /// The zoomed time window (ns), when not the whole run.
    pub window: Option<(f64, f64)>,
    /// First rank shown.
    pub first_rank: u32,
    /// Ticks per unit `u` when the link carries the Chooser's unit of α
    /// (times are then shown in `u`, the LogGOPS parameters in ticks); ns otherwise.
    pub unit: Option<f64>,
    /// Run on a network (`net=…`) instead of LogGOPS's `L` and `G`.
    pub on_network: bool,
    /// The network (kept when switched off, so switching back restores it).
    pub network: NetRequest,
    /// What the picture's colours stand for.
    pub heat: Heat,
    /// The scrubber's instant (ns), when one is shown.
    pub at: Option<f64>,
}

impl ScheduleParams {
    /// The network the run uses, if any.
    pub fn network(&self) -> Option<NetRequest> {
        crate::net_fields::request(self)
    }

    /// How times are shown.
    pub fn time_unit(&self) -> commlab_plot::timeline::TimeUnit {
        self.unit.map_or(commlab_plot::timeline::TimeUnit::Ns, commlab_plot::timeline::TimeUnit::Ticks)
    }

    /// Ranks on hosts when the schedule is NVLS on nodes (its switch ranks
    /// follow them); `u32::MAX` otherwise.
    pub fn hosts(&self) -> u32 {
        match self.network.topology {
            commlab_core::net::Shape::Nodes { n, g, .. }
                if self.on_network
                    && self
                        .generate
                        .collective
                        .split_once('/')
                        .is_some_and(|(_, a)| a == commlab_api::schedule::NVLS) =>
            {
                n * g
            }
            _ => u32::MAX,
        }
    }
}

crate::net_fields::impl_on_network!(ScheduleParams, [], NetRequest::default(), switched);

/// The preset a link without `preset` has: LogGOPSim's, or on a network
/// network mode's defaults (the Chooser's and every other view's).
fn default_preset(on_network: bool) -> &'static str {
    if on_network {
        NETWORK_PRESET
    } else {
        PRESETS[0].id
    }
}

impl ScheduleParams {
    /// Takes preset `id`'s parameters.
    pub fn use_preset(&mut self, id: &str) {
        if let Some(x) = PRESETS.iter().find(|x| x.id == id) {
            x.id.clone_into(&mut self.preset);
            self.loggops = x.params;
        }
    }

    /// The network switched on or off by hand: a run on the default preset
    /// of one side moves to the other side's.
    fn switched(&mut self, on: bool) {
        if self.preset == default_preset(!on) {
            self.use_preset(default_preset(on));
        }
    }
}

impl Default for ScheduleParams {
    fn default() -> ScheduleParams {
        ScheduleParams {
            file: false,
            generate: GenerateRequest::default(),
            preset: PRESETS[0].id.to_owned(),
            loggops: PRESETS[0].params,
            libstdcxx: false,
            window: None,
            first_rank: 0,
            unit: None,
            on_network: false,
            network: NetRequest::default(),
            heat: Heat::Bytes,
            at: None,
        }
    }
}

/// A time of the window (ns or the link's unit): a number ≥ 0.
fn time(value: &str) -> Option<f64> {
    value.trim().parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0)
}

/// A chooser algorithm's id, `collective/algorithm` (`allreduce/ring`).
pub fn chooser_id(value: &str) -> bool {
    value.split_once('/').is_some_and(|(c, a)| {
        c.parse::<commlab_core::choose::Collective>().is_ok_and(|c| {
            (a == commlab_api::schedule::NVLS && commlab_api::schedule::NVLS_COLLECTIVES.contains(&c))
                || commlab_core::choose::of(c).any(|x| x.id == a)
        })
    })
}

/// `n` comma-separated extents in `range` (`grid=4,4,4`, `cores=3,4`).
fn extents(value: &str, range: IntRange, n: usize) -> Result<Vec<u32>, String> {
    let expected = || format!("{n} integers from {} separated by commas", limits::span(range.min, range.max));
    let v: Vec<u32> = value
        .split(',')
        .map(|x| x.trim().parse::<u64>().ok().filter(|v| range.contains(*v)).map(|v| v as u32))
        .collect::<Option<_>>()
        .ok_or_else(expected)?;
    if v.len() == n {
        Ok(v)
    } else {
        Err(expected())
    }
}

macro_rules! gen_int {
    ($name:literal, $range:expr, $field:ident, $t:ty) => {
        Field {
            name: $name,
            kind: Kind::Int(
                IntRange { name: $name, ..$range },
                |p| p.generate.$field.into(),
                |p, v| p.generate.$field = v as $t,
            ),
        }
    };
}

macro_rules! gen_flag {
    ($name:literal, $get:expr, $set:expr) => {
        Field { name: $name, kind: Kind::Flag($get, $set) }
    };
}

/// The LogGOPS parameter `name` of `l`.
fn param<'a>(l: &'a mut LogGops, name: &str) -> &'a mut u64 {
    match name {
        "L" => &mut l.l,
        "o" => &mut l.o,
        "g" => &mut l.g,
        "G" => &mut l.big_g,
        "O" => &mut l.big_o,
        _ => &mut l.s,
    }
}

macro_rules! loggops {
    ($name:literal) => {
        Field {
            name: $name,
            kind: Kind::Custom {
                // A custom set is written whole, so the link says every value.
                write: |p| {
                    let mut l = p.loggops;
                    (p.preset == "custom").then(|| param(&mut l, $name).to_string())
                },
                read: |p, text| {
                    let v = text
                        .trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|v| PARAM.contains(*v))
                        .ok_or_else(|| IntRange { name: $name, ..PARAM }.to_string())?;
                    *param(&mut p.loggops, $name) = v;
                    Ok(())
                },
                used: "the preset's",
            },
        }
    };
}

/// Names of the LogGOPS parameters: setting one makes the preset `custom`.
const LOGGOPS: [&str; 6] = ["L", "o", "g", "G", "O", "S"];

impl ViewState for ScheduleParams {
    const FIELDS: &'static [Field<Self>] = crate::net_fields::with_network_fields![
        Field {
            name: "src",
            kind: Kind::Choice(
                || vec!["gen", "file"],
                |p| if p.file { "file" } else { "gen" },
                |p, id| p.file = id == "file",
            ),
        },
        Field {
            name: "coll",
            kind: Kind::Custom {
                write: |p| {
                    (p.generate.collective != GenerateRequest::default().collective)
                        .then(|| p.generate.collective.clone())
                },
                // A chooser algorithm is checked against the registry in `finish`
                // (the registry stays out of the bundles that only write links).
                read: |p, text| {
                    let chooser = text
                        .split_once('/')
                        .is_some_and(|(c, _)| c.parse::<commlab_core::choose::Collective>().is_ok());
                    if COLLECTIVES.contains(&text) || chooser {
                        text.clone_into(&mut p.generate.collective);
                        Ok(())
                    } else {
                        Err(format!("one of: {}, or collective/algorithm of the chooser", COLLECTIVES.join(", ")))
                    }
                },
                used: "reduce",
            },
        },
        gen_int!("p", P, p, u64),
        gen_int!("bytes", BYTES, bytes, u64),
        gen_int!("pieces", limits::PIECES, pieces, u64),
        gen_int!("ch", limits::net::CHANNELS, channels, u32),
        gen_int!("mesh", MESH, mesh, u32),
        Field {
            name: "enc",
            kind: Kind::Choice(
                || Encoding::ALL.iter().map(|e| e.id()).collect(),
                |p| p.generate.encoding.as_str(),
                |p, id| id.clone_into(&mut p.generate.encoding),
            ),
        },
        Field {
            name: "alg",
            kind: Kind::Choice(
                || Algorithm::ALL.iter().map(|a| a.id()).collect(),
                |p| p.generate.algorithm.as_str(),
                |p, id| id.clone_into(&mut p.generate.algorithm),
            ),
        },
        gen_int!("tile", limits::mesh_view::TILE, tile, u32),
        gen_int!("k", limits::mesh_view::COMBINING_K, combining_k, u32),
        Field {
            name: "grid",
            kind: Kind::Custom {
                write: |p| {
                    let g = p.generate.grid;
                    (g != GenerateRequest::default().grid).then(|| format!("{},{},{}", g.0, g.1, g.2))
                },
                read: |p, text| {
                    let v = extents(text, limits::GRID_EXTENT, 3)?;
                    p.generate.grid = (v[0], v[1], v[2]);
                    Ok(())
                },
                used: "4,4,4",
            },
        },
        Field {
            name: "cores",
            kind: Kind::Custom {
                write: |p| {
                    let c = p.generate.cores;
                    (c != GenerateRequest::default().cores).then(|| format!("{},{}", c.0, c.1))
                },
                read: |p, text| {
                    let v = extents(text, limits::CORE_EXTENT, 2)?;
                    p.generate.cores = (v[0], v[1]);
                    Ok(())
                },
                used: "3,4",
            },
        },
        gen_int!("dir", limits::swizzle_view::DIRECTION, direction, u8),
        gen_flag!("det", |p| p.generate.deterministic, |p, v| p.generate.deterministic = v),
        gen_flag!("shift", |p| p.generate.shift, |p, v| p.generate.shift = v),
        gen_flag!("write", |p| !p.generate.read, |p, v| p.generate.read = !v),
        Field {
            name: "preset",
            kind: Kind::Custom {
                // On a network the default is network mode's (`finish`).
                write: |p| (p.preset != default_preset(p.on_network)).then(|| p.preset.clone()),
                read: |p, text| match PRESETS.iter().find(|x| x.id == text) {
                    Some(x) => {
                        p.loggops = x.params;
                        x.id.clone_into(&mut p.preset);
                        Ok(())
                    }
                    None if text == "custom" => {
                        "custom".clone_into(&mut p.preset);
                        Ok(())
                    }
                    None => Err(format!("one of: {}, custom", PRESETS.map(|x| x.id).join(", "))),
                },
                used: PRESETS[0].id,
            },
        },
        loggops!("L"),
        loggops!("o"),
        loggops!("g"),
        loggops!("G"),
        loggops!("O"),
        loggops!("S"),
        Field {
            name: "order",
            kind: Kind::Choice(
                || vec!["stable", "libstdcxx"],
                |p| if p.libstdcxx { "libstdcxx" } else { "stable" },
                |p, id| p.libstdcxx = id == "libstdcxx",
            ),
        },
        Field {
            name: "t0",
            kind: Kind::Custom {
                write: |p| p.window.map(|(a, _)| format!("{}", a.round())),
                read: |p, text| {
                    // Windows are whole ticks, as the view writes them.
                    let t = time(text).ok_or("a time ≥ 0")?.round();
                    p.window = Some((t, p.window.map_or(f64::NAN, |w| w.1)));
                    Ok(())
                },
                used: "the whole run",
            },
        },
        Field {
            name: "t1",
            kind: Kind::Custom {
                write: |p| p.window.map(|(_, b)| format!("{}", b.round())),
                read: |p, text| {
                    let t = time(text).ok_or("a time ≥ 0")?.round();
                    p.window = Some((p.window.map_or(f64::NAN, |w| w.0), t));
                    Ok(())
                },
                used: "the whole run",
            },
        },
        Field {
            name: "r0",
            kind: Kind::Int(limits::schedule::FIRST_RANK, |p| p.first_rank.into(), |p, v| p.first_rank = v as u32),
        },
        Field {
            name: "unit",
            kind: Kind::Custom {
                write: |p| p.unit.map(|u| format!("{u}")),
                read: |p, text| {
                    let u = text.trim().parse::<f64>().ok().filter(|u| limits::schedule::UNIT.contains(*u));
                    p.unit = Some(u.ok_or("a number of ticks per unit from 0.001 to 10^12")?);
                    Ok(())
                },
                used: "ns",
            },
        },
        Field {
            name: "heat",
            kind: Kind::Choice(
                || vec!["bytes", "busy"],
                |p| if p.heat == Heat::Busy { "busy" } else { "bytes" },
                |p, id| p.heat = if id == "busy" { Heat::Busy } else { Heat::Bytes },
            ),
        },
        Field {
            name: "at",
            kind: Kind::Custom {
                write: |p| p.at.map(|t| format!("{}", t.round())),
                read: |p, text| {
                    p.at = Some(time(text).ok_or("a time ≥ 0")?.round());
                    Ok(())
                },
                used: "no instant",
            },
        },
    ];

    fn finish(&mut self, read: &[&'static str], link: &Link, notices: &mut Vec<Notice>) {
        crate::net_fields::finish(self, read, link);
        if read.iter().any(|k| LOGGOPS.contains(k)) {
            "custom".clone_into(&mut self.preset);
        } else if self.on_network && !read.contains(&"preset") && !link.before_network_defaults() {
            self.use_preset(NETWORK_PRESET);
        }
        if self.generate.collective.contains('/') && !chooser_id(&self.generate.collective) {
            let expected = format!("one of: {}, or collective/algorithm of the chooser", COLLECTIVES.join(", "));
            let given = std::mem::take(&mut self.generate.collective);
            notices.push(Notice::refused("coll", &given, &expected, "reduce"));
            self.generate.collective = GenerateRequest::default().collective;
        }
        if let Some((a, b)) = self.window {
            if a.partial_cmp(&b) != Some(std::cmp::Ordering::Less) {
                let shown = |t: f64| if t.is_nan() { "none".to_owned() } else { t.to_string() };
                let given = format!("{}, {}", shown(a), shown(b));
                notices.push(Notice::refused("t0, t1", &given, "a window with t0 < t1", "the whole run"));
                self.window = None;
            }
        }
    }
}

/// The Schedule view's pairs that show `generate` (the links other views
/// hand over: "Open in timeline", "Export GOAL").
pub fn pairs_of(generate: GenerateRequest) -> Vec<(String, String)> {
    codec::write(&ScheduleParams::of(generate))
}

impl ScheduleParams {
    /// `generate` under LogGOPSim's defaults (what a view hands over when it
    /// computed with nothing else).
    pub fn of(generate: GenerateRequest) -> ScheduleParams {
        ScheduleParams { generate, ..ScheduleParams::default() }
    }

    /// `generate` on `network` with network mode's defaults.
    pub fn on(generate: GenerateRequest, network: NetRequest) -> ScheduleParams {
        let mut s = ScheduleParams { generate, on_network: true, network, ..ScheduleParams::default() };
        s.use_preset(NETWORK_PRESET);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(q: &str) -> (ScheduleParams, Vec<Notice>) {
        codec::read(&codec::pairs(q), &Link::default())
    }

    #[test]
    fn defaults_write_nothing_and_round_trip() {
        assert!(codec::write(&ScheduleParams::default()).is_empty());
        let (p, notices) = read(
            "coll=barrier&mesh=8&alg=mcs&enc=hilbert&L=100&o=0&order=libstdcxx&t0=10&t1=5000&r0=3&grid=2,3,4&write=1",
        );
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(p.preset, "custom");
        assert_eq!(p.loggops.l, 100);
        assert_eq!(p.window, Some((10.0, 5000.0)));
        let (again, _) = codec::read::<ScheduleParams>(&codec::write(&p), &Link::default());
        assert_eq!(again, p);
    }

    #[test]
    fn bad_values_are_named_and_ignored() {
        let (p, notices) = read("p=0&coll=ring&grid=1,2&preset=fast&t0=5&t1=1&L=-3&zzz=1&dir=2&coll=allreduce/nope");
        assert_eq!(p, ScheduleParams::default());
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, ["p", "coll", "grid", "preset", "L", "dir", "coll", "t0, t1", "zzz"], "{notices:?}");
        assert_eq!(notices[0].message, "\"0\" is not an integer from 1 to 1 048 576; using 8");
        assert_eq!(notices[7].message, "\"5, 1\" is not a window with t0 < t1; using the whole run");
        assert_eq!(notices[8].message, "ignored unknown parameter \"zzz\"");
    }

    #[test]
    fn a_network_link_round_trips_and_its_fields_need_a_network() {
        let (p, notices) =
            read("coll=allreduce/ring&net=torus:4x4&bw=12.5&lat=100&breaks=0-1,4-5&brate=0.1&bseed=7&place=random:3&heat=busy&at=900");
        assert!(notices.is_empty(), "{notices:?}");
        let n = p.network().expect("on a network");
        assert_eq!((n.topology.to_string().as_str(), n.bandwidth, n.latency), ("torus:4x4", Some(12.5), Some(100.0)));
        assert_eq!(
            (n.breaks.as_str(), n.break_rate, n.seed, n.placement.to_string().as_str()),
            ("0-1,4-5", 0.1, 7, "random:3")
        );
        assert_eq!((p.heat, p.at), (Heat::Busy, Some(900.0)));
        let (again, _) = codec::read::<ScheduleParams>(&codec::write(&p), &Link::default());
        assert_eq!(again, p);
        // Without `net` the network's valid fields are dropped; bad values and a bad id are named.
        let (p, notices) = read("bw=3&net=torus:0x4&breaks=1-x");
        assert_eq!(p.network(), None);
        assert_eq!(p, ScheduleParams::default());
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, ["net", "breaks"], "{notices:?}");
    }

    #[test]
    fn a_network_run_takes_network_mode_s_defaults_and_old_links_keep_theirs() {
        let q = "coll=allreduce/ring&p=16&bytes=65536&net=torus:4x4";
        let (p, n) = read(q);
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(p.preset, NETWORK_PRESET);
        assert_eq!((p.loggops.o, p.loggops.g, p.loggops.big_o, p.loggops.s), (0, 0, 0, PARAM.max));
        assert!(!codec::write(&p).iter().any(|(k, _)| k == "preset"), "the default is not written");
        // A v=4 link was made with LogGOPSim's o and g: it keeps them, and says so from then on.
        let (old, _) = codec::read::<ScheduleParams>(&codec::pairs(q), &Link { version: 4 });
        assert_eq!(old.preset, "loggopsim");
        assert_eq!((old.loggops.o, old.loggops.g), (1500, 1000));
        let written = codec::write(&old);
        assert!(written.contains(&("preset".to_owned(), "loggopsim".to_owned())), "{written:?}");
        assert_eq!(codec::read::<ScheduleParams>(&written, &Link::default()).0, old);
        // An explicit preset stays, on any version.
        let (hops, _) = read(&format!("{q}&preset=hops"));
        assert_eq!(hops.preset, "hops");
        // Switching by hand moves between the two sides' defaults, and leaves a chosen preset alone.
        let mut s = ScheduleParams::default();
        crate::net_fields::OnNetwork::set_on_network(&mut s, true);
        crate::net_fields::OnNetwork::switched(&mut s, true);
        assert_eq!(s.preset, NETWORK_PRESET);
        crate::net_fields::OnNetwork::set_on_network(&mut s, false);
        crate::net_fields::OnNetwork::switched(&mut s, false);
        assert_eq!(s.preset, "loggopsim");
        s.use_preset("1g");
        crate::net_fields::OnNetwork::switched(&mut s, true);
        assert_eq!(s.preset, "1g");
    }

    #[test]
    fn a_view_hands_over_a_typed_request() {
        let generate = GenerateRequest { collective: "pipeline".into(), p: 5, pieces: 3, ..GenerateRequest::default() };
        let pairs = pairs_of(generate.clone());
        assert_eq!(codec::read::<ScheduleParams>(&pairs, &Link::default()).0.generate, generate);
    }
}

//! The Chooser view's URL parameters (`docs/links.md`, "Lazy views"): only
//! values that differ from the defaults are written; every value read is
//! checked against the engine's ranges, and a rejected one becomes a notice
//! naming the parameter and what is accepted.

use crate::codec::{Field, Kind, Link, Notice, ViewState};
use commlab_api::chooser::{ChooseRequest, Comparison, MapRequest, P};
use commlab_api::network::NetRequest;
use commlab_api::schedule::GenerateRequest;
use commlab_api::system::System;
use commlab_core::choose::{of, Collective};
use commlab_core::libraries::nccl::Version;
use commlab_core::libraries::nccl_env::Settings;
use commlab_core::limits::{self, IntRange, RealRange};
use commlab_core::systems::Measure;

/// α–β–γ presets (the api's, as `commlab choose` has them).
pub use commlab_api::chooser::COST_PRESETS as PRESETS;

/// Everything a Chooser link reproduces.
#[derive(Debug, Clone, PartialEq)]
pub struct ChooserParams {
    /// What is compared: the collective, p, the sizes, α, β, γ and the
    /// algorithms (the api's requests are built from it, as the CLI's are).
    pub compare: Comparison,
    /// Preset id, or `custom`.
    pub preset: String,
    /// Simulated points on the chart.
    pub simulate: bool,
    /// The size the cost split is shown at.
    pub at: u64,
    /// The winner map's p range.
    pub map_p: (u32, u32),
    /// Simulate on a network (`net=…`) instead of the α–β model.
    pub on_network: bool,
    /// The network (kept when switched off).
    pub network: NetRequest,
    /// Libraries whose default picks are shown: MPICH, Open MPI, NCCL.
    pub libraries: [bool; 3],
    /// NCCL's system, `key=value,…` (`docs/libraries.md`; "" for the defaults).
    pub nccl: String,
    /// The node type last picked (`sys=`, read once): which of the presets
    /// with the same network the select shows (`dgx-h100` and `hgx-h200`
    /// are one network), or a custom description.
    pub system: Option<commlab_core::systems::Preset>,
    /// The NCCL release whose model picks on a System (`ncclv=`).
    pub nccl_version: Version,
    /// NCCL's settings (`env=`, read under that release).
    pub settings: Settings,
    /// Bytes per element (MPICH's and Open MPI's rules read counts).
    pub dtype_size: u32,
    /// The fit's format (`""`: detected).
    pub fit_format: String,
    /// The algorithm fitted (`""`: the best fit).
    pub fit_algorithm: String,
    /// The fit takes nccl-tests' in-place times.
    pub fit_in_place: bool,
    /// The run fitted in a file of several (1-based; 0: the first).
    pub fit_run: u32,
    /// What the chart's y axis shows: time, algbw or busbw (the bandwidths
    /// where times are in ns: on a network or LogGOPSim's preset).
    pub y: Measure,
    /// The expected curve's size simulated by the flow engine beside its
    /// steady value (`flow=`; 0: none).
    pub flow: u64,
    /// The System's nodes past the page's network (`far=`, from 129 to
    /// 1 024; 0: none): the view draws that System's expected curve alone,
    /// by the steady engine, while the network is one node of it
    /// ([`ChooserParams::far`]).
    pub far: u32,
}

/// The fit's formats (`""`: detect).
pub const FIT_FORMATS: [&str; 4] = ["", "nccl-tests", "osu", "csv"];

/// The libraries, in [`ChooserParams::libraries`] order: URL id and label.
pub const LIBRARIES: [(&str, &str); 3] = [("mpich", "MPICH"), ("ompi", "Open MPI"), ("nccl", "NCCL")];

/// Longest NCCL system description a link carries.
pub const NCCL_TEXT: usize = 400;

// A torus with as many hosts as the default p.
crate::net_fields::impl_on_network!(ChooserParams, [], NetRequest::on(commlab_core::net::Shape::Torus([8, 8, 1])));

impl Default for ChooserParams {
    fn default() -> ChooserParams {
        ChooserParams {
            compare: Comparison::default(),
            preset: PRESETS[0].id.to_owned(),
            simulate: true,
            at: 1 << 20,
            map_p: (2, 65),
            on_network: false,
            network: <ChooserParams as crate::net_fields::OnNetwork>::default_network(),
            libraries: [false; 3],
            nccl: String::new(),
            system: None,
            nccl_version: Version::Current,
            settings: Settings::default(),
            dtype_size: 4,
            fit_format: String::new(),
            fit_algorithm: String::new(),
            fit_in_place: false,
            fit_run: 0,
            y: Measure::Time,
            flow: 0,
            far: 0,
        }
    }
}

/// The System's nodes the view draws past its network
/// ([`ChooserParams::far`]): past the flow engine's, within the steady
/// engine's.
pub const FAR: IntRange =
    IntRange { name: "far", min: commlab_api::system::NODES.max + 1, max: commlab_api::system::STEADY_NODES.max };

/// Simulated points are drawn up to this p (beyond, a simulation of every point is seconds of work).
pub const SIM_P: u32 = 256;
/// And for plans of at most this many transfers.
pub const SIM_TRANSFERS: u64 = 200_000;

const fn size(name: &'static str) -> IntRange {
    IntRange { name, ..limits::chooser::SIZE }
}

macro_rules! cost {
    ($name:literal, $i:literal) => {
        Field {
            name: $name,
            kind: Kind::Custom {
                write: |c| (c.preset == "custom").then(|| c.compare.abg[$i].to_string()),
                read: |c, text| {
                    let range = RealRange { name: $name, ..limits::chooser::COST };
                    c.compare.abg[$i] = text
                        .trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|v| range.contains(*v))
                        .ok_or_else(|| range.to_string())?;
                    Ok(())
                },
                used: "the preset's",
            },
        }
    };
}

macro_rules! int {
    ($range:expr, $get:expr, $set:expr) => {
        Field { name: $range.name, kind: Kind::Int($range, $get, $set) }
    };
}

/// Names of α, β, γ: setting one makes the preset `custom`, unless the three equal a preset.
const COSTS: [&str; 3] = ["a", "b", "g"];

impl ViewState for ChooserParams {
    // The collective first: the algorithm ids depend on it.
    const FIRST: &'static [&'static str] = &["coll", "ncclv"];
    const FIELDS: &'static [Field<Self>] = crate::net_fields::with_network_fields![
        Field {
            name: "coll",
            kind: Kind::Choice(
                || Collective::ALL.iter().map(|x| x.id()).collect(),
                |c| c.compare.collective.id(),
                |c, id| c.compare.collective = id.parse().unwrap_or(Collective::Allreduce),
            ),
        },
        int!(P, |c| c.compare.p.into(), |c, v| c.compare.p = v as u32),
        int!(size("lo"), |c| c.compare.lo, |c, v| c.compare.lo = v),
        int!(size("hi"), |c| c.compare.hi, |c, v| c.compare.hi = v),
        cost!("a", 0),
        cost!("b", 1),
        cost!("g", 2),
        Field {
            name: "preset",
            kind: Kind::Custom {
                write: |c| (c.preset != "custom" && c.preset != PRESETS[0].id).then(|| c.preset.clone()),
                read: |c, text| match PRESETS.iter().find(|x| x.id == text) {
                    Some(x) => {
                        c.compare.abg = x.abg;
                        x.id.clone_into(&mut c.preset);
                        Ok(())
                    }
                    None => Err(format!("one of: {}", PRESETS.map(|x| x.id).join(", "))),
                },
                used: PRESETS[0].id,
            },
        },
        Field {
            name: "off",
            kind: Kind::Custom {
                write: |c| (!c.compare.algorithms.is_empty()).then(|| c.compare.left_out().join(",")),
                read: |c, text| {
                    let ids: Vec<&str> = of(c.compare.collective).map(|a| a.id).collect();
                    let asked: Vec<&str> = text.split(',').filter(|x| !x.is_empty()).collect();
                    if asked.iter().all(|a| ids.contains(a)) && asked.len() < ids.len() {
                        let off: Vec<String> = asked.iter().map(|s| (*s).to_owned()).collect();
                        c.compare.leave_out(&off);
                        Ok(())
                    } else {
                        Err(format!(
                            "{} algorithms separated by commas, not all of: {}",
                            c.compare.collective,
                            ids.join(", ")
                        ))
                    }
                },
                used: "none left out",
            },
        },
        Field { name: "sim", kind: Kind::Flag(|c| c.simulate, |c, v| c.simulate = v) },
        int!(size("at"), |c| c.at, |c, v| c.at = v),
        Field {
            name: "map",
            kind: Kind::Custom {
                write: |c| (c.map_p != ChooserParams::default().map_p).then(|| format!("{}..{}", c.map_p.0, c.map_p.1)),
                read: |c, text| {
                    let (a, b) = text
                        .split_once("..")
                        .and_then(|(a, b)| Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?)))
                        .filter(|&(a, b)| P.contains(a) && P.contains(b) && a <= b)
                        .ok_or_else(|| format!("LO..HI with {} ≤ LO ≤ HI ≤ {}", P.min, P.max))?;
                    c.map_p = (a as u32, b as u32);
                    Ok(())
                },
                used: "2..65",
            },
        },
        Field {
            name: "lib",
            kind: Kind::Custom {
                write: |c| {
                    let on: Vec<&str> = LIBRARIES.iter().zip(c.libraries).filter(|x| x.1).map(|x| x.0 .0).collect();
                    (!on.is_empty()).then(|| on.join(","))
                },
                read: |c, text| {
                    let mut on = [false; 3];
                    for name in text.split(',').filter(|x| !x.is_empty()) {
                        let k = LIBRARIES
                            .iter()
                            .position(|l| l.0 == name)
                            .ok_or("mpich, ompi, nccl separated by commas")?;
                        on[k] = true;
                    }
                    c.libraries = on;
                    Ok(())
                },
                used: "none",
            },
        },
        Field {
            name: "nccl",
            kind: Kind::Custom {
                // On a System NCCL's description follows from it: not written.
                write: |c| (!c.nccl.is_empty() && c.system().is_none()).then(|| c.nccl.clone()),
                read: |c, text| {
                    if text.len() > NCCL_TEXT {
                        return Err(format!("a description of at most {NCCL_TEXT} characters"));
                    }
                    // Checked against p in `finish`, once p is read.
                    text.clone_into(&mut c.nccl);
                    Ok(())
                },
                used: "NCCL's defaults",
            },
        },
        Field {
            name: "sys",
            kind: Kind::Custom {
                write: |c| c.system.as_ref().map(commlab_api::system::type_id),
                read: |c, text| {
                    if text.len() > NCCL_TEXT {
                        return Err(format!("a preset id or custom:KEY=VALUE,… of at most {NCCL_TEXT} characters"));
                    }
                    let node_type = commlab_api::system::node_type(text).map_err(|e| e.expected)?;
                    c.system = Some(node_type);
                    Ok(())
                },
                used: "the first preset of that network",
            },
        },
        Field {
            name: "ncclv",
            kind: Kind::Custom {
                write: |c| (c.nccl_version != Version::Current).then(|| c.nccl_version.id().to_owned()),
                read: |c, text| {
                    c.nccl_version = Version::parse(text)?;
                    Ok(())
                },
                used: "the current release",
            },
        },
        Field {
            name: "env",
            kind: Kind::Custom {
                write: |c| (!c.settings.is_empty()).then(|| c.settings.text()),
                read: |c, text| {
                    if text.len() > NCCL_TEXT {
                        return Err(format!("NCCL's settings in at most {NCCL_TEXT} characters"));
                    }
                    // After `ncclv=` (read first): its release reads them.
                    c.settings = Settings::read(c.nccl_version, text).map_err(|e| e.to_string())?;
                    Ok(())
                },
                used: "NCCL's defaults",
            },
        },
        int!(IntRange { name: "dt", ..limits::chooser::DTYPE_SIZE }, |c| c.dtype_size.into(), |c, v| c.dtype_size =
            v as u32),
        Field {
            name: "ff",
            kind: Kind::Custom {
                write: |c| (!c.fit_format.is_empty()).then(|| c.fit_format.clone()),
                read: |c, text| {
                    if !FIT_FORMATS.contains(&text) {
                        return Err("nccl-tests, osu or csv".into());
                    }
                    text.clone_into(&mut c.fit_format);
                    Ok(())
                },
                used: "detected",
            },
        },
        Field {
            name: "fa",
            kind: Kind::Custom {
                write: |c| (!c.fit_algorithm.is_empty()).then(|| c.fit_algorithm.clone()),
                read: |c, text| {
                    if !of(c.compare.collective).any(|a| a.id == text) {
                        let ids: Vec<&str> = of(c.compare.collective).map(|a| a.id).collect();
                        return Err(format!("one of {}", ids.join(", ")));
                    }
                    text.clone_into(&mut c.fit_algorithm);
                    Ok(())
                },
                used: "the best fit",
            },
        },
        Field { name: "fip", kind: Kind::Flag(|c| c.fit_in_place, |c, v| c.fit_in_place = v) },
        int!(limits::fit::RUN, |c| c.fit_run.into(), |c, v| c.fit_run = v as u32),
        Field {
            name: "y",
            kind: Kind::Choice(
                || Measure::ALL.iter().map(|m| m.id()).collect(),
                |c| c.y.id(),
                |c, id| c.y = Measure::parse(id).unwrap_or_default(),
            ),
        },
        int!(IntRange { name: "flow", min: 0, ..limits::chooser::SIZE }, |c| c.flow, |c, v| c.flow = v),
        Field {
            name: "far",
            kind: Kind::Custom {
                write: |c| c.far().map(|s| s.nodes.to_string()),
                read: |c, text| {
                    c.far =
                        text.trim().parse::<u64>().ok().filter(|&n| FAR.contains(n)).ok_or_else(|| FAR.to_string())?
                            as u32;
                    Ok(())
                },
                used: "the network's nodes",
            },
        },
    ];

    fn finish(&mut self, read: &[&'static str], link: &Link, notices: &mut Vec<Notice>) {
        crate::net_fields::finish(self, read, link);
        if self.compare.lo > self.compare.hi {
            let given = format!("{}..{}", self.compare.lo, self.compare.hi);
            notices.push(Notice::refused("lo, hi", &given, "a range with lo ≤ hi", "them swapped"));
            std::mem::swap(&mut self.compare.lo, &mut self.compare.hi);
        }
        if !self.nccl.is_empty() {
            if let Err(e) = commlab_core::libraries::nccl::parse_system(&self.nccl, self.compare.p) {
                notices.push(Notice::new("nccl", format!("{e}; using NCCL's defaults")));
                self.nccl.clear();
            }
        }
        if self.far > 0 && self.far().is_none() {
            notices.push(Notice::new(
                "far",
                format!("{} nodes of a System need one node of it as the network (net=nodes:1x…, p its GPUs); this link's network is not: ignored", self.far),
            ));
            self.far = 0;
        }
        if read.iter().any(|k| COSTS.contains(k)) && !PRESETS.iter().any(|x| x.abg == self.compare.abg) {
            "custom".clone_into(&mut self.preset);
        }
    }
}

impl ChooserParams {
    /// The algorithms compared.
    pub fn included(&self) -> Vec<String> {
        self.compare.included()
    }

    /// Whether the chart's points are simulated (asked for, and p small enough).
    pub fn simulating(&self) -> bool {
        self.on_network || (self.simulate && self.compare.p <= SIM_P)
    }

    /// The network the points are simulated on, if any.
    pub fn net(&self) -> Option<NetRequest> {
        crate::net_fields::request(self)
    }

    /// The comparison the chart draws.
    pub fn choose_request(&self) -> ChooseRequest {
        self.compare.choose(self.simulating(), SIM_TRANSFERS, self.net())
    }

    /// The chunk optimizer's check by simulation at the explained size.
    pub fn check_request(&self) -> ChooseRequest {
        ChooseRequest { check_at: Some(self.at), ..self.choose_request() }
    }

    /// Whether α and β are in ns (the LogGOPSim preset), else in the unit α is given in.
    pub fn ns(&self) -> bool {
        PRESETS.iter().any(|x| x.id == self.preset && x.ns)
    }

    /// What the chart shows once its results are in (the api's rules): the
    /// chosen measure where times are in ns (on a network or LogGOPSim's
    /// preset), the time otherwise (a bandwidth in units of α per byte means
    /// nothing).
    pub fn measure(&self) -> Measure {
        use commlab_api::chooser::units::{chart_units, Stage};
        let stage = if self.on_network { Stage::Network } else { Stage::Model };
        chart_units(stage, self.y, self.ns(), false).measure
    }

    /// What the libraries are asked (`None`: none is shown).
    pub fn library_request(&self) -> Option<commlab_api::libraries::LibraryRequest> {
        // Past the page's network the libraries' picks are not shown.
        (self.libraries.iter().any(|&x| x) && self.far().is_none()).then(|| commlab_api::libraries::LibraryRequest {
            mpich: self.libraries[0],
            ompi: self.libraries[1],
            nccl: self.libraries[2].then(|| self.nccl_system()),
            dtype_size: self.dtype_size,
            // NCCL's settings where the field that holds them shows: on a System.
            settings: self.system().map(|s| s.settings).unwrap_or_default(),
        })
    }

    /// The System the Chooser's network is, under the NCCL release picked
    /// (`None`: a network of the user's own, or the α–β model): the node
    /// type named (`sys=`) when the network is its nodes, else the preset
    /// the network matches; past the page's network, the System drawn
    /// ([`ChooserParams::far`]).
    pub fn system(&self) -> Option<System> {
        let system = self.network_system()?;
        Some(if self.far_of(&system) { system.with_nodes(self.far) } else { system })
    }

    /// The System past the page's network: [`ChooserParams::far`] nodes
    /// while the network is one node of a System and p all its GPUs (what
    /// picking that many nodes sets); any other network or p leaves it.
    pub fn far(&self) -> Option<System> {
        let system = self.network_system()?;
        self.far_of(&system).then(|| system.with_nodes(self.far))
    }

    /// Whether the network, `system`, stands for [`ChooserParams::far`] of its nodes.
    fn far_of(&self, system: &System) -> bool {
        FAR.contains(self.far.into()) && system.nodes == 1 && system.covers(self.compare.p)
    }

    /// The System the network is.
    fn network_system(&self) -> Option<System> {
        Some(&self.network)
            .filter(|_| self.on_network)
            .and_then(|n| System::of(n, self.system.as_ref(), self.nccl_version))
            .map(|s| System { settings: self.settings, ..s })
    }

    /// Sets the comparison to `system`: its network (one node of it past
    /// the page's nodes, [`ChooserParams::far`]), p all its GPUs, NCCL
    /// described by it, and its node type and release kept (`sys=`, `ncclv=`).
    pub fn set_system(&mut self, system: &System) {
        self.far = if FAR.contains(system.nodes.into()) { system.nodes } else { 0 };
        let shown = if self.far > 0 { system.with_nodes(1) } else { *system };
        self.on_network = true;
        self.network.system(&shown.preset, shown.nodes);
        self.compare.p = shown.ranks();
        self.libraries[2] = true;
        self.nccl = shown.nccl_text();
        self.system = Some(system.preset);
        self.nccl_version = system.version;
        self.settings = system.settings;
    }

    /// NCCL's system description: the System's when the network is a
    /// preset's nodes (so that nothing can leave them disagreeing), else
    /// the text given.
    pub fn nccl_system(&self) -> String {
        self.system().map_or_else(|| self.nccl.clone(), |s| s.nccl_text())
    }

    /// The winner map's request.
    pub fn map_request(&self) -> MapRequest {
        self.compare.map(self.map_p, self.net())
    }
}

/// The link (query, with its `?`) to the Schedule view for one configuration of the chooser, under
/// the LogGOPS parameters of its simulated points (`L = α`, `G = β`,
/// `o = g = O = 0`, eager up to the largest size), in the Schedule view's
/// own units: ns when α and β are whole ns (`ns`), else ticks with the
/// link's `unit` (ticks per unit of α), which the Schedule view shows.
/// On a network (`net`) the schedule runs there, in ns, with `o = g = 0`.
pub fn timeline_query(
    collective: Collective,
    id: &str,
    (p, bytes, pieces): (u32, u64, u32),
    abg: [f64; 3],
    ns: bool,
    net: Option<&NetRequest>,
) -> String {
    let ab = commlab_core::choose::AlphaBeta { alpha: abg[0], beta: abg[1], gamma: abg[2] };
    let (loggops, unit) = commlab_api::chooser::schedule_loggops(ab, ns);
    let pipelined = of(collective).any(|a| a.id == id && a.pipelined);
    crate::links::Timeline {
        generate: GenerateRequest {
            collective: format!("{}/{id}", collective.id()),
            p: p.into(),
            bytes,
            pieces: if pipelined { pieces.into() } else { GenerateRequest::default().pieces },
            ..GenerateRequest::default()
        },
        loggops: Some(loggops),
        unit: if net.is_some() { None } else { unit },
        network: net.cloned(),
    }
    .link()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec;
    use crate::views::schedule::params::ScheduleParams;

    fn read(q: &str) -> (ChooserParams, Vec<Notice>) {
        codec::read(&codec::pairs(q), &Link::default())
    }

    #[test]
    fn round_trips_and_rejects() {
        let (c, n) =
            read("coll=broadcast&p=13&lo=64&hi=4096&a=2&b=0.5&g=0&off=linear,chain&sim=false&at=1024&map=4..300");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(c.compare.collective, Collective::Broadcast);
        assert_eq!(c.preset, "custom");
        assert_eq!(c.included().len(), 5);
        let again = codec::read::<ChooserParams>(&codec::write(&c), &Link::default()).0;
        assert_eq!(again, c);
        assert!(codec::write(&ChooserParams::default()).is_empty());
        let (d, n) = read("p=5000&off=ring,bogus&map=9..3&lo=100&hi=10&zz=1&coll=gather");
        assert_eq!(d.compare.p, 64);
        assert_eq!((d.compare.lo, d.compare.hi), (10, 100));
        assert_eq!(n.len(), 6, "{n:?}");
        assert_eq!(n[1].message, "\"5000\" is not an integer from 1 to 1024; using 64");
        // Leaving every algorithm out is refused.
        let all: Vec<&str> = of(Collective::Allgather).map(|a| a.id).collect();
        let (e, n) = read(&format!("coll=allgather&off={}", all.join(",")));
        assert!(e.compare.algorithms.is_empty() && n.len() == 1);
    }

    /// Library links round-trip; a description that does not fit p is
    /// named and dropped.
    #[test]
    fn library_links_round_trip() {
        let (c, n) = read("p=24&lib=mpich,nccl&nccl=version%3D2.22%2Cnodes%3D3%2Cgpus%3D8&dt=8&ff=osu&fa=ring&fip=1");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(c.libraries, [true, false, true]);
        assert_eq!(c.nccl, "version=2.22,nodes=3,gpus=8");
        assert_eq!(c.dtype_size, 8);
        assert_eq!((c.fit_format.as_str(), c.fit_algorithm.as_str(), c.fit_in_place), ("osu", "ring", true));
        assert_eq!(codec::read::<ChooserParams>(&codec::write(&c), &Link::default()).0, c);
        let r = c.library_request().unwrap();
        assert_eq!((r.mpich, r.ompi, r.nccl.as_deref()), (true, false, Some("version=2.22,nodes=3,gpus=8")));
        let (d, n) = read("p=64&lib=mpich,foo&nccl=nodes%3D3&dt=0&ff=xml&fa=spiral");
        assert_eq!(n.len(), 5, "{n:?}");
        assert!(n.iter().any(|x| x.message.contains("nodes × gpus")), "{n:?}");
        assert_eq!((d.libraries, d.nccl.as_str(), d.dtype_size), ([false; 3], "", 4));
        assert!(ChooserParams::default().library_request().is_none());
    }

    /// A network link round-trips with the Schedule view's keys; without
    /// `net` they are ignored; the timeline link of a network carries it.
    #[test]
    fn network_links_round_trip() {
        let (c, notices) = read("coll=allreduce&p=16&net=torus:4x4&bw=10&breaks=0-1&place=random:2");
        assert!(notices.is_empty(), "{notices:?}");
        let net = c.net().expect("on a network");
        assert_eq!(
            (net.topology.to_string().as_str(), net.bandwidth, net.breaks.as_str()),
            ("torus:4x4", Some(10.0), "0-1")
        );
        assert_eq!(codec::read::<ChooserParams>(&codec::write(&c), &Link::default()).0, c);
        let (plain, notices) = read("p=16&bw=10");
        assert!(notices.is_empty() && plain.net().is_none());
        assert_eq!(
            plain,
            ChooserParams { compare: Comparison { p: 16, ..Comparison::default() }, ..ChooserParams::default() }
        );
        let query = timeline_query(c.compare.collective, "ring", (16, 4096, 1), c.compare.abg, false, Some(&net));
        let link: Vec<(String, String)> =
            codec::pairs(&query).into_iter().filter(|(k, _)| k != "view" && k != "v").collect();
        let (schedule, notices) = codec::read::<ScheduleParams>(&link, &Link::default());
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(schedule.network(), Some(net));
        assert_eq!(schedule.unit, None);
    }

    /// The time a Chooser link's timeline shows is the Chooser's own LogGOPS
    /// point for that configuration (the same special case `L = α`, `G = β`,
    /// up to rounding α to whole ticks), in the Chooser's unit: the link is
    /// read by the Schedule view's codec and simulated by its engine.
    #[test]
    fn timeline_links_keep_the_chooser_s_unit() {
        use commlab_api::schedule::{ScheduleRequest, ScheduleSource};
        use commlab_api::sim::{SimEngine, SimQuery, SimResponse};
        for (query, id, at) in [
            ("coll=broadcast&p=256&preset=loggopsim&at=65536", "double-binary-tree", 65_536u64),
            ("coll=broadcast&p=16&at=65536", "binomial", 65_536),
            ("coll=allreduce&p=12&a=3&b=0.25&g=0&at=4096", "ring", 4096),
        ] {
            let (c, n) = read(query);
            assert!(n.is_empty(), "{n:?}");
            let request = ChooseRequest {
                min_bytes: at,
                max_bytes: at,
                sizes: Vec::new(),
                simulate: true,
                sim_limit: 0,
                algorithms: vec![id.to_owned()],
                ..c.choose_request()
            };
            let r = request.run().unwrap();
            let row = &r.rows[0];
            let chooser = row.simulated.as_ref().unwrap()[0].unwrap();
            let link =
                timeline_query(c.compare.collective, id, (c.compare.p, at, row.pieces[0]), c.compare.abg, c.ns(), None);
            let link: Vec<(String, String)> =
                codec::pairs(&link).into_iter().filter(|(k, _)| k != "view" && k != "v").collect();
            let (s, n) = codec::read::<ScheduleParams>(&link, &Link::default());
            assert!(n.is_empty(), "{n:?}");
            let run = SimQuery::Run(ScheduleRequest {
                source: ScheduleSource::Generate(s.generate.clone()),
                params: s.loggops,
                libstdcxx: false,
                network: None,
            });
            let SimResponse::Ready(done) = SimEngine::new().serve(run, 1 << 20, &mut |_| {}) else {
                panic!("{query}: the timeline's schedule runs");
            };
            let shown = done.max_time as f64 / s.time_unit().ticks();
            assert!((shown - chooser).abs() <= 1e-4 * chooser, "{query}: timeline {shown} vs chooser {chooser}");
            // ns links carry no unit and read as ns; the others say how many ticks make a unit.
            assert_eq!(s.unit.is_none(), c.ns(), "{query}");
        }
    }
}

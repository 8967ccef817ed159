//! A run that describes itself (`commlab predict --from FILE`, the fit's
//! System from a log, the page's pasted log): the System a benchmark's
//! output implies, from what it prints (`commlab_core::runlog`), each fact
//! said with where it was read, and every gap filled by a named assumption.

use super::PredictRequest;
use crate::system::System;
use crate::ApiError;
use commlab_core::choose::Collective;
use commlab_core::fit::{self, Format};
use commlab_core::libraries::nccl::Version;
use commlab_core::libraries::nccl_env::NAMES;
use commlab_core::limits::IntRange;
use commlab_core::runlog::{self, RunLog};
use commlab_core::systems::{self, Preset};
use serde_json::{json as j, Value};

/// What the caller says beside the log (flags win over the log).
#[derive(Debug, Clone, Default)]
pub struct Given<'a> {
    /// A node type's id (`--system`).
    pub system: Option<&'a str>,
    /// Nodes (`--nodes`).
    pub nodes: Option<u32>,
    /// NCCL's release (`--nccl-version`).
    pub version: Option<&'a str>,
    /// The collective (`--collective`).
    pub collective: Option<Collective>,
    /// The collective to take where the log names none, and where it comes
    /// from (`the file's name`; default: the file's name).
    pub named: Option<Collective>,
    /// Where [`Given::named`] comes from, in words (empty: "the file's name").
    pub named_from: &'a str,
    /// NCCL settings given (`NAME=VALUE` words), over the log's.
    pub env: &'a str,
}

/// The System a log implies, and the log's measured points.
#[derive(Debug, Clone)]
pub struct FromLog {
    /// The prediction of the run's own sizes on that System.
    pub request: PredictRequest,
    /// What the log said, each with where it said it.
    pub read: Vec<String>,
    /// What had to be assumed, each with why.
    pub assumed: Vec<String>,
    /// The run's own times: bytes and µs (out of place).
    pub measured: Vec<(u64, f64)>,
}

/// The collective a benchmark file's name says (`…_all_gather.txt`,
/// `all_reduce_perf.log`): nccl-tests' names, with `_` or `-`.
pub fn collective_in_name(file: &str) -> Option<Collective> {
    use Collective as C;
    let name = file.rsplit(['/', '\\']).next()?.to_ascii_lowercase().replace('-', "_");
    [
        ("all_reduce", C::Allreduce),
        ("allreduce", C::Allreduce),
        ("all_gather", C::Allgather),
        ("allgather", C::Allgather),
        ("reduce_scatter", C::ReduceScatter),
        ("alltoall", C::AllToAll),
        ("all_to_all", C::AllToAll),
        ("broadcast", C::Broadcast),
    ]
    .into_iter()
    .find(|(k, _)| name.contains(k))
    .map(|(_, c)| c)
}

/// The ranks of the run and where they were read.
fn ranks(log: &RunLog, text: &str, collective: Collective) -> Option<(u32, String)> {
    if let Some((r, _, _)) = log.comm {
        return Some((r, format!("{r} ranks (NCCL's nRanks)")));
    }
    if let Some(r) = log.ranks_listed {
        return Some((r, format!("{r} ranks (nccl-tests' rank list)")));
    }
    let (ratio, algbw) = fit::bus_ratio(text)?;
    let r = fit::ranks_from_bus(collective, ratio, algbw)?;
    Some((r, format!("{r} ranks (busbw / algbw = {ratio:.4} at {algbw} GB/s, {}'s bus factor)", collective.id())))
}

/// The node type: given, or the preset of the GPUs the log names.
fn node_type(
    log: &RunLog,
    given: &Given,
    read: &mut Vec<String>,
    assumed: &mut Vec<String>,
) -> Result<Preset, ApiError> {
    if let Some(id) = given.system {
        let preset = crate::system::node_type(id)?;
        read.push(format!("node: {id} (given)"));
        return Ok(preset);
    }
    let Some(gpu) = log.gpus.first() else {
        let preset = systems::PRESETS[0];
        assumed
            .push(format!("node: {} (the log names no GPU; give --system to describe the node that ran)", preset.id));
        return Ok(preset);
    };
    let all = log.gpus.join(", ");
    if log.gpus.len() > 1 {
        return Err(ApiError::problem(
            "file",
            format!("the rank list names more than one GPU ({all}); give --system to describe the node"),
        ));
    }
    match systems::preset_of_gpu(gpu) {
        Ok(Some(preset)) => {
            read.push(format!("node: {} (its GPU, {gpu}, in nccl-tests' rank list)", preset.id));
            assumed.push(format!(
                "NVLink and NICs: {}'s ({}): a log does not print them; give --system to say otherwise",
                preset.id, preset.name
            ));
            Ok(preset)
        }
        _ => Err(ApiError::problem(
            "file",
            format!(
                "the rank list names {gpu}, and commlab has no node of that GPU; give --system custom:… to describe it"
            ),
        )),
    }
}

/// The nodes and ranks a node, read or assumed, and the node type that
/// holds that many GPUs.
fn nodes(
    log: &RunLog,
    given: &Given,
    preset: Preset,
    p: Option<u32>,
    read: &mut Vec<String>,
    assumed: &mut Vec<String>,
) -> Result<(u32, Preset), ApiError> {
    if let Some(n) = given.nodes {
        read.push(format!("{n} nodes (given)"));
        return Ok((n, preset));
    }
    let hosts = u32::try_from(log.hosts.len()).unwrap_or(u32::MAX);
    let (n, local) = if let Some((r, n, l)) = log.comm {
        read.push(format!("{n} nodes of {l} ranks (NCCL's nNodes, localRanks)"));
        (n, Some(l).filter(|&l| l * n == r))
    } else if hosts > 0 {
        let shown: Vec<&str> = log.hosts.iter().take(3).map(String::as_str).collect();
        let more = if hosts > 3 { ", …" } else { "" };
        let per_host = p.filter(|p| p % hosts == 0).map(|p| p / hosts);
        if preset.tray < preset.gpus && per_host == Some(preset.tray) {
            // The hosts are trays of an NVLink domain: NCCL's nodes are the
            // domains (whole ones; fewer trays make one smaller domain).
            let ranks = hosts * preset.tray;
            read.push(format!(
                "{hosts} trays of {} GPUs (the rank list's hosts: {}{more})",
                preset.tray,
                shown.join(", ")
            ));
            if ranks % preset.gpus == 0 {
                assumed.push(format!(
                    "{} NVLink domain{} of {} GPUs: the trays fill whole domains (a log without NCCL's nNodes does not say which tray is in which)",
                    ranks / preset.gpus,
                    if ranks == preset.gpus { "" } else { "s" },
                    preset.gpus
                ));
                return Ok((ranks / preset.gpus, preset));
            }
            let text = preset.custom_text().replace(&format!("domain={}", preset.gpus), &format!("domain={ranks}"));
            let custom = crate::system::node_type(&text).map_err(|e| ApiError::problem("file", e.to_string()))?;
            assumed.push(format!("one NVLink domain of its {hosts} trays ({})", custom.custom_text()));
            return Ok((1, custom));
        }
        read.push(format!("{hosts} nodes (the rank list's hosts: {}{more})", shown.join(", ")));
        (hosts, per_host)
    } else if let Some(p) = p {
        let n = p.div_ceil(preset.gpus).max(1);
        assumed.push(format!(
            "{n} node{}: {p} ranks on {}'s {} GPUs a node (the log lists no hosts; give --nodes)",
            if n == 1 { "" } else { "s" },
            preset.id,
            preset.gpus
        ));
        (n, Some(p / n).filter(|l| l * n == p))
    } else {
        return Err(ApiError::problem(
            "file",
            "the log prints neither its ranks (a rank list, NCCL's nRanks, or busbw beside algbw) nor its hosts; give --nodes",
        ));
    };
    let Some(local) = local else {
        return Err(ApiError::problem("file", format!("the log's ranks do not spread evenly over its {n} nodes")));
    };
    if local == preset.gpus {
        return Ok((n, preset));
    }
    // Fewer (or more) ranks a node than the node has GPUs: a node of that
    // many GPUs with the NICs in proportion.
    let nics = (preset.nics * local / preset.gpus).max(1);
    let text = format!(
        "gpus={local},nics={nics},{}",
        preset
            .custom_text()
            .trim_start_matches(crate::system::CUSTOM)
            .split(',')
            .filter(|kv| !kv.starts_with("gpus=") && !kv.starts_with("nics="))
            .collect::<Vec<_>>()
            .join(",")
    );
    let custom = crate::system::node_type(&format!("{}{text}", crate::system::CUSTOM))
        .map_err(|e| ApiError::problem("file", format!("{local} ranks a node: {e}")))?;
    assumed.push(format!(
        "{local} ranks a node: a {} node with {local} GPUs and {nics} NIC{} ({}), as every GPU of a node runs one rank in commlab's systems",
        preset.id,
        if nics == 1 { "" } else { "s" },
        custom.custom_text()
    ));
    Ok((n, custom))
}

/// The release: given, printed, or the current one.
fn version(
    log: &RunLog,
    given: &Given,
    read: &mut Vec<String>,
    assumed: &mut Vec<String>,
) -> Result<Version, ApiError> {
    if let Some(v) = given.version {
        let version = System::version(Some(v))?;
        read.push(format!("NCCL {v} (given), modelled by {}", version.label()));
        return Ok(version);
    }
    if let Some(v) = &log.version {
        let version = Version::parse(v).map_err(|e| ApiError::problem("file", format!("NCCL version {v}: {e}")))?;
        read.push(format!("NCCL {v} (printed), modelled by {}'s tables", version.label()));
        return Ok(version);
    }
    assumed.push(format!(
        "{}: the log prints no NCCL version (NCCL_DEBUG=VERSION prints it; or give --nccl-version)",
        Version::Current.label()
    ));
    Ok(Version::Current)
}

/// The System and the sizes `text` (a benchmark's output) implies, with
/// `given` over it, nodes within `range`.
///
/// # Errors
/// Field `file`: no nccl-tests rows, GPUs commlab has no node of, ranks it
/// cannot tell; the flags' fields as [`System::parse`] names them.
pub fn from_log(text: &str, given: &Given, range: IntRange) -> Result<FromLog, ApiError> {
    let points = fit::parse(text, Format::NcclTests, false).map_err(|e| ApiError::problem("file", e.to_string()))?;
    let d = describe(text, given, range)?;
    let mut sizes: Vec<u64> = points.iter().map(|p| p.bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let measured = points.iter().map(|p| (p.bytes, p.time)).collect();
    let request = PredictRequest { system: d.system, collective: d.collective.id().to_owned(), sizes };
    Ok(FromLog { request, read: d.read, assumed: d.assumed, measured })
}

/// The System a run's output describes (without reading its rows).
#[derive(Debug, Clone, PartialEq)]
pub struct Described {
    /// The System.
    pub system: System,
    /// The collective measured.
    pub collective: Collective,
    /// What the log said, each with where it said it.
    pub read: Vec<String>,
    /// What had to be assumed, each with why.
    pub assumed: Vec<String>,
}

/// The System `text` (a benchmark's output) describes, with `given` over
/// it, nodes within `range`: [`from_log`] without the rows (the page reads
/// them in the fit's worker).
///
/// # Errors
/// As [`from_log`], but for the rows.
pub fn describe(text: &str, given: &Given, range: IntRange) -> Result<Described, ApiError> {
    let log = runlog::read(text);
    let (mut read, mut assumed) = (Vec::new(), Vec::new());
    let collective = if let Some(c) = given.collective {
        read.push(format!("{} (given)", c.id()));
        c
    } else if let Some(c) = log.collective {
        read.push(format!("{} (nccl-tests' name for it in the log)", c.id()));
        c
    } else if let Some(c) = given.named {
        let from = if given.named_from.is_empty() { "the file's name" } else { given.named_from };
        read.push(format!("{} ({from})", c.id()));
        c
    } else {
        assumed.push("allreduce: the log names no collective (give --collective)".to_owned());
        Collective::Allreduce
    };
    let p = ranks(&log, text, collective);
    if let Some((_, said)) = &p {
        read.push(said.clone());
    }
    let preset = node_type(&log, given, &mut read, &mut assumed)?;
    let (n, preset) = nodes(&log, given, preset, p.as_ref().map(|(r, _)| *r), &mut read, &mut assumed)?;
    let version = version(&log, given, &mut read, &mut assumed)?;
    let system = System::of_type(preset, n, version, range)?;
    if let Some((r, _)) = p.filter(|(r, _)| *r != system.ranks()) {
        assumed.push(format!(
            "{} ranks: all GPUs of {n} × {}, where the log ran {r}",
            system.ranks(),
            system.short_name()
        ));
    }
    // NCCL's settings: the ones commlab reads, then the given ones over them.
    let (known, other): (Vec<_>, Vec<_>) = log.env.iter().partition(|(name, _)| NAMES.contains(&name.as_str()));
    let mut env: Vec<String> = known.iter().map(|(n, v)| format!("{n}={v}")).collect();
    for pair in &env {
        read.push(format!("{pair} (set by environment, as NCCL printed)"));
    }
    for (name, value) in other {
        read.push(format!("{name}={value} (printed; nothing in commlab's model depends on it)"));
    }
    env.push(given.env.to_owned());
    let system = system.with_env(&env.join(" "))?;
    if let Some(c) = log.channels {
        read.push(format!(
            "{c} channels (NCCL's coll channels; commlab runs a ring, tree or chain on {})",
            system.channels()
        ));
    }
    Ok(Described { system, collective, read, assumed })
}

impl FromLog {
    /// `commlab predict`'s JSON with what the log said: `from` (`read`,
    /// `assumed`: sentences), and on each row of a size the run measured
    /// its `measured_us`, `measured_busbw` and `off` (predicted time over
    /// measured, − 1).
    pub fn annotate(&self, value: &mut Value) {
        value["from"] = j!({ "read": self.read, "assumed": self.assumed });
        let Ok(collective) = self.request.collective.parse::<Collective>() else { return };
        let p = self.request.system.ranks();
        for row in value["rows"].as_array_mut().into_iter().flatten() {
            let bytes = row["bytes"].as_u64().unwrap_or(0);
            let Some(&(_, t)) = self.measured.iter().find(|(b, _)| *b == bytes) else { continue };
            let predicted = row["time_us"].as_f64().unwrap_or(0.0);
            row["measured_us"] = j!(t);
            row["measured_busbw"] = j!(systems::Measure::Busbw.of(collective, p, bytes, t * 1000.0));
            row["off"] = j!(if t > 0.0 { predicted / t - 1.0 } else { 0.0 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn given() -> Given<'static> {
        Given::default()
    }

    #[test]
    fn a_rank_list_gives_the_node_its_hosts_and_its_ranks() {
        let text = "#  Rank  0 Group  0 Pid 1 on  a device  0 [0009:01:00] NVIDIA GH200 120GB\n\
                    #  Rank  1 Group  0 Pid 2 on  a device  1 [0019:01:00] NVIDIA GH200 120GB\n\
                    #  Rank  2 Group  0 Pid 3 on  b device  0 [0009:01:00] NVIDIA GH200 120GB\n\
                    #  Rank  3 Group  0 Pid 4 on  b device  1 [0019:01:00] NVIDIA GH200 120GB\n\
                    1048576 262144 float sum -1 100.0 10.49 15.73 0 100.0 10.49 15.73 0\n";
        let f = from_log(text, &given(), crate::system::NODES).unwrap();
        assert_eq!(f.request.system.nodes, 2);
        assert_eq!(f.request.system.ranks(), 4);
        // 2 ranks a node of a 4-GPU node: a node of 2 GPUs and 2 NICs, said.
        assert_eq!((f.request.system.preset.gpus, f.request.system.preset.nics), (2, 2));
        assert!(f.assumed.iter().any(|a| a.starts_with("2 ranks a node")), "{:?}", f.assumed);
        assert_eq!(f.measured, [(1_048_576, 100.0)]);
        assert!(f.assumed.iter().any(|a| a.contains("no NCCL version")));
    }

    #[test]
    fn a_gpu_commlab_has_no_node_of_is_refused_by_name() {
        let text = "#  Rank  0 Group  0 Pid 1 on  a device  0 [0009:01:00] NVIDIA L40S\n\
                    1048576 262144 float sum -1 100.0 10.49 0.00 0 100.0 10.49 0.00 0\n";
        let e = from_log(text, &given(), crate::system::NODES).unwrap_err();
        assert_eq!(e.field, "file");
        assert!(e.to_string().contains("NVIDIA L40S"), "{e}");
        // Given a System, the same log runs on it.
        let g = Given { system: Some("dgx-a100"), nodes: Some(1), ..given() };
        assert_eq!(from_log(text, &g, crate::system::NODES).unwrap().request.system.ranks(), 8);
    }

    /// A GB200 run lists each tray as a host: 36 hosts of 4 GPUs are two
    /// NVL72 domains; 4 hosts, one domain of 16.
    #[test]
    fn trays_listed_as_hosts_make_domains() {
        let list = |hosts: u32| -> String {
            use std::fmt::Write as _;
            let mut text = String::new();
            for r in 0..hosts * 4 {
                let (tray, device) = (r / 4, r % 4);
                let _ = writeln!(
                    text,
                    "#  Rank {r:2} Group  0 Pid {r} on tray{tray} device  {device} [0009:01:00] NVIDIA GB200"
                );
            }
            text + "1048576 262144 float sum -1 100.0 10.49 19.66 0 100.0 10.49 19.66 0\n"
        };
        let f = from_log(&list(36), &given(), crate::system::NODES).unwrap();
        assert_eq!(
            (f.request.system.preset.id, f.request.system.nodes, f.request.system.ranks()),
            ("gb200-nvl72", 2, 144)
        );
        let f = from_log(&list(4), &given(), crate::system::NODES).unwrap();
        assert_eq!((f.request.system.preset.gpus, f.request.system.nodes, f.request.system.preset.tray), (16, 1, 4));
        assert!(f.assumed.iter().any(|a| a.starts_with("one NVLink domain of its 4 trays")), "{:?}", f.assumed);
    }

    #[test]
    fn nccl_s_own_lines_win_and_its_settings_steer() {
        let text = "h:1:1 [0] NCCL INFO NCCL version 2.28.3+cuda12.9\n\
                    h:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n\
                    h:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0\n\
                    h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 32 nNodes 4 localRanks 8 localRank 0 MNNVL 0\n\
                    # Collective test starting: all_reduce_perf\n\
                    1048576 262144 float sum -1 100.0 10.49 19.66 0 100.0 10.49 19.66 0\n";
        let f = from_log(text, &Given { env: "NCCL_PROTO=Simple", ..given() }, crate::system::NODES).unwrap();
        let s = f.request.system;
        assert_eq!((s.nodes, s.ranks(), s.version), (4, 32, Version::V2_28));
        assert_eq!(s.settings.text(), "NCCL_ALGO=Ring NCCL_PROTO=Simple");
        assert!(f.read.iter().any(|r| r.starts_with("NCCL_SOCKET_IFNAME=eth0")), "{:?}", f.read);
        assert!(f.assumed.iter().any(|a| a.starts_with("node: dgx-h100")), "{:?}", f.assumed);
    }
}

//! What a benchmark's output says about the run that printed it
//! (`docs/systems.md`, "A run that describes itself"): nccl-tests' rank
//! list (each rank's host and GPU model), and what NCCL prints with
//! `NCCL_DEBUG=INFO` (or `VERSION`): its release, the communicator's ranks,
//! nodes and local ranks, its channels, and every setting it took from the
//! environment. Each line is read as the source prints it:
//!
//! - nccl-tests `src/common.cu`: `#  Rank %2d Group %2d Pid %6d on %10s
//!   device %2d [%04x:%02x:%02x] %s` (older releases: no `Group`, the bus
//!   id as `[0x%02x]`); the last field is the GPU's name.
//! - NCCL `src/init.cc`: `NCCL version 2.22.3+cuda12.4` (`VERSION_STRING`),
//!   `comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL
//!   %d`, `%d coll channels, %d collnet channels, …`.
//! - NCCL `src/misc/param.cc` and `src/graph/tuning.cc`: `NAME set by
//!   environment to VALUE` (integers with a closing period).
//!
//! Nothing here guesses: a fact the text does not print is `None`, and the
//! caller (`commlab_api::predict::from_log`) names what it then assumes.

use crate::choose::Collective;

/// What a log printed about its run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunLog {
    /// The collective nccl-tests names (`all_reduce_perf`, …).
    pub collective: Option<Collective>,
    /// The ranks nccl-tests lists (highest + 1).
    pub ranks_listed: Option<u32>,
    /// The hosts of the listed ranks, distinct, in the order first seen.
    pub hosts: Vec<String>,
    /// The GPU names of the listed ranks, distinct (`NVIDIA GH200 120GB`).
    pub gpus: Vec<String>,
    /// NCCL's release as printed (`2.26.2`), without its build suffix.
    pub version: Option<String>,
    /// `nRanks`, `nNodes`, `localRanks` of NCCL's communicator line (the
    /// first one printed).
    pub comm: Option<(u32, u32, u32)>,
    /// NCCL's collective channels (`N coll channels`).
    pub channels: Option<u32>,
    /// Every `NAME set by environment to VALUE`, in order, each name once
    /// (the first value printed).
    pub env: Vec<(String, String)>,
}

/// The text after a launcher's tag and the `NCCL INFO` prefix, whichever
/// are there: what the source's format string printed.
fn body(line: &str) -> &str {
    line.find("NCCL INFO ").map_or(line, |i| &line[i + "NCCL INFO ".len()..]).trim()
}

/// The number after the word `key` in `words`.
fn after(words: &[&str], key: &str) -> Option<u32> {
    let i = words.iter().position(|w| *w == key)?;
    words.get(i + 1)?.parse().ok()
}

/// One rank of nccl-tests' list: its number, host and GPU name.
fn rank_line(line: &str) -> Option<(u32, &str, &str)> {
    let at = line.find("Rank ")?;
    if !line[..at].trim_end().ends_with('#') {
        return None;
    }
    let words: Vec<&str> = line[at..].split_whitespace().collect();
    let rank = after(&words, "Rank")?;
    let on = words.iter().position(|w| *w == "on")?;
    let host = words.get(on + 1)?;
    // The GPU's name: everything after the bus id's closing bracket.
    let bus = line.find("device ").and_then(|d| line[d..].find(']').map(|b| d + b + 1))?;
    let gpu = line[bus..].trim();
    Some((rank, host, gpu))
}

/// `NCCL version 2.26.2+cuda12.8` → `2.26.2`.
fn version_in(line: &str) -> Option<String> {
    let at = line.find("NCCL version ")?;
    let rest = &line[at + "NCCL version ".len()..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    let v = rest[..end].trim_end_matches('.');
    (v.split('.').count() >= 2 && v.starts_with(|c: char| c.is_ascii_digit())).then(|| v.to_owned())
}

/// `NAME set by environment to VALUE` → (NAME, VALUE).
fn setting_in(line: &str) -> Option<(String, String)> {
    let b = body(line);
    let (name, value) = b.split_once(" set by environment to ")?;
    let name = name.split_whitespace().last()?;
    let value = value.trim();
    // param.cc prints integers with a closing period.
    let value = if value.ends_with('.') && value[..value.len() - 1].parse::<i64>().is_ok() {
        &value[..value.len() - 1]
    } else {
        value
    };
    name.starts_with("NCCL_").then(|| (name.to_owned(), value.to_owned()))
}

/// Reads what `text` prints about its run.
pub fn read(text: &str) -> RunLog {
    let mut log = RunLog { collective: crate::fit::collective_named(text), ..RunLog::default() };
    let mut top: Option<u32> = None;
    for line in text.lines().take(crate::fit::MAX_LINES) {
        if let Some((rank, host, gpu)) = rank_line(line) {
            top = Some(top.map_or(rank, |t| t.max(rank)));
            if !log.hosts.iter().any(|h| h == host) {
                log.hosts.push(host.to_owned());
            }
            if !gpu.is_empty() && !log.gpus.iter().any(|g| g == gpu) {
                log.gpus.push(gpu.to_owned());
            }
            continue;
        }
        if log.version.is_none() {
            log.version = version_in(line);
        }
        let b = body(line);
        let words: Vec<&str> = b.split_whitespace().collect();
        if log.comm.is_none() && words.first() == Some(&"comm") {
            if let (Some(r), Some(n), Some(l)) =
                (after(&words, "nRanks"), after(&words, "nNodes"), after(&words, "localRanks"))
            {
                log.comm = Some((r, n, l));
            }
        }
        if log.channels.is_none() && words.get(1..3) == Some(&["coll", "channels,"]) {
            log.channels = words[0].parse().ok();
        }
        if let Some((name, value)) = setting_in(line) {
            if !log.env.iter().any(|(n, _)| *n == name) {
                log.env.push((name, value));
            }
        }
    }
    log.ranks_listed = top.map(|t| t + 1);
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as the sources' format strings print them (module doc), with
    /// the launchers' tags users paste.
    const LOG: &str = "\
# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid 204199 on  nid005471 device  0 [0009:01:00] NVIDIA GH200 120GB
#  Rank  1 Group  0 Pid 204200 on  nid005471 device  1 [0019:01:00] NVIDIA GH200 120GB
#  Rank  2 Group  0 Pid 155254 on  nid005487 device  0 [0009:01:00] NVIDIA GH200 120GB
#  Rank  3 Group  0 Pid 155255 on  nid005487 device  1 [0019:01:00] NVIDIA GH200 120GB
nid005471:204199:204199 [0] NCCL INFO NCCL version 2.22.3+cuda12.6
nid005471:204199:204199 [0] NCCL INFO NCCL_ALGO set by environment to Ring
nid005471:204199:204199 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 8388608.
nid005471:204199:204199 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0,mlx5_1
nid005471:204199:204199 [0] NCCL INFO comm 0x55d0 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0
nid005471:204199:204199 [0] NCCL INFO 16 coll channels, 16 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer
nid005471:204200:204200 [1] NCCL INFO NCCL_ALGO set by environment to Tree
";

    #[test]
    fn every_fact_is_read_as_printed() {
        let log = read(LOG);
        assert_eq!(log.ranks_listed, Some(4));
        assert_eq!(log.hosts, ["nid005471", "nid005487"]);
        assert_eq!(log.gpus, ["NVIDIA GH200 120GB"]);
        assert_eq!(log.version.as_deref(), Some("2.22.3"));
        assert_eq!(log.comm, Some((4, 2, 2)));
        assert_eq!(log.channels, Some(16));
        // The first value of each name; the integer's period dropped; a name
        // commlab does not model is still read.
        let env: Vec<(&str, &str)> = log.env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        assert_eq!(env, [("NCCL_ALGO", "Ring"), ("NCCL_BUFFSIZE", "8388608"), ("NCCL_IB_HCA", "mlx5_0,mlx5_1")]);
        assert_eq!(log.collective, None);
    }

    #[test]
    fn older_rank_lists_and_launcher_tags_read_too() {
        let text = "[1,0]<stdout>:#  Rank  0 Pid  41 on node-a device  0 [0x07] NVIDIA H100 80GB HBM3\n\
                    [1,0]<stdout>:#  Rank  1 Pid  42 on node-b device  0 [0x07] NVIDIA H100 80GB HBM3\n\
                    0: # Collective test starting: all_gather_perf\n";
        let log = read(text);
        assert_eq!(log.ranks_listed, Some(2));
        assert_eq!(log.hosts, ["node-a", "node-b"]);
        assert_eq!(log.gpus, ["NVIDIA H100 80GB HBM3"]);
        assert_eq!(log.collective, Some(Collective::Allgather));
    }

    #[test]
    fn a_table_alone_says_nothing_of_its_run() {
        let text = "#       size         count      type   redop    root     time   algbw   busbw #wrong\n\
                               8             2     float     sum      -1    12.90    0.00    0.00      0\n";
        assert_eq!(read(text), RunLog::default());
    }
}

//! NCCL's own cost model (`docs/libraries.md`): `src/graph/tuning.cc`
//! (`ncclTopoTuneModel`, `ncclTopoGetAlgoTime`) and the argmin of
//! `src/enqueue.cc` (`topoGetAlgoInfo`), for NCCL 2.22.3 and the current
//! release, 2.30.7. NCCL computes, for every (algorithm, protocol), a
//! latency `lat` (µs) and a bandwidth `bw` (GB/s) from the system its
//! topology search found; a call of `n` bytes costs `lat + n / (1000·bw)`
//! and NCCL runs the cheapest enabled pair, the first in (algorithm,
//! protocol) order on a tie.
//!
//! The system is described, not detected: [`System`] holds what NCCL's
//! topology search would report (channels, bandwidth per channel inside a
//! node and between nodes, the tree pattern, the GPU generation, the CPU).
//! Every algorithm shares one graph here; NCCL searches one per algorithm,
//! so a real system's NVLS channel count may differ.
//!
//! Arithmetic is done in `f32` where NCCL uses `float`, so printed
//! predictions (`N Bytes -> Algo a proto p time t`) compare to 1e-6.

#![allow(clippy::match_same_arms, reason = "one arm per library algorithm, as the sources list them")]
use crate::choose::Collective;
use std::fmt;

/// A version of NCCL's constants and formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// NCCL 2.22.3.
    V2_22,
    /// NCCL 2.28.3: the new NVLS model (`nvlsEfficiency`, its channels and
    /// the NVLS tree's cap), NVLS tree's network latency still 14 µs,
    /// Blackwell's ring LL128 cap 2 × 36.7 and NVLS tree cap 43.1 from 3 nodes.
    V2_28,
    /// NCCL 2.30.7 (the current release).
    Current,
}

impl Version {
    /// Every version, oldest first.
    pub const ALL: [Version; 3] = [Version::V2_22, Version::V2_28, Version::Current];

    /// The release's name.
    pub fn label(self) -> &'static str {
        match self {
            Version::V2_22 => "NCCL 2.22.3",
            Version::V2_28 => "NCCL 2.28.3",
            Version::Current => "NCCL 2.30.7",
        }
    }

    /// Its id in links and flags (`2.22`, `2.28`, `current`).
    pub fn id(self) -> &'static str {
        match self {
            Version::V2_22 => "2.22",
            Version::V2_28 => "2.28",
            Version::Current => "current",
        }
    }

    /// The transcription for a release: `current` or any release `2.N[.M]`
    /// from 2.18 up, as the newest transcribed version not newer than it
    /// (2.18 to 2.27 → 2.22.3, whose tables they share but for what 2.28
    /// changed; 2.28 and 2.29 → 2.28.3; 2.30 and later → 2.30.7).
    ///
    /// # Errors
    /// Text that is not a release from 2.18 up, with what is accepted.
    pub fn parse(text: &str) -> Result<Version, String> {
        let t = text.trim();
        if t == "current" {
            return Ok(Version::Current);
        }
        let minor = t
            .strip_prefix("2.")
            .and_then(|rest| rest.split('.').next())
            .and_then(|m| m.split(['-', '+']).next())
            .and_then(|m| m.parse::<u32>().ok())
            .filter(|m| (18..=99).contains(m));
        match minor {
            Some(m) if m >= 30 => Ok(Version::Current),
            Some(m) if m >= 28 => Ok(Version::V2_28),
            Some(_) => Ok(Version::V2_22),
            None => Err(format!("version {t:?}: expected current or a release from 2.18 (2.28, 2.26.2, …)")),
        }
    }
}

/// GPU generation (compute capability 7.0, 8.0, 9.0, 10.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// sm70.
    Volta,
    /// sm80.
    Ampere,
    /// sm90.
    Hopper,
    /// sm100 (2.22 has no Blackwell row: it uses Hopper's and leaves LL128 off).
    Blackwell,
}

/// The tree pattern NCCL's topology search chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `NCCL_TOPO_PATTERN_BALANCED_TREE` (1).
    Balanced,
    /// `NCCL_TOPO_PATTERN_TREE` (3): tree bandwidth × 0.85.
    Tree,
    /// `NCCL_TOPO_PATTERN_SPLIT_TREE` (2).
    Split,
}

/// The path from a GPU to its NIC (`typeInter`), in NCCL's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NicPath {
    /// Through one `PCIe` switch.
    Pix,
    /// Through several `PCIe` switches.
    Pxb,
    /// Through another GPU over `NVLink` (PXN).
    Pxn,
    /// Through the CPU's host bridge.
    Phb,
    /// Across CPU sockets.
    Sys,
}

/// The described system.
#[allow(clippy::struct_excessive_bools, reason = "each is one yes/no of the hardware NCCL's search reports")]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct System {
    /// Constants and formulas of this release.
    pub version: Version,
    /// Nodes.
    pub nodes: u32,
    /// GPUs (ranks) per node.
    pub gpus: u32,
    /// GPU generation.
    pub arch: Arch,
    /// CPU vendor is AMD (else Intel).
    pub amd: bool,
    /// Channels (`nChannels`).
    pub channels: u32,
    /// GB/s per channel inside a node (`bwIntra`).
    pub bw_intra: f32,
    /// GB/s per channel between nodes (`bwInter`).
    pub bw_inter: f32,
    /// Tree pattern.
    pub pattern: Pattern,
    /// GPUs are linked by `NVLink` (else `PCIe`).
    pub nvlink: bool,
    /// `NVLink` SHARP (NVLS) is available: an `NVSwitch` with multicast.
    pub nvls: bool,
    /// `CollNet` (in-network reduction, SHARP) is available.
    pub collnet: bool,
    /// The GPU–NIC path.
    pub nic_path: NicPath,
    /// Extra network latency in µs (`latencyInter`).
    pub net_latency: f32,
    /// Rings use the same channels for broadcast and reduce (`sameChannels`).
    pub same_channels: bool,
    /// NCCL's settings (`NCCL_ALGO`, `NCCL_PROTO`, `NCCL_NVLS_ENABLE`, …).
    pub settings: Settings,
}

impl System {
    /// The same system under NCCL's `settings` (`NCCL_NVLS_ENABLE=0`: no NVLS).
    #[must_use]
    pub fn with_settings(self, settings: Settings) -> System {
        System { settings, nvls: self.nvls && settings.nvls_enable != Some(0), ..self }
    }

    /// The defaults for `p` ranks: the current release, one node of `p`
    /// GPUs up to 8 (else nodes of the largest divisor of `p` up to 8), Hopper, Intel, 16 channels of
    /// 20 GB/s inside a node and 12 GB/s between nodes, balanced tree,
    /// `NVLink`, no NVLS, no `CollNet`, NIC behind a `PCIe` switch.
    pub fn default_for(p: u32) -> System {
        let gpus = (1..=p.clamp(1, 8)).rev().find(|g| p % g == 0).unwrap_or(1);
        System {
            version: Version::Current,
            nodes: p.div_ceil(gpus).max(1),
            gpus,
            arch: Arch::Hopper,
            amd: false,
            channels: 16,
            bw_intra: 20.0,
            bw_inter: 12.0,
            pattern: Pattern::Balanced,
            nvlink: true,
            nvls: false,
            collnet: false,
            nic_path: NicPath::Pxb,
            net_latency: 0.0,
            same_channels: true,
            settings: Settings::default(),
        }
    }

    /// Ranks.
    pub fn ranks(&self) -> u32 {
        self.nodes * self.gpus
    }
}

/// NCCL's settings as values (`Copy`: a System carries them), read and
/// written by `nccl_env`, where each release's reading is transcribed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Settings {
    /// `NCCL_ALGO`: per function (NCCL's order, [`super::nccl_env::FUNCTIONS`]) the
    /// algorithms enabled, bit `a` for algorithm `a` in NCCL's order;
    /// `None` where no list names the function.
    pub algo: [Option<u8>; 5],
    /// `NCCL_PROTO`, as `algo`.
    pub proto: [Option<u8>; 5],
    /// `NCCL_MIN_NCHANNELS`.
    pub min_channels: Option<u32>,
    /// `NCCL_MAX_NCHANNELS`.
    pub max_channels: Option<u32>,
    /// `NCCL_NVLS_ENABLE` (0, 1, 2).
    pub nvls_enable: Option<u8>,
    /// `NCCL_BUFFSIZE`, bytes.
    pub buffsize: Option<u64>,
    /// `NCCL_NVLS_CHUNKSIZE`, bytes.
    pub nvls_chunksize: Option<u64>,
    /// `NCCL_NCHANNELS_PER_NET_PEER`.
    pub nchannels_per_net_peer: Option<u32>,
}

/// NCCL's algorithms' names, in its index order.
pub const ALGORITHMS: [&str; 7] = ["tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"];
/// NCCL's protocols' names, in its index order.
pub const PROTOCOLS: [&str; 3] = ["ll", "ll128", "simple"];

/// One of NCCL's algorithms (`NCCL_ALGO_*`), in its index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// `NCCL_ALGO_TREE`: a double binary tree of nodes, a chain in each.
    Tree,
    /// `NCCL_ALGO_RING`.
    Ring,
    /// `NCCL_ALGO_COLLNET_DIRECT`.
    CollnetDirect,
    /// `NCCL_ALGO_COLLNET_CHAIN`.
    CollnetChain,
    /// `NCCL_ALGO_NVLS`: the `NVLink` switch reduces (one node).
    Nvls,
    /// `NCCL_ALGO_NVLS_TREE`: NVLS in each node, a tree between nodes.
    NvlsTree,
    /// `NCCL_ALGO_PAT`.
    Pat,
}

impl Algorithm {
    /// Every algorithm, in NCCL's index order.
    pub const ALL: [Algorithm; 7] = [
        Algorithm::Tree,
        Algorithm::Ring,
        Algorithm::CollnetDirect,
        Algorithm::CollnetChain,
        Algorithm::Nvls,
        Algorithm::NvlsTree,
        Algorithm::Pat,
    ];

    /// Its index in NCCL's tables.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name (`tree`, `nvls_tree`, …).
    pub fn id(self) -> &'static str {
        ALGORITHMS[self.index()]
    }
}

impl std::str::FromStr for Algorithm {
    type Err = String;
    fn from_str(text: &str) -> Result<Algorithm, String> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.id() == text)
            .ok_or_else(|| format!("{text:?} is not one of NCCL's algorithms ({})", ALGORITHMS.join(", ")))
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One of NCCL's protocols (`NCCL_PROTO_*`), in its index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protocol {
    /// `NCCL_PROTO_LL`: 8-byte lines, half of them flags.
    Ll,
    /// `NCCL_PROTO_LL128`: 128-byte lines, 8 bytes of flags each.
    Ll128,
    /// `NCCL_PROTO_SIMPLE`.
    Simple,
}

impl Protocol {
    /// Every protocol, in NCCL's index order.
    pub const ALL: [Protocol; 3] = [Protocol::Ll, Protocol::Ll128, Protocol::Simple];

    /// Its index in NCCL's tables.
    pub fn index(self) -> usize {
        self as usize
    }

    /// Its name (`ll`, `ll128`, `simple`).
    pub fn id(self) -> &'static str {
        PROTOCOLS[self.index()]
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;
    fn from_str(text: &str) -> Result<Protocol, String> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.id() == text)
            .ok_or_else(|| format!("{text:?} is not one of NCCL's protocols ({})", PROTOCOLS.join(", ")))
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// What runs NCCL's algorithm among commlab's schedules: the one map from
/// NCCL's algorithms to ours. Each has two forms: on a network of nodes it
/// runs as NCCL runs it ([`Schedule::id`], `commlab predict`'s `simulated`),
/// and in the Chooser's catalogue, which has no nodes, as the algorithm of
/// the same structure ([`Schedule::catalogue`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// NCCL's ring (allreduce, allgather, reduce-scatter).
    Ring,
    /// NCCL's ring for a rooted collective: a pipelined chain.
    Chain,
    /// NCCL's tree: its two trees of nodes, a chain in each node
    /// (`choose::node_tree`); in the catalogue, the double binary tree.
    Tree,
    /// NVLS and NVLS tree: a rank on each node's `NVLink` switch
    /// (`choose::nvls`); nothing in the catalogue.
    Nvls,
    /// All-to-all: NCCL's grouped point-to-point sends, which it runs with
    /// no algorithm of its model.
    Pairwise,
}

impl Schedule {
    /// What runs NCCL's `algorithm` of `collective` (`None` for
    /// all-to-all's point-to-point), or `None` where commlab has no
    /// schedule for it (`CollNet`, PAT, a tree of a rooted collective).
    pub fn of(collective: Collective, algorithm: Option<Algorithm>) -> Option<Schedule> {
        use Collective as C;
        let Some(algorithm) = algorithm else {
            return (collective == C::AllToAll).then_some(Schedule::Pairwise);
        };
        match (collective, algorithm) {
            (C::AllToAll, _) => None,
            (C::Allreduce, Algorithm::Tree) => Some(Schedule::Tree),
            (C::Allreduce | C::Allgather | C::ReduceScatter, Algorithm::Ring) => Some(Schedule::Ring),
            (C::Allreduce | C::Allgather | C::ReduceScatter, Algorithm::Nvls | Algorithm::NvlsTree) => {
                Some(Schedule::Nvls)
            }
            (C::Broadcast | C::Reduce, Algorithm::Ring) => Some(Schedule::Chain),
            _ => None,
        }
    }

    /// Its id as `commlab predict` names what it simulated.
    pub fn id(self) -> &'static str {
        match self {
            Schedule::Ring => "ring",
            Schedule::Chain => "chain",
            Schedule::Tree => "node-tree",
            Schedule::Nvls => "nvls",
            Schedule::Pairwise => "pairwise",
        }
    }

    /// The Chooser's algorithm of the same structure (`None`: NVLS, which
    /// needs the switch).
    pub fn catalogue(self) -> Option<&'static str> {
        match self {
            Schedule::Ring => Some("ring"),
            Schedule::Chain => Some("chain"),
            Schedule::Tree => Some("double-binary-tree"),
            Schedule::Nvls => None,
            Schedule::Pairwise => Some("pairwise"),
        }
    }

    /// Whether it moves the data in pieces through a pipeline (trees and
    /// chains).
    pub fn pipelined(self) -> bool {
        matches!(self, Schedule::Chain | Schedule::Tree)
    }
}

impl std::str::FromStr for Schedule {
    type Err = String;
    fn from_str(text: &str) -> Result<Schedule, String> {
        [Schedule::Ring, Schedule::Chain, Schedule::Tree, Schedule::Nvls, Schedule::Pairwise]
            .into_iter()
            .find(|s| s.id() == text)
            .ok_or_else(|| format!("{text:?} is not a schedule of NCCL's algorithms"))
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

const TREE: usize = 0;
const RING: usize = 1;
const CN_DIRECT: usize = 2;
const CN_CHAIN: usize = 3;
const NVLS: usize = 4;
const NVLS_TREE: usize = 5;
const PAT: usize = 6;
const LL: usize = 0;
const LL128: usize = 1;
const SIMPLE: usize = 2;
const HW_NVLINK: usize = 0;
const HW_PCI: usize = 1;
const HW_NET: usize = 2;

type Table = [[f32; 3]; 7];

/// `baseLat` (2.22) / `baseLatencies` (current), µs.
fn base_lat(v: Version) -> Table {
    let tree_simple = if v == Version::V2_22 { 0.0 } else { 8.4 };
    [[6.8, 14.0, tree_simple], [6.6, 14.0, 8.4], [0.0; 3], [0.0; 3], [0.0; 3], [0.0; 3], [8.0, 8.0, 8.0]]
}

/// `hwLat` / `hwLatencies`: `NVLink`, PCI, network; µs.
fn hw_lat(v: Version) -> [Table; 3] {
    let old = v == Version::V2_22;
    let tree_simple = if old { 28.0 } else { 4.0 };
    [
        [
            [0.6, 1.25, tree_simple],
            [0.6, 1.9, 3.4],
            [0.0, 0.0, 3.7],
            [0.0, 0.0, 2.8],
            [0.0, 0.0, 25.0],
            [0.0, 0.0, 25.0],
            [0.0, 0.0, 4.0],
        ],
        [
            [1.0, 1.9, tree_simple],
            [1.0, 2.5, 5.7],
            [0.0, 0.0, 3.7],
            [0.0, 0.0, 2.8],
            [0.0; 3],
            [0.0; 3],
            [0.0, 0.0, 4.0],
        ],
        [
            [5.0, 8.5, if old { 28.0 } else { 14.0 }],
            [2.7, 4.0, 14.0],
            [0.0, 0.0, 31.0],
            [0.0, 0.0, 30.0],
            [0.0, 0.0, 18.0],
            [0.0, 0.0, if v == Version::Current { 20.9 } else { 14.0 }],
            [0.0, 0.0, 14.0],
        ],
    ]
}

// Rows Volta, Ampere, Hopper, Blackwell (2.22 has the first three);
// columns 1 node, 2 nodes, more.
const LL_MAX_BWS: [[f64; 3]; 4] =
    [[39.0, 39.0, 20.4], [87.7, 22.5, 19.0], [141.0, 45.0, 35.0], [2.0 * 141.0, 2.0 * 45.0, 2.0 * 35.0]];
const RING_LL128_BWS: [[f64; 3]; 4] = [[20.0; 3], [20.0; 3], [36.7; 3], [40.0; 3]];
const TREE_LL128_BWS: [[f64; 3]; 4] = [[20.0; 3], [20.0; 3], [36.7, 36.7, 29.0], [55.6, 31.67, 20.0]];
const TREE_BWS: [[f64; 3]; 4] = [[26.5, 18.5, 10.0], [24.0, 23.6, 17.8], [38.7, 41.4, 36.0], [70.0, 42.8, 24.0]];
const NVLS_TREE_BWS: [[f64; 3]; 4] = [[26.5, 18.5, 10.0], [24.0, 23.6, 17.8], [0.0, 57.7, 45.5], [0.0, 96.0, 80.0]];
const NVLS_EFFICIENCY: [f32; 4] = [0.0, 0.0, 0.85, 0.74];

/// `treeCorrectionFactor`: powers of two from 64 B.
const TREE_CORRECTION: [[f32; 23]; 3] = [
    [1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0],
    [1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9, 1.0, 1.0],
    [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8, 0.9, 0.9],
];

fn log2i(n: u64) -> i32 {
    if n == 0 {
        -1
    } else {
        i32::try_from(n.ilog2()).unwrap_or(i32::MAX)
    }
}

/// NCCL's function for one of our collectives (`None`: all-to-all, which
/// NCCL runs as grouped point-to-point sends, without a cost model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func {
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    AllReduce,
}

fn func(c: Collective) -> Option<Func> {
    Some(match c {
        Collective::Broadcast => Func::Broadcast,
        Collective::Reduce => Func::Reduce,
        Collective::Allgather => Func::AllGather,
        Collective::ReduceScatter => Func::ReduceScatter,
        Collective::Allreduce => Func::AllReduce,
        Collective::AllToAll => return None,
    })
}

/// The tuning table of one collective: `(latency µs, bandwidth GB/s)` per
/// (algorithm, protocol); bandwidth 0 where the pair is disabled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    /// Latency, µs.
    pub latency: Table,
    /// Bandwidth, GB/s (0: disabled).
    pub bandwidth: Table,
}

/// What `ncclTopoTuneModel` derives from the system before its loops over
/// (algorithm, protocol): its locals, named as in the source. The function
/// is transcribed as [`Model::bandwidth`] (the bus bandwidth of a pair, the
/// first half of the loop body), [`Model::latency`] (the second half) and
/// [`Model::enable`] (the enable rules after the loops).
struct Model<'a> {
    s: &'a System,
    f: Func,
    old: bool,
    n_nodes: u32,
    n_ranks: u32,
    cc: usize,
    ll_max_bw: f64,
    tree_bw: f64,
    ring_ll128_bw: f64,
    tree_ll128_bw: f64,
    nvls_tree_bw: f64,
    ppn: f32,
    intra_hw: usize,
    hw: usize,
    base: Table,
    hwl: [Table; 3],
    nsteps: u32,
    bw_inter: f32,
    pat_enabled: bool,
}

#[allow(clippy::cast_precision_loss, reason = "rank and node counts are small")]
impl Model<'_> {
    fn new(s: &System, f: Func) -> Model<'_> {
        let v = s.version;
        let old = v == Version::V2_22;
        let n_nodes = s.nodes.max(1);
        let n_ranks = s.ranks();
        let cc = match (s.arch, old) {
            (Arch::Volta, _) => 0,
            (Arch::Ampere, _) => 1,
            (Arch::Hopper, _) | (Arch::Blackwell, true) => 2,
            (Arch::Blackwell, false) => 3,
        };
        let index2 = if n_nodes <= 2 { n_nodes as usize - 1 } else { 2 };
        let index1 = if n_nodes == 1 { cc } else { usize::from(s.amd) };
        let intra_hw = if s.nvlink { HW_NVLINK } else { HW_PCI };
        Model {
            s,
            f,
            old,
            n_nodes,
            n_ranks,
            cc,
            ll_max_bw: LL_MAX_BWS[index1][index2],
            tree_bw: TREE_BWS[cc][index2],
            // 2.28's Blackwell row: twice Hopper's ring LL128 cap, 43.1 for the NVLS tree from 3 nodes.
            ring_ll128_bw: if v == Version::V2_28 && cc == 3 { 2.0 * 36.7 } else { RING_LL128_BWS[cc][index2] },
            tree_ll128_bw: TREE_LL128_BWS[cc][index2],
            nvls_tree_bw: if v == Version::V2_28 && cc == 3 && index2 == 2 { 43.1 } else { NVLS_TREE_BWS[cc][index2] },
            ppn: n_ranks as f32 / n_nodes as f32,
            intra_hw,
            hw: if n_nodes == 1 { intra_hw } else { HW_NET },
            base: base_lat(v),
            hwl: hw_lat(v),
            nsteps: match f {
                Func::AllReduce => 2 * (n_ranks.max(1) - 1),
                Func::ReduceScatter | Func::AllGather => n_ranks.max(1) - 1,
                _ => n_ranks,
            },
            bw_inter: if n_nodes == 1 { s.bw_intra } else { s.bw_inter },
            // PAT: one GPU per node, host network (current release only).
            pat_enabled: !old && n_nodes == n_ranks,
        }
    }

    /// Channels of each algorithm's graph: NVLS and `CollNet` graphs exist
    /// only where the hardware has them.
    fn channels(&self, a: usize) -> u32 {
        match a {
            NVLS | NVLS_TREE if !self.s.nvls => 0,
            CN_DIRECT | CN_CHAIN if !self.s.collnet => 0,
            _ => self.s.channels,
        }
    }

    /// Whether the loops visit (`a`, `p`) for this collective.
    fn visits(&self, a: usize, p: usize) -> bool {
        let skip = match self.f {
            Func::Broadcast | Func::Reduce => a != RING,
            Func::ReduceScatter | Func::AllGather => !(a == RING || a == NVLS || a == CN_DIRECT || a == PAT),
            Func::AllReduce => a == PAT,
        };
        !skip && !((a == NVLS || a == NVLS_TREE || a == PAT) && p != SIMPLE) && (a != PAT || self.pat_enabled)
    }

    /// NVLS's and NVLS Tree's per-channel bandwidth (`None`: the pair is skipped).
    fn nvls_bw(&self, a: usize, n_ch: u32) -> Option<f32> {
        let (s, bw_inter, n_nodes) = (self.s, self.bw_inter, self.n_nodes);
        if self.old {
            return Some(if a == NVLS {
                s.bw_intra.min(bw_inter)
            } else {
                s.bw_intra.min(if n_nodes <= 2 { bw_inter } else { bw_inter / 2.0 })
            });
        }
        if n_ch < 2 {
            return None;
        }
        let mut intra = s.bw_intra * NVLS_EFFICIENCY[self.cc] * (n_ch - 1) as f32 / n_ch as f32;
        if self.f == Func::AllReduce {
            intra *= 2.0;
        } else {
            intra *= (self.ppn - 1.0) / self.ppn;
        }
        let inter = bw_inter * if n_nodes <= 2 && a == NVLS_TREE { 2.0 } else { 1.0 };
        let cap = if a == NVLS_TREE { self.nvls_tree_bw as f32 } else { f32::MAX };
        Some(intra.min(inter).min(cap))
    }

    /// The graph's `bwIntra` of algorithm `a` as NCCL's search leaves it
    /// (`search.cc`, `ncclTopoCompute`): on one node the description's; on
    /// several, a ring's graph moves at one speed inside and between nodes
    /// (its pass 2 raises `bwIntra = bwInter` together), while a tree's
    /// `bwIntra` is raised up to twice its `bwInter` ("increase bwIntra for
    /// trees (2 nodes or collnet)"), within what `NVLink` carries. Only
    /// `nNodes ≤ 2` and `CollNet` read it (`tuning.cc`): so on two nodes
    /// NCCL's tree can beat the network's bound.
    fn graph_intra(&self, a: usize) -> f32 {
        let s = self.s;
        if self.n_nodes == 1 {
            s.bw_intra
        } else if a == TREE {
            s.bw_intra.min(2.0 * s.bw_inter)
        } else {
            s.bw_intra.min(s.bw_inter)
        }
    }

    /// The bus bandwidth of (`a`, `p`), as algorithm bandwidth (`None`: skipped).
    #[allow(clippy::many_single_char_names, reason = "a, p, s, f, k as in NCCL's source")]
    fn bandwidth(&self, a: usize, p: usize) -> Option<f32> {
        let (s, f, old, n_nodes, cc) = (self.s, self.f, self.old, self.n_nodes, self.cc);
        let n_ch = self.channels(a);
        let collnet = a == CN_DIRECT || a == CN_CHAIN;
        let mut bw: f32 = if n_nodes <= 2 || collnet { self.graph_intra(a) } else { self.bw_inter };
        if a == NVLS || a == NVLS_TREE {
            bw = self.nvls_bw(a, n_ch)?;
        }
        let mut bus: f32 = n_ch as f32 * bw;
        if a == RING && p == LL {
            bus = self.ll_max_bw.min(f64::from(bus) * 0.5) as f32;
        }
        if a == RING && p == LL128 {
            let k = if old && self.ppn < 2.0 { 0.7 } else { 0.92 };
            bus = (f64::from(bus) * k).min(f64::from(n_ch) * self.ring_ll128_bw) as f32;
        }
        if a == TREE {
            bus = (f64::from(bus) * 0.92).min(f64::from(n_ch) * self.tree_bw) as f32;
        }
        if a == TREE && p == LL {
            bus = (f64::from(bus) * 1.0 / 3.8).min(self.ll_max_bw) as f32;
        }
        if a == TREE && p == LL128 {
            let k = if n_nodes == 1 { 7.0 / 9.0 } else { 120.0 / 128.0 };
            bus = (f64::from(bus) * k).min(f64::from(n_ch) * self.tree_ll128_bw) as f32;
        }
        if a == TREE && s.pattern == Pattern::Tree {
            bus *= 0.85;
        }
        if a == PAT {
            bus *= 0.75;
        }
        if collnet && p != SIMPLE {
            bus = 0.0;
        }
        if a == CN_DIRECT && p == SIMPLE {
            if matches!(f, Func::AllGather | Func::ReduceScatter) {
                // Needs the network plugin's collective; commlab's
                // described CollNet offers allreduce only.
                bus = 0.0;
            } else {
                let mut factor = self.ppn / n_ch.max(1) as f32;
                factor -= (factor - 1.0) / 2.0;
                bus /= factor;
                if cc >= 2 {
                    bus *= 0.85;
                }
            }
        }
        if a == NVLS && matches!(f, Func::AllGather | Func::ReduceScatter) && n_nodes > 1 {
            bus = 0.0;
        }
        Some(bus * self.bus_to_algorithm(a))
    }

    /// Bus bandwidth to algorithm bandwidth.
    fn bus_to_algorithm(&self, a: usize) -> f32 {
        let (f, old) = (self.f, self.old);
        let ratio_applies = if old {
            !(a == CN_DIRECT && matches!(f, Func::AllGather | Func::ReduceScatter))
        } else {
            !(a != RING && matches!(f, Func::AllGather | Func::ReduceScatter))
        };
        if !ratio_applies {
            1.0
        } else if a == RING || (!old && (a == NVLS || a == NVLS_TREE)) {
            self.n_ranks as f32 / self.nsteps as f32
        } else if old && (a == NVLS || a == NVLS_TREE) {
            5.0 / 6.0
        } else {
            0.5
        }
    }

    /// The ring's latency beyond the base (`intra_lat`, `inter_lat` as the loop computed them).
    fn ring_latency(&self, p: usize, intra_lat: f32, inter_lat: f32) -> f32 {
        let (s, f, old, n_nodes, nsteps) = (self.s, self.f, self.old, self.n_nodes, self.nsteps);
        let mut ring_lat = self.hwl[self.hw][RING][p];
        if matches!(f, Func::Reduce | Func::Broadcast) {
            if s.same_channels {
                return ring_lat;
            }
            if p == SIMPLE {
                ring_lat = self.hwl[self.hw][TREE][p];
            }
            return nsteps as f32 * ring_lat;
        }
        let mut net_overhead = 0.0f32;
        if n_nodes > 1 {
            net_overhead = if s.amd { 2.0 } else { 1.0 };
            if p == SIMPLE {
                net_overhead *= 3.0;
            }
        }
        let intra_lat = intra_lat.max(net_overhead);
        let inter_steps: u32 = if old {
            match f {
                Func::AllReduce => {
                    if n_nodes > 1 {
                        2 * n_nodes
                    } else {
                        0
                    }
                }
                Func::ReduceScatter | Func::AllGather => n_nodes - 1,
                _ => n_nodes,
            }
        } else if n_nodes == 1 {
            0
        } else if f == Func::AllReduce {
            2 * (n_nodes - 1)
        } else {
            n_nodes - 1
        };
        (nsteps - inter_steps) as f32 * intra_lat + inter_steps as f32 * inter_lat
    }

    /// The latency of (`a`, `p`), µs.
    fn latency(&self, a: usize, p: usize) -> f32 {
        let (s, f, n_nodes, n_ranks) = (self.s, self.f, self.n_nodes, self.n_ranks);
        let mut lat = self.base[a][p];
        let intra_lat = self.hwl[self.intra_hw][a][p];
        let mut inter_lat =
            if !self.old && self.ppn == 1.0 { self.hwl[HW_NET][TREE][p] } else { self.hwl[HW_NET][a][p] };
        inter_lat += s.net_latency;
        if p == SIMPLE {
            inter_lat += s.net_latency;
        }
        let local = (n_ranks / n_nodes) as f32 - 1.0;
        let log_nodes = log2i(u64::from(n_nodes)) as f32;
        match a {
            RING => lat += self.ring_latency(p, intra_lat, inter_lat),
            TREE if (self.old || f == Func::AllReduce) => {
                lat += 2.0 * (local * intra_lat + log_nodes * inter_lat);
            }
            CN_DIRECT => lat += 2.0 * (local.min(1.0) * intra_lat + local * 0.4) + inter_lat,
            CN_CHAIN => lat += 2.0 * local * intra_lat + inter_lat,
            NVLS => {
                lat = intra_lat;
                if n_nodes > 1 {
                    lat += inter_lat;
                }
            }
            NVLS_TREE => lat += intra_lat + 2.0 * log_nodes * inter_lat,
            PAT => {
                if matches!(f, Func::AllGather | Func::ReduceScatter) {
                    lat += log_nodes * (inter_lat / 3.5) + n_ranks as f32 * 2.8;
                }
            }
            _ => {}
        }
        lat
    }

    /// Enables: NVLS Tree needs several nodes; without `CollNet`, NVLS runs on
    /// one node only; LL128 only where NCCL tests it.
    fn enable(&self, bandwidth: &mut Table, collective: Collective) {
        let (s, n_nodes) = (self.s, self.n_nodes);
        let settings = &s.settings;
        for (a, row) in bandwidth.iter_mut().enumerate() {
            let algo_off = (a == NVLS_TREE && n_nodes == 1)
                || (a == NVLS && !s.collnet && n_nodes > 1)
                || !settings.algorithm_on(collective, Algorithm::ALL[a]);
            for (p, bw) in row.iter_mut().enumerate() {
                let mut on = true;
                // NCCL_PROTO: a protocol named is on (LL128 too, where NCCL
                // would not turn it on by itself), one excluded is off.
                let set = settings.protocol_set(collective, Protocol::ALL[p]);
                if let Some(set) = set {
                    on = set;
                } else if p == LL128 {
                    on = s.nvlink;
                    if n_nodes > 1 {
                        let limit = if self.cc >= 2 { NicPath::Pxn } else { NicPath::Pxb };
                        on &= s.nic_path <= limit;
                    }
                    if self.old && s.arch == Arch::Blackwell {
                        on = false;
                    }
                }
                if algo_off || !on {
                    *bw = 0.0;
                }
            }
        }
    }
}

/// `ncclTopoTuneModel` for one collective, with the enable rules applied.
fn tune(s: &System, f: Func, collective: Collective) -> Tuning {
    let mut latency = [[0.0f32; 3]; 7];
    let mut bandwidth = [[0.0f32; 3]; 7];
    if s.ranks() <= 1 {
        return Tuning { latency, bandwidth };
    }
    let model = Model::new(s, f);
    let max_algo = if model.old { 6 } else { 7 };
    for a in 0..max_algo {
        for p in 0..3 {
            if !model.visits(a, p) {
                continue;
            }
            let Some(bus) = model.bandwidth(a, p) else { continue };
            bandwidth[a][p] = bus;
            latency[a][p] = model.latency(a, p);
        }
    }
    model.enable(&mut bandwidth, collective);
    Tuning { latency, bandwidth }
}

/// One call's cost: every enabled pair's time (µs) and the pick.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// Per enabled (algorithm, protocol), in NCCL's index order.
    pub times: Vec<(Algorithm, Protocol, f32)>,
    /// The pick and its time (µs).
    pub pick: (Algorithm, Protocol, f32),
}

impl Prediction {
    /// The pick, e.g. (tree, LL).
    pub fn choice(&self) -> (Algorithm, Protocol) {
        (self.pick.0, self.pick.1)
    }
}

/// `ncclTopoGetAlgoTime` then the argmin, for `bytes` (NCCL's `nBytes`:
/// the whole vector; the gathered size for allgather and reduce-scatter's
/// input, which is the Chooser's `n`).
pub fn predict(s: &System, collective: Collective, bytes: u64) -> Option<Prediction> {
    let f = func(collective)?;
    if s.ranks() <= 1 {
        let one = (Algorithm::Ring, Protocol::Simple, 0.0);
        return Some(Prediction { times: vec![one], pick: one });
    }
    let t = tune(s, f, collective);
    let log_size = log2i(bytes >> 6);
    let mut times = Vec::new();
    #[allow(clippy::needless_range_loop, reason = "a and p index three tables, as in NCCL")]
    for a in 0..ALGORITHMS.len() {
        for p in 0..3 {
            let mut bw = t.bandwidth[a][p];
            let mut lat = t.latency[a][p];
            if bw == 0.0 {
                continue;
            }
            if a == TREE && (s.version == Version::V2_22 || f == Func::AllReduce) && (0..23).contains(&log_size) {
                bw *= TREE_CORRECTION[p][usize::try_from(log_size).unwrap_or(0)];
            }
            if a == RING
                && p == SIMPLE
                && s.nodes > 1
                && f == Func::AllReduce
                && bytes / u64::from(s.channels.max(1) * s.ranks()) >= 64
            {
                lat *= if s.arch == Arch::Volta { 1.9 } else { 1.4 };
            }
            #[allow(clippy::cast_precision_loss, reason = "NCCL divides a size_t by a float")]
            let time = lat + bytes as f32 / (1000.0 * bw);
            times.push((Algorithm::ALL[a], Protocol::ALL[p], time));
        }
    }
    let mut pick = None::<(Algorithm, Protocol, f32)>;
    for &(a, p, time) in &times {
        if time >= 0.0 && pick.is_none_or(|(_, _, best)| time < best) {
            pick = Some((a, p, time));
        }
    }
    pick.map(|pick| Prediction { times, pick })
}

/// The share of Simple's payload rate that `protocol` reaches with
/// `algorithm` on `s`, by NCCL's own model: its bus bandwidth for the pair
/// over its bus bandwidth for the algorithm with Simple (`tuning.cc`: LL's
/// half line and `llMaxBw` cap, LL128's 0.92 and per-channel caps, the
/// tree's 1/3.8 for LL). `None` where NCCL's model has no such pair.
pub fn protocol_share(s: &System, collective: Collective, algorithm: Algorithm, protocol: Protocol) -> Option<f64> {
    let (a, p) = (algorithm.index(), protocol.index());
    let t = tune(s, func(collective)?, collective);
    let (own, simple) = (t.bandwidth[a][p], t.bandwidth[a][SIMPLE]);
    (own > 0.0 && simple > 0.0).then(|| f64::from(own) / f64::from(simple))
}

/// A `--nccl` description that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemError(pub String);

impl fmt::Display for SystemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Every key of a description, its values and its default, in words.
pub const KEYS: [(&str, &str); 16] = [
    (
        "version",
        "2.22, 2.28, current (2.30.7), or any release from 2.18 (the newest of those not newer); default current",
    ),
    ("nodes", "1..=4096; default p / gpus"),
    ("gpus", "GPUs per node, 1..=72; default the largest divisor of p up to 8"),
    ("arch", "volta, ampere, hopper or blackwell; default hopper"),
    ("cpu", "intel or amd; default intel"),
    ("channels", "1..=64; default 16"),
    ("bw-intra", "GB/s per channel inside a node, (0, 1000]; default 20"),
    ("bw-inter", "GB/s per channel between nodes, (0, 1000]; default 12"),
    ("pattern", "balanced, tree or split; default balanced"),
    ("link", "nvlink or pcie; default nvlink"),
    ("nvls", "0 or 1: NVLink SHARP; default 0"),
    ("collnet", "0 or 1: in-network reduction; default 0"),
    ("nic-path", "pix, pxb, pxn, phb or sys; default pxb"),
    ("net-latency", "extra µs per network hop, [0, 1000]; default 0"),
    ("same-channels", "0 or 1; default 1"),
    ("p", "must equal nodes × gpus"),
];

fn num<T: std::str::FromStr + PartialOrd>(key: &str, v: &str, lo: T, hi: T, range: &str) -> Result<T, SystemError> {
    match v.parse::<T>() {
        Ok(x) if x >= lo && x <= hi => Ok(x),
        _ => Err(SystemError(format!("{key} = {v:?} is out of range: expected {range}"))),
    }
}

fn flag(key: &str, v: &str) -> Result<bool, SystemError> {
    match v {
        "1" | "on" | "yes" => Ok(true),
        "0" | "off" | "no" => Ok(false),
        _ => Err(SystemError(format!("{key} = {v:?}: expected 0 or 1"))),
    }
}

/// Reads `key=value,…` (the CLI's `--nccl`, the URL's `nccl=`) for `p` ranks.
///
/// # Errors
/// An unknown key, a value out of its range, or `nodes × gpus ≠ p`.
pub fn parse_system(text: &str, p: u32) -> Result<System, SystemError> {
    let mut s = System::default_for(p);
    let (mut nodes, mut gpus) = (None, None);
    let mut seen = std::collections::BTreeSet::new();
    for part in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let (k, v) = part.split_once('=').ok_or_else(|| SystemError(format!("{part:?} is not key=value")))?;
        let (k, v) = (k.trim(), v.trim());
        if !seen.insert(k) {
            return Err(SystemError(format!("{k} is given twice: give each key once")));
        }
        match k {
            "version" => s.version = Version::parse(v).map_err(SystemError)?,
            "nodes" => nodes = Some(num(k, v, 1, 4096, "1..=4096")?),
            "gpus" => gpus = Some(num(k, v, 1, 72, "1..=72")?),
            "arch" => {
                s.arch = match v {
                    "volta" => Arch::Volta,
                    "ampere" => Arch::Ampere,
                    "hopper" => Arch::Hopper,
                    "blackwell" => Arch::Blackwell,
                    _ => return Err(SystemError(format!("arch = {v:?}: expected volta, ampere, hopper or blackwell"))),
                }
            }
            "cpu" => {
                s.amd = match v {
                    "intel" => false,
                    "amd" => true,
                    _ => return Err(SystemError(format!("cpu = {v:?}: expected intel or amd"))),
                }
            }
            "channels" => s.channels = num(k, v, 1, 64, "1..=64")?,
            "bw-intra" => s.bw_intra = num(k, v, f32::MIN_POSITIVE, 1000.0, "(0, 1000] GB/s")?,
            "bw-inter" => s.bw_inter = num(k, v, f32::MIN_POSITIVE, 1000.0, "(0, 1000] GB/s")?,
            "pattern" => {
                s.pattern = match v {
                    "balanced" => Pattern::Balanced,
                    "tree" => Pattern::Tree,
                    "split" => Pattern::Split,
                    _ => return Err(SystemError(format!("pattern = {v:?}: expected balanced, tree or split"))),
                }
            }
            "link" => {
                s.nvlink = match v {
                    "nvlink" => true,
                    "pcie" => false,
                    _ => return Err(SystemError(format!("link = {v:?}: expected nvlink or pcie"))),
                }
            }
            "nvls" => s.nvls = flag(k, v)?,
            "collnet" => s.collnet = flag(k, v)?,
            "same-channels" => s.same_channels = flag(k, v)?,
            "nic-path" => {
                s.nic_path = match v {
                    "pix" => NicPath::Pix,
                    "pxb" => NicPath::Pxb,
                    "pxn" => NicPath::Pxn,
                    "phb" => NicPath::Phb,
                    "sys" => NicPath::Sys,
                    _ => return Err(SystemError(format!("nic-path = {v:?}: expected pix, pxb, pxn, phb or sys"))),
                }
            }
            "net-latency" => s.net_latency = num(k, v, 0.0, 1000.0, "[0, 1000] µs")?,
            _ => {
                let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).filter(|k| *k != "p").collect();
                return Err(SystemError(format!("unknown key {k:?} (keys: {})", known.join(", "))));
            }
        }
    }
    match (nodes, gpus) {
        (Some(n), Some(g)) => (s.nodes, s.gpus) = (n, g),
        (Some(n), None) => (s.nodes, s.gpus) = (n, (p / n).max(1)),
        (None, Some(g)) => (s.nodes, s.gpus) = ((p / g).max(1), g),
        (None, None) => {}
    }
    if s.ranks() != p {
        return Err(SystemError(format!("nodes × gpus = {} × {} = {} ranks, but p = {p}", s.nodes, s.gpus, s.ranks())));
    }
    Ok(s)
}

/// The Chooser's algorithm for NCCL's, where one has the same structure
/// ([`Schedule::of`], [`Schedule::catalogue`]).
pub fn ours(collective: Collective, algorithm: Algorithm) -> Option<&'static str> {
    Schedule::of(collective, Some(algorithm)).and_then(Schedule::catalogue)
}

/// NCCL's NVLS efficiency η (`nvlsEfficiency`, `tuning.cc` from 2.28.3):
/// the share of a GPU's usable `NVLink` bandwidth NVLS moves payload at;
/// 0 where NVLS does not run (before Hopper).
pub fn nvls_efficiency(arch: Arch) -> f64 {
    f64::from(
        NVLS_EFFICIENCY[match arch {
            Arch::Volta => 0,
            Arch::Ampere => 1,
            Arch::Hopper => 2,
            Arch::Blackwell => 3,
        }],
    )
}

/// The most heads an NVLS graph has (`NCCL_MAX_NVLS_ARITY`,
/// `src/include/device.h`: 32 in 2.22.3, 2.28.3 and 2.30.7).
pub const MAX_NVLS_ARITY: u32 = 32;

/// The heads of NVLS on a node of `gpus` GPUs: one a GPU, at most
/// [`MAX_NVLS_ARITY`] (`src/graph/search.cc`: the NVLS graph's channels are
/// its heads, at most the node's GPUs), so on a 72-GPU `NVLink` domain 40
/// GPUs head no slice.
pub fn nvls_heads(gpus: u32) -> u32 {
    gpus.min(MAX_NVLS_ARITY)
}

/// The channels NCCL opens for NVLS (`src/transport/nvls.cc`:
/// `NVLS_NCHANNELS_SM90` 16; on sm100 32 across nodes, 24 on one node).
pub fn nvls_channels(arch: Arch, nodes: u32) -> u32 {
    match arch {
        Arch::Blackwell if nodes > 1 => 32,
        Arch::Blackwell => 24,
        _ => 16,
    }
}

/// What a step crosses, as NCCL's latency tables index it (`NCCL_HW_NVLINK`,
/// `NCCL_HW_PCI`, `NCCL_HW_NET` of `src/include/device.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hw {
    /// `NVLink`.
    Nvlink,
    /// `PCIe` (a node without `NVLink`).
    Pci,
    /// The network.
    Net,
}

/// NCCL's per-step hardware latency in µs (`hwLat` / `hwLatencies` of
/// `tuning.cc`) for a step over `hw`.
pub fn step_latency(v: Version, hw: Hw, algorithm: Algorithm, protocol: Protocol) -> f32 {
    let row = match hw {
        Hw::Nvlink => HW_NVLINK,
        Hw::Pci => HW_PCI,
        Hw::Net => HW_NET,
    };
    hw_lat(v)[row][algorithm.index()][protocol.index()]
}

/// NCCL's base latency of a call in µs (`baseLat` / `baseLatencies`).
pub fn base_latency(v: Version, algorithm: Algorithm, protocol: Protocol) -> f32 {
    base_lat(v)[algorithm.index()][protocol.index()]
}

#[cfg(test)]
mod version_tests {
    use super::{hw_lat, Version, HW_NET, NVLS_TREE, SIMPLE};

    /// A stated release maps to the newest transcription not newer than it.
    #[test]
    fn releases_map_to_their_transcription() {
        for (text, want) in [
            ("2.18.1", Version::V2_22),
            ("2.22", Version::V2_22),
            ("2.26.2", Version::V2_22),
            ("2.26.2+cuda12.8", Version::V2_22),
            ("2.28.3", Version::V2_28),
            ("2.29.7", Version::V2_28),
            ("2.30.7", Version::Current),
            ("2.31", Version::Current),
            ("current", Version::Current),
        ] {
            assert_eq!(Version::parse(text), Ok(want), "{text}");
        }
        for bad in ["", "2", "2.x", "1.0", "3.1", "2.17.1", "latest"] {
            assert!(Version::parse(bad).is_err(), "{bad}");
        }
        for v in Version::ALL {
            assert_eq!(Version::parse(v.id()), Ok(v));
        }
        // NVLS tree's network latency: 14 µs up to 2.28.3, 20.9 from 2.28.9 (tuning.cc).
        let net = |v| hw_lat(v)[HW_NET][NVLS_TREE][SIMPLE];
        assert_eq!((net(Version::V2_22), net(Version::V2_28), net(Version::Current)), (14.0, 14.0, 20.9));
    }
}

#[cfg(test)]
mod schedule_tests {
    use super::{Algorithm, Protocol, Schedule};
    use crate::choose::Collective;

    /// The one map: what runs each of NCCL's algorithms exists in the
    /// Chooser's catalogue for that collective (or is NVLS, which needs the
    /// switch), every id reads back, and NCCL's tree is ours on a network of
    /// nodes, the double binary tree in the catalogue.
    #[test]
    fn every_algorithm_maps_to_one_schedule_of_ours() {
        for c in Collective::ALL {
            for a in Algorithm::ALL.map(Some).into_iter().chain([None]) {
                let Some(s) = Schedule::of(c, a) else { continue };
                assert_eq!(s.id().parse::<Schedule>(), Ok(s));
                match s.catalogue() {
                    Some(id) => assert!(crate::choose::of(c).any(|x| x.id == id), "{c} {a:?}: {id}"),
                    None => assert_eq!(s, Schedule::Nvls),
                }
            }
        }
        let tree = Schedule::of(Collective::Allreduce, Some(Algorithm::Tree)).unwrap();
        assert_eq!((tree.id(), tree.catalogue()), ("node-tree", Some("double-binary-tree")));
        assert_eq!(Schedule::of(Collective::AllToAll, None), Some(Schedule::Pairwise));
        assert_eq!(Schedule::of(Collective::AllToAll, Some(Algorithm::Ring)), None);
        assert_eq!(Schedule::of(Collective::Allreduce, Some(Algorithm::Pat)), None);
        for a in Algorithm::ALL {
            assert_eq!(a.id().parse::<Algorithm>(), Ok(a));
            assert_eq!(super::ALGORITHMS[a.index()], a.id());
        }
        for p in Protocol::ALL {
            assert_eq!(p.id().parse::<Protocol>(), Ok(p));
        }
        assert!("nvls-tree".parse::<Algorithm>().is_err());
    }
}

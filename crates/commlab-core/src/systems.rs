//! Real systems (`docs/systems.md`): GPU nodes as vendors sell them, each a
//! `nodes:NxGxR` network (GPUs on an `NVLink` switch, R NICs on R rails), the
//! NCCL model's description of the same node, and what nccl-tests reports
//! (algbw, busbw).
//!
//! Every number of a preset is a vendor's spec sheet value or one of NCCL's
//! own tables, named with its source in [`Preset::sources`]. What is assumed
//! (a protocol's share of a link, the per-step costs, the chunk size) is the
//! same for every preset and stated in [`ASSUMPTIONS`]. Nothing here comes
//! from a benchmark result.

use crate::choose::Collective;
use crate::libraries::nccl::{self, Arch, NicPath, Pattern, Version};
use crate::net::topology::{LinkClass, Shape};

/// One node type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// The id (`dgx-h100`, …).
    pub id: &'static str,
    /// What it is, in a short line (the System select's label; the
    /// sources say the rest).
    pub name: &'static str,
    /// GPUs per node.
    pub gpus: u32,
    /// NICs (rails) per node; GPUs share them evenly.
    pub nics: u32,
    /// A GPU's usable `NVLink` bandwidth to the other GPUs of its node
    /// (without an `NVSwitch`: to each other GPU), one direction (bytes per ns = GB/s): its links × NCCL's usable figure per
    /// link (`src/graph/topo.h`: `SM80_NVLINK_BW` 20.0, `SM90_NVLINK_BW` 20.6,
    /// `SM100_NVLINK_BW` 40.1 GB/s), what every algorithm moves at.
    pub nvlink: f64,
    /// The datasheet's line rate of the same links, one direction (GB/s),
    /// shown beside it.
    pub nvlink_line: f64,
    /// One NIC's bandwidth, one direction (bytes per ns).
    pub nic: f64,
    /// `NVLink` SHARP: an `NVSwitch` that reduces and multicasts.
    pub nvls: bool,
    /// The GPUs meet on an `NVSwitch`. Without one (GH200's quad node) each
    /// pair of GPUs has links of its own, and [`Preset::nvlink`] is what a
    /// GPU has to each other GPU.
    pub nvswitch: bool,
    /// The GPU generation, for NCCL's tables.
    pub arch: Arch,
    /// The network plugin NCCL loads, if one changes its choice or costs.
    pub plugin: Option<Plugin>,
    /// A node without `NVLink`: its GPUs talk over `PCIe` of this generation
    /// ([`PCIE_GENS`]), and [`Preset::nvlink`] is NCCL's bandwidth of that
    /// link. `None`: `NVLink`.
    pub pcie: Option<u8>,
    /// GPUs per tray, the box that holds GPUs and NICs: [`Preset::gpus`]
    /// for a node that is one box; fewer where `NVLink` switches join trays
    /// into one domain (GB200 NVL72: 18 trays of 4), which NCCL sees as one
    /// node (multi-node `NVLink`, `src/graph/topo.cc`, `src/mnnvl.cc`).
    pub tray: u32,
}

/// `PCIe` generations as NCCL reads them (`src/graph/topo.cc`:
/// `kvDictPciGen`, 100 Mb/s per lane, and a link's bandwidth `width ×
/// speed / 80.0` GB/s, so an x16 link of gen 3, 4, 5, 6 is 12, 24, 48,
/// 96 GB/s) and the line rate of an x16 link, one direction (PCI-SIG: 8,
/// 16, 32 GT/s with 128b/130b coding; 64 GT/s with 242/256 FLITs):
/// (key, generation, NCCL's GB/s, line GB/s).
pub const PCIE_GENS: [(&str, u8, f64, f64); 4] =
    [("gen3", 3, 12.0, 15.75), ("gen4", 4, 24.0, 31.5), ("gen5", 5, 48.0, 63.0), ("gen6", 6, 96.0, 121.0)];

/// A network plugin as NCCL's model sees it (`docs/systems.md`, plugins).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plugin {
    /// Its name (`aws-ofi-nccl`).
    pub id: &'static str,
    /// The latency it reports to NCCL (`props.latency`, µs): NCCL's model
    /// adds it to every step between nodes, twice for Simple (`tuning.cc`),
    /// which steers NCCL's choice.
    pub reported_us: f64,
    /// The per-step network latency its own model states (µs), and what
    /// Simple adds to it: what the simulation charges a step between nodes.
    /// `None`: it states none, and a step costs what NCCL's model charges
    /// (its table's network latency plus the reported latency, twice for
    /// Simple), the only published figure.
    pub step_us: Option<(f64, f64)>,
    /// `NCCL_BUFFSIZE` the plugin sets (bytes; `None`: NCCL's 4 MiB): a
    /// Simple step is an eighth of it.
    pub buffsize: Option<u64>,
    /// `NCCL_NVLS_CHUNKSIZE` (and the NVLS tree's most) the plugin sets
    /// (bytes; `None`: NCCL's 128 KiB).
    pub nvls_chunk: Option<u64>,
}

/// aws-ofi-nccl on p4d/p4de: it reports 75 µs, states no step latency, and
/// sets `NCCL_BUFFSIZE` to 8 MiB (`src/platform-aws.cpp`).
const AWS_OFI_P4D: Plugin =
    Plugin { id: "aws-ofi-nccl", reported_us: 75.0, step_us: None, buffsize: Some(8 << 20), nvls_chunk: None };
/// aws-ofi-nccl on p5/p5e: it reports 75 µs; its model tuner states 20 µs a
/// step, 3 more for Simple; it sets `NCCL_BUFFSIZE` to 8 MiB and the NVLS
/// chunk to 512 KiB (`src/platform-aws.cpp`).
const AWS_OFI_P5: Plugin = Plugin {
    id: "aws-ofi-nccl",
    reported_us: 75.0,
    step_us: Some((20.0, 3.0)),
    buffsize: Some(8 << 20),
    nvls_chunk: Some(512 << 10),
};
/// aws-ofi-nccl on p5en: it reports 35 µs; its model tuner states 18 µs a
/// step, 3 more for Simple; the same environment as on p5.
const AWS_OFI_P5EN: Plugin = Plugin {
    id: "aws-ofi-nccl",
    reported_us: 35.0,
    step_us: Some((18.0, 3.0)),
    buffsize: Some(8 << 20),
    nvls_chunk: Some(512 << 10),
};
/// aws-ofi-nccl on p6-b200: it reports 35 µs, its model states no step
/// latency there; the same environment as on p5en.
const AWS_OFI_P6: Plugin = Plugin {
    id: "aws-ofi-nccl",
    reported_us: 35.0,
    step_us: None,
    buffsize: Some(8 << 20),
    nvls_chunk: Some(512 << 10),
};
/// aws-ofi-nccl off AWS (Slingshot, as on CSCS Alps): it reports 0.
const AWS_OFI_ELSEWHERE: Plugin =
    Plugin { id: "aws-ofi-nccl", reported_us: 0.0, step_us: None, buffsize: None, nvls_chunk: None };

impl Plugin {
    /// What a step between nodes costs in the simulation (µs), given NCCL's
    /// table's network latency for the algorithm and protocol.
    pub fn step(plugin: Option<&Plugin>, table_us: f64, simple: bool) -> f64 {
        let twice = if simple { 2.0 } else { 1.0 };
        match plugin {
            None => table_us,
            Some(Plugin { step_us: Some((step, extra)), .. }) => step + if simple { *extra } else { 0.0 },
            Some(p) => table_us + twice * p.reported_us,
        }
    }
}

/// The node a GPU's name implies: nccl-tests prints each rank's GPU as the
/// driver names it (`NVIDIA H100 80GB HBM3`, `NVIDIA A100-SXM4-80GB`); the
/// first of these words the name holds (upper case) picks the preset whose
/// node carries that GPU, `None` where commlab describes no node of it
/// (a `PCIe` card). A name holding none of them: no preset.
/// The order matters: `GH200` holds `H200`, `GB200` holds `B200`.
pub const GPU_NAMES: [(&str, Option<&str>); 12] = [
    ("GB300", Some("gb300-nvl72")),
    ("GB200", Some("gb200-nvl72")),
    ("GH200", Some("gh200-slingshot")),
    ("H100 PCIE", None),
    ("H100 NVL", None),
    ("A100-PCIE", None),
    ("H800", Some("h800")),
    ("H200", Some("hgx-h200")),
    ("H100", Some("dgx-h100")),
    ("B200", Some("hgx-b200")),
    ("A100", Some("dgx-a100")),
    ("L40", None),
];

/// The preset [`GPU_NAMES`] gives `gpu` (a driver's name): `Ok(None)` for a
/// GPU commlab has no node of.
///
/// # Errors
/// A name holding none of [`GPU_NAMES`]' words, said.
pub fn preset_of_gpu(gpu: &str) -> Result<Option<Preset>, String> {
    let name = gpu.to_ascii_uppercase();
    let (_, id) = GPU_NAMES
        .iter()
        .find(|(word, _)| name.contains(word))
        .ok_or_else(|| format!("{gpu}: not a GPU commlab knows the node of"))?;
    Ok(id.and_then(|id| PRESETS.iter().copied().find(|p| p.id == id)))
}

/// The presets, in the order `--system list` prints them.
pub const PRESETS: [Preset; 12] = [
    Preset {
        id: "dgx-h100",
        name: "DGX H100: 8 × H100, NVSwitch (NVLS), 8 × 400 Gb/s IB NDR",
        gpus: 8,
        nics: 8,
        nvlink: 370.8,
        nvlink_line: 450.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Hopper,
        plugin: None,
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "dgx-a100",
        name: "DGX A100: 8 × A100, NVSwitch, 8 × 200 Gb/s IB HDR",
        gpus: 8,
        nics: 8,
        nvlink: 240.0,
        nvlink_line: 300.0,
        nic: 25.0,
        nvls: false,
        nvswitch: true,
        arch: Arch::Ampere,
        plugin: None,
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "p4d",
        name: "AWS p4d/p4de: 8 × A100, NVSwitch, 4 × 100 Gb/s EFA",
        gpus: 8,
        nics: 4,
        nvlink: 240.0,
        nvlink_line: 300.0,
        nic: 12.5,
        nvls: false,
        nvswitch: true,
        arch: Arch::Ampere,
        plugin: Some(AWS_OFI_P4D),
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "p5",
        name: "AWS p5: 8 × H100, NVSwitch (NVLS), 32 × 100 Gb/s EFA",
        gpus: 8,
        nics: 8,
        nvlink: 370.8,
        nvlink_line: 450.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Hopper,
        plugin: Some(AWS_OFI_P5),
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "gh200-slingshot",
        name: "CSCS Alps: 4 × GH200 (NVLink pairs), 4 × 200 Gb/s Slingshot",
        gpus: 4,
        nics: 4,
        nvlink: 123.6,
        nvlink_line: 150.0,
        nic: 25.0,
        nvls: false,
        nvswitch: false,
        arch: Arch::Hopper,
        plugin: Some(AWS_OFI_ELSEWHERE),
        pcie: None,
        tray: 4,
    },
    Preset {
        id: "hgx-h200",
        name: "HGX H200: 8 × H200, NVSwitch (NVLS), 8 × 400 Gb/s",
        gpus: 8,
        nics: 8,
        nvlink: 370.8,
        nvlink_line: 450.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Hopper,
        plugin: None,
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "hgx-b200",
        name: "HGX B200: 8 × B200, NVSwitch (NVLS), 8 × 400 Gb/s",
        gpus: 8,
        nics: 8,
        nvlink: 721.8,
        nvlink_line: 900.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Blackwell,
        plugin: None,
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "h800",
        name: "DGX H800: 8 × H800 (8 NVLinks), NVSwitch (NVLS), 8 × 400 Gb/s",
        gpus: 8,
        nics: 8,
        nvlink: 164.8,
        nvlink_line: 200.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Hopper,
        plugin: None,
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "p5en",
        name: "AWS p5en: 8 × H200, NVSwitch (NVLS), 16 × 200 Gb/s EFA",
        gpus: 8,
        nics: 8,
        nvlink: 370.8,
        nvlink_line: 450.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Hopper,
        plugin: Some(AWS_OFI_P5EN),
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "p6-b200",
        name: "AWS p6-b200: 8 × B200, NVSwitch (NVLS), 8 × 400 Gb/s EFA",
        gpus: 8,
        nics: 8,
        nvlink: 721.8,
        nvlink_line: 900.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Blackwell,
        plugin: Some(AWS_OFI_P6),
        pcie: None,
        tray: 8,
    },
    Preset {
        id: "gb200-nvl72",
        name: "GB200 NVL72: 72 × B200 in one NVLink domain (18 trays of 4), NVLS, 72 × 400 Gb/s",
        gpus: 72,
        nics: 72,
        nvlink: 721.8,
        nvlink_line: 900.0,
        nic: 50.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Blackwell,
        plugin: None,
        pcie: None,
        tray: 4,
    },
    Preset {
        id: "gb300-nvl72",
        name: "GB300 NVL72: 72 × B300 in one NVLink domain (18 trays of 4), NVLS, 72 × 800 Gb/s",
        gpus: 72,
        nics: 72,
        nvlink: 721.8,
        nvlink_line: 900.0,
        nic: 100.0,
        nvls: true,
        nvswitch: true,
        arch: Arch::Blackwell,
        plugin: None,
        pcie: None,
        tray: 4,
    },
];

/// Where a value comes from: `(what, value as written, source)`.
pub type Source = (&'static str, &'static str, &'static str);

/// Where each value of a preset comes from, by preset id ([`Preset::sources`]). Kept apart from
/// [`PRESETS`] so that code listing the presets does not carry the text.
const SOURCES: [(&str, &[Source]); 12] = [
    (
        "dgx-h100",
        &[
            ("nvlink", "18 links × 20.6 GB/s = 370.8 GB/s a direction, usable", "links: NVIDIA H100 Tensor Core GPU datasheet (SXM: 18 NVLink 4 links, 900GB/s); usable per link: NCCL src/graph/topo.h SM90_NVLINK_BW 20.6"),
            ("nvlink_line", "900 GB/s per GPU, both directions", "NVIDIA H100 Tensor Core GPU datasheet (SXM: NVLink 900GB/s)"),
            ("nic", "8 × 400 Gb/s", "NVIDIA DGX H100 datasheet (8 × single-port ConnectX-7, up to 400 Gb/s InfiniBand)"),
            ("nvls", "NVSwitch gen 3 with SHARP", "NVIDIA DGX H100 datasheet; NCCL enables NVLS on sm90 with NVSwitch"),
        ],
    ),
    (
        "dgx-a100",
        &[
            ("nvlink", "12 links × 20.0 GB/s = 240 GB/s a direction, usable", "links: NVIDIA A100 Tensor Core GPU datasheet (SXM: 12 NVLink 3 links, 600GB/s); usable per link: NCCL src/graph/topo.h SM80_NVLINK_BW 20.0"),
            ("nvlink_line", "600 GB/s per GPU, both directions", "NVIDIA A100 Tensor Core GPU datasheet (SXM: NVLink 600GB/s)"),
            ("nic", "8 × 200 Gb/s", "NVIDIA DGX A100 datasheet (8 × single-port ConnectX-6 VPI, 200 Gb/s HDR InfiniBand)"),
            ("nvls", "none", "NVSwitch gen 2 has no SHARP; NCCL's NVLS needs sm90"),
        ],
    ),
    (
        "p4d",
        &[
            ("nvlink", "12 links × 20.0 GB/s = 240 GB/s a direction, usable", "links: NVIDIA A100 Tensor Core GPU datasheet (SXM: 12 NVLink 3 links, 600GB/s); usable per link: NCCL src/graph/topo.h SM80_NVLINK_BW 20.0"),
            ("nvlink_line", "600 GB/s per GPU, both directions", "NVIDIA A100 Tensor Core GPU datasheet (SXM: NVLink 600GB/s)"),
            ("nic", "4 × 100 Gb/s", "AWS EC2 accelerated computing instances: p4d.24xlarge, 400 Gbps EFA on 4 network cards"),
            ("nvls", "none", "A100: NCCL's NVLS needs sm90"),
            (
                "plugin",
                "aws-ofi-nccl reports 75 µs; no per-step latency stated; NCCL_BUFFSIZE 8 MiB",
                "aws/aws-ofi-nccl src/platform-aws.cpp (p4d, p4de: 75 µs net latency reported to NCCL); NCCL src/graph/tuning.cc adds it to each step between nodes, twice for Simple",
            ),
        ],
    ),
    (
        "p5",
        &[
            ("nvlink", "18 links × 20.6 GB/s = 370.8 GB/s a direction, usable", "links: NVIDIA H100 Tensor Core GPU datasheet (SXM: 18 NVLink 4 links, 900GB/s); usable per link: NCCL src/graph/topo.h SM90_NVLINK_BW 20.6"),
            ("nvlink_line", "900 GB/s per GPU, both directions", "NVIDIA H100 Tensor Core GPU datasheet (SXM: NVLink 900GB/s)"),
            (
                "nic",
                "32 × 100 Gb/s = 3200 Gb/s",
                "AWS EC2 accelerated computing instances: p5.48xlarge, 3200 Gbps EFAv2 on 32 network cards; modelled as 8 rails of 4 × 100 Gb/s",
            ),
            ("nvls", "NVSwitch gen 3 with SHARP", "H100 SXM baseboard (HGX H100)"),
            (
                "plugin",
                "aws-ofi-nccl reports 75 µs; its model: 20 µs a step, 3 more for Simple; NCCL_BUFFSIZE 8 MiB, NVLS chunk 512 KiB",
                "aws/aws-ofi-nccl src/platform-aws.cpp (p5, p5e: 75 µs reported); src/tuner/nccl_ofi_model.cpp (per-step network latency 20 µs, Simple +3 µs)",
            ),
        ],
    ),
    (
        "gh200-slingshot",
        &[
            (
                "nvlink",
                "6 links × 20.6 GB/s = 123.6 GB/s a direction to each of the 3 others, usable",
                "NVIDIA GH200 datasheet (900 GB/s NVLink: 18 NVLink 4 links); the quad node joins each pair by 6 of them, no NVSwitch; usable per link: NCCL src/graph/topo.h SM90_NVLINK_BW 20.6",
            ),
            ("nvlink_line", "6 links × 25 GB/s = 150 GB/s a direction to each other GPU", "NVIDIA GH200 datasheet (NVLink 4: 25 GB/s per link and direction)"),
            ("nic", "4 × 200 Gb/s", "CSCS Alps documentation: one Slingshot-11 NIC of 200 Gb/s per GH200"),
            ("nvls", "none", "no NVSwitch in the node"),
            (
                "plugin",
                "aws-ofi-nccl over Slingshot reports 0",
                "aws/aws-ofi-nccl: the latency is reported on AWS platforms only (src/platform-aws.cpp); CSCS Alps documentation: NCCL over the aws-ofi-nccl plugin on Slingshot",
            ),
        ],
    ),
    (
        "hgx-h200",
        &[
            ("nvlink", "18 links × 20.6 GB/s = 370.8 GB/s a direction, usable", "links: NVIDIA H200 Tensor Core GPU datasheet (SXM: 18 NVLink 4 links, 900GB/s); usable per link: NCCL src/graph/topo.h SM90_NVLINK_BW 20.6"),
            ("nvlink_line", "900 GB/s per GPU, both directions", "NVIDIA H200 Tensor Core GPU datasheet (SXM: NVLink 900GB/s)"),
            ("nic", "8 × 400 Gb/s", "NVIDIA HGX H200 reference: one 400 Gb/s ConnectX-7 or BlueField-3 per GPU"),
            ("nvls", "NVSwitch gen 3 with SHARP", "HGX H200 baseboard"),
        ],
    ),
    (
        "hgx-b200",
        &[
            ("nvlink", "18 links × 40.1 GB/s = 721.8 GB/s a direction, usable", "links: NVIDIA DGX B200 datasheet (NVLink 5: 18 links, 1.8TB/s per GPU); usable per link: NCCL src/graph/topo.h SM100_NVLINK_BW 40.1"),
            ("nvlink_line", "1.8 TB/s per GPU, both directions", "NVIDIA HGX B200 / DGX B200 datasheet (NVLink 5: 1.8TB/s per GPU)"),
            ("nic", "8 × 400 Gb/s", "NVIDIA DGX B200 datasheet (8 × ConnectX-7, 400 Gb/s)"),
            ("nvls", "NVSwitch gen 4 with SHARP", "HGX B200 baseboard"),
        ],
    ),
    (
        "h800",
        &[
            ("nvlink", "8 links × 20.6 GB/s = 164.8 GB/s a direction, usable", "links: NVIDIA H800 SXM (NVLink 400 GB/s: 8 NVLink 4 links of 50 GB/s both ways); usable per link: NCCL src/graph/topo.h SM90_NVLINK_BW 20.6"),
            ("nvlink_line", "400 GB/s per GPU, both directions", "NVIDIA H800 SXM specifications (NVLink 400GB/s)"),
            ("nic", "8 × 400 Gb/s", "NVIDIA DGX H800 datasheet (8 × ConnectX-7, 400 Gb/s)"),
            ("nvls", "NVSwitch gen 3 with SHARP", "HGX H800 baseboard; NCCL enables NVLS on sm90 with NVSwitch"),
        ],
    ),
    (
        "p5en",
        &[
            ("nvlink", "18 links × 20.6 GB/s = 370.8 GB/s a direction, usable", "links: NVIDIA H200 Tensor Core GPU datasheet (SXM: 18 NVLink 4 links, 900GB/s); usable per link: NCCL src/graph/topo.h SM90_NVLINK_BW 20.6"),
            ("nvlink_line", "900 GB/s per GPU, both directions", "NVIDIA H200 Tensor Core GPU datasheet (SXM: NVLink 900GB/s)"),
            ("nic", "16 × 200 Gb/s = 3200 Gb/s", "AWS EC2 p5en.48xlarge: 3200 Gbps EFAv3 on 16 network cards; aws-ofi-nccl: 2 NICs a GPU (include/rdma/gin/nccl_ofi_gin_gdaki_dev.h), 25 GiB/s a rail (src/tuner/nccl_ofi_model.cpp); modelled as 8 rails of 2 × 200 Gb/s"),
            ("nvls", "NVSwitch gen 3 with SHARP", "HGX H200 baseboard"),
            (
                "plugin",
                "aws-ofi-nccl reports 35 µs; its model: 18 µs a step, 3 more for Simple; NCCL_BUFFSIZE 8 MiB, NVLS chunk 512 KiB",
                "aws/aws-ofi-nccl src/platform-aws.cpp (p5en/p6-b200: latency 35, NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE); src/tuner/nccl_ofi_model.cpp (P5en: net_lat 18)",
            ),
        ],
    ),
    (
        "p6-b200",
        &[
            ("nvlink", "18 links × 40.1 GB/s = 721.8 GB/s a direction, usable", "links: NVIDIA HGX B200 datasheet (NVLink 5: 18 links, 1.8TB/s per GPU); usable per link: NCCL src/graph/topo.h SM100_NVLINK_BW 40.1"),
            ("nvlink_line", "1.8 TB/s per GPU, both directions", "NVIDIA HGX B200 datasheet (NVLink 5: 1.8TB/s per GPU)"),
            ("nic", "8 × 400 Gb/s = 3200 Gb/s", "AWS EC2 p6-b200.48xlarge: 3200 Gbps EFAv4; aws-ofi-nccl: 1 NIC a GPU (include/rdma/gin/nccl_ofi_gin_gdaki_dev.h)"),
            ("nvls", "NVSwitch gen 4 with SHARP", "HGX B200 baseboard"),
            (
                "plugin",
                "aws-ofi-nccl reports 35 µs; no per-step latency stated; NCCL_BUFFSIZE 8 MiB, NVLS chunk 512 KiB",
                "aws/aws-ofi-nccl src/platform-aws.cpp (p5en/p6-b200: latency 35, NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE); src/tuner/nccl_ofi_model.cpp has no p6-b200 model",
            ),
        ],
    ),
    (
        "gb200-nvl72",
        &[
            ("gpus", "72 GPUs in one NVLink domain: 18 compute trays of 4", "NVIDIA Multi-Node NVLink Systems tuning guide, \"Understanding your Grace-Blackwell systems\" (GB200 72x1: 18 × 1RU compute trays, 4 GPUs per compute tray, 9 NVLink Switch trays)"),
            ("nvlink", "18 links × 40.1 GB/s = 721.8 GB/s a direction, usable", "links: NVLink 5, 1.8 TB/s per GPU (NVIDIA GB200 NVL72 specifications); usable per link: NCCL src/graph/topo.h SM100_NVLINK_BW 40.1"),
            ("nvlink_line", "1.8 TB/s per GPU, both directions", "NVIDIA GB200 NVL72 specifications (NVLink 5: 1.8 TB/s per GPU, 130 TB/s a rack)"),
            ("nic", "4 × 400 Gb/s a tray: one NIC a GPU", "MLPerf Inference v6.1 system description GB200-NVL72 (Crusoe): 4 × ConnectX-7 for each 4-GPU node; ConnectX-7: 400 Gb/s"),
            ("nvls", "NVLink Switch with SHARP over the whole domain", "NCCL: NVLS over multi-node NVLink from 2.21.5 (src/transport/nvls.cc, src/mnnvl.cc)"),
        ],
    ),
    (
        "gb300-nvl72",
        &[
            ("gpus", "72 GPUs in one NVLink domain: 18 compute trays of 4", "NVIDIA Enterprise Reference Architecture, NVL72 AI Factory, System Hardware & Components (GB300 NVL compute tray: 4 Blackwell Ultra GPUs and 2 Grace CPUs; 9 NVSwitch trays, 130 TB/s)"),
            ("nvlink", "18 links × 40.1 GB/s = 721.8 GB/s a direction, usable", "links: NVLink 5, 1.8 TB/s per GPU; usable per link: NCCL src/graph/topo.h SM100_NVLINK_BW 40.1 (SM103 takes the SM100 branches)"),
            ("nvlink_line", "1.8 TB/s per GPU, both directions", "NVIDIA GB300 NVL72 (NVLink 5: 130 TB/s for 72 GPUs)"),
            ("nic", "4 × 800 Gb/s a tray: one NIC a GPU", "NVIDIA Enterprise RA, NVL72 AI Factory: each compute tray has 2 mezzanine network boards with 2 ConnectX-8 each, 4 ConnectX-8 HCAs; ConnectX-8 SuperNIC user manual: up to 800 Gb/s"),
            ("nvls", "NVLink Switch with SHARP over the whole domain", "NCCL: NVLS over multi-node NVLink from 2.21.5 (src/transport/nvls.cc, src/mnnvl.cc)"),
        ],
    ),
];

/// The keys of a custom system (`custom:KEY=VALUE,…`), each with its range
/// and default (`docs/systems.md`, custom systems).
pub const CUSTOM_KEYS: [(&str, &str); 11] = [
    ("gpus", "GPUs per node (per tray with domain), 1..=72; default 8"),
    ("domain", "GPUs of one NVLink domain: trays of gpus joined by NVLink switches, which NCCL sees as one node, a multiple of gpus up to 72; default gpus"),
    (
        "arch",
        "ampere, hopper or blackwell (AMD GPUs run RCCL, whose model commlab does not transcribe); default hopper",
    ),
    ("nvlinks", "NVLink links per GPU (nvswitch=0: to each other GPU), 0..=18 (0: no NVLink, the GPUs meet over PCIe); default 18"),
    ("pcie", "with nvlinks=0, the PCIe generation of the GPUs' x16 links: gen3, gen4, gen5 or gen6 (NCCL's 12, 24, 48, 96 GB/s); default gen4"),
    ("link-gbps", "usable GB/s per link and direction, (0, 100]; default NCCL's for the arch (20.0, 20.6, 40.1)"),
    ("nvswitch", "0 or 1: the GPUs meet on an NVSwitch; default 1"),
    ("nvls", "0 or 1: the NVSwitch reduces (NVLS; Hopper and later); default nvswitch on Hopper and later"),
    ("nics", "NICs (rails) per node (per tray with domain), dividing gpus; default gpus"),
    ("nic-gbps", "Gb/s per NIC, (0, 3200]; default 400"),
    ("plugin", "none, aws-p4d, aws-p5, aws-p5en or aws-p6 (aws-ofi-nccl as on those instances); default none"),
];

/// A custom system's `arch` values: the key, NCCL's usable GB/s per
/// `NVLink` link (`src/graph/topo.h`) and the datasheet's line rate per link.
const CUSTOM_ARCHS: [(&str, Arch, f64, f64); 3] = [
    ("ampere", Arch::Ampere, 20.0, 25.0),
    ("hopper", Arch::Hopper, 20.6, 25.0),
    ("blackwell", Arch::Blackwell, 40.1, 50.0),
];

/// A custom system's `plugin` values other than `none`.
const CUSTOM_PLUGINS: [(&str, Plugin); 4] =
    [("aws-p4d", AWS_OFI_P4D), ("aws-p5", AWS_OFI_P5), ("aws-p5en", AWS_OFI_P5EN), ("aws-p6", AWS_OFI_P6)];

/// A custom system from `key=value,…` ([`CUSTOM_KEYS`]): a preset with the
/// values given, the rest at their defaults. Given a preset's values it is
/// that preset, but for its id and sources.
///
/// # Errors
/// An unknown key, a value out of its range, a key given twice, NICs that
/// do not divide the GPUs, NVLS without an `NVSwitch` or before Hopper.
pub fn custom(keys: &str) -> Result<Preset, String> {
    let mut v: std::collections::BTreeMap<&str, &str> = std::collections::BTreeMap::new();
    for part in keys.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let (k, x) = part.split_once('=').ok_or_else(|| format!("custom system: {part:?} is not key=value"))?;
        let k = k.trim();
        if !CUSTOM_KEYS.iter().any(|(key, _)| *key == k) {
            let known: Vec<&str> = CUSTOM_KEYS.iter().map(|(key, _)| *key).collect();
            return Err(format!("custom system: unknown key {k:?}; expected {}", known.join(", ")));
        }
        if v.insert(k, x.trim()).is_some() {
            return Err(format!("custom system: {k} is given twice"));
        }
    }
    let bad = |k: &str| {
        let range = CUSTOM_KEYS.iter().find(|(key, _)| *key == k).map_or("", |(_, r)| *r);
        format!("custom system: {k} = {:?}: {range}", v.get(k).copied().unwrap_or(""))
    };
    let int = |k: &str, default: u32, lo: u32, hi: u32| -> Result<u32, String> {
        v.get(k).map_or(Ok(default), |x| x.parse().ok().filter(|n| (lo..=hi).contains(n)).ok_or_else(|| bad(k)))
    };
    let real = |k: &str, default: f64, hi: f64| -> Result<f64, String> {
        v.get(k).map_or(Ok(default), |x| x.parse().ok().filter(|r: &f64| *r > 0.0 && *r <= hi).ok_or_else(|| bad(k)))
    };
    let flag = |k: &str, default: bool| -> Result<bool, String> {
        match v.get(k).copied() {
            None => Ok(default),
            Some("0") => Ok(false),
            Some("1") => Ok(true),
            Some(_) => Err(bad(k)),
        }
    };
    let arch_id = v.get("arch").copied().unwrap_or("hopper");
    let Some(&(_, arch, per_link, line_rate)) = CUSTOM_ARCHS.iter().find(|a| a.0 == arch_id) else {
        return Err(bad("arch"));
    };
    let tray = int("gpus", 8, 1, 72)?;
    let domain = int("domain", tray, 1, 72)?;
    if domain % tray != 0 {
        return Err(format!(
            "custom system: domain = {domain} is not a multiple of gpus = {tray}: an NVLink domain is whole trays"
        ));
    }
    let links = int("nvlinks", 18, 0, 18)?;
    let pcie = if links == 0 {
        // No NVLink: a PCIe switch (or the host) joins the GPUs, at NCCL's
        // bandwidth of an x16 link; no NVSwitch, no NVLS.
        // The GPUs meet at one PCIe switch: nvswitch=1 and nvls=0 say so too.
        let nvlink_only = [("nvswitch", "0"), ("nvls", "1")];
        if let Some(k) = ["nvswitch", "nvls", "link-gbps"]
            .into_iter()
            .find(|k| v.get(k).is_some_and(|x| *k == "link-gbps" || nvlink_only.contains(&(*k, *x))))
        {
            return Err(format!(
                "custom system: {k} = {} describes NVLink, and nvlinks = 0 (PCIe): leave it out",
                v.get(k).copied().unwrap_or("")
            ));
        }
        let gen = v.get("pcie").copied().unwrap_or("gen4");
        Some(*PCIE_GENS.iter().find(|g| g.0 == gen).ok_or_else(|| bad("pcie"))?)
    } else if v.contains_key("pcie") {
        return Err("custom system: pcie describes a node without NVLink: give nvlinks=0 with it".to_owned());
    } else {
        None
    };
    let nics = int("nics", tray, 1, tray)?;
    if tray % nics != 0 {
        return Err(format!("custom system: nics = {nics} does not divide gpus = {tray}: GPUs share NICs evenly"));
    }
    let nvswitch = flag("nvswitch", true)?;
    if domain > tray && (!nvswitch || pcie.is_some()) {
        return Err(format!(
            "custom system: domain = {domain} joins trays by NVLink switches: it needs nvswitch=1 and NVLink"
        ));
    }
    let nvls = flag("nvls", nvswitch && arch != Arch::Ampere && pcie.is_none())?;
    if nvls && (!nvswitch || arch == Arch::Ampere) {
        return Err(bad("nvls"));
    }
    let plugin = match v.get("plugin").copied().unwrap_or("none") {
        "none" => None,
        id => Some(CUSTOM_PLUGINS.iter().find(|p| p.0 == id).ok_or_else(|| bad("plugin"))?.1),
    };
    Ok(Preset {
        id: "custom",
        name: "custom system",
        gpus: domain,
        nics: nics * (domain / tray),
        // Rounded to 1e-9 GB/s, so that 18 × 20.6 is the presets' 370.8.
        nvlink: pcie.map_or(Ok((f64::from(links) * real("link-gbps", per_link, 100.0)? * 1e9).round() / 1e9), |g| {
            Ok::<f64, String>(g.2)
        })?,
        nvlink_line: pcie.map_or(f64::from(links) * line_rate, |g| g.3),
        nic: real("nic-gbps", 400.0, 3200.0)? / 8.0,
        nvls,
        nvswitch,
        arch,
        plugin,
        pcie: pcie.map(|g| g.1),
        tray,
    })
}

/// What every preset assumes, in words (`docs/systems.md`).
pub const ASSUMPTIONS: [&str; 7] = [
    "Link latencies: the project's defaults, 100 ns per NVLink hop and 500 ns per NIC–rail hop (a message between nodes crosses 2 of each).",
    "A step's fixed cost is NCCL's own per-step hardware latency (tuning.cc hwLat: NVLink or network, per algorithm and protocol), split over the route's links, as NCCL's model charges it: on more than one node every step of a ring or chain at the network's cost, a tree's hops inside a node at NVLink's; NCCL's base latency (baseLat) is added once per call.",
    "A protocol moves payload at the share of Simple's rate that NCCL's own model gives it (tuning.cc: its bus bandwidth for the algorithm and protocol over Simple's; for LL at most half the line and llMaxBw, for LL128 0.92 and its per-channel caps, for the tree with LL 1/3.8); an algorithm NCCL's model lacks uses the line share (LL 8 of 16 bytes, LL128 120 of 128).",
    "One channel per rail (C = R), each on its own NIC, its ring entering and leaving every node on its rail; trees and chains are cut into chunks of 512 KiB per channel (NCCL's default Simple buffer, 4 MiB, over its 8 steps), at most 64.",
    "A channel keeps up to 8 messages in flight on its NIC (NCCL_STEPS: W = 8); o = g = O = 0 on the CPU side: NCCL's GPU kernels post their own sends.",
    "A network plugin's latency: the latency it reports to NCCL enters NCCL's model (every step between nodes, twice for Simple), so it changes NCCL's pick; the simulation charges a step between nodes the per-step latency the plugin's own model states (aws-ofi-nccl on p5: 20 µs, 3 more for Simple) or, where it states none (p4d), what NCCL's model charges (its table's network latency plus the reported 75 µs, twice for Simple).",
    "NVLS and NVLS tree run with a rank on each node's NVSwitch that reduces and copies (multimem.ld_reduce, multimem.st): each GPU moves S·(g+1)/g bytes each way for S; payload at NCCL's NVLS efficiency η of the usable NVLink (Hopper 0.85, Blackwell 0.74); NCCL's NVLS channels (16 on Hopper; 24 on one Blackwell node, 32 across nodes), 128 KiB chunks per slice, each stream (a GPU's parts, its st, the tree up and down, a switch port) one chunk at a time; NCCL's NVLS latency (25 µs) once per call, its network latency for NVLS tree at each step between nodes.",
];

/// Line share of a protocol (NCCL's formats: LL carries 8 data bytes in a
/// 16-byte line, LL128 120 in 128).
pub fn protocol_share(protocol: nccl::Protocol) -> f64 {
    match protocol {
        nccl::Protocol::Ll => 0.5,
        nccl::Protocol::Ll128 => 120.0 / 128.0,
        nccl::Protocol::Simple => 1.0,
    }
}

/// nccl-tests' bus bandwidth factor for `p` ranks (its `PERFORMANCE.md`):
/// busbw = algbw × factor.
pub fn busbw_factor(collective: Collective, p: u32) -> f64 {
    let p = f64::from(p.max(1));
    match collective {
        Collective::Allreduce => 2.0 * (p - 1.0) / p,
        Collective::Allgather | Collective::ReduceScatter | Collective::AllToAll => (p - 1.0) / p,
        Collective::Broadcast | Collective::Reduce => 1.0,
    }
}

/// What a chart's y axis shows of a run, in nccl-tests' terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Measure {
    /// The time, ns.
    #[default]
    Time,
    /// Algorithm bandwidth: bytes / time, GB/s.
    Algbw,
    /// Bus bandwidth: algbw × [`busbw_factor`], GB/s.
    Busbw,
}

impl Measure {
    /// Every measure, in the select's order.
    pub const ALL: [Measure; 3] = [Measure::Time, Measure::Algbw, Measure::Busbw];

    /// Its URL and CLI id.
    pub fn id(self) -> &'static str {
        match self {
            Measure::Time => "time",
            Measure::Algbw => "algbw",
            Measure::Busbw => "busbw",
        }
    }

    /// The measure of `id`.
    ///
    /// # Errors
    /// An unknown id, with the known ones.
    pub fn parse(id: &str) -> Result<Measure, String> {
        Measure::ALL.into_iter().find(|m| m.id() == id).ok_or_else(|| "time, algbw or busbw".to_owned())
    }

    /// The value shown for a run of `collective` on `p` ranks moving
    /// `bytes` (nccl-tests' size column) in `time_ns`: the time itself, or
    /// GB/s (bytes per ns); 0 for a run that took no time.
    pub fn of(self, collective: Collective, p: u32, bytes: u64, time_ns: f64) -> f64 {
        if self == Measure::Time {
            return time_ns;
        }
        if time_ns <= 0.0 {
            return 0.0;
        }
        let algbw = bytes as f64 / time_ns;
        if self == Measure::Busbw {
            algbw * busbw_factor(collective, p)
        } else {
            algbw
        }
    }

    /// The axis label, with its unit.
    pub fn axis(self) -> &'static str {
        match self {
            Measure::Time => "time (ns)",
            Measure::Algbw => "algbw (GB/s: bytes / time)",
            Measure::Busbw => "busbw (GB/s, nccl-tests' definition)",
        }
    }
}

/// Chunk bytes per channel of a pipelined chain (see [`ASSUMPTIONS`]): a
/// Simple step, NCCL's 4 MiB buffer over its 8 steps.
pub const CHUNK: u64 = 512 * 1024;

/// NCCL's chunk (payload bytes per channel) for its tree with `protocol`,
/// moving `per_channel` bytes a channel down a tree of `depth` on `nodes`
/// nodes of `ppn` GPUs (`enqueue.cc`, the chunk size of a call): Simple
/// starts from a step (`step`: 512 KiB, [`Preset::simple_step`]) and halves while the channel has fewer than
/// depth × 8 chunks (down to 128 KiB), depth × 4 (down to 64 KiB), depth
/// (down to 32 KiB); LL128 starts from its step (4 800 KiB of lines over 8
/// steps, 120 of every 128 bytes payload) and halves while fewer than
/// (1 + log₂ nodes + ppn / 10) × 64 / ppn chunks (down to 128 KiB), × 16 /
/// ppn (down to 32 KiB); LL moves slices of half its step (64 KiB of lines,
/// half of each line payload): 16 KiB.
pub fn tree_chunk(protocol: nccl::Protocol, per_channel: u64, depth: u32, nodes: u32, ppn: u32, step: u64) -> u64 {
    let halve = |mut chunk: u64, rules: &[(f64, u64)]| {
        for &(want, floor) in rules {
            #[allow(clippy::cast_precision_loss, reason = "chunk counts")]
            while ((per_channel / chunk) as f64) < want && chunk > floor {
                chunk /= 2;
            }
        }
        chunk
    };
    match protocol {
        nccl::Protocol::Ll => 16 * 1024,
        nccl::Protocol::Ll128 => {
            let steps = 1.0 + f64::from(nodes.max(1).ilog2()) + 0.1 * f64::from(ppn);
            let ppn = f64::from(ppn.max(1));
            let start = 4_800 * 1024 / 8 * 120 / 128;
            halve(start, &[(steps * 64.0 / ppn, 128 * 1024), (steps * 16.0 / ppn, 32 * 1024)])
        }
        nccl::Protocol::Simple => {
            let d = f64::from(depth);
            halve(step, &[(d * 8.0, 128 * 1024), (d * 4.0, 64 * 1024), (d, 32 * 1024)])
        }
    }
}
/// NCCL's NVLS chunk (`NCCL_NVLS_CHUNKSIZE`, `src/transport/nvls.cc`):
/// bytes of a slice a channel moves at a time.
pub const NVLS_CHUNK: u64 = 128 * 1024;
/// NCCL's NVLS chunk for a call of `bytes` (`enqueue.cc`, the chunk size of
/// a call): from `chunk` (the NVLS chunk; for NVLS tree at most
/// `tree_max`: 64 KiB from 4 nodes, else the chunk, unless set), halved to
/// fixed sizes while the call has fewer than a few chunks per concurrent
/// operation (`ops` = channels × heads): NVLS 64 KiB under 64 chunks, 32 KiB
/// under 8, 16 KiB under 2; NVLS tree 256 KiB under 32, 128 KiB under 16,
/// 64 KiB under 4, 32 KiB under 1.
pub fn nvls_call_chunk(tree: bool, bytes: u64, ops: u64, chunk: u64, tree_max: u64) -> u64 {
    let rules: &[(u64, u64)] = if tree {
        &[(32, 256 << 10), (16, 128 << 10), (4, 64 << 10), (1, 32 << 10)]
    } else {
        &[(64, 64 << 10), (8, 32 << 10), (2, 16 << 10)]
    };
    let mut c = if tree { chunk.min(tree_max) } else { chunk };
    for &(times, size) in rules {
        if bytes < times.saturating_mul(ops).saturating_mul(c) && c > size {
            c = size;
        }
    }
    c
}

/// Most pieces a pipelined run is cut into.
pub const MAX_PIECES: u64 = 64;
/// Steps NCCL keeps in flight on one connection (`NCCL_STEPS`): the NIC
/// window of a channel.
pub const NCCL_STEPS: u32 = crate::choose::STEPS;

impl Preset {
    /// The preset called `id`.
    ///
    /// # Errors
    /// No such preset: the message lists the ids.
    pub fn find(id: &str) -> Result<Preset, String> {
        if let Some(keys) = id.strip_prefix("custom:") {
            return custom(keys);
        }
        PRESETS.iter().copied().find(|p| p.id == id).ok_or_else(|| {
            let ids: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
            format!("unknown system {id:?}; expected one of: {} (or list, or custom:KEY=VALUE,…)", ids.join(", "))
        })
    }

    /// The network of `nodes` such nodes.
    pub fn shape(&self, nodes: u32) -> Shape {
        Shape::Nodes { n: nodes, g: self.gpus, r: self.nics }
    }

    /// What a step between GPUs of one node crosses, for NCCL's latency
    /// tables: `NVLink`, or `PCIe` on a node without it.
    pub fn intra_hw(&self) -> nccl::Hw {
        if self.pcie.is_some() {
            nccl::Hw::Pci
        } else {
            nccl::Hw::Nvlink
        }
    }

    /// The link classes at the project's default latencies.
    pub fn classes(&self) -> [LinkClass; 2] {
        let [intra, inter] = Shape::Nodes { n: 1, g: 1, r: 1 }.default_classes();
        [LinkClass { bandwidth: self.nvlink, ..intra }, LinkClass { bandwidth: self.nic, ..inter }]
    }

    /// A Simple step, bytes: `NCCL_BUFFSIZE` over NCCL's 8 steps (4 MiB
    /// unless the plugin sets it).
    pub fn simple_step(&self) -> u64 {
        self.plugin.and_then(|p| p.buffsize).map_or(CHUNK, |b| b / u64::from(NCCL_STEPS))
    }

    /// NVLS's chunk, bytes (128 KiB unless the plugin sets it).
    pub fn nvls_chunk(&self) -> u64 {
        self.plugin.and_then(|p| p.nvls_chunk).unwrap_or(NVLS_CHUNK)
    }

    /// NVLS tree's largest chunk on `nodes` nodes, bytes
    /// (`NCCL_NVLSTREE_MAX_CHUNKSIZE`: 64 KiB from 4 nodes, else the NVLS
    /// chunk, `nvls.cc`; the plugin, where it sets one, sets it to its NVLS
    /// chunk).
    pub fn nvls_tree_max(&self, nodes: u32) -> u64 {
        match self.plugin.and_then(|p| p.nvls_chunk) {
            Some(c) => c,
            None if nodes >= 4 => 64 << 10,
            None => NVLS_CHUNK,
        }
    }

    /// Where each of its values comes from: `(what, value as written, source)`.
    pub fn sources(&self) -> &'static [Source] {
        SOURCES.iter().find(|(id, _)| *id == self.id).map_or(&[], |(_, s)| s)
    }

    /// This preset as a custom system (`custom:KEY=VALUE,…`, every key of
    /// [`CUSTOM_KEYS`] but the per-link bandwidth, NCCL's for the arch):
    /// what the page's custom fields start from, and a custom system's id.
    /// [`custom`] gives back the preset's values (a custom system's
    /// exactly: its per-link bandwidth is written where it is not NCCL's).
    pub fn custom_text(&self) -> String {
        // Volta has no key: read as the closest, Ampere.
        let (arch, _, per_link, _) = CUSTOM_ARCHS.iter().find(|a| a.1 == self.arch).copied().unwrap_or(CUSTOM_ARCHS[0]);
        let plugin = CUSTOM_PLUGINS.iter().find(|(_, p)| self.plugin == Some(*p)).map_or("none", |(id, _)| id);
        if let Some(gen) = PCIE_GENS.iter().find(|g| Some(g.1) == self.pcie) {
            return format!(
                "custom:gpus={},arch={arch},nvlinks=0,pcie={},nics={},nic-gbps={},plugin={plugin}",
                self.gpus,
                gen.0,
                self.nics,
                self.nic * 8.0
            );
        }
        // A domain of trays: the tray's GPUs and NICs, and the domain.
        let trays = (self.gpus / self.tray.max(1)).max(1);
        let (gpus, domain) =
            if trays > 1 { (self.tray, format!(",domain={}", self.gpus)) } else { (self.gpus, String::new()) };
        let line_rate = CUSTOM_ARCHS.iter().find(|a| a.0 == arch).map_or(25.0, |a| a.3);
        // A custom system's line rate is its links × the arch's; a preset's is its datasheet's.
        let by_line = self.nvlink_line / line_rate;
        let links = if by_line.fract() == 0.0 && (1.0..=18.0).contains(&by_line) {
            by_line
        } else {
            (self.nvlink / per_link).round().max(1.0)
        };
        // The per-link bandwidth only where it is not NCCL's for the arch.
        let link_gbps = if (links * per_link * 1e9).round() / 1e9 == self.nvlink {
            String::new()
        } else {
            format!(",link-gbps={}", self.nvlink / links)
        };
        format!(
            "custom:gpus={gpus}{domain},arch={arch},nvlinks={links}{link_gbps},nvswitch={},nvls={},nics={},nic-gbps={},plugin={plugin}",
            u8::from(self.nvswitch),
            u8::from(self.nvls),
            self.nics / trays,
            self.nic * 8.0
        )
    }

    /// What a prediction for `nodes` such nodes leaves out, in a sentence:
    /// on the p5 family above 2 nodes aws-ofi-nccl's own tuner decides
    /// instead of NCCL's model (`src/tuner/nccl_ofi_regions.cpp`), and its
    /// regions are not transcribed.
    pub fn not_modelled(&self, nodes: u32) -> Option<&'static str> {
        let tuner = self.plugin.is_some_and(|p| p.step_us.is_some());
        (tuner && nodes > 2).then_some(
            "aws-ofi-nccl's own tuner picks the algorithm and protocol on this instance above 2 nodes (src/tuner/nccl_ofi_regions.cpp); its regions are not transcribed: the rows are NCCL's own pick, simulated",
        )
    }

    /// Ranks of `nodes` nodes.
    pub fn ranks(&self, nodes: u32) -> u32 {
        nodes * self.gpus
    }

    /// What one of NCCL's channels can move inside a node (GB/s, one
    /// direction), its graph's intra bandwidth: on an `NVSwitch` the channels
    /// share a GPU's links; without one, a channel's hop takes one pair's
    /// links and the channels spread over the other GPUs, so a channel gets
    /// at most one pair's bandwidth (`search.cc` finds channels on distinct
    /// links first).
    pub fn channel_nvlink(&self) -> f64 {
        self.channel_nvlink_on(self.nics)
    }

    /// [`Preset::channel_nvlink`] over `channels` channels.
    pub fn channel_nvlink_on(&self, channels: u32) -> f64 {
        let channels = f64::from(channels.max(1));
        if self.nvswitch {
            self.nvlink / channels
        } else {
            self.nvlink.min(self.nvlink * f64::from(self.gpus.max(2) - 1) / channels)
        }
    }

    /// [`Preset::nccl`] as `--nccl` text (`key=value,…`).
    pub fn nccl_text(&self, nodes: u32) -> String {
        self.nccl_text_at(nodes, Version::Current)
    }

    /// [`Preset::nccl_at`] as `--nccl` text: [`Preset::nccl_text`] and, for
    /// an older release, its `version` key.
    pub fn nccl_text_at(&self, nodes: u32, version: Version) -> String {
        let s = self.nccl(nodes);
        // The current release is the default: its key is left out.
        let arch = match s.arch {
            Arch::Volta => "volta",
            Arch::Ampere => "ampere",
            Arch::Hopper => "hopper",
            Arch::Blackwell => "blackwell",
        };
        let path = if s.nic_path == NicPath::Pix { "pix" } else { "pxb" };
        format!(
            "nodes={},gpus={},arch={arch},channels={},bw-intra={},bw-inter={},nvls={},nic-path={path},net-latency={}",
            s.nodes,
            s.gpus,
            s.channels,
            s.bw_intra,
            s.bw_inter,
            u8::from(s.nvls),
            s.net_latency
        ) + if s.nvlink { "" } else { ",link=pcie" }
            + &if version == Version::Current { String::new() } else { format!(",version={}", version.id()) }
    }

    /// NCCL's description of `nodes` such nodes (the `--nccl` keys): one
    /// channel per rail, each carrying its share of a GPU's `NVLink` inside
    /// the node and one NIC between nodes.
    #[allow(clippy::cast_possible_truncation, reason = "bandwidths of a few hundred GB/s")]
    pub fn nccl(&self, nodes: u32) -> nccl::System {
        self.nccl_at(nodes, Version::Current)
    }

    /// [`Preset::nccl`] with NCCL `version`'s constants and formulas.
    pub fn nccl_at(&self, nodes: u32, version: Version) -> nccl::System {
        // One a rail, at most NCCL's MAXCHANNELS (a 72-GPU domain's 72 NICs).
        let channels = self.nics.min(crate::libraries::nccl_env::max_channels(version));
        nccl::System {
            version,
            nodes,
            gpus: self.gpus,
            arch: self.arch,
            amd: false,
            channels,
            bw_intra: self.channel_nvlink_on(channels) as f32,
            bw_inter: self.nic as f32,
            pattern: Pattern::Balanced,
            nvlink: self.pcie.is_none(),
            nvls: self.nvls,
            collnet: false,
            nic_path: if self.nics < self.gpus { NicPath::Pxb } else { NicPath::Pix },
            #[allow(clippy::cast_possible_truncation, reason = "a latency of tens of µs")]
            net_latency: self.plugin.map_or(0.0, |p| p.reported_us as f32),
            same_channels: true,
            settings: crate::libraries::nccl_env::Settings::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_are_nccl_tests_bandwidths() {
        // 1 GB in 10 ms on 16 ranks: algbw 100 GB/s, allreduce busbw 100 × 2 · 15/16.
        let (c, p, n, t) = (Collective::Allreduce, 16, 1_000_000_000, 1e7);
        assert_eq!(Measure::Time.of(c, p, n, t), 1e7);
        assert!((Measure::Algbw.of(c, p, n, t) - 100.0).abs() < 1e-12);
        assert!((Measure::Busbw.of(c, p, n, t) - 187.5).abs() < 1e-12);
        assert!((Measure::Busbw.of(Collective::Allgather, 8, n, t) - 87.5).abs() < 1e-12);
        assert_eq!(Measure::Busbw.of(c, p, n, 0.0), 0.0);
        for m in Measure::ALL {
            assert_eq!(Measure::parse(m.id()), Ok(m));
        }
        assert!(Measure::parse("GB/s").is_err());
    }

    #[test]
    fn busbw_factors_are_nccl_tests() {
        // nccl-tests PERFORMANCE.md, for 16 ranks.
        assert!((busbw_factor(Collective::Allreduce, 16) - 30.0 / 16.0).abs() < 1e-12);
        assert!((busbw_factor(Collective::Allgather, 16) - 15.0 / 16.0).abs() < 1e-12);
        assert!((busbw_factor(Collective::ReduceScatter, 8) - 7.0 / 8.0).abs() < 1e-12);
        assert!((busbw_factor(Collective::AllToAll, 4) - 0.75).abs() < 1e-12);
        assert!((busbw_factor(Collective::Broadcast, 16) - 1.0).abs() < 1e-12);
        assert!((busbw_factor(Collective::Reduce, 16) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn presets_are_consistent() {
        for p in PRESETS {
            assert_eq!(p.gpus % p.nics, 0, "{}", p.id);
            assert!(p.sources().len() >= 2, "{}", p.id);
            let shape = p.shape(2);
            assert_eq!(shape.hosts(), u64::from(2 * p.gpus));
            assert_eq!(Preset::find(p.id).unwrap(), p);
            // The Gb/s of the sheet and the bytes per ns agree: 400 Gb/s = 50 B/ns
            // (100 to 800 Gb/s: EFA's to ConnectX-8's).
            assert!(p.nic * 8.0 >= 100.0 && p.nic * 8.0 <= 800.0, "{}", p.id);
            // A domain is whole trays, each with its share of the NICs.
            assert!(p.gpus % p.tray == 0 && p.nics % (p.gpus / p.tray) == 0, "{}", p.id);
        }
        assert!(Preset::find("dgx-h1000").unwrap_err().contains("dgx-h100"));
        assert_eq!(Preset::find("p4d").unwrap().shape(2).to_string(), "nodes:2x8x4");
        // The description as text reads back as the same system.
        for p in PRESETS {
            let text = p.nccl_text(3);
            assert_eq!(nccl::parse_system(&text, p.ranks(3)).unwrap(), p.nccl(3), "{text}");
        }
    }
}

#[cfg(test)]
mod pcie_tests {
    use super::{custom, nccl, Preset, PCIE_GENS};

    /// A node without `NVLink`: its GPUs' link is NCCL's bandwidth of an x16
    /// link of the generation (`topo.cc`: width × speed / 80, speed 60, 120,
    /// 240, 480 per lane), NCCL is told `link=pcie`, and the description
    /// reads back; `NVLink`'s keys beside `nvlinks=0` are refused by name.
    #[test]
    fn pcie_nodes_take_nccl_s_link_bandwidth() {
        for (gen, speed) in [("gen3", 60.0), ("gen4", 120.0), ("gen5", 240.0), ("gen6", 480.0)] {
            let p = custom(&format!("gpus=8,nvlinks=0,pcie={gen},nics=2,nic-gbps=200")).unwrap();
            assert_eq!(p.nvlink, 16.0 * speed / 80.0, "{gen}");
            assert!(!p.nvls && p.pcie.is_some() && p.intra_hw() == nccl::Hw::Pci);
            assert!(p.nccl_text(2).contains(",link=pcie"), "{}", p.nccl_text(2));
            assert!(!p.nccl(2).nvlink);
            let back: Preset = custom(p.custom_text().trim_start_matches("custom:")).unwrap();
            assert_eq!(back, p, "{}", p.custom_text());
        }
        assert_eq!(custom("nvlinks=0").unwrap().pcie, Some(4), "gen4 by default");
        assert_eq!(PCIE_GENS.len(), 4);
        // The page's fields carry every key: a switch and no NVLS agree with PCIe.
        assert_eq!(custom("nvlinks=0,nvswitch=1,nvls=0").unwrap(), custom("nvlinks=0").unwrap());
        for (keys, named) in [
            ("nvlinks=0,nvswitch=0", "nvswitch"),
            ("nvlinks=0,nvls=1", "nvls"),
            ("nvlinks=0,link-gbps=30", "link-gbps"),
            ("pcie=gen4", "pcie"),
            ("nvlinks=0,pcie=gen2", "pcie"),
        ] {
            let e = custom(keys).unwrap_err();
            assert!(e.contains(named), "{keys}: {e}");
        }
    }
}

#[cfg(test)]
mod domain_tests {
    use super::{custom, Preset};
    use crate::choose::{nvls, Collective};

    /// A domain of trays: NCCL's one node of all its GPUs, the trays' NICs
    /// as its rails; refused by name where it is not whole trays or has no
    /// `NVLink` switches; the presets read back from their description.
    #[test]
    fn a_domain_is_whole_trays() {
        let d = custom("gpus=4,domain=72,arch=blackwell,nics=4").unwrap();
        assert_eq!((d.gpus, d.nics, d.tray), (72, 72, 4));
        assert_eq!(d.shape(2).to_string(), "nodes:2x72", "a rail a GPU");
        for (keys, named) in
            [("gpus=4,domain=70", "domain"), ("gpus=4,domain=8,nvswitch=0,nvls=0", "domain"), ("domain=80", "domain")]
        {
            let e = custom(keys).unwrap_err();
            assert!(e.contains(named), "{keys}: {e}");
        }
        for id in ["gb200-nvl72", "gb300-nvl72"] {
            let p = Preset::find(id).unwrap();
            assert!(p.custom_text().contains("gpus=4,domain=72"), "{}", p.custom_text());
            let back = Preset::find(&p.custom_text()).unwrap();
            assert_eq!(Preset { id: p.id, name: p.name, ..back }, p);
            // NCCL's channels: its MAXCHANNELS, not one a NIC.
            assert_eq!(p.nccl_at(2, crate::libraries::nccl::Version::V2_22).channels, 32);
            assert_eq!(p.nccl(2).channels, 64);
        }
    }

    /// NVLS on one 72-GPU domain has 32 heads (`NCCL_MAX_NVLS_ARITY`): a
    /// piece is 32 slices, each summed back to one of the domain's first 32
    /// GPUs; on a node of 8 every GPU heads one.
    #[test]
    fn nvls_has_at_most_32_heads() {
        for (g, heads) in [(72, 32), (8, 8), (36, 32)] {
            let plan = nvls(Collective::Allreduce, g, g, 2).unwrap();
            assert_eq!(plan.blocks, 2 * heads, "{g}");
            // The switch (rank g) returns each sum to its head.
            let mut to: Vec<u32> =
                plan.rounds.iter().flatten().filter(|t| t.from == g && !t.combine).map(|t| t.to).collect();
            to.sort_unstable();
            to.dedup();
            assert_eq!(to.len() as u32, g, "{g}: the switch copies to every GPU");
            let returned: std::collections::BTreeSet<u32> =
                plan.rounds[1].iter().filter(|t| t.from == g).map(|t| t.to).collect();
            assert_eq!(returned, (0..heads).collect(), "{g}");
        }
    }
}

#[cfg(test)]
mod gpu_tests {
    use super::{preset_of_gpu, GPU_NAMES, PRESETS};

    /// Drivers' names as nvidia-smi and nccl-tests print them, each to the
    /// node that carries it; a name holding another's word goes to its own.
    #[test]
    fn a_gpu_s_name_finds_its_node() {
        let id = |name: &str| preset_of_gpu(name).map(|p| p.map(|p| p.id));
        assert_eq!(id("NVIDIA H100 80GB HBM3"), Ok(Some("dgx-h100")));
        assert_eq!(id("NVIDIA GH200 120GB"), Ok(Some("gh200-slingshot")));
        assert_eq!(id("NVIDIA H200"), Ok(Some("hgx-h200")));
        assert_eq!(id("NVIDIA A100-SXM4-80GB"), Ok(Some("dgx-a100")));
        assert_eq!(id("NVIDIA H800"), Ok(Some("h800")));
        assert_eq!(id("NVIDIA B200"), Ok(Some("hgx-b200")));
        assert_eq!(id("NVIDIA GB200"), Ok(Some("gb200-nvl72")));
        assert_eq!(id("NVIDIA GB300"), Ok(Some("gb300-nvl72")));
        assert_eq!(id("NVIDIA H100 PCIe"), Ok(None));
        assert_eq!(id("NVIDIA A100-PCIE-40GB"), Ok(None));
        assert_eq!(id("NVIDIA L40S"), Ok(None));
        assert!(id("AMD Instinct MI300X").is_err());
        // Every id named is a preset's; no word is shadowed by an earlier one
        // it holds (the order of the table).
        for (i, (word, preset)) in GPU_NAMES.iter().enumerate() {
            assert!(preset.is_none_or(|p| PRESETS.iter().any(|x| x.id == p)), "{word}");
            assert!(GPU_NAMES[..i].iter().all(|(w, _)| !word.contains(w)), "{word} comes after a word it holds");
        }
    }
}

#[cfg(test)]
mod custom_tests {
    use super::{custom, Preset, PRESETS};

    /// Given a preset's values, a custom system is that preset (but for its
    /// id, name and sources), and its errors name the key.
    #[test]
    fn custom_systems_are_presets_given_their_values() {
        let text = |p: &Preset| {
            let arch = match p.arch {
                super::Arch::Ampere => "ampere",
                super::Arch::Blackwell => "blackwell",
                _ => "hopper",
            };
            let plugin = match (p.id, p.plugin.is_some()) {
                ("p4d", _) => "aws-p4d",
                ("p5", _) => "aws-p5",
                ("p5en", _) => "aws-p5en",
                ("p6-b200", _) => "aws-p6",
                _ => "none",
            };
            let links = match p.id {
                "dgx-a100" | "p4d" => 12,
                "h800" => 8,
                _ => 18,
            };
            // A domain of trays is given by its tray and its size.
            let trays = p.gpus / p.tray;
            let domain = if trays > 1 { format!(",domain={}", p.gpus) } else { String::new() };
            format!(
                "gpus={}{domain},arch={arch},nvlinks={links},nics={},nic-gbps={},nvls={},plugin={plugin}",
                p.tray,
                p.nics / trays,
                p.nic * 8.0,
                u8::from(p.nvls)
            )
        };
        for p in PRESETS.iter().filter(|p| p.id != "gh200-slingshot") {
            let c = Preset::find(&format!("custom:{}", text(p))).unwrap();
            let same = Preset { id: p.id, name: p.name, nvlink_line: p.nvlink_line, ..c };
            assert_eq!(same, *p, "{}", text(p));
        }
        // What the page's custom fields start from is the preset (GH200's
        // plugin off AWS reports 0 and states nothing: as none).
        for p in PRESETS {
            let text = p.custom_text();
            let c = Preset::find(&text).unwrap();
            let plugin = if p.id == "gh200-slingshot" { None } else { p.plugin };
            let same = Preset { id: p.id, name: p.name, plugin, ..c };
            assert_eq!(same, Preset { plugin, ..p }, "{text}");
        }
        assert_eq!(custom("").unwrap().nvlink, 370.8);
        // NVLS on a 72-GPU NVLink domain: its channels run as one, so its
        // switch's streams fit GOAL's NIC units (`docs/network.md`, NVLS).
        assert!(custom("gpus=72,arch=blackwell,nics=18").unwrap().nvls);
        for (bad, key) in [
            ("gpus=0", "gpus"),
            ("gpus=8,nics=3", "nics"),
            ("arch=pascal", "arch"),
            ("nvlinks=19", "nvlinks"),
            ("nic-gbps=-1", "nic-gbps"),
            ("nvls=1,nvswitch=0", "nvls"),
            ("arch=ampere,nvls=1", "nvls"),
            ("plugin=ucx", "plugin"),
            ("speed=3", "speed"),
            ("gpus=8,gpus=4", "gpus"),
        ] {
            let e = custom(bad).unwrap_err();
            assert!(e.contains(key), "{bad}: {e}");
        }
    }
}

//! `commlab net sim FILE`: a GOAL schedule on a network (`docs/network.md`);
//! `commlab net topo`: a topology's vertices and links.

use crate::goal::read;
use crate::reduce::ArgError;
use commlab_api::network::{run, run_json, topology_json, NetRequest};
use commlab_api::system::System;
use commlab_api::ApiError;
use commlab_core::goal::parse;
use commlab_core::libraries::nccl::Version;
use commlab_core::net::NetParams;
use serde_json::Value;

/// `commlab net …`.
#[derive(clap::Subcommand)]
pub enum NetCommand {
    /// Simulate a GOAL schedule on a network: finish times, per-link load, the bottleneck, unreachable pairs.
    Sim(SimArgs),
    /// A topology's vertices and links (with their breaks).
    Topo(TopoArgs),
}

/// The network flags shared by `net sim`, `net topo` and `choose`.
#[derive(clap::Args, Clone)]
pub struct NetArgs {
    /// switch:H, ring:H, mesh:XxY[xZ], torus:XxY[xZ], fattree:K,L,S or nodes:NxG.
    #[arg(long)]
    pub topology: Option<String>,
    /// First link class: bandwidth in bytes per ns (= GB/s). Default 25 (450 for nodes: a GPU link inside a node).
    #[arg(long)]
    pub bandwidth: Option<f64>,
    /// First link class: latency per link in ns. Default 250 (100 for nodes).
    #[arg(long)]
    pub latency: Option<f64>,
    /// Second class (fat-tree leaf–spine; nodes NIC/rail): bytes per ns. Default 25 (50 for nodes).
    #[arg(long)]
    pub bandwidth2: Option<f64>,
    /// Second class latency in ns. Default 250 (500 for nodes).
    #[arg(long)]
    pub latency2: Option<f64>,
    /// Links to break, by their two vertex ids: a-b,c-d.
    #[arg(long = "break", default_value = "")]
    pub breaks: String,
    /// Fraction of links broken at random (exactly round(rate × links)).
    #[arg(long, default_value_t = 0.0)]
    pub break_rate: f64,
    /// Seed of the random breaks.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// identity (rank r on host r) or random:SEED.
    #[arg(long, default_value = "identity")]
    pub placement: String,
    /// NIC window: messages one (rank, NIC) holds at once, from its send's start until it arrives; 0: no limit.
    #[arg(long, default_value_t = 1)]
    pub nic_window: u32,
    /// A system preset instead of --topology (`commlab predict --system list`): its nodes:NxGxR network and bandwidths.
    #[arg(long, conflicts_with = "topology")]
    pub system: Option<String>,
    /// Nodes of the preset (with --system).
    #[arg(long, requires = "system")]
    pub nodes: Option<u32>,
}

impl NetArgs {
    /// The System of `--system` and `--nodes` (under NCCL `version`).
    ///
    /// # Errors
    /// An unknown system, `--nodes` missing or out of range.
    pub fn system(&self, version: Version) -> Result<Option<System>, ArgError> {
        self.system_with(None, version)
    }

    /// As [`NetArgs::system`], the nodes taken from `p` ranks when `--nodes` is not given.
    ///
    /// # Errors
    /// As [`NetArgs::system`]; `p` not a whole number of the preset's nodes.
    pub fn system_for(&self, p: u32, version: Version) -> Result<Option<System>, ArgError> {
        self.system_with(Some(p), version)
    }

    fn system_with(&self, p: Option<u32>, version: Version) -> Result<Option<System>, ArgError> {
        let Some(id) = &self.system else { return Ok(None) };
        let preset = crate::system::node_type(id)?;
        let nodes = match (self.nodes, p) {
            (Some(n), _) => n,
            (None, Some(p)) => crate::system::nodes_of(&preset, p)?,
            (None, None) => {
                return Err(("--nodes".to_owned(), "the nodes of the system are required with --system".to_owned()))
            }
        };
        System::of_type(preset, nodes, version, commlab_api::system::NODES)
            .map(Some)
            .map_err(|e| ("--nodes".to_owned(), e.to_string()))
    }

    /// The request, if a topology or a system was given.
    ///
    /// # Errors
    /// As [`NetArgs::system`].
    pub fn request(&self) -> Result<Option<NetRequest>, ArgError> {
        let system = self.system(Version::Current)?;
        let topology = match (&self.topology, system) {
            (_, Some(s)) => s.preset.shape(s.nodes),
            (Some(t), None) => t.parse().map_err(|e| ("--topology".to_owned(), e))?,
            (None, None) => return Ok(None),
        };
        let mut request = NetRequest {
            topology,
            bandwidth: self.bandwidth,
            latency: self.latency,
            bandwidth2: self.bandwidth2,
            latency2: self.latency2,
            breaks: self.breaks.clone(),
            break_rate: self.break_rate,
            seed: self.seed,
            placement: self.placement.parse().map_err(|e| ("--placement".to_owned(), e))?,
            nic_window: self.nic_window,
        };
        if let Some(s) = system {
            // The System's network; bandwidths and breaks given beside it win.
            request.system(&s.preset, s.nodes);
            request.bandwidth = self.bandwidth.or(request.bandwidth);
            request.bandwidth2 = self.bandwidth2.or(request.bandwidth2);
            request.breaks.clone_from(&self.breaks);
            request.break_rate = self.break_rate;
        }
        Ok(Some(request))
    }
}

pub fn arg_error(e: &ApiError) -> ArgError {
    let flag = match e.field.as_str() {
        "break_rate" => "--break-rate".to_owned(),
        "nic_window" => "--nic-window".to_owned(),
        "hosts" | "vertices" | "links" => "--topology".to_owned(),
        "flows" => "FILE".to_owned(),
        f => format!("--{f}"),
    };
    (flag, e.to_string())
}

/// `commlab net sim`.
#[derive(clap::Args)]
pub struct SimArgs {
    /// The GOAL file (`-` for standard input; `.gz` files are read gzipped).
    file: String,
    #[command(flatten)]
    net: NetArgs,
    /// CPU overhead o per message (ns).
    #[arg(short = 'o', long = "overhead", default_value_t = 0)]
    o: u64,
    /// NIC gap g between two sends (ns).
    #[arg(short = 'g', long = "gap", default_value_t = 0)]
    g: u64,
    /// CPU overhead O per byte after the first (ns).
    #[arg(short = 'O', long = "overhead-per-byte", default_value_t = 0)]
    big_o: u64,
    /// Largest eager message S (bytes); larger ones wait for their receive. Default: every message eager.
    #[arg(short = 'S', long = "eager-limit", default_value_t = u64::MAX)]
    s: u64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
}

impl SimArgs {
    /// Runs the schedule on the network.
    ///
    /// # Errors
    /// An unreadable file, a GOAL error, a bad flag.
    pub fn run(&self) -> Result<Value, ArgError> {
        let request =
            self.net.request()?.ok_or(("--topology".to_owned(), "a topology (or --system) is required".to_owned()))?;
        let text = read(&self.file)?;
        let schedule = parse(&text).map_err(|e| ("FILE".to_owned(), format!("{}: {e}", self.file)))?;
        // As in the browser: each at most 2^40 ns (a larger clock has no
        // room left for a flow's nanoseconds in a float).
        let cost = |flag: &str, v: u64| {
            commlab_api::schedule::PARAM.check(v).map(|v| v as f64).map_err(|_| {
                (flag.to_owned(), format!("{v} is out of range: expected {}", commlab_api::schedule::PARAM))
            })
        };
        let p = NetParams {
            o: cost("--overhead", self.o)?,
            g: cost("--gap", self.g)?,
            big_o: cost("--overhead-per-byte", self.big_o)?,
            s: self.s,
            window: 0,
        };
        let started = std::time::Instant::now();
        let result = run(&schedule, &request, p, false).map_err(|e| arg_error(&e))?;
        let seconds = started.elapsed().as_secs_f64();
        let mut v = run_json(&schedule, &result, &request);
        v["seconds"] = serde_json::json!((seconds * 1e4).round() / 1e4);
        Ok(v)
    }
}

/// `commlab net topo`.
#[derive(clap::Args)]
pub struct TopoArgs {
    #[command(flatten)]
    net: NetArgs,
    /// Print one JSON object (the table shows counts).
    #[arg(long)]
    pub json: bool,
}

impl TopoArgs {
    /// Lists the topology.
    ///
    /// # Errors
    /// A bad flag.
    pub fn run(&self) -> Result<Value, ArgError> {
        let request =
            self.net.request()?.ok_or(("--topology".to_owned(), "a topology (or --system) is required".to_owned()))?;
        // The placement was checked with the request, as `net sim` checks it, though no rank is placed here.
        let net = request.network().map_err(|e| arg_error(&e))?;
        Ok(topology_json(&net))
    }
}

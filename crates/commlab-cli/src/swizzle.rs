//! `commlab swizzle`: the CommSwizzle mapping and schedule.

use crate::reduce::ArgError;
use commlab_api::swizzle::SwizzleRequest;
use commlab_core::swizzle::get_coord;
use serde_json::{json, Value};

/// `commlab swizzle`.
#[derive(clap::Args)]
pub struct SwizzleCommand {
    /// gridShape as ROW,COLUMN,RANK.
    #[arg(long, value_parser = parse_triple)]
    grid: (u32, u32, u32),
    /// coreSplit as ROW,COLUMN.
    #[arg(long, value_parser = parse_pair)]
    cores: (u32, u32),
    /// Swizzle direction: 0 (data dimension first) or 1 (swapped).
    #[arg(long, default_value_t = 0)]
    direction: u8,
    /// Deterministic mode, direction 0 only: each data index goes to a single core.
    #[arg(long)]
    deterministic: bool,
    /// Leave out the rank shift (the naive order).
    #[arg(long = "no-shift")]
    no_shift: bool,
    /// Bytes per tile, for the modelled time.
    #[arg(long = "tile-bytes", default_value_t = 65_536)]
    tile_bytes: u64,
    /// Cost preset: a2 or a5.
    #[arg(long, default_value = "a2")]
    preset: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Also run the schedule on every rank on this network, with and
    /// without the rank shift (`network` in the JSON: both times, hottest links).
    #[command(flatten)]
    net: crate::net::NetArgs,
}

fn numbers<const N: usize>(text: &str) -> Result<[u32; N], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let values: Result<Vec<u32>, _> = parts.iter().map(|p| p.parse::<u32>()).collect();
    match values {
        Ok(v) if v.len() == N => Ok(v.try_into().unwrap_or([0; N])),
        _ => Err(format!("expected {N} comma-separated non-negative integers, got {text:?}")),
    }
}

fn parse_triple(text: &str) -> Result<(u32, u32, u32), String> {
    numbers::<3>(text).map(|[a, b, c]| (a, b, c))
}

fn parse_pair(text: &str) -> Result<(u32, u32), String> {
    numbers::<2>(text).map(|[a, b]| (a, b))
}

impl SwizzleCommand {
    /// Runs the command.
    ///
    /// # Errors
    /// The argument at fault.
    pub fn run(&self) -> Result<Value, ArgError> {
        // The run is built by the engine API's `SwizzleRequest`, as in the view.
        let request = SwizzleRequest {
            grid: self.grid,
            cores: self.cores,
            direction: self.direction,
            deterministic: self.deterministic,
            shift: !self.no_shift,
            tile_bytes: self.tile_bytes,
            preset: self.preset.clone(),
            read: false,
            bandwidth_gib_s: 0.0,
            latency_ns: 0.0,
            compare: "none".to_owned(),
            ..SwizzleRequest::default()
        };
        let run = request.run().map_err(|e| {
            let flag = match e.field.split('.').next().unwrap_or(&e.field) {
                "grid" | "loops" => "--grid".to_owned(),
                "cores" => "--cores".to_owned(),
                "preset" => {
                    return ("--preset".to_owned(), format!("{:?} is not a preset: expected {}", e.value, e.expected))
                }
                other => format!("--{other}"),
            };
            (flag, format!("{} = {} is out of range: expected {}", e.field, e.value, e.expected))
        })?;
        let (schedule, naive, cost) = (&run.schedule, &run.naive, run.cost);
        let config = *schedule.config();
        let (grid, cores) = (config.grid(), config.cores());
        let coords: Vec<Value> = (0..config.loop_count())
            .map(|i| get_coord(&config, i).map_or(Value::Null, |c| json!([c.row, c.column, c.rank])))
            .collect();
        let coverage = schedule.coverage();
        let network = match self.net.request()? {
            Some(net) => {
                let n = request.on_network(&net).map_err(|e| crate::net::arg_error(&e))?;
                let side = |s: &commlab_api::swizzle::SwizzleNetSide| {
                    json!({
                        "shift": s.shift,
                        "time_ns": s.time_ns,
                        "peak_flows": s.peak_flows,
                        "hottest": s.hottest.as_ref().map(|(name, busy, bytes, peak)| json!({"name": name, "busy_ns": busy, "bytes": bytes, "peak_flows": peak})),
                    })
                };
                json!({"topology": n.topology, "with_shift": side(&n.sides[0]), "without_shift": side(&n.sides[1])})
            }
            None => Value::Null,
        };
        Ok(json!({
            "network": network,
            "grid": [grid.row, grid.column, grid.rank],
            "cores": [cores.row, cores.column],
            "direction": self.direction,
            "deterministic": self.deterministic,
            "shift": !self.no_shift,
            "coords": coords,
            "steps": schedule.steps(),
            "collisions_per_step": schedule.collisions_per_step(),
            "collisions": schedule.total_collisions(),
            "naive_collisions": naive.total_collisions(),
            "bijective": coverage.is_bijective(),
            "repeated_cells": coverage.repeated.iter().map(|&(d, r, n)| json!({"data": d, "rank": r, "visits": n})).collect::<Vec<_>>(),
            "missed_cells": coverage.missed.iter().map(|&(d, r)| json!({"data": d, "rank": r})).collect::<Vec<_>>(),
            "preset": request.preset,
            "modelled_ns": cost.schedule_ns(schedule),
            "naive_modelled_ns": cost.schedule_ns(naive),
        }))
    }
}

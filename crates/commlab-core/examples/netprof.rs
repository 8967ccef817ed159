//! Times the phases of one network run, for profiling (`perf record`,
//! `valgrind --tool=callgrind`) where criterion's repetitions get in the way:
//!
//! ```text
//! cargo run --release -p commlab-core --example netprof -- allreduce/ring torus:32x32 1024 67108864
//! cargo run --release -p commlab-core --example netprof -- allreduce/ring nodes:128x8 1024 1073741824 16
//! ```
//!
//! A fifth argument splits the data over that many channels, ordered for the
//! topology as `commlab goal gen --channels C --topology T` orders them (a
//! schedule too large for a GOAL file of 1 GiB runs this way).
//!
//! Prints the time to build the schedule, to lay out its ops, to run it on the
//! network, to reset the layout, and to run it again on the ideal switch (what
//! the Schedule view's worker does), each on its own line.
use commlab_core::choose::{goal_channels, plan, Collective};
use commlab_core::net::{simulate, NetParams, NetSimulation, Network, Placement, Prepared, Shape};
use std::time::Instant;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some([which, topology, ranks, bytes]), true) = (args.first_chunk::<4>(), args.len() <= 5) else {
        return Err("usage: netprof COLLECTIVE/ALGORITHM TOPOLOGY P BYTES [CHANNELS]".into());
    };
    let channels = args.get(4).map_or("1", String::as_str);
    let (collective, algorithm) = which.split_once('/').ok_or("COLLECTIVE/ALGORITHM")?;
    let collective: Collective = collective.parse().map_err(|e| format!("{e:?}"))?;
    let shape: Shape = topology.parse().map_err(|e| format!("{e:?}"))?;
    let ranks: u32 = ranks.parse().map_err(|e| format!("P: {e}"))?;
    let bytes: u64 = bytes.parse().map_err(|e| format!("BYTES: {e}"))?;
    let channels: u32 = channels.parse().map_err(|e| format!("CHANNELS: {e}"))?;
    let clock = Instant::now();
    let plan = plan(collective, algorithm, ranks, 1).map_err(|e| format!("{e:?}"))?;
    let planned = clock.elapsed();
    let orders: Vec<Vec<u32>> = if channels <= 1 {
        vec![(0..ranks).collect()]
    } else {
        (0..channels).map(|c| shape.channel_order(ranks, c)).collect()
    };
    let schedule = goal_channels(&plan, bytes, &orders);
    drop(plan);
    println!("build {:?} ({} ops; the plan {planned:?})", clock.elapsed(), schedule.ops.len());
    let clock = Instant::now();
    let prepared = Prepared::new(&schedule);
    println!("layout {:?}", clock.elapsed());
    let run = |prepared, net| -> Result<_, String> {
        let clock = Instant::now();
        let mut sim = NetSimulation::prepared(prepared, net, Placement::Identity, NetParams::default(), false)
            .map_err(|e| format!("{e:?}"))?;
        while !sim.advance(u64::MAX).map_err(|e| format!("{e:?}"))? {}
        let elapsed = clock.elapsed();
        let clock = Instant::now();
        let (outcome, prepared) = sim.finish_prepared();
        Ok((elapsed, outcome, prepared, clock.elapsed()))
    };
    let net = Network::new(shape, shape.default_classes()).map_err(|e| format!("{e:?}"))?;
    let (elapsed, outcome, prepared, reset) = run(prepared, net)?;
    println!(
        "run {elapsed:?} (max {:?}, {} events, re-sharings {:?})",
        outcome.max(),
        outcome.events,
        outcome.resharing
    );
    println!("reset {reset:?}");
    let ideal =
        Network::new(Shape::Switch(shape.hosts().try_into().unwrap_or(u32::MAX)), [shape.default_classes()[0]; 2])
            .map_err(|e| format!("{e:?}"))?;
    let (elapsed, outcome, _, _) = run(prepared, ideal)?;
    println!("ideal {elapsed:?} (max {:?})", outcome.max());
    // What the criterion benchmark times: `simulate`, layout to outcome.
    for _ in 0..3 {
        let net = Network::new(shape, shape.default_classes()).map_err(|e| format!("{e:?}"))?;
        let clock = Instant::now();
        let outcome =
            simulate(&schedule, net, Placement::Identity, NetParams::default(), false).map_err(|e| format!("{e:?}"))?;
        println!("simulate {:?} (max {:?})", clock.elapsed(), outcome.max());
    }
    Ok(())
}

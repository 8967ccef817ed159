//! The page's expected curve past the flow engine's nodes: what it plans is
//! what `predict --engine steady` runs, and it refuses what that refuses.

use commlab_api::predict::{Engine, Expected, PredictRequest, STEADY_NODES};

/// `nodes` of DGX H100 as a request carries them, unchecked (the engines check).
fn request(collective: &str, nodes: u32, sizes: &[u64]) -> PredictRequest {
    let preset = commlab_api::system::node_type("dgx-h100").unwrap();
    let version = commlab_core::libraries::nccl::Version::Current;
    PredictRequest {
        system: commlab_api::system::System {
            preset,
            nodes,
            version,
            settings: commlab_core::libraries::nccl_env::Settings::default(),
        },
        collective: collective.into(),
        sizes: sizes.to_vec(),
    }
}

#[test]
fn past_the_flow_engines_nodes_the_page_plans_what_the_steady_engine_predicts() {
    let sizes = [1 << 10, 1 << 20, 1 << 30];
    for collective in ["allreduce", "allgather", "reduce-scatter"] {
        let asked = request(collective, 512, &sizes);
        // The flow engine's planning stops at its nodes.
        assert_eq!(asked.planned(Engine::Flow).unwrap_err().field, "nodes");
        let planned = asked.planned_expected().unwrap();
        let cli = asked.run(Engine::Steady).unwrap();
        assert_eq!(planned.len(), cli.rows.len());
        for (p, row) in planned.iter().zip(&cli.rows) {
            let e = Expected::by_its_engine(p).unwrap();
            assert_eq!(e.engine, Engine::Steady, "{collective} {} B", p.bytes);
            assert!((e.time_ns / 1000.0 - row.time_us).abs() <= 1e-9 * row.time_us, "{collective}: {e:?} vs {row:?}");
        }
    }
    // Within the flow engine's nodes nothing changes.
    let small = request("allreduce", 2, &sizes);
    assert_eq!(small.planned_expected().unwrap(), small.planned(Engine::Flow).unwrap());
}

#[test]
fn a_size_only_the_flow_engine_runs_is_refused_as_the_cli_refuses_it() {
    let asked = request("broadcast", 300, &[1 << 20]);
    let page = asked.planned_expected().unwrap_err();
    let cli = asked.run(Engine::Steady).unwrap_err();
    assert_eq!(page.to_string(), cli.to_string());
    assert!(page.to_string().contains("only the flow engine runs it"), "{page}");
    // Past the steady engine's nodes: its range.
    let far = request("allreduce", STEADY_NODES.max as u32 + 1, &[1 << 20]).planned_expected().unwrap_err();
    assert_eq!(far.field, "nodes");
}

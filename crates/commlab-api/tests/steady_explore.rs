use commlab_api::predict::{plan_as, Scales};
use commlab_api::system::System;
use commlab_core::choose::Collective;

#[test]
#[ignore]
fn explore_ring() {
    let presets = std::env::var("PRESETS").unwrap_or("dgx-h100,dgx-a100,p4d,p5,gh200-slingshot,hgx-h200,hgx-b200,h800,p5en,p6-b200".into());
    let nodes_list: Vec<u32> = std::env::var("NODES").unwrap_or("1,2,4,8".into()).split(',').map(|x| x.parse().unwrap()).collect();
    let names = ["paced-solo", "max(paced-solo,bw)", "paced-shared", "chain"];
    let mut worst = vec![[0.0f64; 2]; names.len()];
    let mut worst_case = vec![[String::new(), String::new()]; names.len()];
    for preset in presets.split(',') {
        for &nodes in &nodes_list {
            let system = System::new(preset, nodes, None).unwrap();
            for coll in [Collective::Allreduce, Collective::Allgather, Collective::ReduceScatter] {
                for proto in ["simple", "ll128", "ll"] {
                    for e in 10..=32 {
                        let bytes = 1u64 << e;
                        if e > 20 && e < 26 { continue; }
                        let region = usize::from(e >= 26);
                        let (planned, _) = plan_as(&system, coll, bytes, "ring", proto);
                        let Some(prepared) = planned.prepare().unwrap() else { continue };
                        let flow = planned.run(&prepared, Scales::NOMINAL).unwrap().0;
                        let (chain, bw, solo, lat) = commlab_api::steady::ring_parts(&planned, Scales::NOMINAL).unwrap();
                        let duty = commlab_api::steady::ring_duty(&planned, Scales::NOMINAL, 0.5).unwrap();
                        let _ = (chain, lat);
                        let (ps, psh) = commlab_api::steady::ring_paced(&planned, Scales::NOMINAL).unwrap();
                        let _ = duty;
                        let cands = [ps, ps.max(bw), psh, chain];
                        for (i, t) in cands.iter().enumerate() {
                            let err = (t / flow - 1.0).abs();
                            if err > worst[i][region] {
                                worst[i][region] = err;
                                worst_case[i][region] = format!("{preset} x{nodes} {coll} {proto} {bytes}: {:+.1}% (solo {:.2} bw {:.2} lat {:.2} chain {:.2} ps {:.2} psh {:.2})", (t / flow - 1.0) * 100.0, solo/flow, bw/flow, lat/flow, chain/flow, ps/flow, psh/flow);
                            }
                        }
                    }
                }
            }
        }
        for (i, k) in names.iter().enumerate() {
            println!("after {preset}: {k}: small {:.1}% [{}]  large {:.1}% [{}]", worst[i][0] * 100.0, worst_case[i][0], worst[i][1] * 100.0, worst_case[i][1]);
        }
    }
}

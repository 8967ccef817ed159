//! What the libraries pick, checked cell by cell against the sources read
//! by hand (MPICH 5.0.1 `maint/tuning/coll/mpir/generic.json` and
//! `src/mpi/coll/src/csel.c`; Open MPI 5.0.10
//! `coll_tuned_decision_fixed.c`), NCCL's model against predictions NCCL
//! printed, and the tuner files read back cell by cell.

#![allow(clippy::unreadable_literal, reason = "sizes written as the sources write their thresholds")]

use commlab_core::choose::Collective;
use commlab_core::libraries::{mpich, nccl, ompi, tuner, Query};

fn q(collective: Collective, p: u32, bytes: u64) -> Query {
    Query { collective, p, bytes, dtype_size: 4 }
}

/// Each expectation was read off generic.json by hand, not from the
/// transcription: (collective, p, n bytes, dtype size, MPICH's function).
#[test]
fn mpich_picks_match_generic_json() {
    use Collective::{AllToAll, Allgather, Allreduce, Broadcast, Reduce, ReduceScatter};
    let cases: &[(Collective, u32, u64, u32, &str)] = &[
        // allreduce: avg_msg_size<=8, then count<pow2, then reduce_scatter_allgather.
        (Allreduce, 64, 8, 4, "MPIR_Allreduce_intra_recursive_doubling"),
        (Allreduce, 64, 16, 4, "MPIR_Allreduce_intra_recursive_doubling"),
        (Allreduce, 64, 252, 4, "MPIR_Allreduce_intra_recursive_doubling"),
        (Allreduce, 64, 256, 4, "MPIR_Allreduce_intra_reduce_scatter_allgather"),
        (Allreduce, 100, 252, 4, "MPIR_Allreduce_intra_recursive_doubling"),
        (Allreduce, 100, 256, 4, "MPIR_Allreduce_intra_reduce_scatter_allgather"),
        (Allreduce, 64, 2048, 4, "MPIR_Allreduce_intra_reduce_scatter_allgather"),
        // bcast: "comm_size<8" holds at p = 8 (csel.c tests <=).
        (Broadcast, 8, 1 << 20, 4, "MPIR_Bcast_intra_binomial"),
        (Broadcast, 16, 12288, 4, "MPIR_Bcast_intra_binomial"),
        (Broadcast, 16, 12292, 4, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"),
        (Broadcast, 16, 524288, 4, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"),
        (Broadcast, 16, 524292, 4, "MPIR_Bcast_intra_scatter_ring_allgather"),
        (Broadcast, 12, 12292, 4, "MPIR_Bcast_intra_scatter_ring_allgather"),
        (Broadcast, 12, 12288, 4, "MPIR_Bcast_intra_binomial"),
        // allgather: total_msg_size = recvcount · size · p.
        (Allgather, 16, 262144, 4, "MPIR_Allgather_intra_recursive_doubling"),
        (Allgather, 16, 524288, 4, "MPIR_Allgather_intra_ring"),
        (Allgather, 12, 12 * 4 * 1706, 4, "MPIR_Allgather_intra_brucks"),
        (Allgather, 12, 12 * 4 * 1707, 4, "MPIR_Allgather_intra_ring"),
        // reduce: avg<=2048, then count<pow2.
        (Reduce, 64, 2048, 4, "MPIR_Reduce_intra_binomial"),
        (Reduce, 64, 2052, 4, "MPIR_Reduce_intra_reduce_scatter_gather"),
        (Reduce, 64, 4096, 64, "MPIR_Reduce_intra_reduce_scatter_gather"),
        (Reduce, 64, 4096, 128, "MPIR_Reduce_intra_binomial"),
        // reduce_scatter, commutative.
        (ReduceScatter, 32, 524284, 4, "MPIR_Reduce_scatter_intra_recursive_halving"),
        (ReduceScatter, 32, 524288, 4, "MPIR_Reduce_scatter_intra_pairwise"),
        // alltoall, not in place: avg_msg_size is one block.
        (AllToAll, 8, 8 * 32768, 4, "MPIR_Alltoall_intra_scattered"),
        (AllToAll, 8, 8 * 32772, 4, "MPIR_Alltoall_intra_pairwise"),
        (AllToAll, 16, 16 * 256, 4, "MPIR_Alltoall_intra_brucks"),
        (AllToAll, 16, 16 * 260, 4, "MPIR_Alltoall_intra_scattered"),
        (AllToAll, 16, 16 * 32772, 4, "MPIR_Alltoall_intra_pairwise"),
    ];
    for &(c, p, bytes, d, want) in cases {
        let got = mpich::pick(&Query { collective: c, p, bytes, dtype_size: d });
        assert_eq!(got, Some(want), "{c} p={p} n={bytes} dtype={d}");
    }
}

#[test]
fn mpich_default_tree_parses_and_bad_trees_are_named() {
    assert!(mpich::parse(mpich::DEFAULT).is_ok());
    let e = mpich::parse("{\n  \"collective=bcast\": 3\n}").unwrap_err();
    assert_eq!((e.line, e.column), (2, 23), "{e}");
    assert!(e.message.contains("object"), "{e}");
    let e = mpich::parse("{ \"comm_size<x\": {} }").unwrap_err();
    assert!(e.message.contains("whole number"), "{e}");
    let e = mpich::parse("{ \"a=any\": {} } x").unwrap_err();
    assert!(e.message.contains("after"), "{e}");
    assert!(mpich::parse(&"{\"k=any\":".repeat(100)).is_err());
}

/// Read off `coll_tuned_decision_fixed.c` by hand: (collective, p, n, number).
#[test]
fn ompi_picks_match_the_fixed_rules() {
    use Collective::{AllToAll, Allgather, Allreduce, Broadcast, Reduce, ReduceScatter};
    let cases: &[(Collective, u32, u64, u8)] = &[
        (Allreduce, 100, 200_000, 3),
        (Allreduce, 100, 262_144, 6),
        (Allreduce, 2, 4, 4),
        (Allreduce, 2, 4096, 4),
        (Allreduce, 2, 8192, 3),
        (Allreduce, 3, 300_000, 6),
        (Allreduce, 5000, 20_000, 3),
        (Allreduce, 300, 100, 2),
        // alltoall reads one block: n / p.
        (AllToAll, 2, 8, 2),
        (AllToAll, 2, 32, 5),
        (AllToAll, 100, 100 * 1000, 3),
        (AllToAll, 100, 100 * 300_000, 2),
        (Broadcast, 64, 1 << 30, 7),
        (Broadcast, 40, 1024, 6),
        (Broadcast, 40, 2048, 7),
        (Broadcast, 20, 2 << 20, 8),
        (Reduce, 300, 8192, 6),
        (Reduce, 300, 100, 5),
        (Reduce, 2, 4, 7),
        (Reduce, 6, 100_000, 5),
        // allgather reads one block too.
        (Allgather, 2, 1 << 20, 6),
        (Allgather, 20, 1 << 20, 3),
        (Allgather, 40, 40 * 1000, 3),
        (Allgather, 40, 40 * 2000, 5),
        (Allgather, 40, 40 * 65536, 4),
        (ReduceScatter, 6, 4, 1),
        (ReduceScatter, 6, 1000, 2),
        (ReduceScatter, 6, 262_144, 3),
        (ReduceScatter, 5000, 8192, 4),
    ];
    for &(c, p, bytes, want) in cases {
        let got = ompi::decide(&q(c, p, bytes));
        assert_eq!(got, want, "{c} p={p} n={bytes}: {} vs {}", ompi::name(c, got), ompi::name(c, want));
    }
    assert_eq!(ompi::name(Collective::Allreduce, 6), "rabenseifner");
    assert_eq!(ompi::ours(Collective::Allreduce, 6), Some("rabenseifner"));
    assert!(ompi::note(&q(Collective::Allgather, 20, 1 << 20), 3).is_some_and(|n| n.contains("bruck")));
}

/// NCCL 2.22 on the H100 cluster of NVIDIA/nccl issue #1453 (3 nodes × 8
/// GPUs, Intel CPUs, 16 channels; its tree pattern is TREE): rank 0 printed
/// `N Bytes -> Algo 0 proto 0 time t` for these allreduce sizes.
#[test]
fn nccl_reproduces_predictions_nccl_printed() {
    let system = nccl::parse_system(
        "version=2.22,nodes=3,gpus=8,arch=hopper,cpu=intel,pattern=tree,channels=16,bw-inter=12",
        24,
    )
    .unwrap();
    for (bytes, printed) in [(8u64, 25.200_924f32), (256, 25.229_528), (512, 25.259_054), (1024, 25.331_232)] {
        let pred = nccl::predict(&system, Collective::Allreduce, bytes).unwrap();
        assert_eq!(pred.choice(), (nccl::Algorithm::Tree, nccl::Protocol::Ll), "{bytes} B");
        let rel = ((pred.pick.2 - printed) / printed).abs();
        assert!(rel < 1e-6, "{bytes} B: {} vs NCCL's {printed}", pred.pick.2);
    }
}

/// One node, ring/simple by hand: latency base 8.4 + 2(p−1)·3.4 (`NVLink`
/// ring simple), bandwidth channels · bwIntra · p / (2(p−1)).
#[test]
fn nccl_ring_simple_on_one_node_is_its_closed_form() {
    let s = nccl::parse_system("nodes=1,gpus=8,channels=4,bw-intra=20", 8).unwrap();
    let n = 1u64 << 30;
    let pred = nccl::predict(&s, Collective::Allreduce, n).unwrap();
    let (_, _, t) = pred
        .times
        .iter()
        .copied()
        .find(|&(a, p, _)| a == nccl::Algorithm::Ring && p == nccl::Protocol::Simple)
        .unwrap();
    let lat = 8.4 + 14.0 * 3.4;
    let bw = 4.0 * 20.0 * 8.0 / 14.0;
    #[allow(clippy::cast_precision_loss, reason = "2^30")]
    let want = lat + n as f64 / (1000.0 * bw);
    assert!((f64::from(t) - want).abs() / want < 1e-5, "{t} vs {want}");
    assert_eq!(pred.choice(), (nccl::Algorithm::Ring, nccl::Protocol::Simple));
    assert!(nccl::predict(&s, Collective::AllToAll, n).is_none());
}

#[test]
fn nccl_descriptions_are_checked() {
    assert!(nccl::parse_system("nodes=3,gpus=8", 16).unwrap_err().0.contains("p = 16"));
    assert!(nccl::parse_system("channels=0", 8).unwrap_err().0.contains("channels"));
    assert!(nccl::parse_system("bw-intra=-1", 8).unwrap_err().0.contains("bw-intra"));
    assert!(nccl::parse_system("speed=3", 8).unwrap_err().0.contains("unknown key"));
    assert!(nccl::parse_system("arch=pascal", 8).unwrap_err().0.contains("arch"));
    assert_eq!(nccl::parse_system("", 64).unwrap().nodes, 8);
}

fn small_map() -> (Vec<u32>, Vec<u64>, Vec<&'static str>) {
    let ps = vec![4, 16];
    let sizes = vec![1024, 65536, 1 << 22];
    let winners = vec!["recursive-doubling", "rabenseifner", "ring", "recursive-doubling", "ring", "ring"];
    (ps, sizes, winners)
}

/// A known map gives a known file.
#[test]
fn a_known_map_gives_known_files() {
    let (ps, sizes, winners) = small_map();
    let map = tuner::Map {
        collective: Collective::Allreduce,
        ps: &ps,
        sizes: &sizes,
        winners: &winners,
        margins: &[],
        dtype_size: 4,
    };
    let ompi = tuner::export(tuner::Format::OmpiRules, &map, &|_| None).unwrap();
    // Past the map's last size (4 MiB) and from p = 17, algorithm 0: Open MPI's fixed rules.
    assert_eq!(
        ompi.text,
        "rule-file-version-1\n1 # collectives in this file\n2 # allreduce\n3 # communicator sizes\n\
         4 # communicator size\n4 # message sizes\n0 3 0 0 # recursive_doubling\n65536 6 0 0 # rabenseifner\n\
         4194304 4 0 0 # ring\n4194305 0 0 0 # beyond the map: Open MPI's fixed rules\n\
         16 # communicator size\n3 # message sizes\n0 3 0 0 # recursive_doubling\n65536 4 0 0 # ring\n\
         4194305 0 0 0 # beyond the map: Open MPI's fixed rules\n\
         17 # communicator size\n1 # message sizes\n0 0 0 0 # beyond the map: Open MPI's fixed rules\n"
    );
    let rules = tuner::read_ompi(&ompi.text).unwrap();
    assert_eq!(tuner::ompi_lookup(&rules, Collective::Allreduce, 16, 1 << 22), Some(4));
    assert_eq!(tuner::ompi_lookup(&rules, Collective::Allreduce, 16, (1 << 22) + 1), None, "beyond the sizes");
    assert_eq!(tuner::ompi_lookup(&rules, Collective::Allreduce, 17, 1024), None, "beyond the communicator sizes");
    // With margins, each band says why.
    let margins = [1.5, 1.2, 1.05, 2.0, 1.3, 1.1];
    let with = tuner::export(tuner::Format::OmpiRules, &tuner::Map { margins: &margins, ..map }, &|_| None).unwrap();
    assert!(
        with.text.contains("0 3 0 0 # recursive_doubling: the model's fastest here, at least 50 % ahead of the next\n"),
        "{}",
        with.text
    );
    assert!(
        with.text.contains("65536 4 0 0 # ring: the model's fastest here, at least 10 % ahead of the next\n"),
        "{}",
        with.text
    );
    let nccl = tuner::export(tuner::Format::NcclTuner, &map, &|_| None).unwrap();
    let lines: Vec<&str> = nccl.text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        lines,
        [
            "allreduce,0,18446744073709551615,ring,simple,-1,-1,4,-1,-1",
            "allreduce,0,18446744073709551615,ring,simple,-1,-1,16,-1,-1"
        ]
    );
    assert_eq!(nccl.substitutes.len(), 2, "{:?}", nccl.substitutes);
    let mpich = tuner::export(tuner::Format::MpichJson, &map, &|_| None).unwrap();
    assert!(mpich.text.contains("\"comm_size<=4\""), "{}", mpich.text);
    assert!(mpich
        .text
        .contains("\"avg_msg_size<=1024\": { \"algorithm=MPIR_Allreduce_intra_recursive_doubling\": {} }"));
    assert!(mpich.substitutes.is_empty());
    assert!(tuner::export(tuner::Format::NcclTuner, &tuner::Map { collective: Collective::AllToAll, ..map }, &|_| {
        None
    })
    .is_err());
}

/// Every collective's map, in every format, reads back to the map's
/// algorithm (through the target's name for it) in every cell.
#[test]
fn exported_files_read_back_cell_by_cell() {
    let ps: Vec<u32> = vec![2, 3, 8, 12, 64, 100];
    let sizes: Vec<u64> = (3..24).step_by(2).map(|k| 1u64 << k).collect();
    for c in Collective::ALL {
        let ids: Vec<&str> = commlab_core::choose::of(c).map(|a| a.id).collect();
        let winners: Vec<&str> = (0..ps.len() * sizes.len()).map(|k| ids[(k * 7 / 3 + k / 5) % ids.len()]).collect();
        let map = tuner::Map { collective: c, ps: &ps, sizes: &sizes, winners: &winners, margins: &[], dtype_size: 4 };
        for format in tuner::Format::ALL {
            let Ok(export) = tuner::export(format, &map, &|_| None) else {
                assert!(format == tuner::Format::NcclTuner && c == Collective::AllToAll);
                continue;
            };
            for (i, &p) in ps.iter().enumerate() {
                for (j, &bytes) in sizes.iter().enumerate() {
                    let query = Query { collective: c, p, bytes, dtype_size: 4 };
                    let got = tuner::read_back(format, &export.text, &query).unwrap();
                    // Cells the library sees as one call: the first is written.
                    let size = tuner::quantity(format, &query);
                    let first = (0..=j)
                        .find(|&k| tuner::quantity(format, &Query { bytes: sizes[k], ..query }) == size)
                        .unwrap_or(j);
                    let want = tuner::target_name(format, c, winners[i * sizes.len() + first]);
                    assert_eq!(got.as_deref(), Some(want.as_str()), "{c} {} p={p} n={bytes}", format.id());
                }
            }
        }
    }
}

#[test]
fn tuner_readers_name_the_line_and_column() {
    let e = tuner::read_nccl("allreduce,0,10,ring,simple,-1,-1\n").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("8 to 10"));
    let e = tuner::read_nccl("# c\nallreduce,0,x,ring,simple,-1,-1,8\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 13), "{e}");
    let e = tuner::read_nccl("allreduce,0,10,spiral,simple,-1,-1,8").unwrap_err();
    assert!(e.message.contains("algorithm"));
    let e = tuner::read_ompi("1\n2\n1\n8\n1\n64 3 0 0\n").unwrap_err();
    assert_eq!(e.line, 6);
    assert!(e.message.contains("size 0"));
    let e = tuner::read_ompi("1\n2\n1\n8\n2\n0 3 0").unwrap_err();
    assert!(e.message.contains("end of the file"), "{e}");
    assert!(tuner::read_ompi("1 # one\n2\n1\n8\n1\n0 3 0 0\n").is_ok());
}

/// The NCCL file's protocol per size is the one NCCL's model finds fastest
/// for the written algorithm: ring's LL below its LL128 crossover, LL128
/// above, on one Hopper node of 8 (crossover found here by brute force).
#[test]
fn nccl_export_protocols_follow_the_model() {
    let ps = [8u32];
    let sizes: Vec<u64> = (10..27).map(|k| 1u64 << k).collect();
    let winners = vec!["ring"; sizes.len()];
    let map = tuner::Map {
        collective: Collective::Allreduce,
        ps: &ps,
        sizes: &sizes,
        winners: &winners,
        margins: &[],
        dtype_size: 4,
    };
    let system = |p| nccl::parse_system("", p).ok();
    let file = tuner::export(tuner::Format::NcclTuner, &map, &system).unwrap();
    let rows = tuner::read_nccl(&file.text).unwrap();
    let s = system(8).unwrap();
    for &n in &sizes {
        let pred = nccl::predict(&s, Collective::Allreduce, n).unwrap();
        let best =
            pred.times.iter().filter(|t| t.0 == nccl::Algorithm::Ring).min_by(|a, b| a.2.total_cmp(&b.2)).unwrap();
        let row = tuner::nccl_lookup(&rows, "allreduce", n, 1, 8).unwrap();
        assert_eq!(row.protocol, best.1.id(), "{n} B");
    }
    assert!(rows.len() >= 2, "{}", file.text);
}

/// Every communicator-size band of the six fixed rules at its smallest
/// message (1 byte of `total_dsize`), read off the C source band by band:
/// `(collective, a p inside the band, algorithm)`.
#[test]
fn ompi_every_band_at_its_smallest_message() {
    use Collective::{AllToAll, Allgather, Allreduce, Broadcast, Reduce, ReduceScatter};
    let cases: &[(Collective, u32, u8)] = &[
        (Allreduce, 3, 4),
        (Allreduce, 7, 4),
        (Allreduce, 15, 3),
        (Allreduce, 31, 5),
        (Allreduce, 63, 5),
        (Allreduce, 127, 3),
        (Allreduce, 255, 2),
        (Allreduce, 511, 2),
        (Allreduce, 2047, 2),
        (Allreduce, 4095, 2),
        (Allreduce, 5000, 2),
        (AllToAll, 2, 2),
        (AllToAll, 7, 4),
        (AllToAll, 15, 4),
        (AllToAll, 31, 4),
        (AllToAll, 63, 3),
        (AllToAll, 127, 3),
        (AllToAll, 255, 3),
        (AllToAll, 511, 3),
        (AllToAll, 1023, 3),
        (AllToAll, 2047, 3),
        (AllToAll, 4095, 3),
        (AllToAll, 5000, 3),
        (Broadcast, 3, 3),
        (Broadcast, 7, 5),
        (Broadcast, 15, 7),
        (Broadcast, 31, 7),
        (Broadcast, 63, 6),
        (Broadcast, 127, 7),
        (Broadcast, 255, 6),
        (Broadcast, 1023, 7),
        (Broadcast, 2047, 7),
        (Broadcast, 4095, 7),
        (Broadcast, 5000, 7),
        (Reduce, 3, 7),
        (Reduce, 7, 4),
        (Reduce, 15, 4),
        (Reduce, 31, 4),
        (Reduce, 255, 5),
        (Reduce, 511, 5),
        (Reduce, 2047, 5),
        (Reduce, 4095, 5),
        (Reduce, 5000, 5),
        (ReduceScatter, 3, 3),
        (ReduceScatter, 7, 1),
        (ReduceScatter, 31, 2),
        (ReduceScatter, 63, 1),
        (ReduceScatter, 127, 1),
        (ReduceScatter, 255, 1),
        (ReduceScatter, 511, 1),
        (ReduceScatter, 1023, 1),
        (ReduceScatter, 2047, 1),
        (ReduceScatter, 4095, 1),
        (ReduceScatter, 5000, 1),
        (Allgather, 2, 6),
        (Allgather, 31, 3),
        (Allgather, 63, 3),
        (Allgather, 127, 3),
        (Allgather, 255, 3),
        (Allgather, 511, 3),
        (Allgather, 1023, 3),
        (Allgather, 2047, 3),
        (Allgather, 4095, 2),
        (Allgather, 5000, 3),
    ];
    for &(c, p, want) in cases {
        // One byte of `total_dsize`: a 1-byte vector, or a 1-byte block.
        let bytes = if matches!(c, AllToAll | Allgather) { u64::from(p) } else { 1 };
        let got = ompi::decide(&Query { collective: c, p, bytes, dtype_size: 1 });
        assert_eq!(got, want, "{c} p={p}: {} vs {}", ompi::name(c, got), ompi::name(c, want));
    }
    // Every table is ordered as the source's chains are.
    for c in Collective::ALL {
        let bands = ompi::rule(c);
        assert!(bands.windows(2).all(|w| w[0].comm < w[1].comm || w[0].equal), "{c}");
        assert_eq!(bands.last().map(|b| b.comm), Some(u32::MAX), "{c} ends in an else");
        for b in bands {
            assert!(b.steps.windows(2).all(|w| w[0].0 < w[1].0), "{c} p<{}", b.comm);
        }
    }
}

/// The NCCL tuner file from a described system, read back with the tuner
/// plugin's lookup (`tuner::read_nccl`, `tuner::nccl_lookup`) at every size
/// and against every candidate's simulated time: where a line applies, its
/// (algorithm, protocol) is within 5 % of the fastest simulated and beats
/// NCCL's own pick by 5 % or more; where none applies, NCCL keeps its pick
/// (and only a pick the network cannot simulate, or one within 5 % of the
/// fastest, is kept). On `dgx-h100` × 2 (the Dell cluster's description) no
/// line forces ring below 4 MiB.
#[test]
fn the_nccl_tuner_file_keeps_nccls_pick_unless_the_simulation_beats_it() {
    use commlab_api::nccl_tuner::{TunerPlan, MIN_GAIN};
    let sizes: Vec<u64> = (3..31).map(|k| 1u64 << k).collect();
    for (system, nodes, collective) in
        [("dgx-h100", 2, "allreduce"), ("p4d", 2, "allreduce"), ("dgx-a100", 4, "allreduce"), ("p4d", 2, "allgather")]
    {
        let plan = TunerPlan::new(
            &commlab_api::system::System::parse(
                system,
                nodes,
                commlab_core::libraries::nccl::Version::Current,
                commlab_api::system::NODES,
            )
            .unwrap(),
            collective,
            &sizes,
        )
        .unwrap();
        let times = plan.simulate().unwrap();
        let advice = plan.file(&times).unwrap();
        let rows = tuner::read_nccl(&advice.text).unwrap();
        let name = tuner::nccl_collective(collective.parse().unwrap()).unwrap();
        let p = plan.system.ranks();
        let mut at = 0;
        for size in &plan.sizes {
            let t = &times[at..at + size.candidates.len()];
            at += size.candidates.len();
            let best = t.iter().copied().fold(f64::INFINITY, f64::min);
            let time_of = |alg: &str, proto: &str| {
                size.candidates.iter().position(|c| (c.algorithm.id(), c.protocol.id()) == (alg, proto)).map(|i| t[i])
            };
            let own = time_of(size.pick.0.id(), size.pick.1.id());
            match tuner::nccl_lookup(&rows, name, size.bytes, nodes, p) {
                Some(row) => {
                    let forced = time_of(&row.algorithm, &row.protocol).expect("a simulated pair");
                    assert!(
                        forced <= best * (1.0 + MIN_GAIN),
                        "{system} {} B: {} {forced} vs best {best}",
                        size.bytes,
                        row.algorithm
                    );
                    let own = own.expect("only a simulated pick is overridden");
                    assert!(1.0 - forced / own >= MIN_GAIN, "{system} {} B: gain under 5 %", size.bytes);
                    if system == "dgx-h100" {
                        assert!(row.algorithm != "ring" || size.bytes >= 4 << 20, "ring forced at {} B", size.bytes);
                    }
                }
                None => {
                    if let Some(own) = own {
                        assert!(1.0 - best / own < MIN_GAIN, "{system} {} B: kept a pick 5 % behind", size.bytes);
                    }
                }
            }
        }
    }
}

/// What each library would gain by following the model among its own
/// algorithms: the largest share saved over the sizes, recomputed here from
/// the comparison's own times and the libraries' picks; NCCL is not advised
/// under α–β.
#[test]
fn gains_compare_each_librarys_pick_with_its_own_fastest() {
    use commlab_api::chooser::Comparison;
    use commlab_api::libraries::{gains, picks, LibraryRequest};
    let request = Comparison { collective: Collective::Allreduce, p: 24, lo: 8, hi: 1 << 20, ..Comparison::default() }
        .choose(false, 0, None);
    let r = request.run().unwrap();
    let libs = LibraryRequest::from_list(&["mpich".into(), "ompi".into(), "nccl".into()], None, 4).unwrap();
    let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
    let picked = picks("allreduce", 24, &sizes, &libs).unwrap();
    let said = gains(&r, &picked);
    assert_eq!(said.len(), 3, "{said:?}");
    // MPICH by hand: 1 − (the fastest of MPICH's own algorithms) / its pick's
    // time, the largest over the sizes.
    let mine: Vec<usize> = commlab_api::fit::library_algorithms("mpich", Collective::Allreduce)
        .iter()
        .filter_map(|(o, _)| r.algorithms.iter().position(|a| a == o))
        .collect();
    assert!(mine.len() >= 2 && mine.len() < r.algorithms.len(), "{mine:?}");
    let mut best = 0.0f64;
    for (row, p) in r.rows.iter().zip(&picked) {
        let Some(ours) = p.mpich.as_ref().and_then(|m| m.ours.as_deref()) else { continue };
        let k = r.algorithms.iter().position(|a| a == ours).unwrap();
        let fastest = mine.iter().map(|&j| row.costs[j].total()).fold(f64::INFINITY, f64::min);
        best = best.max(1.0 - fastest / row.costs[k].total());
    }
    assert!(best > 0.0);
    assert!(said[0].starts_with("MPICH: following the model among its own algorithms would save up to"), "{}", said[0]);
    assert!(said[0].contains(&format!("{:.0} %", best * 100.0)), "{} vs {best}", said[0]);
    assert!(said[1].starts_with("Open MPI:"), "{}", said[1]);
    assert!(said[2].starts_with("NCCL: α–β alone cannot"), "{}", said[2]);
}

/// A library is compared only with the algorithms it has: over every
/// preset's NCCL description (1 and 2 nodes), four collectives and 8 B …
/// 1 GiB, no sentence names as the better choice an algorithm the library
/// lacks (the page once told NCCL to run recursive doubling); on a network,
/// NCCL's gain is among its ring and tree and says that our schedules of
/// them carry none of its per-step costs.
#[test]
fn no_library_is_told_to_run_an_algorithm_it_lacks() {
    use commlab_api::chooser::Comparison;
    use commlab_api::fit::library_algorithms;
    use commlab_api::libraries::{disagreements, gains, picks, LibraryRequest};
    use commlab_core::libraries::nccl::Version;
    use commlab_core::systems::PRESETS;
    let request = |collective: &str, p: u32, hi: u64| {
        let collective = collective.parse().unwrap();
        Comparison { collective, p, lo: 8, hi, ..Comparison::default() }.choose(false, 0, None)
    };
    let own = |library: &str, collective: Collective, named: &str| {
        library_algorithms(library, collective).iter().any(|(ours, _)| *ours == named)
    };
    let check = |collective: Collective, said: &str, marker: &str| {
        for (library, label) in [("nccl", "NCCL"), ("mpich", "MPICH"), ("ompi", "Open MPI")] {
            if !said.starts_with(label) {
                continue;
            }
            if let Some(rest) = said.split(marker).nth(1) {
                let named = rest.split([':', ' ']).next().unwrap();
                assert!(own(library, collective, named), "{label} told to run {named}: {said}");
            }
        }
    };
    let mut sentences = 0;
    for preset in &PRESETS {
        for nodes in [1, 2] {
            let p = preset.ranks(nodes);
            for c in ["allreduce", "allgather", "reduce-scatter", "broadcast"] {
                let collective: Collective = c.parse().unwrap();
                let r = request(c, p, 1 << 30).run().unwrap();
                let libs = LibraryRequest::from_list(
                    &["mpich".into(), "ompi".into(), "nccl".into()],
                    Some(preset.nccl_text_at(nodes, Version::Current)),
                    4,
                )
                .unwrap();
                let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
                let picked = picks(c, p, &sizes, &libs).unwrap();
                for (i, pk) in picked.iter().enumerate() {
                    for s in disagreements(&r, i, pk) {
                        check(collective, &s, "fastest of its own algorithms is ");
                        sentences += 1;
                    }
                }
                for s in gains(&r, &picked) {
                    if let Some(w) = s.split(": ").nth(2).and_then(|x| x.split(" in place of").next()) {
                        let label = if s.starts_with("NCCL") {
                            "nccl"
                        } else if s.starts_with("MPICH") {
                            "mpich"
                        } else {
                            "ompi"
                        };
                        assert!(own(label, collective, w), "{s}");
                    }
                }
            }
        }
    }
    assert!(sentences > 100, "{sentences} sentences checked");
    // On a network NCCL's gain is among its own ring and tree, with the caveat.
    let mut r = request("allreduce", 8, 1 << 20).run().unwrap();
    let mut net = commlab_api::network::NetRequest::default();
    net.system(&PRESETS[0], 1);
    commlab_api::chooser::on_network(&mut r, &net, 0).unwrap();
    let libs =
        LibraryRequest::from_list(&["nccl".into()], Some(PRESETS[0].nccl_text_at(1, Version::Current)), 4).unwrap();
    let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
    let said = gains(&r, &picks("allreduce", 8, &sizes, &libs).unwrap());
    let nccl = said.iter().find(|s| s.starts_with("NCCL:")).unwrap();
    assert!(nccl.contains("without NCCL's per-step costs"), "{nccl}");
    assert!(!nccl.contains("recursive-doubling") && !nccl.contains("rabenseifner"), "{nccl}");
}

/// On a System NCCL's sentence compares its pick with its own algorithms
/// and protocols simulated with its per-step costs: it names only NCCL's
/// (algorithm, protocol) pairs, its share is the largest 1 − fastest / pick
/// over the sizes, recomputed here from the candidates' times, and
/// `gains_on` puts it in place of the sentence from our curves.
#[test]
fn nccls_gain_on_a_system_is_among_its_own_pairs_under_its_costs() {
    use commlab_api::nccl_tuner::{TunerPlan, MIN_GAIN};
    use commlab_core::systems::PRESETS;
    let sizes: Vec<u64> = [3, 10, 14, 18, 20, 24, 27, 30].map(|k| 1u64 << k).to_vec();
    let names: Vec<String> =
        nccl::ALGORITHMS.iter().flat_map(|a| nccl::PROTOCOLS.iter().map(move |p| format!("{a}/{p}"))).collect();
    let mut advised = 0;
    // Where the page asks it: at most GAIN_RANKS ranks (not the 72-GPU domains).
    for preset in PRESETS.iter().filter(|p| p.ranks(2) <= commlab_api::nccl_tuner::GAIN_RANKS) {
        for nodes in [1, 2] {
            let plan = TunerPlan::new(
                &commlab_api::system::System::parse(
                    preset.id,
                    nodes,
                    commlab_core::libraries::nccl::Version::Current,
                    commlab_api::system::NODES,
                )
                .unwrap(),
                "allreduce",
                &sizes,
            )
            .unwrap();
            let times = plan.simulate().unwrap();
            let said = plan.gain_sentence(&times);
            assert!(said.starts_with(&format!("NCCL on {nodes} × {}:", preset.id)), "{said}");
            let (mut at, mut best) = (0, (0.0_f64, 0, String::new(), String::new()));
            for size in &plan.sizes {
                let t = &times[at..at + size.candidates.len()];
                at += size.candidates.len();
                let Some(own) = size.candidates.iter().position(|c| (c.algorithm, c.protocol) == size.pick) else {
                    continue;
                };
                for (k, c) in size.candidates.iter().enumerate() {
                    let share = 1.0 - t[k] / t[own];
                    if share > best.0 {
                        best = (
                            share,
                            size.bytes,
                            format!("{}/{}", c.algorithm, c.protocol),
                            format!("{}/{}", size.pick.0, size.pick.1),
                        );
                    }
                }
            }
            if best.0 >= MIN_GAIN {
                advised += 1;
                let (fastest, pick) = (&best.2, &best.3);
                assert!(names.contains(fastest) && names.contains(pick), "{said}");
                let want = format!(
                    "up to {:.0} % (at {}: {fastest} in place of its {pick})",
                    best.0 * 100.0,
                    commlab_plot::format_bytes(best.1)
                );
                assert!(said.contains(&want), "{want} in {said}");
            } else {
                assert!(said.contains("within 5 % of the fastest of its own"), "{said}");
            }
            for ours in ["recursive-doubling", "rabenseifner", "double-binary-tree", "reduce-broadcast"] {
                assert!(!said.contains(ours), "{said}");
            }
        }
    }
    assert!(advised > 0, "some System gains by following the simulation");
    // A 72-GPU NVLink domain is past it: its candidates' runs take minutes.
    let nvl72 = commlab_api::system::System::parse(
        "gb200-nvl72",
        1,
        commlab_core::libraries::nccl::Version::Current,
        commlab_api::system::NODES,
    )
    .unwrap();
    assert!(!TunerPlan::gain_asked(&nvl72, 72, commlab_core::choose::Collective::Allreduce));
    let h100 = commlab_api::system::System::parse(
        "dgx-h100",
        8,
        commlab_core::libraries::nccl::Version::Current,
        commlab_api::system::NODES,
    )
    .unwrap();
    assert!(TunerPlan::gain_asked(&h100, 64, commlab_core::choose::Collective::Allreduce));
    // Where it is not asked on a System picked, the page says why instead of
    // asking for a System.
    let allreduce = commlab_core::choose::Collective::Allreduce;
    let said = TunerPlan::gain_skipped(&nvl72, 72, allreduce).unwrap();
    assert!(said.contains("not simulated on 1 × gb200-nvl72 (72 ranks") && !said.contains("pick a System"), "{said}");
    assert_eq!(TunerPlan::gain_skipped(&h100, 64, allreduce), None);
    assert_eq!(TunerPlan::gain_skipped(&h100, 32, allreduce), None, "p not the System's: no sentence of it");
    // In place of the curves' sentence.
    let r = commlab_api::chooser::Comparison {
        collective: Collective::Allreduce,
        p: 8,
        lo: 1024,
        hi: 1 << 20,
        ..commlab_api::chooser::Comparison::default()
    }
    .choose(false, 0, None)
    .run()
    .unwrap();
    let libs =
        commlab_api::libraries::LibraryRequest::from_list(&["nccl".into()], Some(PRESETS[0].nccl_text(1)), 4).unwrap();
    let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
    let picked = commlab_api::libraries::picks("allreduce", 8, &sizes, &libs).unwrap();
    let said = commlab_api::libraries::gains_on(&r, &picked, Some("NCCL on 1 × x: said."));
    assert_eq!(said.iter().filter(|s| s.starts_with("NCCL")).collect::<Vec<_>>(), ["NCCL on 1 × x: said."]);
}

/// What the page shows of the picks is the picks: the table has a column a
/// library asked and a ✓ exactly where the library runs the model's
/// winner; the band has a row a library and a cell a size, coloured where
/// the pick is one of ours; the notes say every disagreement once, runs of
/// sizes joined, no size lost or added.
#[test]
fn the_page_shows_the_picks_as_they_are() {
    use commlab_api::libraries::{band, disagreement_notes, disagreements, model_winner, picks, table, LibraryRequest};
    let r = commlab_api::chooser::Comparison {
        collective: Collective::Allreduce,
        p: 16,
        lo: 8,
        hi: 1 << 30,
        ..commlab_api::chooser::Comparison::default()
    }
    .choose(false, 0, None)
    .run()
    .unwrap();
    let libs = LibraryRequest::from_list(
        &["mpich".into(), "ompi".into(), "nccl".into()],
        Some(commlab_core::systems::PRESETS[0].nccl_text(2)),
        4,
    )
    .unwrap();
    let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
    let picked = picks("allreduce", 16, &sizes, &libs).unwrap();
    let (heads, rows) = table(&r, &picked);
    assert_eq!(heads, ["size", "α–β winner", "MPICH", "Open MPI", "NCCL's pick (its ranking estimate)"]);
    let mut ticks = 0;
    for (i, (row, p)) in rows.iter().zip(&picked).enumerate() {
        let winner = &r.algorithms[r.rows[i].winner];
        assert_eq!((row.len(), row[1].as_str(), model_winner(&r, i)), (5, winner.as_str(), winner.as_str()));
        let ours = [
            p.mpich.as_ref().and_then(|x| x.ours.clone()),
            p.ompi.as_ref().and_then(|x| x.ours.clone()),
            p.nccl.as_ref().and_then(|x| x.ours.clone()),
        ];
        for (cell, ours) in row[2..].iter().zip(ours) {
            assert_eq!(cell.ends_with(" ✓"), ours.as_deref() == Some(winner.as_str()), "{cell} at {}", r.rows[i].bytes);
            ticks += usize::from(cell.ends_with(" ✓"));
        }
    }
    assert!(ticks > 0 && ticks < 3 * rows.len(), "some picks agree, some do not: {ticks}");
    let (caption, band_rows) = band(&r, &picked).unwrap();
    assert!(caption.contains("p = 16"), "{caption}");
    assert_eq!(band_rows.iter().map(|b| b.library.as_str()).collect::<Vec<_>>(), ["MPICH", "Open MPI", "NCCL"]);
    for b in &band_rows {
        assert_eq!(b.cells.len(), sizes.len());
        for (colour, legend, _) in &b.cells {
            assert_eq!(colour.is_some(), legend.contains("= our "), "{legend}");
        }
    }
    // Every (size, sentence) once.
    let said: usize = (0..picked.len()).map(|i| disagreements(&r, i, &picked[i]).len()).sum();
    let notes = disagreement_notes(&r, &picked);
    let short = commlab_plot::chooser::short_bytes;
    let mut covered = 0;
    for note in &notes {
        let (at, sentence) = note.split_once(": ").unwrap();
        let (a, b) = at.split_once(" to ").unwrap_or((at, at));
        let (a, b) =
            (sizes.iter().position(|&n| short(n) == a).unwrap(), sizes.iter().position(|&n| short(n) == b).unwrap());
        for (i, p) in picked.iter().enumerate().take(b + 1).skip(a) {
            assert!(disagreements(&r, i, p).iter().any(|s| s == sentence), "{note} at {}", sizes[i]);
        }
        covered += b + 1 - a;
    }
    assert_eq!(covered, said, "{notes:#?}");
    assert!(notes.len() < said, "runs of sizes are joined");
}

/// NCCL's time in the libraries' section is its own ranking estimate: no
/// column head, band cell, note or sentence calls it a prediction, on every
/// preset at 1 and 2 nodes; its column says what it is.
#[test]
fn nccl_s_estimate_is_never_called_a_prediction() {
    use commlab_api::libraries::{band, disagreement_notes, gains_on, picks, table, LibraryRequest};
    let calls_it = |t: &str| t.contains("predicted") || (t.contains("prediction") && !t.contains("no prediction"));
    for preset in &commlab_core::systems::PRESETS {
        for nodes in [1, 2] {
            let p = preset.ranks(nodes);
            let r = commlab_api::chooser::Comparison {
                collective: Collective::Allreduce,
                p,
                lo: 8,
                hi: 1 << 30,
                ..commlab_api::chooser::Comparison::default()
            }
            .choose(false, 0, None)
            .run()
            .unwrap();
            let libs = LibraryRequest::from_list(
                &["mpich".into(), "ompi".into(), "nccl".into()],
                Some(preset.nccl_text(nodes)),
                4,
            )
            .unwrap();
            let sizes: Vec<u64> = r.rows.iter().map(|x| x.bytes).collect();
            let picked = picks("allreduce", p, &sizes, &libs).unwrap();
            let (heads, rows) = table(&r, &picked);
            assert!(
                heads.contains(&"NCCL's pick (its ranking estimate)") && heads.contains(&"α–β winner"),
                "{heads:?}"
            );
            let mut said: Vec<String> = heads.iter().map(|h| (*h).to_owned()).collect();
            said.extend(rows.into_iter().flatten());
            let (caption, band_rows) = band(&r, &picked).unwrap();
            said.push(caption);
            said.extend(band_rows.into_iter().flat_map(|b| b.cells.into_iter().flat_map(|(_, l, h)| [l, h])));
            said.extend(disagreement_notes(&r, &picked));
            said.extend(gains_on(&r, &picked, None));
            let nccl_cells = said.iter().filter(|t| t.contains("NCCL's estimate")).count();
            assert!(nccl_cells >= sizes.len(), "{} × {}: the band's hover names NCCL's estimate", nodes, preset.id);
            for t in &said {
                assert!(!calls_it(t), "{} × {}: {t}", nodes, preset.id);
            }
        }
    }
}

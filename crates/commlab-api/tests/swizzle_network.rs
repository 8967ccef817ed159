//! The Swizzle view's network comparison (`docs/network.md`): the swizzle's
//! schedule on every rank, with and without the rank shift. Its flows equal
//! those of `SimGrid` (`tests/integration/simgrid.rs`); here, what the sides must show.

use commlab_api::network::NetRequest;
use commlab_api::swizzle::SwizzleRequest;

fn on(topology: &str) -> NetRequest {
    NetRequest::on(topology.parse().unwrap())
}

/// 8 ranks, 4 × 2 cores, 64 KiB tiles: every rank sends its 56 remote tiles
/// through its one link to the switch (25 B/ns), so the hottest link carries
/// 56 tiles and no run is shorter than 56·s/B. With the shift the cores
/// keep every host link busy; without it they queue on one rank at a time,
/// and the run takes about twice as long.
#[test]
fn the_shift_halves_the_swizzle_on_a_switch() {
    // Every core's read at once (no NIC window): each core drives its own
    // transfers, so the rank's link is never idle while one waits.
    let r = SwizzleRequest::default().on_network(&NetRequest { nic_window: 0, ..on("switch:8") }).unwrap();
    let tiles = 56.0 * 65_536.0;
    let [with, without] = [&r.sides[0], &r.sides[1]];
    assert!(with.shift && !without.shift);
    for side in [with, without] {
        let (_, busy, bytes, _) = side.hottest.clone().expect("a hottest link");
        assert!((bytes - tiles).abs() < 1e-6, "{side:?}");
        assert!(side.time_ns >= tiles / 25.0 && busy <= side.time_ns, "{side:?}");
    }
    // With the shift the busiest link is busy for 97 % of the run or more.
    assert!(with.hottest.as_ref().unwrap().1 >= 0.97 * with.time_ns, "{with:?}");
    assert!(without.time_ns > 1.9 * with.time_ns, "{} vs {}", without.time_ns, with.time_ns);
    // Without the shift more flows share the receiving link at once.
    assert!(without.hottest.as_ref().unwrap().3 > with.hottest.as_ref().unwrap().3);
    // The bars' notes give the bytes in whole units: 56 tiles are 3584 KiB
    // (3 670 016 B), never "3.67e6 B".
    let figure = r.figure(900.0, &commlab_plot::Theme::LIGHT);
    assert_eq!(figure.matches("3584 KiB").count(), 2, "{figure}");
    assert!(!figure.contains("e6 B"), "{figure}");
}

/// The same on a ring and a torus: the shift wins there too.
#[test]
fn the_shift_wins_on_a_ring_and_a_torus() {
    for t in ["ring:8", "torus:2x4"] {
        let r = SwizzleRequest::default().on_network(&on(t)).unwrap();
        assert_eq!(r.topology, t);
        assert!(r.sides[0].time_ns < r.sides[1].time_ns, "{t}: {r:?}");
    }
}

/// Too few hosts and too many messages are refused by field.
#[test]
fn refusals_name_the_field() {
    let e = SwizzleRequest::default().on_network(&on("ring:4")).unwrap_err();
    assert_eq!(e.field, "topology", "{e}");
    let big = SwizzleRequest { grid: (64, 64, 64), cores: (8, 8), ..SwizzleRequest::default() };
    assert_eq!(big.on_network(&on("torus:8x8")).unwrap_err().field, "grid");
    // A topology that does not read makes no request: its text is refused where it is read.
    let e = serde_json::from_str::<NetRequest>(r#"{"topology": "torus:0x4"}"#).unwrap_err();
    assert!(e.to_string().contains("torus:0x4"), "{e}");
}

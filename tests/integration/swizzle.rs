//! CommSwizzle against `docs/swizzle.md`: every small shape, with
//! steps, collisions and coverage recounted directly from `get_coord`.

use commlab_core::swizzle::{get_coord, CoreSplit, GridShape, Schedule, SwizzleConfig};
use std::collections::BTreeMap;

/// Recounts everything the schedule claims, straight from `get_coord`.
fn check(config: &SwizzleConfig) {
    let s = Schedule::new(config);
    let grid = config.grid();
    let nc = u64::from(config.cores().cores());
    let loops = config.loop_count();
    assert_eq!(s.steps() as u64, loops.div_ceil(nc), "{config:?}: steps");
    let mut visits: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    for step in 0..loops.div_ceil(nc) {
        let mut per_rank: BTreeMap<u32, u32> = BTreeMap::new();
        for i in step * nc..((step + 1) * nc).min(loops) {
            if let Some(c) = get_coord(config, i) {
                assert!(
                    c.row < grid.row && c.column < grid.column && c.rank < grid.rank,
                    "{config:?}: {c:?} outside the grid"
                );
                *visits.entry((c.row * grid.column + c.column, c.rank)).or_default() += 1;
                *per_rank.entry(c.rank).or_default() += 1;
            }
        }
        let collisions: u32 = per_rank.values().map(|&n| n - 1).sum();
        assert_eq!(s.collisions_per_step()[step as usize], collisions, "{config:?}: collisions in step {step}");
        assert_eq!(s.busiest_per_step()[step as usize], per_rank.values().copied().max().unwrap_or(0));
    }
    let coverage = s.coverage();
    let cells = grid.data() * grid.rank;
    let exact = (0..grid.data()).all(|d| (0..grid.rank).all(|r| visits.get(&(d, r)) == Some(&1)));
    assert_eq!(coverage.is_bijective(), exact, "{config:?}: coverage");
    let missed = cells as usize - visits.len();
    assert_eq!(coverage.missed.len(), missed, "{config:?}: missed cells");
    assert_eq!(coverage.repeated.len(), visits.values().filter(|&&v| v > 1).count(), "{config:?}: repeated cells");
}

#[test]
fn exhaustive_small_shapes() {
    let mut configs = 0;
    for (row, column, rank) in (1..=3).flat_map(|r| (1..=3).flat_map(move |c| (1..=8).map(move |k| (r, c, k)))) {
        for (cr, cc) in (1..=8).flat_map(|r| (1..=8).map(move |c| (r, c))) {
            for (direction, deterministic) in [(0, false), (1, false), (0, true)] {
                for shift in [true, false] {
                    let grid = GridShape { row, column, rank };
                    let cores = CoreSplit { row: cr, column: cc };
                    let config = SwizzleConfig::new(grid, cores, direction, deterministic, shift).unwrap();
                    check(&config);
                    configs += 1;
                }
            }
        }
    }
    assert_eq!(configs, 72 * 64 * 6);
}

#[test]
fn divisible_column_splits_are_bijective() {
    // When coreSplit.column divides rank the shift is a bijection on every row.
    for rank in 1..=12u32 {
        for cc in (1..=rank).filter(|c| rank % c == 0) {
            for (direction, deterministic) in [(0, false), (1, false), (0, true)] {
                let config = SwizzleConfig::new(
                    GridShape { row: 3, column: 2, rank },
                    CoreSplit { row: 2, column: cc },
                    direction,
                    deterministic,
                    true,
                )
                .unwrap();
                assert!(Schedule::new(&config).coverage().is_bijective(), "{config:?}");
            }
        }
    }
}

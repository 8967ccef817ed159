//! CommSwizzle against `docs/swizzle.md`: every small shape, with steps,
//! collisions and coverage recounted from an independent oracle (a second,
//! literal transcription of the seed's GetCoord written here), which is also
//! compared with `get_coord` on every loop index.

use commlab_core::swizzle::{get_coord, Coord, CoreSplit, GridShape, Schedule, SwizzleConfig};
use std::collections::BTreeMap;

/// The oracle's inputs, as the seed names them.
#[derive(Debug, Clone, Copy)]
struct Seed {
    /// gridShape = (row, column, rank).
    grid: (u64, u64, u64),
    /// coreSplit = (row, column).
    split: (u64, u64),
    direction: usize,
    deterministic: bool,
    shift: bool,
}

impl Seed {
    /// coreSplit, collapsed to (row × column, 1) in deterministic mode.
    fn split(&self) -> [u64; 2] {
        if self.deterministic {
            [self.split.0 * self.split.1, 1]
        } else {
            [self.split.0, self.split.1]
        }
    }

    /// row × column × rank, or roundUp(row × column, coreSplit.row) × rank
    /// with the collapsed split in deterministic mode.
    fn loops(&self) -> u64 {
        let data = self.grid.0 * self.grid.1;
        if self.deterministic {
            data.div_ceil(self.split()[0]) * self.split()[0] * self.grid.2
        } else {
            data * self.grid.2
        }
    }

    /// GetCoord, step by step as the seed writes it; `None` for a padding index.
    fn get_coord(&self, loop_idx: u64) -> Option<(u64, u64, u64)> {
        let (row, column, rank) = self.grid;
        let core_split = self.split();
        let row_dim = self.direction;
        let col_dim = 1 - self.direction;
        // 1. Flatten 3D -> 2D: (row * column, rank).
        let flat = [row * column, rank];
        // 2. Grouped column-first traversal.
        let swizzle_offset = core_split[row_dim];
        let group_size = swizzle_offset * flat[col_dim];
        let group_idx = loop_idx / group_size;
        let group_offset = loop_idx % group_size;
        let in_group_rows = if self.deterministic {
            swizzle_offset
        } else {
            std::cmp::min(swizzle_offset, flat[row_dim] - group_idx * swizzle_offset)
        };
        let mut coord = [0u64; 2];
        coord[col_dim] = group_offset / in_group_rows;
        coord[row_dim] = group_idx * swizzle_offset + group_offset % in_group_rows;
        if coord[0] >= flat[0] {
            return None; // a padding row of deterministic mode
        }
        // 3. Rank shift.
        if self.shift {
            let n_stride = rank / core_split[1];
            let offset = coord[1] * n_stride;
            coord[1] = (offset + offset / rank + coord[0]) % rank;
        }
        // 4. 2D -> 3D.
        Some((coord[0] / column, coord[0] % column, coord[1]))
    }
}

/// Recounts steps, collisions and coverage from the oracle, and compares
/// `get_coord` with it on every loop index.
fn check(seed: Seed) {
    let (row, column, rank) = seed.grid;
    let config = SwizzleConfig::new(
        GridShape { row: row as u32, column: column as u32, rank: rank as u32 },
        CoreSplit { row: seed.split.0 as u32, column: seed.split.1 as u32 },
        seed.direction as u8,
        seed.deterministic,
        seed.shift,
    )
    .unwrap();
    let s = Schedule::new(&config);
    let nc = seed.split.0 * seed.split.1;
    let loops = seed.loops();
    assert_eq!(config.loop_count(), loops, "{seed:?}: loop count");
    assert_eq!(s.steps() as u64, loops.div_ceil(nc), "{seed:?}: steps");
    let mut visits: BTreeMap<(u64, u64), u32> = BTreeMap::new();
    for step in 0..loops.div_ceil(nc) {
        let mut per_rank: BTreeMap<u64, u32> = BTreeMap::new();
        for i in step * nc..((step + 1) * nc).min(loops) {
            let oracle = seed.get_coord(i);
            let ours =
                get_coord(&config, i).map(|Coord { row, column, rank }| (row.into(), column.into(), rank.into()));
            assert_eq!(ours, oracle, "{seed:?}: loop index {i}");
            if let Some((r, c, k)) = oracle {
                assert!(r < row && c < column && k < rank, "{seed:?}: {oracle:?} outside the grid");
                *visits.entry((r * column + c, k)).or_default() += 1;
                *per_rank.entry(k).or_default() += 1;
            }
        }
        let collisions: u32 = per_rank.values().map(|&n| n - 1).sum();
        assert_eq!(u64::from(s.collisions_per_step()[step as usize]), u64::from(collisions), "{seed:?}: step {step}");
        assert_eq!(s.busiest_per_step()[step as usize], per_rank.values().copied().max().unwrap_or(0));
    }
    let coverage = s.coverage();
    let exact = (0..row * column).all(|d| (0..rank).all(|r| visits.get(&(d, r)) == Some(&1)));
    assert_eq!(coverage.is_bijective(), exact, "{seed:?}: coverage");
    let missed = (row * column * rank) as usize - visits.len();
    assert_eq!(coverage.missed.len(), missed, "{seed:?}: missed cells");
    assert_eq!(coverage.repeated.len(), visits.values().filter(|&&v| v > 1).count(), "{seed:?}: repeated cells");
}

/// The seed's worked table: gridShape (2, 2, 4), coreSplit (2, 2), direction 0.
#[test]
fn the_seeds_worked_table() {
    let seed = Seed { grid: (2, 2, 4), split: (2, 2), direction: 0, deterministic: false, shift: true };
    let table = [(0, (0, 0, 0)), (1, (0, 1, 1)), (2, (0, 0, 2)), (3, (0, 1, 3))];
    for (i, want) in table {
        assert_eq!(seed.get_coord(i), Some(want), "oracle, loop {i}");
        let config = SwizzleConfig::new(
            GridShape { row: 2, column: 2, rank: 4 },
            CoreSplit { row: 2, column: 2 },
            0,
            false,
            true,
        )
        .unwrap();
        let c = get_coord(&config, i).unwrap();
        assert_eq!((u64::from(c.row), u64::from(c.column), u64::from(c.rank)), want, "get_coord, loop {i}");
    }
}

/// The catccos example: 12 cores on a 4 × 4 × 4 grid take 6 steps, and 8 in
/// deterministic mode (16 data rows rounded up to 24, 96 loops, 12 a step),
/// whatever the 12 cores' split.
#[test]
fn twelve_cores_take_six_steps_and_eight_deterministic() {
    for split in [(12, 1), (6, 2), (4, 3), (3, 4), (2, 6), (1, 12)] {
        for (deterministic, steps) in [(false, 6), (true, 8)] {
            let seed = Seed { grid: (4, 4, 4), split, direction: 0, deterministic, shift: true };
            assert_eq!(seed.loops().div_ceil(12), steps, "{split:?}");
            check(seed);
        }
    }
}

#[test]
fn exhaustive_small_shapes() {
    let mut configs = 0;
    for (row, column, rank) in (1..=3).flat_map(|r| (1..=3).flat_map(move |c| (1..=8).map(move |k| (r, c, k)))) {
        for (cr, cc) in (1..=8).flat_map(|r| (1..=8).map(move |c| (r, c))) {
            for (direction, deterministic) in [(0, false), (1, false), (0, true)] {
                for shift in [true, false] {
                    check(Seed { grid: (row, column, rank), split: (cr, cc), direction, deterministic, shift });
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

//! CommSwizzle (`docs/swizzle.md`): which remote rank each AI core
//! talks to at each step.
//!
//! [`SwizzleConfig::new`] validates a grid shape, a core split, the direction
//! and the modes; [`Schedule::new`] maps every loop index with [`get_coord`]
//! (the catccos `GetCoord`, with or without the rank shift) and derives the
//! per-step facts: which `(core, data, rank)` runs, rank collisions, per-rank
//! load, and whether the mapping covers every `(data, rank)` cell exactly once.
//! [`CostModel`] prices a schedule: a step costs one latency plus its busiest
//! link's bytes over the link bandwidth.

use crate::limits::ConfigError;
use crate::limits::{IntRange, CORES, CORE_EXTENT, GRID_EXTENT, LOOPS, RANKS};

/// `gridShape`: `row × column` data tiles per rank, `rank` remote ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridShape {
    /// Data rows.
    pub row: u32,
    /// Data columns.
    pub column: u32,
    /// Remote ranks.
    pub rank: u32,
}

impl GridShape {
    /// Flattened data indices, `row × column`.
    pub fn data(&self) -> u32 {
        self.row * self.column
    }
}

/// `coreSplit`: cores along the data dimension (`row`) and the rank dimension (`column`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreSplit {
    /// Cores along the data dimension.
    pub row: u32,
    /// Cores along the rank dimension.
    pub column: u32,
}

impl CoreSplit {
    /// Cores in all.
    pub fn cores(&self) -> u32 {
        self.row * self.column
    }
}

/// Validated inputs of a schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwizzleConfig {
    grid: GridShape,
    cores: CoreSplit,
    direction: u8,
    deterministic: bool,
    shift: bool,
}

fn check(range: IntRange, value: u64) -> Result<(), ConfigError> {
    if range.contains(value) {
        Ok(())
    } else {
        Err(ConfigError::int(range, value))
    }
}

impl SwizzleConfig {
    /// Validates every extent, the loop count (≤ [`LOOPS`]) and the mode:
    /// deterministic mode exists for direction 0 only.
    ///
    /// # Errors
    /// The parameter at fault and its range.
    pub fn new(
        grid: GridShape,
        cores: CoreSplit,
        direction: u8,
        deterministic: bool,
        shift: bool,
    ) -> Result<Self, ConfigError> {
        check(IntRange { name: "grid.row", ..GRID_EXTENT }, grid.row.into())?;
        check(IntRange { name: "grid.column", ..GRID_EXTENT }, grid.column.into())?;
        check(IntRange { name: "grid.rank", ..RANKS }, grid.rank.into())?;
        check(IntRange { name: "cores.row", ..CORE_EXTENT }, cores.row.into())?;
        check(IntRange { name: "cores.column", ..CORE_EXTENT }, cores.column.into())?;
        check(CORES, u64::from(cores.row) * u64::from(cores.column))?;
        if direction > 1 {
            return Err(ConfigError { name: "direction", value: direction.to_string(), expected: "0 or 1".into() });
        }
        if deterministic && direction == 1 {
            return Err(ConfigError {
                name: "deterministic",
                value: "on".into(),
                expected: "off with direction 1 (deterministic mode exists for direction 0 only)".into(),
            });
        }
        let config = Self { grid, cores, direction, deterministic, shift };
        let loops = config.loop_count();
        if !LOOPS.contains(loops) {
            // Named by the fields the user sets: the grid (and deterministic mode's rounding).
            return Err(ConfigError {
                name: "grid",
                value: format!(
                    "{} × {} × {} ({} loop indices{})",
                    grid.row,
                    grid.column,
                    grid.rank,
                    crate::limits::group(&loops.to_string()),
                    if deterministic { ", rounded up for deterministic mode" } else { "" }
                ),
                expected: format!(
                    "row × column × rank of at most {} loop indices",
                    crate::limits::group(&LOOPS.max.to_string())
                ),
            });
        }
        Ok(config)
    }

    /// The grid shape.
    pub fn grid(&self) -> GridShape {
        self.grid
    }

    /// The core split as given.
    pub fn cores(&self) -> CoreSplit {
        self.cores
    }

    /// `SWIZZLE_DIRECTION`.
    pub fn direction(&self) -> u8 {
        self.direction
    }

    /// `IS_DETERMINISTIC`.
    pub fn deterministic(&self) -> bool {
        self.deterministic
    }

    /// Whether the rank shift (step 3 of `GetCoord`) is applied.
    pub fn shift(&self) -> bool {
        self.shift
    }

    /// The same configuration with the rank shift on or off.
    #[must_use]
    pub fn with_shift(&self, shift: bool) -> Self {
        Self { shift, ..*self }
    }

    /// The core split `GetCoord` uses: collapsed to `(row × column, 1)` in deterministic mode.
    pub fn effective_split(&self) -> CoreSplit {
        if self.deterministic {
            CoreSplit { row: self.cores.cores(), column: 1 }
        } else {
            self.cores
        }
    }

    /// Loop indices: `row × column × rank`, or in deterministic mode
    /// `roundUp(row × column, cores) × rank` (the padding ones are skipped).
    pub fn loop_count(&self) -> u64 {
        let data = u64::from(self.grid.row) * u64::from(self.grid.column);
        let data = if self.deterministic { data.next_multiple_of(u64::from(self.cores.cores())) } else { data };
        data * u64::from(self.grid.rank)
    }
}

/// `(row, column, rank)` of one tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Coord {
    /// Data row.
    pub row: u32,
    /// Data column.
    pub column: u32,
    /// Remote rank.
    pub rank: u32,
}

/// `GetCoord`: the tile of `loop_index`, or `None` for a padding loop of
/// deterministic mode (its data index falls outside the grid).
pub fn get_coord(config: &SwizzleConfig, loop_index: u64) -> Option<Coord> {
    let grid = config.grid;
    let split = config.effective_split();
    let row_dim = usize::from(config.direction);
    let col_dim = 1 - row_dim;
    // Step 1: flatten to (data, rank).
    let flat = [u64::from(grid.data()), u64::from(grid.rank)];
    // Step 2: grouped column-first traversal.
    let swizzle_offset = u64::from([split.row, split.column][row_dim]);
    let group_size = swizzle_offset * flat[col_dim];
    let group = loop_index / group_size;
    let group_offset = loop_index % group_size;
    let in_group_rows =
        if config.deterministic { swizzle_offset } else { swizzle_offset.min(flat[row_dim] - group * swizzle_offset) };
    let mut coord = [0u64; 2];
    coord[col_dim] = group_offset / in_group_rows;
    coord[row_dim] = group * swizzle_offset + group_offset % in_group_rows;
    if coord[0] >= flat[0] || coord[1] >= flat[1] {
        return None;
    }
    // Step 3: rank shift.
    if config.shift {
        let rank = u64::from(grid.rank);
        let stride = rank / u64::from(split.column);
        let offset = coord[1] * stride;
        coord[1] = (offset + offset / rank + coord[0]) % rank;
    }
    // Step 4: back to 3-D.
    let data = coord[0] as u32;
    Some(Coord { row: data / grid.column, column: data % grid.column, rank: coord[1] as u32 })
}

/// A mapped loop index in flat form: `data = row × column_count + column`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Task {
    /// Flattened data index.
    pub data: u32,
    /// Remote rank.
    pub rank: u32,
}

/// Marks a padding loop in [`Schedule::tasks`].
const PADDING: u32 = u32::MAX;

/// A complete schedule with its derived facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    config: SwizzleConfig,
    /// `data, rank` per loop index (`data = u32::MAX` for padding loops).
    tasks: Vec<Task>,
    /// Per step, the number of cores that had to share a rank:
    /// `Σ_rank max(0, cores on the rank − 1)`.
    collisions: Vec<u32>,
    /// Per step, the most cores on one rank.
    busiest: Vec<u32>,
    /// Visits per `(data, rank)` cell, `data × rank + rank_index`.
    visits: Vec<u32>,
}

/// Coverage of the `(data, rank)` cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    /// Cells visited more than once, as `(data, rank, visits)`.
    pub repeated: Vec<(u32, u32, u32)>,
    /// Cells never visited, as `(data, rank)`.
    pub missed: Vec<(u32, u32)>,
}

impl Coverage {
    /// Whether every cell is visited exactly once.
    pub fn is_bijective(&self) -> bool {
        self.repeated.is_empty() && self.missed.is_empty()
    }
}

impl Schedule {
    /// Maps every loop index and derives collisions and coverage; O(loops).
    pub fn new(config: &SwizzleConfig) -> Schedule {
        let loops = config.loop_count();
        let tasks: Vec<Task> = (0..loops)
            .map(|i| match get_coord(config, i) {
                Some(c) => Task { data: c.row * config.grid.column + c.column, rank: c.rank },
                None => Task { data: PADDING, rank: PADDING },
            })
            .collect();
        let ranks = config.grid.rank as usize;
        let mut visits = vec![0u32; config.grid.data() as usize * ranks];
        for t in tasks.iter().filter(|t| t.data != PADDING) {
            visits[t.data as usize * ranks + t.rank as usize] += 1;
        }
        let cores = config.cores.cores() as usize;
        let mut on_rank = vec![0u32; ranks];
        let (mut collisions, mut busiest) = (Vec::new(), Vec::new());
        for step in tasks.chunks(cores) {
            let mut extra = 0;
            let mut most = 0;
            for t in step.iter().filter(|t| t.data != PADDING) {
                let n = &mut on_rank[t.rank as usize];
                extra += u32::from(*n > 0);
                *n += 1;
                most = most.max(*n);
            }
            for t in step.iter().filter(|t| t.data != PADDING) {
                on_rank[t.rank as usize] = 0;
            }
            collisions.push(extra);
            busiest.push(most);
        }
        Schedule { config: *config, tasks, collisions, busiest, visits }
    }

    /// The configuration.
    pub fn config(&self) -> &SwizzleConfig {
        &self.config
    }

    /// Cores `nc`.
    pub fn core_count(&self) -> u32 {
        self.config.cores.cores()
    }

    /// Steps: `ceil(loops / nc)`.
    pub fn steps(&self) -> usize {
        self.collisions.len()
    }

    /// The tile of `loop_index` (`None` for padding).
    pub fn task(&self, loop_index: usize) -> Option<Task> {
        self.tasks.get(loop_index).copied().filter(|t| t.data != PADDING)
    }

    /// Loop indices in all.
    pub fn loop_count(&self) -> usize {
        self.tasks.len()
    }

    /// `(core, task)` of step `step`; padding loops are left out.
    pub fn step_tasks(&self, step: usize) -> impl Iterator<Item = (u32, Task)> + '_ {
        let nc = self.core_count() as usize;
        let end = ((step + 1) * nc).min(self.tasks.len());
        self.tasks[step * nc..end].iter().enumerate().filter(|(_, t)| t.data != PADDING).map(|(c, t)| (c as u32, *t))
    }

    /// Per step, the cores that had to share a rank.
    pub fn collisions_per_step(&self) -> &[u32] {
        &self.collisions
    }

    /// Collisions in all.
    pub fn total_collisions(&self) -> u64 {
        self.collisions.iter().map(|&c| u64::from(c)).sum()
    }

    /// Per step, the most cores on one rank.
    pub fn busiest_per_step(&self) -> &[u32] {
        &self.busiest
    }

    /// Cores on each rank in step `step`.
    pub fn rank_load(&self, step: usize) -> Vec<u32> {
        let mut load = vec![0; self.config.grid.rank as usize];
        for (_, t) in self.step_tasks(step) {
            load[t.rank as usize] += 1;
        }
        load
    }

    /// Visits of cell `(data, rank)`.
    pub fn visits(&self, data: u32, rank: u32) -> u32 {
        self.visits[data as usize * self.config.grid.rank as usize + rank as usize]
    }

    /// Cells visited twice or more, and cells never visited.
    pub fn coverage(&self) -> Coverage {
        let ranks = self.config.grid.rank;
        let mut coverage = Coverage { repeated: Vec::new(), missed: Vec::new() };
        for (i, &v) in self.visits.iter().enumerate() {
            let (data, rank) = (i as u32 / ranks, i as u32 % ranks);
            match v {
                0 => coverage.missed.push((data, rank)),
                1 => {}
                n => coverage.repeated.push((data, rank, n)),
            }
        }
        coverage
    }
}

/// Link costs of a step: `latency + busiest_link_cores × tile_bytes / bandwidth`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostModel {
    /// Latency of one step (ns): the round trip of the operation.
    pub latency_ns: f64,
    /// Bandwidth of one link (GiB/s).
    pub bandwidth_gib_s: f64,
    /// Bytes of one tile.
    pub tile_bytes: u64,
}

/// A named cost preset from the catccos cost model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    /// Stable id.
    pub id: &'static str,
    /// Human label.
    pub label: &'static str,
    /// AI cores of the device.
    pub cores: u32,
    /// Link bandwidth (GiB/s).
    pub bandwidth_gib_s: f64,
    /// Round trip of a remote write (ns).
    pub write_rtt_ns: f64,
    /// Round trip of a remote read (ns).
    pub read_rtt_ns: f64,
}

/// The two presets of the catccos cost model.
pub const PRESETS: [Preset; 2] = [
    Preset { id: "a2", label: "A2-like", cores: 20, bandwidth_gib_s: 19.5, write_rtt_ns: 123.0, read_rtt_ns: 500.0 },
    Preset {
        id: "a5",
        label: "A5-like",
        cores: 28,
        bandwidth_gib_s: 35.1495,
        write_rtt_ns: 87.88,
        read_rtt_ns: 662.657,
    },
];

impl CostModel {
    /// Modelled time of one step whose busiest rank serves `cores` cores (ns).
    pub fn step_ns(&self, cores: u32) -> f64 {
        let bytes_per_ns = self.bandwidth_gib_s * (1u64 << 30) as f64 / 1e9;
        self.latency_ns + f64::from(cores) * self.tile_bytes as f64 / bytes_per_ns
    }

    /// Modelled time of a whole schedule (ns).
    pub fn schedule_ns(&self, schedule: &Schedule) -> f64 {
        schedule.busiest_per_step().iter().map(|&b| self.step_ns(b)).sum()
    }
}

/// One sentence on step `step` (0-based): which tiles run and where cores collide.
pub fn caption(schedule: &Schedule, step: usize) -> String {
    let grid = schedule.config().grid();
    let tasks: Vec<(u32, Task)> = schedule.step_tasks(step).collect();
    let shown: Vec<String> = tasks
        .iter()
        .take(6)
        .map(|(c, t)| format!("C{c} → (row {}, col {}, rank {})", t.data / grid.column, t.data % grid.column, t.rank))
        .collect();
    let more = if tasks.len() > 6 { format!(" and {} more", tasks.len() - 6) } else { String::new() };
    let idle = schedule.core_count() as usize - tasks.len();
    let idle = if idle > 0 {
        format!("; {idle} core{} idle (padding)", if idle == 1 { "" } else { "s" })
    } else {
        String::new()
    };
    let load = schedule.rank_load(step);
    let shared: Vec<String> = load
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 1)
        .take(4)
        .map(|(r, &n)| {
            let cores: Vec<String> =
                tasks.iter().filter(|(_, t)| t.rank as usize == r).map(|(c, _)| format!("C{c}")).collect();
            format!("rank {r} ({n} cores: {})", cores.join(", "))
        })
        .collect();
    let collisions = schedule.collisions_per_step()[step];
    let verdict = if collisions == 0 {
        "no rank collision".to_owned()
    } else {
        format!("{collisions} collision{} on {}", if collisions == 1 { "" } else { "s" }, shared.join(", "))
    };
    format!("Step {} of {}: {}{more}{idle}; {verdict}.", step + 1, schedule.steps(), shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(grid: (u32, u32, u32), cores: (u32, u32), direction: u8, deterministic: bool) -> SwizzleConfig {
        SwizzleConfig::new(
            GridShape { row: grid.0, column: grid.1, rank: grid.2 },
            CoreSplit { row: cores.0, column: cores.1 },
            direction,
            deterministic,
            true,
        )
        .unwrap()
    }

    fn coords(c: &SwizzleConfig, n: u64) -> Vec<(u32, u32, u32)> {
        (0..n).map(|i| get_coord(c, i).map(|c| (c.row, c.column, c.rank)).unwrap()).collect()
    }

    #[test]
    fn the_specs_worked_table() {
        let c = config((2, 2, 4), (2, 2), 0, false);
        assert_eq!(coords(&c, 4), [(0, 0, 0), (0, 1, 1), (0, 0, 2), (0, 1, 3)]);
    }

    #[test]
    fn direction_one_by_hand() {
        // ROW_DIM = 1 (ranks), COL_DIM = 0 (data); swizzleOffset = coreSplit.column = 2.
        // loop 1: coord = (data 0, rank 1); shift: offset = 1·2 = 2 → (2 + 0 + 0) % 4 = 2.
        // loop 8: second group: (data 0, rank 2); offset = 4 → (4 + 1 + 0) % 4 = 1.
        let c = config((2, 2, 4), (2, 2), 1, false);
        assert_eq!(coords(&c, 4), [(0, 0, 0), (0, 0, 2), (0, 1, 1), (0, 1, 3)]);
        assert_eq!(get_coord(&c, 8).map(|c| (c.row, c.column, c.rank)), Some((0, 0, 1)));
    }

    #[test]
    fn deterministic_mode_adds_steps_when_data_is_not_a_multiple_of_cores() {
        // 6 data indices, 4 cores, 2 ranks: 12 loops in 3 steps normally;
        // deterministic rounds 6 up to 8 → 16 loops, 4 steps, padding skipped.
        let plain = Schedule::new(&config((3, 2, 2), (2, 2), 0, false));
        let det = Schedule::new(&config((3, 2, 2), (2, 2), 0, true));
        assert_eq!((plain.loop_count(), plain.steps()), (12, 3));
        assert_eq!((det.loop_count(), det.steps()), (16, 4));
        assert!(det.coverage().is_bijective());
        // In deterministic mode each data index belongs to a single core.
        let mut owner = std::collections::BTreeMap::new();
        for step in 0..det.steps() {
            for (core, t) in det.step_tasks(step) {
                assert_eq!(*owner.entry(t.data).or_insert(core), core, "data {} changed core", t.data);
            }
        }
    }

    #[test]
    fn deterministic_needs_direction_zero() {
        let err = SwizzleConfig::new(
            GridShape { row: 2, column: 2, rank: 4 },
            CoreSplit { row: 2, column: 2 },
            1,
            true,
            true,
        );
        assert_eq!(err.unwrap_err().name, "deterministic");
    }

    #[test]
    fn the_specs_counter_example_is_not_bijective() {
        let s = Schedule::new(&config((2, 1, 2), (1, 4), 0, false));
        let coverage = s.coverage();
        assert!(!coverage.is_bijective());
        assert!(!coverage.repeated.is_empty() && !coverage.missed.is_empty());
    }

    #[test]
    fn costs() {
        let m = CostModel { latency_ns: 100.0, bandwidth_gib_s: 1.0, tile_bytes: 1 << 30 };
        assert!((m.step_ns(2) - (100.0 + 2.0 * 1e9)).abs() < 1e-3);
    }
}

//! A winner map (p × size) as the files the libraries load, and a reader
//! of each (`docs/libraries.md`):
//!
//! - NCCL's example tuner plugin CSV (`NCCL_TUNER_CONFIG_FILE`):
//!   `collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff`,
//!   the first matching line wins; rows match `nRanks` exactly;
//! - Open MPI's `coll_tuned_dynamic_rules_filename` file: collective
//!   count, then per collective its id, its communicator sizes and per size
//!   its message sizes with `algorithm faninout segsize`; the last rule at
//!   or below the communicator and message size applies;
//! - MPICH's JSON selection tree (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`),
//!   read by [`super::mpich::parse`].
//!
//! Only what the target runs is written: an algorithm of ours without a
//! counterpart there is replaced by the target's nearest one, and every
//! replacement is reported.

#![allow(clippy::match_same_arms, reason = "one arm per library algorithm, as the sources list them")]
use super::{mpich, nccl, ompi, Query};
use crate::choose::Collective;
use std::fmt::Write as _;

/// An export target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// NCCL's example tuner plugin CSV.
    NcclTuner,
    /// Open MPI's dynamic rules file.
    OmpiRules,
    /// MPICH's JSON selection tree.
    MpichJson,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 3] = [Format::NcclTuner, Format::OmpiRules, Format::MpichJson];

    /// Stable id (`--export`).
    pub fn id(self) -> &'static str {
        match self {
            Format::NcclTuner => "nccl-tuner",
            Format::OmpiRules => "ompi-rules",
            Format::MpichJson => "mpich-json",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::limits::parse_id(&Format::ALL, Format::id, "export", s)
    }
}

/// A winner map to export: row-major winners (our ids) on `ps` × `sizes`
/// (the Chooser's `n`, ascending; rows ascending).
#[derive(Debug, Clone, Copy)]
pub struct Map<'a> {
    /// The collective.
    pub collective: Collective,
    /// Rows.
    pub ps: &'a [u32],
    /// Columns.
    pub sizes: &'a [u64],
    /// Row-major winners.
    pub winners: &'a [&'a str],
    /// Row-major: the runner-up's time over the winner's (empty: no
    /// reasons are written).
    pub margins: &'a [f64],
    /// Bytes per element.
    pub dtype_size: u32,
}

impl Map<'_> {
    fn query(&self, row: usize, col: usize) -> Query {
        Query { collective: self.collective, p: self.ps[row], bytes: self.sizes[col], dtype_size: self.dtype_size }
    }

    fn winner(&self, row: usize, col: usize) -> &str {
        self.winners[row * self.sizes.len() + col]
    }
}

/// One of ours the target cannot run, and what was written instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Substitute {
    /// Our algorithm.
    pub ours: String,
    /// What the file names instead.
    pub put: String,
}

/// A written file and its replacements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The file's text.
    pub text: String,
    /// Each replaced algorithm once.
    pub substitutes: Vec<Substitute>,
}

/// NCCL's collective name in the tuner CSV (`None`: all-to-all).
pub fn nccl_collective(c: Collective) -> Option<&'static str> {
    Some(match c {
        Collective::Broadcast => "broadcast",
        Collective::Reduce => "reduce",
        Collective::Allgather => "allgather",
        Collective::ReduceScatter => "reducescatter",
        Collective::Allreduce => "allreduce",
        Collective::AllToAll => return None,
    })
}

/// The NCCL algorithm written for ours, by the one map between them
/// ([`nccl::Schedule`]), and whether it is ours' counterpart (else ring).
pub fn nccl_target(collective: Collective, ours: &str) -> (nccl::Algorithm, bool) {
    nccl::Algorithm::ALL
        .into_iter()
        .find(|&a| nccl::ours(collective, a) == Some(ours))
        .map_or((nccl::Algorithm::Ring, false), |a| (a, true))
}

/// The Open MPI algorithm number written for ours, and whether it is ours'
/// counterpart (else the nearest).
pub fn ompi_target(collective: Collective, ours: &str) -> (u8, bool) {
    if let Some(id) = ompi::id_of(collective, ours) {
        return (id, true);
    }
    let near = match (collective, ours) {
        (Collective::Broadcast, "pipelined-binomial" | "double-binary-tree") => 6,
        (Collective::Reduce, "binomial-bst" | "pipelined-binomial") => 5,
        (Collective::Allreduce, _) => 2,
        (Collective::ReduceScatter, _) => 3,
        (Collective::AllToAll, _) => 2,
        (Collective::Allgather, _) => 4,
        (Collective::Broadcast | Collective::Reduce, _) => 6 - u8::from(collective == Collective::Reduce),
    };
    (near, false)
}

/// The MPICH algorithm written for ours, and whether it is ours' counterpart.
pub fn mpich_target(collective: Collective, ours: &str) -> (&'static str, bool) {
    let exact = match (collective, ours) {
        (Collective::Broadcast, "binomial") => Some("MPIR_Bcast_intra_binomial"),
        (Collective::Broadcast, "scatter-allgather") => Some("MPIR_Bcast_intra_scatter_ring_allgather"),
        (Collective::Reduce, "binomial") => Some("MPIR_Reduce_intra_binomial"),
        (Collective::Reduce, "reduce-scatter-gather") => Some("MPIR_Reduce_intra_reduce_scatter_gather"),
        (Collective::Allreduce, "recursive-doubling") => Some("MPIR_Allreduce_intra_recursive_doubling"),
        (Collective::Allreduce, "ring") => Some("MPIR_Allreduce_intra_ring"),
        (Collective::Allreduce, "rabenseifner") => Some("MPIR_Allreduce_intra_reduce_scatter_allgather"),
        (Collective::Allgather, "ring") => Some("MPIR_Allgather_intra_ring"),
        (Collective::Allgather, "recursive-doubling") => Some("MPIR_Allgather_intra_recursive_doubling"),
        (Collective::Allgather, "bruck") => Some("MPIR_Allgather_intra_brucks"),
        (Collective::ReduceScatter, "recursive-halving") => Some("MPIR_Reduce_scatter_intra_recursive_halving"),
        (Collective::ReduceScatter, "pairwise") => Some("MPIR_Reduce_scatter_intra_pairwise"),
        (Collective::AllToAll, "linear") => Some("MPIR_Alltoall_intra_scattered"),
        (Collective::AllToAll, "pairwise") => Some("MPIR_Alltoall_intra_pairwise"),
        (Collective::AllToAll, "bruck") => Some("MPIR_Alltoall_intra_brucks"),
        _ => None,
    };
    if let Some(name) = exact {
        return (name, true);
    }
    let near = match collective {
        Collective::Broadcast => "MPIR_Bcast_intra_binomial",
        Collective::Reduce => "MPIR_Reduce_intra_binomial",
        Collective::Allreduce => "MPIR_Allreduce_intra_tree",
        Collective::Allgather => "MPIR_Allgather_intra_ring",
        Collective::ReduceScatter => "MPIR_Reduce_scatter_intra_pairwise",
        Collective::AllToAll => "MPIR_Alltoall_intra_pairwise",
    };
    (near, false)
}

fn note(subs: &mut Vec<Substitute>, ours: &str, put: &str) {
    if !subs.iter().any(|s| s.ours == ours) {
        subs.push(Substitute { ours: ours.to_owned(), put: put.to_owned() });
    }
}

/// NCCL's size of a call (`nBytes`: count × type size, the whole vector).
fn nccl_bytes(q: &Query) -> u64 {
    q.count() * u64::from(q.dtype_size.max(1))
}

/// Open MPI's message size in the dynamic rules (count × type size × p for
/// allgather and alltoall: the whole vector in every collective).
fn ompi_msg(q: &Query) -> u64 {
    let d = u64::from(q.dtype_size.max(1));
    match q.collective {
        Collective::Allgather | Collective::AllToAll => q.block_count() * u64::from(q.p) * d,
        _ => q.count() * d,
    }
}

/// The size each format's file compares a call by: NCCL's `nBytes`, Open
/// MPI's dynamic-rules message size, MPICH's `avg_msg_size` or
/// `total_msg_size`. Cells of a row with the same size are one call to the
/// library: the first of them is written.
pub fn quantity(format: Format, q: &Query) -> u64 {
    match format {
        Format::NcclTuner => nccl_bytes(q),
        Format::OmpiRules => ompi_msg(q),
        Format::MpichJson => mpich_size(q),
    }
}

/// A row's cells as runs of one target: `(first size, last size, target)`,
/// cells whose size repeats the one before dropped.
fn runs<T: PartialEq + Clone>(
    format: Format,
    map: &Map<'_>,
    row: usize,
    mut target: impl FnMut(&str, &Query) -> T,
) -> Vec<(u64, u64, T)> {
    let mut out: Vec<(u64, u64, T)> = Vec::new();
    for col in 0..map.sizes.len() {
        let size = quantity(format, &map.query(row, col));
        if out.last().is_some_and(|r| r.1 >= size) {
            continue;
        }
        let t = target(map.winner(row, col), &map.query(row, col));
        match out.last_mut() {
            Some(last) if last.2 == t => last.1 = size,
            _ => out.push((size, size, t)),
        }
    }
    out
}

/// Writes the map in `format`. For NCCL the protocol of each cell is the one
/// NCCL's model finds fastest for the written algorithm on `system(p)`
/// (`None`: simple).
///
/// # Errors
/// All-to-all for NCCL (it has no all-to-all algorithm to choose); an
/// empty map.
pub fn export(format: Format, map: &Map<'_>, system: &dyn Fn(u32) -> Option<nccl::System>) -> Result<Export, String> {
    if map.ps.is_empty() || map.sizes.is_empty() || map.winners.len() != map.ps.len() * map.sizes.len() {
        return Err("the winner map is empty".into());
    }
    let mut subs = Vec::new();
    let text = match format {
        Format::NcclTuner => nccl_file(map, system, &mut subs)?,
        Format::OmpiRules => ompi_file(map, &mut subs),
        Format::MpichJson => mpich_file(map, &mut subs),
    };
    Ok(Export { text, substitutes: subs })
}

/// NCCL's example-tuner CSV of `map`.
fn nccl_file(
    map: &Map<'_>,
    system: &dyn Fn(u32) -> Option<nccl::System>,
    subs: &mut Vec<Substitute>,
) -> Result<String, String> {
    let mut text = String::new();
    let rows = map.ps.len();
    let name = nccl_collective(map.collective)
        .ok_or("NCCL runs all-to-all as grouped sends and receives: it has no algorithm to tune")?;
    text.push_str("# commlab winner map as an NCCL example-tuner configuration (NCCL_TUNER_CONFIG_FILE)\n");
    text.push_str(
        "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n",
    );
    for i in 0..rows {
        let p = map.ps[i];
        let runs = runs(Format::NcclTuner, map, i, |ours, q| {
            let (alg, exact) = nccl_target(map.collective, ours);
            if !exact {
                note(subs, ours, alg.id());
            }
            // The protocol NCCL's model finds fastest for this
            // algorithm at this size.
            let proto = system(p)
                .and_then(|s| nccl::predict(&s, map.collective, nccl_bytes(q)))
                .and_then(|pred| {
                    pred.times
                        .iter()
                        .filter(|(a, _, _)| *a == alg)
                        .min_by(|x, y| x.2.total_cmp(&y.2))
                        .map(|(_, proto, _)| *proto)
                })
                .unwrap_or(nccl::Protocol::Simple);
            (alg, proto)
        });
        for (k, &(lo, _, (alg, proto))) in runs.iter().enumerate() {
            let lo = if k == 0 { 0 } else { lo };
            let hi = runs.get(k + 1).map_or(u64::MAX, |next| next.0 - 1);
            let _ = writeln!(text, "{name},{lo},{hi},{alg},{proto},-1,-1,{p},-1,-1");
        }
    }
    Ok(text)
}

/// Open MPI's dynamic rules file of `map`.
fn ompi_file(map: &Map<'_>, subs: &mut Vec<Substitute>) -> String {
    let mut text = String::new();
    let rows = map.ps.len();
    // Only the sizes and communicator sizes the map covers: past its
    // last size, and from the communicator size after its last
    // row, algorithm 0 hands the call back to Open MPI's fixed rules.
    let id = ompi_collective_id(map.collective);
    text.push_str("rule-file-version-1\n");
    let _ = writeln!(text, "1 # collectives in this file\n{id} # {}", map.collective);
    let _ = writeln!(text, "{} # communicator sizes", rows + 1);
    for i in 0..rows {
        let runs = runs(Format::OmpiRules, map, i, |ours, _| {
            let (alg, exact) = ompi_target(map.collective, ours);
            if !exact {
                note(subs, ours, ompi::name(map.collective, alg));
            }
            alg
        });
        let last = map.sizes.len().checked_sub(1).map_or(0, |c| quantity(Format::OmpiRules, &map.query(i, c)));
        let _ = writeln!(text, "{} # communicator size\n{} # message sizes", map.ps[i], runs.len() + 1);
        for (k, &(lo, hi, alg)) in runs.iter().enumerate() {
            let start = if k == 0 { 0 } else { lo };
            let why = band_reason(map, i, (lo, hi), Format::OmpiRules);
            let _ = writeln!(text, "{start} {alg} 0 0 # {}{why}", ompi::name(map.collective, alg));
        }
        let _ = writeln!(text, "{} 0 0 0 # beyond the map: Open MPI's fixed rules", last + 1);
    }
    let after = map.ps[rows - 1] + 1;
    let _ = writeln!(
        text,
        "{after} # communicator size\n1 # message sizes\n0 0 0 0 # beyond the map: Open MPI's fixed rules"
    );
    text
}

/// MPICH's JSON selection file of `map`.
fn mpich_file(map: &Map<'_>, subs: &mut Vec<Substitute>) -> String {
    let mut text = String::new();
    let rows = map.ps.len();
    let size_key = match map.collective {
        Collective::Allgather | Collective::ReduceScatter => "total_msg_size",
        _ => "avg_msg_size",
    };
    let _ = write!(
        text,
        "{{\n  \"collective={}\": {{\n    \"comm_type=intra\": {{\n",
        mpich::collective_name(map.collective)
    );
    for i in 0..rows {
        let key = if i + 1 == rows { "comm_size=any".to_owned() } else { format!("comm_size<={}", map.ps[i]) };
        let _ = writeln!(text, "      \"{key}\": {{");
        let runs = runs(Format::MpichJson, map, i, |ours, _| {
            let (name, exact) = mpich_target(map.collective, ours);
            if !exact {
                note(subs, ours, name);
            }
            name
        });
        for (k, (_, last, name)) in runs.iter().enumerate() {
            let cond = if k + 1 == runs.len() { format!("{size_key}=any") } else { format!("{size_key}<={last}") };
            let comma = if k + 1 == runs.len() { "" } else { "," };
            let _ = writeln!(text, "        \"{cond}\": {{ \"algorithm={name}\": {{}} }}{comma}");
        }
        let comma = if i + 1 == rows { "" } else { "," };
        let _ = writeln!(text, "      }}{comma}");
    }
    text.push_str("    }\n  }\n}\n");
    text
}

/// Why a band of row `row` names its algorithm: the model's fastest there,
/// by at least the smallest margin over the band's cells (`""` without margins).
fn band_reason(map: &Map<'_>, row: usize, (lo, hi): (u64, u64), format: Format) -> String {
    if map.margins.is_empty() {
        return String::new();
    }
    let least = (0..map.sizes.len())
        .filter(|&c| (lo..=hi).contains(&quantity(format, &map.query(row, c))))
        .map(|c| map.margins[row * map.sizes.len() + c])
        .fold(f64::INFINITY, f64::min);
    if !least.is_finite() || least < 1.005 {
        return ": the model's fastest here, tied with the next (under 0.5 %)".to_owned();
    }
    format!(": the model's fastest here, at least {:.0} % ahead of the next", (least - 1.0) * 100.0)
}

/// The size MPICH's tree reads for `q`: `avg_msg_size` for bcast, reduce,
/// allreduce and alltoall, `total_msg_size` for allgather and `reduce_scatter`.
fn mpich_size(q: &Query) -> u64 {
    let d = u64::from(q.dtype_size.max(1));
    match q.collective {
        Collective::Allgather => q.block_count() * d * u64::from(q.p),
        _ => q.call_count() * d,
    }
}

/// Open MPI's `COLLTYPE` id of a collective (`coll_base_functions.h`).
pub fn ompi_collective_id(c: Collective) -> u32 {
    match c {
        Collective::Allgather => 0,
        Collective::Allreduce => 2,
        Collective::AllToAll => 3,
        Collective::Broadcast => 7,
        Collective::Reduce => 11,
        Collective::ReduceScatter => 12,
    }
}

/// The tuner CSV's collective names.
const COLLS: [&str; 5] = ["broadcast", "reduce", "allgather", "reducescatter", "allreduce"];

/// One line of an NCCL tuner CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NcclRow {
    /// `collective_type`.
    pub collective: String,
    /// `min_bytes`.
    pub min_bytes: u64,
    /// `max_bytes`.
    pub max_bytes: u64,
    /// `algorithm`.
    pub algorithm: String,
    /// `protocol`.
    pub protocol: String,
    /// `channels` (−1: NCCL's).
    pub channels: i64,
    /// `nNodes` (−1: any).
    pub nodes: i64,
    /// `nRanks` (−1: any).
    pub ranks: i64,
}

/// A tuner file that does not follow its format.
pub type ParseError = mpich::ParseError;

fn error(line: usize, column: usize, message: impl Into<String>) -> ParseError {
    ParseError { line, column, message: message.into() }
}

/// Reads an NCCL tuner CSV (8, 9 or 10 fields a line; `#` comments).
///
/// # Errors
/// A line with a wrong field count, an unknown collective, algorithm or
/// protocol, a field that is not a number, `min_bytes > max_bytes`.
pub fn read_nccl(text: &str) -> Result<Vec<NcclRow>, ParseError> {
    let mut rows = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if !(8..=10).contains(&fields.len()) {
            return Err(error(k + 1, 1, format!("expected 8 to 10 comma-separated fields, found {}", fields.len())));
        }
        let column = |f: usize| fields[..f].iter().map(|s| s.len() + 1).sum::<usize>() + 1;
        let int = |f: usize, what: &str| -> Result<i64, ParseError> {
            fields[f].parse::<i64>().map_err(|_| error(k + 1, column(f), format!("{what}: expected a whole number")))
        };
        let uint = |f: usize, what: &str| -> Result<u64, ParseError> {
            fields[f].parse::<u64>().map_err(|_| error(k + 1, column(f), format!("{what}: expected a byte count")))
        };
        if !COLLS.contains(&fields[0]) {
            return Err(error(k + 1, 1, format!("collective_type: expected one of {}", COLLS.join(", "))));
        }
        if !nccl::ALGORITHMS.contains(&fields[3]) {
            return Err(error(k + 1, column(3), format!("algorithm: expected one of {}", nccl::ALGORITHMS.join(", "))));
        }
        if !nccl::PROTOCOLS.contains(&fields[4]) {
            return Err(error(k + 1, column(4), "protocol: expected ll, ll128 or simple"));
        }
        let row = NcclRow {
            collective: fields[0].to_owned(),
            min_bytes: uint(1, "min_bytes")?,
            max_bytes: uint(2, "max_bytes")?,
            algorithm: fields[3].to_owned(),
            protocol: fields[4].to_owned(),
            channels: int(5, "channels")?,
            nodes: int(6, "nNodes")?,
            ranks: int(7, "nRanks")?,
        };
        for f in 8..fields.len() {
            int(f, if f == 8 { "numPipeOps" } else { "regBuff" })?;
        }
        if row.min_bytes > row.max_bytes {
            return Err(error(k + 1, column(1), "min_bytes is above max_bytes"));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The first row matching a call, as the example tuner plugin looks it up.
pub fn nccl_lookup<'r>(
    rows: &'r [NcclRow],
    collective: &str,
    bytes: u64,
    nodes: u32,
    ranks: u32,
) -> Option<&'r NcclRow> {
    rows.iter().find(|r| {
        r.collective == collective
            && (r.min_bytes..=r.max_bytes).contains(&bytes)
            && (r.nodes == -1 || r.nodes == i64::from(nodes))
            && (r.ranks == -1 || r.ranks == i64::from(ranks))
    })
}

/// Open MPI's rules: per collective id, per communicator size, the
/// `(message size, algorithm)` rules.
pub type OmpiRules = Vec<(u32, Vec<(u64, Vec<(u64, u8)>)>)>;

/// Reads an Open MPI dynamic rules file (`#` comments, numbers separated by
/// white space, an optional `rule-file-version-N` first).
///
/// # Errors
/// A missing or negative number, a collective id above 21, a first message
/// rule that is not 0, communicator or message sizes out of order.
pub fn read_ompi(text: &str) -> Result<OmpiRules, ParseError> {
    let mut tokens: Vec<(usize, usize, &str)> = Vec::new();
    let mut version = 1;
    for (k, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        let mut col = 0;
        for tok in line.split_whitespace() {
            col = line[col..].find(tok).map_or(col, |i| col + i);
            if tokens.is_empty() && version == 1 {
                if let Some(v) = tok.strip_prefix("rule-file-version-") {
                    version = v.parse().map_err(|_| error(k + 1, col + 1, "rule-file-version-N: N is a number"))?;
                    col += tok.len();
                    continue;
                }
            }
            tokens.push((k + 1, col + 1, tok));
            col += tok.len();
        }
    }
    let mut it = tokens.into_iter().peekable();
    let last_line = text.lines().count().max(1);
    let mut next = |what: &str| -> Result<(usize, usize, u64), ParseError> {
        match it.next() {
            None => Err(error(last_line, 1, format!("expected {what}, found the end of the file"))),
            Some((l, c, t)) => {
                t.parse::<u64>().map(|v| (l, c, v)).map_err(|_| error(l, c, format!("expected {what}, found {t:?}")))
            }
        }
    };
    let (_, _, ncoll) = next("the number of collectives")?;
    let mut rules = Vec::new();
    for _ in 0..ncoll {
        let (l, c, id) = next("a collective id")?;
        if id > 21 {
            return Err(error(l, c, "a collective id is 0..=21 (coll_base_functions.h)"));
        }
        let (_, _, ncs) = next("the number of communicator sizes")?;
        let mut coms = Vec::new();
        for _ in 0..ncs {
            let (l, c, size) = next("a communicator size")?;
            if coms.last().is_some_and(|(s, _)| *s >= size) {
                return Err(error(l, c, "communicator sizes must rise"));
            }
            let (_, _, nms) = next("the number of message sizes")?;
            let mut msgs = Vec::new();
            for m in 0..nms {
                let (l, c, msg) = next("a message size")?;
                if m == 0 && msg != 0 {
                    return Err(error(l, c, "the first message rule must be for size 0"));
                }
                if msgs.last().is_some_and(|(s, _)| *s >= msg) {
                    return Err(error(l, c, "message sizes must rise"));
                }
                let (l, c, alg) = next("an algorithm number")?;
                let alg = u8::try_from(alg).map_err(|_| error(l, c, "an algorithm number is below 256"))?;
                next("the fan-in/out")?;
                next("the segment size")?;
                msgs.push((msg, alg));
            }
            coms.push((size, msgs));
        }
        rules.push((u32::try_from(id).unwrap_or(0), coms));
    }
    let _ = version;
    Ok(rules)
}

/// The algorithm Open MPI's dynamic rules give a call (`None`: no rule, so
/// the fixed rules decide).
pub fn ompi_lookup(rules: &OmpiRules, collective: Collective, p: u32, msg: u64) -> Option<u8> {
    let (_, coms) = rules.iter().find(|(id, _)| *id == ompi_collective_id(collective))?;
    let (_, msgs) = coms.iter().take_while(|(s, _)| *s <= u64::from(p)).last().or(coms.first())?;
    msgs.iter().take_while(|(s, _)| *s <= msg).last().map(|(_, a)| *a).filter(|a| *a != 0)
}

/// What each library reads back from an exported file for a cell: the
/// target algorithm's name (the NCCL algorithm, Open MPI's number's name,
/// MPICH's function).
///
/// # Errors
/// A file that does not parse.
pub fn read_back(format: Format, text: &str, q: &Query) -> Result<Option<String>, ParseError> {
    Ok(match format {
        Format::NcclTuner => {
            let rows = read_nccl(text)?;
            nccl_collective(q.collective)
                .and_then(|c| nccl_lookup(&rows, c, nccl_bytes(q), 0, q.p).map(|r| r.algorithm.clone()))
        }
        Format::OmpiRules => {
            let rules = read_ompi(text)?;
            ompi_lookup(&rules, q.collective, q.p, ompi_msg(q)).map(|a| ompi::name(q.collective, a).to_owned())
        }
        Format::MpichJson => {
            let tree = mpich::parse(text)?;
            mpich::select(&tree, q).map(|n| mpich::algorithm(n).to_owned())
        }
    })
}

/// What the target names for ours (the read-back's expectation).
pub fn target_name(format: Format, collective: Collective, ours: &str) -> String {
    match format {
        Format::NcclTuner => nccl_target(collective, ours).0.id().to_owned(),
        Format::OmpiRules => ompi::name(collective, ompi_target(collective, ours).0).to_owned(),
        Format::MpichJson => mpich_target(collective, ours).0.to_owned(),
    }
}

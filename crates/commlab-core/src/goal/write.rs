//! [`Schedule`] → GOAL text as LogGOPSim's `txt2bin` accepts it
//! (`docs/loggops.md` §2.3): statements at column 1, one per line, no
//! comments, blocks in rank order, every op labelled, dependencies after the
//! ops of their block.

use super::{Kind, Schedule, ANY};
use std::collections::HashSet;
use std::fmt::Write as _;

/// Labels for rank `r`'s ops: each op's own when it is a valid, unique label,
/// else `oK` (K its index in the rank, with `_` appended until unused).
fn labels(s: &Schedule, r: u32) -> Vec<String> {
    let range = s.range(r);
    let valid = |l: &str| {
        l.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !["send", "recv", "calc", "rank", "num_ranks", "requires", "irequires"].contains(&l)
    };
    let mut seen: HashSet<String> = HashSet::new();
    let mut own: Vec<Option<String>> = Vec::with_capacity(range.len());
    for i in range {
        let l = s.label(i as u32);
        own.push((valid(l) && seen.insert(l.to_owned())).then(|| l.to_owned()));
    }
    own.into_iter()
        .enumerate()
        .map(|(k, l)| {
            l.unwrap_or_else(|| {
                let mut name = format!("o{k}");
                while seen.contains(&name) {
                    name.push('_');
                }
                seen.insert(name.clone());
                name
            })
        })
        .collect()
}

fn any(v: u32) -> String {
    if v == ANY {
        "-1".to_owned()
    } else {
        v.to_string()
    }
}

/// The schedule as GOAL text.
pub fn write(s: &Schedule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "num_ranks {}", s.ranks());
    let mut deps_of: Vec<Vec<usize>> = vec![Vec::new(); s.ranks() as usize];
    for (k, &(dependent, _, _)) in s.deps.iter().enumerate() {
        deps_of[s.rank_of(dependent) as usize].push(k);
    }
    for r in 0..s.ranks() {
        let names = labels(s, r);
        let base = s.first[r as usize];
        let _ = writeln!(out, "rank {r} {{");
        for (k, op) in s.ops[s.range(r)].iter().enumerate() {
            let name = &names[k];
            match op.kind {
                Kind::Send | Kind::Recv => {
                    let (verb, dir) = if op.kind == Kind::Send { ("send", "to") } else { ("recv", "from") };
                    let _ = write!(out, "{name}: {verb} {}b {dir} {} tag {}", op.size, any(op.peer), any(op.tag));
                    if op.cpu != 0 {
                        let _ = write!(out, " cpu {}", op.cpu);
                    }
                    if op.nic != 0 {
                        let _ = write!(out, " nic {}", op.nic);
                    }
                }
                Kind::Calc => {
                    let _ = write!(out, "{name}: calc {}", op.size);
                    if op.cpu != 0 {
                        let _ = write!(out, " cpu {}", op.cpu);
                    }
                }
            }
            out.push('\n');
        }
        for &k in &deps_of[r as usize] {
            let (dependent, prerequisite, on_start) = s.deps[k];
            let verb = if on_start { "irequires" } else { "requires" };
            let _ = writeln!(
                out,
                "{} {verb} {}",
                names[(dependent - base) as usize],
                names[(prerequisite - base) as usize]
            );
        }
        out.push_str("}\n");
    }
    out
}

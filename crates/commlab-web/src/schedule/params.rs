//! The Schedule view's URL parameters (`docs/links.md`, "Lazy views").
//! Only values that differ from the defaults are written; every value read is
//! checked against the same ranges as the engine's, and a rejected one
//! becomes a notice naming the parameter and what is accepted.

use commlab_api::schedule::{GenerateRequest, LogGops, BYTES, COLLECTIVES, MESH, P, PARAM, PRESETS};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::limits::{self, IntRange};

/// Everything a Schedule link reproduces.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleParams {
    /// The schedule is the opened file (kept in this browser), not a generated one.
    pub file: bool,
    /// The generated collective.
    pub generate: GenerateRequest,
    /// Preset id, or `custom` once a parameter was edited.
    pub preset: String,
    /// LogGOPS parameters.
    pub loggops: LogGops,
    /// LogGOPSim's libstdc++ ready-list order.
    pub libstdcxx: bool,
    /// The zoomed time window (ns), when not the whole run.
    pub window: Option<(f64, f64)>,
    /// First rank shown.
    pub first_rank: u32,
    /// Ticks per unit `u` when the link carries the Chooser's unit of α
    /// (times are then shown in `u`, the LogGOPS parameters in ticks); ns otherwise.
    pub unit: Option<f64>,
}

/// The accepted ticks per unit of a link's `unit`.
pub const UNIT: (f64, f64) = (1e-3, 1e12);

impl ScheduleParams {
    /// How times are shown.
    pub fn time_unit(&self) -> commlab_plot::timeline::TimeUnit {
        self.unit.map_or(commlab_plot::timeline::TimeUnit::Ns, commlab_plot::timeline::TimeUnit::Ticks)
    }
}

impl Default for ScheduleParams {
    fn default() -> ScheduleParams {
        ScheduleParams {
            file: false,
            generate: GenerateRequest::default(),
            preset: PRESETS[0].id.to_owned(),
            loggops: PRESETS[0].params,
            libstdcxx: false,
            window: None,
            first_rank: 0,
            unit: None,
        }
    }
}

fn int(range: IntRange, value: &str) -> Result<u64, String> {
    let v: u64 = value.trim().parse().map_err(|_| range.to_string())?;
    range.check(v).map_err(|_| range.to_string())?;
    Ok(v)
}

fn list(range: IntRange, value: &str, n: usize) -> Result<Vec<u32>, String> {
    let expected = || format!("{n} integers from {} separated by commas", limits::span(range.min, range.max));
    let v: Vec<u32> =
        value.split(',').map(|x| int(range, x).map(|v| v as u32)).collect::<Result<_, _>>().map_err(|_| expected())?;
    if v.len() == n {
        Ok(v)
    } else {
        Err(expected())
    }
}

/// A chooser algorithm's id, `collective/algorithm` (`allreduce/ring`).
pub fn chooser_id(value: &str) -> bool {
    value.split_once('/').is_some_and(|(c, a)| {
        c.parse::<commlab_core::choose::Collective>().is_ok_and(|c| commlab_core::choose::of(c).any(|x| x.id == a))
    })
}

fn flag(value: &str) -> Result<bool, String> {
    match value {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err("0 or 1".into()),
    }
}

fn time(value: &str) -> Result<f64, String> {
    value.trim().parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0).ok_or_else(|| "a time in ns ≥ 0".into())
}

/// Shows at most 40 characters of a rejected value, quoted.
pub fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    format!("{shown:?}")
}

impl ScheduleParams {
    /// Reads the view's pairs; never fails: each problem is a notice and the default stays.
    #[allow(clippy::too_many_lines, clippy::assigning_clones, reason = "one arm per URL key, each a line")]
    pub fn from_pairs(pairs: &[(String, String)]) -> (ScheduleParams, Vec<String>) {
        let mut p = ScheduleParams::default();
        let mut notices = Vec::new();
        let mut custom = false;
        let (mut t0, mut t1) = (None, None);
        for (key, value) in pairs {
            let g = &mut p.generate;
            let result: Result<(), String> = match key.as_str() {
                "src" => match value.as_str() {
                    "file" => {
                        p.file = true;
                        Ok(())
                    }
                    "gen" => {
                        p.file = false;
                        Ok(())
                    }
                    _ => Err("gen or file".into()),
                },
                "coll" => match COLLECTIVES.iter().find(|c| *c == value) {
                    Some(c) => {
                        g.collective = (*c).to_owned();
                        Ok(())
                    }
                    None if chooser_id(value) => {
                        g.collective.clone_from(value);
                        Ok(())
                    }
                    None => Err(format!("one of: {}, or collective/algorithm of the chooser", COLLECTIVES.join(", "))),
                },
                "p" => int(P, value).map(|v| g.p = v),
                "bytes" => int(BYTES, value).map(|v| g.bytes = v),
                "pieces" => int(limits::PIECES, value).map(|v| g.pieces = v),
                "mesh" => int(MESH, value).map(|v| g.mesh = v as u32),
                "enc" => value
                    .parse::<Encoding>()
                    .map(|e| g.encoding = e.id().to_owned())
                    .map_err(|e| e.rsplit("expected ").next().unwrap_or(&e).to_owned()),
                "alg" => value
                    .parse::<Algorithm>()
                    .map(|a| g.algorithm = a.id().to_owned())
                    .map_err(|e| e.rsplit("expected ").next().unwrap_or(&e).to_owned()),
                "tile" => int(limits::mesh_view::TILE, value).map(|v| g.tile = v as u32),
                "k" => int(limits::mesh_view::COMBINING_K, value).map(|v| g.combining_k = v as u32),
                "grid" => list(limits::GRID_EXTENT, value, 3).map(|v| g.grid = (v[0], v[1], v[2])),
                "cores" => list(limits::CORE_EXTENT, value, 2).map(|v| g.cores = (v[0], v[1])),
                "dir" => match value.as_str() {
                    "0" | "1" => {
                        g.direction = u8::from(value == "1");
                        Ok(())
                    }
                    _ => Err("0 or 1".into()),
                },
                "det" => flag(value).map(|v| g.deterministic = v),
                "shift" => flag(value).map(|v| g.shift = v),
                "write" => flag(value).map(|v| g.read = !v),
                "preset" => match PRESETS.iter().find(|x| x.id == value) {
                    Some(x) => {
                        p.loggops = x.params;
                        p.preset = x.id.to_owned();
                        Ok(())
                    }
                    None if value == "custom" => {
                        custom = true;
                        Ok(())
                    }
                    None => Err(format!("one of: {}, custom", PRESETS.map(|x| x.id).join(", "))),
                },
                "L" | "o" | "g" | "G" | "O" | "S" => int(PARAM, value).map(|v| {
                    custom = true;
                    let l = &mut p.loggops;
                    *match key.as_str() {
                        "L" => &mut l.l,
                        "o" => &mut l.o,
                        "g" => &mut l.g,
                        "G" => &mut l.big_g,
                        "O" => &mut l.big_o,
                        _ => &mut l.s,
                    } = v;
                }),
                "order" => match value.as_str() {
                    "libstdcxx" => {
                        p.libstdcxx = true;
                        Ok(())
                    }
                    "stable" => {
                        p.libstdcxx = false;
                        Ok(())
                    }
                    _ => Err("stable or libstdcxx".into()),
                },
                "unit" => value
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|u| (UNIT.0..=UNIT.1).contains(u))
                    .map(|u| p.unit = Some(u))
                    .ok_or_else(|| "a number of ticks per unit from 0.001 to 10^12".to_owned()),
                "t0" => time(value).map(|t| t0 = Some(t)),
                "t1" => time(value).map(|t| t1 = Some(t)),
                "r0" => int(IntRange { name: "r0", min: 0, max: u64::from(u32::MAX) }, value)
                    .map(|v| p.first_rank = v as u32),
                _ if key.starts_with("__commlab_") => Ok(()),
                _ => {
                    notices.push(format!("ignored unknown parameter {}", quoted(key)));
                    Ok(())
                }
            };
            if let Err(expected) = result {
                notices.push(format!("{}: {} is not {expected}; using the default", key, quoted(value)));
            }
        }
        if custom {
            p.preset = "custom".into();
        }
        match (t0, t1) {
            (Some(a), Some(b)) if a < b => p.window = Some((a, b)),
            (None, None) => {}
            _ => notices.push("t0, t1: the time window needs t0 < t1; showing the whole run".into()),
        }
        (p, notices)
    }

    /// The pairs that differ from the defaults, in a fixed order.
    pub fn to_pairs(&self) -> Vec<(String, String)> {
        let d = ScheduleParams::default();
        let (g, dg) = (&self.generate, &d.generate);
        let mut out: Vec<(&str, String)> = Vec::new();
        let mut put = |key: &'static str, value: String, default: String| {
            if value != default {
                out.push((key, value));
            }
        };
        put("src", if self.file { "file" } else { "gen" }.into(), "gen".into());
        put("coll", g.collective.clone(), dg.collective.clone());
        put("p", g.p.to_string(), dg.p.to_string());
        put("bytes", g.bytes.to_string(), dg.bytes.to_string());
        put("pieces", g.pieces.to_string(), dg.pieces.to_string());
        put("mesh", g.mesh.to_string(), dg.mesh.to_string());
        put("enc", g.encoding.clone(), dg.encoding.clone());
        put("alg", g.algorithm.clone(), dg.algorithm.clone());
        put("tile", g.tile.to_string(), dg.tile.to_string());
        put("k", g.combining_k.to_string(), dg.combining_k.to_string());
        let grid = |x: (u32, u32, u32)| format!("{},{},{}", x.0, x.1, x.2);
        put("grid", grid(g.grid), grid(dg.grid));
        put("cores", format!("{},{}", g.cores.0, g.cores.1), format!("{},{}", dg.cores.0, dg.cores.1));
        put("dir", g.direction.to_string(), dg.direction.to_string());
        let bit = |b: bool| if b { "1" } else { "0" }.to_owned();
        put("det", bit(g.deterministic), bit(dg.deterministic));
        put("shift", bit(g.shift), bit(dg.shift));
        put("write", bit(!g.read), bit(!dg.read));
        put("preset", self.preset.clone(), d.preset.clone());
        if self.preset == "custom" {
            let (l, dl) = (&self.loggops, &d.loggops);
            put("L", l.l.to_string(), dl.l.to_string());
            put("o", l.o.to_string(), dl.o.to_string());
            put("g", l.g.to_string(), dl.g.to_string());
            put("G", l.big_g.to_string(), dl.big_g.to_string());
            put("O", l.big_o.to_string(), dl.big_o.to_string());
            put("S", l.s.to_string(), dl.s.to_string());
        }
        put("order", if self.libstdcxx { "libstdcxx" } else { "stable" }.into(), "stable".into());
        if let Some((a, b)) = self.window {
            put("t0", format!("{}", a.round()), String::new());
            put("t1", format!("{}", b.round()), String::new());
        }
        put("r0", self.first_rank.to_string(), "0".into());
        if let Some(u) = self.unit {
            put("unit", format!("{u}"), String::new());
        }
        out.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(q: &str) -> Vec<(String, String)> {
        form_urlencoded::parse(q.as_bytes()).into_owned().collect()
    }

    #[test]
    fn defaults_write_nothing_and_round_trip() {
        assert!(ScheduleParams::default().to_pairs().is_empty());
        let (p, notices) = ScheduleParams::from_pairs(&pairs(
            "coll=barrier&mesh=8&alg=mcs&enc=hilbert&L=100&o=0&order=libstdcxx&t0=10&t1=5000&r0=3&grid=2,3,4&write=1",
        ));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(p.preset, "custom");
        assert_eq!(p.loggops.l, 100);
        assert_eq!(p.window, Some((10.0, 5000.0)));
        let (again, _) = ScheduleParams::from_pairs(&p.to_pairs());
        assert_eq!(again, p);
    }

    #[test]
    fn bad_values_are_named_and_ignored() {
        let (p, notices) =
            ScheduleParams::from_pairs(&pairs("p=0&coll=ring&grid=1,2&preset=fast&t0=5&t1=1&L=-3&zzz=1&dir=2"));
        assert_eq!(p, ScheduleParams::default());
        assert_eq!(notices.len(), 8, "{notices:?}");
        assert!(notices[0].starts_with("p: \"0\" is not an integer from 1 to 1 048 576"), "{}", notices[0]);
        assert!(notices.iter().any(|n| n.contains("ignored unknown parameter \"zzz\"")));
    }
}

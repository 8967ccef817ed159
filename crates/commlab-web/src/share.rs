//! The versioned URL codec: [`to_query`] and [`from_query`], pure functions
//! between [`Params`] and a query string.
//!
//! Format `v=2` (`docs/links.md`): `v=2&view=<id>` first, then only the current view's
//! parameters that differ from their defaults (names are scoped by the view:
//! `p` is the model's `p` in `view=model` and the tree's in `view=tree`), then
//! `embed=1` and `theme=<id>` when set. Keys no view reads are ignored with one
//! notice naming them (a mistyped link is noticed; the page still opens);
//! other views' keys stay quiet. A repeated key takes its last value. Every invalid value yields a [`Notice`] naming the parameter and
//! its accepted range, and the default is used instead.

use crate::state::{Compare, Params, ThemeChoice, View};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::Judge;
use commlab_core::barrier::uq::LinkSetDefinition;
use commlab_core::limits::{
    lab, mesh_view, IntRange, RealRange, BYTES, ELEMENTS, MAX_PIECES, PIECES, SEED, T_BYTE, T_START, UNITS,
};
use commlab_core::reduce::values::INPUTS_TEXT_MAX;
use commlab_core::reduce::{Collective, Operator};
use commlab_core::swizzle::PRESETS;

/// The link format this build writes. It reads `v=1` links too, with a
/// notice where their outcome changed (`docs/links.md`, "Versioning").
pub const VERSION: &str = "2";

/// A problem found while reading a link, shown to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The parameter's name as it appears in the URL.
    pub param: String,
    /// What was wrong and what was used instead.
    pub message: String,
}

/// One URL parameter of a view: its name, kind and how to read and write it
/// in [`Params`]. Ranges come from `commlab_core::limits`, so notices state
/// the same range as the core's errors.
enum Field {
    Int(IntRange, fn(&Params) -> u64, fn(&mut Params, u64)),
    Real(RealRange, fn(&Params) -> f64, fn(&mut Params, f64)),
    /// A closed set of ids.
    Choice(&'static str, fn() -> Vec<&'static str>, fn(&Params) -> &'static str, fn(&mut Params, &str) -> bool),
    Flag(&'static str, fn(&Params) -> bool, fn(&mut Params, bool)),
    /// Free text up to a length (checked in depth by the view, which reports problems).
    Text(&'static str, usize, fn(&Params) -> Option<&str>, fn(&mut Params, Option<String>)),
}

/// Steps a link may name (clipped to the run's length when shown).
const STEP: IntRange = IntRange { name: "step", min: 0, max: 1 << 24 };

const MODEL_FIELDS: &[Field] = &[
    Field::Int(BYTES, |p| p.model.bytes, |p, v| p.model.bytes = v),
    Field::Int(UNITS, |p| p.model.units, |p, v| p.model.units = v),
    Field::Real(T_START, |p| p.model.t_start, |p, v| p.model.t_start = v),
    Field::Real(T_BYTE, |p| p.model.t_byte, |p, v| p.model.t_byte = v),
    Field::Int(MAX_PIECES, |p| p.model.max_pieces, |p, v| p.model.max_pieces = v),
    Field::Int(PIECES, |p| p.model.pieces, |p, v| p.model.pieces = v),
];

const TREE_FIELDS: &[Field] = &[
    Field::Choice(
        "collective",
        || Collective::ALL.iter().map(|c| c.id()).collect(),
        |p| p.tree.collective.id(),
        |p, id| id.parse().map(|c| p.tree.collective = c).is_ok(),
    ),
    Field::Choice(
        "mode",
        || vec!["pram", "mp"],
        |p| if p.tree.message_passing { "mp" } else { "pram" },
        |p, id| match id {
            "pram" | "mp" => {
                p.tree.message_passing = id == "mp";
                true
            }
            _ => false,
        },
    ),
    Field::Int(UNITS, |p| p.tree.units, |p, v| p.tree.units = v),
    Field::Int(ELEMENTS, |p| p.tree.elements, |p, v| p.tree.elements = v),
    Field::Choice(
        "op",
        || Operator::ALL.iter().map(|o| o.id()).collect(),
        |p| p.tree.operator.id(),
        |p, id| id.parse().map(|o| p.tree.operator = o).is_ok(),
    ),
    Field::Int(SEED, |p| p.tree.seed, |p, v| p.tree.seed = v),
    Field::Flag("padded", |p| p.tree.padded, |p, v| p.tree.padded = v),
    Field::Text("inputs", INPUTS_TEXT_MAX, |p| p.tree.inputs.as_deref(), |p, v| p.tree.inputs = v),
    Field::Int(STEP, |p| p.step, |p, v| p.step = v),
];

const PIPELINE_FIELDS: &[Field] = &[
    Field::Int(UNITS, |p| p.pipeline.units, |p, v| p.pipeline.units = v),
    Field::Int(PIECES, |p| p.pipeline.pieces, |p, v| p.pipeline.pieces = v),
    Field::Int(ELEMENTS, |p| p.pipeline.elements, |p, v| p.pipeline.elements = v),
    Field::Int(SEED, |p| p.pipeline.seed, |p, v| p.pipeline.seed = v),
    Field::Int(STEP, |p| p.step, |p, v| p.step = v),
];

/// A swizzle extent in a link.
const GRID: IntRange = IntRange { name: "grid", min: 1, max: 1 << 20 };
const RANK: IntRange = IntRange { name: "rank", min: 1, max: 4096 };
const CORE: IntRange = IntRange { name: "cores", min: 1, max: 1024 };
const TILE: IntRange = IntRange { name: "tile", min: 1, max: 1 << 30 };
const BANDWIDTH: RealRange = RealRange { name: "bandwidth", min: 0.0, max: 10_000.0 };
const LATENCY: RealRange = RealRange { name: "latency", min: 0.0, max: 1e9 };

const SWIZZLE_FIELDS: &[Field] = &[
    Field::Int(IntRange { name: "rows", ..GRID }, |p| p.swizzle.grid.0.into(), |p, v| p.swizzle.grid.0 = v as u32),
    Field::Int(IntRange { name: "cols", ..GRID }, |p| p.swizzle.grid.1.into(), |p, v| p.swizzle.grid.1 = v as u32),
    Field::Int(IntRange { name: "ranks", ..RANK }, |p| p.swizzle.grid.2.into(), |p, v| p.swizzle.grid.2 = v as u32),
    Field::Int(
        IntRange { name: "core_rows", ..CORE },
        |p| p.swizzle.cores.0.into(),
        |p, v| p.swizzle.cores.0 = v as u32,
    ),
    Field::Int(
        IntRange { name: "core_cols", ..CORE },
        |p| p.swizzle.cores.1.into(),
        |p, v| p.swizzle.cores.1 = v as u32,
    ),
    Field::Int(
        IntRange { name: "direction", min: 0, max: 1 },
        |p| p.swizzle.direction.into(),
        |p, v| p.swizzle.direction = v as u8,
    ),
    Field::Flag("deterministic", |p| p.swizzle.deterministic, |p, v| p.swizzle.deterministic = v),
    Field::Flag("shift", |p| p.swizzle.shift, |p, v| p.swizzle.shift = v),
    Field::Int(TILE, |p| p.swizzle.tile_bytes, |p, v| p.swizzle.tile_bytes = v),
    Field::Choice(
        "preset",
        || PRESETS.iter().map(|p| p.id).collect(),
        |p| p.swizzle.preset,
        |p, id| PRESETS.iter().find(|x| x.id == id).map(|x| p.swizzle.preset = x.id).is_some(),
    ),
    Field::Flag("read", |p| p.swizzle.read, |p, v| p.swizzle.read = v),
    Field::Real(BANDWIDTH, |p| p.swizzle.bandwidth_gib_s, |p, v| p.swizzle.bandwidth_gib_s = v),
    Field::Real(LATENCY, |p| p.swizzle.latency_ns, |p, v| p.swizzle.latency_ns = v),
    Field::Choice(
        "compare",
        || Compare::ALL.iter().map(|c| c.id()).collect(),
        |p| p.swizzle.compare.id(),
        |p, id| Compare::ALL.iter().find(|c| c.id() == id).map(|&c| p.swizzle.compare = c).is_some(),
    ),
    Field::Int(STEP, |p| p.step, |p, v| p.step = v),
];

const MESH_FIELDS: &[Field] = &[
    Field::Int(mesh_view::SIDE, |p| p.mesh.size, |p, v| p.mesh.size = v),
    Field::Real(mesh_view::RATE, |p| p.mesh.rate, |p, v| p.mesh.rate = v),
    Field::Int(mesh_view::SEED, |p| p.mesh.seed, |p, v| p.mesh.seed = v),
    Field::Choice(
        "encoding",
        || Encoding::ALL.iter().map(|e| e.id()).collect(),
        |p| p.mesh.encoding.id(),
        |p, id| id.parse().map(|e| p.mesh.encoding = e).is_ok(),
    ),
    Field::Choice(
        "algorithm",
        || Algorithm::ALL.iter().map(|a| a.id()).collect(),
        |p| p.mesh.algorithm.id(),
        |p, id| id.parse().map(|a| p.mesh.algorithm = a).is_ok(),
    ),
    Field::Int(mesh_view::TILE, |p| p.mesh.tile, |p, v| p.mesh.tile = v),
    Field::Choice(
        "judge",
        || Judge::ALL.iter().map(|j| j.id()).collect(),
        |p| p.mesh.judge.id(),
        |p, id| id.parse().map(|j| p.mesh.judge = j).is_ok(),
    ),
    Field::Real(mesh_view::THRESHOLD, |p| p.mesh.threshold, |p, v| p.mesh.threshold = v),
    Field::Int(mesh_view::HOP_TICKS, |p| p.mesh.hop_ticks, |p, v| p.mesh.hop_ticks = v),
    Field::Int(mesh_view::OVERHEAD_TICKS, |p| p.mesh.overhead_ticks, |p, v| p.mesh.overhead_ticks = v),
    Field::Int(mesh_view::COMPUTE_TICKS, |p| p.mesh.compute_ticks, |p, v| p.mesh.compute_ticks = v),
    Field::Int(mesh_view::SKEW_TICKS, |p| p.mesh.skew_ticks, |p, v| p.mesh.skew_ticks = v),
    Field::Int(mesh_view::BARRIERS, |p| p.mesh.barriers, |p, v| p.mesh.barriers = v),
    Field::Int(mesh_view::COMBINING_K, |p| p.mesh.combining_k, |p, v| p.mesh.combining_k = v),
    Field::Flag("contention", |p| p.mesh.contention, |p, v| p.mesh.contention = v),
    Field::Flag("connected", |p| p.mesh.connected, |p, v| p.mesh.connected = v),
    Field::Text("flip", mesh_view::FLIPS_TEXT_MAX, |p| p.mesh.flips.as_deref(), |p, v| p.mesh.flips = v),
    Field::Flag("pattern", |p| p.mesh.pattern, |p, v| p.mesh.pattern = v),
    Field::Flag("heat", |p| p.mesh.heat, |p, v| p.mesh.heat = v),
    Field::Int(mesh_view::UQ_K, |p| p.mesh.uq_k, |p, v| p.mesh.uq_k = v),
    Field::Choice(
        "links",
        || LinkSetDefinition::ALL.iter().map(|l| l.id()).collect(),
        |p| p.mesh.uq_links.id(),
        |p, id| id.parse().map(|l| p.mesh.uq_links = l).is_ok(),
    ),
    Field::Int(STEP, |p| p.step, |p, v| p.step = v),
];

const LAB_FIELDS: &[Field] = &[
    Field::Int(lab::SEEDS, |p| p.lab.seeds, |p, v| p.lab.seeds = v),
    Field::Int(lab::MAX_SIZE, |p| p.lab.max_size, |p, v| p.lab.max_size = v),
    Field::Int(lab::BARRIERS, |p| p.lab.barriers, |p, v| p.lab.barriers = v),
    Field::Int(lab::UQ_SIZE, |p| p.lab.uq_size, |p, v| p.lab.uq_size = v),
];

/// The accepted `(min, max)` of the numeric URL parameter `name` of `view`:
/// the views' number fields take their ranges from here, so the codec and the
/// controls read the same `limits` entry.
///
/// # Panics
/// When `view` has no numeric parameter `name` (a programming error the
/// browser suite would meet at once).
pub fn range(view: View, name: &str) -> (f64, f64) {
    fields(view)
        .iter()
        .find_map(|f| match f {
            Field::Int(r, ..) if r.name == name => Some((r.min as f64, r.max as f64)),
            Field::Real(r, ..) if r.name == name => Some((r.min, r.max)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no numeric URL parameter {name} in view {}", view.id()))
}

/// The URL parameters of `view`.
fn fields(view: View) -> &'static [Field] {
    match view {
        View::Model => MODEL_FIELDS,
        View::Tree => TREE_FIELDS,
        View::Pipeline => PIPELINE_FIELDS,
        View::Swizzle => SWIZZLE_FIELDS,
        View::Mesh => MESH_FIELDS,
        View::Lab => LAB_FIELDS,
        View::Schedule | View::Chooser => &[],
    }
}

impl Field {
    fn name(&self) -> &'static str {
        match self {
            Field::Int(range, ..) => range.name,
            Field::Real(range, ..) => range.name,
            Field::Choice(name, ..) | Field::Flag(name, ..) | Field::Text(name, ..) => name,
        }
    }

    /// The field's value as URL text, when it differs from the default.
    fn encode(&self, params: &Params, defaults: &Params) -> Option<String> {
        match self {
            Field::Int(_, get, _) => (get(params) != get(defaults)).then(|| get(params).to_string()),
            Field::Real(_, get, _) => (get(params) != get(defaults)).then(|| get(params).to_string()),
            Field::Choice(_, _, get, _) => (get(params) != get(defaults)).then(|| get(params).to_owned()),
            Field::Flag(_, get, _) => {
                (get(params) != get(defaults)).then(|| if get(params) { "1" } else { "0" }.to_owned())
            }
            Field::Text(_, _, get, _) => get(params).map(str::to_owned),
        }
    }

    /// Sets the field from URL text, or says what was expected.
    fn decode(&self, params: &mut Params, text: &str) -> Result<(), String> {
        match self {
            Field::Int(range, _, set) => match text.trim().parse::<u64>() {
                Ok(v) if range.contains(v) => {
                    set(params, v);
                    Ok(())
                }
                _ => Err(range.to_string()),
            },
            Field::Real(range, _, set) => match text.trim().parse::<f64>() {
                Ok(v) if range.contains(v) => {
                    set(params, v);
                    Ok(())
                }
                _ => Err(range.to_string()),
            },
            Field::Choice(_, ids, _, set) => {
                if set(params, text) {
                    Ok(())
                } else {
                    Err(format!("one of: {}", ids().join(", ")))
                }
            }
            Field::Flag(_, _, set) => match text {
                "1" | "true" | "0" | "false" => {
                    set(params, matches!(text, "1" | "true"));
                    Ok(())
                }
                _ => Err("0 or 1".to_owned()),
            },
            Field::Text(_, max, _, set) => {
                if text.chars().count() > *max {
                    Err(format!("a text of at most {max} characters"))
                } else {
                    set(params, Some(text.to_owned()).filter(|t| !t.trim().is_empty()));
                    Ok(())
                }
            }
        }
    }

    fn default_text(&self) -> String {
        let defaults = Params::default();
        match self {
            Field::Int(_, get, _) => get(&defaults).to_string(),
            Field::Real(_, get, _) => get(&defaults).to_string(),
            Field::Choice(_, _, get, _) => get(&defaults).to_owned(),
            Field::Flag(_, get, _) => if get(&defaults) { "1" } else { "0" }.to_owned(),
            Field::Text(..) => "none".to_owned(),
        }
    }
}

/// Serialises `params` (without a leading `?`): the version, the view, and
/// the view's own parameters that differ from their defaults.
pub fn to_query(params: &Params) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    out.append_pair("v", VERSION);
    out.append_pair("view", params.view.id());
    let defaults = Params::default();
    for field in fields(params.view) {
        if let Some(text) = field.encode(params, &defaults) {
            out.append_pair(field.name(), &text);
        }
    }
    for (k, v) in &params.lazy {
        out.append_pair(k, v);
    }
    if params.embed {
        out.append_pair("embed", "1");
    }
    if params.theme != ThemeChoice::default() {
        out.append_pair("theme", params.theme.id());
    }
    out.finish()
}

/// The Schedule view's pairs for the schedule `params`' view draws (its
/// "Open in timeline" link and "Export GOAL"), or `None` for views without
/// one (the lab compares many algorithms; the lazy views have their own).
/// Elements are 8 bytes; a barrier's messages are 8 bytes.
pub fn schedule_query(params: &Params) -> Option<String> {
    let mut q = form_urlencoded::Serializer::new(String::new());
    match params.view {
        View::Tree => {
            let t = &params.tree;
            q.append_pair("coll", t.collective.id()).append_pair("p", &t.units.to_string());
            q.append_pair("bytes", &(t.elements * 8).to_string())
        }
        View::Pipeline => {
            let t = &params.pipeline;
            q.append_pair("coll", "pipeline").append_pair("p", &t.units.to_string());
            q.append_pair("pieces", &t.pieces.to_string()).append_pair("bytes", &(t.elements * 8).to_string())
        }
        View::Model => {
            let m = &params.model;
            q.append_pair("coll", "pipeline").append_pair("p", &m.units.to_string());
            q.append_pair("pieces", &m.pieces.to_string()).append_pair("bytes", &m.bytes.to_string())
        }
        View::Mesh => {
            let m = &params.mesh;
            q.append_pair("coll", "barrier").append_pair("mesh", &m.size.to_string()).append_pair("bytes", "8");
            q.append_pair("alg", m.algorithm.id()).append_pair("enc", m.encoding.id());
            q.append_pair("tile", &m.tile.to_string()).append_pair("k", &m.combining_k.to_string())
        }
        View::Swizzle => {
            let s = &params.swizzle;
            let (rows, columns, ranks) = s.grid;
            q.append_pair("coll", "swizzle").append_pair("grid", &format!("{rows},{columns},{ranks}"));
            q.append_pair("cores", &format!("{},{}", s.cores.0, s.cores.1))
                .append_pair("dir", &s.direction.to_string());
            q.append_pair("det", if s.deterministic { "1" } else { "0" })
                .append_pair("shift", if s.shift { "1" } else { "0" });
            q.append_pair("write", if s.read { "0" } else { "1" }).append_pair("bytes", &s.tile_bytes.to_string())
        }
        View::Lab | View::Schedule | View::Chooser => return None,
    };
    Some(q.finish())
}

/// Shows at most 40 characters of a rejected value, quoted and escaped, so a
/// hostile link cannot flood or spoof the notice.
fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    format!("{shown:?}")
}

/// Reads a query string (with or without the leading `?`). Never fails: every
/// problem becomes a [`Notice`] and the default is used for that parameter.
/// Parameter names are read in the scope of the link's `view`.
pub fn from_query(query: &str) -> (Params, Vec<Notice>) {
    from_query_with(query, true)
}

/// [`from_query`] for the lazy bundle: a lazy view's own parameters are read
/// too (the shell only passes them through).
pub fn from_query_in_view(query: &str) -> (Params, Vec<Notice>) {
    from_query_with(query, false)
}

fn from_query_with(query: &str, pass_lazy: bool) -> (Params, Vec<Notice>) {
    let mut params = Params::default();
    let mut notices = Vec::new();
    let mut reject = |param: &str, value: &str, expected: &str, used: &str| {
        notices.push(Notice {
            param: param.to_owned(),
            message: format!("{} is not {expected}; using {used}", quoted(value)),
        });
    };
    let query = query.strip_prefix('?').unwrap_or(query);
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let mut old = false;
    let mut unknown: Vec<String> = Vec::new();
    // The view decides what the other names mean, so it is read first.
    for (key, value) in pairs.iter().filter(|(k, _)| k == "view") {
        if let Some(view) = View::from_id(value) {
            params.view = view;
        } else {
            let ids: Vec<&str> = View::ALL.iter().map(|v| v.id()).collect();
            reject(key, value, &format!("one of: {}", ids.join(", ")), View::default().id());
        }
    }
    for (key, value) in &pairs {
        let (key, value) = (key.as_str(), value.as_str());
        match key {
            "v" if value == "1" => old = true,
            "v" if value != VERSION => reject("v", value, "a link version this build reads (v=1 or v=2)", "v=2"),
            "view" | "v" => {}
            "embed" => match value {
                "1" | "true" => params.embed = true,
                "0" | "false" => params.embed = false,
                _ => reject("embed", value, "0 or 1", "0"),
            },
            "theme" => match ThemeChoice::from_id(value) {
                Some(theme) => params.theme = theme,
                None => reject("theme", value, "one of: auto, light, dark", "auto"),
            },
            // A lazy view's pairs go to its bundle, which reports their problems.
            _ if pass_lazy && params.view.is_lazy() => params.lazy.push((key.to_owned(), value.to_owned())),
            _ => {
                if let Some(field) = fields(params.view).iter().find(|f| f.name() == key) {
                    if let Err(expected) = field.decode(&mut params, value) {
                        reject(key, value, &expected, &field.default_text());
                    }
                } else if !key.starts_with("__commlab_")
                    && !View::ALL.iter().any(|&v| fields(v).iter().any(|f| f.name() == key))
                {
                    // A key no view reads is most likely mistyped; another view's keys stay quiet.
                    unknown.push(key.to_owned());
                }
            }
        }
    }
    if !unknown.is_empty() {
        let mut seen = Vec::new();
        unknown.retain(|k| {
            if seen.contains(k) {
                false
            } else {
                seen.push(k.clone());
                true
            }
        });
        let shown: Vec<String> = unknown.iter().take(5).map(|k| quoted(k)).collect();
        let more = if unknown.len() > 5 { format!(" and {} more", unknown.len() - 5) } else { String::new() };
        let plural = if unknown.len() > 1 { "s" } else { "" };
        // One notice names them all; the name column holds the first.
        notices.push(Notice {
            param: unknown[0].chars().take(40).collect(),
            message: format!("ignored unknown parameter{plural} {}{more}", shown.join(", ")),
        });
    }
    // v=1 links made before the tournament barrier followed the spec.
    let tournament = match params.view {
        View::Mesh => params.mesh.algorithm == Algorithm::Tournament,
        View::Lab => !pass_lazy,
        _ => false,
    };
    if old && tournament {
        notices.push(Notice {
            param: "v".to_owned(),
            message: "this v=1 link is older than 2026-11-30: the tournament barrier now wakes every node from the champion directly (a single-level wake-up) instead of down its binomial tree, so its messages, hops and delays differ from what the link showed".to_owned(),
        });
    }
    (params, notices)
}

#[cfg(test)]
mod tests {
    use super::*;
    // The whole codec, as the lazy bundle reads a lazy view's pairs; the
    // shell's pass-through is tested on its own below.
    use super::from_query_in_view as from_query;

    #[test]
    fn the_shell_passes_lazy_views_pairs_through() {
        let (p, notices) = super::from_query("v=2&view=lab&seeds=2&zz=1&theme=dark");
        assert!(notices.is_empty(), "the lazy bundle reports its own: {notices:?}");
        assert_eq!(p.lazy, vec![("seeds".to_owned(), "2".to_owned()), ("zz".to_owned(), "1".to_owned())]);
        assert_eq!(p.lab, LabParams::default(), "the shell does not read them");
        assert_eq!(to_query(&p), "v=2&view=lab&seeds=2&zz=1&theme=dark");
        let (p, _) = super::from_query("view=schedule&coll=barrier&mesh=8");
        assert_eq!(to_query(&p), "v=2&view=schedule&coll=barrier&mesh=8");
        // A view on the page reads its own keys as before.
        let (p, _) = super::from_query("view=tree&p=9");
        assert!(p.lazy.is_empty());
        assert_eq!(p.tree.units, 9);
    }
    use crate::state::{LabParams, MeshParams, ModelParams, PipelineParams, SwizzleParams, TreeParams};
    use proptest::prelude::*;

    fn check(query: &str, expect: &Params, expect_notices: &[&str]) {
        let (params, notices) = from_query(query);
        assert_eq!(&params, expect, "{query}");
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, expect_notices, "{query}: {notices:?}");
    }

    /// A range is stated once, in `limits`: the codec accepts its ends,
    /// refuses one step beyond with a notice quoting the range, and the
    /// controls get the same numbers from [`range`]. Editing a `limits`
    /// entry moves all three.
    #[test]
    fn one_range_table_drives_the_codec_and_the_controls() {
        use commlab_core::limits::{lab, mesh_view};
        let table: &[(View, IntRange)] = &[
            (View::Mesh, mesh_view::SIDE),
            (View::Mesh, mesh_view::TILE),
            (View::Mesh, mesh_view::HOP_TICKS),
            (View::Mesh, mesh_view::OVERHEAD_TICKS),
            (View::Mesh, mesh_view::COMPUTE_TICKS),
            (View::Mesh, mesh_view::SKEW_TICKS),
            (View::Mesh, mesh_view::BARRIERS),
            (View::Mesh, mesh_view::COMBINING_K),
            (View::Mesh, mesh_view::UQ_K),
            (View::Lab, lab::SEEDS),
            (View::Lab, lab::MAX_SIZE),
            (View::Lab, lab::BARRIERS),
            (View::Lab, lab::UQ_SIZE),
            (View::Tree, UNITS),
            (View::Tree, ELEMENTS),
            (View::Pipeline, UNITS),
            (View::Pipeline, PIECES),
            (View::Model, MAX_PIECES),
        ];
        for &(view, r) in table {
            assert_eq!(range(view, r.name), (r.min as f64, r.max as f64), "{} {}", view.id(), r.name);
            let q = |v: u64| format!("v={VERSION}&view={}&{}={v}", view.id(), r.name);
            assert!(from_query(&q(r.max)).1.is_empty(), "{} accepts its maximum", r.name);
            if r.min > 0 {
                assert!(from_query(&q(r.min)).1.is_empty(), "{} accepts its minimum", r.name);
                let (_, notices) = from_query(&q(r.min - 1));
                assert_eq!(notices.len(), 1, "{} refuses below its minimum", r.name);
            }
            if r.max < u64::MAX {
                let (_, notices) = from_query(&q(r.max + 1));
                assert_eq!(notices.len(), 1, "{} refuses above its maximum", r.name);
                assert!(notices[0].message.contains(&r.to_string()), "{}: {}", r.name, notices[0].message);
            }
        }
        assert_eq!(range(View::Mesh, "rate"), (mesh_view::RATE.min, mesh_view::RATE.max));
        assert_eq!(range(View::Mesh, "threshold"), (mesh_view::THRESHOLD.min, mesh_view::THRESHOLD.max));
    }

    #[test]
    fn defaults_are_omitted() {
        assert_eq!(to_query(&Params::default()), "v=2&view=model");
        let mut p = Params::default();
        p.model.units = 128;
        p.model.t_byte = 0.0005;
        p.embed = true;
        p.theme = ThemeChoice::Dark;
        assert_eq!(to_query(&p), "v=2&view=model&p=128&t_byte=0.0005&embed=1&theme=dark");
    }

    #[test]
    fn reads_links() {
        let mut p = Params::default();
        p.model.units = 8;
        p.model.bytes = 4096;
        check("?v=1&view=model&p=8&n=4096", &p, &[]);
        check("p=8&n=4096&rows=4&algorithm=ms&__commlab_no_worker=1", &p, &[]);
        let (read, notices) = from_query("p=8&n=4096&grid=3&future_param=7&grid=4");
        assert_eq!((read.model.units, read.model.bytes), (8, 4096));
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert_eq!(notices[0].param, "grid");
        assert_eq!(notices[0].message, "ignored unknown parameters \"grid\", \"future_param\"");
        check("p=3&p=8&n=4096", &p, &[]);
    }

    #[test]
    fn invalid_values_are_reported_by_name_and_defaulted() {
        let (params, notices) = from_query("p=-3&n=abc&v=999");
        assert_eq!(params, Params::default());
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, ["p", "n", "v"]);
        assert!(notices[0].message.contains("1 to 1 048 576"), "{}", notices[0].message);
        assert!(notices[0].message.contains("using 64"), "{}", notices[0].message);
        check(
            "t_start=NaN&t_byte=inf&m=0&max_pieces=99999999999",
            &Params::default(),
            &["t_start", "t_byte", "m", "max_pieces"],
        );
        check(
            "view=%3Cscript%3Ealert(1)%3C/script%3E&theme=neon&embed=maybe",
            &Params::default(),
            &["view", "theme", "embed"],
        );
    }

    #[test]
    fn hostile_values_are_quoted_and_truncated() {
        let long = "x".repeat(10_000);
        let (_, notices) = from_query(&format!("p={long}"));
        assert!(notices[0].message.len() < 200);
        let (_, notices) = from_query("p=%22%0A%3Cb%3E");
        assert!(notices[0].message.starts_with("\"\\\"\\n<b>\""), "{}", notices[0].message);
    }

    /// A v=1 link opens in this build; where its outcome changed (the
    /// tournament's wake-up, in the mesh view and the lab's charts) a notice
    /// says exactly what changed; elsewhere it opens silently.
    #[test]
    fn v1_links_open_and_say_what_changed() {
        for (query, changed) in [
            ("v=1&view=mesh&algorithm=tournament&size=12", true),
            ("v=1&view=lab&seeds=2", true),
            ("v=1&view=mesh&algorithm=ms&size=12", false),
            ("v=1&view=tree&p=12", false),
            ("v=2&view=mesh&algorithm=tournament", false),
        ] {
            let (p, notices) = from_query(query);
            assert_eq!(notices.len(), usize::from(changed), "{query}: {notices:?}");
            if changed {
                assert_eq!(notices[0].param, "v");
                assert!(notices[0].message.contains("single-level wake-up"), "{}", notices[0].message);
            }
            assert!(to_query(&p).starts_with("v=2&"), "the page writes the current version");
        }
        let (_, notices) = from_query("v=3&view=tree");
        assert_eq!(notices[0].param, "v");
        assert!(notices[0].message.contains("v=1 or v=2"), "{}", notices[0].message);
    }

    #[test]
    fn tree_and_pipeline_links() {
        let (p, notices) = from_query(
            "v=1&view=tree&collective=allreduce-butterfly&mode=mp&p=12&elements=3&op=fmax&seed=9&padded=1&step=3",
        );
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(p.view, View::Tree);
        assert_eq!(p.tree.collective, Collective::Butterfly);
        assert!(p.tree.message_passing && p.tree.padded);
        assert_eq!((p.tree.units, p.tree.elements, p.tree.seed, p.step), (12, 3, 9, 3));
        assert_eq!(p.tree.operator, Operator::FloatMax);
        assert_eq!(p.model, crate::state::ModelParams::default(), "model's p untouched");
        assert_eq!(
            to_query(&p),
            "v=2&view=tree&collective=allreduce-butterfly&mode=mp&p=12&elements=3&op=fmax&seed=9&padded=1&step=3"
        );
        let (p, notices) = from_query("view=pipeline&p=7&m=4&elements=8&step=2&op=sum");
        assert!(notices.is_empty(), "op is not a pipeline parameter and is ignored: {notices:?}");
        assert_eq!((p.pipeline.units, p.pipeline.pieces, p.pipeline.elements, p.step), (7, 4, 8, 2));
        let (_, notices) = from_query("view=tree&op=median&mode=x&padded=2");
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, ["op", "mode", "padded"]);
        assert!(notices[0].message.contains("sum, prod"), "{}", notices[0].message);
    }

    fn any_model() -> impl Strategy<Value = ModelParams> {
        (
            1u64..=BYTES.max,
            1u64..=UNITS.max,
            prop_oneof![Just(0.0), 0.0f64..=T_START.max],
            prop_oneof![Just(0.0), 1e-9f64..=T_BYTE.max],
            1u64..=MAX_PIECES.max,
            1u64..=PIECES.max,
        )
            .prop_map(|(bytes, units, t_start, t_byte, max_pieces, pieces)| ModelParams {
                bytes,
                units,
                t_start,
                t_byte,
                max_pieces,
                pieces,
            })
    }

    fn any_tree() -> impl Strategy<Value = TreeParams> {
        (0usize..4, any::<bool>(), 1u64..=UNITS.max, 1u64..=ELEMENTS.max, 0usize..10, any::<u64>(), any::<bool>())
            .prop_map(|(c, message_passing, units, elements, op, seed, padded)| TreeParams {
                collective: Collective::ALL[c],
                message_passing,
                units,
                elements,
                operator: Operator::ALL[op],
                seed,
                padded,
                inputs: None,
            })
    }

    fn any_pipeline() -> impl Strategy<Value = PipelineParams> {
        (1u64..=UNITS.max, 1u64..=PIECES.max, 1u64..=ELEMENTS.max, any::<u64>())
            .prop_map(|(units, pieces, elements, seed)| PipelineParams { units, pieces, elements, seed })
    }

    fn any_swizzle() -> impl Strategy<Value = SwizzleParams> {
        (
            (1u32..=GRID.max as u32, 1u32..=GRID.max as u32, 1u32..=RANK.max as u32),
            (1u32..=1024, 1u32..=1024),
            (0u8..=1, any::<bool>(), any::<bool>(), any::<bool>()),
            (1u64..=TILE.max, 0usize..2, 0.0f64..=BANDWIDTH.max, 0.0f64..=LATENCY.max, 0usize..3),
        )
            .prop_map(
                |(
                    grid,
                    cores,
                    (direction, deterministic, shift, read),
                    (tile_bytes, preset, bandwidth_gib_s, latency_ns, compare),
                )| {
                    SwizzleParams {
                        grid,
                        cores,
                        direction,
                        deterministic,
                        shift,
                        tile_bytes,
                        preset: PRESETS[preset].id,
                        read,
                        bandwidth_gib_s,
                        latency_ns,
                        compare: Compare::ALL[compare],
                    }
                },
            )
    }

    fn any_mesh() -> impl Strategy<Value = MeshParams> {
        (
            (
                2u64..=mesh_view::SIDE.max,
                0.0f64..=0.9,
                any::<u64>(),
                0usize..Encoding::ALL.len(),
                0usize..Algorithm::ALL.len(),
                2u64..=64,
            ),
            (0usize..3, 0.0f64..=10.0, 1u64..=1000, 0u64..=1000, 0u64..=100_000, 0u64..=100_000),
            (
                1u64..=20,
                any::<bool>(),
                any::<bool>(),
                proptest::option::of(proptest::collection::vec(0u32..1000, 1..5)),
                2u64..=64,
            ),
            (any::<bool>(), any::<bool>(), 0u64..=1 << 20, 0usize..3),
        )
            .prop_map(
                |(
                    (size, rate, seed, encoding, algorithm, tile),
                    (judge, threshold, hop_ticks, overhead_ticks, compute_ticks, skew_ticks),
                    (barriers, contention, connected, flips, combining_k),
                    (pattern, heat, uq_k, links),
                )| MeshParams {
                    size,
                    rate,
                    seed,
                    encoding: Encoding::ALL[encoding],
                    algorithm: Algorithm::ALL[algorithm],
                    tile,
                    judge: Judge::ALL[judge],
                    threshold,
                    hop_ticks,
                    overhead_ticks,
                    compute_ticks,
                    skew_ticks,
                    barriers,
                    combining_k,
                    contention,
                    connected,
                    flips: flips.map(|f| f.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")),
                    pattern,
                    heat,
                    uq_k,
                    uq_links: LinkSetDefinition::ALL[links],
                },
            )
    }

    fn any_lab() -> impl Strategy<Value = LabParams> {
        (1u64..=20, 4u64..=64, 1u64..=10, 2u64..=16).prop_map(|(seeds, max_size, barriers, uq_size)| LabParams {
            seeds,
            max_size,
            barriers,
            uq_size,
        })
    }

    /// Any state a link can carry: one view's parameters, the others at their defaults.
    fn any_params() -> impl Strategy<Value = Params> {
        let shell = (any::<bool>(), 0usize..3, 0u64..=STEP.max);
        prop_oneof![
            (shell.clone(), any_model()).prop_map(|((embed, theme, _), model)| Params {
                view: View::Model,
                embed,
                theme: ThemeChoice::ALL[theme],
                model,
                ..Params::default()
            }),
            (shell.clone(), any_tree()).prop_map(|((embed, theme, step), tree)| Params {
                view: View::Tree,
                embed,
                theme: ThemeChoice::ALL[theme],
                tree,
                step,
                ..Params::default()
            }),
            (shell.clone(), any_pipeline()).prop_map(|((embed, theme, step), pipeline)| Params {
                view: View::Pipeline,
                embed,
                theme: ThemeChoice::ALL[theme],
                pipeline,
                step,
                ..Params::default()
            }),
            (shell.clone(), any_swizzle()).prop_map(|((embed, theme, step), swizzle)| Params {
                view: View::Swizzle,
                embed,
                theme: ThemeChoice::ALL[theme],
                swizzle,
                step,
                ..Params::default()
            }),
            (shell.clone(), any_mesh()).prop_map(|((embed, theme, step), mesh)| Params {
                view: View::Mesh,
                embed,
                theme: ThemeChoice::ALL[theme],
                mesh,
                step,
                ..Params::default()
            }),
            (shell, any_lab()).prop_map(|((embed, theme, _), lab)| Params {
                view: View::Lab,
                embed,
                theme: ThemeChoice::ALL[theme],
                lab,
                ..Params::default()
            }),
        ]
    }

    proptest! {
        #[test]
        fn round_trip(params in any_params()) {
            let query = to_query(&params);
            let (back, notices) = from_query(&query);
            prop_assert!(notices.is_empty(), "{query}: {notices:?}");
            prop_assert_eq!(back, params);
        }

        #[test]
        fn any_string_decodes_without_panic(query in ".{0,200}") {
            let _ = from_query(&query);
        }

        #[test]
        fn any_key_value_pairs_decode_without_panic(
            pairs in proptest::collection::vec(("(v|view|p|n|m|t_start|t_byte|max_pieces|embed|theme|collective|mode|op|seed|padded|step|elements|[a-z]{1,4})", "\\PC{0,30}"), 0..12)
        ) {
            let query: String = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
            let (params, _) = from_query(&query);
            // Whatever was read is a valid configuration.
            prop_assert!(params.model.request().config().is_ok());
        }
    }
}

/// The codec's soak test: 10^6 random and mutated queries (`scripts/test.sh`
/// runs it in release: `cargo test --release -p commlab-web soak -- --ignored`).
/// `COMMLAB_SOAK_SEED` and `COMMLAB_SOAK_QUERIES` override the defaults; a
/// failure prints the seed and the query.
#[cfg(test)]
mod soak {
    use super::*;
    // The whole codec (a lazy view's pairs as its bundle reads them).
    use super::from_query_in_view as from_query;

    /// splitmix64: a tiny seeded generator, so the test needs no crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len())]
        }
    }

    const JUNK: &[&str] = &[
        "",
        " ",
        "abc",
        "NaN",
        "nan",
        "inf",
        "-inf",
        "1e309",
        "-0",
        "+3",
        " 5 ",
        "0x10",
        "1_000",
        "1.5",
        "-1",
        "18446744073709551616",
        "99999999999999999999999",
        "%",
        "%zz",
        "\u{0}",
        "<script>alert(1)</script>",
        "ü",
        "日本",
        "🦀",
        "1,2,3",
        "true",
        "false",
        "0",
        "1",
        "2",
        "yes",
        "&",
        "=",
        "==",
        "a=b",
    ];

    /// A value for `field`: valid, at or just past an end, or junk.
    fn value(rng: &mut Rng, field: &Field) -> String {
        match (field, rng.below(4)) {
            (_, 0) => (*rng.pick(JUNK)).to_owned(),
            (Field::Int(r, ..), _) => match rng.below(5) {
                0 => r.min.to_string(),
                1 => r.max.to_string(),
                2 => r.min.saturating_sub(1).to_string(),
                3 => r.max.saturating_add(1).to_string(),
                _ => (r.min + rng.next() % (r.max - r.min).saturating_add(1)).to_string(),
            },
            (Field::Real(r, ..), _) => match rng.below(5) {
                0 => r.min.to_string(),
                1 => r.max.to_string(),
                2 => (r.min - 1e-9 - r.min.abs() * 1e-9).to_string(),
                3 => (r.max * 1.000_001 + 1e-9).to_string(),
                _ => (r.min + (r.max - r.min) * (rng.next() % 1000) as f64 / 999.0).to_string(),
            },
            (Field::Choice(_, ids, ..), k) => {
                let ids = ids();
                let id = (*rng.pick(&ids)).to_owned();
                if k == 1 {
                    id.to_uppercase()
                } else {
                    id
                }
            }
            (Field::Flag(..), _) => (*rng.pick(&["0", "1", "true", "false", "on", "TRUE"])).to_owned(),
            (Field::Text(_, max, ..), _) => {
                let n = match rng.below(64) {
                    0 => *max,
                    1 => max + 1,
                    _ => rng.below(40),
                };
                let alphabet: Vec<char> = "0123456789,- x;ü".chars().collect();
                (0..n).map(|_| *rng.pick(&alphabet)).collect()
            }
        }
    }

    /// Whether `text` is a valid value of `field`: the test's own reading of
    /// the rules (`docs/links.md`), not the codec's `decode`.
    fn valid(field: &Field, text: &str) -> bool {
        match field {
            Field::Int(r, ..) => text.trim().parse::<u64>().is_ok_and(|v| v >= r.min && v <= r.max),
            Field::Real(r, ..) => text.trim().parse::<f64>().is_ok_and(|v| v.is_finite() && v >= r.min && v <= r.max),
            Field::Choice(_, ids, ..) => ids().contains(&text),
            Field::Flag(..) => matches!(text, "0" | "1" | "true" | "false"),
            Field::Text(_, max, ..) => text.chars().count() <= *max,
        }
    }

    /// One query: either built from fields (with the pairs it holds), or a
    /// valid query with its bytes mutated (no pairs to judge).
    fn query(rng: &mut Rng) -> (String, Vec<(String, String)>) {
        let view = *rng.pick(&View::ALL);
        let mut pairs: Vec<(String, String)> = Vec::new();
        if rng.below(8) != 0 {
            pairs.push(("v".into(), (*rng.pick(&["2", "2", "1", "3", ""])).into()));
        }
        pairs.push(("view".into(), if rng.below(20) == 0 { "grid".into() } else { view.id().into() }));
        let own = fields(view);
        for _ in 0..rng.below(own.len() + 3) {
            if own.is_empty() {
                break;
            }
            let field = rng.pick(own);
            pairs.push((field.name().into(), value(rng, field)));
        }
        let other = fields(*rng.pick(&View::ALL));
        if rng.below(4) == 0 && !other.is_empty() {
            let field = rng.pick(other);
            pairs.push((field.name().into(), value(rng, field)));
        }
        if rng.below(6) == 0 {
            pairs.push(((*rng.pick(&["grid", "utm_source", "P", "size ", ""])).into(), "1".into()));
        }
        if rng.below(6) == 0 {
            pairs.push(("embed".into(), (*rng.pick(&["1", "0", "true", "x"])).into()));
        }
        if rng.below(6) == 0 {
            pairs.push(("theme".into(), (*rng.pick(&["dark", "light", "auto", "blue"])).into()));
        }
        let mut out = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &pairs {
            out.append_pair(k, v);
        }
        let mut text = out.finish();
        if rng.below(5) == 0 {
            // Byte-level mutation of the encoded query: judge only the invariants.
            let mut bytes = text.into_bytes();
            for _ in 0..=rng.below(3) {
                let at = rng.below(bytes.len() + 1);
                match rng.below(3) {
                    0 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    1 => bytes.insert(at, *rng.pick(b"&=%+?#0a\xff")),
                    _ if at < bytes.len() => bytes[at] = rng.next() as u8,
                    _ => {}
                }
            }
            text = String::from_utf8_lossy(&bytes).into_owned();
            return (text, Vec::new());
        }
        (text, pairs)
    }

    fn check(text: &str, pairs: &[(String, String)]) -> Result<(), String> {
        let (params, notices) = from_query(text);
        let canonical = to_query(&params);
        let (again, again_notices) = from_query(&canonical);
        if again != params || !again_notices.is_empty() || to_query(&again) != canonical {
            return Err(format!("re-encoding is not canonical: {canonical} gives {again_notices:?}"));
        }
        let named = |key: &str| notices.iter().any(|n| n.param == key);
        let view = pairs.iter().rev().find(|(k, _)| k == "view").and_then(|(_, v)| View::from_id(v));
        for (key, value) in pairs {
            let field = fields(view.unwrap_or_default()).iter().find(|f| f.name() == key);
            let invalid = match key.as_str() {
                "v" => !matches!(value.as_str(), "1" | "2"),
                "view" => View::from_id(value).is_none(),
                "embed" => !matches!(value.as_str(), "0" | "1" | "true" | "false"),
                "theme" => ThemeChoice::from_id(value).is_none(),
                _ => match field {
                    Some(field) => !valid(field, value),
                    None => {
                        !key.starts_with("__commlab_")
                            && !View::ALL.iter().any(|&v| fields(v).iter().any(|f| f.name() == key))
                    }
                },
            };
            if invalid && !named(key) {
                return Err(format!("{key}={value:?} is invalid but no notice names {key:?}: {notices:?}"));
            }
            // (A v=1 link may get a version note on `v`: not a rejection.)
            let note = key == "v" && value == "1";
            if !invalid && !note && named(key) && !pairs.iter().any(|(k, v)| k == key && v != value) {
                return Err(format!("{key}={value:?} is valid but a notice names it: {notices:?}"));
            }
        }
        Ok(())
    }

    #[test]
    #[ignore = "soak: scripts/test.sh runs it in release"]
    fn a_million_random_and_mutated_queries() {
        let seed = std::env::var("COMMLAB_SOAK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_u64);
        let count: u64 = std::env::var("COMMLAB_SOAK_QUERIES").ok().and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
        let mut rng = Rng(seed);
        let started = std::time::Instant::now();
        for i in 0..count {
            let (text, pairs) = query(&mut rng);
            let outcome = std::panic::catch_unwind(|| check(&text, &pairs));
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(why)) => panic!("seed {seed}, query {i}: {text:?}: {why}"),
                Err(payload) => {
                    let why = payload.downcast_ref::<String>().cloned().unwrap_or_default();
                    panic!("seed {seed}, query {i}: {text:?} panicked: {why}")
                }
            }
        }
        eprintln!("{count} queries in {:.1} s (seed {seed})", started.elapsed().as_secs_f64());
    }
}

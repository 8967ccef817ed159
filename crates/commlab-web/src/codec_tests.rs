//! The codec's property tests and its soak test: every view's table, the
//! lazy views' included, read by the one codec.

use super::*;
use crate::codec::*;
use crate::views::chooser::params::ChooserParams;
use crate::views::lab::params::LabParams;
use crate::views::mesh::params::MeshParams;
use crate::views::model::params::ModelParams;
use crate::views::pipeline::params::PipelineParams;
use crate::views::schedule::params::ScheduleParams;
use crate::views::swizzle::params::{SwizzleParams, SwizzleState};
use crate::views::tree::params::TreeParams;
use commlab_api::mesh::MeshRequest;
use commlab_api::model::ModelRequest;
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Encoding;
use commlab_core::barrier::engine::Judge;
use commlab_core::barrier::mesh::Routing;
use commlab_core::barrier::uq::LinkSetDefinition;
use commlab_core::limits::{mesh_view, BYTES, ELEMENTS, MAX_PIECES, PIECES, T_BYTE, T_START, UNITS};
use commlab_core::limits::{IntRange, RealRange};
use commlab_core::reduce::{Collective, Operator};
use commlab_core::swizzle::PRESETS;
use proptest::prelude::*;

/// A field without its accessors: what the soak test generates and judges.
enum Spec {
    Int(IntRange),
    Real(RealRange),
    Choice(Vec<&'static str>),
    Flag,
    Text(usize),
    /// Judged by the view's own rules: the soak checks only the invariants.
    Custom,
}

fn specs<S: ViewState>() -> Vec<(&'static str, Spec)> {
    S::FIELDS
        .iter()
        .map(|f| {
            let spec = match &f.kind {
                Kind::Int(r, ..) => Spec::Int(*r),
                Kind::Real(r, ..) => Spec::Real(*r),
                Kind::Choice(ids, ..) => Spec::Choice(ids()),
                Kind::Flag(..) => Spec::Flag,
                Kind::Text(max, ..) => Spec::Text(*max),
                Kind::Custom { .. } => Spec::Custom,
            };
            (f.name, spec)
        })
        .collect()
}

/// Every view's fields, by view (the table the soak test draws from).
fn view_specs(view: View) -> Vec<(&'static str, Spec)> {
    let mut out = match view {
        View::Tree => specs::<TreeParams>(),
        View::Pipeline => specs::<PipelineParams>(),
        View::Model => specs::<ModelParams>(),
        View::Mesh => specs::<MeshParams>(),
        View::Lab => specs::<LabParams>(),
        View::Swizzle => specs::<SwizzleState>(),
        View::Schedule => specs::<ScheduleParams>(),
        View::Chooser => specs::<ChooserParams>(),
    };
    if view.entry().animated {
        out.push(("step", Spec::Int(STEP)));
    }
    out
}

type Pairs = Vec<(String, String)>;

/// The whole codec: the shell, then a lazy view's bundle.
fn open(query: &str) -> (Params, Vec<Notice>, Option<Pairs>) {
    let (params, mut notices) = from_query(query);
    let canonical_lazy = match params.view {
        View::Lab => Some(lazy_round::<LabParams>(&params, &mut notices)),
        View::Schedule => Some(lazy_round::<ScheduleParams>(&params, &mut notices)),
        View::Chooser => Some(lazy_round::<ChooserParams>(&params, &mut notices)),
        View::Swizzle => Some(lazy_round::<SwizzleState>(&params, &mut notices)),
        _ => None,
    };
    (params, notices, canonical_lazy)
}

/// A lazy view's pairs read by its bundle: their notices, and the pairs it writes back.
fn lazy_round<S: ViewState>(params: &Params, notices: &mut Vec<Notice>) -> Vec<(String, String)> {
    let (state, n) = read::<S>(&params.lazy, &params.link);
    notices.extend(n);
    let written = write(&state);
    let (again, again_notices) = read::<S>(&written, &Link::default());
    assert!(again == state && again_notices.is_empty(), "{written:?} reads back as another state: {again_notices:?}");
    written
}

#[test]
fn one_range_table_drives_the_codec_and_the_controls() {
    use commlab_core::limits::lab;
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
        (View::Swizzle, commlab_core::limits::swizzle_view::TILE_BYTES),
        (View::Swizzle, commlab_core::limits::swizzle_view::DIRECTION),
        (View::Swizzle, IntRange { name: "ranks", ..commlab_core::limits::RANKS }),
        (View::Swizzle, IntRange { name: "rows", ..commlab_core::limits::GRID_EXTENT }),
        (View::Swizzle, IntRange { name: "core_cols", ..commlab_core::limits::CORE_EXTENT }),
        (View::Chooser, commlab_core::limits::chooser::P),
        (View::Chooser, IntRange { name: "at", ..commlab_core::limits::chooser::SIZE }),
        (View::Schedule, commlab_core::limits::schedule::P),
        (View::Schedule, commlab_core::limits::schedule::MESH),
    ];
    for &(view, r) in table {
        let spec = view_specs(view).into_iter().find(|(n, _)| *n == r.name);
        assert!(matches!(spec, Some((_, Spec::Int(x))) if x == r), "{} {}", view.id(), r.name);
        let q = |v: u64| format!("v={VERSION}&view={}&{}={v}", view.id(), r.name);
        assert!(open(&q(r.max)).1.is_empty(), "{} accepts its maximum", r.name);
        if r.min > 0 {
            assert!(open(&q(r.min)).1.is_empty(), "{} accepts its minimum", r.name);
            let (_, notices, _) = open(&q(r.min - 1));
            assert_eq!(notices.len(), 1, "{} refuses below its minimum", r.name);
        }
        if r.max < u64::MAX {
            let (_, notices, _) = open(&q(r.max + 1));
            assert_eq!(notices.len(), 1, "{} refuses above its maximum", r.name);
            assert!(notices[0].message.contains(&r.to_string()), "{}: {}", r.name, notices[0].message);
        }
    }
    assert_eq!(range::<MeshParams>("rate"), (mesh_view::RATE.min, mesh_view::RATE.max));
    assert_eq!(range::<MeshParams>("threshold"), (mesh_view::THRESHOLD.min, mesh_view::THRESHOLD.max));
    assert_eq!(range::<SwizzleState>("latency"), (0.0, 1e9));
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
            request: ModelRequest { bytes, units, t_start, t_byte, max_pieces },
            pieces,
        })
}

fn any_tree() -> impl Strategy<Value = TreeParams> {
    (0usize..4, any::<bool>(), 1u64..=UNITS.max, 1u64..=ELEMENTS.max, 0usize..10, any::<u64>(), any::<bool>()).prop_map(
        |(c, message_passing, units, elements, op, seed, padded)| TreeParams {
            collective: Collective::ALL[c].id().to_owned(),
            message_passing,
            units,
            elements,
            operator: Operator::ALL[op].id().to_owned(),
            seed,
            padded,
            inputs: None,
        },
    )
}

fn any_pipeline() -> impl Strategy<Value = PipelineParams> {
    (1u64..=UNITS.max, 1u64..=PIECES.max, 1u64..=ELEMENTS.max, any::<u64>())
        .prop_map(|(units, pieces, elements, seed)| PipelineParams { units, pieces, elements, seed })
}

fn any_swizzle() -> impl Strategy<Value = SwizzleParams> {
    use commlab_core::limits::swizzle_view as lim;
    (
        (1u32..=1 << 20, 1u32..=1 << 20, 1u32..=4096),
        (1u32..=1024, 1u32..=1024),
        (0u8..=1, any::<bool>(), any::<bool>(), any::<bool>()),
        (1u64..=lim::TILE_BYTES.max, 0usize..2, 0.0f64..=lim::BANDWIDTH.max, 0.0f64..=lim::LATENCY.max, 0usize..3),
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
                    preset: PRESETS[preset].id.to_owned(),
                    read,
                    bandwidth_gib_s,
                    latency_ns,
                    compare: commlab_api::swizzle::COMPARES[compare].0.to_owned(),
                    ..SwizzleParams::default()
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
        (1u64..=20, any::<bool>(), any::<bool>(), proptest::collection::vec(0u32..12, 0..5), 2u64..=64),
        (any::<bool>(), any::<bool>(), 0u64..=1 << 20, 0usize..3, 0usize..Routing::ALL.len()),
    )
        .prop_map(
            |(
                (size, rate, seed, encoding, algorithm, tile),
                (judge, threshold, hop_ticks, overhead_ticks, compute_ticks, skew_ticks),
                (barriers, contention, connected, mut flips, combining_k),
                (pattern, heat, uq_k, links, routing),
            )| {
                // Links of this mesh only: a link with others is refused with a notice.
                let link_count = 2 * size * (size - 1);
                flips.retain(|&l| u64::from(l) < link_count);
                flips.sort_unstable();
                flips.dedup();
                MeshParams {
                    request: MeshRequest {
                        size,
                        rate,
                        seed,
                        connected,
                        flips,
                        algorithm: Algorithm::ALL[algorithm].id().to_owned(),
                        encoding: Encoding::ALL[encoding].id().to_owned(),
                        tile,
                        judge: Judge::ALL[judge].id().to_owned(),
                        threshold,
                        barriers,
                        hop_ticks,
                        overhead_ticks,
                        compute_ticks,
                        skew_ticks,
                        contention,
                        combining_k,
                        routing: Routing::ALL[routing].id().to_owned(),
                    },
                    pattern,
                    heat,
                    uq_k,
                    uq_links: LinkSetDefinition::ALL[links],
                }
            },
        )
}

fn any_lab() -> impl Strategy<Value = LabParams> {
    (1u64..=20, 4u64..=64, 1u64..=10, 2u64..=16, 0usize..Routing::ALL.len()).prop_map(
        |(seeds, max_size, barriers, uq_size, routing)| LabParams {
            sweep: commlab_api::lab::LabRequest { seeds, max_size, barriers, routing: Routing::ALL[routing] },
            uq_size,
        },
    )
}

/// Any state a link can carry: one view's state, the others at their defaults.
fn any_params() -> impl Strategy<Value = Params> {
    let shell = (any::<bool>(), 0usize..3, 0u64..=STEP.max);
    let base = |view, (embed, theme, step): (bool, usize, u64)| Params {
        view,
        embed,
        theme: ThemeChoice::ALL[theme],
        step: if view.entry().animated { step } else { 0 },
        ..Params::default()
    };
    prop_oneof![
        (shell.clone(), any_model()).prop_map(move |(s, model)| Params { model, ..base(View::Model, s) }),
        (shell.clone(), any_tree()).prop_map(move |(s, tree)| Params { tree, ..base(View::Tree, s) }),
        (shell.clone(), any_pipeline()).prop_map(move |(s, pipeline)| Params { pipeline, ..base(View::Pipeline, s) }),
        (shell, any_mesh()).prop_map(move |(s, mesh)| Params { mesh, ..base(View::Mesh, s) }),
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
    fn lab_round_trip(lab in any_lab()) {
        let pairs = write(&lab);
        let (back, notices) = read::<LabParams>(&pairs, &Link::default());
        prop_assert!(notices.is_empty(), "{pairs:?}: {notices:?}");
        prop_assert_eq!(back, lab);
    }

    #[test]
    fn swizzle_round_trip(swizzle in any_swizzle(), step in 0u64..=STEP.max, on_network in any::<bool>()) {
        let mut state = SwizzleState { swizzle, step, embed: false };
        state.swizzle.on_network = on_network;
        let pairs = write(&state);
        let (back, notices) = read::<SwizzleState>(&pairs, &Link::default());
        prop_assert!(notices.is_empty(), "{pairs:?}: {notices:?}");
        prop_assert_eq!(back, state);
    }

    #[test]
    fn any_string_decodes_without_panic(query in ".{0,200}") {
        let _ = open(&query);
    }

    #[test]
    fn any_key_value_pairs_decode_without_panic(
        pairs in proptest::collection::vec(("(v|view|p|n|m|t_start|t_byte|max_pieces|embed|theme|collective|mode|op|seed|padded|step|elements|coll|off|map|t0|t1|grid|[a-z]{1,4})", "\\PC{0,30}"), 0..12)
    ) {
        let query: String = form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
        let (params, _, _) = open(&query);
        // Whatever was read is a valid configuration.
        prop_assert!(params.model.request.config().is_ok());
    }
}

/// The codec's soak test: 10^6 random and mutated queries over every view
/// (`scripts/test.sh` runs it in release: `cargo test --release -p
/// commlab-web soak -- --ignored`). `COMMLAB_SOAK_SEED` and
/// `COMMLAB_SOAK_QUERIES` override the defaults; a failure prints the seed
/// and the query.
mod soak {
    use super::*;

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

    /// A value for `spec`: valid, at or just past an end, or junk.
    fn value(rng: &mut Rng, spec: &Spec) -> String {
        match (spec, rng.below(4)) {
            (_, 0) => (*rng.pick(JUNK)).to_owned(),
            (Spec::Int(r), _) => match rng.below(5) {
                0 => r.min.to_string(),
                1 => r.max.to_string(),
                2 => r.min.saturating_sub(1).to_string(),
                3 => r.max.saturating_add(1).to_string(),
                _ => (r.min + rng.next() % (r.max - r.min).saturating_add(1)).to_string(),
            },
            (Spec::Real(r), _) => match rng.below(5) {
                0 => r.min.to_string(),
                1 => r.max.to_string(),
                2 => (r.min - 1e-9 - r.min.abs() * 1e-9).to_string(),
                3 => (r.max * 1.000_001 + 1e-9).to_string(),
                _ => (r.min + (r.max - r.min) * (rng.next() % 1000) as f64 / 999.0).to_string(),
            },
            (Spec::Choice(ids), k) => {
                let id = (*rng.pick(ids)).to_owned();
                if k == 1 {
                    id.to_uppercase()
                } else {
                    id
                }
            }
            (Spec::Flag, _) => (*rng.pick(&["0", "1", "true", "false", "on", "TRUE"])).to_owned(),
            (Spec::Text(max), _) => {
                let n = match rng.below(64) {
                    0 => *max,
                    1 => max + 1,
                    _ => rng.below(40),
                };
                let alphabet: Vec<char> = "0123456789,- x;ü".chars().collect();
                (0..n).map(|_| *rng.pick(&alphabet)).collect()
            }
            (Spec::Custom, _) => {
                let alphabet: Vec<char> = "0123456789,.- /xabcdefghijklmnoprstuvwy".chars().collect();
                let n = rng.below(24);
                (0..n).map(|_| *rng.pick(&alphabet)).collect()
            }
        }
    }

    /// Whether `text` is a valid value of `spec` (`None`: judged by the
    /// view's own rules): the test's own reading of the rules
    /// (`docs/links.md`), not the codec's.
    fn valid(spec: &Spec, text: &str) -> Option<bool> {
        Some(match spec {
            Spec::Int(r) => text.trim().parse::<u64>().is_ok_and(|v| v >= r.min && v <= r.max),
            Spec::Real(r) => text.trim().parse::<f64>().is_ok_and(|v| v.is_finite() && v >= r.min && v <= r.max),
            Spec::Choice(ids) => ids.contains(&text),
            Spec::Flag => matches!(text, "0" | "1" | "true" | "false"),
            Spec::Text(max) => text.chars().count() <= *max,
            Spec::Custom => return None,
        })
    }

    /// One query: either built from fields (with the pairs it holds), or a
    /// valid query with its bytes mutated (no pairs to judge).
    fn query(rng: &mut Rng) -> (String, Vec<(String, String)>) {
        let view = *rng.pick(&View::ALL);
        let mut pairs: Vec<(String, String)> = Vec::new();
        if rng.below(8) != 0 {
            pairs.push(("v".into(), (*rng.pick(&["3", "3", "2", "1", "4", "5", ""])).into()));
        }
        pairs.push(("view".into(), if rng.below(20) == 0 { "grid".into() } else { view.id().into() }));
        let own = view_specs(view);
        for _ in 0..rng.below(own.len() + 3) {
            let (name, spec) = rng.pick(&own);
            pairs.push(((*name).into(), value(rng, spec)));
        }
        let other = view_specs(*rng.pick(&View::ALL));
        if rng.below(4) == 0 {
            let (name, spec) = rng.pick(&other);
            pairs.push(((*name).into(), value(rng, spec)));
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
        // (A lazy view's written pairs are checked to read back by `open`.)
        let (params, notices, _) = open(text);
        let canonical = to_query(&params);
        let (mut again, again_notices) = from_query(&canonical);
        again.link = params.link;
        if again != params || !again_notices.is_empty() || to_query(&again) != canonical {
            return Err(format!("re-encoding is not canonical: {canonical} gives {again_notices:?}"));
        }
        // The unknown-key notice names the first five and counts the rest.
        let named = |key: &str| {
            notices.iter().any(|n| {
                n.param == key
                    || n.message.contains(&quoted(key))
                    || (n.message.starts_with("ignored unknown") && n.message.ends_with(" more"))
            })
        };
        let view = pairs.iter().rev().find(|(k, _)| k == "view").and_then(|(_, v)| View::from_id(v));
        let own = view_specs(view.unwrap_or_default());
        for (key, value) in pairs {
            let spec = own.iter().find(|(n, _)| n == key).map(|(_, s)| s);
            let invalid = match key.as_str() {
                "v" => Some(!crate::codec::known_version(value)),
                "view" => Some(View::from_id(value).is_none()),
                "embed" => Some(!matches!(value.as_str(), "0" | "1" | "true" | "false")),
                "theme" => Some(ThemeChoice::from_id(value).is_none()),
                _ => match spec {
                    Some(spec) => valid(spec, value).map(|v| !v),
                    // A key this view does not read.
                    None => Some(!key.starts_with("__commlab_")),
                },
            };
            let Some(invalid) = invalid else { continue };
            if invalid && !named(key) {
                return Err(format!("{key}={value:?} is invalid but no notice names {key:?}: {notices:?}"));
            }
            // (A v=1 or v=2 link may get a version note on `v`: not a rejection.)
            let note = key == "v" && matches!(value.as_str(), "1" | "2");
            if !invalid
                && !note
                && notices.iter().any(|n| n.param == *key)
                && !pairs.iter().any(|(k, v)| k == key && v != value)
            {
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

/// A refusal reads as one sentence: a reader's own message that names the
/// value is not wrapped in a second "… is not …" (`net`, `ncclv`).
#[test]
fn a_refusal_names_the_value_once() {
    let read = |q: &str| {
        let pairs = pairs(q);
        read::<ChooserParams>(&pairs, &Link::default()).1
    };
    let net = read("net=nodes%3A2000x8");
    assert_eq!(net.len(), 1, "{net:?}");
    assert!(net[0].message.starts_with("\"nodes:2000x8\" has 16000 hosts: expected"), "{}", net[0].message);
    assert_eq!(net[0].message.matches("nodes:2000x8").count(), 1, "{}", net[0].message);
    let v = read("ncclv=1.0");
    assert!(v[0].message.starts_with("version \"1.0\": expected current"), "{}", v[0].message);
    assert!(v[0].message.ends_with("; using the current release"), "{}", v[0].message);
    let p = read("p=-3");
    assert!(p[0].message.starts_with("\"-3\" is not an integer"), "{}", p[0].message);
}

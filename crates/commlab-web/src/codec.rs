//! The one URL codec (`docs/links.md`). Each view owns a table of its URL
//! fields ([`Field`], in its `params.rs`); [`read`] and [`write`] turn the
//! view's pairs into its state and back, and the shell's [`from_query`] and
//! [`to_query`] add the keys every link shares: `v`, `view`, `step` (views
//! that animate), `embed` and `theme`.
//!
//! Format `v=N` ([`VERSION`]): `v=N&view=<id>` first, then only the view's fields that
//! differ from their defaults (names are scoped by the view: `p` is the
//! model's `p` in `view=model` and the tree's in `view=tree`), then `step`,
//! `embed=1` and `theme=<id>` when set. A repeated key takes its last value.
//! Every problem becomes one [`Notice`] naming the parameter, in one wording:
//! `"value" is not <what is accepted>; using <default>`. Keys the view does
//! not read are named together in one notice. Flags are written `1`/`0` and
//! read as `1`, `0`, `true` or `false`. Ranges come from
//! `commlab_core::limits`, so a notice states the same range as the core's
//! and the api's errors.
//!
//! A lazy view's pairs are kept by the shell as text ([`Params::lazy`]) and
//! read by the lazy bundle with the same [`read`].

use crate::state::{Params, ThemeChoice};
use crate::views::View;
use commlab_core::limits::{IntRange, RealRange};

/// The link format this build writes. It reads every older version's links too, with
/// their old rules where their outcome changed (`docs/links.md`, "Versioning").
pub const VERSION: u32 = commlab_api::LINK_VERSION;

/// A problem found while reading a link, shown to the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The parameter's name as it appears in the URL.
    pub param: String,
    /// What was wrong and what was used instead.
    pub message: String,
}

impl Notice {
    /// A notice on `param`.
    pub fn new(param: &str, message: impl Into<String>) -> Notice {
        Notice { param: param.chars().take(40).collect(), message: message.into() }
    }

    /// `value` of `param` refused: `"value" is not <expected>; using <used>`.
    pub fn refused(param: &str, value: &str, expected: &str, used: &str) -> Notice {
        Notice::new(param, format!("{} is not {expected}; using {used}", quoted(value)))
    }
}

/// What a link says besides the view's own pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// The link's version (`v=`; a link without one is read as the current
    /// version): views whose outcome changed since then say so.
    pub version: u32,
}

impl Default for Link {
    fn default() -> Self {
        Link { version: CURRENT }
    }
}

impl Link {
    /// A `v=1` link, older than the tournament barrier's single-level wake-up.
    pub fn v1(self) -> bool {
        self.version == 1
    }

    /// A link older than the paper's routing rule (`v=1`, `v=2`): its barrier
    /// runs open with `routing=shortest`, the rule they were made with.
    pub fn before_paper_routing(self) -> bool {
        self.version < 3
    }

    /// A link older than the NIC window (`v` ≤ 3): its network runs open
    /// with no window (`nicw=0`), every ready send at once, as they were made.
    pub fn before_nic_window(self) -> bool {
        self.version < 4
    }

    /// A link older than network mode's shared defaults (`v` ≤ 4): a
    /// Schedule link on a network without `preset` opens with LogGOPSim's
    /// (o = 1500, g = 1000, rendezvous above 64 KiB), as it was made.
    pub fn before_network_defaults(self) -> bool {
        self.version < 5
    }
}

/// [`VERSION`] as a number.
pub const CURRENT: u32 = VERSION;

/// Whether `value` is a link version this build reads: `1` … [`CURRENT`],
/// written plainly.
pub fn known_version(value: &str) -> bool {
    (1..=CURRENT).any(|k| value == k.to_string())
}

/// `?v=<VERSION>&view=<view>` and the rest of a link: every link the page
/// writes by hand starts here, so a version bump reaches them all.
pub fn link(view: &str, rest: &str) -> String {
    if rest.is_empty() {
        format!("?v={VERSION}&view={view}")
    } else {
        format!("?v={VERSION}&view={view}&{rest}")
    }
}

/// How a field reads and writes its value in the view's state `S`.
pub enum Kind<S> {
    /// An integer in a range.
    Int(IntRange, fn(&S) -> u64, fn(&mut S, u64)),
    /// A real number in a range.
    Real(RealRange, fn(&S) -> f64, fn(&mut S, f64)),
    /// One of a closed set of ids.
    Choice(fn() -> Vec<&'static str>, fn(&S) -> &str, fn(&mut S, &str)),
    /// A switch.
    Flag(fn(&S) -> bool, fn(&mut S, bool)),
    /// Free text up to a length (checked in depth by the view or the api).
    Text(usize, fn(&S) -> Option<&str>, fn(&mut S, Option<String>)),
    /// Anything else.
    Custom {
        /// The value as URL text, when it differs from the default.
        write: fn(&S) -> Option<String>,
        /// Sets the value, or says what is accepted.
        read: fn(&mut S, &str) -> Result<(), String>,
        /// What is used instead of a refused value.
        used: &'static str,
    },
}

/// One URL field of a view: its name and how it reads and writes.
pub struct Field<S> {
    /// The key in the URL.
    pub name: &'static str,
    /// Its kind and accessors.
    pub kind: Kind<S>,
}

/// A view's state as a link carries it.
pub trait ViewState: Default + Clone + PartialEq + 'static {
    /// The view's URL fields, in the order they are written.
    const FIELDS: &'static [Field<Self>];
    /// Keys read before the others: their values decide what the others mean.
    const FIRST: &'static [&'static str] = &[];

    /// Checks across fields, once every pair is read. `read` names the
    /// fields whose values were accepted.
    fn finish(&mut self, _read: &[&'static str], _link: &Link, _notices: &mut Vec<Notice>) {}
}

/// Shows at most 40 characters of a rejected value, quoted and escaped, so a
/// hostile link cannot flood or spoof the notice.
pub fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        shown.push('…');
    }
    format!("{shown:?}")
}

/// Reads a flag as every link writes and reads it.
pub fn flag(text: &str) -> Option<bool> {
    match text {
        "1" | "true" => Some(true),
        "0" | "false" => Some(false),
        _ => None,
    }
}

fn bit(b: bool) -> String {
    if b { "1" } else { "0" }.to_owned()
}

impl<S: ViewState> Field<S> {
    /// The field's value as URL text, when it differs from the default.
    fn encode(&self, state: &S, defaults: &S) -> Option<String> {
        match &self.kind {
            Kind::Int(_, get, _) => (get(state) != get(defaults)).then(|| get(state).to_string()),
            Kind::Real(_, get, _) => (get(state) != get(defaults)).then(|| get(state).to_string()),
            Kind::Choice(_, get, _) => (get(state) != get(defaults)).then(|| get(state).to_owned()),
            Kind::Flag(get, _) => (get(state) != get(defaults)).then(|| bit(get(state))),
            Kind::Text(_, get, _) => get(state).map(str::to_owned),
            Kind::Custom { write, .. } => write(state),
        }
    }

    /// Sets the field from URL text, or says what is accepted.
    fn decode(&self, state: &mut S, text: &str) -> Result<(), String> {
        match &self.kind {
            Kind::Int(range, _, set) => match text.trim().parse::<u64>() {
                Ok(v) if range.contains(v) => {
                    set(state, v);
                    Ok(())
                }
                _ => Err(range.to_string()),
            },
            Kind::Real(range, _, set) => match text.trim().parse::<f64>() {
                Ok(v) if range.contains(v) => {
                    set(state, v);
                    Ok(())
                }
                _ => Err(range.to_string()),
            },
            Kind::Choice(ids, _, set) => {
                let ids = ids();
                if ids.contains(&text) {
                    set(state, text);
                    Ok(())
                } else {
                    Err(format!("one of: {}", ids.join(", ")))
                }
            }
            Kind::Flag(_, set) => flag(text).map(|v| set(state, v)).ok_or_else(|| "0 or 1".to_owned()),
            Kind::Text(max, _, set) => {
                if text.chars().count() > *max {
                    Err(format!("a text of at most {max} characters"))
                } else {
                    set(state, Some(text.to_owned()).filter(|t| !t.trim().is_empty()));
                    Ok(())
                }
            }
            Kind::Custom { read, .. } => read(state, text),
        }
    }

    /// What is used instead of a refused value: the default, as URL text.
    fn default_text(&self) -> String {
        let defaults = S::default();
        match &self.kind {
            Kind::Int(_, get, _) => get(&defaults).to_string(),
            Kind::Real(_, get, _) => get(&defaults).to_string(),
            Kind::Choice(_, get, _) => get(&defaults).to_owned(),
            Kind::Flag(get, _) => bit(get(&defaults)),
            Kind::Text(..) => "none".to_owned(),
            Kind::Custom { used, .. } => (*used).to_owned(),
        }
    }
}

impl<S> Field<S> {
    /// Whether the field is a number (integer or real) and its accepted range.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        match &self.kind {
            Kind::Int(r, ..) => Some((r.min as f64, r.max as f64)),
            Kind::Real(r, ..) => Some((r.min, r.max)),
            _ => None,
        }
    }

    /// Whether the field takes integers only.
    pub fn integer(&self) -> bool {
        matches!(self.kind, Kind::Int(..))
    }

    /// The field's value as a number (0 for a field that is not one).
    pub fn number(&self, state: &S) -> f64 {
        match &self.kind {
            Kind::Int(_, get, _) => get(state) as f64,
            Kind::Real(_, get, _) => get(state),
            _ => 0.0,
        }
    }

    /// Sets a number field from a number box's value (already checked against [`Field::bounds`]).
    pub fn set_number(&self, state: &mut S, value: f64) {
        match &self.kind {
            Kind::Int(_, _, set) => set(state, value as u64),
            Kind::Real(_, _, set) => set(state, value),
            _ => {}
        }
    }
}

/// The field `name` of `S`.
///
/// # Panics
/// When `S` has no field `name` (a programming error the browser suite
/// would meet at once).
pub fn field<S: ViewState>(name: &str) -> &'static Field<S> {
    S::FIELDS.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no URL field {name}"))
}

/// Reads a view's own pairs (the shell's keys taken out). Never fails: each
/// problem is a [`Notice`] and the default stays.
pub fn read<S: ViewState>(pairs: &[(String, String)], link: &Link) -> (S, Vec<Notice>) {
    let mut state = S::default();
    let mut notices = Vec::new();
    let mut accepted: Vec<&'static str> = Vec::new();
    let mut unknown: Vec<&str> = Vec::new();
    let first = pairs.iter().filter(|(k, _)| S::FIRST.contains(&k.as_str()));
    let rest = pairs.iter().filter(|(k, _)| !S::FIRST.contains(&k.as_str()));
    for (key, value) in first.chain(rest) {
        match S::FIELDS.iter().find(|f| f.name == key) {
            Some(field) => match field.decode(&mut state, value) {
                Ok(()) => accepted.push(field.name),
                Err(expected) => notices.push(Notice::refused(key, value, &expected, &field.default_text())),
            },
            None if key.starts_with("__commlab_") => {}
            None => {
                if !unknown.contains(&key.as_str()) {
                    unknown.push(key);
                }
            }
        }
    }
    state.finish(&accepted, link, &mut notices);
    if !unknown.is_empty() {
        let shown: Vec<String> = unknown.iter().take(5).map(|k| quoted(k)).collect();
        let more = if unknown.len() > 5 { format!(" and {} more", unknown.len() - 5) } else { String::new() };
        let plural = if unknown.len() > 1 { "s" } else { "" };
        // One notice names them all; the name column holds the first.
        notices.push(Notice::new(unknown[0], format!("ignored unknown parameter{plural} {}{more}", shown.join(", "))));
    }
    (state, notices)
}

/// The view's pairs that differ from their defaults, in its fields' order.
pub fn write<S: ViewState>(state: &S) -> Vec<(String, String)> {
    let defaults = S::default();
    S::FIELDS.iter().filter_map(|f| f.encode(state, &defaults).map(|v| (f.name.to_owned(), v))).collect()
}

/// The accepted `(min, max)` of the numeric field `name` of `S`: the views'
/// number fields take their ranges from here, so the codec and the controls
/// read the same `limits` entry.
///
/// # Panics
/// When `S` has no numeric field `name` (a programming error the browser
/// suite would meet at once).
pub fn range<S: ViewState>(name: &str) -> (f64, f64) {
    S::FIELDS
        .iter()
        .find_map(|f| match &f.kind {
            Kind::Int(r, ..) if f.name == name => Some((r.min as f64, r.max as f64)),
            Kind::Real(r, ..) if f.name == name => Some((r.min, r.max)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no numeric URL field {name}"))
}

/// Steps a link may name (clipped to the run's length when shown).
pub const STEP: IntRange = IntRange { name: "step", min: 0, max: 1 << 24 };

/// Serialises `params` (without a leading `?`): the version, the view, the
/// view's own fields that differ from their defaults, the step, embed and theme.
pub fn to_query(params: &Params) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    out.append_pair("v", &VERSION.to_string());
    out.append_pair("view", params.view.id());
    let entry = params.view.entry();
    match params.view.page() {
        Some(page) => {
            out.extend_pairs((page.write)(params));
        }
        None => {
            out.extend_pairs(&params.lazy);
        }
    }
    if entry.animated && params.step != 0 {
        out.append_pair("step", &params.step.to_string());
    }
    if params.embed {
        out.append_pair("embed", "1");
    }
    if params.theme != ThemeChoice::default() {
        out.append_pair("theme", params.theme.id());
    }
    out.finish()
}

/// The pairs of a query string (with or without the leading `?`).
pub fn pairs(query: &str) -> Vec<(String, String)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

/// Reads a query string. Never fails: every problem becomes a [`Notice`] and
/// the default is used for that parameter. The view's own pairs are read by
/// its table ([`read`]); a lazy view's are kept for its bundle, which reads
/// them with the same codec.
pub fn from_query(query: &str) -> (Params, Vec<Notice>) {
    let mut params = Params::default();
    let mut notices = Vec::new();
    let pairs = pairs(query);
    // The view decides what the other names mean, so it is read first.
    for (_, value) in pairs.iter().filter(|(k, _)| k == "view") {
        if let Some(view) = View::from_id(value) {
            params.view = view;
        } else {
            let ids: Vec<&str> = View::ALL.iter().map(|v| v.id()).collect();
            let expected = format!("one of: {}", ids.join(", "));
            notices.push(Notice::refused("view", value, &expected, View::default().id()));
        }
    }
    let entry = params.view.entry();
    let mut own = Vec::new();
    for (key, value) in &pairs {
        match key.as_str() {
            "v" if known_version(value) => {
                params.link.version = value.parse().unwrap_or(CURRENT);
            }
            "v" => {
                notices.push(Notice::refused(
                    "v",
                    value,
                    &format!("a link version this build reads (v=1 to v={VERSION})"),
                    &format!("v={VERSION}"),
                ));
            }
            "view" => {}
            "embed" => match flag(value) {
                Some(b) => params.embed = b,
                None => notices.push(Notice::refused("embed", value, "0 or 1", "0")),
            },
            "theme" => match ThemeChoice::from_id(value) {
                Some(theme) => params.theme = theme,
                None => notices.push(Notice::refused("theme", value, "one of: auto, light, dark", "auto")),
            },
            "step" if entry.animated => match value.trim().parse::<u64>() {
                Ok(v) if STEP.contains(v) => params.step = v,
                _ => notices.push(Notice::refused("step", value, &STEP.to_string(), "0")),
            },
            _ => own.push((key.clone(), value.clone())),
        }
    }
    match params.view.page() {
        Some(page) => {
            let link = params.link;
            notices.extend((page.read)(&mut params, &own, &link));
        }
        None => params.lazy = own,
    }
    (params, notices)
}

#[cfg(test)]
#[path = "codec_tests.rs"]
mod codec_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::model::params::ModelParams;

    fn check(query: &str, expect: &Params, expect_notices: &[&str]) {
        let (params, notices) = from_query(query);
        assert_eq!(&params, expect, "{query}");
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, expect_notices, "{query}: {notices:?}");
    }

    fn model(units: u64, bytes: u64) -> Params {
        let mut p = Params::default();
        p.model.request.units = units;
        p.model.request.bytes = bytes;
        p
    }

    #[test]
    fn the_shell_keeps_lazy_views_pairs_as_text() {
        let (p, notices) = from_query("v=2&view=lab&seeds=2&zz=1&theme=dark");
        assert!(notices.is_empty(), "the lazy bundle reports its own: {notices:?}");
        assert_eq!(p.lazy, vec![("seeds".to_owned(), "2".to_owned()), ("zz".to_owned(), "1".to_owned())]);
        assert_eq!(to_query(&p), format!("v={VERSION}&view=lab&seeds=2&zz=1&theme=dark"));
        let (p, _) = from_query("view=schedule&coll=barrier&mesh=8");
        assert_eq!(to_query(&p), format!("v={VERSION}&view=schedule&coll=barrier&mesh=8"));
        let (p, _) = from_query("view=tree&p=9");
        assert!(p.lazy.is_empty());
        assert_eq!(p.tree.units, 9);
    }

    #[test]
    fn defaults_are_omitted() {
        assert_eq!(to_query(&Params::default()), format!("v={VERSION}&view=model"));
        let mut p = Params::default();
        p.model.request.units = 128;
        p.model.request.t_byte = 0.0005;
        p.embed = true;
        p.theme = ThemeChoice::Dark;
        assert_eq!(to_query(&p), format!("v={VERSION}&view=model&p=128&t_byte=0.0005&embed=1&theme=dark"));
    }

    #[test]
    fn reads_links() {
        let p = model(8, 4096);
        check("?v=1&view=model&p=8&n=4096", &Params { link: Link { version: 1 }, ..p.clone() }, &[]);
        check("p=8&n=4096&__commlab_no_worker=1", &p, &[]);
        let (read, notices) = from_query("p=8&n=4096&grid=3&future_param=7&grid=4&rows=4");
        assert_eq!((read.model.request.units, read.model.request.bytes), (8, 4096));
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert_eq!(notices[0].param, "grid");
        assert_eq!(notices[0].message, "ignored unknown parameters \"grid\", \"future_param\", \"rows\"");
        check("p=3&p=8&n=4096", &p, &[]);
    }

    #[test]
    fn invalid_values_are_reported_by_name_and_defaulted() {
        let (params, notices) = from_query("p=-3&n=abc&v=999");
        assert_eq!(params, Params::default());
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, ["v", "p", "n"]);
        assert_eq!(notices[1].message, "\"-3\" is not an integer from 1 to 1 048 576; using 64");
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
        // One flag spelling everywhere: 1, 0, true, false.
        let (p, notices) = from_query("view=tree&padded=true&embed=true");
        assert!(notices.is_empty() && p.tree.padded && p.embed, "{notices:?}");
    }

    #[test]
    fn hostile_values_are_quoted_and_truncated() {
        let long = "x".repeat(10_000);
        let (_, notices) = from_query(&format!("p={long}"));
        assert!(notices[0].message.len() < 200);
        let (_, notices) = from_query("p=%22%0A%3Cb%3E");
        assert!(notices[0].message.starts_with("\"\\\"\\n<b>\""), "{}", notices[0].message);
    }

    /// Older links open in this build; where their outcome changed a notice
    /// says exactly what changed; elsewhere they open silently. `v=1`: the
    /// tournament's wake-up (mesh view, lab). `v=1` and `v=2`: barrier runs
    /// open with `routing=shortest`, the rule they were made with.
    #[test]
    fn old_links_open_and_say_what_changed() {
        for (query, tournament, routing) in [
            ("v=1&view=mesh&algorithm=tournament&size=12", true, true),
            ("v=1&view=mesh&algorithm=ms&size=12", false, true),
            ("v=1&view=tree&p=12", false, false),
            ("v=2&view=mesh&algorithm=tournament", false, true),
            ("v=2&view=mesh&routing=paper", false, false),
            ("v=3&view=mesh&algorithm=tournament", false, false),
            ("view=mesh", false, false),
        ] {
            let (p, notices) = from_query(query);
            assert_eq!(notices.len(), usize::from(tournament) + usize::from(routing), "{query}: {notices:?}");
            assert!(notices.iter().all(|n| n.param == "v"), "{query}: {notices:?}");
            assert_eq!(notices.iter().any(|n| n.message.contains("single-level wake-up")), tournament, "{query}");
            assert_eq!(notices.iter().any(|n| n.message.contains("routing=shortest")), routing, "{query}");
            let expect = if routing || query.contains("routing=shortest") { "shortest" } else { "paper" };
            assert_eq!(p.mesh.request.routing, expect, "{query}");
            let written = to_query(&p);
            assert!(written.starts_with(&format!("v={VERSION}&")), "the page writes the current version: {written}");
            // The written link reproduces the run without a notice.
            assert_eq!(written.contains("routing=shortest"), routing, "{written}");
            let (again, notices) = from_query(&written);
            assert!(notices.is_empty() && again.mesh == p.mesh, "{written}: {notices:?}");
        }
        // The lab is lazy: the shell hands it the link's version.
        let (p, notices) = from_query("v=1&view=lab&seeds=2");
        assert!(notices.is_empty() && p.link.v1());
        let (lab, notices) = read::<crate::views::lab::params::LabParams>(&p.lazy, &p.link);
        assert_eq!(notices.len(), 2, "{notices:?}");
        assert!(notices[0].message.contains("single-level wake-up"));
        assert!(notices[1].message.contains("routing=shortest"));
        assert_eq!(lab.sweep.routing, commlab_core::barrier::mesh::Routing::Shortest);
        let (p, _) = from_query("v=3&view=lab&seeds=2");
        let (lab, notices) = read::<crate::views::lab::params::LabParams>(&p.lazy, &p.link);
        assert!(notices.is_empty() && lab.sweep.routing == commlab_core::barrier::mesh::Routing::Paper);
        let (_, notices) = from_query(&format!("v={}&view=tree", CURRENT + 1));
        assert_eq!(notices[0].param, "v");
    }

    /// A network link made before the NIC window (`v` ≤ 3) opens with no
    /// window (`nicw=0`), as it was made, and writes it; a `v=4` link has
    /// the window of 1 unless it says otherwise; `nicw` is checked.
    #[test]
    fn old_network_links_keep_no_window() {
        use crate::views::schedule::params::ScheduleParams;
        let pairs = super::pairs("coll=allreduce/ring&p=8&bytes=8192&net=ring:8");
        for (version, window) in [(1, 0), (2, 0), (3, 0), (4, 1)] {
            let (s, notices) = read::<ScheduleParams>(&pairs, &Link { version });
            assert!(notices.is_empty(), "{notices:?}");
            assert_eq!(s.network.nic_window, window, "v={version}");
            let written = write(&s);
            let nicw = written.iter().find(|(k, _)| k == "nicw").map(|(_, v)| v.as_str());
            assert_eq!(nicw, (window == 0).then_some("0"), "v={version}: {written:?}");
            // The written link read as the current version is the same run.
            let (again, _) = read::<ScheduleParams>(&written, &Link::default());
            assert_eq!(again.network, s.network, "v={version}");
        }
        // An old link that names its window keeps it; without a network nothing changes.
        let (s, _) = read::<ScheduleParams>(&super::pairs("net=ring:8&nicw=2"), &Link { version: 3 });
        assert_eq!(s.network.nic_window, 2);
        let (s, _) = read::<ScheduleParams>(&super::pairs("coll=reduce"), &Link { version: 3 });
        assert_eq!(s.network.nic_window, 1);
        let (_, notices) = read::<ScheduleParams>(&super::pairs("net=ring:8&nicw=2000"), &Link::default());
        assert_eq!(notices[0].param, "nicw", "{notices:?}");
    }

    /// A `v=2` mesh link gives the numbers it gave before the paper's rule
    /// existed, recorded with the build before it (b80b914: `commlab barrier
    /// --size 8 --algorithm dissemination --break-rate 0.3 --seed 5
    /// --connected --json`, the view's defaults otherwise): delays 74, 62 and
    /// 58 ticks, 6870 hops. The same link at `v=3` runs the paper's rule.
    #[test]
    fn a_v2_link_keeps_its_recorded_numbers() {
        let run = |query: &str| {
            let (p, _) = from_query(query);
            let summary = commlab_api::mesh::MeshSession::run(&p.mesh.request).unwrap().summary();
            let delays: Vec<Option<u64>> = summary.rows.iter().map(|r| r.delay).collect();
            let hops: u64 = summary.rows.iter().map(|r| r.hops).sum();
            let back: u64 = summary.rows.iter().map(|r| r.back_steps).sum();
            (delays, hops, back)
        };
        let old = "v=2&view=mesh&size=8&rate=0.3&seed=5&algorithm=dissemination";
        assert_eq!(run(old), (vec![Some(74), Some(62), Some(58)], 6870, 0));
        let (delays, hops, back) = run(&old.replace("v=2", "v=3"));
        assert_eq!((delays, hops), (vec![Some(249), Some(205), Some(204)], 16866));
        assert!(back > 0, "the paper's walks step back");
    }

    #[test]
    fn step_belongs_to_the_animated_views() {
        let (p, notices) = from_query("view=tree&step=3");
        assert!(notices.is_empty());
        assert_eq!((p.step, to_query(&p)), (3, format!("v={VERSION}&view=tree&step=3")));
        let (_, notices) = from_query("view=model&step=3");
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].message, "ignored unknown parameter \"step\"");
        let _: ModelParams = ModelParams::default();
    }
}

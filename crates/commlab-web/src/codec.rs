//! The one URL codec (`docs/links.md`), generic and a leaf of the crate (it
//! imports no view and no app state). Each view owns a table of its URL
//! fields ([`Field`], in its `params.rs`); [`read`] and [`write`] turn the
//! view's pairs into its state and back. The shell's `from_query` and
//! `to_query` ([`crate::state`]) add the keys every link shares: `v`,
//! `view`, `step` (views that animate), `embed` and `theme`.
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
//! A lazy view's pairs are kept by the shell as text (`Params::lazy`) and
//! read by the lazy bundle with the same [`read`].

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
        let shown = quoted(value);
        // A reader's own sentence that names the value already says what is wrong.
        if expected.contains(&shown) {
            return Notice::new(param, format!("{expected}; using {used}"));
        }
        Notice::new(param, format!("{shown} is not {expected}; using {used}"))
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

/// Said of a `v=1` link whose outcome includes the tournament barrier (the
/// mesh view's, and every lab chart's): [`Link::v1`].
pub const TOURNAMENT_CHANGED: &str = "this v=1 link is older than 2026-11-30: the tournament barrier now wakes every node from the champion directly (a single-level wake-up) instead of down its binomial tree, so its messages, hops and delays differ from what the link showed";

/// Said of a barrier link older than the paper's routing rule:
/// [`Link::before_paper_routing`].
pub const ROUTING_KEPT: &str = "this link is older than 2026-12-01, when the paper's routing rule (closest unvisited neighbour, a step back at a dead end) became the default; it opens with routing=shortest (greedy, then a shortest path from a dead end), the rule it was made with, so it shows the results it always showed";

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

/// Steps a link may name (`limits::STEP`).
pub const STEP: IntRange = commlab_core::limits::STEP;

/// The pairs of a query string (with or without the leading `?`).
pub fn pairs(query: &str) -> Vec<(String, String)> {
    let query = query.strip_prefix('?').unwrap_or(query);
    form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

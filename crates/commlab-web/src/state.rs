//! The playground's one source of truth: [`Params`], everything a link must
//! reproduce, the table of views ([`VIEWS`]) and the shell's link
//! ([`to_query`], [`from_query`]). Domain values only (no signals, no
//! components). Each view's part is its own state type, defined in the
//! view's `params.rs` and read and written by the generic [`crate::codec`];
//! the components are mounted by [`crate::views`], which reads this table.
//!
//! Imports go one way: `codec` (a leaf) ← each `views/*/params.rs` ← `state`
//! ← `views` (the components) ← `app`.

use crate::codec::{self, flag, known_version, Link, Notice, CURRENT, STEP, VERSION};
use crate::views::mesh::params::MeshParams;
use crate::views::model::params::ModelParams;
use crate::views::pipeline::params::PipelineParams;
use crate::views::tree::params::TreeParams;

/// A view of the playground.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// Binomial-tree reduction, broadcast and allreduce.
    Tree,
    /// Space-time diagram of the chain pipeline.
    Pipeline,
    /// Runtime model of the pipelined reduction.
    #[default]
    Model,
    /// Barrier on a mesh with broken links.
    Mesh,
    /// Barrier experiments.
    Lab,
    /// CommSwizzle schedule.
    Swizzle,
    /// A GOAL schedule simulated under LogGOPS, as a timeline.
    Schedule,
    /// The collective chooser: algorithms compared over message sizes, the
    /// winner map, the chunk optimizer.
    Chooser,
}

/// What every bundle knows of a view (plain data: the lazy bundles read it
/// without linking the views on the page).
pub struct Entry {
    /// The view.
    pub view: View,
    /// Stable id used in URLs (`view=model`).
    pub id: &'static str,
    /// Label of the switcher's tab.
    pub label: &'static str,
    /// What the view answers, one sentence (the first visit's orientation).
    pub answers: &'static str,
    /// The orientation's example: the pairs after `view=` (`codec::link` adds the version).
    pub example: &'static str,
    /// Shows the shell's animation `step` (and its link carries it).
    pub animated: bool,
    /// The lazy bundle it lives in (`views`: `lazy_main.rs`, `timeline`:
    /// `timeline_main.rs`): the shell keeps its URL pairs as text, the
    /// bundle reads them and mounts its component (`views::LAZY`). `None`:
    /// the view is on the page (`views::PAGES`).
    pub bundle: Option<&'static str>,
}

/// Every view, in the order of the switcher (and of [`View`]). The
/// Schedule and Swizzle views (both draw schedules on a network) and the
/// barrier lab share the `timeline` bundle; the Chooser (libraries, fits,
/// maps) has the `views` bundle to itself (BENCHMARKS.md says what each
/// bundle pays for).
pub const VIEWS: [Entry; 8] = [
    Entry {
        view: View::Tree,
        id: "tree",
        label: "Reduction tree",
        answers: "How a binomial tree combines p vectors in ⌈log₂ p⌉ rounds, value by value.",
        example: "p=8",
        animated: true,
        bundle: None,
    },
    Entry {
        view: View::Pipeline,
        id: "pipeline",
        label: "Pipeline",
        answers: "How cutting a vector into m pieces lets a chain of units overlap its messages.",
        example: "",
        animated: true,
        bundle: None,
    },
    Entry {
        view: View::Model,
        id: "model",
        label: "Runtime model",
        answers: "Which piece count m minimises the pipelined reduction's time T(n, p, m).",
        example: "",
        animated: false,
        bundle: None,
    },
    Entry {
        view: View::Mesh,
        id: "mesh",
        label: "Barrier mesh",
        answers: "How barriers route around broken links on a mesh, message by message.",
        example: "rate=0.1",
        animated: true,
        bundle: None,
    },
    Entry {
        view: View::Lab,
        id: "lab",
        label: "Barrier lab",
        answers: "How barrier delay grows with mesh size and break rate, beside the DLCT paper's claims.",
        example: "",
        animated: false,
        bundle: Some("timeline"),
    },
    Entry {
        view: View::Swizzle,
        id: "swizzle",
        label: "Swizzle schedule",
        answers: "How CommSwizzle spreads cores over ranks so that no rank is hit by every core at once.",
        example: "",
        animated: false,
        bundle: Some("timeline"),
    },
    Entry {
        view: View::Schedule,
        id: "schedule",
        label: "Schedule timeline",
        answers: "What a GOAL schedule does under LogGOPS, op by op, with LogGOPSim's numbers.",
        example: "",
        animated: false,
        bundle: Some("timeline"),
    },
    Entry {
        view: View::Chooser,
        id: "chooser",
        label: "Collective chooser",
        answers: "Which algorithm of a collective is fastest at each message size and rank count.",
        example: "coll=broadcast",
        animated: false,
        bundle: Some("views"),
    },
];

impl View {
    /// Every view, in the order of the view switcher.
    pub const ALL: [View; 8] = {
        let mut out = [View::Model; 8];
        let mut i = 0;
        while i < VIEWS.len() {
            out[i] = VIEWS[i].view;
            i += 1;
        }
        out
    };

    /// The view's entry in [`VIEWS`] (listed in the order of the enum, tested).
    pub const fn entry(self) -> &'static Entry {
        &VIEWS[self as usize]
    }

    /// Stable id used in URLs (`view=model`).
    pub fn id(self) -> &'static str {
        self.entry().id
    }

    /// Human label for the switcher.
    pub fn label(self) -> &'static str {
        self.entry().label
    }

    /// Whether the view lives in a lazy bundle.
    pub fn is_lazy(self) -> bool {
        self.entry().bundle.is_some()
    }

    /// The lazy bundle the view lives in (`""` for a view on the page). A
    /// `const fn`, so a lazy bundle links only its own views.
    pub const fn bundle(self) -> &'static str {
        match self.entry().bundle {
            Some(b) => b,
            None => "",
        }
    }

    /// The view with URL id `id`.
    pub fn from_id(id: &str) -> Option<View> {
        VIEWS.iter().find(|e| e.id == id).map(|e| e.view)
    }
}

/// The colour theme the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeChoice {
    /// Follow the system's `prefers-color-scheme`.
    #[default]
    Auto,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// Every choice, in menu order.
    pub const ALL: [ThemeChoice; 3] = [ThemeChoice::Auto, ThemeChoice::Light, ThemeChoice::Dark];

    /// Stable id used in URLs (`theme=dark`).
    pub fn id(self) -> &'static str {
        match self {
            ThemeChoice::Auto => "auto",
            ThemeChoice::Light => "light",
            ThemeChoice::Dark => "dark",
        }
    }

    /// The choice with URL id `id`.
    pub fn from_id(id: &str) -> Option<ThemeChoice> {
        ThemeChoice::ALL.into_iter().find(|t| t.id() == id)
    }

    /// Whether the page is dark, given what the system prefers.
    pub fn is_dark(self, system_prefers_dark: bool) -> bool {
        match self {
            ThemeChoice::Auto => system_prefers_dark,
            ThemeChoice::Light => false,
            ThemeChoice::Dark => true,
        }
    }
}

/// Steps per second offered by the playback's speed menu (the link's
/// `speed`): up to 2 000, so that a 64 × 64 barrier's 67 363 steps play in 34 s.
pub const SPEEDS: [f64; 9] = [0.5, 1.0, 2.0, 4.0, 8.0, 30.0, 120.0, 500.0, 2000.0];

/// The speed a link starts with.
pub const DEFAULT_SPEED: f64 = 2.0;

/// Steps per second of the animated views' playback.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speed(pub f64);

impl Default for Speed {
    fn default() -> Speed {
        Speed(DEFAULT_SPEED)
    }
}

/// Everything a shared link reproduces.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params {
    /// The view shown.
    pub view: View,
    /// Embed mode: the view alone, compact, with a link back.
    pub embed: bool,
    /// Colour theme.
    pub theme: ThemeChoice,
    /// What the opened link said of itself (its version); never written.
    pub link: Link,
    /// The animation step shown by the animated views (clipped to the run's length).
    pub step: u64,
    /// Their playback speed, steps per second ([`SPEEDS`]).
    pub speed: Speed,
    /// Runtime-model state.
    pub model: ModelParams,
    /// Reduction-tree state.
    pub tree: TreeParams,
    /// Pipeline state.
    pub pipeline: PipelineParams,
    /// Barrier mesh state.
    pub mesh: MeshParams,
    /// A lazy view's own URL pairs, kept verbatim: the lazy bundle reads and
    /// checks them, and reports them back as they change.
    pub lazy: Vec<(String, String)>,
}

impl Params {
    /// Reads the shown view's own pairs into its state (a lazy view's are
    /// kept as text for its bundle), with the notices of reading them.
    fn read_own(&mut self, own: Vec<(String, String)>) -> Vec<Notice> {
        fn into<S: codec::ViewState>(slot: &mut S, own: &[(String, String)], link: Link) -> Vec<Notice> {
            let (state, notices) = codec::read(own, &link);
            *slot = state;
            notices
        }
        let link = self.link;
        match self.view {
            View::Tree => into(&mut self.tree, &own, link),
            View::Pipeline => into(&mut self.pipeline, &own, link),
            View::Model => into(&mut self.model, &own, link),
            View::Mesh => into(&mut self.mesh, &own, link),
            View::Lab | View::Swizzle | View::Schedule | View::Chooser => {
                self.lazy = own;
                Vec::new()
            }
        }
    }

    /// The shown view's own pairs that differ from their defaults.
    fn write_own(&self) -> Vec<(String, String)> {
        match self.view {
            View::Tree => codec::write(&self.tree),
            View::Pipeline => codec::write(&self.pipeline),
            View::Model => codec::write(&self.model),
            View::Mesh => codec::write(&self.mesh),
            View::Lab | View::Swizzle | View::Schedule | View::Chooser => self.lazy.clone(),
        }
    }
}

/// Serialises `params` (without a leading `?`): the version, the view, the
/// view's own fields that differ from their defaults, the step, embed and theme.
pub fn to_query(params: &Params) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    out.append_pair("v", &VERSION.to_string());
    out.append_pair("view", params.view.id());
    let entry = params.view.entry();
    out.extend_pairs(params.write_own());
    if entry.animated && params.step != 0 {
        out.append_pair("step", &params.step.to_string());
    }
    if entry.animated && params.speed != Speed::default() {
        out.append_pair("speed", &params.speed.0.to_string());
    }
    if params.embed {
        out.append_pair("embed", "1");
    }
    if params.theme != ThemeChoice::default() {
        out.append_pair("theme", params.theme.id());
    }
    out.finish()
}

/// Reads a query string. Never fails: every problem becomes a [`Notice`] and
/// the default is used for that parameter. The view's own pairs are read by
/// its table ([`read`]); a lazy view's are kept for its bundle, which reads
/// them with the same codec.
pub fn from_query(query: &str) -> (Params, Vec<Notice>) {
    let mut params = Params::default();
    let mut notices = Vec::new();
    let pairs = codec::pairs(query);
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
            "speed" if entry.animated => match value.trim().parse::<f64>() {
                Ok(v) if SPEEDS.contains(&v) => params.speed = Speed(v),
                _ => {
                    let list: Vec<String> = SPEEDS.iter().map(f64::to_string).collect();
                    notices.push(Notice::refused("speed", value, &format!("one of: {}", list.join(", ")), "2"));
                }
            },
            "step" if entry.animated => match value.trim().parse::<u64>() {
                Ok(v) if STEP.contains(v) => params.step = v,
                _ => notices.push(Notice::refused("step", value, &STEP.to_string(), "0")),
            },
            _ => own.push((key.clone(), value.clone())),
        }
    }
    notices.extend(params.read_own(own));
    (params, notices)
}

#[cfg(test)]
#[path = "codec_tests.rs"]
mod codec_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{read, write, CURRENT};
    use crate::views::model::params::ModelParams;

    fn check(query: &str, expect: &Params, expect_notices: &[&str]) {
        let (params, notices) = from_query(query);
        assert_eq!(&params, expect, "{query}");
        let names: Vec<&str> = notices.iter().map(|n| n.param.as_str()).collect();
        assert_eq!(names, expect_notices, "{query}: {notices:?}");
    }

    /// The README lists every view with its one sentence, in the switcher's order.
    #[test]
    fn the_readme_lists_every_view() {
        let readme = include_str!("../../../README.md");
        let start = readme.find("<!-- views:begin -->\n").expect("marked section") + "<!-- views:begin -->\n".len();
        let end = readme.find("<!-- views:end -->").expect("marked section");
        let listed: Vec<String> =
            VIEWS.iter().map(|e| format!("- **{}** (`view={}`): {}\n", e.label, e.id, e.answers)).collect();
        assert_eq!(readme[start..end], listed.concat(), "the README's view list");
    }

    /// The playback speed rides in the link of an animated view, one of
    /// the menu's speeds; another value is refused and named.
    #[test]
    fn speed_round_trips_and_is_refused_off_the_menu() {
        let (p, notices) = from_query("view=mesh&speed=2000");
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(p.speed, Speed(2000.0));
        assert_eq!(to_query(&p), format!("v={VERSION}&view=mesh&speed=2000"));
        let (p, notices) = from_query("view=tree&speed=3");
        assert_eq!(p.speed, Speed::default());
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].param, "speed");
        assert!(notices[0].message.contains("one of: 0.5, 1, 2, 4, 8, 30, 120, 500, 2000"), "{}", notices[0].message);
        assert_eq!(to_query(&Params { speed: Speed(2.0), ..Params::default() }), format!("v={VERSION}&view=model"));
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
        let pairs = crate::codec::pairs("coll=allreduce/ring&p=8&bytes=8192&net=ring:8");
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
        let (s, _) = read::<ScheduleParams>(&crate::codec::pairs("net=ring:8&nicw=2"), &Link { version: 3 });
        assert_eq!(s.network.nic_window, 2);
        let (s, _) = read::<ScheduleParams>(&crate::codec::pairs("coll=reduce"), &Link { version: 3 });
        assert_eq!(s.network.nic_window, 1);
        let (_, notices) = read::<ScheduleParams>(&crate::codec::pairs("net=ring:8&nicw=2000"), &Link::default());
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

//! The update quantity of an adjustment (`docs/barrier-model.md`, "The update quantity"):
//! `UQ = 1 − |A ∩ B| / |A ∪ B|` over the link sets in use before (`A`) and
//! after (`B`) `round(K)`.
//!
//! Default link set: the *directed* links `u → v` traversed by the Gather
//! messages of one barrier (each child to its parent, routed on the intact
//! mesh). Variants: undirected links, and Gather + Release (parent to child too).

use super::encoding::{Numbering, Structure};
use super::mesh::{Breaks, Mesh, NodeId, Router, Routing};
use crate::limits::ConfigError;

pub use crate::limits::barrier::UQ_SIZE;

/// Which links count as "in use".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LinkSetDefinition {
    /// Count `u – v` once whatever the direction.
    pub undirected: bool,
    /// Count the Release messages (parent to child) too.
    pub with_release: bool,
}

impl LinkSetDefinition {
    /// Every definition the views offer: Gather links directed (the default),
    /// undirected, and directed Gather + Release links.
    pub const ALL: [LinkSetDefinition; 3] = [
        LinkSetDefinition { undirected: false, with_release: false },
        LinkSetDefinition { undirected: true, with_release: false },
        LinkSetDefinition { undirected: false, with_release: true },
    ];

    /// Stable id (URL `links=`, engine requests).
    pub fn id(self) -> &'static str {
        match (self.undirected, self.with_release) {
            (false, false) => "directed",
            (true, false) => "undirected",
            (false, true) => "gather-release",
            (true, true) => "undirected-gather-release",
        }
    }

    /// Human-readable name.
    pub fn label(self) -> &'static str {
        match (self.undirected, self.with_release) {
            (false, false) => "directed links of the Gather",
            (true, false) => "undirected links of the Gather",
            (false, true) => "directed links of Gather + Release",
            (true, true) => "undirected links of Gather + Release",
        }
    }
}

impl std::str::FromStr for LinkSetDefinition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // The views offer three definitions; undirected Gather + Release links (the CLI's
        // `--links undirected --phases gather-release`) parse too.
        let all =
            LinkSetDefinition::ALL.into_iter().chain([LinkSetDefinition { undirected: true, with_release: true }]);
        all.into_iter().find(|d| d.id() == s).ok_or_else(|| {
            let ids: Vec<&str> = LinkSetDefinition::ALL.iter().map(|d| d.id()).collect();
            format!("unknown link set {s:?}; expected one of: {}", ids.join(", "))
        })
    }
}

/// A link in use: `(from, to)`, or `(min, max)` when undirected.
pub type UsedLink = (NodeId, NodeId);

/// The sorted, distinct links used by one barrier of `structure` over
/// `numbering` shifted by `k`, on the intact mesh.
///
/// # Panics
/// When `router` has broken links that cut a route (it should be intact).
pub fn used_links(
    router: &mut Router,
    numbering: &Numbering,
    structure: Structure,
    k: u32,
    def: LinkSetDefinition,
) -> Vec<UsedLink> {
    let n = numbering.len();
    let mut links = Vec::new();
    let add_route = |router: &mut Router, from: NodeId, to: NodeId, links: &mut Vec<UsedLink>| {
        let path = router.route(from, to).expect("the intact mesh is connected");
        let mut at = from;
        for &next in path.iter() {
            links.push(if def.undirected { (at.min(next), at.max(next)) } else { (at, next) });
            at = next;
        }
    };
    for id in 1..n {
        let parent = structure.parent(id).expect("non-root ids have parents");
        let (child, parent) = (numbering.node(id, k), numbering.node(parent, k));
        add_route(router, child, parent, &mut links);
        if def.with_release {
            add_route(router, parent, child, &mut links);
        }
    }
    links.sort_unstable();
    links.dedup();
    links
}

/// `(|A ∩ B|, |A ∪ B|)` of two sorted, distinct link lists.
pub fn overlap(a: &[UsedLink], b: &[UsedLink]) -> (usize, usize) {
    let (mut i, mut j, mut both) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (both, a.len() + b.len() - both)
}

/// `1 − |A ∩ B| / |A ∪ B|` (0 for two empty sets).
pub fn update_quantity(a: &[UsedLink], b: &[UsedLink]) -> f64 {
    let (both, either) = overlap(a, b);
    if either == 0 {
        0.0
    } else {
        1.0 - both as f64 / either as f64
    }
}

/// What one `round(K)` does to one structure's link set.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundChange {
    /// `LCT` or `BST`.
    pub name: &'static str,
    /// Links in use before (`A`).
    pub before: Vec<UsedLink>,
    /// Links in use after (`B`).
    pub after: Vec<UsedLink>,
    /// `|A ∩ B|`.
    pub both: usize,
    /// `|A ∪ B|`.
    pub either: usize,
    /// `1 − |A ∩ B| / |A ∪ B|`.
    pub uq: f64,
}

impl RoundChange {
    /// `LCT: |A∩B| = 40, |A∪B| = 151, UQ = 0.735`.
    pub fn note(&self) -> String {
        format!("{}: |A∩B| = {}, |A∪B| = {}, UQ = {:.3}", self.name, self.both, self.either, self.uq)
    }
}

/// LCT and BST before and after `round(k)` on the intact `mesh` (the paper's
/// worked example for `k = 1` on 4 × 4).
pub fn round_changes(mesh: &Mesh, numbering: &Numbering, k: u32, def: LinkSetDefinition) -> Vec<RoundChange> {
    let mut router = Router::new(*mesh, Breaks::none(mesh), Routing::Paper);
    [("LCT", Structure::Lct), ("BST", Structure::Bst)]
        .into_iter()
        .map(|(name, structure)| {
            let before = used_links(&mut router, numbering, structure, 0, def);
            let after = used_links(&mut router, numbering, structure, k, def);
            let (both, either) = overlap(&before, &after);
            let uq = update_quantity(&before, &after);
            RoundChange { name, before, after, both, either, uq }
        })
        .collect()
}

/// All `N × N` conversions of one structure: entry `k1·N + k2` is the UQ of
/// turning numbering `k1` into `k1 + k2` by `round(k2)`.
pub fn all_conversions(mesh: &Mesh, numbering: &Numbering, structure: Structure, def: LinkSetDefinition) -> Vec<f64> {
    let n = numbering.len();
    let mut router = Router::new(*mesh, Breaks::none(mesh), Routing::Paper);
    let sets: Vec<Vec<UsedLink>> = (0..n).map(|k| used_links(&mut router, numbering, structure, k, def)).collect();
    (0..n)
        .flat_map(|k1| (0..n).map(move |k2| (k1, k2)))
        .map(|(k1, k2)| update_quantity(&sets[k1 as usize], &sets[((k1 + k2) % n) as usize]))
        .collect()
}

/// The UQ experiment on a `size × size` mesh for LCT and BST.
#[derive(Debug, Clone, PartialEq)]
pub struct UqExperiment {
    /// `N × N`.
    pub conversions: usize,
    /// UQ of every conversion for LCT, index `k1·N + k2`.
    pub lct: Vec<f64>,
    /// The same for BST.
    pub bst: Vec<f64>,
}

impl UqExperiment {
    /// Runs it.
    ///
    /// # Errors
    /// A size outside [`UQ_SIZE`] or an encoding that does not fit it.
    pub fn run(
        size: u64,
        encoding: super::encoding::Encoding,
        def: LinkSetDefinition,
    ) -> Result<UqExperiment, ConfigError> {
        let mut run = UqRun::start(size, encoding, def)?;
        run.advance(u64::MAX);
        Ok(run.finish())
    }

    /// Mean of a list.
    pub fn mean(values: &[f64]) -> f64 {
        values.iter().sum::<f64>() / values.len().max(1) as f64
    }

    /// `UQ(LCT) − UQ(BST)` per conversion.
    pub fn lct_minus_bst(&self) -> Vec<f64> {
        self.lct.iter().zip(&self.bst).map(|(a, b)| a - b).collect()
    }
}

/// The paper's mean `UQ(LCT)` over the 256 conversions of the 4 × 4 mesh
/// (S-curve numbering).
pub const PAPER_LCT_MEAN: f64 = 0.5527;

/// Every link-set definition the CLI accepts: the views' three and
/// undirected Gather + Release.
pub const EVERY_DEFINITION: [LinkSetDefinition; 4] = [
    LinkSetDefinition::ALL[0],
    LinkSetDefinition::ALL[1],
    LinkSetDefinition::ALL[2],
    LinkSetDefinition { undirected: true, with_release: true },
];

/// Mean over the conversions that change the numbering (`k2 ≠ 0`): the
/// `N` identity conversions have UQ 0 and pull the plain mean down.
pub fn mean_without_identity(values: &[f64], numberings: usize) -> f64 {
    let n = numberings.max(1);
    let kept: Vec<f64> = values.iter().enumerate().filter(|(i, _)| i % n != 0).map(|(_, &v)| v).collect();
    UqExperiment::mean(&kept)
}

/// `UQ(LCT)` means on 4 × 4 (S-curve) under every definition: `(definition,
/// mean over all 256 conversions, mean over the 240 that change something)`.
///
/// # Panics
/// Never: 4 is a valid side and the S-curve numbers any square mesh.
pub fn paper_means() -> Vec<(LinkSetDefinition, f64, f64)> {
    let mesh = Mesh::new(4).expect("4 is a valid side");
    let numbering = Numbering::of_mesh(&mesh, super::encoding::Encoding::SCurve).expect("S-curve fits 4 × 4");
    EVERY_DEFINITION
        .iter()
        .map(|&def| {
            let lct = all_conversions(&mesh, &numbering, Structure::Lct, def);
            (def, UqExperiment::mean(&lct), mean_without_identity(&lct, 16))
        })
        .collect()
}

/// One sentence on the means of an experiment, with the paper's 0.5527 next
/// to ours on 4 × 4 S-curve (the paper's setting) and what every definition gives.
pub fn means_note(size: u64, encoding: super::encoding::Encoding, def: LinkSetDefinition, e: &UqExperiment) -> String {
    let n = (size * size) as usize;
    let mut note = format!(
        "Mean UQ over all {} conversions: LCT {:.3} ({:.3} without the {n} identity conversions), BST {:.3}.",
        e.conversions,
        UqExperiment::mean(&e.lct),
        mean_without_identity(&e.lct, n),
        UqExperiment::mean(&e.bst),
    );
    if size == 4 && encoding == super::encoding::Encoding::SCurve {
        let parts: Vec<String> = paper_means()
            .iter()
            .map(|(d, with, without)| {
                let here = if *d == def { " (shown)" } else { "" };
                format!("{}{here} {with:.3} / {without:.3}", d.label())
            })
            .collect();
        let _ = std::fmt::Write::write_fmt(
            &mut note,
            format_args!(
                " Paper: LCT {PAPER_LCT_MEAN} over the 256 conversions. Ours, with / without the identities: {}. No definition we tried gives {PAPER_LCT_MEAN}; the paper does not say which links it counts.",
                parts.join("; ")
            ),
        );
    }
    note
}

/// One structure of the paper's worked example: name, `(|A∩B|, |A∪B|)` when
/// the paper gives them, and UQ.
pub type PaperRound = (&'static str, Option<(usize, usize)>, f64);

/// The paper's worked example (4 × 4, S-curve, `round(1)`): LCT keeps 7 of
/// 26 links in use (UQ 73.1 %), BST has UQ 18.2 %.
pub const PAPER_ROUND1: [PaperRound; 2] = [("LCT", Some((7, 26)), 0.731), ("BST", None, 0.182)];

/// Beside the panel of the paper's worked example (4 × 4, S-curve, `K = 1`):
/// the paper's numbers next to ours and why they cannot be the same count.
pub fn paper_round_note(
    size: u64,
    encoding: super::encoding::Encoding,
    k: u32,
    changes: &[RoundChange],
) -> Option<String> {
    if size != 4 || encoding != super::encoding::Encoding::SCurve || k != 1 || changes.len() != 2 {
        return None;
    }
    let (lct, bst) = (&changes[0], &changes[1]);
    Some(format!(
        "Paper (4 × 4, S-curve, round(1)): LCT UQ 73.1 % (7 of 26 links kept), BST UQ 18.2 %. Here: LCT {:.1} % ({} of {}), BST {:.1} % ({} of {}). The paper's 26 exceeds the 24 undirected links of a 4 × 4 mesh, so it does not count undirected links; it does not say what it counts, and no link set we tried gives 7 of 26.",
        lct.uq * 100.0,
        lct.both,
        lct.either,
        bst.uq * 100.0,
        bst.both,
        bst.either
    ))
}

/// The UQ experiment advanced in slices (the engine worker reports progress
/// between them): first the `N` link sets of LCT and of BST, then the `N`
/// rows of conversions of each. It computes exactly [`all_conversions`].
#[derive(Debug, Clone)]
pub struct UqRun {
    numbering: Numbering,
    encoding: super::encoding::Encoding,
    def: LinkSetDefinition,
    router: Router,
    sets: [Vec<Vec<UsedLink>>; 2],
    uq: [Vec<f64>; 2],
    /// Work items done: `4N` in all (sets of LCT, of BST, rows of LCT, of BST).
    next: u64,
}

impl UqRun {
    /// Starts the experiment on a `size × size` mesh.
    ///
    /// # Errors
    /// A size outside [`UQ_SIZE`] or an encoding that does not fit it.
    pub fn start(size: u64, encoding: super::encoding::Encoding, def: LinkSetDefinition) -> Result<UqRun, ConfigError> {
        if !UQ_SIZE.contains(size) {
            return Err(ConfigError::int(UQ_SIZE, size));
        }
        let mesh = Mesh::new(size)?;
        let numbering = Numbering::of_mesh(&mesh, encoding)?;
        let router = Router::new(mesh, Breaks::none(&mesh), Routing::Paper);
        Ok(UqRun {
            numbering,
            encoding,
            def,
            router,
            sets: [Vec::new(), Vec::new()],
            uq: [Vec::new(), Vec::new()],
            next: 0,
        })
    }

    fn n(&self) -> u64 {
        u64::from(self.numbering.len())
    }

    /// The encoding of the numberings.
    pub fn encoding(&self) -> super::encoding::Encoding {
        self.encoding
    }

    /// The link-set definition.
    pub fn definition(&self) -> LinkSetDefinition {
        self.def
    }

    /// Does about `events` more work (one item, a link set or a row of `N`
    /// conversions, counts `N` events); true when done.
    pub fn advance(&mut self, events: u64) -> bool {
        let n = self.n();
        let mut items = (events / n.max(1)).max(1);
        while items > 0 && self.next < 4 * n {
            let (phase, k) = (self.next / n, (self.next % n) as u32);
            let s = (phase % 2) as usize;
            if phase < 2 {
                let structure = if s == 0 { Structure::Lct } else { Structure::Bst };
                let set = used_links(&mut self.router, &self.numbering, structure, k, self.def);
                self.sets[s].push(set);
            } else {
                let sets = &self.sets[s];
                let row =
                    (0..n as u32).map(|k2| update_quantity(&sets[k as usize], &sets[((k + k2) % n as u32) as usize]));
                self.uq[s].extend(row);
            }
            self.next += 1;
            items -= 1;
        }
        self.next >= 4 * n
    }

    /// Items done (link sets and rows of conversions), of `4N`.
    pub fn progress(&self) -> (u64, u64) {
        (self.next, 4 * self.n())
    }

    /// The experiment (once [`UqRun::advance`] returned true).
    ///
    /// # Panics
    /// When work is left.
    pub fn finish(self) -> UqExperiment {
        assert!(self.next >= 4 * self.n(), "finish the UQ experiment only once it is done");
        let [lct, bst] = self.uq;
        UqExperiment { conversions: lct.len(), lct, bst }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::barrier::encoding::Encoding;

    #[test]
    fn overlap_counts() {
        let a = [(0, 1), (1, 2), (2, 3)];
        let b = [(1, 2), (2, 3), (3, 4), (4, 5)];
        assert_eq!(overlap(&a, &b), (2, 5));
        assert!((update_quantity(&a, &b) - 0.6).abs() < 1e-12);
        assert_eq!(update_quantity(&a, &a), 0.0);
    }

    #[test]
    fn four_by_four_experiment_shape() {
        let e = UqExperiment::run(4, Encoding::SCurve, LinkSetDefinition::default()).unwrap();
        assert_eq!(e.conversions, 256);
        // k2 = 0 changes nothing.
        for k1 in 0..16 {
            assert_eq!(e.lct[k1 * 16], 0.0);
            assert_eq!(e.bst[k1 * 16], 0.0);
        }
        assert!(e.lct.iter().all(|u| (0.0..=1.0).contains(u)));
    }
}

#[cfg(test)]
mod round_tests {
    use super::*;
    use crate::barrier::encoding::Encoding;

    /// The paper's worked example: 4 × 4, S-curve, `round(1)`, Gather links.
    #[test]
    fn worked_example_on_four_by_four() {
        let mesh = Mesh::new(4).unwrap();
        let numbering = Numbering::of_mesh(&mesh, Encoding::SCurve).unwrap();
        let changes = round_changes(&mesh, &numbering, 1, LinkSetDefinition::default());
        let summary: Vec<(&str, usize, usize, usize, usize)> =
            changes.iter().map(|c| (c.name, c.before.len(), c.after.len(), c.both, c.either)).collect();
        assert_eq!(summary, [("LCT", 16, 28, 7, 37), ("BST", 18, 27, 15, 30)]);
        // UQ = 1 − 7/37 ≈ 0.811 for LCT and 1 − 15/30 = 0.5 for BST: LCT changes more links.
        assert!((changes[0].uq - 30.0 / 37.0).abs() < 1e-12 && (changes[1].uq - 0.5).abs() < 1e-12);
        assert_eq!(changes[0].note(), "LCT: |A∩B| = 7, |A∪B| = 37, UQ = 0.811");
        let note = paper_round_note(4, Encoding::SCurve, 1, &changes).unwrap();
        assert!(note.contains("LCT UQ 73.1 % (7 of 26 links kept), BST UQ 18.2 %"), "{note}");
        assert!(note.contains("Here: LCT 81.1 % (7 of 37), BST 50.0 % (15 of 30)"), "{note}");
        assert_eq!(Mesh::new(4).unwrap().link_count(), 24, "26 > 24 undirected links");
        assert!((1.0 - 7.0 / 26.0 - PAPER_ROUND1[0].2).abs() < 5e-4, "7/26 kept is UQ 73.1 %");
        // No definition gives 7 of 26.
        for def in EVERY_DEFINITION {
            let c = round_changes(&mesh, &numbering, 1, def);
            assert_ne!((c[0].both, c[0].either), (7, 26), "{}", def.id());
        }
        assert!(paper_round_note(4, Encoding::SCurve, 2, &changes).is_none());
        assert!(paper_round_note(4, Encoding::Hilbert, 1, &changes).is_none());
    }

    /// Sliced, the experiment computes exactly the one-pass `all_conversions`
    /// of each structure, whatever the slice size.
    #[test]
    fn sliced_experiment_equals_all_conversions() {
        for size in 2..=6 {
            let mesh = Mesh::new(size).unwrap();
            let numbering = Numbering::of_mesh(&mesh, Encoding::SCurve).unwrap();
            let def = LinkSetDefinition::default();
            let lct = all_conversions(&mesh, &numbering, Structure::Lct, def);
            let bst = all_conversions(&mesh, &numbering, Structure::Bst, def);
            for events in [1, 7, 100, u64::MAX] {
                let mut run = UqRun::start(size, Encoding::SCurve, def).unwrap();
                let mut last = 0;
                while !run.advance(events) {
                    let (done, total) = run.progress();
                    assert!(done > last && done < total);
                    last = done;
                }
                let e = run.finish();
                assert_eq!((e.lct.as_slice(), e.bst.as_slice()), (lct.as_slice(), bst.as_slice()), "size {size}");
                assert_eq!(e.conversions, (size * size * size * size) as usize);
            }
        }
    }

    /// Every offered link-set definition parses back from its id; the ids are
    /// the URL's and the engine's (`links=gather-release`).
    #[test]
    fn link_set_ids_round_trip() {
        let ids: Vec<&str> = LinkSetDefinition::ALL.iter().map(|d| d.id()).collect();
        assert_eq!(ids, ["directed", "undirected", "gather-release"]);
        for d in LinkSetDefinition::ALL {
            assert_eq!(d.id().parse::<LinkSetDefinition>(), Ok(d));
        }
        assert_eq!(LinkSetDefinition::ALL[0], LinkSetDefinition::default());
        let e = "both".parse::<LinkSetDefinition>().unwrap_err();
        assert!(e.contains("directed, undirected, gather-release"), "{e}");
    }
}

#[cfg(test)]
mod paper_tests {
    use super::*;

    /// The recount: 0.524 with the 16 identity conversions, 0.559
    /// without, for directed Gather links; no definition gives the paper's 0.5527.
    #[test]
    fn paper_mean_next_to_ours() {
        let means = paper_means();
        let (def, with, without) = means[0];
        assert_eq!(def, LinkSetDefinition::default());
        assert!((with - 0.524).abs() < 5e-4 && (without - 0.559).abs() < 5e-4, "{with} {without}");
        // The mean without identities is the full mean scaled by 256/240 (they are all 0).
        assert!((without - with * 256.0 / 240.0).abs() < 1e-12);
        for (d, with, without) in &means {
            assert!((with - PAPER_LCT_MEAN).abs() > 1e-3 && (without - PAPER_LCT_MEAN).abs() > 1e-3, "{}", d.id());
        }
        let e = UqExperiment::run(4, crate::barrier::encoding::Encoding::SCurve, LinkSetDefinition::default()).unwrap();
        let note = means_note(4, crate::barrier::encoding::Encoding::SCurve, LinkSetDefinition::default(), &e);
        assert!(note.contains("LCT 0.524 (0.559 without the 16 identity conversions)"), "{note}");
        assert!(note.contains("Paper: LCT 0.5527"), "{note}");
        assert!(note.contains("directed links of the Gather (shown) 0.524 / 0.559"), "{note}");
        let other =
            UqExperiment::run(5, crate::barrier::encoding::Encoding::SCurve, LinkSetDefinition::default()).unwrap();
        let note5 = means_note(5, crate::barrier::encoding::Encoding::SCurve, LinkSetDefinition::default(), &other);
        assert!(!note5.contains("Paper"), "the paper's number belongs to 4 × 4 only: {note5}");
    }
}

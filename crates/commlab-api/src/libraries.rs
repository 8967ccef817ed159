//! What MPICH, Open MPI and NCCL run by default beside the Chooser's winner
//! (`docs/libraries.md`): one [`Picks`] per size, the sentences where a
//! library and the winner disagree, and the winner map as a tuner file.
//! Everything here is a cheap pure call into `commlab_core::libraries`
//! (microseconds a size), so the view computes it on the main thread.

use crate::ApiError;
use commlab_core::choose::Collective;
use commlab_core::libraries::nccl_env::Settings;
use commlab_core::libraries::{mpich, nccl, ompi, tuner, Query};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// Which libraries to ask, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LibraryRequest {
    /// Ask MPICH's default selection.
    pub mpich: bool,
    /// Ask Open MPI's fixed rules.
    pub ompi: bool,
    /// Ask NCCL's model on this system description (`key=value,…`;
    /// `None`: do not ask NCCL).
    pub nccl: Option<String>,
    /// Bytes per element (MPICH and Open MPI read element counts).
    pub dtype_size: u32,
    /// NCCL's settings, read by the caller under the description's release
    /// (not in the JSON: a request is built where it is used).
    #[serde(skip)]
    pub settings: Settings,
}

impl Default for LibraryRequest {
    fn default() -> LibraryRequest {
        LibraryRequest {
            mpich: true,
            ompi: true,
            nccl: Some(String::new()),
            dtype_size: 4,
            settings: Settings::default(),
        }
    }
}

/// Largest `dtype_size` accepted.
pub const MAX_DTYPE_SIZE: u32 = commlab_core::limits::chooser::DTYPE_SIZE.max as u32;

impl LibraryRequest {
    /// From the CLI's `--library mpich,ompi,nccl` list.
    ///
    /// # Errors
    /// An unknown library name.
    pub fn from_list(list: &[String], nccl: Option<String>, dtype_size: u32) -> Result<LibraryRequest, ApiError> {
        let mut r = LibraryRequest { mpich: false, ompi: false, nccl: None, dtype_size, settings: Settings::default() };
        for name in list {
            match name.as_str() {
                "mpich" => r.mpich = true,
                "ompi" | "openmpi" => r.ompi = true,
                "nccl" => r.nccl = Some(nccl.clone().unwrap_or_default()),
                _ => return Err(ApiError::new("library", name, "mpich, ompi or nccl")),
            }
        }
        Ok(r)
    }

    /// The NCCL system for `p` ranks.
    ///
    /// # Errors
    /// A description that cannot be read (the key and its range named).
    pub fn system(&self, p: u32) -> Result<Option<nccl::System>, ApiError> {
        let Some(text) = &self.nccl else { return Ok(None) };
        let s = nccl::parse_system(text, p).map_err(|e| ApiError::problem("nccl", e.0))?;
        Ok(Some(s.with_settings(self.settings)))
    }

    fn check(&self) -> Result<(), ApiError> {
        commlab_core::limits::chooser::DTYPE_SIZE.check(u64::from(self.dtype_size))?;
        Ok(())
    }
}

/// MPICH's pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MpichPick {
    /// The function name as MPICH's JSON names it.
    pub name: String,
    /// Ours, where one runs the same schedule.
    pub ours: Option<String>,
}

/// Open MPI's pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OmpiPick {
    /// Open MPI's algorithm number.
    pub id: u8,
    /// Its name.
    pub name: String,
    /// Ours, where one runs the same schedule.
    pub ours: Option<String>,
    /// What it runs in fact, where the number alone misleads.
    pub note: Option<String>,
}

/// NCCL's pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NcclPick {
    /// Algorithm (`tree`, `ring`, …).
    pub algorithm: String,
    /// Protocol (`ll`, `ll128`, `simple`).
    pub protocol: String,
    /// Its predicted time, µs.
    pub time_us: f64,
    /// Every enabled pair's time, µs, keyed `"tree/ll"`.
    pub nccl_times: Vec<(String, f64)>,
    /// Ours, where one runs the same schedule.
    pub ours: Option<String>,
}

/// What the libraries run at one size.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Picks {
    /// MPICH's.
    pub mpich: Option<MpichPick>,
    /// Open MPI's.
    pub ompi: Option<OmpiPick>,
    /// NCCL's (`None` also for all-to-all, which NCCL does not tune).
    pub nccl: Option<NcclPick>,
}

/// The libraries' releases, for the view's caption.
pub fn versions(system: Option<&nccl::System>) -> String {
    let mut v = format!("{}, {}", mpich::VERSION, ompi::VERSION);
    if let Some(s) = system {
        v.push_str(", ");
        v.push_str(s.version.label());
    }
    v
}

/// The picks of `collective` on `p` ranks at each of `sizes`.
///
/// # Errors
/// An unknown collective, a bad `dtype_size` or NCCL description.
pub fn picks(collective: &str, p: u32, sizes: &[u64], request: &LibraryRequest) -> Result<Vec<Picks>, ApiError> {
    let collective: Collective = crate::parse_id("collective", collective)?;
    request.check()?;
    let system = request.system(p)?;
    Ok(sizes
        .iter()
        .map(|&bytes| {
            let q = Query { collective, p, bytes, dtype_size: request.dtype_size };
            Picks {
                mpich: request.mpich.then(|| mpich::pick(&q)).flatten().map(|name| MpichPick {
                    name: name.to_owned(),
                    ours: mpich::ours(collective, name).map(str::to_owned),
                }),
                ompi: request.ompi.then(|| {
                    let id = ompi::decide(&q);
                    OmpiPick {
                        id,
                        name: ompi::name(collective, id).to_owned(),
                        ours: ompi::ours(collective, id).map(str::to_owned),
                        note: ompi::note(&q, id),
                    }
                }),
                nccl: system.as_ref().and_then(|s| {
                    let pred = nccl::predict(s, collective, q.count() * u64::from(q.dtype_size))?;
                    let (a, pr) = pred.choice();
                    Some(NcclPick {
                        algorithm: a.id().to_owned(),
                        protocol: pr.id().to_owned(),
                        time_us: f64::from(pred.pick.2),
                        nccl_times: pred.times.iter().map(|&(a, p, t)| (format!("{a}/{p}"), f64::from(t))).collect(),
                        ours: nccl::ours(collective, a).map(str::to_owned),
                    })
                }),
            }
        })
        .collect())
}

/// The `library_picks` object of `commlab choose --json`.
pub fn to_json(p: &Picks) -> serde_json::Value {
    let mut v = serde_json::Map::new();
    if let Some(m) = &p.mpich {
        v.insert("mpich".into(), serde_json::json!({"name": m.name, "ours": m.ours}));
    }
    if let Some(o) = &p.ompi {
        v.insert("ompi".into(), serde_json::json!({"id": o.id, "name": o.name, "ours": o.ours, "note": o.note}));
    }
    if let Some(n) = &p.nccl {
        let times: serde_json::Map<String, serde_json::Value> =
            n.nccl_times.iter().map(|(k, t)| (k.clone(), serde_json::json!(t))).collect();
        v.insert(
            "nccl".into(),
            serde_json::json!({"algorithm": n.algorithm, "protocol": n.protocol, "time_us": n.time_us, "nccl_times": times, "ours": n.ours}),
        );
    }
    serde_json::Value::Object(v)
}

/// Why a library may run something else than the α–β winner, where known.
fn reason(library: &str, collective: Collective, name: &str, winner: &str) -> &'static str {
    match (library, collective) {
        ("mpich", Collective::Allgather) if name.ends_with("_ring") && winner == "recursive-doubling" => {
            "under α–β alone ring never beats recursive doubling in allgather (same bytes, more messages); MPICH's ring from 512 KiB comes from measurement"
        }
        ("mpich", Collective::Allreduce) if name.ends_with("recursive_doubling") => {
            "MPICH's JSON tree switches away from recursive doubling above 8 B (not at the 2048 B of MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE), and keeps it while the count is below the largest power of two ≤ p"
        }
        ("mpich", _) => "MPICH's thresholds are fixed byte sizes, tuned on its developers' machines",
        ("ompi", _) => {
            "Open MPI's fixed rules are switch points averaged from measurements on its developers' clusters, not a model"
        }
        _ => "NCCL minimises its own latency + size/bandwidth model of the described GPU system, not α–β",
    }
}

/// A row's time of algorithm `k` (the network's where it ran on one, the model's otherwise).
fn row_time(row: &crate::chooser::Row, k: usize) -> Option<f64> {
    match &row.network {
        Some(n) => n.times.get(k).copied().flatten(),
        None => row.costs.get(k).map(crate::chooser::Split::total),
    }
}

/// The fastest of `library`'s own algorithms (`crate::fit::library_algorithms`:
/// those with a counterpart here) at row `row` of `result`: a library's
/// pick is compared only with what that library could run.
pub fn library_winner<'a>(result: &'a crate::chooser::ChooseResult, row: usize, library: &str) -> Option<&'a str> {
    let collective = result.collective.parse::<Collective>().ok()?;
    let r = result.rows.get(row)?;
    crate::fit::library_algorithms(library, collective)
        .iter()
        .filter_map(|(ours, _)| result.algorithms.iter().position(|a| a == ours))
        .filter_map(|k| row_time(r, k).map(|t| (k, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| result.algorithms[k].as_str())
}

/// A sentence per library whose pick is not the fastest of its own
/// algorithms at row `row` of `result` ([`library_winner`]): a library is
/// never told to run an algorithm it does not have.
pub fn disagreements(result: &crate::chooser::ChooseResult, row: usize, picks: &Picks) -> Vec<String> {
    let Ok(c) = result.collective.parse::<Collective>() else { return Vec::new() };
    let mut out = Vec::new();
    let mut say = |library: &str, label: &str, name: &str, ours: Option<&str>| {
        let Some(winner) = library_winner(result, row, library) else { return };
        if ours == Some(winner) {
            return;
        }
        let theirs = ours.map_or_else(|| format!("{name} (no counterpart here)"), |o| format!("{name} (our {o})"));
        out.push(format!(
            "{label} runs {theirs} where the model's fastest of its own algorithms is {winner}: {}.",
            reason(library, c, name, winner)
        ));
    };
    if let Some(m) = &picks.mpich {
        say("mpich", "MPICH", &m.name, m.ours.as_deref());
    }
    if let Some(o) = &picks.ompi {
        say("ompi", "Open MPI", &format!("{} ({})", o.name, o.id), o.ours.as_deref());
    }
    if let Some(n) = &picks.nccl {
        say("nccl", "NCCL", &format!("{}/{}", n.algorithm, n.protocol), n.ours.as_deref());
    }
    out
}

/// What each library would gain or lose by following the model, in a
/// sentence per library with picks: over the sizes of `result` (the
/// network's times where it ran on one, the model's otherwise), the time of
/// the library's pick (our schedule of it) against the winner's. NCCL is
/// advised only on a network (α–β alone cannot advise it, and the page says
/// so); a pick with no counterpart here is counted as not compared.
pub fn gains(result: &crate::chooser::ChooseResult, picks: &[Picks]) -> Vec<String> {
    gains_on(result, picks, None)
}

/// One library's gain sentence over `result`'s sizes (`ours`: its pick's
/// schedule of ours at a size, `None` where it was not asked); `None`
/// where it was asked at no size.
fn gain_sentence(
    result: &crate::chooser::ChooseResult,
    picks: &[Picks],
    (label, library): (&str, &str),
    ours: &dyn Fn(&Picks) -> Option<Option<&str>>,
) -> Option<String> {
    // Per size: the share saved by following the model, if compared.
    let mut saved: Vec<(u64, f64, String, String)> = Vec::new();
    let (mut sizes, mut uncompared) = (0, 0);
    for (i, (row, p)) in result.rows.iter().zip(picks).enumerate() {
        let Some(pick) = ours(p) else { continue };
        sizes += 1;
        // The fastest of the library's own algorithms: never one it lacks.
        let Some(w) = library_winner(result, i, library).and_then(|w| result.algorithms.iter().position(|a| a == w))
        else {
            uncompared += 1;
            continue;
        };
        let k = pick.and_then(|o| result.algorithms.iter().position(|a| a == o));
        match (k.and_then(|k| row_time(row, k)), row_time(row, w)) {
            (Some(theirs), Some(best)) if theirs > 0.0 => {
                saved.push((
                    row.bytes,
                    1.0 - best / theirs,
                    pick.unwrap_or("").to_owned(),
                    result.algorithms[w].clone(),
                ));
            }
            _ => uncompared += 1,
        }
    }
    if sizes == 0 {
        return None;
    }
    let same = saved.iter().filter(|s| s.1 <= 1e-9).count();
    let best = saved.iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
    let mut s = match best {
        Some((bytes, share, theirs, w)) if *share > 1e-9 => format!(
            "{label}: following the model among its own algorithms would save up to {:.0} % (at {}: {w} in place of its {theirs}); its pick is the fastest of them at {same} of {} sizes",
            share * 100.0,
            commlab_plot::format_bytes(*bytes),
            saved.len()
        ),
        Some(_) => format!("{label}: its pick is the fastest of its own algorithms at every size compared ({}), so following the model gains nothing", saved.len()),
        None => format!("{label}: none of its picks has a counterpart here, so nothing is compared"),
    };
    if uncompared > 0 && !saved.is_empty() {
        let _ = write!(
            s,
            "; {uncompared} {} not compared (no counterpart here)",
            if uncompared == 1 { "size" } else { "sizes" }
        );
    }
    s.push('.');
    Some(s)
}

/// [`gains`], with NCCL's sentence on a System given (`nccl`: from
/// [`crate::nccl_tuner::TunerPlan::gain_sentence`], NCCL's own algorithms
/// under its per-step costs) in place of the one from our curves, which
/// carry none of those costs.
pub fn gains_on(result: &crate::chooser::ChooseResult, picks: &[Picks], nccl: Option<&str>) -> Vec<String> {
    let say = |names, ours: &dyn Fn(&Picks) -> Option<Option<&str>>| gain_sentence(result, picks, names, ours);
    let mut out: Vec<String> = [
        say(("MPICH", "mpich"), &|p: &Picks| p.mpich.as_ref().map(|m| m.ours.as_deref())),
        say(("Open MPI", "ompi"), &|p: &Picks| p.ompi.as_ref().map(|m| m.ours.as_deref())),
    ]
    .into_iter()
    .flatten()
    .collect();
    if let Some(sentence) = nccl.filter(|_| picks.iter().any(|p| p.nccl.is_some())) {
        out.push(sentence.to_owned());
    } else if result.rows.iter().any(|r| r.network.is_some()) {
        if let Some(mut s) = say(("NCCL", "nccl"), &|p: &Picks| p.nccl.as_ref().map(|m| m.ours.as_deref())) {
            s.pop();
            s.push_str(
                "; our schedules of its ring and tree run here without NCCL's per-step costs (a System's expected curve has them).",
            );
            out.push(s);
        }
    } else if picks.iter().any(|p| p.nccl.is_some()) {
        out.push("NCCL: α–β alone cannot say what NCCL would gain (it knows neither NCCL's channels, its protocols nor the links); pick a System to compare on its network.".to_owned());
    }
    out
}

/// The algorithms a winner map for `format` compares: the library's own
/// among `asked` (all of the collective's when empty), so the file names
/// only what the library runs.
///
/// # Errors
/// An unknown format or collective; a library with none of them.
pub fn export_algorithms(format: &str, collective: &str, asked: &[String]) -> Result<Vec<String>, ApiError> {
    let c: Collective = crate::parse_id("collective", collective)?;
    let library = match format.parse::<tuner::Format>().map_err(|e| ApiError::problem("export", e))? {
        tuner::Format::OmpiRules => "ompi",
        tuner::Format::MpichJson => "mpich",
        tuner::Format::NcclTuner => return Err(ApiError::problem("export", crate::nccl_tuner::NO_SYSTEM)),
    };
    let theirs: Vec<String> = crate::fit::library_algorithms(library, c)
        .into_iter()
        .map(|(ours, _)| ours.to_owned())
        .filter(|ours| asked.is_empty() || asked.contains(ours))
        .collect();
    if theirs.is_empty() {
        return Err(ApiError::problem("export", format!("the library has none of these algorithms for {c}")));
    }
    Ok(theirs)
}

/// A written tuner file and the algorithms it replaced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TunerFile {
    /// File name to save under.
    pub file_name: String,
    /// Its text.
    pub text: String,
    /// `(ours, written instead)` for each algorithm the target lacks.
    pub substitutes: Vec<(String, String)>,
}

/// The winner map as `format` (`ompi-rules`, `mpich-json`). NCCL's file is
/// not written from the α–β map: see [`crate::nccl_tuner`].
///
/// # Errors
/// An unknown format or collective; `nccl-tuner` (α–β alone cannot advise NCCL).
pub fn export(
    map: &crate::chooser::WinnerMap,
    collective: &str,
    format: &str,
    request: &LibraryRequest,
) -> Result<TunerFile, ApiError> {
    let c: Collective = crate::parse_id("collective", collective)?;
    let format: tuner::Format = format.parse().map_err(|e: String| ApiError::problem("export", e))?;
    if format == tuner::Format::NcclTuner {
        return Err(ApiError::problem("export", crate::nccl_tuner::NO_SYSTEM));
    }
    request.check()?;
    let winners: Vec<&str> = map.winner.iter().map(|&w| map.algorithms[usize::from(w)].as_str()).collect();
    let m = tuner::Map {
        collective: c,
        ps: &map.ps,
        sizes: &map.sizes,
        winners: &winners,
        margins: &map.margin,
        dtype_size: request.dtype_size,
    };
    let out =
        tuner::export(format, &m, &|p| request.system(p).ok().flatten()).map_err(|e| ApiError::problem("export", e))?;
    let ext = match format {
        tuner::Format::NcclTuner => "conf",
        tuner::Format::OmpiRules => "rules",
        tuner::Format::MpichJson => "json",
    };
    Ok(TunerFile {
        file_name: format!("commlab-{collective}-{}.{ext}", format.id()),
        text: out.text,
        substitutes: out.substitutes.into_iter().map(|s| (s.ours, s.put)).collect(),
    })
}

/// The model's winner at row `row` of `result` (the network's where it ran
/// on one).
pub fn model_winner(result: &crate::chooser::ChooseResult, row: usize) -> &str {
    let r = &result.rows[row];
    &result.algorithms[r.network.as_ref().map_or(r.winner, |n| n.winner)]
}

/// The band above the chart: its caption and one row per library asked,
/// each size's cell coloured by the algorithm of ours it runs (`None`: no
/// library was asked).
pub fn band(
    result: &crate::chooser::ChooseResult,
    picks: &[Picks],
) -> Option<(String, Vec<commlab_plot::chooser::BandRow>)> {
    use commlab_plot::chooser::{algorithm_color, short_bytes, BandRow};
    let collective: Collective = result.collective.parse().ok()?;
    let sizes: Vec<u64> = result.rows.iter().map(|r| r.bytes).collect();
    let cell = |name: String, ours: Option<&str>, n: u64, extra: &str| {
        let legend = match ours {
            Some(o) => format!("{name} = our {o}"),
            None => format!("{name} (none of ours)"),
        };
        let color =
            ours.and_then(|id| commlab_core::choose::of(collective).position(|a| a.id == id)).map(algorithm_color);
        (color, legend.clone(), format!("{}: {legend}{extra}", short_bytes(n)))
    };
    let rows: Vec<BandRow> = ["MPICH", "Open MPI", "NCCL"]
        .into_iter()
        .filter(|&library| picks.iter().any(|p| band_cell(library, p).is_some()))
        .map(|library| BandRow {
            library: library.into(),
            cells: picks
                .iter()
                .zip(&sizes)
                .map(|(p, &n)| {
                    let (name, ours, extra) = band_cell(library, p).unwrap_or(("—".into(), None, String::new()));
                    cell(name, ours, n, &extra)
                })
                .collect(),
        })
        .collect();
    let caption =
        format!("What each library runs by default at p = {} (colour: the algorithm of ours it runs)", result.p);
    (!rows.is_empty()).then_some((caption, rows))
}

/// A library's pick in the band: its name, the algorithm of ours it runs,
/// and what the hover adds (`None`: the library was not asked).
fn band_cell<'a>(library: &str, p: &'a Picks) -> Option<(String, Option<&'a str>, String)> {
    match library {
        "MPICH" => {
            p.mpich.as_ref().map(|m| (m.name.trim_start_matches("MPIR_").to_owned(), m.ours.as_deref(), String::new()))
        }
        "Open MPI" => p.ompi.as_ref().map(|o| {
            let note = o.note.as_ref().map_or(String::new(), |t| format!("; {t}"));
            (format!("{} ({})", o.name, o.id), o.ours.as_deref(), note)
        }),
        _ => p.nccl.as_ref().map(|x| {
            let at = format!(", NCCL's estimate {} µs", commlab_plot::format_quantity(x.time_us));
            (format!("{}/{}", x.algorithm, x.protocol), x.ours.as_deref(), at)
        }),
    }
}

/// The picks table: its column heads and, per size, its cells (the size,
/// the model's winner, each library's pick with ✓ where it runs the
/// winner's schedule); a library's column only where some size has it.
pub fn table(result: &crate::chooser::ChooseResult, picks: &[Picks]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let has = |f: fn(&Picks) -> bool| picks.iter().any(f);
    let (mpich, ompi, with_nccl) = (has(|p| p.mpich.is_some()), has(|p| p.ompi.is_some()), has(|p| p.nccl.is_some()));
    // The winner is the α–β model's, or the network's where it ran on one;
    // NCCL's time is its own ranking estimate, no prediction.
    let on_network = result.rows.iter().any(|r| r.network.is_some());
    let winner = if on_network { "fastest on the network" } else { "α–β winner" };
    let heads = ["size", winner]
        .into_iter()
        .chain(mpich.then_some("MPICH"))
        .chain(ompi.then_some("Open MPI"))
        .chain(with_nccl.then_some("NCCL's pick (its ranking estimate)"))
        .collect();
    let rows = picks
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let w = model_winner(result, i);
            let mark = |ours: Option<&str>| if ours == Some(w) { " ✓" } else { "" };
            let mut row = vec![commlab_plot::chooser::short_bytes(result.rows[i].bytes), w.to_owned()];
            if mpich {
                row.push(p.mpich.as_ref().map_or("—".into(), |x| {
                    format!("{}{}", x.name.trim_start_matches("MPIR_"), mark(x.ours.as_deref()))
                }));
            }
            if ompi {
                row.push(
                    p.ompi
                        .as_ref()
                        .map_or("—".into(), |x| format!("{} ({}){}", x.name, x.id, mark(x.ours.as_deref()))),
                );
            }
            if with_nccl {
                row.push(p.nccl.as_ref().map_or("—".into(), |x| {
                    let t = commlab_plot::format_quantity(x.time_us);
                    format!("{}/{} {t} µs{}", x.algorithm, x.protocol, mark(x.ours.as_deref()))
                }));
            }
            row
        })
        .collect();
    (heads, rows)
}

/// Where a library and the model disagree ([`disagreements`]), the same
/// sentence at consecutive sizes said once: `64 KiB to 1 MiB: …`.
pub fn disagreement_notes(result: &crate::chooser::ChooseResult, picks: &[Picks]) -> Vec<String> {
    let mut runs: Vec<(u64, u64, String)> = Vec::new();
    for (i, p) in picks.iter().enumerate() {
        let n = result.rows[i].bytes;
        for s in disagreements(result, i, p) {
            match runs.iter_mut().rev().find(|x| x.2 == s) {
                Some(x) if x.1 == result.rows[i.saturating_sub(1)].bytes => x.1 = n,
                _ => runs.push((n, n, s)),
            }
        }
    }
    let short = commlab_plot::chooser::short_bytes;
    runs.into_iter()
        .map(|(a, b, s)| {
            let at = if a == b { short(a) } else { format!("{} to {}", short(a), short(b)) };
            format!("{at}: {s}")
        })
        .collect()
}

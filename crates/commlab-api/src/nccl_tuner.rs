//! The NCCL tuner file written from NCCL's own algorithms simulated on a
//! preset system (`docs/libraries.md`, tuner files): per size, every
//! (algorithm, protocol) NCCL's model offers there and the network can run
//! (ring, tree, NVLS and NVLS tree) is simulated with a channel per rail, and a line is
//! written only where one of them beats NCCL's own pick by 5 % or more.
//! Everywhere else NCCL keeps its choice, and a comment says why.
//!
//! α–β alone cannot advise NCCL (it knows neither the channels, the
//! protocols nor the links), so without a system nothing is written.
//!
//! The page keeps NCCL's model and plans ([`TunerPlan::new`]); the engine
//! worker simulates [`TunerPlan::planned`]; [`TunerPlan::file`] writes.

use crate::predict::{plan_as, Planned};
use crate::system::System;
use crate::ApiError;
use commlab_core::choose::Collective;
use commlab_core::libraries::nccl::{self, Algorithm, Protocol};
use commlab_core::libraries::tuner;
use std::fmt::Write as _;

/// Why no NCCL file comes from the α–β model.
pub const NO_SYSTEM: &str = "α–β alone cannot advise NCCL (it knows neither its channels, its protocols nor the links): give a system (--system ID), whose NCCL algorithms are then simulated; nothing was written";

/// What the page says where no System is picked.
pub const NO_SYSTEM_PAGE: &str = "α–β alone cannot advise NCCL: it knows neither NCCL's channels, its protocols nor the links. Pick a System above (with p = all its GPUs): NCCL's own algorithms are then simulated on it, and the file keeps NCCL's choice wherever none beats it by 5 %. Nothing was saved.";

/// The smallest simulated gain over NCCL's own pick that is written.
pub const MIN_GAIN: f64 = 0.05;

/// One (algorithm, protocol) of NCCL's at one size.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// NCCL's algorithm.
    pub algorithm: Algorithm,
    /// Its protocol.
    pub protocol: Protocol,
    /// Its run on the network.
    pub planned: Planned,
}

/// One size: NCCL's pick and the candidates simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct SizePlan {
    /// NCCL's `nBytes` (nccl-tests' size column).
    pub bytes: u64,
    /// NCCL's own pick.
    pub pick: (Algorithm, Protocol),
    /// Every simulable (algorithm, protocol) NCCL's model offers at this size.
    pub candidates: Vec<Candidate>,
}

/// What to simulate for a tuner file.
#[derive(Debug, Clone, PartialEq)]
pub struct TunerPlan {
    /// The System (its NCCL release picks and costs).
    pub system: System,
    /// The collective.
    pub collective: Collective,
    /// Per size, ascending.
    pub sizes: Vec<SizePlan>,
}

/// One band of sizes in the file: what is written (`None`: NCCL keeps its
/// pick) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Band {
    /// First size.
    pub lo: u64,
    /// Last size the file covers with this band.
    pub hi: u64,
    /// The (algorithm, protocol) written, if any.
    pub write: Option<(Algorithm, Protocol)>,
    /// Why, in a sentence.
    pub reason: String,
}

/// A written tuner file.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    /// The file's text.
    pub text: String,
    /// Its bands, in size order.
    pub bands: Vec<Band>,
    /// A file name for it.
    pub file_name: String,
}

/// The most ranks on which the page simulates NCCL's own candidates for
/// its gain sentence: 8 nodes of 8 GPUs. Their flow runs on a 72-GPU `NVLink`
/// domain take 44 s natively for 8 sizes (56 runs; NCCL's tree with LL over
/// 72 GPUs, 10 s at 1 GiB), minutes in a worker, longer on two domains.
pub const GAIN_RANKS: u32 = 64;

impl TunerPlan {
    /// NCCL's candidates at each of `sizes` on `system`, under its NCCL
    /// release's picks and costs.
    ///
    /// # Errors
    /// A collective NCCL has no algorithm for (all-to-all), nodes past
    /// [`crate::predict::FIT_NODES`], a size out of range.
    pub fn new(system: &System, collective: &str, sizes: &[u64]) -> Result<TunerPlan, ApiError> {
        let system = system.check(crate::predict::FIT_NODES)?;
        let collective: Collective = collective.parse().map_err(|e: String| ApiError::problem("collective", e))?;
        if tuner::nccl_collective(collective).is_none() {
            return Err(ApiError::problem(
                "export",
                "NCCL runs all-to-all as grouped sends and receives: it has no algorithm to tune",
            ));
        }
        let mut sorted = sizes.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let description = system.nccl();
        let plans = sorted
            .into_iter()
            .map(|bytes| {
                commlab_core::limits::BYTES.check(bytes)?;
                let model = nccl::predict(&description, collective, bytes);
                let pick = model.as_ref().map_or((Algorithm::Ring, Protocol::Simple), nccl::Prediction::choice);
                let candidates = model
                    .iter()
                    .flat_map(|m| m.times.iter())
                    .filter(|(a, _, t)| t.is_finite() && *t >= 0.0 && crate::predict::simulable(collective, *a))
                    .map(|&(algorithm, protocol, _)| {
                        let planned = plan_as(&system, collective, bytes, Some(algorithm), protocol);
                        Candidate { algorithm, protocol, planned }
                    })
                    .collect();
                Ok(SizePlan { bytes, pick, candidates })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        if plans.is_empty() {
            return Err(ApiError::problem("bytes", "no size to advise on"));
        }
        Ok(TunerPlan { system, collective, sizes: plans })
    }

    /// The page's plan: NCCL's candidates on the System shown at the
    /// comparison's `sizes`, where there is a System and `p` is all its GPUs.
    ///
    /// # Errors
    /// What the page says instead: no System ([`NO_SYSTEM_PAGE`]), `p` not
    /// all its GPUs, or the plan's refusal.
    pub fn on_page(system: Option<&System>, p: u32, collective: &str, sizes: &[u64]) -> Result<TunerPlan, String> {
        let system = system.ok_or(NO_SYSTEM_PAGE)?;
        if !system.covers(p) {
            return Err(format!(
                "{}: NCCL's file is written for the system described, with p all its GPUs.",
                system.not_all(p)
            ));
        }
        TunerPlan::new(system, collective, sizes).map_err(|e| e.to_string())
    }

    /// Whether the page asks NCCL's gain sentence on `system` (NCCL shown,
    /// `p` all its GPUs, a collective NCCL has algorithms for, nodes a fit
    /// simulates and at most [`GAIN_RANKS`] ranks): its candidates simulated
    /// in a worker of their own.
    pub fn gain_asked(system: &System, p: u32, collective: Collective) -> bool {
        system.covers(p)
            && tuner::nccl_collective(collective).is_some()
            && crate::predict::FIT_NODES.contains(u64::from(system.nodes))
            && system.ranks() <= GAIN_RANKS
    }

    /// What the page says in place of NCCL's gain sentence on `system`
    /// where it does not ask it for its size ([`TunerPlan::gain_asked`]:
    /// more than [`crate::predict::FIT_NODES`] nodes or [`GAIN_RANKS`]
    /// ranks), so that it never asks for a System that is picked.
    pub fn gain_skipped(system: &System, p: u32, collective: Collective) -> Option<String> {
        (system.covers(p)
            && tuner::nccl_collective(collective).is_some()
            && !TunerPlan::gain_asked(system, p, collective))
        .then(|| {
            format!(
                "NCCL: what its other algorithms and protocols would gain is not simulated on {} × {} ({} ranks: their runs take minutes); the expected curve is its own pick.",
                system.nodes,
                system.short_name(),
                system.ranks()
            )
        })
    }

    /// Every candidate's run, size by size (what [`TunerPlan::file`] takes the times of).
    pub fn planned(&self) -> Vec<Planned> {
        self.sizes.iter().flat_map(|s| s.candidates.iter().map(|c| c.planned.clone())).collect()
    }

    /// The candidates simulated here (the CLI; the page asks its worker), µs.
    ///
    /// # Errors
    /// A network the simulator refuses.
    pub fn simulate(&self) -> Result<Vec<f64>, ApiError> {
        crate::sysfit::times_at(&self.planned(), crate::predict::Scales::NOMINAL)
    }

    /// What to do at each size: `None` keeps NCCL's pick; the reason.
    fn decisions(&self, times_us: &[f64]) -> Vec<(Option<(Algorithm, Protocol)>, String)> {
        let mut at = 0;
        self.sizes
            .iter()
            .map(|size| {
                let times = &times_us[at..at + size.candidates.len()];
                at += size.candidates.len();
                let best = (0..times.len()).min_by(|&a, &b| times[a].total_cmp(&times[b]));
                let own = size.candidates.iter().position(|c| (c.algorithm, c.protocol) == size.pick);
                let name = |(a, p): (Algorithm, Protocol)| format!("{a}/{p}");
                match (best, own) {
                    (None, _) => (None, format!("NCCL's pick {} kept: nothing else to simulate", name(size.pick))),
                    (Some(_), None) => (
                        None,
                        format!(
                            "NCCL's pick {} kept: the network does not simulate it, so nothing is known to beat it",
                            name(size.pick)
                        ),
                    ),
                    (Some(b), Some(o)) => {
                        let gain = 1.0 - times[b] / times[o];
                        let fastest = &size.candidates[b];
                        if gain < MIN_GAIN {
                            (
                                None,
                                format!(
                                    "NCCL's pick {} kept: within {:.0} % of the fastest simulated",
                                    name(size.pick),
                                    MIN_GAIN * 100.0
                                ),
                            )
                        } else {
                            (
                                Some((fastest.algorithm, fastest.protocol)),
                                format!(
                                    "at {}, {} simulates {:.0} % faster than NCCL's pick {} ({:.1} µs against {:.1} µs)",
                                    commlab_plot::format_bytes(size.bytes),
                                    name((fastest.algorithm, fastest.protocol)),
                                    gain * 100.0,
                                    name(size.pick),
                                    times[b],
                                    times[o]
                                ),
                            )
                        }
                    }
                }
            })
            .collect()
    }

    /// What NCCL would gain among its own (algorithm, protocol) pairs,
    /// simulated with NCCL's per-step costs (as the System's expected curve
    /// is), from the candidates' times (µs, in [`TunerPlan::planned`]'s
    /// order): the page's and `commlab choose`'s sentence on a System.
    pub fn gain_sentence(&self, times_us: &[f64]) -> String {
        let name = |(a, p): (Algorithm, Protocol)| format!("{a}/{p}");
        let (mut at, mut compared, mut kept) = (0, 0, 0);
        let mut best: Option<(f64, u64, String, String)> = None;
        for size in &self.sizes {
            let times = &times_us[at.min(times_us.len())..(at + size.candidates.len()).min(times_us.len())];
            at += size.candidates.len();
            let own = size.candidates.iter().position(|c| (c.algorithm, c.protocol) == size.pick);
            let fastest = (0..times.len()).min_by(|&a, &b| times[a].total_cmp(&times[b]));
            let (Some(o), Some(f)) = (own, fastest) else { continue };
            compared += 1;
            let share = 1.0 - times[f] / times[o];
            if share < MIN_GAIN {
                kept += 1;
            }
            if best.as_ref().is_none_or(|b| share > b.0) {
                let c = &size.candidates[f];
                best = Some((share, size.bytes, name((c.algorithm, c.protocol)), name(size.pick)));
            }
        }
        let on = format!("{} × {}", self.system.nodes, self.system.preset.id);
        let left = self.sizes.len() - compared;
        let uncompared = if left > 0 {
            format!(
                "; {left} {} not compared (NCCL's pick is not simulated there)",
                if left == 1 { "size" } else { "sizes" }
            )
        } else {
            String::new()
        };
        match best {
            Some((share, bytes, fastest, pick)) if share >= MIN_GAIN => format!(
                "NCCL on {on}: its own algorithms and protocols simulated with NCCL's per-step costs (as the expected curve): following the simulation would save up to {:.0} % (at {}: {fastest} in place of its {pick}); its pick is within {:.0} % of the fastest at {kept} of {compared} sizes{uncompared}.",
                share * 100.0,
                commlab_plot::format_bytes(bytes),
                MIN_GAIN * 100.0
            ),
            Some(_) => format!(
                "NCCL on {on}: its pick is within {:.0} % of the fastest of its own algorithms and protocols, simulated with NCCL's per-step costs (as the expected curve), at every size compared ({compared}){uncompared}.",
                MIN_GAIN * 100.0
            ),
            None => format!("NCCL on {on}: none of its picks is simulated here, so nothing is compared."),
        }
    }

    /// Writes the file from the candidates' times (µs, in [`TunerPlan::planned`]'s order).
    ///
    /// # Errors
    /// A list of times of another length.
    pub fn file(&self, times_us: &[f64]) -> Result<Advice, ApiError> {
        let count: usize = self.sizes.iter().map(|s| s.candidates.len()).sum();
        if times_us.len() != count {
            return Err(ApiError::problem("export", "one simulated time per candidate"));
        }
        let decisions = self.decisions(times_us);
        let mut bands: Vec<Band> = Vec::new();
        for (size, (write, reason)) in self.sizes.iter().zip(decisions) {
            match bands.last_mut() {
                Some(last) if last.write == write && (write.is_some() || last.reason == reason) => {
                    last.hi = size.bytes;
                }
                _ => bands.push(Band { lo: size.bytes, hi: size.bytes, write, reason }),
            }
        }
        // A band covers the sizes up to the next band's first.
        for k in 1..bands.len() {
            bands[k - 1].hi = bands[k].lo - 1;
        }
        let p = self.system.ranks();
        let name = tuner::nccl_collective(self.collective).unwrap_or("allreduce");
        let mut text = format!(
            "# commlab: NCCL tuner configuration (NCCL_TUNER_CONFIG_FILE) for {} × {} ({p} ranks), {}, under {}'s model\n",
            self.system.preset.id,
            self.system.nodes,
            self.collective,
            self.system.version.label()
        );
        let _ = writeln!(
            text,
            "# NCCL's algorithms simulated on the system with a channel per rail; a line only where one beats\n# NCCL's own pick by {:.0} % or more. Sizes outside {}–{} are left to NCCL.",
            MIN_GAIN * 100.0,
            commlab_plot::format_bytes(self.sizes[0].bytes),
            commlab_plot::format_bytes(bands.last().map_or(0, |b| b.hi))
        );
        text.push_str(
            "# collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n",
        );
        for band in &bands {
            let range = format!("{}–{}", commlab_plot::format_bytes(band.lo), commlab_plot::format_bytes(band.hi));
            let _ = writeln!(text, "# {range}: {}", band.reason);
            if let Some((alg, proto)) = band.write {
                let _ =
                    writeln!(text, "{name},{},{},{alg},{proto},-1,{},{p},-1,-1", band.lo, band.hi, self.system.nodes);
            }
        }
        Ok(Advice { text, bands, file_name: format!("commlab-{}-nccl-tuner.conf", self.collective.id()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commlab_core::libraries::nccl::Version;

    /// The page's tuner file needs a System and p all its GPUs, and is
    /// made under the System's NCCL release; NCCL's gain is asked where a
    /// fit's nodes simulate NCCL's own algorithms.
    #[test]
    fn the_page_s_plan_needs_a_system_and_all_its_gpus() {
        let sizes = [1 << 20, 1 << 24];
        assert_eq!(TunerPlan::on_page(None, 16, "allreduce", &sizes).unwrap_err(), NO_SYSTEM_PAGE);
        let s = System::parse("dgx-h100", 2, Version::V2_22, crate::system::NODES).unwrap();
        let e = TunerPlan::on_page(Some(&s), 8, "allreduce", &sizes).unwrap_err();
        assert!(e.starts_with("p = 8 is not the 16 GPUs of 2 × dgx-h100: "), "{e}");
        let plan = TunerPlan::on_page(Some(&s), 16, "allreduce", &sizes).unwrap();
        assert_eq!(plan.system.version, Version::V2_22);
        assert!(TunerPlan::on_page(Some(&s), 16, "all-to-all", &sizes).unwrap_err().contains("grouped sends"));
        assert!(TunerPlan::gain_asked(&s, 16, Collective::Allreduce));
        assert!(!TunerPlan::gain_asked(&s, 8, Collective::Allreduce));
        assert!(!TunerPlan::gain_asked(&s, 16, Collective::AllToAll));
        assert!(!TunerPlan::gain_asked(&s.with_nodes(16), 128, Collective::Allreduce), "past a fit's nodes");
    }
}

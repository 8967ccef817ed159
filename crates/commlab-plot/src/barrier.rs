//! Figures of the barrier experiments: delay vs number of nodes per algorithm,
//! the delay range over break rates, the UQ(LCT) − UQ(BST) histogram, and the
//! `round(K)` worked example on a small mesh.

use crate::model::{with_axes, Span};
use crate::svg::{wrap, Svg};
use crate::{format_quantity, PlotError, Theme};
use commlab_core::barrier::algorithm::Algorithm;
use commlab_core::barrier::encoding::Numbering;
use commlab_core::barrier::experiment::Point;
use commlab_core::barrier::mesh::{Mesh, NodeId};
use commlab_core::barrier::uq::{RoundChange, UsedLink};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Colours of the algorithms after the twelve of the swizzle palette.
const MORE: [RGBColor; 3] = [RGBColor(178, 34, 34), RGBColor(119, 221, 119), RGBColor(140, 140, 140)];

/// A colour per algorithm: the twelve-colour palette of the swizzle views,
/// then three more, so no two algorithms share one.
pub fn algorithm_color(a: Algorithm) -> RGBColor {
    let i = Algorithm::ALL.iter().position(|&x| x == a).unwrap_or(0);
    if i < 12 {
        crate::swizzle::color(i as u32)
    } else {
        MORE[(i - 12) % MORE.len()]
    }
}

/// Mean delay vs nodes, one line per algorithm, at break rate `rate`; the
/// seeds' min–max as whiskers.
///
/// # Errors
/// When the backend fails.
pub fn delay_vs_nodes<DB>(
    root: &DrawingArea<DB, Shift>,
    points: &[Point],
    rate: f64,
    theme: &Theme,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&theme.background)?;
    let at: Vec<&Point> = points.iter().filter(|p| (p.rate - rate).abs() < 1e-9).collect();
    let nodes = |p: &Point| (p.size * p.size) as f64;
    let x = Span::units(
        at.iter().map(|p| p.size * p.size).min().unwrap_or(1),
        at.iter().map(|p| p.size * p.size).max().unwrap_or(2),
    );
    let y = Span::of(at.iter().flat_map(|p| [p.min.max(1.0), p.max.max(1.0)]));
    let caption = format!("Barrier delay vs nodes, {} % links broken", format_quantity(rate * 100.0));
    with_axes(root, [&caption, "nodes", "delay (ticks)"], theme, (&x, &y), |f| {
        for a in Algorithm::ALL {
            let series: Vec<&&Point> = at.iter().filter(|p| p.algorithm == a).collect();
            if series.is_empty() {
                continue;
            }
            let style = algorithm_color(a).stroke_width(2);
            let line: Vec<(f64, f64)> = series.iter().map(|p| (nodes(p), p.mean.max(1.0))).collect();
            f.line(&line, style, a.id())?;
            let whiskers: Vec<_> = series
                .iter()
                .filter(|p| p.max > p.min)
                .map(|p| ((nodes(p), p.min.max(1.0)), (nodes(p), p.max.max(1.0))))
                .collect();
            f.bare_segments(&whiskers, algorithm_color(a).stroke_width(1))?;
        }
        Ok(())
    })
}

/// For each algorithm and size, the range of mean delay over the break rates
/// (a vertical bar from the smallest to the largest), offset per algorithm.
///
/// # Errors
/// When the backend fails.
pub fn delay_range<DB>(
    root: &DrawingArea<DB, Shift>,
    points: &[Point],
    algorithms: &[Algorithm],
    theme: &Theme,
) -> Result<u32, PlotError>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&theme.background)?;
    let mut sizes: Vec<u64> = points.iter().map(|p| p.size * p.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let x = Span::units(sizes.first().copied().unwrap_or(1) / 2 + 1, sizes.last().copied().unwrap_or(2) * 2);
    let y = Span::of(points.iter().map(|p| p.mean.max(1.0)));
    let rates: Vec<f64> = points.iter().map(|p| p.rate).fold(Vec::new(), |mut v, r| {
        if !v.contains(&r) {
            v.push(r);
        }
        v
    });
    let (lo, hi) = (rates.iter().copied().fold(f64::INFINITY, f64::min), rates.iter().copied().fold(0.0, f64::max));
    let caption =
        format!("Delay range over {}–{} % broken links", format_quantity(lo * 100.0), format_quantity(hi * 100.0));
    with_axes(root, [&caption, "nodes", "mean delay (ticks)"], theme, (&x, &y), |f| {
        for (i, &a) in algorithms.iter().enumerate() {
            let offset = 1.0 + 0.12 * (i as f64 - (algorithms.len() as f64 - 1.0) / 2.0);
            let mut bars = Vec::new();
            let mut intact = Vec::new();
            for &n in &sizes {
                let at: Vec<&Point> = points.iter().filter(|p| p.algorithm == a && p.size * p.size == n).collect();
                if at.is_empty() {
                    continue;
                }
                let (min, max) = at.iter().fold((f64::INFINITY, 0.0_f64), |(a, b), p| (a.min(p.mean), b.max(p.mean)));
                let xpos = n as f64 * offset;
                bars.push(((xpos, min.max(1.0)), (xpos, max.max(1.0))));
                if let Some(p) = at.iter().find(|p| p.rate == lo) {
                    intact.push((xpos, p.mean.max(1.0)));
                }
            }
            f.segments(&bars, algorithm_color(a).stroke_width(5), a.id())?;
            f.dots(&intact, 3, theme.foreground.filled(), &format!("{} at {} %", a.id(), format_quantity(lo * 100.0)))?;
        }
        Ok(())
    })
}

/// Histogram of `UQ(LCT) − UQ(BST)` over all conversions, 20 bins on `[−1, 1]`,
/// bars above the axis; LCT-larger bins in the primary colour. Laid out for
/// a box `width` px wide (at most 710).
pub fn uq_histogram(diffs: &[f64], lct_mean: f64, bst_mean: f64, width: f64, theme: &Theme) -> String {
    let counts = uq_bins(diffs);
    let (bst_larger, equal, lct_larger) =
        (counts[..HALF].iter().sum::<usize>(), counts[HALF], counts[HALF + 1..].iter().sum::<usize>());
    let peak = counts.iter().copied().max().unwrap_or(1).max(1);
    let left = 50.0;
    let w = width.min(710.0) - left - 20.0;
    let title = wrap(
        &format!(
            "UQ(LCT) − UQ(BST) over {} conversions: mean UQ(LCT) = {}, mean UQ(BST) = {}",
            diffs.len(),
            format_quantity(lct_mean),
            format_quantity(bst_mean)
        ),
        13.0,
        w + 8.0,
    );
    let footer = wrap(
        &format!("LCT changes more links in {lct_larger} (right), BST in {bst_larger} (left), both the same share in {equal} (the middle bar, exactly 0)"),
        12.0,
        w + 8.0,
    );
    let (top, h) = (22.0 + 18.0 * title.len() as f64, 240.0);
    let height = top + h + 36.0 + 16.0 * footer.len() as f64;
    let mut svg = Svg::new(left + w + 20.0, height, theme.background, "UQ(LCT) − UQ(BST) over all conversions");
    for (i, line) in title.iter().enumerate() {
        svg.text((left, 20.0 + 18.0 * i as f64), line, 13.0, theme.foreground, "start", r#"font-weight="600""#);
    }
    let bar = w / counts.len() as f64;
    for (i, &c) in counts.iter().enumerate() {
        let bh = h * c as f64 / peak as f64;
        let fill = match i.cmp(&HALF) {
            std::cmp::Ordering::Less => theme.reference,
            std::cmp::Ordering::Equal => theme.grid,
            std::cmp::Ordering::Greater => theme.primary,
        };
        svg.rect((left + bar * i as f64 + 1.0, top + h - bh), (bar - 2.0, bh), fill, &format!(r#"data-count="{c}""#));
        if c > 0 {
            svg.text(
                (left + bar * (i as f64 + 0.5), top + h - bh - 4.0),
                &c.to_string(),
                12.0,
                theme.foreground,
                "middle",
                "",
            );
        }
    }
    svg.line((left, top + h), (left + w, top + h), theme.foreground, 1.0, "");
    // Axis: −1 … 0 over the left bins, the zero bar in the middle, 0 … 1 over the right bins.
    let at = |v: f64| {
        let slot = if v < 0.0 {
            (v + 1.0) * HALF as f64
        } else if v > 0.0 {
            HALF as f64 + 1.0 + v * HALF as f64
        } else {
            HALF as f64 + 0.5
        };
        left + bar * slot
    };
    for (v, label) in [(-1.0, "−1"), (-0.5, "−0.5"), (0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
        svg.text((at(v), top + h + 16.0), label, 12.0, theme.foreground, "middle", "");
    }
    for (i, line) in footer.iter().enumerate() {
        svg.text((left, top + h + 38.0 + 16.0 * i as f64), line, 12.0, theme.foreground, "start", "");
    }
    svg.finish()
}

/// Bins of the UQ histogram: `HALF` bins of width 0.1 over `[−1, 0)`, one bar
/// of the differences that are exactly 0 (within 1e-12), `HALF` over `(0, 1]`.
const HALF: usize = 10;

/// Counts per bar of [`uq_histogram`] (left to right).
pub fn uq_bins(diffs: &[f64]) -> [usize; 2 * HALF + 1] {
    let mut counts = [0usize; 2 * HALF + 1];
    for &d in diffs {
        let bin = if d.abs() <= 1e-12 {
            HALF
        } else if d < 0.0 {
            (((d + 1.0) * HALF as f64).floor() as usize).min(HALF - 1)
        } else {
            HALF + 1 + ((d * HALF as f64).floor() as usize).min(HALF - 1)
        };
        counts[bin] += 1;
    }
    counts
}

/// One panel of the worked example: the mesh with node ids and the used links bold.
pub struct ExamplePanel<'a> {
    /// Title (`LCT, before round(1)`).
    pub title: String,
    /// Node ids to write.
    pub ids: Vec<u32>,
    /// Links in use.
    pub links: &'a [UsedLink],
}

/// The `round(K)` worked example: panels side by side, in as many rows as a
/// box `width` px wide needs, with the notes wrapped under them.
pub fn uq_example(mesh: &Mesh, panels: &[ExamplePanel<'_>], notes: &[String], width: f64, theme: &Theme) -> String {
    let side = mesh.size();
    let cell = (180.0 / f64::from(side)).min(48.0);
    let panel_w = cell * f64::from(side) + 40.0;
    let per_row = (((width - 20.0) / panel_w).floor() as usize).clamp(1, panels.len().max(1));
    let panel_h = cell * f64::from(side) + 50.0;
    let width = panel_w * per_row as f64 + 20.0;
    let notes: Vec<String> = notes.iter().flat_map(|n| wrap(n, 12.0, width - 28.0)).collect();
    let rows = panels.len().div_ceil(per_row).max(1);
    let height = panel_h * rows as f64 + 20.0 + 16.0 * notes.len() as f64;
    let mut svg = Svg::new(width, height, theme.background, "round(K) worked example");
    let origin = |p: usize| (20.0 + panel_w * (p % per_row) as f64, panel_h * (p / per_row) as f64);
    let pos = |p: usize, n: NodeId| {
        let (x, y) = mesh.coords(n);
        let (ox, oy) = origin(p);
        (ox + cell * (f64::from(y) + 0.5), oy + 40.0 + cell * (f64::from(x) + 0.5))
    };
    for (p, panel) in panels.iter().enumerate() {
        svg.text(
            (origin(p).0, origin(p).1 + 20.0),
            &panel.title,
            12.0,
            theme.foreground,
            "start",
            r#"font-weight="600""#,
        );
        for l in 0..mesh.link_count() {
            let (a, b) = mesh.endpoints(l);
            svg.line(pos(p, a), pos(p, b), theme.grid, 1.0, "");
        }
        for &(a, b) in panel.links {
            svg.line(pos(p, a), pos(p, b), theme.primary, 4.0, r#"stroke-linecap="round""#);
        }
        for n in 0..mesh.nodes() {
            svg.circle(pos(p, n), 9.0, Some(theme.background), theme.foreground, "");
            let (cx, cy) = pos(p, n);
            svg.text((cx, cy + 4.0), &panel.ids[n as usize].to_string(), 11.0, theme.foreground, "middle", "");
        }
    }
    for (i, note) in notes.iter().enumerate() {
        svg.text((20.0, panel_h * rows as f64 + 10.0 + 16.0 * i as f64), note, 12.0, theme.foreground, "start", "");
    }
    svg.finish()
}

/// The before/after `round(k)` panels of [`round_changes`] (both
/// numberings side by side, used links bold), with one note per structure,
/// laid out for a box `width` px wide.
///
/// [`round_changes`]: commlab_core::barrier::uq::round_changes
pub fn round_figure(
    mesh: &Mesh,
    numbering: &Numbering,
    (k, width): (u32, f64),
    changes: &[RoundChange],
    theme: &Theme,
) -> String {
    let ids = |shift: u32| (0..mesh.nodes()).map(|n| numbering.id(n, shift)).collect::<Vec<_>>();
    let panels: Vec<ExamplePanel<'_>> = changes
        .iter()
        .flat_map(|c| {
            [
                ExamplePanel { title: format!("{}, before", c.name), ids: ids(0), links: &c.before },
                ExamplePanel { title: format!("{}, after round({k})", c.name), ids: ids(k), links: &c.after },
            ]
        })
        .collect();
    let notes: Vec<String> = changes.iter().map(RoundChange::note).collect();
    uq_example(mesh, &panels, &notes, width, theme)
}

#[cfg(test)]
mod histogram_tests {
    use super::*;

    #[test]
    fn zero_differences_have_their_own_bar() {
        let counts = uq_bins(&[0.0, 1e-15, -0.05, 0.05, 1.0, -1.0, 0.1, -0.1, 0.0]);
        assert_eq!(counts[HALF], 3, "exact zeros (and rounding noise) in the middle bar");
        assert_eq!(counts[HALF + 1], 1, "0.05 is in (0, 0.1)");
        assert_eq!(counts[HALF - 1], 2, "−0.05 and −0.1 are in [−0.1, 0)");
        assert_eq!(counts[2 * HALF], 1, "1 in the last bin");
        assert_eq!(counts[0], 1, "−1 in the first bin");
        assert_eq!(counts[HALF + 2], 1, "0.1 opens the second positive bin");
        assert_eq!(counts.iter().sum::<usize>(), 9);
        let svg = uq_histogram(&[0.0, 0.2, -0.3], 0.5, 0.4, 900.0, &Theme::LIGHT);
        assert!(
            svg.contains("LCT changes more links in 1 (right), BST in 1 (left), both the same share in 1"),
            "{svg}"
        );
    }
}

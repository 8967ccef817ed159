//! The model charts render natively to SVG with every marker the view promises.

use commlab_core::model::ModelConfig;
use commlab_plot::model::{pieces_chart, units_chart};
use commlab_plot::{render_svg, Theme};

fn pieces_svg(model: &ModelConfig, chosen: u64) -> String {
    render_svg(640, 360, |root| pieces_chart(root, model, chosen, [&[], &[]], &Theme::LIGHT)).unwrap()
}

#[test]
fn pieces_chart_marks_optimum_best_and_chosen() {
    let model = ModelConfig::new(1 << 20, 64, 10.0, 0.001, 1024).unwrap();
    let svg = pieces_svg(&model, 16);
    for label in ["m* = 80.6", "best m = 81", "m = 16", "binomial tree 6351", "pieces m", "time T"] {
        assert!(svg.contains(label), "missing {label:?}");
    }
    assert!(svg.contains("<polyline"), "the T(m) curve is drawn");
}

#[test]
fn charts_survive_degenerate_models() {
    for (n, p, ts, tb, max) in
        [(1, 1, 0.0, 0.0, 1), (1 << 40, 1 << 20, 1e9, 1e6, 1 << 20), (5, 2, 0.0, 1.0, 1), (100, 50, 0.0, 1.0, 64)]
    {
        let model = ModelConfig::new(n, p, ts, tb, max).unwrap();
        let svg = pieces_svg(&model, 3);
        assert!(svg.starts_with("<svg"), "n={n} p={p}");
        assert!(!svg.contains("NaN"), "n={n} p={p}: NaN coordinates");
        let svg = render_svg(640, 360, |root| units_chart(root, &model, 3, 4 * p, &[], &Theme::DARK)).unwrap();
        assert!(!svg.contains("NaN"), "units chart n={n} p={p}");
    }
}

#[test]
fn units_chart_compares_pipeline_and_binomial() {
    let model = ModelConfig::new(1 << 20, 64, 10.0, 0.001, 1024).unwrap();
    let svg = render_svg(640, 360, |root| units_chart(root, &model, 16, 256, &[], &Theme::DARK)).unwrap();
    // Legend entries wrap at 20 characters in their strip.
    for label in ["binomial tree", "pipeline, m = 16", "pipeline, best m for each p", "p = 64"] {
        for line in commlab_plot::model::wrap_words(label, 20) {
            assert!(svg.contains(&line), "missing {line:?} of {label:?}");
        }
    }
}

#[test]
fn mesh_scene_marks_breaks_and_clicks_find_links() {
    use commlab_core::barrier::engine::Scenario;
    use commlab_core::barrier::replay::Replay;
    use commlab_plot::mesh::{mesh_scene, scene_svg, MeshLayout, MeshOptions, Shape};
    let replay =
        Replay::new(Scenario { size: 6, break_rate: 0.2, seed: 3, connected: true, ..Scenario::default() }).unwrap();
    let mesh = replay.mesh;
    // Every link's midpoint maps back to that link; node centres to none.
    let layout = MeshLayout::new(6, 480.0);
    for link in 0..mesh.link_count() {
        let (a, b) = mesh.endpoints(link);
        let (pa, pb) = (layout.position(&mesh, a), layout.position(&mesh, b));
        let mid = (f64::midpoint(pa.0, pb.0), f64::midpoint(pa.1, pb.1));
        assert_eq!(layout.link_at(&mesh, mid.0, mid.1), Some(link));
        assert_eq!(layout.link_at(&mesh, pa.0 + 0.45 * layout.cell, pa.1 + 0.45 * layout.cell), None);
        // A click on a node (near its centre, also just beside it) flips nothing.
        for (dx, dy) in [(0.0, 0.0), (0.15, 0.0), (0.0, -0.15), (0.1, 0.1)] {
            assert_eq!(layout.link_at(&mesh, pa.0 + dx * layout.cell, pa.1 + dy * layout.cell), None, "node of {link}");
        }
        // A third of the way along the link still is the link.
        let third = (pa.0 + (pb.0 - pa.0) / 3.0, pa.1 + (pb.1 - pa.1) / 3.0);
        assert_eq!(layout.link_at(&mesh, third.0, third.1), Some(link));
    }
    let options = MeshOptions { pattern: true, heat: true };
    let start = mesh_scene(&replay, 0, 480.0, options, &Theme::LIGHT);
    let dashed = start.shapes.iter().filter(|s| matches!(s, Shape::Line { dashed: true, .. })).count();
    assert_eq!(dashed, replay.breaks.count());
    let labels: Vec<&str> = start
        .shapes
        .iter()
        .filter_map(|s| if let Shape::Text { text, .. } = s { Some(text.as_str()) } else { None })
        .collect();
    assert_eq!(labels.len(), 36);
    // Mid-run, message dots appear; the SVG names the state.
    let busy = (1..=replay.steps()).max_by_key(|&s| replay.in_flight(replay.tick(s)).len()).unwrap();
    let scene = mesh_scene(&replay, busy, 480.0, options, &Theme::DARK);
    assert!(scene.shapes.len() > start.shapes.len());
    let svg = scene_svg(&scene);
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains("messages under way"));
}

/// The values written under the tree's nodes (`font-family="monospace"`), in document order.
fn node_values(svg: &str) -> Vec<String> {
    svg.split("<text ")
        .filter(|t| t.contains(r#"font-family="monospace""#))
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].to_owned())
        .collect()
}

/// The tree picture carries the values: at every step of a p = 12 reduce (PRAM
/// and message passing), the numbers under the nodes are those of the spec's
/// loop `x_i ← x_i ⊕ x_{i+2^k}` for every unit still active, recomputed here.
#[test]
fn tree_picture_labels_are_the_replayed_values() {
    use commlab_core::reduce::values::{ValueTrace, Vectors};
    use commlab_core::reduce::{Collective, CollectiveConfig, Operator, Schedule};
    use commlab_plot::tree::{tree_svg, TreePicture};
    let p = 12usize;
    let inputs: Vec<i64> = (0..12i64).map(|i| 3 * i * i + 1).collect();
    let schedule = Schedule::collective(&CollectiveConfig::new(Collective::Reduce, p as u64, false).unwrap());
    let trace = ValueTrace::new(&schedule, Operator::Sum, 1, &Vectors::Int(inputs.clone()));
    // The spec's loop, row by row: (value, active) per unit.
    let mut rows = vec![inputs.iter().map(|&v| (v, true)).collect::<Vec<_>>()];
    for k in 0..4 {
        let mut next = rows[k].clone();
        for i in 0..p {
            if next[i].1 {
                if i & (1 << k) != 0 {
                    next[i].1 = false;
                } else if i + (1 << k) < p {
                    next[i].0 += rows[k][i + (1 << k)].0;
                }
            }
        }
        rows.push(next);
    }
    assert_eq!(rows[4][0].0, inputs.iter().sum::<i64>());
    for message_passing in [false, true] {
        for step in 0..=4 {
            let svg = tree_svg(
                &TreePicture { schedule: &schedule, trace: &trace, step, message_passing, width: 900.0 },
                &Theme::LIGHT,
            );
            let expected: Vec<String> = rows[..=step]
                .iter()
                .flat_map(|row| row.iter().filter(|(_, active)| *active).map(|(v, _)| v.to_string()))
                .collect();
            assert_eq!(node_values(&svg), expected, "step {step}, message passing {message_passing}");
        }
    }
}

/// The T(m) chart marks the best m that a brute force over every m ≤ n finds,
/// inside the chart's range and beyond it.
#[test]
fn pieces_chart_marks_the_brute_force_best() {
    for (n, p, ts, tb, max) in
        [(1u64 << 20, 64, 10.0, 0.001, 1024), (1 << 20, 1481, 1.0, 0.05, 1024), (4096, 9, 3.0, 0.5, 64)]
    {
        let model = ModelConfig::new(n, p, ts, tb, max).unwrap();
        let t = |m: u64| (ts + n as f64 / m as f64 * tb) * (p as f64 + m as f64 - 2.0);
        let best = (1..=n).min_by(|&a, &b| t(a).total_cmp(&t(b))).unwrap();
        let svg = pieces_svg(&model, 3);
        // (plotters ends a text with a newline before `</text>`.)
        let label = if best <= max {
            format!("best m = {best}\n</text>")
        } else {
            format!("best m = {best} (beyond max pieces)")
        };
        let at = svg.find("best m").map_or(String::new(), |i| format!("{:?}", &svg[i..(i + 30).min(svg.len())]));
        assert!(svg.contains(&label), "n={n} p={p}: {label:?} not in the chart: {at}");
    }
}

/// The numbers on a chart's axes: every `<text>` that is a plain number.
fn axis_numbers(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest.split('<').next().unwrap_or("").trim().to_owned()))
        .filter(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '\u{2009}' || c == '.'))
        .collect()
}

/// The runtime model's defaults (optimum T = 3 281): the T(m) axis labels
/// values below 10 000 where the optimum sits, and no chart repeats a label.
#[test]
fn log_axes_label_the_optimum_s_decade_and_never_repeat() {
    let model = ModelConfig::new(1 << 20, 64, 10.0, 0.001, 1024).unwrap();
    let pieces = axis_numbers(&pieces_svg(&model, 16));
    let value = |t: &str| t.replace('\u{2009}', "").parse::<f64>().unwrap();
    assert!(pieces.iter().any(|t| (2000.0..10_000.0).contains(&value(t))), "a label below 10 000: {pieces:?}");
    let units =
        axis_numbers(&render_svg(640, 360, |root| units_chart(root, &model, 16, 256, &[], &Theme::LIGHT)).unwrap());
    for labels in [&pieces, &units] {
        let mut seen = std::collections::HashSet::new();
        // An axis number may appear once per axis; the same number on both axes is fine, three times is not.
        let repeated: Vec<_> = labels.iter().filter(|t| !seen.insert((*t).clone())).collect();
        assert!(repeated.len() <= 1, "labels drawn twice: {repeated:?} in {labels:?}");
    }
}

/// The `x`, `width` of each `<rect>` filled with `fill`.
fn rects(svg: &str, fill: &str) -> Vec<(f64, f64)> {
    let attr = |tag: &str, name: &str| -> Option<f64> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        tag[at..].split('"').next()?.parse().ok()
    };
    svg.split("<rect")
        .skip(1)
        .filter(|t| t.contains(&format!("fill=\"{fill}\"")))
        .filter_map(|t| Some((attr(t, "x")?, attr(t, "width")?)))
        .collect()
}

#[test]
fn the_collisions_chart_spreads_a_few_steps_over_its_axis_and_names_them() {
    use commlab_core::swizzle::{CoreSplit, GridShape, Schedule, SwizzleConfig};
    // The swizzle view's default: 4 × 4 data tiles to 4 ranks on 3 × 4 cores.
    let config =
        SwizzleConfig::new(GridShape { row: 4, column: 4, rank: 4 }, CoreSplit { row: 3, column: 4 }, 0, false, true)
            .unwrap();
    let (s, naive) = (Schedule::new(&config), Schedule::new(&config.with_shift(false)));
    let steps = s.steps().max(naive.steps());
    assert!((2..=40).contains(&steps), "a schedule of a few steps: {steps}");
    let bars = commlab_plot::swizzle::CollisionBars::of(&s, &naive);
    let (svg, axis) = commlab_plot::swizzle::collisions_svg(&bars, 900.0, &Theme::LIGHT);
    let bars = rects(&svg, &commlab_plot::svg::hex(Theme::LIGHT.primary));
    assert_eq!(bars.len(), s.steps(), "one bar per step");
    // Before: 36 px bars left 60 % of the 720 px axis empty.
    let right = bars.iter().map(|(x, w)| x + w).fold(0.0, f64::max);
    assert!(right > axis.x0 + 0.9 * 720.0, "the bars reach across the axis: last ends at {right}");
    // Every step is labelled under its bar (few steps, wide columns).
    for step in 0..steps {
        assert!(svg.contains(&format!(">{step}</text>")), "step {step} labelled");
    }
}

#[test]
fn legend_entries_wrap_inside_their_strip() {
    use commlab_plot::model::wrap_words;
    let label = "chain-up-down: m* = √((p−2)·n·β′/α)";
    let lines = wrap_words(label, 20);
    assert_eq!(lines, ["chain-up-down: m* =", "√((p−2)·n·β′/α)"]);
    assert_eq!(wrap_words("binomial", 20), ["binomial"]);
    // The chooser's piece chart: every legend line fits the 200 px strip (≤ 20 characters).
    let sizes: Vec<u64> = (0..20).map(|k| 1u64 << k).collect();
    let series = vec![("chain-up-down".to_owned(), Theme::LIGHT.primary, sizes.iter().map(|_| 4).collect())];
    let m: Vec<f64> = sizes.iter().map(|&n| (n as f64).sqrt()).collect();
    let svg = render_svg(900, 420, |root| {
        commlab_plot::chooser::pieces_chart(root, "pieces", &sizes, &series, Some((label, m.clone())), &Theme::LIGHT)
    })
    .unwrap();
    assert!(svg.contains("\nchain-up-down: m* =\n") && svg.contains("\n√((p−2)·n·β′/α)\n"), "the label in two lines");
    assert!(!svg.contains(label), "never one line wider than the strip");
}

#[test]
fn the_winner_map_keeps_each_winner_s_colour_and_its_p_labels_apart() {
    use commlab_plot::chooser::{algorithm_color, winner_map_svg, MapInput};
    use commlab_plot::svg::hex;
    let algorithms: Vec<_> = (0..7).map(|i| (format!("alg{i}"), algorithm_color(i))).collect();
    // p = 1 … 65: labels every 9th row, and the top row just one row above the last of them.
    let ps: Vec<u32> = (1..=65).collect();
    let sizes: Vec<u64> = (0..41).map(|k| 1u64 << k).collect();
    let cells = ps.len() * sizes.len();
    let winner: Vec<u8> = (0..cells).map(|k| (k % 7) as u8).collect();
    let margin: Vec<f64> = (0..cells).map(|k| if k % 2 == 0 { 1.05 } else { 2.0 }).collect();
    let input =
        MapInput { algorithms: &algorithms, ps: &ps, sizes: &sizes, winner: &winner, margin: &margin, mark_p: None };
    let (svg, g) = winner_map_svg(&input, "map", 900.0, &Theme::LIGHT);
    // Close calls are the winner's own colour under stripes, never a paler tint.
    assert!(!svg.contains("fill-opacity"), "no tints");
    let striped = svg.matches(r#"fill="url(#commlab-map-near)""#).count();
    assert_eq!(striped, cells / 2 + cells % 2 + 1, "every close call is striped, and the legend's swatch");
    for (_, c) in &algorithms {
        assert!(svg.contains(&format!(r#"fill="{}""#, hex(*c))), "{c:?} drawn as itself");
    }
    // Any two algorithm colours differ clearly: CIE76 ΔE > 25 in L*a*b* (a
    // 45 % tint of the blue was ΔE ≈ 14 from the sky blue).
    for a in 0..7 {
        for b in a + 1..7 {
            let rgb = |i: usize| {
                let c = algorithm_color(i);
                (c.0, c.1, c.2)
            };
            let (x, y) = (lab(rgb(a)), lab(rgb(b)));
            let d = ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2)).sqrt();
            assert!(d > 25.0, "{a} and {b}: ΔE {d:.1}");
        }
    }
    // p labels: the left column's texts are at least 14 px apart, and the top row is named.
    let mut ys: Vec<f64> = svg
        .split("<text ")
        .filter(|t| t.contains(r#"text-anchor="end""#) && t.contains(&format!(r#"x="{:.1}""#, g.left - 6.0)))
        .filter_map(|t| t.split("y=\"").nth(1)?.split('"').next()?.parse().ok())
        .collect();
    ys.sort_by(f64::total_cmp);
    assert!(ys.len() >= 8, "{ys:?}");
    assert!(ys.windows(2).all(|w| w[1] - w[0] >= 14.0), "labels apart: {ys:?}");
    assert!(svg.contains(&format!(">{}</text>", ps[64])), "the top row is named");
}

/// sRGB → CIE L*a*b* (D65), the textbook formulas.
fn lab(rgb: (u8, u8, u8)) -> [f64; 3] {
    let linear = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (red, green, blue) = (linear(rgb.0), linear(rgb.1), linear(rgb.2));
    let x = (0.4124 * red + 0.3576 * green + 0.1805 * blue) / 0.95047;
    let y = 0.2126 * red + 0.7152 * green + 0.0722 * blue;
    let z = (0.0193 * red + 0.1192 * green + 0.9505 * blue) / 1.08883;
    let f = |t: f64| if t > 216.0 / 24389.0 { t.cbrt() } else { (24389.0 / 27.0 * t + 16.0) / 116.0 };
    [116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z))]
}

/// The winner map draws a row's run of one winner as one rectangle: at each
/// cell's centre, the last rectangle drawn there is the cell's winner (or
/// the stripes over it, for a close call, with the winner right below).
/// Checked against the cells one by one, on a blocky map like the real ones.
#[test]
fn the_winner_map_s_runs_paint_every_cell_as_its_winner() {
    use commlab_plot::chooser::{algorithm_color, winner_map_svg, MapInput};
    use commlab_plot::svg::hex;
    let algorithms: Vec<_> = (0..4).map(|i| (format!("alg{i}"), algorithm_color(i))).collect();
    let ps: Vec<u32> = (2..=65).collect();
    let sizes: Vec<u64> = (0..31).map(|k| 8u64 << k).collect();
    let (rows, cols) = (ps.len(), sizes.len());
    // Crossovers that move with p, and close calls around them.
    let cross = |i: usize| [5 + i / 8, 14 + i / 5, 24 + i / 16];
    let winner: Vec<u8> = (0..rows * cols)
        .map(|k| {
            let (i, j) = (k / cols, k % cols);
            u8::try_from(cross(i).iter().filter(|&&c| j >= c).count()).unwrap()
        })
        .collect();
    let margin: Vec<f64> =
        (0..rows * cols).map(|k| if cross(k / cols).contains(&(k % cols)) { 1.04 } else { 1.8 }).collect();
    let input =
        MapInput { algorithms: &algorithms, ps: &ps, sizes: &sizes, winner: &winner, margin: &margin, mark_p: None };
    let (svg, g) = winner_map_svg(&input, "map", 900.0, &commlab_plot::Theme::LIGHT);
    let attr = |tag: &str, name: &str| -> f64 {
        let at = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        tag[at..].split('"').next().unwrap().parse().unwrap()
    };
    let rects: Vec<(f64, f64, f64, f64, String)> = svg
        .split("<rect ")
        .skip(1)
        .filter(|t| t.starts_with("x="))
        .map(|t| {
            let fill = t[t.find("fill=\"").unwrap() + 6..].split('"').next().unwrap().to_owned();
            let t = format!(" {t}");
            (attr(&t, "x"), attr(&t, "y"), attr(&t, "width"), attr(&t, "height"), fill)
        })
        .collect();
    for i in 0..rows {
        for j in 0..cols {
            let (x, y) = (g.left + (j as f64 + 0.5) * g.cell_w, g.top + ((rows - 1 - i) as f64 + 0.5) * g.cell_h);
            let covering: Vec<&String> =
                rects.iter().filter(|r| r.0 <= x && x < r.0 + r.2 && r.1 <= y && y < r.1 + r.3).map(|r| &r.4).collect();
            let k = i * cols + j;
            let own = hex(algorithm_color(usize::from(winner[k])));
            if margin[k] < 1.1 {
                assert_eq!(covering.len(), 2, "cell {i},{j}: {covering:?}");
                assert_eq!((covering[0], covering[1].as_str()), (&own, "url(#commlab-map-near)"), "cell {i},{j}");
            } else {
                assert_eq!(covering, [&own], "cell {i},{j}");
            }
        }
    }
    // A few rectangles a row, not one a cell.
    let cells = rects.iter().filter(|r| r.1 >= g.top && r.1 < g.top + rows as f64 * g.cell_h).count();
    assert!(cells <= rows * 8, "{cells} rectangles for {rows} rows");
}

/// One `<text>` of a drawing: where it starts and ends (estimated at 0.5 em a
/// character, about what sans-serif averages), its size, and whether it is rotated.
struct Label {
    text: String,
    size: f64,
    left: f64,
    right: f64,
    rotated: bool,
}

/// An attribute's value in an element's opening tag.
fn attr(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(tag[start..start + tag[start..].find('"')?].to_owned())
}

/// The drawing's width and every text in it.
fn layout_of(svg: &str) -> (f64, Vec<Label>) {
    let head = &svg[..svg.find('>').unwrap()];
    let width: f64 = attr(head, "width").unwrap().parse().unwrap();
    let mut labels = Vec::new();
    for part in svg.split("<text").skip(1) {
        let tag = &part[..part.find('>').unwrap()];
        let text = part[part.find('>').unwrap() + 1..part.find("</text>").unwrap()].trim().to_owned();
        // Plotters writes its font size scaled (÷ 1.24) as an attribute, ours too.
        let size: f64 = attr(tag, "font-size").map_or(16.0, |s| s.parse().unwrap());
        let x: f64 = attr(tag, "x").map_or(0.0, |s| s.parse().unwrap());
        let w = text.chars().count() as f64 * size * 0.5;
        let (left, right) = match attr(tag, "text-anchor").as_deref() {
            Some("middle") => (x - w / 2.0, x + w / 2.0),
            Some("end") => (x - w, x),
            _ => (x, x + w),
        };
        labels.push(Label { text, size, left, right, rotated: tag.contains("rotate(") });
    }
    (width, labels)
}

/// `svg` fits `box_width` and every text in it is at least 11 px and inside the drawing.
fn assert_fits(name: &str, svg: &str, box_width: f64) {
    let (width, labels) = layout_of(svg);
    assert!(width <= box_width, "{name}: drawn {width} px wide for a {box_width} px box");
    assert!(!labels.is_empty(), "{name}: has text");
    for l in &labels {
        assert!(l.size >= 10.95, "{name}: {:?} at {} px", l.text, l.size);
        if !l.rotated {
            assert!(
                l.left >= -1.0 && l.right <= width + 1.0,
                "{name}: {:?} spans {:.0}–{:.0} of {width}",
                l.text,
                l.left,
                l.right
            );
        }
    }
}

/// Widths a drawing is checked at: a small phone's box, a phone's box
/// (390 px viewport less the page's margins and the figure's border is about
/// 369 px) and a tablet column just under the wide layout.
const PHONE_WIDTHS: [f64; 3] = [300.0, 360.0, 560.0];

/// Every plotters chart of the model and the Chooser is drawn for the box's
/// width, not wider, with every text at least 11 px and inside it.
#[test]
fn every_chart_fits_a_phone_s_box_with_legible_text() {
    use commlab_plot::chooser::{algorithm_color, Series};
    let t = &Theme::LIGHT;
    let model = ModelConfig::new(1 << 20, 64, 10.0, 0.001, 1024).unwrap();
    let sim = [commlab_plot::model::Marker { x: 4.0, y: 3000.0 }];
    let sizes: Vec<u64> = (0..21).map(|k| 8u64 << k).collect();
    // Six algorithms over 21 sizes with crossovers.
    let series: Vec<Series> = (0..6u32)
        .map(|i| Series {
            name: format!("algorithm-number-{i}"),
            color: algorithm_color(i as usize),
            times: sizes.iter().map(|&n| 10.0 * f64::from(i + 1) + n as f64 / f64::from(i + 1)).collect(),
            simulated: sizes.iter().map(|_| None).collect(),
            dashed: i == 5,
        })
        .collect();
    let pieces: Vec<(String, _, Vec<u32>)> =
        vec![("chain".into(), t.primary, sizes.iter().map(|&n| (n as f64).sqrt() as u32 + 1).collect())];
    for w in PHONE_WIDTHS {
        let wu = w as u32;
        let svg = render_svg(wu, 420, |root| pieces_chart(root, &model, 16, [&sim, &sim], t)).unwrap();
        assert_fits("model T(m)", &svg, w);
        assert!(svg.contains("on a line of hosts"), "the legend is drawn, below the plot");
        let svg = render_svg(wu, 420, |root| units_chart(root, &model, 16, 256, &sim, t)).unwrap();
        assert_fits("model T(p)", &svg, w);
        let caption = "allreduce on p = 256 on torus:16x16: simulated time vs message size";
        let svg = render_svg(wu, 420, |root| {
            let crossovers = [(1 << 12, 1), (1 << 20, 3)];
            commlab_plot::chooser::times_chart(
                root,
                [caption, "time (ns)", "simulated"],
                &sizes,
                &series,
                &crossovers,
                t,
            )
        })
        .unwrap();
        assert_fits("chooser times", &svg, w);
        let svg = render_svg(wu, 420, |root| {
            commlab_plot::chooser::pieces_chart(
                root,
                "Best piece count vs message size, p = 64",
                &sizes,
                &pieces,
                None,
                t,
            )
        })
        .unwrap();
        assert_fits("chooser pieces", &svg, w);
    }
}

/// The Chooser's, the lab's and the mesh's hand-drawn figures at a phone's widths.
#[test]
fn every_chooser_and_barrier_figure_fits_a_phone_s_box() {
    use commlab_core::barrier::algorithm::Algorithm;
    use commlab_core::barrier::experiment::Point;
    use commlab_plot::chooser::{algorithm_color, BandRow};
    let t = &Theme::LIGHT;
    let sizes: Vec<u64> = (0..21).map(|k| 8u64 << k).collect();
    let bars: Vec<(String, [f64; 3])> =
        (0..6u32).map(|i| (format!("chain-up-down (m = {i})"), [1.0 + f64::from(i), 2.0, 0.5])).collect();
    let algorithms: Vec<_> = (0..7).map(|i| (format!("alg{i}"), algorithm_color(i))).collect();
    let ps: Vec<u32> = (2..=64).collect();
    let cells = ps.len() * sizes.len();
    let winner: Vec<u8> = (0..cells).map(|k| (k % 7) as u8).collect();
    let margin = vec![2.0; cells];
    let input = commlab_plot::chooser::MapInput {
        algorithms: &algorithms,
        ps: &ps,
        sizes: &sizes,
        winner: &winner,
        margin: &margin,
        mark_p: Some(16),
    };
    let pick = "recursive doubling (ours: recursive-doubling)";
    let rows: Vec<BandRow> = ["MPICH 4.2", "Open MPI 5 (tuned)", "NCCL 2.19"]
        .iter()
        .map(|l| BandRow {
            library: (*l).to_owned(),
            cells: sizes.iter().map(|_| (None, pick.to_owned(), "h".to_owned())).collect(),
        })
        .collect();
    let points: Vec<Point> = [4u64, 8, 16, 32]
        .iter()
        .flat_map(|&size| {
            let mean = 10.0 * size as f64;
            Algorithm::ALL.into_iter().flat_map(move |algorithm| {
                [0.0, 0.1, 0.5].map(|rate| Point { algorithm, size, rate, mean, min: 9.0, max: 1.1 * mean, runs: 3 })
            })
        })
        .collect();
    let diffs: Vec<f64> = (0..200).map(|i| f64::from(i % 21 - 10) / 10.0).collect();
    for w in PHONE_WIDTHS {
        let wu = w as u32;
        let svg = commlab_plot::chooser::split_bars_svg("Where the time goes at 1 MiB on p = 64", &bars, 2, w, t);
        assert_fits("chooser split", &svg, w);
        let caption = "Fastest allreduce algorithm by p and message size (model)";
        let (svg, g) = commlab_plot::chooser::winner_map_svg(&input, caption, w, t);
        assert_fits("winner map", &svg, w);
        assert!(g.left + g.cell_w * g.cols as f64 <= w, "the cells inside the drawing");
        let caption = "What each library runs by default at p = 64 (colour: the algorithm of ours it runs)";
        assert_fits("library band", &commlab_plot::chooser::library_band_svg(caption, &sizes, &rows, w, t), w);
        let svg = render_svg(wu, 500, |root| commlab_plot::barrier::delay_vs_nodes(root, &points, 0.1, t)).unwrap();
        assert_fits("lab delay", &svg, w);
        let svg =
            render_svg(wu, 500, |root| commlab_plot::barrier::delay_range(root, &points, &Algorithm::ALL, t)).unwrap();
        assert_fits("lab range", &svg, w);
        assert_fits("uq histogram", &commlab_plot::barrier::uq_histogram(&diffs, 0.41, 0.37, w, t), w);
        for size in [4u64, 8] {
            let round = commlab_api::mesh::RoundRequest {
                size,
                encoding: "s-curve".into(),
                k: 1,
                links: "directed".into(),
                dark: false,
                width: wu,
            };
            assert_fits(&format!("round panel {size}"), &round.run().unwrap().svg, w);
        }
    }
}

/// The reduction views', the swizzle's and the schedule view's figures at a phone's widths.
#[test]
fn every_reduction_swizzle_and_schedule_figure_fits_a_phone_s_box() {
    use commlab_core::reduce::values::{ValueTrace, Vectors};
    use commlab_core::reduce::{Collective, CollectiveConfig, Operator, Schedule};
    use commlab_core::swizzle::{CoreSplit, GridShape, SwizzleConfig};
    let t = &Theme::LIGHT;
    // The view's default (4 × 2 × 8 tiles on 4 × 2 cores) and a 32-rank grid.
    let grid = |row, column, rank, cores: (u32, u32)| {
        let split = CoreSplit { row: cores.0, column: cores.1 };
        SwizzleConfig::new(GridShape { row, column, rank }, split, 0, false, true).unwrap()
    };
    let (config, wide) = (grid(4, 2, 8, (4, 2)), grid(8, 8, 32, (4, 4)));
    let s = commlab_core::swizzle::Schedule::new(&config);
    let naive = commlab_core::swizzle::Schedule::new(&config.with_shift(false));
    let times = [
        (
            "with the rank shift".to_owned(),
            150_801.0,
            "hottest link h3→sw: busy 149 000 ns, 3584 KiB, at most 1 flow at once".to_owned(),
        ),
        (
            "without (naive order)".to_owned(),
            302_950.0,
            "hottest link h0→sw: busy 301 000 ns, 3584 KiB, at most 4 flows at once".to_owned(),
        ),
    ];
    for w in PHONE_WIDTHS {
        // Trees of 8, 16 and 32 units, both styles, mid-run.
        for p in [8u64, 16, 32] {
            let schedule = Schedule::collective(&CollectiveConfig::new(Collective::Reduce, p, false).unwrap());
            let inputs: Vec<i64> = (0..p).map(|i| 1000 * i.cast_signed() + 7).collect();
            let trace = ValueTrace::new(&schedule, Operator::Sum, 1, &Vectors::Int(inputs));
            for message_passing in [false, true] {
                let picture = commlab_plot::tree::TreePicture {
                    schedule: &schedule,
                    trace: &trace,
                    step: 2,
                    message_passing,
                    width: w,
                };
                assert_fits(&format!("tree p = {p}"), &commlab_plot::tree::tree_svg(&picture, t), w);
            }
        }
        // Pipeline: the default run and the largest drawn one.
        for (p, m) in [(8u64, 4u64), (48, 73)] {
            let schedule = Schedule::pipeline(p, m).unwrap();
            assert_fits(&format!("pipeline p = {p}"), &commlab_plot::pipeline::pipeline_svg(&schedule, 64, 3, w, t), w);
        }
        let big = commlab_core::swizzle::Schedule::new(&wide);
        assert_fits("swizzle grid, 32 ranks", &commlab_plot::swizzle::grid_svg(&big, 3, w, t), w);
        assert_fits("swizzle grid", &commlab_plot::swizzle::grid_svg(&s, 3, w, t), w);
        assert_fits("swizzle timeline", &commlab_plot::swizzle::timeline_svg(&s, w, t).0, w);
        let bars = commlab_plot::swizzle::CollisionBars::of(&s, &naive);
        assert_fits("swizzle collisions", &commlab_plot::swizzle::collisions_svg(&bars, w, t).0, w);
        let caption = "The swizzle on switch:8: time with and without the rank shift";
        assert_fits("swizzle bars", &commlab_plot::swizzle::time_bars_svg(caption, &times, w, t), w);
        // The schedule view's finish-time histogram.
        let unit = commlab_plot::timeline::TimeUnit::Ns;
        let scene =
            commlab_plot::timeline::histogram(&[1, 4, 9, 2, 0, 7], (0.0, 1000.0), unit, w, t, "Finish time per rank");
        assert_fits("finish histogram", &commlab_plot::mesh::scene_svg(&scene), w);
    }
}

/// The narrow layout keeps every series in the legend, below the plot; the
/// wide one keeps the strip beside it (the desktop drawing is unchanged).
#[test]
fn narrow_charts_put_the_legend_below_and_wide_ones_beside() {
    let model = ModelConfig::new(1 << 20, 64, 10.0, 0.001, 1024).unwrap();
    let svg = render_svg(360, 420, |root| units_chart(root, &model, 16, 256, &[], &Theme::LIGHT)).unwrap();
    let (_, labels) = layout_of(&svg);
    let height: f64 = attr(&svg[..svg.find('>').unwrap()], "height").unwrap().parse().unwrap();
    // The plot keeps 240 px at 360 px wide (420 at 900 px), the legend adds its lines.
    assert_eq!(commlab_plot::plot_height(360, 420), 240);
    assert_eq!(commlab_plot::plot_height(600, 420), 280);
    assert!(height > 240.0 && height < 240.0 + 200.0, "taller by the legend only: {height}");
    let y_of = |text: &str| {
        let at = svg.find(&format!("\n{text}\n")).or_else(|| svg.find(&format!(">{text}<"))).unwrap();
        let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
        attr(tag, "y").unwrap().parse::<f64>().unwrap()
    };
    assert!(y_of("binomial tree") > 230.0, "the legend under the plot");
    assert!(
        labels.iter().any(|l| l.text.contains("pipeline, best m for each p")),
        "long entries on one line at 360 px"
    );
    let wide = render_svg(900, 420, |root| units_chart(root, &model, 16, 256, &[], &Theme::LIGHT)).unwrap();
    assert!(wide.starts_with(r#"<svg width="900" height="420""#), "{}", &wide[..60]);
}

/// On a phone the tree keeps its values where they fit a column and says
/// where they are where they do not.
#[test]
fn a_narrow_tree_writes_the_values_that_fit_and_says_where_the_others_are() {
    use commlab_core::reduce::values::{ValueTrace, Vectors};
    use commlab_core::reduce::{Collective, CollectiveConfig, Operator, Schedule};
    let schedule = Schedule::collective(&CollectiveConfig::new(Collective::Reduce, 8, false).unwrap());
    let draw = |inputs: Vec<i64>| {
        let trace = ValueTrace::new(&schedule, Operator::Sum, 1, &Vectors::Int(inputs));
        let picture = commlab_plot::tree::TreePicture {
            schedule: &schedule,
            trace: &trace,
            step: 1,
            message_passing: false,
            width: 360.0,
        };
        commlab_plot::tree::tree_svg(&picture, &Theme::LIGHT)
    };
    let small = draw((1..=8).collect());
    assert_eq!(node_values(&small)[..8], ["1", "2", "3", "4", "5", "6", "7", "8"]);
    assert!(!small.contains("in the table below"));
    let large = draw((1..=8).map(|i| 1_000_000 * i).collect());
    assert!(node_values(&large).is_empty() && large.contains("Values: in the table below."));
}

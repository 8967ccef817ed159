//! The model charts render natively to SVG with every marker the view promises.

use commlab_core::model::ModelConfig;
use commlab_plot::model::{pieces_chart, units_chart};
use commlab_plot::{render_svg, Theme};

fn pieces_svg(model: &ModelConfig, chosen: u64) -> String {
    render_svg(640, 360, |root| pieces_chart(root, model, chosen, &[], &Theme::LIGHT)).unwrap()
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
    for label in ["binomial tree", "pipeline, m = 16", "pipeline, best m for each p", "p = 64"] {
        assert!(svg.contains(label), "missing {label:?}");
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

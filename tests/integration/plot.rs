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

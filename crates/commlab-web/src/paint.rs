//! Paints a [`Scene`] on an `OffscreenCanvas` and returns the `ImageBitmap`:
//! the engine worker paints large mesh frames with it, the lazy bundle the
//! schedule timeline (an `OffscreenCanvas` works on the page too).

use commlab_plot::mesh::{Scene, Shape};
use commlab_plot::svg::hex;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{OffscreenCanvas, OffscreenCanvasRenderingContext2d};

/// Paints `scene` on an `OffscreenCanvas` `ratio` times its CSS size and
/// returns the `ImageBitmap`.
///
/// # Errors
/// When the browser refuses the canvas or its context.
pub fn paint(scene: &Scene, ratio: f64) -> Result<JsValue, JsValue> {
    let ratio = ratio.clamp(1.0, 3.0);
    let (width, height) = ((scene.width * ratio).ceil() as u32, (scene.height * ratio).ceil() as u32);
    let canvas = OffscreenCanvas::new(width.max(1), height.max(1))?;
    let ctx: OffscreenCanvasRenderingContext2d =
        canvas.get_context("2d")?.ok_or_else(|| JsValue::from_str("no 2d context"))?.unchecked_into();
    ctx.set_transform(ratio, 0.0, 0.0, ratio, 0.0, 0.0)?;
    ctx.set_fill_style_str(&hex(scene.background));
    ctx.fill_rect(0.0, 0.0, scene.width, scene.height);
    let no_dash = js_sys::Array::new();
    // Consecutive lines of one style are stroked as one path, and consecutive
    // circles of one style filled and outlined as one path: a picture of
    // 1 024 hosts makes 2 calls a host instead of 7.
    let mut run: Option<&Shape> = None;
    let flush = |ctx: &OffscreenCanvasRenderingContext2d, run: &mut Option<&Shape>| match run.take() {
        Some(Shape::Line { dashed, opacity, .. }) => {
            ctx.stroke();
            if *dashed {
                let _ = ctx.set_line_dash(&no_dash);
            }
            if *opacity < 1.0 {
                ctx.set_global_alpha(1.0);
            }
        }
        Some(Shape::Circle { fill, stroke, stroke_width, .. }) => {
            ctx.set_fill_style_str(&hex(*fill));
            ctx.fill();
            ctx.set_stroke_style_str(&hex(*stroke));
            ctx.set_line_width(*stroke_width);
            ctx.stroke();
        }
        _ => {}
    };
    for shape in &scene.shapes {
        match shape {
            Shape::Line { from, to, color, width, dashed, opacity } => {
                let same = matches!(run, Some(Shape::Line { color: c, width: w, dashed: d, opacity: o, .. })
                    if c == color && w == width && d == dashed && o == opacity);
                if !same {
                    flush(&ctx, &mut run);
                    ctx.set_global_alpha(*opacity);
                    ctx.set_stroke_style_str(&hex(*color));
                    ctx.set_line_width(*width);
                    if *dashed {
                        let dash = js_sys::Array::of2(&(width * 2.5).into(), &(width * 1.5).into());
                        let _ = ctx.set_line_dash(&dash);
                    }
                    ctx.begin_path();
                    run = Some(shape);
                }
                ctx.move_to(from.0, from.1);
                ctx.line_to(to.0, to.1);
            }
            Shape::Circle { at, r, fill, stroke, stroke_width } => {
                let same = matches!(run, Some(Shape::Circle { fill: f, stroke: s, stroke_width: w, .. })
                    if f == fill && s == stroke && w == stroke_width);
                if !same {
                    flush(&ctx, &mut run);
                    ctx.begin_path();
                    run = Some(shape);
                }
                // A subpath of its own: no line joins it to the circle before.
                ctx.move_to(at.0 + r, at.1);
                let _ = ctx.arc(at.0, at.1, *r, 0.0, std::f64::consts::TAU);
            }
            Shape::Text { at, text, size, color } => {
                flush(&ctx, &mut run);
                ctx.set_font(&format!("{size:.1}px sans-serif"));
                ctx.set_text_align("center");
                ctx.set_fill_style_str(&hex(*color));
                let _ = ctx.fill_text(text, at.0, at.1);
            }
        }
    }
    flush(&ctx, &mut run);
    Ok(canvas.transfer_to_image_bitmap()?.into())
}

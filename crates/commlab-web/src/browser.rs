//! The only module that touches `web_sys`: location and history, clipboard,
//! colour-scheme preference, the panic banner and the clock.
//!
//! Every function degrades quietly when an API is missing (old browser, file
//! URL, denied permission): the playground keeps working, the side effect is
//! skipped, and callers that must tell the user get a `Result`.

use leptos::prelude::{set_timeout, Callable, Callback};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::prelude::*;

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// The current query string, with its leading `?` (empty when there is none).
pub fn location_search() -> String {
    window().and_then(|w| w.location().search().ok()).unwrap_or_default()
}

/// The page's address without query or fragment, for building share links.
pub fn page_base() -> String {
    let Some(location) = window().map(|w| w.location()) else { return String::new() };
    let origin = location.origin().unwrap_or_default();
    let path = location.pathname().unwrap_or_default();
    format!("{origin}{path}")
}

/// Minimum time between two history writes: Safari rejects more than ~100
/// `replaceState` calls per 30 s, and dragging a slider fires dozens per second.
const URL_WRITE_INTERVAL: Duration = Duration::from_millis(300);

#[derive(Default)]
struct WriterState {
    pending: Option<String>,
    written: String,
    timer_running: bool,
    /// Back or Forward just moved: the next write is that entry's, replaced.
    moved: bool,
}

/// Writes the query string to the address bar: a change of view is a new
/// history entry (`history.pushState`, at once), so Back and Forward walk
/// the views a user went through; any other change replaces the entry
/// (`replaceState`, no scroll), at most once per [`URL_WRITE_INTERVAL`],
/// always ending on the latest value (leading and trailing throttle).
#[derive(Clone, Default)]
pub struct UrlWriter(Rc<RefCell<WriterState>>);

impl UrlWriter {
    /// Asks for the address bar to show `?query`; a new history entry where
    /// `new_entry` (a view switched to, outside an embed: an iframe's
    /// entries are its host page's).
    pub fn write(&self, query: &str, new_entry: bool) {
        let mut state = self.0.borrow_mut();
        let new_entry = new_entry && !std::mem::take(&mut state.moved);
        if new_entry && !state.written.is_empty() && state.written != query {
            // The entry being left keeps its latest state, then the new one is pushed.
            if let Some(pending) = state.pending.take() {
                write_query(&pending, false);
            }
            write_query(query, true);
            query.clone_into(&mut state.written);
            return;
        }
        if state.timer_running {
            state.pending = Some(query.to_owned());
            return;
        }
        if state.written != query {
            write_query(query, false);
            query.clone_into(&mut state.written);
        }
        state.timer_running = true;
        drop(state);
        self.schedule();
    }

    /// Takes `query` as written: the address bar already shows it (Back or
    /// Forward moved to it), and nothing queued for the entry left is written.
    pub fn shown(&self, query: &str) {
        let mut state = self.0.borrow_mut();
        state.pending = None;
        state.moved = true;
        query.clone_into(&mut state.written);
    }

    fn schedule(&self) {
        let this = self.clone();
        set_timeout(
            move || {
                let mut state = this.0.borrow_mut();
                match state.pending.take() {
                    Some(query) if query != state.written => {
                        write_query(&query, false);
                        state.written = query;
                        drop(state);
                        this.schedule();
                    }
                    _ => state.timer_running = false,
                }
            },
            URL_WRITE_INTERVAL,
        );
    }
}

fn write_query(query: &str, push: bool) {
    let Some(w) = window() else { return };
    let hash = w.location().hash().unwrap_or_default();
    let url = format!("{}?{query}{hash}", w.location().pathname().unwrap_or_default());
    if let Ok(history) = w.history() {
        // A failure here (e.g. a sandboxed iframe) only means the address bar
        // is stale; the page itself is unaffected.
        let _ = if push {
            history.push_state_with_url(&JsValue::NULL, "", Some(&url))
        } else {
            history.replace_state_with_url(&JsValue::NULL, "", Some(&url))
        };
    }
}

/// Calls `on_move` with the query (with its `?`) whenever Back or Forward
/// moves to another of the page's history entries.
pub fn watch_history(on_move: impl Fn(String) + 'static) {
    let Some(w) = window() else { return };
    let listener = Closure::<dyn Fn(web_sys::Event)>::new(move |_: web_sys::Event| {
        on_move(location_search());
    });
    if w.add_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref()).is_ok() {
        // The listener lives as long as the page.
        listener.forget();
    }
}

/// Copies `text` to the clipboard.
///
/// # Errors
/// When the clipboard API is missing or the browser refuses.
pub async fn copy_text(text: &str) -> Result<(), String> {
    let Some(w) = window() else { return Err("no window".into()) };
    let clipboard = w.navigator().clipboard();
    wasm_bindgen_futures::JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(|e| e.as_string().unwrap_or_else(|| "the browser refused clipboard access".into()))
}

const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

/// Whether the system asks for a dark theme.
pub fn prefers_dark() -> bool {
    window().and_then(|w| w.match_media(DARK_QUERY).ok().flatten()).is_some_and(|m| m.matches())
}

/// Calls `on_change` with the new preference whenever the system theme changes.
pub fn watch_color_scheme(on_change: Callback<bool>) {
    let Some(list) = window().and_then(|w| w.match_media(DARK_QUERY).ok().flatten()) else { return };
    let listener = Closure::<dyn Fn(web_sys::MediaQueryListEvent)>::new(move |e: web_sys::MediaQueryListEvent| {
        on_change.run(e.matches());
    });
    if list.add_event_listener_with_callback("change", listener.as_ref().unchecked_ref()).is_ok() {
        // The listener lives as long as the page.
        listener.forget();
    }
}

/// Marks the document as dark or light (`<html data-theme=…>`), which the CSS keys on.
pub fn set_document_theme(dark: bool) {
    if let Some(root) = window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-theme", if dark { "dark" } else { "light" });
    }
}

/// Sets the document title.
pub fn set_title(title: &str) {
    if let Some(doc) = window().and_then(|w| w.document()) {
        doc.set_title(title);
    }
}

/// Installs a panic hook that logs to the console and reveals `#panic-banner`
/// (in `index.html`) with the message as text, so a panic is never a silently
/// frozen page.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&info.to_string().into());
        let Some(doc) = window().and_then(|w| w.document()) else { return };
        if let Some(banner) = doc.get_element_by_id("panic-banner") {
            if let Some(detail) = doc.get_element_by_id("panic-detail") {
                detail.set_text_content(Some(&info.to_string()));
            }
            let _ = banner.remove_attribute("hidden");
        }
    }));
}

/// Offers `content` as a file download named `filename`.
///
/// # Errors
/// When the browser refuses to create the file (no DOM, blocked Blob URLs).
pub fn download_text(filename: &str, mime: &str, content: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|_| "cannot create the file")?;
    download_blob(filename, &blob)
}

fn download_blob(filename: &str, blob: &web_sys::Blob) -> Result<(), String> {
    let doc = window().and_then(|w| w.document()).ok_or("no document")?;
    let url = web_sys::Url::create_object_url_with_blob(blob).map_err(|_| "cannot create a download link")?;
    let anchor: web_sys::HtmlAnchorElement = doc.create_element("a").map_err(|_| "no anchor")?.unchecked_into();
    anchor.set_href(&url);
    anchor.set_download(filename);
    anchor.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Rasterises an SVG document at twice its size and offers it as a PNG download.
/// Runs asynchronously (image decoding); failures are reported to `on_error`.
pub fn download_png(filename: &str, svg: &str, on_error: Callback<String>) {
    let Some(doc) = window().and_then(|w| w.document()) else { return on_error.run("no document".into()) };
    let Ok(image) = web_sys::HtmlImageElement::new() else { return on_error.run("no image support".into()) };
    let filename = filename.to_owned();
    let img = image.clone();
    let onload = Closure::once_into_js(move || {
        let result = (|| -> Result<(), String> {
            let canvas: web_sys::HtmlCanvasElement =
                doc.create_element("canvas").map_err(|_| "no canvas")?.unchecked_into();
            let (w, h) = (img.natural_width() * 2, img.natural_height() * 2);
            canvas.set_width(w);
            canvas.set_height(h);
            let ctx: web_sys::CanvasRenderingContext2d =
                canvas.get_context("2d").ok().flatten().ok_or("no 2d context")?.unchecked_into();
            ctx.draw_image_with_html_image_element_and_dw_and_dh(&img, 0.0, 0.0, f64::from(w), f64::from(h))
                .map_err(|_| "cannot draw the image")?;
            let done = Closure::once_into_js(move |blob: Option<web_sys::Blob>| match blob {
                Some(blob) => {
                    if let Err(e) = download_blob(&filename, &blob) {
                        on_error.run(e);
                    }
                }
                None => on_error.run("the browser could not encode the PNG".into()),
            });
            canvas.to_blob(done.unchecked_ref()).map_err(|_| "cannot encode the PNG".to_owned())
        })();
        if let Err(e) = result {
            on_error.run(e);
        }
    });
    image.set_onload(Some(onload.unchecked_ref()));
    let encoded: String = js_sys::encode_uri_component(svg).into();
    image.set_src(&format!("data:image/svg+xml;charset=utf-8,{encoded}"));
}

/// Milliseconds from `performance.now()`, 0 when unavailable.
pub fn now_ms() -> f64 {
    window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Records a User Timing measure `name` from `start` (a [`now_ms`]) to now,
/// for the browser timing harness (`performance.getEntriesByName(name)`).
pub fn measure_since(name: &str, start: f64) {
    let Some(perf) = window().and_then(|w| w.performance()) else { return };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"start".into(), &start.into());
    let _ = js_sys::Reflect::set(&options, &"end".into(), &perf.now().into());
    if let Ok(f) = js_sys::Reflect::get(&perf, &"measure".into()).and_then(JsCast::dyn_into::<js_sys::Function>) {
        let _ = f.call2(&perf, &name.into(), &options);
    }
}

/// Watches an element's width: `on_width(client width)` after each layout
/// that changes it (a `ResizeObserver`), first after the element's first
/// layout. Reading a width while a view mounts would lay out the whole page
/// inside that task; the observer reads it once the browser has laid it out.
pub struct WidthWatch {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl WidthWatch {
    /// Starts watching `element` (`None` where `ResizeObserver` is missing).
    pub fn new(element: &web_sys::Element, on_width: impl Fn(f64) + 'static) -> Option<WidthWatch> {
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let last = entries.get(entries.length().saturating_sub(1));
            if let Ok(entry) = last.dyn_into::<web_sys::ResizeObserverEntry>() {
                on_width(f64::from(entry.target().client_width()));
            }
        });
        let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        observer.observe(element);
        Some(WidthWatch { observer, _callback: callback })
    }
}

impl Drop for WidthWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// The viewport's width in CSS px (`innerWidth`: no layout is forced), or
/// `None` outside a window.
pub fn viewport_width() -> Option<f64> {
    window()?.inner_width().ok()?.as_f64()
}

/// The point of a click in the coordinates of a drawing `width` units wide
/// shown in the clicked element (`None` when it has no size).
pub fn click_point(ev: &web_sys::MouseEvent, width: f64) -> Option<(f64, f64)> {
    let target: web_sys::Element = ev.current_target()?.dyn_into().ok()?;
    // An SVG drawing sits in a wider container: measure the drawing itself.
    let drawn = target.query_selector("svg").ok().flatten().unwrap_or(target);
    let rect = drawn.get_bounding_client_rect();
    if rect.width() <= 0.0 {
        return None;
    }
    let scale = width / rect.width();
    Some(((f64::from(ev.client_x()) - rect.left()) * scale, (f64::from(ev.client_y()) - rect.top()) * scale))
}

/// Reveals the panic banner with `text` (a panic inside the engine worker,
/// which the page's own hook never sees).
pub fn show_panic(text: &str) {
    let Some(doc) = window().and_then(|w| w.document()) else { return };
    if let Some(banner) = doc.get_element_by_id("panic-banner") {
        if let Some(detail) = doc.get_element_by_id("panic-detail") {
            detail.set_text_content(Some(text));
        }
        let _ = banner.remove_attribute("hidden");
    }
}

thread_local! {
    /// The query string the page was opened with: the app rewrites the
    /// address bar without unknown keys, so switches are read from here.
    static OPENED_WITH: String = location_search();
}

/// Remembers the query string the page was opened with (call before mounting).
pub fn remember_query() {
    OPENED_WITH.with(|_| ());
}

/// The value of `name` in the query string the page was opened with (test
/// and benchmark switches such as `__commlab_no_worker=1`).
pub fn query_value(name: &str) -> Option<String> {
    OPENED_WITH
        .with(Clone::clone)
        .trim_start_matches('?')
        .split('&')
        .find_map(|kv| kv.split_once('=').filter(|(k, _)| *k == name).map(|(_, v)| v.to_owned()))
}

/// `devicePixelRatio`, 1 when unknown.
pub fn pixel_ratio() -> f64 {
    window().map_or(1.0, |w| w.device_pixel_ratio())
}

/// `navigator.hardwareConcurrency`, 1 when unknown.
pub fn hardware_concurrency() -> usize {
    window().map_or(1.0, |w| w.navigator().hardware_concurrency()) as usize
}

/// Loads a classic script and resolves when it has run.
///
/// # Errors
/// When the script cannot be added or fails to load.
pub async fn load_script(src: &str) -> Result<(), String> {
    let doc = window().and_then(|w| w.document()).ok_or("no document")?;
    let script: web_sys::HtmlScriptElement =
        doc.create_element("script").map_err(|e| crate::browser::js_text(&e))?.unchecked_into();
    script.set_src(src);
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        script.set_onload(Some(&resolve));
        script.set_onerror(Some(&reject));
    });
    doc.body().ok_or("no body")?.append_child(&script).map_err(|e| crate::browser::js_text(&e))?;
    wasm_bindgen_futures::JsFuture::from(promise).await.map(|_| ()).map_err(|_| format!("{src} failed to load"))
}

/// Shows `bitmap` (an `ImageBitmap`) on `canvas` at `width × height` CSS pixels.
pub fn show_bitmap(canvas: &web_sys::HtmlCanvasElement, bitmap: &JsValue) {
    let Ok(bitmap) = bitmap.clone().dyn_into::<web_sys::ImageBitmap>() else { return };
    canvas.set_width(bitmap.width());
    canvas.set_height(bitmap.height());
    if let Some(ctx) = canvas.get_context("bitmaprenderer").ok().flatten() {
        let ctx: web_sys::ImageBitmapRenderingContext = ctx.unchecked_into();
        ctx.transfer_from_image_bitmap(&bitmap);
    }
}

/// The 2d context of `canvas`, sized for `bitmap` (resizing clears it).
fn sized_2d(
    canvas: &web_sys::HtmlCanvasElement,
    bitmap: &web_sys::ImageBitmap,
) -> Option<web_sys::CanvasRenderingContext2d> {
    if canvas.width() != bitmap.width() || canvas.height() != bitmap.height() {
        canvas.set_width(bitmap.width());
        canvas.set_height(bitmap.height());
    }
    Some(canvas.get_context("2d").ok()??.unchecked_into())
}

/// Draws `bitmap` on `canvas` at `width × height` CSS pixels and keeps the
/// bitmap usable (unlike [`show_bitmap`]), so a moved view can be shown
/// from it with [`present_carried`].
pub fn present_bitmap(canvas: &web_sys::HtmlCanvasElement, bitmap: &web_sys::ImageBitmap, width: f64, height: f64) {
    let Some(ctx) = sized_2d(canvas, bitmap) else { return };
    let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    let _ = ctx.draw_image_with_image_bitmap(bitmap, 0.0, 0.0);
    let style = web_sys::HtmlElement::style(canvas);
    let _ = style.set_property("width", &format!("{width}px"));
    let _ = style.set_property("height", &format!("{height}px"));
}

/// Shows a painting `width` CSS px wide with its columns `from` moved onto
/// `to` (CSS px), inside the plot's columns `plot`; the columns left of the
/// plot are kept, the rest is `background`. Whether it drew.
pub fn present_carried(
    canvas: &web_sys::HtmlCanvasElement,
    bitmap: &web_sys::ImageBitmap,
    width: f64,
    plot: (f64, f64),
    (from, to): ((f64, f64), (f64, f64)),
    background: &str,
) -> bool {
    let Some(ctx) = sized_2d(canvas, bitmap) else { return false };
    let r = f64::from(bitmap.width()) / width.max(1.0);
    let h = f64::from(bitmap.height());
    let _ = ctx.set_transform(1.0, 0.0, 0.0, 1.0, 0.0, 0.0);
    ctx.set_fill_style_str(background);
    ctx.fill_rect(0.0, 0.0, f64::from(bitmap.width()), h);
    // The rank labels, as painted.
    let _ = ctx.draw_image_with_image_bitmap_and_sw_and_sh_and_dx_and_dy_and_dw_and_dh(
        bitmap,
        0.0,
        0.0,
        plot.0 * r,
        h,
        0.0,
        0.0,
        plot.0 * r,
        h,
    );
    if from.1 - from.0 > 0.01 && to.1 - to.0 > 0.01 {
        ctx.save();
        ctx.begin_path();
        ctx.rect(plot.0 * r, 0.0, (plot.1 - plot.0) * r, h);
        ctx.clip();
        let _ = ctx.draw_image_with_image_bitmap_and_sw_and_sh_and_dx_and_dy_and_dw_and_dh(
            bitmap,
            from.0 * r,
            0.0,
            (from.1 - from.0) * r,
            h,
            to.0 * r,
            0.0,
            (to.1 - to.0) * r,
            h,
        );
        ctx.restore();
    }
    true
}

/// A thrown JavaScript value as text: its `message`, or the value itself when
/// it is a string (no `Debug` formatting, whose glue costs wasm bytes).
pub fn js_text(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| js_sys::Reflect::get(e, &"message".into()).ok().and_then(|m| m.as_string()))
        .unwrap_or_else(|| "an exception without a message".to_owned())
}

/// The page's `pagehide` listener.
type Listener = Closure<dyn FnMut(web_sys::Event)>;

thread_local! {
    /// Every engine worker this page started and has not ended yet.
    static WORKERS: RefCell<Vec<web_sys::Worker>> = const { RefCell::new(Vec::new()) };
    static ON_PAGEHIDE: RefCell<Option<Listener>> = const { RefCell::new(None) };
}

/// Starts an engine worker (`worker_loader.js`), handing it the engine, that the page ends when it
/// goes away: on `pagehide` (a reload or navigation; not when the page is
/// kept in the back-forward cache) every worker still alive is terminated,
/// so no wasm instance outlives its page waiting for garbage collection.
///
/// # Errors
/// When the browser refuses to start a worker.
pub fn start_worker() -> Result<web_sys::Worker, JsValue> {
    let worker = web_sys::Worker::new("./worker_loader.js")?;
    // The worker waits for the engine: the page's compiled module
    // (index.html's `commlabShareEngine`), or `null` to fetch its own.
    let handed = match web_sys::window().and_then(|w| js_sys::Reflect::get(&w, &"commlabShareEngine".into()).ok()) {
        Some(share) if share.is_function() => {
            share.unchecked_into::<js_sys::Function>().call1(&JsValue::NULL, &worker).map(drop)
        }
        _ => {
            let none = js_sys::Object::new();
            js_sys::Reflect::set(&none, &"engine".into(), &JsValue::NULL).and_then(|_| worker.post_message(&none))
        }
    };
    // A worker that never gets its engine would wait for ever: end it, and
    // the caller runs on the page instead.
    if let Err(e) = handed {
        worker.terminate();
        return Err(e);
    }
    WORKERS.with(|w| w.borrow_mut().push(worker.clone()));
    ON_PAGEHIDE.with(|slot| {
        if slot.borrow().is_some() {
            return;
        }
        let on_hide = Closure::<dyn FnMut(web_sys::Event)>::new(|ev: web_sys::Event| {
            let kept = js_sys::Reflect::get(&ev, &"persisted".into()).is_ok_and(|p| p.is_truthy());
            if !kept {
                WORKERS.with(|w| w.borrow_mut().drain(..).for_each(|w| w.terminate()));
            }
        });
        if let Some(window) = web_sys::window() {
            let _ = window.add_event_listener_with_callback("pagehide", on_hide.as_ref().unchecked_ref());
        }
        *slot.borrow_mut() = Some(on_hide);
    });
    Ok(worker)
}

/// Terminates `worker` and forgets it.
pub fn end_worker(worker: &web_sys::Worker) {
    worker.terminate();
    WORKERS.with(|w| w.borrow_mut().retain(|x| !js_sys::Object::is(x, worker)));
}

/// Engine workers alive on this page (the browser suite's leak check).
pub fn live_workers() -> usize {
    WORKERS.with(|w| w.borrow().len())
}

/// A value this browser keeps for the page (`localStorage`; `None` when storage is refused).
pub fn stored(key: &str) -> Option<String> {
    window()?.local_storage().ok()??.get_item(key).ok()?
}

/// Keeps `value` under `key` in this browser (silently nothing when storage is refused).
pub fn store(key: &str, value: &str) {
    if let Some(s) = window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.set_item(key, value);
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = TextEncoder)]
    type Utf8Encoder;
    #[wasm_bindgen(constructor, js_class = "TextEncoder", catch)]
    fn new() -> Result<Utf8Encoder, JsValue>;
    #[wasm_bindgen(method, js_class = "TextEncoder")]
    fn encode(this: &Utf8Encoder, text: &JsValue) -> js_sys::Uint8Array;
}

/// A JS string as a Rust one, through the browser's UTF-8 encoder and one
/// copy. `JsValue::as_string` copies a long ASCII string one character at a
/// time in JS (a pasted 1 MB file: 10–20 ms on a cold page; this: ~7 ms).
pub fn string_of(v: &JsValue) -> Option<String> {
    if !v.is_string() {
        return None;
    }
    match Utf8Encoder::new() {
        Ok(e) => String::from_utf8(e.encode(v).to_vec()).ok(),
        Err(_) => v.as_string(),
    }
}

/// The text of a paste, as [`string_of`] reads it.
pub fn pasted_text(ev: &web_sys::ClipboardEvent) -> Option<String> {
    let data = ev.clipboard_data()?;
    let get: js_sys::Function = js_sys::Reflect::get(&data, &"getData".into()).ok()?.dyn_into().ok()?;
    string_of(&get.call1(&data, &"text/plain".into()).ok()?)
}

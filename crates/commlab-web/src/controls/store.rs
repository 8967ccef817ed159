//! Files a view opened, kept in the browser's own storage (`IndexedDB`,
//! through `window.commlabStore` of `views-loader.js`), one per key, so a
//! reload or an accidental close loses nothing. Nothing is ever uploaded.

use crate::browser::js_text;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The Schedule view's opened GOAL file.
pub const SCHEDULE: &str = "schedule";
/// The Chooser's benchmark output to fit.
pub const BENCHMARK: &str = "benchmark";

async fn call(name: &str, args: &js_sys::Array) -> Result<JsValue, String> {
    let window = web_sys::window().ok_or("no window")?;
    let store = js_sys::Reflect::get(&window, &"commlabStore".into()).map_err(|e| js_text(&e))?;
    let f: js_sys::Function = js_sys::Reflect::get(&store, &name.into())
        .and_then(JsCast::dyn_into)
        .map_err(|_| "no storage helper".to_owned())?;
    let promise: js_sys::Promise = f.apply(&store, args).map_err(|e| js_text(&e))?.into();
    wasm_bindgen_futures::JsFuture::from(promise).await.map_err(|e| {
        let text = js_text(&e);
        if text.to_lowercase().contains("quota") {
            format!("the browser's storage is full ({text})")
        } else {
            text
        }
    })
}

/// Keeps `text` (named `name`) under `key`, replacing the file kept there.
///
/// # Errors
/// Storage unavailable or full, in words.
pub async fn save(key: &str, name: &str, text: &str) -> Result<(), String> {
    call("put", &js_sys::Array::of3(&name.into(), &text.into(), &key.into())).await.map(|_| ())
}

/// The file kept under `key`: `(name, text)`.
///
/// # Errors
/// Storage unavailable, in words.
pub async fn load(key: &str) -> Result<Option<(String, String)>, String> {
    let v = call("get", &js_sys::Array::of1(&key.into())).await?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    let field = |k: &str| js_sys::Reflect::get(&v, &k.into()).ok().and_then(|x| crate::browser::string_of(&x));
    Ok(field("text").map(|t| (field("name").unwrap_or_else(|| "file.txt".into()), t)))
}

/// Forgets the file kept under `key`.
///
/// # Errors
/// Storage unavailable, in words.
pub async fn forget(key: &str) -> Result<(), String> {
    call("forget", &js_sys::Array::of1(&key.into())).await.map(|_| ())
}

/// The text of an opened or dropped file (gzip unpacked by the browser:
/// `window.commlabReadFile` of `views-loader.js`).
///
/// # Errors
/// No reader, a file that cannot be read or is not text, in words.
pub async fn read_text(file: &web_sys::File) -> Result<String, String> {
    let window = web_sys::window().ok_or("no window")?;
    let read: js_sys::Function = js_sys::Reflect::get(&window, &"commlabReadFile".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("no file reader")?;
    let promise: js_sys::Promise = read.call1(&window, file).map_err(|e| js_text(&e))?.into();
    let v = wasm_bindgen_futures::JsFuture::from(promise).await.map_err(|e| js_text(&e))?;
    crate::browser::string_of(&v).ok_or_else(|| "the file is not text".to_owned())
}

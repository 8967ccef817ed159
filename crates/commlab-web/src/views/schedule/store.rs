//! The opened GOAL file in the browser's own storage (`IndexedDB`, through
//! `window.commlabStore` of `views-loader.js`), so a reload or an accidental
//! close loses nothing. Nothing is ever uploaded.

use crate::browser::js_text;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

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

/// Keeps `text` (named `name`), replacing the kept file.
///
/// # Errors
/// Storage unavailable or full, in words.
pub async fn save(name: &str, text: &str) -> Result<(), String> {
    call("put", &js_sys::Array::of2(&name.into(), &text.into())).await.map(|_| ())
}

/// The kept file: `(name, text)`.
///
/// # Errors
/// Storage unavailable, in words.
pub async fn load() -> Result<Option<(String, String)>, String> {
    let v = call("get", &js_sys::Array::new()).await?;
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    let field = |k: &str| js_sys::Reflect::get(&v, &k.into()).ok().and_then(|x| x.as_string());
    Ok(field("text").map(|t| (field("name").unwrap_or_else(|| "schedule.goal".into()), t)))
}

/// Forgets the kept file.
///
/// # Errors
/// Storage unavailable, in words.
pub async fn forget() -> Result<(), String> {
    call("forget", &js_sys::Array::new()).await.map(|_| ())
}

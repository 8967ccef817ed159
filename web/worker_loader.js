// The engine worker's entry point (a classic worker script): loads the
// engine bundle (worker.js defines the `wasm_bindgen` global) and starts it
// with the compiled module the page sends first (`{engine}`: fetched and
// compiled once per page, index.html), or from its file when the page has
// none. When the engine cannot start (WebAssembly refused, out of memory, a
// file missing) the page hears `{failed: text}` instead of waiting for
// `ready`: a rejected promise in a worker reaches no `onerror` on the page.
self.onmessage = (event) => {
  const data = event.data;
  if (!data || typeof data !== 'object' || !('engine' in data)) return;
  self.onmessage = null;
  try {
    importScripts('./worker.js');
    wasm_bindgen({ module_or_path: data.engine || './worker_bg.wasm' }).catch((e) => {
      postMessage({ failed: String((e && e.message) || e) });
    });
  } catch (e) {
    postMessage({ failed: String((e && e.message) || e) });
  }
};

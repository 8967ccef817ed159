// The main-thread fallback of commlab's engine worker: when a Web Worker
// cannot be started, the page loads the worker bundle (worker.js, which
// defines the `wasm_bindgen` global) as a classic script and this file
// initialises it and returns its exports (`EngineHandle`), which the page
// drives in short slices. Nothing here runs unless workers fail.
window.commlabLoadEngine = async function () {
  await wasm_bindgen({ module_or_path: './worker_bg.wasm' });
  return wasm_bindgen;
};

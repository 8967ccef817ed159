// The lazy views of commlab, in two bundles: `views` (views.js +
// views_bg.wasm: the collective chooser) and `timeline` (timeline.js +
// timeline_bg.wasm: the Schedule view, the swizzle view, the barrier lab). The page loads this
// file when such a view is opened; the UI bundle then calls
// `commlabLoadViews(name)` and mounts the view with the module's
// `mount_view`. Nothing here runs on pages that never open them.
window.commlabLoadViews = (() => {
  const loading = {};
  return (name) => {
    const bundle = name === 'timeline' ? 'timeline' : 'views';
    loading[bundle] = loading[bundle] || import(`./${bundle}.js`).then(async (m) => {
      // The page may have started this download already (index.html).
      const early = window.commlabEarly && window.commlabEarly[bundle];
      await m.default({ module_or_path: early || `./${bundle}_bg.wasm` });
      return m;
    });
    return loading[bundle];
  };
})();

// The Schedule view's opened file, kept in this browser's IndexedDB (never
// uploaded): one entry {name, text, saved} under the key "schedule".
window.commlabStore = (() => {
  const open = () => new Promise((resolve, reject) => {
    if (!self.indexedDB) { reject(new Error('this browser offers no IndexedDB')); return; }
    const request = indexedDB.open('commlab', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('files');
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  const run = (mode, work) => open().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction('files', mode);
    const request = work(tx.objectStore('files'));
    tx.oncomplete = () => { db.close(); resolve(request.result); };
    tx.onerror = tx.onabort = () => { db.close(); reject(tx.error || new Error('storage transaction failed')); };
  }));
  return {
    put: (name, text, key = 'schedule') => run('readwrite', (s) => s.put({ name, text, saved: Date.now() }, key)),
    get: (key = 'schedule') => run('readonly', (s) => s.get(key)),
    forget: (key = 'schedule') => run('readwrite', (s) => s.delete(key)),
  };
})();

// A dropped or opened file's text; gzip files (LogGOPSim's schedules often
// are) are unpacked by the browser's own DecompressionStream.
window.commlabReadFile = async (file) => {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  if (head[0] === 0x1f && head[1] === 0x8b) {
    return await new Response(file.stream().pipeThrough(new DecompressionStream('gzip'))).text();
  }
  return await file.text();
};

// Browser timing harness (not a test: it asserts nothing, it prints numbers for
// BENCHMARKS.md). Measures, on the release build in dist/:
//  - load: navigation start → model view with both charts in the DOM;
//  - redraw: a parameter change (an `input` event on #p) → both charts replaced
//    in the DOM and laid out, and → the next frame;
//  - the Chooser's chart after a change of α (and the other views' budgets below).
// Usage: node bench.mjs [rounds]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, open } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] ?? 60);
// scripts/bench.sh builds the bench hooks (cargo feature `bench`) into DIST.
const server = await serveDir(path.resolve(here, '../..', process.env.DIST ?? 'dist'));
const context = await launch();

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `median ${at(0.5).toFixed(2)} ms, p95 ${at(0.95).toFixed(2)} ms, max ${s[s.length - 1].toFixed(2)} ms (n=${s.length})`;
};

const loads = [];
for (let i = 0; i < 5; i++) {
  const page = await open(context, server.url, server.url);
  await page.waitForSelector('[data-testid="chart-units"] svg');
  loads.push(await page.evaluate(() => performance.now()));
  await page.close();
}

const page = await open(context, server.url, server.url);
// Each round sets p to a new value and waits for both charts to be replaced.
const timings = await page.evaluate(async (rounds) => {
  const input = document.querySelector('#p');
  const charts = ['chart-pieces', 'chart-units'].map((id) => document.querySelector(`[data-testid="${id}"]`));
  const dom = [], frame = [];
  for (let i = 0; i < rounds; i++) {
    const changed = charts.map((c) => new Promise((resolve) => {
      const obs = new MutationObserver(() => { obs.disconnect(); resolve(); });
      obs.observe(c, { childList: true, subtree: true, characterData: true });
    }));
    const t0 = performance.now();
    input.value = String(32 + (i % 2 ? 3 * i : 5 * i));
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await Promise.all(changed);
    charts.forEach((c) => c.getBoundingClientRect());
    dom.push(performance.now() - t0);
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    frame.push(performance.now() - t0);
  }
  return { dom, frame };
}, rounds);

// Reduction tree: a parameter change at p = 16 (the operator and the seed
// alternate) until the drawing is replaced; and p 8 → 65536 until the summary shows.
const tree = await open(context, server.url, `${server.url}?v=1&view=tree&p=16&step=2`);
const treeTimings = await tree.evaluate(async (rounds) => {
  const seed = document.querySelector('#seed');
  const figure = () => document.querySelector('[data-testid="tree-svg"]');
  const redraw = [];
  for (let i = 0; i < rounds; i++) {
    const target = figure();
    const changed = new Promise((resolve) => {
      const obs = new MutationObserver(() => { obs.disconnect(); resolve(); });
      obs.observe(target, { childList: true, subtree: true });
    });
    const t0 = performance.now();
    seed.value = String(100 + i);
    seed.dispatchEvent(new Event('change', { bubbles: true }));
    await changed;
    figure().getBoundingClientRect();
    redraw.push(performance.now() - t0);
  }
  const big = [];
  const p = document.querySelector('#p');
  for (let i = 0; i < 5; i++) {
    p.value = '8'; p.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    p.value = '65536'; p.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((resolve) => {
      const check = () => document.querySelector('[data-testid="tree-summary"]') && document.querySelector('[data-testid="result"]');
      if (check()) return resolve();
      const obs = new MutationObserver(() => { if (check()) { obs.disconnect(); resolve(); } });
      obs.observe(document.body, { childList: true, subtree: true });
    });
    big.push(performance.now() - t0);
  }
  return { redraw, big };
}, rounds);

// The same core work as criterion's, inside the browser (release wasm).
const wasm = await tree.evaluate(() => ({
  values65536: window.wasmBindings.commlab_bench_reduce_values(65536, 10),
  timing2pow20: window.wasmBindings.commlab_bench_reduce_timing(1 << 20, 3),
  swizzle: window.wasmBindings.commlab_bench_swizzle(5),
}));

// Swizzle: redraw of the 16 × 16-cell grid (16 data rows × 16 ranks) on a step change,
// and the whole view for 10^6 loop indices (schedule + naive schedule + numbers).
const sw = await open(context, server.url, `${server.url}?v=1&view=swizzle&rows=8&cols=2&ranks=16&core_rows=4&core_cols=4&step=1`);
const swTimings = await sw.evaluate(async (rounds) => {
  const redraw = [];
  for (let i = 0; i < rounds; i++) {
    const target = document.querySelector('[data-testid="swizzle-grid"]');
    const changed = new Promise((resolve) => {
      const obs = new MutationObserver(() => { obs.disconnect(); resolve(); });
      obs.observe(target, { childList: true, subtree: true });
    });
    const t0 = performance.now();
    document.querySelector(i % 2 ? '[data-testid="back"]' : '[data-testid="forward"]').click();
    await changed;
    target.getBoundingClientRect();
    redraw.push(performance.now() - t0);
  }
  const big = [];
  const ranks = document.querySelector('#ranks');
  const rows = document.querySelector('#rows');
  for (let i = 0; i < 3; i++) {
    rows.value = '8'; rows.dispatchEvent(new Event('input', { bubbles: true }));
    ranks.value = '16'; ranks.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 100));
    rows.value = '500'; rows.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 100));
    const t0 = performance.now();
    ranks.value = '1000'; ranks.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((resolve) => {
      const done = () => document.querySelector('[data-testid="swizzle-numbers"] tr[data-row="current"] .steps')?.innerText === String(500 * 2 * 1000 / 16);
      if (done()) return resolve();
      const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); resolve(); } });
      obs.observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    big.push(performance.now() - t0);
  }
  return { redraw, big };
}, rounds);

// Barrier mesh: a parameter change (the seed) → the mesh redrawn, at 16 × 16 (SVG)
// and 64 × 64 (canvas); playback frame rate at 32 × 32; one barrier of every
// algorithm on 64 × 64 at 20 % in wasm; the default lab sweep.
async function meshRedraw(size, rounds) {
  const m = await open(context, server.url, `${server.url}?v=1&view=mesh&size=${size}&rate=0.2&step=40`);
  await m.waitForSelector('[data-testid="mesh-figure"][data-step="40"]');
  return m.evaluate(async (rounds) => {
    const seed = document.querySelector('#seed');
    const fig = document.querySelector('[data-testid="mesh-figure"]');
    const canvas = () => document.querySelector('[data-testid="mesh-canvas"]');
    const out = { dom: [], frame: [] };
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      // The run is recorded and drawn in the engine worker: wait for its next frame
      // (and, on a canvas, for the bitmap to be shown).
      const frames = fig.getAttribute('data-frames');
      const paint = canvas()?.getAttribute('data-frame');
      const changed = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          if (fig.getAttribute('data-frames') !== frames && (!canvas() || canvas().getAttribute('data-frame') !== paint)) {
            obs.disconnect(); resolve();
          }
        });
        obs.observe(fig, { childList: true, subtree: true, attributes: true });
      });
      seed.value = String(2 + i);
      seed.dispatchEvent(new Event('input', { bubbles: true }));
      await changed;
      // As for the charts: replaced (or, on a canvas, painted) and laid out; then the next frame.
      fig.getBoundingClientRect();
      out.dom.push(performance.now() - t0);
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      out.frame.push(performance.now() - t0);
    }
    return out;
  }, rounds);
}
const mesh16 = await meshRedraw(16, Math.min(rounds, 30));
const mesh64 = await meshRedraw(64, Math.min(rounds, 10));
const anim = await open(context, server.url, `${server.url}?v=1&view=mesh&size=32&rate=0.2`);
const fps = await anim.evaluate(async () => {
  // Step forward as fast as frames allow for 2 s: frames per second the view sustains.
  const forward = document.querySelector('[data-testid="forward"]');
  let frames = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) {
    forward.click();
    await new Promise((r) => requestAnimationFrame(() => r()));
    frames += 1;
  }
  return frames / ((performance.now() - t0) / 1000);
});
// The engine bundle (the worker's wasm, opt-level 3) loaded on this page through
// the fallback loader, so its benchmark hook can be timed directly.
const barrier64 = await anim.evaluate(async () => {
  for (const src of ['./worker.js', './engine-fallback.js']) {
    await new Promise((resolve, reject) => {
      const s = document.createElement('script'); s.src = src; s.onload = resolve; s.onerror = reject; document.body.append(s);
    });
  }
  const engine = await window.commlabLoadEngine();
  const ids = ['ms', 'tree', 'tournament', 'dissemination', 'dissemination-tree', 'dlct', 'dlct-ms', 'dlct-tree', 'butterfly', 'pairwise', 'combining', 'mcs', 'bst', 'two-level'];
  engine.commlab_bench_barrier('tree', 64, 0.2, 1); // warm-up
  return Object.fromEntries(ids.map((id) => [id, engine.commlab_bench_barrier(id, 64, 0.2, 3)]));
});
// The default lab sweep on a pool of 1 and of 2 workers (this machine has 2 cores).
const labSweep = async (workers) => {
  const lab = await open(context, server.url, `${server.url}?v=1&view=lab&__commlab_workers=${workers}`);
  await lab.click('[data-testid="run-sweep"]');
  await lab.waitForFunction(() => /Done/.test(document.querySelector('[data-testid="sweep-status"]').innerText), null, { timeout: 300000 });
  const status = await lab.locator('[data-testid="sweep-status"]').innerText();
  await lab.close();
  return status;
};
const labStatus1 = await labSweep(1);
const labStatus = await labSweep(2);
// Longest main-thread task while opening the heavy links (PerformanceObserver, 1.5 s each).
const heavy = [];
for (const q of ['view=mesh&size=256&rate=0.5&algorithm=tree', 'view=mesh&size=256&rate=0.5&algorithm=ms',
  'view=mesh&size=256&rate=0.5&algorithm=combining', 'view=mesh&size=128&rate=0.2&algorithm=ms',
  'view=mesh&size=128&rate=0.2&algorithm=dissemination', 'view=tree&p=1048576', 'view=tree&p=1048576&collective=allreduce',
  'view=pipeline&p=1024&m=1024&elements=1024', 'view=swizzle&rows=1024&cols=1&ranks=1024',
  'view=swizzle&rows=1024&cols=1024&ranks=1024', 'view=model', 'view=mesh', 'view=lab']) {
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${server.url}?v=1&${q}`);
  await page.waitForTimeout(1500);
  heavy.push(`${q}: ${Math.round(Math.max(0, ...(await page.evaluate(() => window.__long))))} ms`);
  await page.close();
}

// The Schedule view's timeline at its limit (84 000 ops, 168 000 bars):
// the longest main-thread task while the link opens, then 60 pan frames
// (a mousemove with the button down, to the end of its task), the repaint
// when the drag is let go, and 20 wheel zoom steps.
const tl = await open(context, server.url, `${server.url}?view=model`);
await tl.evaluate(() => { window.__tasks = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__tasks.push(e.duration); }).observe({ type: 'longtask' }); });
await tl.goto(`${server.url}?view=schedule&coll=pipeline&p=8&pieces=6000&bytes=1000000000`);
await tl.evaluate(() => { window.__tasks = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__tasks.push(e.duration); }).observe({ type: 'longtask', buffered: true }); });
await tl.waitForFunction(() => document.querySelector('[data-testid="timeline"]')?.width > 400, null, { timeout: 60000 });
await tl.waitForTimeout(1000);
const timeline = await tl.evaluate(async () => {
  const c = document.querySelector('[data-testid="timeline"]');
  const r = c.getBoundingClientRect();
  const opening = Math.max(0, ...window.__tasks);
  const fire = (type, x, extra = {}) => c.dispatchEvent(new (type === 'wheel' ? WheelEvent : MouseEvent)(type, { bubbles: true, cancelable: true, clientX: r.left + x, clientY: r.top + 40, ...extra }));
  // To the end of the event's task and its microtasks (a MessageChannel yields without setTimeout's 4 ms clamp).
  const channel = new MessageChannel();
  const yieldTask = () => new Promise((res) => { channel.port1.onmessage = () => res(); channel.port2.postMessage(0); });
  const task = async (f) => { const t0 = performance.now(); f(); await yieldTask(); return performance.now() - t0; };
  const pan = [];
  fire('mousedown', 700);
  for (let i = 1; i <= 60; i++) pan.push(await task(() => fire('mousemove', 700 - i * 5)));
  const release = await task(() => fire('mouseup', 400));
  await new Promise((res) => setTimeout(res, 500));
  const wheel = [];
  for (let i = 0; i < 20; i++) wheel.push(await task(() => fire('wheel', 500, { deltaY: i % 2 ? 100 : -100 })));
  window.__tasks = [];
  await new Promise((res) => setTimeout(res, 600));
  return { opening, pan, release, wheel, settle: Math.max(0, ...window.__tasks) };
});
await tl.close();
console.log(`load to charts:           ${stats(loads)}`);
console.log(`wasm: reduce schedule + inputs + values, p = 65536: ${wasm.values65536.toFixed(2)} ms (mean of 10)`);
console.log(`wasm: reduce schedule + timing, p = 2^20: ${wasm.timing2pow20.toFixed(2)} ms (mean of 3)`);
console.log(`wasm: swizzle schedule, 10^6 loop indices: ${wasm.swizzle.toFixed(2)} ms (mean of 5)`);
console.log(`swizzle 16x16 grid step change -> redrawn: ${stats(swTimings.redraw)}`);
// Chooser: a change of α at the default inputs (allreduce, p = 64, 8 B … 1 GiB,
// LogGOPS points on) until the time-vs-size chart shows the new α.
const chooser = await open(context, server.url, `${server.url}?view=chooser`);
await chooser.waitForSelector('[data-testid="winner-map"] svg', { timeout: 60000 });
await chooser.waitForTimeout(1500);
const chooserTimings = await chooser.evaluate(async (rounds) => {
  const alpha = document.querySelector('#alpha');
  const chart = document.querySelector('[data-testid="times-chart"] .chart-svg');
  const redraw = [];
  for (let i = 0; i < Math.min(rounds, 30); i++) {
    const v = String(1 + (i % 7) * 0.5 + 0.25);
    const changed = new Promise((resolve) => {
      const obs = new MutationObserver(() => { if (chart.innerHTML.includes(`α = ${v},`)) { obs.disconnect(); resolve(); } });
      obs.observe(chart, { childList: true, subtree: true, characterData: true });
    });
    const t0 = performance.now();
    alpha.value = v;
    alpha.dispatchEvent(new Event('input', { bubbles: true }));
    await changed;
    chart.getBoundingClientRect();
    redraw.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 400));
  }
  return redraw;
}, rounds);
console.log(`chooser alpha change -> T-vs-size chart redrawn: ${stats(chooserTimings)}`);
// Winner map, 64 p (2…65) × 41 sizes (1 B … 1 TiB), every algorithm: the
// first draw of each collective on a fresh page (profiles built, the map
// worker's start included; the view's own "N cells in X ms", request to
// answer), then five changes of β (profiles kept), each timed from the
// input event until the map's SVG has changed and a frame has passed.
const mapTimings = {};
for (const coll of ['broadcast', 'reduce', 'allreduce', 'allgather', 'reduce-scatter', 'all-to-all']) {
  const page = await open(context, server.url, `${server.url}?view=chooser&coll=${coll}&sim=0&lo=1&hi=1099511627776&map=2..65`);
  await page.waitForFunction(() => /^[1-9]\d* cells in/.test(document.querySelector('[data-testid="map-timing"]')?.innerText ?? ''), null, { timeout: 60000 });
  const text = await page.locator('[data-testid="map-timing"]').innerText();
  const first = Number(/in (\d+) ms/.exec(text)[1]);
  await page.waitForTimeout(500);
  const redraw = await page.evaluate(async () => {
    const out = [];
    for (let i = 0; i < 5; i++) {
      const map = document.querySelector('[data-testid="winner-map"]');
      const beta = document.querySelector('#beta');
      const changed = new Promise((resolve) => {
        const obs = new MutationObserver(() => { obs.disconnect(); resolve(); });
        obs.observe(map, { childList: true, subtree: true, characterData: true, attributes: true });
      });
      const t0 = performance.now();
      beta.value = String(0.002 + i * 0.001);
      beta.dispatchEvent(new Event('input', { bubbles: true }));
      await changed;
      await new Promise((r) => requestAnimationFrame(r));
      out.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 300));
    }
    return out;
  });
  // New p values with the worker warm: the map over 2…129 (64 p, most of them new).
  await page.fill('#map-hi', '129');
  await page.waitForFunction(() => /^[1-9]\d* cells in/.test(document.querySelector('[data-testid="map-timing"]')?.innerText ?? '')
    && new URL(location.href).searchParams.get('map') === '2..129', null, { timeout: 60000 });
  const fresh = Number(/in (\d+) ms/.exec(await page.locator('[data-testid="map-timing"]').innerText())[1]);
  mapTimings[coll] = `first ${first} ms (worker start included), new p (2…129, worker warm) ${fresh} ms, redraws ${Math.min(...redraw).toFixed(0)}–${Math.max(...redraw).toFixed(0)} ms`;
  await page.close();
}
console.log(`chooser winner map 64 p x 41 sizes:\n  ${Object.entries(mapTimings).map(([k, v]) => `${k}: ${v}`).join('\n  ')}`);
console.log(`swizzle ranks 16 -> 1000 (10^6 loops: 2 schedules + numbers on screen): ${stats(swTimings.big)}`);
console.log(`tree p=16 change -> redrawn: ${stats(treeTimings.redraw)}`);
console.log(`tree p 8 -> 65536 (schedule + values + summary): ${stats(treeTimings.big)}`);
console.log(`p change -> charts in DOM: ${stats(timings.dom)}`);
console.log(`p change -> next frame:    ${stats(timings.frame)}`);
console.log(`mesh 16x16 seed change -> redrawn (SVG) and laid out: ${stats(mesh16.dom)}; -> next frame: ${stats(mesh16.frame)}`);
console.log(`mesh 64x64 seed change -> repainted (canvas): ${stats(mesh64.dom)}; -> next frame: ${stats(mesh64.frame)}`);
console.log(`mesh 32x32 playback: ${fps.toFixed(1)} steps/s (one step per frame)`);
const total = Object.values(barrier64).reduce((a, b) => a + b, 0);
console.log(`wasm: one barrier on 64x64 at 20 %: ${Object.entries(barrier64).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')} ms; total ${total.toFixed(0)} ms`);
console.log(`lab default sweep, 1 worker: ${labStatus1}`);
console.log(`lab default sweep, 2 workers: ${labStatus}`);
console.log(`timeline 84 000 ops: opening's longest task ${timeline.opening.toFixed(0)} ms (0: none over 50 ms); pan frame ${stats(timeline.pan)}; drag let go -> repainted ${timeline.release.toFixed(1)} ms; wheel step ${stats(timeline.wheel)}; repaint after the wheel rests: longest task ${timeline.settle.toFixed(0)} ms (0: none over 50 ms)`);
console.log(`longest main-thread task on opening (0: none over 50 ms):\n  ${heavy.join('\n  ')}`);
await context.close();
server.close();

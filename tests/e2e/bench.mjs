// Browser timing harness (not a test: it asserts nothing, it prints numbers for
// BENCHMARKS.md). Measures, on the release build in dist/:
//  - load: navigation start → model view with both charts in the DOM;
//  - redraw: a parameter change (an `input` event on #p) → both charts replaced
//    in the DOM and laid out, and → the next frame.
// Usage: node bench.mjs [rounds]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, open } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] ?? 60);
const server = await serveDir(path.resolve(here, '../../dist'));
const context = await launch(fs.mkdtempSync(path.join(os.tmpdir(), 'commlab-bench-')));

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
}));

console.log(`load to charts:           ${stats(loads)}`);
console.log(`wasm: reduce schedule + inputs + values, p = 65536: ${wasm.values65536.toFixed(2)} ms (mean of 10)`);
console.log(`wasm: reduce schedule + timing, p = 2^20: ${wasm.timing2pow20.toFixed(2)} ms (mean of 3)`);
console.log(`tree p=16 change -> redrawn: ${stats(treeTimings.redraw)}`);
console.log(`tree p 8 -> 65536 (schedule + values + summary): ${stats(treeTimings.big)}`);
console.log(`p change -> charts in DOM: ${stats(timings.dom)}`);
console.log(`p change -> next frame:    ${stats(timings.frame)}`);
await context.close();
server.close();

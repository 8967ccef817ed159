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

console.log(`load to charts:           ${stats(loads)}`);
console.log(`p change -> charts in DOM: ${stats(timings.dom)}`);
console.log(`p change -> next frame:    ${stats(timings.frame)}`);
await context.close();
server.close();

// How soon the Chooser draws its first chart on a slow link: dist/ served
// gzipped (as a static host serves it), Chromium's network throttled through
// the debugger protocol, cache off, a fresh profile per load. Prints the
// median of 3 cold loads per link, from navigation to the first result drawn
// in the chart, and the gzipped bytes requested by then (BENCHMARKS.md).
//   node tests/e2e/bench-chooser.mjs            # the Chooser's defaults
//   QUERY='view=chooser&p=128' node tests/e2e/bench-chooser.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coldPage, serveGzip, SLOW_LINKS } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
process.setMaxListeners(0); // a temp profile per cold load, each removed at exit
const dist = path.resolve(here, '../..', process.env.DIST ?? 'dist');
const host = await serveGzip(dist);
const url = `${host.url}?${process.env.QUERY ?? 'view=chooser'}`;
for (const [label, link] of SLOW_LINKS) {
  const times = [];
  for (let i = 0; i < 3; i += 1) {
    const { context, page } = await coldPage('commlab-bench-chooser-', link);
    host.sent.clear();
    const t0 = Date.now();
    await page.goto(url);
    // The first chart: its timing line appears with the first result drawn.
    await page.waitForFunction(() => (document.querySelector('[data-testid="chart-timing"]')?.textContent ?? '').length > 0, null, { timeout: 120000, polling: 'raf' });
    times.push(Date.now() - t0);
    if (i === 0) {
      const bytes = [...host.sent].reduce((s, [name, n]) => s + n * host.size(name), 0);
      const wasm = [...host.sent].filter(([name]) => name.endsWith('.wasm')).map(([name, n]) => `${name.slice(1)}×${n}`).join(', ');
      console.log(`  ${label}: requested by then: ${(bytes / 1024).toFixed(0)} KB gzipped (${wasm})`);
    }
    await context.close();
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: the Chooser's first chart in ${times[1]} ms (runs: ${times.join(', ')} ms)`);
}
host.server.close();

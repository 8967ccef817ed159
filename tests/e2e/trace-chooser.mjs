// Where the Chooser's main-thread time goes when the nodes change (a
// diagnostic, not a test): the Chooser on a preset at 2 nodes, then NODES
// nodes with a Chromium trace running; prints each task over OVER_MS (30)
// with the events inside it that took the most time.
// Usage: NODES=128 node trace-chooser.mjs [preset]   (the release build in dist/)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, startTrace } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const server = await serveDir(path.resolve(here, '../..', process.env.DIST ?? 'dist'));
const context = await launch();
const page = await context.newPage();
await page.goto(`${server.url}?view=chooser&lo=1048576&hi=1073741824&y=busbw`);
await page.locator('#chooser-system').waitFor();
await page.selectOption('#chooser-system', process.argv[2] ?? 'dgx-h100');
await page.locator('[data-testid="expected-table"]').waitFor({ state: 'attached', timeout: 120000 });
await page.waitForTimeout(1000);
const stop = await startTrace(context, page);
await page.locator('#chooser-system-nodes').fill(process.env.NODES ?? '128');
await page.locator('#chooser-system-nodes').press('Enter');
await page.waitForTimeout(Number(process.env.WAIT ?? 6000));
const events = await stop();
const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}/${e.tid}`, e.args.name]));
const main = events.filter((e) => e.name === 'RunTask' && e.dur > Number(process.env.OVER_MS ?? 30) * 1000
  && names.get(`${e.pid}/${e.tid}`) === 'CrRendererMain');
for (const task of main) {
  const inside = events.filter((e) => e.pid === task.pid && e.tid === task.tid && e.ts >= task.ts && e.ts < task.ts + task.dur && e.dur && e !== task);
  const byName = new Map();
  for (const e of inside) {
    const key = e.name + (e.args?.data?.functionName ? `(${e.args.data.functionName})` : '') + (e.args?.data?.type ? `[${e.args.data.type}]` : '');
    byName.set(key, (byName.get(key) ?? 0) + e.dur);
  }
  const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}`).join('; ');
  console.log(`task of ${(task.dur / 1000).toFixed(1)} ms at ${((task.ts - (main[0]?.ts ?? 0)) / 1000).toFixed(0)} ms: ${top}`);
}
await context.close();
server.close();

// Where a page's long main-thread tasks go (a diagnostic, not a test): opens
// a link with a Chromium trace running and prints each task over 50 ms with
// the events inside it that took the most time.
// Usage: node trace-start.mjs 'view=schedule&…'   (the release build in dist/)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, startTrace } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const server = await serveDir(path.resolve(here, '../..', process.env.DIST ?? 'dist'));
const context = await launch();
const page = await context.newPage();
const stop = await startTrace(context, page);
await page.goto(`${server.url}?${process.argv[2] ?? 'view=schedule'}`);
await page.waitForTimeout(Number(process.argv[3] ?? 4000));
const events = await stop();
// The page's own thread only (workers' tasks do not block it), unless ALL=1.
const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}/${e.tid}`, e.args.name]));
const main = events.filter((e) => e.name === 'RunTask' && e.dur > Number(process.env.OVER_MS ?? 50) * 1000
  && (process.env.ALL || names.get(`${e.pid}/${e.tid}`) === 'CrRendererMain'));
for (const task of main) {
  const inside = events.filter((e) => e.pid === task.pid && e.tid === task.tid && e.ts >= task.ts && e.ts < task.ts + task.dur && e.dur && e !== task);
  const byName = new Map();
  for (const e of inside) byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur);
  const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}`).join('; ');
  console.log(`task of ${(task.dur / 1000).toFixed(1)} ms at ${((task.ts - main[0].ts) / 1000).toFixed(0)} ms: ${top}`);
}
await context.close();
server.close();

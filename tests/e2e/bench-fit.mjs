// Timing harness of the Chooser's fit and library picks (BENCHMARKS.md), not
// part of the suite: a pasted nccl-tests output of LINES lines (default 10^4)
// to the fitted chart on the page, with the page's long tasks; then library
// picks switched on and off, the chart update timed.
//   node bench-fit.mjs [ROUNDS]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, open, startTrace } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] || 5);
const lines = Number(process.env.LINES || 10000);
let text = '#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n';
for (let k = 0; k < lines; k++) {
  const n = 8 + k * 4096;
  const t = (14 * 0.4 + 1.75 * n * 3.5e-5 * (1 + 0.01 * ((k % 7) - 3))).toFixed(2);
  text += `${String(n).padStart(12)} ${String(n / 4 | 0).padStart(13)} float sum -1 ${t} 0.00 0.00 0 ${t} 0.00 0.00 0\n`;
}
// A paste into the text box, as the browser delivers one (window.__text).
function paste() {
  const data = new DataTransfer();
  data.setData('text/plain', window.__text);
  document.querySelector('[data-testid="bench-text"]').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
}
// TRACE=1: a Chromium trace of the first fit, each thread's tasks over 2 ms
// with the events that took most of them (where the paste-to-chart time goes).
async function printTrace(events) {
  const names = new Map(events.filter((e) => e.name === 'thread_name').map((e) => [`${e.pid}/${e.tid}`, e.args.name]));
  const tasks = events.filter((e) => e.name === 'RunTask' && e.dur > 2000).sort((a, b) => a.ts - b.ts);
  if (!tasks.length) return;
  const start = tasks[0].ts;
  for (const task of tasks) {
    const inside = events.filter((e) => e.pid === task.pid && e.tid === task.tid && e.ts >= task.ts && e.ts < task.ts + task.dur && e.dur && e !== task);
    const byName = new Map();
    for (const e of inside) byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur);
    const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}`).join('; ');
    console.log(`  ${names.get(`${task.pid}/${task.tid}`) ?? task.tid}: ${(task.dur / 1000).toFixed(1)} ms at ${((task.ts - start) / 1000).toFixed(0)} ms: ${top}`);
    if (['all', 'open'].includes(process.env.TRACE) && task.dur > 20000) {
      for (const e of inside.filter((x) => x.dur > 1500).sort((a, b) => a.ts - b.ts)) {
        const d = e.args?.data ?? {};
        const what = [d.functionName, d.url && d.url.split('/').pop(), d.type, d.stackTrace?.[0]?.functionName].filter(Boolean).join(' ');
        console.log(`      +${((e.ts - task.ts) / 1000).toFixed(1)} ${e.name} ${(e.dur / 1000).toFixed(1)} ${what}`);
      }
    }
  }
}
const server = await serveDir(path.resolve(here, '../../dist'), '/commlab/');
for (let r = 0; r < rounds; r++) {
  const context = await launch();
  const page = await open(context, server.url, `${server.url}?view=chooser&sim=0&coll=allreduce&p=8`);
  await page.waitForSelector('[data-testid="times-chart"] svg', { timeout: 60000 });
  await page.evaluate((process_env_at) => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(process_env_at ? `${Math.round(e.duration)}@${Math.round(e.startTime - (window.__t0 ?? 0))}` : Math.round(e.duration)); }).observe({ type: 'longtask' });
  }, !!process.env.AT);
  const opening = process.env.TRACE === 'open' ? await startTrace(context, page) : null;
  await page.locator('[data-testid="fit"] > summary').click();
  // A reader opens the section, then pastes: give the warm-up its moment.
  await page.waitForTimeout(Number(process.env.PAUSE_MS ?? 1500));
  if (opening) await printTrace(await opening());
  await page.evaluate((t) => { window.__text = t; }, text);
  const trace = process.env.TRACE && process.env.TRACE !== 'open' ? await startTrace(context, page) : null;
  const t0 = await page.evaluate(() => (window.__t0 = performance.now()));
  await page.evaluate(paste);
  await page.waitForFunction(() => document.querySelector('[data-testid="fit-chart"] svg'), null, { timeout: 60000 });
  const t1 = await page.evaluate(() => performance.now());
  if (trace) await printTrace(await trace());
  await page.waitForTimeout(300);
  const worker = await page.locator('[data-testid="fit-timing"]').innerText();
  const longFit = await page.evaluate(() => window.__long.splice(0));
  // Again, the worker warm: the same file with its last time changed.
  await page.evaluate((t) => { window.__text = t; }, text.replace(/0 *\n$/, '1\n'));
  const w0 = await page.evaluate(() => performance.now());
  await page.evaluate(paste);
  await page.waitForFunction((w) => { const t = document.querySelector('[data-testid="fit-timing"]')?.innerText; return t && t !== w; }, worker, { timeout: 60000 });
  const w1 = await page.evaluate(() => performance.now());
  const warm = await page.locator('[data-testid="fit-timing"]').innerText();
  const longWarm = await page.evaluate(() => window.__long.splice(0));
  // Library picks on: the chart update with the band and the table.
  const u0 = await page.evaluate(() => performance.now());
  await page.locator('[data-testid="libraries"] > summary').click();
  await page.waitForTimeout(300);
  const u0b = await page.evaluate(() => performance.now());
  await page.click('[data-testid="lib-mpich"]');
  await page.waitForSelector('[data-testid="library-table"] tbody tr');
  const u1 = await page.evaluate(() => performance.now());
  await page.click('[data-testid="lib-ompi"]');
  await page.click('[data-testid="lib-nccl"]');
  await page.waitForTimeout(300);
  const long = await page.evaluate(() => window.__long);
  const fmt = (l) => (l.length ? l.join(', ') + ' ms' : 'none');
  console.log(`round ${r}: ${lines} lines pasted to the fitted chart ${(t1 - t0).toFixed(0)} ms (${worker}); tasks over 50 ms: ${fmt(longFit)}. Warm worker: ${(w1 - w0).toFixed(0)} ms (${warm}), tasks over 50 ms: ${fmt(longWarm)}. MPICH switched on to its table ${(u1 - u0b).toFixed(0)} ms (a click included); then Open MPI and NCCL: tasks over 50 ms: ${fmt(long)}`);
  await context.close();
}
server.close();

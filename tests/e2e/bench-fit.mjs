// Timing harness of the Chooser's fit and library picks (BENCHMARKS.md), not
// part of the suite: a pasted nccl-tests output of LINES lines (default 10^4)
// to the fitted chart on the page, with the page's long tasks; then library
// picks switched on and off, the chart update timed.
//   node bench-fit.mjs [ROUNDS]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, open } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] || 5);
const lines = Number(process.env.LINES || 10000);
let text = '#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n';
for (let k = 0; k < lines; k++) {
  const n = 8 + k * 4096;
  const t = (14 * 0.4 + 1.75 * n * 3.5e-5 * (1 + 0.01 * ((k % 7) - 3))).toFixed(2);
  text += `${String(n).padStart(12)} ${String(n / 4 | 0).padStart(13)} float sum -1 ${t} 0.00 0.00 0 ${t} 0.00 0.00 0\n`;
}
const server = await serveDir(path.resolve(here, '../../dist'), '/commlab/');
for (let r = 0; r < rounds; r++) {
  const context = await launch();
  const page = await open(context, server.url, `${server.url}?view=chooser&sim=0&coll=allreduce&p=8`);
  await page.waitForSelector('[data-testid="times-chart"] svg', { timeout: 60000 });
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(Math.round(e.duration)); }).observe({ type: 'longtask' });
  });
  await page.locator('[data-testid="fit"] > summary').click();
  // A reader opens the section, then pastes: give the warm-up its moment.
  await page.waitForTimeout(Number(process.env.PAUSE_MS ?? 1500));
  await page.locator('[data-testid="bench-text"]').evaluate((e, t) => { e.value = t; }, text);
  await page.evaluate(() => localStorage.setItem('__t0', String(performance.now())));
  const t0 = await page.evaluate(() => performance.now());
  await page.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await page.waitForFunction(() => document.querySelector('[data-testid="fit-chart"] svg'), null, { timeout: 60000 });
  const t1 = await page.evaluate(() => performance.now());
  await page.waitForTimeout(300);
  const worker = await page.locator('[data-testid="fit-timing"]').innerText();
  const longFit = await page.evaluate(() => window.__long.splice(0));
  // Again, the worker warm: the same file with its last time changed.
  await page.locator('[data-testid="bench-text"]').evaluate((e, t) => { e.value = t; }, text.replace(/0 *\n$/, '1\n'));
  const w0 = await page.evaluate(() => performance.now());
  await page.locator('[data-testid="bench-text"]').dispatchEvent('change');
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

import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { serveDir, launch } from '/work/main/tests/e2e/harness.mjs';
const server = await serveDir('/work/main/dist');
const ctx = await launch(fs.mkdtempSync(path.join(os.tmpdir(), 'lt-')));
await ctx.addInitScript(() => { window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(Math.round(e.duration)); }).observe({ type: 'longtask', buffered: true }); });
const links = process.argv.slice(2);
for (const q of links) {
  const page = await ctx.newPage();
  const t0 = Date.now();
  await page.goto(server.url + '?' + q);
  await page.waitForSelector('[data-testid="app"]');
  await page.waitForTimeout(Number(process.env.WAIT ?? 3000));
  const long = await page.evaluate(() => window.__long);
  const status = await page.evaluate(() => (document.querySelector('[data-testid="run-progress"],[data-testid="mesh-verdict"],[data-testid="mesh-error"],.summary-note,.caption')?.innerText ?? '').slice(0, 100));
  console.log(q, 'long tasks:', JSON.stringify(long), 'max', Math.max(0, ...long), '|', status.replace(/\n/g,' '));
  await page.close();
}
await ctx.close(); server.close();

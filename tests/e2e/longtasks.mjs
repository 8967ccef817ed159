// Main-thread tasks over 50 ms of each link (a diagnostic, not a test): each
// task's duration@start, the network picture's draws (User Timing
// 'net-picture') and when the network summary appeared, in ms from navigation.
// Usage: WAIT=ms node longtasks.mjs 'v=3&view=…' …   (the release build in dist/)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch } from './harness.mjs';
const here = path.dirname(fileURLToPath(import.meta.url));
const server = await serveDir(path.resolve(here, '../..', process.env.DIST ?? 'dist'));
const context = await launch();
const wait = Number(process.env.WAIT ?? 8000);
for (const q of process.argv.slice(2)) {
  const page = await context.newPage();
  await page.addInitScript(() => { window.__l = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__l.push(Math.round(e.duration) + "@" + Math.round(e.startTime)); }).observe({ type: 'longtask', buffered: true });
    new MutationObserver(() => { if (!window.__sum && document.querySelector('[data-testid="net-summary"]')) window.__sum = Math.round(performance.now()); }).observe(document, { subtree: true, childList: true }); });
  await page.goto(`${server.url}?${q}`);
  await page.waitForTimeout(wait);
  console.log(q, '->', (await page.evaluate(() => window.__l)).join(', ') || 'none', '| picture', (await page.evaluate(() => performance.getEntriesByName('net-picture').map((e) => Math.round(e.duration) + '@' + Math.round(e.startTime)))).join(', '), '| summary', await page.evaluate(() => window.__sum));
  await page.close();
}
await context.close(); server.close();

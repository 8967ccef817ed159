// Browser timing of the network budgets (not a test: it prints numbers for
// BENCHMARKS.md). For each link: the Schedule view's own "Built and simulated
// in" timer (from the request to the network's result in the engine worker,
// then the ideal switch's run after it), the wall time from navigation to the
// summary, and every main-thread task over 50 ms (PerformanceObserver).
// Usage: node bench-network.mjs [rounds]   (the release build in dist/)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, open } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] ?? 3);
const server = await serveDir(path.resolve(here, '../..', process.env.DIST ?? 'dist'));
const context = await launch();
const links = process.env.LINKS ? process.env.LINKS.split(' ') : [
  'view=schedule&coll=allreduce/ring&p=1024&bytes=67108864&net=torus:32x32',
  'view=schedule&coll=all-to-all/linear&p=256&bytes=16777216&net=fattree:16,16,4',
  'view=schedule&coll=allreduce/ring&p=256&bytes=1048576&net=torus:16x16',
];
for (const link of links) {
  for (let i = 0; i < rounds; i++) {
    const page = await open(context, server.url, `${server.url}?v=3&${link}`);
    await page.evaluate(() => {
      window.__long = [];
      new PerformanceObserver((list) => list.getEntries().forEach((e) => window.__long.push(Math.round(e.duration))))
        .observe({ type: 'longtask', buffered: true });
    });
    const summary = page.locator('[data-testid="schedule-summary"] .timing');
    await page.locator('[data-testid="net-summary"]').waitFor({ timeout: 120000 });
    const wall = await page.evaluate(() => performance.now());
    await page.waitForFunction(() => /ms more/.test(document.querySelector('[data-testid="schedule-summary"] .timing')?.innerText ?? ''), null, { timeout: 120000 });
    await page.waitForTimeout(500);
    const took = (await summary.innerText()).trim();
    const long = await page.evaluate(() => window.__long);
    // The picture's redraws (User Timing 'net-picture': scene and paint): the first draw, then hovers across it.
    const draws = () => page.evaluate(() => performance.getEntriesByName('net-picture').map((e) => e.duration));
    const first = await draws();
    const box = await page.locator('[data-testid="net-picture"]').boundingBox();
    for (let k = 0; k < 40; k++) {
      await page.mouse.move(box.x + box.width * (0.05 + 0.9 * (k / 40)), box.y + box.height * (0.05 + 0.9 * ((k * 7) % 40) / 40));
      await page.waitForTimeout(30);
    }
    const hovers = (await draws()).slice(first.length).sort((a, b) => a - b);
    const med = hovers.length ? hovers[hovers.length >> 1].toFixed(1) : '-';
    const max = hovers.length ? hovers[hovers.length - 1].toFixed(1) : '-';
    console.log(`${link}: ${took} summary at ${wall.toFixed(0)} ms after navigation; tasks over 50 ms: ${long.length ? long.join(', ') + ' ms' : 'none'}; picture drawn in ${first.map((d) => d.toFixed(1)).join(', ')} ms, ${hovers.length} hover redraws median ${med} ms, max ${max} ms`);
    await page.close();
  }
}
await context.close();
server.close();

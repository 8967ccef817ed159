import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { serveDir, launch } from '/work/main/tests/e2e/harness.mjs';
const server = await serveDir('/work/main/target/dist-bench');
const ctx = await launch(fs.mkdtempSync(path.join(os.tmpdir(), 'dbg-')));
await ctx.addInitScript(() => {
  window.__log = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (m, t) { window.__log.push(['post', Math.round(performance.now()), m.req ? Object.keys(m.req)[0] : '?']); return post.call(this, m, t); };
  const orig = Object.getOwnPropertyDescriptor(Worker.prototype, 'onmessage');
  Object.defineProperty(Worker.prototype, 'onmessage', { configurable: true, set(f) { orig.set.call(this, f && ((e) => { window.__log.push(['recv', Math.round(performance.now()), e.data && e.data.res ? Object.keys(e.data.res)[0] : 'other']); return f(e); })); }, get() { return orig.get.call(this); } });
  const term = Worker.prototype.terminate;
  Worker.prototype.terminate = function () { window.__log.push(['terminate', Math.round(performance.now())]); return term.call(this); };
});
const page = await ctx.newPage();
await page.goto(server.url + '?v=1&view=mesh&size=16&rate=0.2&step=40');
await page.waitForSelector('[data-testid="mesh-figure"][data-step="40"]');

for (let i = 0; i < 3; i++) {
  const before = await page.locator('[data-testid="mesh-figure"]').getAttribute('data-frames');
  const t0 = await page.evaluate(() => performance.now());
  await page.fill('#seed', String(5 + i));
  await page.waitForFunction((b) => document.querySelector('[data-testid="mesh-figure"]').getAttribute('data-frames') !== b, before);
  const t1 = await page.evaluate(() => performance.now());
  console.log('change', Math.round(t0), Math.round(t1 - t0));
}

console.log(JSON.stringify(await page.evaluate(() => window.__log.slice(-30))));
await ctx.close(); server.close();

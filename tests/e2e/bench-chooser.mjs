// How soon the Chooser draws its first chart on a slow link: dist/ served
// gzipped (as a static host serves it), Chromium's network throttled through
// the debugger protocol, cache off, a fresh profile per load. Prints the
// median of 3 cold loads per link, from navigation to the first result drawn
// in the chart (BENCHMARKS.md).
//   node tests/e2e/bench-chooser.mjs            # the Chooser's defaults
//   QUERY='view=chooser&p=16' node tests/e2e/bench-chooser.mjs
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { launch, tempDir } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
process.setMaxListeners(0);
const dist = path.resolve(here, '../..', process.env.DIST ?? 'dist');
const query = process.env.QUERY ?? 'view=chooser';
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml' };
const gz = new Map();
const sent = new Map();
const server = http.createServer((req, res) => {
  const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/$/, '/index.html');
  const file = path.join(dist, name);
  if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404); return res.end(); }
  if (!gz.has(file)) gz.set(file, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
  sent.set(name, (sent.get(name) ?? 0) + 1);
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-encoding': 'gzip', 'cache-control': 'no-store' });
  res.end(gz.get(file));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/?${query}`;
const links = [['loopback', null], ['10 Mbps / 40 ms', { latency: 40, down: 10e6 }], ['1.6 Mbps / 150 ms', { latency: 150, down: 1.6e6 }]];
for (const [label, link] of links) {
  const times = [];
  let bytes = 0;
  for (let i = 0; i < 3; i += 1) {
    const context = await launch(tempDir('commlab-bench-chooser-'));
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    if (link) {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: link.latency, downloadThroughput: link.down / 8, uploadThroughput: link.down / 8 });
    }
    sent.clear();
    const t0 = Date.now();
    await page.goto(url);
    // The first chart: its timing line appears with the first result drawn.
    await page.waitForFunction(() => (document.querySelector('[data-testid="chart-timing"]')?.textContent ?? '').length > 0, null, { timeout: 120000, polling: 'raf' });
    times.push(Date.now() - t0);
    bytes = [...sent].reduce((s, [name, n]) => s + n * gz.get(path.join(dist, name)).length, 0);
    const wasm = [...sent].filter(([name]) => name.endsWith('.wasm')).map(([name, n]) => `${name.replace(/^\//, '')}×${n}`).join(', ');
    if (i === 0) console.log(`  ${label}: sent by then ${(bytes / 1024).toFixed(0)} KB gzipped (${wasm})`);
    await context.close();
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: the Chooser's first chart in ${times[1]} ms (runs: ${times.join(', ')} ms)`);
}
server.close();

// How soon an embed shows its first numbers on a slow link: dist/ served
// gzipped (as a documentation host serves it), Chromium's network throttled
// through the debugger protocol, a course page on another origin framing the
// runtime model. Prints the median of 3 cold loads per link (BENCHMARKS.md).
//   node tests/e2e/bench-embed.mjs
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { launch, tempDir } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
process.setMaxListeners(0); // a temp profile per cold load, each removed at exit
const dist = path.resolve(here, '../..', process.env.DIST ?? 'dist');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml' };
const gz = new Map();
function serve(handler) {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}
const app = await serve((req, res) => {
  const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/$/, '/index.html');
  const file = path.join(dist, name);
  if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404); return res.end(); }
  if (!gz.has(file)) gz.set(file, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-encoding': 'gzip', 'cache-control': 'no-store' });
  res.end(gz.get(file));
});
const src = `${app.url}?v=5&view=model&embed=1`;
const course = await serve((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title></head><body><main><iframe id="f" src="${src}" width="860" height="1050" style="border:0"></iframe></main></body></html>`);
});
const links = [['loopback', null], ['10 Mbps / 40 ms', { latency: 40, down: 10e6 }], ['1.6 Mbps / 150 ms', { latency: 150, down: 1.6e6 }]];
for (const [label, link] of links) {
  const times = [];
  for (let i = 0; i < 3; i += 1) {
    const context = await launch(tempDir('commlab-bench-embed-'));
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    if (link) {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: link.latency, downloadThroughput: link.down / 8, uploadThroughput: link.down / 8 });
    }
    const t0 = Date.now();
    await page.goto(course.url);
    const frame = page.frameLocator('#f');
    await frame.locator('[data-row="m-best"] .pieces').waitFor({ timeout: 60000 });
    times.push(Date.now() - t0);
    await context.close();
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: first numbers of the model embed in ${times[1]} ms (runs: ${times.join(', ')} ms)`);
}
app.server.close();
course.server.close();

// Shared plumbing of the browser suite and the browser benchmark: a static
// server for dist/, the system Chromium through playwright-core, and a page
// wrapper that records console errors and foreign requests.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json',
};

/**
 * Serves `dir` on 127.0.0.1 (a free port) under `prefix` (as a documentation
 * site hosts it under a subpath: anything outside the prefix is a 404);
 * resolves to { url, close }, `url` ending in the prefix.
 */
export function serveDir(dir, prefix = '/') {
  const server = http.createServer((req, res) => {
    const full = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const pathname = full.startsWith(prefix) ? '/' + full.slice(prefix.length) : null;
    let file = pathname === null ? '' : path.join(dir, pathname.endsWith('/') ? pathname + 'index.html' : pathname);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('not found');
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${server.address().port}${prefix}`, close: () => server.close() });
  }));
}

/**
 * Serves `dir` gzip -9 with `cache-control: no-store`, as a static host that
 * compresses serves it (the load benchmarks); resolves to { server, url, sent,
 * size }: `sent` counts the requests per path, `size(name)` a file's gzipped bytes.
 */
export function serveGzip(dir) {
  const gz = new Map();
  const sent = new Map();
  const size = (name) => gz.get(path.join(dir, name))?.length ?? 0;
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/$/, '/index.html');
    const file = path.join(dir, name);
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404); return res.end(); }
    if (!gz.has(file)) gz.set(file, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
    sent.set(name, (sent.get(name) ?? 0) + 1);
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-encoding': 'gzip', 'cache-control': 'no-store' });
    res.end(gz.get(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/`, sent, size })));
}

/** The links the load benchmarks throttle to: [label, Chromium's conditions or null]. */
export const SLOW_LINKS = [['loopback', null], ['10 Mbps / 40 ms', { latency: 40, down: 10e6 }], ['1.6 Mbps / 150 ms', { latency: 150, down: 1.6e6 }]];

/** A cold browser (a fresh profile, the cache off) whose page's network is throttled to `link`; resolves to { context, page }. */
export async function coldPage(prefix, link) {
  const context = await launch(tempDir(prefix));
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (link) {
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: link.latency, downloadThroughput: link.down / 8, uploadThroughput: link.down / 8 });
  }
  return { context, page };
}

/**
 * A fresh directory under the system temp dir, removed when the process exits
 * (Chromium profiles are ~8 MB each; a suite run must not leave them behind).
 */
export function tempDir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The system Chromium, headless, with the flags that keep it off the network. */
export async function launch(userDataDir = tempDir('commlab-chromium-')) {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync',
      // Diagnostics only (never set by the suite): e.g. CHROMIUM_FLAGS='--js-flags=--no-liftoff'.
      ...(process.env.CHROMIUM_FLAGS ? process.env.CHROMIUM_FLAGS.split(' ') : [])],
    viewport: { width: 1280, height: 900 },
  });
}

/** Opens `url` in a new page of `context`, recording problems in `page.problems`. */
export async function open(context, base, url) {
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (msg) => { if (msg.type() === 'error') page.problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
  page.on('dialog', (d) => { page.problems.push(`unexpected dialog: ${d.message()}`); d.dismiss(); });
  page.on('request', (req) => {
    const u = req.url();
    if (!u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:')) page.problems.push(`foreign request: ${u}`);
  });
  await page.goto(url);
  await page.waitForSelector('[data-testid="app"]');
  return page;
}

// A Chromium trace of `page` (the timeline, V8 and wasm categories): call
// the function returned to stop it and get its events.
export async function startTrace(context, page) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((resolve) => cdp.on('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    categories: process.env.TRACE_CATS ?? 'devtools.timeline,v8,v8.wasm,blink,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  return async () => { await cdp.send('Tracing.end'); await done; return events; };
}

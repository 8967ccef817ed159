// Shared plumbing of the browser suite and the browser benchmark: a static
// server for dist/, the system Chromium through playwright-core, and a page
// wrapper that records console errors and foreign requests.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
    categories: 'devtools.timeline,v8,v8.wasm,blink,disabled-by-default-devtools.timeline',
    transferMode: 'ReportEvents',
  });
  return async () => { await cdp.send('Tracing.end'); await done; return events; };
}

// How soon an embed shows its first numbers on a slow link: dist/ served
// gzipped (as a documentation host serves it), Chromium's network throttled
// through the debugger protocol, a course page on another origin framing the
// runtime model. Prints the median of 3 cold loads per link (BENCHMARKS.md).
//   node tests/e2e/bench-embed.mjs
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coldPage, serveGzip, SLOW_LINKS } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
process.setMaxListeners(0); // a temp profile per cold load, each removed at exit
const dist = path.resolve(here, '../..', process.env.DIST ?? 'dist');
function serve(handler) {
  const server = http.createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}
const app = await serveGzip(dist);
const src = `${app.url}?v=5&view=model&embed=1`;
const course = await serve((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title></head><body><main><iframe id="f" src="${src}" width="860" height="1050" style="border:0"></iframe></main></body></html>`);
});
for (const [label, link] of SLOW_LINKS) {
  const times = [];
  for (let i = 0; i < 3; i += 1) {
    const { context, page } = await coldPage('commlab-bench-embed-', link);
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

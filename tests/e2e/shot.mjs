// Screenshot helper for looking at the app by hand (not part of the suite):
//   node shot.mjs 'QUERY' SELECTOR OUT.png [WAIT_SELECTOR] [WIDTH]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, open } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [query, selector, out, wait, width] = process.argv.slice(2);
const server = await serveDir(path.resolve(here, '../../dist'), '/commlab/');
const context = await launch();
const page = await open(context, server.url, `${server.url}?${query}`);
if (width) await page.setViewportSize({ width: Number(width), height: 900 });
if (wait) await page.waitForSelector(wait, { timeout: 60000 });
await page.waitForTimeout(500);
await page.locator(selector).first().screenshot({ path: out });
console.log(page.problems.length ? page.problems.join('\n') : 'no problems');
await context.close();
server.close();

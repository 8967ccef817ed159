// commlab browser E2E suite: the release build in dist/, served locally, driven
// in the system's headless Chromium. Screenshots go to tests/e2e/artifacts/.
// Usage: node run.mjs [filter]   (run by scripts/test.sh)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { serveDir, launch, open } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '../../dist');
const artifacts = path.join(here, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

/** The text of a table row's cell: row id (m-best, ...) and cell class (pieces, time, steps). */
const cell = (page, row, col) => page.locator(`[data-row="${row}"] .${col}`).innerText();
const chartSvg = (page, id) => page.locator(`[data-testid="${id}"] .chart-svg`).innerHTML();
const shot = (page, name) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
const waitForUrl = (page, pred) => page.waitForFunction(pred, null, { timeout: 3000 });

test('loads with the model view, its numbers and no console error', async ({ page }) => {
  assert.equal(await page.locator('.brand h1').innerText(), 'commlab');
  const tabs = await page.locator('.view-switcher button').allInnerTexts();
  assert.deepEqual(tabs, ['Runtime model']);
  assert.equal(await cell(page, 'm-best', 'pieces'), '81');
  assert.equal(await cell(page, 'm-star', 'pieces'), '80.6');
  assert.equal(await cell(page, 'binomial', 'time'), '6351');
  assert.match(await chartSvg(page, 'chart-pieces'), /best m = 81/);
  assert.match(await chartSvg(page, 'chart-units'), /p = 64/);
  await shot(page, 'model-default');
});

test('changing p redraws the chart, updates the URL, and a reload restores it', async ({ page, context, base }) => {
  const before = await chartSvg(page, 'chart-pieces');
  await page.fill('#p', '1000');
  await page.waitForFunction(() => document.querySelector('[data-row="m-best"] .pieces').innerText !== '81');
  const after = await chartSvg(page, 'chart-pieces');
  assert.notEqual(after, before, 'chart changed');
  assert.match(after, /p = 1000/);
  await waitForUrl(page, () => location.search.includes('p=1000'));
  const url = page.url();
  assert.match(url, /[?&]v=1&view=model&p=1000(&|$)/);
  const best = await cell(page, 'm-best', 'pieces');
  const reopened = await open(context, base, url);
  assert.equal(await reopened.inputValue('#p'), '1000');
  assert.equal(await cell(reopened, 'm-best', 'pieces'), best);
  assert.equal(await chartSvg(reopened, 'chart-pieces'), after, 'same link, same pixels');
  assert.deepEqual(reopened.problems, []);
});

test('every input moves the model; sliders work from the keyboard', async ({ page }) => {
  const snapshot = () => page.locator('[data-testid="numbers"]').innerText();
  let last = await snapshot();
  for (const [id, value] of [['n', '4096'], ['t_start', '2.5'], ['t_byte', '0.01'], ['max_pieces', '20'], ['m', '3']]) {
    await page.fill(`#${id}`, value);
    await page.waitForFunction((prev) => document.querySelector('[data-testid="numbers"]').innerText !== prev, last);
    last = await snapshot();
  }
  await waitForUrl(page, () => location.search.includes('m=3'));
  assert.match(page.url(), /n=4096&p?.*t_start=2.5&t_byte=0.01&max_pieces=20&m=3/);
  // Keyboard: focus the p slider and step it.
  await page.focus('#p-slider');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#p').value !== '64');
  assert.ok(Number(await page.inputValue('#p')) > 64, 'slider moved p up');
  // Invalid text is flagged, not applied.
  await page.fill('#n', 'abc');
  assert.match(await page.locator('#n-error').innerText(), /n|integer in 1\.\.=1099511627776/);
  assert.equal(await page.getAttribute('#n', 'aria-invalid'), 'true');
  assert.equal(await cell(page, 'm-chosen', 'pieces'), '3');
  await page.click('[data-testid="use-best"]');
  await page.waitForFunction(() => document.querySelector('#m').value !== '3');
  assert.equal(await page.inputValue('#m'), await cell(page, 'm-best', 'pieces'));
});

test('embed=1 shows the view alone with a link back carrying the same state', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=model&p=256&embed=1`);
  assert.equal(await page.locator('.app-header').count(), 0, 'no header in embed mode');
  assert.equal(await page.locator('[data-testid="share"]').count(), 0);
  const href = await page.getAttribute('[data-testid="open-in-commlab"]', 'href');
  assert.match(href, /^http:\/\/127\.0\.0\.1:\d+\/\?v=1&view=model&p=256$/);
  await page.setViewportSize({ width: 860, height: 720 });
  await shot(page, 'model-embed');
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height <= 760, `embed fits the snippet's frame (${height} px tall)`);
  assert.deepEqual(page.problems, []);
});

test('the embed example page frames the playground', async ({ context, base }) => {
  const page = await context.newPage();
  await page.goto(`${base}embed-example.html`);
  const frame = page.frameLocator('#commlab-embed');
  await frame.locator('[data-row="m-best"] .pieces').waitFor();
  assert.equal(await frame.locator('#p').inputValue(), '256');
  await shot(page, 'embed-example');
});

test('a malformed URL shows a notice naming each parameter and still works', async ({ context, base }) => {
  const page = await open(context, base, `${base}?p=-3&n=abc&v=999`);
  const notice = await page.locator('[data-testid="notices"]').innerText();
  for (const expected of [/p: "-3" is not an integer in 1\.\.=1048576; using 64/, /n: "abc" is not an integer in 1\.\.=1099511627776/, /v: "999"/]) {
    assert.match(notice, expected);
  }
  assert.equal(await cell(page, 'm-best', 'pieces'), '81', 'defaults used');
  await shot(page, 'model-notice');
  await page.click('.notices .dismiss');
  assert.equal(await page.locator('[data-testid="notices"]').count(), 0);
  await page.fill('#p', '8');
  await page.waitForFunction(() => document.querySelector('[data-row="m-best"] .pieces').innerText !== '81');
  assert.deepEqual(page.problems, []);
});

test('hostile link text is shown as text, never run as markup', async ({ context, base }) => {
  const evil = encodeURIComponent('<img src=x onerror=alert(1)>');
  const page = await open(context, base, `${base}?view=${evil}&p=${evil}&theme=${evil}`);
  const notice = await page.locator('[data-testid="notices"]').innerText();
  assert.match(notice, /<img src=x onerror=alert\(1\)>/);
  assert.equal(await page.locator('.notices img').count(), 0);
  assert.deepEqual(page.problems, [], 'no dialog, no request to "x"');
});

test('dark theme: follows the system and can be switched', async ({ page, context, base }) => {
  await page.selectOption('[data-testid="theme"]', 'dark');
  await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(24, 26, 31)');
  assert.match(await chartSvg(page, 'chart-pieces'), /fill="#181A1F"/i, 'chart drawn in dark colours');
  await waitForUrl(page, () => location.search.includes('theme=dark'));
  await shot(page, 'model-dark');
  const auto = await context.newPage();
  await auto.emulateMedia({ colorScheme: 'dark' });
  await auto.goto(base);
  await auto.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  await auto.emulateMedia({ colorScheme: 'light' });
  await auto.waitForFunction(() => document.documentElement.dataset.theme === 'light');
});

test('Share copies the link and Embed copies an iframe snippet', async ({ page, context, base }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await page.fill('#p', '512');
  await page.click('[data-testid="share"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="share-status"]').innerText.includes('copied'));
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /\?v=1&view=model&p=512$/);
  await page.click('[data-testid="embed"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="share-status"]').innerText.includes('Embed code'));
  const snippet = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(snippet, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/\?v=1&amp;view=model&amp;p=512&amp;embed=1"/);
  const reopened = await open(context, base, link);
  assert.equal(await reopened.inputValue('#p'), '512');
});

test('a panic shows the banner instead of a frozen page', async ({ page }) => {
  assert.equal(await page.isVisible('#panic-banner'), false);
  await page.evaluate(() => { try { window.wasmBindings.commlab_selftest_panic(); } catch (_) { /* the trap */ } });
  await page.waitForSelector('#panic-banner', { state: 'visible' });
  assert.match(await page.locator('#panic-detail').innerText(), /self-test panic/);
  await shot(page, 'panic-banner');
  page.problems = []; // the panic itself is logged to the console on purpose
});

test('degenerate inputs (p = 1, T_start = 0) explain themselves instead of printing NaN', async ({ context, base }) => {
  for (const [query, note] of [['p=1', /p ≤ 2/], ['t_start=0', /m\* = ∞/]]) {
    const page = await open(context, base, `${base}?${query}`);
    assert.match(await page.locator('[data-testid="optimum-note"]').innerText(), note);
    assert.doesNotMatch(await page.locator('main').innerText(), /NaN/);
    assert.doesNotMatch(await chartSvg(page, 'chart-pieces'), /NaN/);
    assert.deepEqual(page.problems, []);
  }
});

// ---------------------------------------------------------------------------
const filter = process.argv[2] ?? '';
const server = await serveDir(dist);
const context = await launch(fs.mkdtempSync(path.join(os.tmpdir(), 'commlab-e2e-')));
let failed = 0;
for (const t of tests.filter((t) => t.name.includes(filter))) {
  const started = Date.now();
  let page;
  try {
    page = await open(context, server.url, server.url);
    await t.fn({ page, context, base: server.url });
    assert.deepEqual(page.problems, [], 'console errors, page errors or foreign requests');
    console.log(`ok   ${t.name} (${Date.now() - started} ms)`);
  } catch (err) {
    failed += 1;
    console.log(`FAIL ${t.name}\n     ${String(err.stack ?? err).split('\n').slice(0, 6).join('\n     ')}`);
    if (page) await shot(page, `FAILED-${t.name.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => {});
  }
  for (const p of context.pages()) await p.close();
}
await context.close();
server.close();
console.log(failed ? `${failed} browser test(s) failed` : `all browser tests passed; screenshots in ${artifacts}`);
process.exit(failed ? 1 : 0);

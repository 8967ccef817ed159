// commlab browser E2E suite: the release build in dist/, served locally, driven
// in the system's headless Chromium. Screenshots go to tests/e2e/artifacts/.
// Usage: node run.mjs [regex over test names]   (run by scripts/test.sh)
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { serveDir, launch, open, tempDir } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// The release CLI, built by scripts/test.sh in the shared target directory it chose (CARGO_TARGET_DIR).
const CLI = path.join(process.env.CARGO_TARGET_DIR || path.resolve(here, '../../target'), 'release/commlab');
const dist = path.resolve(here, '../../dist');
const artifacts = path.join(here, 'artifacts');
fs.mkdirSync(artifacts, { recursive: true });

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

/** The text of a table row's cell: row id (m-best, ...) and cell class (pieces, time, steps). */
const cell = (page, row, col) => page.locator(`[data-row="${row}"] .${col}`).innerText();
const chartSvg = (page, id) => page.locator(`[data-testid="${id}"] svg`).first().evaluate((e) => e.outerHTML);
const shot = (page, name) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
const waitForUrl = (page, pred) => page.waitForFunction(pred, null, { timeout: 3000 });

test('loads with the model view, its numbers and no console error', async ({ page }) => {
  assert.equal(await page.locator('.brand h1').innerText(), 'commlab');
  const tabs = await page.locator('.view-switcher button').allInnerTexts();
  assert.deepEqual(tabs, ['Reduction tree', 'Pipeline', 'Runtime model', 'Barrier mesh', 'Barrier lab', 'Swizzle schedule', 'Schedule timeline', 'Collective chooser']);
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
  // The network twin's rings come from a worker after the chart: compare charts that have them.
  const twin = (p) => p.waitForFunction(() => /on a line of hosts/.test(document.querySelector('[data-testid="chart-pieces"]')?.innerHTML ?? '') && /p = 1000/.test(document.querySelector('[data-testid="chart-pieces"]')?.innerHTML ?? ''), null, { timeout: 30000 });
  await twin(page);
  const after = await chartSvg(page, 'chart-pieces');
  assert.notEqual(after, before, 'chart changed');
  assert.match(after, /p = 1000/);
  await waitForUrl(page, () => location.search.includes('p=1000'));
  const url = page.url();
  assert.match(url, /[?&]v=5&view=model&p=1000(&|$)/);
  const best = await cell(page, 'm-best', 'pieces');
  const reopened = await open(context, base, url);
  assert.equal(await reopened.inputValue('#p'), '1000');
  assert.equal(await cell(reopened, 'm-best', 'pieces'), best);
  await twin(reopened);
  assert.equal(await chartSvg(reopened, 'chart-pieces'), after, 'same link, same pixels');
  assert.deepEqual(reopened.problems, []);
});

test('every input moves the model; sliders work from the keyboard', async ({ page }) => {
  // The numbers and the T(m) chart (max_pieces bounds the chart only, not m_best).
  const state = () => document.querySelector('[data-testid="numbers"]').innerText + document.querySelector('[data-testid="chart-pieces"] svg').outerHTML;
  let last = await page.evaluate(state);
  for (const [id, value] of [['n', '4096'], ['t_start', '2.5'], ['t_byte', '0.01'], ['max_pieces', '20'], ['m', '3']]) {
    await page.fill(`#${id}`, value);
    await page.waitForFunction((prev) => document.querySelector('[data-testid="numbers"]').innerText + document.querySelector('[data-testid="chart-pieces"] svg').outerHTML !== prev, last);
    last = await page.evaluate(state);
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
  assert.match(await page.locator('#n-error').innerText(), /integer from 1 to 1 099 511 627 776/);
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
  assert.match(href, /^http:\/\/127\.0\.0\.1:\d+\/commlab\/\?v=5&view=model&p=256$/);
  await page.setViewportSize({ width: 860, height: 800 });
  await shot(page, 'model-embed');
  // Without the snippet's script the frame keeps the snippet's height: 1050 px for the model.
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height <= 1050, `embed fits the snippet's frame (${height} px tall)`);
  assert.deepEqual(page.problems, []);
});

test('under a subpath every view opens from its tab and loads only files under that path', async ({ page, base }) => {
  assert.match(base, /\/commlab\/$/);
  for (const name of ['Reduction tree', 'Pipeline', 'Runtime model', 'Barrier mesh', 'Barrier lab', 'Swizzle schedule']) {
    await page.click(`.view-switcher button:has-text("${name}")`);
    await page.waitForFunction(() => document.querySelector('main svg, main canvas') !== null);
    await waitForUrl(page, () => location.pathname === '/commlab/');
  }
  const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.ok(loaded.some((u) => u.endsWith('.wasm')), 'the wasm loaded');
  for (const u of loaded) assert.ok(u.startsWith(base), `${u} is under ${base}`);
  await shot(page, 'subpath-swizzle');
});

test('embed at 1280 px: every input and slider stays inside its field, in every view', async ({ context, base }) => {
  for (const view of ['tree', 'pipeline', 'model', 'mesh', 'lab', 'swizzle', 'chooser', 'schedule']) {
    const page = await open(context, base, `${base}?v=3&view=${view}&embed=1`);
    await page.waitForFunction(() => document.querySelector('main svg, main canvas') !== null);
    const outside = await page.evaluate(() => [...document.querySelectorAll('.field input, .field select')].flatMap((el) => {
      const r = el.getBoundingClientRect();
      const f = el.closest('.field').getBoundingClientRect();
      const inside = r.left >= f.left - 1 && r.right <= f.right + 1 && r.top >= f.top - 1 && r.bottom <= f.bottom + 1;
      return inside || r.width === 0 ? [] : [`${el.id || el.className} at ${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(f.left)}..${Math.round(f.right)}`];
    }));
    assert.deepEqual(outside, [], `${view}: controls outside their field`);
    if (view === 'mesh') await shot(page, 'mesh-embed');
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

test('sources: the header links the page; each source number beside ours; every worked example opens', async ({ page, context, base }) => {
  await page.click('[data-testid="sources-link"]');
  await page.waitForSelector('[data-testid="source-row"]');
  assert.equal(page.url(), `${base}sources.html`);
  const rows = await page.locator('[data-testid="source-row"]').allInnerTexts();
  assert.equal(rows.length, 11);
  const text = rows.join('\n');
  // The paper's delay claims, each under both routing rules.
  assert.equal(rows.filter((r) => /Under routing=paper: .*Under routing=shortest: /s.test(r)).length, 4);
  assert.match(text, /The claim (holds|fails) under routing=paper .* and (holds|fails) under routing=shortest/);
  for (const expected of [/0\.5527\s+0\.524 with the 16 identity conversions, 0\.559 without/, /LCT 73\.1 % \(7 of 26 links kept\), BST 18\.2 %\s+LCT 81\.1 % \(7 of 37\)/,
    /6 steps, 8 with deterministic mode\s+6 steps, 8 with deterministic mode/, /m\* = 80\.63; best integer m = 81/, /30–50 % faster/]) {
    assert.match(text, expected);
  }
  await shot(page, 'sources');
  const presets = await page.locator('[data-testid="preset"]').allInnerTexts();
  assert.ok(presets.includes('catccos: 12 cores on 4 × 4 × 4, with and without deterministic mode'), presets.join('\n'));
  assert.ok(presets.includes('Binomial article: reduction on p = 8'));
  const links = await page.locator('[data-testid="source-row"] a, [data-testid="preset"]').evaluateAll((as) => as.map((a) => a.href));
  for (const link of [...new Set(links)]) {
    assert.ok(link.startsWith(`${base}?v=5&view=`), `${link} opens a view under ${base}`);
    const opened = await open(context, base, link);
    await opened.waitForFunction(() => document.querySelector('main svg, main canvas') !== null);
    assert.equal(await opened.locator('[data-testid="notices"]').count(), 0, `${link} opens without notices`);
    assert.deepEqual(opened.problems, []);
    await opened.close();
  }
});

test('accessibility: axe-core finds no violation in any view, in embed mode, or on the Sources page', async ({ context, base }) => {
  const axe = fs.readFileSync(path.join(here, 'node_modules/axe-core/axe.min.js'), 'utf8');
  const pages = ['view=tree', 'view=pipeline', 'view=model', 'view=mesh', 'view=lab', 'view=swizzle', 'view=chooser&sim=0', 'view=schedule&coll=allreduce/ring&net=ring:8', 'view=chooser&p=16&lo=65536&hi=262144&net=torus:4x4', 'view=chooser&sim=0&p=24&lib=mpich,ompi,nccl', 'view=swizzle&net=ring:8', 'view=mesh&embed=1', 'view=model&embed=1&theme=dark', 'view=chooser&sim=0&p=8&sys=custom%3Agpus%3D4%2Cnics%3D2&net=nodes%3A2x4x2&bw=370.8&bw2=50', 'view=schedule&coll=allreduce%2Fnvls&p=16&net=nodes%3A2x8&bw=370.8&bw2=50'];
  const embeds = ['tree', 'pipeline', 'model', 'mesh', 'lab', 'swizzle', 'chooser&sim=0', 'schedule'].map((v) => `view=${v}&embed=1`);
  const urls = [...pages, ...embeds].map((q) => `${base}?v=3&${q}`);
  // Every view and embed on a laptop and on a phone, the Sources page and the embed example too.
  for (const [url, [width, height]] of [...urls, `${base}sources.html`, `${base}embed-example.html`].flatMap((u) => [[u, [1280, 800]], [u, [390, 844]]])) {
    const page = await context.newPage();
    await page.setViewportSize({ width, height });
    await page.goto(url);
    if (url.endsWith('embed-example.html')) {
      await page.frameLocator('#commlab-embed').locator('main svg').first().waitFor();
      await page.waitForTimeout(300);
      const violations = await new AxeOn(page, axe).run();
      assert.deepEqual(violations, [], `${url} at ${width} px`);
      await page.close();
      continue;
    }
    await page.waitForFunction(() => document.querySelector('main svg, main canvas, table') !== null);
    await page.waitForTimeout(300);
    await page.evaluate(axe); // through the debugger protocol: the pages' CSP forbids injected scripts
    const violations = await page.evaluate(async () => (await axe.run(document)).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`));
    assert.deepEqual(violations, [], `${url} at ${width} px`);
    await page.close();
  }
});

/** axe on a page and its same-origin frames (each frame gets its own copy). */
class AxeOn {
  constructor(page, source) { this.page = page; this.source = source; }
  async run() {
    const out = [];
    for (const frame of this.page.frames()) {
      await frame.evaluate(this.source);
      const found = await frame.evaluate(async () => (await axe.run(document)).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`));
      out.push(...found.map((f) => `${frame === this.page.mainFrame() ? 'page' : frame.url()}: ${f}`));
    }
    return out;
  }
}

test('the embed example page frames the playground', async ({ context, base }) => {
  const page = await context.newPage();
  await page.goto(`${base}embed-example.html`);
  const frame = page.frameLocator('#commlab-embed');
  await frame.locator('[data-row="m-best"] .pieces').waitFor();
  assert.equal(await frame.locator('#p').inputValue(), '256');
  await shot(page, 'embed-example');
});

test('the console stays quiet: no warning on any view or worker start, no failed request, the embed example included', async ({ context, base }) => {
  const heard = [];
  const watch = (page, where) => {
    page.on('console', (m) => { if (m.type() === 'warning' || m.type() === 'error') heard.push(`${where}: ${m.type()}: ${m.text()}`); });
    page.on('response', (r) => { if (r.status() >= 400) heard.push(`${where}: ${r.status()} ${r.url()}`); });
    // A request the page itself cancels (a worker ended before its script arrived, a closed page) is not a failure.
    page.on('requestfailed', (r) => { if (r.failure()?.errorText !== 'net::ERR_ABORTED') heard.push(`${where}: failed ${r.url()} (${r.failure()?.errorText})`); });
  };
  for (const view of VIEWS) {
    const page = await context.newPage();
    watch(page, view);
    await page.goto(`${base}?view=${view}`);
    await page.waitForSelector('[data-testid="app"]');
    // Long enough for the workers to start and answer (the deprecated-init warning came from each start).
    await page.waitForTimeout(view === 'chooser' || view === 'schedule' || view === 'lab' ? 2500 : 800);
    await page.close();
  }
  const page = await context.newPage();
  watch(page, 'embed example');
  await page.goto(`${base}embed-example.html`);
  await page.frameLocator('#commlab-embed').locator('[data-row="m-best"] .pieces').waitFor();
  await page.waitForTimeout(500);
  await page.close();
  assert.deepEqual(heard, [], 'console warnings, errors or failed requests');
});

test('first visit: a plain address says what each view answers, with an example each; dismissed for good; never in an embed or the URL', async ({ context, base }) => {
  const page = await open(context, base, base);
  await page.evaluate(() => localStorage.removeItem('commlab-welcomed'));
  await page.goto(base);
  const welcome = page.locator('[data-testid="welcome"]');
  await welcome.waitFor();
  const links = await welcome.locator('li a').evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute('href')]));
  const tabs = await page.locator('.view-switcher .view-tab').allInnerTexts();
  assert.deepEqual(links.map(([name]) => name), tabs.map((t) => t.trim()), 'one sentence per view, in tab order');
  // Each example opens its own view, with no notice, and without the orientation (it has parameters).
  for (const [name, href] of links) {
    const p = await open(context, base, new URL(href, base).href);
    await p.waitForSelector('[data-testid="app"]');
    assert.equal((await p.locator('.view-tab[aria-current="page"]').innerText()).trim(), name, href);
    assert.equal(await p.locator('[data-testid="notices"]').count(), 0, `${href}: no notice`);
    assert.equal(await p.locator('[data-testid="welcome"]').count(), 0, `${href}: no orientation`);
    await p.close();
  }
  const embed = await open(context, base, `${base}?embed=1`);
  await embed.waitForSelector('[data-testid="app"]');
  assert.equal(await embed.locator('[data-testid="welcome"]').count(), 0, 'never in an embed');
  await embed.close();
  const before = page.url();
  await page.click('[data-testid="welcome-close"]');
  assert.equal(await welcome.count(), 0);
  assert.equal(page.url(), before, 'the URL does not change');
  await page.goto(base);
  await page.waitForSelector('[data-testid="app"]');
  assert.equal(await page.locator('[data-testid="welcome"]').count(), 0, 'dismissed for good in this browser');
  await page.evaluate(() => localStorage.removeItem('commlab-welcomed'));
});

test('Back and Forward walk the views a user went through: a view switched to is an entry, a change inside a view is not', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=tree`);
  const current = () => page.locator('.view-tab[aria-current="page"]').getAttribute('data-view');
  await page.locator('.view-tab[data-view="model"]').click();
  await waitForUrl(page, () => /[?&]view=model(&|$)/.test(location.search));
  await page.fill('#p', '1000');
  await page.locator('#p').press('Enter');
  await waitForUrl(page, () => /[?&]p=1000(&|$)/.test(location.search));
  await page.fill('#p', '2000');
  await page.locator('#p').press('Enter');
  await waitForUrl(page, () => /[?&]p=2000(&|$)/.test(location.search));
  await page.locator('.view-tab[data-view="chooser"]').click();
  await waitForUrl(page, () => /[?&]view=chooser(&|$)/.test(location.search));
  await page.locator('#chooser-system').waitFor();
  // Back: the model view as it was left (p = 2000, not 1000: a change in a view replaces its entry).
  await page.goBack();
  await waitForUrl(page, () => /[?&]view=model(&|$)/.test(location.search) && /[?&]p=2000(&|$)/.test(location.search));
  await page.waitForFunction(() => document.querySelector('#p')?.value === '2000');
  assert.equal(await current(), 'model');
  // Back again: the tree, still inside commlab.
  await page.goBack();
  await waitForUrl(page, () => /[?&]view=tree(&|$)/.test(location.search));
  await page.locator('.view-tab[aria-current="page"][data-view="tree"]').waitFor();
  // Forward, twice: the model, then the Chooser, each as it was.
  await page.goForward();
  await page.waitForFunction(() => document.querySelector('#p')?.value === '2000');
  assert.equal(await current(), 'model');
  await page.goForward();
  await page.locator('#chooser-system').waitFor();
  assert.equal(await current(), 'chooser');
  assert.deepEqual(page.problems, []);
});

test('a malformed URL shows a notice naming each parameter and still works', async ({ context, base }) => {
  const page = await open(context, base, `${base}?p=-3&n=abc&v=999`);
  const notice = await page.locator('[data-testid="notices"]').innerText();
  for (const expected of [/p: "-3" is not an integer from 1 to 1 048 576; using 64/, /n: "abc" is not an integer from 1 to 1 099 511 627 776/, /v: "999"/]) {
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
  assert.match(link, /\?v=5&view=model&p=512$/);
  await page.click('[data-testid="embed"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="share-status"]').innerText.includes('Embed code'));
  const snippet = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(snippet, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/commlab\/\?v=5&amp;view=model&amp;p=512&amp;embed=1" title="commlab: Runtime model" width="860" height="1050" [^>]*><\/iframe><script>/);
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


const stepCount = (page) => page.locator('[data-testid="step-count"]').innerText();
/** Unit u's x_i in the values table, as numbers. */
const unitValue = async (page, u) => (await page.locator(`[data-testid="values"] tr[data-unit="${u}"] .x`).innerText()).split(/[\s,]+/).filter(Boolean).map(Number);

test('reduction tree: step through p = 8 and read every unit value at every step', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=tree&p=8`);
  assert.equal(await stepCount(page), 'step 0 / 3');
  const v = [];
  for (let u = 0; u < 8; u++) v.push((await unitValue(page, u))[0]);
  // Expected x_i after each step, from the spec's pseudocode applied to the inputs on screen.
  let x = [...v];
  for (let k = 0; k < 3; k++) {
    await page.click('[data-testid="forward"]');
    await page.waitForFunction((s) => document.querySelector('[data-testid="step-count"]').innerText === `step ${s} / 3`, k + 1);
    const next = [...x];
    for (let i = 0; i < 8; i++) if (i % (2 << k) === 0 && i + (1 << k) < 8) next[i] = x[i] + x[i + (1 << k)];
    x = next;
    for (let i = 0; i < 8; i += 1 << (k + 1)) assert.equal((await unitValue(page, i))[0], x[i], `step ${k + 1}, unit ${i}`);
    const caption = await page.locator('[data-testid="caption"]').innerText();
    assert.match(caption, new RegExp(`Step ${k + 1} of 3`));
    if (k === 0) assert.match(caption, /units 1, 3, 5, 7 send to 0, 2, 4, 6 .*4 units go inactive/);
    assert.equal(await page.locator('[data-testid="values"] tr[data-unit="1"] .state').innerText(), 'inactive');
  }
  assert.equal(x[0], v.reduce((a, b) => a + b, 0));
  assert.match(await page.locator('[data-testid="result"]').innerText(), /equals the sequential fold/);
  await shot(page, 'tree-p8-done');
  // Scrub back to 1, then share the link at step 3 and reopen it there.
  await page.locator('[data-testid="scrubber"]').fill('1');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-count"]').innerText === 'step 1 / 3');
  await page.click('[data-testid="last"]');
  await waitForUrl(page, () => location.search.includes('step=3'));
  const reopened = await open(context, base, page.url());
  assert.equal(await stepCount(reopened), 'step 3 / 3');
  assert.equal((await unitValue(reopened, 0))[0], x[0]);
  assert.equal(await chartSvg(reopened, 'tree-svg'), await chartSvg(page, 'tree-svg'), 'same link, same picture');
  assert.deepEqual(reopened.problems, []);
});

test('reduction tree: message passing arrows, broadcast, padded, typed inputs', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=tree&p=6&mode=mp&step=1`);
  const svg = await page.locator('[data-testid="tree-svg"]').innerHTML();
  assert.match(svg, /send/);
  assert.match(svg, /recv/);
  await shot(page, 'tree-mp');
  await page.selectOption('#collective', 'broadcast');
  await page.click('[data-testid="last"]');
  const root = await unitValue(page, 0);
  for (let u = 1; u < 6; u++) assert.deepEqual(await unitValue(page, u), root, `unit ${u} got the root's vector`);
  await page.check('[data-testid="padded"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="values"] tr.virtual').length === 2);
  await page.selectOption('#collective', 'reduce');
  await page.fill('#inputs', '1; 2; 3; 4; 5; 60');
  await page.click('[data-testid="use-inputs"]');
  await page.click('[data-testid="last"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="result"]').innerText.includes('[75]'));
  await waitForUrl(page, () => location.search.includes('inputs='));
  const reopened = await open(context, base, page.url());
  assert.match(await reopened.locator('[data-testid="result"]').innerText(), /\[75\]/);
  await page.fill('#inputs', '1; 2');
  await page.click('[data-testid="use-inputs"]');
  assert.match(await page.locator('[data-testid="inputs-error"]').innerText(), /expected 6 vectors/);
  await shot(page, 'tree-padded');
});

test('reduction tree: export SVG and CSV with the run in them', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=tree&p=8&step=2`);
  const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-svg"]')]);
  assert.equal(svgDownload.suggestedFilename(), 'commlab-reduce-p8-sum-step2.svg');
  const svg = fs.readFileSync(await svgDownload.path(), 'utf8');
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(svg, />p7</);
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
  const csv = fs.readFileSync(await csvDownload.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'step,unit,state,x0');
  assert.equal(csv.length, 1 + 8 * 4, 'one row per unit per step');
  const sum = csv.filter((r) => r.startsWith('0,')).map((r) => Number(r.split(',')[3])).reduce((a, b) => a + b, 0);
  assert.equal(csv.find((r) => r.startsWith('3,0,')).split(',')[3], String(sum), 'last step: p0 holds the sum');
  const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-png"]')]);
  const png = fs.readFileSync(await pngDownload.path());
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-json"]')]);
  const doc = JSON.parse(fs.readFileSync(await jsonDownload.path(), 'utf8'));
  assert.equal(doc.rounds.length, 3);
  assert.equal(doc.final[0][0], sum);
});

test('reduction tree: p = 65536 shows a summary and the page stays responsive', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=tree&p=8`);
  const started = Date.now();
  await page.fill('#p', '65536');
  await page.waitForSelector('[data-testid="tree-summary"]');
  const took = Date.now() - started;
  await page.click('[data-testid="last"]');
  assert.equal(await stepCount(page), 'step 16 / 16');
  assert.match(await page.locator('[data-testid="result"]').innerText(), /equals the sequential fold/);
  // Still responsive: another input reacts at once.
  await page.selectOption('#op', 'max');
  await page.waitForFunction(() => document.querySelector('[data-testid="result"]').innerText.includes('[9'));
  console.log(`     (p = 65536: summary shown ${took} ms after the change)`);
  await shot(page, 'tree-large');
  // The data of a run kept in the worker is exported from there: every unit after every step.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'step,unit,state,x0');
  assert.equal(csv.length, 1 + 2 * 65536, 'first and last step only above 200 000 rows');
  assert.equal(await page.locator('[data-testid="export-svg"]').isDisabled(), true, 'no drawing to export');
});

test('pipeline: space-time diagram plays to p + m − 2 steps and p0 ends with the sum', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=pipeline`);
  assert.equal(await stepCount(page), 'step 0 / 6');
  const inputs = [];
  for (let u = 0; u < 5; u++) inputs.push(await unitValue(page, u));
  await page.selectOption('.playback select', '8');
  await page.click('[data-testid="play"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-count"]').innerText === 'step 6 / 6', null, { timeout: 5000 });
  const sums = inputs[0].map((_, e) => inputs.reduce((a, row) => a + row[e], 0));
  assert.deepEqual(await unitValue(page, 0), sums);
  const svg = await page.locator('[data-testid="pipeline-svg"]').innerHTML();
  assert.match(svg, /P2/);
  assert.match(svg, /p \+ m − 2 = 6/);
  await waitForUrl(page, () => location.search.includes('step=6'));
  await shot(page, 'pipeline-done');
  await page.fill('#m', '7');
  assert.match(await page.locator('[data-testid="caption"]').innerText(), /at most elements = 6/);
});

test('large pipeline and swizzle runs take their step captions from the worker', async ({ context, base }) => {
  // Too large to build on the page: the runs stay in the worker, which
  // writes each step's caption when the step is shown.
  const page = await open(context, base, `${base}?view=pipeline&p=2000&m=4&step=3`);
  await page.waitForFunction(() => /^Step 3 of 2002/.test(document.querySelector('[data-testid="caption"]')?.innerText ?? ''), null, { timeout: 10000 });
  await page.click('[data-testid="forward"]');
  await page.waitForFunction(() => /^Step 4 of 2002/.test(document.querySelector('[data-testid="caption"]')?.innerText ?? ''), null, { timeout: 10000 });
  const swizzle = await open(context, base, `${base}?view=swizzle&rows=128&cols=128&ranks=64&step=2`);
  await swizzle.waitForFunction(() => {
    const text = document.querySelector('[data-testid="caption"]')?.innerText ?? '';
    return /Step 2\b/.test(text);
  }, null, { timeout: 20000 });
  const first = await swizzle.locator('[data-testid="caption"]').innerText();
  await swizzle.click('[data-testid="forward"]');
  await swizzle.waitForFunction((before) => {
    const text = document.querySelector('[data-testid="caption"]')?.innerText ?? '';
    return /Step 3\b/.test(text) && text !== before;
  }, first, { timeout: 20000 });
});

test('model: event-simulated points sit on the analytic curves', async ({ page }) => {
  const svg = await chartSvg(page, 'chart-pieces');
  // Legend entries wrap at 20 characters in their strip beside the plot.
  assert.match(svg, /pipeline, event\s*<\/text>[\s\S]*?simulation\s*<\/text>/);
  assert.match(await chartSvg(page, 'chart-units'), /binomial, event\s*<\/text>[\s\S]*?simulation\s*<\/text>/);
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
  const rows = fs.readFileSync(await csvDownload.path(), 'utf8').trim().split('\n').slice(1).map((r) => r.split(','));
  const simulated = rows.filter((r) => r[2] !== '');
  assert.ok(simulated.length >= 5, 'several simulated points');
  for (const [m, model, sim] of simulated) assert.ok(Math.abs(model - sim) <= 1e-9 * model, `m=${m}: ${model} vs ${sim}`);
});

test('model: its network twin, the chain on a line of hosts, is drawn on T(m) and exported, equal to the formula', async ({ context, base }) => {
  // n = 840 KiB is divisible by the piece counts drawn (docs/reduce-model.md: otherwise the last piece carries the rest).
  const page = await open(context, base, `${base}?v=4&view=model&n=860160&p=16`);
  await page.waitForFunction(() => /on a line of hosts/.test(document.querySelector('[data-testid="chart-pieces"]')?.innerHTML ?? ''), null, { timeout: 30000 });
  const json = JSON.parse((await download(page, 'export-json')).text);
  assert.ok(json.network.length >= 3, JSON.stringify(json.network));
  for (const { m, t, t_model: model } of json.network) {
    if (860160 % m === 0) assert.ok(Math.abs(t - model) <= 1e-9 * model, `m=${m}: network ${t}, model ${model}`);
  }
  await shot(page, 'model-network-twin');
  assert.deepEqual(page.problems, []);
});


const swizzleCell = (page, row, col) => page.locator(`[data-testid="swizzle-numbers"] tr[data-row="${row}"] .${col}`).innerText();

test('swizzle: the core split changes steps, collisions and the URL; play runs to the end', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=swizzle`);
  assert.equal(await swizzleCell(page, 'current', 'steps'), '8');
  assert.equal(await swizzleCell(page, 'current', 'collisions'), '0');
  assert.equal(await swizzleCell(page, 'naive', 'collisions'), '48');
  await page.fill('#core_rows', '2');
  await page.waitForFunction(() => document.querySelector('[data-testid="swizzle-numbers"] tr[data-row="current"] .steps').innerText === '16');
  assert.equal(await swizzleCell(page, 'naive', 'collisions'), '32');
  await waitForUrl(page, () => location.search.includes('core_rows=2'));
  await page.fill('#core_rows', '4');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-count"]').innerText === 'step 0 / 8');
  await page.selectOption('.playback select', '8');
  await page.click('[data-testid="play"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="step-count"]').innerText === 'step 8 / 8', null, { timeout: 5000 });
  assert.match(await page.locator('[data-testid="caption"]').innerText(), /Step 8 of 8: C0 → .*no rank collision/);
  const grid = await chartSvg(page, 'swizzle-grid');
  assert.match(grid, /C7 S7/);
  assert.match(await chartSvg(page, 'swizzle-timeline'), /Core × step timeline/);
  const outline = await page.locator('[data-testid="swizzle-timeline"] .current-step').getAttribute('style');
  assert.match(outline, /left:\d/, 'current step outlined');
  await shot(page, 'swizzle-default');
  // The naive order collides: turn the shift off and look at step 1.
  await page.uncheck('[data-testid="shift"]');
  await page.click('[data-testid="first"]');
  await page.click('[data-testid="forward"]');
  assert.match(await page.locator('[data-testid="caption"]').innerText(), /collisions? on rank/);
  await shot(page, 'swizzle-no-shift');
});

test('swizzle on a network: with and without the rank shift on switch:8, the CLI\'s times and hottest links; a bad topology is named', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=swizzle`);
  await page.check('[data-testid="swizzle-on-network"]');
  await waitForUrl(page, () => location.search.includes('net=ring%3A8'));
  await page.fill('[data-testid="swizzle-topology"]', 'switch:8');
  await page.press('[data-testid="swizzle-topology"]', 'Enter');
  await page.waitForFunction(() => /^On switch:8 \(links of 25 B\/ns and 250 ns\), /.test(document.querySelector('[data-testid="swizzle-net-sentence"]')?.innerText ?? ''), null, { timeout: 30000 });
  const native = JSON.parse(cli(['swizzle', '--grid', '4,2,8', '--cores', '4,2', '--topology', 'switch:8', '--json'])).network;
  const sentence = await page.locator('[data-testid="swizzle-net-sentence"]').innerText();
  const ratio = (native.without_shift.time_ns / native.with_shift.time_ns).toFixed(2);
  assert.ok(sentence.endsWith(`(${ratio}×).`), `${sentence} vs ${ratio}`);
  // A NIC sends one message at a time: the rank's 8 cores queue on it (docs/network.md), 1.34× (2.04× without the window).
  assert.equal(ratio, '1.34');
  const figure = await chartSvg(page, 'swizzle-network');
  for (const side of [native.with_shift, native.without_shift]) assert.ok(figure.includes(`hottest link ${side.hottest.name}`), side.hottest.name);
  await shot(page, 'swizzle-network');
  // The address bar is written just after the sentence: reopen it once it holds the new topology.
  await waitForUrl(page, () => location.search.includes('net=switch%3A8'));
  const again = await open(context, base, page.url());
  await again.waitForFunction(() => /^On switch:8 \(links of 25 B\/ns and 250 ns\), /.test(document.querySelector('[data-testid="swizzle-net-sentence"]')?.innerText ?? ''), null, { timeout: 30000 });
  assert.equal(await again.locator('[data-testid="swizzle-net-sentence"]').innerText(), sentence);
  await again.fill('[data-testid="swizzle-topology"]', 'ring:4');
  await again.press('[data-testid="swizzle-topology"]', 'Enter');
  await again.waitForFunction(() => /hosts/.test(document.querySelector('[data-testid="swizzle-net-sentence"]')?.innerText ?? ''), null, { timeout: 30000 });
  const bad = await open(context, base, `${base}?view=swizzle&net=ring:x`);
  assert.match(await bad.locator('[data-testid="notices"]').innerText(), /net/);
  for (const p of [page, again, bad]) assert.deepEqual(p.problems, []);
});

test('swizzle: a non-bijective split warns and marks doubled and missed cells', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=swizzle&rows=2&cols=1&ranks=2&core_rows=1&core_cols=4&step=1`);
  const warning = await page.locator('[data-testid="coverage-warning"]').innerText();
  assert.match(warning, /Not a bijection/);
  assert.match(warning, /coreSplit.column = 4 does not divide rank = 2/);
  assert.equal(await swizzleCell(page, 'current', 'bijective'), 'no');
  const grid = await chartSvg(page, 'swizzle-grid');
  assert.match(grid, /×2/, 'doubled cells labelled');
  assert.match(grid, /<line[^>]*stroke="#dc1e1e"/, 'missed cells crossed');
  await shot(page, 'swizzle-non-bijective');
  assert.deepEqual(page.problems, []);
});

test('swizzle: deterministic side by side, direction 1 refuses deterministic, CSV export', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=swizzle&rows=3&cols=2&ranks=4&compare=deterministic`);
  assert.equal(await swizzleCell(page, 'current', 'steps'), '3');
  assert.equal(await swizzleCell(page, 'other', 'steps'), '4');
  assert.equal(await page.locator('[data-testid="swizzle-grid-other"] figcaption').innerText(), 'deterministic');
  await shot(page, 'swizzle-compare');
  const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
  const csv = fs.readFileSync(await csvDownload.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'loop,core,step,row,column,rank');
  assert.equal(csv.length, 1 + 24);
  assert.equal(csv[1], '0,0,0,0,0,0');
  await page.selectOption('#direction', '1');
  await page.check('[data-testid="deterministic"]');
  assert.match(await page.locator('[data-testid="swizzle-error"]').innerText(), /deterministic/);
});

// --- barrier mesh and lab -----------------------------------------------------
const meshSvg = (page) => page.locator('[data-testid="mesh-svg"] svg').evaluate((e) => e.outerHTML);
const verdict = (page) => page.locator('[data-testid="mesh-verdict"]').innerText();
const detourHops = async (page) => Number((await verdict(page)).match(/\((\d+) detour hops/)[1]);
/** Node labels of the SVG mesh, in drawing order. */
const meshLabels = (page) => page.locator('[data-testid="mesh-svg"] svg text').allTextContents();
/** Waits until the engine worker's frame of step `s` is shown. */
const frameShown = (page, s) => page.waitForSelector(`[data-testid="mesh-figure"][data-step="${s}"]`);
/** Moves the scrubber to `s` and waits for the step count and the frame to show it. */
async function scrubTo(page, s) {
  await page.locator('[data-testid="scrubber"]').fill(String(s));
  await page.waitForFunction((s) => document.querySelector('[data-testid="step-count"]').innerText.startsWith(`step ${s} `), s);
  await frameShown(page, s);
}
const totalSteps = async (page) => Number((await page.locator('[data-testid="step-count"]').innerText()).split('/')[1]);

test('mesh: clicking a link breaks it, the route detours, the URL keeps it and reopens the same breaks', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=mesh&size=4&rate=0&algorithm=ms&barriers=1`);
  assert.equal(await page.locator('[data-testid="mesh-figure"]').getAttribute('data-renderer'), 'svg');
  assert.equal(await detourHops(page), 0);
  assert.equal((await meshLabels(page)).length, 16);
  // Link (0,0)–(0,1): nodes at (32, 32) and (88, 32) on a 4 × 4 mesh.
  await page.locator('[data-testid="mesh-svg"] svg').click({ position: { x: 60, y: 32 } });
  await waitForUrl(page, () => /[?&]flip=\d+/.test(location.search));
  await page.waitForFunction(() => !/\(0 detour hops,/.test(document.querySelector('[data-testid="mesh-verdict"]').innerText));
  assert.ok((await detourHops(page)) > 0, 'the broken link forces a detour');
  assert.match(await meshSvg(page), /stroke-dasharray/, 'broken link drawn dashed');
  assert.match(await page.locator('[data-testid="flip-count"]').innerText(), /^1 link flipped by hand/);
  // Somewhere in the run a detouring message is drawn in orange.
  const steps = await totalSteps(page);
  let seen = 0;
  for (let s = 1; s <= steps && !seen; s++) {
    await scrubTo(page, s);
    if (/stroke="#e69f00"/.test(await meshSvg(page))) seen = s;
  }
  assert.ok(seen, 'a detour route is highlighted');
  await shot(page, 'mesh-detour');
  await waitForUrl(page, () => location.search.includes('step='));
  await page.waitForFunction((s) => location.search.includes(`step=${s}`), seen);
  const url = page.url();
  const reopened = await open(context, base, url);
  await frameShown(reopened, seen);
  assert.equal(await verdict(reopened), await verdict(page));
  assert.equal(await meshSvg(reopened), await meshSvg(page), 'same link, same drawing');
  // Clicking the same link again repairs it and drops the flip from the URL.
  await reopened.locator('[data-testid="mesh-svg"] svg').click({ position: { x: 60, y: 32 } });
  await waitForUrl(reopened, () => !location.search.includes('flip='));
  await reopened.waitForFunction(() => /\(0 detour hops,/.test(document.querySelector('[data-testid="mesh-verdict"]').innerText));
  assert.deepEqual(reopened.problems, []);
});

test('mesh: the paper\'s routing steps back out of a pocket, drawn dashed; shortest does not; a v=2 link keeps shortest', async ({ context, base }) => {
  // 3 × 3, links 4–5 (id 3) and 7–8 (id 5) broken: 3 → 5 walks 4, 7, 6, back to 7, back to 4, 1, 2, 5.
  const page = await open(context, base, `${base}?view=mesh&size=3&rate=0&algorithm=all-to-all&barriers=1&flip=3,5`);
  assert.equal(await page.locator('[data-testid="notices"]').count(), 0);
  assert.equal(await page.locator('#routing').inputValue(), 'paper');
  await page.waitForSelector('[data-testid="mesh-verdict"]');
  assert.match(await verdict(page), /of them back-steps\), 2 of 12 links broken; routing paper/);
  const back = Number((await verdict(page)).match(/(\d+) of them back-steps/)[1]);
  assert.ok(back >= 2, `${back} back-steps`);
  const cells = await page.locator('[data-testid="mesh-metrics"] tbody tr td').allTextContents();
  assert.equal(Number(cells[4]), back, 'the metrics table counts the same back-steps');
  // The back-steps are drawn dashed while their messages fly (the two broken links are dashed at every step).
  const dashes = async () => ((await meshSvg(page)).match(/stroke-dasharray/g) || []).length;
  const still = await dashes();
  let most = still;
  for (let s = 1; s <= await totalSteps(page); s++) {
    await scrubTo(page, s);
    most = Math.max(most, await dashes());
  }
  assert.ok(most > still, `a step back is drawn dashed (${most} dashed lines, ${still} broken)`);
  await scrubTo(page, 3);
  await shot(page, 'mesh-back-steps');
  await page.selectOption('#routing', 'shortest');
  await waitForUrl(page, () => location.search.includes('routing=shortest'));
  await page.waitForFunction(() => /0 of them back-steps\), 2 of 12 links broken; routing shortest/.test(document.querySelector('[data-testid="mesh-verdict"]').innerText));
  // A link made before the paper's rule opens with shortest and says so; the page writes v=5.
  const old = await open(context, base, `${base}?v=2&view=mesh&size=3&rate=0&algorithm=all-to-all&barriers=1&flip=3,5`);
  assert.match(await old.locator('[data-testid="notices"]').innerText(), /older than 2026-12-01.*opens with routing=shortest/s);
  assert.equal(await old.locator('#routing').inputValue(), 'shortest');
  await waitForUrl(old, () => /^\?v=5&.*routing=shortest/.test(location.search));
  assert.deepEqual([...page.problems, ...old.problems], []);
});

test('mesh: the DLCT animation goes through an adjustment and the IDs change', async ({ page }) => {
  await page.click('button:has-text("Barrier mesh")');
  await page.waitForSelector('[data-testid="mesh-svg"] svg');
  const metrics = await page.locator('[data-testid="mesh-metrics"] td.k').allInnerTexts();
  assert.ok(metrics.some((k) => Number(k) > 0), `some barrier adjusts: ${metrics}`);
  const before = await meshLabels(page);
  assert.equal(before.length, 64);
  const steps = await totalSteps(page);
  // Scan for the step where the root decides to adjust.
  let decided = -1;
  for (let s = 1; s <= steps && decided < 0; s++) {
    await scrubTo(page, s);
    if (/adjust: K = \d+ in the Release/.test(await page.locator('[data-testid="caption"]').innerText())) decided = s;
  }
  assert.ok(decided > 0, 'the caption names the judge decision and K');
  await shot(page, 'mesh-decision');
  await page.click('[data-testid="last"]');
  await page.waitForFunction((n) => document.querySelector('[data-testid="step-count"]').innerText.startsWith(`step ${n} `), steps);
  await frameShown(page, steps);
  const after = await meshLabels(page);
  assert.notDeepEqual(after, before, 'round(K) renumbered the nodes');
  assert.deepEqual([...after].sort((a, b) => a - b), [...before].sort((a, b) => a - b), 'still a permutation of 0..N-1');
  assert.match(await page.locator('[data-testid="caption"]').innerText(), /All 3 barriers done/);
  await shot(page, 'mesh-done');
  // The before/after panel reports UQ for both structures.
  const notes = await page.locator('[data-testid="uq-notes"] li').allInnerTexts();
  assert.equal(notes.length, 2);
  assert.match(notes[0], /^LCT: \|A∩B\| = \d+, \|A∪B\| = \d+, UQ = 0\.\d{3}$/);
  await page.selectOption('#links', 'undirected');
  await page.waitForFunction((old) => document.querySelector('[data-testid="uq-notes"] li').innerText !== old, notes[0]);
  await waitForUrl(page, () => location.search.includes('links=undirected'));
});

test('mesh: large meshes are painted on a canvas and clicks still break links; bad sizes are named', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=mesh&size=40&rate=0.1&heat=1`);
  assert.equal(await page.locator('[data-testid="mesh-figure"]').getAttribute('data-renderer'), 'canvas');
  await page.waitForSelector('[data-testid="mesh-canvas"][data-frame]');
  await page.locator('[data-testid="mesh-canvas"]').click({ position: { x: 20, y: 12 } });
  await waitForUrl(page, () => /[?&]flip=\d+/.test(location.search));
  await page.click('[data-testid="forward"]');
  await shot(page, 'mesh-canvas');
  const bad = await open(context, base, `${base}?v=1&view=mesh&size=64&algorithm=all-to-all`);
  assert.match(await bad.locator('[data-testid="mesh-error"]').innerText(), /size/);
  const worse = await open(context, base, `${base}?v=1&view=mesh&size=9999&flip=x`);
  const worseNotes = await worse.locator('.notices').innerText();
  assert.match(worseNotes, /size: "9999" is not an integer from 2 to 256; using 8/);
  assert.match(worseNotes, /flip: "x" is not link ids separated by commas; using none/);
  await worse.waitForSelector('[data-testid="mesh-svg"] svg');
});

test('lab: a sweep fills the charts with progress while the page stays responsive; CSV export', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=lab&seeds=1&max_size=32&barriers=1`);
  const progress = () => page.locator('[data-testid="sweep-progress"]').evaluate((e) => e.value);
  const means = await page.locator('[data-testid="uq-means"]').innerText();
  assert.match(means, /LCT 0\.524 \(0\.559 without the 16 identity conversions\), BST 0\.505/);
  assert.match(means, /Paper: LCT 0\.5527 over the 256 conversions/, 'the paper\'s number beside ours');
  await page.click('[data-testid="run-sweep"]');
  await page.waitForFunction(() => /Running/.test(document.querySelector('[data-testid="sweep-status"]').innerText));
  // Input still reacts during the sweep: the UQ side changes the histogram at once.
  await page.fill('#uq_size', '3');
  // The new histogram replaces the pending note (a worker task with its own progress row).
  await page.waitForFunction(() => {
    const means = document.querySelector('[data-testid="uq-means"]');
    return means !== null && !/LCT 0\.524/.test(means.innerText);
  });
  const midway = await progress();
  assert.match(await page.locator('[data-testid="sweep-status"]').innerText(), /Running/, 'still running while the input reacted');
  await page.waitForFunction(() => /Done/.test(document.querySelector('[data-testid="sweep-status"]').innerText), null, { timeout: 60000 });
  assert.ok(midway < 100, `progress was moving (${midway} %)`);
  assert.equal(await progress(), 100);
  for (const id of ['delay-chart-0', 'delay-chart-1', 'delay-chart-2', 'range-chart']) {
    assert.match(await chartSvg(page, id), /<svg/);
  }
  const claims = await page.locator('[data-testid="claim"]').allTextContents();
  assert.equal(claims.length, 5);
  // The four delay claims under both routing rules side by side; the UQ claim has no routing.
  const both = /Paper: .*Under routing=paper \((agrees|does not agree)\): .*Under routing=shortest \((agrees|does not agree)\): /;
  assert.ok(claims.slice(0, 4).every((c) => both.test(c)), claims.join('\n'));
  assert.match(claims[4], /Paper: .*Here \((agrees|does not agree)\)/);
  await waitForUrl(page, () => location.search.includes('uq_size=3'));
  await shot(page, 'lab-done');
  const [download] = await Promise.all([page.waitForEvent('download'),
    page.locator('[data-testid="delay-chart-0"] [data-testid="export-csv"]').click()]);
  const csv = fs.readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'algorithm,size,nodes,break_rate,mean_delay_ticks,min_delay_ticks,max_delay_ticks,runs');
  assert.equal(csv.length, 1 + (14 * 4 + 3) * 3, 'one row per algorithm, size and rate');
  assert.ok(csv.slice(1).every((r) => r.split(',').length === 8 && Number(r.split(',')[4]) > 0));
});

test('lab: cancel stops a sweep', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=lab&seeds=5&max_size=32`);
  await page.click('[data-testid="run-sweep"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="sweep-progress"]').value > 0);
  await page.click('[data-testid="cancel-sweep"]');
  await page.waitForFunction(() => /Cancelled after/.test(document.querySelector('[data-testid="sweep-status"]').innerText));
  const stopped = await page.locator('[data-testid="sweep-status"]').innerText();
  await page.waitForTimeout(500);
  assert.equal(await page.locator('[data-testid="sweep-status"]').innerText(), stopped, 'no run after cancel');
  assert.equal(await page.locator('[data-testid="run-sweep"]').isEnabled(), true);
});

// --- Never a frozen tab: the engine worker ---------------------------------

const ALGORITHMS = ['ms', 'tree', 'tournament', 'dissemination', 'dissemination-tree', 'dlct', 'dlct-ms', 'dlct-tree',
  'butterfly', 'pairwise', 'all-to-all', 'combining'];
/** Opens `url` with a long-task observer installed before any script runs. */
async function openObserved(context, base, url) {
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration)); })
      .observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url);
  await page.waitForSelector('[data-testid="app"]');
  return page;
}
const longest = async (page) => Math.max(0, ...(await page.evaluate(() => window.__longTasks)));

test('heavy links never freeze the tab (no main-thread task over 200 ms)', async ({ context, base }) => {
  const links = [];
  // Links open as v=1 (routing=shortest); the paper's rule, whose walks are longer, is named explicitly.
  for (const a of ALGORITHMS) {
    links.push(`view=mesh&size=256&rate=0.5&algorithm=${a}`, `view=mesh&size=128&rate=0.2&algorithm=${a}`,
      `view=mesh&size=256&rate=0.5&routing=paper&algorithm=${a}`);
  }
  links.push('view=tree&p=1048576', 'view=swizzle&rows=1024&cols=1024&ranks=1024', 'embed=1&view=mesh&size=256&rate=0.2&algorithm=combining');
  // The Schedule view at its limits: the largest reduce, a barrier over the op cap, all-pairs on the largest mesh.
  links.push('view=schedule&coll=reduce&p=1048576', 'view=schedule&coll=barrier&mesh=256&alg=all-to-all',
    'view=schedule&coll=barrier&mesh=256&alg=dissemination', 'view=schedule&coll=swizzle&grid=1024,1024,4096&cores=64,64',
    // Just under the timeline's 10^5-op limit: every bar drawn on 8 ranks.
    'view=schedule&coll=pipeline&p=8&pieces=6000&bytes=1000000000',
    // The chooser at its limits: the largest p and size range, the widest map, all-pairs with LogGOPS points.
    'view=chooser&coll=allreduce&p=1024&map=2..1024&hi=1099511627776', 'view=chooser&coll=all-to-all&p=256&map=1..1024&hi=1099511627776');
  const worst = [];
  for (const q of links) {
    const page = await openObserved(context, base, `${base}?v=1&${q}`);
    // Long enough for the worker to get going, the view to show progress or a result, and frames to arrive.
    await page.waitForTimeout(1200);
    worst.push([q, await longest(page)]);
    assert.deepEqual(page.problems, [], q);
    await page.close();
  }
  // The lab sweeps: the default one and the largest, observed while they run.
  for (const q of ['view=lab', 'view=lab&max_size=64&seeds=10']) {
    const page = await openObserved(context, base, `${base}?v=1&${q}`);
    await page.click('[data-testid="run-sweep"]');
    await page.waitForTimeout(4000);
    worst.push([q, await longest(page)]);
    await page.evaluate(() => document.querySelector('[data-testid="cancel-sweep"]').click());
    await page.close();
  }
  console.log(`     longest main-thread task per link: ${worst.map(([q, t]) => `${t} ms ${q}`).join('; ')}`);
  const frozen = worst.filter(([, t]) => t > 200);
  assert.deepEqual(frozen, [], 'main-thread tasks over 200 ms');
});

test('schedule: the 84 000-op timeline pans from its painting and is painted anew when let go', async ({ context, base }) => {
  const link = `${base}?view=schedule&coll=pipeline&p=8&pieces=6000&bytes=1000000000`;
  const page = await open(context, base, link);
  const canvas = page.locator('[data-testid="timeline"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="timeline"]')?.width > 400, null, { timeout: 30000 });
  await page.waitForTimeout(300);
  // The painting's pixels, kept in the page (LEFT = 64, RIGHT = 28 CSS px margins; device scale 1).
  const snap = (name) => page.evaluate((name) => {
    const c = document.querySelector('[data-testid="timeline"]');
    window[name] = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    return { w: c.width, h: c.height, css: c.getBoundingClientRect().width };
  }, name);
  const before = await snap('__before');
  assert.equal(before.w, Math.round(before.css), 'one device pixel per CSS pixel');
  const box = await canvas.boundingBox();
  const D = 200;
  const y = box.y + 40;
  await page.mouse.move(box.x + 600, y);
  await page.mouse.down();
  await page.mouse.move(box.x + 600 - D, y, { steps: 8 });
  // Held down: the view is the painting moved left by D, its last D plot columns blank.
  await snap('__during');
  const moved = await page.evaluate(({ D }) => {
    const [a, b] = [window.__before, window.__during];
    const left = 64, right = a.width - 28;
    let same = 0, all = 0, blank = 0, tail = 0;
    const px = (img, x, y) => { const i = (y * img.width + x) * 4; return [img.data[i], img.data[i + 1], img.data[i + 2]]; };
    const bg = px(a, a.width - 2, 2);
    for (let y = 0; y < a.height; y += 3) {
      for (let x = left + 1; x < right - D - 1; x += 2) {
        all += 1;
        if (px(b, x, y).every((v, k) => Math.abs(v - px(a, x + D, y)[k]) <= 12)) same += 1;
      }
      for (let x = right - D + 2; x < right - 1; x += 4) {
        tail += 1;
        if (px(b, x, y).every((v, k) => Math.abs(v - bg[k]) <= 2)) blank += 1;
      }
    }
    return { same: same / all, blank: blank / tail };
  }, { D });
  assert.ok(moved.same > 0.97, `the carried columns are the painting's, moved by ${D} px: ${JSON.stringify(moved)}`);
  assert.ok(moved.blank > 0.99, `the columns not painted yet are blank: ${JSON.stringify(moved)}`);
  await page.mouse.up();
  await waitForUrl(page, () => new URL(location.href).searchParams.has('t0'));
  // Let go: painted anew, pixel for pixel what the shared link paints.
  const drawn = () => page.evaluate(() => document.querySelector('[data-testid="timeline"]').toDataURL());
  const fresh = await open(context, base, page.url());
  await fresh.waitForFunction(() => document.querySelector('[data-testid="timeline"]')?.width > 400, null, { timeout: 30000 });
  await fresh.waitForTimeout(300);
  const expected = await fresh.evaluate(() => document.querySelector('[data-testid="timeline"]').toDataURL());
  assert.equal(await drawn(), expected, 'the released drag is painted as its link paints it');
  // A wheel zoom shows the stretched painting, then the window painted anew.
  await page.mouse.move(box.x + 500, y);
  const panned = page.url();
  await page.mouse.wheel(0, -100);
  await page.waitForFunction((p) => location.href !== p, panned, { timeout: 3000 });
  await page.waitForTimeout(100);
  const zoomedLink = page.url();
  const zoomed = await open(context, base, zoomedLink);
  await zoomed.waitForFunction(() => document.querySelector('[data-testid="timeline"]')?.width > 400, null, { timeout: 30000 });
  await zoomed.waitForTimeout(300);
  const expectedZoom = await zoomed.evaluate(() => document.querySelector('[data-testid="timeline"]').toDataURL());
  await page.waitForFunction((e) => document.querySelector('[data-testid="timeline"]').toDataURL() === e, expectedZoom, { timeout: 5000 });
  await shot(page, 'timeline-heavy-panned');
});

test('mesh: a long run shows progress, Cancel stops it at once, and it can run again', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=mesh&size=256&rate=0.2&algorithm=ms`);
  const bar = () => page.locator('[data-testid="run-bar"]').evaluate((e) => e.value);
  await page.waitForFunction(() => document.querySelector('[data-testid="run-bar"]')?.value > 0);
  const first = await bar();
  await page.waitForFunction((v) => document.querySelector('[data-testid="run-bar"]')?.value > v, first);
  assert.match(await page.locator('[data-testid="run-progress"]').innerText(), /Simulating: \d+ of 393210 messages delivered/);
  await shot(page, 'mesh-progress');
  await page.click('[data-testid="cancel-run"]');
  await page.waitForSelector('[data-testid="run-cancelled"]');
  assert.match(await page.locator('[data-testid="run-cancelled"]').innerText(), /Cancelled after \d+ of 393210 messages/);
  await page.waitForTimeout(1500);
  assert.equal(await page.locator('[data-testid="mesh-verdict"]').count(), 0, 'no result arrives after Cancel');
  await page.click('[data-testid="rerun"]');
  await page.waitForSelector('[data-testid="run-progress"]');
});

test('tree: a long run shows its progress in value cells, Cancel stops it, and it can run again', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=tree&collective=allreduce&p=1048576&elements=4`);
  await page.waitForFunction(() => document.querySelector('[data-testid="run-bar"]')?.value > 0, null, { timeout: 20000 });
  // allreduce = reduce + broadcast: 2 (p − 1) messages of the whole 4-element vector.
  const total = 2 * (2 ** 20 - 1) * 4;
  assert.match(await page.locator('[data-testid="run-progress"]').innerText(), new RegExp(`Replaying the values: \\d+ of ${total} value cells`));
  // Cancel at once: a screenshot first gave a fast machine time to finish the run (no Cancel left to press).
  await page.click('[data-testid="cancel-run"]');
  await page.waitForSelector('[data-testid="run-cancelled"]');
  assert.match(await page.locator('[data-testid="run-cancelled"]').innerText(), new RegExp(`Cancelled after \\d+ of ${total} value cells`));
  assert.equal(await page.locator('[data-testid="caption"]').innerText(), 'The run was cancelled.');
  await shot(page, 'tree-cancelled');
  await page.waitForTimeout(1000);
  assert.equal(await page.locator('[data-testid="tree-summary"]').count(), 0, 'no result arrives after Cancel');
  await page.click('[data-testid="rerun"]');
  await page.waitForSelector('[data-testid="tree-summary"]', { timeout: 30000 });
  assert.match(await page.locator('[data-testid="result"]').innerText(), /equals the sequential fold/);
  assert.equal(await page.locator('[data-testid="run-progress"]').count(), 0, 'the bar goes when the run is done');
});

test('mesh: a run over the recording cap runs unrecorded and says so', async ({ context, base }) => {
  // 8 barriers of a 256 × 256 tree are estimated at 2.1 M messages: more than a recorded run may hold.
  const page = await open(context, base, `${base}?v=1&view=mesh&size=256&rate=0&algorithm=tree&barriers=8`);
  await page.waitForSelector('[data-testid="mesh-verdict"]', { timeout: 60000 });
  assert.match(await verdict(page), /^Not animated: 1048560 messages are more than the 2000000 .*Checker: safe/s);
  assert.equal(await page.locator('[data-testid="mesh-metrics"] tbody tr').count(), 8);
  await shot(page, 'mesh-unrecorded');
  assert.deepEqual(page.problems, []);
});

test('mesh: a parameter change mid-run shows only the new result', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=1&view=mesh&size=256&rate=0.2&algorithm=ms`);
  await page.waitForSelector('[data-testid="run-progress"]');
  await page.fill('#size', '6');
  await page.waitForSelector('[data-testid="mesh-verdict"]');
  assert.match(await verdict(page), /of 60 links broken/);
  await page.waitForTimeout(2000);
  assert.match(await verdict(page), /of 60 links broken/, 'the superseded 256 × 256 run never shows');
  assert.equal(await page.locator('[data-testid="run-progress"]').count(), 0);
});

test('workers unavailable: the page says so and runs the same requests on the main thread', async ({ context, base }) => {
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
  // Worker scripts are fetched by the context, not the page.
  const block = (route) => route.abort();
  await context.route('**/worker_loader.js', block);
  await page.goto(`${base}?v=1&view=mesh&size=40&rate=0.1&algorithm=tree`);
  await page.waitForSelector('[data-testid="engine-notice"]');
  assert.match(await page.locator('[data-testid="engine-notice"]').innerText(), /Web Workers are unavailable/);
  await page.waitForSelector('[data-testid="mesh-verdict"]');
  assert.match(await verdict(page), /Checker: safe.*of 3120 links broken/);
  await page.waitForSelector('[data-testid="mesh-canvas"][data-frame]');
  await shot(page, 'mesh-fallback');
  await context.unroute('**/worker_loader.js', block);
  // The same numbers as with the worker.
  const withWorker = await open(context, base, `${base}?v=1&view=mesh&size=40&rate=0.1&algorithm=tree`);
  await withWorker.waitForSelector('[data-testid="mesh-verdict"]');
  assert.equal(await verdict(withWorker), await verdict(page));
  assert.equal(await withWorker.locator('[data-testid="engine-notice"]').count(), 0);
  // The lab's UQ and a small sweep run in the fallback too (the test switch stands for a blocked worker).
  await page.goto(`${base}?v=1&view=lab&seeds=1&max_size=4&barriers=1&__commlab_no_worker=1`);
  await page.waitForFunction(() => /LCT/.test(document.querySelector('[data-testid="uq-means"]')?.innerText ?? ''));
  assert.match(await page.locator('[data-testid="uq-means"]').innerText(), /LCT 0\.524 \(0\.559 [^)]*\), BST 0\.505/);
  await page.click('[data-testid="run-sweep"]');
  await page.waitForFunction(() => /Done/.test(document.querySelector('[data-testid="sweep-status"]').innerText), null, { timeout: 60000 });
  assert.deepEqual(page.problems, []);
});

test('a panic inside the engine worker shows the banner with its message', async ({ page }) => {
  assert.equal(await page.isVisible('#panic-banner'), false);
  await page.evaluate(() => window.wasmBindings.commlab_selftest_worker_panic());
  await page.waitForSelector('#panic-banner', { state: 'visible' });
  assert.match(await page.locator('#panic-detail').innerText(), /inside the engine worker: panicked at [\s\S]*self-test panic requested inside the engine/);
  await shot(page, 'panic-banner-worker');
  page.problems = [];
});

test('lab: the default sweep on the worker pool equals `commlab figures` byte for byte', async ({ context, base }) => {
  const out = tempDir('commlab-figures-');
  const cli = CLI;
  execFileSync(cli, ['figures', '--seeds', '5', '--out', out], { stdio: 'pipe' });
  const expected = fs.readFileSync(path.join(out, 'delay-vs-nodes.csv'), 'utf8').trim();
  const page = await open(context, base, `${base}?view=lab`);
  await page.click('[data-testid="run-sweep"]');
  await page.waitForFunction(() => /Done/.test(document.querySelector('[data-testid="sweep-status"]').innerText), null, { timeout: 120000 });
  const status = await page.locator('[data-testid="sweep-status"]').innerText();
  console.log(`     ${status}`);
  const [download] = await Promise.all([page.waitForEvent('download'),
    page.locator('[data-testid="delay-chart-0"] [data-testid="export-csv"]').click()]);
  assert.equal(fs.readFileSync(await download.path(), 'utf8').trim(), expected);
});

// ---------------------------------------------------------------------------
const loggops = path.resolve(here, '../data/loggops');
const summaryText = (page) => page.locator('[data-testid="schedule-summary"]').innerText();
const download = async (page, testid, within = '') => {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`${within} [data-testid="${testid}"]`.trim())]);
  return { name: d.suggestedFilename(), text: fs.readFileSync(await d.path(), 'utf8') };
};

test('schedule: a LogGOPSim schedule opened as a file gives LogGOPSim\'s finish times; reload restores it; forget', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule`);
  await page.waitForSelector('[data-testid="timeline"]');
  const expected = JSON.parse(fs.readFileSync(path.join(loggops, 'binomialtreereduce_p8_1024.json'), 'utf8'));
  await page.setInputFiles('[data-testid="goal-file"]', path.join(loggops, 'binomialtreereduce_p8_1024.goal'));
  await page.waitForSelector('[data-testid="schedule-file"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('21 events'));
  assert.match(await summaryText(page), /8 ranks, 14 operations, 7 messages, 21 events: every rank finishes; the last is rank 0 at 34\.914 µs/);
  const csv = await download(page, 'export-csv');
  const times = csv.text.trim().split('\n').slice(1).map((r) => Number(r.split(',')[1]));
  assert.deepEqual(times, expected.finish_times, 'CSV finish times = LogGOPSim\'s');
  await waitForUrl(page, () => location.search.includes('src=file'));
  await page.waitForSelector('[data-testid="kept-note"]');
  assert.match(await page.locator('[data-testid="share-note"]').innerText(), /export it as GOAL/);
  // A reload (or a closed tab reopened) finds the file in this browser's storage.
  const again = await open(context, base, page.url());
  await again.waitForSelector('[data-testid="kept-note"]');
  assert.match(await again.locator('[data-testid="kept-note"]').innerText(), /Restored binomialtreereduce_p8_1024\.goal/);
  await again.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('34.914 µs'));
  // New parameters re-simulate the kept schedule: with o = g = 0 it is ⌈log₂ 8⌉·(L + 1023·G) = 3·8638.
  await again.selectOption('[data-testid="preset"]', 'hops');
  await again.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('25.914 µs'));
  await again.click('[data-testid="forget-file"]');
  await again.waitForFunction(() => document.querySelector('[data-testid="kept-note"]')?.innerText.includes('Forgotten'));
  const third = await open(context, base, page.url());
  await third.waitForSelector('[data-testid="notices"]');
  assert.match(await third.locator('[data-testid="notices"]').innerText(), /none is kept in this browser/);
  await shot(again, 'schedule-file');
});

test('schedule: hover and keyboard name the op; zoom; the link keeps the window; exports', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule&coll=reduce&p=8&bytes=1024`);
  const canvas = page.locator('[data-testid="timeline"]');
  await canvas.waitFor();
  const box = await canvas.boundingBox();
  // Rank 0's CPU lane (first row), near the end of the run: rank 0 taking in rank 4's message.
  let named = '';
  for (let x = box.width - 30; x > box.width / 2 && !named.includes('rank 0 cpu 0'); x -= 10) {
    await page.mouse.move(box.x + x, box.y + 8 + 3.5);
    named = await page.locator('[data-testid="timeline-hover"]').innerText();
  }
  assert.match(named, /rank 0 cpu 0: taking in a message — recv 1024 B from 4/);
  await canvas.focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await page.locator('[data-testid="timeline-hover"]').innerText(), /^rank 0 cpu 0: taking in a message — recv 1024 B from 1/);
  await page.keyboard.press('ArrowDown');
  assert.match(await page.locator('[data-testid="timeline-hover"]').innerText(), /^rank 1 /);
  // The keyboard focus (an op on rank 1 has it, the whole run in view) is outlined on screen (2 px) but not in the exports.
  const focused = await download(page, 'export-svg');
  assert.match(focused.text, />rank 1</);
  assert.ok(!/stroke-width="2"/.test(focused.text), 'no focus outline in the exported timeline');
  await page.click('[data-testid="zoom-in"]');
  await waitForUrl(page, () => location.search.includes('t0=') && location.search.includes('t1='));
  const zoomed = await page.locator('.timeline-range').innerText();
  const reopened = await open(context, base, page.url());
  await reopened.waitForSelector('[data-testid="timeline"]');
  assert.equal(await reopened.locator('.timeline-range').innerText(), zoomed, 'the link reproduces the window');
  const goal = await download(page, 'export-goal');
  assert.equal(goal.name, 'commlab-reduce-p8.goal');
  const cli = execFileSync(CLI, ['goal', 'gen', 'reduce', '--p', '8', '--bytes', '1024'], { encoding: 'utf8' });
  assert.equal(goal.text, cli, 'the page writes the GOAL the CLI writes');
  const trace = JSON.parse((await download(page, 'export-trace')).text);
  const threads = trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args.name);
  assert.ok(threads.includes('cpu 0') && threads.includes('nic 0 out') && threads.includes('nic 0 in'), threads.join());
  assert.equal(trace.traceEvents.filter((e) => e.ph === 's').length, 7, 'one flow per message');
  const json = JSON.parse((await download(page, 'export-json')).text);
  assert.equal(json.max_time, 34914);
  assert.ok(json.critical_path.length >= 4);
  const svg = await download(page, 'export-svg');
  assert.match(svg.text, /^<svg xmlns/);
  assert.match(svg.text, />rank 7</);
  await shot(page, 'schedule-timeline');
});

test('schedule on nodes: a ring over 8 channels puts every rail to work, at its closed form; the NIC window is on the page; the link reproduces it', async ({ context, base }) => {
  const url = `${base}?v=4&view=schedule&coll=allreduce/ring&p=16&bytes=16777216&preset=hops&net=nodes:2x8&ch=8`;
  const page = await open(context, base, url);
  const summary = page.locator('[data-testid="net-summary"]');
  await idealDone(page);
  // docs/network.md: 30 steps whose slowest hop crosses between the nodes (1200 ns of latency, 50 B/ns):
  // 30 · (1200 + 16 MiB / (16 · 8 · 50)) = 114 643.2 ns.
  assert.match(await summary.innerText(), /the last rank finishes at 114\u2009?643 ns/);
  const json = JSON.parse((await download(page, 'export-json')).text);
  assert.ok(Math.abs(json.max_time - 114643.2) < 1e-6, String(json.max_time));
  // Vertices of nodes:2x8: GPUs 0–15, node switches 16 and 17, rail switches 18–25.
  const rails = new Set(json.links.filter((l) => l.bytes > 0 && Math.max(l.from, l.to) >= 18).map((l) => Math.max(l.from, l.to)));
  assert.equal(rails.size, 8, [...rails].join(' '));
  // The bottleneck by utilisation is a NIC link (by busy time it was an NVLink link): 30 steps of
  // 16 MiB / 128 over 50 B/ns in the run's 114 643.2 ns; the NIC links of the other rails tie with it.
  const share = 100 * 30 * 131072 / (50 * 114643.2);
  const said = (await summary.innerText()).match(/the bottleneck is (\S+) \(the link used closest to its bandwidth\): [^,]+, ([\d.]+) % of what it can carry over the run.*; tied with /);
  assert.ok(said, await summary.innerText());
  assert.ok(/^(h\d+|rail\d)→(rail\d|h\d+)$/.test(said[1]), said[1]);
  assert.ok(Math.abs(Number(said[2]) - share) < 0.05, `${said[2]} vs ${share}`);
  assert.equal(json.bottleneck.name, said[1], 'the page names the JSON\'s bottleneck');
  assert.equal(await page.locator('#ch').inputValue(), '8');
  assert.equal(await page.locator('#nicw').inputValue(), '1');
  await page.locator('[data-testid="net-picture"]').waitFor();
  await page.waitForTimeout(300);
  await shot(page, 'schedule-nodes-channels');
  // One channel: one rail, 5.8 times as long.
  await page.locator('#ch').fill('1');
  await page.locator('#ch').press('Enter');
  await waitForUrl(page, () => !location.search.includes('ch='));
  await page.waitForFunction(() => /finishes at 665\u2009?146 ns/.test(document.querySelector('[data-testid="net-summary"]')?.innerText ?? ''), null, { timeout: 60000 });
  const reopened = await open(context, base, url);
  await idealDone(reopened);
  assert.match(await reopened.locator('[data-testid="net-summary"]').innerText(), /114\u2009?643 ns/);
  // The network is not a preset's (its links are the defaults): the select says custom. Picking
  // p4d sets 2 × 8 A100 on 4 rails of 12.5 GB/s, a channel per rail, o = g = 0, and says so.
  assert.equal(await reopened.locator('#system').inputValue(), '');
  await reopened.selectOption('#system', 'p4d');
  await waitForUrl(reopened, () => /net=nodes%3A2x8x4/.test(location.search) && /ch=4/.test(location.search) && /bw2=12\.5/.test(location.search));
  assert.match(await reopened.locator('[data-testid="system-note"]').innerText(), /^2 × p4d: nodes:2x8x4/);
  await reopened.locator('[data-testid="net-summary"]').waitFor();
  await reopened.waitForFunction(() => /^On nodes:2x8x4/.test(document.querySelector('[data-testid="net-summary"]')?.innerText ?? ''), null, { timeout: 60000 });
  await shot(reopened, 'schedule-system-p4d');
  // The timeline simulates every flow: past 128 nodes the refusal gives the command that predicts them.
  await reopened.locator('#system-nodes').fill('129');
  await reopened.locator('#system-nodes').press('Enter');
  assert.equal(await reopened.locator('[data-testid="system-error"]').innerText(), 'Nodes: an integer from 1 to 128 (the page simulates every flow on the network; commlab predict --engine steady reaches 1024 nodes). For 129 × p4d: commlab predict --system p4d --nodes 129 --engine steady');
  assert.match(reopened.url(), /net=nodes%3A2x8x4/);
  const again = await open(context, base, reopened.url());
  assert.equal(await again.locator('#system').inputValue(), 'p4d', 'the link reopens the preset');
  // A link made before the NIC window keeps every ready send at once (nicw=0) and says so in its address.
  const old = await open(context, base, `${base}?v=3&view=schedule&coll=allreduce/ring&p=8&bytes=8192&preset=hops&net=ring:8`);
  await old.locator('[data-testid="net-summary"]').waitFor();
  assert.equal(await old.locator('#nicw').inputValue(), '0');
  await waitForUrl(old, () => /^\?v=5&.*nicw=0/.test(location.search));
  assert.deepEqual([...page.problems, ...reopened.problems, ...old.problems, ...again.problems], []);
});

test('schedule over the operation limit: the largest p that fits is named, no Run again, and the exports say there is nothing to export', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule&coll=allreduce%2Fring&p=4096&bytes=1024`);
  const error = page.locator('[data-testid="schedule-error"]');
  await error.waitFor({ timeout: 30000 });
  assert.match(await error.innerText(), /p up to 1448: allreduce\/ring at p = 4096 takes about 67 108 864 operations/);
  assert.equal(await page.locator('[data-testid="rerun"]').count(), 0, 'a refused run fails the same way again: no Run again');
  for (const kind of ['export-json', 'export-csv', 'export-goal']) {
    await page.click(`[data-testid="${kind}"]`);
    await page.waitForFunction(() => /nothing to export/.test(document.querySelector('[data-testid="export-status"]')?.innerText ?? ''), null, { timeout: 10000 });
  }
  // The message still names the run's problem (an export did not replace it).
  assert.match(await error.innerText(), /p up to 1448/);
  assert.deepEqual(page.problems, []);
});

test('schedule on a network cut in two: the stuck ranks are named and no slowdown is given', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=3&view=schedule&coll=allreduce%2Fring&p=16&bytes=1048576&net=ring%3A16&breaks=0-1%2C8-9&preset=hops`);
  const summary = page.locator('[data-testid="net-summary"]');
  await summary.waitFor();
  await page.waitForFunction(() => /ranks are stuck/.test(document.querySelector('[data-testid="net-summary"]')?.innerText ?? ''), null, { timeout: 60000 });
  const text = await summary.innerText();
  assert.match(text, /: \d+ ranks are stuck \(their messages never arrive\); the others finish by [\d.\u2009]+ ns, no slowdown is given, as the run did not finish;/);
  assert.doesNotMatch(text, /× its time/);
  assert.match(await page.locator('[data-testid="unreachable"]').innerText(), /rank pairs have no surviving path/);
  assert.deepEqual(page.problems, []);
});

// The network's result shows first; the ideal switch's time (for the slowdown) follows.
async function idealDone(page) {
  await page.locator('[data-testid="net-summary"]').waitFor();
  await page.waitForFunction(() => /× its time/.test(document.querySelector('[data-testid="net-ideal"]')?.innerText ?? ''), null, { timeout: 60000 });
}

test('schedule on a network: ring allreduce on ring:8 takes its closed form and the CLI\'s time; hover, scrubber, click to break and reroute; the link reopens it', async ({ context, base }) => {
  const page = await open(context, base, `${base}?v=3&view=schedule&coll=allreduce/ring&p=8&bytes=8192&preset=hops&net=ring:8`);
  const summary = page.locator('[data-testid="net-summary"]');
  await idealDone(page);
  // 2(p − 1)(λ + n/p/B) = 14 · (250 + 1024/25) = 4073.44 ns; the ideal switch has two hops a step.
  assert.match(await summary.innerText(), /^On ring:8 \(8 hosts, 8 links, 0 broken\): the last rank finishes at 4073 ns, against 7573 ns on an ideal switch/);
  const json = JSON.parse((await download(page, 'export-json')).text);
  const goal = cli(['goal', 'gen', 'allreduce/ring', '--p', '8', '--bytes', '8192']);
  const net = JSON.parse(execFileSync(CLI, ['net', 'sim', '-', '--topology', 'ring:8', '--json'], { input: goal, encoding: 'utf8' }));
  assert.equal(json.max_time, net.max_time, 'the page and the CLI agree');
  assert.ok(Math.abs(json.max_time - 4073.44) < 1e-6, String(json.max_time));
  await page.locator('[data-testid="timeline"]').waitFor();
  const canvas = page.locator('[data-testid="net-picture"]');
  await canvas.waitFor();
  // The picture takes its frame's width (at most 640 px) once the run is shown.
  await page.waitForFunction(() => document.querySelector('[data-testid="net-picture"]').style.width === '640px');
  await page.waitForTimeout(200);
  const box = await canvas.boundingBox();
  // The ring as a circle: host v at angle 2πv/8 − π/2 around the centre, radius h/2 − 28.
  const h = Math.min(box.width, 520);
  const at = (v) => { const a = 2 * Math.PI * v / 8 - Math.PI / 2; return [box.width / 2 + (h / 2 - 28) * Math.cos(a), h / 2 + (h / 2 - 28) * Math.sin(a)]; };
  const [x0, y0] = at(0); const [x1, y1] = at(1);
  const mid = { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };
  await canvas.hover({ position: mid });
  const hover = page.locator('[data-testid="net-hover"]');
  await page.waitForFunction(() => /^link h0–h1/.test(document.querySelector('[data-testid="net-hover"]').innerText));
  assert.match(await hover.innerText(), /h0→h1 14\u2009?336 B, busy 573 ns, peak 1 flows/);
  // The scrubber: at 260 ns every rank sends its first chunk to its right neighbour at the full 25 B/ns.
  await page.locator('[data-testid="scrub"]').fill('260');
  await waitForUrl(page, () => location.search.includes('at=260'));
  assert.match(await page.locator('[data-testid="net-moving"]').innerText(), /^At 260 ns, 8 flows in transfer: 0→1 at 25 B\/ns, 1→2 at 25 B\/ns/);
  await shot(page, 'schedule-network');
  // A click breaks link 0–1: rank 0's chunks go the long way round, the run is slower and the link says so.
  await canvas.click({ position: mid });
  await waitForUrl(page, () => location.search.includes('breaks=0-1'));
  await page.waitForFunction(() => /1 broken\)/.test(document.querySelector('[data-testid="net-summary"]')?.innerText ?? ''));
  const broken = Number((await summary.innerText()).match(/finishes at ([\d.\u2009]+) ns/)[1].replace(/\u2009/g, ''));
  assert.ok(broken > 4073.44, `slower around the break: ${broken}`);
  // The rerun's picture (and the ideal switch's after it) may land under the pointer: point again until the link answers.
  for (let k = 0; k < 20 && !/^link h0–h1: broken \(click to repair it\)/.test(await hover.innerText()); k += 1) {
    await canvas.hover({ position: { x: mid.x + 1 + (k % 2), y: mid.y } });
    await page.waitForTimeout(150);
  }
  assert.match(await hover.innerText(), /^link h0–h1: broken \(click to repair it\)/);
  await shot(page, 'schedule-network-broken');
  // A seeded break is not the click's: its hover says what repairs it, and a click leaves the link as it is.
  const seeded = await open(context, base, `${base}?v=3&view=schedule&coll=allreduce/ring&p=8&bytes=8192&net=ring:8&brate=0.3&bseed=2`);
  await seeded.locator('[data-testid="net-summary"]').waitFor();
  await seeded.waitForFunction(() => document.querySelector('[data-testid="net-picture"]').style.width === '640px');
  const [s0, t0] = at(7); const [s1, t1] = at(0);
  const seededMid = { x: (s0 + s1) / 2, y: (t0 + t1) / 2 };
  await seeded.locator('[data-testid="net-picture"]').hover({ position: seededMid });
  await seeded.waitForFunction(() => /^link h0–h7/.test(document.querySelector('[data-testid="net-hover"]').innerText));
  assert.match(await seeded.locator('[data-testid="net-hover"]').innerText(), /broken by the seeded break rate/);
  // On a network the LogGOPS fields L and G give way to the network's; o, g, O and S stay.
  assert.equal(await seeded.locator('#L').count(), 0);
  assert.equal(await seeded.locator('#G').count(), 0);
  assert.equal(await seeded.locator('#o').count(), 1);
  await seeded.locator('[data-testid="lg-on-network"]').waitFor();
  await seeded.locator('[data-testid="net-picture"]').click({ position: seededMid });
  await seeded.waitForTimeout(300);
  assert.ok(!new URL(seeded.url()).searchParams.has('breaks'), seeded.url());
  assert.deepEqual(seeded.problems, []);
  const reopened = await open(context, base, page.url());
  await idealDone(reopened);
  assert.equal(await reopened.locator('[data-testid="net-summary"]').innerText(), await summary.innerText(), 'the link reproduces the run');
  assert.match(await reopened.locator('[data-testid="net-moving"]').innerText(), /^At 260 ns/);
  // Busy-fraction heat; a torus and a fat tree draw; a bad topology is named.
  await reopened.selectOption('[data-testid="heat"]', 'busy');
  await waitForUrl(reopened, () => location.search.includes('heat=busy'));
  for (const topo of ['torus:4x4', 'fattree:4,4,2', 'nodes:2x4']) {
    const p = await open(context, base, `${base}?v=3&view=schedule&coll=allreduce/rabenseifner&p=8&bytes=65536&net=${topo}`);
    await p.locator('[data-testid="net-summary"]').waitFor();
    assert.match(await p.locator('[data-testid="net-summary"]').innerText(), new RegExp(`^On ${topo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await shot(p, `schedule-network-${topo.split(':')[0]}`);
    assert.deepEqual(p.problems, []);
  }
  const bad = await open(context, base, `${base}?v=3&view=schedule&net=torus:0x4&bw=-1`);
  const notices = await bad.locator('[data-testid="notices"]').innerText();
  assert.match(notices, /net/);
  assert.deepEqual(page.problems, []);
});

test('schedule: pasted GOAL with a deadlock names what is left; a syntax error names line and column', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule`);
  await page.waitForSelector('[data-testid="timeline"]');
  await page.fill('[data-testid="goal-text"]', fs.readFileSync(path.join(loggops, 'hand_deadlock.goal'), 'utf8'));
  await page.click('[data-testid="simulate-pasted"]');
  await page.waitForSelector('[data-testid="deadlock"]');
  assert.match(await page.locator('[data-testid="deadlock"]').innerText(), /rank 0: posted receive/);
  await page.fill('[data-testid="goal-text"]', 'num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\nl1 requires l9\n}\n');
  await page.click('[data-testid="simulate-pasted"]');
  await page.waitForSelector('[data-testid="schedule-error"]');
  assert.match(await page.locator('[data-testid="schedule-error"]').innerText(), /line 4, column \d+.*unknown label `l9`/);
});

test('schedule: a GOAL file opened after zooming into another opens whole', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule`);
  await page.waitForSelector('[data-testid="timeline"]');
  await page.click('[data-testid="zoom-in"]');
  await waitForUrl(page, () => /[?&]t0=/.test(location.search) && /[?&]t1=/.test(location.search));
  await page.fill('[data-testid="goal-text"]', 'num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n');
  await page.click('[data-testid="simulate-pasted"]');
  await waitForUrl(page, () => /[?&]src=file(&|$)/.test(location.search) && !/[?&]t[01]=/.test(location.search));
  await page.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('2 ranks'));
  assert.deepEqual(page.problems, []);
});

test('schedule: barrier and swizzle patterns; bad values are named; p = 65536 dissemination runs in the worker with progress', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule&coll=barrier&mesh=4&alg=dissemination-tree&tile=2&bytes=8`);
  await page.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('16 ranks, 100 operations, 50 messages'));
  const sw = await open(context, base, `${base}?view=schedule&coll=swizzle&grid=4,4,4&cores=3,4`);
  await sw.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('4 ranks, 384 operations, 192 messages'));
  const bad = await open(context, base, `${base}?view=schedule&p=0&coll=ring&L=-1`);
  await bad.waitForSelector('[data-testid="notices"]');
  const notes = await bad.locator('[data-testid="notices"]').innerText();
  assert.match(notes, /p: "0" is not an integer from 1 to 1 048 576/);
  assert.match(notes, /coll: "ring" is not one of: reduce/);
  const big = await openObserved(context, base, `${base}?view=schedule&coll=dissemination&p=65536&bytes=8`);
  const started = Date.now();
  await big.waitForSelector('[data-testid="run-progress"]', { timeout: 20000 });
  await big.waitForSelector('[data-testid="finish-histogram"] svg', { timeout: 120000 });
  console.log(`     p = 65536 dissemination: ${Date.now() - started} ms to the histogram; ${await summaryText(big)}`);
  assert.match(await summaryText(big), /65536 ranks, 2097152 operations, 1048576 messages/);
  assert.ok((await longest(big)) <= 200, `longest main-thread task ${await longest(big)} ms`);
  await shot(big, 'schedule-large');
});

// A view's "Open in timeline" runs what the view computed with: the timeline's time is the view's.
test('view → timeline: ten pairs show the same time to 4 digits (the model\'s network twin, the Chooser on LogGOPS and on networks, a Schedule link by hand, the swizzle on networks)', async ({ context, base }) => {
  const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-4 * Math.max(Math.abs(a), Math.abs(b)), `${what}: ${a} vs ${b}`);
  const timelineTime = async (href, from) => {
    const t = await open(context, base, new URL(href, from).href);
    await t.waitForFunction(() => document.querySelector('[data-testid="net-summary"]') || /finishes; the last/.test(document.querySelector('[data-testid="schedule-summary"]')?.innerText ?? ''), null, { timeout: 60000 });
    const run = JSON.parse((await download(t, 'export-json')).text);
    assert.deepEqual(t.problems, []);
    await t.close();
    return run.max_time;
  };
  let pairs = 0;
  // 1–3. The Runtime model: T(n, p, m) = (T_start + n/m·T_byte)(p + m − 2) µs; its timeline runs the
  // twin (a line of p hosts, latency T_start, bandwidth 1/T_byte) and shows the same time in ns.
  for (const [n, p, ts, tb, m] of [[860160, 16, 10, 0.002, 16], [65536, 8, 2, 0.001, 4], [1048576, 64, 25, 0.0005, 32]]) {
    const page = await open(context, base, `${base}?view=model&n=${n}&p=${p}&t_start=${ts}&t_byte=${tb}&m=${m}`);
    await page.waitForSelector('[data-testid="open-timeline"]');
    const T = (ts + n / m * tb) * (p + m - 2);
    const shown = Number((await page.locator('tr[data-row="m-chosen"] td.time').innerText()).replace(/[\s\u2009]/g, ''));
    assert.ok(Math.abs(shown - T) <= 0.005 * T, `the model shows ${shown}, T = ${T}`);
    assert.match(await page.locator('[data-testid="timeline-under"]').innerText(), new RegExp(`on mesh:${p}x1`));
    near((await timelineTime(await page.locator('[data-testid="open-timeline"]').getAttribute('href'), page.url())) / 1000, T, `model n=${n} p=${p} m=${m}`);
    pairs += 1;
    await page.close();
  }
  // 4–8. The Chooser: on networks its simulated time, on LogGOPS its simulated points, in ns.
  for (const [q, id, bytes, key] of [
    ['p=16&lo=65536&hi=65536&at=65536&net=torus:4x4', 'ring', 65536, 'network'],
    ['p=8&lo=1048576&hi=1048576&at=1048576&net=ring:8', 'recursive-doubling', 1048576, 'network'],
    ['p=16&lo=1048576&hi=1048576&at=1048576&net=nodes:2x8', 'rabenseifner', 1048576, 'network'],
    ['p=8&lo=1048576&hi=1048576&at=1048576&preset=loggopsim', 'ring', 1048576, 'simulated'],
    ['coll=broadcast&p=16&lo=65536&hi=65536&at=65536&preset=loggopsim', 'binomial', 65536, 'simulated'],
  ]) {
    const page = await open(context, base, `${base}?view=chooser&${q}`);
    const link = page.locator(`[data-testid="timeline-${id}"]`);
    await link.waitFor({ timeout: 60000 });
    // The simulations arrive after the model's chart: export until this one is in.
    let row;
    for (let k = 0; k < 60 && !(row?.[key]?.[id] > 0); k += 1) {
      if (k > 0) await page.waitForTimeout(500);
      row = JSON.parse((await download(page, 'export-json')).text).rows.find((r) => r.bytes === bytes);
    }
    const mine = row?.[key]?.[id];
    assert.ok(mine > 0, `${q}: ${JSON.stringify(row)}`);
    near(await timelineTime(await link.getAttribute('href'), page.url()), mine, `chooser ${q} ${id}`);
    pairs += 1;
    // 9. The issue's case: the same collective typed into the Schedule view by hand gives the Chooser's time.
    if (q.includes('torus:4x4')) {
      near(await timelineTime(`${base}?view=schedule&coll=allreduce%2Fring&p=16&bytes=65536&net=torus%3A4x4`, base), mine, 'schedule by hand vs the Chooser');
      pairs += 1;
    }
    await page.close();
  }
  // 10–11. The swizzle on a network, with and without the rank shift: the CLI's time and the timeline's.
  for (const shift of [true, false]) {
    const page = await open(context, base, `${base}?view=swizzle&net=switch:8${shift ? '' : '&shift=0'}`);
    await page.waitForFunction(() => /^On switch:8/.test(document.querySelector('[data-testid="swizzle-net-sentence"]')?.innerText ?? ''), null, { timeout: 30000 });
    const native = JSON.parse(cli(['swizzle', '--grid', '4,2,8', '--cores', '4,2', '--topology', 'switch:8', '--json'])).network;
    const mine = shift ? native.with_shift.time_ns : native.without_shift.time_ns;
    assert.match(await page.locator('[data-testid="timeline-under"]').innerText(), /on switch:8/);
    near(await timelineTime(await page.locator('[data-testid="open-timeline"]').getAttribute('href'), page.url()), mine, `swizzle shift=${shift}`);
    pairs += 1;
    await page.close();
  }
  assert.ok(pairs >= 10, `${pairs} pairs`);
});

test('every view that draws a schedule opens it in the timeline and exports it as GOAL', async ({ context, base }) => {
  const cli = (args) => execFileSync(CLI, ['goal', 'gen', ...args], { encoding: 'utf8' });
  const cases = [
    ['view=tree&p=8&elements=2', ['reduce', '--p', '8', '--bytes', '16'], '8 ranks, 14 operations'],
    ['view=pipeline&p=4&m=3', ['pipeline', '--p', '4', '--pieces', '3', '--bytes', '48'], '4 ranks'],
    ['view=mesh&size=4&algorithm=mcs', ['barrier', '--mesh', '4', '--algorithm', 'mcs', '--bytes', '8'], '16 ranks'],
    ['view=swizzle', ['swizzle', '--grid', '4,2,8', '--cores', '4,2', '--write', '--bytes', '65536'], '8 ranks'],
  ];
  for (const [q, args, summary] of cases) {
    const page = await open(context, base, `${base}?v=3&${q}`);
    // A lazy view mounts after the first paint: wait for its link before measuring where it sits.
    await page.waitForSelector('[data-testid="open-timeline"]');
    // The schedule's links sit with the view's exports, not orphaned under the parameters.
    const placed = await page.evaluate(() => {
      const link = document.querySelector('[data-testid="open-timeline"]');
      const exports = [...document.querySelectorAll('.export-bar')].filter((e) => !e.closest('.controls'));
      const bar = exports.at(-1)?.getBoundingClientRect(), r = (link.closest('.schedule-links') ?? link).getBoundingClientRect();
      return { inControls: !!link.closest('.controls'), near: bar ? Math.abs(r.left - bar.left) < 40 && r.top >= bar.top && r.top - bar.bottom < 80 : false };
    });
    assert.ok(!placed.inControls && placed.near, `${q}: the timeline link sits under the exports ${JSON.stringify(placed)}`);
    const [d] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-goal"]')]);
    assert.equal(fs.readFileSync(await d.path(), 'utf8'), cli(args), `${q}: Export GOAL = commlab goal gen ${args.join(' ')}`);
    await page.click('[data-testid="open-timeline"]');
    await page.waitForFunction((s) => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes(s), summary);
    await page.close();
  }
});

test('schedule: without workers the same run happens on the page, in slices', async ({ context, base }) => {
  const page = await openObserved(context, base, `${base}?view=schedule&coll=dissemination&p=4096&__commlab_no_worker=1`);
  await page.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('4096 ranks'), null, { timeout: 60000 });
  assert.match(await summaryText(page), /4096 ranks, 98304 operations, 49152 messages/);
  const tasks = await page.evaluate(() => window.__longTasks);
  console.log(`     main-thread tasks over 50 ms: ${tasks.join(', ') || 'none'}`);
  assert.ok((await longest(page)) <= 200, `longest main-thread task ${await longest(page)} ms (all over 50 ms: ${tasks.join(', ')})`);
});

test('the lab and the Chooser load lazily: the first paint does not fetch their bundles', async ({ page, base }) => {
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${base}?view=model`);
  await page.waitForSelector('[data-testid="model-view"]');
  await page.waitForTimeout(500);
  assert.ok(!requests.some((u) => u.includes('views')), 'no lazy bundle on the model view');
  await page.goto(`${base}?view=lab`);
  await page.waitForSelector('[data-testid="run-sweep"]');
  // The lab lives in the timeline bundle (with the Schedule and swizzle views); the Chooser has the views bundle alone.
  assert.ok(requests.some((u) => u.includes('timeline_bg.wasm')), 'the lab fetched its lazy bundle');
  assert.ok(!requests.some((u) => u.includes('views_bg.wasm')), 'the lab did not fetch the Chooser\'s bundle');
  await page.goto(`${base}?view=chooser`);
  await page.waitForSelector('[data-testid="crossovers"]');
  assert.ok(requests.some((u) => u.includes('views_bg.wasm')), 'the Chooser fetched its own bundle');
});


// ---------------------------------------------------------------------------
const cli = (args) => execFileSync(CLI, args, { encoding: 'utf8' });
const crossoverText = (page) => page.locator('[data-testid="crossovers"]').innerText();

test('keyboard: an arrow key on a log slider moves p by at least one (16 → 17 in the Chooser, 8 → 9 in the Schedule view); p = 1 names no fastest algorithm', async ({ context, base }) => {
  const chooser = await open(context, base, `${base}?view=chooser&p=16`);
  await chooser.locator('#p-slider').focus();
  await chooser.keyboard.press('ArrowRight');
  await waitForUrl(chooser, () => /[?&]p=17(&|$)/.test(location.search));
  assert.equal(await chooser.locator('#p').inputValue(), '17');
  await chooser.keyboard.press('ArrowLeft');
  await chooser.keyboard.press('ArrowLeft');
  await waitForUrl(chooser, () => /[?&]p=15(&|$)/.test(location.search));
  const schedule = await open(context, base, `${base}?view=schedule`);
  await schedule.locator('#p-slider').focus();
  await schedule.keyboard.press('ArrowRight');
  await waitForUrl(schedule, () => /[?&]p=9(&|$)/.test(location.search));
  // At p = 1 every time is 0: the page names no winner.
  const one = await open(context, base, `${base}?view=chooser&p=1`);
  await one.waitForFunction(() => /Every algorithm takes 0 at p = 1/.test(document.querySelector('[data-testid="crossovers"]')?.innerText ?? ''), null, { timeout: 30000 });
  assert.doesNotMatch(await one.locator('[data-testid="crossovers"]').innerText(), /Fastest/);
  assert.deepEqual([...chooser.problems, ...schedule.problems, ...one.problems], []);
});

test('chooser: picking a system sets its nodes network, p and NCCL\'s description; the comparison runs there; the link reopens it', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&lo=1048576&hi=16777216`);
  await page.locator('#chooser-system').waitFor();
  assert.equal(await page.locator('#chooser-system').inputValue(), '');
  await page.selectOption('#chooser-system', 'dgx-h100');
  // NCCL's description follows from the System: the link does not carry it.
  await waitForUrl(page, () => /net=nodes%3A2x8(&|$)/.test(location.search) && /[?&]p=16(&|$)/.test(location.search) && /lib=nccl/.test(location.search) && !/nccl=/.test(location.search));
  assert.match(await page.locator('[data-testid="chooser-system-note"]').innerText(), /^2 × dgx-h100: nodes:2x8 .*p = 16;/);
  assert.equal(await page.locator('#chooser-system-nodes').inputValue(), '2');
  await page.waitForFunction(() => document.querySelector('[data-testid="chart-timing"]')?.innerText.includes('simulated on nodes:2x8'), null, { timeout: 120000 });
  await shot(page, 'chooser-system');
  // The Nodes field beside the preset: the network, p and NCCL's description follow.
  await page.locator('#chooser-system-nodes').fill('4');
  await page.locator('#chooser-system-nodes').press('Enter');
  await waitForUrl(page, () => /net=nodes%3A4x8(&|$)/.test(location.search) && /[?&]p=32(&|$)/.test(location.search));
  assert.match(await page.locator('[data-testid="chooser-system-note"]').innerText(), /^4 × dgx-h100: nodes:4x8 .*p = 32;/);
  await page.locator('[data-testid="libraries"] > summary').click();
  assert.match(await page.locator('#nccl-system').inputValue(), /^nodes=4,gpus=8,arch=hopper,channels=8,/);
  // NCCL's version: a select, a key in the link, and NCCL's description says it.
  await page.selectOption('#nccl-version', '2.22');
  await waitForUrl(page, () => /[?&]ncclv=2\.22(&|$)/.test(location.search));
  assert.match(await page.locator('#nccl-system').inputValue(), /,version=2\.22$/);
  // A node count out of range is refused under the field, naming the range; nothing changes.
  // (From 129 to 1 024 the System's expected curve is drawn alone: the 512-node test.)
  await page.locator('#chooser-system-nodes').fill('2000');
  await page.locator('#chooser-system-nodes').press('Enter');
  assert.equal(await page.locator('[data-testid="chooser-system-error"]').innerText(), "Nodes: an integer from 1 to 1024 (past 128, the System's expected curve alone, from the steady state)");
  assert.match(page.url(), /net=nodes%3A4x8/);
  // The user's own p leaves the System: the page says so, and offers the System's.
  await page.fill('#p', '16');
  await page.locator('#p').press('Enter');
  await page.locator('[data-testid="chooser-system-p"]').waitFor();
  assert.match(await page.locator('[data-testid="chooser-system-p"]').innerText(), /^p = 16 is not the 32 GPUs of 4 × dgx-h100/);
  await shot(page, 'chooser-system-p');
  await page.locator('[data-testid="chooser-system-use-p"]').click();
  await waitForUrl(page, () => /[?&]p=32(&|$)/.test(location.search));
  assert.equal(await page.locator('[data-testid="chooser-system-p"]').count(), 0);
  const again = await open(context, base, page.url());
  await again.locator('#chooser-system').waitFor();
  await again.waitForFunction(() => document.querySelector('#chooser-system')?.value === 'dgx-h100');
  assert.equal(await again.locator('#chooser-system-nodes').inputValue(), '4');
  assert.equal(await again.locator('#nccl-version').inputValue(), '2.22');
  for (const p of [page, again]) assert.deepEqual(p.problems, []);
});

test('chooser: a custom system, described key by key, sets the network, p and NCCL; a bad value is named under the fields; the link reopens it with its expected curve', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&lo=1048576&hi=4194304&y=busbw`);
  await page.locator('#chooser-system').waitFor();
  await page.selectOption('#chooser-system', 'dgx-h100');
  await waitForUrl(page, () => /net=nodes%3A2x8(&|$)/.test(location.search));
  // "custom system" starts from the System shown: DGX H100's values.
  await page.selectOption('#chooser-system', 'custom:');
  await page.locator('[data-testid="chooser-system-custom"]').waitFor();
  assert.equal(await page.locator('#chooser-system-gpus').inputValue(), '8');
  assert.equal(await page.locator('#chooser-system-nvlinks').inputValue(), '18');
  // Four GPUs a node on two NICs of 200 Gb/s.
  for (const [key, value] of [['gpus', '4'], ['nics', '2'], ['nic-gbps', '200']]) {
    await page.locator(`#chooser-system-${key}`).fill(value);
    await page.locator(`#chooser-system-${key}`).press('Enter');
  }
  await waitForUrl(page, () => /[?&]sys=custom%3Agpus%3D4%2C/.test(location.search) && /net=nodes%3A2x4x2(&|$)/.test(location.search) && /[?&]p=8(&|$)/.test(location.search) && /[?&]bw2=25(&|$)/.test(location.search));
  assert.match(await page.locator('[data-testid="chooser-system-note"]').innerText(), /^2 × custom: nodes:2x4x2 .*p = 8;/);
  // A value out of its range is named, with the range; the System stays as it was.
  await page.locator('#chooser-system-nics').fill('3');
  await page.locator('#chooser-system-nics').press('Enter');
  assert.match(await page.locator('[data-testid="chooser-system-error"]').innerText(), /nics = 3 does not divide gpus = 4/);
  assert.match(page.url(), /net=nodes%3A2x4x2/);
  await page.locator('#chooser-system-nics').fill('2');
  await page.locator('#chooser-system-nics').press('Enter');
  await page.waitForFunction(() => /expected: 2 × custom[\s\S]*system/.test(document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? ''), null, { timeout: 120000 });
  // The expected table is `commlab predict --system custom:…`'s.
  const sys = decodeURIComponent(new URL(page.url()).searchParams.get('sys'));
  const cliRows = JSON.parse(cli(['predict', '--system', sys, '--nodes', '2', '--bytes', '1048576..4194304', '--json'])).rows;
  const rows = await page.locator('[data-testid="expected-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.equal(rows.length, cliRows.length);
  for (const [i, r] of cliRows.entries()) assert.ok(Math.abs(Number(rows[i][2].replace(/\s/g, '')) - r.time_us) <= 0.006 * r.time_us, `${rows[i][2]} vs ${r.time_us}`);
  await shot(page, 'chooser-custom-system');
  const again = await open(context, base, page.url());
  await again.locator('[data-testid="chooser-system-custom"]').waitFor();
  assert.equal(await again.locator('#chooser-system').inputValue(), 'custom:');
  assert.equal(await again.locator('#chooser-system-gpus').inputValue(), '4');
  assert.equal(await again.locator('#chooser-system-nics').inputValue(), '2');
  await again.waitForFunction(() => /expected: 2 × custom[\s\S]*system/.test(document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? ''), null, { timeout: 120000 });
  // A network edited away from it is the user's own, and the page says what that leaves out.
  await again.locator('#bw2').fill('30');
  await again.locator('#bw2').press('Enter');
  await again.locator('[data-testid="chooser-system-none"]').waitFor();
  assert.equal(await again.locator('#chooser-system').inputValue(), '');
  for (const p of [page, again]) assert.deepEqual(p.problems, []);
});

test('chooser: an NVL72 rack and a PCIe node: gb200-nvl72 is two nodes of 72 GPUs whose expected rows are `commlab predict`\'s (NVLS tree); a domain that is not whole trays is named under the fields; a PCIe node runs no LL128', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&lo=1048576&hi=16777216&y=busbw`);
  await page.locator('#chooser-system').waitFor();
  await page.selectOption('#chooser-system', 'gb200-nvl72');
  await waitForUrl(page, () => /net=nodes%3A2x72(&|$)/.test(location.search) && /[?&]p=144(&|$)/.test(location.search));
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="expected-table"] tbody tr').length === 5, null, { timeout: 120000 });
  // Past 128 ranks the page's rows come from the steady engine, as `--engine steady`.
  const cliRows = JSON.parse(cli(['predict', '--system', 'gb200-nvl72', '--nodes', '2', '--bytes', '1048576..16777216', '--engine', 'steady', '--json'])).rows;
  const rows = await page.locator('[data-testid="expected-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  for (const [i, r] of cliRows.entries()) {
    assert.equal(r.algorithm, 'nvls_tree');
    assert.ok(rows[i][1].startsWith('nvls_tree'), rows[i][1]);
    assert.ok(Math.abs(Number(rows[i][2].replace(/\s/g, '')) - r.time_us) <= 0.006 * r.time_us, `${rows[i][2]} vs ${r.time_us}`);
  }
  // NCCL's own algorithms are not compared on 144 ranks: said, with the System named.
  await page.waitForFunction(() => /not simulated on 2 × gb200-nvl72/.test(document.querySelector('[data-testid="crossovers"]')?.textContent ?? ''), null, { timeout: 120000 });
  assert.doesNotMatch(await page.locator('[data-testid="crossovers"]').textContent(), /pick a System/);
  await shot(page, 'chooser-nvl72');
  // Custom, from the rack: its tray and domain; 70 GPUs are not whole trays of 4.
  await page.selectOption('#chooser-system', 'custom:');
  await page.locator('[data-testid="chooser-system-custom"]').waitFor();
  assert.equal(await page.locator('#chooser-system-gpus').inputValue(), '4');
  assert.equal(await page.locator('#chooser-system-domain').inputValue(), '72');
  const before = page.url();
  await page.locator('#chooser-system-domain').fill('70');
  await page.locator('#chooser-system-domain').press('Enter');
  assert.match(await page.locator('[data-testid="chooser-system-error"]').innerText(), /domain = 70 is not a multiple of gpus = 4/);
  assert.equal(page.url(), before);
  // A PCIe node (a link of its own): LL128 nowhere in its expected rows.
  const pcie = await open(context, base, `${base}?view=chooser&lo=1048576&hi=16777216&y=busbw&sys=${encodeURIComponent('custom:gpus=8,nvlinks=0,pcie=gen4,nics=4,nic-gbps=200')}&net=nodes%3A2x8x4&p=16&lib=nccl&bw=24&bw2=25`);
  await pcie.waitForFunction(() => document.querySelectorAll('[data-testid="expected-table"] tbody tr').length === 5, null, { timeout: 120000 });
  const picks = await pcie.locator('[data-testid="expected-table"] tbody tr td:nth-child(2)').allTextContents();
  assert.ok(picks.every((p) => !p.includes('ll128')), picks.join(' | '));
  assert.equal(await pcie.locator('#chooser-system-nvlinks').inputValue(), '0');
  assert.equal(await pcie.locator('#chooser-system-pcie').inputValue(), 'gen4');
  await shot(pcie, 'chooser-pcie');
  for (const p of [page, pcie]) assert.deepEqual(p.problems, []);
});

test('schedule: NVLS on a System\'s nodes: a rank on each NVSwitch, named in the timeline; without nodes the page says NVLS needs them', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule&coll=allreduce%2Fnvls&p=16&bytes=1048576`);
  await page.locator('[data-testid="collective"]').waitFor();
  assert.equal(await page.locator('[data-testid="collective"]').inputValue(), 'allreduce/nvls');
  await page.selectOption('#system', 'dgx-h100');
  await waitForUrl(page, () => /coll=allreduce%2Fnvls/.test(location.search) && /net=nodes%3A2x8(&|$)/.test(location.search));
  await page.locator('[data-testid="net-summary"]').waitFor({ timeout: 60000 });
  await page.waitForFunction(() => /^On nodes:2x8/.test(document.querySelector('[data-testid="net-summary"]')?.innerText ?? ''), null, { timeout: 60000 });
  // 16 GPUs and a rank on each of the 2 NVSwitches; the network picture and
  // the ideal switch take them too.
  assert.match(await page.locator('[data-testid="schedule-summary"]').innerText(), /^18 ranks, .*every rank finishes/);
  await shot(page, 'schedule-nvls');
  // LogGOPS alone has no switch to put them on: the page says NVLS needs nodes.
  await page.locator('[data-testid="on-network"]').uncheck();
  await page.locator('[data-testid="schedule-error"]').waitFor({ timeout: 30000 });
  assert.match(await page.locator('[data-testid="schedule-error"]').innerText(), /NVLS on a nodes:NxG network/);
  assert.deepEqual(page.problems, []);
});

test('chooser: NCCL\'s settings steer the expected curve as `predict --env` does; a refused one is named and changes nothing; the link reopens them', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&lo=1048576&hi=67108864&y=busbw`);
  await page.locator('#chooser-system').waitFor();
  await page.selectOption('#chooser-system', 'dgx-h100');
  await page.waitForSelector('[data-testid="expected-table"]', { state: 'attached', timeout: 120000 });
  const picks = () => page.locator('[data-testid="expected-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.ok((await picks()).some((r) => r[1].startsWith('nvls_tree/simple')), 'NCCL\'s own pick first');
  // Pasted as a job script has them: one per line, with -x and export.
  await page.locator('#nccl-env').fill('-x NCCL_ALGO=Ring\nexport NCCL_PROTO=LL128\nNCCL_MIN_NCHANNELS=32');
  await page.locator('#nccl-env').dispatchEvent('change');
  await waitForUrl(page, () => /[?&]env=NCCL_ALGO%3DRing(\+|%20)NCCL_PROTO%3DLL128(\+|%20)NCCL_MIN_NCHANNELS%3D32(&|$)/.test(location.search));
  await page.waitForFunction(() => {
    const cells = [...document.querySelectorAll('[data-testid="expected-table"] tbody tr td:nth-child(2)')];
    return cells.length === 7 && cells.every((td) => td.textContent.startsWith('ring/ll128, 32 channels'));
  }, null, { timeout: 120000 });
  const rows = await picks();
  const env = ['--env', 'NCCL_ALGO=Ring', '--env', 'NCCL_PROTO=LL128', '--env', 'NCCL_MIN_NCHANNELS=32'];
  const cli_rows = JSON.parse(cli(['predict', '--system', 'dgx-h100', '--nodes', '2', '--bytes', '1048576..67108864', ...env, '--json'])).rows;
  assert.equal(rows.length, cli_rows.length);
  const num = (x) => Number(x.replace(/\s/g, ''));
  for (const [i, r] of cli_rows.entries()) {
    assert.equal(r.channels, 32);
    assert.ok(Math.abs(num(rows[i][2]) - r.time_us) <= 0.006 * r.time_us, `time at ${r.bytes}: ${rows[i][2]} vs ${r.time_us}`);
  }
  await shot(page, 'chooser-nccl-env');
  // Refused: named under the field, the link and the curve unchanged.
  const before = page.url();
  await page.locator('#nccl-env').fill('NCCL_ALGO=Rnig');
  await page.locator('#nccl-env').dispatchEvent('change');
  await page.locator('[data-testid="nccl-env-refused"]').waitFor();
  assert.match(await page.locator('[data-testid="nccl-env-refused"]').innerText(), /NCCL_ALGO: unrecognized element "Rnig".*nothing changed/);
  assert.equal(page.url(), before);
  // A setting NCCL reads but that leaves it nothing to run on two nodes is said where the curve was.
  await page.locator('#nccl-env').fill('NCCL_ALGO=NVLS');
  await page.locator('#nccl-env').dispatchEvent('change');
  await page.waitForFunction(() => /NCCL_ALGO=NVLS leaves NCCL 2\.30\.7 no algorithm/.test(document.querySelector('[data-testid="expected-note"]')?.innerText ?? ''), null, { timeout: 60000 });
  // The link reopens the settings.
  const again = await open(context, base, before);
  await again.locator('#nccl-env').waitFor();
  assert.equal(await again.locator('#nccl-env').inputValue(), 'NCCL_ALGO=Ring\nNCCL_PROTO=LL128\nNCCL_MIN_NCHANNELS=32');
  await again.waitForFunction(() => document.querySelectorAll('[data-testid="expected-table"] tbody tr').length > 0, null, { timeout: 120000 });
  for (const p of [page, again]) assert.deepEqual(p.problems, []);
});

test('chooser: a system\'s busbw: the y axis in nccl-tests\' terms, the expected curve and table equal `commlab predict`, the link reopens it', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&lo=1048576&hi=67108864`);
  await page.locator('#chooser-system').waitFor();
  // Under the α–β model (units of α) the bandwidths are refused in words.
  await page.selectOption('#y-axis', 'busbw');
  await page.waitForSelector('[data-testid="y-axis-note"]');
  assert.match(await chartSvg(page, 'times-chart'), /time \(units of α\)/);
  await page.selectOption('#chooser-system', 'dgx-h100');
  await waitForUrl(page, () => /[?&]y=busbw(&|$)/.test(location.search) && /net=nodes%3A2x8(&|$)/.test(location.search));
  await page.waitForSelector('[data-testid="expected-table"]', { state: 'attached', timeout: 120000 });
  await page.waitForFunction(() => /expected: 2 ×[\s\S]*dgx-h100/.test(document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? ''), null, { timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="chart-timing"]')?.innerText.includes('simulated on nodes:2x8'), null, { timeout: 120000 });
  const svg = await chartSvg(page, 'times-chart');
  assert.match(svg, /busbw \(GB\/s, nccl-tests/);
  assert.equal(await page.locator('[data-testid="y-axis-note"]').count(), 0);
  // The table's rows are `commlab predict`'s, size by size.
  const rows = await page.locator('[data-testid="expected-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const cli_rows = JSON.parse(cli(['predict', '--system', 'dgx-h100', '--nodes', '2', '--collective', 'allreduce', '--bytes', '1048576..67108864', '--json'])).rows;
  assert.equal(rows.length, cli_rows.length);
  const q3 = (x) => Number(x.replace(/\s/g, ''));
  for (const [i, r] of cli_rows.entries()) {
    assert.ok(rows[i][1].startsWith(`${r.algorithm}/${r.protocol}`), `${rows[i][1]} vs ${r.algorithm}/${r.protocol}`);
    assert.ok(Math.abs(q3(rows[i][4]) - r.busbw) <= 0.006 * r.busbw, `busbw at ${r.bytes}: ${rows[i][4]} vs ${r.busbw}`);
    assert.ok(Math.abs(q3(rows[i][2]) - r.time_us) <= 0.006 * r.time_us, `time at ${r.bytes}: ${rows[i][2]} vs ${r.time_us}`);
  }
  // From 4 MiB NCCL picks NVLS tree on 2 H100 nodes, simulated with a rank on each NVSwitch.
  assert.ok(rows.some((r) => r[1].startsWith('nvls_tree/simple')), rows.map((r) => r[1]).join('; '));
  await shot(page, 'chooser-busbw');
  // NCCL's tuner file for this system: NCCL's algorithms simulated in the
  // engine worker, the CLI's file for the same system and sizes.
  await page.locator('[data-testid="libraries"] > summary').click();
  await page.selectOption('[data-testid="tuner-format"]', 'nccl-tuner');
  const tunerFile = await download(page, 'tuner-save');
  assert.equal(tunerFile.name, 'commlab-allreduce-nccl-tuner.conf');
  const cliTuner = cli(['choose', '--collective', 'allreduce', '--p', '16', '--system', 'dgx-h100', '--bytes', '1048576..67108864', '--export', 'nccl-tuner']);
  assert.equal(tunerFile.text, cliTuner);
  assert.match(tunerFile.text, /^# 1 MiB–/m);
  assert.match(await page.locator('[data-testid="tuner-note"]').innerText(), /Saved commlab-allreduce-nccl-tuner\.conf: \d+ lines? where/);
  // Under the NCCL release the page shows: 2.22's picks and costs, the CLI's file at --nccl-version 2.22.
  await page.selectOption('#nccl-version', '2.22');
  await waitForUrl(page, () => /[?&]ncclv=2\.22(&|$)/.test(location.search));
  const olderFile = await download(page, 'tuner-save');
  const cliOlder = cli(['choose', '--collective', 'allreduce', '--p', '16', '--system', 'dgx-h100', '--bytes', '1048576..67108864', '--export', 'nccl-tuner', '--nccl-version', '2.22']);
  assert.equal(olderFile.text, cliOlder);
  assert.match(olderFile.text, /under NCCL 2\.22\.3's model/);
  assert.notEqual(olderFile.text.replace(/NCCL 2\.22\.3/, ''), tunerFile.text.replace(/NCCL 2\.30\.7/, ''), 'the two releases advise differently here');
  await page.selectOption('#nccl-version', 'current');
  await waitForUrl(page, () => !/[?&]ncclv=/.test(location.search));
  const again = await open(context, base, page.url());
  await again.waitForFunction(() => /expected: 2 ×[\s\S]*dgx-h100/.test(document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? ''), null, { timeout: 120000 });
  assert.equal(await again.locator('#y-axis').inputValue(), 'busbw');
  // Another node count: while its curve is computed, no frame draws the
  // 2-node curve or its table (a stale result is never drawn).
  await page.evaluate(() => {
    window.staleExpected = 0;
    const chart = () => document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? '';
    const look = () => {
      if (/expected: 4 ×/.test(chart())) return;
      const computing = document.querySelector('[data-testid="expected-note"]')?.textContent.includes('4 × dgx-h100');
      const drawn = /expected: 2 ×/.test(chart()) || document.querySelector('[data-testid="expected"] summary')?.textContent.includes('2 × dgx-h100');
      if (computing && drawn) window.staleExpected += 1;
      requestAnimationFrame(look);
    };
    window.startStale = () => requestAnimationFrame(look);
  });
  await page.locator('#chooser-system-nodes').fill('4');
  await page.evaluate(() => window.startStale());
  await page.locator('#chooser-system-nodes').press('Enter');
  await page.waitForFunction(() => /expected: 4 ×[\s\S]*dgx-h100/.test(document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? ''), null, { timeout: 120000 });
  assert.equal(await page.evaluate(() => window.staleExpected), 0, 'frames that drew the 2-node curve while the 4-node one was computed');
  assert.match(await page.locator('[data-testid="expected"] summary').innerText(), /4 × dgx-h100/);
  await shot(page, 'chooser-busbw-4-nodes');
  for (const p of [page, again]) assert.deepEqual(p.problems, []);
});

test('chooser: on a System NCCL\'s gain is among its own algorithms under its per-step costs, the CLI\'s sentence; the cost model says what α and β mean there', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0&lo=1048576&hi=67108864&lib=nccl`);
  await page.locator('#chooser-system').waitFor();
  assert.match(await page.locator('[data-testid="preset-source"]').innerText(), /times in units of α$/);
  await page.selectOption('#chooser-system', 'dgx-h100');
  await waitForUrl(page, () => /net=nodes%3A2x8(&|$)/.test(location.search));
  // Off the model, the sidebar no longer promises times in units of α.
  const source = await page.locator('[data-testid="preset-source"]').innerText();
  assert.match(source, /On a network the chart shows simulated times in ns: α, β and γ only give/);
  assert.doesNotMatch(source, /units of α/);
  await page.waitForFunction(() => /^NCCL on 2 × dgx-h100: (?!simulating)/m.test(document.querySelector('[data-testid="library-gains"]')?.innerText ?? ''), null, { timeout: 120000 });
  const said = (await page.locator('[data-testid="library-gains"] li').allInnerTexts()).filter((t) => t.startsWith('NCCL'));
  const native = JSON.parse(cli(['choose', '--collective', 'allreduce', '--p', '16', '--system', 'dgx-h100', '--nodes', '2', '--bytes', '1048576..67108864', '--library', 'nccl', '--json']));
  assert.deepEqual(said, native.library_gains.filter((t) => t.startsWith('NCCL')));
  assert.match(said[0], /NCCL's per-step costs/);
  assert.doesNotMatch(said[0], /recursive-doubling|rabenseifner|double-binary-tree/);
  await page.locator('[data-testid="crossovers"]').screenshot({ path: path.join(artifacts, 'chooser-nccl-gain-on-system.png') });
  assert.deepEqual(page.problems, []);
});

test('chooser: a large System\'s expected curve says how many sizes are done while it simulates', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0&lo=1048576&hi=268435456`);
  await page.locator('#chooser-system').waitFor();
  await page.selectOption('#chooser-system', 'dgx-h100');
  await page.locator('#chooser-system-nodes').fill('16');
  await page.locator('#chooser-system-nodes').press('Enter');
  await waitForUrl(page, () => /net=nodes%3A16x8(&|$)/.test(location.search));
  // Every change of the note until the table arrives (each size's progress
  // is posted, however fast the machine).
  await page.evaluate(() => {
    window.__notes = new Set();
    const read = () => {
      const n = document.querySelector('[data-testid="expected-note"]');
      if (n) window.__notes.add(n.textContent);
    };
    window.__watch = new MutationObserver(read);
    window.__watch.observe(document.body, { subtree: true, childList: true, characterData: true });
    read();
  });
  await page.waitForSelector('[data-testid="expected-table"]', { state: 'attached', timeout: 300000 });
  const notes = await page.evaluate(() => { window.__watch.disconnect(); return [...window.__notes]; });
  assert.ok(notes.some((n) => /^Simulating what 16 × dgx-h100 should reach: \d+ of 9 sizes done…$/.test(n)), notes.join(' | '));
  assert.deepEqual(page.problems, []);
});

test('chooser: changing p moves the crossovers; they are the CLI\'s; a shared link reproduces the chart; exports', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0`);
  await page.waitForSelector('[data-testid="times-chart"] svg');
  const expected = (p) => JSON.parse(cli(['choose', '--collective', 'allreduce', '--p', String(p), '--bytes', '8..1073741824', '--alpha', '1', '--beta', '0.001', '--json'])).crossovers
    .map((c) => `${c.to} beats ${c.from} from`);
  const at64 = await crossoverText(page);
  for (const line of expected(64)) assert.ok(at64.includes(line), `${line} in ${at64}`);
  assert.match(at64, /rabenseifner beats recursive-doubling from 2 KiB at p = 64/);
  // Redrawing the charts never forces a layout: plotters' caption measurement
  // (a span appended and measured) cost ~10 ms a chart with the map on the page.
  await page.evaluate(() => {
    window.__layouts = 0;
    const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'offsetHeight');
    Object.defineProperty(HTMLElement.prototype, 'offsetHeight', { configurable: true, get() { window.__layouts++; return d.get.call(this); } });
  });
  await page.fill('#p', '48');
  await page.waitForFunction(() => document.querySelector('[data-testid="crossovers"]')?.innerText.includes('p = 48'));
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__layouts), 0, 'no chart measured text through the page');
  const at48 = await crossoverText(page);
  assert.notEqual(at48, at64, 'the crossovers moved');
  for (const line of expected(48)) assert.ok(at48.includes(line), `${line} in ${at48}`);
  assert.match(at48, /ring beats rabenseifner from 64 KiB at p = 48/);
  await waitForUrl(page, () => location.search.includes('p=48'));
  const chart = await chartSvg(page, 'times-chart');
  assert.match(chart, /allreduce on p = 48/);
  const csv = (await download(page, 'export-csv')).text.trim().split('\n');
  assert.equal(csv[0], 'bytes,algorithm,time,latency,bandwidth,compute,pieces,simulated,winner');
  assert.equal(csv.length - 1, 28 * 6, '28 sizes × 6 algorithms');
  const json = JSON.parse((await download(page, 'export-json')).text);
  const native = JSON.parse(cli(['choose', '--collective', 'allreduce', '--p', '48', '--bytes', '8..1073741824', '--alpha', '1', '--beta', '0.001', '--json']));
  assert.deepEqual(json.crossovers, native.crossovers, 'the page exports the CLI\'s crossovers');
  for (const [i, row] of json.rows.entries()) {
    for (const [id, t] of Object.entries(row.times)) assert.ok(Math.abs(t - native.rows[i].times[id]) <= 1e-9 * t, `${id} at ${row.bytes}: page ${t} (m = ${row.pieces?.[id]}), CLI ${native.rows[i].times[id]} (m = ${native.rows[i].pieces?.[id]})`);
  }
  // The link reproduces the chart.
  const again = await open(context, base, page.url());
  await again.waitForFunction(() => document.querySelector('[data-testid="times-chart"] svg')?.outerHTML.includes('p = 48'));
  assert.equal(await chartSvg(again, 'times-chart'), chart);
  assert.equal(await crossoverText(again), at48);
  await shot(page, 'chooser-p48');
});

test('chooser on a network: ring beats Rabenseifner on torus:4x4 where the model never lets it; the CLI\'s numbers; the bottleneck named; the map and the timeline on the network; the link reopens it', async ({ context, base }) => {
  const off = 'reduce-broadcast,recursive-doubling,double-binary-tree,chain-up-down';
  const page = await open(context, base, `${base}?view=chooser&p=16&lo=65536&hi=262144&off=${off}&at=262144&map=2..16&net=torus:4x4`);
  await page.waitForFunction(() => document.querySelector('[data-testid="chart-timing"]')?.innerText.includes('simulated on torus:4x4'), null, { timeout: 60000 });
  const text = await crossoverText(page);
  assert.match(text, /^Fastest on torus:4x4 at 64 KiB: rabenseifner\./);
  // A NIC sends one message at a time (docs/network.md): from 256 KiB (128 KiB with every send at once, nicw=0).
  assert.match(text, /ring beats rabenseifner from 256 KiB at p = 16/);
  assert.match(text, /Under the α–β model: rabenseifner wins every size in this range\./);
  // The page's numbers are the CLI's.
  const json = JSON.parse((await download(page, 'export-json')).text);
  const native = JSON.parse(cli(['choose', '--collective', 'allreduce', '--p', '16', '--bytes', '64K..256K', '--algorithms', 'ring,rabenseifner', '--topology', 'torus:4x4', '--json']));
  assert.deepEqual(json.crossovers, native.crossovers);
  assert.deepEqual(json.model_crossovers, []);
  assert.equal(json.topology, 'torus:4x4');
  for (const [i, row] of json.rows.entries()) {
    for (const id of ['ring', 'rabenseifner']) assert.ok(Math.abs(row.network[id] - native.rows[i].network[id]) <= 1e-9 * row.network[id], `${id} at ${row.bytes}`);
    assert.deepEqual(row.bottleneck, native.rows[i].bottleneck);
  }
  // The explain panel at 256 KiB names the winner's bottleneck link.
  const at = json.rows.find((r) => r.bytes === 262144);
  const sentence = await page.locator('[data-testid="bottleneck"]').innerText();
  assert.ok(sentence.startsWith('On torus:4x4 at 256 KiB, ring is fastest'), sentence);
  assert.ok(sentence.includes(`Its bottleneck is link ${at.bottleneck.name}`), sentence);
  assert.match(await page.locator('[data-testid="network-ring"]').innerText(), /^\d/);
  assert.match(await chartSvg(page, 'times-chart'), /on torus:4x4: simulated time vs message size/);
  // The winner map is the network's.
  await page.waitForFunction(() => /cells in/.test(document.querySelector('[data-testid="map-timing"]')?.innerText ?? ''), null, { timeout: 60000 });
  assert.match(await chartSvg(page, 'winner-map'), /on torus:4x4 \(simulated\)/);
  await shot(page, 'chooser-network');
  // The ring's timeline link runs the same schedule on the same network: its time is the Chooser's.
  const href = await page.locator('[data-testid="timeline-ring"]').getAttribute('href');
  assert.match(href, /net=torus%3A4x4/);
  const timeline = await open(context, base, new URL(href, page.url()).href);
  await timeline.locator('[data-testid="net-summary"]').waitFor({ timeout: 30000 });
  const run = JSON.parse((await download(timeline, 'export-json')).text);
  assert.ok(Math.abs(run.max_time - at.network.ring) <= 1e-9 * run.max_time, `timeline ${run.max_time} vs chooser ${at.network.ring}`);
  // The shared link reopens the same comparison.
  const again = await open(context, base, page.url());
  await again.waitForFunction(() => document.querySelector('[data-testid="chart-timing"]')?.innerText.includes('simulated on torus:4x4'), null, { timeout: 60000 });
  assert.equal(await crossoverText(again), text);
  // More ranks than hosts are refused by name; a bad topology is a notice.
  const big = await open(context, base, `${base}?view=chooser&p=32&net=torus:4x4`);
  await big.waitForFunction(() => /hosts/.test(document.body.innerText), null, { timeout: 30000 });
  const bad = await open(context, base, `${base}?view=chooser&net=torus:0x4`);
  assert.match(await bad.locator('[data-testid="notices"]').innerText(), /net/);
  for (const p of [page, timeline, again, big, bad]) assert.deepEqual(p.problems, []);
});

test('chooser libraries: each library\'s pick per size is the CLI\'s; the band, the table and the disagreements; NCCL\'s printed estimate; a tuner file the CLI also writes; the link reopens it', async ({ context, base }) => {
  const nccl = 'version=2.22,nodes=3,gpus=8,pattern=tree';
  const page = await open(context, base, `${base}?view=chooser&sim=0&coll=allreduce&p=24&lo=8&hi=1048576&map=2..24&lib=mpich,ompi,nccl&nccl=${encodeURIComponent(nccl)}`);
  await page.waitForSelector('[data-testid="library-table"] tbody tr');
  await page.waitForSelector('[data-testid="library-band"] svg');
  const native = JSON.parse(cli(['choose', '--collective', 'allreduce', '--p', '24', '--bytes', '8..1M', '--library', 'mpich,ompi,nccl', '--nccl', nccl, '--json']));
  const rows = await page.$$eval('[data-testid="library-table"] tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.innerText)));
  assert.equal(rows.length, native.rows.length);
  for (const [i, r] of native.rows.entries()) {
    const picks = r.library_picks;
    assert.ok(rows[i][2].startsWith(picks.mpich.name.replace('MPIR_', '')), `${r.bytes}: ${rows[i][2]} vs ${picks.mpich.name}`);
    assert.ok(rows[i][3].includes(`(${picks.ompi.id})`), `${r.bytes}: ${rows[i][3]} vs ${picks.ompi.id}`);
    assert.ok(rows[i][4].startsWith(`${picks.nccl.algorithm}/${picks.nccl.protocol}`), `${r.bytes}: ${rows[i][4]}`);
  }
  // NCCL 2.22 printed "8 Bytes -> Algo 0 proto 0 time 25.200924" on this system (NVIDIA/nccl#1453).
  assert.match(rows[0][4], /^tree\/ll 25\.2 µs/);
  const band = await chartSvg(page, 'library-band');
  assert.match(band, /<title>8 B: Allreduce_intra_recursive_doubling = our recursive-doubling<\/title>/);
  // The headline says what each library would gain by following the model; NCCL is not advised under α–β.
  const gained = await page.locator('[data-testid="library-gains"]').innerText();
  assert.match(gained, /MPICH: following the model among its own algorithms would save up to \d+ % \(at /);
  assert.match(gained, /Open MPI: /);
  assert.match(gained, /NCCL: α–β alone cannot say what NCCL would gain/);
  await page.locator('[data-testid="crossovers"]').screenshot({ path: path.join(artifacts, 'chooser-library-gains.png') });
  const notes = await page.locator('[data-testid="library-notes"]').innerText();
  assert.match(notes, /NCCL runs tree\/ll \(our double-binary-tree\) where the model's fastest of its own algorithms is/);
  assert.match(await page.locator('[data-testid="library-versions"]').innerText(), /MPICH 5\.0\.1, Open MPI 5\.0\.10, NCCL 2\.22\.3/);
  // The winner map as Open MPI's rules file: the CLI writes the same file for the same map.
  await page.waitForSelector('[data-testid="map-timing"]');
  await page.selectOption('[data-testid="tuner-format"]', 'ompi-rules');
  const file = await download(page, 'tuner-save');
  assert.equal(file.name, 'commlab-allreduce-ompi-rules.rules');
  const out = path.join(artifacts, 'cli-ompi.rules');
  cli(['choose', '--collective', 'allreduce', '--p', '24', '--bytes', '8..1M', '--map-p', '2..24', '--export', 'ompi-rules', '-o', out]);
  fs.writeFileSync(path.join(artifacts, 'web-ompi.rules'), file.text);
  assert.equal(file.text, fs.readFileSync(out, 'utf8'));
  assert.match(await page.locator('[data-testid="tuner-note"]').innerText(), /Saved commlab-allreduce-ompi-rules\.rules/);
  // α–β alone cannot advise NCCL: nothing is saved, and the page says why.
  await page.selectOption('[data-testid="tuner-format"]', 'nccl-tuner');
  await page.click('[data-testid="tuner-save"]');
  await page.waitForFunction(() => /α–β alone cannot advise NCCL/.test(document.querySelector('[data-testid="tuner-note"]')?.innerText ?? ''));
  await shot(page, 'chooser-libraries');
  // The link reopens the same picks; a description that does not fit p is named.
  const again = await open(context, base, page.url());
  await again.waitForSelector('[data-testid="library-table"] tbody tr');
  assert.deepEqual(await again.$$eval('[data-testid="library-table"] tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.innerText))), rows);
  const bad = await open(context, base, `${base}?view=chooser&sim=0&p=16&lib=nccl&nccl=nodes%3D3`);
  await bad.waitForSelector('[data-testid="notices"]');
  assert.match(await bad.locator('[data-testid="notices"]').innerText(), /nccl.*nodes × gpus = 3 × 5 = 15 ranks, but p = 16/);
});

test('chooser fit: two published runs pasted one after the other are fitted one at a time; the run select is the CLI\'s --run and the link keeps it', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0&coll=allreduce&p=16`);
  await page.waitForSelector('[data-testid="times-chart"] svg');
  const dir = path.resolve(here, '../data/published');
  const both = ['nccl-tests_cscs-alps-gh200-2nodes-x4gpu-slingshot_all_reduce.txt', 'nccl-tests_dell-xe9680-h100-2nodes-x8gpu-8xcx7-ndr400_all_reduce.txt']
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');
  const file = path.join(tempDir('commlab-runs-'), 'both.txt');
  fs.writeFileSync(file, both);
  await page.locator('[data-testid="fit"] > summary').click();
  await page.fill('[data-testid="bench-text"]', both);
  await page.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await page.waitForSelector('[data-testid="fit-run"]');
  assert.match(await page.locator('[data-testid="fit-runs"]').innerText(), /This file holds 2 runs one after another \(1: lines \d+–\d+; 2: lines \d+–\d+\)/);
  // Each run's p is its own: the first lists 8 ranks, the second's busbw / algbw says 16.
  const cliFit = (run) => JSON.parse(cli(['fit', file, '--collective', 'allreduce', '--run', String(run), '--json']));
  const first = cliFit(1);
  assert.deepEqual([first.p, first.p_source], [8, 'ranks']);
  await page.waitForFunction((n) => document.querySelector('[data-testid="fit-values"]')?.innerText.includes(`(${n} points`), first.points.length);
  assert.match(await page.locator('[data-testid="fit-p-note"]').innerText(), /The run has p = 8 \(its rank list\), not the page's p = 16: fitted with p = 8/);
  await page.selectOption('[data-testid="fit-run"]', '2');
  await waitForUrl(page, () => /[?&]fr=2(&|$)/.test(location.search));
  const second = cliFit(2);
  assert.deepEqual([second.p, second.p_source], [16, 'busbw']);
  assert.notEqual(first.points.length, second.points.length);
  await page.waitForFunction((n) => document.querySelector('[data-testid="fit-values"]')?.innerText.includes(`(${n} points`), second.points.length);
  const values = await page.locator('[data-testid="fit-values"]').innerText();
  const shown = (x) => Number(x.toPrecision(3)).toString();
  assert.ok(values.includes(`α = ${shown(second.alpha)}`), `${values} vs ${second.alpha}`);
  assert.deepEqual([second.runs, second.run], [2, 2]);
  await shot(page, 'chooser-fit-runs');
  // A new file starts from its first run (run 2 is not in it).
  await page.fill('[data-testid="bench-text"]', fs.readFileSync(path.join(dir, 'nccl-tests_dell-xe9680-h100-2nodes-x8gpu-8xcx7-ndr400_all_reduce.txt'), 'utf8'));
  await page.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await waitForUrl(page, () => !/[?&]fr=/.test(location.search));
  await page.waitForFunction((n) => document.querySelector('[data-testid="fit-values"]')?.innerText.includes(`(${n} points`) && !document.querySelector('[data-testid="fit-run"]'), second.points.length);
  assert.equal(await page.locator('[data-testid="fit-error"]').count(), 0);
  // Forgotten before the next test opens the Chooser (a kept file would come back there).
  await page.click('[data-testid="bench-forget"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="bench-kept"]')?.innerText.includes('Forgotten'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('chooser fit: a published run read against its System: the fitted links and costs are the CLI\'s `fit --system`; without a System the page says what to pick', async ({ context, base }) => {
  const dir = path.resolve(here, '../data/published');
  const name = 'nccl-tests_gcp-a3ultra-h200-2nodes-x8gpu-gke_all_gather.txt';
  const text = fs.readFileSync(path.join(dir, name), 'utf8');
  const page = await open(context, base, `${base}?view=chooser&coll=allgather&lo=1048576&hi=67108864`);
  await page.locator('#chooser-system').waitFor();
  await page.locator('[data-testid="fit"] > summary').click();
  await page.fill('[data-testid="bench-text"]', text);
  await page.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await page.waitForSelector('[data-testid="fit-values"]');
  await page.waitForSelector('[data-testid="system-fit-note"]');
  assert.match(await page.locator('[data-testid="system-fit-note"]').innerText(), /Pick a System above/);
  await page.selectOption('#chooser-system', 'hgx-h200');
  await page.waitForSelector('[data-testid="system-fit-sentences"] li', { timeout: 120000 });
  const shown = await page.locator('[data-testid="system-fit-sentences"] li').allInnerTexts();
  const native = JSON.parse(cli(['fit', path.join(dir, name), '--collective', 'allgather', '--p', '16', '--system', 'hgx-h200', '--json'])).system_fit;
  const lines = native.summary.split('\n').map((l) => l.trim());
  assert.equal(shown.length, lines.length);
  // The same sentences, their numbers to 2 % (the worker's exp and ln are not the CLI's to the last bit).
  const numbers = (t) => (t.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  for (const [i, line] of lines.entries()) {
    assert.equal(shown[i].replace(/[\d.]+/g, '#'), line.replace(/[\d.]+/g, '#'), `${shown[i]} vs ${line}`);
    for (const [k, x] of numbers(line).entries()) {
      assert.ok(Math.abs(numbers(shown[i])[k] - x) <= 0.02 * Math.abs(x) + 1, `${shown[i]} vs ${line}`);
    }
  }
  assert.match(shown[1], /the inter-node links \(a NIC to its rail\) reach \d+ % ± \d+ % of 400 Gb\/s/);
  // The fit's chart follows the chart's measure: busbw, in nccl-tests' terms.
  await page.selectOption('#y-axis', 'busbw');
  await page.waitForFunction(() => /busbw \(GB\/s, nccl-tests/.test(document.querySelector('[data-testid="fit-chart"]')?.innerHTML ?? ''));
  await page.locator('[data-testid="system-fit"]').scrollIntoViewIfNeeded();
  await page.locator('[data-testid="system-fit"]').screenshot({ path: path.join(artifacts, 'chooser-system-fit-section.png') });
  await shot(page, 'chooser-system-fit');
  await page.click('[data-testid="bench-forget"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="bench-kept"]')?.innerText.includes('Forgotten'));
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('chooser fit: published nccl-tests output pasted gives the CLI\'s α and β, its residuals and the chart; "Run the Chooser" puts them in the link; the file is kept and forgotten', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0&coll=allreduce&p=8`);
  await page.waitForSelector('[data-testid="times-chart"] svg');
  const fixture = path.resolve(here, '../data/bench/mscclpp-507-allreduce.txt');
  await page.locator('[data-testid="fit"] > summary').click();
  await page.fill('[data-testid="bench-text"]', fs.readFileSync(fixture, 'utf8'));
  await page.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await page.selectOption('[data-testid="bench-algorithm"]', 'ring');
  await page.waitForFunction(() => document.querySelector('[data-testid="fit-values"]')?.innerText.startsWith('ring:'));
  const native = JSON.parse(cli(['fit', fixture, '--collective', 'allreduce', '--p', '8', '--algorithm', 'ring', '--json']));
  const values = await page.locator('[data-testid="fit-values"]').innerText();
  const shown = (x) => Number(x.toPrecision(3)).toString();
  assert.ok(values.includes(`α = ${shown(native.alpha)}`), `${values} vs ${native.alpha}`);
  assert.equal((await page.$$('[data-testid="fit-residuals"] tbody tr')).length, native.residuals.length);
  assert.match(await chartSvg(page, 'fit-chart'), /measured/);
  // Its exports: the JSON is `commlab fit --json`'s, the CSV has every point.
  const exported = await download(page, 'export-json', '[data-testid="fit-result"]');
  assert.equal(exported.name, 'commlab-fit-allreduce-p8.json');
  assert.deepEqual(JSON.parse(exported.text), native);
  const csv = (await download(page, 'export-csv', '[data-testid="fit-result"]')).text.trim().split('\n');
  assert.equal(csv[0], 'bytes,measured,model,residual,relative');
  assert.deepEqual(csv.slice(1).map((l) => Number(l.split(',')[1])), native.points.map((p) => p.time));
  assert.match(await page.locator('[data-testid="bench-kept"]').innerText(), /kept in this browser's storage/);
  await shot(page, 'chooser-fit');
  await page.click('[data-testid="fit-use"]');
  await waitForUrl(page, () => location.search.includes('a=0.389'));
  const url = new URL(page.url());
  assert.ok(Math.abs(Number(url.searchParams.get('a')) - native.alpha) <= 1e-9 * native.alpha);
  assert.ok(Math.abs(Number(url.searchParams.get('b')) - native.beta) <= 1e-9 * native.beta);
  // A reload brings the kept file back and fits it again; forgetting empties it.
  const again = await open(context, base, `${base}?view=chooser&sim=0&coll=allreduce&p=8`);
  await again.waitForSelector('[data-testid="fit-values"]');
  assert.match(await again.locator('[data-testid="bench-kept"]').innerText(), /Restored pasted/);
  await again.click('[data-testid="bench-forget"]');
  await again.waitForFunction(() => document.querySelector('[data-testid="bench-kept"]')?.innerText.includes('Forgotten'));
  // A bad line is named by line and column (the section stays open after Forget).
  assert.ok(await again.locator('[data-testid="fit"]').evaluate((e) => e.open), 'the section stays open');
  await again.fill('[data-testid="bench-text"]', '64,1\n128,x\n');
  await again.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await again.waitForSelector('[data-testid="fit-error"]');
  assert.match(await again.locator('[data-testid="fit-error"]').innerText(), /line 2, column 5/);
  // A long paste (3 000 lines of nccl-tests, 0.3 MB) is read from the paste
  // itself and fitted; the box stays short and says what it holds.
  let long = '#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n';
  for (let k = 1; k <= 3000; k++) long += `${k * 4096} ${k * 1024} float sum -1 ${(5 + k * 0.05).toFixed(2)} 0 0 0 ${(5 + k * 0.05).toFixed(2)} 0 0 0\n`;
  await again.locator('[data-testid="bench-text"]').evaluate((e, t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    e.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, long);
  await again.waitForFunction(() => document.querySelector('[data-testid="fit-values"]')?.innerText.includes('(3000 points'));
  assert.equal(await again.locator('[data-testid="bench-text"]').inputValue(), '');
  assert.match(await again.locator('[data-testid="bench-hidden"]').innerText(), /^pasted text: 3\d{3} lines \(.+\): too long to show in the box, every line read\.$/);
  assert.match(await again.locator('[data-testid="fit-residuals"] caption').innerText(), /the 40 points fitted worst of 3000/);
  assert.equal((await again.$$('[data-testid="fit-residuals"] tbody tr')).length, 40);
  // With no worker the page fits the same file itself, and says where.
  const paged = await open(context, base, `${base}?view=chooser&sim=0&coll=allreduce&p=8&fa=ring&__commlab_no_worker=1`);
  await paged.waitForSelector('[data-testid="times-chart"] svg');
  // (The long file kept above comes back and opens the section by itself.)
  await paged.locator('[data-testid="fit"]').evaluate((e) => { e.open = true; });
  await paged.fill('[data-testid="bench-text"]', fs.readFileSync(fixture, 'utf8'));
  await paged.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await paged.waitForFunction(() => /^ring:.*\(6 points/.test(document.querySelector('[data-testid="fit-values"]')?.innerText ?? ''));
  assert.equal(await paged.locator('[data-testid="fit-values"]').innerText(), values);
  assert.match(await paged.locator('[data-testid="fit-timing"]').innerText(), /on this page \(no worker could start\)/);
});

test('chooser: a winner-map cell names its winner and margin; keys move; a click opens it in the timeline', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0&coll=broadcast&map=2..17`);
  const map = page.locator('[data-testid="winner-map"]');
  await page.waitForSelector('[data-testid="winner-map"] svg');
  await map.scrollIntoViewIfNeeded();
  const box = await map.boundingBox();
  // A cell in the middle of the map.
  await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.35);
  const named = await page.locator('[data-testid="map-hover"]').innerText();
  const m = named.match(/^p = (\d+), ([\d.]+ \w+): ([a-z-]+)( with (\d+) pieces)?; the runner-up takes ([\d.e-]+ % longer|the same time)/);
  assert.ok(m, named);
  await map.focus();
  await page.keyboard.press('ArrowUp');
  const moved = await page.locator('[data-testid="map-hover"]').innerText();
  assert.notEqual(moved, named, 'ArrowUp moves to the next p');
  assert.match(moved, new RegExp(`^p = ${Number(m[1]) + 1}, `));
  await page.keyboard.press('ArrowDown');
  // Click: the timeline of that configuration.
  await Promise.all([page.waitForURL(/view=schedule/), page.mouse.click(box.x + box.width * 0.55, box.y + box.height * 0.35)]);
  const url = new URL(page.url());
  assert.equal(url.searchParams.get('coll'), `broadcast/${m[3]}`);
  assert.equal(url.searchParams.get('p'), m[1]);
  if (m[5]) assert.equal(url.searchParams.get('pieces'), m[5]);
  // Under the chooser's LogGOPS special case: L = α, G = β (α = 1, β = 0.001 in ticks of β/1000), o = g = 0,
  // and the unit goes along: 10^6 ticks make the Chooser's unit of α.
  assert.deepEqual(['L', 'G', 'o', 'g', 'unit'].map((k) => url.searchParams.get(k)), ['1000000', '1000', '0', '0', '1000000']);
  await page.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('every rank finishes'));
  assert.match(await summaryText(page), new RegExp(`^${m[1]} ranks`));
  await shot(page, 'chooser-cell-timeline');
});

test('chooser: LogGOPS points sit on the model curves; bad link values are named; embed', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&coll=allgather&p=16`);
  await page.waitForFunction(() => document.querySelector('[data-testid="chart-timing"]')?.innerText.includes('Dots: LogGOPS'), null, { timeout: 60000 });
  const json = JSON.parse((await download(page, 'export-json')).text);
  // Allgather on a power of two has no fold: LogGOPS with o = g = 0, L = α, G = β equals the model within 1 % (docs/chooser.md).
  for (const row of json.rows) {
    for (const [id, t] of Object.entries(row.times)) {
      assert.ok(Math.abs(row.simulated[id] / t - 1) <= 0.01, `${id} at ${row.bytes}: LogGOPS ${row.simulated[id]}, model ${t}`);
    }
  }
  assert.match(await chartSvg(page, 'times-chart'), /LogGOPS \(simulated\)/);
  await shot(page, 'chooser-allgather-simulated');
  // The chunk optimizer checked by simulation at the explained size: the chain on 16 ranks at 1 MiB,
  // model m = 128 (√(14·2^20·0.001) = 121 → 128); LogGOPS (o = g = 0) prefers 512.
  const chunk = await open(context, base, `${base}?view=chooser&coll=broadcast&p=16&lo=65536&hi=4194304`);
  await chunk.waitForSelector('[data-testid="piece-check"]', { timeout: 60000 });
  const row = await chunk.locator('[data-testid="piece-check"] tr:has-text("chain")').first().innerText();
  assert.match(row, /^chain\s+128\s+512\s/);
  assert.equal(await chunk.locator('[data-testid="piece-check"] tbody tr').count(), 3);
  // Another explained size re-runs only the check: the LogGOPS points stay.
  await chunk.waitForFunction(() => document.querySelector('[data-testid="chart-timing"]')?.innerText.includes('Dots: LogGOPS'), null, { timeout: 60000 });
  await chunk.selectOption('[data-testid="split-size"]', '65536');
  await chunk.waitForFunction(() => document.querySelector('[data-testid="piece-check"] caption')?.innerText.includes('at 64 KiB'), null, { timeout: 60000 });
  assert.match(await chunk.locator('[data-testid="chart-timing"]').innerText(), /Dots: LogGOPS/);
  assert.equal(await chunk.locator('[data-testid="sim-progress"]').count(), 0, 'no new simulation of every point');
  const bad = await open(context, base, `${base}?view=chooser&p=5000&coll=gather&off=bogus&map=9..3`);
  await bad.waitForSelector('[data-testid="times-chart"] svg');
  const notice = await bad.locator('[data-testid="notices"]').innerText();
  // One wording in every view: `param: "value" is not <what is accepted>; using <default>`.
  for (const expected of [/p: "5000" is not an integer from 1 to 1024; using 64/, /coll: "gather" is not one of: broadcast/, /off: "bogus" is not/, /map: "9\.\.3" is not LO\.\.HI/]) assert.match(notice, expected);
  const embed = await open(context, base, `${base}?view=chooser&embed=1&sim=0`);
  await embed.waitForSelector('[data-testid="times-chart"] svg');
  assert.equal(await embed.locator('.schedule-docs').count(), 0);
  await shot(embed, 'chooser-embed');
});


/** A time as the Schedule view writes it (`1.054 ms`, `3 281 u`), in ns or in u. */
const parseTime = (text) => {
  const m = text.replace(/[\u2009 ](?=\d)/g, '').match(/([\d.]+(?:e-?\d+)?) (ns|µs|ms|s|u)\b/);
  assert.ok(m, text);
  return Number(m[1]) * { ns: 1, µs: 1e3, ms: 1e6, s: 1e9, u: 1 }[m[2]];
};
/** A number as the Chooser writes it (`1.05e6`, `12 900`). */
const parseQuantity = (text) => Number(text.replace(/[\u2009 ]/g, ''));

test('chooser: a timeline link keeps the unit; its finish time is the Chooser\'s LogGOPS time', async ({ context, base }) => {
  for (const [query, id, unit] of [
    ['coll=broadcast&p=256&preset=loggopsim&at=65536', 'double-binary-tree', null],
    ['coll=broadcast&p=16&at=65536', 'binomial', '1000000'],
  ]) {
    const page = await open(context, base, `${base}?v=3&view=chooser&${query}`);
    const cellSel = `[data-testid="loggops-${id}"]`;
    await page.waitForFunction((sel) => { const c = document.querySelector(sel); return c && c.innerText.trim() !== '—'; }, cellSel, { timeout: 60000 });
    const chooser = parseQuantity(await page.locator(cellSel).innerText());
    await Promise.all([page.waitForURL(/view=schedule/), page.click(`[data-testid="timeline-${id}"]`)]);
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('unit'), unit, query);
    if (!unit) assert.deepEqual(['L', 'G'].map((k) => url.searchParams.get(k)), ['5500', '6'], 'α and β in ns, as the Chooser has them');
    await page.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('every rank finishes'), null, { timeout: 60000 });
    const summary = await summaryText(page);
    const shown = parseTime(summary.match(/the last is rank \d+ at ([^.]+\.?\d*[^.]*)\./)[1]);
    // The Chooser shows 3 significant digits; the timeline 4.
    assert.ok(Math.abs(shown - chooser) <= 0.006 * chooser, `${query}: timeline ${shown} vs chooser ${chooser} (${summary})`);
    if (unit) assert.match(await page.locator('[data-testid="unit-note"]').innerText(), /1 u = 1e6 ticks|1 u = 1\.00e6 ticks/);
    await shot(page, `chooser-timeline-unit-${unit ? 'alpha' : 'ns'}`);
    await page.close();
  }
});

test('schedule: each critical-path row is its op\'s work and the last ends at the finish time', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=schedule`);
  await page.waitForFunction(() => document.querySelector('[data-testid="schedule-summary"]')?.innerText.includes('every rank finishes'));
  const finish = parseTime((await summaryText(page)).match(/the last is rank \d+ at ([^.]+\.?\d*[^.]*)\./)[1]);
  await page.locator('[data-testid="critical-path"] summary').click();
  const rows = await page.locator('[data-testid="critical-path"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.innerText)));
  assert.ok(rows.length > 2);
  assert.equal(parseTime(rows.at(-1)[3]), finish, 'the last row ends at the finish time');
  for (const [, what, start, end] of rows) {
    if (what.includes('(recv ')) assert.ok(parseTime(start) > 0, `a receive starts when its message arrives: ${what} ${start}`);
    if (what.includes('(send ')) assert.ok(parseTime(end) > parseTime(start), `a send takes its overhead: ${what} ${start}–${end}`);
  }
});

test('chooser: the split table fits its box at 1280 px, the timeline link in sight, on the model and on a network', async ({ context, base }) => {
  for (const query of ['coll=broadcast&p=256&preset=loggopsim&at=65536', 'p=16&net=nodes%3A2x8&lo=1048576&hi=67108864']) {
  const page = await open(context, base, `${base}?v=3&view=chooser&${query}`);
  await page.waitForSelector('[data-testid="split-table"]');
  if (query.includes('net=')) await page.waitForSelector('[data-testid="split-table"] [data-testid^="network-"]', { timeout: 60000 });
  const fit = await page.evaluate(() => {
    const t = document.querySelector('[data-testid="split-table"]');
    const box = t.parentElement.getBoundingClientRect();
    const link = t.querySelector('a[data-testid^="timeline-"]').getBoundingClientRect();
    const heads = [...t.querySelectorAll('th')].map((h) => h.getBoundingClientRect().right);
    return { table: t.getBoundingClientRect().width, box: box.width, link: link.right, right: box.right, heads };
  });
  assert.ok(fit.table <= fit.box + 1, `table ${fit.table} px in a ${fit.box} px box`);
  assert.ok(fit.link <= fit.right && Math.max(...fit.heads) <= fit.right + 1, JSON.stringify(fit));
  await page.close();
  }
});

const VIEWS = ['tree', 'pipeline', 'model', 'mesh', 'lab', 'swizzle', 'schedule', 'chooser'];

test('phones (390 × 844): no element is wider than the viewport on any view; tabs wrap', async ({ context, base }) => {
  for (const view of VIEWS) {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    page.problems = [];
    page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
    await page.goto(`${base}?view=${view}`);
    await page.waitForSelector('[data-testid="app"]');
    await page.waitForTimeout(view === 'chooser' || view === 'schedule' || view === 'lab' ? 1500 : 500);
    const over = await page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      // Inside a frame that scrolls or clips and itself fits the viewport (a wide figure scrolls in its frame, never the page).
      const clipped = (e) => { for (let a = e.parentElement; a; a = a.parentElement) { const o = getComputedStyle(a).overflowX; const r = a.getBoundingClientRect(); if ((o === 'auto' || o === 'scroll' || o === 'hidden') && r.right <= w + 1 && r.left >= -1) return true; } return false; };
      const bad = [...document.querySelectorAll('body *')].filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > w + 1 || r.left < -1) && !clipped(e); });
      return { scroll: document.documentElement.scrollWidth, w, bad: bad.slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute('class')} ${e.parentElement?.getAttribute('class')} ${Math.round(e.getBoundingClientRect().right)}`) };
    });
    assert.ok(over.scroll <= over.w && over.bad.length === 0, `${view}: ${JSON.stringify(over)}`);
    const tabs = await page.locator('.view-switcher button').evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().right));
    assert.ok(Math.max(...tabs) <= 390, `${view}: every tab on screen`);
    await shot(page, `phone-${view}`);
    await page.close();
  }
});

// Every drawing and table on a phone: pages that show each kind of chart.
const PHONE_PAGES = [
  ['model', '?view=model', ['chart-pieces', 'chart-units']],
  ['tree', '?view=tree&p=16&mode=mp&step=2', ['tree-svg']],
  ['pipeline', '?view=pipeline', ['pipeline-svg']],
  ['mesh', '?view=mesh', ['mesh-figure', 'round-svg']],
  ['lab', '?view=lab&seeds=1&max_size=16&barriers=1', ['uq-chart']],
  ['swizzle', '?view=swizzle&compare=shift&net=switch%3A8', ['swizzle-grid', 'swizzle-grid-other', 'swizzle-timeline', 'swizzle-collisions', 'swizzle-network']],
  ['schedule', '?view=schedule', ['timeline']],
  ['schedule-net', '?view=schedule&coll=allreduce%2Fring&p=16&bytes=1048576&net=nodes%3A2x8', ['net-picture', 'timeline']],
  ['schedule-large', '?view=schedule&coll=allreduce%2Fring&p=1024&bytes=1048576', ['finish-histogram']],
  ['chooser', '?view=chooser', ['times-chart', 'split-chart', 'winner-map']],
  ['chooser-net', '?view=chooser&net=torus%3A4x4&p=16', ['times-chart', 'winner-map']],
  ['chooser-libraries', '?view=chooser&sim=0&p=24&lib=mpich,ompi,nccl', ['library-band', 'times-chart']],
];

/** Every drawing on the page against its box: `{ id, drawn, box, scale, small }` (small: texts under 11 px as rendered). */
const measureDrawings = (page) => page.evaluate(() => {
  const out = [];
  for (const svg of document.querySelectorAll('.results svg')) {
    if (svg.closest('button, .legend, .chooser-legend') || svg.getBoundingClientRect().width === 0) continue;
    const holder = svg.closest('.chart, .diagram, figure, article') ?? svg.parentElement;
    const view = (svg.getAttribute('viewBox') || '').split(/\s+/).map(Number);
    const rect = svg.getBoundingClientRect();
    const scale = view.length === 4 && view[2] > 0 ? rect.width / view[2] : 1;
    const small = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() && parseFloat(getComputedStyle(t).fontSize) * scale < 10.9)
      .slice(0, 3).map((t) => `${t.textContent.trim()} @ ${(parseFloat(getComputedStyle(t).fontSize) * scale).toFixed(1)}px`);
    out.push({ id: holder.closest('[data-testid]')?.dataset.testid ?? holder.className, drawn: rect.width, box: holder.clientWidth, scroll: holder.scrollWidth, scale, small });
  }
  for (const c of document.querySelectorAll('.results canvas')) {
    const holder = c.parentElement;
    out.push({ id: c.dataset.testid, drawn: c.getBoundingClientRect().width, box: holder.clientWidth, scroll: holder.scrollWidth, scale: 1, small: [] });
  }
  const tables = [...document.querySelectorAll('.results table, .controls table')].filter((t) => t.getBoundingClientRect().width > 0).map((t) => {
    const box = t.parentElement;
    return { id: t.dataset.testid ?? t.className, width: t.scrollWidth, box: box.clientWidth };
  });
  return { drawings: out, tables };
});

test('phones (390 × 844): every chart is drawn for its box with text of 11 px or more, and every table fits or stacks', async ({ context, base }) => {
  for (const [name, query, ids] of PHONE_PAGES) {
    const page = await context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    page.problems = [];
    page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
    await page.goto(`${base}${query}`);
    await page.waitForSelector('[data-testid="app"]');
    for (const id of ids) {
      await page.waitForSelector(`[data-testid="${id}"] svg, canvas[data-testid="${id}"], [data-testid="${id}"] canvas`, { timeout: 30000 });
    }
    await page.waitForTimeout(400);
    const m = await measureDrawings(page);
    const seen = new Set(m.drawings.map((d) => d.id));
    for (const id of ids) assert.ok([...seen].some((s) => s.includes(id)) || m.drawings.some((d) => d.id === id), `${name}: ${id} drawn (${[...seen].join(', ')})`);
    for (const d of m.drawings) {
      assert.ok(d.drawn <= d.box + 1 && d.scroll <= d.box + 1, `${name}: ${d.id} is ${d.drawn.toFixed(0)} px (scrolls ${d.scroll}) in a ${d.box} px box`);
      assert.ok(d.scale > 0.97, `${name}: ${d.id} drawn for ${Math.round(d.drawn / d.scale)} px, shown at ${d.scale.toFixed(2)}×`);
      assert.deepEqual(d.small, [], `${name}: ${d.id} has text under 11 px`);
    }
    for (const t of m.tables) assert.ok(t.width <= t.box + 1, `${name}: table ${t.id} is ${t.width} px in a ${t.box} px box`);
    assert.deepEqual(page.problems, []);
    await shot(page, `phone-drawings-${name}`);
    await page.close();
  }
});

test('mesh from the keyboard: arrows walk the links, Enter breaks and repairs, a click on a node flips nothing', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=mesh&rate=0`);
  await page.waitForSelector('[data-testid="mesh-svg"] svg');
  await page.focus('[data-testid="mesh-stage"]');
  await page.keyboard.press('ArrowRight');
  assert.match(await page.locator('[data-testid="mesh-cursor"]').innerText(), /Link \(0, 0\)–\(0, 1\) selected, intact/);
  await page.keyboard.press('Enter');
  await waitForUrl(page, () => location.search.includes('flip='));
  assert.match(await page.locator('[data-testid="flip-count"]').innerText(), /^1 link flipped by hand/);
  assert.match(await page.locator('[data-testid="mesh-cursor"]').innerText(), /broken: Enter or Space repairs it/);
  await page.keyboard.press('ArrowDown');
  assert.match(await page.locator('[data-testid="mesh-cursor"]').innerText(), /Link \(0, 1\)–\(1, 1\) selected/);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press(' ');
  await waitForUrl(page, () => !location.search.includes('flip='));
  await shot(page, 'mesh-keyboard');
  // A click on a node's centre flips nothing.
  const svg = page.locator('[data-testid="mesh-svg"] svg');
  const circle = await page.locator('[data-testid="mesh-svg"] svg text', { hasText: /^0$/ }).first().boundingBox();
  await svg.click({ position: { x: 1, y: 1 }, force: true }).catch(() => {});
  await page.mouse.click(circle.x + circle.width / 2, circle.y + circle.height / 2);
  await page.waitForTimeout(300);
  assert.ok(!page.url().includes('flip='), 'a node click left the links alone');
});

test('150 reloads of the chooser in one tab: each finishes and no worker is left behind', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0`);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Target.setDiscoverTargets', { discover: true });
  // This page's workers (the browser's targets also list other pages' workers while they wind down).
  const workers = async () => page.workers().length;
  const targets = async () => (await cdp.send('Target.getTargets')).targetInfos.filter((t) => t.type === 'worker').length;
  const heap = async () => { await cdp.send('HeapProfiler.collectGarbage').catch(() => {}); return (await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0)); };
  const counts = [];
  const targetCounts = [];
  const heaps = [];
  for (let i = 0; i < 150; i += 1) {
    await page.reload();
    await page.waitForSelector('[data-testid="times-chart"] svg', { timeout: 30000 });
    assert.equal(await page.locator('[data-testid="compare-progress"]').count(), 0, `load ${i}: not stuck on costing`);
    if (i % 25 === 0 || i === 149) { counts.push(await workers()); targetCounts.push(await targets()); heaps.push(await heap()); }
  }
  // The chooser runs four workers (a fifth once its fit section opens); a reload leaves none of the old page's behind.
  assert.ok(Math.max(...counts) <= 8, `workers alive: ${counts} (browser targets: ${targetCounts})`);
  assert.ok(heaps.at(-1) <= 2 * heaps[1] + 5e6, `page heap flat: ${heaps}`);
  console.log(`     workers alive ${counts.join(' ')} (browser worker targets ${targetCounts.join(' ')}); page heap ${heaps.map((h) => (h / 1e6).toFixed(1)).join(' ')} MB`);
});

test('a worker that cannot start: the Chooser says so with Run again, which then works; up to p = 64 its chart needs no worker', async ({ page: home, context, base }) => {
  const block = (route) => route.fulfill({ status: 404, body: 'gone' });
  await context.route('**/worker_bg.wasm', block);
  // Up to p = 64 the comparison is costed on the page: the chart comes without the engine.
  const small = await open(context, base, `${base}?view=chooser&sim=0&p=64`);
  await small.waitForSelector('[data-testid="times-chart"] svg', { timeout: 30000 });
  assert.match(await small.locator('[data-testid="chart-timing"]').innerText(), /Model compared in [\d.]+ ms on the page/);
  small.problems = [];
  await small.close();
  const page = await open(context, base, `${base}?view=chooser&sim=0&p=128`);
  await page.waitForSelector('[data-testid="chooser-error"]', { timeout: 30000 });
  assert.match(await page.locator('[data-testid="chooser-error"]').innerText(), /engine worker stopped before answering/);
  await context.unroute('**/worker_bg.wasm', block);
  await page.locator('[data-testid="chooser-error"] [data-testid="run-again"]').click();
  await page.waitForSelector('[data-testid="times-chart"] svg', { timeout: 30000 });
  assert.equal(await page.locator('[data-testid="chooser-error"]').count(), 0);
  // The 404 was expected here, and on the landing page too: its Runtime model starts a worker
  // for the network twin, which may still be loading when the route blocks the engine.
  for (const p of [page, home]) p.problems = p.problems.filter((x) => !/404|Failed to load|WebAssembly|worker/i.test(x));
});


test('a course page on another origin embeds the tree, the pipeline and the model: each frame as tall as its view, at 1280 and at 390 px', async ({ context, base }) => {
  // The snippets are what the Embed button copies.
  const snippet = async (query) => {
    const page = await open(context, base, `${base}?${query}`);
    await page.click('[data-testid="embed"]');
    const text = await page.inputValue('[data-testid="share-output"]');
    await page.close();
    return text;
  };
  const snippets = [await snippet('view=tree&p=16'), await snippet('view=pipeline'), await snippet('view=model')];
  for (const s of snippets) assert.match(s, /^<iframe src="[^"]+embed=1" [^>]*><\/iframe><script>/);
  const dir = tempDir('commlab-course-');
  fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><title>Course</title><style>body{margin:0 auto;max-width:900px;padding:8px;font:16px system-ui}</style></head><body><main><h1>Collectives, week 3</h1>${snippets.join('\n<p>Next:</p>\n')}</main></body></html>`);
  const course = await serveDir(dir, '/course/');
  assert.notEqual(new URL(course.url).origin, new URL(base).origin, 'another origin');
  try {
    for (const [width, height] of [[1280, 800], [390, 844]]) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(course.url);
      const frames = page.locator('iframe');
      assert.equal(await frames.count(), 3);
      for (let i = 0; i < 3; i += 1) {
        const el = frames.nth(i);
        await el.scrollIntoViewIfNeeded();
        const frame = await (await el.elementHandle()).contentFrame();
        await frame.waitForSelector('main svg, main canvas');
        // The frame follows its view: same height (± 2 px), nothing wider than it.
        await page.waitForFunction((k) => {
          const f = document.querySelectorAll('iframe')[k];
          return f.style.height !== '';
        }, i);
        await page.waitForTimeout(400);
        // A loaded machine may draw a chart for the first guess of its box
        // before the frame's width is known: wait (bounded) for the redraw;
        // the assertions below still fail if it never comes.
        await frame.waitForFunction(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth, null, { timeout: 10000 }).catch(() => {});
        const outer = await el.evaluate((f) => f.getBoundingClientRect().height);
        const inner = await frame.evaluate(() => ({
          content: document.querySelector('.app').getBoundingClientRect().bottom + scrollY,
          scroll: document.documentElement.scrollHeight,
          client: document.documentElement.clientHeight,
          wide: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          small: [...document.querySelectorAll('svg text')].flatMap((t) => {
            const m = t.getScreenCTM();
            const box = t.getBoundingClientRect();
            if (!m || box.width === 0) return [];
            const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
            return size < 11 ? [`${t.textContent} at ${size.toFixed(1)} px`] : [];
          }).slice(0, 5),
        }));
        const name = `frame ${i} at ${width} px`;
        await el.screenshot({ path: path.join(artifacts, `course-${width}-frame${i}.png`) });
        assert.ok(Math.abs(outer - inner.content) <= 2, `${name}: frame ${outer} px, view ${inner.content} px`);
        assert.ok(inner.scroll <= inner.client + 2, `${name}: scrolls inside (${inner.scroll} > ${inner.client})`);
        assert.ok(inner.wide <= 0, `${name}: ${inner.wide} px wider than the frame`);
        assert.deepEqual(inner.small, [], `${name}: drawn text under 11 px`);
        if (i === 0) {
          const result = await frame.locator('[data-testid="result"]').boundingBox();
          assert.ok(result && result.y + result.height <= outer, `${name}: the tree's result line is inside the frame`);
        }
      }
      await shot(page, `course-page-${width}`);
      // Changing p inside the tree's frame resizes the frame.
      const tree = await (await frames.nth(0).elementHandle()).contentFrame();
      const before = await frames.nth(0).evaluate((f) => f.getBoundingClientRect().height);
      await tree.fill('#p', '64');
      await tree.press('#p', 'Enter');
      await page.waitForFunction((h) => Math.abs(document.querySelector('iframe').getBoundingClientRect().height - h) > 20, before);
      const after = await frames.nth(0).evaluate((f) => f.getBoundingClientRect().height);
      const content = await tree.evaluate(() => document.querySelector('.app').getBoundingClientRect().bottom + scrollY);
      assert.ok(Math.abs(after - content) <= 2, `after p = 64 at ${width} px: frame ${after}, view ${content}`);
      assert.deepEqual(page.problems ?? [], []);
      await page.close();
    }
  } finally {
    course.close();
  }
});

test('runtime model: no two labels of its charts overlap, at the defaults, after "Use the best m" and in the degenerate cases', async ({ context, base }) => {
  const overlaps = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid="chart-pieces"] svg, [data-testid="chart-units"] svg')].flatMap((svg, k) => {
    const boxes = [...svg.querySelectorAll('text')].map((t) => [t.textContent, t.getBoundingClientRect()]).filter(([s, b]) => s.trim() && b.width > 0);
    const out = [];
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) {
        const [a, b] = [boxes[i][1], boxes[j][1]];
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 0.5 && y > 0.5) out.push(`chart ${k}: "${boxes[i][0]}" over "${boxes[j][0]}"`);
      }
    }
    return out;
  }));
  const page = await open(context, base, `${base}?view=model`);
  await page.waitForSelector('[data-testid="chart-pieces"] svg');
  assert.deepEqual(await overlaps(page), [], 'defaults');
  await page.click('[data-testid="use-best"]');
  await page.waitForFunction(() => document.querySelector('#m').value === document.querySelector('[data-row="m-best"] .pieces').innerText);
  assert.deepEqual(await overlaps(page), [], 'after Use the best m');
  await shot(page, 'model-best');
  for (const q of ['t_byte=0', 't_start=0', 'p=1048576', 'p=1048576&m=1', 'n=1&p=3']) {
    const other = await open(context, base, `${base}?view=model&${q}`);
    await other.waitForSelector('[data-testid="chart-pieces"] svg');
    assert.deepEqual(await overlaps(other), [], q);
    await other.close();
  }
  const zero = await open(context, base, `${base}?view=model&t_byte=0`);
  assert.equal(await cell(zero, 'm-star', 'pieces'), 'none');
  assert.match(await zero.locator('[data-testid="optimum-note"]').innerText(), /there is no optimum m\*/);
  const free = await open(context, base, `${base}?view=model&t_start=0`);
  assert.equal(await cell(free, 'm-best', 'pieces'), '1024');
  assert.match(await free.locator('[data-testid="best-clamped"]').innerText(), /beyond the piece limit/);
  const big = await open(context, base, `${base}?view=model&p=1048576`);
  assert.match(await big.locator('[data-testid="speedup"]').innerText(), /^[\d.\s]+× slower$/);
  await shot(big, 'model-slower');
});

test('the barrier lab gives "within noise" where a difference lies inside the seeds\' spread: 3 and 5 seeds never give opposite verdicts', async ({ context, base }) => {
  const verdicts = async (seeds) => {
    const page = await open(context, base, `${base}?view=lab&max_size=16&seeds=${seeds}`);
    await page.click('[data-testid="run-sweep"]');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="claim"].pending').length === 0 && document.querySelectorAll('[data-testid="claim"]').length >= 4, null, { timeout: 120000 });
    const claims = await page.locator('[data-testid="claim"]').evaluateAll((els) => els.map((e) => [e.className, e.innerText]));
    assert.ok(!claims.some(([, t]) => /\+-|\+−/.test(t)), `no "+-0 %": ${claims.map((c) => c[1]).join(' / ')}`);
    await shot(page, `lab-${seeds}-seeds`);
    await page.close();
    return claims;
  };
  const [three, five] = [await verdicts(3), await verdicts(5)];
  assert.equal(three.length, five.length);
  for (let i = 0; i < three.length; i += 1) {
    const a = three[i][0].split(' ');
    const b = five[i][0].split(' ');
    const opposite = (a.includes('agrees') && b.includes('disagrees')) || (a.includes('disagrees') && b.includes('agrees'));
    assert.ok(!opposite, `claim ${i}: 3 seeds ${three[i][1]}\n5 seeds ${five[i][1]}`);
  }
});

test('the 64 × 64 barrier plays to its end in under a minute at the top speed, and the speed is in the link', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=mesh&size=64`);
  await page.waitForFunction(() => /step 0 \/ [1-9]\d*/.test(document.querySelector('[data-testid="step-count"]')?.innerText ?? ''), null, { timeout: 60000 });
  const total = Number((await page.locator('[data-testid="step-count"]').innerText()).split('/')[1]);
  await page.selectOption('.playback select', '2000');
  await waitForUrl(page, () => location.search.includes('speed=2000'));
  const at = async () => Number((await page.locator('[data-testid="step-count"]').innerText()).match(/step (\d+)/)[1]);
  await page.click('[data-testid="play"]');
  const t0 = Date.now();
  await page.waitForTimeout(3000);
  const moved = await at();
  const rate = moved / ((Date.now() - t0) / 1000);
  console.log(`     64 × 64 barrier: ${total} steps at ${rate.toFixed(0)} steps/s: ${(total / rate).toFixed(0)} s to play`);
  assert.ok(total / rate < 60, `${total} steps at ${rate.toFixed(0)} steps/s: ${(total / rate).toFixed(0)} s`);
  await page.click('[data-testid="play"]');
  const reopened = await open(context, base, page.url());
  assert.equal(await reopened.locator('.playback select').inputValue(), '2000');
});

test('the Sources page reads on a phone: at 390 px nothing is wider than the screen', async ({ context, base }) => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}sources.html`);
  await page.waitForSelector('[data-testid="source-row"]');
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(wide <= 0, `${wide} px wider than the screen`);
  const label = await page.evaluate(() => getComputedStyle(document.querySelector('td:nth-child(4)'), '::before').content);
  assert.equal(label, '"ours: "');
  await shot(page, 'sources-390');
  await page.close();
});

test('chooser fit: a 32-rank run pasted at p = 64 is fitted as p = 32, with a notice; "Run the Chooser with these" takes p = 32', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&sim=0&coll=allreduce&p=64`);
  await page.waitForSelector('[data-testid="times-chart"] svg');
  // As published copies print a 4 × 8 run: no rank list, busbw / algbw = 2·31/32.
  let text = '#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n';
  for (let k = 10; k <= 30; k += 2) {
    const bytes = 2 ** k;
    const time = 40 + bytes / 180000;
    const algbw = bytes / time / 1000;
    text += `${bytes} ${bytes / 4} float sum -1 ${time.toFixed(1)} ${algbw.toFixed(2)} ${(algbw * 1.9375).toFixed(2)} 0 ${time.toFixed(1)} ${algbw.toFixed(2)} ${(algbw * 1.9375).toFixed(2)} 0\n`;
  }
  // Open the section unless a previous visit left it open.
  if (!(await page.locator('[data-testid="fit"]').evaluate((d) => d.open))) await page.locator('[data-testid="fit"] > summary').click();
  await page.fill('[data-testid="bench-text"]', text);
  await page.locator('[data-testid="bench-text"]').dispatchEvent('change');
  await page.waitForSelector('[data-testid="fit-p-note"]', { timeout: 90000 });
  assert.equal(await page.locator('[data-testid="fit-p-note"]').innerText(), "The run has p = 32 (its busbw / algbw), not the page's p = 64: fitted with p = 32.");
  assert.match(await page.locator('[data-testid="fit-values"]').innerText(), /for p = 32;/);
  await shot(page, 'chooser-fit-p-note');
  await page.click('[data-testid="fit-use"]');
  await waitForUrl(page, () => /[?&]p=32(&|$)/.test(location.search));
  await page.click('[data-testid="bench-forget"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="bench-kept"]')?.innerText.includes('Forgotten'));
});

test('chooser: from picking a System until the network results arrive, no frame draws an α-unit axis with the expected curve', async ({ context, base }) => {
  const page = await open(context, base, `${base}?view=chooser&lo=1048576&hi=16777216&y=busbw`);
  await page.locator('#chooser-system').waitFor();
  await page.waitForSelector('[data-testid="times-chart"] svg');
  // Every frame: does the chart's axis say "units of α", does it hold the expected curve (ns)?
  await page.evaluate(() => {
    window.__frames = [];
    const tick = () => {
      const svg = document.querySelector('[data-testid="times-chart"] svg');
      if (svg) window.__frames.push([svg.textContent.includes('units of α'), svg.textContent.includes('expected:')]);
      window.__raf = requestAnimationFrame(tick);
    };
    tick();
  });
  await page.selectOption('#chooser-system', 'dgx-h100');
  await page.waitForFunction(() => document.querySelector('[data-testid="chart-timing"]')?.innerText.includes('simulated on nodes:2x8'), null, { timeout: 120000 });
  await page.waitForTimeout(300);
  const frames = await page.evaluate(() => { cancelAnimationFrame(window.__raf); return window.__frames; });
  assert.ok(frames.length > 10, `${frames.length} frames sampled`);
  const mixed = frames.filter(([alpha, expected]) => alpha && expected).length;
  assert.equal(mixed, 0, `${mixed} of ${frames.length} frames draw the expected curve on an α-unit axis`);
  assert.ok(frames.some(([alpha, expected]) => !alpha && expected), 'the expected curve is drawn, alone or with the network\'s points');
  await shot(page, 'chooser-system-network');
});

// The expected table's rows, checked against `commlab predict --engine
// steady` at the same nodes and sizes: every row steady, its pick ending in
// `suffix`, its time within the table's rounding.
async function steadyRows(page, nodes, suffix) {
  const rows = await page.locator('[data-testid="expected-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  const cliRows = JSON.parse(cli(['predict', '--system', 'dgx-h100', '--nodes', String(nodes), '--bytes', '1048576..1073741824', '--engine', 'steady', '--json'])).rows;
  assert.equal(rows.length, cliRows.length);
  for (const [i, r] of cliRows.entries()) {
    assert.equal(r.engine, 'steady');
    assert.ok(rows[i][1].endsWith(suffix), rows[i][1]);
    assert.ok(Math.abs(Number(rows[i][2].replace(/\s/g, '')) - r.time_us) <= 0.006 * r.time_us, `${rows[i][2]} vs ${r.time_us}`);
  }
  return { rows, cliRows };
}

test('chooser: a System\'s link at 16 and 64 nodes: from loading until its expected rows are done, no animation frame shows an α-unit axis or asks to pick a System', async ({ context, base }) => {
  for (const nodes of [16, 64]) {
    const page = await context.newPage();
    page.problems = [];
    page.on('pageerror', (err) => page.problems.push(`page error: ${err.message}`));
    // Every frame: what the chart's axis and the crossovers' sentences say.
    await page.addInitScript(() => {
      window.__seen = [];
      const look = () => {
        const chart = document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? '';
        const said = document.querySelector('[data-testid="crossovers"]')?.textContent ?? '';
        if (chart.includes('units of α')) window.__seen.push('α axis');
        if (/pick a System/.test(said)) window.__seen.push('pick a System');
        if (!document.querySelector('[data-testid="expected-table"] tbody tr')) requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    });
    await page.goto(`${base}?v=5&view=chooser&p=${nodes * 8}&lib=nccl&sys=dgx-h100&y=busbw&net=nodes%3A${nodes}x8&bw=370.8&bw2=50`);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="expected-table"] tbody tr').length > 0, null, { timeout: 180000 });
    assert.deepEqual([...new Set(await page.evaluate(() => window.__seen))], [], `${nodes} nodes`);
    assert.deepEqual(page.problems, []);
    await page.close();
  }
});

test('chooser: 128 nodes of dgx-h100: the expected curve from the steady state, marked and explained, equal to `commlab predict --engine steady`, with no main-thread task over 200 ms; "simulate" runs a size by the flow engine beside it; the link reopens both', async ({ context, base }) => {
  const page = await openObserved(context, base, `${base}?view=chooser&lo=1048576&hi=1073741824&y=busbw`);
  await page.locator('#chooser-system').waitFor();
  await page.selectOption('#chooser-system', 'dgx-h100');
  await waitForUrl(page, () => /net=nodes%3A2x8(&|$)/.test(location.search));
  await page.locator('[data-testid="expected-table"]').waitFor({ state: 'attached', timeout: 120000 });
  // From here on: the change to 128 nodes and its expected curve.
  await page.waitForTimeout(500);
  await page.evaluate(() => { window.__longTasks = []; });
  const started = Date.now();
  await page.locator('#chooser-system-nodes').fill('128');
  await page.locator('#chooser-system-nodes').press('Enter');
  await waitForUrl(page, () => /net=nodes%3A128x8(&|$)/.test(location.search) && /[?&]p=1024(&|$)/.test(location.search));
  await page.locator('[data-testid="expected-steady"]').waitFor({ state: 'attached', timeout: 60000 });
  const took = Date.now() - started;
  await page.waitForFunction(() => /expected: 128 ×[\s\S]*dgx-h100/.test(document.querySelector('[data-testid="times-chart"]')?.innerHTML ?? ''), null, { timeout: 60000 });
  const { rows } = await steadyRows(page, 128, '(steady) simulate');
  assert.match(await page.locator('[data-testid="expected-steady"]').textContent(), /more than 128 ranks .* steady state/);
  // NCCL's gain among its own algorithms runs up to 8 nodes: past them the
  // 2-node run's progress must not go on showing.
  await page.waitForTimeout(1500);
  assert.doesNotMatch(await page.locator('[data-testid="crossovers"]').textContent(), /NCCL on \d+ ×/);
  const worst = await longest(page);
  console.log(`    main-thread tasks over 50 ms: ${JSON.stringify(await page.evaluate(() => window.__longTasks))}`);
  console.log(`    expected curve at 128 × dgx-h100 (${rows.length} sizes) in ${took} ms; longest main-thread task ${worst} ms`);
  // A frozen tab is what this guards against, at the 200 ms every other
  // view's guard uses. The 50 ms budget is measured, not asserted here
  // (BENCHMARKS.md): on the 2-core test machine most runs have no task over
  // 50 ms, some one of 50–78 ms, and a loaded CI machine has seen 105 ms.
  assert.ok(worst <= 200, `a main-thread task of ${worst} ms`);
  await page.locator('[data-testid="expected"] > summary').click();
  // "simulate": 1 MiB flow by flow in the worker, beside its steady value; the link keeps it.
  await page.locator('[data-testid="flow-1048576"]').click();
  await waitForUrl(page, () => /[?&]flow=1048576(&|$)/.test(location.search));
  const flowRow = JSON.parse(cli(['predict', '--system', 'dgx-h100', '--nodes', '128', '--bytes', '1048576', '--json'])).rows[0];
  const flowText = async (p) => {
    await p.waitForFunction(() => /^The flow engine at 1 MiB: [\d\s.]+ µs/.test(document.querySelector('[data-testid="expected-flow"]')?.textContent ?? ''), null, { timeout: 120000 });
    return p.locator('[data-testid="expected-flow"]').textContent();
  };
  const said = await flowText(page);
  const flowUs = Number(said.match(/^The flow engine at 1 MiB: ([\d\s.]+) µs/)[1].replace(/\s/g, ''));
  assert.equal(flowRow.engine, 'flow');
  assert.ok(Math.abs(flowUs - flowRow.time_us) <= 0.006 * flowRow.time_us, `${flowUs} vs ${flowRow.time_us}`);
  assert.match(said, /one run: these flows do not couple.* against the steady state's [\d\s.]+ µs \([+-]\d+\.\d %\)\.$/);
  await shot(page, 'chooser-steady-128-nodes');
  const again = await open(context, base, page.url());
  await again.locator('[data-testid="expected-steady"]').waitFor({ state: 'attached', timeout: 60000 });
  assert.equal(await flowText(again), said);
  for (const p of [page, again]) assert.deepEqual(p.problems, []);
});

test('chooser: 512 nodes of dgx-h100: the expected curve alone from the steady state, equal to `commlab predict --engine steady`; what simulates on the network is not shown; exports, the link and 4 nodes again', async ({ context, base }) => {
  const page = await openObserved(context, base, `${base}?view=chooser&lo=1048576&hi=1073741824&y=busbw`);
  await page.locator('#chooser-system').waitFor();
  await page.selectOption('#chooser-system', 'dgx-h100');
  await page.locator('[data-testid="expected-table"]').waitFor({ state: 'attached', timeout: 120000 });
  const algorithms = await page.locator('[data-testid^="alg-"]').evaluateAll((xs) => xs.map((x) => x.dataset.testid.slice(4)));
  await page.locator('#chooser-system-nodes').fill('512');
  await page.locator('#chooser-system-nodes').press('Enter');
  await waitForUrl(page, () => /[?&]far=512(&|$)/.test(location.search));
  await page.waitForFunction(() => /what 512 × dgx-h100 should reach/.test(document.querySelector('[data-testid="expected"] summary')?.textContent ?? ''), null, { timeout: 60000 });
  const { rows, cliRows } = await steadyRows(page, 512, '(steady)');
  // Nothing runs flow by flow at 512 nodes: no "simulate", and the note says so.
  assert.equal(await page.locator('[data-testid^="flow-"]').count(), 0);
  assert.match(await page.locator('[data-testid="expected-steady"]').textContent(), /Past 128 nodes nothing runs flow by flow/);
  // The chart is the expected curve alone, on the System's 4 096 ranks, in busbw.
  const chart = await page.locator('[data-testid="times-chart"]').innerHTML();
  assert.match(chart, /allreduce on p = 4096: the System's expected busbw \(its steady state\)/);
  assert.match(chart, /expected: 512 ×/);
  for (const id of algorithms) assert.ok(!chart.includes(`>${id}<`), `${id} drawn past the network`);
  // The network's one node stands behind it: its comparison, p, network and sections are not shown.
  assert.match(await page.locator('[data-testid="chooser-system-far"]').textContent(), /^512 × dgx-h100: nodes:512x8, p = 4096\. Past 128 nodes/);
  for (const hidden of ['#p', '[data-testid="chart-timing"]', '[data-testid="crossovers"]', '[data-testid="winner-map"]', '[data-testid="chooser-system-note"]', '[data-testid="alg-ring"]']) {
    assert.equal(await page.locator(hidden).first().isVisible(), false, `${hidden} shown past the network`);
  }
  // The exports are the expected curve's.
  const [csv] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-csv"]')]);
  const lines = fs.readFileSync(await csv.path(), 'utf8').trim().split('\n');
  assert.equal(lines[0], 'bytes,pick,engine,time_us,algbw_GBps,busbw_GBps');
  assert.equal(lines.length, 1 + cliRows.length);
  const last = lines.at(-1).match(/^(\d+),"[^"]+",steady,([\d.]+),([\d.]+),([\d.]+)$/);
  assert.ok(last, lines.at(-1));
  assert.equal(Number(last[1]), cliRows.at(-1).bytes);
  assert.ok(Math.abs(Number(last[4]) - cliRows.at(-1).busbw) <= 1e-6 * cliRows.at(-1).busbw, `${last[4]} vs ${cliRows.at(-1).busbw}`);
  await shot(page, 'chooser-512-nodes');
  // The link reopens it.
  const again = await open(context, base, page.url());
  await again.waitForFunction(() => document.querySelectorAll('[data-testid="expected-table"] tbody tr').length > 0, null, { timeout: 60000 });
  assert.equal(await again.locator('#chooser-system-nodes').inputValue(), '512');
  assert.deepEqual(await again.locator('[data-testid="expected-table"] tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent))), rows);
  // A size only the flow engine runs is named, as the CLI names it.
  await again.selectOption('#collective', 'broadcast');
  await again.waitForFunction(() => /only the flow engine runs it/.test(document.querySelector('[data-testid="expected-note"]')?.textContent ?? ''), null, { timeout: 60000 });
  // Past the steady engine's nodes: the range.
  await page.locator('#chooser-system-nodes').fill('2000');
  await page.locator('#chooser-system-nodes').press('Enter');
  assert.match(await page.locator('[data-testid="chooser-system-error"]').textContent(), /^Nodes: an integer from 1 to 1024 \(past 128, the System's expected curve alone/);
  // Back within the page's nodes the comparison returns.
  await page.locator('#chooser-system-nodes').fill('4');
  await page.locator('#chooser-system-nodes').press('Enter');
  await waitForUrl(page, () => /net=nodes%3A4x8(&|$)/.test(location.search) && /[?&]p=32(&|$)/.test(location.search) && !/far=/.test(location.search));
  await page.locator('#p').waitFor({ state: 'visible' });
  await page.locator('[data-testid="chooser-system-note"]').waitFor({ state: 'visible' });
  assert.equal(await page.locator('[data-testid="chooser-system-far"]').count(), 0);
  for (const p of [page, again]) assert.deepEqual(p.problems, []);
});

const filter = new RegExp(process.argv[2] ?? "");
// The whole suite runs with dist/ under a subpath, as documentation sites and
// project pages host it: an absolute asset URL would be a 404 (a console error).
const server = await serveDir(dist, '/commlab/');
const context = await launch();
let failed = 0;
for (const t of tests.filter((t) => filter.test(t.name))) {
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
    const last = context.pages().at(-1) ?? page;
    if (last) await shot(last, `FAILED-${t.name.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => {});
  }
  for (const p of context.pages()) await p.close();
}
await context.close();
server.close();
console.log(failed ? `${failed} browser test(s) failed` : `all browser tests passed; screenshots in ${artifacts}`);
process.exit(failed ? 1 : 0);

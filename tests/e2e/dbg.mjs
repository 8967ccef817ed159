import { serveDir, launch } from '/work/main/tests/e2e/harness.mjs';
const server = await serveDir('/work/main/dist', '/commlab/');
const ctx = await launch();
const page = await ctx.newPage();
await page.setViewportSize({ width: 390, height: 844 });
await page.goto(`${server.url}?${process.argv[2] || 'view=tree'}`);
await page.addStyleTag({ content: (await import('node:fs')).readFileSync('/work/main/web/style.css', 'utf8') }); await page.waitForTimeout(1500);
console.log(await page.evaluate((sel) => {
  const out = [];
  for (let e = document.querySelector(sel); e; e = e.parentElement) {
    const cs = getComputedStyle(e);
    out.push(`${e.tagName}.${e.getAttribute('class')} w=${Math.round(e.getBoundingClientRect().width)} ox=${cs.overflowX} disp=${cs.display} gtc=${cs.gridTemplateColumns}`);
  }
  return out.join('\n');
}, process.argv[3] || '.diagram svg'));
if (process.argv[4]) await page.screenshot({ path: process.argv[4], fullPage: true });
await ctx.close(); server.close();

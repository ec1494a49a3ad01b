// The demo page in headless Chromium: it loads without console errors, the
// engine runs in the page (threaded when isolated), the table shows the
// engine's own numbers (every row sums to 1, and they equal a direct call of
// the engine in Node on the same inputs), the head picker recomputes, and the
// page is usable at 390 px. Screenshots go to test-output/.
import { mkdirSync } from 'node:fs';
import { startServer } from '../../web/server.mjs';
import { createAttention } from '../../src/js/node.mjs';
import { embed, randomWeights } from '../../web/inputs.mjs';
import { TOKENS } from '../../web/sentence.mjs';
import { launchChromium, openPage } from './chromium.mjs';

let browser, server, url;

beforeAll(async () => {
  browser = await launchChromium();
  server = await startServer({ port: 0 });
  url = `http://127.0.0.1:${server.address().port}/`;
  mkdirSync('test-output', { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

const readTable = (page) =>
  page.$eval('table[data-head]', (table) => ({
    head: Number(table.dataset.head),
    cells: [...table.querySelectorAll('td[data-q]')].map((td) => [Number(td.dataset.q), Number(td.dataset.k), Number(td.dataset.weight)]),
  }));

test('the page computes the sentence with the engine and shows one head', async () => {
  const { page, problems } = await openPage(browser.context, url);
  await page.waitForSelector('table[data-head] td[data-weight]', { timeout: 30_000 });
  const status = await page.textContent('#status');
  expect(status).toMatch(/threaded-simd, \d+ threads/);

  const { head, cells } = await readTable(page);
  expect(head).toBe(0);
  expect(cells).toHaveLength(15 * 15);
  for (let q = 0; q < 15; q++) {
    const sum = cells.filter(([cq]) => cq === q).reduce((s, [, , w]) => s + w, 0);
    expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
  }

  // The same inputs the page builds, through the engine in Node (the same
  // simd arithmetic): the page shows exactly the engine's values.
  const seed = Number((await page.textContent('#setup')).match(/seed (\d+)/)[1]);
  const dModel = 32, numHeads = 4, dK = 8;
  const engine = await createAttention({ variant: 'simd' });
  const { attention } = await engine.multiHeadAttention({
    query: embed(TOKENS, dModel), seqLenQ: 15, dModel, numHeads,
    ...randomWeights({ seed, dModel, numHeads, dK, dV: dK, qkGain: 3 }), returnAttention: true,
  });
  engine.dispose();
  for (const [q, k, w] of cells) expect(w).toBe(attention[q * 15 + k]);

  await page.selectOption('#head', '2');
  await page.waitForFunction(() => document.querySelector('table[data-head]')?.dataset.head === '2');
  const two = await readTable(page);
  for (const [q, k, w] of two.cells) expect(w).toBe(attention[2 * 225 + q * 15 + k]);
  expect(new URL(page.url()).searchParams.get('head')).toBe('2');

  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.screenshot({ path: 'test-output/page-desktop.png', fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: 'test-output/page-390.png', fullPage: true });
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('a URL with a head and seed restores that view', async () => {
  const { page, problems } = await openPage(browser.context, `${url}?head=3&seed=7`);
  await page.waitForSelector('table[data-head="3"] td[data-weight]', { timeout: 30_000 });
  expect(await page.inputValue('#head')).toBe('3');
  expect(await page.textContent('#setup')).toMatch(/seed 7\b/);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

// What a reader can read at 390 px (issue 38 item 8), in headless Chromium:
// every text of the neuron view and of the evidence chart (after a short
// experiment, seeds 2 × 500 steps) drawn at 9 px or more on screen, a token's
// small number or role (a tspan, the heatmaps' 8 px index) at 8 px or more —
// an SVG shrunk to the screen scales its text: the vectors' feature names were
// 6.8 px, the chart's text ~7 px — and the MultiHead formula whole in its box
// (it scrolled W_O out of view). The page itself never scrolls sideways.
import { openPage, reveal, setUp, trainSectionReady } from './page-helpers.mjs';

let env;
beforeAll(async () => {
  env = await setUp({ locale: 'en-US' });
}, 60_000);
afterAll(async () => env?.close());

const LEAST_PX = 9;
/** A token's number or role, the heatmaps' index size (views/heatmap.mjs INDEX_FONT). */
const LEAST_INDEX_PX = 8;

/**
 * The smallest text on screen inside `selector`'s SVGs (its font size times the SVG's scale) — of the texts, and of
 * the tspans with a font size of their own (a token's number or role) — with the text.
 */
const smallestText = (page, selector) =>
  page.$$eval(`${selector} svg`, (svgs) => {
    const least = { text: { px: Infinity, text: '' }, index: { px: Infinity, text: '' } };
    for (const svg of svgs) {
      const shown = svg.getBoundingClientRect().width;
      const { width } = svg.viewBox.baseVal;
      if (!shown || !width) continue;
      for (const node of svg.querySelectorAll('text, tspan[font-size]')) {
        if (!node.textContent.trim() || !node.getBoundingClientRect().width) continue;
        const px = (parseFloat(getComputedStyle(node).fontSize) * shown) / width;
        const kind = node.tagName === 'text' ? 'text' : 'index';
        if (px < least[kind].px) least[kind] = { px, text: node.textContent };
      }
    }
    return least;
  });

function expectReadable(least) {
  expect(least.text.px).toBeGreaterThanOrEqual(LEAST_PX);
  if (least.index.text) expect(least.index.px).toBeGreaterThanOrEqual(LEAST_INDEX_PX);
}

const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test('the MultiHead formula wraps between its terms: W_O inside its box, nothing to scroll', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await reveal(page, '#pipeline');
    const box = await page.$eval('#pipeline .formula', (f) => {
      const outer = f.getBoundingClientRect();
      const wo = f.querySelector('button[data-stage="wo"]').getBoundingClientRect();
      return { scroll: f.scrollWidth - f.clientWidth, woRight: wo.right, right: outer.right, woWidth: wo.width };
    });
    expect(box.scroll).toBeLessThanOrEqual(0);
    expect(box.woWidth).toBeGreaterThan(0);
    expect(box.woRight).toBeLessThanOrEqual(box.right);
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('the neuron view: every label at 9 px or more (a token’s number 8), its vectors scrolling inside their box', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await reveal(page, '#neuron');
    expectReadable(await smallestText(page, '#neuron'));
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('the evidence chart after a short experiment: every text at 9 px or more', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await trainSectionReady(page);
    await page.locator('#train-start').scrollIntoViewIfNeeded();
    await page.fill('#train-seeds', '2');
    await page.selectOption('#train-steps', '500');
    await page.click('#train-start');
    await page.waitForSelector('.train-evidence circle.dot', { timeout: 120_000 });
    expectReadable(await smallestText(page, '.train-evidence'));
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await page.locator('.train-evidence').screenshot({ path: 'test-output/evidence-390.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 180_000);

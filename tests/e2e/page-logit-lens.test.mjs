// The logit lens in "Which heads matter" (views/logit-lens-view.mjs) in
// headless Chromium, against Node's mha-wasm/analysis logitLens on the same
// checkpoint and the page's build: a Llama in the real-model view (English,
// its last position, then another picked), a MarianMT's decoder in the
// translation view (Chinese, over its greedy translation): each row's layer,
// top ids, the final token's rank exactly; probabilities within 1e-12
// (Chromium's Math.exp may differ from Node's in the last bit); the sentences
// the page writes, as Node writes them from its own lens. At 390 px the table
// fits the screen without a sideways scroll and its tokens are at least 12 px.
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { logitLens } from '../../src/js/analysis/index.mjs';
import { lensSentences } from '../../web/model/logit-lens-text.mjs';
import { LENS_TOP_K } from '../../web/views/logit-lens-view.mjs';
import { inLanguage, loadModelFolder, openPage, setUp } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const TOLERANCE = 1e-12;
const section = '#real-model .heads-matter';

let env, engine;
beforeAll(async () => {
  env = await setUp({ locale: 'zh-CN' });
  engine = await createAttention(pageEngineOptions());
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

/** The lens table and sentences as the page shows them. */
const readLens = (page) =>
  page.$eval(`${section} .matter-lens`, (root) => {
    const table = root.querySelector('.lens-grid');
    return {
      position: Number(table.dataset.position),
      finalId: Number(table.dataset.finalId),
      rows: [...table.querySelectorAll('tbody tr')].map((r) => ({
        layer: Number(r.dataset.layer),
        rank: Number(r.dataset.rank),
        probability: Number(r.dataset.probability),
        top: [...r.querySelectorAll('.lens-chip')].map((c) => [Number(c.dataset.id), Number(c.dataset.probability)]),
      })),
      text: [...root.querySelectorAll('.lens-text li')].map((li) => li.textContent),
      trust: !root.querySelector('.lens-trust').hidden,
    };
  });

async function lensOnPage(page, position) {
  const ready = `${section} .matter-lens[data-ready]`;
  if (position === undefined) await page.click(`${section} .lens-run`);
  else {
    await page.$eval(`${section} .matter-lens`, (root) => delete root.dataset.ready);
    await page.selectOption(`${section} .lens-position`, String(position));
  }
  await page.waitForSelector(`${ready}, #real-error:not([hidden])`, { timeout: 60_000 });
  if (await page.isVisible('#real-error')) throw new Error(await page.textContent('#real-error'));
  return readLens(page);
}

function expectSame(shown, node, lang) {
  expect(shown.position).toBe(node.position);
  expect(shown.finalId).toBe(node.finalTop.id);
  expect(shown.rows.map((r) => [r.layer, r.rank, r.top.map(([id]) => id)])).toEqual(
    node.layers.map((l) => [l.layer, l.finalTop.rank, l.top.map((x) => x.id)]),
  );
  const far = [];
  shown.rows.forEach((r, i) => {
    const l = node.layers[i];
    if (Math.abs(r.probability - l.finalTop.probability) > TOLERANCE) far.push([i, 'final']);
    r.top.forEach(([, p], k) => Math.abs(p - l.top[k].probability) > TOLERANCE && far.push([i, k]));
  });
  expect(far).toEqual([]);
  expect(shown.text).toEqual(inLanguage(lang, () => lensSentences(node)));
  // A test checkpoint: the page says its layers' guesses mean nothing.
  expect(shown.trust).toBe(true);
}

test('a Llama in the real-model view (English): the lens table at the last position and another is Node’s', async () => {
  const { page, problems } = await openPage(env);
  try {
    await page.check('input[name="lang"][value="en"]');
    const model = await engine.loadModel(path.join('tests/fixtures/models', 'hf-llama'));
    await loadModelFolder(page, 'hf-llama');
    const text = await page.inputValue('#real-text');
    const last = await lensOnPage(page);
    const node = await logitLens(model, text, { topK: LENS_TOP_K });
    expect(last.rows).toHaveLength(model.config.numLayers + 1);
    expectSame(last, node, 'en');
    const other = await lensOnPage(page, 2);
    expectSame(other, await logitLens(model, text, { topK: LENS_TOP_K, position: 2 }), 'en');
    await page.locator(`${section} .matter-lens`).screenshot({ path: 'test-output/logit-lens-llama.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

test('a MarianMT in the translation view (Chinese): the decoder’s lens over its translation is Node’s', async () => {
  const { page, problems } = await openPage(env);
  try {
    const model = await engine.loadModel(path.join('tests/fixtures/models', 'hf-marian'));
    await loadModelFolder(page, 'hf-marian');
    const text = await page.inputValue('#real-text');
    const shown = await lensOnPage(page);
    const node = await logitLens(model, text, { topK: LENS_TOP_K });
    expect(shown.rows).toHaveLength(model.config.decoderLayers + 1);
    expectSame(shown, node, 'zh');
    const first = await lensOnPage(page, 0);
    expectSame(first, await logitLens(model, text, { topK: LENS_TOP_K, position: 0 }), 'zh');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

test('at 390 px the lens table fits the screen and its tokens are readable', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await loadModelFolder(page, 'hf-gpt2-lm');
    await lensOnPage(page);
    const fit = await page.$eval(`${section} .matter-lens`, (root) => {
      const scroll = root.querySelector('.table-scroll');
      const chip = root.querySelector('.lens-chip');
      return {
        overflow: scroll.scrollWidth - scroll.clientWidth,
        right: root.querySelector('.lens-grid').getBoundingClientRect().right,
        font: parseFloat(getComputedStyle(chip).fontSize),
      };
    });
    expect(fit.overflow).toBeLessThanOrEqual(0);
    expect(fit.right).toBeLessThanOrEqual(390);
    expect(fit.font).toBeGreaterThanOrEqual(12);
    await page.locator(`${section} .matter-lens`).screenshot({ path: 'test-output/logit-lens-390.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

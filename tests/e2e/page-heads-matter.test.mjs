// "哪些头真正重要 / Which heads matter" (views/heads-matter.mjs) in headless
// Chromium: a committed test checkpoint given to the real-model view's file
// picker, the button pressed, and the page's numbers against Node's run of
// the same analysis (mha-wasm/analysis: headImportance, then pruningCurve in
// its order) on the page's build: every grid cell's change, the curve's points
// (share off, heads off, score) and re-decoded outputs (ids and text), the
// first change marked in the chart and the table, and the sentences written
// from the numbers, in Chinese and in English. A decoder (hf-llama: its next
// token) in the real-model view, where a cell opens its head in the heatmap;
// a BERT (hf-bert-mlm: its fill of the [MASK] the fill's button puts in); a
// MarianMT (hf-marian: its greedy translation, three groups) in the
// translation view. The run is cancellable and holds the section's inputs;
// the random checkpoints are flagged as the page's notes flag them; at 390 px
// nothing scrolls sideways. Scores are compared within 1e-9 (Chromium's
// Math.exp and Math.log may differ from Node's in the last bit); ids exactly.
// Screenshots go to test-output/.
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { headImportance, pruningCurve } from '../../src/js/analysis/index.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { importanceSentences, outputKept, outputText } from '../../web/model/head-importance-text.mjs';
import { duEnglish, duSentence, firstDuChange } from '../../web/model/du-english.mjs';
import { setLanguage, t } from '../../web/lib/i18n.mjs';
import { analyseHeadsOnPage as analyseOnPage, loadModelFolder, openPage, setUp } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const TOLERANCE = 1e-9;
const close = (a, b) => Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(b));

let env, engine;
/** Node's analysis of a fixture on the sentence, as the page runs it (its default reference). */
const node = {};
async function analyse(name) {
  const model = await engine.loadModel(path.join('tests/fixtures/models', name));
  const importance = await headImportance(model, SENTENCE);
  const curve = await pruningCurve(model, SENTENCE, { importance });
  node[name] = {
    model,
    importance,
    curve,
    du: await duEnglish(model, SENTENCE, importance.reference),
  };
}

beforeAll(async () => {
  env = await setUp({ locale: 'zh-CN' });
  engine = await createAttention(pageEngineOptions());
  await analyse('hf-llama');
  await analyse('hf-marian');
}, 120_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

/** What the section shows: each grid cell, the curve's table rows and chart points, the sentences. */
const readSection = (page) =>
  page.$eval('#real-model .heads-matter', (root) => ({
    cells: [...root.querySelectorAll('.matter-grid button')].map((b) => ({
      group: b.dataset.group,
      layer: Number(b.dataset.layer),
      head: Number(b.dataset.head),
      delta: Number(b.dataset.delta),
    })),
    line: root.querySelector('.matter-curve-table').dataset.line,
    rows: [...root.querySelectorAll('.matter-curve-table tbody tr')].map((r) => ({
      fraction: Number(r.dataset.fraction),
      headsOff: Number(r.dataset.headsOff),
      score: Number(r.dataset.score),
      ids: r.cells[2].dataset.ids,
      output: r.cells[2].textContent,
      changed: r.dataset.changed === 'true',
      duChanged: r.dataset.duChanged === 'true',
    })),
    duMark: Boolean(root.querySelector('.matter-chart [data-mark="du"]')),
    points: [...root.querySelectorAll('.matter-chart circle[data-score]')].map((c) => ({
      score: Number(c.dataset.score),
      changed: c.dataset.changed === 'true',
    })),
    sentences: [...root.querySelectorAll('.matter-text li')].map((li) => li.textContent),
    trust: root.querySelector('.matter-trust').dataset.trust,
  }));

/** The section against Node's analysis, in the language `lang` the page shows. */
function expectNode(shown, { importance, curve, du = [] }, lang) {
  const cells = Object.entries(importance.groups).flatMap(([group, { delta, shape }]) =>
    Array.from(delta, (d, i) => ({ group, layer: Math.floor(i / shape[1]), head: i % shape[1], delta: d })),
  );
  expect(shown.cells.map(({ group, layer, head }) => [group, layer, head])).toEqual(
    cells.map(({ group, layer, head }) => [group, layer, head]),
  );
  expect(shown.cells.filter((c, i) => !close(c.delta, cells[i].delta))).toEqual([]);
  const points = curve.curves[shown.line];
  const { changed } = outputKept(points, importance.reference.outputIds);
  expect(shown.rows.map(({ fraction, headsOff, ids, output }) => ({ fraction, headsOff, ids, output }))).toEqual(
    points.map((p) => ({
      fraction: p.fraction,
      headsOff: p.headsOff,
      ids: Array.from(p.output.outputIds).join(' '),
      output: outputText(p.output),
    })),
  );
  expect(shown.rows.filter((r, i) => !close(r.score, points[i].score))).toEqual([]);
  expect(shown.rows.map((r) => r.changed)).toEqual(points.map((p, i) => i === changed));
  // A translation of the sentence: where its 毒's English first changes, in the table and on the chart.
  const duChanged = firstDuChange(points, importance.reference.outputIds, du);
  expect(shown.rows.map((r) => r.duChanged)).toEqual(points.map((p, i) => i === duChanged));
  expect(shown.duMark).toBe(duChanged >= 0);
  expect(shown.points.map((p) => p.changed)).toEqual(points.map((p, i) => i === changed));
  expect(shown.points.filter((p, i) => !close(p.score, points[i].score))).toEqual([]);
  setLanguage(lang);
  try {
    const sentences = importanceSentences(importance, points);
    if (du.length) sentences.push(duSentence(importance.reference, du, points, duChanged));
    expect(shown.sentences).toEqual(sentences.map((s) => s.text));
  } finally {
    setLanguage('en');
  }
}

/** The page's own flag on the checkpoint (the article's first note) as the section says it. */
const TRUST = { random: 'random', chance: 'random', unmeasured: 'unmeasured', predicts: 'trained' };

test('a decoder: the grid, the pruning curve and the sentences are Node’s, in both languages; a cell opens its head', async () => {
  const { page, problems } = await openPage(env);
  try {
    await loadModelFolder(page, 'hf-llama');
    expect(await page.isVisible('#real-model .heads-matter .matter-run')).toBe(true);
    // Busy: the section's inputs wait, and a cancel before the first pass leaves no result.
    const busy = await page.evaluate(() => {
      const root = document.querySelector('#real-model .heads-matter');
      root.querySelector('.matter-run').click();
      const during = {
        text: document.querySelector('#real-text').disabled,
        run: root.querySelector('.matter-run').disabled,
        cancel: root.querySelector('.matter-cancel').hidden,
      };
      root.querySelector('.matter-cancel').click();
      return during;
    });
    expect(busy).toEqual({ text: true, run: true, cancel: false });
    await page.waitForFunction(() => !document.querySelector('#real-text').disabled);
    expect(await page.isHidden('#real-model .matter-results')).toBe(true);
    setLanguage('zh');
    const cancelled = t('matter.cancelled');
    setLanguage('en');
    expect(await page.textContent('#real-model .matter-status')).toBe(cancelled);

    await analyseOnPage(page);
    const zh = await readSection(page);
    expect(zh.line).toBe('decoder');
    expectNode(zh, node['hf-llama'], 'zh');
    const note = await page.getAttribute('#real-model .real-article-notes li', 'data-note');
    expect(zh.trust).toBe(TRUST[note]);
    expect(zh.trust).not.toBe('trained');
    expect(await page.isEnabled('#real-text')).toBe(true);
    await page.locator('#real-model .heads-matter').screenshot({ path: 'test-output/heads-matter-decoder.png' });

    // A cell opens its head in the real-model view's heatmap.
    const cell = zh.cells.at(-1);
    await page.click(`#real-model .matter-grid button[data-layer="${cell.layer}"][data-head="${cell.head}"]`);
    await page.waitForSelector(`#real-model .real-heatmap .heatmap[data-head="layer-${cell.layer}-head-${cell.head}"]`);

    await page.check('input[name="lang"][value="en"]');
    const en = await readSection(page);
    expectNode(en, node['hf-llama'], 'en');
    expect(await page.textContent('#real-model .heads-matter h3')).toBe(t('matter.title'));
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

test('a translation model: the three groups and the curves are Node’s, in both languages, inside the translation view', async () => {
  const { page, problems } = await openPage(env);
  try {
    await loadModelFolder(page, 'hf-marian');
    expect(await page.locator('#real-model .mt .heads-matter').count()).toBe(1);
    await analyseOnPage(page);
    const shown = await readSection(page);
    expect(shown.line).toBe('all');
    expect([...new Set(shown.cells.map((c) => c.group))]).toEqual(['encoder', 'decoder', 'cross']);
    expectNode(shown, node['hf-marian'], 'zh');
    const note = await page.getAttribute('#real-model .mt-notes li', 'data-note');
    expect(shown.trust).toBe(TRUST[note]);
    // Another line: the cross-attention's heads alone.
    await page.selectOption('#real-model .matter-line', 'cross');
    const cross = await readSection(page);
    expect(cross.line).toBe('cross');
    expectNode(cross, node['hf-marian'], 'zh');
    // A cross head opens in the translation's attention views.
    await page.click('#real-model .matter-grid button[data-group="cross"][data-layer="1"][data-head="0"]');
    expect(await page.inputValue('#mt-group')).toBe('cross');
    expect(await page.inputValue('#mt-which')).toBe('head:1:0');
    await page.locator('#real-model .heads-matter').screenshot({ path: 'test-output/heads-matter-translation.png' });
    // In English: the same numbers, the groups and sentences said in English; the line chosen kept.
    await page.check('input[name="lang"][value="en"]');
    const en = await readSection(page);
    expect(en.line).toBe('cross');
    expectNode(en, node['hf-marian'], 'en');
    // Another text translated by the view's own button: the analysis of the old one is gone.
    await page.fill('#real-text', SENTENCE.split('，')[0]);
    await page.click('#mt-run button[type="submit"]');
    await page.waitForSelector('#real-model .heads-matter:not([data-ready])', { state: 'attached' });
    await page.waitForSelector('#real-model .mt[data-ready]', { state: 'attached' });
    await page.waitForFunction(() => !document.querySelector('#real-model .matter-run').disabled);
    expect(await page.isHidden('#real-model .matter-results')).toBe(true);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

test('a BERT: no [MASK], nothing to score; with one (the fill’s button), its fill’s grid and curve are Node’s, in both languages', async () => {
  const { page, problems } = await openPage(env);
  try {
    await loadModelFolder(page, 'hf-bert-mlm');
    expect(await page.isVisible('#real-model .heads-matter .matter-need')).toBe(true);
    expect(await page.isDisabled('#real-model .heads-matter .matter-run')).toBe(true);
    await page.click('#pred-action');
    await page.waitForSelector('#real-model .heads-matter .matter-need[hidden]', { state: 'attached' });
    await page.waitForSelector('#real-model[data-ready]');
    const text = await page.inputValue('#real-text');
    const model = await engine.loadModel('tests/fixtures/models/hf-bert-mlm');
    const importance = await headImportance(model, text);
    const curve = await pruningCurve(model, text, { importance });
    await analyseOnPage(page);
    const shown = await readSection(page);
    expect(shown.line).toBe('encoder');
    expectNode(shown, { importance, curve }, 'zh');
    await page.check('input[name="lang"][value="en"]');
    expectNode(await readSection(page), { importance, curve }, 'en');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

test('390 px: the section never makes the page scroll sideways', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await loadModelFolder(page, 'hf-marian');
    await analyseOnPage(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    const box = await page.locator('#real-model .matter-chart svg').boundingBox();
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await page.locator('#real-model .heads-matter').screenshot({ path: 'test-output/heads-matter-390.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

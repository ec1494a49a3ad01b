// The page's real translation (真实翻译, views/translation.mjs) in headless
// Chromium: the tiny MarianMT checkpoint transformers saved
// (tests/fixtures/models/hf-marian) given to the real-model view's file
// picker translates the sentence in the page; the English, the beams and
// their scores are Node's generate() of the same folder; the cross-attention
// heatmap's cells are Node's, bit for bit (the mean of every head, then a
// head clicked in the grid); the six 毒 get a column each; the decoder's
// masked cells are 0; heads switched off (head 0 of every layer only)
// never replace the translation with every head (main output, beams) and the
// maps say which run they draw; heads off in a group not shown are named; the
// status and the comparison count the same tokens; heads switched off
// translate as Node does with that head mask; in English every text is
// written again; a random checkpoint is never called real (the view flags it,
// and lists the source pieces the encoder read); at 390 px nothing scrolls
// sideways; the cross-attention's label (who looks at whom) is the
// catalogue's, zh and en; no console errors.
// Screenshots go to test-output/.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { crossWeights, presetMask, specialFlags } from '../../web/model/translation.mjs';
import { translationNotes } from '../../web/model/translation-notes.mjs';
import { t } from '../../web/lib/i18n.mjs';
import { inLanguage, openPage, readHeatmaps, setUp } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const FOLDER = 'tests/fixtures/models/hf-marian';
const FILES = readdirSync(FOLDER)
  .filter((name) => !['reference.json', 'tokenizer-cases.json'].includes(name))
  .map((name) => path.join(FOLDER, name));

let env, engine, model, translation;
beforeAll(async () => {
  env = await setUp({ locale: 'zh-CN' });
  // The page's engine: its build on the isolated page, as Node's here.
  engine = await createAttention(pageEngineOptions());
  model = await engine.loadModel(FOLDER);
  translation = await model.generate(SENTENCE, { numBeams: 4, numReturnSequences: 4, returnAttention: true });
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

async function load(page) {
  await page.locator('#real-model').scrollIntoViewIfNeeded();
  await page.setInputFiles('#real-files', FILES);
  await page.waitForSelector('#real-model[data-ready], #real-error:not([hidden])', { timeout: 30_000 });
}

/** The one heatmap of the translation view: its name and cells. */
async function heatmap(page) {
  const maps = await readHeatmaps(page, '#real-model .mt-heatmap');
  const [name] = Object.keys(maps);
  return { name, cells: maps[name] };
}

/** The cross-attention's label in the attention and the heads-off menus: who looks at whom, in `lang`. */
async function expectCrossLabel(page, lang) {
  const labels = await page.$$eval('#mt-group option[value="cross"], #mt-mask-group option[value="cross"]', (o) =>
    o.map((option) => option.textContent),
  );
  const want = inLanguage(lang, () => t('mt.group.cross'));
  expect(labels).toEqual([want, want]);
}

const mismatches = (cells, weights, S) => cells.filter(([q, k, w]) => !Object.is(w, weights[q * S + k]));

test('a translation model translates the sentence in the page, with Node’s numbers', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page);
    expect(await page.isHidden('#real-error')).toBe(true);
    expect(await page.isVisible('#real-model .mt')).toBe(true);
    expect(await page.isHidden('#real-model .real-body')).toBe(true);
    expect(await page.textContent('#real-model .mt-output')).toBe(translation.text);
    const beams = await page.$$eval('#real-model .mt-candidates li', (items) => items.map((li) => li.textContent));
    expect(beams).toHaveLength(4);
    translation.candidates.forEach((c, i) => {
      expect(beams[i]).toContain(c.text);
      expect(beams[i]).toContain(c.score.toFixed(3));
    });
    expect(await page.textContent('#mt-status')).toContain(`得分 ${translation.score.toFixed(3)}`);

    // A random test checkpoint is never called real: the view flags it as the other views do (its heads, measured,
    // or that nothing measured says it was trained), and lists the source's pieces as the encoder read them.
    const mt = await page.textContent('#real-model .mt');
    expect(mt).not.toMatch(/真实的翻译模型|不是示意/);
    const notes = await page.$$eval('#real-model .mt-notes li', (items) =>
      items.map((li) => ({ kind: li.dataset.note, warning: li.classList.contains('warning'), text: li.textContent })),
    );
    const flag = translationNotes(translation);
    expect(notes.map((n) => n.kind)).toEqual([flag.kind, 'source']);
    expect(['random', 'unmeasured']).toContain(flag.kind);
    expect(notes[0].warning).toBe(true);
    expect(notes[1].text).toContain(`${translation.inputTokens.length} 个片段`);
    expect(notes[1].text).toContain(translation.inputTokens.map((p) => `「${p}」`).join(''));

    // The cross-attention: every head's mean first, then one head from the grid, as Node computes them.
    const S = translation.inputIds.length;
    const cross = translation.attentions.cross;
    const T = cross.shape[2];
    await expectCrossLabel(page, 'zh');
    let shown = await heatmap(page);
    expect(shown.name).toBe('mt-cross-mean');
    expect(shown.cells).toHaveLength(T * S);
    expect(mismatches(shown.cells, crossWeights(cross, 'mean'), S)).toEqual([]);
    expect(await page.locator('#real-model .mt-grid canvas').count()).toBe(cross.shape[0] * cross.shape[1]);
    await page.click('#real-model .mt-grid .thumb[data-layer="1"][data-head="2"]');
    await page.waitForSelector('#real-model .mt-heatmap .heatmap[data-head="mt-cross-head-1-2"]');
    shown = await heatmap(page);
    expect(mismatches(shown.cells, crossWeights(cross, { layer: 1, head: 2 }), S)).toEqual([]);
    // Where each English token looks among the six 毒: a column each, a row per English token.
    const du = await page.$$eval('#real-model .mt-du-table thead th', (ths) => ths.map((th) => th.textContent));
    expect(du.slice(1, 7)).toEqual([
      '毒1（名词）',
      '毒2（动词）',
      '毒3（修饰语）',
      '毒6（修饰语）',
      '毒12（名词）',
      '毒13（动词）',
    ]);

    // The decoder's masked self-attention: nothing above the diagonal.
    await page.selectOption('#mt-group', 'decoder');
    await page.waitForSelector('#real-model .mt-heatmap .heatmap[data-head="mt-decoder-mean"]');
    const decoder = await heatmap(page);
    expect(decoder.cells.filter(([q, k, w]) => k > q && w !== 0)).toEqual([]);
    await page.selectOption('#mt-group', 'cross');

    // Heads switched off: head 0 of every layer of every kind only, translated again as Node does.
    await page.selectOption('#mt-mask-preset', 'only:0');
    await page.click('#mt-mask-run');
    // (The masked translation grows in the comparison first; the comparison's sentence ends the run.)
    await page.waitForFunction(() =>
      /保留 \d+ \/ \d+ 个头时/.test(document.querySelector('#real-model .mt-compare').textContent),
    );
    const c = model.config;
    const masked = await model.generate(SENTENCE, {
      numBeams: 4,
      numReturnSequences: 4,
      headMask: {
        encoder: presetMask({ layers: c.numLayers, heads: c.numHeads }, { only: 0 }),
        decoder: presetMask({ layers: c.decoderLayers, heads: c.decoderHeads }, { only: 0 }),
        cross: presetMask({ layers: c.decoderLayers, heads: c.decoderHeads }, { only: 0 }),
      },
    });
    // The translation with every head stays the main output, its beams the beams; the masked one is in the
    // comparison, and the maps say they are of it.
    expect(await page.textContent('#real-model .mt-output')).toBe(translation.text);
    expect(await page.$$eval('#real-model .mt-candidates li', (items) => items.length)).toBe(4);
    expect(await page.textContent('#real-model .mt-shown')).toContain('关掉头之后的翻译（保留 6 / 24 个头）');
    expect(await page.getAttribute('#real-model .mt-shown', 'class')).toContain('warning');
    const compare = await page.textContent('#real-model .mt-compare');
    expect(compare).toContain(`保留 6 / 24 个头时：“${masked.text}”`);
    expect(compare).toContain(`“${translation.text}”`);
    // The head switched off looks nowhere: its thumbnails are blank, its cells 0.
    await page.click('#real-model .mt-grid .thumb[data-layer="0"][data-head="1"]');
    await page.waitForSelector('#real-model .mt-heatmap .heatmap[data-head="mt-cross-head-0-1"]');
    expect((await heatmap(page)).cells.every(([, , w]) => w === 0)).toBe(true);

    await page.evaluate(() => (document.querySelector('.toolbar').style.position = 'static'));
    await page.locator('#real-model .mt').screenshot({ path: 'test-output/real-translation.png' });
    // In English: the view's texts written again.
    await page.check('input[name="lang"][value="en"]');
    await page.waitForFunction(() => document.querySelector('#mt-title').textContent === 'Real translation');
    expect(await page.textContent('#mt-status')).toMatch(
      /tokens \(special ones such as the end token not counted\) in \d+ ms, beam search over 4 beams/,
    );
    expect(await page.textContent('#real-model .mt')).not.toMatch(/real translation model/);
    expect(await page.textContent('#real-model .mt-notes li[data-note="source"]')).toContain('pieces');
    await expectCrossLabel(page, 'en');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 90_000);

test('heads off never hide: a group switched off and not shown is named; one count of tokens everywhere', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page);
    await page.waitForSelector('#real-model .mt[data-ready]');
    // The status counts the tokens the translation produced, the end token not counted …
    const produced = specialFlags(model.specialTokens, translation.outputIds.subarray(1)).filter((f) => !f).length;
    expect(await page.textContent('#mt-status')).toMatch(new RegExp(`^${produced} 个词元（不算结束符等特殊词元）`));
    expect(await page.textContent('#real-model .mt-shown')).toBe('下面的注意力图来自全部头的翻译（上面那一句）。');
    // … heads off in the encoder, then the cross-attention shown: the encoder's switches are named, not hidden.
    await page.selectOption('#mt-mask-group', 'encoder');
    await page.selectOption('#mt-mask-preset', 'only:0');
    expect(await page.locator('#real-model .mt-mask-elsewhere').count()).toBe(0);
    await page.selectOption('#mt-mask-group', 'cross');
    expect(await page.textContent('#real-model .mt-mask-elsewhere')).toBe(
      '注意：你没在看的编码器自注意力（中文）也关掉了头，翻译时一并关掉。',
    );
    await page.click('#mt-mask-run');
    await page.waitForFunction(() =>
      /保留 \d+ \/ \d+ 个头时/.test(document.querySelector('#real-model .mt-compare').textContent),
    );
    // … and the comparison counts the same tokens as the status (it counted one fewer, skipping the first word).
    const compare = await page.textContent('#real-model .mt-compare');
    expect(compare).toContain(`它的 ${produced} 个词元中有`);
    expect(await page.textContent('#real-model .mt-output')).toBe(translation.text);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 90_000);

test('390 px: the translation view never scrolls the page sideways', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await load(page);
    expect(await page.textContent('#real-model .mt-output')).toBe(translation.text);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.locator('#real-model .mt').screenshot({ path: 'test-output/real-translation-390.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

// The real-model heatmap's switch between attention weights and norm-weighted
// attention (views/measure-toggle.mjs, views/model-head.mjs; Kobayashi et al.
// 2020) in headless Chromium: with the switch on, every cell of the chosen
// head is α_ij·‖f_h(x_j)‖ computed here from Node's run() of the same build
// (attention × headOutputs' valueNorms, multiplied in this file, exactly);
// off again, the weights themselves. A decoder (hf-llama, causal) and a BERT
// (hf-bert-mlm); in the translation view (hf-marian), each group's head and
// the mean of every head: generate()'s weights (the map the view draws) times
// the valueNorms of a run over the ids generate() fed back; the
// reason written in Chinese and English, citing the paper;
// at 390 px the switch makes nothing scroll sideways.
import { createAttention } from '../../src/js/node.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { setLanguage, t } from '../../web/lib/i18n.mjs';
import { loadModelFolder, openPage, readHeatmaps, setUp } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

let env, engine;
beforeAll(async () => {
  env = await setUp({ locale: 'zh-CN' });
  engine = await createAttention(pageEngineOptions());
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

const MAP = '#real-model .real-heatmap';
const TOGGLE = '#real-model .measure-toggle';

/** The shown head's cells, its name and measure. */
async function shownHead(page) {
  const maps = await readHeatmaps(page, MAP);
  const [[name, cells]] = Object.entries(maps);
  const [, layer, head] = name.match(/^layer-(\d+)-head-(\d+)$/).map(Number);
  const measure = await page.getAttribute(`${MAP} .heatmap`, 'data-measure');
  return { layer, head, cells, measure };
}

/** Node's run: the weights and α·‖f(x)‖ of one head, as [[q, k, value], …]. */
function expected(run, group, layer, head, norm) {
  const { data, shape } = run.attentions[group];
  const [, H, L] = shape;
  const norms = run.headOutputs[group].valueNorms.data;
  const out = [];
  for (let q = 0; q < L; q++)
    for (let k = 0; k < L; k++) {
      const a = data[((layer * H + head) * L + q) * L + k];
      out.push([q, k, norm ? a * norms[(layer * H + head) * L + k] : a]);
    }
  return out;
}

test.each([
  ['hf-llama', 'decoder'],
  ['hf-bert-mlm', 'encoder'],
])(
  '%s: the switch shows α·‖f(x)‖ of Node’s run, and back the weights',
  async (name, group) => {
    const { page, problems } = await openPage(env);
    try {
      await loadModelFolder(page, name);
      const model = await engine.loadModel(`tests/fixtures/models/${name}`);
      const run = await model.run(SENTENCE, { returnAttention: true, returnHeadOutputs: true });
      const before = await shownHead(page);
      expect(before.measure).toBe('weight');
      expect(before.cells).toEqual(expected(run, group, before.layer, before.head, false));
      await page.check(`${TOGGLE} input[value="norm"]`);
      const norm = await shownHead(page);
      expect([norm.layer, norm.head, norm.measure]).toEqual([before.layer, before.head, 'norm']);
      expect(norm.cells).toEqual(expected(run, group, norm.layer, norm.head, true));
      // Not the weights again: the norms differ from 1.
      expect(norm.cells).not.toEqual(before.cells);
      setLanguage('zh');
      const caption = t('measure.desc', norm);
      setLanguage('en');
      expect(await page.textContent(`${MAP} figcaption`)).toBe(caption);
      // Another head keeps the measure.
      const other = { layer: 1, head: (before.head + 1) % model.config.numHeads };
      await page.click(`#real-model .real-grid [data-layer="${other.layer}"][data-head="${other.head}"]`);
      await page.waitForSelector(`${MAP} .heatmap[data-head="layer-${other.layer}-head-${other.head}"]`);
      const next = await shownHead(page);
      expect(next.measure).toBe('norm');
      expect(next.cells).toEqual(expected(run, group, other.layer, other.head, true));
      await page.check(`${TOGGLE} input[value="weight"]`);
      expect((await shownHead(page)).cells).toEqual(expected(run, group, other.layer, other.head, false));
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  },
  90_000,
);

test('the reason, in both languages, cites Kobayashi et al. 2020; 390 px scrolls nothing sideways', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await loadModelFolder(page, 'hf-llama');
    const read = () =>
      page.$eval(TOGGLE, (f) => ({ why: f.querySelector('.measure-why').textContent, text: f.textContent }));
    const zh = await read();
    setLanguage('zh');
    const wantZh = t('measure.why').replace(/<[^>]+>/g, '');
    setLanguage('en');
    expect(zh.why).toBe(wantZh);
    expect(zh.why).toContain('Kobayashi et al. 2020');
    await page.check('input[name="lang"][value="en"]');
    const en = await read();
    expect(en.why).toBe(t('measure.why'));
    expect(en.text).toContain(t('measure.norm'));
    await page.check(`${TOGGLE} input[value="norm"]`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.locator('#real-model .real-selected').screenshot({ path: 'test-output/norm-weighted-390.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 90_000);

test('a translation model: the translation view’s heatmaps switch to α·‖f(x)‖ of Node’s run, a head and the mean', async () => {
  const { page, problems } = await openPage(env);
  try {
    await loadModelFolder(page, 'hf-marian');
    const model = await engine.loadModel('tests/fixtures/models/hf-marian');
    const numBeams = Number(await page.inputValue('#mt-beams'));
    const g = await model.generate(SENTENCE, { numBeams, numReturnSequences: numBeams, returnAttention: true });
    const fed = g.outputIds.subarray(0, g.outputIds.length - 1);
    const run = await model.run(
      { inputIds: g.inputIds, decoderInputIds: fed },
      { returnAttention: false, returnHeadOutputs: true },
    );
    const TOGGLE_MT = '#real-model .mt .measure-toggle';
    await page.check(`${TOGGLE_MT} input[value="norm"]`);
    const read = async () => {
      const maps = await readHeatmaps(page, '#real-model .mt');
      const [[name, cells]] = Object.entries(maps).filter(([n]) => n.startsWith('mt-'));
      return { name, cells };
    };
    for (const group of ['cross', 'encoder', 'decoder']) {
      await page.selectOption('#mt-group', group);
      await page.selectOption('#mt-which', 'head:1:2');
      await page.waitForSelector(`#real-model .mt .heatmap[data-head="mt-${group}-head-1-2"][data-measure="norm"]`);
      const { data, shape } = g.attentions[group];
      const [, H, R, C] = shape;
      const norms = run.headOutputs[group].valueNorms.data;
      const want = [];
      for (let q = 0; q < R; q++)
        for (let k = 0; k < C; k++) want.push([q, k, data[((1 * H + 2) * R + q) * C + k] * norms[(1 * H + 2) * C + k]]);
      expect((await read()).cells).toEqual(want);
    }
    // The mean of every head's α·‖f(x)‖, cross-attention.
    await page.selectOption('#mt-group', 'cross');
    await page.selectOption('#mt-which', 'mean');
    await page.waitForSelector('#real-model .mt .heatmap[data-head="mt-cross-mean"][data-measure="norm"]');
    const { data, shape } = g.attentions.cross;
    const [L, H, R, C] = shape;
    const norms = run.headOutputs.cross.valueNorms.data;
    const shown = (await read()).cells;
    let worst = 0;
    shown.forEach(([q, k, v]) => {
      let sum = 0;
      for (let l = 0; l < L; l++)
        for (let h = 0; h < H; h++) sum += data[((l * H + h) * R + q) * C + k] * norms[(l * H + h) * C + k];
      worst = Math.max(worst, Math.abs(v - sum / (L * H)));
    });
    expect(shown).toHaveLength(R * C);
    expect(worst).toBeLessThan(1e-12);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 90_000);

// "Which heads matter" beyond the grid and the curve (views/fewer-heads.mjs,
// views/head-detail.mjs) in headless Chromium, against Node's run of the same
// package on the page's build: "one head per layer" (oneHeadPerLayer's
// per-layer scores, then withHeadsOff with every layer reduced at once — Node
// lets it generate its reference, the page gives the analysis' own: the same
// numbers say the shortcut changes nothing), "only the most important head"
// (each group's, and a translation model's single head per group at once),
// and a clicked head: what it writes (run()'s valueNorms, exactly) and the
// output without it (withHeadsOff with that head off; its delta the grid's);
// attention rollout (attentionRollout: each group's map after each layer, the
// values exactly Node's; what is rolled, and that the cross-attention is not,
// said in the page's language).
// A MarianMT in the translation view (Chinese), a Llama in the real-model
// view (English), a BERT on its [MASK] fill (Chinese, then English); rollout
// of a MarianMT, a BERT and a Qwen2 (a decoder: causal, its upper triangle
// drawn masked). Scores within 1e-9 (Chromium's Math.exp and Math.log may
// differ from Node's in the last bit); ids and texts exactly.
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { attentionRollout, headImportance, oneHeadPerLayer, withHeadsOff } from '../../src/js/analysis/index.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import {
  headOffMask,
  headOffSentence,
  headWrites,
  oneHeadMask,
  oneHeadSentence,
  singleSentences,
  writesSentence,
} from '../../web/model/fewer-heads-text.mjs';
import { t } from '../../web/lib/i18n.mjs';
import { analyseHeadsOnPage, inLanguage, loadModelFolder, openPage, readHeatmaps, setUp } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

const TOLERANCE = 1e-9;
const close = (a, b) => Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(b));
const ids = (a) => Array.from(a).join(' ');

let env, engine;
beforeAll(async () => {
  env = await setUp({ locale: 'zh-CN' });
  engine = await createAttention(pageEngineOptions());
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

const section = '#real-model .heads-matter';

/** The two buttons pressed, their results read. */
async function fewerOnPage(page) {
  await page.click(`${section} .matter-few-layers-run`);
  await page.waitForSelector(`${section} .matter-few-layers:not([hidden])`, { timeout: 60_000 });
  await page.click(`${section} .matter-few-single-run`);
  await page.waitForSelector(`${section} .matter-few-single:not([hidden])`, { timeout: 60_000 });
  return readFewer(page);
}

/** What the two buttons' results show. */
function readFewer(page) {
  return page.$eval(section, (root) => {
    const text = root.querySelector('.matter-few-layers-text');
    return {
      layers: [...root.querySelectorAll('.matter-few-table tbody tr')].map((r) => ({
        group: r.dataset.group,
        layer: Number(r.dataset.layer),
        head: Number(r.dataset.head),
        score: Number(r.dataset.score),
      })),
      all: { score: Number(text.dataset.score), ids: text.dataset.ids, text: text.textContent },
      single: [...root.querySelectorAll('.matter-few-single li')].map((li) => ({
        group: li.dataset.group,
        head: li.dataset.head === undefined ? null : [Number(li.dataset.layer), Number(li.dataset.head)],
        score: Number(li.dataset.score),
        ids: li.dataset.ids,
        text: li.textContent,
      })),
    };
  });
}

/** Node's fewer heads on `text`, as the page runs them (withHeadsOff generating its own reference). */
async function fewerInNode(model, importance, lang, text = SENTENCE) {
  const one = await oneHeadPerLayer(model, text, { importance });
  const mask = oneHeadMask(one.layers, importance.groups);
  const off = await withHeadsOff(model, text, { headMask: mask });
  const singles = [...Object.entries(one.single), ...(one.singleAll ? [['all', one.singleAll]] : [])];
  return inLanguage(lang, () => ({
    layers: Object.entries(one.layers).flatMap(([group, layers]) => layers.map((l) => ({ group, ...l }))),
    all: { score: off.score, ids: ids(off.output.outputIds), text: oneHeadSentence(off, mask) },
    single: singles.map(([group, s], i) => ({
      group,
      head: s.head === undefined ? null : [s.layer, s.head],
      score: s.score,
      ids: ids(s.output.outputIds),
      text: singleSentences(one)[i],
    })),
  }));
}

function expectFewer(shown, node) {
  expect(shown.layers.map(({ group, layer, head }) => [group, layer, head])).toEqual(
    node.layers.map(({ group, layer, head }) => [group, layer, head]),
  );
  expect(shown.layers.filter((l, i) => !close(l.score, node.layers[i].score))).toEqual([]);
  expect(close(shown.all.score, node.all.score)).toBe(true);
  expect([shown.all.ids, shown.all.text]).toEqual([node.all.ids, node.all.text]);
  expect(shown.single.map(({ group, head, ids: i, text }) => ({ group, head, ids: i, text }))).toEqual(
    node.single.map(({ group, head, ids: i, text }) => ({ group, head, ids: i, text })),
  );
  expect(shown.single.filter((s, i) => !close(s.score, node.single[i].score))).toEqual([]);
}

/** A grid cell clicked: the head's detail, read. */
async function headOnPage(page, { group, layer, head }) {
  await page.click(`${section} .matter-grid button[data-group="${group}"][data-layer="${layer}"][data-head="${head}"]`);
  const detail = `${section} .matter-head[data-group="${group}"][data-layer="${layer}"][data-head="${head}"]`;
  await page.waitForSelector(`${detail}:not([hidden])`, { timeout: 60_000 });
  return page.$eval(detail, (root) => {
    const off = root.querySelector('.matter-head-off');
    return {
      delta: Number(off.dataset.delta),
      ids: off.dataset.ids,
      off: off.textContent,
      writes: [...root.querySelectorAll('.matter-writes tbody tr')].map((r) => [
        r.cells[1].textContent,
        Number(r.dataset.norm),
      ]),
      writesText: root.querySelector('.matter-writes-text').textContent,
    };
  });
}

async function headInNode(model, importance, which, lang) {
  const kind = model.config.kind;
  const run = await model.run(
    kind === 'encoder-decoder' ? { text: SENTENCE, decoderInputIds: importance.reference.outputIds } : SENTENCE,
    { returnAttention: false, returnHeadOutputs: true },
  );
  const off = await withHeadsOff(model, SENTENCE, { headMask: headOffMask(importance.groups, which) });
  const rows = headWrites(run, which);
  const { delta, shape } = importance.groups[which.group];
  // Its delta is the grid's: one head off, scored the same way.
  expect(close(off.delta, delta[which.layer * shape[1] + which.head])).toBe(true);
  return inLanguage(lang, () => ({
    delta: off.delta,
    ids: ids(off.output.outputIds),
    off: headOffSentence(off, which),
    writes: rows.map((r) => [r.token, r.norm]),
    writesText: writesSentence(rows),
  }));
}

function expectHead(shown, node) {
  expect(close(shown.delta, node.delta)).toBe(true);
  expect({ ...shown, delta: 0 }).toEqual({ ...node, delta: 0 });
}

test('a translation model: one head per layer, the most important head, and a cross head’s detail, as Node’s', async () => {
  const { page, problems } = await openPage(env);
  try {
    const model = await engine.loadModel(path.join('tests/fixtures/models', 'hf-marian'));
    const importance = await headImportance(model, SENTENCE);
    await loadModelFolder(page, 'hf-marian');
    await analyseHeadsOnPage(page);
    const shown = await fewerOnPage(page);
    expect([...new Set(shown.layers.map((l) => l.group))]).toEqual(['encoder', 'decoder', 'cross']);
    expect(shown.single.map((s) => s.group)).toEqual(['encoder', 'decoder', 'cross', 'all']);
    expectFewer(shown, await fewerInNode(model, importance, 'zh'));
    for (const which of [
      { group: 'cross', layer: 1, head: 2 },
      { group: 'encoder', layer: 0, head: 1 },
    ]) {
      const head = await headOnPage(page, which);
      expect(head.writes.length).toBe(importance.reference.inputIds.length);
      expectHead(head, await headInNode(model, importance, which, 'zh'));
    }
    await page.locator(section).screenshot({ path: 'test-output/heads-matter-more-translation.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 180_000);

test('a decoder, in English: the same three, as Node’s; a new analysis forgets them', async () => {
  const { page, problems } = await openPage(env);
  try {
    await page.check('input[name="lang"][value="en"]');
    const model = await engine.loadModel(path.join('tests/fixtures/models', 'hf-llama'));
    const importance = await headImportance(model, SENTENCE);
    await loadModelFolder(page, 'hf-llama');
    await analyseHeadsOnPage(page);
    const shown = await fewerOnPage(page);
    expect(shown.single.map((s) => s.group)).toEqual(['decoder']);
    expectFewer(shown, await fewerInNode(model, importance, 'en'));
    const which = { group: 'decoder', layer: 1, head: 3 };
    expectHead(await headOnPage(page, which), await headInNode(model, importance, which, 'en'));
    await analyseHeadsOnPage(page);
    expect(await page.isHidden(`${section} .matter-few-layers`)).toBe(true);
    expect(await page.isHidden(`${section} .matter-head`)).toBe(true);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 180_000);

test('an encoder (a BERT, on its [MASK] fill): one head per layer and the most important head, as Node’s, in both languages', async () => {
  const { page, problems } = await openPage(env);
  try {
    const model = await engine.loadModel(path.join('tests/fixtures/models', 'hf-bert-mlm'));
    await loadModelFolder(page, 'hf-bert-mlm');
    await page.click('#pred-action');
    await page.waitForSelector(`${section} .matter-need[hidden]`, { state: 'attached' });
    await page.waitForSelector('#real-model[data-ready]');
    const text = await page.inputValue('#real-text');
    const importance = await headImportance(model, text);
    await analyseHeadsOnPage(page);
    const shown = await fewerOnPage(page);
    expect([...new Set(shown.layers.map((l) => l.group))]).toEqual(['encoder']);
    expect(shown.single.map((s) => s.group)).toEqual(['encoder']);
    expectFewer(shown, await fewerInNode(model, importance, 'zh', text));
    // The language changed: the same results, said again.
    await page.check('input[name="lang"][value="en"]');
    expectFewer(await readFewer(page), await fewerInNode(model, importance, 'en', text));
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

/** The rollout button pressed; each group and layer chosen in turn: { [group]: { [layer]: [[q, k, value], …] } }. */
async function rolloutOnPage(page) {
  await page.click(`${section} .matter-rollout-run`);
  await page.waitForSelector(`${section} .matter-rollout-map .heatmap, #real-error:not([hidden])`, { timeout: 60_000 });
  if (await page.isVisible('#real-error')) throw new Error(await page.textContent('#real-error'));
  const groups = await page.$$eval(`${section} .matter-rollout-group option`, (o) => o.map((x) => x.value));
  const shown = {};
  for (const group of groups) {
    if (groups.length > 1) await page.selectOption(`${section} .matter-rollout-group`, group);
    const layers = await page.$$eval(`${section} .matter-rollout-layer option`, (o) => o.map((x) => x.value));
    shown[group] = {};
    for (const layer of layers) {
      await page.selectOption(`${section} .matter-rollout-layer`, layer);
      const maps = await readHeatmaps(page, `${section} .matter-rollout-map`);
      shown[group][layer] = maps[`rollout-${group}-${layer}`];
    }
  }
  return shown;
}

function rolloutInNode(r) {
  return Object.fromEntries(
    Object.entries(r.groups).map(
      ([
        group,
        {
          data,
          shape: [layers, L],
        },
      ]) => [
        group,
        Object.fromEntries(
          Array.from({ length: layers }, (_, l) => [
            String(l),
            Array.from({ length: L * L }, (_, i) => [Math.floor(i / L), i % L, data[l * L * L + i]]),
          ]),
        ),
      ],
    ),
  );
}

test.each([
  ['hf-marian', 'encoder-decoder', ['encoder', 'decoder']],
  ['hf-bert-mlm', 'encoder', ['encoder']],
  ['hf-qwen2', 'decoder', ['decoder']],
])(
  '%s: the rollout of each self-attention group after each layer is Node’s; what is rolled is said',
  async (name, kind, groups) => {
    const { page, problems } = await openPage(env);
    try {
      const model = await engine.loadModel(path.join('tests/fixtures/models', name));
      await loadModelFolder(page, name);
      if (kind === 'encoder') {
        await page.click('#pred-action');
        await page.waitForSelector('#real-model[data-ready]');
      }
      const text = await page.inputValue('#real-text');
      await analyseHeadsOnPage(page);
      const input =
        kind === 'encoder-decoder'
          ? { text, decoderInputIds: (await headImportance(model, text)).reference.outputIds }
          : text;
      const node = rolloutInNode(await attentionRollout(model, input));
      const shown = await rolloutOnPage(page);
      expect(Object.keys(shown)).toEqual(groups);
      expect(shown).toEqual(node);
      if (kind === 'decoder') {
        // Causal: the map shown (after the last layer) draws the cells above the diagonal as masked.
        const masked = await page.$$eval(`${section} .matter-rollout-map [data-masked]`, (cells) =>
          cells.map((c) => [Number(c.dataset.q), Number(c.dataset.k)]),
        );
        const last = Object.values(node.decoder).at(-1);
        expect(masked).toEqual(last.filter(([q, k]) => k > q).map(([q, k]) => [q, k]));
      }
      const rolled = await page.textContent(`${section} .matter-rollout-rolled`);
      expect(rolled).toBe(inLanguage('zh', () => t(`matter.rollout.rolled.${kind}`)));
      await page.check('input[name="lang"][value="en"]');
      expect(await page.textContent(`${section} .matter-rollout-rolled`)).toBe(t(`matter.rollout.rolled.${kind}`));
      if (kind === 'encoder-decoder') expect(t(`matter.rollout.rolled.${kind}`)).toContain('not rolled out');
      await page.locator(`${section} .matter-rollout`).screenshot({ path: `test-output/rollout-${name}.png` });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  },
  120_000,
);

// The formulas and the neuron view in headless Chromium: the formula bar
// presses the term of the stage the pipeline shows, and a term chooses its
// stage; the neuron view's q, k, score and weight are the engine's numbers
// (the same call in Node), for the pair it starts on and for a cell clicked
// in a heatmap, in encoder and cross mode. Its screenshot goes to test-output/.
import { createAttention } from '../../src/js/node.mjs';
import { encoderSpec } from '../../web/model/designed-heads.mjs';
import { crossSpec } from '../../web/model/cross-heads.mjs';
import { setUp, openPage, readNeuron, reveal } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

let env, engine;
beforeAll(async () => {
  [env, engine] = await Promise.all([setUp(), createAttention(pageEngineOptions({ isolated: false }))]);
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

/**
 * Waits until the neuron view is drawn for head `head`, query q and key k. A
 * section drawn above it meanwhile can push it out of view, and a view out of
 * view is drawn only when it comes back (web/app.mjs, LAZY): reveal it again.
 */
async function shows(page, head, q, k) {
  await reveal(page, '#neuron');
  await page.waitForFunction(
    ([head, q, k]) => {
      const value = (s) => document.querySelector(`#neuron select.neuron-${s}`).value;
      return value('head') === head && value('query') === String(q) && value('key') === String(k);
    },
    [head, q, k],
  );
}

/** The engine's numbers for a pair of head h of a spec, from a call in Node. */
async function engineNumbers(spec, h, q, k) {
  const r = await engine.multiHeadAttention({ ...spec.args, returnScores: true });
  const { numHeads, dK, seqLenQ: rows } = spec.args;
  const cols = spec.args.seqLenK ?? rows;
  const width = numHeads * dK;
  const cell = (h * rows + q) * cols + k;
  return {
    qv: Array.from(r.projections.Q.subarray(q * width + h * dK, q * width + (h + 1) * dK)),
    kv: Array.from(r.projections.K.subarray(k * width + h * dK, k * width + (h + 1) * dK)),
    score: r.scores[cell],
    weight: r.attention[cell],
    dK,
  };
}

function expectEngineNumbers(shown, want) {
  // (data-value holds String(v): −0 reads back as 0.)
  expect(shown.qv).toEqual(want.qv.map((v) => v + 0));
  expect(shown.kv).toEqual(want.kv.map((v) => v + 0));
  expect(shown.product).toEqual(want.qv.map((v, i) => v * want.kv[i] + 0));
  expect(shown.engineScore).toBe(want.score);
  expect(shown.weight).toBe(want.weight);
  // Written out from the engine's q and k in float64; the engine sums in float32.
  expect(shown.dot).toBeCloseTo(
    want.qv.reduce((s, v, i) => s + v * want.kv[i], 0),
    10,
  );
  expect(Math.abs(shown.score - want.score)).toBeLessThan(1e-5 * Math.max(1, Math.abs(want.score)));
  expect(Math.abs(shown.softmax - want.weight)).toBeLessThan(1e-6);
}

test('the neuron view starts on 毒2 → 毒13 of the role head, with the engine’s q, k, score and weight', async () => {
  const { page, problems } = await openPage(env);
  await reveal(page, '#neuron');
  const shown = await readNeuron(page);
  expect([shown.head, shown.q, shown.k, shown.pair]).toEqual([
    'role',
    2,
    13,
    'role head: query 毒 2 · verb → key 毒 13 · verb',
  ]);
  const want = await engineNumbers(encoderSpec(), 0, 2, 13);
  expect(shown.qv).toHaveLength(want.dK);
  expectEngineNumbers(shown, want);
  expect(shown.weight).toBeGreaterThan(0.9);
  // The picture without the toolbar, which stays on top while scrolling on wide screens.
  await page.evaluate(() => (document.querySelector('.toolbar').style.position = 'static'));
  await page.locator('#neuron').screenshot({ path: 'test-output/neuron-view.png' });
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('a heatmap cell takes its pair to the neuron view; the key chooser and the row strip change the key', async () => {
  const { page, problems } = await openPage(env);
  await page.click('#heads-grid .heatmap[data-head="dependency"] rect[data-q="7"][data-k="13"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('pair') === 'q7k13');
  await reveal(page, '#neuron');
  await shows(page, 'dependency', 7, 13);
  expectEngineNumbers(await readNeuron(page), await engineNumbers(encoderSpec(), 1, 7, 13));
  await page.selectOption('select.neuron-key', '4');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('pair') === 'q7k4');
  await shows(page, 'dependency', 7, 4);
  expectEngineNumbers(await readNeuron(page), await engineNumbers(encoderSpec(), 1, 7, 4));
  // The row strip: one Tab stop, the arrow keys move the key.
  await page.focus('#neuron svg.neuron-row');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('pair') === 'q7k5');
  expect(await page.evaluate(() => document.activeElement.classList.contains('neuron-row'))).toBe(true);
  // Home and End: the row's ends (lib/roving.mjs's keys).
  await page.keyboard.press('End');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('pair') === 'q7k14');
  await page.keyboard.press('Home');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('pair') === 'q7k0');
  expect(await page.evaluate(() => document.activeElement.classList.contains('neuron-row'))).toBe(true);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('cross: "with venom" → 毒1 of the alignment head, the engine’s numbers', async () => {
  const { page, problems } = await openPage(env, '?mode=cross');
  await reveal(page, '#neuron');
  const shown = await readNeuron(page);
  expect([shown.head, shown.q, shown.k]).toEqual(['alignment', 15, 1]); // venom 15 ("with venom") → 毒1
  expectEngineNumbers(shown, await engineNumbers(crossSpec(), 0, 15, 1));
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('the formula bar presses the shown stage’s term, and a term shows its stage', async () => {
  const { page, problems } = await openPage(env, '?mode=decoder');
  await reveal(page, '#pipeline');
  const pressed = () => page.$$eval('#formula button[aria-pressed="true"]', (b) => b.map((x) => x.dataset.stage));
  expect(await pressed()).toEqual(['weights']);
  await page.click('#formula button[data-stage="masked"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('stage') === 'masked');
  expect(await pressed()).toEqual(['masked']);
  expect(await page.getAttribute('#pipeline .stages button[data-stage="masked"]', 'aria-pressed')).toBe('true');
  expect(await page.textContent('#pipeline .matrix-caption')).toMatch(/^mask \(17 × 17\): causal/);
  // A stage button presses its term; V has two (in head_h and in V_h = X·W_V).
  await page.click('#pipeline .stages button[data-stage="v"]');
  await page.waitForFunction(() => document.querySelector('#formula button[data-stage="v"]').ariaPressed === 'true');
  expect(await pressed()).toEqual(['v', 'v']);
  // The formulas are one Tab stop: arrow keys move between the terms.
  const tabbable = await page.$$eval('#formula button', (b) => b.filter((x) => x.tabIndex === 0).length);
  expect(tabbable).toBe(1);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

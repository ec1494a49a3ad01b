// Free mode in headless Chromium: d_model stays as set while heads are added
// (each head d_model / heads wide); joined emoji and identifiers are single
// tokens; an empty or all-space sentence, typed or in a link, is a message in
// place with nothing of an earlier sentence left; a link with values the page
// cannot use says so; no rings pretend to be ground truth.
import { createAttention } from '../../src/js/node.mjs';
import { freeSpec } from '../../web/model/free-mode.mjs';
import { setUp, openPage, readHeatmaps, reveal } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

let env, engine;
beforeAll(async () => {
  [env, engine] = await Promise.all([setUp(), createAttention(pageEngineOptions({ isolated: false }))]);
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

/** Submits the free-mode form and waits for the run of `tokens` tokens and `heads` heads (and the single head). */
async function compute(page, { text, dModel, heads }) {
  await page.fill('#free-text', text);
  if (dModel) await page.selectOption('#free-dmodel', String(dModel));
  if (heads) await page.selectOption('#free-heads', String(heads));
  await page.click('#free button[type="submit"]');
}

async function expectEngineWeights(page, free) {
  const spec = freeSpec({ seed: 18, causal: false, ...free });
  const { attention } = await engine.multiHeadAttention(spec.args);
  const single = (await engine.multiHeadAttention(spec.single)).attention;
  const n = spec.args.seqLenQ;
  await page.waitForFunction(
    (cells) =>
      [...document.querySelectorAll('#heads-grid .heatmap')].every(
        (m) => m.querySelectorAll('[data-weight]').length === cells,
      ),
    n * n,
  );
  const maps = await readHeatmaps(page);
  expect(Object.keys(maps)).toEqual([...spec.heads, 'single']);
  for (const [name, cells] of Object.entries(maps)) {
    const want = name === 'single' ? single : attention.subarray(spec.heads.indexOf(name) * n * n);
    expect(cells.filter(([q, k, w]) => w !== want[q * n + k])).toEqual([]);
  }
}

test('d_model stays put when heads are added: d_k = d_v = d_model / heads', async () => {
  const { page, problems } = await openPage(env, '?mode=free');
  const text = 'one head is not enough';
  const shapes = async () => {
    await reveal(page, '#pipeline');
    return page.$$eval('#pipeline .stages button', (b) =>
      Object.fromEntries(b.map((x) => [x.dataset.stage, x.querySelector('.shape').textContent])),
    );
  };
  const seen = [];
  for (const heads of [1, 2, 4, 8]) {
    await compute(page, { text, dModel: 32, heads });
    expect(await page.textContent('#free-dk')).toBe(`d_k = d_v = 32/${heads} = ${32 / heads}`);
    await page.waitForFunction((h) => document.querySelectorAll('#heads-grid .heatmap').length === h + 1, heads);
    await page.waitForFunction(
      (h) => new URLSearchParams(location.search).get('heads') === (h === 4 ? null : String(h)),
      heads,
    );
    const s = await shapes();
    seen.push([heads, s.x, s.q, s.concat, s.wo, s.output]);
    await expectEngineWeights(page, { text, dModel: 32, numHeads: heads });
  }
  expect(seen).toEqual([
    [1, '5×32', '5×32', '5×32', '32×32', '5×32'],
    [2, '5×32', '5×16', '5×32', '32×32', '5×32'],
    [4, '5×32', '5×8', '5×32', '32×32', '5×32'],
    [8, '5×32', '5×4', '5×32', '32×32', '5×32'],
  ]);
  // A d_model that 8 heads do not divide: the heads' menu offers the counts that do, and keeps the nearest below.
  await page.selectOption('#free-dmodel', '12');
  expect(await page.$$eval('#free-heads option', (o) => o.map((x) => x.value))).toEqual(['1', '2', '3', '4', '6']);
  expect(await page.inputValue('#free-heads')).toBe('6');
  expect(await page.textContent('#free-dk')).toBe('d_k = d_v = 12/6 = 2');
  expect(problems).toEqual([]);
  await page.close();
}, 90_000);

test('heads and d_model recompute at once, as the sharpness does, without Compute; the link follows', async () => {
  const text = 'one head is not enough';
  const { page, problems } = await openPage(env, `?mode=free&text=${encodeURIComponent(text)}`);
  await page.waitForFunction(() => document.querySelectorAll('#heads-grid .heatmap').length === 5);
  // Compute is never pressed: the form is never submitted.
  await page.evaluate(() => {
    window.submits = 0;
    document.getElementById('free').addEventListener('submit', () => window.submits++);
  });
  await page.selectOption('#free-heads', '2');
  await page.waitForFunction(() => document.querySelectorAll('#heads-grid .heatmap').length === 3);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('heads') === '2');
  expect(await page.textContent('#free-dk')).toBe('d_k = d_v = 32/2 = 16');
  await expectEngineWeights(page, { text, dModel: 32, numHeads: 2 });
  // d_model: 12 keeps 2 heads (they divide it), each 6 wide.
  await page.selectOption('#free-dmodel', '12');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('dmodel') === '12');
  expect(new URL(page.url()).searchParams.get('heads')).toBe('2');
  await reveal(page, '#pipeline');
  await page.waitForFunction(
    () => document.querySelector('#pipeline .stages button[data-stage="q"] .shape')?.textContent === '5×6',
  );
  await expectEngineWeights(page, { text, dModel: 12, numHeads: 2 });
  expect(await page.evaluate(() => window.submits)).toBe(0);
  expect(await page.inputValue('#free-text')).toBe(text);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('joined emoji, a heart with its selector and W_O are one token each; none is blank', async () => {
  const { page, problems } = await openPage(env, '?mode=free');
  const text = '👩‍👩‍👧 loves ❤️ and W_O!';
  await compute(page, { text, dModel: 16, heads: 2 });
  await page.waitForFunction(
    () => document.querySelectorAll('#heads-grid .heatmap[data-head="head-0"] [data-weight]').length === 36,
  );
  expect(await page.textContent('#free-tokens')).toMatch(/^6 tokens: 👩‍👩‍👧 · loves · ❤️ · and · W_O · ! — d_model 16/);
  const labels = await page.$$eval('#heads-grid .heatmap[data-head="head-0"] .row-labels text', (t) =>
    t.map((x) => x.firstChild.textContent),
  );
  expect(labels).toEqual(['👩‍👩‍👧', 'loves', '❤️', 'and', 'W_O', '!']);
  await expectEngineWeights(page, { text, dModel: 16, numHeads: 2 });
  // No ground truth here: no rings on the heads; the single head's rings are the heads' own tops, labelled so.
  expect(await page.$$eval('#heads-grid .heatmap[data-head="head-0"] .rings circle', (c) => c.length)).toBe(0);
  expect(await page.$$eval('#heads-grid .heatmap[data-head="single"] .rings circle', (c) => c.length)).toBeGreaterThan(
    0,
  );
  expect(await page.isVisible('[data-i18n="overlay.free"]')).toBe(true);
  expect(await page.isVisible('[data-i18n="overlay.truth"]')).toBe(false);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

/** The empty-sentence state: the message, no view of an earlier sentence, no error, free mode kept. */
async function expectEmpty(page) {
  await page.waitForSelector('#empty:not([hidden])');
  expect(await page.textContent('#empty')).toMatch(/^Type a sentence/);
  expect(await page.$$eval('#heads-grid .heatmap', (m) => m.length)).toBe(0);
  for (const hidden of ['#compare', '#head-view', '#pipeline', '#neuron', '#heads .bar'])
    expect(await page.isVisible(hidden)).toBe(false);
  expect(await page.isHidden('#error')).toBe(true);
  expect(await page.isChecked('input[name="mode"][value="free"]')).toBe(true);
  expect(await page.evaluate(() => document.body.dataset.mode)).toBe('free');
  expect(await page.textContent('#status')).toMatch(/nothing to compute: the sentence has no tokens$/);
}

test('an all-space sentence is a message in place: nothing stale on screen; a new sentence brings the views back', async () => {
  const { page, problems } = await openPage(env, '?mode=free');
  await page.waitForSelector('#heads-grid .heatmap[data-head="head-0"]');
  await compute(page, { text: '  \u3000 ' });
  await expectEmpty(page);
  expect(new URL(page.url()).searchParams.get('mode')).toBe('free');
  await compute(page, { text: 'back again' });
  await page.waitForFunction(
    () => document.querySelectorAll('#heads-grid .heatmap[data-head="head-0"] [data-weight]').length === 4,
  );
  expect(await page.isHidden('#empty')).toBe(true);
  expect(await page.isVisible('#compare')).toBe(true);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('a link with an empty sentence stays in free mode and says why there is nothing to see', async () => {
  const { page, problems } = await openPage(env, '?mode=free&text=', { ready: false });
  await expectEmpty(page);
  expect(await page.isHidden('#link-note')).toBe(true);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('a link with values the page cannot use says which, and what it shows instead', async () => {
  const { page, problems } = await openPage(env, '?mode=free&heads=0&dk=4&text=a%20b');
  const note = await page.textContent('#link-note');
  expect(note).toMatch(/^This link has dk=4, heads=0, which the page cannot use/);
  expect(await page.$$eval('#heads-grid .heatmap', (m) => m.length)).toBe(5); // the default 4 heads and the single one
  const refit = await openPage(env, '?mode=free&dmodel=12&heads=8&text=a%20b');
  expect(await refit.page.textContent('#link-note')).toBe('heads=8 does not divide d_model 12, so 6 heads are used.');
  expect(await refit.page.inputValue('#free-heads')).toBe('6');
  expect([...problems, ...refit.problems]).toEqual([]);
  await refit.page.close();
  await page.close();
}, 60_000);

// "Train it yourself" in headless Chromium: a short run set through the
// controls draws growing loss curves and a learned heatmap that changes while
// it trains; when done, the page's heatmap, its per-run table and its text are
// exactly what the same experiment gives in Node (training is seeded and
// bitwise reproducible); Stop stops; nothing overflows at 390 px; no console
// problems. A screenshot of the section goes to test-output/.
import { mkdirSync } from 'node:fs';
import { startServer } from '../../web/server.mjs';
import { createAttention } from '../../src/js/node.mjs';
import { buildData } from '../../web/model/train-data.mjs';
import { settingsFor } from '../../web/model/train-options.mjs';
import { runExperiment } from '../../web/model/train-runner.mjs';
import { summarize } from '../../web/model/train-stats.mjs';
import { describeResults } from '../../web/model/train-text.mjs';
import { percent } from '../../web/lib/format.mjs';
import { launchChromium, openPage } from './chromium.mjs';

let browser, server, url, engine;

beforeAll(async () => {
  [browser, engine] = await Promise.all([launchChromium(), createAttention({ training: true })]);
  server = await startServer({ port: 0, isolate: true });
  url = `http://127.0.0.1:${server.address().port}/`;
  mkdirSync('test-output', { recursive: true });
}, 60_000);

afterAll(async () => {
  engine?.dispose();
  await browser?.close();
  if (server) await new Promise((r) => server.close(r));
});

async function open() {
  const { page, problems } = await openPage(browser.context, url);
  await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  await page.waitForSelector('#train-start:not([disabled])');
  return { page, problems };
}

/** Sets the controls and presses Train. */
async function train(page, { seeds, steps }) {
  await page.fill('#train-seeds', String(seeds));
  await page.selectOption('#train-steps', String(steps));
  await page.locator('#train-start').scrollIntoViewIfNeeded();
  await page.click('#train-start');
}

const finished = (page) =>
  page.waitForFunction(() => document.querySelector('#train-status').textContent.startsWith('Done'), null, {
    timeout: 60_000,
  });

test('a short run draws growing curves and a changing learned heatmap, and ends with Node’s numbers', async () => {
  const { page, problems } = await open();
  // Recorded in the page as it happens: the points of seed 1's loss line for
  // 1 head, and the weights of the learned heatmap's first head.
  await page.evaluate(() => {
    window.seen = { points: [], weights: [] };
    new MutationObserver(() => {
      const path = document.querySelector('.train-loss path[data-setting="h1"][data-seed="1"]');
      const n = Number(path?.dataset.points);
      if (n && n !== window.seen.points.at(-1)) window.seen.points.push(n);
      const cells = [...document.querySelectorAll('.train-heads .heatmap[data-head="head-0"] [data-weight]')]
        .map((c) => c.dataset.weight)
        .join();
      if (cells && cells !== window.seen.weights.at(-1)) window.seen.weights.push(cells);
    }).observe(document.getElementById('train'), {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-points', 'data-weight'],
    });
  });
  await train(page, { seeds: 1, steps: 500 });
  await finished(page);
  const seen = await page.evaluate(() => window.seen);
  // 500 steps in chunks of 50: the line grows to 10 points, seen at several lengths on the way.
  expect(seen.points.at(-1)).toBe(10);
  expect(seen.points.length).toBeGreaterThanOrEqual(3);
  expect(seen.points).toEqual([...seen.points].sort((a, b) => a - b));
  // Accuracy at steps 0, 100, … 500.
  expect(await page.getAttribute('.train-accuracy path[data-setting="h2"][data-seed="mean"]', 'data-points')).toBe('6');
  expect(await page.getAttribute('.train-loss path[data-setting="h1"][data-seed="1"]', 'd')).toMatch(
    /^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+){9}$/,
  );
  // The heatmap is drawn from step 0 and changes as it learns.
  expect(seen.weights.length).toBeGreaterThanOrEqual(2);
  // The charts' "no training yet" is gone, and so is the learned heads' "no run yet".
  expect(await page.isHidden('.train-loss text.placeholder')).toBe(true);
  expect(await page.isHidden('.train-accuracy text.placeholder')).toBe(true);
  expect(await page.textContent('.train-heads-caption')).not.toMatch(/^No run yet/);
  expect(await page.isVisible('.train-head-view .head-toggles')).toBe(true);
  const done = [
    /^Done: 2 runs × 500 steps in [\d.]+ s, evaluations included · /,
    /[\d,]+ steps\/s of training on threaded-simd with \d+ threads?: one run of 500 steps takes [\d.]+ s$/,
  ];
  expect(await page.textContent('#train-status')).toMatch(new RegExp(done.map((r) => r.source).join('')));

  // The same experiment in Node: the page shows exactly its numbers.
  const data = buildData();
  const want = await runExperiment(engine, { settings: settingsFor(), seeds: 1, steps: 500, data });
  const cells = await page.$$eval('.train-heads .heatmap[data-head="head-0"] [data-weight]', (c) =>
    c.map((x) => Number(x.dataset.weight)),
  );
  expect(cells).toEqual(Array.from(want.runs[0].example.heads[0]));
  const text = describeResults(summarize(want), {
    steps: 500,
    testSentences: data.test.length,
    testDu: data.testDu.length,
    neighbours: data.neighbours,
  });
  expect(await page.$$eval('.train-text p', (ps) => ps.map((p) => p.textContent))).toEqual(text);
  const rows = await page.$$eval('.train-runs tbody tr:not(.setting-row)', (trs) =>
    trs.map((tr) => [...tr.children].map((c) => c.textContent)),
  );
  expect(rows).toEqual(
    want.runs.map((r) => [
      'seed 1',
      percent(r.finalAccuracy),
      ...r.example.du.map((d) => (d.right ? '✓' : `✗ ${d.got}`)),
      r.example.allRight ? 'yes' : 'no',
      r.neighbours
        .map((h, i) => `${r.neighbours.length > 1 ? `h${i} ` : ''}${h.left.toFixed(2)} / ${h.right.toFixed(2)}`)
        .join(' · '),
    ]),
  );

  // The 2-head run's heads: two heatmaps and the head view's lines of both.
  await page.selectOption('#train-setting', 'h2');
  await page.waitForSelector('.train-heads .heatmap[data-head="head-1"]');
  const two = await page.$$eval('.train-heads .heatmap', (maps) =>
    maps.map((m) => m.querySelectorAll('[data-weight]').length),
  );
  expect(two).toEqual([225, 225]);
  const lines = await page.$$eval(
    '.train-head-view .head-view-svg line',
    (l) => new Set(l.map((x) => x.dataset.headName)).size,
  );
  expect(lines).toBe(2);
  // Clicking a query row of a heatmap keeps only that token's lines in the head view.
  await page.click('.train-heads .heatmap[data-head="head-0"] rect[data-q="2"][data-k="0"]');
  await page.mouse.move(1, 1);
  await page.waitForFunction(() =>
    document.querySelector('.train-head-view .head-view-svg svg').classList.contains('focused'),
  );
  const shown = await page.$$eval('.train-head-view .head-view-svg line', (l) =>
    l.filter((x) => getComputedStyle(x).display !== 'none').map((x) => Number(x.dataset.q)),
  );
  expect(shown.length).toBeGreaterThan(0);
  expect(shown.every((q) => q === 2)).toBe(true);

  await page.setViewportSize({ width: 390, height: 900 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  await page.locator('#train').screenshot({ path: 'test-output/train-390.png' });
  expect(problems).toEqual([]);
  await page.close();
}, 90_000);

test('before any training: no empty chooser, one layout checked, the empty charts say why they are empty', async () => {
  const { page, problems } = await open();
  // Every visible <select> of the section has options and a value; the choosers offer the runs Train will make.
  const selects = await page.$$eval('#train select', (all) =>
    all.filter((s) => s.checkVisibility()).map((s) => [s.id, s.options.length > 0, s.value !== '']),
  );
  expect(selects.filter(([, options, value]) => !options || !value)).toEqual([]);
  expect(selects.map(([id]) => id)).toEqual(['train-steps', 'train-setting', 'train-seed']);
  expect(await page.$$eval('#train-setting option', (o) => o.map((x) => [x.value, x.textContent]))).toEqual([
    ['h1', '1 head'],
    ['h2', '2 heads'],
  ]);
  expect(await page.$$eval('#train-seed option', (o) => o.map((x) => x.value))).toEqual(['1', '2', '3', '4', '5']);
  expect(await page.$$eval('.train-legend li', (l) => l.map((x) => x.textContent))).toEqual(['1 head', '2 heads']);
  // The learned heads' head view: one layout radio checked from the start.
  expect(await page.$$eval('.train-head-view input[name="layout"]:checked', (r) => r.map((x) => x.value))).toEqual([
    'rows',
  ]);
  expect(await page.textContent('.train-heads-caption')).toMatch(/^No run yet/);
  expect(await page.isHidden('.train-head-view .head-toggles')).toBe(true); // no empty group of head toggles
  // The empty charts say so in visible text, not only in their aria-label.
  for (const chart of ['.train-loss', '.train-accuracy']) {
    const placeholder = page.locator(`${chart} svg text.placeholder`);
    expect(await placeholder.isVisible()).toBe(true);
    expect(await placeholder.textContent()).toBe('No training yet: press Train above.');
  }
  // Until Train, the choosers follow the controls.
  await page.check('#train-four');
  await page.fill('#train-seeds', '2');
  await page.check('#train-mlp');
  expect(await page.$$eval('#train-setting option', (o) => o.map((x) => x.value))).toEqual([
    'h1',
    'h2',
    'h4',
    'h1-mlp',
    'h2-mlp',
    'h4-mlp',
  ]);
  expect(await page.$$eval('#train-seed option', (o) => o.map((x) => x.value))).toEqual(['1', '2']);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('Stop stops a long run; the text says it has nothing to report yet', async () => {
  const { page, problems } = await open();
  await train(page, { seeds: 5, steps: 3000 });
  await page.waitForFunction(() => /step [\d,]+ of 3,000/.test(document.querySelector('#train-status').textContent));
  expect(await page.textContent('#train-start')).toBe('Stop');
  await page.click('#train-start');
  await page.waitForFunction(() => document.querySelector('#train-start').textContent === 'Train');
  await page.waitForFunction(() => document.querySelector('#train-status').textContent.startsWith('Stopped at step'));
  expect(await page.textContent('.train-text')).toMatch(/^Stopped before the end/);
  // A new run after the stop trains from scratch and finishes.
  await train(page, { seeds: 1, steps: 500 });
  await finished(page);
  expect(await page.textContent('.train-text p')).toMatch(/^After 500 steps/);
  expect(problems).toEqual([]);
  await page.close();
}, 90_000);

test("the experiment's options come from the link and go back into it", async () => {
  const { page: blank, problems } = await openPage(browser.context, `${url}?train=2x500-mlp`);
  await blank.waitForSelector('#train-start:not([disabled])');
  expect(await blank.inputValue('#train-seeds')).toBe('2');
  expect(await blank.inputValue('#train-steps')).toBe('500');
  expect(await blank.isChecked('#train-mlp')).toBe(true);
  expect(await blank.isChecked('#train-four')).toBe(false);
  await blank.fill('#train-seeds', '3');
  await blank.check('#train-four');
  await blank.waitForFunction(() => new URLSearchParams(location.search).get('train') === '3x500-4-mlp');
  await blank.uncheck('#train-mlp');
  await blank.fill('#train-seeds', '5');
  await blank.selectOption('#train-steps', '3000');
  await blank.uncheck('#train-four');
  // The defaults leave the link clean.
  await blank.waitForFunction(() => !new URLSearchParams(location.search).has('train'));
  expect(problems).toEqual([]);
  await blank.close();
}, 60_000);

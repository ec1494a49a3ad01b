// "Train it yourself" in headless Chromium: a short run set through the
// controls draws growing loss curves and a learned heatmap that changes while
// it trains; when done, the page's heatmap, its per-run table and its text are
// exactly what the same experiment gives in Node (training is seeded and
// bitwise reproducible per build: the page and Node both run page-builds.mjs's build);
// the default experiment, pressed as it comes, ends with the evidence chart,
// its sentences, the collapsed runs and the bridge's heads all exactly Node's
// run of the same code, and says how long it took (and the claims its text makes follow
// from Node's run: tests/web/helpers/default-claims.mjs); Stop stops; nothing
// overflows at 390 px; no console problems. Screenshots of the section and of
// the evidence chart (both languages) go to test-output/.
import { mkdirSync } from 'node:fs';
import { createAttention } from '../../src/js/node.mjs';
import { buildData } from '../../web/model/train-data.mjs';
import { settingsFor, DEFAULT_OPTIONS } from '../../web/model/train-options.mjs';
import { runExperiment } from '../../web/model/train-runner.mjs';
import { summarize } from '../../web/model/train-stats.mjs';
import { describeResults, headline } from '../../web/model/train-text.mjs';
import { collapsedSeeds, medianSeed, sideHeads } from '../../web/model/train-evidence.mjs';
import { encoderSpec } from '../../web/model/designed-heads.mjs';
import { runSpec } from '../../web/model/compute.mjs';
import { percent, thousands } from '../../web/lib/format.mjs';
import { setLanguage } from '../../web/lib/i18n.mjs';
import { launchWithServer, openPage } from './chromium.mjs';
import { trainSectionReady } from './page-helpers.mjs';
import { PAGE_BUILD, pageEngineOptions } from './page-builds.mjs';
import { expectDefaultClaims } from '../web/helpers/default-claims.mjs';

let browser, url, engine;

beforeAll(async () => {
  [browser, engine] = await Promise.all([
    launchWithServer(),
    createAttention({ ...pageEngineOptions(), training: true }),
  ]);
  ({ url } = browser);
  mkdirSync('test-output', { recursive: true });
}, 60_000);

afterAll(async () => {
  engine?.dispose();
  await browser?.close();
});

/** The page, ready, its training section's data made (trainSectionReady) unless `data` is false. */
async function open({ data = true } = {}) {
  const { page, problems } = await openPage(browser.context, url);
  await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  await page.waitForSelector('#train-start:not([disabled])');
  if (data) await trainSectionReady(page);
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
    new RegExp(
      `[\\d,]+ steps/s of training on ${PAGE_BUILD.isolated} with \\d+ threads?: one run of 500 steps takes [\\d.]+ s$`,
    ),
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
        .map(
          (h, i) =>
            `${r.neighbours.length > 1 ? `h${i} ` : ''}${h.left.toFixed(2)} / ${h.right.toFixed(2)} / ${h.self.toFixed(2)}`,
        )
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
  expect(await page.$$eval('#train-seed option', (o) => o.map((x) => x.value))).toEqual(
    Array.from({ length: DEFAULT_OPTIONS.seeds }, (_, i) => String(i + 1)),
  );
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

test('the grammar table is drawn with the page; the numbers its notes wait for move the controls a line at most', async () => {
  const { page, problems } = await open({ data: false });
  // Before the experiment's data is made: the table, and '…' in the notes where its numbers go.
  expect(await page.getAttribute('#train .train-rules', 'data-stale')).toBe('true');
  expect(await page.textContent('#train .train-rules-note')).toContain('…');
  // A jump (a link, Find, a control brought into view), not a scroll through the page: the data comes then.
  const before = await page.evaluate(() => {
    const box = document.querySelector('#train-four');
    box.scrollIntoView({ block: 'center' });
    return box.getBoundingClientRect().top;
  });
  await page.waitForSelector('#train .train-rules:not([data-stale])');
  const after = await page.evaluate(() => ({
    top: document.querySelector('#train-four').getBoundingClientRect().top,
    table: document.querySelector('#train .train-rules').getBoundingClientRect().height,
    notes:
      document.querySelector('#train .train-rules-note').textContent +
      document.querySelector('#train .train-data-note').textContent,
  }));
  expect(after.table).toBeGreaterThan(100);
  expect(after.notes).not.toContain('…');
  expect(after.notes).toMatch(/\d\s*%/);
  // The numbers can wrap a note onto one more line (or one less), no more: not the table's height (441 px).
  expect(Math.abs(after.top - before)).toBeLessThan(30);
  await page.check('#train-four');
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
  await blank.fill('#train-seeds', String(DEFAULT_OPTIONS.seeds));
  await blank.selectOption('#train-steps', '3000');
  await blank.uncheck('#train-four');
  // The defaults leave the link clean.
  await blank.waitForFunction(() => !new URLSearchParams(location.search).has('train'));
  expect(problems).toEqual([]);
  await blank.close();
}, 60_000);

/** The cells of the small maps in `scope`: { head name: [weight, …] } in row-major order. */
const miniMaps = (page, scope) =>
  page.$$eval(`${scope} .mini-map`, (maps) =>
    maps.map((m) => [m.dataset.head, [...m.querySelectorAll('[data-weight]')].map((c) => Number(c.dataset.weight))]),
  );

test('the default experiment: the evidence chart, its sentences, the collapsed runs and the bridge are Node’s run', async () => {
  // The page runs PAGE_BUILD.isolated (the server isolates it; its status says so below): Node's run is on that build.
  expect(engine.variant).toBe(PAGE_BUILD.isolated);
  const data = buildData();
  const settings = settingsFor(DEFAULT_OPTIONS);
  // Node's run goes on while the page opens and trains; awaited where its numbers are compared.
  const nodeRun = runExperiment(engine, {
    settings,
    seeds: DEFAULT_OPTIONS.seeds,
    steps: DEFAULT_OPTIONS.steps,
    data,
  });
  nodeRun.catch(() => {}); // a failure is reported where it is awaited, not as an unhandled rejection first
  const inference = await createAttention(pageEngineOptions());
  const designed = await runSpec(inference, encoderSpec());
  inference.dispose();
  setLanguage('en');

  const { page, problems } = await open();
  // Before Train: the work the defaults ask for, and an empty chart that says why; the note above says to press Train.
  const runs = settings.length * DEFAULT_OPTIONS.seeds;
  expect(await page.textContent('#train-work')).toBe(
    `${runs} runs × ${thousands(DEFAULT_OPTIONS.steps)} steps = ${thousands(runs * DEFAULT_OPTIONS.steps)} training steps`,
  );
  expect(await page.textContent('.train-evidence text.placeholder')).toBe('No training yet: press Train above.');
  expect(await page.textContent('.caveat-own')).toBe('press Train to measure it in this page');
  expect(await page.isHidden('.train-collapse')).toBe(true);
  expect(await page.$$eval('.bridge-designed .mini-map', (m) => m.map((x) => x.dataset.head))).toEqual([
    'role',
    'dependency',
    'long-distance',
  ]);

  await page.locator('#train-start').scrollIntoViewIfNeeded();
  await page.click('#train-start');
  // While it trains, the status says how long is left.
  await page.waitForFunction(() =>
    /step [\d,]+ of 3,000 · about \d+ s left · /.test(document.querySelector('#train-status').textContent),
  );
  expect(await page.textContent('.train-evidence text.placeholder')).toMatch(/^Training: /);
  await page.waitForFunction(() => document.querySelector('#train-status').textContent.startsWith('Done'), null, {
    timeout: 150_000,
  });
  // The default's timing, shown: the whole experiment's seconds and the pace.
  const status = await page.textContent('#train-status');
  expect(status).toMatch(
    new RegExp(
      `^Done: ${runs} runs × 3,000 steps in \\d+\\.\\d s, evaluations included · [\\d,]+ steps/s of training on ${PAGE_BUILD.isolated} with \\d+ threads?: one run of 3,000 steps takes [\\d.]+ s$`,
    ),
  );

  const want = await nodeRun;
  // The claims the page writes from this experiment, counted again from Node's runs: the one run of it in
  // npm test (tests/web/train-evidence.test.mjs checks pairing by seed and the evidence rules without it).
  expectDefaultClaims(want, data);
  const summary = summarize(want);
  // Every dot is one run's final accuracy, exactly; the median lines are the medians; the sentence is Node's.
  const dots = await page.$$eval('.train-evidence circle.dot', (c) =>
    c.map((x) => [x.dataset.setting, Number(x.dataset.seed), Number(x.dataset.accuracy)]),
  );
  expect(dots.sort()).toEqual(want.runs.map((r) => [r.setting.key, r.seed, r.finalAccuracy]).sort());
  const medians = await page.$$eval('.train-evidence line.median', (l) =>
    l.map((x) => [x.dataset.setting, Number(x.dataset.value)]),
  );
  expect(medians).toEqual(summary.map((s) => [s.setting.key, s.median]));
  expect(await page.textContent('.evidence-summary')).toBe(`${headline(summary)}.`);
  expect(await page.getAttribute('.train-evidence svg', 'aria-label')).toContain(headline(summary));
  const context = {
    steps: 3000,
    testSentences: data.test.length,
    testDu: data.testDu.length,
    neighbours: data.neighbours,
  };
  expect(await page.$$eval('.train-text p', (ps) => ps.map((p) => p.textContent))).toEqual(
    describeResults(summary, context),
  );
  expect(await page.textContent('.caveat-own')).toBe(
    `this page’s own run (10 seeds × 3,000 steps): ${headline(summary)}`,
  );

  // The collapsed runs: shown, each with its heads' maps exactly the run's attention on the example.
  const two = summary.find((s) => s.setting.numHeads === 2);
  const collapsed = collapsedSeeds(two).seeds;
  const rings = await page.$$eval('.train-evidence .collapsed-ring', (r) => r.length);
  expect(rings).toBe(collapsed.length);
  expect(await page.isVisible('.train-collapse')).toBe(collapsed.length > 0);
  const groups = await page.$$eval('.collapse-run', (g) => g.map((x) => Number(x.dataset.seed)));
  expect(groups).toEqual(collapsed.map((c) => c.seed));
  const runOf = (key, seed) => want.runs.find((r) => r.setting.key === key && r.seed === seed);
  if (collapsed.length) {
    const first = runOf('h2', collapsed[0].seed);
    expect(await miniMaps(page, '.collapse-run:first-child')).toEqual(
      first.example.heads.map((w, h) => [`head-${h}`, Array.from(w)]),
    );
    // Its button opens it in the learned heads' full view.
    await page.click('.collapse-run:first-child button');
    await page.waitForFunction(
      (seed) => document.querySelector('#train-seed').value === String(seed),
      collapsed[0].seed,
    );
    expect(await page.inputValue('#train-setting')).toBe('h2');
    await page.waitForFunction(
      (w) =>
        document.querySelector('.train-heads .heatmap[data-head="head-1"] [data-q="0"][data-k="0"]')?.dataset.weight ===
        String(w),
      first.example.heads[1][0],
    );
  }

  // The bridge: the designed heads as the engine computes them, and the median seed's left and right heads.
  expect(await miniMaps(page, '.bridge-designed')).toEqual(
    ['role', 'dependency', 'long-distance'].map((name) => [
      name,
      Array.from(designed.heads.find((h) => h.name === name).weights),
    ]),
  );
  const seed = medianSeed(two);
  const median = runOf('h2', seed);
  const sides = sideHeads(median.neighbours);
  const shown =
    sides.left !== null && sides.right !== null ? [sides.left, sides.right] : median.neighbours.map((_, h) => h);
  expect(await miniMaps(page, '.bridge-learned')).toEqual(
    shown.map((h) => [`head-${h}`, Array.from(median.example.heads[h])]),
  );
  expect(await page.textContent('.bridge-caption')).toMatch(
    new RegExp(
      `^Learned: 2 heads, seed ${seed}, the median of 10 seeds \\(${percent(median.finalAccuracy).replace('.', '\\.')}\\)`,
    ),
  );

  // Every control of the section named; the evidence chart's pictures in both languages.
  const unnamed = await page.$$eval('#train input, #train select, #train button', (els) =>
    els
      .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim()))
      .map((e) => e.outerHTML.slice(0, 80)),
  );
  expect(unnamed).toEqual([]);
  await page.locator('.train-evidence').scrollIntoViewIfNeeded();
  await page.locator('.train-evidence').screenshot({ path: 'test-output/evidence-en.png' });
  await page.click('input[name="lang"][value="zh"]');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-Hans');
  setLanguage('zh');
  expect(await page.textContent('.evidence-summary')).toBe(`${headline(summary)}。`);
  expect(await page.$$eval('.train-text p', (ps) => ps.map((p) => p.textContent))).toEqual(
    describeResults(summary, context),
  );
  setLanguage('en');
  await page.locator('.train-evidence').screenshot({ path: 'test-output/evidence.png' });
  await page.locator('#train').screenshot({ path: 'test-output/train-evidence-section.png' });
  expect(problems).toEqual([]);
  await page.close();
}, 240_000);

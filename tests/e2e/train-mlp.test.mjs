// "Train it yourself" with "加 MLP" in headless Chromium: the page's own MLP
// run is part of the evidence. The paired dot plot gives the MLP pairs a
// block of rows of their own (seed N + MLP, hollow dots) with Node's
// accuracies, the closing verdict gives the MLP pair beside the plain one
// (Node's describeResults of the same experiment), and the curves' help names
// the dashed MLP lines only once an MLP was trained; before, it does not.
// Past 20 seed lines (the default 10 seeds with the MLP: 40) the seeds are
// drawn faint under the means.
import { createAttention } from '../../src/js/node.mjs';
import { buildData } from '../../web/model/train-data.mjs';
import { settingsFor } from '../../web/model/train-options.mjs';
import { runExperiment } from '../../web/model/train-runner.mjs';
import { summarize } from '../../web/model/train-stats.mjs';
import { describeResults } from '../../web/model/train-text.mjs';
import { setLanguage } from '../../web/lib/i18n.mjs';
import { launchWithServer, openPage } from './chromium.mjs';
import { trainSectionReady } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

let browser, url, engine;
beforeAll(async () => {
  [browser, engine] = await Promise.all([
    launchWithServer(),
    createAttention({ ...pageEngineOptions(), training: true }),
  ]);
  ({ url } = browser);
  setLanguage('en');
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await browser?.close();
});

/** The page, its training section ready to start. */
async function openTraining() {
  const opened = await openPage(browser.context, url);
  await opened.page.waitForSelector('body[data-ready]', { timeout: 30_000 });
  await opened.page.waitForSelector('#train-start:not([disabled])');
  await trainSectionReady(opened.page);
  return opened;
}

/** Trains `seeds` seeds × 500 steps with the MLP (4 settings) and waits until the page says it is done. */
async function trainWithMlp(page, seeds) {
  await page.fill('#train-seeds', String(seeds));
  await page.selectOption('#train-steps', '500');
  await page.check('#train-mlp');
  await page.locator('#train-start').scrollIntoViewIfNeeded();
  await page.click('#train-start');
  await page.waitForFunction(() => document.querySelector('#train-status').textContent.startsWith('Done'), null, {
    timeout: 240_000,
  });
}

test('with the MLP: its pairs in the dot plot and the verdict, Node’s numbers; the dashed lines named only then', async () => {
  const { page, problems } = await openTraining();
  expect(await page.textContent('.train-charts-help')).not.toMatch(/MLP/);
  await trainWithMlp(page, 2);
  expect(await page.textContent('.train-charts-help')).toContain('dashed: with MLP');

  const data = buildData();
  const want = await runExperiment(engine, { settings: settingsFor({ mlp: true }), seeds: 2, steps: 500, data });
  const summary = summarize(want);
  // The dot plot: the plain rows, then the MLP's, every dot a run's final accuracy exactly.
  const rows = await page.$$eval('.train-evidence .seed-row', (gs) =>
    gs.map((g) => [g.dataset.seed, g.dataset.mlp, g.querySelector('text').textContent]),
  );
  expect(rows).toEqual([
    ['1', 'false', 'seed 1'],
    ['2', 'false', 'seed 2'],
    ['1', 'true', 'seed 1 + MLP'],
    ['2', 'true', 'seed 2 + MLP'],
  ]);
  const dots = await page.$$eval('.train-evidence circle.dot', (cs) =>
    cs.map((c) => [c.dataset.setting, Number(c.dataset.seed), Number(c.dataset.accuracy)]),
  );
  const expected = want.runs
    .filter((r) => r.setting.numHeads <= 2)
    .map((r) => [r.setting.key, r.seed, r.finalAccuracy]);
  expect([...dots].sort()).toEqual([...expected].sort());
  // The verdict: Node's paragraphs, the last the MLP pair's.
  const text = describeResults(summary, {
    steps: 500,
    testSentences: data.test.length,
    testDu: data.testDu.length,
    neighbours: data.neighbours,
  });
  const shown = await page.$$eval('.train-text p', (ps) => ps.map((p) => p.textContent));
  expect(shown).toEqual(text);
  expect(shown.at(-1)).toMatch(/^With an MLP after attention, against the same claim: /);
  expect(problems).toEqual([]);
  await page.close();
}, 300_000);

test('past 20 seed lines (6 seeds × 4 settings) the seeds’ lines are faint under the means; at 8 they are not', async () => {
  const { page, problems } = await openTraining();
  /** Each chart's stroke opacities: { seeds: [...distinct], means: [...distinct], lines: seed lines }. */
  const opacities = () =>
    page.$$eval('.train-loss path[data-seed], .train-accuracy path[data-seed]', (paths) => {
      const of = (list) => [...new Set(list.map((p) => Number(p.getAttribute('stroke-opacity'))))];
      const seeds = paths.filter((p) => p.dataset.seed !== 'mean');
      return { seeds: of(seeds), means: of(paths.filter((p) => p.dataset.seed === 'mean')), lines: seeds.length };
    });
  await trainWithMlp(page, 2);
  const few = await opacities();
  await trainWithMlp(page, 6);
  const many = await opacities();
  // Two charts, 4 settings: 2 × 8 and 2 × 24 seed lines.
  expect([few.lines, many.lines]).toEqual([16, 48]);
  expect(few.means).toEqual([1]);
  expect(many.means).toEqual([1]);
  expect(few.seeds).toHaveLength(1);
  expect(many.seeds).toHaveLength(1);
  expect(many.seeds[0]).toBeLessThan(few.seeds[0] / 2);
  expect(problems).toEqual([]);
  await page.close();
}, 300_000);

// Every table a reader meets has a header over each column that holds
// something, and no header over a column that is empty in every row (issue 38
// item 8 named one), in headless Chromium: the designed views in each mode
// (the comparison, the neuron table …), the training section after a short
// experiment (seeds 2 × 500 steps) with its details open, and the real-model
// view with a BERT and a MarianMT (its translation view's tables). Also no
// row narrower than the table (a missing cell leaves a column unheaded).
import { loadModelFolder, openPage, revealAll, setUp, trainSectionReady } from './page-helpers.mjs';

let env;
beforeAll(async () => {
  env = await setUp({ locale: 'en-US' });
}, 60_000);
afterAll(async () => env?.close());

/** Per visible table: each column's header text and whether its body is empty; rows short of the table's width. */
const problemsOfTables = (page) =>
  page.evaluate(() => {
    const out = [];
    for (const table of document.querySelectorAll('table')) {
      if (!table.getBoundingClientRect().width || !table.tHead) continue;
      const grid = [...table.rows].map((row) => [...row.cells].flatMap((c) => [c, ...Array(c.colSpan - 1).fill(c)]));
      const heads = table.tHead.rows.length;
      const width = Math.max(...grid.map((r) => r.length));
      const name = table.className || table.closest('[id]')?.id;
      grid.forEach((r, i) => r.length < width && out.push(`${name}: row ${i} has ${r.length} of ${width} columns`));
      for (let col = 0; col < width; col++) {
        const header = grid
          .slice(0, heads)
          .map((r) => r[col]?.textContent.trim() ?? '')
          .join('');
        const body = grid.slice(heads).map((r) => r[col]);
        const empty = body.every(
          (c) => !c || (!c.textContent.trim() && !c.querySelector('svg, canvas, img, button, input, [style]')),
        );
        if (header && empty && body.length) out.push(`${name}: “${header}” over an empty column`);
      }
    }
    return [...new Set(out)];
  });

test.each(['encoder', 'decoder', 'cross', 'free'])(
  'the %s mode’s tables',
  async (mode) => {
    const { page, problems } = await openPage(env, `?mode=${mode}`);
    try {
      await revealAll(page);
      for (const d of await page.$$('details')) await d.evaluate((x) => (x.open = true));
      expect(await problemsOfTables(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  },
  60_000,
);

test('the training section’s tables after a short experiment', async () => {
  const { page, problems } = await openPage(env);
  try {
    await trainSectionReady(page);
    await page.locator('#train-start').scrollIntoViewIfNeeded();
    await page.fill('#train-seeds', '2');
    await page.selectOption('#train-steps', '500');
    await page.click('#train-start');
    await page.waitForSelector('.train-evidence circle.dot', { timeout: 120_000 });
    for (const d of await page.$$('details')) await d.evaluate((x) => (x.open = true));
    expect(await problemsOfTables(page)).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 180_000);

test.each(['hf-bert-mlm', 'hf-marian'])(
  'the real-model view’s tables with %s',
  async (name) => {
    const { page, problems } = await openPage(env);
    try {
      await loadModelFolder(page, name);
      for (const d of await page.$$('#real-model details')) await d.evaluate((x) => (x.open = true));
      expect(await problemsOfTables(page)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  },
  90_000,
);

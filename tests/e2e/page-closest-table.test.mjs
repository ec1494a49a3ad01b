// The real-model view's table of the heads closest to the designed ones
// (views/real-article.mjs) at 1440 px, in headless Chromium (issue 38 item 8):
// its verdict column is on screen (what each head looks for and the verdict
// wrap; on one line each they pushed the verdict past the window), every row
// as wide as its header; with a head chosen, the tables beside its map (its
// scores, its weight where each designed head looks, where each 毒 looks) fit
// their column (the row label "share of its 毒 → 毒 weight …" on one line
// pushed the even-spread column out of its box).
import { loadModelFolder, openPage, setUp } from './page-helpers.mjs';

let env;
beforeAll(async () => {
  env = await setUp({ locale: 'en-US' });
}, 60_000);
afterAll(async () => env?.close());

const TABLE = '#real-model .real-closest-table';

/** The table's header width in columns, each row's, and the verdict column's edge against its box and the window. */
const readTable = (page) =>
  page.$eval(TABLE, (table) => {
    const span = (row) => [...row.cells].reduce((n, c) => n + c.colSpan, 0);
    const box = table.closest('.table-scroll').getBoundingClientRect();
    const verdict = table.tHead.rows[0].cells[4].getBoundingClientRect();
    return {
      header: span(table.tHead.rows[0]),
      rows: [...table.tBodies[0].rows].map((r) => [r.dataset.head, span(r)]),
      verdictRight: verdict.right,
      boxRight: box.right,
      window: window.innerWidth,
    };
  });

test.each(['hf-bert-mlm', 'hf-gpt2-lm'])(
  '%s at 1440 px: the verdict column on screen, every row as wide as the header',
  async (name) => {
    const { page, problems } = await openPage(env);
    try {
      await loadModelFolder(page, name);
      const whole = await readTable(page);
      expect(whole.verdictRight).toBeLessThanOrEqual(whole.boxRight);
      expect(whole.verdictRight).toBeLessThanOrEqual(whole.window);
      expect(whole.rows.map(([, n]) => n)).toEqual(whole.rows.map(() => whole.header));
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  },
  90_000,
);

test('hf-llama at 1440 px, a head chosen: every table of the real-model view fits its box and the window', async () => {
  const { page, problems } = await openPage(env);
  try {
    await loadModelFolder(page, 'hf-llama');
    await page.click('#real-model .thumb[data-layer="1"][data-head="2"]');
    await page.waitForSelector('#real-model .heatmap[data-head="layer-1-head-2"]');
    const overflowing = await page.$$eval('#real-model table', (tables) =>
      tables
        .filter((t) => t.getBoundingClientRect().width > 0)
        .map((t) => {
          const box = (t.closest('.table-scroll') ?? t.parentElement).getBoundingClientRect();
          const r = t.getBoundingClientRect();
          return { table: t.className, right: Math.round(r.right), box: Math.round(box.right), window: innerWidth };
        })
        .filter((x) => x.right > x.box + 0.5 || x.right > x.window),
    );
    expect(overflowing).toEqual([]);
    expect(await page.$$eval('#real-model table.real-article-scores', (t) => t.length)).toBe(1);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 90_000);

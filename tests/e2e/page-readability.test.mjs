// What a reader can make out, in headless Chromium: the pipeline's matrices
// never crowd two labels into one place and Concat (wO, the output) shows
// which columns belong to which head; the neuron view says which colour is
// negative; the head view names its queries and its keys; the toolbar is
// opaque and stays on screen only over the views its controls act on; the
// note before the first picture is short and still says what is
// illustration, what is evidence and where the real model is; the three
// checks quote the article's three sentences; free mode says, with the run's
// own numbers, how much the gain sharpens its random heads.
import { createAttention } from '../../src/js/node.mjs';
import { runSpec } from '../../web/model/compute.mjs';
import { freeSpec, DEFAULT_FREE, untrainedSpread } from '../../web/model/free-mode.mjs';
import { setUp, openPage, reveal } from './page-helpers.mjs';
import { pageEngineOptions } from './page-builds.mjs';

let zh, en, engine;
beforeAll(async () => {
  [zh, en, engine] = await Promise.all([
    setUp({ locale: 'zh-CN' }),
    setUp({ locale: 'en-US' }),
    createAttention(pageEngineOptions({ isolated: false })),
  ]);
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await zh?.close();
  await en?.close();
});

/** Shows the pipeline's stage and waits for its matrix. */
async function showStage(page, stage) {
  await reveal(page, '#pipeline');
  await page.click(`#pipeline .stages button[data-stage="${stage}"]`);
  await page.waitForFunction(
    (s) =>
      document.querySelector(`#pipeline .stages button[data-stage="${s}"]`)?.getAttribute('aria-pressed') === 'true',
    stage,
  );
}

/**
 * Labels of the matrix that sit closer than their font allows: column labels
 * side by side (their centres less than a line of text plus a pixel apart)
 * and row labels one above the other, in screen pixels.
 */
const crowdedLabels = (page) =>
  page.$eval('#pipeline .matrix svg', (svg) => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const crowded = (nodes, axis) => {
      const items = nodes
        .map((n) => {
          const r = n.getBoundingClientRect();
          const font = Number(getComputedStyle(n).fontSize.replace('px', '')) * scale;
          return { text: n.textContent, at: axis === 'x' ? r.x + r.width / 2 : r.y + r.height / 2, font };
        })
        .sort((a, b) => a.at - b.at);
      return items.slice(1).flatMap((b, i) => {
        const a = items[i];
        return b.at - a.at < Math.max(a.font, b.font) + scale
          ? [`${a.text} | ${b.text}: ${(b.at - a.at).toFixed(1)}`]
          : [];
      });
    };
    const columns = [...svg.querySelectorAll('[data-sticky="y"] text.leaf')];
    // The row labels' layer is the first one sticky in x (the legend's is another).
    const rows = [...svg.querySelector('[data-sticky="x"]').querySelectorAll(':scope > g > text')];
    return { columns: columns.length, rows: rows.length, crowded: [...crowded(columns, 'x'), ...crowded(rows, 'y')] };
  });

test.each([
  ['encoder', ''],
  ['cross', '?mode=cross'],
  ['free', '?mode=free&dmodel=96&heads=3'],
])(
  '%s: X, Concat, wO and the output never crowd two labels together',
  async (_, query) => {
    const { page, problems } = await openPage(zh, query);
    for (const stage of ['x', 'concat', 'wo', 'output']) {
      await showStage(page, stage);
      const { columns, rows, crowded } = await crowdedLabels(page);
      expect({ stage, crowded }).toEqual({ stage, crowded: [] });
      expect(columns).toBeGreaterThan(0);
      expect(rows).toBeGreaterThan(0);
    }
    expect(problems).toEqual([]);
    await page.close();
  },
  60_000,
);

test('Concat, wO and the output: a band per head over its columns, in its colour, and a rule between heads', async () => {
  const { page, problems } = await openPage(en);
  await reveal(page, '#head-view');
  // The heads' colours as the head view's toggles show them.
  const colours = await page.$$eval('#head-view .toggle', (labels) =>
    Object.fromEntries(labels.map((l) => [l.textContent.trim(), l.style.getPropertyValue('--head-color')])),
  );
  const bands = (layer) =>
    page.$$eval(`#pipeline .matrix svg [data-sticky="${layer}"] .head-band`, (groups) =>
      groups.map((g) => {
        const bar = g.querySelector('rect');
        const { width, height } = bar.getBBox();
        return {
          head: g.querySelector('title').textContent,
          size: Math.max(width, height),
          fill: bar.getAttribute('fill'),
        };
      }),
    );
  await showStage(page, 'concat');
  const concat = await bands('y');
  expect(concat.map((b) => b.head)).toEqual(['role head', 'dependency head', 'long-distance head']);
  // Each head's band spans its d_v = 32 columns: three equal bands over the 96 columns.
  expect(new Set(concat.map((b) => Math.round(b.size))).size).toBe(1);
  for (const b of concat) expect(b.fill).toBe(colours[b.head]);
  expect(await page.$$eval('#pipeline .matrix svg line:not(pattern line)', (lines) => lines.length)).toBe(2);
  await showStage(page, 'wo');
  expect((await bands('x')).map((b) => b.head)).toEqual(['role head', 'dependency head', 'long-distance head']);
  expect((await bands('y')).map((b) => b.head)).toEqual(['role head', 'dependency head', 'long-distance head']);
  await showStage(page, 'output');
  expect((await bands('y')).map((b) => b.head)).toEqual(['role head', 'dependency head', 'long-distance head']);
  // The readout names the head too.
  await page.focus('#pipeline .matrix svg');
  await page.keyboard.press('ArrowRight');
  expect(await page.textContent('#pipeline .matrix-readout')).toMatch(/^output \[用 0, role head\/position:1\] = /);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('the neuron view says which colour is negative and which positive, as its cells are drawn', async () => {
  const { page, problems } = await openPage(zh);
  await reveal(page, '#neuron');
  const legend = await page.$$eval('#neuron .neuron-legend .legend-item', (items) =>
    items.map((i) => ({
      text: i.textContent,
      colour: getComputedStyle(i.querySelector('.swatch')).backgroundColor,
    })),
  );
  expect(legend.map((l) => l.text)).toEqual(['负（棕色）', '0', '正（紫色）']);
  // The role head's k of 毒13 pays −2 for its own position: its most negative cell is the row's largest |value|,
  // drawn in the scale's negative end; its largest positive cells in the q row, in the positive end.
  const extremes = await page.$eval('#neuron .neuron-vectors', (svg) => {
    const cells = (row) => [...svg.querySelectorAll(`rect[data-row="${row}"]`)];
    const fillOf = (row, pick) => {
      const list = cells(row);
      const values = list.map((r) => Number(r.dataset.value));
      const i = values.indexOf(pick(...values));
      return getComputedStyle(list[i]).fill;
    };
    return { negative: fillOf('k', Math.min), positive: fillOf('q', Math.max) };
  });
  expect(extremes.negative).toBe(legend[0].colour);
  expect(extremes.positive).toBe(legend[2].colour);
  expect(await page.textContent('#neuron .neuron-legend')).toContain('每一行按它自己的最大 |值| 着色');
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('the head view names its sides: queries left (or above), keys right (or below)', async () => {
  const { page, problems } = await openPage(zh);
  await reveal(page, '#head-view');
  const sides = () =>
    page.$eval('#head-view .head-view-svg svg', (svg) => {
      const box = (el) => el.getBoundingClientRect();
      const name = (side) => svg.querySelector(`.side-names text[data-side="${side}"]`);
      const tokens = (side) => [...svg.querySelectorAll(`.token[data-side="${side}"]`)].map(box);
      const [q, k] = [name('query'), name('key')];
      return { query: q.textContent, key: k.textContent, q: box(q), k: box(k), qt: tokens('query'), kt: tokens('key') };
    });
  const columns = await sides();
  expect([columns.query, columns.key]).toEqual(['查询', '键']);
  expect(columns.q.right).toBeLessThan(columns.k.left);
  // Above its own column: over the first token, and on its side of the gap.
  expect(columns.q.bottom).toBeLessThanOrEqual(columns.qt[0].top + 1);
  expect(columns.q.right).toBeLessThanOrEqual(columns.kt[0].left);
  expect(columns.k.left).toBeGreaterThanOrEqual(columns.qt[0].right);
  await page.check('#head-view input[name="layout"][value="rows"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('layout') === 'rows');
  const rows = await sides();
  // Left of its own row: level with the row's tokens.
  const level = (name, tokens) => name.top < tokens[0].bottom && name.bottom > tokens[0].top;
  expect([level(rows.q, rows.qt), level(rows.k, rows.kt), level(rows.q, rows.kt)]).toEqual([true, true, false]);
  expect(rows.q.right).toBeLessThanOrEqual(rows.qt[0].left + 1);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('the toolbar is opaque and sticks only over the views its controls act on', async () => {
  const { page, problems } = await openPage(zh);
  const toolbar = () =>
    page.$eval('.toolbar', (bar) => ({
      top: bar.getBoundingClientRect().top,
      bottom: bar.getBoundingClientRect().bottom,
      background: getComputedStyle(bar).backgroundColor,
    }));
  expect((await toolbar()).background).toBe('rgb(255, 255, 255)');
  for (const section of ['#heads-grid', '#compare', '#pipeline', '#neuron']) {
    await page.$eval(section, (s) => window.scrollTo(0, s.getBoundingClientRect().top + window.scrollY + 40));
    expect({ section, top: (await toolbar()).top }).toEqual({ section, top: 0 });
  }
  // Training and the real model have controls of their own: the toolbar has left the screen.
  for (const section of ['#about', '#train', '#real-model']) {
    await page.$eval(section, (s) => window.scrollTo(0, s.getBoundingClientRect().top + window.scrollY));
    expect({ section, gone: (await toolbar()).bottom <= 0 }).toEqual({ section, gone: true });
  }
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test.each([
  ['zh', () => zh],
  ['en', () => en],
])(
  '%s: before the first picture a short note: illustration, evidence, real model; the details folded',
  async (_, env) => {
    const { page, problems } = await openPage(env());
    const note = await page.$eval('#heads aside.caveat', (aside) => {
      const lineHeight = parseFloat(getComputedStyle(aside).lineHeight);
      const shown = [...aside.children].filter((c) => c.checkVisibility());
      return {
        lines: Math.round(shown.reduce((h, c) => h + c.getBoundingClientRect().height, 0) / lineHeight),
        links: [...aside.querySelectorAll('a')].filter((a) => a.checkVisibility()).map((a) => a.getAttribute('href')),
        folded: !aside.querySelector('details').open,
        blocks: aside.querySelectorAll('details .x-blocks li').length,
        strong: aside.querySelector('p strong').textContent,
      };
    });
    expect(note.lines).toBeLessThanOrEqual(4);
    expect(note.links).toEqual(['#train', '#real-model']);
    expect(note.folded).toBe(true);
    expect(note.blocks).toBeGreaterThan(0);
    expect(note.strong).toMatch(/^(这些头是示意，不是证据。|Illustrations, not evidence\.)$/);
    // The first heatmap starts on the first screen (1440 × 900).
    const top = await page.$eval('#heads-grid .heatmap svg', (svg) => svg.getBoundingClientRect().top);
    expect(top).toBeLessThan(900);
    expect(problems).toEqual([]);
    await page.close();
  },
  60_000,
);

test.each([
  ['zh', () => zh],
  ['en', () => en],
])(
  '%s: the three checks quote the lede’s three sentences of the article, in every mode',
  async (_, env) => {
    const { page, problems } = await openPage(env());
    const lede = await page.textContent('.lede');
    for (const query of ['', '?mode=decoder', '?mode=cross', '?mode=free']) {
      if (query) await page.goto(`${env().url}${query}`);
      await page.waitForSelector('body[data-ready]');
      await reveal(page, '#pipeline');
      const checks = await page.$$eval('#pipeline .checks li', (items) =>
        items.map((li) => ({ ok: li.className, claim: li.querySelector('q.claim')?.textContent ?? null })),
      );
      expect(checks.map((c) => c.ok)).toEqual(Array(6).fill('ok'));
      const claims = checks.map((c) => c.claim);
      expect(claims.slice(3)).toEqual([null, null, null]);
      for (const claim of claims.slice(0, 3)) expect(lede).toContain(claim);
    }
    expect(problems).toEqual([]);
    await page.close();
  },
  60_000,
);

test('free mode says that its random heads are sharpened for the display, with the run’s own numbers', async () => {
  const { page, problems } = await openPage(en, '?mode=free');
  const text = await page.textContent('#heads aside.caveat');
  expect(text).toContain('a display choice');
  // The same run in Node: the numbers the note gives.
  const { gain, drawn, untrained } = untrainedSpread(await runSpec(engine, freeSpec(DEFAULT_FREE)));
  expect(await page.textContent('#heads .caveat-untrained')).toBe(
    `In this run, a typical row’s largest weight is ${drawn.toFixed(2)} times an even share as drawn (wQ and wK × ` +
      `${gain}), and ${untrained.toFixed(2)} times for the same random heads without that gain (1 is a perfectly ` +
      'even row).',
  );
  expect(await page.isVisible('#heads .caveat-more')).toBe(false);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('jargon is said in plain words: the status line, bits, the role abbreviations', async () => {
  const { page, problems } = await openPage(zh);
  const status = await page.textContent('#status');
  expect(status).toContain('WebAssembly 宽松 SIMD（一条指令同时算 4 个数）');
  expect(status).toContain('已跨源隔离（服务器发送了让网页能用多线程的两个响应头）');
  await reveal(page, '#compare');
  expect(await page.textContent('#compare .summary')).toContain('0 比特是全部权重在一个键上');
  // Every abbreviation under the sentence's characters is spelled out in the line below it.
  const key = await page.textContent('.role-key');
  const shown = await page.$$eval('#sentence .char .role', (roles) => [...new Set(roles.map((r) => r.textContent))]);
  expect(shown.filter(Boolean).filter((short) => !key.includes(`${short} `))).toEqual([]);
  expect(shown.filter(Boolean).length).toBeGreaterThan(4);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

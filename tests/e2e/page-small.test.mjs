// Small screens, keyboards and pictures, in headless Chromium at 390 px: the
// page never scrolls sideways and no caption is cut (captions sit outside the
// scroll boxes); a 40-token sentence keeps readable cells and scrolls inside
// its heatmap, whose labels stay in view; each widget is one Tab stop with
// the arrow keys inside; the exported pictures and the pipeline's matrices
// carry their title and legend. The Chinese page at 390 px goes to test-output/.
import { readFileSync } from 'node:fs';
import { setUp, openPage, chooseMode, reveal, revealAll } from './page-helpers.mjs';

let env, zh;
beforeAll(async () => {
  [env, zh] = await Promise.all([setUp(), setUp({ locale: 'zh-CN' })]);
}, 60_000);
afterAll(async () => {
  await env?.close();
  await zh?.close();
});

/**
 * Text blocks that are cut: wider than the viewport, overflowing their own
 * box, or inside a scroll box that does not show them whole.
 */
const cutText = (page) =>
  page.evaluate(() => {
    const out = [];
    const blocks = document.querySelectorAll(
      'figcaption, caption, p, h1, h2, h3, li, summary, label, legend, .matrix-caption, .readout',
    );
    for (const el of blocks) {
      const box = el.getBoundingClientRect();
      if (!box.width || getComputedStyle(el).visibility === 'hidden' || el.closest('.visually-hidden')) continue;
      if (el.closest('.formula, table')) continue; // the formulas scroll as one piece; tables in their box
      let reason = null;
      if (box.right > window.innerWidth + 0.5) reason = `right ${Math.round(box.right)}`;
      else if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
        reason = 'overflows itself';
      for (let a = el.parentElement; a && !reason; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === 'visible') continue;
        const r = a.getBoundingClientRect();
        if (box.left < r.left - 0.5 || box.right > r.right + 0.5) reason = `clipped by ${a.className}`;
      }
      if (reason) out.push(`${el.tagName}.${el.className}: ${reason}: ${el.textContent.trim().slice(0, 50)}`);
    }
    return out;
  });

const pageOverflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test.each([
  ['en', ''],
  ['zh', '?lang=zh'],
])(
  '390 px (%s): no sideways scroll, no caption cut, in every mode',
  async (lang, query) => {
    const { page, problems } = await openPage(env, query, { width: 390 });
    for (const mode of ['encoder', 'decoder', 'cross']) {
      if (mode !== 'encoder') {
        await chooseMode(page, mode);
      }
      await revealAll(page);
      for (const details of await page.$$('#heads-grid details')) await details.evaluate((d) => (d.open = true));
      await page.waitForSelector('#heads-grid .table-figure');
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      expect(await cutText(page)).toEqual([]);
    }
    // Each English token of the translation keeps its position on its line ("?" and its 14 never part), at
    // whatever width the line breaks.
    const split = await page.$eval('#sentence .english', (p) => {
      const out = new Set();
      for (let width = 120; width <= 360; width += 3) {
        p.style.width = `${width}px`;
        for (const s of p.querySelectorAll('.en-token'))
          if (new Set([...s.getClientRects()].map((r) => Math.round(r.top))).size > 1) out.add(s.textContent);
      }
      p.style.width = '';
      return [...out];
    });
    expect(split).toEqual([]);
    if (lang === 'zh') {
      await chooseMode(page, 'encoder');
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: 'test-output/page-zh-390.png', fullPage: true });
    }
    expect(problems).toEqual([]);
    await page.close();
  },
  90_000,
);

test('a 40-token sentence at 390 px: readable cells, the map scrolls inside its box, its labels stay in view', async () => {
  const text = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
  const { page, problems } = await openPage(env, `?mode=free&text=${encodeURIComponent(text)}`, { width: 390 });
  await page.setViewportSize({ width: 390, height: 700 });
  const map = '#heads-grid .heatmap[data-head="head-0"]';
  await page.waitForSelector(`${map} [data-q="39"][data-k="39"][data-weight]`);
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
  const box = await page.$eval(`${map} .map-scroll`, (b) => ({
    scrolls: b.scrollWidth > b.clientWidth && b.scrollHeight > b.clientHeight,
    cell: b.querySelector('rect[data-q="0"][data-k="0"]').getBoundingClientRect().width,
  }));
  expect(box.scrolls).toBe(true);
  expect(box.cell).toBeGreaterThanOrEqual(14);
  // Scrolled to the far corner: the row and column labels are still at the box's left and top edges.
  await page.locator(map).scrollIntoViewIfNeeded();
  const labels = await page.$eval(`${map} .map-scroll`, async (b) => {
    b.scrollLeft = b.scrollWidth;
    b.scrollTop = b.scrollHeight;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const edge = b.getBoundingClientRect();
    const last = b.querySelector('.row-labels text:last-of-type').getBoundingClientRect();
    const col = b.querySelector('.col-labels text:last-of-type').getBoundingClientRect();
    return {
      rowLabelLeft: last.left - edge.left,
      rowLabelInside: last.right <= edge.right && last.bottom <= edge.bottom + 1,
      colLabelTop: col.top - edge.top,
    };
  });
  expect(labels.rowLabelLeft).toBeGreaterThanOrEqual(-1);
  expect(labels.rowLabelLeft).toBeLessThan(60);
  expect(labels.rowLabelInside).toBe(true);
  expect(labels.colLabelTop).toBeGreaterThanOrEqual(-1);
  expect(labels.colLabelTop).toBeLessThan(60);
  // The caption and the readout stay outside the scroll box.
  expect(await page.$$eval(`${map} .map-scroll figcaption, ${map} .map-scroll .readout`, (e) => e.length)).toBe(0);
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('each widget is one Tab stop, with the arrow keys inside', async () => {
  const { page, problems } = await openPage(env);
  await revealAll(page);
  // Walk the whole page with Tab, noting the widget each stop belongs to.
  const WIDGETS = [
    '.stages',
    '#formula',
    '#head-view .head-view-svg',
    '.export',
    '.head-toggles',
    '.lang-switch',
    '.modes',
  ];
  await page.focus('.skip');
  const stops = [];
  for (let i = 0; i < 300; i++) {
    await page.keyboard.press('Tab');
    const stop = await page.evaluate((widgets) => {
      const a = document.activeElement;
      if (!a || a === document.body || a.dataset.tabSeen) return null; // round the page once
      a.dataset.tabSeen = 'true';
      const widget = widgets.find((w) => a.closest(w));
      return widget ? `${widget}#${[...document.querySelectorAll(widget)].indexOf(a.closest(widget))}` : a.tagName;
    }, WIDGETS);
    if (stop === null) break;
    stops.push(stop);
  }
  const counts = {};
  for (const stop of stops.filter((s) => s.includes('#'))) counts[stop] = (counts[stop] ?? 0) + 1;
  for (const widget of ['.stages#0', '#formula#0', '#head-view .head-view-svg#0', '.export#0', '.head-toggles#0'])
    expect([widget, counts[widget]]).toEqual([widget, 1]);
  expect(Object.values(counts).every((n) => n === 1)).toBe(true);

  // Arrow keys: the stages, the formula's terms, the head view's tokens.
  await page.focus('#pipeline .stages button[tabindex="0"]');
  const before = await page.evaluate(() => document.activeElement.dataset.stage);
  await page.keyboard.press('ArrowRight');
  expect(await page.evaluate(() => document.activeElement.dataset.stage)).not.toBe(before);
  await page.focus('#formula button[tabindex="0"]');
  await page.keyboard.press('End');
  expect(await page.evaluate(() => document.activeElement.dataset.stage)).toBe('wo');
  await page.focus('#head-view .token[tabindex="0"]');
  await page.keyboard.press('ArrowDown');
  expect(
    await page.evaluate(() => [document.activeElement.dataset.side, document.activeElement.dataset.index]),
  ).toEqual(['query', '1']);
  await page.keyboard.press('ArrowRight');
  expect(
    await page.evaluate(() => [document.activeElement.dataset.side, document.activeElement.dataset.index]),
  ).toEqual(['key', '1']);
  await page.keyboard.press('End');
  expect(
    await page.evaluate(() => [document.activeElement.dataset.side, document.activeElement.dataset.index]),
  ).toEqual(['key', '14']);
  await page.keyboard.press('Home');
  expect(
    await page.evaluate(() => [document.activeElement.dataset.side, document.activeElement.dataset.index]),
  ).toEqual(['key', '0']);
  expect(problems).toEqual([]);
  await page.close();
}, 90_000);

test('exported pictures and the pipeline’s matrices carry their title and legend', async () => {
  const { page, problems } = await openPage(zh, '?mode=decoder');
  const download = async (selector) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
    return readFileSync(await file.path(), 'utf8');
  };
  const heatmap = await download('#export-svg');
  expect(heatmap).toContain('>前词头<'); // the title
  expect(heatmap).toContain('>权重<'); // the legend
  expect(heatmap).toContain('被掩码（因果）：恰好为 0'); // the mask's legend
  expect(heatmap).toMatch(/<svg[^>]* lang="zh-Hans"/);
  expect(heatmap).not.toMatch(/data-sticky="[^"]*" transform/);
  await reveal(page, '#head-view');
  const headView = await download('#head-view .export-svg');
  expect(headView).toContain('>头视图<');
  expect(headView).toContain('>线的不透明度 = 权重<');
  for (const name of ['前词头', '同词元头']) expect(headView).toContain(`>${name}<`);
  await reveal(page, '#pipeline');
  for (const stage of ['q', 'weights']) {
    await page.click(`#pipeline .stages button[data-stage="${stage}"]`);
    await page.waitForFunction(
      (s) => new URLSearchParams(location.search).get('stage') === (s === 'weights' ? null : s),
      stage,
    );
    const svg = await page.$eval('#pipeline .matrix svg', (s) => s.textContent);
    expect(svg).toContain(stage === 'q' ? '数值（0 为白）' : '权重');
    const title = await page.$eval('#pipeline .matrix svg [data-sticky="xy"] text', (s) => s.textContent);
    expect(title).toBe(stage === 'q' ? 'Q · 前词头  (17 × 48)' : 'softmax  (17 × 17)');
  }
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

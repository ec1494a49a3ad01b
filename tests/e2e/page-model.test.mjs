// The real-model view (真实模型) in headless Chromium: a tiny random BERT
// checkpoint (tests/fixtures/models/bert-zh) given to the page's file picker
// is loaded by the engine in the page; every layer × head gets a canvas
// thumbnail; the big heatmap of the chosen head holds, bit for bit, the
// attention that Node's model.run gives for the same folder and sentence;
// the tokens are [CLS], the 15 characters and [SEP]; a broken folder shows
// an error and a good load works after it; at 390 px the page does not
// scroll sideways (a 12 × 12 model's 144 thumbnails drawn without freezing the
// page: page-model-freeze.test.mjs, a timed suite); a GPT-2 folder (byte pieces, causal) is drawn with its masked
// cells exactly 0. Screenshots go to test-output/.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { setUp, openPage, readHeatmaps, readNeuron } from './page-helpers.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { formatBytes } from '../../web/model/real-model-files.mjs';
import { allHeadScores, focusRows, standOut, uniformScores } from '../../web/model/real-model-scores.mjs';
import { fixed } from '../../web/lib/format.mjs';
import { articleMap, bestRoleShare, closestHeads } from '../../web/model/real-article.mjs';
import { setLanguage, t } from '../../web/lib/i18n.mjs';
import { pageEngineOptions } from './page-builds.mjs';
import { BERT_FOLDER as FOLDER, load, twelveByTwelve } from './real-model-files.mjs';

/** A fixture folder's checkpoint files, as a reader would pick them (its reference.json left out). */
const folderFiles = (folder) =>
  readdirSync(folder)
    .filter((name) => name !== 'reference.json')
    .map((name) => path.join(folder, name));
const FILES = folderFiles(FOLDER);

let env, engine, model, reference;
beforeAll(async () => {
  env = await setUp({ locale: 'zh-CN' });
  engine = await createAttention(pageEngineOptions({ isolated: false }));
  model = await engine.loadModel(FOLDER);
  reference = await model.run(SENTENCE);
}, 60_000);
afterAll(async () => {
  engine?.dispose();
  await env?.close();
});

/** Drops files on the view as a drag from the desktop would (a DataTransfer of Files), and waits as load() does. */
async function drop(page, files) {
  const named = files.map((file) => ({ name: path.basename(file), bytes: readFileSync(file).toString('base64') }));
  await page.evaluate((list) => {
    const transfer = new DataTransfer();
    for (const { name, bytes } of list)
      transfer.items.add(new File([Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0))], name));
    const target = document.querySelector('#real-model .real-drop');
    for (const type of ['dragover', 'drop'])
      target.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, named);
  await page.waitForSelector('#real-model[data-ready], #real-error:not([hidden])', { timeout: 30_000 });
}

/** The big heatmap's weights against the Node run's, for the head it shows: the mismatches (none expected). */
async function compareHeatmap(page) {
  const maps = await readHeatmaps(page, '#real-model .real-heatmap');
  const names = Object.keys(maps);
  expect(names).toHaveLength(1);
  const [, layer, head] = /^layer-(\d+)-head-(\d+)$/.exec(names[0]).map(Number);
  const L = reference.tokens.length;
  const { numHeads } = model.config;
  const cells = maps[names[0]];
  expect(cells).toHaveLength(L * L);
  const mismatches = cells.filter(
    ([q, k, w]) => !Object.is(w, reference.attention[((layer * numHeads + head) * L + q) * L + k]),
  );
  return { layer, head, mismatches };
}

test('a checkpoint from the file picker: every head as a thumbnail, the chosen one bit for bit as in Node', async () => {
  const { page, problems } = await openPage(env);
  try {
    await page.locator('#real-model').scrollIntoViewIfNeeded();
    expect(await page.textContent('#real-model .real-private')).toContain('文件不会离开你的电脑');
    await load(page, FILES);
    expect(await page.isHidden('#real-error')).toBe(true);
    const { numLayers, numHeads } = model.config;
    expect([numLayers, numHeads]).toEqual([2, 4]);
    expect(await page.locator('#real-model .real-grid canvas').count()).toBe(numLayers * numHeads);
    // The canvases hold pixels (one per query–key cell), not a blank.
    const painted = await page.$$eval('#real-model .real-grid canvas', (canvases) =>
      canvases.map((c) => {
        const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
        return [c.width, c.height, data.some((v, i) => i % 4 !== 3 && v < 200)];
      }),
    );
    expect(painted).toEqual(Array(numLayers * numHeads).fill([17, 17, true]));

    const tokens = await page.$$eval('#real-model .real-token-list li', (items) => items.map((li) => li.textContent));
    expect(tokens).toEqual(['[CLS]', ...SENTENCE, '[SEP]']);
    expect(reference.tokens).toEqual(tokens);

    // The head chosen first, then another one clicked: the engine's weights, unrounded, as Node computes them.
    const first = await compareHeatmap(page);
    expect(first.mismatches).toEqual([]);
    const other = first.layer === 1 && first.head === 2 ? [0, 1] : [1, 2];
    await page.click(`#real-model .thumb[data-layer="${other[0]}"][data-head="${other[1]}"]`);
    await page.waitForSelector(`#real-model .heatmap[data-head="layer-${other[0]}-head-${other[1]}"]`);
    const second = await compareHeatmap(page);
    expect([second.layer, second.head, second.mismatches]).toEqual([...other, []]);
    expect(page.url()).toContain(`rhead=l${other[0]}h${other[1]}`);

    // Where each 毒 looks: six rows, each with its top key's weight, the highest of its row.
    const where = await page.$$eval('#real-model .real-where-table tbody tr', (rows) =>
      rows.map((r) => [Number(r.dataset.q), Number(r.querySelector('td').dataset.weight)]),
    );
    expect(where.map(([q]) => q)).toEqual([2, 3, 4, 7, 13, 14]);
    const L = reference.tokens.length;
    for (const [q, w] of where) {
      const start = ((other[0] * numHeads + other[1]) * L + q) * L;
      expect(w).toBe(Math.max(...reference.attention.subarray(start, start + L)));
    }
    // Sorted by a score: the thumbnails in that order, the first the highest, its value on its label.
    await page.selectOption('#real-order', 'same');
    const labels = await page.$$eval('#real-model .real-grid .thumb-label', (spans) => spans.map((s) => s.textContent));
    const values = labels.map((s) => Number(s.split('·').pop()));
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect(page.url()).toContain('rorder=same');
    // The status says how long the forward pass took, on which build and threads.
    expect(await page.textContent('#real-forward')).toMatch(
      /前向计算 17 个词元用时 [\d.]+ 毫秒 · 引擎：threaded-relaxed-simd/,
    );
    expect(await page.textContent('#real-status')).toContain('2 层 × 4 头');
    await page.selectOption('#real-order', 'grid');
    // The sticky toolbar would cover the top of the section in its picture (set through the CSSOM: the CSP has no inline styles).
    await page.evaluate(() => (document.querySelector('.toolbar').style.position = 'static'));
    await page.locator('#real-model').screenshot({ path: 'test-output/real-model-view.png' });
    // In English: every text of the view written again, the same head still open.
    await page.check('input[name="lang"][value="en"]');
    await page.waitForFunction(() => document.querySelector('#real-model-title').textContent === 'Real model');
    expect(await page.textContent('#real-forward')).toMatch(/^Forward pass over 17 tokens in [\d.]+ ms/);
    expect(await page.textContent('#real-model .real-private')).toMatch(/never leave your computer/);
    expect(await page.textContent('#real-model .heatmap figcaption')).toMatch(/^layer \d · head \d/);
    expect((await compareHeatmap(page)).mismatches).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('a broken folder shows an error in the view; a good folder loads after it', async () => {
  const { page, problems } = await openPage(env);
  try {
    const config = readFileSync(path.join(FOLDER, 'config.json'));
    const weights = readFileSync(path.join(FOLDER, 'model.safetensors'));
    const tokenizer = readFileSync(path.join(FOLDER, 'tokenizer.json'));
    const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
    // Only PyTorch's format: the engine names the file it cannot read.
    await load(page, [file('config.json', config), file('pytorch_model.bin', Buffer.alloc(64))]);
    expect(await page.getAttribute('#real-error', 'role')).toBe('alert');
    expect(await page.textContent('#real-error')).toMatch(/pytorch_model\.bin/);
    // Weights cut short.
    await load(page, [
      file('config.json', config),
      file('tokenizer.json', tokenizer),
      file('model.safetensors', weights.subarray(0, weights.length >> 1)),
    ]);
    expect(await page.isVisible('#real-error')).toBe(true);
    expect(await page.textContent('#real-error')).toMatch(/model\.safetensors/);
    expect(await page.locator('#real-model .real-grid canvas').count()).toBe(0);
    // The page is still usable: the good folder loads and is drawn.
    await load(page, FILES);
    expect(await page.isHidden('#real-error')).toBe(true);
    expect(await page.locator('#real-model .real-grid canvas').count()).toBe(8);
    expect((await compareHeatmap(page)).mismatches).toEqual([]);
    // Another sentence, typed: run again on the same model.
    await page.fill('#real-text', '毒蛇');
    await page.click('#real-run button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll('#real-model .real-token-list li').length === 4);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('390 px, files dropped: the page never scrolls sideways; the thumbnails scroll inside their box', async () => {
  const { page, problems } = await openPage(env, '', { width: 390 });
  try {
    await page.locator('#real-model').scrollIntoViewIfNeeded();
    await drop(page, FILES);
    expect(await page.isHidden('#real-error')).toBe(true);
    expect((await compareHeatmap(page)).mismatches).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    const box = await page.$eval('#real-model .real-grid-box', (b) => {
      const r = b.getBoundingClientRect();
      return { right: r.right, overflow: getComputedStyle(b).overflowX };
    });
    expect(box.right).toBeLessThanOrEqual(390);
    expect(box.overflow).toBe('auto');
    await page.selectOption('#real-order', 'far');
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.locator('#real-model').screenshot({ path: 'test-output/real-model-view-390.png' });
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('GPT-2 (byte-level pieces, causal): the masked cells are hatched and exactly 0; the focus is still 毒', async () => {
  const { page, problems } = await openPage(env);
  try {
    const folder = 'tests/fixtures/models/gpt2';
    const files = folderFiles(folder);
    await load(page, files);
    expect(await page.isHidden('#real-error')).toBe(true);
    const masked = await page.$$eval('#real-model .real-heatmap [data-masked]', (cells) =>
      cells.map((c) => Number(c.dataset.weight)),
    );
    expect(masked.length).toBeGreaterThan(0);
    expect(masked.every((w) => w === 0)).toBe(true);
    expect(await page.inputValue('#real-focus')).toBe('毒');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

/** The text of an element that is neither code nor English data (translate="no", lang="en"), and its Latin words. */
const latinOutsideCode = (page, selector) =>
  page.$eval(selector, (root) => {
    const out = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode())
      if (!node.parentElement.closest('[translate="no"], [lang="en"]'))
        out.push(...(node.textContent.match(/[A-Za-z]{2,}/g) ?? []));
    return out;
  });

/** The message the page's catalogue writes for a load error of `kind` (model/load-errors.mjs), in `lang`. */
function loadMessage(lang, kind, params = {}) {
  setLanguage(lang);
  const text = t('real.error.load', { message: t(`real.loadError.${kind}`, params) });
  setLanguage('en');
  return text;
}

test('the load line counts the files the loader read, not the folder’s others (vocab.txt beside tokenizer.json)', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, FILES);
    expect(await page.isHidden('#real-error')).toBe(true);
    // FILES has vocab.txt too, which the loader does not read beside tokenizer.json.
    expect(FILES.map((f) => path.basename(f))).toContain('vocab.txt');
    const read = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
    const bytes = read.reduce((sum, name) => sum + readFileSync(path.join(FOLDER, name)).length, 0);
    expect(await page.textContent('#real-status')).toContain(`（${read.length} 个文件，${formatBytes(bytes)}，用时`);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('a new focus token redraws the chosen head’s tables; the far score’s bar is one a head can reach', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, FILES);
    const head = await compareHeatmap(page);
    const rowsOf = () =>
      page.$$eval('#real-model .real-where-table tbody tr', (rows) => rows.map((r) => Number(r.dataset.q)));
    expect(await rowsOf()).toEqual([2, 3, 4, 7, 13, 14]);
    // The scores of every head in Node, for a focus token, as the view computes them from the run.
    const { special } = reference;
    const run = { ...reference, numLayers: 2, numHeads: 4 };
    const scored = (focus) => {
      const rows = focusRows(reference.tokens, focus, special);
      const heads = allHeadScores(run, rows);
      return { rows, heads, baseline: uniformScores(reference.tokens, rows, special, false) };
    };
    const cellOf = (score) =>
      page.$eval(`#real-model .real-scores-table tr[data-score="${score}"] td`, (td) => td.textContent);
    const mine = (s) => s.heads.find((h) => h.layer === head.layer && h.head === head.head).scores;
    expect(await cellOf('neighbour')).toBe(fixed(mine(scored('毒')).neighbour));
    // 蛇: its two rows and this head's scores for them, in the same head (no other head was clicked).
    await page.selectOption('#real-focus', '蛇');
    await page.waitForFunction(() => document.querySelectorAll('#real-model .real-where-table tbody tr').length === 2);
    const snake = scored('蛇');
    expect(await rowsOf()).toEqual(snake.rows);
    expect(await page.textContent('#real-model .real-where-title')).toContain('蛇');
    for (const score of ['neighbour', 'same', 'far', 'self'])
      expect(await cellOf(score)).toBe(fixed(mine(snake)[score]));
    expect((await compareHeatmap(page)).mismatches).toEqual([]);

    // 毒 again: far keys take 0.608 of an even row, twice that is beyond 1, so the bar is halfway to 1.
    await page.selectOption('#real-focus', '毒');
    const du = scored('毒');
    const bar = standOut(du.baseline.far);
    expect(bar.rule).toBe('halfway');
    const reach = du.heads.filter((h) => h.scores.far >= bar.threshold).length;
    const far = await page.textContent('#real-model .real-summary li[data-score="far"]');
    expect(far).toContain(`所以这里的标准是这个中点 ${fixed(bar.threshold)}：有 ${reach} 个头达到`);
    expect(far).not.toContain('超过它的两倍');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('GPT-2: the sentence has no special token, so that score names no head and cannot order the grid', async () => {
  const { page, problems } = await openPage(env);
  try {
    const folder = 'tests/fixtures/models/gpt2';
    await load(page, folderFiles(folder));
    expect(await page.isHidden('#real-error')).toBe(true);
    expect(await page.$$eval('#real-model .real-token-list li.special', (l) => l.length)).toBe(0);
    const special = await page.textContent('#real-model .real-summary li[data-score="special"]');
    expect(special).toContain('这句话里没有这样的键');
    expect(special).not.toMatch(/最高|0\.000/);
    expect(await page.textContent('#real-model .real-scores-table tr[data-score="special"] td')).toBe(
      '这句话里没有这样的键',
    );
    expect(await page.$eval('#real-order option[value="special"]', (o) => o.disabled)).toBe(true);
    expect(await page.$eval('#real-order option[value="neighbour"]', (o) => o.disabled)).toBe(false);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('45 tokens: the chosen head’s map is whole on the page, its last rows and legend too (no inner scroll)', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, FILES);
    const text = [...SENTENCE.repeat(3)].slice(0, 43).join('');
    await page.fill('#real-text', text);
    await page.click('#real-run button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll('#real-model .real-token-list li').length === 45);
    await page.waitForSelector('#real-model .real-heatmap [data-q="44"][data-k="44"]');
    const box = await page.$eval('#real-model .real-heatmap .map-scroll', (b) => ({
      scroll: [b.scrollHeight, b.clientHeight, b.scrollWidth, b.clientWidth],
      svg: b.querySelector('svg').getBoundingClientRect().height,
    }));
    const [scrollHeight, clientHeight, scrollWidth, clientWidth] = box.scroll;
    expect(scrollHeight).toBeLessThanOrEqual(clientHeight + 1);
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth + 1);
    // The last row and the legend, scrolled to on the page, are shown: nothing clips them.
    await page.locator('#real-model .real-heatmap .legend').scrollIntoViewIfNeeded();
    const shown = await page.$eval('#real-model .real-heatmap', (figure) => {
      const clip = figure.querySelector('.map-scroll').getBoundingClientRect();
      const inside = (el) => {
        const r = el.getBoundingClientRect();
        return r.top >= clip.top - 1 && r.bottom <= clip.bottom + 1 && r.bottom <= innerHeight + 1 && r.top >= 0;
      };
      return [inside(figure.querySelector('[data-q="44"][data-k="0"]')), inside(figure.querySelector('.legend'))];
    });
    expect(shown).toEqual([true, true]);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('sorted thumbnails in English: every label inside its thumbnail, none over another', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, twelveByTwelve());
    await page.check('input[name="lang"][value="en"]');
    await page.waitForFunction(() => document.querySelector('#real-model-title').textContent === 'Real model');
    await page.selectOption('#real-order', 'same');
    const boxes = await page.$$eval('#real-model .real-grid .thumb', (buttons) =>
      buttons.map((b) => {
        const label = b.querySelector('.thumb-label');
        const [l, r] = [label.getBoundingClientRect(), b.getBoundingClientRect()];
        return {
          text: label.textContent,
          label: [l.left, l.top, l.right, l.bottom],
          thumb: [r.left, r.top, r.right, r.bottom],
        };
      }),
    );
    expect(boxes).toHaveLength(144);
    expect(boxes[0].text).toMatch(/^layer \d+ · head \d+ · [\d.]+$/);
    const outside = boxes.filter(
      ({ label: [l, t, r, b], thumb: [L, T, R, B] }) => l < L - 0.5 || r > R + 0.5 || t < T - 0.5 || b > B + 0.5,
    );
    expect(outside.map((x) => x.text)).toEqual([]);
    const overlaps = [];
    boxes.forEach((a, i) =>
      boxes.slice(i + 1).forEach((b) => {
        const [l1, t1, r1, b1] = a.label;
        const [l2, t2, r2, b2] = b.label;
        if (l1 < r2 - 0.5 && l2 < r1 - 0.5 && t1 < b2 - 0.5 && t2 < b1 - 0.5) overlaps.push(`${a.text} / ${b.text}`);
      }),
    );
    expect(overlaps).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('load errors in the reader’s words, the engine’s own English kept as a detail, in both languages', async () => {
  const { page, problems } = await openPage(env);
  try {
    const file = (name, buffer) => ({ name, mimeType: 'application/octet-stream', buffer });
    const config = readFileSync(path.join(FOLDER, 'config.json'));
    const weights = readFileSync(path.join(FOLDER, 'model.safetensors'));
    const tokenizer = readFileSync(path.join(FOLDER, 'tokenizer.json'));
    const cases = [
      // A file it cannot read.
      [
        [file('config.json', config), file('pytorch_model.bin', Buffer.alloc(64))],
        'badFile',
        { file: 'pytorch_model.bin' },
        /^Error: pytorch_model\.bin: /,
      ],
      // No config.json.
      [
        [file('tokenizer.json', tokenizer), file('model.safetensors', weights)],
        'noConfig',
        { file: 'config.json' },
        /^Error: no config\.json in the folder/,
      ],
      // An architecture the engine does not run.
      [
        [
          file('config.json', Buffer.from(JSON.stringify({ ...JSON.parse(config), model_type: 'nope' }))),
          file('tokenizer.json', tokenizer),
          file('model.safetensors', weights),
        ],
        'modelType',
        { file: 'config.json', field: 'model_type', type: '"nope"' },
        /^Error: config\.json: model_type "nope" is not supported/,
      ],
    ];
    for (const [files, kind, params, detail] of cases) {
      await load(page, files);
      expect(await page.isVisible('#real-error')).toBe(true);
      expect(await page.textContent('#real-error > p')).toBe(loadMessage('zh', kind, params));
      expect(await latinOutsideCode(page, '#real-error')).toEqual([]);
      expect(await page.textContent('#real-error details summary')).toBe('引擎的原话（英文）');
      expect(await page.textContent('#real-error details code[lang="en"]')).toMatch(detail);
    }
    // The language switched: the same error, in English.
    await page.check('input[name="lang"][value="en"]');
    await page.waitForFunction(() => document.querySelector('#real-model-title').textContent === 'Real model');
    const [, kind, params] = cases.at(-1);
    expect(await page.textContent('#real-error > p')).toBe(loadMessage('en', kind, params));
    expect(await page.textContent('#real-error details summary')).toBe('The engine’s own words (English)');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

/** The real view's notes (views/real-article.mjs) by kind. */
const notes = (page) =>
  page.$$eval('#real-model .real-article-notes li', (items) => items.map((li) => li.dataset.note));

test('the real view in the article’s terms: the sentence’s numbers, the 毒 labelled, the closest heads as in Node', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, FILES);
    // [CLS] carries no number, the first 毒 is 1 (as in the designed heads) and a noun: 名 under its number.
    const rows = await page.$$eval('#real-model .real-heatmap .row-labels text', (texts) =>
      texts.map((x) => [...x.querySelectorAll('tspan')].map((s) => s.textContent)),
    );
    expect(rows[0]).toEqual(['[CLS]', '']);
    expect(rows[1]).toEqual(['用', '0']);
    expect(rows.slice(2, 5)).toEqual([
      ['毒', '1', '名'],
      ['毒', '2', '动'],
      ['毒', '3', '定'],
    ]);
    expect(rows.at(-1)).toEqual(['[SEP]', '']);
    expect(await page.textContent('#real-model .real-where-table tbody tr th')).toBe('毒 1 · 名词');
    // The fixture has no output head: nothing measures whether it was trained, and the view says so first.
    expect(await notes(page)).toEqual(['unmeasured', 'numbering']);
    // In the reader's language: no English word in the Chinese reading.
    expect(await latinOutsideCode(page, '#real-model .real-article')).toEqual([]);
    // The closest real heads to each designed head: the page's numbers are Node's, from the engine's own run.
    const { numLayers, numHeads, causal } = model.config;
    const run = { ...reference, numLayers, numHeads, causal };
    const map = articleMap(reference.tokens, reference.special, SENTENCE);
    const want = closestHeads(run, map);
    const shown = await page.$$eval('#real-model .real-closest-table tbody tr', (trs) =>
      trs.map((tr) => ({
        head: tr.dataset.head,
        found: tr.dataset.found,
        best: [...tr.querySelectorAll('button')].map((b) => [Number(b.dataset.layer), Number(b.dataset.head)]),
        cells: [...tr.cells].map((c) => c.textContent),
      })),
    );
    expect(shown.map((r) => [r.head, r.found])).toEqual(want.map((c) => [c.name, String(c.found)]));
    for (const [i, c] of want.entries()) {
      expect(shown[i].best).toEqual(c.best.map((h) => [h.layer, h.head]));
      expect(shown[i].cells[2]).toContain(fixed(c.best[0].score));
      expect(shown[i].cells[3]).toBe(fixed(c.baseline));
    }
    const role = bestRoleShare(run, map);
    expect(Number(await page.getAttribute('#real-model .real-role-share', 'data-share'))).toBe(role.best.share);
    // A closest head's button opens it.
    await page.click('#real-model .real-closest-table tbody tr[data-head="dependency"] button');
    const [dl, dh] = [want[1].best[0].layer, want[1].best[0].head];
    await page.waitForSelector(`#real-model .heatmap[data-head="layer-${dl}-head-${dh}"]`);
    expect(await page.textContent('#real-model .real-article-scores tr[data-head="dependency"] td')).toBe(
      fixed(want[1].best[0].score),
    );
    // The head view of that layer, the chosen head's lines drawn.
    expect(await page.textContent('#real-model .real-head-view-title')).toContain(String(dl));
    expect(await page.locator('#real-model .real-head-view svg .lines line').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('the chosen head without its special tokens, exported as CSV and JSON: the engine’s own weights', async () => {
  const { page, problems } = await openPage(env);
  try {
    await load(page, FILES);
    await page.click('#real-model .thumb[data-layer="1"][data-head="2"]');
    await page.waitForSelector('#real-model .heatmap[data-head="layer-1-head-2"]');
    await page.check('#real-hide-special');
    await page.waitForFunction(
      () => document.querySelectorAll('#real-model .real-heatmap .row-labels text').length === 15,
    );
    expect(await page.isVisible('#real-model .real-hidden-note')).toBe(true);
    const download = async (selector) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
      return { name: file.suggestedFilename(), text: readFileSync(await file.path(), 'utf8') };
    };
    const L = reference.tokens.length;
    const { numHeads } = model.config;
    const weight = (q, k) => reference.attention[((1 * numHeads + 2) * L + q) * L + k];
    const csv = await download('#real-export-csv');
    expect(csv.name).toBe('mha-bert-layer-1-head-2-no-special.csv');
    const lines = csv.text.slice(1).trimEnd().split('\r\n');
    expect(lines[0].split(',').slice(1)).toEqual([...SENTENCE].map((ch, i) => `${ch} ${i}`));
    // Row 毒 1 is the model's position 2; its keys are positions 1 … 15, [CLS] and [SEP] left out, not renormalised.
    expect(lines[2].split(',').slice(1).map(Number)).toEqual(
      Array.from({ length: 15 }, (_, c) => Math.fround(weight(2, c + 1))),
    );
    const json = JSON.parse((await download('#real-export-json')).text);
    expect(json).toMatchObject({ model: 'bert', layer: 1, headIndex: 2, specialHidden: true });
    expect(json.weights[0][0]).toBe(weight(1, 1));
    const png = await download('#real-export-png');
    expect(png.name).toBe('mha-bert-layer-1-head-2-no-special.png');
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('GPT-2: byte pieces and an English vocabulary said as such; nothing to hide; a near-uniform random model flagged', async () => {
  const { page, problems } = await openPage(env);
  try {
    const folder = 'tests/fixtures/models/gpt2';
    await load(page, folderFiles(folder));
    // Its predictions of the sentence, measured, are no better than chance: flagged.
    expect(await notes(page)).toEqual(['chance', 'numbering', 'foreign', 'bytes']);
    expect(await page.isDisabled('#real-hide-special')).toBe(true);
    // 用 in three byte pieces, each numbered 0 (the character's number), the piece counted by a letter, not a
    // subscript digit that ran into the number ("用₁0").
    const first = await page.$$eval('#real-model .real-heatmap .row-labels text', (texts) =>
      texts.slice(0, 4).map((x) => [...x.querySelectorAll('tspan')].map((s) => s.textContent)),
    );
    expect(first).toEqual([
      ['用ᵃ', '0'],
      ['用ᵇ', '0'],
      ['用ᶜ', '0'],
      ['毒', '1', '名'],
    ]);
    // A random BERT initialised as transformers does (weights of about ±0.02): its heads are near uniform.
    await load(page, twelveByTwelve({ scale: 0.04, layers: 2, heads: 4 }));
    // (The section is still data-ready from GPT-2 while the new model loads: wait for its own notes.)
    await page.waitForSelector('#real-model .real-article-notes li[data-note="random"]');
    expect((await notes(page))[0]).toBe('random');
    expect(await page.textContent('#real-model .real-article-notes li[data-note="random"]')).toContain(
      '8 个头里有 8 个',
    );
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 60_000);

test('the neuron view of a real head: the model’s own q and k (a grouped-query key head’s), the softmax of their scores its weight', async () => {
  const { page, problems } = await openPage(env);
  const folder = 'tests/fixtures/models/hf-qwen2';
  const qwen = await engine.loadModel(folder);
  try {
    const want = await qwen.run(SENTENCE, { returnQueryKey: true });
    const { numHeads, numKVHeads, headDim } = qwen.config;
    expect(numKVHeads).toBeLessThan(numHeads); // the key heads are shared
    await load(page, folderFiles(folder));
    await page.click(`#real-model .thumb[data-layer="1"][data-head="${numHeads - 1}"]`);
    await page.waitForFunction(
      (h) => document.querySelector('#real-model .real-neuron select.neuron-head')?.value === `head-${h}`,
      numHeads - 1,
    );
    // Another pair: the query 毒 of position 3 and key 0.
    await page.selectOption('#real-model .real-neuron select.neuron-query', '3');
    await page.selectOption('#real-model .real-neuron select.neuron-key', '0');
    const shown = await readNeuron(page, '#real-model .real-neuron');
    expect([shown.head, shown.q, shown.k]).toEqual([`head-${numHeads - 1}`, 3, 0]);
    const L = want.tokens.length;
    const h = numHeads - 1;
    const g = Math.floor(h / (numHeads / numKVHeads));
    const q0 = ((1 * numHeads + h) * L + 3) * headDim;
    const k0 = ((1 * numKVHeads + g) * L + 0) * headDim;
    expect(shown.qv).toEqual(Array.from(want.query.subarray(q0, q0 + headDim), (v) => v + 0));
    expect(shown.kv).toEqual(Array.from(want.key.subarray(k0, k0 + headDim), (v) => v + 0));
    expect(shown.weight).toBe(want.attention[((1 * numHeads + h) * L + 3) * L + 0]);
    expect(Math.abs(shown.softmax - shown.weight)).toBeLessThan(1e-6);
    // Choosing another head in the neuron view opens it in the whole view.
    await page.selectOption('#real-model .real-neuron select.neuron-head', 'head-0');
    await page.waitForSelector('#real-model .heatmap[data-head="layer-1-head-0"]');
    expect(problems).toEqual([]);
  } finally {
    qwen.dispose();
    await page.close();
  }
}, 60_000);

// The page in its readers' languages, in headless Chromium: a browser that
// prefers Chinese (locale zh-CN) gets the Chinese page, with no English left
// apart from code names and the English data (marked lang="en"); a browser
// that prefers English gets the English page; no message key is missing in
// either (a missing key throws, which the console would show); the 中文 /
// English switch changes every view and goes into the link, and the link
// brings it back; the cross mode's note and the real view's list of
// architectures (Llama, Qwen2, Qwen3 among them) are the catalogue's. The
// Chinese page's screenshot goes to test-output/.
import { setUp, openPage, chooseMode, revealAll, readerText, inLanguage } from './page-helpers.mjs';
import { t } from '../../web/lib/i18n.mjs';
import { ENGLISH } from '../../web/sentence.mjs';
import { DEFAULT_FREE } from '../../web/model/free-mode.mjs';
import { encoderSpec } from '../../web/model/designed-heads.mjs';

// Code names and the names of technologies, which Chinese text keeps as they are.
const CODE = [
  'mha-wasm',
  'WebAssembly',
  'threaded-relaxed-simd',
  'relaxed-simd',
  'threaded-simd',
  'SIMD',
  'simd',
  'COOP',
  'COEP',
  'PyTorch',
  'Transformer',
  'MLP',
  'bertviz',
  'softmax',
  'QKᵀ',
  'MultiHead',
  'Concat',
  'CSV',
  'JSON',
  'SVG',
  'PNG',
  'Enter',
  'd_model',
  'd_k',
  'd_v',
  'wQ',
  'wK',
  'wV',
  'wO',
  // The Hugging Face Hub and the models the real-model view suggests.
  'Hugging Face',
  'Hub',
  'MHA_HUB_ENDPOINTS',
  'BERT',
  'RoBERTa-wwm-ext',
  'XLM-RoBERTa',
  'RoBERTa',
  'GPT-2',
  'SentencePiece',
  'BPE',
  'Google',
  'MarianMT',
  'opus-mt',
  'MASK',
  'Qwen2.5',
  'Qwen3',
  'Qwen2.5-0.5B-Instruct',
  'GGUF',
  'Q4_K_M',
  'Q8_0',
];
const CODE_RE = new RegExp(`(?<![\\w-])(?:${CODE.map((c) => c.replace(/[+]/g, '\\+')).join('|')})(?![\\w-])`, 'g');
// English tokens of the translation named in the page's text ("Will 0", "venom 15"): data, not interface.
const TOKEN_RE = new RegExp(
  `(?:${[...new Set(ENGLISH.map((t) => t.text))].map((w) => w.replace('?', '\\?')).join('|')}) \\d+`,
  'g',
);
// Free mode's default sentence is the reader's data, not interface: its words are taken out of free mode's text.
const FREE_DATA_RE = new RegExp(`\\b(?:${[...new Set(DEFAULT_FREE.text.match(/[A-Za-z]+/g))].join('|')})\\b`, 'g');
/** The English words left in a text once code names, token names, file names, link parameters are taken out. */
const englishIn = (text) =>
  text
    .replace(/[\w/-]+\.(?:mjs|png|svg|csv|json)\b/g, '')
    .replace(/\b[a-z]+=\S*?(?=[\s、，。]|$)/g, '')
    .replace(TOKEN_RE, '')
    .replace(CODE_RE, '')
    .match(/[A-Za-z]{2,}/g) ?? [];
const KEY_LIKE = /^[a-z][A-Za-z]*(?:\.[A-Za-z-]+)+$(?<!\.mjs)/;
/** The cross mode's note beside its button: which side looks at which (zh → en: English looks at Chinese). */
const expectCrossNote = async (page, lang) =>
  expect(await page.textContent('input[name="mode"][value="cross"] ~ small')).toBe(
    inLanguage(lang, () => t('mode.cross.note')),
  );

let zh, en;
beforeAll(async () => {
  [zh, en] = await Promise.all([setUp({ locale: 'zh-CN' }), setUp({ locale: 'en-US' })]);
}, 60_000);
afterAll(async () => {
  await zh?.close();
  await en?.close();
});

/** Every mode's reader text, with every lazily drawn section drawn. */
async function textOfEveryMode(page) {
  const texts = [];
  for (const mode of ['encoder', 'decoder', 'cross']) {
    if (mode !== 'encoder') {
      await chooseMode(page, mode);
      await page.waitForSelector('#heads-grid .heatmap [data-weight]');
    }
    await revealAll(page);
    texts.push(...(await readerText(page)));
  }
  return texts;
}

/**
 * Free mode's reader text in each state that writes text of its own: a run of
 * the default sentence (its words taken out), the empty sentence's message,
 * and the note of a link with a value the page cannot use.
 */
async function textOfFreeMode(env) {
  const texts = [];
  const states = [
    ['?mode=free', '#heads-grid .heatmap [data-weight]'],
    ['?mode=free&text=', '#empty:not([hidden])'],
    ['?mode=free&heads=0', '#link-note:not([hidden])'],
  ];
  for (const [query, shown] of states) {
    const { page, problems } = await openPage(env, query, { ready: false });
    await page.waitForSelector(shown);
    await page.waitForSelector('body[data-ready]');
    await revealAll(page);
    texts.push(...(await readerText(page)).map((text) => text.replace(FREE_DATA_RE, '')));
    if (query.endsWith('text=')) expect(await page.textContent('#empty')).toMatch(/^请输入一个句子/);
    if (query.endsWith('heads=0'))
      expect(await page.textContent('#link-note')).toMatch(/^这个链接里的 heads=0 无法使用/);
    expect(problems).toEqual([]);
    await page.close();
  }
  return texts;
}

test('a browser that prefers Chinese gets the Chinese page: no English left but code names', async () => {
  const { page, problems } = await openPage(zh);
  expect(await page.evaluate(() => [document.documentElement.lang, navigator.language])).toEqual(['zh-Hans', 'zh-CN']);
  expect(await page.textContent('h1')).toContain('多头注意力');
  expect(await page.isChecked('input[name="lang"][value="zh"]')).toBe(true);
  expect(await page.title()).toMatch(/多头注意力/);
  // The standard terms, each a link to what shows it.
  const terms = await page.$$eval('.terms a', (links) => links.map((a) => [a.textContent, a.getAttribute('href')]));
  for (const term of ['编码器自注意力', '掩码自注意力', '编码器—解码器注意力', '拼接', '输出投影'])
    expect(terms.find(([text]) => text === term)?.[1]).toBeTruthy();
  expect(terms.find(([text]) => text.includes('单头注意力不是不行，而是不够好'))[1]).toBe('#train');

  const texts = [...(await textOfEveryMode(page)), ...(await textOfFreeMode(zh))];
  const leftovers = [...new Set(texts.flatMap((text) => englishIn(text).map((w) => `${w} ← ${text.slice(0, 80)}`)))];
  expect(leftovers).toEqual([]);
  expect(texts.filter((text) => KEY_LIKE.test(text))).toEqual([]);
  expect(texts.join('').length).toBeGreaterThan(5000);
  await expectCrossNote(page, 'zh');
  expect(problems).toEqual([]);
  await page.close();
}, 120_000);

test('the caveat where the designed heads appear: visible, links to the training and the real model, ✎ blocks', async () => {
  const { page, problems } = await openPage(zh);
  for (const mode of ['encoder', 'decoder', 'cross']) {
    if (mode !== 'encoder') {
      await chooseMode(page, mode);
    }
    const caveat = page.locator('#heads aside.caveat');
    expect(await caveat.isVisible()).toBe(true);
    // Before the heatmaps: where the heads first appear.
    expect(
      await page.evaluate(() =>
        Boolean(
          document.querySelector('#heads aside.caveat').compareDocumentPosition(document.getElementById('heads-grid')) &
          Node.DOCUMENT_POSITION_FOLLOWING,
        ),
      ),
    ).toBe(true);
    const links = await caveat.evaluate((aside) =>
      [...aside.querySelectorAll('a')]
        .filter((a) => a.checkVisibility())
        .map((a) => [a.getAttribute('href'), a.textContent]),
    );
    expect(links.map(([href]) => href)).toEqual(expect.arrayContaining(['#train', '#real-model']));
    expect(links.find(([href]) => href === '#real-model')[1]).toBe('真实模型显示了什么');
    for (const [href] of links) expect(await page.locator(href).count()).toBe(1);
    // The X blocks: the hand-annotated ones marked ✎, the text's own (character, position) not.
    const blocks = await caveat.evaluate((aside) =>
      [...aside.querySelectorAll('.x-blocks li')].map((li) => [li.className, li.textContent]),
    );
    const annotated = blocks.filter(([c]) => c === 'annotated').map(([, text]) => text);
    const surface = blocks.filter(([c]) => c === 'surface').map(([, text]) => text);
    expect(annotated.length).toBeGreaterThan(0);
    expect(annotated.every((text) => text.startsWith('✎ '))).toBe(true);
    expect(surface.some((text) => text.startsWith('✎'))).toBe(false);
    if (mode === 'encoder') {
      expect(annotated.map((text) => text.split(' · ')[0])).toEqual(
        expect.arrayContaining(['✎ 词', '✎ 角色', '✎ 中心词', '✎ 回指']),
      );
      expect(surface.map((text) => text.split(' · ')[0])).toEqual(expect.arrayContaining(['字', '位置']));
    }
  }
  // The link to the real model goes there.
  await chooseMode(page, 'encoder');
  await page.click('#heads aside.caveat a[href="#real-model"]');
  await page.waitForFunction(() => location.hash === '#real-model');
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

test('an unexpected error: its message as the engine wrote it, inside translated text', async () => {
  const { page } = await openPage(zh);
  await page.evaluate(() => setTimeout(() => Promise.reject(new RangeError('offset is out of bounds'))));
  await page.waitForSelector('#error:not([hidden])');
  expect(await page.textContent('#error')).toBe('已停止：RangeError: offset is out of bounds');
  await page.close();
}, 60_000);

test('sharpness 0 (every row even): no NaN or undefined anywhere, a comparison that says nothing was picked', async () => {
  const { targets, heads } = encoderSpec(0);
  for (const [env, sharpness, texts] of [
    [
      zh,
      '0',
      { flat: '锐度为 0 时就是这样', flatRow: '均匀（没有挑出键）', uniform: '均匀（无可寻找）', bad: /NaN|个选择/ },
    ],
    [zh, '0.5', null],
    [
      en,
      '0',
      {
        flat: 'This is what sharpness 0 does',
        flatRow: 'uniform (no key picked)',
        uniform: 'uniform (nothing to find)',
        bad: /NaN|picks/,
      },
    ],
  ]) {
    const { page, problems } = await openPage(env, `?sharpness=${sharpness}`);
    await revealAll(page);
    const all = await readerText(page);
    expect(all.filter((text) => /\bNaN\b|\bundefined\b/.test(text))).toEqual([]);
    expect(await page.evaluate(() => /\bNaN\b|\bundefined\b/.test(document.body.textContent))).toBe(false);
    if (texts) {
      const summary = await page.textContent('#compare .summary');
      expect(summary).toContain(texts.flat);
      expect(summary).not.toMatch(texts.bad);
      // A head's even row says "nothing to find" only where the head has no target in it.
      const cells = await page.$$eval('#compare table.compare tbody tr', (rows) =>
        rows.map((r) => [...r.querySelectorAll('td')].slice(1, -1).map((td) => td.textContent)),
      );
      expect(cells).toEqual(
        targets[heads[0]].map((_, q) => heads.map((h) => (targets[h][q].keys.length ? texts.flatRow : texts.uniform))),
      );
    }
    expect(problems).toEqual([]);
    await page.close();
  }
}, 90_000);

test('“how to get a model”: always shown, in both languages, by name and as a downloaded folder; every architecture named', async () => {
  for (const [env, title, lang] of [
    [zh, '怎样得到一个模型', 'zh'],
    [en, 'How to get a model', 'en'],
  ]) {
    const { page, problems } = await openPage(env);
    // What the real view runs: the catalogue's text, naming Llama, Qwen2 and Qwen3 too (they were missing).
    const explain = await page.$eval(
      '#real-model p[data-i18n-html="real.explain"]',
      (p, html) => {
        const want = document.createElement('p');
        want.innerHTML = html;
        return { shown: p.textContent, want: want.textContent, visible: p.checkVisibility() };
      },
      inLanguage(lang, () => t('real.explain')),
    );
    expect(explain.visible).toBe(true);
    expect(explain.shown).toBe(explain.want);
    for (const name of ['Llama', 'Qwen2', 'Qwen3'])
      expect(explain.shown).toMatch(new RegExp(`(?<![\\w.-])${name}(?![\\w.-])`));
    const box = page.locator('#real-model .real-howto');
    await box.scrollIntoViewIfNeeded();
    expect(await box.isVisible()).toBe(true);
    expect(await box.locator('h3').textContent()).toBe(title);
    const code = await box.locator('[translate="no"]').allTextContents();
    expect(code).toEqual(
      expect.arrayContaining([
        'google-bert/bert-base-chinese',
        'huggingface-cli download google-bert/bert-base-chinese --local-dir bert-base-chinese',
        'Files and versions',
        'config.json',
      ]),
    );
    // Before any model is loaded or any error shown.
    expect(await page.isHidden('#real-error')).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  }
}, 60_000);

test('a browser that prefers English gets the English page; no key is missing', async () => {
  const { page, problems } = await openPage(en);
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
  expect(await page.textContent('#heads-title')).toBe('The heads');
  const texts = await textOfEveryMode(page);
  expect(texts.filter((text) => KEY_LIKE.test(text))).toEqual([]);
  // Interface text outside marked Chinese spans has no Chinese sentence in it (data such as 毒 or 毒2 may appear).
  const chinese = await page.evaluate(() => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('script, noscript, [lang^="zh"], [translate="no"], .lang-switch')) continue;
      if (/[\u3400-\u9fff]{3,}/.test(node.textContent.replace(/用毒毒毒蛇，毒蛇会不会被毒毒死|毒蛇会不会|会不会/g, '')))
        out.push(node.textContent.trim().slice(0, 80));
    }
    return out;
  });
  expect(chinese).toEqual([]);
  await expectCrossNote(page, 'en');
  expect(problems).toEqual([]);
  await page.close();
}, 90_000);

test('the 中文 / English switch rewrites every view, goes into the link, and the link brings it back', async () => {
  const { page, problems } = await openPage(en, '?mode=cross&stage=concat');
  await revealAll(page);
  await page.check('input[name="lang"][value="zh"]');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('lang') === 'zh');
  await page.waitForFunction(() =>
    document.querySelector('#heads-grid .heatmap figcaption')?.textContent.includes('英文'),
  );
  await revealAll(page);
  expect(await page.textContent('#heads-title')).toBe('注意力头');
  expect(await page.textContent('#pipeline .matrix-caption')).toMatch(/^拼接（17 × 96）/);
  expect(await page.textContent('#neuron .neuron-pair')).toMatch(/^对齐头：查询 venom 15 → 键 毒 1 · 名词$/);
  expect(
    await page.$$eval('#heads-grid .heatmap svg', (s) => s.map((x) => x.getAttribute('aria-label').split('：')[0])),
  ).toEqual(['对齐头', '语序头', '单头']);
  const link = page.url();
  expect(Object.fromEntries(new URL(link).searchParams)).toEqual({ lang: 'zh', mode: 'cross', stage: 'concat' });

  // The link opens in Chinese in a browser that prefers English, with the same view.
  const again = await openPage(en, `?${new URL(link).searchParams}`);
  expect(await again.page.textContent('#heads-title')).toBe('注意力头');
  expect(await again.page.isChecked('input[name="mode"][value="cross"]')).toBe(true);
  // And back: English, in the link too.
  await again.page.check('input[name="lang"][value="en"]');
  await again.page.waitForFunction(() => document.getElementById('heads-title').textContent === 'The heads');
  expect(new URL(again.page.url()).searchParams.get('lang')).toBe('en');
  expect(await again.page.textContent('#status')).toMatch(/^Computed here by /);
  expect([...problems, ...again.problems]).toEqual([]);
  await again.page.close();
  await page.close();
}, 90_000);

test('the Chinese page, 1440 px wide: screenshot in test-output/', async () => {
  const { page, problems } = await openPage(zh, '?lock=q2');
  await page.setViewportSize({ width: 1440, height: 1330 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'test-output/page-zh.png' });
  expect(problems).toEqual([]);
  await page.close();
}, 60_000);

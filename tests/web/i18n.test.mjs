// The page's two catalogues (i18n/zh.mjs, i18n/en.mjs): the same keys, the
// same kind of entry and the same placeholders in both; every key the page's
// markup and code names exists; the language a browser gets.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import en, { PARTS as EN_PARTS } from '../../web/i18n/en.mjs';
import zh, { PARTS as ZH_PARTS } from '../../web/i18n/zh.mjs';
import { preferredLanguage, placeholders, setLanguage, t, LANGUAGES } from '../../web/lib/i18n.mjs';

const kind = (v) => (Array.isArray(v) ? `array of ${v.length}` : typeof v);

test('zh and en have exactly the same keys, and no key is in two parts', () => {
  const missing = (a, b) => Object.keys(a).filter((k) => !(k in b));
  expect({ missingInZh: missing(en, zh), missingInEn: missing(zh, en) }).toEqual({ missingInZh: [], missingInEn: [] });
  for (const parts of [EN_PARTS, ZH_PARTS]) {
    const all = Object.values(parts).flatMap((p) => Object.keys(p));
    expect(all.length).toBe(new Set(all).size);
  }
});

test('each key is the same kind of entry with the same placeholders; no entry is empty', () => {
  const mismatches = Object.keys(en).filter((key) => {
    if (kind(en[key]) !== kind(zh[key])) return true;
    if (typeof en[key] === 'string') return placeholders(en[key]).join() !== placeholders(zh[key]).join();
    return false;
  });
  expect(mismatches).toEqual([]);
  const empty = Object.entries({ ...en, ...zh }).filter(
    ([key, v]) => (v === '' && !key.startsWith('roleShort.')) || (Array.isArray(v) && v.some((x) => !x)),
  );
  expect(empty).toEqual([]);
});

test('every key the markup and the code ask for exists', () => {
  const keys = new Set();
  /** The keys of markup: data-i18n, data-i18n-html and data-i18n-attr's pairs. */
  const markupKeys = (html) => {
    for (const m of html.matchAll(/data-i18n(?:-html)?="([^"$]+)"/g)) keys.add(m[1]);
    for (const m of html.matchAll(/data-i18n-attr="([^"$]+)"/g))
      for (const pair of m[1].split(';')) keys.add(pair.split(':')[1]);
  };
  markupKeys(readFileSync('web/index.html', 'utf8'));
  // Literal keys in the code: t('key' and the keys of the views' markup (views/translation.mjs writes its own).
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? (d.name === 'i18n' ? [] : files(path.join(dir, d.name))) : [path.join(dir, d.name)],
    );
  for (const file of files('web').filter((f) => f.endsWith('.mjs'))) {
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/\bt\(\s*'([^'`$]+)'/g)) keys.add(m[1]);
    if (!file.endsWith('i18n.mjs')) markupKeys(code);
  }
  expect([...keys].filter((k) => !(k in en))).toEqual([]);
  expect(keys.size).toBeGreaterThan(150);
});

test('every message formats in both languages with sample parameters', () => {
  const params = new Proxy(
    {},
    { get: (_, name) => (name === 'causal' || name === 'mlp' || name === 'one' ? false : 2), has: () => true },
  );
  for (const lang of LANGUAGES) {
    setLanguage(lang);
    for (const key of Object.keys(en)) expect(() => t(key, params)).not.toThrow();
  }
  setLanguage('en');
});

test('Chinese strings are Chinese: no English word outside code names and marked spans', () => {
  const CODE =
    /\b(?:wQ|wK|wV|wO|W_O|Q|K|V|X|M|h|i|k|q|d_k|d_v|d_model|dK|dV|dModel|softmax|Concat|MultiHead|CSV|JSON|SVG|PNG|MLP|SIMD|WebAssembly|C\+\+|mha-wasm|threaded-simd|simd|PyTorch|Transformer|bertviz|COOP|COEP|Chrome|Firefox|Safari|JavaScript|Enter|heads|head|model|sentence|mjs|designed-heads|cross-heads|features|Hugging Face|Hub|MHA_HUB_ENDPOINTS|https|BERT|RoBERTa-wwm-ext|XLM-RoBERTa|RoBERTa|GPT-2|SentencePiece|BPE|Google|MarianMT|opus-mt|MASK|Qwen2\.5-0\.5B-Instruct|GGUF|Qwen[\d.]*)\b/g;
  const leftovers = Object.entries(zh).flatMap(([key, value]) => {
    if (typeof value !== 'string') return [];
    const text = value
      .replace(/<span (?:lang="en"|translate="no")>[\s\S]*?<\/span>/g, '')
      .replace(/<[^>]+>/g, '')
      .replace(/\{\w+\}/g, '')
      .replace(CODE, '');
    const words = text.match(/[A-Za-z]{2,}/g);
    return words ? [`${key}: ${words.join(' ')}`] : [];
  });
  expect(leftovers).toEqual([]);
});

test('Chinese for a browser that prefers it, English otherwise; the first language the page has wins', () => {
  expect(preferredLanguage(['zh-CN', 'en'])).toBe('zh');
  expect(preferredLanguage(['zh-TW'])).toBe('zh');
  expect(preferredLanguage(['en-US', 'zh-CN'])).toBe('en');
  expect(preferredLanguage(['ja', 'zh-Hans-CN'])).toBe('zh');
  expect(preferredLanguage(['fr', 'de'])).toBe('en');
  expect(preferredLanguage([])).toBe('en');
});

test('the architectures the real view lists are every one the package runs; small wording fixes', () => {
  // The model_type list the package documents (src/js/types/models.d.ts: ModelConfig.modelType).
  const dts = readFileSync('src/js/types/models.d.ts', 'utf8');
  const types = [
    ...[...dts.matchAll(/export type \w+ModelType = ([^;]*);/g)].flatMap((m) => [...m[1].matchAll(/'([\w-]+)'/g)]),
  ].map((m) => m[1]);
  expect(types).toEqual(expect.arrayContaining(['bert', 'gpt2', 'llama', 'qwen2', 'qwen3', 'marian']));
  const NAMES = {
    bert: 'BERT',
    roberta: 'RoBERTa',
    'xlm-roberta': 'XLM-R',
    camembert: 'CamemBERT',
    gpt2: 'GPT-2',
    marian: 'MarianMT',
    llama: 'Llama',
    qwen2: 'Qwen2',
    qwen3: 'Qwen3',
  };
  for (const catalogue of [en, zh]) {
    const howto = catalogue['real.explain'];
    expect(types.filter((type) => !howto.includes(NAMES[type]))).toEqual([]);
  }
  // √d_k, never "√dK"; the cross mode's note reads as the zh → en article does.
  for (const catalogue of [en, zh])
    expect(Object.values(catalogue).filter((v) => typeof v === 'string' && v.includes('√dK'))).toEqual([]);
  expect(zh['mode.cross.note']).toBe('中译英：英文看中文');
  expect(en['mode.cross.note']).toBe('zh → en: English looks at Chinese');
});

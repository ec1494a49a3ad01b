// The page's two languages from one message catalogue (i18n/zh.mjs,
// i18n/en.mjs): the current language, t() for the views and models that write
// text, and translateDom() for the markup of index.html and the views'
// controls, which name their keys in data attributes:
//   data-i18n="key"                  the element's text
//   data-i18n-html="key"             the element's markup (catalogue strings only, never user text)
//   data-i18n-attr="aria-label:key;title:key2"
// A catalogue entry is a string with {name} placeholders, a function of the
// parameters (plurals, numbers written out), or an array (per-token glosses).
// A missing key or parameter throws: the tests then fail instead of the page
// showing a key. No DOM at import: Node tests use t() as well.
import en from '../i18n/en.mjs';
import zh from '../i18n/zh.mjs';

export const CATALOGUES = Object.freeze({ zh, en });
/** The languages, in the order of the switch. */
export const LANGUAGES = Object.freeze(Object.keys(CATALOGUES));
/** The language of a reader whose browser prefers neither. */
export const FALLBACK = 'en';
/** The value of <html lang> and of the lang attribute of each language's text. */
export const HTML_LANG = Object.freeze({ zh: 'zh-Hans', en: 'en' });

let current = FALLBACK;

/** The first of the browser's languages (navigator.languages) that the page has, else English. */
export function preferredLanguage(languages = []) {
  for (const tag of languages) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (LANGUAGES.includes(primary)) return primary;
  }
  return FALLBACK;
}

export const language = () => current;

export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) throw new RangeError(`i18n: no language "${lang}" (have ${LANGUAGES.join(', ')})`);
  current = lang;
}

/** Replaces {name} with params[name]; a placeholder without its parameter throws. */
export function interpolate(text, params = {}, key = '') {
  return text.replace(/\{(\w+)\}/g, (_, name) => {
    if (!(name in params)) throw new RangeError(`i18n: "${key}" needs the parameter {${name}}`);
    return String(params[name]);
  });
}

/** The entry of a key in a language, unformatted. */
export function entry(key, lang = current) {
  const value = CATALOGUES[lang][key];
  if (value === undefined) throw new RangeError(`i18n: no message "${key}" in ${lang}`);
  return value;
}

/** The text of a key in the current language (an array entry comes back as it is). */
export function t(key, params = {}) {
  const value = entry(key);
  if (typeof value === 'function') return value(params);
  if (Array.isArray(value)) return value;
  return interpolate(value, params, key);
}

/** The {name} placeholders of a string entry, sorted (the catalogue test compares them across languages). */
export const placeholders = (text) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

/**
 * Writes the current language into every element under root that names a key
 * (see above); params fill the placeholders (numbers the code defines).
 * On the document it also sets <html lang>, the title and the description.
 */
export function translateDom(root, params = {}) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n, params);
  for (const node of root.querySelectorAll('[data-i18n-html]')) node.innerHTML = t(node.dataset.i18nHtml, params);
  for (const node of root.querySelectorAll('[data-i18n-attr]'))
    for (const pair of node.dataset.i18nAttr.split(';')) {
      const [attr, key] = pair.split(':');
      node.setAttribute(attr.trim(), t(key.trim(), params));
    }
  if (root.documentElement) {
    root.documentElement.lang = HTML_LANG[current];
    root.title = t('page.title');
    root.querySelector('meta[name="description"]')?.setAttribute('content', t('page.description'));
  }
}

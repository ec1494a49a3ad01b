// Free mode's tokenizer. It works on grapheme clusters (Intl.Segmenter), so
// what a reader sees as one character stays one: a family emoji joined by
// ZWJ, a heart with its variation selector, a flag, a letter with a combining
// accent. CJK (Han, kana, Hangul, bopomofo) gives one token per character;
// other scripts one per word, where a word is letters, digits and connector
// punctuation (so identifiers such as W_O or d_model stay whole), joined
// across ' ’ - (don't, state-of-the-art) and, between digits, . and , (3.14).
// Anything else that is visible is a token of its own (punctuation, symbols,
// emoji); spaces and invisible marks on their own are dropped. Pure.

/** The most tokens a sentence gives; the rest is left out (and the result says so). */
export const MAX_TOKENS = 40;

const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u;
const WORD = /^[\p{L}\p{N}\p{Pc}][\p{M}]*$/u;
// Emoji that start with a digit or letter (keycaps 1️⃣, #️⃣) or carry an emoji presentation selector.
const EMOJI = /[\u20e3\ufe0f]|\p{Extended_Pictographic}/u;
const INVISIBLE = /^[\s\p{Cc}\p{Cf}\p{M}\p{Zs}]+$/u;
const JOINERS = new Set(["'", '’', '-']);
const NUMBER_JOINERS = new Set(['.', ',']);
const SCRIPT_LANG = [
  [/\p{Script=Hangul}/u, 'ko'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Han}/u, 'zh'],
];

const segmenter =
  typeof Intl === 'object' && Intl.Segmenter ? new Intl.Segmenter('und', { granularity: 'grapheme' }) : null;

/** The grapheme clusters of a text (code points where Intl.Segmenter is missing). */
export const graphemes = (text) =>
  segmenter ? Array.from(segmenter.segment(text), (s) => s.segment) : Array.from(text);

const isCjk = (g) => CJK.test(g);
const isWordPart = (g) => !isCjk(g) && WORD.test(g) && !EMOJI.test(g);
const isDigit = (g) => /^\p{Nd}/u.test(g);

/**
 * Splits text into tokens (see above).
 * @returns {{ tokens: string[], truncated: boolean }} at most MAX_TOKENS tokens
 */
export function tokenize(text) {
  const all = [];
  let word = '';
  let lastPart = '';
  let joiner = '';
  const flush = () => {
    if (word) all.push(word);
    if (joiner) all.push(joiner);
    word = joiner = lastPart = '';
  };
  for (const g of graphemes(String(text))) {
    if (isWordPart(g)) {
      if (joiner) {
        const joins = JOINERS.has(joiner) || (isDigit(lastPart) && isDigit(g));
        if (!joins) flush();
        else word += joiner;
        joiner = '';
      }
      word += g;
      lastPart = g;
      continue;
    }
    if (word && !joiner && (JOINERS.has(g) || NUMBER_JOINERS.has(g))) {
      joiner = g;
      continue;
    }
    flush();
    if (!INVISIBLE.test(g)) all.push(g);
  }
  flush();
  return { tokens: all.slice(0, MAX_TOKENS), truncated: all.length > MAX_TOKENS };
}

/** The language of a CJK token for its lang attribute (Korean, Japanese kana, Chinese), else undefined. */
export function tokenLanguage(token) {
  if (!isCjk(token)) return undefined;
  return SCRIPT_LANG.find(([re]) => re.test(token))[1];
}

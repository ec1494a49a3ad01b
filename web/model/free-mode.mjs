// Free mode: any sentence, seeded random heads. Tokenizes the text, builds X
// (a seeded vector per distinct token plus a sinusoidal position code) and
// random wQ, wK, wV, wO; the same spec shape as designed-heads.mjs. Pure.
import { mulberry32, normal, hashText, randomWeights } from './random.mjs';
import { positionCode } from './positions.mjs';
import { singleHeadArgs } from './single-head.mjs';
import { headName } from './head-names.mjs';

/** The longest sentence the free-mode form (and a link) takes, in characters. */
export const MAX_TEXT = 400;
export const MAX_TOKENS = 40;
/** Seeds are 32-bit: mulberry32 uses only the low 32 bits. */
export const MAX_SEED = 2 ** 32 - 1;
export const MAX_HEADS = 8;
export const DK_CHOICES = Object.freeze([2, 4, 8, 16, 32]);
export const DEFAULT_FREE = Object.freeze({
  text: '注意力机制 lets every token look at every other token.',
  numHeads: 4,
  dK: 8,
  seed: 18,
  causal: false,
});
// See randomWeights: makes the untrained heads' softmax visibly non-flat.
const QK_GAIN = 3;

// Scripts written without spaces between words: one token per character.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\p{Script=Bopomofo}';
const TOKEN = new RegExp(
  [
    `[${CJK}]`, // one CJK character
    // a word (don't, state-of-the-art)
    `(?:(?![${CJK}])[\\p{L}\\p{M}\\p{N}])+(?:['’-](?:(?![${CJK}])[\\p{L}\\p{M}\\p{N}])+)*`,
    '[^\\s]', // anything else that is not a space: punctuation, a symbol
  ].join('|'),
  'gu',
);
const CJK_CHAR = new RegExp(`^[${CJK}]$`, 'u');

/**
 * Splits text into tokens: CJK (Han, kana, Hangul, bopomofo) one per character,
 * other scripts one per word, punctuation one per mark.
 * @returns {{ tokens: string[], truncated: boolean }} at most MAX_TOKENS tokens
 */
export function tokenize(text) {
  const all = String(text).match(TOKEN) ?? [];
  return { tokens: all.slice(0, MAX_TOKENS), truncated: all.length > MAX_TOKENS };
}

/**
 * X [tokens, dModel]: a seeded N(0, 1) vector per distinct token text (the same
 * text always gets the same vector for a seed, so repeated tokens start
 * alike) plus the sinusoidal position code (positions.mjs), which is what
 * tells repeated tokens apart.
 */
export function embed(tokens, dModel, seed) {
  const x = new Float32Array(tokens.length * dModel);
  tokens.forEach((text, pos) => {
    const random = mulberry32(hashText(text) ^ seed);
    for (let d = 0; d < dModel; d++) x[pos * dModel + d] = normal(random) + positionCode(pos, d, dModel);
  });
  return x;
}

/** The free-mode spec: numHeads random heads of width dK (dModel = numHeads·dK, dV = dK) and their single head. */
export function freeSpec({ text, numHeads, dK, seed, causal }) {
  const { tokens, truncated } = tokenize(text);
  if (tokens.length === 0) throw new RangeError('Free mode: type a sentence first (it has no tokens).');
  const dModel = numHeads * dK;
  const heads = Array.from({ length: numHeads }, (_, h) => headName(h));
  const args = {
    query: embed(tokens, dModel, seed),
    seqLenQ: tokens.length,
    dModel,
    numHeads,
    dK,
    dV: dK,
    ...randomWeights({ seed, dModel, numHeads, dK, dV: dK, qkGain: QK_GAIN }),
    causal,
    returnAttention: true,
    returnProjections: true,
  };
  const queryTokens = tokens.map((t, i) => ({
    text: t,
    index: i,
    lang: CJK_CHAR.test(t) ? 'zh' : undefined,
    title: t,
  }));
  const dims = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const perHead = (width) => heads.flatMap((h) => dims(`${h}/`, width));
  return {
    mode: 'free',
    heads,
    args,
    single: singleHeadArgs(args),
    queryTokens,
    keyTokens: queryTokens,
    truncated,
    labels: {
      x: dims('x', dModel),
      keyX: dims('x', dModel),
      q: perHead(dK),
      k: perHead(dK),
      v: perHead(dK),
      out: dims('out', dModel),
    },
    targets: null,
  };
}

// The real-model view's numbers (views/real-model.mjs): where the heads of a
// loaded checkpoint look on a sentence, measured from the engine's attention
// [numLayers, numHeads, L, L] (rows are queries). Pure: no DOM, no engine.
//
// The scores ask of one head what the article asks of its designed heads,
// for the focus rows (by default every occurrence of the token the sentence
// repeats most: the six 毒): how much of each row's weight goes to its
// neighbours (|i−j| = 1), to the other occurrences of the same token, to far
// tokens (|i−j| ≥ 4), to the special tokens ([CLS], [SEP], <s> …) and to
// itself; each is the mean over the focus rows of a sum of weights, so 0…1.
// Which tokens are special is the model's word (its tokenizer's list, as
// `special` of a run's result: 1 per special position), never a guess from
// the token's text.

import { tokenLanguage } from './tokenize.mjs';

/** The scores, in the order of the view's sort menu. */
export const SCORES = Object.freeze(['neighbour', 'same', 'far', 'special', 'self']);

/** The orders of the view's thumbnails: layer × head, or by a score, highest first. */
export const ORDERS = Object.freeze(['grid', ...SCORES]);

/** The distance from which a key is "far". */
export const FAR = 4;

const SUBSCRIPTS = /[\u2080-\u2089]+$/;

/** A token without the subscript that numbers the byte pieces of one character (GPT-2's "毒₁" → "毒"). */
export const baseText = (token) => token.replace(SUBSCRIPTS, '');

/** True for the first (or only) piece of a character: "毒", "毒₁", not "毒₂". */
const startsOccurrence = (token) => {
  const m = SUBSCRIPTS.exec(token);
  return !m || m[0] === '\u2081';
};

/**
 * For each position: its base text and its occurrence number (the byte
 * pieces of one character share one occurrence; every other token is one).
 */
export function occurrences(tokens) {
  let n = -1;
  return tokens.map((token, i) => {
    const base = baseText(token);
    if (i === 0 || startsOccurrence(token) || baseText(tokens[i - 1]) !== base) n++;
    return { base, occurrence: n };
  });
}

/**
 * The tokens a sentence repeats (ignoring special tokens and blanks), most
 * frequent first (ties: the earlier first): [{ text, positions }], where
 * text is the base text and positions every position of it (all pieces).
 */
export function repeatedTokens(tokens, special) {
  const occ = occurrences(tokens);
  const groups = new Map();
  occ.forEach(({ base, occurrence }, i) => {
    if (special[i] || !base.trim()) return;
    if (!groups.has(base)) groups.set(base, { text: base, positions: [], occurrences: new Set() });
    const g = groups.get(base);
    g.positions.push(i);
    g.occurrences.add(occurrence);
  });
  return [...groups.values()]
    .filter((g) => g.occurrences.size >= 2)
    .map((g) => ({ text: g.text, positions: g.positions, count: g.occurrences.size }))
    .sort((a, b) => b.count - a.count || a.positions[0] - b.positions[0]);
}

/** The focus rows: every position of `text` (base text), or every non-special position when text is ''. */
export function focusRows(tokens, text, special) {
  const rows = [];
  tokens.forEach((token, i) => {
    if (special[i]) return;
    if (text === '' || baseText(token) === text) rows.push(i);
  });
  return rows;
}

/**
 * The scores of one head: weights is its [L, L] block (row-major), rows the
 * focus rows. Each score is the mean over the rows of a sum of weights.
 * @returns {{ neighbour: number, same: number, far: number, special: number, self: number }}
 */
export function headScores(weights, tokens, rows, special) {
  const L = tokens.length;
  const occ = occurrences(tokens);
  const sums = { neighbour: 0, same: 0, far: 0, special: 0, self: 0 };
  for (const i of rows) {
    const row = i * L;
    for (let j = 0; j < L; j++) {
      const w = weights[row + j];
      const d = Math.abs(i - j);
      if (d === 1) sums.neighbour += w;
      if (d >= FAR) sums.far += w;
      if (d === 0) sums.self += w;
      if (special[j]) sums.special += w;
      else if (occ[j].base === occ[i].base && occ[j].occurrence !== occ[i].occurrence) sums.same += w;
    }
  }
  const n = rows.length || 1;
  return Object.fromEntries(SCORES.map((s) => [s, sums[s] / n]));
}

/** One head's [L, K] block of the attention [numLayers, numHeads, L, K] (K: keys, L for self-attention). */
export function headWeights(attention, { numHeads, length, keys = length }, layer, head) {
  const block = length * keys;
  const start = (layer * numHeads + head) * block;
  return attention.subarray(start, start + block);
}

/**
 * Every head's scores: [{ layer, head, scores }] in layer-major order.
 * @param {{ attention: Float32Array, tokens: string[], special: ArrayLike<number>, numLayers: number, numHeads: number }} run
 */
export function allHeadScores({ attention, tokens, special, numLayers, numHeads }, rows) {
  const out = [];
  const dims = { numHeads, length: tokens.length };
  for (let layer = 0; layer < numLayers; layer++)
    for (let head = 0; head < numHeads; head++)
      out.push({ layer, head, scores: headScores(headWeights(attention, dims, layer, head), tokens, rows, special) });
  return out;
}

/**
 * The same scores for rows that spread their weight evenly over the keys they
 * may see (every key, or keys j ≤ i when causal): what a head that looks
 * nowhere in particular would score, to read the real heads against.
 */
export function uniformScores(tokens, rows, special, causal = false) {
  const L = tokens.length;
  const weights = new Float64Array(L * L);
  for (let i = 0; i < L; i++) {
    const seen = causal ? i + 1 : L;
    for (let j = 0; j < seen; j++) weights[i * L + j] = 1 / seen;
  }
  return headScores(weights, tokens, rows, special);
}

/** The heads sorted by one score, highest first (ties: layer-major order). */
export function rankHeads(heads, score) {
  return heads
    .map((h, order) => ({ h, order }))
    .sort((a, b) => b.h.scores[score] - a.h.scores[score] || a.order - b.order)
    .map(({ h }) => h);
}

/** The top k keys of row q: [{ k, weight }], highest weight first (ties: the earlier key). */
export function topKeys(weights, length, q, count = 3) {
  const row = [];
  for (let k = 0; k < length; k++) row.push({ k, weight: weights[q * length + k] });
  row.sort((a, b) => b.weight - a.weight || a.k - b.k);
  return row.slice(0, count);
}

/** The median of numbers (0 for none). */
export function median(values) {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Whether a score says anything on this sentence: some focus row can see a
 * key of its kind, so the even spread's score (`baseline`, uniformScores) is
 * above 0. GPT-2's sentence has no special tokens: its heads all score 0 there.
 */
export const scoreApplies = (baseline, score) => baseline[score] > 0;

/**
 * The bar a head must reach to stand out from the even spread's score
 * `base`: twice it, or halfway from it to 1 once twice would be out of reach
 * or nearly (a score is at most 1, and far keys take 0.608 of an even row
 * over the sentence's 毒): min(2·base, (1 + base) / 2), the two meeting at
 * base = 1/3. Always below 1 for a base below 1, so some head can reach it.
 * @returns {{ rule: 'twice' | 'halfway', threshold: number }}
 */
export function standOut(base) {
  return base <= 1 / 3 ? { rule: 'twice', threshold: 2 * base } : { rule: 'halfway', threshold: (1 + base) / 2 };
}

/**
 * What the view's text says about one score, from the numbers only: the
 * highest head, the median over heads, and how many heads reach the bar
 * that stands out from the uniform baseline (standOut), with that bar (and
 * how many exceed 0.5). A score that does not apply to the sentence
 * (scoreApplies) has null best and bar: no head can score on it.
 */
export function scoreSummary(heads, score, baseline) {
  const values = heads.map((h) => h.scores[score]);
  const base = baseline[score];
  const applies = scoreApplies(baseline, score);
  const bar = applies ? standOut(base) : null;
  return {
    score,
    applies,
    best: applies ? (rankHeads(heads, score)[0] ?? null) : null,
    median: median(values),
    baseline: base,
    bar: bar && { ...bar, count: values.filter((v) => v >= bar.threshold).length },
    aboveHalf: values.filter((v) => v > 0.5).length,
    count: values.length,
  };
}

/** The page's token records ({ text, index, lang }) for the heatmap, from the model's readable pieces. */
export function tokenRecords(tokens) {
  return tokens.map((text, index) => {
    let lang;
    try {
      lang = tokenLanguage(baseText(text));
    } catch {
      lang = undefined;
    }
    return { text, index, lang, title: '' };
  });
}

// The real-model view in the article's terms (views/real-article.mjs): which
// characters of the sentence each of a checkpoint's tokens stands for, so that
// the six 毒 keep their numbers and their roles (noun, verb, modifier) from
// sentence.mjs in the real view too; how well the model's vocabulary holds
// the sentence (a character cut into byte pieces, an unknown token); whether
// its heads look anywhere at all (a random checkpoint's are near uniform);
// and, for each designed head (targets.mjs: role, dependency, long-distance),
// how much weight each real head puts where that designed head looks, against
// what an even spread would put there, and which real heads come closest.
// Pure: no DOM, no engine.
//
// Reading the tokens against the text is model/token-text.mjs's.
import { TOKENS, SENTENCE, maskedSentence } from '../sentence.mjs';
import { TARGETS } from './targets.mjs';
import { headWeights, standOut, tokenRecords } from './real-model-scores.mjs';
import { alignToText } from './token-text.mjs';
import { headName } from './head-names.mjs';

/** The designed encoder heads a real head is compared with, in the page's order. */
export const ARTICLE_HEADS = Object.freeze(['role', 'dependency', 'long-distance']);

/** Below this share of near-uniform heads a checkpoint is not called "near uniform". */
export const UNIFORM_SHARE = 0.9;
/** A head whose rows keep at least this share of the even spread's entropy looks nowhere in particular. */
export const UNIFORM_ENTROPY = 0.97;

/**
 * The run mapped onto the page's sentence (sentence.mjs), or null when the
 * text is another sentence or the tokens cannot be read against it.
 * @returns {null | { cover: number[][], pieces: number[], unknown: boolean[],
 *   tokensOf: number[][] }} tokensOf[c]: the positions that stand for character c of TOKENS
 */
export function articleMap(tokens, special, text, maskToken) {
  // The sentence with some characters replaced by the model's mask token (fill-mask's [MASK] on a 毒) is still the
  // sentence: each mask token stands for the character it hides, so numbers, roles and targets stay.
  const masked = String(text).replace(/\s/gu, '') === SENTENCE ? null : maskedSentence(text, maskToken);
  if (String(text).replace(/\s/gu, '') !== SENTENCE && !masked) return null;
  if (masked) {
    let k = 0;
    const hidden = tokens.map((token) => (token === maskToken ? masked.hidden[k++] : null));
    if (k !== masked.hidden.length) return null;
    tokens = tokens.map((token, i) => hidden[i] ?? token);
    special = Array.from(special, (f, i) => (hidden[i] ? 0 : f));
    text = SENTENCE;
  }
  const aligned = alignToText(tokens, special, text);
  if (!aligned.complete) return null;
  // The text is the sentence with spaces, maybe: its characters but spaces are the sentence's, in order.
  const ofChar = new Map();
  aligned.chars.forEach((ch, i) => {
    if (ch.trim() !== '') ofChar.set(i, ofChar.size);
  });
  const cover = aligned.cover.map((chars) => chars.map((c) => ofChar.get(c)));
  const tokensOf = TOKENS.map(() => []);
  cover.forEach((chars, i) => chars.forEach((c) => tokensOf[c].push(i)));
  return { cover, pieces: aligned.pieces, unknown: aligned.unknown, tokensOf };
}

/**
 * The number a token carries in the views: the sentence's own numbering
 * (0 for 用, 1 for the first 毒, as in the designed views), so [CLS] or <s>
 * does not shift it; "3–4" for a token that stands for two characters;
 * '' for a special token.
 */
export function articleIndex(map, i) {
  const chars = map.cover[i];
  if (!chars.length) return '';
  return chars.length === 1 ? String(chars[0]) : `${chars[0]}–${chars[chars.length - 1]}`;
}

/** The role of token i where it stands for one 毒 (noun, verb, modifier), else null: the tag the views show. */
export function articleRole(map, i) {
  const chars = map.cover[i];
  if (chars.length !== 1 || TOKENS[chars[0]].char !== '毒') return null;
  return TOKENS[chars[0]].role;
}

/**
 * The heatmap's token records of a run (tokenRecords), in the article's
 * terms where `map` is not null: the sentence's numbers (`label`), a 毒's
 * role (`duRole`) and the character's gloss (`title`; `glosses` in the
 * page's language, one per character of the sentence).
 */
export function articleRecords(tokens, map, glosses = []) {
  const records = tokenRecords(tokens);
  if (!map) return records;
  return records.map((r, i) => {
    const role = articleRole(map, i);
    const chars = map.cover[i];
    return {
      ...r,
      label: articleIndex(map, i),
      ...(role && { duRole: role }),
      title: chars
        .map((c) => glosses[c])
        .filter(Boolean)
        .join(' · '),
    };
  });
}

/**
 * How the model's vocabulary holds the sentence's characters: how many are
 * a whole token of their own, inside a token of several characters, cut into
 * byte pieces (spread over two tokens or more), or unknown. `foreign` is true when half or more are cut into
 * bytes or unknown: the tokenizer was made for other languages (GPT-2's for
 * English), so the model reads the sentence as pieces of bytes.
 */
export function vocabularyFit(map) {
  const counts = { whole: 0, merged: 0, bytes: 0, unknown: 0, total: TOKENS.length };
  map.tokensOf.forEach((positions) => {
    if (positions.some((i) => map.unknown[i])) counts.unknown++;
    else if (positions.length > 1) counts.bytes++;
    else if (positions.some((i) => map.cover[i].length > 1)) counts.merged++;
    else counts.whole++;
  });
  return { ...counts, foreign: 2 * (counts.bytes + counts.unknown) >= counts.total };
}

/**
 * How far one head's rows are from looking anywhere: the mean over rows of
 * the row's entropy over the even spread's (log of the keys it may see),
 * rows that see one key only left out. 1: every row even; near 0: each row on one key.
 */
export function evenness(weights, L, causal) {
  let sum = 0;
  let rows = 0;
  for (let q = 0; q < L; q++) {
    const seen = causal ? q + 1 : L;
    if (seen < 2) continue;
    let h = 0;
    for (let k = 0; k < seen; k++) {
      const w = weights[q * L + k];
      if (w > 0) h -= w * Math.log(w);
    }
    sum += h / Math.log(seen);
    rows++;
  }
  return rows ? sum / rows : 1;
}

/**
 * Whether a checkpoint's heads look anywhere: the share of heads whose rows
 * are near even (evenness ≥ UNIFORM_ENTROPY). A random, untrained
 * checkpoint's heads are near uniform (its query and key vectors are small
 * and unrelated), so `nearUniform` (UNIFORM_SHARE of the heads or more) flags it.
 */
export function headEvenness({ attention, tokens, numLayers, numHeads, causal }) {
  const L = tokens.length;
  const values = [];
  for (let layer = 0; layer < numLayers; layer++)
    for (let head = 0; head < numHeads; head++)
      values.push(evenness(headWeights(attention, { numHeads, length: L }, layer, head), L, causal));
  const even = values.filter((v) => v >= UNIFORM_ENTROPY).length;
  return { values, even, count: values.length, nearUniform: even >= UNIFORM_SHARE * values.length };
}

/**
 * Where one designed head looks, as the real head's positions: for each
 * character q of the sentence that has targets (the designed head's
 * annotated keys), its query positions and the key positions that stand for
 * the targets, those it can see (causal: not after the query) and not part
 * of its own token (a tokenizer that made 毒蛇 one token leaves 毒3 → 蛇4
 * inside one token, where no head can look).
 * @returns {{ char: number, queries: number[], keys: number[] }[]}
 */
export function articleRows(map, name, causal) {
  const targets = TARGETS[name](TOKENS);
  const rows = [];
  targets.forEach(({ keys: targetChars }, q) => {
    const queries = map.tokensOf[q];
    if (!queries.length || !targetChars.length) return;
    const own = new Set(queries);
    const last = Math.max(...queries);
    const keys = [...new Set(targetChars.flatMap((c) => map.tokensOf[c]))].filter(
      (k) => !own.has(k) && (!causal || k <= last),
    );
    if (keys.length) rows.push({ char: q, queries, keys });
  });
  return rows;
}

/**
 * The share of weight a head's query positions put on the rows' keys,
 * the mean over rows of the mean over the row's query positions (causal: the
 * keys after a query position take nothing, as in the head).
 */
export function rowsScore(weights, L, rows) {
  if (!rows.length) return 0;
  let sum = 0;
  for (const { queries, keys } of rows) {
    let row = 0;
    for (const q of queries) for (const k of keys) row += weights[q * L + k];
    sum += row / queries.length;
  }
  return sum / rows.length;
}

/** The even spread's [L, L] rows (every key, or keys j ≤ i when causal). */
export function evenWeights(L, causal) {
  const w = new Float64Array(L * L);
  for (let q = 0; q < L; q++) {
    const seen = causal ? q + 1 : L;
    for (let k = 0; k < seen; k++) w[q * L + k] = 1 / seen;
  }
  return w;
}

/**
 * Every real head against each designed head: its score (rowsScore), the
 * even spread's score, the bar that stands out from it (standOut: twice it,
 * or halfway to 1) and the three closest real heads; `found` is false when
 * no head reaches the bar ("no head does this"), and a designed head whose
 * targets the tokens cannot show (every row inside one token, or after the
 * query in a causal model) has rows 0 and no verdict.
 */
export function closestHeads(run, map) {
  const { attention, tokens, numLayers, numHeads, causal } = run;
  const L = tokens.length;
  const even = evenWeights(L, causal);
  return ARTICLE_HEADS.map((name) => {
    const rows = articleRows(map, name, causal);
    const baseline = rowsScore(even, L, rows);
    const bar = standOut(baseline);
    const heads = [];
    for (let layer = 0; layer < numLayers; layer++)
      for (let head = 0; head < numHeads; head++)
        heads.push({
          layer,
          head,
          score: rowsScore(headWeights(attention, { numHeads, length: L }, layer, head), L, rows),
        });
    const ranked = heads
      .map((h, order) => ({ h, order }))
      .sort((a, b) => b.h.score - a.h.score || a.order - b.order)
      .map(({ h }) => h);
    return {
      name,
      rows: rows.length,
      baseline,
      bar,
      heads,
      best: ranked.slice(0, 3),
      reached: heads.filter((h) => h.score >= bar.threshold).length,
      found: rows.length > 0 && ranked[0].score >= bar.threshold,
    };
  });
}

/**
 * Whether a head tells the six 毒 apart: of the weight each 毒 puts on the
 * other 毒 (those it can see), the share that goes to the 毒 with its own
 * role (noun to noun, verb to verb, modifier to modifier). A head blind to
 * roles spreads it evenly: `blind` is that share, the mean over the same
 * rows of (same-role 毒) / (other 毒). `weight` is the weight on other 毒 at
 * all: a head that hardly looks at them says little either way.
 * @returns {{ share: number, blind: number, weight: number, rows: number }}
 */
export function roleShare(weights, L, map, causal) {
  const du = TOKENS.flatMap((u, c) => (u.char === '毒' && map.tokensOf[c].length ? [c] : []));
  let share = 0;
  let blind = 0;
  let weight = 0;
  let rows = 0;
  for (const q of du) {
    const queries = map.tokensOf[q];
    const own = new Set(queries);
    const last = Math.max(...queries);
    const others = du.filter((c) => c !== q);
    const keysOf = (c) => map.tokensOf[c].filter((k) => !own.has(k) && (!causal || k <= last));
    const seen = others.filter((c) => keysOf(c).length);
    if (!seen.length) continue;
    const same = seen.filter((c) => TOKENS[c].role === TOKENS[q].role);
    let toSame = 0;
    let toOther = 0;
    for (const qi of queries) {
      for (const c of same) for (const k of keysOf(c)) toSame += weights[qi * L + k];
      for (const c of seen) for (const k of keysOf(c)) toOther += weights[qi * L + k];
    }
    share += toOther > 0 ? toSame / toOther : 0;
    blind += same.length / seen.length;
    weight += toOther / queries.length;
    rows++;
  }
  return rows ? { share: share / rows, blind: blind / rows, weight: weight / rows, rows } : null;
}

/**
 * How the tokens hold the six 毒: `alone`, those that are a token (or byte
 * pieces) of their own; `shared`, those inside a token with another character
 * (毒蛇, 毒死 as one token) or in none. The page's question follows it.
 */
export function duTokens(map) {
  const du = TOKENS.flatMap((u, c) => (u.char === '毒' ? [c] : []));
  const alone = du.filter((c) => map.tokensOf[c].length && map.tokensOf[c].every((k) => map.cover[k].length === 1));
  return { alone: alone.length, shared: du.length - alone.length };
}

/**
 * The head that best tells the 毒 apart: the highest roleShare among the
 * heads that give the other 毒 at least the even spread's weight (a head
 * that does not look at them cannot be said to tell them apart), with the
 * blind share to read it against; null when no head looks at them that much.
 */
export function bestRoleShare(run, map) {
  const { attention, tokens, numLayers, numHeads, causal } = run;
  const L = tokens.length;
  const floor = roleShare(evenWeights(L, causal), L, map, causal);
  if (!floor) return null;
  let best = null;
  for (let layer = 0; layer < numLayers; layer++)
    for (let head = 0; head < numHeads; head++) {
      const s = roleShare(headWeights(attention, { numHeads, length: L }, layer, head), L, map, causal);
      if (s.weight >= floor.weight && (!best || s.share > best.share)) best = { layer, head, ...s };
    }
  return { best, blind: floor.blind, evenWeight: floor.weight };
}

/**
 * One layer of a run as the page's head view and export read a designed
 * run (views/head-view.mjs, model/export-data.mjs): { mode, rows, cols,
 * queryTokens, keyTokens, heads: [{ name, index, weights }], single, causal }.
 * `hideSpecial` leaves the special tokens' rows and columns out; the weights
 * shown are the head's own, not renormalised, so a row then sums to the
 * weight it gave the other tokens (what was left out is `hiddenWeight`, the
 * mean over the rows shown).
 * @param {{ attention: Float32Array, tokens: string[], special: ArrayLike<number>, records: object[],
 *   numHeads: number, causal: boolean }} run
 */
export function layerRun(run, layer, { hideSpecial = false } = {}) {
  const L = run.tokens.length;
  const keep = run.records.flatMap((_, i) => (hideSpecial && run.special[i] ? [] : [i]));
  const n = keep.length;
  const heads = [];
  let hidden = 0;
  for (let head = 0; head < run.numHeads; head++) {
    const all = headWeights(run.attention, { numHeads: run.numHeads, length: L }, layer, head);
    const weights = new Float32Array(n * n);
    keep.forEach((q, r) => {
      let kept = 0;
      keep.forEach((k, c) => {
        weights[r * n + c] = all[q * L + k];
        kept += all[q * L + k];
      });
      hidden += 1 - kept;
    });
    heads.push({ name: headName(head), index: head, weights });
  }
  const tokens = keep.map((i) => run.records[i]);
  return {
    mode: `real-layer-${layer}`,
    rows: n,
    cols: n,
    positions: keep,
    queryTokens: tokens,
    keyTokens: tokens,
    heads,
    single: null,
    causal: run.causal,
    hiddenWeight: n ? Math.max(0, hidden / (n * run.numHeads)) : 0,
  };
}

/**
 * One layer of a run with its queries and keys (model.run's returnQueryKey:
 * query [numLayers, numHeads, L, headDim], key [numLayers, numKVHeads, L,
 * headDim], queryKeyScale) as the neuron view reads a designed run
 * (model/neuron.mjs): Q and K as [L, numHeads·dK] (a grouped-query head's
 * key is its key head's, repeated), the scores q·k·scale (+ the causal mask)
 * computed from them in float64 — the engine returns a real model's weights,
 * not its scores, so `scoresFrom` says where they come from — and each
 * head's weights and the keys it weighs most. null when the run has no queries.
 */
export function neuronRun(run, layer) {
  const { query, key, numHeads, numKVHeads, headDim: dK, causal } = run;
  if (!query || !key) return null;
  const L = run.tokens.length;
  const width = numHeads * dK;
  const Q = new Float32Array(L * width);
  const K = new Float32Array(L * width);
  const group = numHeads / numKVHeads;
  for (let h = 0; h < numHeads; h++) {
    const q0 = (layer * numHeads + h) * L * dK;
    const k0 = (layer * numKVHeads + Math.floor(h / group)) * L * dK;
    for (let i = 0; i < L; i++) {
      Q.set(query.subarray(q0 + i * dK, q0 + (i + 1) * dK), i * width + h * dK);
      K.set(key.subarray(k0 + i * dK, k0 + (i + 1) * dK), i * width + h * dK);
    }
  }
  const scores = new Float32Array(numHeads * L * L);
  for (let h = 0; h < numHeads; h++)
    for (let i = 0; i < L; i++)
      for (let j = 0; j < L; j++) {
        let dot = 0;
        for (let c = 0; c < dK; c++) dot += Q[i * width + h * dK + c] * K[j * width + h * dK + c];
        scores[(h * L + i) * L + j] = causal && j > i ? -Infinity : dot * run.queryKeyScale;
      }
  const dims = Array.from({ length: dK }, (_, c) => `${c}`);
  const labels = Array.from({ length: numHeads }, () => dims).flat();
  const heads = Array.from({ length: numHeads }, (_, h) => {
    const weights = headWeights(run.attention, { numHeads, length: L }, layer, h);
    const tops = Array.from({ length: L }, (_, q) => {
      let best = 0;
      for (let k = 1; k < L; k++) if (weights[q * L + k] > weights[q * L + best]) best = k;
      return [best];
    });
    return { name: headName(h), index: h, weights, tops };
  });
  const du = run.article ? run.article.tokensOf[2] : [];
  return {
    mode: `real-layer-${layer}`,
    rows: L,
    cols: L,
    causal,
    dims: { numHeads, dK, dV: dK },
    projections: { Q, K },
    scores,
    scoresFrom: 'queryKey',
    queryKeyScale: run.queryKeyScale,
    // The first query shown: the verb 毒2 when the run is the sentence (the article's 毒 that must find its object).
    spec: { labels: { q: labels, k: labels }, focusQuery: du.length ? du[du.length - 1] : 0 },
    heads,
    single: null,
    queryTokens: run.records,
    keyTokens: run.records,
  };
}

// The designed heads: wQ, wK, wV, wO built by hand so that, when the engine
// runs them on X (features.mjs), each head attends to one annotated relation.
// Pure: returns engine arguments and labels; compute.mjs runs them.
//
// How a head is made to look for something: column c of a head's Q reads one
// feature of the query token, the same column of its K reads one feature of
// the key token, and Q·K sums the products, so the score counts the features
// that query and key share (with a weight per column). A one-hot block copied
// into both Q and K scores 1 for "same value" and 0 otherwise; copying the
// query's "head" block against the key's "position" block scores 1 exactly
// where the key is the query's dependency head.
//
// The heads split d_model, never the sentence: each of H heads gets
// d_k = d_v = d_model / H columns (headWidth), sees every token, and wO maps
// the H·d_v concatenated columns back to d_model.
//
// Every wQ is finally multiplied by sharpness·√dK: the engine divides Q·K by
// √dK, so the scores it feeds the softmax are sharpness × the counts written
// below. Sharpness 0 makes every row uniform; the larger it is, the more each
// row's weight sits on its best-scoring key(s).
import { TOKENS, ENGLISH, WITH_VENOM } from '../sentence.mjs';
import { chineseInput, englishInput, D_MODEL } from './features.mjs';
import { Projection, placeHeads } from './layout.mjs';
import { TARGETS } from './targets.mjs';
import { singleHeadArgs } from './single-head.mjs';
import { t } from '../lib/i18n.mjs';

export const DEFAULT_SHARPNESS = 6;
export const MAX_SHARPNESS = 12;

/** The sentence's tokens as the views show them; title: the gloss, in the page's language. */
export const chineseTokens = () => {
  const glosses = t('gloss.tokens');
  return TOKENS.map((u, i) => ({
    text: u.char,
    index: i,
    lang: 'zh-Hans',
    title: glosses[i],
    role: u.role,
    // The six 毒 carry their role in every label (lib/tokens.mjs).
    ...(u.char === '毒' && { duRole: u.role }),
  }));
};
export const englishTokens = () =>
  ENGLISH.map((u, i) => ({ text: u.text, index: i, lang: 'en', title: t('sentence.lemma', { lemma: u.lemma }) }));

/**
 * d_k = d_v of each of `heads`: d_model / H, as in the Transformer. A head's
 * construction that needs more columns than that fails in Projection.read.
 */
export function headWidth(heads) {
  if (!(heads.length > 0 && D_MODEL % heads.length === 0))
    throw new RangeError(`headWidth: ${heads.length} heads do not split d_model ${D_MODEL}`);
  return D_MODEL / heads.length;
}

/** Scales wQ so that the engine's scores are sharpness × the designed counts. */
export const sharpen = (wQ, sharpness) => wQ.scale(sharpness * Math.sqrt(wQ.width));

export function targetsOf(heads, ...data) {
  return Object.fromEntries(heads.map((h) => [h, TARGETS[h](...data)]));
}

/**
 * A designed call as the page uses it: the engine's arguments (weights and
 * Q, K, V returned) and what the views label them with. `query` and `key`:
 * { X, layout, tokens } of each side (`key` left out: self-attention).
 * `single`: makes the single head's arguments from these, for modes that show it.
 */
export function designedSpec({ mode, heads, query, key, dK, dV, weights, causal, single, focusQuery }) {
  const { wQ, wK, wV, wO } = weights;
  const keySide = key ?? query;
  const args = {
    query: query.X,
    ...(key ? { key: key.X, value: key.X, seqLenK: key.tokens.length } : {}),
    seqLenQ: query.tokens.length,
    dModel: D_MODEL,
    numHeads: heads.length,
    dK,
    dV,
    wQ: wQ.matrix,
    wK: wK.matrix,
    wV: wV.matrix,
    wO: wO.matrix,
    ...(causal ? { causal: true } : {}),
    returnAttention: true,
    returnProjections: true,
  };
  return {
    mode,
    heads,
    args,
    single: single ? single(args) : null,
    focusQuery,
    queryTokens: query.tokens,
    keyTokens: keySide.tokens,
    labels: {
      x: query.layout.labels,
      keyX: keySide.layout.labels,
      q: wQ.columnLabels,
      k: wK.columnLabels,
      v: wV.columnLabels,
      out: wO.labels,
    },
    layouts: { query: query.layout, key: keySide.layout },
    targets: targetsOf(heads),
  };
}

/**
 * Encoder self-attention over the Chinese sentence: heads role, dependency and
 * long-distance (d_k = d_v = 96 / 3 = 32), and the single head of the same
 * total width.
 */
export function encoderSpec(sharpness = DEFAULT_SHARPNESS) {
  const { X, layout } = chineseInput();
  const heads = ['role', 'dependency', 'long-distance'];
  const dK = headWidth(heads);
  const dV = dK;
  const wQ = new Projection(layout, heads, dK);
  const wK = new Projection(layout, heads, dK);
  const wV = new Projection(layout, heads, dV);

  // role: score = [same role] + [same character] − 2·[same position], in the
  // head's columns 0–7 (role), 8–15 (character) and 16–30 (position). The other
  // 毒 of the same role shares both (2); a 毒 of another role, or another token
  // of the same role, shares one (1); the token itself pays 2 for sharing both
  // with itself (0). A token that shares nothing with any other scores 0
  // everywhere: a uniform row.
  wQ.copy('role', 'role', 0);
  wK.copy('role', 'role', 0);
  wQ.copy('role', 'char', 8);
  wK.copy('role', 'char', 8);
  wQ.copy('role', 'position', 16);
  wK.copy('role', 'position', 16, -2);

  // dependency: score = [key's position = query's head]. The query brings the
  // position of its head, the key its own position. The root has no head
  // feature, so its row is uniform.
  wQ.copy('dependency', 'head', 0);
  wK.copy('dependency', 'position', 0);

  // long-distance: score = [the group the query refers back to = the group the
  // key starts]. Only second mentions refer back; every other row is uniform.
  wQ.copy('long-distance', 'link', 0);
  wK.copy('long-distance', 'first', 0);

  // Values: what each head passes on from the token it finds. role passes on
  // where its partner is (so its output row is its attention row), dependency
  // what its head is (role and character), long-distance which word the first
  // mention belongs to.
  wV.copy('role', 'position', 0);
  wV.copy('dependency', 'role', 0);
  wV.copy('dependency', 'char', 8);
  wV.copy('long-distance', 'word', 0);
  const wO = placeHeads(heads, wV.labels, D_MODEL);

  sharpen(wQ, sharpness);
  return designedSpec({
    mode: 'encoder',
    heads,
    query: { X, layout, tokens: chineseTokens() },
    dK,
    dV,
    weights: { wQ, wK, wV, wO },
    single: singleHeadArgs,
    /** The query the neuron view starts on: 毒2, the verb. */
    focusQuery: 2,
  });
}

/**
 * Decoder causal self-attention over the English translation: heads
 * previous-word and same-lemma (d_k = d_v = 96 / 2 = 48).
 */
export function decoderSpec(sharpness = DEFAULT_SHARPNESS) {
  const { X, layout } = englishInput();
  const heads = ['previous-word', 'same-lemma'];
  const dK = headWidth(heads);
  const dV = dK;
  const wQ = new Projection(layout, heads, dK);
  const wK = new Projection(layout, heads, dK);
  const wV = new Projection(layout, heads, dV);
  const n = ENGLISH.length;

  // previous-word: score = [key's position = query's position − 1]. Column p
  // of Q reads "I am at p + 1" and column p of K "I am at p", so they meet
  // only where the key is just before the query. Token 0 has no previous word:
  // its scores are all 0, and the causal mask leaves it only itself to attend to.
  for (let p = 0; p + 1 < n; p++) {
    wQ.read('previous-word', p, 'position', p + 1, 1, `position:${p}`);
    wK.read('previous-word', p, 'position', p);
  }

  // same-lemma: score = [same lemma] − [same position]: an earlier token with
  // the same lemma scores 1, the token itself 0 like every other; the causal
  // mask hides later ones. A word seen for the first time spreads evenly over
  // the words so far.
  const lemmas = layout.size('lemma');
  wQ.copy('same-lemma', 'lemma', 0);
  wK.copy('same-lemma', 'lemma', 0);
  wQ.copy('same-lemma', 'position', lemmas);
  wK.copy('same-lemma', 'position', lemmas, -1);

  // Values: previous-word passes on which word came before (a previous-token
  // head's use in real models); same-lemma passes on where the word came before.
  wV.copy('previous-word', 'lemma', 0);
  wV.copy('same-lemma', 'position', 0);
  const wO = placeHeads(heads, wV.labels, D_MODEL);

  sharpen(wQ, sharpness);
  return designedSpec({
    mode: 'decoder',
    heads,
    query: { X, layout, tokens: englishTokens() },
    dK,
    dV,
    weights: { wQ, wK, wV, wO },
    causal: true,
    single: singleHeadArgs,
    /** venom in "with venom", whose same-lemma head finds the venom of "by venom". */
    focusQuery: WITH_VENOM,
  });
}

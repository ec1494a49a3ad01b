// Free mode: any sentence, seeded random heads. Tokenizes the text
// (tokenize.mjs), builds X (a seeded vector per distinct token plus a
// sinusoidal position code) and random wQ, wK, wV, wO; the same spec shape as
// designed-heads.mjs. The model's width d_model is the user's choice and stays
// put; the heads split it, d_k = d_v = d_model / numHeads, as in the
// Transformer. Untrained attention is much nearer uniform than the page
// draws it: wQ and wK are scaled up by QK_GAIN so that a pattern shows, and
// the page says so with the numbers of the run (untrainedSpread). Pure.
import { mulberry32, normal, hashText, randomWeights } from './random.mjs';
import { maskedScores, softmaxRows } from './stats.mjs';
import { median } from './train-stats.mjs';
import { positionCode } from './positions.mjs';
import { singleHeadArgs } from './single-head.mjs';
import { headName } from './head-names.mjs';
import { tokenize, tokenLanguage, MAX_TOKENS } from './tokenize.mjs';

export { tokenize, MAX_TOKENS };

/** The longest sentence the free-mode form (and a link) takes, in characters. */
export const MAX_TEXT = 400;
/** Seeds are 32-bit: mulberry32 uses only the low 32 bits. */
export const MAX_SEED = 2 ** 32 - 1;
export const MAX_HEADS = 8;
/** d_model's choices: powers of two and three times them, so that 3 and 6 heads divide some of them. */
export const D_MODEL_CHOICES = Object.freeze([8, 12, 16, 24, 32, 48, 64, 96, 128]);
export const DEFAULT_FREE = Object.freeze({
  text: '注意力机制 lets every token look at every other token.',
  dModel: 32,
  numHeads: 4,
  seed: 18,
  causal: false,
});
/**
 * wQ and wK are multiplied by it (randomWeights), so the scores by its square: it makes the untrained
 * heads' softmax visibly non-flat. A choice of the display, not of the model.
 */
export const QK_GAIN = 3;

/** The head counts that divide d_model (1 … MAX_HEADS). */
export const headChoices = (dModel) =>
  Array.from({ length: MAX_HEADS }, (_, i) => i + 1).filter((h) => dModel % h === 0);

/** The largest head count that divides d_model and is at most numHeads (at least 1). */
export const fitHeads = (dModel, numHeads) => Math.max(...headChoices(dModel).filter((h) => h <= numHeads), 1);

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

/**
 * How far from an even spread a free-mode run's heads are, as drawn and as the
 * same random weights would be without the gain: its scores divided by
 * qkGain² (wQ and wK both carry it; a score is linear in each). Each is a
 * typical row's largest weight as a multiple of that row's even share,
 * 1 / (the keys it may see): the median over every row of every head. 1 is a
 * perfectly even row; the number of keys, a row with all its weight on one.
 * @returns {{ gain: number, drawn: number, untrained: number }}
 */
export function untrainedSpread(run) {
  const { rows, cols, causal, scores } = run;
  const gain = run.spec.qkGain;
  const drawn = [];
  const untrained = [];
  const largest = (weights, q, visible) => visible * Math.max(...weights.subarray(q * cols, q * cols + visible));
  run.heads.forEach((head, h) => {
    const masked = maskedScores(scores, { rows, cols, head: h, causal, mask: true });
    const plain = softmaxRows(
      masked.map((s) => s / gain ** 2),
      rows,
      cols,
    );
    for (let q = 0; q < rows; q++) {
      const visible = causal ? Math.min(q + 1, cols) : cols;
      drawn.push(largest(head.weights, q, visible));
      untrained.push(largest(plain, q, visible));
    }
  });
  return { gain, drawn: median(drawn), untrained: median(untrained) };
}

/**
 * The free-mode spec: numHeads random heads splitting d_model (d_k = d_v =
 * d_model / numHeads) and their single head (one head of d_k = d_model).
 */
export function freeSpec({ text, dModel, numHeads, seed, causal }) {
  const { tokens, truncated } = tokenize(text);
  if (tokens.length === 0) throw new RangeError('Free mode: type a sentence first (it has no tokens).');
  if (!(Number.isInteger(dModel) && Number.isInteger(numHeads) && numHeads >= 1 && dModel % numHeads === 0))
    throw new RangeError(`Free mode: numHeads ${numHeads} does not divide dModel ${dModel}`);
  const dK = dModel / numHeads;
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
    lang: tokenLanguage(t),
    title: t,
  }));
  const dims = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const perHead = (width) => heads.flatMap((h) => dims(`${h}/`, width));
  return {
    mode: 'free',
    heads,
    args,
    single: singleHeadArgs(args),
    focusQuery: 0,
    queryTokens,
    keyTokens: queryTokens,
    truncated,
    qkGain: QK_GAIN,
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

// The pipeline's live checks (model/pipeline-checks.mjs) on a made-up run of
// two heads (dModel 2, dK = dV = 1) over two tokens, whose numbers are written
// out by hand: every check holds, the first three quote the article's
// sentences, and each one fails when its own rule is broken (heads that do not
// split d_model too).
import { pipelineChecks } from '../../web/model/pipeline-checks.mjs';
import { t } from '../../web/lib/i18n.mjs';
import en from '../../web/i18n/en.mjs';

const LN3 = Math.log(3);

/**
 * Scores [2 heads, 2 rows, 2 cols]: head 0 prefers key 1 by ln 3 in both rows,
 * head 1 is flat. Without a mask, softmax gives head 0 the rows [1/4, 3/4] and
 * head 1 [1/2, 1/2]; with the causal mask row 0 sees only key 0: [1, 0].
 */
function made({ causal = false, wQ = [1, 0, 0, 1], weights0, K = 4, dModel = 2 } = {}) {
  const w0 = weights0 ?? (causal ? [1, 0, 0.25, 0.75] : [0.25, 0.75, 0.25, 0.75]);
  const head = (name, index, weights) => ({ name, index, weights: Float32Array.from(weights) });
  // Rows past the second of a wider X read nothing: [dModel, 2 heads · 1].
  const wide = (w) => Float32Array.from({ length: dModel * 2 }, (_, i) => w[i] ?? 0);
  return {
    rows: 2,
    cols: 2,
    causal,
    dims: { dModel, numHeads: 2, dK: 1, dV: 1 },
    spec: { args: { wQ: wide(wQ), wK: wide([1, 0, 0, 1]), wV: wide([2, 0, 0, 2]) } },
    projections: {
      Q: new Float32Array(4),
      K: new Float32Array(K),
      V: new Float32Array(4),
      concat: new Float32Array(4),
    },
    output: new Float32Array(2 * dModel),
    scores: Float32Array.from([0, LN3, 0, LN3, 0, 0, 0, 0]),
    heads: [head('head-0', 0, w0), head('head-1', 1, causal ? [1, 0, 0.5, 0.5] : [0.5, 0.5, 0.5, 0.5])],
    single: head('single', 2, causal ? [1, 0, 0.5, 0.5] : [0.5, 0.5, 0.5, 0.5]),
  };
}

test('a consistent run passes all six checks, and says so with its own shapes', () => {
  const checks = pipelineChecks(made());
  expect(checks.map((c) => c.ok)).toEqual([true, true, true, true, true, true]);
  expect(checks[0].text).toBe(
    "Every head sees the whole sequence: each head's K and V have all 2 rows. The heads split the representation, " +
      'never the sentence.',
  );
  expect(checks[1].text).toBe(
    'Each head has its own wQ, wK (2×1) and wV (2×1): 2 different column slices of each. ' +
      'The heads split d_model: 2·1 = 2 = d_model, d_v = d_k.',
  );
  expect(checks[2].text).toBe('Concat is 2·1 = 2 wide, and wO (2×2) maps it back to d_model = 2.');
  // The first three are the article's three sentences, in the lede's words.
  expect(checks.map((c) => c.claim)).toEqual([
    'claim.whole',
    'claim.own',
    'claim.concat',
    undefined,
    undefined,
    undefined,
  ]);
  expect(t('claim.whole')).toBe('several heads look at the <em>whole</em> sentence in different representation spaces');
  for (const key of ['claim.whole', 'claim.own', 'claim.concat']) expect(en.lede).toContain(t(key));
  // Three heads (the single one too) of two rows, each summing to exactly 1.
  expect(checks[3].text).toBe('Each row of weights sums to 1: largest |sum − 1| is 0.0e+0 over 6 rows.');
  expect(checks[4].text).toBe('No mask in this mode: every query sees every key (Decoder shows the causal mask).');
});

test('causal: the masked cell of every head is exactly 0', () => {
  const checks = pipelineChecks(made({ causal: true }));
  expect(checks.map((c) => c.ok)).toEqual([true, true, true, true, true, true]);
  expect(checks[0].text).toMatch(/ \(the causal mask then hides the keys after each query\)\. The heads split/);
  expect(checks[4].text).toBe('Masked cells are exactly 0: 3 of 3 masked cells (3 heads) are 0.');
  // Head 0 puts weight on its masked key: its row no longer is the softmax of the masked scores either.
  const leaky = pipelineChecks(made({ causal: true, weights0: [0.25, 0.75, 0.25, 0.75] }));
  expect(leaky.map((c) => c.ok)).toEqual([true, true, true, true, false, false]);
  expect(leaky[4].text).toBe('Masked cells are exactly 0: 2 of 3 masked cells (3 heads) are 0.');
});

test('each check fails when its rule is broken', () => {
  // K with a row missing.
  expect(pipelineChecks(made({ K: 2 })).map((c) => c.ok)).toEqual([false, true, true, true, true, true]);
  // Both heads read the same columns of X: wQ's two column slices are equal.
  expect(pipelineChecks(made({ wQ: [1, 1, 0, 0] })).map((c) => c.ok)).toEqual([true, false, true, true, true, true]);
  // Two heads of d_k 1 in a d_model of 4: each head has its own slice, but together they do not split d_model.
  const unsplit = pipelineChecks(made({ dModel: 4 }));
  expect(unsplit.map((c) => c.ok)).toEqual([true, false, true, true, true, true]);
  expect(unsplit[1].text).toMatch(/The heads split d_model: 2·1 = 2 ≠ d_model, d_v = d_k\.$/);
  // Weights whose rows do not sum to 1, and so are not the softmax of the scores.
  const checks = pipelineChecks(made({ weights0: [0.25, 0.7, 0.25, 0.75] }));
  expect(checks.map((c) => c.ok)).toEqual([true, true, true, false, true, false]);
  expect(checks[3].text).toMatch(/largest \|sum − 1\| is 5\.0e-2 over 6 rows/);
});

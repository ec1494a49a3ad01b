// The page's designed heads, run through the engine in Node: every mode's
// heads split d_model (H·d_k = d_model, d_k = d_v) and see the whole
// sentence; every head's
// top keys match the annotation, rows with nothing to find are uniform, the
// single head's score is the sum of the three heads' scores, the sharpness
// scales the scores, and the decoder's masked weights are exactly 0.
import { createAttention } from '../../src/js/node.mjs';
import { encoderSpec, decoderSpec, DEFAULT_SHARPNESS } from '../../web/model/designed-heads.mjs';
import { crossSpec } from '../../web/model/cross-heads.mjs';
import { TARGETS } from '../../web/model/targets.mjs';
import { rowTops, softmaxRows, maxAbsDiff } from '../../web/model/stats.mjs';
import { TOKENS, ENGLISH, CLAUSES, WITH_VENOM } from '../../web/sentence.mjs';

let engine;

test.each([
  ['encoder', encoderSpec, 3, 32],
  ['decoder', decoderSpec, 2, 48],
  ['cross', crossSpec, 2, 48],
])('%s: the heads split d_model, never the sentence: H·d_k = d_model, d_v = d_k', async (_, make, H, width) => {
  const spec = make();
  const { dModel, numHeads, dK, dV, seqLenQ } = spec.args;
  expect([numHeads, dK, dV]).toEqual([H, width, width]);
  expect(numHeads * dK).toBe(dModel);
  // X and the output are d_model wide, wO maps H·d_v back to d_model; every head gets every key.
  expect(spec.args.query).toHaveLength(seqLenQ * dModel);
  expect(spec.args.wO).toHaveLength(numHeads * dV * dModel);
  const seqLenK = spec.args.seqLenK ?? seqLenQ;
  const { projections } = await engine.multiHeadAttention(spec.args);
  expect(projections.K).toHaveLength(seqLenK * numHeads * dK);
  expect(projections.V).toHaveLength(seqLenK * numHeads * dV);
  expect(projections.concat).toHaveLength(seqLenQ * dModel);
});

beforeAll(async () => {
  engine = await createAttention({ variant: 'simd' });
});
afterAll(() => engine?.dispose());

/**
 * One head's scores Q_h·K_hᵀ/√dK in float64, from the engine's Q and K
 * ([rows, numHeads·dK] and [cols, numHeads·dK]): this test's own arithmetic.
 */
function headScores({ Q, K, rows, cols, numHeads, dK, head }) {
  const scores = new Float64Array(rows * cols);
  const width = numHeads * dK;
  for (let q = 0; q < rows; q++)
    for (let k = 0; k < cols; k++) {
      let dot = 0;
      for (let c = 0; c < dK; c++) dot += Q[q * width + head * dK + c] * K[k * width + head * dK + c];
      scores[q * cols + k] = dot / Math.sqrt(dK);
    }
  return scores;
}

/** The engine's weights of every head of a spec: { name: Float32Array [rows·cols] }. */
async function weightsOf(spec) {
  const { attention } = await engine.multiHeadAttention(spec.args);
  const rows = spec.args.seqLenQ;
  const cols = spec.args.seqLenK ?? rows;
  return Object.fromEntries(spec.heads.map((h, i) => [h, attention.subarray(i * rows * cols, (i + 1) * rows * cols)]));
}

/** Checks one head against its annotation: tops = targets; no target: uniform over the visible keys. */
function expectMatchesAnnotation(name, weights, rows, cols, causal) {
  const targets = TARGETS[name]();
  const tops = rowTops(weights, rows, cols, causal);
  const report = targets.map((t, q) => {
    const row = weights.subarray(q * cols, (q + 1) * cols);
    const visible = row.subarray(0, causal ? q + 1 : cols);
    const onTargets = t.keys.reduce((s, k) => s + row[k], 0);
    return {
      q,
      tops: tops[q],
      // "mostly": at the default sharpness at least 90 % of the row's weight sits on its targets.
      ok: t.keys.length ? onTargets > 0.9 : Math.max(...visible) - Math.min(...visible) < 1e-6,
    };
  });
  expect(report).toEqual(targets.map((t, q) => ({ q, tops: [...t.keys].sort((a, b) => a - b), ok: true })));
}

describe('encoder heads over 用毒毒毒蛇，毒蛇会不会被毒毒死', () => {
  let spec, weights;
  beforeAll(async () => {
    spec = encoderSpec();
    weights = await weightsOf(spec);
  });

  test.each(['role', 'dependency', 'long-distance'])(
    '%s head: every row attends to its annotated target(s)',
    (name) => {
      expectMatchesAnnotation(name, weights[name], 15, 15, false);
    },
  );

  test('role head: the six 毒 pair up by role (nouns 1↔12, verbs 2↔13, modifiers 3↔6)', () => {
    const tops = rowTops(weights.role, 15, 15);
    expect([1, 12, 2, 13, 3, 6].map((q) => tops[q])).toEqual([[12], [1], [13], [2], [6], [3]]);
  });

  test('dependency head: the annotated heads, the root uniform', () => {
    const tops = rowTops(weights.dependency, 15, 15);
    const heads = [1, 2, null, 4, 2, 2, 7, 13, 13, 10, 13, 13, 13, 2, 13];
    expect(tops).toEqual(heads.map((h) => (h === null ? [] : [h])));
  });

  test('long-distance head: 毒6→毒3, 蛇7→蛇4, 毒12→毒1, 毒13→毒2', () => {
    const tops = rowTops(weights['long-distance'], 15, 15);
    expect([6, 7, 12, 13].map((q) => tops[q])).toEqual([[3], [4], [1], [2]]);
  });

  test('single head: its score is the sum of the three heads’ scores, and the engine’s softmax of it', async () => {
    const multi = await engine.multiHeadAttention(spec.args);
    const single = await engine.multiHeadAttention({ ...spec.single, returnProjections: true });
    const P = multi.projections;
    const sum = new Float64Array(225);
    for (let h = 0; h < 3; h++) {
      const s = headScores({ Q: P.Q, K: P.K, rows: 15, cols: 15, numHeads: 3, dK: spec.args.dK, head: h });
      s.forEach((v, i) => (sum[i] += v));
    }
    const S = single.projections;
    const singleScores = headScores({ Q: S.Q, K: S.K, rows: 15, cols: 15, numHeads: 1, dK: spec.single.dK, head: 0 });
    // Scores reach 6 × 3 = 18; float32 projections agree to a few ulps of that.
    expect(maxAbsDiff(singleScores, sum)).toBeLessThan(1e-4);
    expect(maxAbsDiff(single.attention, softmaxRows(sum, 15, 15))).toBeLessThan(1e-6);
    // Same width: one head of d_k = d_v = 96 against three of 32; same output shape.
    expect([spec.single.numHeads, spec.single.dK, spec.single.dV]).toEqual([1, 96, 96]);
    expect(single.output).toHaveLength(multi.output.length);
  });

  test('single head: it splits where relations tie and drops the dependency where role scores higher', async () => {
    const { attention } = await engine.multiHeadAttention(spec.single);
    const tops = rowTops(attention, 15, 15);
    expect(tops[0]).toEqual([1, 11]); // 用: dependency → 毒1 ties with role → 被11
    expect(tops[1]).toEqual([2, 12]); // 毒1: dependency → 毒2 (+ same character) ties with role → 毒12
    expect(tops[3]).toEqual([6]); // 毒3: role → 毒6 wins, its head 蛇4 is dropped
  });

  test('sharpness scales the scores: 0 gives uniform rows, more gives more weight to the targets', async () => {
    const flat = await weightsOf(encoderSpec(0));
    for (const w of Object.values(flat)) for (const v of w) expect(Math.abs(v - 1 / 15)).toBeLessThan(1e-7);
    const onTarget = async (sharpness) => {
      const w = (await weightsOf(encoderSpec(sharpness))).dependency;
      return w[0 * 15 + 1]; // 用 → its head 毒1
    };
    const series = [];
    for (const s of [1, 3, DEFAULT_SHARPNESS, 12]) series.push(await onTarget(s));
    expect(series).toEqual([...series].sort((a, b) => a - b));
    expect(series[0]).toBeGreaterThan(1 / 15);
    expect(series[3]).toBeGreaterThan(0.999);
  });
});

// The English translation's tokens: the decoder's rows and keys, the cross-attention's rows (over 15 Chinese keys).
const E = ENGLISH.length;

describe('decoder and cross-attention over the English translation', () => {
  test.each(['previous-word', 'same-lemma'])('%s head: annotated targets, causal', async (name) => {
    const spec = decoderSpec();
    expectMatchesAnnotation(name, (await weightsOf(spec))[name], E, E, true);
  });

  test('causal: every weight above the diagonal is exactly 0', async () => {
    const weights = await weightsOf(decoderSpec());
    for (const w of Object.values(weights))
      for (let q = 0; q < E; q++) for (let k = q + 1; k < E; k++) expect(w[q * E + k]).toBe(0);
  });
});

describe('decoder and cross-attention: the single head of each, as the encoder has', () => {
  test.each([
    ['decoder', decoderSpec, true],
    ['cross', crossSpec, false],
  ])(
    '%s: its score is the sum of the heads’ scores, and the engine’s (masked) softmax of it',
    async (_, make, causal) => {
      const spec = make();
      const { numHeads, dK, seqLenQ: rows } = spec.args;
      const cols = spec.args.seqLenK ?? rows;
      const multi = await engine.multiHeadAttention(spec.args);
      const single = await engine.multiHeadAttention({ ...spec.single, returnProjections: true });
      const P = multi.projections;
      const sum = new Float64Array(rows * cols);
      for (let h = 0; h < numHeads; h++)
        headScores({ Q: P.Q, K: P.K, rows, cols, numHeads, dK, head: h }).forEach((v, i) => (sum[i] += v));
      const S = single.projections;
      const singleScores = headScores({ Q: S.Q, K: S.K, rows, cols, numHeads: 1, dK: spec.single.dK, head: 0 });
      expect(maxAbsDiff(singleScores, sum)).toBeLessThan(1e-4);
      // The decoder's single head is causal as its heads are: the future is -∞ before the softmax.
      if (causal) for (let q = 0; q < rows; q++) for (let k = q + 1; k < cols; k++) sum[q * cols + k] = -Infinity;
      expect(maxAbsDiff(single.attention, softmaxRows(sum, rows, cols))).toBeLessThan(1e-6);
      expect([spec.single.numHeads, spec.single.dK, spec.single.dV]).toEqual([1, numHeads * dK, numHeads * dK]);
    },
  );

  test('decoder: where previous-word and same-lemma point at different words, the single head splits', async () => {
    const spec = decoderSpec();
    const weights = await weightsOf(spec);
    const single = rowTops((await engine.multiHeadAttention(spec.single)).attention, E, E);
    const previous = rowTops(weights['previous-word'], E, E);
    const lemma = rowTops(weights['same-lemma'], E, E);
    // "with venom": the previous word "with", and the venom of "by venom".
    expect([previous[WITH_VENOM], lemma[WITH_VENOM]]).toEqual([[WITH_VENOM - 1], [9]]);
    expect(single[WITH_VENOM]).toEqual([9, WITH_VENOM - 1]);
    // "poison": the previous word "we", and "poisoned".
    expect([previous[12], lemma[12]]).toEqual([[11], [5]]);
    expect(single[12]).toEqual([5, 11]);
  });

  test('cross: the single head’s top keys are the alignment head’s (the order head’s clause contains them)', async () => {
    const spec = crossSpec();
    const weights = await weightsOf(spec);
    const single = rowTops((await engine.multiHeadAttention(spec.single)).attention, E, 15);
    expect(single).toEqual(rowTops(weights.alignment, E, 15));
  });
});

describe('cross-attention: two designed heads, checked against the token-by-token alignment', () => {
  let spec, weights;
  beforeAll(async () => {
    spec = crossSpec();
    weights = await weightsOf(spec);
  });
  const clauseKeys = (clause) => CLAUSES.flatMap((c, k) => (c === clause ? [k] : []));

  test('English queries over Chinese keys, two heads of one call', () => {
    expect([spec.args.seqLenQ, spec.args.seqLenK, spec.args.numHeads]).toEqual([ENGLISH.length, TOKENS.length, 2]);
    expect(spec.heads).toEqual(['alignment', 'order']);
  });

  test('alignment head: every aligned word’s top keys are its annotated alignment, with most of the weight', () => {
    const tops = rowTops(weights.alignment, E, 15);
    const report = ENGLISH.map((t, q) => {
      if (!t.align.length) return { q, tops: tops[q] };
      const onTargets = t.align.reduce((s, k) => s + weights.alignment[q * 15 + k], 0);
      return { q, tops: tops[q], mostly: onTargets > 0.9 };
    });
    expect(report).toEqual(
      ENGLISH.map((t, q) =>
        t.align.length ? { q, tops: [...t.align], mostly: true } : { q, tops: clauseKeys(t.clause) },
      ),
    );
  });

  test('"by venom" lands on 毒12 and "with venom" on 毒1, although both share one lexicon entry', () => {
    const at = (q, k) => weights.alignment[q * 15 + k];
    expect([ENGLISH[9].text, ENGLISH[15].text]).toEqual(['venom', 'venom']);
    expect(ENGLISH[9].lexicon).toEqual(ENGLISH[15].lexicon);
    expect(at(9, 12)).toBeGreaterThan(0.9);
    expect(at(15, 1)).toBeGreaterThan(0.9);
    expect(at(9, 1)).toBeLessThan(0.1);
    expect(at(15, 12)).toBeLessThan(0.1);
  });

  test('"poisoned to death": poisoned lands on 毒13 and death on 死14', () => {
    const at = (q, k) => weights.alignment[q * 15 + k];
    expect(ENGLISH.slice(5, 8).map((t) => t.text)).toEqual(['poisoned', 'to', 'death']);
    expect(at(5, 13)).toBeGreaterThan(0.9);
    expect(at(7, 14)).toBeGreaterThan(0.9);
  });

  test('order head: each English word spreads evenly over the Chinese clause it belongs to (the clauses swap places)', () => {
    const tops = rowTops(weights.order, E, 15);
    expect(tops).toEqual(ENGLISH.map((t) => clauseKeys(t.clause)));
    expect(TARGETS.order().map((r) => r.keys)).toEqual(ENGLISH.map((t) => clauseKeys(t.clause)));
    // "if we poison it with venom" (English 10–15) is clause 1, the first in Chinese.
    expect(ENGLISH.map((t) => t.clause)).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 2]);
  });
});

// The neuron view's numbers (model/neuron.mjs) against the engine, in Node:
// q and k are the engine's own Q and K rows, the score written out from them
// is the engine's score, and the weight is the engine's weight and the
// softmax of the engine's scores. Checked for every head of every mode.
import { createAttention } from '../../src/js/node.mjs';
import { runSpec } from '../../web/model/compute.mjs';
import { encoderSpec, decoderSpec } from '../../web/model/designed-heads.mjs';
import { crossSpec } from '../../web/model/cross-heads.mjs';
import { freeSpec } from '../../web/model/free-mode.mjs';
import { neuronPair, pairFor, neuronHead } from '../../web/model/neuron.mjs';

let engine;
beforeAll(async () => {
  engine = await createAttention({ variant: 'simd' });
});
afterAll(() => engine?.dispose());

const specs = {
  encoder: () => encoderSpec(),
  decoder: () => decoderSpec(),
  cross: () => crossSpec(),
  free: () => freeSpec({ text: 'W_O 毒 👩‍👩‍👧 maps it back', dModel: 24, numHeads: 3, seed: 4, causal: true }),
};

describe.each(Object.keys(specs))('%s', (mode) => {
  let spec, run, reference;
  beforeAll(async () => {
    spec = specs[mode]();
    run = await runSpec(engine, spec);
    // A separate call of the engine, for the numbers to compare with.
    reference = await engine.multiHeadAttention({ ...spec.args, returnScores: true });
  });

  test('q, k, the score and the weight of every pair of every head are the engine’s', () => {
    const { rows, cols } = run;
    const { numHeads, dK } = run.dims;
    let worstScore = 0;
    let worstSoftmax = 0;
    for (let h = 0; h < numHeads; h++)
      for (let q = 0; q < rows; q++)
        for (let k = 0; k < cols; k++) {
          const n = neuronPair(run, h, q, k);
          const width = numHeads * dK;
          expect(Array.from(n.q)).toEqual(
            Array.from(reference.projections.Q.subarray(q * width + h * dK, q * width + (h + 1) * dK)),
          );
          expect(Array.from(n.k)).toEqual(
            Array.from(reference.projections.K.subarray(k * width + h * dK, k * width + (h + 1) * dK)),
          );
          const cell = (h * rows + q) * cols + k;
          expect(n.engineScore).toBe(reference.scores[cell]);
          expect(n.weight).toBe(reference.attention[cell]);
          // The page's own arithmetic: float64 sums of the engine's float32 q and k.
          let dot = 0;
          for (let i = 0; i < dK; i++) dot += n.q[i] * n.k[i];
          expect(n.dot).toBeCloseTo(dot, 10);
          worstScore = Math.max(
            worstScore,
            Math.abs(n.score - reference.scores[cell]) / Math.max(1, Math.abs(n.score)),
          );
          worstSoftmax = Math.max(worstSoftmax, Math.abs(n.softmaxWeight - n.weight));
          if (run.causal && k > q) expect(n.masked && n.weight === 0).toBe(true);
        }
    // The engine sums in float32 with its own order; the scores agree to float32 rounding.
    expect(worstScore).toBeLessThan(1e-5);
    expect(worstSoftmax).toBeLessThan(1e-5);
  });
});

test('the pair shown first: the spec’s focus query and its head’s top key', async () => {
  const run = await runSpec(engine, encoderSpec());
  expect(pairFor(run, neuronHead(run, 'role'), null)).toEqual({ q: 2, k: 13 }); // 毒2 the verb → 毒13 the verb
  expect(pairFor(run, 0, { q: 12, k: null })).toEqual({ q: 12, k: 1 });
  expect(pairFor(run, 0, { q: 5, k: 9 })).toEqual({ q: 5, k: 9 });
  expect(neuronHead(run, 'single')).toBe(0); // the single head is another call: the view shows the first head
  const cross = await runSpec(engine, crossSpec());
  expect(pairFor(cross, neuronHead(cross, 'alignment'), null)).toEqual({ q: 15, k: 1 }); // with venom → 毒1
});

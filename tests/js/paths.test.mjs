// With returnAttention the engine takes another path: the weights are written
// out (two-pass softmax), where the default path never forms them (online
// softmax over key tiles). The outputs then differ by a few float32 roundings:
// the documented bound (README, index.d.ts) is 2e-6 of the output's largest
// magnitude. Seeded random shapes, every build.
import { randomCase } from './helpers/random.mjs';
import { VARIANTS, createEngines, disposeEngines } from './helpers/engines.mjs';

const BOUND = 2e-6;
let engines;
beforeAll(async () => {
  engines = await createEngines();
});
afterAll(() => disposeEngines(engines));

test.each(VARIANTS)(
  '%s: output with and without returnAttention within 2e-6 of its largest magnitude',
  async (variant) => {
    let worst = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const numHeads = 1 + (seed % 8);
      const call = randomCase(seed, {
        seqLenQ: 1 + ((seed * 37) % 300),
        seqLenK: 1 + ((seed * 11) % 200),
        dModel: numHeads * (4 + (seed % 13)),
        numHeads,
        causal: seed % 3 === 0,
        bias: seed % 2 === 0,
      });
      const plain = await engines[variant].multiHeadAttention({ ...call, returnAttention: false });
      const withWeights = await engines[variant].multiHeadAttention({ ...call, returnAttention: true });
      const scale = withWeights.output.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
      for (let i = 0; i < plain.output.length; i++)
        worst = Math.max(worst, Math.abs(plain.output[i] - withWeights.output[i]) / scale);
    }
    expect(worst).toBeLessThanOrEqual(BOUND);
    // The two paths are really different: not a test that cannot fail.
    expect(worst).toBeGreaterThan(0);
  },
);

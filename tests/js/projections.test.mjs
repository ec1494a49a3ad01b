// returnProjections: the intermediate matrices Q, K, V and concat (what the
// page's pipeline view shows) against the float64 reference, on every build.
import { createEngines, disposeEngines, VARIANTS } from './helpers/engines.mjs';
import { fixtureNames, loadFixture } from './helpers/fixtures.mjs';
import { expectClose } from './helpers/compare.mjs';
import { referenceAttention } from './helpers/reference.mjs';

let engines;
beforeAll(async () => {
  engines = await createEngines();
});
afterAll(() => disposeEngines(engines));

describe.each(VARIANTS)('%s build', (variant) => {
  test.each(fixtureNames())('%s: Q, K, V and concat match the reference', async (name) => {
    const { args, want, tolerance } = loadFixture(name);
    const result = await engines[variant].multiHeadAttention({ ...args, returnProjections: true });
    const ref = referenceAttention(args);
    expectClose(result.output, want.output, tolerance, `${name} output`);
    expect(result.attention).toBeUndefined();
    for (const m of ['Q', 'K', 'V', 'concat'])
      expectClose(result.projections[m], ref.projections[m], tolerance, `${name} ${m}`);
  });

  test.each(fixtureNames())('%s: scores are QKᵀ/√dK before masking, as the reference computes them', async (name) => {
    const { args, want, tolerance } = loadFixture(name);
    const { scores, attention, output } = await engines[variant].multiHeadAttention({ ...args, returnScores: true });
    expect(attention).toBeUndefined();
    expectClose(output, want.output, tolerance, `${name} output`);
    const { Q, K } = referenceAttention(args).projections;
    const { batch, seqLenQ: Lq, seqLenK: Lk, numHeads: H, dK } = args;
    const ref = new Float64Array(batch * H * Lq * Lk);
    for (let b = 0; b < batch; b++)
      for (let h = 0; h < H; h++)
        for (let i = 0; i < Lq; i++)
          for (let j = 0; j < Lk; j++) {
            let dot = 0;
            for (let c = 0; c < dK; c++)
              dot += Q[(b * Lq + i) * H * dK + h * dK + c] * K[(b * Lk + j) * H * dK + h * dK + c];
            ref[((b * H + h) * Lq + i) * Lk + j] = dot / Math.sqrt(dK);
          }
    // Scores are logits: their tolerance scales with their size (up to ~1e3 in large_logits_1e3).
    expectClose(scores, ref, { abs: tolerance.abs * 10, rel: 1e-4 }, `${name} scores`);
  });

  test('no projections unless asked for', async () => {
    const { args } = loadFixture('tiny_self');
    expect((await engines[variant].multiHeadAttention(args)).projections).toBeUndefined();
    await expect(engines[variant].multiHeadAttention({ ...args, returnProjections: 1 })).rejects.toThrow(
      /^returnProjections: expected a boolean, got number 1$/,
    );
  });
});

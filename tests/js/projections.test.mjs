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
    for (const m of ['Q', 'K', 'V', 'concat']) expectClose(result.projections[m], ref.projections[m], tolerance, `${name} ${m}`);
  });

  test('no projections unless asked for', async () => {
    const { args } = loadFixture('tiny_self');
    expect((await engines[variant].multiHeadAttention(args)).projections).toBeUndefined();
    await expect(engines[variant].multiHeadAttention({ ...args, returnProjections: 1 })).rejects.toThrow(
      /^returnProjections: expected a boolean, got number 1$/,
    );
  });
});

// Every reference fixture (tests/fixtures, computed by PyTorch / numpy in
// float64) within its own tolerance, on every build (helpers/engines.mjs).
import { fixtureNames, loadFixture, callArguments } from './helpers/fixtures.mjs';
import { expectClose, expectExactly, expectSameBits } from './helpers/compare.mjs';
import { VARIANTS, createEngines, disposeEngines } from './helpers/engines.mjs';

const fixtures = fixtureNames().map(loadFixture);
const selfFixtures = fixtures.filter((f) => f.raw.selfAttention);
let engines;

beforeAll(async () => {
  engines = await createEngines();
});
afterAll(() => disposeEngines(engines));

test('the fixture set is complete and the self-attention ones really are', () => {
  expect(fixtures.map((f) => f.name)).toEqual(
    expect.arrayContaining(['tiny_self', 'fully_masked_rows', 'moderate_64', 'large_logits_1e3']),
  );
  expect(selfFixtures.length).toBeGreaterThan(0);
  for (const f of selfFixtures) {
    expect(f.raw.key).toEqual(f.raw.query);
    expect(f.raw.value).toEqual(f.raw.query);
  }
});

describe.each(VARIANTS)('%s build', (variant) => {
  const each = (list) => test.each(list.map((f) => [f.name, f]));

  each(fixtures)('%s: output and attention within tolerance', async (name, fx) => {
    const engine = engines[variant];
    expect(engine.variant).toBe(variant);
    const result = await engine.multiHeadAttention({ ...callArguments(fx), returnAttention: true });
    expect(result.output).toBeInstanceOf(Float32Array);
    expect(result.attention).toBeInstanceOf(Float32Array);
    expectClose(result.output, fx.want.output, fx.tolerance, `${name} output`);
    expectClose(result.attention, fx.want.attention, fx.tolerance, `${name} attention`);
  });

  each(fixtures)('%s: returnAttention false gives the output and no attention field', async (name, fx) => {
    const engine = engines[variant];
    for (const returnAttention of [false, undefined]) {
      const result = await engine.multiHeadAttention({ ...callArguments(fx), returnAttention });
      expect(Object.keys(result)).toEqual(['output']);
      expectClose(result.output, fx.want.output, fx.tolerance, `${name} output (returnAttention ${returnAttention})`);
    }
  });

  each(selfFixtures)('%s: self-attention with key and value left out', async (name, fx) => {
    const { key, value, ...args } = callArguments(fx);
    const result = await engines[variant].multiHeadAttention({ ...args, returnAttention: true });
    expectClose(result.output, fx.want.output, fx.tolerance, `${name} output`);
    expectClose(result.attention, fx.want.attention, fx.tolerance, `${name} attention`);
    // The query array passed as key and value as well (the same object three times).
    const same = await engines[variant].multiHeadAttention({ ...args, key: args.query, value: args.query });
    expectClose(same.output, fx.want.output, fx.tolerance, `${name} output (key = value = query)`);
  });

  test('fully_masked_rows: rows with no usable key give exactly 0 attention and output == bO', async () => {
    const fx = fixtures.find((f) => f.name === 'fully_masked_rows');
    const { batch, seqLenQ: Lq, seqLenK: Lk, dModel: D, numHeads: H } = fx.raw;
    const { output, attention } = await engines[variant].multiHeadAttention({
      ...callArguments(fx),
      returnAttention: true,
    });
    // README: batch item 1, rows 0 and 1 see no key (causal + padding of keys 0 and 1).
    expect(batch).toBe(2);
    for (const i of [0, 1]) {
      for (let h = 0; h < H; h++) {
        expectExactly(attention, ((1 * H + h) * Lq + i) * Lk, new Float32Array(Lk), `attention b1 h${h} i${i}`);
      }
      expectExactly(output, (Lq + i) * D, fx.args.bO, `output b1 i${i}`);
    }
  });

  test('value left out is the key: the same bits as value: key, forward and backward', async () => {
    const engine = engines[variant];
    const { value, ...args } = callArguments(loadFixture('cross_attention'));
    expect(value).toBeDefined();
    const explicit = await engine.multiHeadAttention({ ...args, value: args.key, returnAttention: true });
    const implicit = await engine.multiHeadAttention({ ...args, returnAttention: true });
    expectSameBits(implicit.output, explicit.output, 'output');
    expectSameBits(implicit.attention, explicit.attention, 'attention');
    const gradOutput = new Float32Array(explicit.output.length).map((_, i) => Math.sin(i));
    const g1 = await engine.multiHeadAttentionBackward({ ...args, value: args.key, gradOutput });
    const g2 = await engine.multiHeadAttentionBackward({ ...args, gradOutput });
    expect(Object.keys(g2).sort()).toEqual(Object.keys(g1).sort());
    for (const name of Object.keys(g1)) expectSameBits(g2[name], g1[name], name);
  });
});

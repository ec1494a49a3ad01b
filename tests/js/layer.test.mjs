// createLayer: weights packed once and kept in wasm memory, forward() with
// activations only. Checked against the reference fixtures on every build,
// against the one-shot call (same arithmetic, so the same bits), for its
// argument errors and its life cycle; and memoryStats().
import { createAttention } from '../../src/js/node.mjs';
import { createEngines, disposeEngines, VARIANTS } from './helpers/engines.mjs';
import { fixtureNames, loadFixture } from './helpers/fixtures.mjs';
import { expectClose, expectSameBits } from './helpers/compare.mjs';
import { pick } from './helpers/arguments.mjs';

const WEIGHTS = ['dModel', 'numHeads', 'dK', 'dV', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];
const ACTIVATIONS = ['batch', 'seqLenQ', 'seqLenK', 'query', 'key', 'value', 'keyPaddingMask', 'causal'];

let engines;
beforeAll(async () => {
  engines = await createEngines();
});
afterAll(() => disposeEngines(engines));

describe.each(VARIANTS)('%s build', (variant) => {
  test.each(fixtureNames())('%s through a layer matches the reference and the one-shot call', async (name) => {
    const { args, want, tolerance } = loadFixture(name);
    const engine = engines[variant];
    const layer = await engine.createLayer(pick(args, WEIGHTS));
    try {
      const got = await layer.forward({ ...pick(args, ACTIVATIONS), returnAttention: true });
      expectClose(got.output, want.output, tolerance, `${name} output`);
      expectClose(got.attention, want.attention, tolerance, `${name} attention`);
      const oneShot = await engine.multiHeadAttention({ ...args, returnAttention: true });
      expectSameBits(got.output, oneShot.output, `${name}: layer vs one-shot`);
      const fused = await layer.forward(pick(args, ACTIVATIONS));
      expect(fused.attention).toBeUndefined();
      expectClose(fused.output, want.output, tolerance, `${name} output without weights`);
    } finally {
      layer.dispose();
    }
  });
});

test('one layer serves calls of different lengths and batch sizes', async () => {
  const { args, want, tolerance } = loadFixture('tiny_self_bias'); // batch 2, L 4
  const layer = await engines.simd.createLayer(pick(args, WEIGHTS));
  const second = (a) => a.slice(a.length / 2); // batch item 1
  const { output } = await layer.forward({ query: second(args.query), seqLenQ: 4 });
  expectClose(output, second(want.output), tolerance, 'batch item 1 alone');
  const both = await layer.forward({ query: args.query, batch: 2, seqLenQ: 4 });
  expectClose(both.output, want.output, tolerance, 'both batch items');
  expect(layer).toMatchObject({ dModel: 8, numHeads: 2, dK: 4, dV: 4 });
  layer.dispose();
});

test('argument errors name the argument, and the layer stays usable', async () => {
  const { args, want, tolerance } = loadFixture('tiny_self');
  const engine = engines.simd;
  await expect(engine.createLayer({ ...pick(args, WEIGHTS), query: args.query })).rejects.toThrow(
    /^createLayer: unknown argument "query"/,
  );
  await expect(engine.createLayer({ ...pick(args, WEIGHTS), wO: new Float32Array(3) })).rejects.toThrow(
    /^wO: expected 64 elements \[numHeads\*dV=8, dModel=8\], got 3$/,
  );
  const layer = await engine.createLayer(pick(args, WEIGHTS));
  await expect(layer.forward({ query: args.query, seqLenQ: 4, wQ: args.wQ })).rejects.toThrow(
    /^forward: unknown argument "wQ"/,
  );
  await expect(layer.forward({ query: new Float32Array(5), seqLenQ: 4 })).rejects.toThrow(
    /^query: expected 32 elements \[batch=1, seqLenQ=4, dModel=8\], got 5$/,
  );
  await expect(layer.forward({ query: args.query, seqLenQ: 4, causal: 'yes' })).rejects.toThrow(TypeError);
  const { output } = await layer.forward({ query: args.query, seqLenQ: 4 });
  expectClose(output, want.output, tolerance, 'after errors');
  layer.dispose();
  layer.dispose(); // idempotent
  await expect(layer.forward({ query: args.query, seqLenQ: 4 })).rejects.toThrow(/layer was disposed/);
});

test('disposing the engine disposes its layers', async () => {
  const { args } = loadFixture('tiny_self');
  const engine = await createAttention({ variant: 'simd' });
  const layer = await engine.createLayer(pick(args, WEIGHTS));
  engine.dispose();
  await expect(layer.forward({ query: args.query, seqLenQ: 4 })).rejects.toThrow(/disposed/);
  layer.dispose(); // no error
  await expect(engine.createLayer(pick(args, WEIGHTS))).rejects.toThrow(/engine was disposed/);
});

test('memoryStats: a layer holds its packed weights until disposed; big calls give their memory back', async () => {
  const engine = await createAttention({ variant: 'simd' });
  const dModel = 256,
    numHeads = 4;
  const w = () => new Float32Array(dModel * dModel).fill(0.01);
  const before = await engine.memoryStats();
  expect(before.heapBytes).toBeGreaterThanOrEqual(before.inUseBytes);
  const layer = await engine.createLayer({ dModel, numHeads, wQ: w(), wK: w(), wV: w(), wO: w() });
  const withLayer = await engine.memoryStats();
  const packedBytes = 4 * dModel * dModel * 4;
  expect(withLayer.inUseBytes - before.inUseBytes).toBeGreaterThanOrEqual(packedBytes);
  expect(withLayer.inUseBytes - before.inUseBytes).toBeLessThan(packedBytes * 1.1);
  // A call far above the kept-buffer size: its buffers are released afterwards.
  const seqLenQ = 2048;
  await layer.forward({ query: new Float32Array(seqLenQ * dModel).fill(0.5), seqLenQ });
  const after = await engine.memoryStats();
  expect(after.inUseBytes - withLayer.inUseBytes).toBeLessThan(8 << 20);
  layer.dispose();
  const end = await engine.memoryStats();
  expect(end.inUseBytes - before.inUseBytes).toBeLessThan(8 << 20);
  engine.dispose();
});

describe('output: the result written into the caller’s array', () => {
  const { args, want, tolerance } = loadFixture('tiny_self_bias'); // batch 2, L 4, dModel 8
  const activations = pick(args, ACTIVATIONS);

  test.each([
    ['in this thread', { variant: 'simd' }],
    ['in a worker_threads Worker', { variant: 'simd', worker: true }],
  ])('%s: result.output is the given array, with the reference values, and nothing else moves', async (_, options) => {
    const engine = await createAttention(options);
    try {
      const layer = await engine.createLayer(pick(args, WEIGHTS));
      const allocated = await layer.forward({ ...activations, returnAttention: true });
      // A view into the middle of a larger buffer: only its own elements are written.
      const buffer = new Float32Array(args.query.length + 6).fill(-7);
      const output = buffer.subarray(3, 3 + args.query.length);
      for (let round = 0; round < 3; round++) {
        const got = await layer.forward({ ...activations, returnAttention: true, output });
        expect(got.output).toBe(output);
        expectClose(got.output, want.output, tolerance, `round ${round} output`);
        expectSameBits(got.output, allocated.output, 'written vs allocated');
        expectSameBits(got.attention, allocated.attention, 'attention alongside');
      }
      expect([...buffer.subarray(0, 3), ...buffer.subarray(3 + args.query.length)]).toEqual(Array(6).fill(-7));
      // The query's own memory as the output: read in before the result is written.
      const query = Float32Array.from(args.query);
      const fused = await layer.forward(activations);
      const inPlace = await layer.forward({ ...activations, query, output: query });
      expect(inPlace.output).toBe(query);
      expectSameBits(query, fused.output, 'query overwritten by its own result');
    } finally {
      engine.dispose();
    }
  });

  test('a wrong output is refused by name, and the layer stays usable', async () => {
    const layer = await engines.simd.createLayer(pick(args, WEIGHTS));
    const n = args.query.length;
    await expect(layer.forward({ ...activations, output: new Float32Array(n - 1) })).rejects.toThrow(
      new RangeError(`output: expected ${n} elements [batch=2, seqLenQ=4, dModel=8], got ${n - 1}`),
    );
    await expect(layer.forward({ ...activations, output: new Float64Array(n) })).rejects.toThrow(TypeError);
    await expect(layer.forward({ ...activations, output: [...want.output] })).rejects.toThrow(
      /^output: expected a Float32Array of 64 elements/,
    );
    const { output } = await layer.forward(activations);
    expectClose(output, want.output, tolerance, 'after the refusals');
    layer.dispose();
  });
});

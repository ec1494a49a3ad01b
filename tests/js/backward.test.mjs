// multiHeadAttentionBackward: the gradient fixtures (PyTorch autograd in
// float64, tests/fixtures/grad) on every build, bitwise identical across
// thread counts, and its argument errors.
import { readFileSync, readdirSync } from 'node:fs';
import { createAttention } from '../../src/js/node.mjs';
import { createEngines, disposeEngines, VARIANTS } from './helpers/engines.mjs';
import { expectClose, expectSameBits } from './helpers/compare.mjs';

const DIR = new URL('../fixtures/grad/', import.meta.url);
const INPUTS = ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO', 'gradOutput'];
const GRADIENTS = [
  'gradQuery',
  'gradKey',
  'gradValue',
  'gradWQ',
  'gradWK',
  'gradWV',
  'gradWO',
  'gradBQ',
  'gradBK',
  'gradBV',
  'gradBO',
];
const names = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .sort();

function load(name) {
  const raw = JSON.parse(readFileSync(new URL(`${name}.json`, DIR), 'utf8'));
  // The call's arguments only: the fixture's descriptive fields and expected
  // gradients are not arguments.
  const DIMS = ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV', 'causal'];
  const args = Object.fromEntries(DIMS.map((k) => [k, raw[k]]));
  for (const k of INPUTS) args[k] = raw[k] === null ? undefined : Float32Array.from(raw[k]);
  args.keyPaddingMask = raw.keyPaddingMask === null ? undefined : Uint8Array.from(raw.keyPaddingMask);
  // Self-attention fixtures: one shared input, so key and value are left out.
  if (raw.selfAttention) (delete args.key, delete args.value);
  return { raw, args };
}

let engines;
beforeAll(async () => {
  engines = await createEngines();
});
afterAll(() => disposeEngines(engines));

test('there are gradient fixtures', () => expect(names.length).toBeGreaterThanOrEqual(5));

describe.each(VARIANTS)('%s build', (variant) => {
  test.each(names)('%s matches PyTorch autograd', async (name) => {
    const { raw, args } = load(name);
    const grads = await engines[variant].multiHeadAttentionBackward(args);
    for (const g of GRADIENTS) {
      if (raw[g] === null) expect({ [g]: grads[g] }).toEqual({ [g]: undefined });
      else expectClose(grads[g], raw[g], raw.tolerance, `${name} ${g}`);
    }
  });
});

test('gradients are bitwise identical on 1, 2, 3 and 4 threads', async () => {
  const { args } = load('causal_self');
  // Repeat the batch so the call is large enough to use the pool.
  const big = { ...args };
  const reps = 400; // ~10 MFLOP: above the size below which a call stays on one thread
  for (const k of ['query', 'gradOutput'])
    big[k] = Float32Array.from({ length: args[k].length * reps }, (_, i) => args[k][i % args[k].length]);
  big.batch = args.batch * reps;
  const results = [];
  for (const threads of [1, 2, 3, 4]) {
    const engine = await createAttention({ variant: 'threaded-simd', threads });
    results.push(await engine.multiHeadAttentionBackward(big));
    engine.dispose();
  }
  for (let i = 1; i < results.length; i++)
    for (const g of Object.keys(results[0]))
      expectSameBits(results[i][g], results[0][g], `${g}, ${i + 1} threads vs 1`);
});

test('argument errors name the argument; the engine stays usable', async () => {
  const { raw, args } = load('cross_attention');
  const engine = engines.simd;
  await expect(engine.multiHeadAttentionBackward({ ...args, gradOutput: undefined })).rejects.toThrow(
    /^gradOutput: expected a Float32Array of 72 elements \[batch=2, seqLenQ=3, dModel=12\], got undefined$/,
  );
  await expect(engine.multiHeadAttentionBackward({ ...args, gradOutput: new Float32Array(5) })).rejects.toThrow(
    RangeError,
  );
  await expect(engine.multiHeadAttentionBackward({ ...args, returnAttention: true })).rejects.toThrow(
    /^multiHeadAttentionBackward: unknown argument "returnAttention"/,
  );
  const grads = await engine.multiHeadAttentionBackward(args);
  expectClose(grads.gradWQ, raw.gradWQ, raw.tolerance, 'after errors');
});

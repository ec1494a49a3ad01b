// The threaded build in Node: every fixture on 1, 2, 3 and 4 threads, with
// results bitwise identical across thread counts (and equal to the one-thread
// build of the same kernels); the life cycle of engines and their workers. The
// threaded build is the first of the helpers' builds: threaded-relaxed-simd
// where this Node runs relaxed SIMD (the default build then), else threaded-simd.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { fixtureNames, loadFixture } from './helpers/fixtures.mjs';
import { expectClose, expectSameBits } from './helpers/compare.mjs';
import { mulberry32, gaussian, randomFloat32 } from './helpers/random.mjs';
import { VARIANTS, WASM_FLAGS } from './helpers/engines.mjs';
import { isThreaded, singleThreaded } from '../../src/js/variants.mjs';

const THREADS = [1, 2, 3, 4];
const THREADED = VARIANTS.find(isThreaded);
const SINGLE = singleThreaded(THREADED);
let engines;

beforeAll(async () => {
  engines = await Promise.all(THREADS.map((threads) => createAttention({ variant: THREADED, threads })));
  engines.push(await createAttention({ variant: SINGLE }));
});
afterAll(() => engines?.forEach((e) => e.dispose()));

test('engines report the build and thread count asked for', () => {
  expect(engines.map((e) => [e.variant, e.threads])).toEqual([
    [THREADED, 1],
    [THREADED, 2],
    [THREADED, 3],
    [THREADED, 4],
    [SINGLE, 1],
  ]);
});

describe.each(fixtureNames())('fixture %s', (name) => {
  test('matches the reference on 1–4 threads, bitwise identical across thread counts', async () => {
    const { args, want, tolerance } = loadFixture(name);
    const results = [];
    for (const engine of engines) results.push(await engine.multiHeadAttention({ ...args, returnAttention: true }));
    expectClose(results[0].output, want.output, tolerance, `${name} output`);
    expectClose(results[0].attention, want.attention, tolerance, `${name} attention`);
    for (let i = 1; i < results.length; i++) {
      const label = `${name}: ${engines[i].variant} ×${engines[i].threads} vs ${THREADED} ×1`;
      expectSameBits(results[i].output, results[0].output, `${label} output`);
      expectSameBits(results[i].attention, results[0].attention, `${label} attention`);
    }
  });
});

test('a call large enough to use every thread is bitwise identical across thread counts', async () => {
  // ~70 MFLOP: above the size below which a call stays on one thread.
  const normal = gaussian(mulberry32(42));
  const seqLenQ = 97,
    seqLenK = 131,
    dModel = 96,
    numHeads = 6;
  const args = {
    query: randomFloat32(normal, 2 * seqLenQ * dModel),
    key: randomFloat32(normal, 2 * seqLenK * dModel),
    value: randomFloat32(normal, 2 * seqLenK * dModel),
    batch: 2,
    seqLenQ,
    seqLenK,
    dModel,
    numHeads,
    wQ: randomFloat32(normal, dModel * dModel, 0.1),
    wK: randomFloat32(normal, dModel * dModel, 0.1),
    wV: randomFloat32(normal, dModel * dModel, 0.1),
    wO: randomFloat32(normal, dModel * dModel, 0.1),
    bO: randomFloat32(normal, dModel),
    causal: true,
    returnAttention: true,
  };
  for (const returnAttention of [true, false]) {
    const results = [];
    for (const engine of engines) results.push(await engine.multiHeadAttention({ ...args, returnAttention }));
    for (let i = 1; i < results.length; i++)
      expectSameBits(results[i].output, results[0].output, `×${engines[i].threads} output`);
  }
});

test('threads outside 1–16 or on a one-thread build are refused clearly', async () => {
  await expect(createAttention({ threads: 0 })).rejects.toThrow(/^threads: expected an integer from 1 to 16, got 0$/);
  await expect(createAttention({ threads: 17 })).rejects.toThrow(RangeError);
  await expect(createAttention({ threads: 2.5 })).rejects.toThrow(RangeError);
  await expect(createAttention({ threads: '2' })).rejects.toThrow(TypeError);
  await expect(createAttention({ variant: 'simd', threads: 2 })).rejects.toThrow(/variant "simd" runs on one thread/);
});

test('16 threads on a 2-core machine still give the one-thread result', async () => {
  const { args, want, tolerance } = loadFixture('moderate_64');
  const engine = await createAttention({ threads: 16 });
  try {
    expect(engine.threads).toBe(16);
    const { output } = await engine.multiHeadAttention(args);
    expectClose(output, want.output, tolerance, 'moderate_64 on 16 threads');
    expectSameBits(output, (await engines[0].multiHeadAttention(args)).output, '16 threads vs 1');
  } finally {
    engine.dispose();
  }
});

// On Node's default engine; hardening-memory.test.mjs creates and disposes 100 threaded engines (2 and 4
// threads) in a process of its own, where it also sees that no thread and no memory is left.
test('10 engines created and disposed in a row: no hang, each one right, refused once disposed', async () => {
  const { args, want, tolerance } = loadFixture('tiny_self');
  for (let i = 0; i < 10; i++) {
    const engine = await createAttention({ threads: 2 });
    const { output } = await engine.multiHeadAttention(args);
    engine.dispose();
    engine.dispose(); // idempotent
    await expect(engine.multiHeadAttention(args)).rejects.toThrow(/disposed/);
    expectClose(output, want.output, tolerance, `engine ${i}`);
  }
}, 60_000);

test('a Node process that disposed its engines exits by itself', () => {
  const script = `
    import { createAttention } from ${JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)))};
    const engines = [await createAttention({ threads: 4 }), await createAttention({ threads: 2 }), await createAttention({ variant: 'simd' })];
    const I = Float32Array.of(1, 0, 0, 1);
    for (const e of engines) await e.multiHeadAttention({ query: Float32Array.of(1, 2, 3, 4), seqLenQ: 2, dModel: 2, numHeads: 1, wQ: I, wK: I, wV: I, wO: I });
    engines.forEach((e) => e.dispose());
    console.log('done');`;
  const run = spawnSync(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', script], {
    timeout: 20_000,
    encoding: 'utf8',
  });
  expect(run.error).toBeUndefined(); // ETIMEDOUT if the workers kept the process alive
  expect(run.status).toBe(0);
  expect(run.stdout.trim()).toBe('done');
});

// createAttention({ worker: true }): the engine in a worker_threads Worker.
// The same results, bit for bit, as on the calling thread; a long call leaves
// Node's event loop free; an engine never disposed still lets Node exit.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { loadFixture, callArguments } from './helpers/fixtures.mjs';
import { expectSameBits } from './helpers/compare.mjs';
import { BUILDS, VARIANTS } from './helpers/engines.mjs';
import { LAYER } from './helpers/arguments.mjs';

test.each(VARIANTS)('%s: the same bits in a Worker as on this thread, calls, layers and errors', async (variant) => {
  const direct = await createAttention({ ...BUILDS[variant] });
  const inWorker = await createAttention({ ...BUILDS[variant], worker: true });
  try {
    expect([inWorker.variant, inWorker.threads, inWorker.limits]).toEqual([
      direct.variant,
      direct.threads,
      direct.limits,
    ]);
    const args = { ...callArguments(loadFixture('cross_attention')), returnAttention: true, returnProjections: true };
    const a = await direct.multiHeadAttention(args);
    const b = await inWorker.multiHeadAttention(args);
    expectSameBits(b.output, a.output, 'output');
    expectSameBits(b.attention, a.attention, 'attention');
    expectSameBits(b.projections.concat, a.projections.concat, 'concat');
    const weights = Object.fromEntries(LAYER.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
    const layer = await inWorker.createLayer(weights);
    const { query, key, value, batch, seqLenQ, seqLenK } = args;
    const viaLayer = await layer.forward({ query, key, value, batch, seqLenQ, seqLenK, returnAttention: true });
    expectSameBits(viaLayer.output, a.output, 'layer');
    layer.dispose();
    // Errors keep their type and message across the Worker.
    const bad = { ...args, wO: new Float32Array(3) };
    const [e1, e2] = await Promise.all([direct, inWorker].map((e) => e.multiHeadAttention(bad).catch((x) => x)));
    expect(e2).toBeInstanceOf(e1.constructor);
    expect(e2.message).toBe(e1.message);
  } finally {
    direct.dispose();
    inWorker.dispose();
  }
});

test('a long call in a Worker leaves the event loop free; on the calling thread it does not', async () => {
  const L = 2048,
    dModel = 512,
    numHeads = 8;
  const w = () => Float32Array.from({ length: dModel * dModel }, (_, i) => Math.sin(i) * 0.05);
  const args = { seqLenQ: L, dModel, numHeads, wQ: w(), wK: w(), wV: w(), wO: w() };
  args.query = Float32Array.from({ length: L * dModel }, (_, i) => Math.cos(i * 0.01));
  // The largest gap between the ticks of a 5 ms timer while `call` runs.
  const largestGap = async (call) => {
    let last = performance.now(),
      gap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 5);
    try {
      await call();
      // One more tick, so that a loop blocked until now is seen.
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      clearInterval(timer);
    }
    return gap;
  };
  for (const worker of [true, false]) {
    const engine = await createAttention({ variant: 'threaded-simd', threads: 2, worker });
    try {
      const started = performance.now();
      const gap = await largestGap(() => engine.multiHeadAttention(args));
      const took = performance.now() - started;
      // In a Worker the loop ticks through the call: its largest gap stays
      // under 50 ms, or under a quarter of the call on a loaded machine (two
      // cores shared with the other test files, where a tick can be late by
      // itself). On the calling thread the call blocks the loop for its whole
      // length (the contrast shows the measurement can fail).
      if (worker) expect(gap).toBeLessThan(Math.max(50, took / 4));
      else expect(gap).toBeGreaterThan(Math.min(50, took / 2));
    } finally {
      engine.dispose();
    }
  }
}, 30_000);

test('an engine in a Worker, never disposed, lets Node exit', () => {
  const entry = JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)));
  const script = `
    const { createAttention } = await import(${entry});
    const ones = (k) => new Float32Array(k).fill(0.5);
    const engine = await createAttention({ worker: true, threads: 2 });
    const { output } = await engine.multiHeadAttention({ seqLenQ: 2, dModel: 4, numHeads: 2, query: ones(8), wQ: ones(16), wK: ones(16), wV: ones(16), wO: ones(16) });
    console.log(JSON.stringify({ first: output[0], at: Date.now() }));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20000,
  });
  const ended = Date.now();
  expect(child.error).toBeUndefined();
  const { first, at } = JSON.parse(child.stdout.trim().split('\n').pop());
  expect(first).toBe(2);
  expect(ended - at).toBeLessThan(1000);
});

test('worker must be a boolean', async () => {
  await expect(createAttention({ worker: 'yes' })).rejects.toThrow(
    /^worker: expected a boolean \(true runs the engine in a Worker\), got the string "yes"$/,
  );
});

// Concurrency from JS in one Node process: several engines (every build, several
// thread pools) with un-awaited calls interleaved between them, and many
// un-awaited calls on one engine. In Node an engine runs each call on the
// calling thread, one at a time, when it is made (engine.mjs, node.mjs): calls
// queue in the order they were made and a result can never be another call's.
// These tests hold any backend to that: each result is checked against the
// float64 reference of its own arguments, rejections stay with their call,
// and changing an input after the call was made does not change its result.
import { createAttention } from '../../src/js/node.mjs';
import { randomCase, mulberry32 } from './helpers/random.mjs';
import { referenceAttention } from './helpers/reference.mjs';
import { compareClose, expectSameBits, toleranceFor } from './helpers/compare.mjs';
import { LAYER, pick } from './helpers/arguments.mjs';

const FORWARD = ['batch', 'seqLenQ', 'seqLenK', 'query', 'key', 'value', 'keyPaddingMask', 'causal', 'returnAttention'];

/** null when result matches the reference of args, else what differs. */
function mismatch(result, args) {
  const want = referenceAttention(args);
  const tol = toleranceFor(args);
  return (
    compareClose(result.output, want.output, tol) ??
    (args.returnAttention ? compareClose(result.attention, want.attention, tol) : null)
  );
}

/** n seeded calls of random small shapes, distinct enough that a swapped result cannot pass. */
function cases(seed, n) {
  const u = mulberry32(seed);
  const int = (k) => Math.floor(u() * k);
  return Array.from({ length: n }, (_, k) => {
    const numHeads = 1 + int(3);
    // Shapes large enough, some of them, to run on the thread pools (> 4 MFLOP).
    const big = k % 10 === 0;
    const args = randomCase(seed * 1000 + k, {
      batch: 1 + int(2),
      seqLenQ: 1 + int(big ? 96 : 12),
      seqLenK: 1 + int(big ? 96 : 12),
      dModel: numHeads * (1 + int(big ? 24 : 6)),
      numHeads,
      causal: u() < 0.5,
      bias: u() < 0.5,
      padding: u() < 0.3 ? 0.3 : undefined,
    });
    args.returnAttention = u() < 0.5;
    return args;
  });
}

const BUILDS = [
  { variant: 'simd' },
  { variant: 'scalar' },
  { variant: 'threaded-simd', threads: 2 },
  { variant: 'threaded-simd', threads: 3 },
  { variant: 'threaded-simd', threads: 2 },
];
let engines;
beforeAll(async () => {
  engines = await Promise.all(BUILDS.map((b) => createAttention(b)));
});
afterAll(() => engines?.forEach((e) => e.dispose()));

test('five engines, 250 un-awaited calls interleaved between them: every result is its own', async () => {
  const all = cases(1, 50);
  // Issued round-robin without awaiting: engine e gets case (i + e) % 50.
  const pending = [];
  for (let i = 0; i < all.length; i++)
    for (let e = 0; e < engines.length; e++)
      pending.push({ e, k: (i + e) % all.length, promise: engines[e].multiHeadAttention(all[(i + e) % all.length]) });
  const results = await Promise.all(pending.map((p) => p.promise));
  const byCase = new Map();
  results.forEach((result, j) => {
    const { e, k } = pending[j];
    const problem = mismatch(result, all[k]);
    if (problem) throw new Error(`engine ${e} (${JSON.stringify(BUILDS[e])}), case ${k}: ${problem}`);
    // simd and threaded-simd give the same bits for any thread count (README, Builds).
    if (BUILDS[e].variant !== 'scalar') {
      if (byCase.has(k))
        expectSameBits(result.output, byCase.get(k), `case ${k}, engine ${e} vs the first SIMD engine`);
      else byCase.set(k, result.output);
    }
  });
}, 30_000);

test('179 un-awaited calls on one engine, with layers and rejections among them, each settle with their own result, in order', async () => {
  const engine = engines[2];
  const all = cases(2, 100);
  const layerArgs = all.find((c) => c.dModel > 1 && c.numHeads > 1);
  const layer = await engine.createLayer(pick(layerArgs, LAYER));
  const settled = [];
  const issued = [];
  const issue = (label, promise, check) => {
    const index = issued.length;
    issued.push(label);
    return promise.then(
      (value) => settled.push([index, check(value, null)]),
      (error) => settled.push([index, check(null, error)]),
    );
  };
  const waits = [];
  for (let k = 0; k < all.length; k++) {
    const args = all[k];
    waits.push(issue(`call ${k}`, engine.multiHeadAttention(args), (r, e) => e?.message ?? mismatch(r, args)));
    if (k % 2 === 0) {
      // An invalid call in between: rejects with its own error.
      waits.push(
        issue(`bad ${k}`, engine.multiHeadAttention({ ...args, query: new Float32Array(1) }), (r, e) =>
          e instanceof RangeError && /^query: expected/.test(e.message)
            ? null
            : `resolved or wrong error: ${e?.message}`,
        ),
      );
    }
    if (k % 4 === 0) {
      const activations = randomCase(5000 + k, {
        batch: 1,
        seqLenQ: 1 + (k % 7),
        seqLenK: 1 + (k % 5),
        dModel: layerArgs.dModel,
        numHeads: layerArgs.numHeads,
        causal: k % 8 === 0,
      });
      const defined = {
        ...activations,
        ...Object.fromEntries(LAYER.map((n) => [n, layerArgs[n]])),
        returnAttention: true,
      };
      waits.push(
        issue(
          `forward ${k}`,
          layer.forward({ ...pick(activations, FORWARD), returnAttention: true }),
          (r, e) => e?.message ?? mismatch(r, defined),
        ),
      );
    }
    if (k % 25 === 0)
      waits.push(
        issue(
          `memoryStats ${k}`,
          engine.memoryStats(),
          (r, e) => e?.message ?? (r.inUseBytes > 0 && r.heapBytes >= r.inUseBytes ? null : JSON.stringify(r)),
        ),
      );
  }
  await Promise.all(waits);
  layer.dispose();
  expect(issued.length).toBe(179);
  const problems = settled.filter(([, p]) => p).map(([i, p]) => `${issued[i]}: ${p}`);
  expect(problems).toEqual([]);
  // The calls that resolve settle in the order they were made. (A call the
  // argument checks reject settles a few microtasks sooner than one that
  // resolves, so rejections are left out of this order; each was checked above
  // to carry its own error.)
  const resolvedOrder = settled.map(([i]) => i).filter((i) => !issued[i].startsWith('bad'));
  expect(resolvedOrder).toEqual([...resolvedOrder].sort((x, y) => x - y));
  expect(settled.length).toBe(issued.length);
}, 30_000);

test('changing or detaching an input right after an un-awaited call does not change its result', async () => {
  const engine = engines[3];
  const all = cases(3, 40);
  const pending = all.map((args) => {
    const copy = { ...args, query: args.query.slice(), wQ: args.wQ.slice(), key: args.key.slice() };
    const promise = engine.multiHeadAttention(copy);
    copy.query.fill(NaN); // too late: the call has its inputs already
    copy.wQ.fill(1e30);
    structuredClone(copy.key.buffer, { transfer: [copy.key.buffer] });
    return promise;
  });
  const results = await Promise.all(pending);
  results.forEach((r, k) => expect([k, mismatch(r, all[k])]).toEqual([k, null]));
});

test('async clients awaiting in turn on one engine (sharing layers) each get their own results', async () => {
  const engine = engines[4];
  const all = cases(4, 120);
  const client = async (c) => {
    const mine = all.filter((_, k) => k % 4 === c);
    for (const args of mine) {
      // Half through a layer made for this call, disposed right after.
      if (args.dModel % args.numHeads === 0 && mine.indexOf(args) % 2 === 1) {
        const layer = await engine.createLayer(pick(args, LAYER));
        const result = await layer.forward(pick(args, FORWARD));
        layer.dispose();
        expect([c, mismatch(result, args)]).toEqual([c, null]);
      } else {
        expect([c, mismatch(await engine.multiHeadAttention(args), args)]).toEqual([c, null]);
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(client));
});

test('disposing an engine with calls still pending: those made before settle right, those after reject', async () => {
  const engine = await createAttention({ variant: 'threaded-simd', threads: 2 });
  const all = cases(5, 10);
  const before = all.map((args) => engine.multiHeadAttention(args));
  const layer = await engine.createLayer(pick(all[0], LAYER));
  const forward = layer.forward(pick(all[0], FORWARD));
  engine.dispose();
  const after = engine.multiHeadAttention(all[0]);
  const afterLayer = layer.forward(pick(all[0], FORWARD));
  const results = await Promise.all(before);
  results.forEach((r, k) => expect([k, mismatch(r, all[k])]).toEqual([k, null]));
  expect(mismatch(await forward, all[0])).toBeNull();
  await expect(after).rejects.toThrow(/engine was disposed/);
  await expect(afterLayer).rejects.toThrow(/disposed/);
});

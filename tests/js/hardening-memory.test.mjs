// The wasm memory: calls that grow it, calls refused before they would pass its
// limit, and no leaks (in-use bytes of the wasm heap, layers, engines).
//
// Memory growth: every build starts with 32 MiB and may grow to the 2 GiB
// limit (CMakeLists.txt: INITIAL_MEMORY, MAXIMUM_MEMORY). Growth replaces the
// memory's ArrayBuffer (a new SharedArrayBuffer in the threaded build), so a
// JS view made before it is stale; each test here grows the heap in the middle
// of an engine's life and then checks that small calls, one-shot and through
// a layer packed before the growth, are still right.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { BUILDS, MEMORY_VARIANTS } from './helpers/engines.mjs';
import { loadFixture } from './helpers/fixtures.mjs';
import { randomCase, mulberry32, gaussian, randomFloat32 } from './helpers/random.mjs';
import { referenceAttention } from './helpers/reference.mjs';
import { expectClose, toleranceFor } from './helpers/compare.mjs';
import { LAYER, FORWARD, pick } from './helpers/arguments.mjs';

// The threaded builds as the page and Node's default choose them: two and four threads.
const THREADED = [
  { variant: 'threaded-simd', threads: 2 },
  { variant: 'threaded-simd', threads: 4 },
];
const report = (...words) => process.env.MHA_REPORT && console.log(...words); // figures for the closing note

/** Throws unless a call's result matches the float64 reference (output, and attention when returned). */
function expectReference(got, args, label) {
  const want = referenceAttention(args);
  const tol = toleranceFor({
    ...args,
    dK: args.dK ?? args.dModel / args.numHeads,
    dV: args.dV ?? args.dModel / args.numHeads,
    seqLenK: args.seqLenK ?? args.seqLenQ,
  });
  expectClose(got.output, want.output, tol, `${label}: output`);
  if (args.returnAttention) expectClose(got.attention, want.attention, tol, `${label}: attention`);
}

// A self-attention call of L tokens whose wQ is 0: every logit is 0, so every
// weight is exactly 1/L (L a power of two) and every output row is
// mean(query)·wV·wO + bO, cheap to check in float64 however large L is.
const D = 16,
  H = 2;
const weightsFor = (seed) => {
  const normal = gaussian(mulberry32(seed));
  return {
    dModel: D,
    numHeads: H,
    wQ: new Float32Array(D * D),
    wK: randomFloat32(normal, D * D, 0.25),
    wV: randomFloat32(normal, D * D, 0.25),
    wO: randomFloat32(normal, D * D, 0.25),
    bO: randomFloat32(normal, D, 0.5),
  };
};
function uniformOutputRow(weights, query, L) {
  const mean = new Float64Array(D);
  for (let i = 0; i < L; i++) for (let c = 0; c < D; c++) mean[c] += query[i * D + c] / L;
  const v = new Float64Array(D);
  for (let c = 0; c < D; c++) for (let k = 0; k < D; k++) v[c] += mean[k] * weights.wV[k * D + c];
  const out = Float64Array.from(weights.bO);
  for (let c = 0; c < D; c++) for (let k = 0; k < D; k++) out[c] += v[k] * weights.wO[k * D + c];
  return out;
}
function expectUniform(got, weights, query, L, label) {
  const w = 1 / L;
  const bad = got.attention.findIndex((x) => x !== w);
  if (bad >= 0) throw new Error(`${label}: attention[${bad}] is ${got.attention[bad]}, want exactly ${w}`);
  const row = uniformOutputRow(weights, query, L);
  const tol = toleranceFor({ dModel: D, numHeads: H, dK: D / H, dV: D / H, seqLenK: L });
  for (const i of [0, 1, L >> 1, L - 1])
    expectClose(got.output.subarray(i * D, (i + 1) * D), row, tol, `${label}: output row ${i}`);
}

// One build of each kind of wasm memory (helpers/engines.mjs: MEMORY_BUILDS): growth replaces an ArrayBuffer or a
// SharedArrayBuffer; the kernels do not take part.
describe.each(MEMORY_VARIANTS)('%s build: memory growth', (variant) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
  });
  afterAll(() => engine?.dispose());

  test('calls that grow the heap are right, and so is every small call after them (no stale view)', async () => {
    const fixture = loadFixture('tiny_self_bias');
    const small = randomCase(7, {
      batch: 2,
      seqLenQ: 5,
      seqLenK: 9,
      dModel: D,
      numHeads: H,
      bias: true,
      padding: 0.3,
      causal: true,
    });
    const weights = weightsFor(1);
    const layer = await engine.createLayer(pick(small, LAYER)); // packed before any growth
    const checkSmallCalls = async (label) => {
      expectReference(
        await layer.forward({ ...pick(small, FORWARD), returnAttention: true }),
        { ...small, returnAttention: true },
        `${label}, layer`,
      );
      const { output } = await engine.multiHeadAttention(fixture.args);
      expectClose(output, fixture.want.output, fixture.tolerance, `${label}, tiny_self_bias`);
    };
    const start = await engine.memoryStats();
    expect(start.heapBytes).toBe(32 << 20);
    await checkSmallCalls('before growing');

    // 1. Through a layer: 2 × 2048² weights = 32 MiB of attention alone.
    const big = await engine.createLayer(weights);
    let L = 2048;
    let query = randomFloat32(gaussian(mulberry32(2)), L * D);
    expectUniform(await big.forward({ query, seqLenQ: L, returnAttention: true }), weights, query, L, `layer, L ${L}`);
    const grown = await engine.memoryStats();
    expect(grown.heapBytes).toBeGreaterThan(start.heapBytes);
    await checkSmallCalls('after the first growth');

    // 2. One-shot, larger again: the heap grows a second time.
    L = 4096;
    query = randomFloat32(gaussian(mulberry32(3)), L * D);
    expectUniform(
      await engine.multiHeadAttention({ ...weights, query, seqLenQ: L, returnAttention: true }),
      weights,
      query,
      L,
      `one-shot, L ${L}`,
    );
    const grownAgain = await engine.memoryStats();
    expect(grownAgain.heapBytes).toBeGreaterThan(grown.heapBytes);
    await checkSmallCalls('after the second growth');
    report(
      `${variant}: heap ${start.heapBytes} → ${grown.heapBytes} → ${grownAgain.heapBytes} bytes; in use after ${grownAgain.inUseBytes}`,
    );

    // The big buffers were given back (kept buffers stay under 4 MiB each).
    big.dispose();
    layer.dispose();
    expect((await engine.memoryStats()).inUseBytes - start.inUseBytes).toBeLessThan(8 << 20);
  }, 60_000);

  test('a layer call too large for the 2 GiB limit is refused before allocating; the layer and engine stay usable', async () => {
    const weights = weightsFor(4);
    const layer = await engine.createLayer(weights);
    const before = await engine.memoryStats();
    // 2 heads × 23171² weights = 4.3 GB: under 2^31 elements, over the limit.
    const L = 23171;
    const error = await layer.forward({ query: new Float32Array(L * D), seqLenQ: L, returnAttention: true }).then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(
      /^this call needs (\d+) bytes of WebAssembly memory, more than the (\d+) bytes available \(limit 2147483648\); use shorter sequences or a smaller batch$/,
    );
    const [, needed, available] = error.message.match(/needs (\d+) .* the (\d+) bytes/).map(Number);
    expect(needed).toBeGreaterThan(2 * L * L * 4);
    expect(available).toBeLessThanOrEqual(2 ** 31);
    const after = await engine.memoryStats();
    expect(after.heapBytes).toBe(before.heapBytes); // nothing was allocated for it
    expect(after.inUseBytes).toBe(before.inUseBytes); // and nothing is left of it
    const query = randomFloat32(gaussian(mulberry32(5)), 8 * D);
    expectUniform(
      await layer.forward({ query, seqLenQ: 8, returnAttention: true }),
      weights,
      query,
      8,
      'the layer after the refusal',
    );
    layer.dispose();
  });
});

// Calls of mixed sizes (L <= 32, so 10,000 of them take about a second):
// one-shot and through two layers, self and cross, causal, padded, with and
// without weights and projections, plus calls the bindings refuse (too large
// for the memory limit: a C++ error thrown and caught inside the wasm, turned
// into a RangeError) and calls the JS checks reject. Seeded: the same 10,000
// calls every run.
function mixedCalls(seed, count) {
  const uniform = mulberry32(seed);
  const int = (n) => Math.floor(uniform() * n);
  const shapes = [
    [8, 2],
    [12, 3],
    [16, 4],
    [6, 1],
    [10, 2],
  ];
  const cases = [];
  for (let k = 0; k < 48; k++) {
    const [dModel, numHeads] = shapes[k % shapes.length];
    const seqLenQ = 1 + int(32),
      self = uniform() < 0.3;
    const args = randomCase(seed * 100 + k, {
      batch: 1 + int(2),
      seqLenQ,
      seqLenK: self ? seqLenQ : 1 + int(32),
      dModel,
      numHeads,
      self,
      causal: uniform() < 0.4,
      bias: uniform() < 0.5,
      padding: uniform() < 0.4 ? 0.3 : undefined,
    });
    args.returnAttention = uniform() < 0.5;
    args.returnProjections = uniform() < 0.15;
    cases.push(args);
  }
  const refused = { ...weightsFor(9), query: new Float32Array(23171 * D), seqLenQ: 23171, returnAttention: true };
  const calls = [];
  for (let i = 0; i < count; i++) {
    const r = uniform();
    if (r < 0.02) calls.push({ kind: 'refused', args: refused });
    else if (r < 0.1) calls.push({ kind: 'invalid', args: { ...cases[int(cases.length)], numhead: 2 } });
    else if (r < 0.4) calls.push({ kind: 'layer', layer: int(2), args: cases[int(cases.length)] });
    else calls.push({ kind: 'one-shot', args: cases[int(cases.length)] });
  }
  return { cases, calls };
}

describe.each(['simd', 'threaded-simd'])('%s build: no leaks', (variant) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
  });
  afterAll(() => engine?.dispose());

  test('10,000 calls of mixed sizes leave the in-use bytes of the wasm heap exactly where they were', async () => {
    const { cases, calls } = mixedCalls(variant === 'simd' ? 11 : 12, 10_000);
    // The layers' shapes: dModel 8 (2 heads) and 12 (3 heads); a call goes to the one of its shape.
    const layerCases = [cases.find((c) => c.dModel === 8), cases.find((c) => c.dModel === 12)];
    const layers = await Promise.all(layerCases.map((c) => engine.createLayer(pick(c, LAYER))));
    // Returns [result, the arguments that define it] (a layer computes with its own weights).
    const run = async (call) => {
      const { args } = call;
      const l = call.kind === 'layer' ? layers.findIndex((layer) => layer.dModel === args.dModel) : -1;
      if (l >= 0)
        return [
          await layers[l].forward(pick(args, FORWARD)),
          { ...args, ...Object.fromEntries(LAYER.map((n) => [n, layerCases[l][n]])) },
        ];
      return [await engine.multiHeadAttention(args), args];
    };
    // The measurement. The engine keeps its buffers between calls (below 4 MiB
    // each) and grows them, never shrinks them, to the largest call seen; that
    // is what memoryStats reports as scratchBytes. Warm-up: the largest call
    // of every kind in the mix (each case once, with and without weights and
    // projections), so every kept buffer already has its final size. Then the
    // same probe call before and after the 10,000: every byte a call allocates
    // beyond the kept buffers must be freed by the time it returns, so the
    // in-use bytes must be equal, not merely close, and so must scratchBytes.
    for (const args of cases)
      for (const returnAttention of [false, true])
        for (const returnProjections of [false, true])
          await engine.multiHeadAttention({ ...args, returnAttention, returnProjections });
    for (const args of layerCases)
      for (const returnAttention of [false, true])
        for (const returnProjections of [false, true])
          await layers[layerCases.indexOf(args)].forward({
            ...pick(args, FORWARD),
            returnAttention,
            returnProjections,
          });
    const probe = cases[0];
    await engine.multiHeadAttention(probe);
    const before = await engine.memoryStats();

    const counts = { 'one-shot': 0, layer: 0, refused: 0, invalid: 0 };
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i];
      counts[call.kind]++;
      if (call.kind === 'refused' || call.kind === 'invalid') {
        const error = await run(call).then(
          () => null,
          (e) => e,
        );
        expect([i, call.kind, error?.name]).toEqual([
          i,
          call.kind,
          call.kind === 'refused' ? 'RangeError' : 'TypeError',
        ]);
        continue;
      }
      const [result, defined] = await run(call);
      if (i % 500 === 0) expectReference(result, defined, `call ${i} (${call.kind})`); // a sample; hardening-interleave checks them all
    }
    await engine.multiHeadAttention(probe);
    const after = await engine.memoryStats();
    report(
      `${variant}: ${JSON.stringify(counts)}; in use before ${before.inUseBytes} B, after ${after.inUseBytes} B; scratch ${before.scratchBytes} → ${after.scratchBytes} B; heap ${after.heapBytes} B`,
    );
    expect(after.inUseBytes).toBe(before.inUseBytes);
    expect(after.scratchBytes).toBe(before.scratchBytes);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(counts.refused).toBeGreaterThan(100);
    expect(counts.invalid).toBeGreaterThan(500);
    layers.forEach((l) => l.dispose());
  }, 60_000);

  test('1,000 layers created and disposed (three shapes) leave the in-use bytes where they were', async () => {
    const shapes = [
      weightsFor(20),
      pick(randomCase(21, { seqLenQ: 2, dModel: 32, numHeads: 4, bias: true }), LAYER),
      pick(randomCase(22, { seqLenQ: 2, dModel: 5, numHeads: 1 }), LAYER),
    ];
    (await engine.createLayer(shapes[0])).dispose(); // warm-up
    const before = await engine.memoryStats();
    for (let i = 0; i < 1000; i++) {
      const layer = await engine.createLayer(shapes[i % 3]);
      if (i % 100 === 0) {
        const args = randomCase(i, { seqLenQ: 3, dModel: layer.dModel, numHeads: layer.numHeads });
        expectReference(await layer.forward(pick(args, FORWARD)), { ...args, ...shapes[i % 3] }, `layer ${i}`);
      }
      layer.dispose();
    }
    const after = await engine.memoryStats();
    report(`${variant}: 1,000 layers: in use before ${before.inUseBytes} B, after ${after.inUseBytes} B`);
    expect(after.inUseBytes).toBe(before.inUseBytes);
  }, 30_000);
});

// `builds` created and disposed 100 times (round robin) in a child process with --expose-gc, so the
// measurement is of this alone: { first (memory after 20), last, resources left, wants (each build's results) }.
function engines100(builds) {
  const script = `
    import { createAttention } from ${JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)))};
    const builds = ${JSON.stringify(builds)};
    const I = Float32Array.of(1, 0, 0, 1);
    const args = { query: Float32Array.of(1, 2, 3, 4), seqLenQ: 2, dModel: 2, numHeads: 1, wQ: I, wK: I, wV: I, wO: I, returnAttention: true };
    const measure = () => { gc(); gc(); const m = process.memoryUsage(); return { rss: m.rss, external: m.external, arrayBuffers: m.arrayBuffers }; };
    // Each build gives the same bits every time (builds differ in the last bit: scalar exp2 vs the SIMD polynomial).
    let first;
    const wants = [];
    for (let i = 0; i < 100; i++) {
      const build = builds[i % builds.length];
      const engine = await createAttention(build);
      const layer = await engine.createLayer({ dModel: 2, numHeads: 1, wQ: I, wK: I, wV: I, wO: I });
      const { output, attention } = await engine.multiHeadAttention(args);
      const viaLayer = await layer.forward({ query: args.query, seqLenQ: 2 });
      const got = JSON.stringify([Array.from(output), Array.from(attention), Array.from(viaLayer.output)]);
      wants[i % builds.length] ??= got;
      if (got !== wants[i % builds.length]) throw new Error('engine ' + i + ' (' + JSON.stringify(build) + '): ' + got + ' instead of ' + wants[i % builds.length]);
      engine.dispose();
      engine.dispose();
      if (i === 19) { await new Promise((r) => setTimeout(r, 100)); first = measure(); }
    }
    await new Promise((r) => setTimeout(r, 100));
    console.log(JSON.stringify({ first, last: measure(), resources: process.getActiveResourcesInfo(), wants: wants.map((w) => JSON.parse(w)) }));`;
  const started = Date.now();
  // A hang never ends; 100 threaded engines (300 pthreads started) took 49 s on this 2-core machine under a load
  // of 16, so the bound is well above that.
  const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    timeout: 150_000,
    encoding: 'utf8',
  });
  expect(run.error).toBeUndefined(); // ETIMEDOUT: a hang, or workers keeping the process alive
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const result = JSON.parse(run.stdout);
  const { first, last, resources } = result;
  report(
    `100 engines of ${JSON.stringify(builds)} in ${Date.now() - started} ms: rss ${first.rss} → ${last.rss} B, arrayBuffers ${first.arrayBuffers} → ${last.arrayBuffers} B, external ${first.external} → ${last.external} B; left: ${JSON.stringify(resources)}`,
  );
  return result;
}

// Each build's results against the reference, and nothing left running.
function expectRightAndClosed({ resources, wants }, count) {
  // No worker, message port or timer left behind (the child's stdio pipes are its own).
  expect(resources.filter((r) => r !== 'PipeWrap' && r !== 'TTYWrap')).toEqual([]);
  const ref = referenceAttention({
    query: [1, 2, 3, 4],
    seqLenQ: 2,
    dModel: 2,
    numHeads: 1,
    wQ: [1, 0, 0, 1],
    wK: [1, 0, 0, 1],
    wV: [1, 0, 0, 1],
    wO: [1, 0, 0, 1],
  });
  expect(wants).toHaveLength(count);
  for (const [output, attention, viaLayer] of wants) {
    expectClose(Float32Array.from(output), ref.output, { abs: 1e-5, rel: 1e-4 }, 'output');
    expectClose(Float32Array.from(attention), ref.attention, { abs: 1e-5, rel: 1e-4 }, 'attention');
    expectClose(Float32Array.from(viaLayer), ref.output, { abs: 1e-5, rel: 1e-4 }, 'layer output');
  }
}

// No memory kept: every engine has a 32 MiB wasm memory (80 kept engines would add 2.5 GiB) and its .wasm bytes.
function expectNothingKept({ first, last }) {
  expect(last.rss - first.rss).toBeLessThan(64 << 20);
  expect(last.arrayBuffers - first.arrayBuffers).toBeLessThan(1 << 20);
  expect(last.external - first.external).toBeLessThan(1 << 20);
}

test('100 engines of the one-thread builds created and disposed: no hang, no memory kept, each one right', () => {
  const result = engines100([{ variant: 'simd' }, { variant: 'scalar' }]);
  expectNothingKept(result);
  expectRightAndClosed(result, 2);
}, 90_000);

// One run of the threaded builds, read by the two tests below.
let threadedRun;
const threaded = () => (threadedRun ??= engines100(THREADED));

test('100 threaded engines created and disposed: no hang, no thread left, each one right', () => {
  expectRightAndClosed(threaded(), 2);
}, 180_000);

// No memory kept by a disposed threaded engine either: Emscripten 3.1.69's threaded glue arms an
// Atomics.waitAsync on the main thread's mailbox (checkMailbox) that nothing resolves after dispose, and
// the pending promise (V8's atomics_waitasync_promises) keeps the glue's context; given the .wasm bytes
// as wasmBinary, that context held them (about 133 KB of arrayBuffers per engine), so node-host.mjs
// instantiates them itself through the glue's instantiateWasm hook and lets them go.
test('100 threaded engines keep no memory', () => {
  expectNothingKept(threaded());
}, 180_000);

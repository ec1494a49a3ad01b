// Caller code cannot run inside a call: the arguments are read once, at the
// API boundary, before anything reaches the engine; what the bindings read
// are new objects of the package's own. Each test is a reproduction of a way
// a caller's getter once changed a result or freed memory mid-call, on a
// build of each kind of wasm memory (helpers/engines.mjs: MEMORY_BUILDS);
// results are checked against the fixture's float64 reference. Also: a call whose working memory alone is too large is refused by name, and a
// failed start-up (every build, in a Worker too) leaves Node free to exit.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadFixture, callArguments } from './helpers/fixtures.mjs';
import { expectClose, toleranceFor } from './helpers/compare.mjs';
import { BUILDS, MEMORY_VARIANTS, VARIANTS, WASM_FLAGS, createEngines, disposeEngines } from './helpers/engines.mjs';
import { LAYER, pick } from './helpers/arguments.mjs';

// A child process that does not exit by itself is killed after this long (a
// hang fails the test); well under the test's own 60 s, well over the few
// seconds it takes on a loaded 2-core machine.
const SUBPROCESS_MS = 45_000;

const fx = loadFixture('cross_attention');
const tol = toleranceFor(fx.args);
const base = () => callArguments(fx);
const forwardArgs = (args) => ({
  query: args.query,
  key: args.key,
  value: args.value,
  batch: args.batch,
  seqLenQ: args.seqLenQ,
  seqLenK: args.seqLenK,
});

let engines;
beforeAll(async () => {
  engines = await createEngines({ variants: MEMORY_VARIANTS });
});
afterAll(() => disposeEngines(engines));

describe.each(MEMORY_VARIANTS)('%s', (variant) => {
  test('an own `length` getter that shrinks a resizable buffer is never run', async () => {
    const engine = engines[variant];
    const args = base();
    const buffer = new ArrayBuffer(args.query.byteLength, { maxByteLength: args.query.byteLength });
    const query = new Float32Array(buffer);
    query.set(args.query);
    let ran = 0;
    Object.defineProperty(query, 'length', {
      get() {
        ran++;
        buffer.resize(4);
        return 1;
      },
    });
    const { output } = await engine.multiHeadAttention({ ...args, query });
    expect(ran).toBe(0);
    expectClose(output, fx.want.output, tol, 'output');
  });

  test("a call started from the key's getter does not change the outer call, and a big one frees nothing of it", async () => {
    const engine = engines[variant];
    const args = base();
    // The nested call is big (7.5 MB of activations: 6.3 MB of attention
    // weights, its projections and output): before, a nested call of 4.8 MB
    // made the engine grow its buffers, freeing the outer call's.
    const inner = { ...args, batch: 2, seqLenQ: 256, seqLenK: 1024, returnAttention: true };
    const wave = (n, phase) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37 + phase));
    inner.query = wave(2 * 256 * args.dModel, 0);
    inner.key = wave(2 * 1024 * args.dModel, 1);
    inner.value = wave(2 * 1024 * args.dModel, 2);
    let nested;
    const hostile = {
      ...args,
      returnAttention: true,
      get key() {
        nested = engine.multiHeadAttention(inner);
        return args.key;
      },
    };
    const outer = await engine.multiHeadAttention(hostile);
    expectClose(outer.output, fx.want.output, tol, 'outer output');
    expectClose(outer.attention, fx.want.attention, tol, 'outer attention');
    const got = await nested;
    expect((got.attention.byteLength + got.output.byteLength) / 1e6).toBeGreaterThan(4.8);
    // The nested call's own result is the one it gets when made on its own.
    const alone = await engine.multiHeadAttention(inner);
    const bytes = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    expect(bytes(got.output).equals(bytes(alone.output))).toBe(true);
    expect(bytes(got.attention).equals(bytes(alone.attention))).toBe(true);
  });

  // No argument is large (wQ and wK are 2^24 floats), but one head of dK 2^24
  // over 64 keys needs more working memory (projections, packed keys) than
  // one engine call can address: the scratch check (checked_scratch in
  // src/core/common.hpp) refuses it by name, for a one-shot call and a layer.
  test('a call whose working memory passes 2^31 floats is a RangeError that says so; the engine goes on', async () => {
    const engine = engines[variant];
    const before = (await engine.memoryStats()).inUseBytes;
    const dK = 2 ** 24;
    const weights = { dModel: 1, numHeads: 1, dK, dV: 1, wQ: new Float32Array(dK), wK: new Float32Array(dK) };
    weights.wV = new Float32Array(1);
    weights.wO = new Float32Array(1);
    const call = { seqLenQ: 64, query: new Float32Array(64).fill(0.5) };
    const layer = await engine.createLayer(weights);
    for (const returnAttention of [false, true])
      for (const promise of [
        engine.multiHeadAttention({ ...weights, ...call, returnAttention }),
        layer.forward({ ...call, returnAttention }),
      ]) {
        const error = await promise.then(
          () => new Error('accepted'),
          (e) => e,
        );
        expect(error).toBeInstanceOf(RangeError);
        const [, floats] =
          /^scratch: a call of these sizes needs (\d+) floats of working memory; one engine call can address 2147483647$/.exec(
            error.message,
          ) ?? [error.message];
        // At least the Q and K projections, 64 × 2^24 floats each.
        expect(Number(floats)).toBeGreaterThanOrEqual(2 ** 31);
      }
    layer.dispose();
    expect((await engine.memoryStats()).inUseBytes).toBe(before);
    expectClose((await engine.multiHeadAttention(base())).output, fx.want.output, tol, 'output after');
  });

  test('a layer disposed, and another made, from a getter of its own forward: the call rejects', async () => {
    const engine = engines[variant];
    const args = base();
    const layer = await engine.createLayer(pick(args, LAYER));
    const other = pick(args, LAYER);
    other.wO = other.wO.map((x) => -x);
    let made;
    const hostile = {
      ...forwardArgs(args),
      get query() {
        layer.dispose();
        made = engine.createLayer(other);
        return args.query;
      },
    };
    await expect(layer.forward(hostile)).rejects.toThrow(/this layer was disposed/);
    (await made).dispose();
    // The engine is fine afterwards.
    expectClose((await engine.multiHeadAttention(args)).output, fx.want.output, tol, 'output after');
  });
});

// Disposing the engine from a getter: the call rejects, nothing runs on freed
// memory, and the process exits by itself (threaded-simd's workers ended).
test('an engine disposed from a getter of createLayer, multiHeadAttention or a trainer call', () => {
  const script = `
    const { createAttention } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)))});
    const n = 12, ones = (k) => new Float32Array(k).fill(0.5);
    const args = { seqLenQ: 2, dModel: 4, numHeads: 2, query: ones(8), wQ: ones(16), wK: ones(16), wV: ones(16), wO: ones(16) };
    const out = [];
    for (const variant of ${JSON.stringify(VARIANTS)}) {
      for (const call of ['createLayer', 'multiHeadAttention']) {
        const engine = await createAttention({ ...${JSON.stringify(BUILDS)}[variant] });
        const weights = call === 'createLayer' ? { dModel: 4, numHeads: 2, wQ: ones(16), wK: ones(16), wV: ones(16), wO: ones(16) } : args;
        const hostile = { ...weights, get wQ() { engine.dispose(); return ones(16); } };
        out.push(await engine[call](hostile).then(() => variant + ' ' + call + ' resolved', (e) => e.message));
      }
      const engine = await createAttention({ ...${JSON.stringify(BUILDS)}[variant], training: true });
      const trainer = await engine.createTrainer({ vocabSize: 5, numTags: 2, maxLength: 3 });
      let again;
      const values = { get wQ() { trainer.dispose(); again = engine.createTrainer({ vocabSize: 5, numTags: 2, maxLength: 3 }); return new Float32Array(256).fill(9); } };
      out.push(await trainer.setParameters(values).then(() => variant + ' setParameters resolved', (e) => e.message));
      const fresh = await (await again).parameters();
      out.push(fresh.wQ.some((x) => x === 9) ? 'the new trainer got the old values' : 'the new trainer is its own');
      engine.dispose();
    }
    console.log(JSON.stringify(out));`;
  const printed = execFileSync(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: SUBPROCESS_MS,
  });
  const out = JSON.parse(printed.trim().split('\n').pop());
  expect(out).toEqual(
    VARIANTS.flatMap(() => [
      expect.stringMatching(/this engine was disposed/),
      expect.stringMatching(/this engine was disposed/),
      expect.stringMatching(/this trainer was disposed/),
      'the new trainer is its own',
    ]),
  );
  // Exited by itself (else execFileSync's timeout would have thrown): no
  // engine was disposed by the script, but the ones disposed from getters
  // ended their workers (the rest are single-thread).
}, 60_000);

test('a start-up that fails rejects clearly and leaves nothing that keeps Node alive', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    const { createAttention } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)))});
    const dist = (f) => ${JSON.stringify(fileURLToPath(new URL('../../dist/', import.meta.url)))} + f;
    const attempts = [
      { variant: 'threaded-simd', threads: 2, wasmBinary: new Uint8Array(8) },
      { variant: 'threaded-simd', threads: 2, wasmBinary: readFileSync(dist('mha-simd.wasm')) },
      { variant: 'simd', wasmBinary: readFileSync(dist('mha-threaded-simd.wasm')) },
      { variant: 'threaded-simd', threads: 2, locateFile: (f, d) => (f.endsWith('.js') ? '/nonexistent/x.js' : d) },
      { variant: 'scalar', wasmBinary: new Uint8Array(8) },
      { variant: 'scalar', wasmBinary: readFileSync(dist('mha-threaded-simd.wasm')) },
      // Builds alike but for their kernels: told apart once the module runs.
      { variant: 'scalar', wasmBinary: readFileSync(dist('mha-simd.wasm')) },
      { variant: 'simd', wasmBinary: readFileSync(dist('mha-scalar.wasm')) },
      // In a worker_threads Worker: the same refusals, and the Worker ended.
      { worker: true, variant: 'simd', wasmBinary: new Uint8Array(8) },
      { worker: true, variant: 'scalar', wasmBinary: readFileSync(dist('mha-threaded-simd.wasm')) },
      { worker: true, variant: 'scalar', wasmBinary: readFileSync(dist('mha-simd.wasm')) },
      { worker: true, variant: 'threaded-simd', threads: 2, wasmBinary: readFileSync(dist('mha-simd.wasm')) },
      { worker: true, variant: 'threaded-simd', threads: 2, locateFile: (f, d) => (f.endsWith('.js') ? '/nonexistent/x.js' : d) },
    ];
    const out = [];
    for (const options of attempts)
      out.push(await createAttention(options).then(() => 'resolved', (e) => e.constructor.name + ': ' + e.message));
    console.log(JSON.stringify(out));`;
  const printed = execFileSync(process.execPath, [...WASM_FLAGS, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: SUBPROCESS_MS,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const out = JSON.parse(printed.trim().split('\n').pop());
  expect(out).toEqual([
    'TypeError: wasmBinary: expected the bytes of mha-threaded-simd.wasm, got 8 bytes that are not a WebAssembly module',
    expect.stringMatching(
      /^Error: mha-wasm: could not start the threaded-simd build \(is wasmBinary the bytes of mha-threaded-simd\.wasm\?\): .*LinkError/,
    ),
    expect.stringMatching(/^Error: mha-wasm: could not start the simd build .*: /),
    "Error: mha-wasm: the threaded-simd build's file mha-threaded-simd.js (/nonexistent/x.js) is missing; check what locateFile returns for it",
    'TypeError: wasmBinary: expected the bytes of mha-scalar.wasm, got 8 bytes that are not a WebAssembly module',
    expect.stringMatching(
      /^Error: mha-wasm: could not start the scalar build \(is wasmBinary the bytes of mha-scalar\.wasm\?\): .*LinkError/,
    ),
    'TypeError: wasmBinary: expected the bytes of mha-scalar.wasm, got those of a build with SIMD kernels (mha-simd.wasm?)',
    'TypeError: wasmBinary: expected the bytes of mha-simd.wasm, got those of a build without SIMD kernels (mha-scalar.wasm?)',
    'TypeError: wasmBinary: expected the bytes of mha-simd.wasm, got 8 bytes that are not a WebAssembly module',
    expect.stringMatching(
      /^Error: mha-wasm: could not start the scalar build \(is wasmBinary the bytes of mha-scalar\.wasm\?\): .*LinkError/,
    ),
    'TypeError: wasmBinary: expected the bytes of mha-scalar.wasm, got those of a build with SIMD kernels (mha-simd.wasm?)',
    expect.stringMatching(
      /^Error: mha-wasm: could not start the threaded-simd build \(is wasmBinary the bytes of mha-threaded-simd\.wasm\?\): .*LinkError/,
    ),
    "Error: mha-wasm: the threaded-simd build's file mha-threaded-simd.js (/nonexistent/x.js) is missing; check what locateFile returns for it",
  ]);
}, 60_000);

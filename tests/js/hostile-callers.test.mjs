// Caller code cannot run inside a call: the arguments are read once, at the
// API boundary, before anything reaches the engine; what the bindings read
// are new objects of the package's own. Each test is a reproduction of a way
// a caller's getter once changed a result or freed memory mid-call, on every
// build; results are checked against the fixture's float64 reference.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadFixture, callArguments } from './helpers/fixtures.mjs';
import { expectClose, toleranceFor } from './helpers/compare.mjs';
import { BUILDS, VARIANTS, createEngines, disposeEngines } from './helpers/engines.mjs';
import { LAYER, pick } from './helpers/arguments.mjs';

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
  engines = await createEngines();
});
afterAll(() => disposeEngines(engines));

describe.each(VARIANTS)('%s', (variant) => {
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

  test("a call started from the key's getter does not change the outer call", async () => {
    const engine = engines[variant];
    const args = base();
    let inner;
    const hostile = {
      ...args,
      get key() {
        // A big nested call: before, it could reuse (and free) the outer call's buffers.
        const big = { ...args, batch: 2, seqLenK: 7, returnAttention: true };
        inner = engine.multiHeadAttention(big);
        return args.key;
      },
    };
    const { output } = await engine.multiHeadAttention(hostile);
    expectClose(output, fx.want.output, tol, 'outer output');
    expectClose((await inner).output, fx.want.output, tol, 'inner output');
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
  const started = Date.now();
  const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20000,
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
  // Exited by itself: no engine was disposed by the script, but the ones
  // disposed from getters ended their workers (the rest are single-thread).
  expect(Date.now() - started).toBeLessThan(20000);
});

test('a start-up that fails rejects clearly and leaves nothing that keeps Node alive', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    const { createAttention } = await import(${JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)))});
    const dist = (f) => ${JSON.stringify(fileURLToPath(new URL('../../dist/', import.meta.url)))} + f;
    const attempts = [
      { variant: 'threaded-simd', threads: 2, wasmBinary: new Uint8Array(8) },
      { variant: 'threaded-simd', threads: 2, wasmBinary: readFileSync(dist('mha-simd.wasm')) },
      { variant: 'simd', wasmBinary: readFileSync(dist('mha-threaded-simd.wasm')) },
      { variant: 'threaded-simd', threads: 2, locateFile: (f, d) => (f.endsWith('.worker.js') ? '/nonexistent/x.worker.js' : d) },
    ];
    const out = [];
    for (const options of attempts)
      out.push(await createAttention(options).then(() => 'resolved', (e) => e.constructor.name + ': ' + e.message));
    console.log(JSON.stringify(out));`;
  const started = Date.now();
  const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 15000,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const out = JSON.parse(printed.trim().split('\n').pop());
  expect(out).toEqual([
    'TypeError: wasmBinary: expected the bytes of mha-threaded-simd.wasm, got 8 bytes that are not a WebAssembly module',
    expect.stringMatching(
      /^Error: mha-wasm: could not start the threaded-simd build \(is wasmBinary the bytes of mha-threaded-simd\.wasm\?\): .*LinkError/,
    ),
    expect.stringMatching(/^Error: mha-wasm: could not start the simd build .*: /),
    "Error: mha-wasm: the threaded-simd build's file mha-threaded-simd.worker.js (/nonexistent/x.worker.js) is missing; check what locateFile returns for it",
  ]);
  expect(Date.now() - started).toBeLessThan(15000);
});

// A refused call keeps nothing alive: not its arguments' buffers in JS
// (process.memoryUsage().arrayBuffers after gc()), not the wasm heap's
// in-use bytes. 200 calls of each kind of refusal, on a build of each kind of
// wasm memory (helpers/engines.mjs: MEMORY_BUILDS): of
// engine.multiHeadAttention and layer.forward, the size check inside the
// engine (C++), a shape error (JS) and a getter that throws; of a trainer's
// evaluate, train and setParameters, a size refusal and a getter that throws.
// Each refused call carries fresh buffers of 1.4 to 4 MiB, so that 200 of them
// kept alive would be hundreds of MiB. The figures (before and after, per
// build and kind) are written to test-output/refusals-report.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MEMORY_BUILDS as BUILDS, MEMORY_VARIANTS as VARIANTS, WASM_FLAGS } from './helpers/engines.mjs';

const entry = JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)));
const reportDir = new URL('../../test-output/', import.meta.url);
const report = {
  description:
    '200 refused calls of each kind in a child process (node --expose-gc), on a build of each kind of wasm memory: ' +
    'process.memoryUsage().arrayBuffers after gc() and the wasm heap in-use bytes (engine.memoryStats()) before and after',
  node: process.version,
  builds: {},
};

// Runs in a child process with --expose-gc; prints { kind: { refused, before, after, message } }.
const script = (options) => `
  const { createAttention } = await import(${entry});
  const options = ${JSON.stringify(options)};
  const settle = async () => {
    for (let i = 0; i < 4; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const result = {};
  async function measure(engine, kinds) {
    for (const [kind, call] of Object.entries(kinds)) {
      await settle();
      const snapshot = async () => ({ arrayBuffers: process.memoryUsage().arrayBuffers, wasmInUse: (await engine.memoryStats()).inUseBytes });
      const before = await snapshot();
      let refused = 0, message = '';
      for (let i = 0; i < 200; i++)
        await call().then(
          () => {},
          (e) => { refused++; message = e.constructor.name + ': ' + e.message; },
        );
      await settle();
      result[kind] = { refused, message: message.slice(0, 160), before, after: await snapshot() };
    }
  }
  const thrower = () => { throw new Error('no'); };
  const kept = [];

  // Attention: one-shot calls and a layer's forward.
  {
    const engine = await createAttention(options);
    const dModel = 16, numHeads = 2, L = 23171; // 2 heads × L² weights = 4.3 GB: over the wasm memory
    const w = () => new Float32Array(dModel * dModel).fill(0.01);
    const weights = { dModel, numHeads, wQ: w(), wK: w(), wV: w(), wO: w() };
    const layer = await engine.createLayer(weights);
    const query = () => new Float32Array(L * dModel); // 1.4 MiB, new for every call
    await measure(engine, {
      // Refused by the engine's memory check in C++.
      size: () => engine.multiHeadAttention({ ...weights, query: query(), seqLenQ: L, returnAttention: true }),
      // A shape error, refused in JS.
      shape: () => engine.multiHeadAttention({ ...weights, query: query(), seqLenQ: L + 1 }),
      getter: () => engine.multiHeadAttention({ ...weights, query: query(), get seqLenQ() { return thrower(); } }),
      layerSize: () => layer.forward({ query: query(), seqLenQ: L, returnAttention: true }),
      layerShape: () => layer.forward({ query: query(), seqLenQ: L + 1 }),
      layerGetter: () => layer.forward({ query: query(), get seqLenQ() { return thrower(); } }),
      // The control: refusals that do keep their query (here, in an array) are seen.
      kept: () => { kept.push(query()); return Promise.reject(new Error('kept')); },
    });
    kept.length = 0;
    layer.dispose();
    engine.dispose();
  }

  // The trainer (the training build).
  {
    const engine = await createAttention({ ...options, training: true });
    // evaluate: 1,025 one-token sentences of maxLength 1024 (a 4 MiB token
    // array each call); with the attention weights, past 2^31 elements (C++).
    const wide = await engine.createTrainer({ vocabSize: 4, numTags: 2, maxLength: 1024, numHeads: 4 });
    const sentences = () => Array.from({ length: 1025 }, (_, i) => ({ tokens: new Int32Array([i % 4]) }));
    // train and setParameters: 2^15 × 16 embedding (2 MiB); batchSize 65536
    // makes the shards' gradients pass 2^31 elements (C++).
    const big = await engine.createTrainer({ vocabSize: 2 ** 15, numTags: 2, maxLength: 2 });
    await big.setData({ sentences: [{ tokens: [1, 2], tags: [0, 1] }] });
    await big.train({ steps: 1, batchSize: 2 });
    const embedding = () => new Float32Array(2 ** 15 * big.config.dModel);
    await measure(engine, {
      evaluateSize: () => wide.evaluate({ sentences: sentences(), returnAttention: true }),
      evaluateGetter: () => wide.evaluate({ sentences: sentences(), get returnAttention() { return thrower(); } }),
      trainSize: () => big.train({ steps: 1, batchSize: 65536 }),
      trainGetter: () => big.train({ get steps() { return thrower(); }, batchSize: 2 }),
      setParametersSize: () => big.setParameters({ embedding: embedding(), wQ: new Float32Array(3) }),
      setParametersGetter: () => big.setParameters({ embedding: embedding(), get wQ() { return thrower(); } }),
    });
    wide.dispose();
    big.dispose();
    engine.dispose();
  }
  console.log(JSON.stringify(result));`;

// What each kind's refusal says: the refusal asked for, not some other error.
const MESSAGES = {
  size: /^RangeError: .*WebAssembly memory/,
  shape: /^RangeError: query: /,
  getter: /^Error: no$/,
  layerSize: /^RangeError: .*WebAssembly memory/,
  layerShape: /^RangeError: query: /,
  layerGetter: /^Error: no$/,
  kept: /^Error: kept$/,
  evaluateSize: /^RangeError: attention: sentences×numHeads×maxLength×maxLength = 1025×4×1024×1024/,
  evaluateGetter: /^Error: no$/,
  trainSize: /^RangeError: shard gradients: /,
  trainGetter: /^Error: no$/,
  setParametersSize: /^RangeError: wQ: /,
  setParametersGetter: /^Error: no$/,
};

const MiB = (bytes) => Math.round((bytes / 2 ** 20) * 100) / 100;

test.each(VARIANTS)(
  '%s: 200 refusals of each kind leave arrayBuffers and the wasm heap where they were',
  (variant) => {
    const child = spawnSync(
      process.execPath,
      [...WASM_FLAGS, '--expose-gc', '--input-type=module', '-e', script(BUILDS[variant])],
      {
        encoding: 'utf8',
        timeout: 240_000,
      },
    );
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout.trim().split('\n').pop());
    report.builds[variant] = Object.fromEntries(
      Object.entries(result).map(([kind, { refused, message, before, after }]) => [
        kind,
        {
          refused,
          message,
          arrayBuffersMiB: { before: MiB(before.arrayBuffers), after: MiB(after.arrayBuffers) },
          wasmInUseBytes: { before: before.wasmInUse, after: after.wasmInUse },
        },
      ]),
    );
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(new URL('refusals-report.json', reportDir), `${JSON.stringify(report, null, 2)}\n`);

    expect(Object.keys(result)).toEqual(Object.keys(MESSAGES));
    for (const [kind, { refused, message, before, after }] of Object.entries(result)) {
      expect([kind, refused]).toEqual([kind, 200]);
      expect([kind, message]).toEqual([kind, expect.stringMatching(MESSAGES[kind])]);
      // 200 leaked arguments would be 280 to 800 MiB (the control keeps 283
      // MiB of queries); a few MiB is the allocator's slack.
      const grew = MiB(after.arrayBuffers - before.arrayBuffers);
      expect([kind, kind === 'kept' ? grew > 280 : grew < 4]).toEqual([kind, true]);
      expect([kind, after.wasmInUse - before.wasmInUse]).toEqual([kind, 0]);
    }
  },
  300_000,
);

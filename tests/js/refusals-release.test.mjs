// A refused call keeps nothing alive: not its arguments' buffers in JS
// (process.memoryUsage().arrayBuffers after gc()), not the wasm heap's
// in-use bytes. 200 calls of each kind of refusal: the size check inside the
// engine (C++), a shape error (JS), a getter that throws; on every build.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BUILDS, VARIANTS } from './helpers/engines.mjs';

const entry = JSON.stringify(fileURLToPath(new URL('../../src/js/node.mjs', import.meta.url)));

test.each(VARIANTS)(
  '%s: 200 refusals of each kind leave arrayBuffers and the wasm heap where they were',
  (variant) => {
    const script = `
    const { createAttention } = await import(${entry});
    const engine = await createAttention(${JSON.stringify(BUILDS[variant])});
    const dModel = 16, numHeads = 2, L = 23171; // 2 heads × L² weights = 4.3 GB: over the wasm memory
    const w = () => new Float32Array(dModel * dModel).fill(0.01);
    const weights = { dModel, numHeads, wQ: w(), wK: w(), wV: w(), wO: w() };
    const layer = await engine.createLayer(weights);
    const settle = async () => {
      for (let i = 0; i < 4; i++) {
        globalThis.gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const kinds = {
      // 1.4 MiB of query, refused by the engine's memory check in C++.
      size: () => engine.multiHeadAttention({ ...weights, query: new Float32Array(L * dModel), seqLenQ: L, returnAttention: true }),
      sizeOnLayer: () => layer.forward({ query: new Float32Array(L * dModel), seqLenQ: L, returnAttention: true }),
      // A shape error, refused in JS.
      shape: () => engine.multiHeadAttention({ ...weights, query: new Float32Array(L * dModel), seqLenQ: L + 1 }),
      // A getter that throws.
      getter: () => engine.multiHeadAttention({ ...weights, query: new Float32Array(L * dModel), get seqLenQ() { throw new Error('no'); } }),
    };
    const result = {};
    for (const [kind, call] of Object.entries(kinds)) {
      await settle();
      const before = { js: process.memoryUsage().arrayBuffers, wasm: (await engine.memoryStats()).inUseBytes };
      let refused = 0;
      for (let i = 0; i < 200; i++) await call().catch(() => refused++);
      await settle();
      const after = { js: process.memoryUsage().arrayBuffers, wasm: (await engine.memoryStats()).inUseBytes };
      result[kind] = { refused, jsMiB: (after.js - before.js) / 2 ** 20, wasmBytes: after.wasm - before.wasm };
    }
    engine.dispose();
    console.log(JSON.stringify(result));`;
    const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout.trim().split('\n').pop());
    for (const [kind, { refused, jsMiB, wasmBytes }] of Object.entries(result)) {
      expect([kind, refused]).toEqual([kind, 200]);
      // 200 leaked queries would be 283 MiB; a few MiB is the allocator's slack.
      expect([kind, jsMiB < 4]).toEqual([kind, true]);
      expect([kind, wasmBytes]).toEqual([kind, 0]);
    }
  },
  150_000,
);

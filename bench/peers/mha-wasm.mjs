// mha-wasm itself, as a runner like the peers: a layer (weights packed once,
// as the peers keep theirs) on the threaded-simd build with `threads` threads,
// or the threaded-relaxed-simd one (`relaxed`: run.mjs's runner
// mha-wasm-relaxed, in a Node that runs relaxed SIMD).
import { createAttention } from '../../src/js/node.mjs';
import { headsOf } from '../inputs.mjs';

export async function createPeer({ threads, relaxed = false }) {
  const engine = await createAttention({ variant: relaxed ? 'threaded-relaxed-simd' : 'threaded-simd', threads });
  return {
    name: relaxed ? 'mha-wasm-relaxed' : 'mha-wasm',
    version: 'this repository',
    engine,
    async prepare(config, inputs) {
      const t0 = performance.now();
      const layer = await engine.createLayer({
        ...headsOf(config),
        wQ: inputs.wQ,
        wK: inputs.wK,
        wV: inputs.wV,
        wO: inputs.wO,
      });
      const createMs = performance.now() - t0;
      const call = { query: inputs.query, seqLenQ: config.L, causal: !!config.causal };
      const into = { ...call, output: new Float32Array(inputs.query.length) };
      return {
        createMs,
        run: async () => (await layer.forward(call)).output,
        // The same call writing into an array of the caller's (no allocation per call).
        runInto: async () => (await layer.forward(into)).output,
        dispose: () => layer.dispose(),
      };
    },
    dispose: () => engine.dispose(),
  };
}

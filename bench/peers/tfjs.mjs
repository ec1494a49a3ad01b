// TensorFlow.js with its WebAssembly backend (XNNPACK, SIMD; it refuses
// threads in Node): the same attention as tf ops, weights resident as tensors.
import { createRequire } from 'node:module';
import path from 'node:path';
import { headsOf } from '../inputs.mjs';

const require = createRequire(import.meta.url);

export async function createPeer({ threads }) {
  if (threads !== 1) return null; // tfjs-backend-wasm runs one thread in Node
  const tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(
    path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm')) + path.sep,
  );
  await tf.setBackend('wasm');
  await tf.ready();
  return {
    name: 'tfjs-backend-wasm',
    version: require('@tensorflow/tfjs-backend-wasm/package.json').version,
    async prepare(config, inputs) {
      const { dModel: D, numHeads: H, dK, dV } = headsOf(config);
      const L = config.L;
      const w = {
        wQ: tf.tensor2d(inputs.wQ, [D, H * dK]),
        wK: tf.tensor2d(inputs.wK, [D, H * dK]),
        wV: tf.tensor2d(inputs.wV, [D, H * dV]),
        wO: tf.tensor2d(inputs.wO, [H * dV, D]),
      };
      let mask = null;
      if (config.causal) {
        const m = new Float32Array(L * L);
        for (let i = 0; i < L; i++) for (let j = i + 1; j < L; j++) m[i * L + j] = -Infinity;
        mask = tf.tensor2d(m, [L, L]);
      }
      const heads = (x, width) => tf.transpose(tf.reshape(x, [L, H, width]), [1, 0, 2]); // [H, L, width]
      return {
        async run() {
          const out = tf.tidy(() => {
            const x = tf.tensor2d(inputs.query, [L, D]);
            const q = heads(tf.matMul(x, w.wQ), dK);
            const k = heads(tf.matMul(x, w.wK), dK);
            const v = heads(tf.matMul(x, w.wV), dV);
            let s = tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dK));
            if (mask) s = tf.add(s, mask);
            const o = tf.matMul(tf.softmax(s), v); // [H, L, dV]
            return tf.matMul(tf.reshape(tf.transpose(o, [1, 0, 2]), [L, H * dV]), w.wO);
          });
          const data = await out.data();
          out.dispose();
          return data;
        },
        dispose() {
          for (const t of Object.values(w)) t.dispose();
          mask?.dispose();
        },
      };
    },
  };
}

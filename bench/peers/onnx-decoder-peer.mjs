// onnxruntime-web (wasm backend) running the decoder export that
// onnx-decoder.mjs builds: one session per checkpoint, its external weights
// read whole, and a step function for the searches of src/js/models/generation/.
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { FILES, sizesOf } from './onnx-decoder.mjs';
import { onnxRuntime } from './onnx-common.mjs';

// A file read whole into one Uint8Array (readFileSync stops at 2 GiB).
function readWhole(file) {
  const out = new Uint8Array(statSync(file).size);
  const fd = openSync(file, 'r');
  try {
    for (let at = 0; at < out.length;) at += readSync(fd, out, at, Math.min(1 << 30, out.length - at), at);
  } finally {
    closeSync(fd);
  }
  return out;
}

/**
 * onnxruntime-web at `threads` threads (fixed once per process). load(dir,
 * form) resolves { createMs, decoder, dispose }: decoder() → { step } for
 * src/js/models/generation/greedy.mjs's greedySearch: the prompt with empty pasts
 * first, then each token with the presents of the step before.
 */
export async function createPeer({ threads }) {
  const { ort, version } = onnxRuntime(threads);
  return {
    name: 'onnxruntime-web',
    version,
    async load(dir, form = 'float32') {
      const t0 = performance.now();
      const files = FILES[form];
      const session = await ort.InferenceSession.create(readFileSync(path.join(dir, files.model)), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
        logSeverityLevel: 3,
        externalData: [{ path: files.data, data: readWhole(path.join(dir, files.data)) }],
      });
      const createMs = performance.now() - t0;
      const { layers, kvH, dk } = sizesOf(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')));
      const empty = new ort.Tensor('float32', new Float32Array(0), [1, kvH, 0, dk]);
      return {
        createMs,
        decoder({ recordLogits = false } = {}) {
          let past = null;
          const stepLogits = [];
          const step = async (ids) => {
            const feeds = {
              input_ids: new ort.Tensor(
                'int64',
                BigInt64Array.from(ids, (x) => BigInt(x)),
                [1, ids.length],
              ),
            };
            for (let i = 0; i < layers; i++) {
              feeds[`past_key_values.${i}.key`] = past?.[i][0] ?? empty;
              feeds[`past_key_values.${i}.value`] = past?.[i][1] ?? empty;
            }
            const out = await session.run(feeds);
            past = Array.from({ length: layers }, (_, i) => [out[`present.${i}.key`], out[`present.${i}.value`]]);
            if (recordLogits) stepLogits.push(out.logits.data);
            return out.logits.data;
          };
          return { step, stepLogits };
        },
        dispose: () => session.release(),
      };
    },
  };
}

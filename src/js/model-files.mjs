// The builds with the Transformer models (dist/mha-model-*), as files.mjs
// spells the inference builds, and the browsers' tokenizer worker
// (dist/mha-model-tokenizer.js, scripts/build-tokenizer-worker.mjs makes it).
// Reached only from the 'mha-wasm/model' entry (model-entry.mjs) and from
// Node's entry, so a bundle emits these files only when the app imports
// 'mha-wasm/model'.

/** The URL of every file of the builds with the models: modelUrls()[variant][role]. Throws without import.meta.url. */
export function modelUrls() {
  return {
    'threaded-relaxed-simd': {
      glue: new URL('../../dist/mha-model-threaded-relaxed-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-model-threaded-relaxed-simd.wasm', import.meta.url),
    },
    'relaxed-simd': {
      glue: new URL('../../dist/mha-model-relaxed-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-model-relaxed-simd.wasm', import.meta.url),
    },
    'threaded-simd': {
      glue: new URL('../../dist/mha-model-threaded-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-model-threaded-simd.wasm', import.meta.url),
    },
    simd: {
      glue: new URL('../../dist/mha-model-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-model-simd.wasm', import.meta.url),
    },
    scalar: {
      glue: new URL('../../dist/mha-model-scalar.js', import.meta.url),
      wasm: new URL('../../dist/mha-model-scalar.wasm', import.meta.url),
    },
  };
}

/** The file name of the browsers' tokenizer worker, as locateFile is asked for it. */
export const TOKENIZER_WORKER = 'mha-model-tokenizer.js';

/** The URL of the browsers' tokenizer worker (a classic script, the tokenizers library inside). Throws without import.meta.url. */
export function tokenizerWorkerUrl() {
  return new URL('../../dist/mha-model-tokenizer.js', import.meta.url);
}

// The builds with the Transformer models (dist/mha-model-*), as files.mjs
// spells the inference builds. Reached only from the 'mha-wasm/model' entry
// (model-entry.mjs) and from Node's entry, so a bundle emits these builds only
// when the app imports 'mha-wasm/model'.

/** The URL of every file of the builds with the models: modelUrls()[variant][role]. Throws without import.meta.url. */
export function modelUrls() {
  return {
    'threaded-simd': {
      glue: new URL('../../dist/mha-model-threaded-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-model-threaded-simd.wasm', import.meta.url),
      worker: new URL('../../dist/mha-model-threaded-simd.worker.js', import.meta.url),
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

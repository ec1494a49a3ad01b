// The builds with the Transformer models (dist/mha-model-*), as files.mjs
// spells the inference builds. engine.loadModel() imports this module when it
// is first called, so a bundle puts these URLs in a chunk of their own and a
// page downloads the model build only when it loads a model.

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

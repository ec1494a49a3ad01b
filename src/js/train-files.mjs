// The trainer's builds (dist/mha-train-*), as files.mjs spells the inference
// builds: only the 'mha-wasm/train' entry (train.mjs) and Node's entry import
// this module, so a bundle of an app that never trains does not emit them.

/** The URL of every file of the builds with the trainer: trainUrls()[variant][role]. Throws without import.meta.url. */
export function trainUrls() {
  return {
    'threaded-relaxed-simd': {
      glue: new URL('../../dist/mha-train-threaded-relaxed-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-threaded-relaxed-simd.wasm', import.meta.url),
    },
    'relaxed-simd': {
      glue: new URL('../../dist/mha-train-relaxed-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-relaxed-simd.wasm', import.meta.url),
    },
    'threaded-simd': {
      glue: new URL('../../dist/mha-train-threaded-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-threaded-simd.wasm', import.meta.url),
    },
    simd: {
      glue: new URL('../../dist/mha-train-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-simd.wasm', import.meta.url),
    },
    scalar: {
      glue: new URL('../../dist/mha-train-scalar.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-scalar.wasm', import.meta.url),
    },
  };
}

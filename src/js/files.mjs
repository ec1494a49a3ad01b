// The files of each build in dist/. CMakeLists.txt names its targets
// mha-<variant> and mha-train-<variant>; variantFiles() is that rule in JS.
// DIST_URLS spells every file out again as `new URL('literal', import.meta.url)`
// because that literal form is what bundlers (webpack, Vite) find and copy;
// tests/js/files.test.mjs checks that both say the same and that every file
// is in dist/.

/** Builds, from most to least capable. */
export const VARIANTS = ['threaded-simd', 'simd', 'scalar'];

/** The files of one variant, as named in dist/; with `training`, the build that includes the trainer. */
export function variantFiles(variant, training = false) {
  const base = `mha-${training ? 'train-' : ''}${variant}`;
  return {
    glue: `${base}.js`,
    wasm: `${base}.wasm`,
    ...(variant === 'threaded-simd' ? { worker: `${base}.worker.js` } : {}),
  };
}

/** The URL of every file of every build: DIST_URLS[training ? 'train' : 'inference'][variant][role]. */
export const DIST_URLS = {
  inference: {
    'threaded-simd': {
      glue: new URL('../../dist/mha-threaded-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-threaded-simd.wasm', import.meta.url),
      worker: new URL('../../dist/mha-threaded-simd.worker.js', import.meta.url),
    },
    simd: {
      glue: new URL('../../dist/mha-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-simd.wasm', import.meta.url),
    },
    scalar: {
      glue: new URL('../../dist/mha-scalar.js', import.meta.url),
      wasm: new URL('../../dist/mha-scalar.wasm', import.meta.url),
    },
  },
  train: {
    'threaded-simd': {
      glue: new URL('../../dist/mha-train-threaded-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-threaded-simd.wasm', import.meta.url),
      worker: new URL('../../dist/mha-train-threaded-simd.worker.js', import.meta.url),
    },
    simd: {
      glue: new URL('../../dist/mha-train-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-simd.wasm', import.meta.url),
    },
    scalar: {
      glue: new URL('../../dist/mha-train-scalar.js', import.meta.url),
      wasm: new URL('../../dist/mha-train-scalar.wasm', import.meta.url),
    },
  },
};

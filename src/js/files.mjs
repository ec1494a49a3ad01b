// The files of each build in dist/. CMakeLists.txt names its targets
// mha-<variant>, mha-train-<variant> and mha-model-<variant>; variantFiles()
// is that rule in JS. inferenceUrls() (here), trainUrls() (train-files.mjs,
// reached only from the 'mha-wasm/train' entry) and modelUrls()
// (model-files.mjs, reached only from 'mha-wasm/model') spell every file out again as
// `new URL('literal', import.meta.url)`, because that literal form is what
// bundlers (webpack, Vite, Rollup's import-meta-assets) find, copy and
// rewrite; a bundle emits the trainer's or the models' builds only if it
// imports train-files.mjs or model-files.mjs. The URLs are made when called, never at load: in a bundle
// without import.meta (esbuild's iife) `new URL(…, undefined)` throws, and the
// caller then needs locateFile instead. tests/js/files.test.mjs checks that
// names and URLs say the same and that every file is in dist/.

/**
 * Builds, from most to least capable, all from one Emscripten (>= 3.1.69,
 * scripts/emscripten.sh). Each is two files, the glue and the .wasm: the
 * threaded builds' pthreads start from the glue itself.
 */
export const VARIANTS = ['threaded-relaxed-simd', 'relaxed-simd', 'threaded-simd', 'simd', 'scalar'];

/** The families of builds: attention alone, with the trainer, with the Transformer models. */
export const FAMILIES = ['inference', 'train', 'model'];

/** The files of one variant of a family (FAMILIES), as named in dist/. */
export function variantFiles(variant, family = 'inference') {
  const base = `mha-${family === 'inference' ? '' : `${family}-`}${variant}`;
  return { glue: `${base}.js`, wasm: `${base}.wasm` };
}

/** The URL of every file of the inference builds: inferenceUrls()[variant][role]. Throws without import.meta.url. */
export function inferenceUrls() {
  return {
    'threaded-relaxed-simd': {
      glue: new URL('../../dist/mha-threaded-relaxed-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-threaded-relaxed-simd.wasm', import.meta.url),
    },
    'relaxed-simd': {
      glue: new URL('../../dist/mha-relaxed-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-relaxed-simd.wasm', import.meta.url),
    },
    'threaded-simd': {
      glue: new URL('../../dist/mha-threaded-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-threaded-simd.wasm', import.meta.url),
    },
    simd: {
      glue: new URL('../../dist/mha-simd.js', import.meta.url),
      wasm: new URL('../../dist/mha-simd.wasm', import.meta.url),
    },
    scalar: {
      glue: new URL('../../dist/mha-scalar.js', import.meta.url),
      wasm: new URL('../../dist/mha-scalar.wasm', import.meta.url),
    },
  };
}

// Browser (and bundler) entry point: loads the ES module build of the wasm
// glue. The .wasm file is found next to it unless locateFile or wasmBinary
// says otherwise (for a CDN or a custom static folder).
import { AttentionEngine, checkOptions } from './engine.mjs';

// Literal dynamic imports, so bundlers can see and copy both builds.
const loaders = {
  simd: () => import('../../dist/mha-simd.mjs'),
  scalar: () => import('../../dist/mha-scalar.mjs'),
};

// A tiny module whose validation needs final WebAssembly SIMD (it uses
// i8x16.popcnt, a late opcode, as wasm-feature-detect does): engines with the
// pre-standard SIMD reject it.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function hasSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/**
 * Loads and instantiates the wasm engine.
 * @param {{variant?: 'simd'|'scalar', locateFile?: Function, wasmBinary?: ArrayBuffer|Uint8Array}} [options]
 */
export async function createAttention(options) {
  const { variant = hasSimd() ? 'simd' : 'scalar', locateFile, wasmBinary } = checkOptions(options);
  if (variant === 'simd' && !hasSimd())
    throw new RangeError('variant: "simd" needs WebAssembly SIMD, which this browser lacks; use "scalar" or leave variant out');
  const { default: factory } = await loaders[variant]();
  const distDir = new URL('../../dist/', import.meta.url);
  const module = await factory({
    ...(wasmBinary ? { wasmBinary } : {}),
    locateFile: (fileName) => {
      const defaultUrl = new URL(fileName, distDir).href;
      return locateFile ? String(locateFile(fileName, defaultUrl)) : defaultUrl;
    },
  });
  return new AttentionEngine(module, variant);
}

// Node entry point (import). The wasm glue is a CommonJS factory: Emscripten
// 3.1.6's ES module output cannot load in Node. The .wasm bytes are read here
// and passed as wasmBinary, which also avoids 3.1.6's loader tripping over
// Node >= 18's global fetch ("Failed to parse URL").
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { AttentionEngine, checkOptions } from './engine.mjs';

const require = createRequire(import.meta.url);
const distDir = new URL('../../dist/', import.meta.url);

/**
 * Loads and instantiates the wasm engine.
 * @param {{variant?: 'simd'|'scalar', locateFile?: Function, wasmBinary?: ArrayBuffer|Uint8Array}} [options]
 */
export async function createAttention(options) {
  const { variant = 'simd', locateFile, wasmBinary } = checkOptions(options);
  const factory = require(fileURLToPath(new URL(`mha-${variant}.cjs`, distDir)));
  let binary = wasmBinary;
  if (!binary) {
    const fileName = `mha-${variant}.wasm`;
    const defaultUrl = new URL(fileName, distDir).href;
    const url = locateFile ? locateFile(fileName, defaultUrl) : defaultUrl;
    binary = await readFile(url instanceof URL || String(url).startsWith('file:') ? new URL(url) : String(url));
  }
  const module = await factory({ wasmBinary: binary });
  return new AttentionEngine(module, variant);
}

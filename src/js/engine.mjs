// The public engine, shared by the Node and browser entry points: checks the
// arguments once (validate.mjs), hands them to the Embind module, and owns the
// module's life cycle.
import { normalizeArguments, rejectUnknown, describe } from './validate.mjs';

export const VARIANTS = ['simd', 'scalar'];
const OPTIONS = new Set(['variant', 'locateFile', 'wasmBinary']);

export function checkOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`createAttention: expected an options object, got ${describe(options)}`);
  rejectUnknown(options, OPTIONS, 'createAttention');
  const { variant, locateFile, wasmBinary } = options;
  if (variant !== undefined && !VARIANTS.includes(variant))
    throw new RangeError(`variant: expected one of ${VARIANTS.map((v) => `"${v}"`).join(', ')}, got ${describe(variant)}`);
  if (locateFile !== undefined && typeof locateFile !== 'function')
    throw new TypeError(`locateFile: expected a function (fileName, defaultUrl) => url, got ${describe(locateFile)}`);
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary)))
    throw new TypeError(`wasmBinary: expected an ArrayBuffer or Uint8Array with the .wasm file, got ${describe(wasmBinary)}`);
  return options;
}

export class AttentionEngine {
  #module;
  #engine;

  constructor(module, variant) {
    this.#module = module;
    this.#engine = new module.Engine(1);
    /** The build in use: "simd" or "scalar". */
    this.variant = variant;
    /** Threads used per call (this build is single-threaded). */
    this.threads = 1;
  }

  /**
   * Multi-head attention forward. Resolves to { output } and, with
   * returnAttention, { output, attention }: new Float32Arrays owned by the caller.
   */
  async multiHeadAttention(args) {
    if (!this.#engine) throw new Error('mha-wasm: this engine was disposed; create a new one with createAttention()');
    const call = normalizeArguments(args);
    return this.#engine.multiHeadAttention(call);
  }

  /** Frees the engine's wasm memory. Idempotent; later calls reject. */
  dispose() {
    if (!this.#engine) return;
    this.#engine.delete();
    this.#engine = undefined;
    this.#module = undefined;
  }
}

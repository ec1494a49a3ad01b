// The public engine, shared by the Node and browser entry points: checks the
// arguments once (validate.mjs) and hands them to a backend — the Embind
// module itself in Node, a dedicated Worker in browsers (engine-worker.js).
import {
  normalizeArguments, normalizeBackwardArguments, normalizeLayerArguments, normalizeForwardArguments, rejectUnknown, describe,
  normalizeTrainerOptions, normalizeSentences, normalizeTrainArguments, normalizeParameters,
} from './validate.mjs';

/** Builds, from most to least capable. */
export const VARIANTS = ['threaded-simd', 'simd', 'scalar'];
export const MAX_THREADS = 16;
const OPTIONS = new Set(['variant', 'threads', 'training', 'locateFile', 'wasmBinary']);

/** Checks createAttention's options; returns them (an empty object when absent). */
export function checkOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`createAttention: expected an options object, got ${describe(options)}`);
  rejectUnknown(options, OPTIONS, 'createAttention');
  const { variant, threads, training, locateFile, wasmBinary } = options;
  if (training !== undefined && typeof training !== 'boolean')
    throw new TypeError(`training: expected a boolean (true loads the build with the trainer), got ${describe(training)}`);
  if (variant !== undefined && !VARIANTS.includes(variant))
    throw new RangeError(`variant: expected one of ${VARIANTS.map((v) => `"${v}"`).join(', ')}, got ${describe(variant)}`);
  if (threads !== undefined) {
    if (typeof threads !== 'number') throw new TypeError(`threads: expected an integer from 1 to ${MAX_THREADS}, got ${describe(threads)}`);
    if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS)
      throw new RangeError(`threads: expected an integer from 1 to ${MAX_THREADS}, got ${threads}`);
    if (threads > 1 && (variant === 'simd' || variant === 'scalar'))
      throw new RangeError(`threads: variant "${variant}" runs on one thread, got threads ${threads}; use variant "threaded-simd"`);
  }
  if (locateFile !== undefined && typeof locateFile !== 'function')
    throw new TypeError(`locateFile: expected a function (fileName, defaultUrl) => url, got ${describe(locateFile)}`);
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary)))
    throw new TypeError(`wasmBinary: expected an ArrayBuffer or Uint8Array holding the variant's .wasm file, got ${describe(wasmBinary)}`);
  return options;
}

/** The files of one variant, as named in dist/; with `training`, the build that includes the trainer. */
export function variantFiles(variant, training = false) {
  const base = `mha-${training ? 'train-' : ''}${variant}`;
  return { glue: `${base}.js`, wasm: `${base}.wasm`, ...(variant === 'threaded-simd' ? { worker: `${base}.worker.js` } : {}) };
}

/** Options for the Emscripten factory (Module): pool size for the threaded build. */
export function moduleOptions(threads) {
  // The pool holds the threads the engine starts (the caller is one of the
  // `threads`); never 0, which hangs Emscripten 3.1.6's start-up.
  return { mhaPoolSize: Math.max(1, threads - 1) };
}

export class AttentionEngine {
  #backend;
  #layers = new Set(); // layers and trainers: both live in the engine's memory

  // backend: { call(method, args) → Promise, dispose() }, around an EngineHost.
  constructor(backend, variant, threads, training = false) {
    this.#backend = backend;
    /** The build in use: "threaded-simd", "simd" or "scalar". */
    this.variant = variant;
    /** Threads that share each call. */
    this.threads = threads;
    /** Whether the build includes the trainer (createAttention({ training: true })). */
    this.training = training;
    Object.freeze(this);
  }

  #live() {
    if (!this.#backend) throw new Error('mha-wasm: this engine was disposed; create a new one with createAttention()');
    return this.#backend;
  }

  /**
   * Multi-head attention forward. Resolves to { output } and, with
   * returnAttention, { output, attention }: new Float32Arrays owned by the caller.
   */
  async multiHeadAttention(args) {
    const backend = this.#live();
    return backend.call('multiHeadAttention', [normalizeArguments(args)]);
  }

  /**
   * Backward pass: the gradients of sum(gradOutput ⊙ output) with respect to the
   * inputs, weights and given biases of the same call. Resolves to { gradQuery,
   * gradKey, gradValue, gradWQ, gradWK, gradWV, gradWO, gradBQ, gradBK, gradBV,
   * gradBO }; for self-attention (key and value left out) gradQuery is the whole
   * gradient of the shared input and gradKey/gradValue are absent; bias
   * gradients only for the biases given.
   */
  async multiHeadAttentionBackward(args) {
    const backend = this.#live();
    return backend.call('multiHeadAttentionBackward', [normalizeBackwardArguments(args)]);
  }

  /**
   * Packs a layer's weights once into wasm memory; layer.forward() then copies
   * only the activations.
   */
  async createLayer(args) {
    const backend = this.#live();
    const weights = normalizeLayerArguments(args);
    const id = await backend.call('createLayer', [weights]);
    const layer = new AttentionLayer(backend, id, weights, () => this.#layers.delete(layer));
    this.#layers.add(layer);
    return layer;
  }

  /**
   * A tiny Transformer tagger trained in the engine, on its threads: token
   * embeddings + sinusoidal positions → this multi-head attention (numHeads
   * heads of width dModel/numHeads) → residual → optional per-token MLP →
   * linear → softmax cross-entropy, with Adam. Seeded: the same options and
   * data give the same model, bitwise, for any thread count.
   */
  async createTrainer(options) {
    const backend = this.#live();
    if (!this.training)
      throw new Error('mha-wasm: createTrainer needs the build with the trainer; create the engine with createAttention({ training: true })');
    const config = normalizeTrainerOptions(options);
    const id = await backend.call('createTrainer', [config]);
    const trainer = new AttentionTrainer(backend, id, config, () => this.#layers.delete(trainer));
    this.#layers.add(trainer);
    return trainer;
  }

  /** { heapBytes, inUseBytes, scratchBytes } of the engine's wasm memory. */
  async memoryStats() {
    return this.#live().call('memoryStats', []);
  }

  /** Frees the engine's memory, its layers, and ends its workers. Idempotent; later calls reject. */
  dispose() {
    if (!this.#backend) return;
    for (const layer of this.#layers) layer.detach();
    this.#layers.clear();
    this.#backend.dispose();
    this.#backend = undefined;
  }
}

export class AttentionLayer {
  #backend;
  #id;
  #onDispose;

  constructor(backend, id, { dModel, numHeads, dK, dV }, onDispose) {
    this.#backend = backend;
    this.#id = id;
    this.#onDispose = onDispose;
    this.dModel = dModel;
    this.numHeads = numHeads;
    this.dK = dK;
    this.dV = dV;
    Object.freeze(this);
  }

  /**
   * The layer's multi-head attention on new activations: { query, key, value,
   * batch, seqLenQ, seqLenK, causal, keyPaddingMask, returnAttention, returnProjections }.
   */
  async forward(args) {
    if (!this.#backend) throw new Error('mha-wasm: this layer was disposed (or its engine was)');
    return this.#backend.call('forward', [this.#id, normalizeForwardArguments(args, this)]);
  }

  /** Frees the layer's packed weights. Idempotent; later calls reject. */
  dispose() {
    if (!this.#backend) return;
    this.#backend.call('disposeLayer', [this.#id]).catch(() => {});
    this.#onDispose();
    this.detach();
  }

  /** Forgets the backend (the engine is going away and frees everything). */
  detach() {
    this.#backend = undefined;
  }
}

export class AttentionTrainer {
  #backend;
  #id;
  #onDispose;

  constructor(backend, id, config, onDispose) {
    this.#backend = backend;
    this.#id = id;
    this.#onDispose = onDispose;
    /** The options the trainer was made with, defaults filled in. */
    this.config = Object.freeze({ ...config });
    Object.freeze(this);
  }

  #live() {
    if (!this.#backend) throw new Error('mha-wasm: this trainer was disposed (or its engine was)');
    return this.#backend;
  }

  /**
   * The training set: { sentences: [{ tokens, tags }] }, ids as Arrays or
   * Int32Arrays, a tag per token (-1 = no loss there). Copied into the engine;
   * training batches are drawn from it in a seeded shuffle.
   */
  async setData(args) {
    const backend = this.#live();
    await backend.call('trainerSetData', [this.#id, normalizeSentences(args, this.config, 'setData', true)]);
  }

  /**
   * { steps, batchSize = 32 }: that many Adam steps. Resolves to { losses,
   * step }: each batch's mean loss (before its step) and the steps taken so far.
   */
  async train(args) {
    const backend = this.#live();
    const { steps, batchSize } = normalizeTrainArguments(args);
    return backend.call('trainerTrain', [this.#id, steps, batchSize]);
  }

  /**
   * The model on { sentences: [{ tokens, tags? }], returnAttention }. Resolves
   * to { loss, predictions, probabilities, attention? }: predictions Int32Array
   * [count, maxLength] (-1 past a sentence's end), probabilities Float32Array
   * [count, maxLength, numTags], attention Float32Array [count, numHeads,
   * maxLength, maxLength]; loss is the mean over tagged tokens (0 without tags).
   */
  async evaluate(args) {
    const backend = this.#live();
    return backend.call('trainerEvaluate', [this.#id, normalizeSentences(args, this.config, 'evaluate', false)]);
  }

  /** Every parameter, copied: { embedding, wQ, bQ, wK, bK, wV, bV, wO, bO, (w1, b1, w2, b2,) wC, bC }. */
  async parameters() {
    return this.#live().call('trainerParameters', [this.#id]);
  }

  /**
   * Replaces some or all parameters ({ name: Float32Array }, shapes as
   * parameters() gives them) and starts the optimizer afresh (Adam's moments
   * and the step count back to 0).
   */
  async setParameters(values) {
    const backend = this.#live();
    await backend.call('trainerSetParameters', [this.#id, normalizeParameters(values, this.config)]);
  }

  /** Frees the trainer. Idempotent; later calls reject. */
  dispose() {
    if (!this.#backend) return;
    this.#backend.call('disposeTrainer', [this.#id]).catch(() => {});
    this.#onDispose();
    this.detach();
  }

  detach() {
    this.#backend = undefined;
  }
}

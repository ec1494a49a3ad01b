// The public engine, shared by the Node and browser entry points: checks the
// arguments once (validate.mjs) and hands them to a backend — the Embind
// module itself in Node, a dedicated Worker in browsers (engine-worker.js).
import { rejectUnknown, describe } from './checks.mjs';
import {
  normalizeArguments,
  normalizeBackwardArguments,
  normalizeLayerArguments,
  normalizeForwardArguments,
} from './validate.mjs';
import {
  normalizeTrainerOptions,
  normalizeSentences,
  normalizeTrainArguments,
  normalizeParameters,
} from './validate-trainer.mjs';
import { VARIANTS } from './files.mjs';
import { CALLS } from './protocol.mjs';

/** The most threads an engine starts (its pool is sized at load). */
export const MAX_THREADS = 16;
const OPTIONS = new Set(['variant', 'threads', 'training', 'locateFile', 'wasmBinary', 'worker']);

/** Checks createAttention's options; returns them (an empty object when absent). */
export function checkOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`createAttention: expected an options object, got ${describe(options)}`);
  rejectUnknown(options, OPTIONS, 'createAttention');
  const { variant, threads, training, locateFile, wasmBinary, worker } = options;
  if (worker !== undefined && typeof worker !== 'boolean')
    throw new TypeError(`worker: expected a boolean (true runs the engine in a Worker), got ${describe(worker)}`);
  if (training !== undefined && typeof training !== 'boolean')
    throw new TypeError(
      `training: expected a boolean (true loads the build with the trainer), got ${describe(training)}`,
    );
  if (variant !== undefined && !VARIANTS.includes(variant))
    throw new RangeError(
      `variant: expected one of ${VARIANTS.map((v) => `"${v}"`).join(', ')}, got ${describe(variant)}`,
    );
  if (threads !== undefined) {
    if (typeof threads !== 'number')
      throw new TypeError(`threads: expected an integer from 1 to ${MAX_THREADS}, got ${describe(threads)}`);
    if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS)
      throw new RangeError(`threads: expected an integer from 1 to ${MAX_THREADS}, got ${threads}`);
    if (threads > 1 && (variant === 'simd' || variant === 'scalar'))
      throw new RangeError(
        `threads: variant "${variant}" runs on one thread, got threads ${threads}; use variant "threaded-simd"`,
      );
  }
  if (locateFile !== undefined && typeof locateFile !== 'function')
    throw new TypeError(`locateFile: expected a function (fileName, defaultUrl) => url, got ${describe(locateFile)}`);
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary)))
    throw new TypeError(
      `wasmBinary: expected an ArrayBuffer or Uint8Array holding the variant's .wasm file, got ${describe(wasmBinary)}`,
    );
  return options;
}

/** Options for the Emscripten factory (Module): pool size for the threaded build. */
export function moduleOptions(threads) {
  // The pool holds the threads the engine starts (the caller is one of the
  // `threads`); never 0, which hangs Emscripten 3.1.6's start-up.
  return { mhaPoolSize: Math.max(1, threads - 1) };
}

export class AttentionEngine {
  #backend;
  #limits;
  #resources = new Set(); // layers and trainers: both live in the engine's memory
  #pending = 0; // calls sent to the backend and not yet settled
  #idle; // a backend disposed during calls, released when the last one settles
  // Calls on the backend, counted; for layers and trainers too.
  #caller = (method, args) => this.#call(method, args);

  // backend: { call(method, args) → Promise, dispose() }, around an EngineHost.
  // limits: the core's, as EngineHost.limits() reads them from the bindings.
  constructor(backend, variant, threads, training, limits) {
    if (limits.trainer) Object.freeze(limits.trainer);
    this.#backend = backend;
    this.#limits = Object.freeze(limits);
    /** The build in use: "threaded-simd", "simd" or "scalar". */
    this.variant = variant;
    /** Threads that share each call. */
    this.threads = threads;
    /** Whether the build includes the trainer (createAttention({ training: true })). */
    this.training = training;
    /** The largest sizes a call may have (defined in the C++ core): { maxElements, trainer? }. */
    this.limits = limits;
    Object.freeze(this);
  }

  #live() {
    if (!this.#backend) throw new Error('mha-wasm: this engine was disposed; create a new one with createAttention()');
    return this.#backend;
  }

  // Sends a call whose arguments are already checked. The engine is asked
  // again: reading the arguments runs the caller's getters, which may have
  // disposed it.
  async #call(method, args) {
    const backend = this.#live();
    this.#pending++;
    try {
      return await backend.call(method, args);
    } finally {
      if (--this.#pending === 0 && this.#idle) {
        this.#idle.dispose();
        this.#idle = undefined;
      }
    }
  }

  /**
   * Multi-head attention forward. Resolves to { output } and, with
   * returnAttention, { output, attention }: new Float32Arrays owned by the caller.
   */
  async multiHeadAttention(args) {
    this.#live();
    return this.#call(CALLS.multiHeadAttention, [normalizeArguments(args, this.#limits)]);
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
    this.#live();
    return this.#call(CALLS.multiHeadAttentionBackward, [normalizeBackwardArguments(args, this.#limits)]);
  }

  /**
   * Packs a layer's weights once into wasm memory; layer.forward() then copies
   * only the activations.
   */
  async createLayer(args) {
    this.#live();
    const weights = normalizeLayerArguments(args, this.#limits);
    const id = await this.#call(CALLS.createLayer, [weights]);
    const layer = new AttentionLayer(this.#caller, id, weights, this.#limits, () => this.#resources.delete(layer));
    this.#resources.add(layer);
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
    this.#live();
    if (!this.training)
      throw new Error(
        'mha-wasm: createTrainer needs the build with the trainer; create the engine with createAttention({ training: true })',
      );
    const config = normalizeTrainerOptions(options, this.#limits.trainer);
    const { id, shapes } = await this.#call(CALLS.createTrainer, [config]);
    const trainer = new AttentionTrainer(this.#caller, id, config, shapes, this.#limits, () =>
      this.#resources.delete(trainer),
    );
    this.#resources.add(trainer);
    return trainer;
  }

  /** { heapBytes, inUseBytes, scratchBytes } of the engine's wasm memory. */
  async memoryStats() {
    return this.#call(CALLS.memoryStats, []);
  }

  /**
   * Frees the engine's memory, its layers and trainers, and ends its workers:
   * at once, or when the calls already made have settled. Idempotent; later
   * calls reject.
   */
  dispose() {
    if (!this.#backend) return;
    for (const resource of this.#resources) resource[DETACH]();
    this.#resources.clear();
    if (this.#pending === 0) this.#backend.dispose();
    else this.#idle = this.#backend;
    this.#backend = undefined;
  }
}

// Module-private keys of EngineResource, so that layers and trainers show
// only their documented methods.
const CALL = Symbol('call');
const DETACH = Symbol('detach');

// What layers and trainers share: an object in the engine's memory, filed
// under `id` by the EngineHost, freed by `disposeCall`, and unusable once it
// or its engine is disposed (onDispose tells the engine it is gone). Its
// calls go through `call(method, args)`, the engine's.
class EngineResource {
  #call;
  #id;
  #what;
  #disposeCall;
  #onDispose;

  constructor(call, id, what, disposeCall, onDispose) {
    this.#call = call;
    this.#id = id;
    this.#what = what;
    this.#disposeCall = disposeCall;
    this.#onDispose = onDispose;
  }

  // call(method, [id, ...args()]) while the resource lives. It is asked
  // again after `args` has read the caller's arguments, whose getters may have
  // disposed it.
  [CALL](method, args = () => []) {
    this.#live();
    const checked = args();
    this.#live();
    return this.#call(method, [this.#id, ...checked]);
  }

  #live() {
    if (!this.#call) throw new Error(`mha-wasm: this ${this.#what} was disposed (or its engine was)`);
  }

  /** Frees it in the engine's memory. Idempotent; later calls reject. */
  dispose() {
    if (!this.#call) return;
    // Rejects only when the engine is being disposed too, which frees everything.
    this.#call(this.#disposeCall, [this.#id]).catch(() => {});
    this.#onDispose();
    this[DETACH]();
  }

  // Forgets the engine (it is going away and frees everything).
  [DETACH]() {
    this.#call = undefined;
  }
}

export class AttentionLayer extends EngineResource {
  #limits;

  constructor(call, id, { dModel, numHeads, dK, dV }, limits, onDispose) {
    super(call, id, 'layer', CALLS.disposeLayer, onDispose);
    this.#limits = limits;
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
    return this[CALL](CALLS.forward, () => [normalizeForwardArguments(args, this, this.#limits)]);
  }
}

export class AttentionTrainer extends EngineResource {
  #shapes;
  #limits;

  constructor(call, id, config, shapes, limits, onDispose) {
    super(call, id, 'trainer', CALLS.disposeTrainer, onDispose);
    this.#shapes = shapes;
    this.#limits = limits;
    /** The options the trainer was made with, defaults filled in. */
    this.config = Object.freeze({ ...config });
    Object.freeze(this);
  }

  /**
   * The training set: { sentences: [{ tokens, tags }] }, ids as Arrays or
   * Int32Arrays, a tag per token (-1 = no loss there). Copied into the engine;
   * training batches are drawn from it in a seeded shuffle.
   */
  async setData(args) {
    await this[CALL](CALLS.trainerSetData, () => [
      normalizeSentences(args, this.config, 'setData', true, this.#limits),
    ]);
  }

  /**
   * { steps, batchSize = 32 }: that many Adam steps. Resolves to { losses,
   * step }: each batch's mean loss (before its step) and the steps taken so far.
   */
  async train(args) {
    return this[CALL](CALLS.trainerTrain, () => {
      const { steps, batchSize } = normalizeTrainArguments(args, this.#limits.trainer, this.config);
      return [steps, batchSize];
    });
  }

  /**
   * The model on { sentences: [{ tokens, tags? }], returnAttention }. Resolves
   * to { loss, predictions, probabilities, attention? }: predictions Int32Array
   * [count, maxLength] (-1 past a sentence's end), probabilities Float32Array
   * [count, maxLength, numTags], attention Float32Array [count, numHeads,
   * maxLength, maxLength]; loss is the mean over tagged tokens (0 without tags).
   */
  async evaluate(args) {
    return this[CALL](CALLS.trainerEvaluate, () => [
      normalizeSentences(args, this.config, 'evaluate', false, this.#limits),
    ]);
  }

  /** Every parameter, copied: { embedding, wQ, bQ, wK, bK, wV, bV, wO, bO, (w1, b1, w2, b2,) wC, bC }. */
  async parameters() {
    return this[CALL](CALLS.trainerParameters);
  }

  /**
   * Replaces some or all parameters ({ name: Float32Array }, shapes as
   * parameters() gives them) and starts the optimizer afresh (Adam's moments
   * and the step count back to 0).
   */
  async setParameters(values) {
    await this[CALL](CALLS.trainerSetParameters, () => [normalizeParameters(values, this.#shapes)]);
  }
}

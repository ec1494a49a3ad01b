// The public engine, shared by the Node and browser entry points: checks the
// arguments once (validate.mjs) and hands them to a backend — the Embind
// module itself in Node, a dedicated Worker in browsers (engine-worker.js).
// The trainer (attention-trainer.mjs, with its checks) and the models' loader
// (models/) are not imported here: the entries that offer them pass them in
// (train.mjs, model-entry.mjs, node.mjs), so that a bundle of an app that only
// computes attention carries neither.
import { rejectUnknown, describe } from './checks.mjs';
import {
  normalizeArguments,
  normalizeBackwardArguments,
  normalizeLayerArguments,
  normalizeForwardArguments,
} from './validate.mjs';
import { VARIANTS } from './files.mjs';
import { isThreaded } from './variants.mjs';
import { CALL, DETACH, EngineResource } from './resource.mjs';
import { CALLS } from './protocol.mjs';
import { ArgumentRangeError, ArgumentTypeError, codedError } from './errors.mjs';

/** The most threads an engine starts (its pool is sized at load). */
export const MAX_THREADS = 16;
const OPTIONS = new Set(['variant', 'threads', 'training', 'locateFile', 'wasmBinary', 'worker']);

/** Checks createAttention's options; returns them (an empty object when absent). */
export function checkOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw new ArgumentTypeError(`createAttention: expected an options object, got ${describe(options)}`);
  rejectUnknown(options, OPTIONS, 'createAttention');
  const { variant, threads, training, locateFile, wasmBinary, worker } = options;
  if (worker !== undefined && typeof worker !== 'boolean')
    throw new ArgumentTypeError(
      `worker: expected a boolean (true runs the engine in a Worker), got ${describe(worker)}`,
    );
  if (training !== undefined && typeof training !== 'boolean')
    throw new ArgumentTypeError(
      `training: expected a boolean (true loads the build with the trainer), got ${describe(training)}`,
    );
  if (variant !== undefined && !VARIANTS.includes(variant))
    throw new ArgumentRangeError(
      `variant: expected one of ${VARIANTS.map((v) => `"${v}"`).join(', ')}, got ${describe(variant)}`,
    );
  if (threads !== undefined) {
    if (typeof threads !== 'number')
      throw new ArgumentTypeError(`threads: expected an integer from 1 to ${MAX_THREADS}, got ${describe(threads)}`);
    if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS)
      throw new ArgumentRangeError(`threads: expected an integer from 1 to ${MAX_THREADS}, got ${threads}`);
    if (threads > 1 && variant !== undefined && !isThreaded(variant))
      throw new ArgumentRangeError(
        `threads: variant "${variant}" runs on one thread, got threads ${threads}; ` +
          `use variant "${variant === 'relaxed-simd' ? 'threaded-relaxed-simd' : 'threaded-simd'}"`,
      );
  }
  if (locateFile !== undefined && typeof locateFile !== 'function')
    throw new ArgumentTypeError(
      `locateFile: expected a function (fileName, defaultUrl) => url, got ${describe(locateFile)}`,
    );
  if (wasmBinary !== undefined && !(wasmBinary instanceof ArrayBuffer || ArrayBuffer.isView(wasmBinary)))
    throw new ArgumentTypeError(
      `wasmBinary: expected an ArrayBuffer or Uint8Array holding the variant's .wasm file, got ${describe(wasmBinary)}`,
    );
  return options;
}

/** Options for the Emscripten factory (Module): pool size for the threaded build. */
export function moduleOptions(threads) {
  // The pool holds the threads the engine starts (the caller is one of the
  // `threads`), all started with the module (CMakeLists.txt says why).
  return { mhaPoolSize: threads - 1 };
}

export class AttentionEngine {
  #backend;
  #limits;
  #resources = new Set(); // layers and trainers: both live in the engine's memory
  #pending = 0; // calls sent to the backend and not yet settled
  #idle; // a backend disposed during calls, released when the last one settles
  // Calls on the backend, counted; for layers, trainers and models too.
  #caller = (method, args, transfer) => this.#call(method, args, transfer);

  #platform;
  #family;
  #models; // Promise of the engine of the model build that runs this engine's models
  #modelEngine; // that engine, once started

  // backend: { call(method, args, transfer?) → Promise, dispose() }, around an
  // EngineHost (transfer: buffers a Worker's backend may move, not copy).
  // family: the build's (files.mjs FAMILIES). limits: the core's, as
  // EngineHost.limits() reads them from the bindings. platform: what the
  // entry point gives: openModels() → Promise of an engine of the model build
  // like this one; loadModel (models/load.mjs) for that engine's models;
  // openNamed(name, options) → the files of a Hub repo (and in Node of a
  // folder): models/sources/hub-node.mjs, hub-browser.mjs; tokenizerHost
  // (Node: models/tokenizers/node-host.mjs) where a model's tokenizer runs; createTrainer
  // (attention-trainer.mjs) for an engine of the trainer's build.
  constructor(backend, variant, threads, family, limits, platform = {}) {
    if (limits.trainer) Object.freeze(limits.trainer);
    if (limits.model) Object.freeze(limits.model);
    this.#backend = backend;
    this.#limits = Object.freeze(limits);
    this.#platform = platform;
    this.#family = family;
    /** The build in use: "threaded-relaxed-simd", "relaxed-simd", "threaded-simd", "simd" or "scalar". */
    this.variant = variant;
    /** Threads that share each call. */
    this.threads = threads;
    /** Whether the build includes the trainer (createAttention({ training: true })). */
    this.training = family === 'train';
    /** The largest sizes a call may have (defined in the C++ core): { maxElements, trainer?, model? (model builds) }. */
    this.limits = limits;
    Object.freeze(this);
  }

  #live() {
    if (!this.#backend)
      throw codedError('Disposed', 'mha-wasm: this engine was disposed; create a new one with createAttention()');
    return this.#backend;
  }

  // Sends a call whose arguments are already checked. The engine is asked
  // again: reading the arguments runs the caller's getters, which may have
  // disposed it.
  async #call(method, args, transfer) {
    const backend = this.#live();
    this.#pending++;
    try {
      return await backend.call(method, args, transfer);
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
    const layer = new AttentionLayer(this.#caller, id, weights, this.#limits, this.#backend.inThread === true, () =>
      this.#resources.delete(layer),
    );
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
    let trainer;
    const onDispose = () => this.#resources.delete(trainer);
    trainer = await this.#platform.createTrainer(this.#caller, options, this.#limits, onDispose);
    this.#resources.add(trainer);
    return trainer;
  }

  /**
   * Loads a Hugging Face checkpoint (an encoder, a decoder or an
   * encoder-decoder of the architectures src/model/arch/ registers: config.json,
   * model.safetensors or pytorch_model.bin or their shards, and its tokenizer's
   * files) by its Hub name, from a folder path (Node) or from its files, and
   * resolves to a model whose run() gives every layer's hidden states and
   * every head's attention. The models
   * run in the build with the Transformer blocks (dist/mha-model-*), loaded
   * with the first model on the same variant and threads.
   */
  async loadModel(source, options) {
    this.#live();
    if (this.#family === 'model') return this.#loadModel(source, options, this.#platform);
    if (!this.#models) {
      this.#models = this.#platform.openModels
        ? this.#platform.openModels()
        : Promise.reject(new Error('mha-wasm: this engine cannot load models'));
      this.#models.then(
        (engine) => (this.#modelEngine = engine),
        () => (this.#models = undefined), // a failed start is tried again next time
      );
    }
    const models = await this.#models;
    this.#live();
    return models.#loadModel(source, options, this.#platform);
  }

  // `platform`: the entry's (the engine loadModel was called on), for its openNamed and tokenizerHost.
  async #loadModel(source, options, { openNamed, tokenizerHost }) {
    this.#live();
    let model;
    const onDispose = () => this.#resources.delete(model);
    model = await this.#platform.loadModel(this.#caller, source, options, { openNamed, tokenizerHost, onDispose });
    if (!this.#backend) throw codedError('Disposed', 'mha-wasm: this engine was disposed while the model loaded');
    this.#resources.add(model);
    return model;
  }

  /** { heapBytes, inUseBytes, scratchBytes } of the engine's wasm memory. */
  async memoryStats() {
    if (!this.#models) return this.#call(CALLS.memoryStats, []);
    const stats = await this.#call(CALLS.memoryStats, []);
    // The model build's memory, once a model was loaded.
    const models = await this.#models?.catch(() => undefined);
    if (models && models !== this) stats.models = await models.memoryStats();
    return stats;
  }

  /**
   * Frees the engine's memory, its layers and trainers, and ends its workers:
   * at once, or when the calls already made have settled. Idempotent; later
   * calls reject.
   */
  dispose() {
    if (!this.#backend) return;
    // The model build's engine and its models: at once if it has started, else when it does.
    if (this.#modelEngine) this.#modelEngine.dispose();
    else this.#models?.then((models) => models.dispose()).catch(() => {});
    this.#models = this.#modelEngine = undefined;
    for (const resource of this.#resources) resource[DETACH]();
    this.#resources.clear();
    if (this.#pending === 0) this.#backend.dispose();
    else this.#idle = this.#backend;
    this.#backend = undefined;
  }
}

export class AttentionLayer extends EngineResource {
  #limits;
  #inThread;

  // inThread: the engine runs in this thread (it can write into the caller's output array itself).
  constructor(call, id, { dModel, numHeads, dK, dV }, limits, inThread, onDispose) {
    super(call, id, 'layer', CALLS.disposeLayer, onDispose);
    this.#limits = limits;
    this.#inThread = inThread;
    this.dModel = dModel;
    this.numHeads = numHeads;
    this.dK = dK;
    this.dV = dV;
    Object.freeze(this);
  }

  /**
   * The layer's multi-head attention on new activations: { query, key, value,
   * batch, seqLenQ, seqLenK, causal, keyPaddingMask, returnAttention,
   * returnProjections, returnScores, output }. With `output` (a Float32Array
   * [batch, seqLenQ, dModel]) the result is written into it, and it is
   * result.output: an engine on this thread allocates no array for it (one in
   * a Worker copies its result into it).
   */
  async forward(args) {
    let target, given;
    const result = await this[CALL](CALLS.forward, () => {
      const [call, output] = normalizeForwardArguments(args, this, this.#limits);
      target = call.output;
      given = output;
      // A Worker's engine cannot reach the caller's memory: its result is copied in below.
      if (!this.#inThread) delete call.output;
      return [call];
    });
    if (given) {
      if (!this.#inThread) target.set(result.output);
      result.output = given;
    }
    return result;
  }
}

// Runs calls on the Embind module and owns its objects. One file for both
// places the module lives: Node requires it (src/js/node.mjs), the browser's
// engine worker loads it with importScripts (src/js/engine-worker.js), so a
// classic script rather than an ES module. Backends reach it only through
// call(), for the calls of src/js/protocol.mjs.
/* global self */
'use strict';

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.MhaEngineHost = factory();
})(typeof self !== 'undefined' ? self : this, function () {
  // The bindings return a C++ error as an error value instead of throwing it
  // through wasm (src/bindings/convert.hpp, guarded()): a RangeError for a
  // bad argument, an Error for a bad file (a config.json); thrown here.
  function checked(result) {
    if (result instanceof Error) throw result;
    return result;
  }

  // A TypeError of an argument the host refuses, with errors.mjs's code (a classic script cannot import it).
  function argumentError(message) {
    const error = new TypeError(message);
    error.code = 'InvalidArgument';
    return error;
  }

  // Model.call's names of calls, and its logits codes: none, every row's, the last row's (src/bindings/model.cpp).
  const MODEL_CALLS = ['run', 'prefill', 'step', 'beamStep', 'encode', 'decode'];
  const logitsCode = (returnLogits) => (returnLogits === 'last' ? 2 : returnLogits ? 1 : 0);

  // An element type's code for the model build `module`: its place in dtypeNames() (src/bindings: 'F32',
  // 'F16', 'BF16', the one list, read once a module), a TypeError naming `what` for any other name.
  const dtypeLists = new WeakMap();
  function dtypeCode(module, dtype, what) {
    if (!dtypeLists.has(module)) dtypeLists.set(module, Array.from(module.dtypeNames()));
    const names = dtypeLists.get(module);
    const code = names.indexOf(dtype);
    if (code < 0) throw argumentError(`${what}: expected one of ${names.join(', ')}, got ${String(dtype)}`);
    return code;
  }

  // The typed arrays' own getters.
  const intrinsic = (name) => Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), name).get;
  const [bufferOf, offsetOf, lengthOf] = ['buffer', 'byteOffset', 'byteLength'].map(intrinsic);
  // %TypedArray%.prototype.set as the engine found it (a caller may replace the prototype's).
  const setBytes = Object.getPrototypeOf(Uint8Array.prototype).set;

  // An Embind object on the host's engine (a Layer, a Trainer, a Model), set
  // up by `setup` (and deleted if that throws), filed in `map` under a new id.
  // One counter for all three, so that an id never names two objects.
  function adopt(host, Type, setup, map) {
    const object = new Type(host.engine);
    try {
      checked(setup(object));
    } catch (error) {
      object.delete();
      throw error;
    }
    const id = host.nextResource++;
    map.set(id, object);
    return id;
  }

  // The object filed under `id` in `map`, or an Error saying it was disposed.
  function live(map, id, what) {
    const object = map.get(id);
    if (!object) throw Object.assign(new Error(`mha-wasm: this ${what} was disposed`), { code: 'Disposed' });
    return object;
  }

  class EngineHost {
    // calls: the method names a backend may call (CALLS of protocol.mjs).
    // build: { kernels, wasm }: the kernels of the variant asked for
    // ("relaxed-simd", "simd" or "scalar", variants.mjs kernelsOf), and its
    // .wasm file's name; a module of another build (the caller's wasmBinary)
    // is refused here, before any call reaches it.
    constructor(module, threads, calls, build) {
      this.module = module;
      // Bytes that are not this glue's build mostly fail to link (node-host.mjs
      // says so); bytes that link and start without the bindings (another
      // Emscripten's build whose imports happen to match) are refused here.
      if (typeof module.Engine !== 'function')
        throw argumentError(
          `wasmBinary: expected the bytes of ${build?.wasm ?? 'this build'}, got those of a build of another ` +
            'Emscripten (its bindings did not register)',
        );
      this.engine = new module.Engine(threads);
      const kernels = build && this.engine.kernels();
      if (build && kernels !== build.kernels) {
        this.engine.delete();
        const what = { simd: 'with SIMD', scalar: 'without SIMD', 'relaxed-simd': 'with relaxed-SIMD' }[kernels];
        throw argumentError(
          `wasmBinary: expected the bytes of ${build.wasm}, got those of a build ${what} kernels (mha-${kernels}.wasm?)`,
        );
      }
      this.layers = new Map();
      this.trainers = new Map();
      this.models = new Map();
      this.nextResource = 1; // the next id of a layer, trainer or model (adopt)
      this.calls = new Set(calls);
    }

    /** Runs one call of the protocol: this[method](...args). */
    call(method, args) {
      if (!this.calls.has(method) || typeof this[method] !== 'function')
        throw new Error(`mha-wasm: unknown engine call ${method}`);
      return this[method](...args);
    }

    /** The core's limits (defined in C++, read through the bindings): { maxElements, trainer?, model? }. */
    limits() {
      const limits = this.module.limits();
      if (this.module.trainerLimits) limits.trainer = this.module.trainerLimits();
      if (this.module.modelLimits) limits.model = this.module.modelLimits();
      return limits;
    }

    threads() {
      return this.engine.threads();
    }

    multiHeadAttention(call) {
      try {
        this.#status(this.engine.multiHeadAttention(call));
        return this.#results();
      } finally {
        this.engine.releaseBuffers();
      }
    }

    multiHeadAttentionBackward(call) {
      return checked(this.engine.multiHeadAttentionBackward(call));
    }

    createLayer(weights) {
      return adopt(this, this.module.Layer, (layer) => layer.assign(weights), this.layers);
    }

    // A layer's call crosses with one copy each way, made here straight into
    // and out of the wasm memory: the engine checks the call and sizes its
    // input buffers (stage), the call's arrays are copied in, the engine
    // computes (run), and the results are copied out (into call.output, a
    // plain view of the caller's array, when given) before anything else runs
    // in the module; then the engine gives back what it should not keep.
    forward(id, call) {
      const layer = live(this.layers, id, 'layer');
      this.#status(
        layer.stage(
          call.batch,
          call.seqLenQ,
          call.seqLenK,
          call.causal,
          call.returnAttention,
          call.returnProjections,
          call.returnScores,
          !!call.key,
          !!call.value,
          !!call.keyPaddingMask,
        ),
      );
      const inputs = this.#arrays();
      for (const name of ['query', 'key', 'value']) if (call[name]) inputs[name].set(call[name]);
      if (call.keyPaddingMask) inputs.keyPaddingMask.set(call.keyPaddingMask);
      try {
        this.#status(layer.run());
        return this.#results(call.output);
      } finally {
        this.engine.releaseBuffers();
      }
    }

    // The results of the call just run, copied out of the engine's buffers:
    // { output, attention?, scores?, projections?: { Q, K, V, concat } }, the
    // output into `output` (a plain view of the caller's array) when given.
    #results(output) {
      const views = this.#arrays();
      const result = { output: output ?? views.output.slice() };
      if (output) output.set(views.output);
      for (const name of ['attention', 'scores']) if (views[name]) result[name] = views[name].slice();
      if (views.Q) {
        const { Q, K, V, concat } = views;
        result.projections = { Q: Q.slice(), K: K.slice(), V: V.slice(), concat: concat.slice() };
      }
      return result;
    }

    // A guarded call's status: 1 is an error, thrown here.
    #status(status) {
      if (status !== 0) throw this.module.lastError();
    }

    // The arrays of the staged call, as views of the wasm memory: { name: Float32Array
    // (Uint8Array for keyPaddingMask) } for each slot of the engine's record that is in use.
    #arrays() {
      // Where the staged call's arrays are listed (Engine::ioRecord): slot names, and the record's index in HEAPU32.
      this.io ??= { names: this.module.ioSlots(), at: this.engine.ioRecord() >>> 2 };
      const { names, at } = this.io;
      let u32 = this.module.HEAPU32;
      const arrays = {};
      for (let i = 0; i < names.length; i++) {
        const address = u32[at + 2 * i];
        if (address === 0) continue;
        const count = u32[at + 2 * i + 1];
        const Type = names[i] === 'keyPaddingMask' ? Uint8Array : Float32Array;
        // Memory grown by another of the module's threads: seen through a fresh view.
        if (address + count * Type.BYTES_PER_ELEMENT > u32.buffer.byteLength)
          u32 = new Uint32Array(this.engine.memoryView().buffer);
        arrays[names[i]] = new Type(u32.buffer, address, count);
      }
      return arrays;
    }

    disposeLayer(id) {
      this.layers.get(id)?.delete();
      this.layers.delete(id);
    }

    // { id, shapes }: shapes { name: [rows, cols] } is the model's parameter layout.
    createTrainer(config) {
      const id = adopt(this, this.module.Trainer, (trainer) => trainer.configure(config), this.trainers);
      return { id, shapes: checked(this.trainers.get(id).parameterShapes()) };
    }

    trainerSetData(id, data) {
      checked(live(this.trainers, id, 'trainer').setData(data));
    }

    trainerTrain(id, steps, batchSize) {
      const trainer = live(this.trainers, id, 'trainer');
      const losses = checked(trainer.train(steps, batchSize));
      return { losses, step: trainer.steps() };
    }

    trainerEvaluate(id, data) {
      return checked(live(this.trainers, id, 'trainer').evaluate(data, data.returnAttention));
    }

    trainerParameters(id) {
      return checked(live(this.trainers, id, 'trainer').parameters());
    }

    trainerSetParameters(id, values) {
      checked(live(this.trainers, id, 'trainer').setParameters(values));
    }

    disposeTrainer(id) {
      this.trainers.get(id)?.delete();
      this.trainers.delete(id);
    }

    // { id, tensors, maxLength }: tensors [{ name, shape }] are what the
    // checkpoint must hold (the model's layout, src/model/model.cpp), maxLength
    // the longest input in tokens (Model::max_length).
    // config.json (parsed) → the model's description, allocating nothing
    // (src/bindings/model.cpp, describeModel).
    describeModel(config) {
      if (!this.module.describeModel)
        throw new Error('mha-wasm: this build has no Transformer models (mha-model-* has)');
      return checked(this.module.describeModel(config));
    }

    // The bytes the parameters of config.json's model take held as createModel(config, storage, holds)
    // would hold them; nothing is allocated (src/bindings/model_description.hpp, modelBytes).
    modelBytes(config, storage = 'F32', holds = null) {
      if (!this.module.modelBytes) throw new Error('mha-wasm: this build has no Transformer models (mha-model-* has)');
      return checked(
        this.module.modelBytes(config, dtypeCode(this.module, storage, 'storage'), this.#holdCodes(holds)),
      );
    }

    // [[tensor index, block type name], …] → [[index, type code], …] (null stays null).
    #holdCodes(holds) {
      return holds && holds.map(([index, type]) => [index >>> 0, dtypeCode(this.module, type, 'holds')]);
    }

    // storage: the element type the weight matrices are held in ('F32', 'BF16', 'F16'); holds: null, or
    // [[tensor index, block type ('Q8_0', 'Q4_K' …)], …], the matrices held in a GGUF file's blocks instead
    // (where the model can: src/model/weights.hpp, hold); roundsActivations: whether their products round the
    // activations as llama.cpp's (loadModel's activations: 'llama.cpp'; src/model/model.hpp, round_activations).
    createModel(config, storage = 'F32', holds = null, roundsActivations = false) {
      if (!this.module.Model) throw new Error('mha-wasm: this build has no Transformer models (mha-model-* has)');
      if (typeof roundsActivations !== 'boolean')
        throw argumentError(`roundsActivations: expected a boolean, got ${String(roundsActivations)}`);
      const code = dtypeCode(this.module, storage, 'storage');
      const held = this.#holdCodes(holds);
      let configured;
      const id = adopt(
        this,
        this.module.Model,
        (model) => (configured = model.configure(config, code, held, roundsActivations)),
        this.models,
      );
      return { id, ...configured };
    }

    // Nothing the bindings run can throw in JS (an exception crossing the
    // wasm frames would skip their clean-up): the bytes are copied here, into
    // the chunk the model gives as a view of its memory, with the intrinsic
    // set() (a caller's patched one, a detached array, throw here, in JS, and
    // the model's memory stays as it was); the dtype goes as its code. The
    // bytes go back to the loader (transferred from a Worker), to read into again.
    modelWrite(id, index, dtype, first, bytes) {
      const code = dtypeCode(this.module, dtype, 'dtype');
      if (!ArrayBuffer.isView(bytes) || !(bytes instanceof Uint8Array))
        throw argumentError("bytes: expected a Uint8Array of the tensor's elements");
      const model = live(this.models, id, 'model');
      const length = lengthOf.call(bytes);
      const chunk = checked(model.chunk(length));
      setBytes.call(chunk, new Uint8Array(bufferOf.call(bytes), offsetOf.call(bytes), length));
      checked(model.write(index, code, first, length));
      return { bytes };
    }

    modelMissing(id) {
      return checked(live(this.models, id, 'model').missing());
    }

    modelHasLogits(id) {
      return live(this.models, id, 'model').hasLogits();
    }

    // The task head the model read ('sequence-classification' …), or null.
    modelTaskHead(id) {
      return live(this.models, id, 'model').taskHead() || null;
    }

    // One model call, named (src/bindings/model.cpp, Model::call): { call ('run', 'prefill', 'step',
    // 'beamStep' (a decoder's beams, one id each, after modelReorder made them), 'encode', 'decode'),
    // inputIds, tokenTypeIds?, beams?, returnAttention?, returnHiddenStates?, returnLogits? (false, true:
    // every row's, 'last': the last row's, a generation's next token),
    // returnQueryKey?, returnHeadOutputs?, returnTaskLogits?, layerLogitPositions? (Int32Array: the logit lens'
    // rows, run and decode), headMask? ({ encoder, decoder, cross }: Uint8Array [layers × heads] or
    // null) }, made whole here (every field present, of its type) so that the bindings read no undefined.
    // Resolves to { lastHiddenState, attention?, crossAttention?, hiddenStates?, logits?, query?, key?,
    // valueNorms?, headOutputNorms?, crossValueNorms?, crossHeadOutputNorms? } as { data, shape } each, with
    // past and queryKeyScale where the call has them.
    modelCall(id, request) {
      const model = live(this.models, id, 'model');
      if (!request || typeof request !== 'object') throw argumentError('request: expected an object');
      const { call, inputIds, tokenTypeIds = null, beams = 1, headMask = {} } = request;
      if (!MODEL_CALLS.includes(call))
        throw argumentError(`call: expected one of ${MODEL_CALLS.join(', ')}, got ${String(call)}`);
      if (!(inputIds instanceof Int32Array)) throw argumentError('request.inputIds: expected an Int32Array');
      if (tokenTypeIds !== null && !(tokenTypeIds instanceof Int32Array))
        throw argumentError('request.tokenTypeIds: expected an Int32Array or null');
      const mask = (group) => {
        const m = headMask?.[group] ?? null;
        if (m !== null && !(m instanceof Uint8Array))
          throw argumentError(`request.headMask.${group}: expected a Uint8Array or null`);
        return m;
      };
      // A batch's run: each sequence's count of the inputIds, one after another (src/bindings/model_batch.hpp).
      const lengths = request.lengths ?? null;
      if (lengths !== null && (!(lengths instanceof Int32Array) || call !== 'run'))
        throw argumentError("request.lengths: expected an Int32Array (call 'run') or null");
      // An encoder-decoder's batch: its decoder inputs too, one after another, and each one's count (model_pairs.hpp).
      const { decoderInputIds = null, decoderLengths = null } = request;
      for (const [name, value] of [
        ['decoderInputIds', decoderInputIds],
        ['decoderLengths', decoderLengths],
      ])
        if (value !== null && (!(value instanceof Int32Array) || lengths === null))
          throw argumentError(`request.${name}: expected an Int32Array (a batch's, with lengths) or null`);
      const lensPositions = request.layerLogitPositions ?? null;
      if (lensPositions !== null && !(lensPositions instanceof Int32Array))
        throw argumentError('request.layerLogitPositions: expected an Int32Array or null');
      return checked(
        model.call({
          call,
          inputIds,
          tokenTypeIds,
          lengths,
          decoderInputIds,
          decoderLengths,
          beams: Number(beams),
          returnAttention: request.returnAttention === true,
          returnHiddenStates: request.returnHiddenStates === true,
          returnLogits: logitsCode(request.returnLogits),
          returnQueryKey: request.returnQueryKey === true,
          returnHeadOutputs: request.returnHeadOutputs === true,
          returnTaskLogits: request.returnTaskLogits === true,
          layerLogitPositions: lensPositions,
          headMask: { encoder: mask('encoder'), decoder: mask('decoder'), cross: mask('cross') },
        }),
      );
    }

    modelRewind(id, past) {
      checked(live(this.models, id, 'model').rewind(past));
    }

    modelReset(id) {
      checked(live(this.models, id, 'model').reset());
    }

    // An encoder-decoder's decoder readied for `beams` sequences of up to `capacity` tokens (then modelCall
    // 'decode'), and its beams reordered (a decoder's past too: into any number of beams, modelCall 'beamStep').
    modelBegin(id, beams, capacity) {
      checked(live(this.models, id, 'model').begin(beams, capacity));
    }

    modelReorder(id, parents) {
      checked(live(this.models, id, 'model').reorder(parents));
    }

    disposeModel(id) {
      this.models.get(id)?.delete();
      this.models.delete(id);
    }

    memoryStats() {
      return checked(this.engine.memoryStats());
    }

    // Idempotent: an engine's FinalizationRegistry (node.mjs) may come after dispose().
    dispose() {
      if (this.disposed) return;
      this.disposed = true;
      for (const layer of this.layers.values()) layer.delete();
      this.layers.clear();
      for (const trainer of this.trainers.values()) trainer.delete();
      this.trainers.clear();
      for (const model of this.models.values()) model.delete();
      this.models.clear();
      this.engine.delete(); // joins the engine's threads
      // Ends the pool's Workers, which the join leaves idle: each is a thread
      // with a V8 isolate of its own, kept until the process exits otherwise
      // (tests/js/node-exit.test.mjs counts them).
      this.module.PThread?.terminateAllThreads();
      // Nothing of the module is kept: its memory goes with the last reference.
      this.engine = this.module = undefined;
    }
  }

  /** The ArrayBuffers of a result's arrays (one level of nesting), to transfer rather than copy across a postMessage. */
  EngineHost.transferables = function (result) {
    const list = [];
    if (!result || typeof result !== 'object') return list;
    for (const value of Object.values(result)) {
      if (ArrayBuffer.isView(value)) list.push(value.buffer);
      else if (value && typeof value === 'object')
        for (const inner of Object.values(value)) if (ArrayBuffer.isView(inner)) list.push(inner.buffer);
    }
    return list;
  };

  return EngineHost;
});

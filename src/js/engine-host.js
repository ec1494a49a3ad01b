// Runs calls on the Embind module and owns its objects. One file for both
// places the module lives: Node requires it (src/js/node.mjs), the browser's
// engine worker loads it with importScripts (src/js/engine-worker.js), so a
// classic script rather than an ES module.
/* global self */
'use strict';

(function (root, factory) {
  if (typeof module === 'object' && module.exports) module.exports = factory();
  else root.MhaEngineHost = factory();
})(typeof self !== 'undefined' ? self : this, function () {
  class EngineHost {
    constructor(module, threads) {
      this.module = module;
      this.engine = new module.Engine(threads);
      this.layers = new Map();
      this.nextLayer = 1;
    }

    threads() {
      return this.engine.threads();
    }

    multiHeadAttention(call) {
      return this.engine.multiHeadAttention(call);
    }

    createLayer(weights) {
      const layer = new this.module.Layer(this.engine);
      try {
        layer.assign(weights);
      } catch (error) {
        layer.delete();
        throw error;
      }
      const id = this.nextLayer++;
      this.layers.set(id, layer);
      return id;
    }

    forward(id, call) {
      const layer = this.layers.get(id);
      if (!layer) throw new Error('mha-wasm: this layer was disposed');
      return layer.forward(
        call.batch, call.seqLenQ, call.seqLenK, call.causal, call.returnAttention, call.returnProjections,
        call.returnScores, call.query, call.key ?? null, call.value ?? null, call.keyPaddingMask ?? null,
      );
    }

    disposeLayer(id) {
      this.layers.get(id)?.delete();
      this.layers.delete(id);
    }

    memoryStats() {
      return this.engine.memoryStats();
    }

    dispose() {
      for (const layer of this.layers.values()) layer.delete();
      this.layers.clear();
      this.engine.delete(); // joins the engine's threads
      // Idle pool workers would keep Node alive (Emscripten < 3.1.27).
      this.module.PThread?.terminateAllThreads();
    }
  }

  /** The ArrayBuffers of a result, to transfer rather than copy across a postMessage. */
  EngineHost.transferables = function (result) {
    const list = [];
    if (result && result.output) list.push(result.output.buffer);
    if (result && result.attention) list.push(result.attention.buffer);
    if (result && result.scores) list.push(result.scores.buffer);
    if (result && result.projections) for (const m of Object.values(result.projections)) list.push(m.buffer);
    return list;
  };

  return EngineHost;
});

// The engine's call protocol, declared once: the calls a backend carries to
// the EngineHost (engine-host.js) and the messages between the page and the
// engine worker (engine-worker.js). The worker is a classic script (the
// builds' glue is a classic factory script, loaded with importScripts) and
// cannot import this module, so the names of the calls travel to it in the
// init message; it dispatches those and nothing else. tests/js/protocol.test.mjs checks that every call is
// an EngineHost method.

/** EngineHost's methods that a backend may call, by name. */
export const CALLS = Object.freeze({
  limits: 'limits',
  threads: 'threads',
  multiHeadAttention: 'multiHeadAttention',
  multiHeadAttentionBackward: 'multiHeadAttentionBackward',
  createLayer: 'createLayer',
  forward: 'forward',
  disposeLayer: 'disposeLayer',
  createTrainer: 'createTrainer',
  trainerSetData: 'trainerSetData',
  trainerTrain: 'trainerTrain',
  trainerEvaluate: 'trainerEvaluate',
  trainerParameters: 'trainerParameters',
  trainerSetParameters: 'trainerSetParameters',
  disposeTrainer: 'disposeTrainer',
  memoryStats: 'memoryStats',
  describeModel: 'describeModel',
  modelBytes: 'modelBytes',
  createModel: 'createModel',
  modelWrite: 'modelWrite',
  modelMissing: 'modelMissing',
  modelHasLogits: 'modelHasLogits',
  modelTaskHead: 'modelTaskHead',
  // A model's run, prefill, step, encode and decode: one call with one named request (engine-host.js).
  modelCall: 'modelCall',
  modelReset: 'modelReset',
  modelRewind: 'modelRewind',
  modelBegin: 'modelBegin',
  modelReorder: 'modelReorder',
  disposeModel: 'disposeModel',
});

/**
 * Messages between the page and the engine worker:
 *   init { urls, threads, poolSize, wasmBinary, calls, build } → ready { limits } | failed { error }
 *   call { id, method, args } → result { id, result } | result { id, error }
 */
export const MESSAGES = Object.freeze({
  init: 'init',
  ready: 'ready',
  failed: 'failed',
  call: 'call',
  result: 'result',
});

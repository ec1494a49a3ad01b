// Node entry point (import). The engine runs on the calling thread (its
// calls block it while they compute; the threaded build's pool runs on
// worker_threads), or with { worker: true } in a worker_threads Worker, so
// that a long call leaves the event loop free.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { AttentionEngine, checkOptions, MAX_THREADS } from './engine.mjs';
import { inferenceUrls, variantFiles } from './files.mjs';
import { modelUrls } from './model-files.mjs';
import { loadModel } from './models/load.mjs';
import { openNamed } from './models/sources/hub-node.mjs';
import { nodeTokenizerHost } from './models/tokenizers/node-host.mjs';
import { createTrainer } from './attention-trainer.mjs';
import { trainUrls } from './train-files.mjs';
import { loadHost, workerExecArgv } from './node-host.mjs';
import { hasRelaxedSimd, isThreaded, kernelsOf, simdVariant } from './variants.mjs';
import { MESSAGES } from './protocol.mjs';
import { WorkerBackend, rebuildError } from './worker-backend.mjs';
import { ArgumentRangeError } from './errors.mjs';
import { pipelineOf } from './models/tasks/pipeline.mjs';

// What 'mha-wasm/model' adds in browsers: a Hub repo's files before loading it, and which of a user's files
// are the checkpoint.
export { listModelFiles } from './models/sources/hub-node.mjs';
export { parseModelName } from './models/sources/repo-files.mjs';
export { pickModelFiles } from './models/checkpoint-files.mjs';
export { DEFAULT_ENDPOINT as DEFAULT_HUB_ENDPOINT } from './models/sources/hub-options.mjs';

function toPath(url) {
  const s = String(url);
  return s.startsWith('file:') ? fileURLToPath(s) : s;
}

// The engine on this thread: calls run synchronously inside the returned Promise.
class DirectBackend {
  constructor(host) {
    this.host = host;
    this.inThread = true; // the host may write into the caller's arrays
  }

  async call(method, args) {
    return this.host.call(method, args);
  }

  dispose() {
    forgotten.unregister(this);
    this.host.dispose();
  }
}

// Frees the module (or ends the Worker) of an engine that was garbage-collected undisposed.
const forgotten = new FinalizationRegistry((held) => held.dispose());

// The worker_threads Worker as WorkerBackend takes it: it keeps Node alive
// only while a call is pending.
function nodeWorkerPort(worker) {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onError) {
      worker.on('message', onMessage);
      worker.on('error', (error) => onError(error.message));
    },
    terminate() {
      forgotten.unregister(worker);
      worker.terminate();
    },
    busy: (isBusy) => (isBusy ? worker.ref() : worker.unref()),
  };
}

// Starts the Worker and waits for its engine; rejects as createAttention would.
function startWorker(plan, wasmBinary) {
  const worker = new Worker(new URL('./node-worker.mjs', import.meta.url), {
    workerData: { plan, wasmBinary },
    execArgv: workerExecArgv(),
  });
  return new Promise((resolve, reject) => {
    const fail = (error) => {
      worker.terminate();
      reject(error);
    };
    worker.once('error', (error) => fail(new Error(`mha-wasm: the engine worker failed to start: ${error.message}`)));
    worker.once('message', (message) => {
      worker.removeAllListeners('error');
      if (message.type === MESSAGES.ready) resolve({ worker, threads: message.threads, limits: message.limits });
      else fail(rebuildError(message.error ?? { message: 'mha-wasm: the engine worker did not start' }));
    });
  });
}

const URLS = { inference: inferenceUrls, train: trainUrls, model: modelUrls };

/**
 * Loads and instantiates the wasm engine. Defaults: variant "threaded-relaxed-simd"
 * where Node runs relaxed SIMD (Node ≥ 22, or Node 20 started with
 * --experimental-wasm-relaxed-simd: variants.mjs's probe), else "threaded-simd";
 * threads = os.availableParallelism() (at most 16), on the calling thread
 * ({ worker: true }: in a worker_threads Worker).
 */
export async function createAttention(options) {
  const opts = checkOptions(options);
  return openEngine(opts, opts.training === true ? 'train' : 'inference');
}

async function openEngine(opts, family) {
  if (opts.variant && kernelsOf(opts.variant) === 'relaxed-simd' && !hasRelaxedSimd())
    throw new ArgumentRangeError(
      `variant: "${opts.variant}" needs WebAssembly relaxed SIMD, which this Node ${process.version} lacks ` +
        '(Node ≥ 22 has it; Node 20 with --experimental-wasm-relaxed-simd); leave variant out for the SIMD128 builds',
    );
  const variant = opts.variant ?? simdVariant(opts.threads !== 1);
  const threads = isThreaded(variant) ? (opts.threads ?? Math.min(MAX_THREADS, os.availableParallelism())) : 1;
  const files = variantFiles(variant, family);
  const urls = URLS[family]()[variant];
  const paths = {};
  for (const [role, fileName] of Object.entries(files)) {
    const defaultUrl = urls[role].href;
    paths[fileName] = toPath(opts.locateFile ? opts.locateFile(fileName, defaultUrl) : defaultUrl);
  }
  const plan = { variant, threads, files, paths, locateFile: Boolean(opts.locateFile) };
  // Models run in the model build, on the same variant, threads and thread of Node.
  const modelOptions = {
    ...opts,
    variant,
    threads: isThreaded(variant) ? threads : undefined,
    wasmBinary: undefined,
  };
  const platform = {
    openNamed,
    tokenizerHost: nodeTokenizerHost,
    loadModel,
    createTrainer,
    openModels: () => openEngine(modelOptions, 'model'),
  };
  if (opts.worker) {
    const { worker, threads: started, limits } = await startWorker(plan, opts.wasmBinary);
    const backend = new WorkerBackend(nodeWorkerPort(worker));
    const engine = new AttentionEngine(backend, variant, started, family, limits, platform);
    forgotten.register(engine, { dispose: () => worker.terminate() }, worker);
    return engine;
  }
  const host = await loadHost(plan, opts.wasmBinary);
  const backend = new DirectBackend(host);
  const engine = new AttentionEngine(backend, variant, threads, family, host.limits(), platform);
  // An engine that becomes unreachable without dispose() is freed all the same.
  forgotten.register(engine, host, backend);
  return engine;
}

/** pipeline(task, source, options): transformers.js' tasks over a model loaded into a new engine (or options.engine). */
export const pipeline = pipelineOf(createAttention);

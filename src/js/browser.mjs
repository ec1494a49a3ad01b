// Browser (and bundler) entry point. The engine runs in a dedicated Worker
// (engine-worker.js); this side checks arguments, picks the build, and turns
// messages back into Promises. Threads need a cross-origin-isolated page
// (COOP + COEP headers); without it the single-thread SIMD build is used.
// The builds with the trainer and with the Transformer models, and the JS
// that runs them (attention-trainer.mjs, models/), are not reachable from
// here: 'mha-wasm/train' (train.mjs) and 'mha-wasm/model' (model-entry.mjs)
// add them, so that a bundle of an app that only computes attention carries
// only the attention builds and code.
import { AttentionEngine, checkOptions, moduleOptions, MAX_THREADS } from './engine.mjs';
import { inferenceUrls, variantFiles } from './files.mjs';
import { CALLS, MESSAGES } from './protocol.mjs';
import { WorkerBackend, rebuildError } from './worker-backend.mjs';
import { hasRelaxedSimd, hasSimd, isThreaded, kernelsOf, simdVariant, singleThreaded } from './variants.mjs';
import { ArgumentRangeError, ArgumentTypeError } from './errors.mjs';

// The engine's own scripts, as literal new URL('…', import.meta.url) like the
// builds' in files.mjs: bundlers (Vite, webpack 5, Rollup's import-meta-assets)
// find, copy and rename them. Made when called: without import.meta (esbuild's
// iife) this throws, and locateFile must say where the files are.
function engineScriptUrls() {
  return {
    'engine-worker.js': new URL('./engine-worker.js', import.meta.url),
    'engine-host.js': new URL('./engine-host.js', import.meta.url),
  };
}

export { SIMD_PROBE, hasSimd } from './variants.mjs';

export function hasThreads() {
  return globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
}

function chooseVariant(opts) {
  const simd = hasSimd();
  const threads = hasThreads();
  if (opts.variant && isThreaded(opts.variant) && !threads)
    throw new ArgumentRangeError(
      `variant: "${opts.variant}" needs a cross-origin-isolated page (headers Cross-Origin-Opener-Policy: same-origin ` +
        'and Cross-Origin-Embedder-Policy: require-corp); this page is not. ' +
        `Leave variant out to fall back to "${singleThreaded(opts.variant)}".`,
    );
  if (opts.variant && opts.variant !== 'scalar' && !simd)
    throw new ArgumentRangeError(
      `variant: "${opts.variant}" needs WebAssembly SIMD, which this browser lacks; use "scalar" or leave variant out`,
    );
  if (opts.variant && kernelsOf(opts.variant) === 'relaxed-simd' && !hasRelaxedSimd())
    throw new ArgumentRangeError(
      `variant: "${opts.variant}" needs WebAssembly relaxed SIMD, which this browser lacks ` +
        '(Chrome ≥ 114 and Firefox ≥ 145 have it, Safari does not); leave variant out for the SIMD128 builds',
    );
  if (opts.variant) return opts.variant;
  // The relaxed builds where the browser validates their probe (Chrome ≥ 114,
  // Firefox ≥ 145), the SIMD128 builds elsewhere (Safari).
  if (simd && threads && opts.threads !== 1) return simdVariant(true);
  if (opts.threads > 1)
    console.warn(
      `mha-wasm: ${opts.threads} threads asked for, but this page is not cross-origin isolated ` +
        '(COOP/COEP headers); running on one thread.',
    );
  return simd ? simdVariant(false) : 'scalar';
}

// The Web Worker as WorkerBackend takes it.
function webWorkerPort(worker) {
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen(onMessage, onError) {
      worker.onmessage = ({ data }) => onMessage(data);
      worker.onerror = (event) => onError(event.message);
    },
    terminate: () => worker.terminate(),
  };
}

// Bundlers inline small files as data: URLs (Vite does so below 4 KB, which
// catches the pthread worker script). A worker started from a data: URL has an
// opaque origin and cannot share the page's memory, so such files are turned
// into same-origin blob: URLs.
function workerSafeUrl(url) {
  if (!url.startsWith('data:')) return url;
  const comma = url.indexOf(',');
  const body = url.slice(comma + 1);
  const text = url.slice(0, comma).endsWith(';base64')
    ? Uint8Array.from(atob(body), (c) => c.charCodeAt(0))
    : decodeURIComponent(body);
  return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}

// The page's base, against which a relative URL from locateFile is read
// (inside the worker it would be read against the worker's own URL).
function pageBase() {
  return globalThis.document?.baseURI ?? globalThis.location?.href;
}

/**
 * Where each file the engine loads is (the engine worker and host scripts, the
 * build's glue, .wasm and pthread worker script): one function, fileName →
 * absolute URL. `locateFile(fileName, defaultUrl)` decides when given;
 * defaultUrl is where the package's own layout puts the file, or undefined in
 * a bundle without import.meta.url.
 */
function fileLocator(locateFile, defaults) {
  let known;
  let failure;
  try {
    known = Object.fromEntries(Object.entries(defaults()).map(([fileName, url]) => [fileName, url.href]));
  } catch (error) {
    known = {};
    failure = error; // import.meta.url is not a URL here
  }
  return (fileName) => {
    const defaultUrl = known[fileName];
    if (!locateFile && defaultUrl === undefined)
      throw new Error(
        `mha-wasm: cannot tell where ${fileName} is: import.meta.url is not available where mha-wasm was bundled ` +
          `(${failure?.message ?? 'no default URL'}). Copy the package's files (dist/mha-*.js, dist/mha-*.wasm, ` +
          'src/js/engine-worker.js, src/js/engine-host.js) to your server and pass createAttention({ locateFile: ' +
          "(fileName) => 'mha-wasm/' + fileName }) with the URL of each.",
      );
    const url = locateFile ? locateFile(fileName, defaultUrl) : defaultUrl;
    if (typeof url !== 'string' && !(url instanceof URL))
      throw new ArgumentTypeError(
        `locateFile: expected a URL (string or URL) for ${fileName}, got ${url === null ? 'null' : typeof url}`,
      );
    return workerSafeUrl(new URL(String(url), pageBase()).href);
  };
}

// A Worker must come from the page's origin (or blob:); a script elsewhere (a
// CDN, through locateFile) is started by a same-origin blob that imports it.
function sameOriginWorkerUrl(url) {
  if (new URL(url).origin === globalThis.location?.origin) return url;
  return URL.createObjectURL(new Blob([`importScripts(${JSON.stringify(url)});`], { type: 'text/javascript' }));
}

// A checkpoint's tokenizer in a Worker of its own (dist/mha-model-tokenizer.js
// at `url`), as models/tokenizers/bounded-host.mjs takes it: a tokenizer that
// runs away is terminated there, and the page's thread never runs it.
function tokenizerWorkerPort(url) {
  const worker = new Worker(sameOriginWorkerUrl(url), { name: 'mha-wasm-tokenizer' });
  return {
    post: (message) => worker.postMessage(message),
    listen(onMessage, onError) {
      worker.onmessage = ({ data }) => onMessage(data);
      worker.onerror = (event) => {
        event.preventDefault(); // reported by the call that waits, not as the page's uncaught error
        onError({
          message:
            event.message ||
            `could not start it from ${url}; if a bundler moved ${new URL(url).pathname.split('/').pop()}, ` +
              'pass createAttention({ locateFile }) with its URL',
        });
      };
    },
    terminate: () => worker.terminate(),
  };
}

function startWorker(workerUrl, init) {
  let worker;
  try {
    worker = new Worker(sameOriginWorkerUrl(workerUrl), { name: 'mha-wasm-engine' });
  } catch (error) {
    throw new Error(`mha-wasm: could not start the engine worker from ${workerUrl} (${error.message})`);
  }
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => {
      if (data.type === MESSAGES.ready) resolve({ worker, threads: data.threads, limits: data.limits });
      else {
        worker.terminate();
        reject(rebuildError(data.error ?? { message: 'mha-wasm: the engine worker did not start' }));
      }
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(
        new Error(
          `mha-wasm: could not start the engine worker from ${workerUrl} (${event.message ?? 'not found?'}); ` +
            'if a bundler moved it, pass createAttention({ locateFile }) with the URL of engine-worker.js',
        ),
      );
    };
    worker.postMessage({ type: MESSAGES.init, ...init, calls: Object.values(CALLS), messages: MESSAGES });
  });
}

/**
 * Loads the engine from the builds `buildUrls()` lists (files.mjs's
 * inferenceUrls, or train-files.mjs's trainUrls for 'mha-wasm/train'). What
 * an entry adds: `createTrainer` (attention-trainer.mjs, from
 * 'mha-wasm/train'); `models`: { urls, loadModel, openNamed, tokenizer: {
 * fileName, url, host }, prefetch } (model-files.mjs's modelUrls and tokenizer
 * worker, models/sources/hub-browser.mjs, and models/load.mjs and
 * models/tokenizers/bounded-host.mjs, which are imported when first needed
 * and whose imports prefetch() starts, from 'mha-wasm/model'), with which its
 * loadModel() starts the model build and each model's tokenizer. Not part of
 * the API: createAttention here, in train.mjs and in model-entry.mjs.
 */
export async function loadEngine(opts, family, buildUrls, { createTrainer, models } = {}) {
  const variant = chooseVariant(opts);
  const threads = isThreaded(variant) ? (opts.threads ?? Math.min(MAX_THREADS, navigator.hardwareConcurrency || 1)) : 1;
  const names = variantFiles(variant, family);
  const locate = fileLocator(opts.locateFile, () => {
    const build = buildUrls()[variant];
    const urls = engineScriptUrls();
    for (const [role, fileName] of Object.entries(names)) urls[fileName] = build[role];
    if (models) urls[models.tokenizer.fileName] = models.tokenizer.url();
    return urls;
  });
  // Every file is located before the worker starts, so that a missing URL is
  // reported here. Emscripten asks the worker's locateFile for the canonical
  // names (mha-simd.wasm, ...): byName maps each to its URL.
  const workerUrl = locate('engine-worker.js');
  const host = locate('engine-host.js');
  const byName = Object.fromEntries(Object.values(names).map((fileName) => [fileName, locate(fileName)]));
  const {
    worker,
    threads: started,
    limits,
  } = await startWorker(workerUrl, {
    urls: { host, glue: byName[names.glue], wasm: byName[names.wasm], byName },
    threads,
    poolSize: moduleOptions(threads).mhaPoolSize,
    wasmBinary: opts.wasmBinary,
    build: { kernels: kernelsOf(variant), wasm: names.wasm },
  });
  // Models run in the model build, on the same variant and threads, in a
  // Worker of their own.
  const openModels = async () => {
    if (!models)
      throw new ArgumentTypeError(
        "loadModel: 'mha-wasm' loads only the attention builds; for models, " +
          "import { createAttention } from 'mha-wasm/model' (the same engine, with loadModel)",
      );
    // The loader's modules (model-entry.mjs imports them once its engine has started), if not in yet: beside the build.
    models.prefetch?.().catch(() => {});
    return loadEngine({ ...opts, variant, threads: started, wasmBinary: undefined }, 'model', models.urls, { models });
  };
  // Located when a model's tokenizer first needs its worker (an app that loads no model never asks).
  const tokenizerHost =
    models &&
    ((json, config, file) =>
      models.tokenizer.host(() => tokenizerWorkerPort(locate(models.tokenizer.fileName)), json, config, file));
  return new AttentionEngine(new WorkerBackend(webWorkerPort(worker)), variant, started, family, limits, {
    openModels,
    createTrainer,
    loadModel: models?.loadModel,
    openNamed: models?.openNamed,
    tokenizerHost,
  });
}

/** Refuses `training: true` in an entry (`entry`) that loads no trainer build. Not part of the API. */
export function refuseTraining(opts, entry) {
  if (opts.training === true)
    throw new ArgumentTypeError(
      `training: '${entry}' loads only the builds without the trainer; for createTrainer(), ` +
        "import { createAttention } from 'mha-wasm/train' and call createAttention({ training: true })",
    );
}

/**
 * Loads the wasm engine into a dedicated Worker. Default variant: "threaded-relaxed-simd"
 * in a cross-origin-isolated page whose browser validates variants.mjs's relaxed-SIMD
 * probe, "threaded-simd" if it does not; without isolation "relaxed-simd" or "simd";
 * without SIMD "scalar". The attention
 * builds only: `training: true` needs createAttention from 'mha-wasm/train',
 * engine.loadModel() createAttention from 'mha-wasm/model'.
 */
export async function createAttention(options) {
  const opts = checkOptions(options);
  refuseTraining(opts, 'mha-wasm');
  return loadEngine(opts, 'inference', inferenceUrls);
}

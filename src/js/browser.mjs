// Browser (and bundler) entry point. The engine runs in a dedicated Worker
// (engine-worker.js); this side checks arguments, picks the build, and turns
// messages back into Promises. Threads need a cross-origin-isolated page
// (COOP + COEP headers); without it the single-thread SIMD build is used.
import { AttentionEngine, checkOptions, moduleOptions, MAX_THREADS } from './engine.mjs';
import { DIST_URLS, variantFiles } from './files.mjs';
import { CALLS, MESSAGES } from './protocol.mjs';

// Every file as a literal new URL(..., import.meta.url) (this one, and the
// builds' in files.mjs): bundlers (Vite, webpack 5) see them, copy them and
// rewrite the URLs.
const HOST = new URL('./engine-host.js', import.meta.url);
export const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

export function hasSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

export function hasThreads() {
  return globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function';
}

function chooseVariant(opts) {
  const simd = hasSimd();
  const threads = hasThreads();
  if (opts.variant === 'threaded-simd' && !threads)
    throw new RangeError(
      'variant: "threaded-simd" needs a cross-origin-isolated page (headers Cross-Origin-Opener-Policy: same-origin ' +
        'and Cross-Origin-Embedder-Policy: require-corp); this page is not. Leave variant out to fall back to "simd".',
    );
  if (opts.variant && opts.variant !== 'scalar' && !simd)
    throw new RangeError(
      `variant: "${opts.variant}" needs WebAssembly SIMD, which this browser lacks; use "scalar" or leave variant out`,
    );
  if (opts.variant) return opts.variant;
  if (simd && threads && opts.threads !== 1) return 'threaded-simd';
  if (opts.threads > 1)
    console.warn(
      `mha-wasm: ${opts.threads} threads asked for, but this page is not cross-origin isolated ` +
        '(COOP/COEP headers); running on one thread.',
    );
  return simd ? 'simd' : 'scalar';
}

class WorkerBackend {
  #worker;
  #pending = new Map();
  #nextId = 0;

  constructor(worker) {
    this.#worker = worker;
    worker.onmessage = ({ data }) => {
      const pending = this.#pending.get(data.id);
      if (!pending) return;
      this.#pending.delete(data.id);
      if (data.error) pending.reject(rebuildError(data.error));
      else pending.resolve(data.result);
    };
    worker.onerror = (event) =>
      this.#failAll(new Error(`mha-wasm: the engine worker failed: ${event.message ?? 'unknown error'}`));
  }

  // The worker handles one message at a time, so calls run in order, never mixed.
  call(method, args) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ type: MESSAGES.call, id, method, args });
    });
  }

  dispose() {
    this.#worker.terminate(); // ends the engine and its nested pthread workers
    this.#failAll(new Error('mha-wasm: this engine was disposed during the call'));
  }

  #failAll(error) {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}

function rebuildError({ name, message }) {
  const Type = { TypeError, RangeError }[name] ?? Error;
  return new Type(message);
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

function startWorker(init) {
  const worker = new Worker(new URL('./engine-worker.js', import.meta.url), { name: 'mha-wasm-engine' });
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
        new Error(`mha-wasm: could not start the engine worker (${event.message ?? 'engine-worker.js not found?'})`),
      );
    };
    worker.postMessage({ type: MESSAGES.init, ...init, calls: Object.values(CALLS), messages: MESSAGES });
  });
}

/**
 * Loads the wasm engine into a dedicated Worker. Default variant: "threaded-simd"
 * in a cross-origin-isolated page, else "simd", else "scalar".
 */
export async function createAttention(options) {
  const opts = checkOptions(options);
  const variant = chooseVariant(opts);
  const threads =
    variant === 'threaded-simd' ? (opts.threads ?? Math.min(MAX_THREADS, navigator.hardwareConcurrency || 1)) : 1;
  // Emscripten asks locateFile for the canonical names (mha-simd.wasm, ...);
  // map each to its URL here, which a bundler may have renamed.
  const training = opts.training === true;
  const names = variantFiles(variant, training);
  const byName = {};
  for (const [role, fileName] of Object.entries(names)) {
    const defaultUrl = DIST_URLS[training ? 'train' : 'inference'][variant][role].href;
    byName[fileName] = workerSafeUrl(String(opts.locateFile ? opts.locateFile(fileName, defaultUrl) : defaultUrl));
  }
  const {
    worker,
    threads: started,
    limits,
  } = await startWorker({
    urls: {
      host: workerSafeUrl(String(opts.locateFile ? opts.locateFile('engine-host.js', HOST.href) : HOST.href)),
      glue: byName[names.glue],
      wasm: byName[names.wasm],
      byName,
    },
    threads,
    poolSize: moduleOptions(threads).mhaPoolSize,
    wasmBinary: opts.wasmBinary,
  });
  return new AttentionEngine(new WorkerBackend(worker), variant, started, training, limits);
}

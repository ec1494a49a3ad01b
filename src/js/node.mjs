// Node entry point (import). The wasm glue is a classic factory script loaded
// with require. The .wasm bytes are read here and passed as wasmBinary: that
// also avoids Emscripten 3.1.6's loader tripping over Node >= 18's global
// fetch ("Failed to parse URL"). The engine runs on the calling thread; the
// threaded build's pool runs on worker_threads.
import { createRequire } from 'node:module';
import { access, readFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { AttentionEngine, checkOptions, moduleOptions, MAX_THREADS } from './engine.mjs';
import { DIST_URLS, variantFiles } from './files.mjs';
import { CALLS } from './protocol.mjs';

const require = createRequire(import.meta.url);
const EngineHost = require('./engine-host.js');

function toPath(url) {
  const s = String(url);
  return s.startsWith('file:') ? fileURLToPath(s) : s;
}

// The engine on this thread: calls run synchronously inside the returned Promise.
class DirectBackend {
  constructor(host) {
    this.host = host;
  }

  async call(method, args) {
    return this.host.call(method, args);
  }

  dispose() {
    forgotten.unregister(this);
    this.host.dispose();
  }
}

// Frees the module of an engine that was garbage-collected undisposed.
const forgotten = new FinalizationRegistry((host) => host.dispose());

/**
 * Loads and instantiates the wasm engine. Defaults: variant "threaded-simd",
 * threads = os.availableParallelism() (at most 16).
 */
export async function createAttention(options) {
  const opts = checkOptions(options);
  const variant = opts.variant ?? (opts.threads === 1 ? 'simd' : 'threaded-simd');
  const threads = variant === 'threaded-simd' ? (opts.threads ?? Math.min(MAX_THREADS, os.availableParallelism())) : 1;
  const training = opts.training === true;
  const files = variantFiles(variant, training);
  const urls = DIST_URLS[training ? 'train' : 'inference'][variant];
  const byName = Object.fromEntries(Object.entries(files).map(([role, fileName]) => [fileName, urls[role].href]));
  const locate = (fileName) => {
    const defaultUrl = byName[fileName] ?? new URL(fileName, urls.glue).href;
    return toPath(opts.locateFile ? opts.locateFile(fileName, defaultUrl) : defaultUrl);
  };
  // Everything the build needs is checked before any thread starts: a
  // start-up that fails half-way must not leave workers keeping Node alive.
  const where = (fileName) => `${fileName} (${locate(fileName)})`;
  for (const fileName of Object.values(files))
    if (fileName !== files.wasm || !opts.wasmBinary)
      await access(locate(fileName)).catch(() => {
        const fix = opts.locateFile ? 'check what locateFile returns for it' : 'run `npm run build`';
        throw new Error(`mha-wasm: the ${variant} build's file ${where(fileName)} is missing; ${fix}`);
      });
  let factory;
  try {
    factory = require(locate(files.glue));
  } catch (error) {
    throw new Error(`mha-wasm: could not load ${where(files.glue)}: ${error.message}`);
  }
  const wasmBinary = opts.wasmBinary ?? (await readFile(locate(files.wasm)));
  if (!WebAssembly.validate(wasmBinary))
    throw new TypeError(
      `wasmBinary: expected the bytes of ${files.wasm}, got ${wasmBinary.byteLength} bytes that are not a WebAssembly module`,
    );
  const moduleArgs = { ...moduleOptions(threads), wasmBinary, locateFile: locate };
  let module;
  try {
    module = await factory(moduleArgs);
  } catch (error) {
    moduleArgs.PThread?.terminateAllThreads();
    const cause = String(error?.message ?? error).replace(/ Build with -s ASSERTIONS=1 for more info\.$/, '');
    throw new Error(
      `mha-wasm: could not start the ${variant} build (is wasmBinary the bytes of ${files.wasm}?): ${cause}`,
    );
  }
  const host = new EngineHost(module, threads, Object.values(CALLS));
  // The pool's threads (worker_threads, started by the engine above) must not
  // keep Node alive: a call runs synchronously on this thread, which waits
  // for them itself, so between calls nothing is left for them to report.
  for (const worker of [...(module.PThread?.runningWorkers ?? []), ...(module.PThread?.unusedWorkers ?? [])])
    worker.unref();
  const backend = new DirectBackend(host);
  const engine = new AttentionEngine(backend, variant, threads, training, host.limits());
  // An engine that becomes unreachable without dispose() is freed all the same.
  forgotten.register(engine, host, backend);
  return engine;
}

// Loads a wasm build in Node and returns its EngineHost, on whichever thread
// calls it: the caller's (node.mjs, the default) or a worker_threads Worker
// (node-worker.mjs, createAttention({ worker: true })). The glue is a classic
// factory script loaded with require; the .wasm bytes are read here and passed
// as wasmBinary, which also avoids Emscripten 3.1.6's loader tripping over
// Node >= 18's global fetch ("Failed to parse URL").
import { createRequire } from 'node:module';
import { access, readFile } from 'node:fs/promises';
import { moduleOptions } from './engine.mjs';
import { CALLS } from './protocol.mjs';
import { kernelsOf } from './variants.mjs';
import { ArgumentTypeError } from './errors.mjs';

const require = createRequire(import.meta.url);
const EngineHost = require('./engine-host.js');

/**
 * plan: { variant, threads, files: { glue, wasm, worker? }, paths: { [fileName]: path },
 * locateFile: whether the caller chose the paths }; wasmBinary: the caller's bytes or undefined.
 */
export async function loadHost({ variant, threads, files, paths, locateFile }, wasmBinary) {
  // Everything the build needs is checked before any thread starts: a
  // start-up that fails half-way must not leave workers keeping Node alive.
  const locate = (fileName) => paths[fileName] ?? fileName;
  const where = (fileName) => `${fileName} (${locate(fileName)})`;
  for (const fileName of Object.values(files))
    if (fileName !== files.wasm || !wasmBinary)
      await access(locate(fileName)).catch(() => {
        const fix = locateFile ? 'check what locateFile returns for it' : 'run `npm run build`';
        throw new Error(`mha-wasm: the ${variant} build's file ${where(fileName)} is missing; ${fix}`);
      });
  let factory;
  try {
    factory = require(locate(files.glue));
  } catch (error) {
    throw new Error(`mha-wasm: could not load ${where(files.glue)}: ${error.message}`);
  }
  const bytes = wasmBinary ?? (await readFile(locate(files.wasm)));
  if (!WebAssembly.validate(bytes))
    throw new ArgumentTypeError(
      `wasmBinary: expected the bytes of ${files.wasm}, got ${bytes.byteLength} bytes that are not a WebAssembly module`,
    );
  const moduleArgs = { ...moduleOptions(threads), wasmBinary: bytes, locateFile: locate };
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
  let host;
  try {
    host = new EngineHost(module, threads, Object.values(CALLS), { kernels: kernelsOf(variant), wasm: files.wasm });
  } catch (error) {
    module.PThread?.terminateAllThreads();
    throw error;
  }
  // The pool's threads (worker_threads, started by the engine above) must not
  // keep Node alive: a call runs synchronously on the thread that made it,
  // which waits for them itself, so between calls they have nothing to report.
  for (const worker of [...(module.PThread?.runningWorkers ?? []), ...(module.PThread?.unusedWorkers ?? [])])
    worker.unref();
  return host;
}

export { EngineHost };

/**
 * The options a worker_threads Worker of this package starts with: the
 * process's, less --input-type (valid only for the main script given with
 * -e, an error in a Worker) and V8's WebAssembly flags
 * (--experimental-wasm-relaxed-simd), which a Worker refuses and needs not:
 * they hold for every thread of the process.
 */
export function workerExecArgv() {
  return process.execArgv.filter(
    (option) => !option.startsWith('--input-type') && !option.startsWith('--experimental-wasm-'),
  );
}

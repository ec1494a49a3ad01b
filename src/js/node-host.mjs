// Loads a wasm build in Node and returns its EngineHost, on whichever thread
// calls it: the caller's (node.mjs, the default) or a worker_threads Worker
// (node-worker.mjs, createAttention({ worker: true })). The glue is a classic
// factory script loaded with require; the .wasm bytes are read here and passed
// as wasmBinary, so that bytes that are not WebAssembly are refused by name
// before the glue starts any thread.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { access, readFile } from 'node:fs/promises';
import { moduleOptions } from './engine.mjs';
import { CALLS } from './protocol.mjs';
import { kernelsOf } from './variants.mjs';
import { ArgumentTypeError } from './errors.mjs';

const require = createRequire(import.meta.url);
const EngineHost = require('./engine-host.js');

/**
 * plan: { variant, threads, files: { glue, wasm }, paths: { [fileName]: path },
 * locateFile: whether the caller chose the paths }; wasmBinary: the caller's bytes or undefined.
 */
export async function loadHost({ variant, threads, files, paths, locateFile }, wasmBinary) {
  // Everything the build needs is checked before any thread starts: a
  // start-up that fails half-way must not leave workers behind.
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
  const moduleArgs = { ...moduleOptions(threads), locateFile: locate, instantiateWasm: instantiateOnce(bytes) };
  let module;
  try {
    module = await Promise.race([factory(moduleArgs), moduleArgs.instantiateWasm.failed]);
  } catch (error) {
    moduleArgs.PThread?.terminateAllThreads();
    // A LinkError or CompileError of our own instantiation says its name (the glue's abort wrote it in).
    const named = error instanceof WebAssembly.LinkError || error instanceof WebAssembly.CompileError;
    const message = named ? `${error.name}: ${error.message}` : String(error?.message ?? error);
    const cause = message.replace(/ Build with -s ASSERTIONS=1 for more info\.$/, '');
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
  // The pool's threads (worker_threads) do not keep Node alive: Emscripten
  // unrefs them (tests/js/node-exit.test.mjs).
  return host;
}

export { EngineHost };

/**
 * The glue's instantiateWasm hook for `bytes`: it compiles them once and lets
 * them go. Given as wasmBinary instead, the bytes would stay as long as the
 * glue's context does, and Emscripten 3.1.69's threaded glue keeps that
 * context past dispose (a pending Atomics.waitAsync on the main thread's
 * mailbox, which nothing resolves): about 133 KB per disposed threaded engine
 * (tests/js/hardening-memory.test.mjs). `failed` rejects when they do not
 * instantiate (the glue, with a hook, would wait for ever).
 */
function instantiateOnce(bytes) {
  let source = bytes;
  let fail;
  const failed = new Promise((_, reject) => (fail = reject));
  const hook = (imports, receiveInstance) => {
    const wire = source;
    source = null;
    WebAssembly.instantiate(wire, imports).then(({ instance, module }) => receiveInstance(instance, module), fail);
    return {}; // the exports come through receiveInstance
  };
  hook.failed = failed;
  return hook;
}

const isInputType = (option) => option.startsWith('--input-type');
let explicitExecArgv;

/**
 * The execArgv a worker_threads Worker of this package starts with:
 * undefined, the process's own options as Node passes them on (V8's and the
 * process's among them: --max-old-space-size, --stack-size, --title,
 * --experimental-wasm-relaxed-simd hold for every thread, and a Worker
 * refuses them given explicitly) — unless the process was started with
 * --input-type (valid only for a main script given with -e; an error in a
 * Worker started from a file): then its options without it and without those
 * a Worker refuses, as Node's own constructor says of each (once a process).
 */
export function workerExecArgv() {
  if (!process.execArgv.some(isInputType)) return undefined;
  explicitExecArgv ??= acceptedByWorkers(process.execArgv.filter((o) => !isInputType(o)));
  return explicitExecArgv;
}

// `options` less those a Worker refuses: the whole list tried first, then each
// option with its value (a following argument that is not an option).
function acceptedByWorkers(options) {
  const accepted = (list) => {
    try {
      new Worker('', { eval: true, execArgv: list }).terminate();
      return true;
    } catch (error) {
      if (error?.code === 'ERR_WORKER_INVALID_EXEC_ARGV') return false;
      throw error;
    }
  };
  if (accepted(options)) return options;
  const groups = [];
  for (const option of options)
    if (option.startsWith('-') || !groups.length) groups.push([option]);
    else groups.at(-1).push(option);
  return groups.filter(accepted).flat();
}

// One engine per build, created once per test file.
import { createAttention } from '../../../src/js/node.mjs';
import { hasRelaxedSimd } from '../../../src/js/variants.mjs';
import { folder } from './checkpoints.mjs';

// The relaxed-SIMD builds where this Node runs them (Node ≥ 22, or Node 20 with
// --experimental-wasm-relaxed-simd, as scripts/test.sh starts Jest), the
// SIMD128 and scalar builds always. MHA_TEST_VARIANTS=a,b keeps those alone.
const ALL = {
  ...(hasRelaxedSimd()
    ? {
        'threaded-relaxed-simd': { variant: 'threaded-relaxed-simd', threads: 2 },
        'relaxed-simd': { variant: 'relaxed-simd' },
      }
    : {}),
  'threaded-simd': { variant: 'threaded-simd', threads: 2 },
  simd: { variant: 'simd' },
  scalar: { variant: 'scalar' },
};
const only = process.env.MHA_TEST_VARIANTS?.split(',');
for (const variant of only ?? [])
  if (!(variant in ALL)) throw new Error(`MHA_TEST_VARIANTS: ${variant} is not a build this Node runs`);

/**
 * This Node's WebAssembly flags (Node 20: --experimental-wasm-relaxed-simd, as
 * scripts/test.sh starts Jest): what a child Node needs to run BUILDS.
 */
export const WASM_FLAGS = process.execArgv.filter((option) => option.startsWith('--experimental-wasm-'));

/** Every build this Node runs (or those MHA_TEST_VARIANTS names), with the createAttention options that select it (2 threads: this machine's cores). */
export const BUILDS = Object.fromEntries(Object.entries(ALL).filter(([variant]) => !only || only.includes(variant)));
export const VARIANTS = Object.keys(BUILDS);

/**
 * One build of each kind of wasm memory (those of BUILDS): the one-thread SIMD build (an ArrayBuffer that growth
 * replaces) and the first threaded build (a SharedArrayBuffer shared with its pthreads). For the suites whose
 * subject is what the engine does with its inputs and its memory (refusals, hostile files and callers, leaks,
 * growth), not its kernels: the builds differ there only by their memory and threads, so two of them show what
 * five would, and the suites that compare numbers with references keep every build.
 */
export const MEMORY_BUILDS = Object.fromEntries(
  [
    VARIANTS.find((v) => v === 'simd') ?? VARIANTS.find((v) => !BUILDS[v].threads),
    VARIANTS.find((v) => BUILDS[v].threads),
  ]
    .filter(Boolean)
    .map((variant) => [variant, BUILDS[variant]]),
);
export const MEMORY_VARIANTS = Object.keys(MEMORY_BUILDS);

/**
 * Every build of BUILDS but threaded-simd, for the suites that compare a model's numbers with references and also
 * compare simd on one thread with threaded-simd on three bit for bit (ONE_AND_THREE_THREADS): there, threaded-simd's
 * results are simd's bits, and its reference comparison showed nothing more. (threaded-simd stays where simd is
 * not in BUILDS.)
 */
export const REFERENCE_VARIANTS = VARIANTS.filter((v) => v !== 'threaded-simd' || !VARIANTS.includes('simd'));

/** Creates an engine of each of `variants` (default: BUILDS); with `training`, of the builds with the trainer. */
export async function createEngines({ training = false, variants = VARIANTS } = {}) {
  const engines = {};
  for (const variant of variants) engines[variant] = await createAttention({ ...BUILDS[variant], training });
  return engines;
}

export function disposeEngines(engines) {
  for (const engine of Object.values(engines ?? {})) engine.dispose();
}

/** Engines whose results must be the same bits: the SIMD build on this thread, and on 3 threads (more than this machine's 2 cores). */
export const ONE_AND_THREE_THREADS = { one: { variant: 'simd' }, three: { variant: 'threaded-simd', threads: 3 } };
/** Engines whose results must be the same bits: the SIMD build on this thread, and in a Worker. */
export const HERE_AND_IN_A_WORKER = { here: { variant: 'simd' }, worker: { variant: 'simd', worker: true } };

/** Creates an engine of each of `options` ({ key: createAttention's options }): { key: engine }. */
async function createEach(options) {
  const engines = await Promise.all(Object.values(options).map((o) => createAttention(o)));
  return Object.fromEntries(Object.keys(options).map((key, i) => [key, engines[i]]));
}

/**
 * Engines for the tests of the enclosing describe or file: `options` maps a key to createAttention's options;
 * returns { key: engine }, filled before the tests run, the engines disposed after them.
 */
export function enginesForTests(options) {
  const engines = {};
  beforeAll(async () => Object.assign(engines, await createEach(options)));
  afterAll(() => disposeEngines(engines));
  return engines;
}

/**
 * For each fixture folder of `names` (tests/fixtures/models), its model loaded on a new engine of each of
 * `options` ({ key: createAttention's options }): awaits check(name, models), the models in the order of
 * `options`, and disposes them; the engines are disposed even when a check fails.
 */
export async function onEachEngine(options, names, check) {
  const engines = await createEach(options);
  try {
    for (const name of names) {
      const models = await Promise.all(Object.values(engines).map((engine) => engine.loadModel(folder(name))));
      await check(name, models);
      for (const model of models) model.dispose();
    }
  } finally {
    disposeEngines(engines);
  }
}

/**
 * Models of fixture folders on one engine of `options`, for the tests of the enclosing describe: `folders` maps a
 * key to a folder name (tests/fixtures/models); returns { key: model }, filled before the tests run. The engine is
 * disposed after them.
 */
export function modelsForTests(folders, options = { variant: 'simd' }) {
  const models = {};
  let engine;
  beforeAll(async () => {
    engine = await createAttention(options);
    const loaded = await Promise.all(Object.values(folders).map((name) => engine.loadModel(folder(name))));
    Object.keys(folders).forEach((key, i) => (models[key] = loaded[i]));
  });
  afterAll(() => engine?.dispose());
  return models;
}

/** That `promise` rejects with an argument error: an instance of `type`, code InvalidArgument, a message matching `message`. */
export async function expectRefused(promise, type, message) {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(type);
  expect(error.code).toBe('InvalidArgument');
  expect(error.message).toMatch(message);
}

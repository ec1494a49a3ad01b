// One engine per build, created once per test file.
import { createAttention } from '../../../src/js/node.mjs';
import { hasRelaxedSimd } from '../../../src/js/variants.mjs';

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

/** Creates an engine of each of BUILDS; with `training`, of the builds with the trainer. */
export async function createEngines({ training = false } = {}) {
  const engines = {};
  for (const variant of VARIANTS) engines[variant] = await createAttention({ ...BUILDS[variant], training });
  return engines;
}

export function disposeEngines(engines) {
  for (const engine of Object.values(engines ?? {})) engine.dispose();
}

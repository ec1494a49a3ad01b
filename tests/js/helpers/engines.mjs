// One engine per build, created once per test file.
import { createAttention } from '../../../src/js/node.mjs';

/** Every build, with the createAttention options that select it (2 threads: this machine's cores). */
export const BUILDS = {
  'threaded-simd': { variant: 'threaded-simd', threads: 2 },
  simd: { variant: 'simd' },
  scalar: { variant: 'scalar' },
};
export const VARIANTS = Object.keys(BUILDS);

/** Creates { 'threaded-simd', simd, scalar } engines; with `training`, of the builds with the trainer. */
export async function createEngines({ training = false } = {}) {
  const engines = {};
  for (const variant of VARIANTS) engines[variant] = await createAttention({ ...BUILDS[variant], training });
  return engines;
}

export function disposeEngines(engines) {
  for (const engine of Object.values(engines ?? {})) engine.dispose();
}

// What each build is (files.mjs VARIANTS) and which of them this host can
// run, for both entries' choice of a build (node.mjs, browser.mjs). The
// relaxed-SIMD builds are separate binaries because a host without relaxed
// SIMD refuses a whole module that holds one relaxed opcode (Safari; Node 20
// without --experimental-wasm-relaxed-simd): a host is offered them only
// when it validates RELAXED_SIMD_PROBE, and every other host keeps the
// SIMD128 builds.

/** The threaded build of each family of kernels, and the single-thread build of each threaded one. */
const SINGLE = { 'threaded-relaxed-simd': 'relaxed-simd', 'threaded-simd': 'simd' };

/** Whether a build runs a pool of threads. */
export const isThreaded = (variant) => variant in SINGLE;

/** The one-thread build with the same kernels (the variant itself if it has no pool). */
export const singleThreaded = (variant) => SINGLE[variant] ?? variant;

/** The kernels a build computes with, as engine.kernels() (the core's Kernels::name) reports them. */
export const kernelsOf = (variant) =>
  variant === 'scalar' ? 'scalar' : variant.includes('relaxed') ? 'relaxed-simd' : 'simd';

/** A module whose one function uses i8x16.popcnt, a late SIMD128 opcode (as wasm-feature-detect checks SIMD). */
export const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/**
 * A module whose one function returns f32x4.relaxed_madd (0xfd 0x85 0x02, the
 * final opcode) of three i8x16.splat(0): what the relaxed builds' GEMM runs.
 */
export const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0, 65, 0, 253, 15, 65, 0, 253, 15, 65,
  0, 253, 15, 253, 133, 2, 11,
]);

function validates(bytes) {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(bytes);
  } catch {
    return false;
  }
}

/** Whether this host runs WebAssembly SIMD128. */
export const hasSimd = () => validates(SIMD_PROBE);

/** Whether this host runs relaxed SIMD (Chrome ≥ 114, Firefox ≥ 145, Node ≥ 22, Node 20 with its flag). */
export const hasRelaxedSimd = () => validates(RELAXED_SIMD_PROBE);

/** The best SIMD build for this host: with relaxed SIMD if it validates the probe; threaded or not. */
export const simdVariant = (threaded) =>
  hasRelaxedSimd() ? (threaded ? 'threaded-relaxed-simd' : 'relaxed-simd') : threaded ? 'threaded-simd' : 'simd';

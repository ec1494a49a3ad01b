// The builds Debian's Chromium runs a page on by default (src/js/browser.mjs
// chooses them because it validates variants.mjs's relaxed-SIMD probe;
// threads.test.mjs checks both the choice and what a browser without relaxed
// SIMD gets). A test that compares the page with Node bit for bit runs Node on
// the same build: Node 20 runs it only when started with
// --experimental-wasm-relaxed-simd, as scripts/test.sh starts Jest.
import { hasRelaxedSimd } from '../../src/js/variants.mjs';

/** The page's build: cross-origin isolated (the demo server's default) and not. */
export const PAGE_BUILD = { isolated: 'threaded-relaxed-simd', plain: 'relaxed-simd' };

/** createAttention options for a Node engine on the page's build (2 threads: this machine's cores). */
export function pageEngineOptions({ isolated = true } = {}) {
  if (!hasRelaxedSimd())
    throw new Error(
      `the page runs ${PAGE_BUILD.isolated} in Chromium, and this Node ${process.version} does not run relaxed SIMD: ` +
        'run the tests with npm test (Node 20: node --experimental-wasm-relaxed-simd node_modules/jest/bin/jest.js)',
    );
  return isolated ? { variant: PAGE_BUILD.isolated, threads: 2 } : { variant: PAGE_BUILD.plain };
}

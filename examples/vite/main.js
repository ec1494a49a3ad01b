// The smallest app that uses the package through a bundler: Vite copies the
// wasm, glue and worker files that src/js/browser.mjs references with
// new URL('…', import.meta.url), and rewrites their URLs.
import { createAttention } from 'mha-wasm';
import { runExample } from '../shared/app.mjs';

runExample(createAttention);

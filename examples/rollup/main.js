// An app that uses the package through Rollup: @web/rollup-plugin-import-meta-assets
// copies the wasm, glue and worker files that the package references with
// new URL('…', import.meta.url), and rewrites their URLs.
import { createAttention } from 'mha-wasm';
import { runExample } from '../shared/app.mjs';

runExample(createAttention);

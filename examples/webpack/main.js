// An app that uses the package through webpack 5: webpack copies the wasm,
// glue and worker files that the package references with
// new URL('…', import.meta.url), and rewrites their URLs. Nothing to configure.
import { createAttention } from 'mha-wasm';
import { runExample } from '../shared/app.mjs';

runExample(createAttention);

// The package's public entries as the page imports them: 'mha-wasm/model'
// (src/js/model-entry.mjs: createAttention with loadModel, listModelFiles,
// parseModelName, pickModelFiles, DEFAULT_HUB_ENDPOINT), 'mha-wasm/train'
// (src/js/train.mjs) and 'mha-wasm/analysis' (src/js/analysis/index.mjs), at
// their repository paths, which the page's server serves as the published
// package lays them out (web/server.mjs). Imported
// when first needed, never statically, so that a missing or broken engine file
// is reported on the page instead of silently stopping the module that imports
// it; the module system loads each once.
export const modelEntry = () => import('../../src/js/model-entry.mjs');
export const trainEntry = () => import('../../src/js/train.mjs');
export const analysisEntry = () => import('../../src/js/analysis/index.mjs');

let pageEngine;
/**
 * The page's engine ('mha-wasm/model' on its default build), created once: early.mjs starts it while the
 * page's own modules are still loading, so that the engine's modules, its worker and its .wasm load beside
 * them rather than after; app.mjs awaits the same promise and reports a failure on the page.
 */
export const startPageEngine = () => (pageEngine ??= modelEntry().then(({ createAttention }) => createAttention()));

// The 'mha-wasm/model' entry in browsers and bundlers: createAttention as in
// 'mha-wasm', whose engine's loadModel() also starts the builds with the
// Transformer models (dist/mha-model-*) when the first model is loaded. Those
// builds' URLs (model-files.mjs), the models' loader (models/) and the
// tokenizers' worker are only in this module's graph, so a bundle carries
// them only when the app imports this entry. The loader's modules (the
// formats, the tokenizers, the model kinds, generation: about fifty) are
// imported once an engine has started, when the thread is next idle (or by
// the first loadModel() or pipeline(), if sooner): not while a page opens and
// starts its engine, nor in the first load's time (in Chromium, a fresh page's
// first load of a 406.7 MB checkpoint waited ~130 ms for them;
// docs/performance.md); a bundler puts them in a chunk of their own. In Node,
// 'mha-wasm/model' is node.mjs, whose engines load models from either entry.
import { checkOptions } from './engine.mjs';
import { inferenceUrls } from './files.mjs';
import { TOKENIZER_WORKER, modelUrls, tokenizerWorkerUrl } from './model-files.mjs';
import { listModelFiles, openNamed } from './models/sources/hub-browser.mjs';
import { loadEngine, refuseTraining } from './browser.mjs';

export { listModelFiles };
export { parseModelName } from './models/sources/repo-files.mjs';
export { pickModelFiles } from './models/checkpoint-files.mjs';
export { DEFAULT_ENDPOINT as DEFAULT_HUB_ENDPOINT } from './models/sources/hub-options.mjs';

// The loader, imported once, when first needed (import() itself loads a module once; a failed import is
// tried again on the next call).
let loader;
const loaderModules = () =>
  (loader ??= Promise.all([import('./models/load.mjs'), import('./models/tokenizers/bounded-host.mjs')]).catch(
    (error) => {
      loader = undefined;
      throw error;
    },
  ));
// Once an engine has started, the loader is imported when the thread is next idle, so that the first
// loadModel() does not wait for it (where there is no requestIdleCallback, a Worker: on the next task).
const whenIdle = (task) =>
  globalThis.requestIdleCallback ? globalThis.requestIdleCallback(task, { timeout: 2000 }) : setTimeout(task, 0);
const loadModel = async (...args) => (await loaderModules())[0].loadModel(...args);
// A checkpoint's tokenizer runs in a Web Worker of its own (dist/mha-model-tokenizer.js), bounded in time.
const tokenizer = {
  fileName: TOKENIZER_WORKER,
  url: tokenizerWorkerUrl,
  host: async (...args) => (await loaderModules())[1].boundedTokenizerHost(...args),
};

/**
 * Loads the wasm engine into a dedicated Worker, as createAttention of
 * 'mha-wasm' does; its loadModel() loads Hugging Face checkpoints.
 */
export async function createAttention(options) {
  const opts = checkOptions(options);
  refuseTraining(opts, 'mha-wasm/model');
  const engine = await loadEngine(opts, 'inference', inferenceUrls, {
    models: { urls: modelUrls, loadModel, openNamed, tokenizer, prefetch: loaderModules },
  });
  whenIdle(() => loaderModules().catch(() => {}));
  return engine;
}

/** pipeline(task, source, options): transformers.js' tasks over a model loaded into a new engine (or options.engine). */
export async function pipeline(...args) {
  const { pipelineOf } = await import('./models/tasks/pipeline.mjs');
  return pipelineOf(createAttention)(...args);
}

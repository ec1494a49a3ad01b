// The 'mha-wasm/train' entry in browsers and bundlers: createAttention as in
// 'mha-wasm', which also loads the builds with the trainer (dist/mha-train-*)
// for createAttention({ training: true }). Those builds' URLs
// (train-files.mjs) and the trainer's JS (attention-trainer.mjs, its checks)
// are only in this module's graph, so a bundle carries them only when the
// app imports this entry. In Node, 'mha-wasm/train' is node.mjs, whose
// createAttention loads either build.
import { checkOptions } from './engine.mjs';
import { inferenceUrls } from './files.mjs';
import { trainUrls } from './train-files.mjs';
import { createTrainer } from './attention-trainer.mjs';
import { loadEngine } from './browser.mjs';

/**
 * Loads the wasm engine into a dedicated Worker, as createAttention of
 * 'mha-wasm' does; with `training: true`, the build that includes the trainer.
 */
export async function createAttention(options) {
  const opts = checkOptions(options);
  const training = opts.training === true;
  return loadEngine(opts, training ? 'train' : 'inference', training ? trainUrls : inferenceUrls, { createTrainer });
}

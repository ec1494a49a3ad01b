// mha-wasm/analysis: which heads a loaded model needs for one input, by
// experiment on its own calls (run, generate), which run in the engine's
// worker or thread as every model call does. Each function takes the model
// (engine.loadModel) and an input as run() takes it, and { signal,
// onProgress }; results are the same on every build and thread count.
export { headImportance } from './importance.mjs';
export { pruningCurve, oneHeadPerLayer } from './pruning.mjs';
export { attentionRollout, rolloutOf } from './rollout.mjs';
export { withHeadsOff } from './ablation.mjs';
export { logitLens } from './lens.mjs';

// Type declarations for 'mha-wasm/model': the API of 'mha-wasm', whose
// engines' loadModel() loads Hugging Face checkpoints in browsers too (in Node,
// every entry's engines load models). Checked by tests/types/example.ts.
export * from './index.js';

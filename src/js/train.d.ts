// Type declarations for 'mha-wasm/train': the API of 'mha-wasm', whose
// createAttention also accepts `training: true` (the build with the trainer,
// for engine.createTrainer()). Checked by tests/types/example.ts.
export * from './index.js';

// Type declarations for mha-wasm. Checked against real use by
// tests/types/example.ts (`tsc --noEmit`, part of `npm test`).
// The declarations live by subject in types/ (errors, engine, attention,
// models, results, generation, tokenizer, chat, training); every name is exported from here.
export * from './types/errors.js';
export * from './types/engine.js';
export * from './types/attention.js';
export * from './types/models.js';
export * from './types/results.js';
export * from './types/generation.js';
export * from './types/tokenizer.js';
export * from './types/chat.js';
export type * from './types/tasks.js';
export * from './types/training.js';

import type { AttentionEngine, CreateAttentionOptions } from './types/engine.js';

/** Loads and instantiates the wasm engine. */
export function createAttention(options?: CreateAttentionOptions): Promise<AttentionEngine>;

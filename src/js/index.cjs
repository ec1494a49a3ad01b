// CommonJS entry point (require('mha-wasm')). createAttention is async anyway,
// so this forwards to the ES module implementation instead of keeping a copy.
'use strict';

exports.createAttention = async function createAttention(options) {
  const { createAttention: create } = await import('./node.mjs');
  return create(options);
};

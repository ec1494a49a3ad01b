// Code that only the trainer's and the models' entries may bring into a
// bundle ('mha-wasm/train', 'mha-wasm/model'): the modules it is in, and
// strings of its code that survive every bundler's minifying (messages and
// names in string literals, not comments), so that a bundle's text can be
// searched for it. Used by tests/js/files.test.mjs (esbuild on the entries)
// and tests/e2e/bundlers.test.mjs (the example recipes' emitted files).
export const ENTRY_CODE = {
  train: {
    modules: [/src\/js\/attention-trainer\.mjs$/, /src\/js\/validate-trainer\.mjs$/],
    markers: ['tags (one per token), got'], // validate-trainer.mjs
  },
  // The tokenizers library itself is not among them: in browsers it runs in the tokenizer's worker,
  // dist/mha-model-tokenizer.js, which the bundle references as a file (TOKENIZER_LIBRARY below).
  model: {
    modules: [/src\/js\/models\//],
    markers: [
      'is in the checkpoint twice', // models/load.mjs
      'this model has positions for', // models/transformer-model.mjs
      'too short for a safetensors file', // models/formats/safetensors.mjs
      'BertPreTokenizer', // models/tokenizers/tokenizer.mjs, and the tokenizers package
    ],
  },
};

/** @huggingface/tokenizers' module and a string of its code: only in the browsers' tokenizer worker. */
export const TOKENIZER_LIBRARY = { module: /@huggingface\/tokenizers\//, marker: 'Unterminated character class' };

/** @huggingface/jinja's module and a string of its code: the chat templates' renderer, also only in that worker. */
export const JINJA_LIBRARY = { module: /@huggingface\/jinja\//, marker: 'Variable already declared' };

/** The markers of `family` ('train' or 'model') found in `code`. */
export const markersIn = (code, family) => ENTRY_CODE[family].markers.filter((marker) => code.includes(marker));

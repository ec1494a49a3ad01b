// A GGUF file's tokenizer (tokenizer.ggml.*) as the files the loader's
// tokenizers read. Not built yet: a GGUF model loads without a tokenizer
// (ids in, ids out) until this module builds its tokenizer.json.

/** { [fileName]: text } of the tokenizer of a GGUF file's metadata (none yet). */
export function ggufTokenizerFiles() {
  return {};
}

// A tokenizer on the calling thread, for tests and tools that want no
// worker: checked and made as in a worker (serve.mjs), but bounded by
// nothing. loadModel never uses it: Node's engines run tokenizers in a
// worker thread (node-host.mjs), browsers' in a Web Worker (bounded-host.mjs).
import { PROBE_TEXT } from './encode.mjs';
import { MarianFiles } from './marian.mjs';
import { checkedRunner, withChat } from './serve.mjs';

/** A host as createTokenizer takes it (`json`: tokenizer.json's object, or a Marian tokenizer's MarianFiles). */
export async function inThreadTokenizerHost(json, config, file) {
  const spec = json instanceof MarianFiles ? { kind: 'marian', files: json.files } : { kind: 'tokenizer.json', json };
  const made = checkedRunner(spec, config, file, await import('@huggingface/tokenizers'));
  const runner = withChat(made.runner, config, file);
  runner.encode(PROBE_TEXT);
  return {
    growth: made.growth,
    render: async (chat) => runner.render(chat),
    encode: async (text, textPair, options) => runner.encode(text, textPair, options),
    decode: async (ids, options) => runner.decode(ids, options),
    dispose() {},
  };
}

// The side of a tokenizer where it runs: checked (check.mjs, with the
// tokenizers library's own regex compiler), made and then asked. Node's
// worker thread (tokenizer-worker.mjs), the browsers' Web Worker
// (web-worker.mjs, bundled with the library into dist/mha-model-tokenizer.js)
// and the calling thread (in-thread-host.mjs) all go through here, so that
// each refuses, and then encodes and decodes, alike. The messages are
// bounded-host.mjs's.
import { checkTokenizerJson } from './check.mjs';
import { ArgumentRangeError } from '../../errors.mjs';
import { makeRunner } from './encode.mjs';
import { renderChat } from './chat-render.mjs';
import { MAX_GROWTH as SENTENCEPIECE_GROWTH } from './sentencepiece.mjs';

// A Marian tokenizer's growth: a UTF-16 unit is at most 3 bytes of UTF-8, each at most
// SENTENCEPIECE_GROWTH bytes out of its normalizer (sentencepiece.mjs refuses more).
const MARIAN_GROWTH = Object.freeze({ encode: { factor: 3 * SENTENCEPIECE_GROWTH, extra: 16 }, decode: null });

/**
 * { runner: { encode, decode }, growth } of `spec` ({ kind: 'tokenizer.json',
 * json } or { kind: 'marian', files }) and tokenizer_config.json's `config`;
 * `library`: @huggingface/tokenizers. Throws an Error naming `file` for a
 * tokenizer.json that check.mjs refuses or the library cannot make.
 */
export function checkedRunner(spec, config, file, library) {
  if (spec.kind === 'marian') return { runner: makeRunner(spec, config), growth: MARIAN_GROWTH };
  const compile = (Regex) => new library.ReplaceNormalizer({ pattern: { Regex }, content: '' }).pattern;
  const growth = checkTokenizerJson(spec.json, file, compile);
  try {
    return { runner: makeRunner(spec, config, library.Tokenizer), growth };
  } catch (error) {
    throw new Error(`${file}: not a tokenizer this package reads (${error?.message ?? error})`);
  }
}

/** `runner` with render(request): the chat template of `config` rendered (chat-render.mjs), `file` in its errors. */
export function withChat(runner, config, file) {
  return { ...runner, render: (request) => renderChat(config, file, request) };
}

/**
 * Serves a tokenizer over `port` ({ post(message), listen(onMessage) }): the
 * first message is { init: { spec, config, file } }, answered { ready: true,
 * growth } or { ready: false, message }; then each { id, method: 'encode' |
 * 'decode' | 'render' (a chat template: chat-render.mjs), … } is answered { id, result } or { id, error, argument } (argument:
 * the caller's argument was out of range, as a truncation's maxLength too short
 * for the special tokens: not the tokenizer's fault).
 */
export function serveTokenizer(port, library) {
  let runner;
  port.listen((message) => {
    if (message.init) {
      const { spec, config, file } = message.init;
      try {
        const made = checkedRunner(spec, config, file, library);
        runner = withChat(made.runner, config, file);
        port.post({ ready: true, growth: made.growth });
      } catch (error) {
        port.post({ ready: false, message: String(error?.message ?? error) });
      }
      return;
    }
    const { id, method, text, textPair, ids, options, chat } = message;
    try {
      const result =
        method === 'render'
          ? runner.render(chat)
          : method === 'decode'
            ? runner.decode(ids, options)
            : runner.encode(text, textPair ?? undefined, options);
      port.post({ id, result });
    } catch (error) {
      port.post({ id, error: String(error?.message ?? error), argument: error instanceof ArgumentRangeError });
    }
  });
}

// Encoding a text and decoding ids as transformers does, with a
// @huggingface/tokenizers Tokenizer (a tokenizer.json) or a Marian tokenizer
// (marian.mjs): shared by the tokenizer on the calling thread and the one in
// a worker (tokenizer-worker.mjs), so that both give the same ids and texts.
import { createMarianTokenizer } from './marian.mjs';

/**
 * encode(text, textPair, { addSpecialTokens }) → { ids, typeIds } of `tokenizer`
 * (made from the JSON `json`).
 */
export function makeEncoder(tokenizer, json) {
  const joinsPairs = !json.post_processor || json.post_processor.type === 'ByteLevel';
  return (text, textPair, { addSpecialTokens = true } = {}) => {
    const options = { add_special_tokens: addSpecialTokens, return_token_type_ids: true };
    if (textPair !== undefined && joinsPairs) {
      // A post-processor that adds nothing (none, or ByteLevel: GPT-2's) joins a pair as A + B in
      // transformers (and Rust tokenizers); @huggingface/tokenizers 0.2 drops B there instead.
      const [a, b] = [tokenizer.encode(text, options), tokenizer.encode(textPair, options)];
      return { ids: [...a.ids, ...b.ids], typeIds: [...a.ids.map(() => 0), ...b.ids.map(() => 1)] };
    }
    const encoding = tokenizer.encode(text, { ...options, text_pair: textPair ?? null });
    return {
      ids: Array.from(encoding.ids),
      typeIds: encoding.token_type_ids ? Array.from(encoding.token_type_ids) : null,
    };
  };
}

/**
 * decode(ids, { skipSpecialTokens }) → text of `tokenizer` (made from a
 * tokenizer.json), with tokenizer_config.json's clean_up_tokenization_spaces
 * (transformers 5 defaults it to false; @huggingface/tokenizers to true).
 */
export function makeDecoder(tokenizer, config) {
  const cleanUp = config?.clean_up_tokenization_spaces === true;
  return (ids, { skipSpecialTokens = false } = {}) =>
    ids.length === 0
      ? '' // which @huggingface/tokenizers refuses
      : tokenizer.decode(Array.from(ids), {
          skip_special_tokens: skipSpecialTokens,
          clean_up_tokenization_spaces: cleanUp,
        });
}

/**
 * The tokenizer a host runs: { encode(text, textPair, options), decode(ids,
 * options) }, of `spec` — { kind: 'tokenizer.json', json } or { kind:
 * 'marian', files } (MarianFiles' files) — and tokenizer_config.json's
 * `config`; `Tokenizer`: @huggingface/tokenizers' class, for a tokenizer.json.
 */
export function makeRunner(spec, config, Tokenizer) {
  if (spec.kind === 'marian') {
    const marian = createMarianTokenizer(spec.files, config);
    return {
      encode: (text, textPair, options) => marian.encode(text, textPair ?? undefined, options),
      decode: (ids, options) => marian.decode(ids, options),
    };
  }
  const tokenizer = new Tokenizer(spec.json, config);
  return { encode: makeEncoder(tokenizer, spec.json), decode: makeDecoder(tokenizer, config) };
}

/** A text every tokenizer is tried on when it is loaded: the page's two languages, digits and punctuation. */
export const PROBE_TEXT =
  '用毒毒毒蛇，毒蛇会不会被毒毒死？ Will a venomous snake be poisoned by venom, if we poison it (2024)?';

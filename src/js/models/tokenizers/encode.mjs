// Encoding a text and decoding ids as transformers does, with a
// @huggingface/tokenizers Tokenizer (a tokenizer.json) or a Marian tokenizer
// (marian.mjs): shared by the tokenizer on the calling thread and the one in
// a worker (tokenizer-worker.mjs), so that both give the same ids and texts.
import { createMarianTokenizer } from './marian.mjs';
import { keptByPython, keptByRust } from './truncation.mjs';

/**
 * encode(text, textPair, { addSpecialTokens, maxLength }) → { ids, typeIds }
 * of `tokenizer` (made from the JSON `json`); maxLength (a number): truncated
 * to it as transformers' truncation=True does (truncation.mjs), the special
 * tokens counted.
 */
export function makeEncoder(tokenizer, json) {
  const joinsPairs = !json.post_processor || json.post_processor.type === 'ByteLevel';
  const whole = (text, textPair, addSpecialTokens) => {
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
  let vocab; // token → id, added tokens included (as encode maps them), made when first truncating
  return (text, textPair, { addSpecialTokens = true, maxLength = null } = {}) => {
    const out = whole(text, textPair, addSpecialTokens);
    if (maxLength === null || out.ids.length <= maxLength) return out;
    // Rust's order: each text's tokens, truncated to leave room for the special tokens, then post-processed.
    const a = tokenizer.tokenize(text);
    const b = textPair === undefined ? null : tokenizer.tokenize(textPair);
    const added = out.ids.length - a.length - (b?.length ?? 0);
    const [keepA, keepB] = keptByRust(a.length, b?.length ?? null, maxLength, added);
    const [ta, tb] = [a.slice(0, keepA), b?.slice(0, keepB) ?? null];
    let tokens = [...ta, ...(tb ?? [])];
    let typeIds = [...ta.map(() => 0), ...(tb ?? []).map(() => 1)];
    if (tokenizer.post_processor && !(tb && joinsPairs)) {
      const processed = tokenizer.post_processor(ta, tb, addSpecialTokens);
      tokens = processed.tokens;
      typeIds = processed.token_type_ids ?? tokens.map(() => 0);
    }
    vocab ??= tokenizer.get_vocab(true);
    return { ids: tokens.map((t) => vocab.get(t)), typeIds: out.typeIds && typeIds };
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
      encode: (text, textPair, { maxLength = null, ...options } = {}) => {
        const out = marian.encode(text, textPair ?? undefined, options);
        if (maxLength === null || out.ids.length <= maxLength) return out;
        // transformers' Python backend: each text's ids truncated, then </s> appended.
        const plain = { ...options, addSpecialTokens: false };
        const a = marian.encode(text, undefined, plain).ids;
        const b = textPair === undefined || textPair === null ? null : marian.encode(textPair, undefined, plain).ids;
        const added = out.ids.length - a.length - (b?.length ?? 0);
        const [keepA, keepB] = keptByPython(a.length, b?.length ?? null, maxLength, added);
        const ids = [...a.slice(0, keepA), ...(b?.slice(0, keepB) ?? []), ...out.ids.slice(out.ids.length - added)];
        return { ids, typeIds: null };
      },
      decode: (ids, options) => marian.decode(ids, options),
    };
  }
  const tokenizer = new Tokenizer(spec.json, config);
  return { encode: makeEncoder(tokenizer, spec.json), decode: makeDecoder(tokenizer, config) };
}

/** A text every tokenizer is tried on when it is loaded: the page's two languages, digits and punctuation. */
export const PROBE_TEXT =
  '用毒毒毒蛇，毒蛇会不会被毒毒死？ Will a venomous snake be poisoned by venom, if we poison it (2024)?';

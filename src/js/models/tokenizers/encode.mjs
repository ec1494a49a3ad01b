// Encoding a text with a @huggingface/tokenizers Tokenizer as transformers
// does: shared by the tokenizer on the calling thread and the one in a
// worker (tokenizer-worker.mjs), so that both give the same ids.

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

/** A text every tokenizer is tried on when it is loaded: the page's two languages, digits and punctuation. */
export const PROBE_TEXT =
  '用毒毒毒蛇，毒蛇会不会被毒毒死？ Will a venomous snake be poisoned by venom, if we poison it (2024)?';

// The text a generation adds, a step at a time: each step's textDelta, so that
// the deltas joined are the whole output decoded minus the decoded prompt (as
// transformers' text-generation pipeline cuts it with return_full_text=False),
// with each step decoding only a few ids. The window is text-generation-
// inference's and vLLM's (decode_token, detokenize_incrementally): the ids from
// a prefix offset (where the last text given out began) are decoded twice, up
// to the read offset and to the end, and the second's new characters are given
// out once they are stable: all but a last run of U+FFFD, which a byte-fallback
// piece (<0xE6>) or a byte-level piece of a character not yet whole decodes to
// (held back until the character is whole, or the output ends). A SentencePiece word's leading space is kept: "▁and" is
// decoded after "▁cat", so Llama's Strip of the first space takes the window's,
// not the word's. transformers' TextStreamer decodes its whole cache at every
// token and gives text out a word at a time; this gives each character as soon
// as it is whole.

// The prompt's ids a stream starts its window with: enough for a decoder to see
// the word and the character the first new id continues.
const PROMPT_CONTEXT = 8;

/**
 * A stream of text deltas over `decode(ids)` → Promise<string> (the tokenizer's
 * decode, special tokens skipped), after the ids of `prompt`. push(outputIds,
 * last) takes the output so far (the prompt first) and resolves to the text
 * its new ids add ('' while a character is not whole); `last`: the output ends
 * here, and everything held back is given out, as decode gives it.
 */
export function textStream(decode, prompt) {
  let prefix = Math.max(0, prompt.length - PROMPT_CONTEXT);
  let read = prompt.length;
  let given = null; // the window's text given out so far, when its last characters are held back
  return {
    async push(outputIds, last = false) {
      const ids = Array.from(outputIds);
      const [before, after] = await Promise.all([
        given ?? (prefix === read ? '' : decode(ids.slice(prefix, read))),
        decode(ids.slice(prefix)),
      ]);
      if (!after.startsWith(before)) {
        if (!last) return ''; // the window's text changed under what was given out: wait for it to settle
        let same = 0; // the end, as decode gives it (no decoder seen does this)
        while (same < before.length && before[same] === after[same]) same++;
        return after.slice(same);
      }
      let stable = after.length;
      if (!last) while (stable > before.length && after[stable - 1] === '\uFFFD') stable--;
      if (stable <= before.length) return '';
      if (stable === after.length) {
        // All of it given out: the next window starts where this one's new ids did.
        [prefix, read, given] = [read, ids.length, null];
      } else given = after.slice(0, stable);
      return after.slice(before.length, stable);
    },
  };
}

/**
 * The text a generation adds to its prompt: outputIds decoded minus the decoded
 * prompt's length (both without special tokens), as the text-generation
 * pipeline gives it with return_full_text=False, so that the prompt's text and
 * this are the whole output's text.
 */
export async function addedText(decode, outputIds, promptLength) {
  const [whole, prompt] = await Promise.all([
    decode(outputIds),
    promptLength ? decode(outputIds.subarray(0, promptLength)) : '',
  ]);
  return whole.slice(prompt.length);
}

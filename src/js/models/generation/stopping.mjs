// When a search stops: transformers' MaxLengthCriteria and EosTokenCriteria,
// the two stopping criteria its generate() builds from a generation config,
// and its StopStringCriteria (stop_strings), over the tokenizer's decode.

/** Whether a sequence of `length` ids ending in `last` is done under settings `s` (settings.mjs). */
export const stops = (s, length, last) => length >= s.maxLength || s.eosTokenIds.includes(last);

/**
 * StopStringCriteria over `decode(ids)` → Promise<string>: a function of a
 * sequence (ids, the prompt first) → Promise<boolean>, whether one of
 * `strings` ends in the text of its last id (it may begin in the ids before,
 * the prompt's too, and the last id's text may run on past it: transformers'
 * "overhangs"); a string the ids before already held does not count. Null
 * for no strings. Each call decodes a window of the last ids (4 per
 * character of the longest string: a character may take 4 byte pieces)
 * twice, with and without the last id; the new text begins where the two
 * part (a character the last id completes is the last id's).
 */
export function stopStringCheck(decode, strings) {
  if (!strings.length) return null;
  const window = 4 * Math.max(...strings.map((t) => t.length)) + 2;
  return async (sequence) => {
    const n = sequence.length;
    const ids = Array.from(sequence.slice(Math.max(0, n - 1 - window)));
    const [before, after] = await Promise.all([decode(ids.slice(0, -1)), decode(ids)]);
    let same = 0;
    while (same < before.length && before[same] === after[same]) same++;
    // An occurrence that starts at or after same − length + 1 ends past `same`: in the last id's text.
    return strings.some((t) => after.indexOf(t, Math.max(0, same - t.length + 1)) >= 0);
  };
}

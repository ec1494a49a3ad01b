// When a search stops: transformers' MaxLengthCriteria and EosTokenCriteria,
// the two stopping criteria its generate() builds from a generation config.

/** Whether a sequence of `length` ids ending in `last` is done under settings `s` (settings.mjs). */
export const stops = (s, length, last) => length >= s.maxLength || s.eosTokenIds.includes(last);

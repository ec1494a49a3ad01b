// The logits processors transformers' generate() applies to each step's
// scores, in its LogitsProcessorList's order, and the log-softmax the
// searches score with. Pure functions of a row and the settings
// (settings.mjs); float64 throughout.

/** log_softmax of a row, in float64 (indexed loops: a 65,001-token row is one of these per beam and step). */
export function logSoftmax(row) {
  const n = row.length;
  const out = new Float64Array(n);
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (row[i] > max) max = row[i];
  if (max === -Infinity) {
    out.set(row);
    return out;
  }
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(row[i] - max);
  const log = max + Math.log(sum);
  for (let i = 0; i < n; i++) out[i] = row[i] - log;
  return out;
}

/**
 * `scores` (one beam's row over the vocabulary) processed for the next
 * token after `sequence` (its ids so far, the prompt's `promptLength`
 * first), as RepetitionPenalty, NoRepeatNGram, NoBadWords, MinLength,
 * MinNewTokens, ForcedEOS, (when sampling) Temperature, TopK and TopP, and
 * LogitNormalization do, in transformers' order.
 */
export function processScores(scores, sequence, s, promptLength = 1) {
  const curLen = sequence.length;
  const out = new Float64Array(scores);
  if (s.repetitionPenalty !== 1)
    for (const id of new Set(sequence)) {
      const v = out[id];
      out[id] = v < 0 ? v * s.repetitionPenalty : v / s.repetitionPenalty;
    }
  const n = s.noRepeatNgramSize;
  if (n > 0 && curLen + 1 >= n) {
    // Every n-gram so far: its first n − 1 ids are the last n − 1, so its last id is banned.
    const prefix = sequence.slice(curLen + 1 - n);
    for (let start = 0; start + n <= curLen; start++) {
      let same = true;
      for (let k = 0; k < n - 1 && same; k++) same = sequence[start + k] === prefix[k];
      if (same) out[sequence[start + n - 1]] = -Infinity;
    }
  }
  for (const word of s.badWordsIds) {
    // An eos token alone is never banned (NoBadWordsLogitsProcessor filters it out).
    if (word.length === 1 && s.eosTokenIds.includes(word[0])) continue;
    if (word.length - 1 > curLen) continue;
    let match = true;
    for (let k = 0; k < word.length - 1 && match; k++) match = sequence[curLen - (word.length - 1) + k] === word[k];
    if (match) out[word[word.length - 1]] = -Infinity;
  }
  const minNew = s.minNewTokens === null ? 0 : s.minNewTokens;
  if ((s.minLength > 0 && curLen < s.minLength) || (minNew > 0 && curLen - promptLength < minNew))
    for (const eos of s.eosTokenIds) out[eos] = -Infinity;
  if (s.forcedEosTokenId.length && curLen === s.maxLength - 1) {
    out.fill(-Infinity);
    for (const eos of s.forcedEosTokenId) out[eos] = 0;
  }
  if (s.doSample) warp(out, s);
  return s.renormalizeLogits ? logSoftmax(out) : out;
}

// Sampling's warpers, in place, in transformers' order: Temperature, TopK (keep the k largest and their ties),
// TopP (keep the smallest set whose probability reaches p, the most likely token always), MinP (keep the
// tokens whose probability is at least minP times the most likely one's: MinPLogitsWarper).
function warp(scores, s) {
  if (s.temperature !== 1) for (let v = 0; v < scores.length; v++) scores[v] /= s.temperature;
  if (s.topK > 0 && s.topK < scores.length) {
    const kth = Float64Array.from(scores).sort()[scores.length - s.topK];
    for (let v = 0; v < scores.length; v++) if (scores[v] < kth) scores[v] = -Infinity;
  }
  if (s.topP < 1) {
    const order = Array.from(scores.keys()).sort((a, b) => scores[a] - scores[b]); // ascending, as transformers
    const probs = softmax(order.map((v) => scores[v]));
    let cumulative = 0;
    for (let i = 0; i < order.length - 1; i++) {
      cumulative += probs[i];
      if (cumulative <= 1 - s.topP) scores[order[i]] = -Infinity;
    }
  }
  if (s.minP !== null && s.minP !== undefined) {
    let max = -Infinity;
    for (const v of scores) if (v > max) max = v;
    // probs[v] < minP · probs[top] ⇔ exp(scores[v] − max) < minP (the softmax's sum cancels); the top stays.
    for (let v = 0; v < scores.length; v++) if (Math.exp(scores[v] - max) < s.minP) scores[v] = -Infinity;
  }
}

/** softmax of an array of numbers (an array). */
export function softmax(values) {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  const out = values.map((v) => (max === -Infinity ? 0 : Math.exp(v - max)));
  const sum = out.reduce((a, b) => a + b, 0);
  return out.map((v) => v / sum);
}

// log_softmax(row)[index], without the whole row.
export function logProbability(row, index) {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp(row[i] - max);
  return row[index] - max - Math.log(sum);
}

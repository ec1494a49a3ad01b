// Text generation as Hugging Face transformers 5's generate() does it, for one
// input without sampling: greedy search and beam search, with the logits
// processors a translation model's generation_config.json asks for. Pure: the
// model is a `decode(ids, beams)` function returning each beam's next-token
// logits, and `reorder(parents)`, so the search is tested on its own
// (tests/js/generation.test.mjs) and against transformers through a model
// (tests/js/marian.test.mjs). Written by hand: transformers.js, the one JS
// library of the job, has no beam search (a TODO in its generate()).

/** generation_config.json's fields that are read, with transformers' defaults. */
export const GENERATION_DEFAULTS = Object.freeze({
  max_length: 20,
  max_new_tokens: null,
  min_length: 0,
  min_new_tokens: null,
  num_beams: 1,
  num_return_sequences: 1,
  length_penalty: 1.0,
  early_stopping: false,
  no_repeat_ngram_size: 0,
  bad_words_ids: null,
  forced_eos_token_id: null,
  renormalize_logits: false,
  decoder_start_token_id: null,
  eos_token_id: null,
  pad_token_id: null,
  do_sample: false,
});

// Fields of a generation config this search does not implement: refused when set to anything but their default.
const UNSUPPORTED = Object.freeze({
  do_sample: false,
  repetition_penalty: 1.0,
  encoder_repetition_penalty: 1.0,
  encoder_no_repeat_ngram_size: 0,
  num_beam_groups: 1,
  diversity_penalty: 0.0,
  penalty_alpha: null,
  forced_bos_token_id: null,
  suppress_tokens: null,
  begin_suppress_tokens: null,
  sequence_bias: null,
  exponential_decay_length_penalty: null,
  constraints: null,
  force_words_ids: null,
  guidance_scale: null,
});

const NEG = -1e9; // transformers' stand-in for "never": added, not assigned

/**
 * The settings of one generate() call: the model's generation_config.json
 * (else its config.json's generation fields), overridden by the caller's
 * (already checked) `options`; `file` names the source in messages.
 * Returns { maxLength, minLength, numBeams, numReturnSequences, lengthPenalty,
 * earlyStopping, noRepeatNgramSize, badWordsIds, forcedEosTokenId,
 * renormalizeLogits, decoderStartTokenId, eosTokenIds, padTokenId }.
 */
export function generationSettings(config, file, options, vocabSize) {
  const field = (name) => (config[name] === undefined ? GENERATION_DEFAULTS[name] : config[name]);
  for (const [name, plain] of Object.entries(UNSUPPORTED))
    if (config[name] !== undefined && config[name] !== null && config[name] !== plain)
      throw new Error(`${file}: ${name} ${JSON.stringify(config[name])} is not supported by mha-wasm's generate()`);
  const count = (name, value, least) => {
    if (!Number.isInteger(value) || value < least)
      throw new Error(`${file}: ${name} must be an integer ≥ ${least}, got ${JSON.stringify(value)}`);
    return value;
  };
  const id = (name, value) => {
    if (value === null || value === undefined) return null;
    if (!Number.isInteger(value) || value < 0 || value >= vocabSize)
      throw new Error(`${file}: ${name} must be a token id from 0 to ${vocabSize - 1}, got ${JSON.stringify(value)}`);
    return value;
  };
  const ids = (name, value) =>
    value === null || value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => id(name, v));
  const decoderStartTokenId = id('decoder_start_token_id', field('decoder_start_token_id'));
  if (decoderStartTokenId === null)
    throw new Error(`${file}: no decoder_start_token_id (the token the decoder starts from)`);
  const badWordsIds = field('bad_words_ids');
  if (badWordsIds !== null && (!Array.isArray(badWordsIds) || badWordsIds.some((w) => !Array.isArray(w) || !w.length)))
    throw new Error(`${file}: bad_words_ids must be a list of non-empty lists of token ids`);
  const lengthPenalty = field('length_penalty');
  if (typeof lengthPenalty !== 'number' || !Number.isFinite(lengthPenalty))
    throw new Error(`${file}: length_penalty must be a finite number, got ${JSON.stringify(lengthPenalty)}`);
  const earlyStopping = field('early_stopping');
  if (earlyStopping !== true && earlyStopping !== false && earlyStopping !== 'never')
    throw new Error(`${file}: early_stopping must be true, false or "never", got ${JSON.stringify(earlyStopping)}`);
  const s = {
    maxLength: count('max_length', field('max_length'), 1),
    minLength: count('min_length', field('min_length'), 0),
    minNewTokens: field('min_new_tokens') === null ? null : count('min_new_tokens', field('min_new_tokens'), 0),
    numBeams: count('num_beams', field('num_beams'), 1),
    numReturnSequences: count('num_return_sequences', field('num_return_sequences'), 1),
    lengthPenalty,
    earlyStopping,
    noRepeatNgramSize: count('no_repeat_ngram_size', field('no_repeat_ngram_size') ?? 0, 0),
    badWordsIds: (badWordsIds ?? []).map((w) => w.map((v) => id('bad_words_ids', v))),
    forcedEosTokenId: ids('forced_eos_token_id', field('forced_eos_token_id')),
    renormalizeLogits: field('renormalize_logits') === true,
    decoderStartTokenId,
    eosTokenIds: ids('eos_token_id', field('eos_token_id')),
    padTokenId: id('pad_token_id', field('pad_token_id')),
  };
  // The caller's, over the file's (checked by the caller: numbers in range).
  if (options.maxNewTokens !== undefined)
    s.maxLength = 1 + options.maxNewTokens; // after decoder_start_token_id
  else if (field('max_new_tokens') !== null) s.maxLength = 1 + count('max_new_tokens', field('max_new_tokens'), 1);
  if (options.maxLength !== undefined) s.maxLength = options.maxLength;
  for (const [option, key] of [
    ['numBeams', 'numBeams'],
    ['numReturnSequences', 'numReturnSequences'],
    ['lengthPenalty', 'lengthPenalty'],
    ['earlyStopping', 'earlyStopping'],
    ['noRepeatNgramSize', 'noRepeatNgramSize'],
  ])
    if (options[option] !== undefined) s[key] = options[option];
  if (s.numReturnSequences > s.numBeams)
    throw new RangeError(`numReturnSequences: expected at most numBeams (${s.numBeams}), got ${s.numReturnSequences}`);
  if (s.maxLength < 2)
    throw new RangeError(`maxLength: expected at least 2 (the start token and one more), got ${s.maxLength}`);
  return s;
}

// ---- Logits processors (transformers' LogitsProcessorList, in its order) ----

/** log_softmax of a row, in float64. */
function logSoftmax(row) {
  let max = -Infinity;
  for (const v of row) if (v > max) max = v;
  if (max === -Infinity) return Float64Array.from(row);
  let sum = 0;
  for (const v of row) sum += Math.exp(v - max);
  const log = max + Math.log(sum);
  return Float64Array.from(row, (v) => v - log);
}

/**
 * `scores` (one beam's row over the vocabulary) processed for the next
 * token after `sequence` (its ids so far, decoder_start_token_id first), as
 * NoRepeatNGram, NoBadWords, MinLength, MinNewTokens, ForcedEOS and
 * LogitNormalization do, in transformers' order.
 */
export function processScores(scores, sequence, s) {
  const curLen = sequence.length;
  const out = Float64Array.from(scores);
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
  if ((s.minLength > 0 && curLen < s.minLength) || (minNew > 0 && curLen - 1 < minNew))
    for (const eos of s.eosTokenIds) out[eos] = -Infinity;
  if (s.forcedEosTokenId.length && curLen === s.maxLength - 1) {
    out.fill(-Infinity);
    for (const eos of s.forcedEosTokenId) out[eos] = 0;
  }
  return s.renormalizeLogits ? logSoftmax(out) : out;
}

// ---- The searches -----------------------------------------------------------

// Whether a sequence of `length` ids ending in `last` is done (MaxLengthCriteria, EosTokenCriteria).
const hits = (s, length, last) => length >= s.maxLength || s.eosTokenIds.includes(last);

/**
 * Greedy search (num_beams 1): `step(ids)` feeds the new ids of one beam and
 * resolves to the next token's logits (a Float32Array over the
 * vocabulary). Resolves to { outputIds, score, stepScores }: the ids
 * (decoder_start_token_id first), the sum of the chosen tokens' log-softmax
 * of the processed scores, and the processed score of each chosen token.
 */
export async function greedySearch(step, s, { onToken, signal } = {}) {
  const sequence = [s.decoderStartTokenId];
  const stepScores = [];
  let score = 0;
  let next = [s.decoderStartTokenId];
  for (;;) {
    signal?.throwIfAborted();
    const logits = await step(next);
    const scores = processScores(logits, sequence, s);
    let best = 0;
    for (let v = 1; v < scores.length; v++) if (scores[v] > scores[best]) best = v;
    stepScores.push(scores[best]);
    score += logSoftmax(scores)[best];
    sequence.push(best);
    onToken?.({ id: best, outputIds: Int32Array.from(sequence) });
    if (hits(s, sequence.length, best)) break;
    next = [best];
  }
  return { outputIds: Int32Array.from(sequence), score, stepScores };
}

// The indices of the k largest values of `values`, largest first (ties: the lower index first, as torch.topk
// on CPU gives them in practice).
function topK(values, k) {
  const order = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (order.length === k && !(v > values[order[k - 1]])) continue;
    let at = order.length < k ? order.length : k - 1;
    while (at > 0 && v > values[order[at - 1]]) at--;
    order.splice(at, 0, i);
    if (order.length > k) order.pop();
  }
  return order;
}

/**
 * Beam search as transformers 5's _beam_search (batch 1, no sampling):
 * `step(ids)` feeds one new id per beam (numBeams of them) and resolves to
 * their next-token logits [numBeams × vocab]; `reorder(parents)` makes beam b
 * what beam parents[b] was. Resolves to { outputIds, score, candidates:
 * [{ outputIds, score }] (the numReturnSequences best, best first; score
 * is transformers' sequences_scores, length-penalized) }.
 */
export async function beamSearch(step, reorder, s, vocabSize, { onToken, signal } = {}) {
  const B = s.numBeams;
  const K = Math.max(2, 1 + s.eosTokenIds.length) * B;
  const promptLength = 1;
  let running = Array.from({ length: B }, () => [s.decoderStartTokenId]);
  let runningScores = Array.from({ length: B }, (_, b) => (b === 0 ? 0 : NEG));
  // The finished hypotheses: numBeams places, -1e9 while empty.
  let finished = Array.from({ length: B }, () => ({ ids: [s.decoderStartTokenId], score: NEG, done: false }));
  let unsatisfied = true;
  let curLen = promptLength;
  let next = running.map((seq) => seq[seq.length - 1]);
  for (;;) {
    signal?.throwIfAborted();
    const logits = await step(next);
    // Accumulated log-probabilities of every (beam, token).
    const accumulated = new Float64Array(B * vocabSize);
    for (let b = 0; b < B; b++) {
      const row = processScores(logSoftmax(logits.subarray(b * vocabSize, (b + 1) * vocabSize)), running[b], s);
      for (let v = 0; v < vocabSize; v++) accumulated[b * vocabSize + v] = row[v] + runningScores[b];
    }
    const top = topK(accumulated, K).map((index) => {
      const beam = Math.floor(index / vocabSize);
      const token = index % vocabSize;
      return { beam, token, score: accumulated[index], ids: [...running[beam], token] };
    });
    const stops = top.map((c) => hits(s, curLen + 1, c.token));
    // The next running beams: the best K that did not stop.
    const live = top.map((c, k) => c.score + (stops[k] ? NEG : 0));
    const keep = topK(live, B);
    const nextRunning = keep.map((k) => top[k]);
    // Finished hypotheses: the top numBeams candidates that stopped, length-penalized, merged with the old.
    const full = finished.every((f) => f.done) && s.earlyStopping === true;
    const merged = [...finished];
    top.forEach((c, k) => {
      let score = c.score / (curLen + 1 - promptLength) ** s.lengthPenalty;
      if (full) score += NEG;
      if (!unsatisfied) score += NEG;
      const just = stops[k] && k < B;
      if (!just) score += NEG;
      merged.push({ ids: c.ids, score, done: just });
    });
    finished = topK(
      merged.map((m) => m.score),
      B,
    ).map((i) => merged[i]);
    running = nextRunning.map((c) => c.ids);
    runningScores = keep.map((k) => live[k]);
    await reorder(nextRunning.map((c) => c.beam));
    curLen += 1;
    // Can a running beam still beat the worst finished one? (_check_early_stop_heuristic)
    const hypothetical =
      s.earlyStopping === 'never' && s.lengthPenalty > 0 ? s.maxLength - promptLength : curLen - promptLength;
    const bestPossible = runningScores[0] / hypothetical ** s.lengthPenalty;
    const worst = Math.min(...finished.map((f) => f.score));
    unsatisfied = unsatisfied && finished.some((f) => bestPossible > (f.done ? worst : NEG));
    const best = finished[0].done && finished[0].score > bestPossible ? finished[0].ids : running[0];
    onToken?.({ outputIds: Int32Array.from(best), beams: running.map((ids) => Int32Array.from(ids)) });
    const open = !(finished.every((f) => f.done) && s.earlyStopping === true);
    const continuations = !stops.every(Boolean);
    if (!(unsatisfied && open && continuations)) break;
    next = running.map((seq) => seq[seq.length - 1]);
  }
  // Each candidate's own ids (transformers pads the shorter ones of sequences to the longest with pad_token_id).
  const candidates = finished
    .slice(0, s.numReturnSequences)
    .map((f) => ({ outputIds: Int32Array.from(f.ids), score: f.score }));
  return { outputIds: candidates[0].outputIds, score: candidates[0].score, candidates };
}

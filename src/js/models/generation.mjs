// Text generation as Hugging Face transformers 5's generate() does it, for one
// input: greedy search, sampling (temperature, top-k, top-p, from a seeded
// generator of this package: reproducible for a seed, not torch's numbers)
// and beam search, with the logits processors a generation_config.json asks
// for, after a prompt (an encoder-decoder's decoder_start_token_id, or a
// decoder's text). Pure: the model is a `step(ids)` function returning each
// beam's next-token logits, and `reorder(parents)`, so the search is tested
// against transformers through the models (tests/js/seq2seq.test.mjs,
// tests/js/decoder-generate.test.mjs). Written by hand: transformers.js, the
// one JS library of the job, has no beam search (a TODO in its generate()).
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';

/** generation_config.json's fields that are read, with transformers' defaults. */
export const GENERATION_DEFAULTS = Object.freeze({
  max_length: null, // none: 20 new tokens, at most max_position_embeddings in all (transformers 5's rule)
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
  repetition_penalty: 1.0,
  temperature: 1.0,
  top_k: 50,
  top_p: 1.0,
});

// Fields of a generation config this search does not implement: refused when set to anything but their default.
const UNSUPPORTED = Object.freeze({
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
 * `promptLength`: the ids the output starts with (1: decoder_start_token_id;
 * a decoder's prompt), which max_length counts and max_new_tokens does not;
 * `encoderDecoder`: whether decoder_start_token_id is needed; `maxPositions`:
 * the model's max_position_embeddings (the bound of the default length).
 * Returns { maxLength, minLength, minNewTokens, numBeams, numReturnSequences,
 * lengthPenalty, earlyStopping, noRepeatNgramSize, repetitionPenalty,
 * badWordsIds, forcedEosTokenId, renormalizeLogits, doSample, temperature,
 * topK, topP, decoderStartTokenId, eosTokenIds, padTokenId }.
 */
export function generationSettings(
  config,
  file,
  options,
  vocabSize,
  { promptLength = 1, encoderDecoder = true, maxPositions = Infinity } = {},
) {
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
  if (encoderDecoder && decoderStartTokenId === null)
    throw new Error(`${file}: no decoder_start_token_id (the token the decoder starts from)`);
  const positive = (name, value) => {
    if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))
      throw new Error(`${file}: ${name} must be a finite number > 0, got ${JSON.stringify(value)}`);
    return value;
  };
  const topP = field('top_p') ?? 1.0;
  if (typeof topP !== 'number' || !(topP > 0 && topP <= 1))
    throw new Error(`${file}: top_p must be a number in (0, 1], got ${JSON.stringify(topP)}`);
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
    maxLength:
      field('max_length') === null
        ? Math.min(promptLength + 20, maxPositions)
        : count('max_length', field('max_length'), 1),
    minLength: count('min_length', field('min_length'), 0),
    minNewTokens: field('min_new_tokens') === null ? null : count('min_new_tokens', field('min_new_tokens'), 0),
    numBeams: count('num_beams', field('num_beams'), 1),
    numReturnSequences: count('num_return_sequences', field('num_return_sequences'), 1),
    lengthPenalty,
    earlyStopping,
    noRepeatNgramSize: count('no_repeat_ngram_size', field('no_repeat_ngram_size') ?? 0, 0),
    repetitionPenalty: positive('repetition_penalty', field('repetition_penalty') ?? 1.0),
    doSample: field('do_sample') === true,
    temperature: positive('temperature', field('temperature') ?? 1.0),
    topK: count('top_k', field('top_k') ?? 0, 0),
    topP,
    badWordsIds: (badWordsIds ?? []).map((w) => w.map((v) => id('bad_words_ids', v))),
    forcedEosTokenId: ids('forced_eos_token_id', field('forced_eos_token_id')),
    renormalizeLogits: field('renormalize_logits') === true,
    decoderStartTokenId,
    eosTokenIds: ids('eos_token_id', field('eos_token_id')),
    padTokenId: id('pad_token_id', field('pad_token_id')),
  };
  // The caller's, over the file's (checked by the caller: numbers in range).
  if (options.maxNewTokens !== undefined)
    s.maxLength = promptLength + options.maxNewTokens; // after the prompt (or decoder_start_token_id)
  else if (field('max_new_tokens') !== null)
    s.maxLength = promptLength + count('max_new_tokens', field('max_new_tokens'), 1);
  if (options.maxLength !== undefined) s.maxLength = options.maxLength;
  for (const key of [
    'minNewTokens',
    'numBeams',
    'numReturnSequences',
    'lengthPenalty',
    'earlyStopping',
    'noRepeatNgramSize',
    'repetitionPenalty',
    'doSample',
    'temperature',
    'topK',
    'topP',
  ])
    if (options[key] !== undefined) s[key] = options[key];
  if (s.numReturnSequences > s.numBeams)
    throw new ArgumentRangeError(
      `numReturnSequences: expected at most numBeams (${s.numBeams}), got ${s.numReturnSequences}`,
    );
  if (s.doSample && s.numBeams > 1)
    throw new ArgumentTypeError(
      'doSample: sampling with beams (beam-search multinomial) is not supported; use numBeams 1',
    );
  if (s.maxLength <= promptLength)
    throw new ArgumentRangeError(
      `maxLength: ${s.maxLength} leaves no token to generate after the ${promptLength} the output starts with; ` +
        'give maxNewTokens',
    );
  return s;
}

// ---- Logits processors (transformers' LogitsProcessorList, in its order) ----

/** log_softmax of a row, in float64 (indexed loops: a 65,001-token row is one of these per beam and step). */
function logSoftmax(row) {
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

// Sampling's warpers, in place: Temperature, TopK (keep the k largest and their ties), TopP (keep the smallest
// set whose probability reaches p, the most likely token always).
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
}

function softmax(values) {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  const out = values.map((v) => (max === -Infinity ? 0 : Math.exp(v - max)));
  const sum = out.reduce((a, b) => a + b, 0);
  return out.map((v) => v / sum);
}

/**
 * A seeded generator of numbers in [0, 1) (sfc32 over a 32-bit seed spread
 * by splitmix32): the same seed gives the same samples in Node and browsers.
 */
export function seededRandom(seed) {
  let x = seed >>> 0;
  const mix = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let [a, b, c, d] = [mix(), mix(), mix(), mix()];
  return () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
}

// A token drawn from softmax(scores) by a number of `random()`.
function sample(scores, random) {
  const probs = softmax(Array.from(scores));
  let u = random();
  for (let v = 0; v < probs.length; v++) {
    u -= probs[v];
    if (u < 0 && probs[v] > 0) return v;
  }
  let last = probs.length - 1;
  while (last > 0 && probs[last] === 0) last--;
  return last;
}

// log_softmax(row)[index], without the whole row.
function logProbability(row, index) {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp(row[i] - max);
  return row[index] - max - Math.log(sum);
}

// ---- The searches -----------------------------------------------------------

// Whether a sequence of `length` ids ending in `last` is done (MaxLengthCriteria, EosTokenCriteria).
const hits = (s, length, last) => length >= s.maxLength || s.eosTokenIds.includes(last);

/**
 * Greedy search or sampling (num_beams 1): `step(ids)` feeds the new ids
 * (first the whole prompt) and resolves to the next token's logits (a
 * Float32Array over the vocabulary). `prompt`: the ids the output starts with
 * (default [decoder_start_token_id]); `random`: sampling's generator.
 * Resolves to { outputIds, score, stepScores }: the ids (the prompt first),
 * the sum of the chosen tokens' log-softmax of the processed scores, and the
 * processed score of each chosen token.
 */
export async function greedySearch(step, s, { prompt = [s.decoderStartTokenId], random, onToken, signal } = {}) {
  const sequence = Array.from(prompt);
  const stepScores = [];
  let score = 0;
  let next = Array.from(prompt);
  for (;;) {
    signal?.throwIfAborted();
    const logits = await step(next);
    const scores = processScores(logits, sequence, s, prompt.length);
    let best = 0;
    if (s.doSample) best = sample(scores, random);
    else for (let v = 1; v < scores.length; v++) if (scores[v] > scores[best]) best = v;
    stepScores.push(scores[best]);
    score += logProbability(scores, best);
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
export async function beamSearch(
  step,
  reorder,
  s,
  vocabSize,
  { prompt = [s.decoderStartTokenId], onToken, signal } = {},
) {
  const B = s.numBeams;
  const K = Math.max(2, 1 + s.eosTokenIds.length) * B;
  const promptLength = prompt.length;
  let running = Array.from({ length: B }, () => Array.from(prompt));
  // Of each running beam, the beam it was at each step so far (its rows in that step's results).
  let origins = Array.from({ length: B }, () => []);
  let runningScores = Array.from({ length: B }, (_, b) => (b === 0 ? 0 : NEG));
  // The finished hypotheses: numBeams places, -1e9 while empty.
  let finished = Array.from({ length: B }, () => ({ ids: Array.from(prompt), origins: [], score: NEG, done: false }));
  let unsatisfied = true;
  let curLen = promptLength;
  // The first step feeds every beam the whole prompt.
  let next = running.flat();
  for (;;) {
    signal?.throwIfAborted();
    const logits = await step(next);
    // Accumulated log-probabilities of every (beam, token).
    const accumulated = new Float64Array(B * vocabSize);
    for (let b = 0; b < B; b++) {
      const row = processScores(
        logSoftmax(logits.subarray(b * vocabSize, (b + 1) * vocabSize)),
        running[b],
        s,
        promptLength,
      );
      for (let v = 0; v < vocabSize; v++) accumulated[b * vocabSize + v] = row[v] + runningScores[b];
    }
    const top = topK(accumulated, K).map((index) => {
      const beam = Math.floor(index / vocabSize);
      const token = index % vocabSize;
      return {
        beam,
        token,
        score: accumulated[index],
        ids: [...running[beam], token],
        origins: [...origins[beam], beam],
      };
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
      merged.push({ ids: c.ids, origins: c.origins, score, done: just });
    });
    finished = topK(
      merged.map((m) => m.score),
      B,
    ).map((i) => merged[i]);
    running = nextRunning.map((c) => c.ids);
    origins = nextRunning.map((c) => c.origins);
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
  // origins: the beam whose row of each step's results computed the best candidate's token at that position.
  return { outputIds: candidates[0].outputIds, score: candidates[0].score, candidates, origins: finished[0].origins };
}

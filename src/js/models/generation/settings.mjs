// A generate() call's settings: the model's generation_config.json (else its
// config.json's generation fields) checked field by field, with transformers
// 5's defaults, overridden by the caller's options. The rest of generation/
// reads only the object generationSettings() returns.
import { ArgumentRangeError, ArgumentTypeError } from '../../errors.mjs';

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
  min_p: null,
  stop_strings: null,
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
 * topK, topP, minP (null: none), stopStrings (strings, [] for none),
 * decoderStartTokenId, eosTokenIds, padTokenId }.
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
  const minP = field('min_p');
  if (minP !== null && (typeof minP !== 'number' || !(minP >= 0 && minP <= 1)))
    throw new Error(`${file}: min_p must be a number in [0, 1], got ${JSON.stringify(minP)}`);
  const stopStrings = field('stop_strings');
  const stopList = stopStrings === null ? [] : Array.isArray(stopStrings) ? stopStrings : [stopStrings];
  if (stopList.some((t) => typeof t !== 'string' || !t))
    throw new Error(`${file}: stop_strings must be a string or a list of non-empty strings`);
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
    minP,
    stopStrings: stopList,
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
    'minP',
    'stopStrings',
  ])
    if (options[key] !== undefined) s[key] = options[key];
  if (!Array.isArray(s.stopStrings)) s.stopStrings = [s.stopStrings]; // one string given alone
  if (s.numReturnSequences > s.numBeams)
    throw new ArgumentRangeError(
      `numReturnSequences: expected at most numBeams (${s.numBeams}), got ${s.numReturnSequences}`,
    );
  if (s.doSample && s.numBeams > 1)
    throw new ArgumentTypeError(
      `doSample: sampling with beams (beam-search multinomial) is not supported (numBeams ${s.numBeams}` +
        `${options.numBeams === undefined ? `, from ${file}` : ''}); give numBeams: 1`,
    );
  if (s.maxLength <= promptLength)
    throw new ArgumentRangeError(
      `maxLength: ${s.maxLength} leaves no token to generate after the ${promptLength} the output starts with; ` +
        'give maxNewTokens',
    );
  return s;
}

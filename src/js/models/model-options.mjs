// The options of a model's calls (run, prefill, step, generate), checked
// against the model's sizes before anything crosses to the engine: each bad
// one a TypeError or RangeError naming it, with what was expected and given.
// The head masks become the engine's form here: one Uint8Array
// [layers × heads] per attention group (1 keep, 0 switch off), null for all.
import { describe, rejectUnknown } from '../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';
import { checkEncodeOptions } from './tokenizers/public-tokenizer.mjs';

const RUN_OPTIONS = new Set([
  'returnAttention',
  'returnHiddenStates',
  'returnLogits',
  'returnQueryKey',
  'returnHeadOutputs',
]);
// run() also cuts a text to a length, as the tokenizer's encode does (model.tokenizer.encode's options).
const TRUNCATION_OPTIONS = ['truncation', 'maxLength'];
// An encoder-decoder's run also takes a head mask; its input, the decoder's ids.
const SEQ2SEQ_RUN_OPTIONS = new Set([...RUN_OPTIONS, 'headMask', 'returnLayerLogits', ...TRUNCATION_OPTIONS]);

// returnLayerLogits: { positions } (the logit lens, mha-wasm/analysis' logitLens): its form checked with the
// other options, its positions against the input's length by lensPositions once the input is read.
function checkLayerLogits(value, what, config) {
  if (value === undefined) return;
  if (config.kind === 'encoder')
    throw new ArgumentTypeError(
      `returnLayerLogits: a ${config.modelType} is an encoder; the logit lens reads a decoder's layers ` +
        "(or an encoder-decoder's decoder's)",
    );
  if (what !== 'run')
    throw new ArgumentTypeError(
      `returnLayerLogits: ${what}() returns no layer logits; run() over the whole sequence does ` +
        '(model.run({ inputIds }, { returnLayerLogits: { positions: [inputIds.length - 1] } }))',
    );
  const positions = value?.positions;
  if (!value || typeof value !== 'object' || !Array.isArray(positions) || positions.length === 0)
    throw new ArgumentTypeError(
      `returnLayerLogits: expected { positions: [position, …] } (at least one), got ${describe(value)}`,
    );
  rejectUnknown(value, new Set(['positions']), 'returnLayerLogits');
  positions.forEach((p, k) => {
    if (!Number.isInteger(p) || p < 0)
      throw new ArgumentTypeError(
        `returnLayerLogits.positions[${k}]: expected a position (an integer ≥ 0), got ${describe(p)}`,
      );
  });
}

/**
 * The logit lens' rows of a call (returnLayerLogits, checked by the run options) against the `length` tokens
 * read (`what`: inputIds, or an encoder-decoder's decoderInputIds): an Int32Array, or null when not asked.
 */
export function lensPositions(value, length, what) {
  if (value === undefined) return null;
  value.positions.forEach((p, k) => {
    if (p >= length)
      throw new ArgumentRangeError(
        `returnLayerLogits.positions[${k}]: expected a position of the ${length} ${what} (0 to ${length - 1}), got ${p}`,
      );
  });
  return Int32Array.from(value.positions);
}

// run()'s { truncation, maxLength } checked as encode checks them: { ...options without them, truncateTo }
// (the length a text is cut to, or null).
function withTruncation(options, config) {
  const { truncation, maxLength, ...rest } = options;
  if (truncation === undefined && maxLength === undefined) return { ...rest, truncateTo: null };
  const given = { truncation: truncation ?? false, ...(maxLength !== undefined && { maxLength }) };
  return { ...rest, truncateTo: checkEncodeOptions(given, config.maxLength, 'run').maxLength };
}
const COMMON_GENERATE_OPTIONS = [
  'maxNewTokens',
  'maxLength',
  'minNewTokens',
  'noRepeatNgramSize',
  'repetitionPenalty',
  'stopStrings',
  'returnAttention',
  'returnHiddenStates',
  'headMask',
  'onToken',
  'onStep',
  'signal',
];
// Sampling (seeded) and beam search: every kind's generate() has both.
const SAMPLING_OPTIONS = ['doSample', 'temperature', 'topK', 'topP', 'minP', 'seed'];
const BEAM_OPTIONS = ['numBeams', 'numReturnSequences', 'lengthPenalty', 'earlyStopping'];
const ALL_GENERATE_OPTIONS = new Set([...COMMON_GENERATE_OPTIONS, ...SAMPLING_OPTIONS, ...BEAM_OPTIONS]);
// What a step stream takes (a decoder's generateSteps, a conversation's sendSteps): one token a step, so no
// beams; nor the callbacks and the hidden states.
const STEP_OPTIONS = new Set(
  [...COMMON_GENERATE_OPTIONS, ...SAMPLING_OPTIONS].filter(
    (name) => !['onToken', 'onStep', 'returnHiddenStates'].includes(name),
  ),
);

/** The generate() options of each kind, and of model.generateSteps() (a decoder's). */
export const GENERATE_OPTIONS = Object.freeze({
  'encoder-decoder': ALL_GENERATE_OPTIONS,
  decoder: ALL_GENERATE_OPTIONS,
  steps: STEP_OPTIONS,
});

export function checkRunOptions(options, what, config) {
  if (options === undefined) return { headMask: null, ...(what === 'run' && { truncateTo: null }) };
  if (!options || typeof options !== 'object')
    throw new ArgumentTypeError(
      `${what} options: expected { returnAttention, returnHiddenStates, returnLogits, ` +
        `${what === 'run' ? 'returnQueryKey, returnHeadOutputs, ' : ''}headMask }, got ${describe(options)}`,
    );
  rejectUnknown(
    options,
    new Set([...RUN_OPTIONS, 'headMask', 'returnLayerLogits', ...(what === 'run' ? TRUNCATION_OPTIONS : [])]),
    what,
  );
  checkBooleans(options);
  checkLayerLogits(options.returnLayerLogits, what, config);
  // A step's keys would be its new tokens' alone (the earlier ones are in the cache): run() returns them all.
  if (what !== 'run' && options.returnQueryKey)
    throw new ArgumentTypeError(
      `returnQueryKey: ${what}() returns no queries and keys; run() over the whole sequence returns every ` +
        "position's (model.run({ inputIds }, { returnQueryKey: true }))",
    );
  // Likewise what each head writes: a step's value norms would be its new tokens' alone.
  if (what !== 'run' && options.returnHeadOutputs)
    throw new ArgumentTypeError(
      `returnHeadOutputs: ${what}() returns no head outputs; run() over the whole sequence returns every ` +
        "position's (model.run({ inputIds }, { returnHeadOutputs: true }))",
    );
  const checked = what === 'run' ? withTruncation(options, config) : options;
  return { ...checked, headMask: checkLayerMask(options.headMask, config) };
}

// The run options that are booleans, each a TypeError naming it otherwise.
function checkBooleans(options) {
  for (const name of RUN_OPTIONS)
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new ArgumentTypeError(`${name}: expected a boolean, got ${describe(options[name])}`);
}

// One head mask: [layers][heads] of 1 (keep) or 0 (switch off), as a Uint8Array for the engine.
function maskRows(rows, layers, heads, name) {
  if (!Array.isArray(rows) || rows.length !== layers)
    throw new ArgumentRangeError(`${name}: expected ${layers} layers of ${heads} heads, got ${describe(rows)}`);
  const flat = new Uint8Array(layers * heads);
  rows.forEach((row, l) => {
    if (!Array.isArray(row) && !ArrayBuffer.isView(row))
      throw new ArgumentTypeError(`${name}[${l}]: expected an array of ${heads} values 0 or 1, got ${describe(row)}`);
    if (row.length !== heads)
      throw new ArgumentRangeError(`${name}[${l}]: expected ${heads} values (one per head), got ${row.length}`);
    for (let h = 0; h < heads; h++) {
      const v = row[h];
      if (v !== 0 && v !== 1 && v !== true && v !== false)
        throw new ArgumentRangeError(`${name}[${l}][${h}]: expected 1 (keep) or 0 (switch off), got ${describe(v)}`);
      flat[l * heads + h] = v === 1 || v === true ? 1 : 0;
    }
  });
  return flat;
}

// An encoder-decoder's head mask: { encoder?, decoder?, cross? }, each [layers][heads] (null: every head kept).
function checkHeadMask(mask, config) {
  const none = { encoder: null, decoder: null, cross: null };
  if (mask === undefined) return none;
  if (!mask || typeof mask !== 'object' || Array.isArray(mask))
    throw new ArgumentTypeError(
      `headMask: expected { encoder, decoder, cross } of [layers][heads] 0/1 arrays, got ${describe(mask)}`,
    );
  rejectUnknown(mask, new Set(['encoder', 'decoder', 'cross']), 'headMask');
  const shape = {
    encoder: [config.numLayers, config.numHeads],
    decoder: [config.decoderLayers, config.decoderHeads],
    cross: [config.decoderLayers, config.decoderHeads],
  };
  const out = { ...none };
  for (const [group, [layers, heads]] of Object.entries(shape))
    if (mask[group] !== undefined) out[group] = maskRows(mask[group], layers, heads, `headMask.${group}`);
  return out;
}

// An encoder's or a decoder's head mask: [numLayers][numHeads] (null: every head kept).
function checkLayerMask(mask, config) {
  return mask === undefined ? null : maskRows(mask, config.numLayers, config.numHeads, 'headMask');
}

export function checkSeq2SeqRunOptions(options, config) {
  if (options === undefined) return { headMask: checkHeadMask(undefined, config), truncateTo: null };
  if (!options || typeof options !== 'object')
    throw new ArgumentTypeError(
      'run options: expected { returnAttention, returnHiddenStates, returnLogits, returnHeadOutputs, headMask }, ' +
        `got ${describe(options)}`,
    );
  rejectUnknown(options, SEQ2SEQ_RUN_OPTIONS, 'run');
  checkBooleans(options);
  checkLayerLogits(options.returnLayerLogits, 'run', config);
  if (options.returnQueryKey)
    throw new ArgumentTypeError(
      `returnQueryKey: a ${config.modelType} is an encoder-decoder, whose queries and keys run() does not return; ` +
        "run() returns them for an encoder's or a decoder's layers (model.config.kind 'encoder' or 'decoder')",
    );
  return { ...withTruncation(options, config), headMask: checkHeadMask(options.headMask, config) };
}

// stopStrings: a string or an array of non-empty strings (transformers' stop_strings).
function checkStopStrings(v) {
  if (v === undefined) return;
  const list = Array.isArray(v) ? v : [v];
  if (!list.length || list.some((t) => typeof t !== 'string' || !t))
    throw new ArgumentTypeError(
      `stopStrings: expected a non-empty string or an array of non-empty strings, got ${describe(v)}`,
    );
}

// generate()'s options (`allowed`: GENERATE_OPTIONS of the model's kind), or
// generateSteps()'s (`what`), the head masks in the engine's form.
export function checkGenerateOptions(options, config, allowed, what = 'generate') {
  const mask = (m) => (config.kind === 'decoder' ? checkLayerMask(m, config) : checkHeadMask(m, config));
  if (options === undefined) return { headMask: mask(undefined) };
  if (!options || typeof options !== 'object')
    throw new ArgumentTypeError(
      `${what} options: expected an object such as { maxNewTokens, numBeams }, got ${describe(options)}`,
    );
  if (options.returnQueryKey !== undefined)
    throw new ArgumentTypeError(
      config.kind === 'decoder'
        ? `returnQueryKey: ${what}() returns no queries and keys; run() over its outputIds returns them ` +
            '(model.run({ inputIds: result.outputIds }, { returnQueryKey: true }))'
        : `returnQueryKey: generate() returns no queries and keys (nor does a ${config.modelType}'s run(): ` +
            "an encoder-decoder's are not returned)",
    );
  if (options.returnHeadOutputs !== undefined)
    throw new ArgumentTypeError(
      `returnHeadOutputs: ${what}() returns no head outputs; run() over ` +
        (config.kind === 'decoder'
          ? 'its outputIds returns them (model.run({ inputIds: result.outputIds }, { returnHeadOutputs: true }))'
          : 'its outputIds, teacher-forced, returns them (model.run({ text, decoderInputIds: ' +
            'result.outputIds.slice(0, -1) }, { returnHeadOutputs: true }))'),
    );
  for (const name of BEAM_OPTIONS)
    if (options[name] !== undefined && !allowed.has(name))
      throw new ArgumentTypeError(
        `${name}: ${what}() gives one token a step, not beams; generate() has beam search ` +
          `(model.generate(input, { ${name}: ${describe(options[name])} }))`,
      );
  rejectUnknown(options, allowed, what);
  const whole = (name, least, most) => {
    const v = options[name];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v))
      throw new ArgumentTypeError(`${name}: expected an integer, got ${describe(v)}`);
    if (v < least || v > most) throw new ArgumentRangeError(`${name}: expected ${least} to ${most}, got ${v}`);
  };
  whole('maxNewTokens', 1, config.maxLength - 1);
  whole('maxLength', 2, config.maxLength);
  whole('numBeams', 1, 64);
  whole('numReturnSequences', 1, 64);
  whole('noRepeatNgramSize', 0, config.maxLength);
  whole('minNewTokens', 0, config.maxLength);
  if (options.maxNewTokens !== undefined && options.maxLength !== undefined)
    throw new ArgumentTypeError('maxNewTokens, maxLength: give one of them (which would bound the output?)');
  if (
    options.lengthPenalty !== undefined &&
    (typeof options.lengthPenalty !== 'number' || !Number.isFinite(options.lengthPenalty))
  )
    throw new ArgumentTypeError(`lengthPenalty: expected a finite number, got ${describe(options.lengthPenalty)}`);
  for (const name of ['temperature', 'repetitionPenalty']) {
    const v = options[name];
    if (v !== undefined && (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)))
      throw new ArgumentRangeError(`${name}: expected a finite number > 0, got ${describe(v)}`);
  }
  whole('topK', 0, config.vocabSize);
  if (options.topP !== undefined && (typeof options.topP !== 'number' || !(options.topP > 0 && options.topP <= 1)))
    throw new ArgumentRangeError(`topP: expected a number in (0, 1], got ${describe(options.topP)}`);
  if (options.minP !== undefined && (typeof options.minP !== 'number' || !(options.minP >= 0 && options.minP <= 1)))
    throw new ArgumentRangeError(`minP: expected a number in [0, 1], got ${describe(options.minP)}`);
  checkStopStrings(options.stopStrings);
  if (options.doSample !== undefined && typeof options.doSample !== 'boolean')
    throw new ArgumentTypeError(`doSample: expected a boolean, got ${describe(options.doSample)}`);
  if (options.seed !== undefined && (!Number.isInteger(options.seed) || options.seed < 0 || options.seed > 2 ** 32 - 1))
    throw new ArgumentRangeError(`seed: expected an integer from 0 to 2^32 - 1, got ${describe(options.seed)}`);
  if (options.earlyStopping !== undefined && ![true, false, 'never'].includes(options.earlyStopping))
    throw new ArgumentTypeError(
      `earlyStopping: expected true, false or 'never', got ${describe(options.earlyStopping)}`,
    );
  for (const name of ['returnAttention', 'returnHiddenStates'])
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new ArgumentTypeError(`${name}: expected a boolean, got ${describe(options[name])}`);
  if (options.onToken !== undefined && typeof options.onToken !== 'function')
    throw new ArgumentTypeError(
      `onToken: expected a function ({ outputIds, tokens }) => void, got ${describe(options.onToken)}`,
    );
  if (options.onStep !== undefined && typeof options.onStep !== 'function')
    throw new ArgumentTypeError(
      `onStep: expected a function ({ step, id, token, outputIds, score, logits, attentions }) => void, got ${describe(options.onStep)}`,
    );
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new ArgumentTypeError(`signal: expected an AbortSignal, got ${describe(options.signal)}`);
  options.signal?.throwIfAborted();
  return { ...options, headMask: mask(options.headMask) };
}

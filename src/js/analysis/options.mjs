// The analyses' shared options, checked once: { signal, onProgress } and what
// makes the reference (newTokens, positions, reference), each bad one a
// TypeError or RangeError naming it, with what was expected and given.
import { describe, rejectUnknown } from '../checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from '../errors.mjs';
import { TransformerModel } from '../models/transformer-model.mjs';

const REFERENCE_OPTIONS = ['reference', 'newTokens', 'maxNewTokens', 'positions'];
const CONTROL_OPTIONS = ['signal', 'onProgress'];

/** The model argument: a loaded model of mha-wasm/model (engine.loadModel). */
export function checkModel(model, what) {
  if (!(model instanceof TransformerModel))
    throw new ArgumentTypeError(
      `${what}: expected a model from engine.loadModel() as its first argument, got ${describe(model)}`,
    );
  return model;
}

/**
 * An analysis' options: `allowed` are its own beyond the control's and (with
 * `reference`) the reference's; returns them with signal and onProgress checked and a no-op
 * onProgress when none is given.
 */
export function checkOptions(options, what, allowed = [], reference = true) {
  if (options === undefined) options = {};
  if (!options || typeof options !== 'object' || Array.isArray(options))
    throw new ArgumentTypeError(
      `${what} options: expected an object such as { signal, onProgress }, got ${describe(options)}`,
    );
  rejectUnknown(options, new Set([...(reference ? REFERENCE_OPTIONS : []), ...CONTROL_OPTIONS, ...allowed]), what);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw new ArgumentTypeError(`signal: expected an AbortSignal, got ${describe(options.signal)}`);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    throw new ArgumentTypeError(
      `onProgress: expected a function ({ phase, done, total }) => void, got ${describe(options.onProgress)}`,
    );
  for (const name of ['newTokens', 'maxNewTokens'])
    if (options[name] !== undefined && (!Number.isInteger(options[name]) || options[name] < 1))
      throw new ArgumentRangeError(`${name}: expected an integer ≥ 1, got ${describe(options[name])}`);
  options.signal?.throwIfAborted();
  return { ...options, onProgress: options.onProgress ?? (() => {}) };
}

/** An integer option from `least` to `most`, `fallback` when absent. */
export function wholeOption(options, name, least, most, fallback) {
  const v = options[name];
  if (v === undefined) return fallback;
  if (!Number.isInteger(v)) throw new ArgumentTypeError(`${name}: expected an integer, got ${describe(v)}`);
  if (v < least || v > most) throw new ArgumentRangeError(`${name}: expected ${least} to ${most}, got ${v}`);
  return v;
}

// Which of the reference's options each kind of model takes: the others would be ignored, so they are refused.
const KIND_OPTIONS = {
  decoder: ['newTokens', 'the length of its continuation'],
  'encoder-decoder': ['maxNewTokens', 'the longest translation'],
  encoder: ['positions', 'the positions it fills'],
};

/** Refuses a reference option the model's kind does not use, naming the one it does. */
export function checkKindOptions(options, config) {
  const [own, meaning] = KIND_OPTIONS[config.kind];
  for (const name of ['newTokens', 'maxNewTokens', 'positions'])
    if (name !== own && options[name] !== undefined)
      throw new ArgumentTypeError(
        `${name}: a ${config.modelType} is ${/^[aeiou]/.test(config.kind) ? 'an' : 'a'} ${config.kind}, which takes ${own} (${meaning}), not ${name}`,
      );
}

// The checks of the tagger trainer's calls (engine.createTrainer and the
// trainer's methods), against the engine's limits.trainer (TrainerLimits in
// src/train/trainer.hpp) and the model's parameter shapes.
import { describe, flag, typedArray, checkObject, integer, real, tagOf } from './checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from './errors.mjs';

const TRAINER_KNOWN = new Set([
  'vocabSize',
  'numTags',
  'maxLength',
  'dModel',
  'numHeads',
  'mlpHidden',
  'learningRate',
  'beta1',
  'beta2',
  'epsilon',
  'seed',
]);

/**
 * real() for an option the engine holds as a 32-bit float: the number must be
 * in range as that float too (Math.fround), or the engine would get another
 * one: 1e39 becomes Infinity, 1e-50 zero, 0.9999999999 one.
 */
function float(args, name, options) {
  const v = real(args, name, options);
  const f = Math.fround(v);
  const { above, below, inclusiveLow } = options;
  if (Number.isFinite(f) && (inclusiveLow ? f >= above : f > above) && (below === undefined || f < below)) return v;
  const range = `${inclusiveLow ? '≥' : '>'} ${above}${below === undefined ? '' : ` and < ${below}`}`;
  throw new ArgumentRangeError(
    `${name}: expected a finite number ${range} as a 32-bit float, got ${v} (${f} as a float)`,
  );
}

/**
 * Checks createTrainer's options and fills in the defaults (dModel 16, one
 * head, no MLP, Adam with lr 0.01, seed 1). `limits`: the engine's
 * limits.trainer (TrainerLimits in src/train/trainer.hpp).
 */
export function normalizeTrainerOptions(args, limits) {
  checkObject(args, TRAINER_KNOWN, 'createTrainer');
  const L = limits;
  const dModel = integer(args, 'dModel', { min: 1, max: L.dModel, fallback: 16 });
  const numHeads = integer(args, 'numHeads', { min: 1, max: dModel, fallback: 1 });
  if (dModel % numHeads !== 0)
    throw new ArgumentRangeError(
      `numHeads: expected a divisor of dModel (${dModel}), so that every head count has the same width, got ${numHeads}`,
    );
  return {
    vocabSize: integer(args, 'vocabSize', { min: 1, max: L.vocabSize }),
    numTags: integer(args, 'numTags', { min: 1, max: L.numTags }),
    maxLength: integer(args, 'maxLength', { min: 1, max: L.maxLength }),
    dModel,
    numHeads,
    mlpHidden: integer(args, 'mlpHidden', { min: 0, max: L.mlpHidden, fallback: 0 }),
    learningRate: float(args, 'learningRate', { above: 0, fallback: 0.01 }),
    beta1: float(args, 'beta1', { above: 0, below: 1, fallback: 0.9, inclusiveLow: true }),
    beta2: float(args, 'beta2', { above: 0, below: 1, fallback: 0.999, inclusiveLow: true }),
    epsilon: float(args, 'epsilon', { above: 0, fallback: 1e-8 }),
    seed: integer(args, 'seed', { min: 0, max: 2 ** 32 - 1, fallback: 1 }),
  };
}

// One sentence's ids (tokens or tags) as a list: an Array or an Int32Array.
function idList(value, name) {
  if (Array.isArray(value)) return value;
  if (tagOf.call(value) === 'Int32Array') return value;
  throw new ArgumentTypeError(`${name}: expected an Array or Int32Array of integer ids, got ${describe(value)}`);
}

/**
 * Packs `sentences` ([{ tokens, tags }], ids as Arrays or Int32Arrays) into
 * the trainer's layout: tokens and tags [count, maxLength], lengths [count].
 * Tags are required when `needTags`; -1 marks a token without loss.
 */
export function normalizeSentences(args, config, where, needTags, limits) {
  checkObject(args, new Set(where === 'evaluate' ? ['sentences', 'returnAttention'] : ['sentences']), where);
  const { sentences } = args;
  if (!Array.isArray(sentences) || sentences.length === 0)
    throw new ArgumentTypeError(
      `sentences: expected a non-empty Array of { tokens${needTags ? ', tags' : ', tags?'} }, got ${describe(sentences)}`,
    );
  if (sentences.length * config.maxLength > limits.maxElements)
    throw new ArgumentRangeError(
      `sentences: ${sentences.length} sentences of maxLength ${config.maxLength} are more than ${limits.maxElements} slots`,
    );
  const L = config.maxLength;
  const count = sentences.length;
  const tokens = new Int32Array(count * L);
  const lengths = new Int32Array(count);
  const anyTags = needTags || sentences.some((s) => s && s.tags !== undefined && s.tags !== null);
  const tags = anyTags ? new Int32Array(count * L).fill(-1) : undefined;
  sentences.forEach((sentence, i) => {
    const at = `sentences[${i}]`;
    if (sentence === null || typeof sentence !== 'object' || Array.isArray(sentence))
      throw new ArgumentTypeError(
        `${at}: expected an object { tokens${needTags ? ', tags' : ', tags?'} }, got ${describe(sentence)}`,
      );
    const ids = idList(sentence.tokens, `${at}.tokens`);
    if (ids.length < 1 || ids.length > L)
      throw new ArgumentRangeError(`${at}.tokens: expected 1 to maxLength=${L} tokens, got ${ids.length}`);
    lengths[i] = ids.length;
    for (let t = 0; t < ids.length; t++) {
      const id = ids[t];
      if (!Number.isInteger(id) || id < 0 || id >= config.vocabSize)
        throw new ArgumentRangeError(
          `${at}.tokens[${t}]: expected an integer id from 0 to vocabSize-1=${config.vocabSize - 1}, got ${describe(id)}`,
        );
      tokens[i * L + t] = id;
    }
    if (sentence.tags === undefined || sentence.tags === null) {
      if (needTags)
        throw new ArgumentTypeError(
          `${at}.tags: expected an Array or Int32Array of ${ids.length} tag ids (-1 = no loss), got ${describe(sentence.tags)}`,
        );
      return;
    }
    const tagIds = idList(sentence.tags, `${at}.tags`);
    if (tagIds.length !== ids.length)
      throw new ArgumentRangeError(`${at}.tags: expected ${ids.length} tags (one per token), got ${tagIds.length}`);
    for (let t = 0; t < tagIds.length; t++) {
      const tag = tagIds[t];
      if (!Number.isInteger(tag) || tag < -1 || tag >= config.numTags)
        throw new ArgumentRangeError(
          `${at}.tags[${t}]: expected -1 (no loss) or a tag id from 0 to numTags-1=${config.numTags - 1}, got ${describe(tag)}`,
        );
      tags[i * L + t] = tag;
    }
  });
  return {
    count,
    tokens,
    lengths,
    tags,
    returnAttention: where === 'evaluate' ? flag(args, 'returnAttention') : undefined,
  };
}

/**
 * Checks trainer.train's { steps, batchSize } against the engine's
 * limits.trainer, their work (steps × batchSize × maxLength token slots of
 * the trainer's `config`) against limits.trainer.slotsPerTrain included: it
 * bounds how long one call runs. Without `config`, maxLength counts as 1 (a
 * bound every trainer passes; the engine then checks the rest).
 */
export function normalizeTrainArguments(args, limits, config) {
  checkObject(args, new Set(['steps', 'batchSize']), 'train');
  const steps = integer(args, 'steps', { min: 1, max: limits.steps });
  const batchSize = integer(args, 'batchSize', { min: 1, max: limits.batchSize, fallback: 32 });
  const maxLength = config?.maxLength ?? 1;
  const most = limits.slotsPerTrain;
  const slots = steps * batchSize * maxLength; // below 2^53: exact
  if (slots > most) {
    const perStep = batchSize * maxLength;
    throw new ArgumentRangeError(
      `train: steps×batchSize×maxLength = ${steps}×${batchSize}×${maxLength} = ${slots} token slots, more than ${most} per call; ` +
        (perStep <= most
          ? `split it into calls of at most ${Math.floor(most / perStep)} steps`
          : `use a batchSize of at most ${Math.floor(most / maxLength)}`),
    );
  }
  return { steps, batchSize };
}

/**
 * Checks trainer.setParameters' { name: Float32Array } (any subset of the
 * parameters) against `shapes`, { name: [rows, cols] } as the engine lays the
 * model out (parameter_layout() in src/train/trainer.cpp).
 */
export function normalizeParameters(args, shapes) {
  checkObject(args, new Set(Object.keys(shapes)), 'setParameters');
  const values = {};
  for (const [name, [rows, cols]] of Object.entries(shapes)) {
    const v = typedArray(args, name, Float32Array, rows * cols, `[${rows}, ${cols}]`, true);
    if (v === undefined) continue;
    const bad = v.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) throw new ArgumentRangeError(`${name}: expected finite numbers, got ${v[bad]} at index ${bad}`);
    values[name] = v;
  }
  return values;
}

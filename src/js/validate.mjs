// The one place in JS that checks the public API's arguments and computes
// every expected length, with messages that name the argument, what was
// expected and what was given. The limits are not defined here: they come
// from the C++ core through the bindings (engine.limits, read at load), so
// these checks and the core's own safety net cannot disagree.

const DIMS = ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV'];
const ARRAYS = ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];
const FLAGS = ['causal', 'returnAttention', 'returnProjections', 'returnScores'];
// Descriptive fields of the reference fixture format (tests/fixtures/README.md),
// accepted and ignored so that a fixture converted to typed arrays is a valid call.
const FIXTURE_FIELDS = ['name', 'description', 'source', 'selfAttention', 'output', 'attention', 'tolerance'];
// The expected gradients of a gradient fixture (tests/fixtures/grad), accepted and ignored likewise.
const GRAD_FIELDS = ['gradQuery', 'gradKey', 'gradValue', 'gradWQ', 'gradWK', 'gradWV', 'gradWO', 'gradBQ', 'gradBK', 'gradBV', 'gradBO'];
const KNOWN = new Set([...DIMS, ...ARRAYS, ...FLAGS, 'keyPaddingMask', ...FIXTURE_FIELDS]);
const LAYER_KNOWN = new Set(['dModel', 'numHeads', 'dK', 'dV', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO']);
const BACKWARD_KNOWN = new Set([...DIMS, ...ARRAYS, 'causal', 'keyPaddingMask', 'gradOutput', ...FIXTURE_FIELDS, ...GRAD_FIELDS]);
const FORWARD_KNOWN = new Set(['batch', 'seqLenQ', 'seqLenK', 'query', 'key', 'value', 'keyPaddingMask', ...FLAGS]);


export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an Array of ${value.length} elements`;
  const tag = tagOf.call(value);
  if (tag !== undefined) return `${/^[AEIOU]/.test(tag) ? 'an' : 'a'} ${tag} of ${lengthOf.call(value)} elements`;
  if (ArrayBuffer.isView(value)) return `a DataView of ${value.byteLength} bytes`;
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value)})`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return `${typeof value} ${String(value)}`;
}

// The known name a typo most likely meant: the same name in another case,
// else the longest known name that is a prefix of it or that it is a prefix of.
function closest(name, candidates) {
  const lower = name.toLowerCase();
  const exact = candidates.find((c) => c.toLowerCase() === lower);
  if (exact) return exact;
  const related = candidates.filter((c) => c.toLowerCase().startsWith(lower) || lower.startsWith(c.toLowerCase()));
  return related.sort((a, b) => b.length - a.length)[0];
}

export function rejectUnknown(obj, known, where) {
  for (const name of Object.keys(obj)) {
    if (!known.has(name)) {
      const hint = closest(name, [...known]);
      throw new TypeError(
        `${where}: unknown argument "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; ` +
          `expected one of ${[...known].join(', ')}`,
      );
    }
  }
}

function dimension(args, name, limits, fallback) {
  const v = args[name];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new TypeError(`${name}: expected an integer >= 1, got ${describe(v)}`);
  }
  if (typeof v !== 'number') throw new TypeError(`${name}: expected an integer >= 1, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < 1 || v > limits.maxElements)
    throw new RangeError(`${name}: expected an integer from 1 to ${limits.maxElements}, got ${v}`);
  return v;
}

function flag(args, name) {
  const v = args[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new TypeError(`${name}: expected a boolean, got ${describe(v)}`);
  return v;
}

// The intrinsic typed-array accessors: a subclass or a Proxy cannot make them
// lie (an overridden `length` once let a short array run on stale data).
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const intrinsic = (name) => Object.getOwnPropertyDescriptor(TypedArrayPrototype, name).get;
const tagOf = intrinsic(Symbol.toStringTag);
const lengthOf = intrinsic('length');
const bufferOf = intrinsic('buffer');
const offsetOf = intrinsic('byteOffset');

function typedArray(args, name, Type, count, shape, optional) {
  const v = args[name];
  if (v === undefined || v === null) {
    if (optional) return undefined;
    throw new TypeError(`${name}: expected a ${Type.name} of ${count} elements ${shape}, got ${describe(v)}`);
  }
  // The [[TypedArrayName]] slot, read through the intrinsic getter: undefined
  // for anything that is not a real typed array (a Proxy included), from any realm.
  if (tagOf.call(v) !== Type.name)
    throw new TypeError(`${name}: expected a ${Type.name} of ${count} elements ${shape}, got ${describe(v)}`);
  const length = lengthOf.call(v);
  if (length !== count) {
    const detached = length === 0 && bufferOf.call(v).byteLength === 0 ? ' (is its buffer detached?)' : '';
    throw new RangeError(`${name}: expected ${count} elements ${shape}, got ${length}${detached}`);
  }
  // A plain view of exactly the checked elements is what reaches the bindings.
  return Object.getPrototypeOf(v) === Type.prototype ? v : new Type(bufferOf.call(v), offsetOf.call(v), length);
}

function count(limits, name, ...factors) {
  const n = factors.reduce((a, b) => a * b, 1);
  if (n > limits.maxElements)
    throw new RangeError(`${name}: ${factors.join('×')} = ${n} elements, more than ${limits.maxElements}`);
  return n;
}

function checkObject(args, known, where) {
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw new TypeError(`${where}: expected an object of arguments, got ${describe(args)}`);
  rejectUnknown(args, known, where);
}

// dModel, numHeads, dK, dV: the shape of a layer's heads.
function checkHeads(args, limits) {
  const dModel = dimension(args, 'dModel', limits);
  const numHeads = dimension(args, 'numHeads', limits);
  const split = (name) => {
    if (args[name] !== undefined && args[name] !== null) return dimension(args, name, limits);
    if (dModel % numHeads !== 0)
      throw new RangeError(
        `numHeads: expected a divisor of dModel (${dModel}) when ${name} is not given, got ${numHeads}; ` +
          `pass ${name} explicitly for heads of another width`,
      );
    return dModel / numHeads;
  };
  return { dModel, numHeads, dK: split('dK'), dV: split('dV') };
}

// wQ … bO, for heads of the given shape.
function checkWeights(args, { dModel, numHeads, dK, dV }, limits) {
  const F = Float32Array;
  const hk = `numHeads*dK=${numHeads * dK}`;
  const hv = `numHeads*dV=${numHeads * dV}`;
  const wQK = count(limits, 'wQ', dModel, numHeads, dK);
  return {
    wQ: typedArray(args, 'wQ', F, wQK, `[dModel=${dModel}, ${hk}]`),
    wK: typedArray(args, 'wK', F, wQK, `[dModel=${dModel}, ${hk}]`),
    wV: typedArray(args, 'wV', F, count(limits, 'wV', dModel, numHeads, dV), `[dModel=${dModel}, ${hv}]`),
    wO: typedArray(args, 'wO', F, count(limits, 'wO', numHeads, dV, dModel), `[${hv}, dModel=${dModel}]`),
    bQ: typedArray(args, 'bQ', F, numHeads * dK, `[${hk}]`, true),
    bK: typedArray(args, 'bK', F, numHeads * dK, `[${hk}]`, true),
    bV: typedArray(args, 'bV', F, numHeads * dV, `[${hv}]`, true),
    bO: typedArray(args, 'bO', F, dModel, `[dModel=${dModel}]`, true),
  };
}

// The activations, masks and flags of one call through heads of the given shape.
function checkActivations(args, { dModel, numHeads }, limits) {
  const batch = dimension(args, 'batch', limits, 1);
  const seqLenQ = dimension(args, 'seqLenQ', limits);
  const seqLenK = dimension(args, 'seqLenK', limits, seqLenQ);
  const F = Float32Array;
  const query = typedArray(args, 'query', F, count(limits, 'query', batch, seqLenQ, dModel), `[batch=${batch}, seqLenQ=${seqLenQ}, dModel=${dModel}]`);
  const kvShape = `[batch=${batch}, seqLenK=${seqLenK}, dModel=${dModel}]`;
  const kvCount = count(limits, 'key', batch, seqLenK, dModel);
  let key = typedArray(args, 'key', F, kvCount, kvShape, seqLenK === seqLenQ);
  let value = typedArray(args, 'value', F, kvCount, kvShape, seqLenK === seqLenQ);
  // Self-attention: key and value default to the query, which is copied into wasm once.
  if (key === query) key = undefined;
  if (value === query) value = undefined;
  const call = {
    batch, seqLenQ, seqLenK, query, key, value,
    keyPaddingMask: typedArray(args, 'keyPaddingMask', Uint8Array, count(limits, 'keyPaddingMask', batch, seqLenK), `[batch=${batch}, seqLenK=${seqLenK}]`, true),
    causal: flag(args, 'causal'),
    returnAttention: flag(args, 'returnAttention'),
    returnProjections: flag(args, 'returnProjections'),
    returnScores: flag(args, 'returnScores'),
  };
  if (call.returnAttention || call.returnScores) count(limits, 'attention', batch, numHeads, seqLenQ, seqLenK);
  if (call.keyPaddingMask) {
    const bad = call.keyPaddingMask.findIndex((m) => m > 1);
    if (bad >= 0)
      throw new RangeError(`keyPaddingMask: expected only 0 (use the key) or 1 (ignore it), got ${call.keyPaddingMask[bad]} at index ${bad}`);
  }
  return call;
}

/**
 * Checks the arguments of multiHeadAttention and fills in the defaults.
 * Returns the normalized call: every dimension, every array (key and value
 * left out when they are the query).
 */
export function normalizeArguments(args, limits) {
  checkObject(args, KNOWN, 'multiHeadAttention');
  const heads = checkHeads(args, limits);
  return { ...heads, ...checkActivations(args, heads, limits), ...checkWeights(args, heads, limits) };
}

/**
 * Checks the arguments of multiHeadAttentionBackward: those of the forward call
 * (no return* flags) plus gradOutput [batch, seqLenQ, dModel].
 */
export function normalizeBackwardArguments(args, limits) {
  checkObject(args, BACKWARD_KNOWN, 'multiHeadAttentionBackward');
  const heads = checkHeads(args, limits);
  const { returnAttention, returnProjections, returnScores, ...activations } = checkActivations(args, heads, limits);
  // Only when both are left out is the input shared (one gradient, gradQuery).
  // If just one of them is the query, it is passed explicitly, and its gradient
  // comes back separately from gradQuery's.
  if ((activations.key === undefined) !== (activations.value === undefined)) {
    activations.key ??= activations.query;
    activations.value ??= activations.query;
  }
  const { batch, seqLenQ } = activations;
  const gradOutput = typedArray(args, 'gradOutput', Float32Array, count(limits, 'gradOutput', batch, seqLenQ, heads.dModel),
    `[batch=${batch}, seqLenQ=${seqLenQ}, dModel=${heads.dModel}]`);
  return { ...heads, ...activations, ...checkWeights(args, heads, limits), gradOutput };
}

/** Checks the arguments of createLayer: { dModel, numHeads, dK, dV, wQ … bO }. */
export function normalizeLayerArguments(args, limits) {
  checkObject(args, LAYER_KNOWN, 'createLayer');
  const heads = checkHeads(args, limits);
  return { ...heads, ...checkWeights(args, heads, limits) };
}

/** Checks the arguments of layer.forward, for a layer whose heads have the shape `heads`. */
export function normalizeForwardArguments(args, heads, limits) {
  checkObject(args, FORWARD_KNOWN, 'forward');
  return checkActivations(args, heads, limits);
}

// ---- The tagger trainer (engine.createTrainer) ------------------------------

const TRAINER_KNOWN = new Set(['vocabSize', 'numTags', 'maxLength', 'dModel', 'numHeads', 'mlpHidden', 'learningRate', 'beta1', 'beta2', 'epsilon', 'seed']);

function integer(args, name, { min, max, fallback }) {
  const v = args[name];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new TypeError(`${name}: expected an integer from ${min} to ${max}, got ${describe(v)}`);
  }
  if (typeof v !== 'number') throw new TypeError(`${name}: expected an integer from ${min} to ${max}, got ${describe(v)}`);
  if (!Number.isInteger(v) || v < min || v > max) throw new RangeError(`${name}: expected an integer from ${min} to ${max}, got ${v}`);
  return v;
}

function real(args, name, { above, below, fallback, inclusiveLow }) {
  const v = args[name];
  const range = `${inclusiveLow ? '≥' : '>'} ${above}${below === undefined ? '' : ` and < ${below}`}`;
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number') throw new TypeError(`${name}: expected a finite number ${range}, got ${describe(v)}`);
  if (!Number.isFinite(v) || (inclusiveLow ? v < above : v <= above) || (below !== undefined && v >= below))
    throw new RangeError(`${name}: expected a finite number ${range}, got ${v}`);
  return v;
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
    throw new RangeError(`numHeads: expected a divisor of dModel (${dModel}), so that every head count has the same width, got ${numHeads}`);
  return {
    vocabSize: integer(args, 'vocabSize', { min: 1, max: L.vocabSize }),
    numTags: integer(args, 'numTags', { min: 1, max: L.numTags }),
    maxLength: integer(args, 'maxLength', { min: 1, max: L.maxLength }),
    dModel,
    numHeads,
    mlpHidden: integer(args, 'mlpHidden', { min: 0, max: L.mlpHidden, fallback: 0 }),
    learningRate: real(args, 'learningRate', { above: 0, fallback: 0.01 }),
    beta1: real(args, 'beta1', { above: 0, below: 1, fallback: 0.9, inclusiveLow: true }),
    beta2: real(args, 'beta2', { above: 0, below: 1, fallback: 0.999, inclusiveLow: true }),
    epsilon: real(args, 'epsilon', { above: 0, fallback: 1e-8 }),
    seed: integer(args, 'seed', { min: 0, max: 2 ** 32 - 1, fallback: 1 }),
  };
}

// One sentence's ids (tokens or tags) as a list: an Array or an Int32Array.
function idList(value, name) {
  if (Array.isArray(value)) return value;
  if (tagOf.call(value) === 'Int32Array') return value;
  throw new TypeError(`${name}: expected an Array or Int32Array of integer ids, got ${describe(value)}`);
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
    throw new TypeError(`sentences: expected a non-empty Array of { tokens${needTags ? ', tags' : ', tags?'} }, got ${describe(sentences)}`);
  if (sentences.length * config.maxLength > limits.maxElements)
    throw new RangeError(
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
      throw new TypeError(`${at}: expected an object { tokens${needTags ? ', tags' : ', tags?'} }, got ${describe(sentence)}`);
    const ids = idList(sentence.tokens, `${at}.tokens`);
    if (ids.length < 1 || ids.length > L)
      throw new RangeError(`${at}.tokens: expected 1 to maxLength=${L} tokens, got ${ids.length}`);
    lengths[i] = ids.length;
    for (let t = 0; t < ids.length; t++) {
      const id = ids[t];
      if (!Number.isInteger(id) || id < 0 || id >= config.vocabSize)
        throw new RangeError(`${at}.tokens[${t}]: expected an integer id from 0 to vocabSize-1=${config.vocabSize - 1}, got ${describe(id)}`);
      tokens[i * L + t] = id;
    }
    if (sentence.tags === undefined || sentence.tags === null) {
      if (needTags) throw new TypeError(`${at}.tags: expected an Array or Int32Array of ${ids.length} tag ids (-1 = no loss), got ${describe(sentence.tags)}`);
      return;
    }
    const tagIds = idList(sentence.tags, `${at}.tags`);
    if (tagIds.length !== ids.length)
      throw new RangeError(`${at}.tags: expected ${ids.length} tags (one per token), got ${tagIds.length}`);
    for (let t = 0; t < tagIds.length; t++) {
      const tag = tagIds[t];
      if (!Number.isInteger(tag) || tag < -1 || tag >= config.numTags)
        throw new RangeError(`${at}.tags[${t}]: expected -1 (no loss) or a tag id from 0 to numTags-1=${config.numTags - 1}, got ${describe(tag)}`);
      tags[i * L + t] = tag;
    }
  });
  return { count, tokens, lengths, tags, returnAttention: where === 'evaluate' ? flag(args, 'returnAttention') : undefined };
}

/** Checks trainer.train's { steps, batchSize } against the engine's limits.trainer. */
export function normalizeTrainArguments(args, limits) {
  checkObject(args, new Set(['steps', 'batchSize']), 'train');
  return {
    steps: integer(args, 'steps', { min: 1, max: limits.steps }),
    batchSize: integer(args, 'batchSize', { min: 1, max: limits.batchSize, fallback: 32 }),
  };
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
    if (bad >= 0) throw new RangeError(`${name}: expected finite numbers, got ${v[bad]} at index ${bad}`);
    values[name] = v;
  }
  return values;
}

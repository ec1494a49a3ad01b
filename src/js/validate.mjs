// The checks of the attention calls (multiHeadAttention, its backward,
// createLayer, layer.forward): the one place in JS that computes every
// expected length. The limits are not defined here: they come from the C++
// core through the bindings (engine.limits, read at load), so these checks and
// the core's own safety net cannot disagree (tests/js/limits.test.mjs).
import { describe, dimension, flag, typedArray, count, checkObject } from './checks.mjs';
import { ArgumentRangeError, ArgumentTypeError } from './errors.mjs';

const DIMS = ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV'];
const ARRAYS = ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];
const FLAGS = ['causal', 'returnAttention', 'returnProjections', 'returnScores'];
const KNOWN = new Set([...DIMS, ...ARRAYS, ...FLAGS, 'keyPaddingMask']);
const LAYER_KNOWN = new Set(['dModel', 'numHeads', 'dK', 'dV', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO']);
const BACKWARD_KNOWN = new Set([...DIMS, ...ARRAYS, 'causal', 'keyPaddingMask', 'gradOutput']);
const FORWARD_KNOWN = new Set([
  'batch',
  'seqLenQ',
  'seqLenK',
  'query',
  'key',
  'value',
  'keyPaddingMask',
  'output',
  ...FLAGS,
]);

// The shape of query, output and gradOutput [batch, seqLenQ, dModel], as
// checks describe it (a function: the text is made only for an error).
const sequenceShape = (batch, seqLenQ, dModel) => () => `[batch=${batch}, seqLenQ=${seqLenQ}, dModel=${dModel}]`;

// dModel, numHeads, dK, dV: the shape of a layer's heads.
function checkHeads(args, limits) {
  const dModel = dimension(args, 'dModel', limits);
  const numHeads = dimension(args, 'numHeads', limits);
  const split = (name) => {
    if (args[name] !== undefined && args[name] !== null) return dimension(args, name, limits);
    if (dModel % numHeads !== 0)
      throw new ArgumentRangeError(
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
  // Shapes as functions: their text is made only for an error message.
  const query = typedArray(
    args,
    'query',
    F,
    count(limits, 'query', batch, seqLenQ, dModel),
    sequenceShape(batch, seqLenQ, dModel),
  );
  const kvShape = () => `[batch=${batch}, seqLenK=${seqLenK}, dModel=${dModel}]`;
  const kvCount = count(limits, 'key', batch, seqLenK, dModel);
  // key and value: both left out (or both the query) is self-attention, the
  // query copied into wasm once; value left out is the key (as in
  // attention(query, key, key)); value without key is refused.
  const given = (name) => (args[name] === null ? undefined : args[name]);
  const sources = { key: given('key'), value: given('value') ?? given('key') };
  if (sources.key === undefined && sources.value !== undefined)
    throw new ArgumentTypeError(
      `key: expected a Float32Array of ${kvCount} elements ${kvShape()} when value is given, got ${describe(args.key)}`,
    );
  const self = sources.key === args.query && sources.value === args.query;
  const key = self ? undefined : typedArray(sources, 'key', F, kvCount, kvShape, seqLenK === seqLenQ);
  const value = self ? undefined : typedArray(sources, 'value', F, kvCount, kvShape, seqLenK === seqLenQ);
  const call = {
    batch,
    seqLenQ,
    seqLenK,
    query,
    key,
    value,
    keyPaddingMask: typedArray(
      args,
      'keyPaddingMask',
      Uint8Array,
      count(limits, 'keyPaddingMask', batch, seqLenK),
      () => `[batch=${batch}, seqLenK=${seqLenK}]`,
      true,
    ),
    causal: flag(args, 'causal'),
    returnAttention: flag(args, 'returnAttention'),
    returnProjections: flag(args, 'returnProjections'),
    returnScores: flag(args, 'returnScores'),
  };
  if (call.returnAttention || call.returnScores) count(limits, 'attention', batch, numHeads, seqLenQ, seqLenK);
  if (call.keyPaddingMask) {
    const bad = call.keyPaddingMask.findIndex((m) => m > 1);
    if (bad >= 0)
      throw new ArgumentRangeError(
        `keyPaddingMask: expected only 0 (use the key) or 1 (ignore it), got ${call.keyPaddingMask[bad]} at index ${bad}`,
      );
  }
  return call;
}

/**
 * Checks the arguments of multiHeadAttention and fills in the defaults.
 * Returns the normalized call: every dimension, every array (key and value
 * left out when they are the query).
 */
export function normalizeArguments(args, limits) {
  args = checkObject(args, KNOWN, 'multiHeadAttention');
  const heads = checkHeads(args, limits);
  return { ...heads, ...checkActivations(args, heads, limits), ...checkWeights(args, heads, limits) };
}

/**
 * Checks the arguments of multiHeadAttentionBackward: those of the forward call
 * (no return* flags) plus gradOutput [batch, seqLenQ, dModel].
 */
export function normalizeBackwardArguments(args, limits) {
  args = checkObject(args, BACKWARD_KNOWN, 'multiHeadAttentionBackward');
  const heads = checkHeads(args, limits);
  const { returnAttention, returnProjections, returnScores, ...activations } = checkActivations(args, heads, limits);
  // Self-attention (key and value left out, or both the query) has one
  // shared input and one gradient, gradQuery; otherwise gradKey and gradValue
  // come back separately (also when value was left out and is the key).
  const { batch, seqLenQ } = activations;
  const gradOutput = typedArray(
    args,
    'gradOutput',
    Float32Array,
    count(limits, 'gradOutput', batch, seqLenQ, heads.dModel),
    sequenceShape(batch, seqLenQ, heads.dModel),
  );
  return { ...heads, ...activations, ...checkWeights(args, heads, limits), gradOutput };
}

/** Checks the arguments of createLayer: { dModel, numHeads, dK, dV, wQ … bO }. */
export function normalizeLayerArguments(args, limits) {
  args = checkObject(args, LAYER_KNOWN, 'createLayer');
  const heads = checkHeads(args, limits);
  return { ...heads, ...checkWeights(args, heads, limits) };
}

/**
 * Checks the arguments of layer.forward, for a layer whose heads have the
 * shape `heads`. Returns [call, output]: the normalized call (call.output a
 * plain view of the caller's `output` array, when one is given, to write the
 * result into) and that array itself, to return as result.output.
 */
export function normalizeForwardArguments(args, heads, limits) {
  args = checkObject(args, FORWARD_KNOWN, 'forward');
  const call = checkActivations(args, heads, limits);
  const { batch, seqLenQ } = call;
  const shape = sequenceShape(batch, seqLenQ, heads.dModel);
  call.output = typedArray(args, 'output', Float32Array, call.query.length, shape, true);
  return [call, call.output && args.output];
}

// The argument names of the API's calls, for tests that split one call's
// arguments between createLayer and layer.forward.

/** createLayer's arguments: the heads' shape and the weights. */
export const LAYER = ['dModel', 'numHeads', 'dK', 'dV', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];

/** layer.forward's arguments: the activations, masks and flags. */
export const FORWARD = [
  'batch',
  'seqLenQ',
  'seqLenK',
  'query',
  'key',
  'value',
  'keyPaddingMask',
  'causal',
  'returnAttention',
  'returnProjections',
  'returnScores',
];

/** The named fields of `obj` that are defined. */
export const pick = (obj, names) =>
  Object.fromEntries(names.filter((n) => obj[n] !== undefined).map((n) => [n, obj[n]]));

// The bad inputs of tests/js/hardening-errors.test.mjs, each with the error
// type and message it must get: tables of (label, change to a valid call,
// error class, message pattern) for createLayer, layer.forward and
// multiHeadAttention, built around the cross_attention fixture.
import { loadFixture } from './fixtures.mjs';

export const fx = loadFixture('cross_attention');
export const MAX = 2 ** 31 - 1;
export const WEIGHT_NAMES = ['dModel', 'numHeads', 'dK', 'dV', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];
export const weights = () => Object.fromEntries(WEIGHT_NAMES.map((n) => [n, fx.args[n]]));
export const activations = () => ({
  batch: 2,
  seqLenQ: 3,
  seqLenK: 7,
  query: fx.args.query,
  key: fx.args.key,
  value: fx.args.value,
  keyPaddingMask: new Uint8Array(14),
});
export const detached = (array) => {
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return array;
};

// Bad values of one dimension: [value, error class, what the message says it got].
export const BAD_DIMS = [
  [2.5, RangeError, 'got 2.5'],
  [0, RangeError, 'got 0'],
  [-1, RangeError, 'got -1'],
  [-0, RangeError, 'got 0'],
  [NaN, RangeError, 'got NaN'],
  [Infinity, RangeError, 'got Infinity'],
  [-Infinity, RangeError, 'got -Infinity'],
  [2 ** 31, RangeError, 'got 2147483648'],
  [1e300, RangeError, 'got 1e+300'],
  ['4', TypeError, 'got the string "4"'],
  [4n, TypeError, 'got bigint 4'],
  [true, TypeError, 'got boolean true'],
  [new Number(4), TypeError, 'got an object ([object Number])'],
  [[4], TypeError, 'got an Array of 1 elements'],
];
export const dimPattern = (name, Class, given) =>
  new RegExp(
    `^${name}: expected an integer ${Class === RangeError ? `from 1 to ${MAX}` : '>= 1'}, got ${given.slice(4).replace(/[()[\]+.]/g, '\\$&')}$`,
  );

// Every wrong form of one array: [description, value, class, pattern].
export function badArrays(name, Type, n, shape) {
  const other = Type === Float32Array ? Float64Array : Int8Array;
  const esc = shape.replace(/[[\]*]/g, '\\$&');
  return [
    [
      `${name} one element short`,
      new Type(n - 1),
      RangeError,
      new RegExp(`^${name}: expected ${n} elements ${esc}, got ${n - 1}$`),
    ],
    [
      `${name} one element too long`,
      new Type(n + 1),
      RangeError,
      new RegExp(`^${name}: expected ${n} elements ${esc}, got ${n + 1}$`),
    ],
    // An empty array is told apart from one whose buffer was detached.
    [`${name} empty`, new Type(0), RangeError, new RegExp(`^${name}: expected ${n} elements ${esc}, got 0$`)],
    [
      `${name} as a plain Array`,
      Array.from(new Type(n)),
      TypeError,
      new RegExp(`^${name}: expected a ${Type.name} of ${n} elements ${esc}, got an Array of ${n} elements$`),
    ],
    [
      `${name} as a ${other.name}`,
      new other(n),
      TypeError,
      new RegExp(`^${name}: expected a ${Type.name} of ${n} elements .*got an? ${other.name} of ${n} elements$`),
    ],
    [
      `${name} with a detached buffer`,
      detached(new Type(n)),
      RangeError,
      new RegExp(`^${name}: expected ${n} elements .*got 0 \\(its buffer is detached\\)$`),
    ],
    [
      `${name} as an ArrayBuffer`,
      new Type(n).buffer,
      TypeError,
      new RegExp(`^${name}: expected a ${Type.name} .*got an object \\(\\[object ArrayBuffer\\]\\)$`),
    ],
    [`${name} as a number`, 7, TypeError, new RegExp(`^${name}: expected a ${Type.name} .*got number 7$`)],
  ];
}

export const LAYER_BAD = [
  ...[
    ['wQ', 144, '[dModel=12, numHeads*dK=12]'],
    ['wK', 144, '[dModel=12, numHeads*dK=12]'],
    ['wV', 144, '[dModel=12, numHeads*dV=12]'],
    ['wO', 144, '[numHeads*dV=12, dModel=12]'],
    ['bQ', 12, '[numHeads*dK=12]'],
    ['bK', 12, '[numHeads*dK=12]'],
    ['bV', 12, '[numHeads*dV=12]'],
    ['bO', 12, '[dModel=12]'],
  ].flatMap(([name, n, shape]) =>
    badArrays(name, Float32Array, n, shape).map(([d, v, C, p]) => [d, { [name]: v }, C, p]),
  ),
  ...['wQ', 'wK', 'wV', 'wO'].map((name) => [
    `${name} missing`,
    { [name]: undefined },
    TypeError,
    new RegExp(`^${name}: expected a Float32Array of 144 elements .*got undefined$`),
  ]),
  ...['dModel', 'numHeads', 'dK', 'dV'].flatMap((name) =>
    BAD_DIMS.map(([v, C, given]) => [
      `${name} = ${typeof v === 'bigint' ? `${v}n` : Array.isArray(v) ? '[4]' : typeof v === 'object' ? 'new Number(4)' : (JSON.stringify(v) ?? String(v))}`,
      { [name]: v },
      C,
      dimPattern(name, C, given),
    ]),
  ),
  ...['dModel', 'numHeads'].map((name) => [
    `${name} missing`,
    { [name]: undefined },
    TypeError,
    new RegExp(`^${name}: expected an integer >= 1, got undefined$`),
  ]),
  [
    'numHeads not dividing dModel, dK and dV not given',
    { numHeads: 5, dK: undefined, dV: undefined },
    RangeError,
    /^numHeads: expected a divisor of dModel \(12\) when dK is not given, got 5; pass dK explicitly/,
  ],
  [
    'numHeads not dividing dModel, dV not given',
    { numHeads: 5, dK: 4, dV: undefined },
    RangeError,
    /^numHeads: expected a divisor of dModel \(12\) when dV is not given, got 5/,
  ],
  [
    'weights whose element count passes 2^31 - 1',
    { dModel: 2 ** 16, numHeads: 2 ** 16, dK: 1, dV: 1 },
    RangeError,
    /^wQ: 65536×65536×1 = 4294967296 elements, more than 2147483647$/,
  ],
  [
    'misspelled argument numhead',
    { numhead: 3 },
    TypeError,
    /^createLayer: unknown argument "numhead" \(did you mean "numHeads"\?\); expected one of dModel, numHeads/,
  ],
  [
    'misspelled argument dmodel',
    { dmodel: 12 },
    TypeError,
    /^createLayer: unknown argument "dmodel" \(did you mean "dModel"\?\)/,
  ],
  [
    'misspelled argument WQ',
    { WQ: new Float32Array(144) },
    TypeError,
    /^createLayer: unknown argument "WQ" \(did you mean "wQ"\?\)/,
  ],
  [
    'an activation given to createLayer (query)',
    { query: fx.args.query },
    TypeError,
    /^createLayer: unknown argument "query"; expected one of /,
  ],
  [
    'a flag given to createLayer (causal)',
    { causal: true },
    TypeError,
    /^createLayer: unknown argument "causal"; expected one of /,
  ],
];

export const FORWARD_BAD = [
  ...[
    ['query', Float32Array, 72, '[batch=2, seqLenQ=3, dModel=12]'],
    ['key', Float32Array, 168, '[batch=2, seqLenK=7, dModel=12]'],
    ['value', Float32Array, 168, '[batch=2, seqLenK=7, dModel=12]'],
    ['keyPaddingMask', Uint8Array, 14, '[batch=2, seqLenK=7]'],
  ].flatMap(([name, Type, n, shape]) =>
    badArrays(name, Type, n, shape).map(([d, v, C, p]) => [d, { [name]: v }, C, p]),
  ),
  [
    'query missing',
    { query: undefined },
    TypeError,
    /^query: expected a Float32Array of 72 elements \[batch=2, seqLenQ=3, dModel=12\], got undefined$/,
  ],
  [
    'key missing while value is given',
    { key: undefined },
    TypeError,
    /^key: expected a Float32Array of 168 elements .*when value is given, got undefined$/,
  ],
  [
    'keyPaddingMask as a Uint8ClampedArray',
    { keyPaddingMask: new Uint8ClampedArray(14) },
    TypeError,
    /^keyPaddingMask: expected a Uint8Array of 14 elements .*got an? Uint8ClampedArray of 14 elements$/,
  ],
  [
    'keyPaddingMask holding a 2',
    { keyPaddingMask: Uint8Array.from({ length: 14 }, (_, i) => (i === 13 ? 2 : 0)) },
    RangeError,
    /^keyPaddingMask: expected only 0 \(use the key\) or 1 \(ignore it\), got 2 at index 13$/,
  ],
  ...['batch', 'seqLenQ', 'seqLenK'].flatMap((name) =>
    BAD_DIMS.map(([v, C, given]) => [
      `${name} = ${typeof v === 'bigint' ? `${v}n` : Array.isArray(v) ? '[4]' : typeof v === 'object' ? 'new Number(4)' : (JSON.stringify(v) ?? String(v))}`,
      { [name]: v },
      C,
      dimPattern(name, C, given),
    ]),
  ),
  ['seqLenQ missing', { seqLenQ: undefined }, TypeError, /^seqLenQ: expected an integer >= 1, got undefined$/],
  [
    'sizes whose element count passes 2^31 - 1',
    { seqLenQ: 2 ** 30 },
    RangeError,
    /^query: 2×1073741824×12 = 25769803776 elements, more than 2147483647$/,
  ],
  [
    'attention weights whose count passes 2^31 - 1',
    {
      batch: 1,
      seqLenQ: 2 ** 16,
      seqLenK: 2 ** 14,
      query: new Float32Array(12 * 2 ** 16),
      key: new Float32Array(12 * 2 ** 14),
      value: new Float32Array(12 * 2 ** 14),
      keyPaddingMask: undefined,
      returnAttention: true,
    },
    RangeError,
    /^attention: 1×3×65536×16384 = 3221225472 elements, more than 2147483647$/,
  ],
  ...['causal', 'returnAttention', 'returnProjections', 'returnScores'].flatMap((name) => [
    [
      `${name} as the string "true"`,
      { [name]: 'true' },
      TypeError,
      new RegExp(`^${name}: expected a boolean, got the string "true"$`),
    ],
    [`${name} as the number 1`, { [name]: 1 }, TypeError, new RegExp(`^${name}: expected a boolean, got number 1$`)],
    [
      `${name} as new Boolean(true)`,
      { [name]: new Boolean(true) },
      TypeError,
      new RegExp(`^${name}: expected a boolean, got an object \\(\\[object Boolean\\]\\)$`),
    ],
  ]),
  [
    'misspelled argument seqlenQ',
    { seqlenQ: 3 },
    TypeError,
    /^forward: unknown argument "seqlenQ" \(did you mean "seqLenQ"\?\); expected one of batch, seqLenQ/,
  ],
  [
    'misspelled argument Causal',
    { Causal: true },
    TypeError,
    /^forward: unknown argument "Causal" \(did you mean "causal"\?\)/,
  ],
  [
    'misspelled argument returnattention',
    { returnattention: true },
    TypeError,
    /^forward: unknown argument "returnattention" \(did you mean "returnAttention"\?\)/,
  ],
  [
    'unknown argument mask',
    { mask: new Uint8Array(14) },
    TypeError,
    /^forward: unknown argument "mask" \(did you mean "keyPaddingMask"\?\); expected one of /,
  ],
  [
    'a weight given to forward (wQ)',
    { wQ: fx.args.wQ },
    TypeError,
    /^forward: unknown argument "wQ"; expected one of /,
  ],
  [
    'a head shape given to forward (numHeads)',
    { numHeads: 3 },
    TypeError,
    /^forward: unknown argument "numHeads"; expected one of /,
  ],
];

// multiHeadAttention cases that errors.test.mjs does not have.
export const CALL_BAD = [
  [
    'returnProjections as a string',
    { returnProjections: 'yes' },
    TypeError,
    /^returnProjections: expected a boolean, got the string "yes"$/,
  ],
  [
    'keyPaddingMask as a plain Array',
    { keyPaddingMask: new Array(14).fill(0) },
    TypeError,
    /^keyPaddingMask: expected a Uint8Array of 14 elements \[batch=2, seqLenK=7\], got an Array of 14 elements$/,
  ],
  [
    'keyPaddingMask empty',
    { keyPaddingMask: new Uint8Array(0) },
    RangeError,
    /^keyPaddingMask: expected 14 elements \[batch=2, seqLenK=7\], got 0$/,
  ],
  [
    'numHeads as new Number(3)',
    { numHeads: new Number(3) },
    TypeError,
    /^numHeads: expected an integer >= 1, got an object \(\[object Number\]\)$/,
  ],
  [
    'dModel = -Infinity',
    { dModel: -Infinity },
    RangeError,
    /^dModel: expected an integer from 1 to 2147483647, got -Infinity$/,
  ],
  [
    'seqLenK = 1e300',
    { seqLenK: 1e300 },
    RangeError,
    /^seqLenK: expected an integer from 1 to 2147483647, got 1e\+300$/,
  ],
  [
    'causal as new Boolean(false)',
    { causal: new Boolean(false) },
    TypeError,
    /^causal: expected a boolean, got an object \(\[object Boolean\]\)$/,
  ],
  [
    'misspelled argument seqlenK',
    { seqlenK: 7 },
    TypeError,
    /^multiHeadAttention: unknown argument "seqlenK" \(did you mean "seqLenK"\?\)/,
  ],
  [
    'misspelled argument dk',
    { dk: 4 },
    TypeError,
    /^multiHeadAttention: unknown argument "dk" \(did you mean "dK"\?\)/,
  ],
  [
    'misspelled argument returnattention',
    { returnattention: true },
    TypeError,
    /^multiHeadAttention: unknown argument "returnattention" \(did you mean "returnAttention"\?\)/,
  ],
  [
    'misspelled argument Query',
    { Query: fx.args.query },
    TypeError,
    /^multiHeadAttention: unknown argument "Query" \(did you mean "query"\?\)/,
  ],
  [
    'an option of createAttention (threads)',
    { threads: 2 },
    TypeError,
    /^multiHeadAttention: unknown argument "threads"; expected one of /,
  ],
];

export const NOT_OBJECTS = [
  [undefined, /got undefined$/],
  [null, /got null$/],
  [42, /got number 42$/],
  ['query', /got the string "query"$/],
  [[1, 2], /got an Array of 2 elements$/],
  [true, /got boolean true$/],
];

// Bad arguments reject with a TypeError or RangeError whose message names the
// argument, what was expected and what was given; the engine stays usable.
// Base call: the cross_attention fixture (B=2, Lq=3, Lk=7, dModel=12, H=3, dK=dV=4), plus a padding mask.
import { loadFixture, callArguments } from './helpers/fixtures.mjs';
import { expectClose } from './helpers/compare.mjs';
import { VARIANTS, BUILDS } from './helpers/engines.mjs';
import { createAttention } from '../../src/js/node.mjs';

const fx = loadFixture('cross_attention');
const base = () => ({ ...callArguments(fx), keyPaddingMask: new Uint8Array(14) });
const MAX = 2 ** 31 - 1;
// Element counts of the base call, and the shape each message states.
const ARRAYS = {
  query: [Float32Array, 72, /\[batch=2, seqLenQ=3, dModel=12\]/],
  key: [Float32Array, 168, /\[batch=2, seqLenK=7, dModel=12\]/],
  value: [Float32Array, 168, /\[batch=2, seqLenK=7, dModel=12\]/],
  wQ: [Float32Array, 144, /\[dModel=12, numHeads\*dK=12\]/],
  wK: [Float32Array, 144, /\[dModel=12, numHeads\*dK=12\]/],
  wV: [Float32Array, 144, /\[dModel=12, numHeads\*dV=12\]/],
  wO: [Float32Array, 144, /\[numHeads\*dV=12, dModel=12\]/],
  bQ: [Float32Array, 12, /\[numHeads\*dK=12\]/],
  bK: [Float32Array, 12, /\[numHeads\*dK=12\]/],
  bV: [Float32Array, 12, /\[numHeads\*dV=12\]/],
  bO: [Float32Array, 12, /\[dModel=12\]/],
  keyPaddingMask: [Uint8Array, 14, /\[batch=2, seqLenK=7\]/],
};
const DIMS = ['batch', 'seqLenQ', 'seqLenK', 'dModel', 'numHeads', 'dK', 'dV'];
const detached = (array) => {
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return array;
};

// [description, change to the base call, error class, message pattern(s)]
const BAD_CALLS = [
  ...Object.entries(ARRAYS).flatMap(([name, [Type, n, shape]]) => [
    [
      `${name} one element short`,
      { [name]: new Type(n - 1) },
      RangeError,
      [new RegExp(`^${name}: expected ${n} elements`), shape, new RegExp(`got ${n - 1}$`)],
    ],
    [
      `${name} one element too long`,
      { [name]: new Type(n + 1) },
      RangeError,
      [new RegExp(`^${name}: expected ${n} elements`), new RegExp(`got ${n + 1}$`)],
    ],
    [
      `${name} as a plain Array`,
      { [name]: Array.from(new Type(n)) },
      TypeError,
      [
        new RegExp(`^${name}: expected a ${Type.name} of ${n} elements`),
        shape,
        new RegExp(`got an Array of ${n} elements$`),
      ],
    ],
    [
      `${name} with a detached buffer`,
      { [name]: detached(new Type(n)) },
      RangeError,
      [new RegExp(`^${name}: expected ${n} elements .*got 0 \\(its buffer is detached\\)$`)],
    ],
  ]),
  ...['query', 'wK', 'bV'].map((name) => [
    `${name} as a Float64Array`,
    { [name]: new Float64Array(ARRAYS[name][1]) },
    TypeError,
    [
      new RegExp(
        `^${name}: expected a Float32Array of ${ARRAYS[name][1]} elements .*got a Float64Array of ${ARRAYS[name][1]} elements$`,
      ),
    ],
  ]),
  [
    'query as a string',
    { query: 'abc' },
    TypeError,
    [/^query: expected a Float32Array of 72 elements .*got the string "abc"$/],
  ],
  ...['query', 'wQ', 'wK', 'wV', 'wO'].map((name) => [
    `${name} missing`,
    { [name]: undefined },
    TypeError,
    [new RegExp(`^${name}: expected a Float32Array of ${ARRAYS[name][1]} elements .*got undefined$`)],
  ]),
  [
    'key missing while value is given',
    { key: undefined },
    TypeError,
    [
      /^key: expected a Float32Array of 168 elements \[batch=2, seqLenK=7, dModel=12\] when value is given, got undefined$/,
    ],
  ],
  [
    'keyPaddingMask as a Float32Array',
    { keyPaddingMask: new Float32Array(14) },
    TypeError,
    [/^keyPaddingMask: expected a Uint8Array of 14 elements .*got a Float32Array of 14 elements$/],
  ],
  [
    'keyPaddingMask as an Int8Array',
    { keyPaddingMask: new Int8Array(14) },
    TypeError,
    [/^keyPaddingMask: expected a Uint8Array .*got an? Int8Array of 14 elements$/],
  ],
  [
    'keyPaddingMask holding a 2',
    { keyPaddingMask: Uint8Array.from({ length: 14 }, (_, i) => (i === 3 ? 2 : 0)) },
    RangeError,
    [/^keyPaddingMask: expected only 0 .* or 1 .*, got 2 at index 3$/],
  ],
  [
    'keyPaddingMask holding a 255',
    { keyPaddingMask: new Uint8Array(14).fill(255) },
    RangeError,
    [/^keyPaddingMask: expected only 0 .* or 1 .*, got 255 at index 0$/],
  ],
  ...DIMS.flatMap((name) => [
    ...[2.5, 0, -1, NaN, Infinity, 2 ** 31].map((v) => [
      `${name} = ${v}`,
      { [name]: v },
      RangeError,
      [new RegExp(`^${name}: expected an integer from 1 to ${MAX}, got ${v}$`)],
    ]),
    [
      `${name} as the string "4"`,
      { [name]: '4' },
      TypeError,
      [new RegExp(`^${name}: expected an integer >= 1, got the string "4"$`)],
    ],
    [
      `${name} as a BigInt`,
      { [name]: 4n },
      TypeError,
      [new RegExp(`^${name}: expected an integer >= 1, got bigint 4$`)],
    ],
  ]),
  ...['seqLenQ', 'dModel', 'numHeads'].map((name) => [
    `${name} missing`,
    { [name]: undefined },
    TypeError,
    [new RegExp(`^${name}: expected an integer >= 1, got undefined$`)],
  ]),
  [
    'sizes whose element count passes 2^31 - 1',
    { seqLenQ: 2 ** 20, dModel: 2 ** 12 },
    RangeError,
    [/^query: 2×1048576×4096 = 8589934592 elements, more than 2147483647$/],
  ],
  [
    'numHeads not dividing dModel, dK not given',
    { numHeads: 5, dK: undefined, dV: undefined },
    RangeError,
    [/^numHeads: expected a divisor of dModel \(12\) when dK is not given, got 5; pass dK explicitly/],
  ],
  [
    'numHeads not dividing dModel, dV not given',
    { numHeads: 5, dV: undefined },
    RangeError,
    [/^numHeads: expected a divisor of dModel \(12\) when dV is not given, got 5/],
  ],
  ['causal as a string', { causal: 'yes' }, TypeError, [/^causal: expected a boolean, got the string "yes"$/]],
  ['causal as a number', { causal: 1 }, TypeError, [/^causal: expected a boolean, got number 1$/]],
  [
    'returnAttention as a string',
    { returnAttention: 'true' },
    TypeError,
    [/^returnAttention: expected a boolean, got the string "true"$/],
  ],
  [
    'misspelled argument numhead',
    { numhead: 3 },
    TypeError,
    [/^multiHeadAttention: unknown argument "numhead" \(did you mean "numHeads"\?\); expected one of .*numHeads/],
  ],
  ...[
    ['num_heads', 'numHeads'],
    ['need_weights', 'returnAttention'],
    ['attn_mask', 'keyPaddingMask'],
    ['embed_dim', 'dModel'],
    ['key_padding_mask', 'keyPaddingMask'],
    ['is_causal', 'causal'],
  ].map(([name, meant]) => [
    `PyTorch's name ${name}`,
    { [name]: 1 },
    TypeError,
    [new RegExp(`^multiHeadAttention: unknown argument "${name}" \\(did you mean "${meant}"\\?\\); expected one of `)],
  ]),
  [
    'unknown argument mask',
    { mask: new Uint8Array(14) },
    TypeError,
    [/^multiHeadAttention: unknown argument "mask" \(did you mean "keyPaddingMask"\?\); expected one of /],
  ],
];

const NOT_OBJECTS = [
  [undefined, /got undefined$/],
  [null, /got null$/],
  [42, /got number 42$/],
  ['query', /got the string "query"$/],
  [[1, 2], /got an Array of 2 elements$/],
];

async function expectRejection(promise, Class, patterns) {
  const error = await promise.then(
    () => new Error('the call resolved instead of rejecting'),
    (e) => e,
  );
  expect(error).toBeInstanceOf(Class);
  for (const p of [].concat(patterns)) expect(error.message).toMatch(p);
}

// After every error the same engine still computes the fixture.
async function expectStillWorks(engine) {
  const { output, attention } = await engine.multiHeadAttention({ ...base(), returnAttention: true });
  expectClose(output, fx.want.output, fx.tolerance, 'output after the error');
  expectClose(attention, fx.want.attention, fx.tolerance, 'attention after the error');
}

// The checks are shared JavaScript, so the whole table runs on one build.
describe('bad arguments (simd build)', () => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention(BUILDS.simd);
  });
  afterAll(() => engine.dispose());

  test('the base call is valid', () => expectStillWorks(engine));

  test.each(BAD_CALLS)('%s', async (_, change, Class, patterns) => {
    await expectRejection(engine.multiHeadAttention({ ...base(), ...change }), Class, patterns);
    await expectStillWorks(engine);
  });

  test.each(NOT_OBJECTS)('arguments %p instead of an object', async (args, given) => {
    await expectRejection(engine.multiHeadAttention(args), TypeError, [
      /^multiHeadAttention: expected an object of arguments/,
      given,
    ]);
    await expectStillWorks(engine);
  });
});

describe.each(VARIANTS)('%s build', (variant) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
  });
  afterAll(() => engine.dispose());

  test('a few bad calls reject and leave the engine usable', async () => {
    for (const [, change, Class, patterns] of BAD_CALLS.filter(([d]) =>
      /^(query one element short|wO as a plain Array|numHeads = 0|misspelled)/.test(d),
    )) {
      await expectRejection(engine.multiHeadAttention({ ...base(), ...change }), Class, patterns);
      await expectStillWorks(engine);
    }
  });

  test('a call too large for the 2 GiB wasm memory is refused before allocating, with the bytes it needs', async () => {
    // 23171² attention weights = 2.1 GB: passes the 2^31 element check, cannot be allocated.
    const n = 23171;
    const one = new Float32Array(1);
    const call = {
      seqLenQ: n,
      dModel: 1,
      numHeads: 1,
      query: new Float32Array(n),
      wQ: one,
      wK: one,
      wV: one,
      wO: one,
      returnAttention: true,
    };
    const before = await engine.memoryStats();
    await expectRejection(engine.multiHeadAttention(call), RangeError, [
      /^this call needs (\d+) bytes of WebAssembly memory, more than the (\d+) bytes available \(limit 2147483648\)/,
    ]);
    // Nothing was allocated for it: the heap did not grow.
    expect((await engine.memoryStats()).heapBytes).toBe(before.heapBytes);
    await expectStillWorks(engine);
  });

  test('after dispose() calls reject with an Error; dispose() is idempotent', async () => {
    const doomed = await createAttention(BUILDS[variant]);
    expect(doomed.variant).toBe(variant);
    expect(doomed.threads).toBe(BUILDS[variant].threads ?? 1);
    await expectStillWorks(doomed);
    doomed.dispose();
    doomed.dispose();
    await expectRejection(doomed.multiHeadAttention(base()), Error, /disposed/);
    await expectRejection(doomed.multiHeadAttention({ numhead: 1 }), Error, /disposed/);
  });
});

describe('createAttention options', () => {
  test.each([
    [
      'an unknown option',
      { varient: 'simd' },
      TypeError,
      [/^createAttention: unknown argument "varient"/, /expected one of .*variant/],
    ],
    [
      'a bad variant',
      { variant: 'avx2' },
      RangeError,
      [
        /^variant: expected one of "threaded-relaxed-simd", "relaxed-simd", "threaded-simd", "simd", "scalar", got the string "avx2"$/,
      ],
    ],
    [
      'a variant in the wrong case',
      { variant: 'SIMD' },
      RangeError,
      [/^variant: expected one of .*got the string "SIMD"$/],
    ],
    [
      'a string instead of options',
      'simd',
      TypeError,
      [/^createAttention: expected an options object, got the string "simd"$/],
    ],
    [
      'locateFile not a function',
      { locateFile: '/dist/' },
      TypeError,
      [/^locateFile: expected a function .*got the string "\/dist\/"$/],
    ],
    [
      'wasmBinary as a plain Array',
      { wasmBinary: [0, 97, 115, 109] },
      TypeError,
      [/^wasmBinary: expected an ArrayBuffer or Uint8Array .*got an Array of 4 elements$/],
    ],
    ['threads = 0', { threads: 0 }, RangeError, [/^threads: expected an integer from 1 to \d+, got 0$/]],
    ['threads = 2.5', { threads: 2.5 }, RangeError, [/^threads: expected an integer from 1 to \d+, got 2.5$/]],
    [
      'threads as a string',
      { threads: '2' },
      TypeError,
      [/^threads: expected an integer from 1 to \d+, got the string "2"$/],
    ],
    [
      'threads 2 with a one-thread variant',
      { variant: 'simd', threads: 2 },
      RangeError,
      [/^threads: variant "simd" runs on one thread, got threads 2/],
    ],
  ])('%s', async (_, options, Class, patterns) => {
    const error = await createAttention(options).then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(Class);
    for (const p of patterns) expect(error.message).toMatch(p);
  });

  test('bytes that are not WebAssembly reject (no hang)', async () => {
    // Refused before the module starts: nothing is left running.
    await expect(createAttention({ variant: 'simd', wasmBinary: new Uint8Array([0, 1, 2, 3]) })).rejects.toThrow(
      /^wasmBinary: expected the bytes of mha-simd\.wasm, got 4 bytes that are not a WebAssembly module$/,
    );
  });

  test('a locateFile pointing nowhere rejects with the missing path', async () => {
    await expect(createAttention({ variant: 'scalar', locateFile: (name) => `/nonexistent/${name}` })).rejects.toThrow(
      /nonexistent\/mha-scalar/,
    );
  });
});

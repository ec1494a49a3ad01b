// Bad arguments of createLayer and layer.forward (errors.test.mjs covers
// multiHeadAttention), the few multiHeadAttention and createAttention cases it
// leaves out, and unusual but valid inputs (views, shared memory, frozen or
// prototype-less argument objects). Each rejection is a TypeError or RangeError
// naming the argument, what was expected and what was given; afterwards the
// same layer still computes the reference.
// Base: the cross_attention fixture (B=2, Lq=3, Lk=7, dModel=12, H=3, dK=dV=4).
import { createAttention } from '../../src/js/node.mjs';
import { callArguments } from './helpers/fixtures.mjs';
import { expectClose } from './helpers/compare.mjs';
import { referenceAttention } from './helpers/reference.mjs';
import { BUILDS } from './helpers/engines.mjs';

import { fx, weights, activations, LAYER_BAD, FORWARD_BAD, CALL_BAD, NOT_OBJECTS } from './helpers/bad-inputs.mjs';

async function expectRejection(promise, Class, pattern) {
  const error = await promise.then(
    () => new Error('the call resolved instead of rejecting'),
    (e) => e,
  );
  expect(error).toBeInstanceOf(Class);
  expect(error.message).toMatch(pattern);
}

let engine, layer;
beforeAll(async () => {
  engine = await createAttention(BUILDS.simd);
  layer = await engine.createLayer(weights());
});
afterAll(() => engine.dispose());

async function expectLayerWorks(l = layer) {
  const { output, attention } = await l.forward({ ...activations(), returnAttention: true });
  expectClose(output, fx.want.output, fx.tolerance, 'output');
  expectClose(attention, fx.want.attention, fx.tolerance, 'attention');
}

describe('createLayer rejects', () => {
  test.each(LAYER_BAD)('%s', async (_, change, Class, pattern) => {
    await expectRejection(engine.createLayer({ ...weights(), ...change }), Class, pattern);
    await expectLayerWorks();
  });
  test.each(NOT_OBJECTS)('arguments %p instead of an object', async (args, given) => {
    await expectRejection(
      engine.createLayer(args),
      TypeError,
      new RegExp(`^createLayer: expected an object of arguments, ${given.source.slice(0, -1)}`),
    );
  });
  test('a typed array instead of the arguments object: its indices are unknown names', async () => {
    await expectRejection(
      engine.createLayer(new Float32Array(3)),
      TypeError,
      /^createLayer: unknown argument "0"; expected one of dModel/,
    );
  });
});

describe('layer.forward rejects', () => {
  test.each(FORWARD_BAD)('%s', async (_, change, Class, pattern) => {
    await expectRejection(layer.forward({ ...activations(), ...change }), Class, pattern);
    await expectLayerWorks();
  });
  test.each(NOT_OBJECTS)('arguments %p instead of an object', async (args, given) => {
    await expectRejection(
      layer.forward(args),
      TypeError,
      new RegExp(`^forward: expected an object of arguments, ${given.source.slice(0, -1)}`),
    );
    await expectLayerWorks();
  });
});

describe('multiHeadAttention rejects (cases beyond errors.test.mjs)', () => {
  const base = () => ({ ...callArguments(fx), keyPaddingMask: new Uint8Array(14) });
  test.each(CALL_BAD)('%s', async (_, change, Class, pattern) => {
    await expectRejection(engine.multiHeadAttention({ ...base(), ...change }), Class, pattern);
    const { output } = await engine.multiHeadAttention(base());
    expectClose(output, fx.want.output, fx.tolerance, 'output after the error');
  });
});

describe('createAttention rejects (cases beyond errors.test.mjs)', () => {
  test.each([
    [
      'a misspelled option thread',
      { thread: 2 },
      TypeError,
      /^createAttention: unknown argument "thread" \(did you mean "threads"\?\)/,
    ],
    [
      'variant null',
      { variant: null },
      RangeError,
      /^variant: expected one of "threaded-relaxed-simd", "relaxed-simd", "threaded-simd", "simd", "scalar", got null$/,
    ],
    ['threads = NaN', { threads: NaN }, RangeError, /^threads: expected an integer from 1 to 16, got NaN$/],
    [
      'threads = Infinity',
      { threads: Infinity },
      RangeError,
      /^threads: expected an integer from 1 to 16, got Infinity$/,
    ],
    ['threads = -1', { threads: -1 }, RangeError, /^threads: expected an integer from 1 to 16, got -1$/],
    ['threads as a BigInt', { threads: 2n }, TypeError, /^threads: expected an integer from 1 to 16, got bigint 2$/],
    [
      'threads 2 with the scalar variant',
      { variant: 'scalar', threads: 2 },
      RangeError,
      /^threads: variant "scalar" runs on one thread, got threads 2/,
    ],
    [
      'wasmBinary as a string',
      { wasmBinary: 'AGFzbQ==' },
      TypeError,
      /^wasmBinary: expected an ArrayBuffer or Uint8Array .*got the string "AGFzbQ=="$/,
    ],
    ['options as an Array', [], TypeError, /^createAttention: expected an options object, got an Array of 0 elements$/],
  ])('%s', async (_, options, Class, pattern) => {
    await expectRejection(createAttention(options), Class, pattern);
  });
});

describe('after dispose', () => {
  test('every method of a disposed engine rejects with an Error that says so; its layers too', async () => {
    const doomed = await createAttention(BUILDS.simd);
    const doomedLayer = await doomed.createLayer(weights());
    await expectLayerWorks(doomedLayer);
    doomed.dispose();
    doomed.dispose();
    await expectRejection(doomed.memoryStats(), Error, /engine was disposed/);
    await expectRejection(doomed.createLayer(weights()), Error, /engine was disposed/);
    await expectRejection(doomed.multiHeadAttention(callArguments(fx)), Error, /engine was disposed/);
    await expectRejection(doomedLayer.forward(activations()), Error, /disposed/);
    doomedLayer.dispose();
    doomedLayer.dispose();
  });

  test('a disposed layer rejects, its engine and other layers are unaffected', async () => {
    const other = await engine.createLayer(weights());
    other.dispose();
    other.dispose();
    await expectRejection(other.forward(activations()), Error, /layer was disposed/);
    await expectRejection(other.forward({ bad: 1 }), Error, /layer was disposed/);
    await expectLayerWorks();
  });
});

describe('unusual but valid inputs give the reference result', () => {
  // `call` goes to the engine as it is (default: args with returnAttention).
  const check = async (label, args, call = { ...args, returnAttention: true }) => {
    const got = await engine.multiHeadAttention(call);
    const want = referenceAttention(args);
    expectClose(got.output, want.output, fx.tolerance, `${label}: output`);
    expectClose(got.attention, want.attention, fx.tolerance, `${label}: attention`);
  };
  const viewOf = (a, Type = Float32Array) => {
    const backing = new Type(a.length + 5).fill(Type === Float32Array ? NaN : 1); // NaN around: a wrong offset shows
    backing.set(a, 3);
    return backing.subarray(3, 3 + a.length);
  };

  test('every array a subarray view at an offset inside a larger buffer', async () => {
    const args = callArguments(fx);
    for (const n of ['query', 'key', 'value', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'])
      args[n] = viewOf(args[n]);
    args.keyPaddingMask = viewOf(Uint8Array.of(0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0), Uint8Array);
    await check('views', args);
  });

  test('arrays on a SharedArrayBuffer', async () => {
    const shared = (a) => {
      const s = new Float32Array(new SharedArrayBuffer(a.byteLength));
      s.set(a);
      return s;
    };
    const args = callArguments(fx);
    for (const n of ['query', 'key', 'value', 'wQ', 'wO']) args[n] = shared(args[n]);
    await check('shared', args);
  });

  test('key and value the same array (not the query); causal with seqLenK > seqLenQ', async () => {
    const args = { ...callArguments(fx), causal: true };
    args.value = args.key;
    await check('key === value', args);
  });

  test('frozen, prototype-less and inherited argument objects', async () => {
    const args = callArguments(fx);
    await check('frozen', args, Object.freeze({ ...args, returnAttention: true }));
    await check('null prototype', args, Object.assign(Object.create(null), args, { returnAttention: true }));
    // Only own names are checked for typos; known names are read through the prototype.
    const { query, ...rest } = args;
    await check('query inherited', args, Object.assign(Object.create({ query }), rest, { returnAttention: true }));
  });

  test('null for every optional argument means "left out"', async () => {
    const args = callArguments(fx);
    const call = {
      ...args,
      bQ: null,
      bK: null,
      bV: null,
      bO: null,
      keyPaddingMask: null,
      causal: null,
      returnProjections: null,
    };
    const got = await engine.multiHeadAttention(call);
    const want = referenceAttention({
      ...args,
      bQ: undefined,
      bK: undefined,
      bV: undefined,
      bO: undefined,
      keyPaddingMask: undefined,
      causal: false,
    });
    expectClose(got.output, want.output, fx.tolerance, 'output');
  });

  test('a throwing getter in the arguments rejects with its own error, and the engine stays usable', async () => {
    const args = Object.defineProperty(callArguments(fx), 'wQ', {
      enumerable: true,
      get: () => {
        throw new Error('getter says no');
      },
    });
    await expectRejection(engine.multiHeadAttention(args), Error, /^getter says no$/);
    await check('after', callArguments(fx));
  });
});

// Bugs that the hardening tests (and the fuzzer) found in src/, each test
// stating the right behaviour with a minimal reproduction; all fixed, kept as
// regression tests.
import { createAttention } from '../../src/js/node.mjs';
import { BUILDS } from './helpers/engines.mjs';

const I = Float32Array.of(1, 0, 0, 1);
const tiny = { query: Float32Array.of(1, 2, 3, 4), seqLenQ: 2, dModel: 2, numHeads: 1, wQ: I, wK: I, wV: I, wO: I };
// A Float32Array whose `length` says what the argument checks want to hear.
class Liar extends Float32Array {
  get length() {
    return 4;
  }
}

let engine;
beforeAll(async () => {
  engine = await createAttention(BUILDS.simd);
});
afterAll(() => engine.dispose());

// A JS exception runs no C++ destructor: an error thrown to JS while a C++ string
// held its message would leak that message (168 bytes) on every call refused by
// the size check (or out of memory); guarded() returns the RangeError instead.
test('a call refused as too large for the memory leaks nothing', async () => {
  const w = new Float32Array(16 * 16);
  const refused = {
    dModel: 16,
    numHeads: 2,
    wQ: w,
    wK: w,
    wV: w,
    wO: w,
    query: new Float32Array(23171 * 16),
    seqLenQ: 23171,
    returnAttention: true,
  };
  await engine.multiHeadAttention(refused).catch(() => {}); // warm-up (first exception)
  const before = await engine.memoryStats();
  for (let i = 0; i < 100; i++) await expect(engine.multiHeadAttention(refused)).rejects.toThrow(/^this call needs/);
  expect((await engine.memoryStats()).inUseBytes).toBe(before.inUseBytes); // was 16,800 bytes more
});

// Was: src/js/validate.mjs read `v.length`, which a subclass can override, and
// the bindings copied the real contents with TypedArray.prototype.set: a shorter
// buffer left the rest of the engine's query buffer as it was, so the call
// silently ran on the previous call's data.
test('a Float32Array subclass that lies about its length is refused (not run on stale data)', async () => {
  await engine.multiHeadAttention(tiny); // leaves [1, 2, 3, 4] in the engine's query buffer
  const error = await engine.multiHeadAttention({ ...tiny, query: new Liar(1).fill(9) }).then(
    () => null,
    (e) => e,
  );
  // Was: resolved, computed on the query [9, 2, 3, 4].
  expect(error).toBeInstanceOf(RangeError);
  expect(error.message).toMatch(/^query: expected 4 elements/);
});

// Same cause, longer buffer: the bindings' `set` threw a JS RangeError ("offset
// is out of bounds", naming nothing) through Layer::assign, whose local vectors
// were never freed: 96 bytes per call.
test('createLayer with a weight that lies about its length names it and leaks nothing', async () => {
  const layerArgs = { dModel: 2, numHeads: 1, wQ: I, wK: I, wV: I, wO: I };
  (await engine.createLayer(layerArgs)).dispose();
  const before = await engine.memoryStats();
  for (let i = 0; i < 100; i++) {
    const error = await engine.createLayer({ ...layerArgs, wO: new Liar(1000) }).then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(/^wO: /); // was "offset is out of bounds"
  }
  expect((await engine.memoryStats()).inUseBytes).toBe(before.inUseBytes);
});

// Was: `v.length` on a Proxy of a Float32Array threw a TypeError naming no argument.
test('a Proxy around a Float32Array is refused with an error naming the argument', async () => {
  const error = await engine.multiHeadAttention({ ...tiny, query: new Proxy(Float32Array.of(1, 2, 3, 4), {}) }).then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(TypeError);
  expect(error.message).toMatch(/^query: /); // was "Method get TypedArray.prototype.length called on incompatible receiver ..."
});

// Was: the first known name that is a prefix of the typo won, so "keypaddingmask" suggested "key".
test('the typo keypaddingmask suggests keyPaddingMask', async () => {
  await expect(engine.multiHeadAttention({ ...tiny, keypaddingmask: new Uint8Array(2) })).rejects.toThrow(
    /unknown argument "keypaddingmask" \(did you mean "keyPaddingMask"\?\)/,
  );
});

// Was: src/core/attention.cpp softmax() filled every visible entry of a row with
// a NaN logit with NaN, keys that keyPaddingMask ignores included (causally
// masked ones stayed 0); the README says masked weights are exactly 0.
test('a key ignored by keyPaddingMask gets weight exactly 0 even in a row of NaN', async () => {
  const call = {
    ...tiny,
    query: Float32Array.of(NaN, 0),
    key: Float32Array.of(1, 0, 0, 1, 1, 1),
    value: Float32Array.of(1, 0, 0, 1, 1, 1),
    seqLenQ: 1,
    seqLenK: 3,
    returnAttention: true,
  };
  const padded = await engine.multiHeadAttention({ ...call, keyPaddingMask: Uint8Array.of(0, 0, 1) });
  const causal = await engine.multiHeadAttention({ ...call, causal: true });
  expect(Array.from(causal.attention).map(Number.isNaN)).toEqual([true, false, false]); // passes: [NaN, 0, 0]
  expect(padded.attention[2]).toBe(0); // was NaN
});

// Was: with returnAttention the head output of a row with no usable key was A·V
// over the block's keys, 0·NaN = NaN when an ignored key's value is NaN; without
// returnAttention (the fused path) it was 0 and the output row bO, as the README
// promises ("never NaN").
test('a query row with no usable key outputs bO with returnAttention too, whatever the ignored values hold', async () => {
  // Row 0 sees only key 0 (causal), which keyPaddingMask ignores; value row 0 holds a NaN.
  const call = {
    ...tiny,
    query: Float32Array.of(1, 0, 0, 1),
    key: Float32Array.of(1, 0, 0, 1),
    value: Float32Array.of(NaN, 0, 0, 1),
    bO: Float32Array.of(5, 6),
    causal: true,
    keyPaddingMask: Uint8Array.of(1, 0),
  };
  const fused = await engine.multiHeadAttention(call);
  const withWeights = await engine.multiHeadAttention({ ...call, returnAttention: true });
  expect(Array.from(fused.output.subarray(0, 2))).toEqual([5, 6]); // passes
  expect(Array.from(withWeights.attention.subarray(0, 2))).toEqual([0, 0]); // passes
  expect(Array.from(withWeights.output.subarray(0, 2))).toEqual([5, 6]); // was [NaN, NaN]
});

// src/core/attention.cpp softmax(): a row whose largest logit is +Infinity took
// the finite path, and exp(Inf − Inf) = NaN turned the exact 0 of each key that
// keyPaddingMask ignores into NaN. A +Inf maximum is now treated like a NaN one.
test('a key ignored by keyPaddingMask gets weight exactly 0 in a row whose logits reach +Infinity', async () => {
  const ones = Float32Array.of(1, 1, 1, 1);
  // Q = [Inf, Inf], every key positive: every logit is +Inf, none NaN.
  const call = {
    ...tiny,
    query: Float32Array.of(Infinity, 1),
    key: Float32Array.of(1, 1, 2, 1, 1, 1),
    value: Float32Array.of(1, 0, 0, 1, 1, 1),
    wQ: ones,
    seqLenQ: 1,
    seqLenK: 3,
    returnAttention: true,
    keyPaddingMask: Uint8Array.of(0, 0, 1),
  };
  const { attention } = await engine.multiHeadAttention(call);
  expect(Number.isNaN(attention[0]) && Number.isNaN(attention[1])).toBe(true); // passes: Inf - Inf
  expect(attention[2]).toBe(0);
});

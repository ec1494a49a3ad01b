// Seeded random cases against the float64 JS reference (helpers/reference.mjs,
// itself checked against every fixture), with the fixtures' tolerance rule.
import { randomCase } from './helpers/random.mjs';
import { referenceAttention } from './helpers/reference.mjs';
import { expectClose, expectExactly, expectSameBits, toleranceFor } from './helpers/compare.mjs';
import { VARIANTS, createEngines, disposeEngines } from './helpers/engines.mjs';

// [description, seed, config]; config as helpers/random.mjs randomCase.
const CASES = [
  [
    'odd sizes: batch 3, L=17, dModel=7, H=2, dK=3, dV=5, biases',
    1,
    { batch: 3, seqLenQ: 17, dModel: 7, numHeads: 2, dK: 3, dV: 5, self: true, bias: true },
  ],
  ['cross-attention Lq=5 < Lk=11, no bias', 2, { batch: 2, seqLenQ: 5, seqLenK: 11, dModel: 12, numHeads: 3 }],
  [
    'causal cross-attention Lq=13 > Lk=6 (rows i >= Lk see every key)',
    3,
    { batch: 2, seqLenQ: 13, seqLenK: 6, dModel: 8, numHeads: 2, causal: true, bias: true },
  ],
  ['causal cross-attention Lq=4 < Lk=9', 4, { seqLenQ: 4, seqLenK: 9, dModel: 8, numHeads: 2, causal: true }],
  [
    'causal self-attention L=33, dModel=20, H=4, biases',
    5,
    { batch: 2, seqLenQ: 33, dModel: 20, numHeads: 4, causal: true, self: true, bias: true },
  ],
  [
    'numHeads*dK != dModel: dModel=10, H=3, dK=5, dV=2',
    6,
    { seqLenQ: 9, seqLenK: 7, dModel: 10, numHeads: 3, dK: 5, dV: 2, bias: true },
  ],
  ['dK = dV = 1, H=5', 7, { batch: 2, seqLenQ: 6, dModel: 4, numHeads: 5, dK: 1, dV: 1, bias: true }],
  [
    'key padding (30%) and causal, batch 3',
    8,
    { batch: 3, seqLenQ: 10, dModel: 16, numHeads: 4, causal: true, padding: 0.3, self: true, bias: true },
  ],
  [
    'key padding (50%), cross-attention, no bias',
    9,
    { batch: 2, seqLenQ: 7, seqLenK: 12, dModel: 9, numHeads: 3, padding: 0.5 },
  ],
  ['one query, one key', 10, { seqLenQ: 1, dModel: 3, numHeads: 1, bias: true }],
  [
    'wider: Lq=70, Lk=45, dModel=48, H=6 (vector tails)',
    11,
    { seqLenQ: 70, seqLenK: 45, dModel: 48, numHeads: 6, bias: true },
  ],
  [
    'long keys: Lq=3, Lk=257, dModel=16, H=2, dK=9, dV=7',
    12,
    { seqLenQ: 3, seqLenK: 257, dModel: 16, numHeads: 2, dK: 9, dV: 7, bias: true },
  ],
];

let engines;
beforeAll(async () => {
  engines = await createEngines();
});
afterAll(() => disposeEngines(engines));

const run = (variant, args) => engines[variant].multiHeadAttention({ ...args, returnAttention: true });

describe.each(VARIANTS)('%s build', (variant) => {
  test.each(CASES)('%s', async (_, seed, config) => {
    const args = randomCase(seed, config);
    const want = referenceAttention(args);
    const tol = toleranceFor(args);
    const got = await run(variant, args);
    expectClose(got.output, want.output, tol, 'output');
    expectClose(got.attention, want.attention, tol, 'attention');
  });

  test('each bias alone is applied where it belongs', async () => {
    const full = randomCase(20, { batch: 2, seqLenQ: 5, seqLenK: 6, dModel: 8, numHeads: 2, dK: 3, dV: 5, bias: true });
    for (const only of ['bQ', 'bK', 'bV', 'bO']) {
      const { bQ, bK, bV, bO, ...args } = full;
      args[only] = full[only];
      const got = await run(variant, args);
      const want = referenceAttention(args);
      expectClose(got.output, want.output, toleranceFor(args), `output with only ${only}`);
      expectClose(got.attention, want.attention, toleranceFor(args), `attention with only ${only}`);
    }
  });

  test.each([true, false])(
    'rows with no usable key: attention exactly 0, output exactly bO, never NaN (biases %s)',
    async (bias) => {
      // batch 0: padding on keys 0, 1 plus causal leaves rows 0, 1 without keys;
      // batch 1: every key padded, so no row has one; batch 2: nothing masked.
      const B = 3,
        Lq = 6,
        Lk = 5,
        D = 8,
        H = 2;
      const args = randomCase(30, { batch: B, seqLenQ: Lq, seqLenK: Lk, dModel: D, numHeads: H, causal: true, bias });
      args.keyPaddingMask = Uint8Array.from([1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
      const noKey = (b, i) => b === 1 || (b === 0 && i < 2);
      const got = await run(variant, args);
      const want = referenceAttention(args);
      expect(got.output.some(Number.isNaN) || got.attention.some(Number.isNaN)).toBe(false);
      const bO = args.bO ?? new Float32Array(D);
      for (let b = 0; b < B; b++) {
        for (let i = 0; i < Lq; i++) {
          if (!noKey(b, i)) continue;
          for (let h = 0; h < H; h++)
            expectExactly(
              got.attention,
              ((b * H + h) * Lq + i) * Lk,
              new Float32Array(Lk),
              `attention b${b} h${h} i${i}`,
            );
          expectExactly(got.output, (b * Lq + i) * D, bO, `output b${b} i${i}`);
        }
      }
      expectClose(got.output, want.output, toleranceFor(args), 'output');
      expectClose(got.attention, want.attention, toleranceFor(args), 'attention');
    },
  );

  test('logits around 1e4 (query scaled by 3000) stay finite and correct', async () => {
    const args = randomCase(41, { seqLenQ: 8, seqLenK: 12, dModel: 16, numHeads: 2, queryScale: 3000, bias: true });
    const want = referenceAttention(args);
    // The case is large (logits beyond 5e3) and well conditioned in float32:
    // in every row the two largest logits differ by >= 20.
    expect(want.maxAbsLogit).toBeGreaterThan(5e3);
    expect(want.minTopGap).toBeGreaterThanOrEqual(20);
    const got = await run(variant, args);
    expect(got.output.every(Number.isFinite) && got.attention.every(Number.isFinite)).toBe(true);
    expectClose(got.output, want.output, toleranceFor(args), 'output');
    expectClose(got.attention, want.attention, toleranceFor(args), 'attention');
  });

  test('deterministic: the same call gives bitwise the same results', async () => {
    const args = randomCase(50, {
      batch: 2,
      seqLenQ: 37,
      seqLenK: 29,
      dModel: 24,
      numHeads: 3,
      causal: true,
      padding: 0.2,
      bias: true,
    });
    const first = await run(variant, args);
    for (let k = 0; k < 3; k++) {
      await run(variant, randomCase(51 + k, { seqLenQ: 5 + k, dModel: 8, numHeads: 2 })); // something else in between
      const again = await run(variant, args);
      expectSameBits(again.output, first.output, `output, repeat ${k}`);
      expectSameBits(again.attention, first.attention, `attention, repeat ${k}`);
    }
  });

  test('results are new arrays, never overwritten by later calls; inputs are left alone', async () => {
    const a = randomCase(60, { batch: 2, seqLenQ: 6, dModel: 8, numHeads: 2, bias: true });
    const b = randomCase(61, { batch: 2, seqLenQ: 6, dModel: 8, numHeads: 2, bias: true });
    const inputsBefore = Object.fromEntries(
      Object.entries(a)
        .filter(([, v]) => ArrayBuffer.isView(v))
        .map(([k, v]) => [k, v.slice()]),
    );
    const first = await run(variant, a);
    const kept = { output: first.output.slice(), attention: first.attention.slice() };
    const second = await run(variant, b);
    const third = await run(variant, a);
    for (const field of ['output', 'attention']) {
      for (const other of [second, third]) {
        expect(other[field]).not.toBe(first[field]);
        expect(other[field].buffer).not.toBe(first[field].buffer);
      }
      // Each result owns its whole buffer (a copy, not a view of wasm memory).
      expect(first[field].byteOffset).toBe(0);
      expect(first[field].buffer.byteLength).toBe(first[field].byteLength);
      expectSameBits(first[field], kept[field], `${field} of the first call after two more calls`);
    }
    first.output.fill(7); // the caller owns it: writing to it changes nothing inside
    expectClose(
      (await run(variant, a)).output,
      referenceAttention(a).output,
      toleranceFor(a),
      'output after the caller wrote to an old result',
    );
    for (const [name, before] of Object.entries(inputsBefore)) expectSameBits(a[name], before, `input ${name}`);
  });

  test('inputs that are views into a larger buffer (non-zero byteOffset) are read correctly', async () => {
    const args = randomCase(70, { seqLenQ: 5, seqLenK: 7, dModel: 6, numHeads: 2, bias: true, padding: 0.3 });
    const viewed = {};
    for (const [name, v] of Object.entries(args)) {
      if (!ArrayBuffer.isView(v)) continue;
      const big = new v.constructor(v.length + 11).fill(v instanceof Uint8Array ? 1 : 1e30);
      viewed[name] = big.subarray(5, 5 + v.length);
      viewed[name].set(v);
    }
    const got = await run(variant, { ...args, ...viewed });
    const want = referenceAttention(args);
    expectClose(got.output, want.output, toleranceFor(args), 'output');
    expectClose(got.attention, want.attention, toleranceFor(args), 'attention');
  });

  test('several calls in flight on one engine each get their own result', async () => {
    const cases = [80, 81, 82, 83].map((seed, k) =>
      randomCase(seed, { batch: 1 + (k % 2), seqLenQ: 4 + k, dModel: 8, numHeads: 2, bias: true }),
    );
    const results = await Promise.all(cases.map((args) => run(variant, args)));
    results.forEach((got, k) =>
      expectClose(got.output, referenceAttention(cases[k]).output, toleranceFor(cases[k]), `call ${k}`),
    );
  });
});

describe('builds agree with each other', () => {
  test.each(CASES.slice(0, 6))('%s', async (_, seed, config) => {
    const args = randomCase(seed, config);
    const tol = toleranceFor(args);
    const [base, ...others] = await Promise.all(VARIANTS.map((v) => run(v, args)));
    others.forEach((got, k) => {
      expectClose(got.output, base.output, tol, `${VARIANTS[k + 1]} vs ${VARIANTS[0]} output`);
      expectClose(got.attention, base.attention, tol, `${VARIANTS[k + 1]} vs ${VARIANTS[0]} attention`);
    });
  });
});

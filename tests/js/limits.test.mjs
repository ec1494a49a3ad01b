// The limits are defined once, in C++ (kMaxElements in src/core/common.hpp,
// TrainerLimits in src/train/trainer.hpp; the model's in model-limits.test.mjs);
// src/js reads them from the bindings and checks them first. Here both sides meet every boundary
// (limit − 1, limit, limit + 1): through the public API (src/js's checks), and
// straight on the Embind module (the C++ checks alone), and each side must
// refuse by the limit exactly where the other does. A call that passes the
// limit may still fail later for another reason (no array of that length, not
// enough memory, the core's bound on its own working memory); what counts is
// whether the refusal names the argument's limit.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { variantFiles } from '../../src/js/files.mjs';
import { normalizeTrainArguments } from '../../src/js/validate-trainer.mjs';

const require = createRequire(import.meta.url);
let engine, raw, rawEngine;

beforeAll(async () => {
  engine = await createAttention({ variant: 'simd', training: true });
  const files = variantFiles('simd', 'train');
  const dist = (name) => fileURLToPath(new URL(`../../dist/${name}`, import.meta.url));
  raw = await require(dist(files.glue))({ wasmBinary: readFileSync(dist(files.wasm)) });
  rawEngine = new raw.Engine(1);
});
afterAll(() => {
  rawEngine?.delete();
  engine?.dispose();
});

// The one-shot call straight on the raw module: a status (1: refused, the
// error in lastError(); src/bindings/convert.hpp, guarded_status()), then the
// output where the engine's record lists it (as EngineHost reads it).
function rawMultiHeadAttention(args) {
  if (rawEngine.multiHeadAttention(args) !== 0) throw raw.lastError();
  const slot = raw.ioSlots().indexOf('output');
  const at = rawEngine.ioRecord() / 4 + 2 * slot;
  const output = new Float32Array(raw.HEAPF32.buffer, raw.HEAPU32[at], raw.HEAPU32[at + 1]).slice();
  rawEngine.releaseBuffers();
  return { output };
}

// Whether `run` fails with a message that names `limit` as the bound.
// (The raw module returns some C++ refusals as a RangeError value: see
// src/bindings/convert.hpp, guarded().)
async function refusedBy(limit, run) {
  try {
    const result = await run();
    if (result instanceof RangeError) throw result;
    return false;
  } catch (error) {
    return new RegExp(`(more than|to) ${limit}\\b`).test(error.message);
  }
}

const ones = (n) => new Float32Array(n).fill(1);

// A call of the given dimensions with small arrays: only the dimensions are
// at the boundary (arrays of 2^31 floats cannot be made).
function call(dims) {
  return {
    batch: 1,
    seqLenQ: 1,
    dModel: 1,
    numHeads: 1,
    dK: 1,
    dV: 1,
    ...dims,
    query: ones(4),
    wQ: ones(4),
    wK: ones(4),
    wV: ones(4),
    wO: ones(4),
  };
}
// The same call as the bindings receive it once src/js has filled it in.
function rawCall(dims) {
  const c = call(dims);
  return {
    seqLenK: c.seqLenQ,
    causal: false,
    returnAttention: false,
    returnProjections: false,
    returnScores: false,
    ...c,
  };
}

test('the engine reports the limits the core defines', () => {
  expect(engine.limits.maxElements).toBe(2 ** 31 - 1);
  expect(raw.limits().maxElements).toBe(engine.limits.maxElements);
  expect(Object.isFrozen(engine.limits)).toBe(true);
  expect(engine.limits.trainer).toEqual(raw.trainerLimits());
});

describe('maxElements', () => {
  const M = 2 ** 31 - 1;
  // One dimension at the boundary, and a product at the boundary (M − 1 =
  // 2 × 1073741823; M + 1 = 2 × 2^30; M itself is prime).
  const cases = [
    ['dModel', (n) => ({ dModel: n })],
    ['seqLenQ', (n) => ({ seqLenQ: n })],
    ['a product of dimensions (seqLenQ·dModel)', (n) => (n % 2 === 0 ? { seqLenQ: 2, dModel: n / 2 } : { dModel: n })],
  ];
  for (const [what, dims] of cases)
    for (const n of [M - 1, M, M + 1])
      test(`${what} at ${n}: JS and C++ refuse alike`, async () => {
        const js = await refusedBy(M, () => engine.multiHeadAttention(call(dims(n))));
        const cpp = await refusedBy(M, () => rawMultiHeadAttention(rawCall(dims(n))));
        expect({ js, cpp }).toEqual({ js: n > M, cpp: n > M });
      });
});

describe('the trainer limits', () => {
  const base = { vocabSize: 8, numTags: 3, maxLength: 4, dModel: 4, numHeads: 1, mlpHidden: 0 };
  const defaults = { learningRate: 0.01, beta1: 0.9, beta2: 0.999, epsilon: 1e-8, seed: 1 };
  const refusedRaw = (limit, options) =>
    refusedBy(limit, () => {
      const trainer = new raw.Trainer(rawEngine);
      try {
        return trainer.configure({ ...base, ...defaults, ...options });
      } finally {
        trainer.delete();
      }
    });
  for (const name of ['vocabSize', 'numTags', 'maxLength', 'dModel', 'mlpHidden'])
    for (const offset of [-1, 0, 1])
      test(`${name} at its limit ${offset >= 0 ? '+' : '−'} ${Math.abs(offset)}: JS and C++ refuse alike`, async () => {
        const limit = engine.limits.trainer[name];
        const options = { [name]: limit + offset };
        const js = await refusedBy(limit, async () => (await engine.createTrainer({ ...base, ...options })).dispose());
        const cpp = await refusedRaw(limit, options);
        expect({ js, cpp }).toEqual({ js: offset > 0, cpp: offset > 0 });
      });

  const sentences = [{ tokens: [1, 2], tags: [0, 1] }];
  for (const [name, value] of [
    ['batchSize', (limit) => ({ steps: 1, batchSize: limit })],
    ['steps', (limit) => ({ steps: limit, batchSize: 1 })],
  ])
    for (const offset of [-1, 0, 1])
      test(`train's ${name} at its limit ${offset >= 0 ? '+' : '−'} ${Math.abs(offset)}: JS and C++ refuse alike`, async () => {
        const limit = engine.limits.trainer[name];
        const { steps, batchSize } = value(limit + offset);
        // steps within the limit would run up to a million steps: both sides
        // are asked before the data is set, so that a call the limit lets
        // through stops at "no training data" instead.
        const withData = name === 'batchSize';
        const trainer = await engine.createTrainer(base);
        if (withData) await trainer.setData({ sentences });
        const js = await refusedBy(limit, () => trainer.train({ steps, batchSize }));
        trainer.dispose();
        const rawTrainer = new raw.Trainer(rawEngine);
        rawTrainer.configure({ ...base, ...defaults });
        if (withData)
          rawTrainer.setData({
            count: 1,
            tokens: new Int32Array([1, 2, 0, 0]),
            lengths: new Int32Array([2]),
            tags: new Int32Array([0, 1, -1, -1]),
          });
        const cpp = await refusedBy(limit, () => rawTrainer.train(steps, batchSize));
        rawTrainer.delete();
        expect({ js, cpp }).toEqual({ js: offset > 0, cpp: offset > 0 });
      });

  // The work of one train() call, steps×batchSize×maxLength token slots: with
  // maxLength 1, the product is at the boundary with 2^24 − 1 = 4097 × 4095,
  // 2^24 = 256 × 65536 and 2^24 + 1 = 673 × 24929 (no data is set, as above).
  for (const [offset, steps, batchSize] of [
    [-1, 4097, 4095],
    [0, 256, 65536],
    [1, 673, 24929],
  ])
    test(`train's steps×batchSize×maxLength at slotsPerTrain ${offset >= 0 ? '+' : '−'} ${Math.abs(offset)}: JS and C++ refuse alike`, async () => {
      const limit = engine.limits.trainer.slotsPerTrain;
      expect(steps * batchSize).toBe(limit + offset);
      const config = { ...base, maxLength: 1 };
      const trainer = await engine.createTrainer(config);
      const js = await refusedBy(limit, () => trainer.train({ steps, batchSize }));
      trainer.dispose();
      const rawTrainer = new raw.Trainer(rawEngine);
      rawTrainer.configure({ ...config, ...defaults });
      const cpp = await refusedBy(limit, () => rawTrainer.train(steps, batchSize));
      rawTrainer.delete();
      expect({ js, cpp }).toEqual({ js: offset > 0, cpp: offset > 0 });
    });

  test('the work counts maxLength, and both sides say how to split the call, in the same words', () => {
    const limit = engine.limits.trainer.slotsPerTrain;
    const rawTrainer = new raw.Trainer(rawEngine);
    const refusal = (config, steps, batchSize) => {
      rawTrainer.configure({ ...base, ...defaults, ...config });
      let cpp = 'accepted';
      try {
        const result = rawTrainer.train(steps, batchSize);
        if (result instanceof RangeError) throw result;
      } catch (error) {
        cpp = error.message;
      }
      let js = 'accepted';
      try {
        normalizeTrainArguments({ steps, batchSize }, engine.limits.trainer, { ...base, ...config });
      } catch (error) {
        js = error.message;
      }
      return { js, cpp };
    };
    // maxLength 4: 64 steps of 65536 are the limit exactly; one more step is not.
    expect(refusal({ maxLength: 4 }, limit / 4 / 65536, 65536)).toEqual({
      js: 'accepted',
      cpp: 'train: no training data; call setData first',
    });
    const message = `train: steps×batchSize×maxLength = 65×65536×4 = ${65 * 65536 * 4} token slots, more than ${limit} per call; split it into calls of at most 64 steps`;
    expect(refusal({ maxLength: 4 }, 65, 65536)).toEqual({ js: message, cpp: message });
    // One step past the limit: a smaller batch, not fewer steps.
    const batch = `train: steps×batchSize×maxLength = 1×65536×1024 = ${65536 * 1024} token slots, more than ${limit} per call; use a batchSize of at most ${limit / 1024}`;
    expect(refusal({ maxLength: 1024 }, 1, 65536)).toEqual({ js: batch, cpp: batch });
    rawTrainer.delete();
  });
});

test('setParameters checks the shapes the core lays out', async () => {
  const trainer = await engine.createTrainer({ vocabSize: 5, numTags: 3, maxLength: 4, dModel: 4, mlpHidden: 6 });
  const parameters = await trainer.parameters();
  // The names in the core's order, and each array's length rows × cols of its shape.
  expect(Object.keys(parameters)).toEqual([
    'embedding',
    'wQ',
    'bQ',
    'wK',
    'bK',
    'wV',
    'bV',
    'wO',
    'bO',
    'w1',
    'b1',
    'w2',
    'b2',
    'wC',
    'bC',
  ]);
  const expected = {
    embedding: 5 * 4,
    wQ: 16,
    bQ: 4,
    wK: 16,
    bK: 4,
    wV: 16,
    bV: 4,
    wO: 16,
    bO: 4,
    w1: 24,
    b1: 6,
    w2: 24,
    b2: 4,
    wC: 12,
    bC: 3,
  };
  for (const [name, values] of Object.entries(parameters))
    expect([name, values.length]).toEqual([name, expected[name]]);
  await expect(trainer.setParameters({ w1: new Float32Array(23) })).rejects.toThrow(
    /^w1: expected 24 elements \[4, 6\], got 23$/,
  );
  await trainer.setParameters({ w1: new Float32Array(24) });
  expect(Array.from((await trainer.parameters()).w1)).toEqual(new Array(24).fill(0));
  trainer.dispose();
});

// The key/value rule (default_key_value in src/core/attention.cpp; validate.mjs
// first): both sides accept and refuse the same calls, and name the same argument.
describe('the key/value rule', () => {
  const dModel = 4;
  const data = (n, seed) => Float32Array.from({ length: n * dModel }, (_, i) => Math.sin(i * seed));
  const base = (seqLenK) => ({
    ...call({ dModel, numHeads: 2, dK: 2, dV: 2 }),
    seqLenQ: 3,
    seqLenK,
    query: data(3, 1),
  });
  const w = { wQ: data(4, 2), wK: data(4, 3), wV: data(4, 4), wO: data(4, 5) };
  const cases = [
    ['both left out, seqLenK = seqLenQ', 3, {}],
    ['both left out, seqLenK ≠ seqLenQ', 5, {}],
    ['key only', 5, { key: data(5, 6) }],
    ['value only', 5, { value: data(5, 7) }],
    ['both', 5, { key: data(5, 6), value: data(5, 7) }],
  ];
  const outcome = async (run) => {
    try {
      const result = await run();
      if (result instanceof RangeError) throw result;
      return { output: Array.from(result.output) };
    } catch (error) {
      return { refused: error.message.split(':')[0] };
    }
  };
  test.each(cases)('%s', async (_, seqLenK, kv) => {
    const args = { ...base(seqLenK), ...w, ...kv };
    const js = await outcome(() => engine.multiHeadAttention(args));
    const cpp = await outcome(() =>
      rawMultiHeadAttention({
        causal: false,
        returnAttention: false,
        returnProjections: false,
        returnScores: false,
        ...args,
        key: kv.key ?? null,
        value: kv.value ?? null,
      }),
    );
    expect(cpp).toEqual(js);
    if (kv.key && !kv.value) {
      // value left out is the key.
      const same = await engine.multiHeadAttention({ ...args, value: kv.key });
      expect(js.output).toEqual(Array.from(same.output));
    }
  });
});

// engine.createTrainer: a few Adam steps against PyTorch in float64
// (tests/fixtures/train, from tests/tools/make_trainer_fixtures.py) on every
// build, determinism across thread counts, the H=1 vs H=2 experiment of the
// page on fixed seeds, and the argument errors.
import { readFileSync, readdirSync } from 'node:fs';
import { createAttention } from '../../src/js/node.mjs';
import { generateCorpus, vocabulary, tagSet, MAX_LENGTH } from '../../web/model/corpus.mjs';
import { createEngines, disposeEngines, VARIANTS } from './helpers/engines.mjs';
import { expectClose, expectSameBits } from './helpers/compare.mjs';

const DIR = new URL('../fixtures/train/', import.meta.url);
const names = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .sort();
const load = (name) => JSON.parse(readFileSync(new URL(`${name}.json`, DIR), 'utf8'));
const floats = (object) => Object.fromEntries(Object.entries(object).map(([k, v]) => [k, Float32Array.from(v)]));

let engines;
beforeAll(async () => {
  engines = await createEngines({ training: true });
});
afterAll(() => disposeEngines(engines));

test('there are trainer fixtures', () => expect(names.length).toBeGreaterThanOrEqual(3));

describe.each(VARIANTS)('%s build', (variant) => {
  test.each(names)('%s: losses, parameters and probabilities after Adam steps match PyTorch', async (name) => {
    const f = load(name);
    const trainer = await engines[variant].createTrainer({ ...f.config, seed: 7 });
    try {
      await trainer.setParameters(floats(f.initial));
      await trainer.setData({ sentences: f.sentences });
      // One batch = the whole set: every step sees what PyTorch's saw.
      const { losses, step } = await trainer.train({ steps: f.steps, batchSize: f.sentences.length });
      expect(step).toBe(f.steps);
      expectClose(losses, f.losses, { abs: 1e-6, rel: 1e-5 }, `${name} losses`);
      const params = await trainer.parameters();
      expect(Object.keys(params)).toEqual(Object.keys(f.final));
      for (const [k, want] of Object.entries(f.final))
        expectClose(params[k], want, { abs: 2e-6, rel: 1e-4 }, `${name} ${k}`);
      const { probabilities, predictions } = await trainer.evaluate({ sentences: f.sentences });
      const L = f.config.maxLength,
        T = f.config.numTags;
      f.sentences.forEach((s, i) => {
        const got = probabilities.subarray(i * L * T, (i * L + s.tokens.length) * T);
        expectClose(got, f.probabilities[i], { abs: 2e-6, rel: 1e-4 }, `${name} probabilities of sentence ${i}`);
        for (let t = s.tokens.length; t < L; t++) expect(predictions[i * L + t]).toBe(-1);
      });
    } finally {
      trainer.dispose();
    }
  });
});

// The page's experiment, encoded as the page does: characters → vocabulary
// ids, every token tagged (毒 by its role, the rest 'other').
const encode = ({ tokens, tags }) => ({
  tokens: tokens.map((t) => vocabulary.indexOf(t)),
  tags: tags.map((t) => tagSet.indexOf(t)),
});
const DU = vocabulary.indexOf('毒');

describe('the H=1 vs H=2 experiment on fixed seeds', () => {
  const train = generateCorpus({ seed: 1, count: 2000 }).map(encode);
  const seen = new Set(train.map((s) => s.tokens.join()));
  const testSet = generateCorpus({ seed: 2, count: 600 })
    .map(encode)
    .filter((s) => !seen.has(s.tokens.join()));
  const SEEDS = [1, 2, 3, 4, 5];
  const STEPS = 1500;
  const results = { 1: [], 2: [] };

  async function run(numHeads, seed) {
    const trainer = await engines['threaded-simd'].createTrainer({
      vocabSize: vocabulary.length,
      numTags: tagSet.length,
      maxLength: MAX_LENGTH,
      dModel: 16,
      numHeads,
      seed,
    });
    try {
      await trainer.setData({ sentences: train });
      const { losses } = await trainer.train({ steps: STEPS });
      const { predictions } = await trainer.evaluate({ sentences: testSet });
      let right = 0,
        count = 0;
      testSet.forEach((s, i) =>
        s.tokens.forEach((t, j) => {
          if (t !== DU) return;
          count++;
          right += predictions[i * MAX_LENGTH + j] === s.tags[j];
        }),
      );
      const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
      return { first: losses[0], last: mean(losses.slice(-100)), accuracy: right / count };
    } finally {
      trainer.dispose();
    }
  }

  test.each(SEEDS)(
    'seed %i: one head and two heads both learn (loss far below its start)',
    async (seed) => {
      for (const numHeads of [1, 2]) {
        const r = await run(numHeads, seed);
        results[numHeads].push(r);
        // The first batch's loss (random weights) is around ln 4 ≈ 1.39 or more;
        // 'other' alone is learned from the token itself, so every run, lucky or
        // not, ends far below it.
        expect(r.last).toBeLessThan(0.35);
        expect(r.last).toBeLessThan(r.first / 3);
      }
    },
    60_000,
  );

  test('the mean held-out 毒 accuracy of two heads is at least that of one head', () => {
    expect(results[1]).toHaveLength(SEEDS.length);
    const mean = (rs) => rs.reduce((s, r) => s + r.accuracy, 0) / rs.length;
    expect(mean(results[2])).toBeGreaterThanOrEqual(mean(results[1]));
  });
});

test('the same seed gives the same model, bitwise, on 1, 2 and 4 threads; another seed another one', async () => {
  const f = load('two_heads');
  const run = async (engine, seed) => {
    const trainer = await engine.createTrainer({ ...f.config, seed });
    await trainer.setData({ sentences: [...f.sentences, ...f.sentences, ...f.sentences] }); // 27: four shards
    const { losses } = await trainer.train({ steps: 30, batchSize: 20 });
    const { wQ, embedding } = await trainer.parameters();
    trainer.dispose();
    return { losses, wQ, embedding };
  };
  const results = [];
  for (const threads of [1, 2, 4]) {
    const engine = await createAttention({ variant: 'threaded-simd', threads, training: true });
    results.push(await run(engine, 5));
    engine.dispose();
  }
  for (const r of results.slice(1))
    for (const k of ['losses', 'wQ', 'embedding']) expectSameBits(r[k], results[0][k], k);
  const other = await run(engines.simd, 6);
  expect(Array.from(other.wQ)).not.toEqual(Array.from(results[0].wQ));
});

test.each(['simd', 'threaded-simd'])(
  '%s build: 300 trainers made, trained, evaluated, refused (in JS and in the engine) and disposed leave the in-use bytes of the wasm heap where they were',
  async (variant) => {
    const engine = engines[variant];
    const f = load('four_heads_mlp');
    const configs = [
      f.config,
      { ...f.config, numHeads: 1, mlpHidden: 0 },
      { ...f.config, maxLength: 9, dModel: 12, numHeads: 3 },
    ];
    const cycle = async (i) => {
      const trainer = await engine.createTrainer({ ...configs[i % 3], seed: i });
      await trainer.setData({ sentences: f.sentences });
      const { losses } = await trainer.train({ steps: 3, batchSize: 5 });
      const { attention } = await trainer.evaluate({ sentences: f.sentences.slice(0, 3), returnAttention: true });
      await expect(trainer.setData({ sentences: [{ tokens: [99], tags: [0] }] })).rejects.toThrow(RangeError); // refused in JS
      if (i % 50 === 0) expect(losses.every(Number.isFinite) && attention.every(Number.isFinite)).toBe(true);
      trainer.dispose();
      if (i % 10 === 0) {
        // Refused inside the engine: a diverging run throws out of C++ mid-call.
        const wild = await engine.createTrainer({ ...configs[i % 3], learningRate: 1e6 });
        await wild.setData({ sentences: f.sentences });
        await expect(wild.train({ steps: 1000, batchSize: 10 })).rejects.toThrow(/^learningRate: training diverged/);
        wild.dispose();
      }
    };
    for (let i = 0; i < 3; i++) await cycle(i); // warm-up: the engine's own buffers
    const before = await engine.memoryStats();
    for (let i = 0; i < 300; i++) await cycle(i);
    const after = await engine.memoryStats();
    expect(after.inUseBytes).toBe(before.inUseBytes);
    expect(after.heapBytes).toBe(before.heapBytes);
  },
  60_000,
);

describe('errors name the argument, and the engine stays usable', () => {
  const config = { vocabSize: 6, numTags: 3, maxLength: 5 };
  const sentences = [{ tokens: [0, 1, 2], tags: [0, -1, 2] }];

  test.each([
    [{ ...config, dModel: 16, numHeads: 3 }, RangeError, /^numHeads: expected a divisor of dModel \(16\).*got 3$/],
    [{ ...config, numHead: 2 }, TypeError, /unknown argument "numHead" \(did you mean "numHeads"\?\)/],
    [{ numTags: 3, maxLength: 5 }, TypeError, /^vocabSize: expected an integer from 1 to 65536, got undefined$/],
    [{ ...config, maxLength: 2000 }, RangeError, /^maxLength: expected an integer from 1 to 1024, got 2000$/],
    [{ ...config, learningRate: NaN }, RangeError, /^learningRate: expected a finite number > 0, got NaN$/],
    [{ ...config, beta2: 1 }, RangeError, /^beta2: expected a finite number ≥ 0 and < 1, got 1$/],
    [{ ...config, seed: -1 }, RangeError, /^seed: expected an integer from 0 to 4294967295, got -1$/],
    [{ ...config, mlpHidden: '64' }, TypeError, /^mlpHidden: expected an integer from 0 to 4096, got the string "64"$/],
    [null, TypeError, /^createTrainer: expected an object of arguments, got null$/],
  ])('createTrainer(%p)', async (options, Type, message) => {
    const error = await engines.simd.createTrainer(options).catch((e) => e);
    expect(error).toBeInstanceOf(Type);
    expect(error.message).toMatch(message);
  });

  test.each([
    [{ sentences: [] }, TypeError, /^sentences: expected a non-empty Array/],
    [
      { sentences: [{ tokens: [0, 6], tags: [0, 0] }] },
      RangeError,
      /^sentences\[0\]\.tokens\[1\]: expected an integer id from 0 to vocabSize-1=5, got number 6$/,
    ],
    [
      { sentences: [{ tokens: [0, 1], tags: [0] }] },
      RangeError,
      /^sentences\[0\]\.tags: expected 2 tags \(one per token\), got 1$/,
    ],
    [
      { sentences: [{ tokens: [0, 1] }] },
      TypeError,
      /^sentences\[0\]\.tags: expected an Array or Int32Array of 2 tag ids/,
    ],
    [
      { sentences: [{ tokens: [0, 1, 2, 3, 4, 5], tags: [0, 0, 0, 0, 0, 0] }] },
      RangeError,
      /^sentences\[0\]\.tokens: expected 1 to maxLength=5 tokens, got 6$/,
    ],
    [
      { sentences: [{ tokens: [0], tags: [3] }] },
      RangeError,
      /^sentences\[0\]\.tags\[0\]: expected -1 \(no loss\) or a tag id from 0 to numTags-1=2, got number 3$/,
    ],
    [
      { sentences: [{ tokens: 'abc', tags: [0] }] },
      TypeError,
      /^sentences\[0\]\.tokens: expected an Array or Int32Array/,
    ],
    [{ sentence: sentences }, TypeError, /unknown argument "sentence" \(did you mean "sentences"\?\)/],
  ])('setData(%p)', async (args, Type, message) => {
    const trainer = await engines.simd.createTrainer(config);
    const error = await trainer.setData(args).catch((e) => e);
    expect(error).toBeInstanceOf(Type);
    expect(error.message).toMatch(message);
    await trainer.setData({ sentences });
    expect((await trainer.train({ steps: 2 })).losses.every(Number.isFinite)).toBe(true);
    trainer.dispose();
  });

  test('train before setData, bad steps, bad parameters; then a good run', async () => {
    const trainer = await engines['threaded-simd'].createTrainer(config);
    await expect(trainer.train({ steps: 3 })).rejects.toThrow(
      new RangeError('train: no training data; call setData first'),
    );
    await trainer.setData({ sentences });
    await expect(trainer.train({ steps: 0 })).rejects.toThrow(/^steps: expected an integer from 1 to 1000000, got 0$/);
    await expect(trainer.train({ steps: 2, batchSize: 1.5 })).rejects.toThrow(RangeError);
    await expect(trainer.setParameters({ wQ: new Float32Array(3) })).rejects.toThrow(
      /^wQ: expected 256 elements \[16, 16\], got 3$/,
    );
    await expect(trainer.setParameters({ w1: new Float32Array(4) })).rejects.toThrow(/unknown argument "w1"/);
    await expect(trainer.setParameters({ bC: Float32Array.of(0, NaN, 0) })).rejects.toThrow(
      /^bC: expected finite numbers, got NaN at index 1$/,
    );
    await expect(trainer.evaluate({ sentences, returnAttention: 1 })).rejects.toThrow(
      /^returnAttention: expected a boolean/,
    );
    const { losses, step } = await trainer.train({ steps: 3, batchSize: 4 });
    expect(step).toBe(3);
    expect(losses.every(Number.isFinite)).toBe(true);
    const { attention } = await trainer.evaluate({ sentences: [{ tokens: [1, 2] }], returnAttention: true });
    expect(attention).toHaveLength(1 * 1 * 5 * 5);
    expect(attention[0] + attention[1]).toBeCloseTo(1, 6); // query 0 over its two keys
    expect(attention[2]).toBe(0); // past the sentence
    trainer.dispose();
    await expect(trainer.train({ steps: 1 })).rejects.toThrow(/this trainer was disposed/);
  });

  test('a learning rate that makes training diverge is refused, and the trainer goes back to its last finite loss', async () => {
    const trainer = await engines['threaded-simd'].createTrainer({ ...config, learningRate: 1e6, mlpHidden: 8 });
    const two = [
      { tokens: [0, 1, 2], tags: [0, 1, 2] },
      { tokens: [3, 4], tags: [1, 1] },
    ];
    await trainer.setData({ sentences: two });
    const error = await trainer.train({ steps: 1000, batchSize: 2 }).catch((e) => e);
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(
      /^learningRate: training diverged at step \d+ \(the batch's loss is not finite\); the parameters are back at step \d+, the last whose loss was finite; use a smaller learningRate$/,
    );
    for (const values of Object.values(await trainer.parameters())) expect(values.every(Number.isFinite)).toBe(true);
    const { loss, probabilities } = await trainer.evaluate({ sentences: two });
    expect(Number.isFinite(loss)).toBe(true);
    expect(probabilities.every(Number.isFinite)).toBe(true);
    trainer.dispose();
  });

  test('an engine without the trainer says how to get one', async () => {
    const engine = await createAttention({ variant: 'simd' });
    await expect(engine.createTrainer(config)).rejects.toThrow(/createAttention\(\{ training: true \}\)/);
    await expect(createAttention({ training: 'yes' })).rejects.toThrow(/^training: expected a boolean/);
    engine.dispose();
  });

  test("an engine's dispose disposes its trainers", async () => {
    const engine = await createAttention({ variant: 'simd', training: true });
    const trainer = await engine.createTrainer(config);
    engine.dispose();
    await expect(trainer.setData({ sentences })).rejects.toThrow(/disposed/);
  });
});

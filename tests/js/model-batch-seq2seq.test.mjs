// model.run([...]) on an encoder-decoder (MarianMT): pairs teacher-forced in one engine call
// (src/bindings/model_pairs.hpp). Each pair's rows of every array bit for bit its own run(), on every build and
// on 1 and 3 threads; the batch against transformers' own MarianMTModel over padded pairs
// (tests/fixtures/models/batch/hf-marian.json, made by tests/tools/make_batch_fixtures.py); zeros where either
// attention mask is 0; the head masks; the refusals.
import { readFileSync } from 'node:fs';
import { folder, reference } from './helpers/checkpoints.mjs';
import {
  BUILDS,
  enginesForTests,
  expectRefused,
  ONE_AND_THREE_THREADS,
  REFERENCE_VARIANTS,
} from './helpers/engines.mjs';

const REF = JSON.parse(readFileSync(folder('batch/hf-marian.json'), 'utf8'));
const realIds = (ids, mask) => ids.filter((_, i) => mask[i]);
// transformers' pairs: each sentence with its decoder input (decoder_start_token_id, then the target's ids).
const REFERENCE_PAIRS = REF.sentences.map((text, b) => ({
  text,
  decoderInputIds: realIds(REF.decoderInputIds[b], REF.decoderAttentionMask[b]),
}));
// Every form run() takes: a text alone (the decoder starts from decoder_start_token_id), ids with decoder ids.
const INPUTS = [...REFERENCE_PAIRS.slice(0, 3), '毒蛇', { inputIds: [18, 19, 11, 0], decoderInputIds: [233, 3, 5] }];
const OPTIONS = { returnHiddenStates: true, returnLogits: true };

/** Pair b's [groups, H, R, K] of an array [groups, B, H, Rmax, Kmax] (rows of width W: H 1, K = Kmax = W). */
function cut(data, [groups, B, H, Rmax, Kmax], b, R, K) {
  const out = new Float32Array(groups * H * R * K);
  let at = 0;
  for (let g = 0; g < groups; g++)
    for (let h = 0; h < H; h++)
      for (let r = 0; r < R; r++) {
        const row = (((g * B + b) * H + h) * Rmax + r) * Kmax;
        out.set(data.subarray(row, row + K), at);
        at += K;
      }
  return out;
}

/** Whether every element of `data` [groups, B, H, Rmax, Kmax] outside pair b's R × K is 0, for every pair. */
function zeroOutside(data, [groups, B, H, Rmax, Kmax], rowsOf, keysOf) {
  for (let g = 0; g < groups; g++)
    for (let b = 0; b < B; b++)
      for (let h = 0; h < H; h++)
        for (let r = 0; r < Rmax; r++)
          for (let k = 0; k < Kmax; k++)
            if ((r >= rowsOf(b) || k >= keysOf(b)) && data[(((g * B + b) * H + h) * Rmax + r) * Kmax + k] !== 0)
              return false;
  return true;
}

// The batch's arrays as [groups, B, H, rows, keys] with each pair's rows and keys (S: its source's tokens, T:
// its decoder's), and the same array of run() on that pair alone.
function layouts(model, batch) {
  const {
    numLayers: Le,
    numHeads: He,
    decoderLayers: Ld,
    decoderHeads: Hd,
    hiddenSize: D,
    vocabSize: V,
  } = model.config;
  const B = batch.batchSize;
  const S = (b) => batch.lengths[b];
  const T = (b) => batch.decoderLengths[b];
  const Smax = batch.shapes.inputIds[1];
  const Tmax = batch.shapes.decoderInputIds[1];
  const width = (W) => () => W;
  // name: [its view as [groups, B, H, rows, keys], rows of pair b, keys of pair b, the shape the batch says]
  return {
    encoderLastHiddenState: [[1, B, 1, Smax, D], S, width(D), [B, Smax, D]],
    encoderHiddenStates: [[Le + 1, B, 1, Smax, D], S, width(D), [Le + 1, B, Smax, D]],
    encoderAttention: [[Le, B, He, Smax, Smax], S, S],
    lastHiddenState: [[1, B, 1, Tmax, D], T, width(D), [B, Tmax, D]],
    decoderHiddenStates: [[Ld + 1, B, 1, Tmax, D], T, width(D), [Ld + 1, B, Tmax, D]],
    decoderAttention: [[Ld, B, Hd, Tmax, Tmax], T, T],
    crossAttention: [[Ld, B, Hd, Tmax, Smax], T, S],
    logits: [[1, B, 1, Tmax, V], T, width(V), [B, Tmax, V]],
  };
}

/** Each pair's rows of every array against its own run(): bit for bit; padding 0. Returns the floats compared. */
async function expectPairsAreSingleRuns(batchModel, singleModel, inputs, options = OPTIONS) {
  const batch = await batchModel.run(inputs, options);
  const B = inputs.length;
  expect(batch.batchSize).toBe(B);
  expect(new Set(batch.lengths).size).toBeGreaterThan(2);
  expect(new Set(batch.decoderLengths).size).toBeGreaterThan(2);
  let compared = 0;
  // The arrays the options ask for (each checked below to be the single run()'s too).
  const arrays = Object.entries(layouts(batchModel, batch)).filter(([name]) => batch[name] !== undefined);
  expect(arrays.length).toBeGreaterThan(2);
  for (const [name, [shape, rows, keys, said = shape]] of arrays) {
    expect([name, batch.shapes[name]]).toEqual([name, said]);
    expect([name, zeroOutside(batch[name], shape, rows, keys)]).toEqual([name, true]);
  }
  if (batch.crossAttention)
    for (const [group, name] of [
      ['encoder', 'encoderAttention'],
      ['decoder', 'decoderAttention'],
      ['cross', 'crossAttention'],
    ])
      expect(batch.attentions[group]).toEqual({ data: batch[name], shape: batch.shapes[name] });
  else expect(batch.attentions).toBeUndefined();
  for (let b = 0; b < B; b++) {
    const one = await singleModel.run(inputs[b], options);
    const [S, T] = [one.inputIds.length, one.decoderInputIds.length];
    expect([batch.lengths[b], batch.decoderLengths[b]]).toEqual([S, T]);
    expect(batch.tokens[b]).toEqual(one.tokens);
    expect(batch.decoderTokens[b]).toEqual(one.decoderTokens);
    const Smax = batch.shapes.inputIds[1];
    const Tmax = batch.shapes.decoderInputIds[1];
    expect(batch.inputIds.subarray(b * Smax, b * Smax + S)).toEqual(one.inputIds);
    expect(batch.decoderInputIds.subarray(b * Tmax, b * Tmax + T)).toEqual(one.decoderInputIds);
    expect(batch.special.subarray(b * Smax, b * Smax + S)).toEqual(one.special);
    const singles = Object.keys(layouts(batchModel, batch)).filter((name) => one[name] !== undefined);
    expect(singles).toEqual(arrays.map(([name]) => name));
    for (const [name, [shape, rows, keys]] of arrays) {
      expect([name, b, cut(batch[name], shape, b, rows(b), keys(b))]).toEqual([name, b, one[name]]);
      compared += one[name].length;
    }
  }
  return compared;
}

describe.each(REFERENCE_VARIANTS)('%s build', (variant) => {
  const engines = enginesForTests({ [variant]: BUILDS[variant] });

  test('hf-marian: each pair’s rows of run([...]) are that pair’s run(), bit for bit', async () => {
    const model = await engines[variant].loadModel(folder('hf-marian'));
    try {
      expect(await expectPairsAreSingleRuns(model, model, INPUTS)).toBeGreaterThan(10000);
    } finally {
      model.dispose();
    }
  });
});

describe('1 and 3 threads', () => {
  const engines = enginesForTests(ONE_AND_THREE_THREADS);

  test('a batch of pairs on 3 threads is each pair run alone on 1, and the other way', async () => {
    const [one, three] = await Promise.all([
      engines.one.loadModel(folder('hf-marian')),
      engines.three.loadModel(folder('hf-marian')),
    ]);
    try {
      await expectPairsAreSingleRuns(three, one, INPUTS);
      await expectPairsAreSingleRuns(one, three, INPUTS, { returnAttention: false, returnLogits: true });
    } finally {
      one.dispose();
      three.dispose();
    }
  });
});

describe('hf-marian on the SIMD build', () => {
  const engines = enginesForTests({ simd: { variant: 'simd' } });
  let model;
  beforeAll(async () => {
    model = await engines.simd.loadModel(folder('hf-marian'));
  });
  afterAll(() => model?.dispose());

  test('against transformers’ MarianMTModel over the same pairs padded (padding=True)', async () => {
    const { tolerance } = reference('hf-marian');
    const r = await model.run(REFERENCE_PAIRS, OPTIONS);
    expect(r.shapes.inputIds).toEqual(REF.shape);
    expect(r.shapes.decoderInputIds).toEqual(REF.decoderShape);
    expect(Array.from(r.attentionMask)).toEqual(REF.attentionMask.flat());
    expect(Array.from(r.decoderAttentionMask)).toEqual(REF.decoderAttentionMask.flat());
    // The same ids where either mask is 1, and the tokenizer's pad token where it is 0 (Marian's <pad>).
    expect(Array.from(r.inputIds)).toEqual(REF.inputIds.flat());
    expect(Array.from(r.decoderInputIds)).toEqual(REF.decoderInputIds.flat());
    const within = { attention: [tolerance.attentionAbs, 0], hidden: [tolerance.hiddenAbs, tolerance.hiddenRel] };
    const checks = {
      encoderHiddenStates: within.hidden,
      decoderHiddenStates: within.hidden,
      encoderAttention: within.attention,
      decoderAttention: within.attention,
      crossAttention: within.attention,
      logits: [tolerance.logitsAbs, tolerance.logitsRel],
    };
    let compared = 0;
    for (const [name, [shape, rows, keys]] of Object.entries(layouts(model, r))) {
      if (!checks[name]) continue;
      const [abs, rel] = checks[name];
      const want = Float64Array.from(REF[name]);
      expect([name, want.length]).toEqual([name, r[name].length]);
      let worst = -Infinity;
      for (let b = 0; b < r.batchSize; b++) {
        const got = cut(r[name], shape, b, rows(b), keys(b));
        const ref = cut(want, shape, b, rows(b), keys(b));
        for (let i = 0; i < got.length; i++)
          worst = Math.max(worst, Math.abs(got[i] - ref[i]) - (abs + rel * Math.abs(ref[i])));
        compared += got.length;
      }
      // The worst excess over the tolerance, 0 when every element is within it.
      expect({ name, excess: Math.max(worst, 0) }).toEqual({ name, excess: 0 });
    }
    expect(compared).toBeGreaterThan(10000);
  });

  test('head masks are every pair’s: each pair’s rows are its run() under the same masks', async () => {
    const { numLayers, numHeads, decoderLayers, decoderHeads } = model.config;
    const grid = (layers, heads, shift) =>
      Array.from({ length: layers }, (_, l) => Array.from({ length: heads }, (_, h) => (l + h + shift) % 3 !== 0));
    const headMask = {
      encoder: grid(numLayers, numHeads, 0),
      decoder: grid(decoderLayers, decoderHeads, 1),
      cross: grid(decoderLayers, decoderHeads, 2),
    };
    expect(await expectPairsAreSingleRuns(model, model, INPUTS, { ...OPTIONS, headMask })).toBeGreaterThan(10000);
    // …and they change what the heads they switch off write.
    const plain = await model.run(INPUTS);
    const masked = await model.run(INPUTS, { headMask });
    expect(masked.crossAttention).not.toEqual(plain.crossAttention);
  });

  test('truncation applies to each source', async () => {
    const long = '用毒毒毒蛇，毒蛇会不会被毒毒死';
    const batch = await model.run([long, '毒蛇'], { truncation: true, maxLength: 4 });
    expect(batch.lengths).toEqual([4, (await model.run('毒蛇')).inputIds.length]);
  });

  test('refusals: an empty batch, a bad pair named by its place, what a batch does not return', async () => {
    await expectRefused(
      model.run([]),
      RangeError,
      /^input: expected at least one input in the batch, got an empty array$/,
    );
    await expectRefused(model.run(['毒蛇', 5]), TypeError, /^input\[1\]: expected a string/);
    await expectRefused(
      model.run(['毒蛇', { text: '毒', decoderInputIds: [233, 99999] }]),
      RangeError,
      /^input\[1\]\.decoderInputIds\[1\]: expected an id below the vocabulary size 234/,
    );
    await expectRefused(
      model.run(['毒蛇', '蛇'], { returnHeadOutputs: true }),
      TypeError,
      /^returnHeadOutputs: a batch returns no what each head writes; run that pair alone/,
    );
    await expectRefused(
      model.run(['毒蛇', '蛇'], { returnLayerLogits: { positions: [0] } }),
      TypeError,
      /^returnLayerLogits: a batch returns no logit lens; run that pair alone/,
    );
    // The model runs after each refusal, and a single run after a batch is what it was.
    const before = await model.run('毒蛇', { returnLogits: true });
    await model.run(INPUTS);
    expect((await model.run('毒蛇', { returnLogits: true })).logits).toEqual(before.logits);
  });
});

// model.run([...]) on an encoder: a batch in one engine call (src/bindings/model_batch.hpp). Each row of every
// array is bit for bit that sentence's own run(), on every build (but threaded-simd, whose bits are simd's: the
// 1-and-3-threads tests below) and on 1 and 3 threads; the batch against transformers' own batched run with
// padding=True (tests/fixtures/models/batch/, made by
// tests/tools/make_batch_fixtures.py); zeros where the attention mask is 0; the refusals.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { folder, reference } from './helpers/checkpoints.mjs';
import {
  BUILDS,
  enginesForTests,
  expectRefused,
  ONE_AND_THREE_THREADS,
  REFERENCE_VARIANTS,
} from './helpers/engines.mjs';

const SENTENCES = ['用毒毒毒蛇，毒蛇会不会被毒毒死', 'We poison the snake.', '毒蛇会被毒死吗？', '用毒'];
const OPTIONS = { returnHiddenStates: true };
const TASKS = fileURLToPath(new URL('../fixtures/tasks/', import.meta.url));
const batchReference = (name) => JSON.parse(readFileSync(folder(`batch/${name}.json`), 'utf8'));

/** Row b of an array of `groups` × [B, Lmax, W] (padded) cut to its `length` rows: [groups, length, W]. */
function rowsOf(data, groups, B, Lmax, W, b, length) {
  const out = new Float32Array(groups * length * W);
  for (let g = 0; g < groups; g++)
    out.set(data.subarray((g * B + b) * Lmax * W, ((g * B + b) * Lmax + length) * W), g * length * W);
  return out;
}

/** Sequence b of attention [layers, B, H, Lmax, Lmax] cut to its length: [layers, H, length, length]. */
function attentionOf(data, layers, B, H, Lmax, b, length) {
  const out = new Float32Array(layers * H * length * length);
  let at = 0;
  for (let l = 0; l < layers; l++)
    for (let h = 0; h < H; h++)
      for (let i = 0; i < length; i++) {
        const row = (((l * B + b) * H + h) * Lmax + i) * Lmax;
        out.set(data.subarray(row, row + length), at);
        at += length;
      }
  return out;
}

/** The batch's rows against each sentence run alone: every array bit for bit, padding 0. */
async function expectRowsAreSingleRuns(batchModel, singleModel, options, inputs = SENTENCES) {
  const batch = await batchModel.run(inputs, options);
  const { numLayers: layers, numHeads: H, hiddenSize: D } = batchModel.config;
  const B = inputs.length;
  const Lmax = Math.max(...batch.lengths);
  expect(batch.batchSize).toBe(B);
  expect(batch.shapes.lastHiddenState).toEqual([B, Lmax, D]);
  expect(batch.shapes.attention).toEqual([layers, B, H, Lmax, Lmax]);
  const [group] = Object.keys(batch.attentions);
  expect(group).toBe(batchModel.kind);
  expect(batch.attentions[group].shape).toEqual([layers, B, H, Lmax, Lmax]);
  expect(batch.shapes.hiddenStates).toEqual([layers + 1, B, Lmax, D]);
  expect(new Set(batch.lengths).size).toBeGreaterThan(2); // sentences of different lengths
  let compared = 0;
  for (let b = 0; b < B; b++) {
    const one = await singleModel.run(inputs[b], options);
    const L = one.inputIds.length;
    expect(batch.lengths[b]).toBe(L);
    expect(batch.tokens[b]).toEqual(one.tokens);
    expect(batch.inputIds.subarray(b * Lmax, b * Lmax + L)).toEqual(one.inputIds);
    expect(batch.special.subarray(b * Lmax, b * Lmax + L)).toEqual(one.special);
    expect(Array.from(batch.attentionMask.subarray(b * Lmax, (b + 1) * Lmax))).toEqual(
      Array.from({ length: Lmax }, (_, i) => (i < L ? 1 : 0)),
    );
    expect(rowsOf(batch.lastHiddenState, 1, B, Lmax, D, b, L)).toEqual(one.lastHiddenState);
    expect(rowsOf(batch.hiddenStates, layers + 1, B, Lmax, D, b, L)).toEqual(one.hiddenStates);
    expect(attentionOf(batch.attention, layers, B, H, Lmax, b, L)).toEqual(one.attention);
    compared += one.lastHiddenState.length + one.hiddenStates.length + one.attention.length;
    if (one.logits) {
      const V = batchModel.config.vocabSize;
      expect(batch.shapes.logits).toEqual([B, Lmax, V]);
      expect(rowsOf(batch.logits, 1, B, Lmax, V, b, L)).toEqual(one.logits);
      compared += one.logits.length;
    }
  }
  // Padding: every element outside a sequence's rows and columns is 0 (the first that is not, reported; one
  // expect() for the whole array, as one an element made the suite spend most of its time in expect()).
  const zeroOutside = (data, groups, W, padded) => {
    let first = null;
    for (let g = 0; g < groups && !first; g++)
      for (let b = 0; b < B; b++)
        for (let i = 0; i < Lmax; i++)
          for (let k = 0; k < W; k++) {
            const at = ((g * B + b) * Lmax + i) * W + k;
            if (padded(b, i, k) && data[at] !== 0) first ??= { at, value: data[at] };
          }
    expect(first).toBeNull();
  };
  const pad = (b, i) => i >= batch.lengths[b];
  zeroOutside(batch.lastHiddenState, 1, D, pad);
  zeroOutside(batch.hiddenStates, layers + 1, D, pad);
  // attention [layers, B, H, Lmax, Lmax]: its rows as [layers, B, H · Lmax, Lmax], padded at a query or a key
  // (a decoder's 0 past each query too).
  const causal = batchModel.kind === 'decoder';
  const attentionRows = (b, r, k) => pad(b, r % Lmax) || pad(b, k) || (causal && k > r % Lmax);
  let nonZero = null;
  for (let l = 0; l < layers; l++)
    for (let b = 0; b < B; b++)
      for (let r = 0; r < H * Lmax; r++)
        for (let k = 0; k < Lmax; k++) {
          const at = ((l * B + b) * H * Lmax + r) * Lmax + k;
          if (attentionRows(b, r, k) && batch.attention[at] !== 0) nonZero ??= { l, b, r, k };
        }
  expect(nonZero).toBeNull();
  return compared;
}

describe.each(REFERENCE_VARIANTS)('%s build', (variant) => {
  const engines = enginesForTests({ [variant]: BUILDS[variant] });

  test.each(['hf-bert-mlm', 'hf-roberta'])(
    '%s: each row of run([...]) is that sentence’s run(), bit for bit',
    async (name) => {
      const model = await engines[variant].loadModel(folder(name));
      try {
        const withLogits = model.config.hasLogits ? { ...OPTIONS, returnLogits: true } : OPTIONS;
        expect(await expectRowsAreSingleRuns(model, model, withLogits)).toBeGreaterThan(1000);
      } finally {
        model.dispose();
      }
    },
  );
});

// Decoders, teacher-forced: each sequence causal over its own tokens from position 0 (Llama's rotary
// positions, GPT-2's learned ones; hf-qwen2's grouped-query attention), texts and ids mixed.
const DECODERS = ['hf-llama', 'hf-qwen2', 'hf-qwen3', 'hf-gpt2-lm'];
const DECODER_INPUTS = [...SENTENCES, { inputIds: [5, 9, 2, 7, 7, 1] }];

describe.each(REFERENCE_VARIANTS)('%s build: decoders', (variant) => {
  const engines = enginesForTests({ [variant]: BUILDS[variant] });

  test.each(DECODERS)('%s: each row of run([...]) is that input’s run(), bit for bit', async (name) => {
    const model = await engines[variant].loadModel(folder(name));
    try {
      const options = { ...OPTIONS, returnLogits: true };
      expect(await expectRowsAreSingleRuns(model, model, options, DECODER_INPUTS)).toBeGreaterThan(1000);
    } finally {
      model.dispose();
    }
  });
});

describe('1 and 3 threads', () => {
  const engines = enginesForTests(ONE_AND_THREE_THREADS);

  test('a batch on 3 threads is each sentence run alone on 1, bit for bit', async () => {
    const [one, three] = await Promise.all([
      engines.one.loadModel(folder('hf-bert-mlm')),
      engines.three.loadModel(folder('hf-bert-mlm')),
    ]);
    try {
      await expectRowsAreSingleRuns(three, one, { ...OPTIONS, returnLogits: true });
      await expectRowsAreSingleRuns(one, three, OPTIONS);
    } finally {
      one.dispose();
      three.dispose();
    }
  });

  test.each(['hf-qwen2', 'hf-gpt2-lm'])(
    '%s: a decoder’s batch on 3 threads is each input run alone on 1',
    async (name) => {
      const [one, three] = await Promise.all([
        engines.one.loadModel(folder(name)),
        engines.three.loadModel(folder(name)),
      ]);
      try {
        await expectRowsAreSingleRuns(three, one, { ...OPTIONS, returnLogits: true }, DECODER_INPUTS);
        await expectRowsAreSingleRuns(one, three, OPTIONS, DECODER_INPUTS);
      } finally {
        one.dispose();
        three.dispose();
      }
    },
  );
});

describe('against transformers’ batched run with padding=True', () => {
  const engines = enginesForTests({ simd: { variant: 'simd' } });

  /** The worst |got − want| − tolerance over the real tokens' rows (≤ 0: within it). */
  function worstOver(got, want, groups, B, L, W, lengths, abs, rel) {
    let worst = -Infinity;
    for (let g = 0; g < groups; g++)
      for (let b = 0; b < B; b++)
        for (let i = 0; i < lengths[b] * W; i++) {
          const at = (g * B + b) * L * W + i;
          worst = Math.max(worst, Math.abs(got[at] - want[at]) - (abs + rel * Math.abs(want[at])));
        }
    return worst;
  }

  test.each(['hf-bert-mlm', 'hf-roberta', 'hf-llama', 'hf-qwen2', 'hf-gpt2-lm'])('%s', async (name) => {
    const ref = batchReference(name);
    const { tolerance } = reference(name);
    const model = await engines.simd.loadModel(folder(name));
    try {
      const r = await model.run(ref.sentences, { returnHiddenStates: true, returnLogits: 'logits' in ref });
      const [B, L] = ref.shape;
      const { numLayers: layers, numHeads: H, hiddenSize: D } = model.config;
      expect(r.shapes.inputIds).toEqual([B, L]);
      expect(Array.from(r.attentionMask)).toEqual(ref.attentionMask.flat());
      const real = (ids) => Array.from(ids).filter((_, i) => r.attentionMask[i]);
      expect(real(r.inputIds)).toEqual(real(ref.inputIds.flat()));
      // An encoder's padding is its pad token; a decoder without one pads with 0 (transformers' with its eos).
      const padId = model.kind === 'encoder' ? ref.padTokenId : (model.tokenizer.specialTokens.pad?.id ?? 0);
      expect(r.inputIds.filter((_, i) => !r.attentionMask[i]).every((id) => id === padId)).toBe(true);
      expect(
        worstOver(
          r.hiddenStates,
          ref.hiddenStates,
          layers + 1,
          B,
          L,
          D,
          r.lengths,
          tolerance.hiddenAbs,
          tolerance.hiddenRel,
        ),
      ).toBeLessThanOrEqual(0);
      // Attention: each real query's row over the real keys; transformers' weights at padded keys are 0 too.
      const rows = layers * B * H;
      const bad = [];
      for (let q = 0; q < rows; q++) {
        const b = Math.floor(q / H) % B;
        for (let i = 0; i < r.lengths[b]; i++)
          for (let k = 0; k < L; k++) {
            const at = (q * L + i) * L + k;
            const ok =
              k >= r.lengths[b]
                ? r.attention[at] === 0 && ref.attention[at] < 1e-300
                : Math.abs(r.attention[at] - ref.attention[at]) <= tolerance.attentionAbs;
            if (!ok && bad.length < 5) bad.push({ at, got: r.attention[at], want: ref.attention[at] });
          }
      }
      expect(bad).toEqual([]);
      if (ref.logits) {
        const V = model.config.vocabSize;
        expect(
          worstOver(r.logits, ref.logits, 1, B, L, V, r.lengths, tolerance.logitsAbs, tolerance.logitsRel),
        ).toBeLessThanOrEqual(0);
      }
    } finally {
      model.dispose();
    }
  });
});

describe('refusals', () => {
  const engines = enginesForTests({ simd: { variant: 'simd' } });
  const models = {};
  beforeAll(async () => {
    for (const name of ['hf-bert-mlm', 'gpt2']) models[name] = await engines.simd.loadModel(folder(name));
  });

  test('a decoder’s batch returns no logit lens (an encoder-decoder’s: model-batch-seq2seq.test.mjs)', async () => {
    await expectRefused(
      models.gpt2.run(['a', 'b'], { returnLayerLogits: { positions: [0] } }),
      TypeError,
      /^returnLayerLogits: a batch returns no logit lens/,
    );
  });

  test('an empty batch, a bad input named by its place, one too long', async () => {
    const bert = models['hf-bert-mlm'];
    await expectRefused(
      bert.run([]),
      RangeError,
      /^input: expected at least one input in the batch, got an empty array$/,
    );
    await expectRefused(bert.run(['用毒', 5]), TypeError, /^input\[1\]: expected a string/);
    await expectRefused(
      bert.run(['用毒', { inputIds: [1, 2, 99999] }]),
      RangeError,
      /^input\[1\]\.inputIds\[2\]: expected an id below/,
    );
    const long = { inputIds: new Array(bert.config.maxLength + 1).fill(5) };
    await expectRefused(
      bert.run(['用毒', long]),
      RangeError,
      /^input\[1\]: \d+ tokens, more than the \d+ this model has positions for/,
    );
  });

  test('what a batch does not return is refused by name', async () => {
    const bert = models['hf-bert-mlm'];
    await expectRefused(
      bert.run(['用毒', '毒蛇'], { returnQueryKey: true }),
      TypeError,
      /^returnQueryKey: a batch returns no queries and keys/,
    );
    await expectRefused(
      bert.run(['用毒', '毒蛇'], { returnHeadOutputs: true }),
      TypeError,
      /^returnHeadOutputs: a batch returns no what each head writes|^returnHeadOutputs: a batch/,
    );
  });

  test('the memory check counts the whole batch: refused before anything is allocated, the model runs after', async () => {
    const bert = models['hf-bert-mlm'];
    const inputs = Array.from({ length: 30000 }, () => ({ inputIds: new Array(bert.config.maxLength).fill(5) }));
    const error = await bert.run(inputs, { returnHiddenStates: true }).then(
      () => null,
      (e) => e,
    );
    expect(error).toBeInstanceOf(RangeError);
    expect(error.code).toBe('TooLarge');
    expect(error.message).toMatch(/^model: needs \d+ bytes of WebAssembly memory, more than the \d+ bytes available/);
    expect((await bert.run(['用毒', '毒蛇'])).lengths).toEqual([4, 4]);
  });

  test('a text pair’s token types and ids are each input’s own', async () => {
    const bert = models['hf-bert-mlm'];
    const inputs = [{ text: '用毒毒蛇', textPair: '蛇会被毒死吗？' }, 'We poison', { inputIds: [2, 6, 6, 3] }];
    const batch = await bert.run(inputs);
    const Lmax = Math.max(...batch.lengths);
    const D = bert.config.hiddenSize;
    for (let b = 0; b < inputs.length; b++) {
      const one = await bert.run(inputs[b]);
      const L = one.inputIds.length;
      expect(batch.lastHiddenState.subarray(b * Lmax * D, (b * Lmax + L) * D)).toEqual(one.lastHiddenState);
    }
  });

  test('the head mask is every sequence’s', async () => {
    const bert = models['hf-bert-mlm'];
    const { numLayers, numHeads } = bert.config;
    const headMask = Array.from({ length: numLayers }, (_, l) =>
      Array.from({ length: numHeads }, (_, h) => (l + h) % 2),
    );
    const batch = await bert.run(['用毒毒蛇', 'We poison'], { headMask });
    const one = await bert.run('We poison', { headMask });
    const L = one.inputIds.length;
    const Lmax = Math.max(...batch.lengths);
    const D = bert.config.hiddenSize;
    expect(batch.lastHiddenState.subarray(Lmax * D, Lmax * D + L * D)).toEqual(one.lastHiddenState);
    const without = await bert.run('We poison');
    expect(one.lastHiddenState).not.toEqual(without.lastHiddenState);
  });
});

describe('task calls over a batch: classify, classifyTokens and embed of an array', () => {
  const engines = enginesForTests(ONE_AND_THREE_THREADS);

  test.each([
    ['bert-sequence-classification', 'classify', {}],
    ['roberta-sequence-classification', 'classify', {}],
    ['bert-token-classification', 'classifyTokens', {}],
    ['bert-sentence-embedding', 'embed', {}],
    ['bert-sentence-embedding', 'embed', { pooling: 'cls', normalize: true, returnAttention: false }],
  ])('%s: %s([...]) on 3 threads is each input’s call on 1, equal', async (name, call, options) => {
    const [one, three] = await Promise.all([
      engines.one.loadModel(TASKS + name),
      engines.three.loadModel(TASKS + name),
    ]);
    try {
      const batch = await three[call](SENTENCES, options);
      expect(batch).toHaveLength(SENTENCES.length);
      for (let b = 0; b < SENTENCES.length; b++) expect(batch[b]).toEqual(await one[call](SENTENCES[b], options));
    } finally {
      one.dispose();
      three.dispose();
    }
  });

  test('answer() takes one input', async () => {
    const model = await engines.one.loadModel(TASKS + 'bert-question-answering');
    try {
      await expect(model.answer([{ question: 'a', context: 'b' }])).rejects.toThrow(
        /^input: answer\(\) takes one input \(an object\), got an array/,
      );
    } finally {
      model.dispose();
    }
  });
});

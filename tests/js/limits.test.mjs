// The limits are defined once, in C++ (kMaxElements in src/core/common.hpp,
// TrainerLimits in src/train/trainer.hpp, ModelLimits and Model::max_length in
// src/model/model.hpp); src/js reads them from the bindings and checks them first. Here both sides meet every boundary
// (limit − 1, limit, limit + 1): through the public API (src/js's checks), and
// straight on the Embind module (the C++ checks alone), and each side must
// refuse by the limit exactly where the other does. A call that passes the
// limit may still fail later for another reason (no array of that length, not
// enough memory, the core's bound on its own working memory); what counts is
// whether the refusal names the argument's limit.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { variantFiles } from '../../src/js/files.mjs';
import { normalizeTrainArguments } from '../../src/js/validate-trainer.mjs';
import { readConfig } from '../../src/js/model-config.mjs';

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

describe('the model limits and rules', () => {
  const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
  let modelEngine, rawModels, rawModelEngine;
  beforeAll(async () => {
    modelEngine = await createAttention({ variant: 'simd' });
    const files = variantFiles('simd', 'model');
    const dist = (name) => fileURLToPath(new URL(`../../dist/${name}`, import.meta.url));
    rawModels = await require(dist(files.glue))({ wasmBinary: readFileSync(dist(files.wasm)) });
    rawModelEngine = new rawModels.Engine(1);
  });
  afterAll(() => {
    rawModelEngine?.delete();
    modelEngine?.dispose();
  });

  // The C++ model configured straight on the raw module: its { tensors,
  // maxLength }, or its refusal (a RangeError value, convert.hpp guarded()).
  // `use(model)` runs on the configured model before it is deleted.
  function rawConfigure(config, use = (model, configured) => configured) {
    const model = new rawModels.Model(rawModelEngine);
    try {
      const configured = model.configure(config);
      return configured instanceof RangeError ? configured : use(model, configured);
    } finally {
      model.delete();
    }
  }
  const refusal = (result) => (result instanceof RangeError ? result.message : null);
  const jsRefusal = (run) => {
    try {
      run();
      return null;
    } catch (error) {
      return error.message;
    }
  };

  test('the model build reports the limits its C++ model defines', () => {
    expect(rawModels.modelLimits()).toEqual({
      numLayers: 1024,
      numHeads: 1024,
      hiddenSize: 65536,
      intermediateSize: 262144,
      vocabSize: 2 ** 24,
      maxPositions: 65536,
      typeVocabSize: 1024,
    });
  });

  // maxLength is the C++ model's (Model::max_length, reported by configure);
  // JS checks it first, C++ (Model::check_length) in the bindings and in forward.
  describe.each([
    ['bert-zh', 64],
    ['roberta', 64],
    ['gpt2', 64],
  ])('%s: maxLength', (name, maxLength) => {
    let model, config;
    beforeAll(async () => {
      model = await modelEngine.loadModel(path.join(MODELS, name));
      config = readConfig(JSON.parse(readFileSync(path.join(MODELS, name, 'config.json'), 'utf8'))).engine;
    });
    afterAll(() => model?.dispose());

    test('JS reads what the C++ model reports', () => {
      expect(model.config.maxLength).toBe(maxLength);
      expect(rawConfigure(config).maxLength).toBe(maxLength);
    });
    for (const offset of [-1, 0, 1])
      test(`at maxLength ${offset >= 0 ? '+' : '−'} ${Math.abs(offset)} tokens: JS and C++ refuse alike`, async () => {
        const L = maxLength + offset;
        const ids = new Int32Array(L).fill(5);
        const js = await model.run({ inputIds: ids }).then(
          () => false,
          (error) => /more than the \d+ this model has positions for/.test(error.message),
        );
        // (The raw model has no weights: below the limit it is refused for them instead.)
        const cpp = rawConfigure(config, (raw) =>
          /^inputIds: expected 1 to \d+ tokens/.test(refusal(raw.run(ids, null, false, false)) ?? ''),
        );
        expect({ js, cpp }).toEqual({ js: L > maxLength, cpp: L > maxLength });
      });
  });

  // A config.json of a BERT whose sizes are all 1 but `changes` (in config.json's words).
  const bert = (changes) => ({
    model_type: 'bert',
    num_hidden_layers: 1,
    num_attention_heads: 1,
    hidden_size: 1,
    intermediate_size: 1,
    vocab_size: 1,
    max_position_embeddings: 1,
    type_vocab_size: 1,
    ...changes,
  });
  // [limit, config.json's field, whether hidden_size follows it (a multiple of the heads)]
  const SIZES = [
    ['numLayers', 'num_hidden_layers', false],
    ['numHeads', 'num_attention_heads', true],
    ['hiddenSize', 'hidden_size', false],
    ['intermediateSize', 'intermediate_size', false],
    ['vocabSize', 'vocab_size', false],
    ['maxPositions', 'max_position_embeddings', false],
    ['typeVocabSize', 'type_vocab_size', false],
  ];
  for (const [name, field, hiddenFollows] of SIZES)
    for (const offset of [-1, 0, 1])
      test(`${name} at its limit ${offset >= 0 ? '+' : '−'} ${Math.abs(offset)}: JS and C++ refuse alike`, () => {
        const limits = rawModels.modelLimits();
        const n = limits[name] + offset;
        const json = bert({ [field]: n, ...(hiddenFollows ? { hidden_size: n } : {}) });
        const js = jsRefusal(() => readConfig(json, limits));
        const cpp = refusal(rawConfigure(readConfig(json).engine));
        expect({
          js: js === `config.json: ${field} must be at most ${limits[name]}, got ${n}`,
          cpp: cpp === `${name}: expected an integer from 1 to ${limits[name]}, got ${n}`,
        }).toEqual({ js: offset > 0, cpp: offset > 0 });
      });

  test("loadModel checks config.json against the model build's limits before the weights", async () => {
    const files = { 'config.json': new TextEncoder().encode(JSON.stringify(bert({ num_hidden_layers: 1025 }))) };
    await expect(modelEngine.loadModel(files)).rejects.toThrow(
      new Error('config.json: num_hidden_layers must be at most 1024, got 1025'),
    );
  });

  // The rules between sizes, in the JS's words and the C++'s, at their boundaries.
  const RULES = [
    // RoBERTa's positions start at pad_token_id + 1, which must leave one.
    ...[6, 7, 8].map((pad) => [
      `pad_token_id ${pad} of 8 positions`,
      { model_type: 'roberta', max_position_embeddings: 8, pad_token_id: pad },
      pad + 1 >= 8,
    ]),
    ...[7, 8, 9].map((hidden) => [
      `hidden_size ${hidden} over 4 heads`,
      { hidden_size: hidden, num_attention_heads: 4 },
      hidden % 4 !== 0,
    ]),
    // layer_norm_eps as the blocks hold it, a float32.
    ...[
      [0, true],
      [-1e-12, true],
      [1e-46, true], // 0 as a float32
      [1.401298464324817e-45, false], // the least float32 above 0
      [1e-12, false],
      [3.4028234663852886e38, false], // the largest float32
      [3.5e38, true], // Infinity as a float32
      [1e39, true],
    ].map(([eps, refused]) => [`layer_norm_eps ${eps}`, { layer_norm_eps: eps }, refused]),
  ];
  test.each(RULES)('%s: JS and C++ refuse alike', (_, changes, refused) => {
    const json = bert(changes);
    const js = jsRefusal(() => readConfig(json, rawModels.modelLimits()));
    // The C++ model's config as JS makes it, with the rules' values as given.
    const valid = readConfig(
      bert({ ...changes, pad_token_id: 0, hidden_size: 4, num_attention_heads: 1, layer_norm_eps: 1 }),
    );
    const engineConfig = {
      ...valid.engine,
      positionOffset: json.model_type === 'roberta' ? json.pad_token_id + 1 : 0,
      hiddenSize: json.hidden_size,
      numHeads: json.num_attention_heads,
      layerNormEps: json.layer_norm_eps ?? 1e-12,
    };
    const cpp = refusal(rawConfigure(engineConfig));
    expect({ js: js !== null, cpp: cpp !== null }).toEqual({ js: refused, cpp: refused });
    if (refused) {
      expect(js).toMatch(/^config\.json: (pad_token_id|the hidden size|the layer norm epsilon)/);
      expect(cpp).toMatch(/^(positionOffset|hiddenSize|layerNormEps): expected/);
    }
  });
});

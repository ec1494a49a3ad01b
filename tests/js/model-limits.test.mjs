// The model's limits and rules are defined once, in C++ (ModelLimits and
// Model::max_length in src/model/model.hpp, the config rules in
// src/model/model.cpp); src/js reads them from the model build's bindings and
// checks them first (readConfig in src/js/models/config.mjs, model.run). Here
// both sides meet every boundary (limit − 1, limit, limit + 1): through the
// public API and straight on the Embind module, and each side must refuse
// where the other does, naming the same field.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { variantFiles } from '../../src/js/files.mjs';
import { readConfig } from '../../src/js/models/config.mjs';

const require = createRequire(import.meta.url);

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

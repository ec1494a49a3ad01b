// The model's limits and rules are defined once, in C++: ModelLimits
// (src/model/config.hpp), the rules of config.json's fields (ConfigReader,
// src/model/config.cpp, and each architecture's fields in src/model/arch/),
// Model::max_length. JS checks none of config.json itself; it reads the
// model's length limit from the bindings and checks it first in model.run.
// Here every boundary (limit − 1, limit, limit + 1) is met straight on the
// Embind module (describeModel) and through the public API (loadModel),
// with the message each gives.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { variantFiles } from '../../src/js/files.mjs';

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

  // The C++ model configured straight on the raw module from a config.json
  // object: its description, or its refusal (an Error value for a bad
  // config.json, a RangeError for any other; convert.hpp guarded()).
  // `use(model)` runs on the configured model before it is deleted.
  function rawConfigure(config, use = (model, configured) => configured) {
    const model = new rawModels.Model(rawModelEngine);
    try {
      const configured = model.configure(config, 0);
      return configured instanceof Error ? configured : use(model, configured);
    } finally {
      model.delete();
    }
  }
  const refusal = (result) => (result instanceof Error ? result.message : null);
  const configOf = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'config.json'), 'utf8'));

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

  // maxLength is the C++ model's (Model::max_length, reported by describeModel
  // and configure); JS checks it first, C++ (Model::check_length) in the
  // bindings and in forward.
  describe.each([
    ['bert-zh', 64],
    ['roberta', 64],
    ['gpt2', 64],
  ])('%s: maxLength', (name, maxLength) => {
    let model, config;
    beforeAll(async () => {
      model = await modelEngine.loadModel(path.join(MODELS, name));
      config = configOf(name);
    });
    afterAll(() => model?.dispose());

    test('JS reads what the C++ model reports', () => {
      expect(model.config.maxLength).toBe(maxLength);
      expect(rawConfigure(config).maxLength).toBe(maxLength);
      expect(rawModels.describeModel(config).maxLength).toBe(maxLength);
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
          /^inputIds: expected 1 to \d+ tokens/.test(refusal(raw.call(runRequest(ids))) ?? ''),
        );
        expect({ js, cpp }).toEqual({ js: L > maxLength, cpp: L > maxLength });
      });
  });

  // A run of `ids` as the bindings take it, whole (engine-host.js modelCall makes it so).
  const runRequest = (ids) => ({
    call: 'run',
    inputIds: ids,
    tokenTypeIds: null,
    lengths: null, // one sequence, not a batch (model_batch.hpp)
    beams: 1,
    returnAttention: false,
    returnHiddenStates: false,
    returnLogits: 0,
    returnQueryKey: false,
    headMask: { encoder: null, decoder: null, cross: null },
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
      test(`${name} at its limit ${offset >= 0 ? '+' : '−'} ${Math.abs(offset)}: refused past it, in config.json's words`, () => {
        const limits = rawModels.modelLimits();
        const n = limits[name] + offset;
        const json = bert({ [field]: n, ...(hiddenFollows ? { hidden_size: n } : {}) });
        const described = rawModels.describeModel(json);
        const message = described instanceof Error ? described.message : 'accepted';
        if (offset > 0) {
          expect(message).toBe(`config.json: ${field} must be at most ${limits[name]}, got ${n}`);
          // A bad file is an Error, not a RangeError (a bad argument).
          expect(described).not.toBeInstanceOf(RangeError);
        } else {
          // Within the limit (a hidden size of 65536 still makes a product too large to hold).
          expect(message).not.toMatch(/must be at most/);
        }
      });

  test("loadModel checks config.json against the model build's limits before the weights", async () => {
    const files = { 'config.json': new TextEncoder().encode(JSON.stringify(bert({ num_hidden_layers: 1025 }))) };
    await expect(modelEngine.loadModel(files)).rejects.toThrow(
      new Error('config.json: num_hidden_layers must be at most 1024, got 1025'),
    );
  });

  // The rules between fields, at their boundaries: [what, changes, the refusal or null].
  const RULES = [
    // RoBERTa's positions start at pad_token_id + 1, which must leave one.
    ...[6, 7, 8].map((pad) => [
      `pad_token_id ${pad} of 8 positions`,
      { model_type: 'roberta', max_position_embeddings: 8, pad_token_id: pad },
      pad + 1 >= 8 ? `config.json: pad_token_id ${pad} leaves no position for a token` : null,
    ]),
    ...[7, 8, 9].map((hidden) => [
      `hidden_size ${hidden} over 4 heads`,
      { hidden_size: hidden, num_attention_heads: 4 },
      hidden % 4 !== 0
        ? `config.json: the hidden size (${hidden}) must be a multiple of the number of heads (4)`
        : null,
    ]),
    // layer_norm_eps as the blocks hold it, a float32.
    ...[
      [0, true],
      [-1e-12, true],
      [1e-46, true], // 0 as a float32
      [1.401298464324817e-45, false], // the least float32 above 0
      [1e-12, false],
      [3.4028234663852886e38, false], // the largest float32
      [3.4028235677973366e38, true], // halfway to the next power of two: Infinity as a float32
      [3.5e38, true],
      [1e39, true],
      ['1e-12', true], // a string is not a number
    ].map(([eps, refused]) => [
      `layer_norm_eps ${JSON.stringify(eps)}`,
      { layer_norm_eps: eps },
      refused
        ? `config.json: the layer norm epsilon must be a number > 0 and finite as a float32, got ${JSON.stringify(eps)}`
        : null,
    ]),
  ];
  test.each(RULES)('%s', (_, changes, message) => {
    const described = rawModels.describeModel(bert(changes));
    expect(described instanceof Error ? described.message : null).toBe(message);
  });

  // Each field's type and presence, and the settings an architecture refuses by name.
  const FIELDS = [
    ['no model_type', { model_type: undefined }, 'config.json: model_type undefined is not supported; mha-wasm runs'],
    [
      'an unknown model_type',
      { model_type: 'albert' },
      'config.json: model_type "albert" is not supported; mha-wasm runs "bert", "roberta", "xlm-roberta", "camembert", "gpt2", "marian", "llama", "qwen2", "qwen3"',
    ],
    ['a model_type that is no string', { model_type: 7 }, 'config.json: model_type 7 is not supported'],
    [
      'a size left out',
      { num_hidden_layers: undefined },
      'config.json: num_hidden_layers must be a positive integer, got undefined',
    ],
    ['a size of null', { vocab_size: null }, 'config.json: vocab_size must be a positive integer, got null'],
    ['a fractional size', { hidden_size: 2.5 }, 'config.json: hidden_size must be a positive integer, got 2.5'],
    [
      'a size in a string',
      { intermediate_size: '4' },
      'config.json: intermediate_size must be a positive integer, got "4"',
    ],
    [
      'a size of 0',
      { max_position_embeddings: 0 },
      'config.json: max_position_embeddings must be a positive integer, got 0',
    ],
    ['type_vocab_size left out (2)', { type_vocab_size: undefined }, null],
    [
      'an unknown activation',
      { hidden_act: 'relu' },
      'config.json: hidden_act "relu" is not supported; mha-wasm runs "gelu", "gelu_new", "gelu_pytorch_tanh"',
    ],
    [
      'relative positions',
      { position_embedding_type: 'relative_key' },
      'config.json: position_embedding_type "relative_key" is not supported; mha-wasm runs "absolute"',
    ],
    [
      'a fractional pad_token_id',
      { model_type: 'roberta', pad_token_id: 1.5 },
      'config.json: pad_token_id must be a non-negative integer, got 1.5',
    ],
    [
      'a GPT-2 without scaled attention',
      { model_type: 'gpt2', n_layer: 1, n_head: 1, n_embd: 4, n_positions: 4, scale_attn_weights: false },
      'config.json: scale_attn_weights false is not supported; mha-wasm runs "true"',
    ],
    [
      'a GPT-2 scaled by the layer index',
      { model_type: 'gpt2', n_layer: 1, n_head: 1, n_embd: 4, n_positions: 4, scale_attn_by_inverse_layer_idx: true },
      'config.json: scale_attn_by_inverse_layer_idx true is not supported; mha-wasm runs "false"',
    ],
    ['a GPT-2 with n_ctx for n_positions', { model_type: 'gpt2', n_layer: 1, n_head: 1, n_embd: 4, n_ctx: 4 }, null],
    [
      'a GPT-2 with neither',
      { model_type: 'gpt2', n_layer: 1, n_head: 1, n_embd: 4 },
      'config.json: n_positions must be a positive integer, got undefined',
    ],
  ];
  test.each(FIELDS)('%s', (_, changes, message) => {
    const described = rawModels.describeModel(bert(changes));
    const got = described instanceof Error ? described.message : null;
    if (message === null) expect(got).toBeNull();
    else expect(got?.startsWith(message) ? message : got).toBe(message);
  });

  test('a config.json read by describeModel allocates nothing; configure allocates its parameters', () => {
    const big = bert({ vocab_size: 1 << 18, hidden_size: 64 }); // 64 MiB of token embeddings
    const before = rawModelEngine.memoryStats();
    const described = rawModels.describeModel(big);
    const after = rawModelEngine.memoryStats();
    // A matrix of its own: the token embeddings are held as the packed Eᵀ a tied head multiplies by, the output
    // head (what weights 'q4' keeps in Q8_0).
    expect(described.tensors[0]).toEqual({
      name: 'embeddings.word_embeddings.weight',
      shape: [1 << 18, 64],
      slot: 0,
      matrix: true,
      outputHead: true,
    });
    expect(described.architecture).toEqual({
      name: 'bert',
      kind: 'encoder',
      causal: false,
      tokenTypes: false, // type_vocab_size 1: nothing to choose, the tokenizer's type ids are not fed
      tokenTypeEmbeddings: true,
      attentionGroups: ['encoder'],
    });
    expect(rawModels.describeModel(bert({ type_vocab_size: 2 })).architecture.tokenTypes).toBe(true);
    expect(described.prefixes).toEqual(['bert.', 'roberta.']);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(Math.abs(after.inUseBytes - before.inUseBytes)).toBeLessThan(1 << 16);
    const grown = rawConfigure(big, () => rawModelEngine.memoryStats().inUseBytes - before.inUseBytes);
    expect(grown).toBeGreaterThanOrEqual(64 << 20);
  });
});

// engine.loadModel on the tiny Hugging Face checkpoints of tests/fixtures/models
// (made by tests/tools/make_model_fixtures.py: float64 PyTorch references in
// Hugging Face naming, tokenizer ids from its own WordPiece and byte-level BPE):
// every build but threaded-simd, whose bits are simd's (REFERENCE_VARIANTS),
// against the references, for every source form; bitwise equal across thread
// counts; the run() contract; memory back after 50 loads.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { caseFolders, filesOf, folder, reference } from './helpers/checkpoints.mjs';
import { BUILDS, enginesForTests, ONE_AND_THREE_THREADS, REFERENCE_VARIANTS } from './helpers/engines.mjs';

const SENTENCE = '用毒毒毒蛇，毒蛇会不会被毒毒死';
const FOLDERS = caseFolders();

/**
 * How loadModel's default ('auto') holds a folder's matrices, from its safetensors headers: in the 16-bit
 * type every 2-D float tensor is stored in, else float32 (pickles are float32 here).
 */
function autoWeights(name) {
  const types = new Set();
  for (const file of readdirSync(folder(name)).filter((f) => f.endsWith('.safetensors'))) {
    const bytes = readFileSync(path.join(folder(name), file));
    const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8'));
    for (const [key, t] of Object.entries(header))
      if (key !== '__metadata__' && t.shape.length === 2 && /^B?F\d+$/.test(t.dtype)) types.add(t.dtype);
  }
  const [only] = types;
  return types.size === 1 && only === 'BF16' ? 'bf16' : types.size === 1 && only === 'F16' ? 'f16' : 'float32';
}

function expectNear(got, want, abs, rel, label) {
  expect(got.length).toBe(want.length);
  let worst = 0;
  let at = -1;
  for (let i = 0; i < want.length; i++) {
    const excess = Math.abs(got[i] - want[i]) - (abs + rel * Math.abs(want[i]));
    if (!(excess <= worst)) [worst, at] = [excess, i];
  }
  if (at >= 0) throw new Error(`${label}[${at}]: got ${got[at]}, want ${want[at]}`);
}

function expectReference(r, c, tolerance, label) {
  expect(Array.from(r.inputIds)).toEqual(c.inputIds);
  expect(r.tokens).toEqual(c.readable ?? c.tokens);
  expectNear(r.attention, c.attention, tolerance.attentionAbs, 0, `${label} attention`);
  expectNear(r.hiddenStates, c.hiddenStates, tolerance.hiddenAbs, tolerance.hiddenRel, `${label} hiddenStates`);
  expectNear(
    r.lastHiddenState,
    c.lastHiddenState,
    tolerance.hiddenAbs,
    tolerance.hiddenRel,
    `${label} lastHiddenState`,
  );
}

describe.each(REFERENCE_VARIANTS)('%s build', (variant) => {
  const engines = enginesForTests({ [variant]: BUILDS[variant] });

  test.each(FOLDERS)('%s matches its PyTorch float64 reference in every case', async (name) => {
    const ref = reference(name);
    const model = await engines[variant].loadModel(folder(name));
    // BERT and RoBERTa encode (every token sees every other); GPT-2 and the Llama family decode, causally.
    const decoder = ['gpt2', 'llama', 'qwen2', 'qwen3'].includes(ref.config.modelType);
    // Every model also says its heads' width and its key/value heads (fewer with grouped-query attention). The
    // references list both where the width is not hidden / heads (Qwen3's head_dim), else neither.
    const { headDim, numKVHeads, hasLogits, weights, weightBytes, weightTypes, activations, ...rest } = model.config;
    // No task head, nor a sentence-transformers folder (tests/js/tasks.test.mjs has those).
    const { taskHead, labels, sentenceTransformers, ...config } = rest;
    expect([taskHead, labels, sentenceTransformers]).toEqual([null, null, null]);
    const { headDim: refHeadDim, numKeyValueHeads: refKeyValueHeads, ...refConfig } = ref.config;
    // A 16-bit checkpoint stays 16-bit (its results are the float32 ones: widened exactly in the GEMM).
    expect(weights).toBe(autoWeights(name));
    expect(weightBytes).toBeGreaterThan(0);
    expect(activations).toBe('float32'); // the default: products over the weights' exact values
    // Every matrix in that one type.
    expect(Object.keys(weightTypes)).toEqual([{ float32: 'F32', bf16: 'BF16', f16: 'F16' }[weights]]);
    // A head: every decoder's; a BERT's masked-LM head where transformers' reference has its predictions.
    expect(hasLogits).toBe(decoder || Boolean(ref.masked));
    expect(headDim).toBe(refHeadDim ?? ref.config.hiddenSize / ref.config.numHeads);
    if (refKeyValueHeads !== undefined) expect(numKVHeads).toBe(refKeyValueHeads);
    else expect(ref.config.numHeads % numKVHeads).toBe(0);
    expect(config).toEqual({
      ...refConfig,
      kind: decoder ? 'decoder' : 'encoder',
      causal: decoder,
      // transformers' own folders (hf-*) say it; RoBERTa's positions start after pad_token_id + 1.
      maxLength: ref.config.maxLength ?? ref.config.maxPositions - (name === 'roberta' ? 2 : 0),
    });
    // The tokenizer's special tokens are the ones the generator's tokenizer made (by id).
    const specialIds = [...new Set(Object.values(ref.specialTokens))].sort((a, b) => a - b);
    expect(model.specialTokens.map((t) => t.id)).toEqual(expect.arrayContaining(specialIds));
    for (const c of ref.cases) {
      const r = await model.run(c.input, { returnAttention: true, returnHiddenStates: true });
      expectReference(r, c, ref.tolerance, `${name} ${c.name}`);
      // Which tokens are special, and the attention by group with its shape.
      expect(Array.from(r.special)).toEqual(c.inputIds.map((id) => (specialIds.includes(id) ? 1 : 0)));
      const L = c.inputIds.length;
      const group = decoder ? 'decoder' : 'encoder';
      expect(Object.keys(r.attentions)).toEqual([group]);
      expect(r.attentions[group].shape).toEqual([ref.config.numLayers, ref.config.numHeads, L, L]);
      expect(r.attentions[group].data).toBe(r.attention);
    }
    const without = await model.run(ref.cases[0].input, { returnAttention: false });
    expect(without.attentions).toBeUndefined();
    model.dispose();
  });
});

describe('sources, tokenizers and threads', () => {
  const engines = enginesForTests(ONE_AND_THREE_THREADS);

  test('a folder, { name: Uint8Array }, { name: ArrayBuffer }, { name: Blob } and File[] load the same model', async () => {
    const files = filesOf('gpt2-sharded');
    const sources = [
      folder('gpt2-sharded'),
      files,
      Object.fromEntries(Object.entries(files).map(([n, b]) => [n, b.slice().buffer])),
      Object.fromEntries(Object.entries(files).map(([n, b]) => [n, new Blob([b])])),
      Object.entries(files).map(([n, b]) => new File([b], n)),
    ];
    const c = reference('gpt2-sharded').cases[0];
    const outputs = [];
    for (const source of sources) {
      const model = await engines.one.loadModel(source);
      outputs.push((await model.run(c.input)).attention);
      model.dispose();
    }
    for (const out of outputs.slice(1)) expect(out).toEqual(outputs[0]);
  });

  test('the sentence is [CLS] + 15 characters + [SEP]; a pair gets token types 0 then 1', async () => {
    const model = await engines.one.loadModel(folder('bert-zh'));
    const r = await model.run(SENTENCE, { returnAttention: false });
    expect(r.tokens).toEqual(['[CLS]', ...SENTENCE, '[SEP]']);
    expect(r.attention).toBeUndefined();
    expect(r.hiddenStates).toBeUndefined();
    expect(r.lastHiddenState).toHaveLength(17 * 32);
    const pair = reference('bert-zh').cases.find((c) => c.input.textPair);
    const withTypes = await model.run({ inputIds: pair.inputIds, tokenTypeIds: pair.tokenTypeIds });
    const fromText = await model.run(pair.input);
    expect(fromText.attention).toEqual(withTypes.attention);
    const withoutTypes = await model.run({ inputIds: pair.inputIds });
    expect(withoutTypes.attention).not.toEqual(withTypes.attention);
  });

  test('GPT-2 byte pieces of a CJK character read as that character, numbered', async () => {
    const model = await engines.one.loadModel(folder('gpt2'));
    const { tokens } = await model.run('用毒');
    expect(tokens.join('|')).toMatch(/用₁\|用₂\|用₃/);
  });

  test.each(FOLDERS)('%s: bitwise the same on 1 and 3 threads', async (name) => {
    const [a, b] = await Promise.all([engines.one.loadModel(folder(name)), engines.three.loadModel(folder(name))]);
    for (const c of reference(name).cases) {
      const options = { returnAttention: true, returnHiddenStates: true };
      const [x, y] = await Promise.all([a.run(c.input, options), b.run(c.input, options)]);
      expect(Buffer.compare(Buffer.from(x.hiddenStates.buffer), Buffer.from(y.hiddenStates.buffer))).toBe(0);
      expect(Buffer.compare(Buffer.from(x.attention.buffer), Buffer.from(y.attention.buffer))).toBe(0);
    }
    a.dispose();
    b.dispose();
  });

  test('onProgress reports the bytes streamed, up to the total', async () => {
    const seen = [];
    const model = await engines.one.loadModel(folder('bert-zh'), { onProgress: (p) => seen.push(p) });
    expect(seen.length).toBeGreaterThan(0);
    const last = seen.at(-1);
    expect(last.loadedBytes).toBe(last.totalBytes);
    expect(last.file).toBe('model.safetensors');
    for (let i = 1; i < seen.length; i++) expect(seen[i].loadedBytes).toBeGreaterThanOrEqual(seen[i - 1].loadedBytes);
    model.dispose();
  });
});

describe('run() arguments', () => {
  let engine, bert, noTokenizer;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
    bert = await engine.loadModel(folder('bert-zh'));
    const files = filesOf('bert-zh');
    delete files['tokenizer.json'];
    delete files['vocab.txt'];
    noTokenizer = await engine.loadModel(files);
  });
  afterAll(() => engine?.dispose());

  test('a sequence longer than the positions is a RangeError; the model goes on', async () => {
    await expect(bert.run({ inputIds: new Array(65).fill(5) })).rejects.toThrow(
      new RangeError('input: 65 tokens, more than the 64 this model has positions for'),
    );
    await expect(bert.run({ inputIds: new Array(64).fill(5) })).resolves.toBeDefined();
  });

  test.each([
    [{ inputIds: [2, 26] }, RangeError, 'input.inputIds[1]: expected an id below the vocabulary size 26, got 26'],
    [{ inputIds: [2, -1] }, RangeError, 'input.inputIds[1]: expected a non-negative integer id, got number -1'],
    [{ inputIds: [2, 1.5] }, RangeError, 'input.inputIds[1]: expected a non-negative integer id, got number 1.5'],
    [
      { inputIds: 'abc' },
      TypeError,
      'input.inputIds: expected an Int32Array or an array of integers, got the string "abc"',
    ],
    [{ inputIds: [2, 3], tokenTypeIds: [0] }, RangeError, 'input.tokenTypeIds: expected 2 ids'],
    [{ inputIds: [2, 3], tokenTypeIds: [0, 2] }, RangeError, 'tokenTypeIds[1]: expected 0 to 1, got 2'],
    [{ inputIds: [] }, RangeError, 'input: no tokens'],
    [{ text: 'a', pair: 'b' }, TypeError, 'unknown argument "pair" (did you mean "textPair"?)'],
    [{ text: 5 }, TypeError, 'input.text: expected a string, got number 5'],
    [42, TypeError, 'input: expected a string, { text, textPair } or { inputIds, tokenTypeIds }, got number 42'],
    // Mixed inputs: which would run? Once the text ran and the ids (or the pair) were ignored.
    [{ text: '毒', inputIds: [2, 3] }, TypeError, 'input: give text or inputIds, not both'],
    [
      { inputIds: [2, 3], textPair: '蛇' },
      TypeError,
      'input.textPair: a second text goes with text, not with inputIds',
    ],
  ])('%j is refused', async (input, Type, message) => {
    const error = await bert.run(input).catch((e) => e);
    expect(error).toBeInstanceOf(Type);
    expect(error.message).toContain(message);
  });

  test('GPT-2 refuses token type ids by name (transformers would add wte(token_type_ids); they were ignored)', async () => {
    const gpt2 = await engine.loadModel(folder('gpt2'));
    await expect(gpt2.run({ inputIds: [1, 2], tokenTypeIds: [0, 0] })).rejects.toThrow(
      new TypeError('input.tokenTypeIds: a gpt2 has no token type embeddings; leave tokenTypeIds out'),
    );
    gpt2.dispose();
  });

  test('options are checked', async () => {
    await expect(bert.run('毒', { returnAttentions: true })).rejects.toThrow(
      /unknown argument "returnAttentions" \(did you mean "returnAttention"\?\)/,
    );
    await expect(bert.run('毒', { returnAttention: 1 })).rejects.toThrow(TypeError);
  });

  test('text needs a tokenizer; ids work without one', async () => {
    await expect(noTokenizer.run('毒')).rejects.toThrow(
      /has no tokenizer \(tokenizer.json, vocab.txt, or source.spm with vocab.json\)/,
    );
    const r = await noTokenizer.run({ inputIds: [2, 17, 3] });
    expect(r.tokens).toEqual(['2', '17', '3']);
  });

  test('a disposed model, or one of a disposed engine, refuses to run', async () => {
    const other = await createAttention({ variant: 'simd' });
    const model = await other.loadModel(folder('gpt2'));
    const loaded = await other.loadModel(folder('roberta'));
    model.dispose();
    await expect(model.run('a')).rejects.toThrow(/this model was disposed/);
    other.dispose();
    await expect(loaded.run('a')).rejects.toThrow(/disposed/);
    await expect(other.loadModel(folder('gpt2'))).rejects.toThrow(/this engine was disposed/);
  });
});

test('50 loads and disposes give the memory back', async () => {
  const engine = await createAttention({ variant: 'simd' });
  const files = filesOf('bert-zh');
  // The model build started, and the engine's attention scratch made once (it is kept between calls).
  const first = await engine.loadModel(files);
  await first.run(SENTENCE, { returnHiddenStates: true });
  first.dispose();
  const before = (await engine.memoryStats()).models.inUseBytes;
  for (let i = 0; i < 50; i++) {
    const model = await engine.loadModel(files);
    await model.run(SENTENCE, { returnHiddenStates: true });
    model.dispose();
  }
  const after = (await engine.memoryStats()).models.inUseBytes;
  expect(after).toBe(before);
  engine.dispose();
}, 60_000);

describe("model.kind, and loadModel's kind", () => {
  const engines = enginesForTests({ simd: { variant: 'simd' } });

  test.each([
    ['bert-zh', 'encoder'],
    ['hf-gpt2-lm', 'decoder'],
    ['hf-marian', 'encoder-decoder'],
  ])("%s, of kind %s: model.kind is config.kind, and loadModel's kind takes it", async (name, kind) => {
    const model = await engines.simd.loadModel(folder(name), { kind });
    expect([model.kind, model.config.kind]).toEqual([kind, kind]);
    expect(Object.isFrozen(model)).toBe(true);
    model.dispose();
  });

  test('another kind is refused by name once config.json is read, leaving no memory behind', async () => {
    const engine = engines.simd;
    const before = (await engine.memoryStats()).models?.inUseBytes ?? 0;
    const error = await engine.loadModel(folder('hf-marian'), { kind: 'decoder' }).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe('InvalidArgument');
    expect(error.message).toBe(
      "kind: expected a checkpoint of kind 'decoder', got a marian (kind 'encoder-decoder', config.json)",
    );
    await expect(engine.loadModel(folder('bert-zh'), { kind: 'decoder' })).rejects.toThrow(
      new TypeError("kind: expected a checkpoint of kind 'decoder', got a bert (kind 'encoder', config.json)"),
    );
    expect((await engine.memoryStats()).models?.inUseBytes ?? 0).toBe(before);
  });

  test.each([
    ['seq2seq', RangeError, 'the string "seq2seq"'],
    [2, TypeError, 'number 2'],
    [null, TypeError, 'null'],
  ])('kind %j is refused, naming it', async (kind, Type, given) => {
    const error = await engines.simd.loadModel(folder('bert-zh'), { kind }).catch((e) => e);
    expect(error).toBeInstanceOf(Type);
    expect(error.message).toBe(`kind: expected one of 'encoder', 'decoder', 'encoder-decoder', got ${given}`);
  });
});

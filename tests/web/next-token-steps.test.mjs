// The next-token view's generation a step at a time (web/model/next-token-steps.mjs):
// the last row of every head of an attention, the prompts, and TokenSteps
// through the KV cache of the tiny Qwen2 transformers saved
// (tests/fixtures/models/hf-qwen2) against run() over the same ids in Node:
// each step's attention the last row of run()'s, bit for bit, its logits
// run()'s last row, its token the most probable of the row before; with the
// cache emptied between two steps too; and where a generation ends (at the
// checkpoint's eos_token_id, as transformers' generate() ends on the GPT-2
// fixture, tests/tools/make_decoder_fixtures.py; or at the length).
import { readFileSync } from 'node:fs';
import { createAttention } from '../../src/js/node.mjs';
import { SENTENCE } from '../../web/sentence.mjs';
import { topTokens } from '../../web/model/predictions.mjs';
import { PROMPTS, TokenSteps, promptText } from '../../web/model/next-token-steps.mjs';
import { lastRows } from '../js/helpers/attention-rows.mjs';
import { expectSameBits } from '../js/helpers/compare.mjs';

const QWEN2 = 'tests/fixtures/models/hf-qwen2';

test('the last query row of every head', () => {
  const [numLayers, numHeads, length, keys] = [2, 3, 4, 5];
  const value = (l, h, q, k) => l * 1000 + h * 100 + q * 10 + k;
  const attention = new Float32Array(numLayers * numHeads * length * keys);
  for (let l = 0; l < numLayers; l++)
    for (let h = 0; h < numHeads; h++)
      for (let q = 0; q < length; q++)
        for (let k = 0; k < keys; k++) attention[((l * numHeads + h) * length + q) * keys + k] = value(l, h, q, k);
  const rows = lastRows(attention, { numLayers, numHeads, length, keys });
  expect(rows).toBeInstanceOf(Float32Array);
  expect(rows.length).toBe(numLayers * numHeads * keys);
  for (let l = 0; l < numLayers; l++)
    for (let h = 0; h < numHeads; h++)
      for (let k = 0; k < keys; k++) expect(rows[(l * numHeads + h) * keys + k]).toBe(value(l, h, length - 1, k));
  // keys defaults to length (self-attention); a step's one row comes back as it is.
  expect(lastRows(Float32Array.of(1, 2, 3, 4), { numLayers: 1, numHeads: 1, length: 2 })).toEqual(
    Float32Array.of(3, 4),
  );
  expect(lastRows(Float32Array.of(5, 6), { numLayers: 1, numHeads: 1, length: 1, keys: 2 })).toEqual(
    Float32Array.of(5, 6),
  );
  expect(() => lastRows(new Float32Array(5), { numLayers: 1, numHeads: 1, length: 2 })).toThrow(
    new RangeError('attention: expected 4 weights (1 × 1 × 2 × 2), got 5'),
  );
  expect(() => lastRows(new Float32Array(4), { numLayers: 1, numHeads: 0, length: 2 })).toThrow(
    new RangeError('numHeads: expected an integer ≥ 1, got 0'),
  );
});

test('the prompts: the sentence, its first clause, the text box', () => {
  expect(PROMPTS).toEqual(['sentence', 'clause', 'text']);
  expect(promptText('sentence', 'x')).toBe(SENTENCE);
  expect(promptText('clause', 'x')).toBe('用毒毒毒蛇');
  expect(promptText('text', '毒蛇会')).toBe('毒蛇会');
  expect(() => promptText('poem', '')).toThrow(RangeError);
  expect(() => new TokenSteps({}, 3)).toThrow(new TypeError('prompt: expected a string, got number'));
});

describe('through the engine', () => {
  let engine, model;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
    model = await engine.loadModel(QWEN2);
  });
  afterAll(() => engine?.dispose());

  // A step's record against run() over its ids: the new token the most probable after the ids before it, its
  // attention the last row of each head, its logits the last row; and the cache's length.
  async function expectRunOf(record, promptLength, step) {
    const { numLayers, numHeads, vocabSize: V } = model.config;
    const n = record.ids.length;
    expect(n).toBe(promptLength + step);
    expect(record.step).toBe(step);
    expect(record.position).toBe(n - 1);
    expect(record.tokens).toEqual(model.pieces(record.ids));
    const before = await model.run({ inputIds: record.ids.subarray(0, n - 1) }, { returnLogits: true });
    const want = before.logits.subarray((n - 2) * V, (n - 1) * V);
    expectSameBits(record.from, want, `step ${step}: the row the token was chosen from`);
    expect(record.id).toBe(topTokens(want, 1)[0].id);
    expect(record.ids[n - 1]).toBe(record.id);
    const whole = await model.run({ inputIds: record.ids }, { returnLogits: true });
    expect(record.attention.length).toBe(numLayers * numHeads * n);
    expectSameBits(
      record.attention,
      lastRows(whole.attention, { numLayers, numHeads, length: n }),
      `step ${step}: the new token's attention`,
    );
    expectSameBits(record.logits, whole.logits.subarray((n - 1) * V, n * V), `step ${step}: the logits after it`);
    expect(model.past).toBe(n);
  }

  test('each step is run() over the same ids, through the cache or, emptied, through a new prefill', async () => {
    const prompt = promptText('clause');
    const promptLength = (await model.run(prompt)).inputIds.length;
    const steps = new TokenSteps(model, prompt);
    expect(steps.steps).toBe(0);
    for (let step = 1; step <= 3; step++) await expectRunOf(await steps.next(), promptLength, step);
    // Something else used the cache (a generate() leaves its own output there, all but the last id): the next step
    // is still run() over the steps' own ids.
    const other = await model.generate(SENTENCE, { maxNewTokens: 2 });
    expect(model.past).toBe(other.outputIds.length - 1);
    await expectRunOf(await steps.next(), promptLength, 4);
    expect(steps.steps).toBe(4);
  });

  test('two generations of one prompt choose the same tokens (greedy: deterministic)', async () => {
    const a = new TokenSteps(model, SENTENCE);
    const b = new TokenSteps(model, SENTENCE);
    const ids = async (steps) => {
      let r;
      for (let i = 0; i < 3; i++) r = await steps.next();
      return Array.from(r.ids);
    };
    expect(await ids(a)).toEqual(await ids(b));
  });
});

test('a generation ends where transformers’ generate() ends: at eos_token_id, or at the length', async () => {
  const engine = await createAttention({ variant: 'simd' });
  try {
    const GPT2 = 'tests/fixtures/models/hf-gpt2-lm';
    const ref = JSON.parse(readFileSync(`${GPT2}/reference.json`, 'utf8'));
    const g = ref.generate.find((c) => c.name === 'eos');
    expect(g.stop).toBe('eos');
    const gpt2 = await engine.loadModel(GPT2);
    const P = g.inputIds.length;
    const atEos = new TokenSteps(gpt2, g.text, { maxLength: P + g.options.max_new_tokens });
    const records = [];
    for (let r = await atEos.next(); !r.ended; r = await atEos.next()) records.push(r);
    // Every token but the eos is a step (fed, its attention shown); the eos ends it.
    expect(records.map((r) => r.id)).toEqual(g.sequence.slice(P, -1));
    expect(await atEos.next()).toEqual({ ended: 'eos', id: ref.generationConfig.eos_token_id });
    expect(atEos.steps).toBe(g.sequence.length - P - 1);
    const qwen = await engine.loadModel(QWEN2);
    const prompt = promptText('clause');
    const n = (await qwen.run(prompt)).inputIds.length;
    const short = new TokenSteps(qwen, prompt, { maxLength: n + 3 });
    const first = await short.next();
    const second = await short.next();
    expect([first.step, second.step, second.ids.length]).toEqual([1, 2, n + 2]);
    const end = await short.next();
    expect(end).toEqual({ ended: 'length', id: expect.any(Number) });
    expect(await short.next()).toBe(end);
  } finally {
    engine.dispose();
  }
});

// Decoders that predict (GPT-2's head, Llama, Qwen2 and Qwen3 with grouped-query
// attention, rotary positions, RMSNorm and SwiGLU, bf16 weights, llama3 rope
// scaling, Qwen3's per-head q/k norms and head_dim other than hidden / heads),
// against what Hugging Face transformers computes for the tiny
// checkpoints it saved (tests/tools/make_decoder_fixtures.py): on every
// build, every case's logits, and generate()'s ids, new text and step scores
// for greedy decoding (the new text as transformers' pipeline cuts it;
// max_new_tokens, eos lists, no_repeat_ngram_size, repetition_penalty,
// min_new_tokens, the default length); a generation's
// attention is run() over the ids it fed back, bit for bit; its steps go
// through the KV cache (a prefill and steps are the rows of run()); sampling
// is reproducible for a seed; heads switched off; the refusals.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { jest } from '@jest/globals';
import { createAttention } from '../../src/js/node.mjs';
import { expectNear, sameBits as same } from './helpers/compare.mjs';

const EngineHost = createRequire(import.meta.url)('../../src/js/engine-host.js');

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));
// Every folder of a decoder with generate() references: a new one is tested by being there.
const FOLDERS = readdirSync(MODELS)
  .filter((name) => existsSync(path.join(MODELS, name, 'reference.json')))
  .filter((name) => reference(name).generate && reference(name).cases)
  .sort();
const folder = (name) => path.join(MODELS, name);
const GENERATED = JSON.parse(
  readFileSync(new URL('../fixtures/text/generated.json', import.meta.url), 'utf8'),
).generate;
const tokenizerHasByteFallback = (name) =>
  JSON.parse(readFileSync(path.join(MODELS, name, 'tokenizer.json'), 'utf8')).model?.byte_fallback === true;

// transformers' generate() keyword arguments as generate()'s options.
function optionsOf(o) {
  const names = {
    max_new_tokens: 'maxNewTokens',
    no_repeat_ngram_size: 'noRepeatNgramSize',
    repetition_penalty: 'repetitionPenalty',
    min_new_tokens: 'minNewTokens',
  };
  const out = {};
  for (const [key, value] of Object.entries(o)) {
    if (!names[key]) throw new Error(`the test does not know generate()'s ${key}`);
    out[names[key]] = value;
  }
  return out;
}

test('the fixtures are here', () => {
  expect(FOLDERS).toEqual(
    expect.arrayContaining(['hf-gpt2-lm', 'hf-llama', 'hf-llama-rope-scaling', 'hf-qwen2', 'hf-qwen3']),
  );
});

describe.each([
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 3],
])('%s build, %d thread(s)', (variant, threads) => {
  let engine;
  const models = {};
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
    for (const name of FOLDERS) models[name] = await engine.loadModel(folder(name));
  });
  afterAll(() => engine?.dispose());

  test.each(FOLDERS)('%s: every case’s logits are transformers’', async (name) => {
    const ref = reference(name);
    for (const c of ref.cases) {
      const r = await models[name].run({ inputIds: c.inputIds }, { returnLogits: true, returnAttention: false });
      expectNear(r.logits, c.logits, ref.tolerance.logitsAbs, ref.tolerance.logitsRel, `${name} ${c.name} logits`);
    }
  });

  // With the attention returned too: its search computes the weights (as transformers' eager attention does).
  test.each(FOLDERS)('%s: greedy generate() gives transformers’ ids, text and step scores', async (name) => {
    const ref = reference(name);
    const model = models[name];
    for (const g of ref.generate.flatMap((c) => [false, true].map((returnAttention) => ({ ...c, returnAttention })))) {
      const out = await model.generate(g.text, { ...optionsOf(g.options), returnAttention: g.returnAttention });
      const label = `${g.name}, returnAttention ${g.returnAttention}`;
      expect([label, Array.from(out.inputIds)]).toEqual([label, g.inputIds]);
      expect([label, Array.from(out.outputIds)]).toEqual([label, g.sequence]);
      // The text (the whole output decoded minus the decoded prompt: tests/fixtures/text/generated.json), where
      // it is whole UTF-8. (Random weights emit byte soup: on a run of byte-fallback pieces that is not UTF-8,
      // Rust's tokenizers writes one U+FFFD per byte of the run, @huggingface/tokenizers only for the bytes
      // that do not decode; the ids above are the same.)
      const { text } = GENERATED[name].find((c) => c.name === g.name);
      if (!text.includes('\uFFFD') || !tokenizerHasByteFallback(name)) expect([label, out.text]).toEqual([label, text]);
      expectNear(out.stepScores, g.stepScores, ref.tolerance.scoreAbs, 0, `${name} ${label} stepScores`);
      expect(out.tokens).toHaveLength(out.outputIds.length);
      expect(model.past).toBe(out.outputIds.length - 1); // the cache holds the output but its last id
    }
  });

  test('a generation’s attention is run() over the ids it fed back; its steps are the cache’s', async () => {
    const model = models['hf-qwen2'];
    const g = reference('hf-qwen2').generate.find((c) => c.name === 'max_new_tokens_8');
    const seen = [];
    // The steps' rows put together: no run() of the engine's over the output after the search.
    const calls = jest.spyOn(EngineHost.prototype, 'modelCall');
    let out, made;
    try {
      out = await model.generate(g.text, { maxNewTokens: 8, onToken: (r) => seen.push(r), returnAttention: true });
      made = calls.mock.calls.map(([, request]) => request.call);
    } finally {
      calls.mockRestore();
    }
    expect(made).toEqual(['prefill', ...Array(7).fill('step')]);
    const fed = out.outputIds.subarray(0, out.outputIds.length - 1);
    const whole = await model.run({ inputIds: fed }, { returnLogits: true });
    expect(same(out.attention, whole.attention)).toBe(true);
    expect(out.attentions.decoder.shape).toEqual([2, 4, fed.length, fed.length]);
    expect(seen.map((s) => s.id)).toEqual(Array.from(out.outputIds.subarray(g.inputIds.length)));
    // A prefill of the prompt and a step a token: the rows of run() over all of them, bit for bit.
    const P = g.inputIds.length;
    const V = model.config.vocabSize;
    const first = await model.prefill({ inputIds: fed.subarray(0, P) }, { returnLogits: true });
    expect(same(first.logits, whole.logits.subarray(0, P * V))).toBe(true);
    for (let t = P; t < fed.length; t++) {
      const s = await model.step({ inputIds: fed.subarray(t, t + 1) }, { returnLogits: true });
      expect(s.past).toBe(t);
      expect(same(s.logits, whole.logits.subarray(t * V, (t + 1) * V))).toBe(true);
    }
    await model.reset();
  });

  test('sampling: the same seed, the same text; topK 1 is greedy', async () => {
    const model = models['hf-llama'];
    const text = reference('hf-llama').generate[0].text;
    const options = { maxNewTokens: 12, doSample: true, temperature: 1.5, topP: 0.95, returnAttention: false };
    const a = await model.generate(text, { ...options, seed: 7 });
    const b = await model.generate(text, { ...options, seed: 7 });
    expect(a.seed).toBe(7);
    expect(Array.from(b.outputIds)).toEqual(Array.from(a.outputIds));
    const others = await Promise.all(
      [1, 2, 3].map((seed) => model.generate(text, { ...options, seed }).then((r) => Array.from(r.outputIds).join())),
    );
    expect(others.some((ids) => ids !== Array.from(a.outputIds).join())).toBe(true);
    const greedy = await model.generate(text, { maxNewTokens: 12, returnAttention: false });
    const topOne = await model.generate(text, { maxNewTokens: 12, doSample: true, topK: 1, seed: 3 });
    expect(Array.from(topOne.outputIds)).toEqual(Array.from(greedy.outputIds));
  });

  test('heads switched off: their weights are 0, all on is no mask', async () => {
    const model = models['hf-qwen2'];
    const ids = reference('hf-qwen2').cases[0].inputIds;
    const plain = await model.run({ inputIds: ids }, { returnLogits: true });
    const on = await model.run(
      { inputIds: ids },
      {
        returnLogits: true,
        headMask: [
          [1, 1, 1, 1],
          [1, 1, 1, 1],
        ],
      },
    );
    expect(same(on.logits, plain.logits)).toBe(true);
    const off = await model.run(
      { inputIds: ids },
      {
        returnLogits: true,
        headMask: [
          [1, 0, 1, 1],
          [1, 1, 1, 0],
        ],
      },
    );
    const L = ids.length;
    const head = (layer, h) => off.attention.subarray((layer * 4 + h) * L * L, (layer * 4 + h + 1) * L * L);
    expect(head(0, 1).every((v) => v === 0)).toBe(true);
    expect(head(1, 3).every((v) => v === 0)).toBe(true);
    expect(same(off.logits, plain.logits)).toBe(false);
    const g = await model.generate(
      { inputIds: ids },
      {
        maxNewTokens: 4,
        returnAttention: true,
        headMask: [
          [1, 0, 1, 1],
          [1, 1, 1, 0],
        ],
      },
    );
    const fed = g.outputIds.subarray(0, g.outputIds.length - 1);
    const again = await model.run(
      { inputIds: fed },
      {
        headMask: [
          [1, 0, 1, 1],
          [1, 1, 1, 0],
        ],
      },
    );
    expect(same(g.attention, again.attention)).toBe(true);
  });
});

describe('refusals', () => {
  let engine, qwen;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
    qwen = await engine.loadModel(folder('hf-qwen2'));
  });
  afterAll(() => engine?.dispose());

  test('what a decoder’s generate() does not take is named', async () => {
    await expect(qwen.generate('毒', { numBeams: 0 })).rejects.toThrow(
      new RangeError('numBeams: expected 1 to 64, got 0'),
    );
    await expect(qwen.generate('毒', { temperature: 0 })).rejects.toThrow(
      new RangeError('temperature: expected a finite number > 0, got number 0'),
    );
    await expect(qwen.generate('毒', { topP: 1.5 })).rejects.toThrow(/^topP: expected a number in \(0, 1\]/);
    await expect(qwen.generate('毒', { seed: -1 })).rejects.toThrow(/^seed: expected an integer from 0/);
    await expect(qwen.generate('毒', { maxNewTokens: 64 })).rejects.toThrow(/maxNewTokens: expected 1 to 63/);
    await expect(qwen.generate('毒', { headMask: [[1, 1, 1, 1]] })).rejects.toThrow(
      /^headMask: expected 2 layers of 4 heads/,
    );
    await expect(
      qwen.run('毒', {
        headMask: [
          [1, 1, 1],
          [1, 1, 1, 1],
        ],
      }),
    ).rejects.toThrow(new RangeError('headMask[0]: expected 4 values (one per head), got 3'));
    // It still generates afterwards.
    expect((await qwen.generate('毒', { maxNewTokens: 2 })).outputIds.length).toBeGreaterThan(1);
  });
});

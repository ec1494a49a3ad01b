// The step stream: generate({ onStep }) and a decoder's generateSteps(), each
// step's token, the raw logits it was chosen from and their processed score,
// and the attention of the tokens fed for it (as transformers'
// generate(output_logits, output_scores, output_attentions) gives per step).
// Against transformers' own generate() (tests/tools/make_decoder_fixtures.py:
// the ids, each chosen token's raw logit and processed score), and against
// run() over the ids fed back (whose attention model tests check against
// transformers): a step's rows are run()'s rows, bit for bit. A stream
// interrupted by other calls on the model's cache goes on as if it had not
// been. One build (simd): the stream is JavaScript over the engine calls the
// other suites test on every build.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { expectNear, sameBits as same } from './helpers/compare.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));
const DECODERS = readdirSync(MODELS)
  .filter((name) => existsSync(path.join(MODELS, name, 'reference.json')))
  .filter((name) => reference(name).generate && reference(name).cases)
  .sort();

// transformers' generate() keyword arguments as generate()'s options.
const optionsOf = (o) =>
  Object.fromEntries(
    Object.entries(o).map(([key, value]) => [key.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), value]),
  );

// The rows of queries [from, to) of an attention [layers, heads, T, keys]: [layers, heads, to − from, keys].
function queryRows(data, [layers, heads, T, keys], from, to) {
  const out = new Float32Array(layers * heads * (to - from) * keys);
  for (let block = 0; block < layers * heads; block++)
    out.set(data.subarray((block * T + from) * keys, (block * T + to) * keys), block * (to - from) * keys);
  return out;
}

// Each step against transformers' generate() (ids, raw logit of the chosen token, processed score) and against
// run() over the ids fed (the attention rows of the tokens each step fed, bit for bit).
async function expectSteps(model, steps, g, ref, label) {
  const P = g.inputIds.length;
  expect([label, steps.map((s) => s.id)]).toEqual([label, g.sequence.slice(P)]);
  expectNear(
    steps.map((s) => s.logits[s.id]),
    g.stepLogits,
    ref.tolerance.logitsAbs,
    ref.tolerance.logitsRel,
    `${label} logits`,
  );
  expectNear(
    steps.map((s) => s.score),
    g.stepScores,
    ref.tolerance.scoreAbs,
    0,
    `${label} scores`,
  );
  const fed = Int32Array.from(g.sequence.slice(0, g.sequence.length - 1));
  const whole = await model.run({ inputIds: fed });
  const { numLayers: L, numHeads: H } = model.config;
  steps.forEach((s, k) => {
    expect(s.step).toBe(k + 1);
    expect(Array.from(s.outputIds)).toEqual(g.sequence.slice(0, P + k + 1));
    expect(s.token).toBe(model.pieces([s.id])[0]);
    expect(s.logits).toHaveLength(model.config.vocabSize);
    const [from, to] = k === 0 ? [0, P] : [P + k - 1, P + k];
    expect(s.attentions.decoder.shape).toEqual([L, H, to - from, to]);
    const rows = queryRows(whole.attention, [L, H, fed.length, fed.length], from, to);
    // run()'s rows over `to` keys: the first `to` of each row of the whole (causal: the rest are 0).
    const cut = new Float32Array(L * H * (to - from) * to);
    for (let r = 0; r < L * H * (to - from); r++) cut.set(rows.subarray(r * fed.length, r * fed.length + to), r * to);
    expect([label, k, same(s.attention, cut)]).toEqual([label, k, true]);
  });
}

describe('simd build', () => {
  let engine;
  const models = {};
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
    for (const name of [...DECODERS, 'hf-marian', 'hf-bert-mlm'])
      models[name] = await engine.loadModel(path.join(MODELS, name));
  });
  afterAll(() => engine?.dispose());

  test('there are decoders to test', () => {
    expect(DECODERS).toEqual(expect.arrayContaining(['hf-gpt2-lm', 'hf-llama', 'hf-qwen2']));
  });

  test.each(DECODERS)('%s: generate({ onStep }) steps are transformers’ and run()’s', async (name) => {
    const ref = reference(name);
    const model = models[name];
    for (const g of ref.generate) {
      const steps = [];
      const options = { ...optionsOf(g.options), returnAttention: true, onStep: (s) => steps.push(s) };
      const out = await model.generate(g.text, options);
      expect(Array.from(out.outputIds)).toEqual(g.sequence);
      await expectSteps(model, steps, g, ref, `${name} ${g.name}`);
    }
  });

  test.each(DECODERS)('%s: generateSteps() is the same search, one step per next()', async (name) => {
    const ref = reference(name);
    const model = models[name];
    const g = ref.generate.find((c) => c.name === 'max_new_tokens_8');
    const steps = [];
    for await (const s of model.generateSteps(g.text, { maxNewTokens: 8 })) steps.push(s);
    await expectSteps(model, steps, g, ref, `${name} stream`);
    expect(model.past).toBe(g.sequence.length - 1); // the cache holds what the stream fed
    await model.reset();
  });

  test('a stream goes on as if uninterrupted when other calls use the cache between its steps', async () => {
    const ref = reference('hf-llama');
    const model = models['hf-llama'];
    const g = ref.generate.find((c) => c.name === 'max_new_tokens_20');
    const steps = [];
    const other = ref.generate.find((c) => c.text !== g.text) ?? ref.cases[0];
    for await (const s of model.generateSteps(g.text, { maxNewTokens: 20 })) {
      steps.push(s);
      if (s.step === 3) await model.prefill(other.text ?? other.input); // the cache is someone else's now
      if (s.step === 5) await model.generate(g.text, { maxNewTokens: 2, returnAttention: false });
      if (s.step === 7) await model.reset();
    }
    await expectSteps(model, steps, g, ref, 'interrupted stream');
    await model.reset();
  });

  test('a sampled stream is generate()’s for the same seed', async () => {
    const model = models['hf-llama'];
    const text = reference('hf-llama').generate[0].text;
    const options = { maxNewTokens: 10, doSample: true, temperature: 1.3, topP: 0.9, seed: 11 };
    const whole = await model.generate(text, { ...options, returnAttention: false });
    const ids = [];
    for await (const s of model.generateSteps(text, options)) {
      expect(s.seed).toBe(11);
      ids.push(s.id);
    }
    expect(ids).toEqual(Array.from(whole.outputIds.subarray(whole.inputIds.length)));
    await model.reset();
  });

  test('without attention, a stream’s steps carry none; the tokens are generate()’s', async () => {
    const model = models['hf-gpt2-lm'];
    const g = reference('hf-gpt2-lm').generate.find((c) => c.name === 'eos');
    const steps = [];
    for await (const s of model.generateSteps(g.text, { maxNewTokens: 20, returnAttention: false })) steps.push(s);
    expect(steps.every((s) => s.attention === undefined && s.attentions === undefined)).toBe(true);
    expect(steps.map((s) => s.id)).toEqual(g.sequence.slice(g.inputIds.length));
    expect(steps.at(-1).id).toBe(reference('hf-gpt2-lm').generationConfig.eos_token_id); // stopped at eos
  });

  test('an encoder-decoder’s greedy steps: its decoder and cross rows are the result’s', async () => {
    const model = models['hf-marian'];
    const steps = [];
    const out = await model.generate('用毒毒毒蛇', { numBeams: 1, maxNewTokens: 6, onStep: (s) => steps.push(s) });
    expect(steps.map((s) => s.id)).toEqual(Array.from(out.outputIds.subarray(1)));
    expect(Float64Array.from(steps, (s) => s.score)).toEqual(out.stepScores ?? expect.anything());
    const T = out.outputIds.length - 1;
    const S = out.inputIds.length;
    const { decoderLayers: L, decoderHeads: H } = model.config;
    steps.forEach((s, t) => {
      expect(s.attentions.decoder.shape).toEqual([L, H, 1, t + 1]);
      expect(s.attentions.cross.shape).toEqual([L, H, 1, S]);
      const self = queryRows(out.decoderAttention, [L, H, T, T], t, t + 1);
      const firstKeys = new Float32Array(L * H * (t + 1));
      for (let r = 0; r < L * H; r++) firstKeys.set(self.subarray(r * T, r * T + t + 1), r * (t + 1));
      expect([t, same(s.attentions.decoder.data, firstKeys)]).toEqual([t, true]);
      expect([t, same(s.attentions.cross.data, queryRows(out.crossAttention, [L, H, T, S], t, t + 1))]).toEqual([
        t,
        true,
      ]);
    });
  });

  test('refusals name the argument', async () => {
    const marian = models['hf-marian'];
    await expect(marian.generate('蛇', { numBeams: 3, onStep: () => {} })).rejects.toThrow(
      /onStep: a step of a beam search is 3 beams/,
    );
    await expect(models['hf-llama'].generate('a', { onStep: 5 })).rejects.toThrow(
      expect.objectContaining({ name: 'TypeError', message: expect.stringMatching(/^onStep: expected a function/) }),
    );
    expect(() => models['hf-bert-mlm'].generateSteps('a')).toThrow(/generateSteps: a bert is an encoder/);
    expect(() => marian.generateSteps('a')).toThrow(/generateSteps: a marian is an encoder-decoder/);
    expect(() => models['hf-llama'].generateSteps('a', { onToken: () => {} })).toThrow(/onToken/);
    expect(() => models['hf-llama'].generateSteps('a', { maxNewTokens: 0 })).toThrow(RangeError);
  });
});

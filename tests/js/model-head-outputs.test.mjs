// model.run(input, { returnHeadOutputs: true }): what each head writes
// (Kobayashi et al. 2020), per layer, head and token, by attention group:
// valueNorms ‖v_h(x_j)·W_O^h‖ and headOutputNorms ‖Σ_j α_ij v_h(x_j)·W_O^h‖,
// the output projection's bias left out. Against transformers' own modules in
// float64 (forward hooks on the value and output projections,
// tests/fixtures/models/head-outputs/, made by
// tests/tools/make_head_output_fixtures.py: BERT in float32 and bfloat16,
// GPT-2, Llama, Qwen2's and Qwen3's grouped-query attention, MarianMT's
// encoder, decoder and cross-attention, each with heads switched off too) on
// every build but threaded-simd, whose bits are simd's (REFERENCE_VARIANTS);
// with the attention the same call returns, each head's output
// norm is at most the weighted sum of its value norms (the triangle
// inequality), and equal to the first token's value norm where a causal head
// can only look at that token; asking for them changes no bit of the other
// outputs, nor do the thread count or a Worker change theirs; the calls that
// do not return them refuse the option by name.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { folder, MODELS, reference } from './helpers/checkpoints.mjs';
import { expectNear, sameBits } from './helpers/compare.mjs';
import {
  BUILDS,
  HERE_AND_IN_A_WORKER,
  modelsForTests,
  onEachEngine,
  ONE_AND_THREE_THREADS,
  REFERENCE_VARIANTS,
} from './helpers/engines.mjs';

const HEAD_OUTPUTS = path.join(MODELS, 'head-outputs');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const CAPTURED = readdirSync(HEAD_OUTPUTS)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();
const captured = Object.fromEntries(CAPTURED.map((name) => [name, readJson(path.join(HEAD_OUTPUTS, `${name}.json`))]));
const tolerance = (name) => reference(name).tolerance;
const isSeq2Seq = (name) => captured[name].config.modelType === 'marian';

/** A case's input and run() options: its ids (and token types, encoders), its head mask when it has one. */
function callOf(name, c, options) {
  if (isSeq2Seq(name))
    return [
      { inputIds: c.inputIds, decoderInputIds: c.decoderInputIds },
      { ...options, headMask: c.headMask },
    ];
  const input = { inputIds: c.inputIds, ...(c.tokenTypeIds && { tokenTypeIds: c.tokenTypeIds }) };
  return [input, { ...options, ...(c.headMask && { headMask: c.headMask }) }];
}

/** The reference's arrays of a case by group: { group: { valueNorms, headOutputNorms } }. */
function referenceGroups(name, c) {
  if (!isSeq2Seq(name))
    return { [captured[name].config.group]: { valueNorms: c.valueNorms, headOutputNorms: c.headOutputNorms } };
  const groups = {};
  for (const group of ['encoder', 'decoder', 'cross'])
    groups[group] = { valueNorms: c[`${group}ValueNorms`], headOutputNorms: c[`${group}HeadOutputNorms`] };
  return groups;
}

/**
 * With the same call's attention [layers, heads, queries, keys] of a group: each head's output norm at query i
 * is at most Σ_j α_ij ‖f_h(x_j)‖, and where a causal head's query sees only key 0 (row 0) they are equal.
 * Returns the largest breach, relative to the bound.
 */
function breach({ valueNorms, headOutputNorms }, attention, causal) {
  const [layers, heads, queries, keys] = attention.shape;
  expect(valueNorms.shape).toEqual([layers, heads, keys]);
  expect(headOutputNorms.shape).toEqual([layers, heads, queries]);
  let worst = 0;
  for (let l = 0; l < layers; l++)
    for (let h = 0; h < heads; h++)
      for (let i = 0; i < queries; i++) {
        const row = attention.data.subarray(
          ((l * heads + h) * queries + i) * keys,
          ((l * heads + h) * queries + i + 1) * keys,
        );
        let bound = 0;
        for (let j = 0; j < keys; j++) bound += row[j] * valueNorms.data[(l * heads + h) * keys + j];
        const norm = headOutputNorms.data[(l * heads + h) * queries + i];
        const allowed = 1e-5 * bound + 1e-6;
        worst = Math.max(worst, (norm - bound) / allowed);
        // A causal head's first query weighs its own token alone (weight 1, or 0 switched off).
        if (causal && i === 0) worst = Math.max(worst, Math.abs(norm - bound) / allowed);
      }
  return worst;
}

describe.each(REFERENCE_VARIANTS)('%s build', (variant) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
  });
  afterAll(() => engine?.dispose());

  test.each(CAPTURED)("%s: what each head writes, as transformers' modules compute it", async (name) => {
    const { hiddenAbs, hiddenRel } = tolerance(name);
    const model = await engine.loadModel(folder(name));
    const { config } = captured[name];
    expect(model.config).toMatchObject({ numLayers: config.numLayers, numHeads: config.numHeads });
    for (const c of captured[name].cases) {
      const [input, options] = callOf(name, c, { returnHeadOutputs: true, returnAttention: true });
      const r = await model.run(input, options);
      for (const [group, want] of Object.entries(referenceGroups(name, c))) {
        const got = r.headOutputs[group];
        const label = `${name} ${c.name} ${group}`;
        expectNear(got.valueNorms.data, want.valueNorms, hiddenAbs, hiddenRel, `${label} valueNorms`);
        expectNear(got.headOutputNorms.data, want.headOutputNorms, hiddenAbs, hiddenRel, `${label} headOutputNorms`);
        // With the attention of the same call: the triangle inequality, and equality at a causal first query.
        expect(breach(got, r.attentions[group], group === 'decoder')).toBeLessThanOrEqual(1);
        // A head switched off writes nothing, exactly.
        const mask = isSeq2Seq(name) ? c.headMask?.[group] : c.headMask;
        const [layers, heads, queries] = got.headOutputNorms.shape;
        for (let l = 0; l < layers; l++)
          for (let h = 0; h < heads; h++)
            if (mask?.[l][h] === 0)
              for (let i = 0; i < queries; i++) expect(got.headOutputNorms.data[(l * heads + h) * queries + i]).toBe(0);
      }
    }
    model.dispose();
  });

  test.each(CAPTURED)('%s: asking for them changes no bit of the other outputs', async (name) => {
    const model = await engine.loadModel(folder(name));
    const c = captured[name].cases[0];
    const outputs = { returnAttention: true, returnHiddenStates: true, returnLogits: model.config.hasLogits };
    const [plain, r] = [
      await model.run(...callOf(name, c, outputs)),
      await model.run(...callOf(name, c, { ...outputs, returnHeadOutputs: true })),
    ];
    const arrays = Object.keys(plain).filter((key) => plain[key] instanceof Float32Array);
    expect(arrays).toEqual(expect.arrayContaining(['lastHiddenState']));
    for (const key of arrays) expect(sameBits(r[key], plain[key])).toBe(true);
    expect(plain).not.toHaveProperty('headOutputs');
    expect(r.headOutputs).toBeDefined();
    model.dispose();
  });
});

test('they are the same bits on 1 and 3 threads', () =>
  onEachEngine(ONE_AND_THREE_THREADS, CAPTURED, async (name, models) => {
    for (const c of captured[name].cases) {
      const [x, y] = await Promise.all(models.map((m) => m.run(...callOf(name, c, { returnHeadOutputs: true }))));
      for (const [group, norms] of Object.entries(x.headOutputs))
        for (const kind of ['valueNorms', 'headOutputNorms'])
          expect([name, group, kind, sameBits(norms[kind].data, y.headOutputs[group][kind].data)]).toEqual([
            name,
            group,
            kind,
            true,
          ]);
    }
  }));

test('they come the same through a Worker', () =>
  onEachEngine(HERE_AND_IN_A_WORKER, ['hf-qwen3', 'hf-marian'], async (name, models) => {
    const [x, y] = await Promise.all(models.map((m) => m.run('用毒毒毒蛇', { returnHeadOutputs: true })));
    for (const [group, norms] of Object.entries(x.headOutputs)) {
      expect(y.headOutputs[group].valueNorms.shape).toEqual(norms.valueNorms.shape);
      expect(sameBits(norms.valueNorms.data, y.headOutputs[group].valueNorms.data)).toBe(true);
      expect(sameBits(norms.headOutputNorms.data, y.headOutputs[group].headOutputNorms.data)).toBe(true);
    }
  }));

describe('returnHeadOutputs refused where no head outputs are returned', () => {
  const models = modelsForTests({ gpt2: 'hf-gpt2-lm', bert: 'hf-bert-mlm', marian: 'hf-marian' });

  test.each([
    [1, 'number 1'],
    ['yes', 'the string "yes"'],
    [null, 'null'],
  ])('returnHeadOutputs %j is a TypeError naming it', async (value, given) => {
    const { gpt2, bert, marian } = models;
    const error = new TypeError(`returnHeadOutputs: expected a boolean, got ${given}`);
    for (const model of [gpt2, bert, marian])
      await expect(model.run('毒', { returnHeadOutputs: value })).rejects.toThrow(error);
    await expect(gpt2.step('毒', { returnHeadOutputs: value })).rejects.toThrow(error);
  });

  test("a decoder's prefill, step, generate and generateSteps refuse it, naming run(); false is no request", async () => {
    const { gpt2 } = models;
    for (const what of ['prefill', 'step'])
      await expect(gpt2[what]('毒', { returnHeadOutputs: true })).rejects.toThrow(
        new TypeError(
          `returnHeadOutputs: ${what}() returns no head outputs; run() over the whole sequence returns every ` +
            "position's (model.run({ inputIds }, { returnHeadOutputs: true }))",
        ),
      );
    const first = await gpt2.prefill('毒', { returnHeadOutputs: false });
    expect(first).not.toHaveProperty('headOutputs');
    expect((await gpt2.step('蛇', { returnHeadOutputs: false })).past).toBe(first.inputIds.length);
    await gpt2.reset();
    const fromRun = (what) =>
      new TypeError(
        `returnHeadOutputs: ${what}() returns no head outputs; run() over its outputIds returns them ` +
          '(model.run({ inputIds: result.outputIds }, { returnHeadOutputs: true }))',
      );
    for (const value of [true, false])
      await expect(gpt2.generate('毒', { maxNewTokens: 2, returnHeadOutputs: value })).rejects.toThrow(
        fromRun('generate'),
      );
    // A stream's options are checked when it is made.
    expect(() => gpt2.generateSteps('毒', { maxNewTokens: 2, returnHeadOutputs: true })).toThrow(
      fromRun('generateSteps'),
    );
    // The model goes on.
    expect((await gpt2.run('毒', { returnHeadOutputs: true })).headOutputs.decoder.valueNorms.shape[0]).toBe(
      gpt2.config.numLayers,
    );
  });

  test("an encoder-decoder's generate refuses it, naming the teacher-forced run()", async () => {
    const { marian } = models;
    await expect(marian.generate('用毒', { returnHeadOutputs: true })).rejects.toThrow(
      new TypeError(
        'returnHeadOutputs: generate() returns no head outputs; run() over its outputIds, teacher-forced, returns ' +
          'them (model.run({ text, decoderInputIds: result.outputIds.slice(0, -1) }, { returnHeadOutputs: true }))',
      ),
    );
    const r = await marian.run('用毒', { returnHeadOutputs: false, returnAttention: false });
    expect(r).not.toHaveProperty('headOutputs');
    expect(Object.keys((await marian.run('用毒', { returnHeadOutputs: true })).headOutputs)).toEqual([
      'encoder',
      'decoder',
      'cross',
    ]);
  });
});

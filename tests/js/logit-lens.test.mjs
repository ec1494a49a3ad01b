// The logit lens (issue 38): run(input, { returnLayerLogits: { positions } })
// gives each layer's hidden state at those positions through the model's
// final norm and output head ([layers + 1, positions, vocabSize], layer 0 the
// embeddings), and mha-wasm/analysis' logitLens reads it: per layer the top
// tokens and the rank of the last layer's top token. Against transformers'
// own classes in float64 (tests/fixtures/models/logit-lens/, made by
// tests/tools/make_logit_lens_fixtures.py: lm_head(norm(hidden_states[i])),
// MarianMT's decoder with final_logits_bias) on every build but threaded-simd,
// whose bits are simd's (REFERENCE_VARIANTS). Tolerance: each
// folder's own logits tolerance (reference.json's logitsAbs + logitsRel·|x|,
// the one its model-logits test holds the final logits to): a layer's lens
// logits are the same norm and head over a hidden state that its
// hiddenStates test holds to a tighter bound, so no looser bound is needed.
// The last row is the model's own logits row bit for bit; asking for the lens
// changes no bit of the other outputs; 1 and 3 threads give the same bits.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createAttention } from '../../src/js/node.mjs';
import { logitLens } from '../../src/js/analysis/index.mjs';
import { folder, MODELS, reference } from './helpers/checkpoints.mjs';
import { expectNear, sameBits } from './helpers/compare.mjs';
import { BUILDS, modelsForTests, onEachEngine, ONE_AND_THREE_THREADS, REFERENCE_VARIANTS } from './helpers/engines.mjs';

const FOLDERS = ['hf-llama', 'hf-qwen2', 'hf-gpt2-lm', 'hf-marian'];
const lens = Object.fromEntries(
  FOLDERS.map((name) => [name, JSON.parse(readFileSync(path.join(MODELS, 'logit-lens', `${name}.json`), 'utf8'))]),
);
const tolerance = (name) => reference(name).tolerance;
const rowsOf = (fixture) => fixture.positions.length;

/** The row of layer l, position k of a [layers + 1, positions, vocab] array. */
const rowAt = (data, l, k, P, V) => data.subarray((l * P + k) * V, (l * P + k + 1) * V);

/** The model's own logits rows at `positions` (decoder rows), from one run with returnLogits. */
async function ownLogits(model, input, positions) {
  const r = await model.run(input, { returnAttention: false, returnLogits: true });
  const V = model.config.vocabSize;
  return positions.map((p) => r.logits.subarray(p * V, (p + 1) * V));
}

describe.each(REFERENCE_VARIANTS)('%s build', (variant) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention(BUILDS[variant]);
  });
  afterAll(() => engine?.dispose());

  test.each(FOLDERS)("%s: returnLayerLogits is transformers' lm_head(norm(hidden_states[i]))", async (name) => {
    const want = lens[name];
    const { logitsAbs, logitsRel } = tolerance(name);
    const model = await engine.loadModel(folder(name));
    const r = await model.run(want.input, { returnAttention: false, returnLayerLogits: { positions: want.positions } });
    const V = model.config.vocabSize;
    const P = rowsOf(want);
    expect(r.layerLogits.length).toBe((want.layers + 1) * P * V);
    expectNear(r.layerLogits, want.layerLogits.data, logitsAbs, logitsRel, `${name} layerLogits`);
    // The last layer's rows are the model's logits, bit for bit.
    const own = await ownLogits(model, want.input, want.positions);
    own.forEach((row, k) => expect(sameBits(rowAt(r.layerLogits, want.layers, k, P, V), row)).toBe(true));
    // And an earlier layer's are not (the lens reads something else there).
    expect(sameBits(rowAt(r.layerLogits, 0, P - 1, P, V), own[P - 1])).toBe(false);
    model.dispose();
  });

  test.each(FOLDERS)("%s: logitLens' table is transformers' top tokens and the final token's rank", async (name) => {
    const want = lens[name];
    const { logitsAbs } = tolerance(name);
    const model = await engine.loadModel(folder(name));
    for (const [k, position] of want.positions.entries()) {
      const got = await logitLens(model, want.input, { position, topK: 5 });
      expect(got.position).toBe(position);
      expect(got.layers.map((l) => l.layer)).toEqual([...Array(want.layers + 1).keys()]);
      for (const [l, layer] of got.layers.entries()) {
        const ref = want.table[l][k];
        expect(ref.position).toBe(position);
        const label = `${name} position ${position} layer ${l}`;
        // The ids in transformers' order where consecutive logits are apart by more than float32's error.
        if (ref.gap > 4 * logitsAbs)
          expect([label, layer.top.map((t) => t.id)]).toEqual([label, ref.top.map((t) => t.id)]);
        expectNear(
          layer.top.map((t) => t.probability),
          ref.top.map((t) => t.probability),
          1e-5,
          1e-4,
          `${label} probabilities`,
        );
        if (ref.finalTop.logitGap > 4 * logitsAbs) {
          expect([label, got.finalTop.id, layer.finalTop.rank]).toEqual([label, ref.finalTop.id, ref.finalTop.rank]);
          expectNear([layer.finalTop.probability], [ref.finalTop.probability], 1e-5, 1e-4, `${label} final`);
        }
      }
      // The last layer's top token is the final one, rank 1.
      expect(got.layers.at(-1).finalTop.rank).toBe(1);
      expect(got.layers.at(-1).top[0].id).toBe(got.finalTop.id);
    }
    model.dispose();
  });
});

test('the lens is the same bits on 1 and 3 threads, and asking for it changes no other output', () =>
  onEachEngine(ONE_AND_THREE_THREADS, FOLDERS, async (name, models) => {
    const { input, positions } = lens[name];
    const outputs = { returnAttention: true, returnHiddenStates: true, returnLogits: true };
    const [x, y] = await Promise.all(models.map((m) => m.run(input, { ...outputs, returnLayerLogits: { positions } })));
    expect([name, sameBits(x.layerLogits, y.layerLogits)]).toEqual([name, true]);
    const plain = await models[0].run(input, outputs);
    expect(plain).not.toHaveProperty('layerLogits');
    for (const key of Object.keys(plain).filter((k) => plain[k] instanceof Float32Array))
      expect([name, key, sameBits(x[key], plain[key])]).toEqual([name, key, true]);
  }));

describe('logitLens and returnLayerLogits refuse what they cannot read', () => {
  const models = modelsForTests({ gpt2: 'hf-gpt2-lm', bert: 'hf-bert-mlm', marian: 'hf-marian' });

  test('an encoder, prefill, step and generate refuse returnLayerLogits by name', async () => {
    const { gpt2, bert, marian } = models;
    const encoder = /returnLayerLogits: a bert is an encoder; the logit lens reads a decoder's layers/;
    await expect(bert.run('毒', { returnLayerLogits: { positions: [0] } })).rejects.toThrow(encoder);
    await expect(logitLens(bert, '毒')).rejects.toThrow(/model: a bert is an encoder/);
    for (const what of ['prefill', 'step'])
      await expect(gpt2[what]('毒', { returnLayerLogits: { positions: [0] } })).rejects.toThrow(
        new TypeError(
          `returnLayerLogits: ${what}() returns no layer logits; run() over the whole sequence does ` +
            '(model.run({ inputIds }, { returnLayerLogits: { positions: [inputIds.length - 1] } }))',
        ),
      );
    await expect(gpt2.generate('毒', { maxNewTokens: 1, returnLayerLogits: { positions: [0] } })).rejects.toThrow(
      TypeError,
    );
    await expect(marian.generate('毒', { returnLayerLogits: { positions: [0] } })).rejects.toThrow(TypeError);
  });

  test.each([
    [{ positions: [] }, TypeError, 'returnLayerLogits: expected { positions: [position, …] } (at least one), got'],
    [true, TypeError, 'returnLayerLogits: expected { positions: [position, …] } (at least one), got boolean true'],
    [{ positions: [0], rows: 1 }, TypeError, 'rows'],
    [{ positions: [-1] }, TypeError, 'returnLayerLogits.positions[0]: expected a position (an integer ≥ 0), got'],
    [{ positions: [0, 1.5] }, TypeError, 'returnLayerLogits.positions[1]: expected a position (an integer ≥ 0)'],
    [{ positions: [0, 99] }, RangeError, 'returnLayerLogits.positions[1]: expected a position of the'],
  ])('returnLayerLogits %j: %p naming it', async (value, type, message) => {
    for (const model of [models.gpt2, models.marian]) {
      const run = model.run(
        { inputIds: [1, 2, 3], ...(model === models.marian && { decoderInputIds: [5, 6] }) },
        {
          returnLayerLogits: value,
        },
      );
      await expect(run).rejects.toThrow(type);
      await expect(run).rejects.toThrow(message);
    }
  });

  test('logitLens: bad position, topK and target are named; a cancelled signal stops it', async () => {
    const { gpt2, marian } = models;
    const input = { inputIds: [1, 2, 3] };
    await expect(logitLens(gpt2, input, { position: 3 })).rejects.toThrow(
      new RangeError('position: expected a position of the 3 input tokens (0 to 2), got 3'),
    );
    await expect(logitLens(gpt2, input, { position: 'last' })).rejects.toThrow(
      new TypeError('position: expected an integer, got the string "last"'),
    );
    await expect(logitLens(gpt2, input, { topK: 0 })).rejects.toThrow(new RangeError('topK: expected 1 to 100, got 0'));
    const V = gpt2.config.vocabSize;
    await expect(logitLens(gpt2, input, { target: V })).rejects.toThrow(
      new RangeError(`target: expected 0 to ${V - 1}, got ${V}`),
    );
    await expect(logitLens(gpt2, input, { layers: 2 })).rejects.toThrow(TypeError);
    await expect(logitLens({}, input)).rejects.toThrow(/logitLens: expected a model from engine.loadModel\(\)/);
    const controller = new AbortController();
    controller.abort();
    await expect(logitLens(gpt2, input, { signal: controller.signal })).rejects.toThrow(/abort/i);
    await expect(logitLens(marian, { inputIds: [1, 2, 0], decoderInputIds: [5, 6] }, { position: 2 })).rejects.toThrow(
      new RangeError('position: expected a position of the 2 decoderInputIds (0 to 1), got 2'),
    );
  });

  test('logitLens with a target: its rank and probability per layer; the default position is the last', async () => {
    const { gpt2, marian } = models;
    const got = await logitLens(gpt2, { inputIds: [1, 2, 3, 4] }, { target: 7, topK: 3 });
    expect(got.position).toBe(3);
    expect(got.target).toMatchObject({ id: 7 });
    const progress = [];
    const again = await logitLens(gpt2, { inputIds: [1, 2, 3, 4] }, { topK: 100, onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([{ phase: 'lens', done: 1, total: 1 }]);
    for (const [l, layer] of got.layers.entries()) {
      expect(layer.top).toHaveLength(3);
      // Rank r: the target is the r-th of the full ordering that topK 100 lists.
      const full = again.layers[l].top.map((t) => t.id);
      if (layer.target.rank <= full.length) expect(full[layer.target.rank - 1]).toBe(7);
      expect(layer.target.probability).toBeGreaterThan(0);
    }
    // An encoder-decoder without decoderInputIds: its greedy translation fed back, the lens at its last id.
    const translated = await marian.generate({ inputIds: [1, 2, 0] }, { numBeams: 1, returnAttention: false });
    const seq = await logitLens(marian, { inputIds: [1, 2, 0] });
    expect(Array.from(seq.decoderInputIds)).toEqual(Array.from(translated.outputIds.subarray(0, -1)));
    expect(seq.position).toBe(seq.decoderInputIds.length - 1);
    expect(seq.layers.at(-1).top[0].id).toBe(seq.finalTop.id);
  });
});

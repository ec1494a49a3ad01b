// model.run(input, { returnQueryKey: true }): every layer's queries and keys as
// its attention takes them. Against transformers' own (the query and key its
// eager attention was given, tests/fixtures/models/query-key/, made by
// tests/tools/make_query_key_fixtures.py); on every fixture folder, the
// softmax of their scaled dot products (plus the causal mask), query head h
// over key head floor(h / (numHeads / numKVHeads)), is the attention the same
// call returns; asking for them changes no bit of the other outputs; the calls
// that do not return them refuse the option by name.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { caseFolders, folder, MODELS, reference } from './helpers/checkpoints.mjs';
import { expectNear, sameBits } from './helpers/compare.mjs';
import {
  BUILDS,
  enginesForTests,
  HERE_AND_IN_A_WORKER,
  modelsForTests,
  onEachEngine,
  ONE_AND_THREE_THREADS,
  REFERENCE_VARIANTS,
} from './helpers/engines.mjs';

const QUERY_KEY = path.join(MODELS, 'query-key');
const FOLDERS = caseFolders();
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const CAPTURED = readdirSync(QUERY_KEY)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort();

/** A case's input as ids (the tokenizers are other tests'), with its token types for an encoder. */
const idsOf = (c, model) => ({
  inputIds: c.inputIds,
  ...(model.config.kind === 'encoder' && c.tokenTypeIds && { tokenTypeIds: c.tokenTypeIds }),
});

/**
 * The largest |softmax(scale · q·kᵀ + mask) − attention| over every layer, head and query, in float64 from the
 * float32 queries and keys; masked keys must have weight 0 exactly.
 */
function softmaxDistance({ query, key, queryKeyScale, attention }, config, L) {
  const { numLayers, numHeads: H, numKVHeads: G, headDim: hd, causal } = config;
  let worst = 0;
  for (let l = 0; l < numLayers; l++)
    for (let h = 0; h < H; h++) {
      const g = Math.floor(h / (H / G));
      for (let i = 0; i < L; i++) {
        const q = query.subarray(((l * H + h) * L + i) * hd, ((l * H + h) * L + i + 1) * hd);
        const seen = causal ? i + 1 : L;
        const scores = new Float64Array(seen);
        for (let j = 0; j < seen; j++) {
          const k = key.subarray(((l * G + g) * L + j) * hd, ((l * G + g) * L + j + 1) * hd);
          let dot = 0;
          for (let e = 0; e < hd; e++) dot += q[e] * k[e];
          scores[j] = queryKeyScale * dot;
        }
        const top = Math.max(...scores);
        let sum = 0;
        for (let j = 0; j < seen; j++) sum += scores[j] = Math.exp(scores[j] - top);
        const row = attention.subarray(((l * H + h) * L + i) * L, ((l * H + h) * L + i + 1) * L);
        for (let j = 0; j < L; j++) {
          if (j >= seen && row[j] !== 0) return Infinity;
          worst = Math.max(worst, Math.abs((j < seen ? scores[j] / sum : 0) - row[j]));
        }
      }
    }
  return worst;
}

describe.each(REFERENCE_VARIANTS)('%s build', (variant) => {
  const engines = enginesForTests({ [variant]: BUILDS[variant] });

  test.each(CAPTURED)('%s: the queries and keys transformers attends with', async (name) => {
    const captured = readJson(path.join(QUERY_KEY, `${name}.json`));
    const { hiddenAbs, hiddenRel } = reference(name).tolerance;
    const model = await engines[variant].loadModel(folder(name));
    const { numLayers, numHeads, numKVHeads, headDim } = captured.config;
    expect(model.config).toMatchObject({ numLayers, numHeads, numKVHeads, headDim });
    for (const c of captured.cases) {
      const r = await model.run(idsOf(c, model), { returnQueryKey: true, returnAttention: false });
      const label = `${name} ${c.name}`;
      expectNear(r.query, c.query, hiddenAbs, hiddenRel, `${label} query`);
      expectNear(r.key, c.key, hiddenAbs, hiddenRel, `${label} key`);
      // transformers' scaling is head_dim ** -0.5 in every layer.
      for (const scaling of c.scaling) expect(r.queryKeyScale).toBeCloseTo(scaling, 15);
    }
    model.dispose();
  });

  test.each(FOLDERS)('%s: softmax(q·kᵀ·scale + mask) is the attention, and nothing else changes', async (name) => {
    const ref = reference(name);
    const model = await engines[variant].loadModel(folder(name));
    const config = model.config;
    // config.json's key/value heads and head width (Qwen3's head_dim is not hiddenSize / numHeads).
    const json = readJson(path.join(folder(name), 'config.json'));
    expect(config.numKVHeads).toBe(json.num_key_value_heads ?? config.numHeads);
    expect(config.headDim).toBe(json.head_dim ?? config.hiddenSize / config.numHeads);
    for (const c of ref.cases) {
      const L = c.inputIds.length;
      const outputs = { returnAttention: true, returnHiddenStates: true, returnLogits: config.hasLogits };
      const [plain, r] = [
        await model.run(idsOf(c, model), outputs),
        await model.run(idsOf(c, model), { ...outputs, returnQueryKey: true }),
      ];
      expect(r.query).toHaveLength(config.numLayers * config.numHeads * L * config.headDim);
      expect(r.key).toHaveLength(config.numLayers * config.numKVHeads * L * config.headDim);
      expect(r.queryKeyScale).toBe(1 / Math.sqrt(config.headDim));
      expect(softmaxDistance(r, config, L)).toBeLessThan(ref.tolerance.attentionAbs / 10);
      for (const output of ['attention', 'hiddenStates', 'lastHiddenState', ...(config.hasLogits ? ['logits'] : [])])
        expect(sameBits(r[output], plain[output])).toBe(true);
      for (const field of ['query', 'key', 'queryKeyScale']) expect(plain).not.toHaveProperty(field);
    }
    model.dispose();
  });
});

test('the queries and keys are the same bits on 1 and 3 threads', () =>
  onEachEngine(ONE_AND_THREE_THREADS, CAPTURED, async (name, models) => {
    for (const c of reference(name).cases) {
      const [x, y] = await Promise.all(models.map((m) => m.run(idsOf(c, m), { returnQueryKey: true })));
      expect(sameBits(x.query, y.query) && sameBits(x.key, y.key)).toBe(true);
    }
  }));

test('they come the same through a Worker', () =>
  onEachEngine(HERE_AND_IN_A_WORKER, ['hf-qwen3'], async (name, models) => {
    const [x, y] = await Promise.all(models.map((m) => m.run('用毒毒毒蛇', { returnQueryKey: true })));
    expect(sameBits(x.query, y.query) && sameBits(x.key, y.key) && x.queryKeyScale === y.queryKeyScale).toBe(true);
  }));

describe('returnQueryKey refused where no queries and keys are returned', () => {
  const models = modelsForTests({ gpt2: 'hf-gpt2-lm', bert: 'bert-zh', marian: 'hf-marian' });

  test.each([
    [1, 'number 1'],
    ['yes', 'the string "yes"'],
    [null, 'null'],
  ])('returnQueryKey %j is a TypeError naming it', async (value, given) => {
    const { gpt2, bert, marian } = models;
    for (const model of [gpt2, bert])
      await expect(model.run('毒', { returnQueryKey: value })).rejects.toThrow(
        new TypeError(`returnQueryKey: expected a boolean, got ${given}`),
      );
    await expect(gpt2.step('毒', { returnQueryKey: value })).rejects.toThrow(
      new TypeError(`returnQueryKey: expected a boolean, got ${given}`),
    );
    await expect(marian.run('毒', { returnQueryKey: value })).rejects.toThrow(
      new TypeError(`returnQueryKey: expected a boolean, got ${given}`),
    );
  });

  test("a decoder's prefill, step and generate refuse it, naming run(); false is no request", async () => {
    const { gpt2 } = models;
    for (const what of ['prefill', 'step'])
      await expect(gpt2[what]('毒', { returnQueryKey: true })).rejects.toThrow(
        new TypeError(
          `returnQueryKey: ${what}() returns no queries and keys; run() over the whole sequence returns every ` +
            "position's (model.run({ inputIds }, { returnQueryKey: true }))",
        ),
      );
    const first = await gpt2.prefill('毒', { returnQueryKey: false });
    expect(first).not.toHaveProperty('query');
    const next = await gpt2.step('蛇', { returnQueryKey: false });
    expect(next.past).toBe(first.inputIds.length);
    await gpt2.reset();
    for (const value of [true, false])
      await expect(gpt2.generate('毒', { maxNewTokens: 2, returnQueryKey: value })).rejects.toThrow(
        new TypeError(
          'returnQueryKey: generate() returns no queries and keys; run() over its outputIds returns them ' +
            '(model.run({ inputIds: result.outputIds }, { returnQueryKey: true }))',
        ),
      );
    // The model goes on.
    expect((await gpt2.run('毒', { returnQueryKey: true })).query).toBeInstanceOf(Float32Array);
  });

  test('an encoder-decoder refuses it in run() and generate(), naming the kinds that return them', async () => {
    const { marian } = models;
    await expect(marian.run('用毒', { returnQueryKey: true })).rejects.toThrow(
      new TypeError(
        'returnQueryKey: a marian is an encoder-decoder, whose queries and keys run() does not return; ' +
          "run() returns them for an encoder's or a decoder's layers (model.config.kind 'encoder' or 'decoder')",
      ),
    );
    await expect(marian.generate('用毒', { returnQueryKey: true })).rejects.toThrow(
      new TypeError(
        "returnQueryKey: generate() returns no queries and keys (nor does a marian's run(): an encoder-decoder's " +
          'are not returned)',
      ),
    );
    const r = await marian.run('用毒', { returnQueryKey: false, returnAttention: false });
    expect(r).not.toHaveProperty('query');
    expect(r.lastHiddenState).toBeInstanceOf(Float32Array);
  });
});

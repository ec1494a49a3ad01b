// A decoder's calls with state (model.prefill, model.step, model.reset, model.rewind; the
// KV cache of src/core/kv_cache.hpp under src/model's blocks): on the GPT-2
// fixture, on every build, a prefill then steps give bit for bit the rows of
// run() over the whole sequence, and within tolerance the PyTorch float64
// reference of it; the refusals of an encoder, of a step past the
// positions, and of what a step does not take.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { expectNear as near, sameBits as same } from './helpers/compare.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const reference = (name) => JSON.parse(readFileSync(path.join(MODELS, name, 'reference.json'), 'utf8'));

describe.each([
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 3],
])('%s build, %d thread(s)', (variant, threads) => {
  let engine, gpt2, bert;
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
    gpt2 = await engine.loadModel(path.join(MODELS, 'gpt2'));
    bert = await engine.loadModel(path.join(MODELS, 'bert-zh'));
  });
  afterAll(() => engine?.dispose());

  test('rewind(past) cuts the cache: the next steps are the rows of run() over the kept ids and the new ones', async () => {
    const D = gpt2.config.hiddenSize;
    const ids = Int32Array.from(reference('gpt2').cases[0].inputIds);
    await gpt2.prefill({ inputIds: ids.subarray(0, 6) });
    await gpt2.step({ inputIds: Int32Array.from([11, 12, 13]) }); // fed, then taken back
    await gpt2.rewind(4);
    expect(gpt2.past).toBe(4);
    const r = await gpt2.step({ inputIds: ids.subarray(4, 7) }, { returnAttention: true });
    expect(r.past).toBe(4);
    const whole = await gpt2.run({ inputIds: ids.subarray(0, 7) }, { returnAttention: true });
    expect(same(r.lastHiddenState, whole.lastHiddenState.subarray(4 * D, 7 * D))).toBe(true);
    await gpt2.rewind(0);
    expect(gpt2.past).toBe(0);
    for (const bad of [8, -1, 1.5, '2', NaN])
      await expect(gpt2.rewind(bad)).rejects.toThrow(
        expect.objectContaining({
          name: 'RangeError',
          code: 'InvalidArgument',
          message: expect.stringMatching(/^past: expected an integer from 0 to 0/),
        }),
      );
    await gpt2.reset();
  });

  test('a prefill then steps are the rows of run() over the whole sequence, bit for bit, and of PyTorch', async () => {
    const ref = reference('gpt2');
    const { numLayers: layers, numHeads: heads, hiddenSize: D } = gpt2.config;
    for (const c of ref.cases) {
      const ids = Int32Array.from(c.inputIds);
      const n = ids.length;
      const whole = await gpt2.run({ inputIds: ids }, { returnAttention: true, returnHiddenStates: true });
      const chunks = [3, 1, 2, ...Array(n - 6).fill(1)];
      let done = 0;
      for (const count of chunks) {
        const input = { inputIds: ids.subarray(done, done + count) };
        const options = { returnAttention: true, returnHiddenStates: true };
        const r = done === 0 ? await gpt2.prefill(input, options) : await gpt2.step(input, options);
        expect(r.past).toBe(done);
        expect(gpt2.past).toBe(done + count);
        const keys = done + count;
        expect(same(r.lastHiddenState, whole.lastHiddenState.subarray(done * D, keys * D))).toBe(true);
        near(
          r.lastHiddenState,
          c.lastHiddenState.slice(done * D, keys * D),
          ref.tolerance.hiddenAbs,
          ref.tolerance.hiddenRel,
          `${c.name} step at ${done}`,
        );
        for (let l = 0; l <= layers; l++)
          expect(
            same(
              r.hiddenStates.subarray(l * count * D, (l + 1) * count * D),
              whole.hiddenStates.subarray((l * n + done) * D, (l * n + keys) * D),
            ),
          ).toBe(true);
        expect(r.attention.length).toBe(layers * heads * count * keys);
        for (let lh = 0; lh < layers * heads; lh++)
          for (let i = 0; i < count; i++) {
            const row = r.attention.subarray((lh * count + i) * keys, (lh * count + i + 1) * keys);
            expect(same(row, whole.attention.subarray((lh * n + done + i) * n, (lh * n + done + i) * n + keys))).toBe(
              true,
            );
          }
        done = keys;
      }
    }
  });

  test('a text step continues the text: no special tokens of its own', async () => {
    await gpt2.prefill('the snake');
    const step = await gpt2.step(' hello');
    const whole = await gpt2.run('the snake hello');
    expect(Array.from(step.inputIds)).toEqual(
      Array.from(whole.inputIds.subarray(whole.inputIds.length - step.inputIds.length)),
    );
    expect(step.tokens).toEqual(whole.tokens.slice(whole.tokens.length - step.tokens.length));
  });

  test('past the positions left a step is refused, and the past stays', async () => {
    const max = gpt2.config.maxLength;
    await gpt2.prefill({ inputIds: new Int32Array(max - 2).fill(5) }, { returnAttention: false });
    await expect(gpt2.step({ inputIds: [1, 2, 3] })).rejects.toThrow(
      new RangeError(`input: 3 tokens, more than the 2 positions left after the ${max - 2} the model has seen`),
    );
    expect(gpt2.past).toBe(max - 2);
    const last = await gpt2.step({ inputIds: [1, 2] }, { returnAttention: false });
    expect(last.past).toBe(max - 2);
    expect(gpt2.past).toBe(max);
    await gpt2.reset();
    expect(gpt2.past).toBe(0);
    // After a reset a step starts a new sequence: it is the whole sequence's first rows.
    const first = await gpt2.step({ inputIds: [7, 8] }, { returnAttention: true });
    const run = await gpt2.run({ inputIds: [7, 8] });
    expect(same(first.attention, run.attention)).toBe(true);
  });

  test('what a step refuses', async () => {
    await expect(bert.prefill('用毒毒毒蛇')).rejects.toThrow(
      new TypeError(
        "prefill: a bert is an encoder, with no state between calls; prefill and step are a decoder's (use run)",
      ),
    );
    await expect(bert.step({ inputIds: [1] })).rejects.toThrow(TypeError);
    expect(bert.past).toBe(0);
    await expect(gpt2.step({ text: 'a', textPair: 'b' })).rejects.toThrow(
      /^input: expected a string or \{ inputIds \}/,
    );
    await expect(gpt2.step({ inputIds: [1], tokenTypeIds: [0] })).rejects.toThrow(/step input/);
    await expect(gpt2.step({ inputIds: [1] }, { returnScores: true })).rejects.toThrow(/returnScores/);
    await expect(gpt2.step({ inputIds: [] })).rejects.toThrow(RangeError);
  });
});

// A text pair on GPT-2, whose Hub tokenizer.json has a ByteLevel post-processor
// (the fixture's has none): transformers joins the texts, A + B, as
// PreTrainedTokenizerFast(tokenizer_file=…)("the snake", " hello") gives
// [257, 262, 220, 268, 78] with this vocabulary (transformers 5.12.1, checked
// in the chroot of tests/tools/make_hf_fixtures.py). @huggingface/tokenizers
// alone drops the second text there.
describe.each(['none', 'ByteLevel'])('a GPT-2 text pair, post-processor %s', (processor) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention({ variant: 'simd' });
  });
  afterAll(() => engine?.dispose());

  test('joins the two texts as transformers does', async () => {
    const folder = path.join(MODELS, 'gpt2');
    const files = {};
    for (const name of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'])
      files[name] = new Uint8Array(readFileSync(path.join(folder, name)));
    const json = JSON.parse(readFileSync(path.join(folder, 'tokenizer.json'), 'utf8'));
    json.post_processor =
      processor === 'none' ? null : { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
    files['tokenizer.json'] = new TextEncoder().encode(JSON.stringify(json));
    const model = await engine.loadModel(files);
    const pair = await model.run({ text: 'the snake', textPair: ' hello' });
    expect(Array.from(pair.inputIds)).toEqual([257, 262, 220, 268, 78]);
    const whole = await model.run('the snake hello');
    expect(Array.from(whole.inputIds)).toEqual([257, 262, 220, 268, 78]);
    model.dispose();
  });
});

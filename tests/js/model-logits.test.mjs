// The language-model head (returnLogits): GPT-2's logits are its last hidden
// state times its token embeddings (tied, as GPT2LMHeadModel ties lm_head to
// wte). The reference here is computed in float64 from PyTorch's own hidden
// state (reference.json) and the checkpoint's wte read from the file: a
// product written by hand, the one hand-written reference of this file,
// checked on every build; a step's logits are the rows of run()'s, bit for
// bit; a model without a head is refused by name.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';

const MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));

/** A float32 tensor of a safetensors file, as float64. */
function tensor(file, name) {
  const bytes = readFileSync(file);
  const n = Number(bytes.readBigUInt64LE(0));
  const {
    dtype,
    shape,
    data_offsets: [begin, end],
  } = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'))[name];
  expect(dtype).toBe('F32');
  const data = bytes.subarray(8 + n + begin, 8 + n + end);
  return {
    shape,
    values: Float64Array.from(new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length))),
  };
}

describe.each([
  ['scalar', 1],
  ['simd', 1],
  ['threaded-simd', 3],
])('%s build, %d thread(s)', (variant, threads) => {
  let engine, gpt2;
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
    gpt2 = await engine.loadModel(path.join(MODELS, 'gpt2'));
  });
  afterAll(() => engine?.dispose());

  test("GPT-2's logits are PyTorch's last hidden state times wteᵀ", async () => {
    const ref = JSON.parse(readFileSync(path.join(MODELS, 'gpt2', 'reference.json'), 'utf8'));
    const wte = tensor(path.join(MODELS, 'gpt2', 'model.safetensors'), 'wte.weight');
    const [V, D] = wte.shape;
    expect(V).toBe(gpt2.config.vocabSize);
    for (const c of ref.cases) {
      const r = await gpt2.run(c.input, { returnLogits: true, returnAttention: false });
      const L = c.inputIds.length;
      expect(r.logits.length).toBe(L * V);
      let worst = 0;
      for (let i = 0; i < L; i++)
        for (let v = 0; v < V; v++) {
          let want = 0;
          for (let d = 0; d < D; d++) want += c.lastHiddenState[i * D + d] * wte.values[v * D + d];
          worst = Math.max(worst, Math.abs(r.logits[i * V + v] - want) / (1e-4 + 1e-4 * Math.abs(want)));
        }
      expect(worst).toBeLessThanOrEqual(1);
    }
  });

  test("a step's logits are the rows of run()'s, bit for bit", async () => {
    const ids = Int32Array.from({ length: 12 }, (_, i) => (i * 37 + 3) % gpt2.config.vocabSize);
    const V = gpt2.config.vocabSize;
    // (All without the weights: with them the softmax takes whole rows, without them tiles, in other last
    // bits; a prefill's keys and values carry its choice into the steps after it.)
    const whole = await gpt2.run({ inputIds: ids }, { returnLogits: true, returnAttention: false });
    await gpt2.prefill({ inputIds: ids.subarray(0, 9) }, { returnAttention: false });
    const step = await gpt2.step({ inputIds: ids.subarray(9) }, { returnLogits: true, returnAttention: false });
    const bytes = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    expect(bytes(step.logits).equals(bytes(whole.logits.subarray(9 * V)))).toBe(true);
  });

  test('a model without a language-model head refuses returnLogits by name', async () => {
    const bert = await engine.loadModel(path.join(MODELS, 'bert-zh'));
    await expect(bert.run('用毒', { returnLogits: true })).rejects.toThrow(
      new RangeError(
        "returnLogits: this bert has no language-model head the engine reads (a BERT's masked-LM head is read " +
          "when the checkpoint holds all of BertForMaskedLM's cls.predictions)",
      ),
    );
    // …and goes on.
    expect((await bert.run('用毒')).tokens.length).toBe(4);
    bert.dispose();
  });
});

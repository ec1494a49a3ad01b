// GGUF files of the tiny decoders (tests/fixtures/gguf/, written by llama.cpp's
// own converter and llama-quantize from tests/fixtures/models/hf-llama,
// hf-qwen2, hf-qwen3: tests/tools/make_gguf_fixtures.py) loaded by path, run
// and generated from, against two independent references:
//  - transformers' from_pretrained(gguf_file=…): it dequantizes with gguf-py,
//    so its float64 model is the one the file stands for; our loader
//    dequantizes into float32 (weights: 'float32'), so each type is held to
//    the float references' tolerance (reference.json's: logits within
//    1e-4 + 1e-4·|x|, attention within 1e-5), the Q/K rows of llama put back
//    in transformers' order (a wrong order fails by whole units); F16 and
//    BF16 files also with weights 'auto', held in their own 16-bit type;
//  - llama.cpp's own greedy ids (llama-server, temperature 0): the same at
//    F32 and F16 for every prompt; at Q8_0, Q4_0 and Q5_0 llama.cpp
//    quantizes the activations to 8 bits for its products (our products are
//    float32 over the dequantized weights; Q4_K_M: Q4_K and Q6_K; Q5_K_M: Q5_K and Q6_K), and at BF16 to bf16, so on these
//    random weights the paths may part: how far they agree is measured and
//    held (29 of the 42 prompts to the end; see AGREED). With activations: 'llama.cpp' rounded as llama.cpp
//    rounds them: gguf-llama-activations.test.mjs.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';
import { expectNear } from './helpers/compare.mjs';

const DIR = fileURLToPath(new URL('../fixtures/gguf/', import.meta.url));
const MODELS = ['llama', 'qwen2', 'qwen3'];
const FLOAT_TYPES = ['f32', 'f16'];
const QUANTIZED = ['q8_0', 'q4_0', 'q5_0'];
const CASES = [
  ...MODELS.flatMap((m) => [...FLOAT_TYPES, 'bf16', ...QUANTIZED].map((t) => [m, t])),
  // A Llama of rows of 256 (K-quants' blocks), as llama-quantize's Q4_K_M and Q5_K_M write it: Q4_K or Q5_K
  // tensors, and Q6_K.
  ['llama-k', 'q4_k_m'],
  ['llama-k', 'q5_k_m'],
];
const reference = (m, t) => JSON.parse(readFileSync(path.join(DIR, `${m}-${t}.json`), 'utf8'));

let engine;
beforeAll(async () => {
  engine = await createAttention({ variant: 'simd', threads: 1 });
});
afterAll(() => engine?.dispose());

async function withModel(m, t, body) {
  const model = await engine.loadModel(path.join(DIR, `${m}-${t}.gguf`), { weights: 'float32' });
  try {
    return await body(model);
  } finally {
    model.dispose();
  }
}

test.each(CASES)("%s-%s.gguf: logits and attention are transformers' (from the same file)", async (m, t) => {
  const ref = reference(m, t);
  await withModel(m, t, async (model) => {
    expect(model.config.modelType).toBe(m.split('-')[0]);
    const r = await model.run({ inputIds: Int32Array.from(ref.inputIds) }, { returnLogits: true });
    expect(r.logits.length).toBe(ref.logits.length);
    let worst = 0;
    ref.logits.forEach((want, i) => {
      worst = Math.max(worst, Math.abs(r.logits[i] - want) / (1e-4 + 1e-4 * Math.abs(want)));
    });
    expect(worst).toBeLessThanOrEqual(1);
    const attention = r.attention.data ?? r.attention;
    expect(attention.length).toBe(ref.attention.length);
    let worstAttention = 0;
    ref.attention.forEach((want, i) => {
      worstAttention = Math.max(worstAttention, Math.abs(attention[i] - want));
    });
    expect(worstAttention).toBeLessThanOrEqual(1e-5);
  });
});

// weights 'auto': F16 and BF16 held in their own 16-bit type (widened exactly), the block types in their blocks
// (src/core/quant.hpp: each block's Σ a·q scaled once, the dequantized values rounded in another order than the
// float GEMM's) — transformers' logits within the same tolerance as the float32 model.
test.each([
  ...MODELS.flatMap((m) => ['f16', 'bf16', ...QUANTIZED].map((t) => [m, t])),
  ['llama-k', 'q4_k_m'],
  ['llama-k', 'q5_k_m'],
])("%s-%s.gguf with weights 'auto': held in its own type, transformers' logits", async (m, t) => {
  const ref = reference(m, t);
  const model = await engine.loadModel(path.join(DIR, `${m}-${t}.gguf`));
  try {
    expect(model.config.weights).toBe(t.startsWith('q') ? 'gguf' : t);
    const r = await model.run(
      { inputIds: Int32Array.from(ref.inputIds) },
      { returnLogits: true, returnAttention: false },
    );
    expectNear(r.logits, ref.logits, 1e-4, 1e-4, `${m}-${t}.gguf logits`);
  } finally {
    model.dispose();
  }
});

/** Our greedy ids of each of llama.cpp's prompts, and how far they follow llama.cpp's. */
async function greedy(m, t) {
  const ref = reference(m, t);
  return withModel(m, t, async (model) => {
    const runs = [];
    for (const g of ref.llamaCpp.greedy) {
      const out = await model.generate(
        { inputIds: Int32Array.from(g.prompt) },
        { maxNewTokens: 12, doSample: false, returnAttention: false },
      );
      const ids = Array.from(out.outputIds).slice(g.prompt.length);
      let same = 0;
      while (same < g.ids.length && ids[same] === g.ids[same]) same++;
      runs.push({ g, ids, same, whole: same === g.ids.length && ids.length === same });
    }
    return runs;
  });
}

test.each(MODELS.flatMap((m) => FLOAT_TYPES.map((t) => [m, t])))(
  "%s-%s.gguf: greedy ids are llama.cpp's on every prompt",
  async (m, t) => {
    for (const { g, ids } of await greedy(m, t)) expect([g.prompt, ids]).toEqual([g.prompt, g.ids]);
  },
);

// How far our greedy ids follow llama.cpp's where llama.cpp rounds its activations (BF16: to bf16; Q8_0,
// Q4_0, Q5_0: to 8-bit blocks) and ours are float32: per prompt, the leading ids that agree of llama.cpp's
// 12 (or fewer, when it stops at the end-of-sequence token), as measured on these files (a change to
// either side shows here). On such random weights the top tokens are often within a few hundredths of a
// nat of each other (llama.cpp's own log-probabilities, in the references), so a parting says nothing of
// the weights: the logits test above holds each type to transformers' dequantized model.
const ROUNDED = ['bf16', ...QUANTIZED];
const AGREED = {
  llama: { bf16: ['all', 'all', 'all'], q8_0: ['all', 'all', 'all'], q4_0: [7, 7, 'all'], q5_0: ['all', 6, 3] },
  qwen2: { bf16: ['all', 0, 'all'], q8_0: [2, 'all', 'all'], q4_0: [3, 'all', 10], q5_0: ['all', 'all', 'all'] },
  qwen3: { bf16: ['all', 'all', 'all'], q8_0: ['all', 5, 0], q4_0: [5, 'all', 4], q5_0: ['all', 'all', 'all'] },
  'llama-k': { q4_k_m: [4, 'all', 11], q5_k_m: [11, 'all', 'all'] },
};
test.each([...MODELS.flatMap((m) => ROUNDED.map((t) => [m, t])), ['llama-k', 'q4_k_m'], ['llama-k', 'q5_k_m']])(
  '%s-%s.gguf: greedy ids follow llama.cpp as far as measured',
  async (m, t) => {
    const runs = await greedy(m, t);
    expect(runs.map((r) => (r.whole ? 'all' : r.same))).toEqual(AGREED[m][t]);
  },
);

describe('damaged files through loadModel: refused with the file and the field named, the engine goes on', () => {
  const fixture = (n) => new Uint8Array(readFileSync(path.join(DIR, n)));
  const refusal = (source) =>
    engine.loadModel(source).then(
      () => null,
      (e) => e,
    );

  test('cut inside its tensor data', async () => {
    const bytes = fixture('qwen2-q8_0.gguf');
    const e = await refusal({ 'cut.gguf': bytes.subarray(0, bytes.length - 100) });
    expect([e.code, e.file]).toEqual(['BadCheckpoint', 'cut.gguf']);
    expect(e.field).toMatch(/^tensor ".+" \(offset\)$/);
    expect(e.message).toMatch(/past the end of the file/);
  });

  test("a tensor whose shape is not the metadata's sizes: named as the file names it", async () => {
    // qwen2-f32.gguf with its embedding_length key renamed: the model is then refused for the missing key;
    // with qwen2.feed_forward_length 64 → 96 (same digits count), the MLP's tensors disagree with it.
    const bytes = fixture('qwen2-f32.gguf');
    const text = Buffer.from(bytes);
    const key = Buffer.from('qwen2.feed_forward_length');
    const at = text.indexOf(key) + key.length + 4; // past the key and its uint32 value type
    expect(text.readUInt32LE(at)).toBe(64);
    text.writeUInt32LE(96, at);
    const e = await refusal({ 'shape.gguf': new Uint8Array(text) });
    expect([e.code, e.file]).toEqual(['BadCheckpoint', 'shape.gguf']);
    expect(e.message).toMatch(
      /^shape\.gguf: tensor "blk\.0\.ffn_(gate|up|down)\.weight" has shape \[\d+,\d+\], but the sizes in shape\.gguf's metadata make it \[\d+,\d+\]$/,
    );
    // The engine goes on: a good file loads after.
    await withModel('qwen2', 'f32', async (model) => expect(model.config.modelType).toBe('qwen2'));
  });

  test('another architecture, and a ggml type that is not read', async () => {
    const arch = Buffer.from(fixture('qwen2-f32.gguf'));
    arch.write('qwen9', arch.indexOf('qwen2', arch.indexOf('general.architecture')));
    const e = await refusal({ 'arch.gguf': new Uint8Array(arch) });
    expect([e.code, e.file, e.field, e.value]).toEqual([
      'UnsupportedModel',
      'arch.gguf',
      'general.architecture',
      'qwen9',
    ]);
  });
});

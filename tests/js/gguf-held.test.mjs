// A GGUF file's quantized matrices held in their blocks (weights: 'auto'; src/core/quant.hpp): every output is the
// float32 model's over the same file dequantized (weights: 'float32', which gguf-model.test.mjs holds to
// transformers' float64 model of the file) up to the rounding of the products' order — logits, attention, hidden
// states, what each head writes, within 1e-4 + 1e-4·|x| (reference.json's float tolerance; measured: at most 0.17
// of it on scalar, simd and relaxed-simd, |Δ| ≤ 3.5e-6 of each array's largest magnitude); greedy ids the same —
// on every kernel set, in a fraction of the memory; and bitwise the same for any thread count. The products sum
// each block's a·q and scale the sum once (kernels_quant.cpp), where the float GEMM sums each scale·q (− min): the
// same values, rounded in another order.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAttention } from '../../src/js/node.mjs';

const DIR = fileURLToPath(new URL('../fixtures/gguf/', import.meta.url));
const FOLDERS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
// Each file with the block types its matrices are held in (the tiny models' rows are 32 or 64: whole Q8_0, Q5_0
// and Q4_0 blocks; the K-quant Llama's are 256). llama-quantize keeps the output head (Qwen2's tied token
// embeddings) in Q6_K, or Q8_0 where its rows are not whole blocks of 256, as here.
const FILES = [
  ['llama-q8_0', ['Q8_0']],
  ['llama-q4_0', ['Q4_0', 'Q8_0']],
  ['llama-q5_0', ['Q5_0', 'Q8_0']],
  ['qwen2-q8_0', ['Q8_0']],
  ['qwen2-q4_0', ['Q4_0', 'Q8_0']],
  ['qwen3-q8_0', ['Q8_0']],
  ['qwen3-q4_0', ['Q4_0', 'Q8_0']],
  ['llama-k-q4_k_m', ['Q4_K', 'Q6_K']],
  ['llama-k-q5_k_m', ['Q5_K', 'Q6_K']],
];
const BUILDS = [
  ['scalar', 1],
  ['simd', 1],
  ['relaxed-simd', 1],
  ['threaded-simd', 3],
  ['threaded-relaxed-simd', 2],
];
const INPUT = { inputIds: Int32Array.from([1, 17, 42, 5, 99, 23, 7, 64, 3, 11, 250, 8, 19]) };
const OPTIONS = { returnLogits: true, returnHiddenStates: true, returnHeadOutputs: true };

const bitsOf = (a) => new Uint32Array(Float32Array.from(a).buffer);
/** The worst |a − b| / (1e-4 + 1e-4·|b|) over two arrays. */
const worstOf = (a, b) => a.reduce((w, x, i) => Math.max(w, Math.abs(x - b[i]) / (1e-4 + 1e-4 * Math.abs(b[i]))), 0);
const sameBits = (a, b) => a.length === b.length && bitsOf(a).every((x, i) => x === bitsOf(b)[i]);

/** Every float array of a run's result, by its path. */
function arrays(value, at = 'result', out = {}) {
  if (value instanceof Float32Array) out[at] = value;
  else if (value && typeof value === 'object' && !ArrayBuffer.isView(value))
    for (const [k, v] of Object.entries(value)) arrays(v, `${at}.${k}`, out);
  return out;
}

describe.each(BUILDS)('%s, %i thread(s)', (variant, threads) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
  });
  afterAll(() => engine?.dispose());

  test.each(FILES)(
    '%s.gguf: the outputs of its blocks are the dequantized float32 model’s up to rounding',
    async (name, types) => {
      const file = path.join(DIR, `${name}.gguf`);
      const held = await engine.loadModel(file);
      const floats = await engine.loadModel(file, { weights: 'float32' });
      try {
        expect(held.config.weights).toBe('gguf');
        expect(
          Object.keys(held.config.weightTypes)
            .filter((t) => t !== 'F32')
            .sort(),
        ).toEqual([...types].sort());
        expect(floats.config.weights).toBe('float32');
        expect(Object.keys(floats.config.weightTypes)).toEqual(['F32']);
        expect(held.config.weightBytes).toBeLessThan(0.5 * floats.config.weightBytes);
        const a = arrays(await held.run(INPUT, OPTIONS));
        const b = arrays(await floats.run(INPUT, OPTIONS));
        expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
        expect(Object.keys(a).length).toBeGreaterThanOrEqual(5);
        for (const key of Object.keys(b)) {
          expect([key, a[key].length]).toEqual([key, b[key].length]);
          expect([key, worstOf(a[key], b[key]) <= 1]).toEqual([key, true]);
        }
        const settings = { maxNewTokens: 8, doSample: false, returnAttention: false };
        const g1 = await held.generate(INPUT, settings);
        const g2 = await floats.generate(INPUT, settings);
        expect(Array.from(g1.outputIds)).toEqual(Array.from(g2.outputIds));
        if (threads > 1) {
          // The same build on one thread: every output of the held model bit for bit.
          const single = await createAttention({ variant, threads: 1 });
          try {
            const one = await single.loadModel(file);
            const c = arrays(await one.run(INPUT, OPTIONS));
            one.dispose();
            for (const key of Object.keys(a)) expect([key, sameBits(a[key], c[key])]).toEqual([key, true]);
          } finally {
            single.dispose();
          }
        }
      } finally {
        held.dispose();
        floats.dispose();
      }
    },
  );
});

test("weights 'q8' and 'q4' take their blocks' bytes: 9/32 and about 5/32 of float32's", async () => {
  const engine = await createAttention({ variant: 'simd', threads: 1 });
  try {
    const bytes = {};
    for (const weights of ['float32', 'q8', 'q4']) {
      const model = await engine.loadModel(path.join(FOLDERS, 'hf-qwen2'), { weights });
      bytes[weights] = model.config.weightBytes;
      model.dispose();
    }
    // The tiny Qwen2's norms and biases stay float32, and 'q4' holds its tied embeddings in Q8_0 (a third of
    // its matrices' elements): the ratios are near, not at, 9/32 and 5/32.
    expect(bytes.q8 / bytes.float32).toBeGreaterThan(9 / 32 - 0.01);
    expect(bytes.q8 / bytes.float32).toBeLessThan(9 / 32 + 0.04);
    expect(bytes.q4 / bytes.float32).toBeGreaterThan(5 / 32);
    expect(bytes.q4 / bytes.float32).toBeLessThan(bytes.q8 / bytes.float32);
  } finally {
    engine.dispose();
  }
});

// weights 'q8' and 'q4' on a float checkpoint (a Hugging Face folder): each matrix quantized at load as ggml's
// reference quantizers do (the bytes: tests/native/quant_test.cpp against gguf-py's quantizer). The GGUF files of
// the same checkpoints were quantized by llama.cpp itself — Q8_0 by its converter (gguf-py's quantizer), Q4_0 by
// llama-quantize (ggml's C) — from the same float32 weights: the folder loaded with 'q8' / 'q4' must give those
// files' outputs bit for bit (a matrix quantized differently, or left float, moves the logits).
describe.each([
  ['simd', 1],
  ['threaded-relaxed-simd', 2],
])("weights 'q8' and 'q4' (%s, %i thread(s))", (variant, threads) => {
  let engine;
  beforeAll(async () => {
    engine = await createAttention({ variant, threads });
  });
  afterAll(() => engine?.dispose());

  test.each(['llama', 'qwen2', 'qwen3'].flatMap((m) => ['q8', 'q4'].map((w) => [m, w])))(
    "hf-%s with weights '%s': the outputs of llama.cpp's own file of that type",
    async (m, w) => {
      const quantized = await engine.loadModel(path.join(FOLDERS, `hf-${m}`), { weights: w });
      const file = await engine.loadModel(path.join(DIR, `${m}-${w}_0.gguf`));
      try {
        expect(quantized.config.weights).toBe(w);
        expect(quantized.config.weightTypes).toEqual(file.config.weightTypes);
        expect(quantized.config.weightBytes).toBe(file.config.weightBytes);
        const a = arrays(await quantized.run(INPUT, OPTIONS));
        const b = arrays(await file.run(INPUT, OPTIONS));
        expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
        for (const key of Object.keys(b)) expect([key, sameBits(a[key], b[key])]).toEqual([key, true]);
      } finally {
        quantized.dispose();
        file.dispose();
      }
    },
  );
});

// The decoder benchmark's onnxruntime-web peer of weights 'q8' and 'q4'
// (bench/peers/onnx-quant.mjs, onnx-decoder.mjs): the blocks its quantizer
// writes against gguf-py's quantizer (tests/fixtures/gguf/quantize.json),
// their MatMulNBits packing against gguf-py's dequantizer
// (dequantize.json) both by MatMulNBits' formula and by onnxruntime-web's own
// MatMulNBits kernel, bit for bit; and on tiny GPT-2 and Qwen2 (tied and
// untied head) checkpoints the q8 and q4 exports run by onnxruntime-web against mha-wasm's
// loadModel({ weights: 'q8' | 'q4' }): the same matrices quantized (counted
// by type), and logits within LOGITS of each other, where mha-wasm's float32
// model is far outside it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GPT2_SMALL, QWEN25_05B, SHAPES, writeDecoderCheckpoint } from '../../bench/decoder-checkpoint.mjs';
import { FLOAT, encodeModel, node, onnx, onnxRuntime, valueInfo } from '../../bench/peers/onnx-common.mjs';
import { FILES, buildDecoderOnnx } from '../../bench/peers/onnx-decoder.mjs';
import { createPeer } from '../../bench/peers/onnx-decoder-peer.mjs';
import {
  dequantizeMatMulNBits,
  fromHalf,
  quantizeBlocks,
  toHalf,
  toMatMulNBits,
} from '../../bench/peers/onnx-quant.mjs';
import { createAttention } from '../../src/js/node.mjs';

const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/gguf/${name}`, import.meta.url), 'utf8'));
const bytes = (b64) => new Uint8Array(Buffer.from(b64, 'base64'));
const floats = (b64) => {
  const b = bytes(b64);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
};
const QUANTIZE = fixture('quantize.json');
const DEQUANTIZE = fixture('dequantize.json');
const TYPES = [
  ['Q8_0', 8],
  ['Q4_0', 4],
];
/**
 * max |Δ| of the logits, onnxruntime-web's q8/q4 export against mha-wasm's q8/q4 model: 1.5–2.4e-7 seen
 * (mha-wasm's float32 model is 3.6e-3–3.4e-2 from it).
 */
const LOGITS = 1e-5;

const sameBits = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

test('the half conversion rounds to nearest even, subnormals included', () => {
  for (const [x, h] of [
    [1, 0x3c00],
    [65504, 0x7bff],
    [65520, 0x7c00], // the tie past the largest half: even, so infinity
    [2 ** -24, 0x0001],
    [2 ** -25, 0x0000], // a tie with 0: even
    [3 * 2 ** -26, 0x0001],
    [1 + 2 ** -11, 0x3c00], // ties to even: down
    [1 + 3 * 2 ** -11, 0x3c02], // up
    [-2.5e-5, 0x81a3],
  ])
    expect([x, toHalf(x)]).toEqual([x, h]);
  for (let h = 0; h < 0x7c00; h += 7) expect(toHalf(fromHalf(h))).toBe(h);
});

describe.each(TYPES)('%s', (type, bits) => {
  test("the quantizer writes gguf-py's blocks byte for byte (ties, zeros, subnormal scales)", () => {
    const got = quantizeBlocks(type, floats(QUANTIZE.floats));
    const want = bytes(QUANTIZE[type]);
    expect(got.length).toBe(want.length);
    const first = got.findIndex((b, i) => b !== want[i]);
    expect(first).toBe(-1);
  });

  test("MatMulNBits' formula over the packed blocks gives gguf-py's dequantized values bit for bit", () => {
    const { raw, values, elements } = DEQUANTIZE[type];
    const [N, K] = [elements / 64, 64];
    const packed = toMatMulNBits(type, bytes(raw), N, K);
    expect(packed.bits).toBe(bits);
    expect(packed.B.length).toBe((N * K * bits) / 8);
    expect(sameBits(dequantizeMatMulNBits(packed, N, K), floats(values))).toBe(true);
  });

  test("onnxruntime-web's MatMulNBits over the packed blocks multiplies by gguf-py's dequantized values", async () => {
    const { ort } = onnxRuntime(1);
    const { raw, values, elements } = DEQUANTIZE[type];
    const [N, K] = [elements / 64, 64];
    const { B, scales } = toMatMulNBits(type, bytes(raw), N, K);
    const UINT8 = onnx.TensorProto.DataType.UINT8;
    const graph = onnx.GraphProto.create({
      name: 'nbits',
      node: [node('MatMulNBits', ['A', 'B', 'scales'], ['Y'], { K, N, bits, block_size: 32 }, 'com.microsoft')],
      initializer: [
        onnx.TensorProto.create({ name: 'B', dims: [N, K / 32, 4 * bits], dataType: UINT8, rawData: B }),
        onnx.TensorProto.create({
          name: 'scales',
          dims: [(N * K) / 32],
          dataType: FLOAT,
          rawData: new Uint8Array(scales.buffer),
        }),
      ],
      input: [valueInfo('A', FLOAT, ['M', K])],
      output: [valueInfo('Y', FLOAT, ['M', N])],
    });
    const session = await ort.InferenceSession.create(encodeModel(graph, { contrib: true }));
    // A = I: row k of Y is column k of Wᵀ, element (n, k) of the dequantized W.
    const identity = new Float32Array(K * K).map((_, i) => (i % (K + 1) === 0 ? 1 : 0));
    const { Y } = await session.run({ A: new ort.Tensor('float32', identity, [K, K]) });
    const want = floats(values);
    const got = Float32Array.from({ length: N * K }, (_, i) => Y.data[(i % K) * N + Math.floor(i / K)]);
    // Equal as numbers: a sum of products gives +0 where gguf-py's d·q is −0 (the blocks of scale −0).
    expect(got.every((x, i) => x === want[i])).toBe(true);
    expect(sameBits(got, want)).toBe(false); // (the −0s are there: the comparison above saw them)
    await session.release();
  });
});

// Tiny checkpoints of the benchmark's two architectures (every K whole blocks of 32), their special token
// inside the vocabulary.
const QWEN2 = {
  ...QWEN25_05B,
  num_hidden_layers: 2,
  max_window_layers: 2,
  hidden_size: 64,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  intermediate_size: 96,
  vocab_size: 320,
};
const TINY = {
  gpt2: { ...GPT2_SMALL, n_layer: 2, n_embd: 64, n_head: 4, n_positions: 64, vocab_size: 320 },
  qwen2: QWEN2,
  // An lm_head of its own: the head Q8_0 with q4, the embeddings Q4_0.
  'qwen2-untied': { ...QWEN2, tie_word_embeddings: false },
};
const SPECIAL = 300;
const IDS = Int32Array.from([257, 259, 259, 3, 261, 263, 17, 40]);

describe.each(Object.keys(TINY))('a tiny %s: the q8 and q4 exports', (key) => {
  let dir, engine, peer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), `mha-onnx-quant-${key}-`));
    const base = SHAPES.find((s) => s.config.model_type === TINY[key].model_type);
    const config = { ...TINY[key], bos_token_id: SPECIAL, eos_token_id: SPECIAL };
    const shape = {
      ...base,
      special: { [SPECIAL]: '<|endoftext|>' },
      generation: { bos_token_id: SPECIAL, eos_token_id: SPECIAL },
    };
    writeDecoderCheckpoint(dir, shape, config, { seed: 5 });
    engine = await createAttention({ threads: 1 });
    peer = await createPeer({ threads: 1 });
  });
  afterAll(() => {
    engine?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // The last position's logits of IDS, as mha-wasm computes them with `weights`.
  async function mhaLogits(weights) {
    const model = await engine.loadModel(dir, { weights });
    try {
      const { logits } = await model.run({ inputIds: IDS }, { returnLogits: true, returnAttention: false });
      const V = logits.length / IDS.length;
      return { logits: logits.slice((IDS.length - 1) * V), weightTypes: model.config.weightTypes };
    } finally {
      model.dispose();
    }
  }

  const maxAbsDiff = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

  test.each(['q8', 'q4'])("%s: onnxruntime-web's logits are mha-wasm's, its float32 ones are not", async (form) => {
    const { model, weightTypes } = buildDecoderOnnx(dir, form);
    writeFileSync(path.join(dir, FILES[form].model), model);
    const ours = await mhaLogits(form);
    // The same matrices quantized into the same types (GPT-2: its tied embeddings alone, in Q8_0).
    expect(weightTypes).toEqual(ours.weightTypes);
    const expected = {
      gpt2: { q8: { Q8_0: 1, F32: 8 }, q4: { Q8_0: 1, F32: 8 } },
      qwen2: { q8: { Q8_0: 15 }, q4: { Q8_0: 1, Q4_0: 14 } },
      'qwen2-untied': { q8: { Q8_0: 16 }, q4: { Q8_0: 1, Q4_0: 15 } },
    };
    expect(weightTypes).toEqual(expected[key][form]);
    const ort = await peer.load(dir, form);
    const got = await ort.decoder().step(IDS);
    await ort.dispose();
    expect(got.length).toBe(TINY[key].vocab_size);
    const near = maxAbsDiff(got, ours.logits);
    const float = maxAbsDiff(got, (await mhaLogits('float32')).logits);
    expect(near).toBeLessThanOrEqual(LOGITS);
    // The tolerance tells the quantized model from the float one.
    expect(float).toBeGreaterThan(100 * LOGITS);
  });
});

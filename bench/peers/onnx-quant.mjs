// The decoder export's forms 'q8' and 'q4' (onnx-decoder.mjs): weight
// matrices quantized into llama.cpp's Q8_0 / Q4_0 blocks exactly as mha-wasm's
// loadModel({ weights: 'q8' | 'q4' }) quantizes them, then laid out for
// onnxruntime's com.microsoft MatMulNBits, whose dequantized matrix is then
// bit for bit the one mha-wasm multiplies by (activations float32 in both).
//
// mha-wasm quantizes in C++ (src/model/ggml_blocks.cpp, quantize(): ggml's
// quantize_row_q8_0_ref and quantize_row_q4_0_ref) and exposes no quantizer
// to JavaScript, so the rule is written again here, in float32 arithmetic
// (Math.fround after each operation, as the C code rounds), because ONNX
// needs the blocks themselves. tests/js/onnx-quant.test.mjs holds it to
// gguf-py's quantizer (tests/fixtures/gguf/quantize.json), byte for byte.
//   Q8_0: d = amax / 127, q = round(x / d) (half away from zero), value d·q.
//   Q4_0: d = (the value of largest magnitude) / −8, q = min(15, trunc(x / d + 8.5)),
//         value d·(q − 8).
// Both store d as an IEEE half (rounded to nearest even) and multiply by the
// float32 reciprocal 1 / d; a block of zeros has d = 0 and q = 0 (Q4_0: 8).
//
// Which matrices (src/js/models/load.mjs chooseWeights, src/model/weights.cpp
// hold): every nn.Linear-layout matrix [N, K] whose K is whole blocks of 32
// (Qwen2's q/k/v/o and MLP projections; untied token embeddings) in the
// form's type; the output head (lm_head, else the tied token embeddings) in
// Q8_0 with 'q4' too (as llama-quantize keeps it at a higher precision);
// the embeddings' rows are read out of their blocks; GPT-2's Conv1D matrices ([in, out]: a
// block would run across rows) stay float32, so GPT-2's 'q8' and 'q4' both
// quantize its token embeddings alone, into Q8_0.
//
// MatMulNBits (onnxruntime docs/ContribOperators.md; checked against
// onnxruntime-web 1.30's wasm kernel, bits 4 and 8): Y = A · dequant(B)ᵀ with
// B uint8 [N, K / 32, 32·bits / 8], each row's blocks along K, values packed
// low bits first (4-bit: element 2i in byte i's low nibble, 2i + 1 in its
// high one); scales float32 [N·K / 32]; no zero_points input, so the default
// 2^(bits − 1): B holds q + 128 (Q8_0) or q as ggml stores it (Q4_0, 0…15),
// and (B − zero point)·scale is d·q, exact in float32 as ggml's dequantize_row_*.

/** The forms' block types: the matrices', and the output head's (llama-quantize's higher precision). */
export const QUANT_FORMS = Object.freeze({
  q8: { matrices: 'Q8_0', head: 'Q8_0' },
  q4: { matrices: 'Q4_0', head: 'Q8_0' },
});
const BITS = { Q8_0: 8, Q4_0: 4 };
const BLOCK = 32;
/** Bytes of a ggml block: an f16 d, then 32 int8 (Q8_0) or 16 bytes of nibbles (Q4_0). */
export const BLOCK_BYTES = { Q8_0: 34, Q4_0: 18 };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 → IEEE half bits, rounded to nearest, ties to even (as GGML_FP32_TO_FP16); ±inf past 65504. */
export function toHalf(x) {
  f32[0] = x;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  // A normal half keeps 10 of the 23 bits; a subnormal one (e ≤ 0) the implicit bit and fewer.
  const m = e > 0 ? mant : mant | 0x800000;
  const shift = e > 0 ? 13 : 14 - e;
  if (shift > 24) return sign;
  let h = (e > 0 ? e << 10 : 0) | (m >>> shift);
  const rest = m & ((1 << shift) - 1),
    half = 1 << (shift - 1);
  if (rest > half || (rest === half && h & 1)) h++; // a carry into the exponent is the right rounding, up to ±inf
  return sign | h;
}

/** IEEE half bits → their value (exact in float32). */
export function fromHalf(h) {
  const e = (h >>> 10) & 0x1f,
    m = h & 0x3ff;
  const v = e === 0 ? m * 2 ** -24 : e === 0x1f ? (m ? NaN : Infinity) : (1024 + m) * 2 ** (e - 25);
  return h & 0x8000 ? -v : v;
}

const roundAway = (v) => Math.sign(v) * Math.round(Math.abs(v)); // C's roundf

/** `x` (float32, whole blocks of 32) as ggml blocks of `type` ('Q8_0', 'Q4_0'), as the _ref quantizers write them. */
export function quantizeBlocks(type, x) {
  if (!BITS[type]) throw new RangeError(`type: expected Q8_0 or Q4_0, got ${type}`);
  if (x.length % BLOCK) throw new RangeError(`${x.length} values are not whole blocks of ${BLOCK}`);
  const size = BLOCK_BYTES[type];
  const out = new Uint8Array((x.length / BLOCK) * size);
  for (let b = 0; b < x.length / BLOCK; b++) {
    const v = x.subarray(b * BLOCK, (b + 1) * BLOCK);
    let amax = 0,
      max = 0;
    for (let j = 0; j < BLOCK; j++) if (amax < Math.abs(v[j])) ((amax = Math.abs(v[j])), (max = v[j]));
    const d = Math.fround(type === 'Q8_0' ? amax / 127 : max / -8);
    const id = d ? Math.fround(1 / d) : 0;
    const h = toHalf(d);
    const o = b * size;
    out[o] = h & 0xff;
    out[o + 1] = h >>> 8;
    if (type === 'Q8_0') for (let j = 0; j < BLOCK; j++) out[o + 2 + j] = roundAway(Math.fround(v[j] * id)) & 0xff;
    else
      for (let j = 0; j < BLOCK / 2; j++) {
        const q = (t) => Math.min(15, Math.trunc(Math.fround(Math.fround(v[t] * id) + 8.5)));
        out[o + 2 + j] = q(j) | (q(j + BLOCK / 2) << 4);
      }
  }
  return out;
}

/** ggml blocks of `type` → their floats, as ggml's dequantize_row_q8_0 / _q4_0: d·q, d·(q − 8). */
export function dequantizeBlocks(type, blocks) {
  const size = BLOCK_BYTES[type];
  const out = new Float32Array((blocks.length / size) * BLOCK);
  for (let b = 0; b < blocks.length / size; b++) {
    const o = b * size;
    const d = fromHalf(blocks[o] | (blocks[o + 1] << 8));
    for (let j = 0; j < BLOCK; j++) {
      const q =
        type === 'Q8_0' ? (blocks[o + 2 + j] << 24) >> 24 : ((blocks[o + 2 + (j % 16)] >> (j < 16 ? 0 : 4)) & 15) - 8;
      out[b * BLOCK + j] = Math.fround(d * q);
    }
  }
  return out;
}

/**
 * ggml blocks of `type` of a matrix [N, K] (row after row) as MatMulNBits' inputs: { bits, B (uint8
 * [N, K / 32, blob]), scales (float32 [N·K / 32]) }.
 */
export function toMatMulNBits(type, blocks, N, K) {
  const bits = BITS[type],
    size = BLOCK_BYTES[type],
    count = (N * K) / BLOCK,
    blob = (BLOCK * bits) / 8;
  if (K % BLOCK || blocks.length !== count * size)
    throw new RangeError(`${blocks.length} bytes are not the ${type} blocks of a [${N}, ${K}] matrix`);
  const B = new Uint8Array(count * blob);
  const scales = new Float32Array(count);
  for (let b = 0; b < count; b++) {
    const o = b * size;
    scales[b] = fromHalf(blocks[o] | (blocks[o + 1] << 8));
    if (bits === 8) for (let j = 0; j < BLOCK; j++) B[b * blob + j] = (blocks[o + 2 + j] + 128) & 0xff;
    else
      for (let j = 0; j < BLOCK; j += 2) {
        // ggml: element j in byte j % 16 (low nibble for j < 16, high for j ≥ 16); here element j, j + 1 in byte j / 2.
        const nib = (t) => (blocks[o + 2 + (t % 16)] >> (t < 16 ? 0 : 4)) & 15;
        B[b * blob + j / 2] = nib(j) | (nib(j + 1) << 4);
      }
  }
  return { bits, B, scales };
}

/** MatMulNBits' dequantized B [N, K] (its formula, default zero point): (q − 2^(bits − 1))·scale. */
export function dequantizeMatMulNBits({ bits, B, scales }, N, K) {
  const blob = (BLOCK * bits) / 8,
    zero = 1 << (bits - 1);
  const out = new Float32Array(N * K);
  for (let i = 0; i < out.length; i++) {
    const b = Math.floor(i / BLOCK),
      j = i % BLOCK;
    const byte = B[b * blob + (bits === 8 ? j : j >> 1)];
    const q = bits === 8 ? byte : (byte >> ((j & 1) * 4)) & 15;
    out[i] = Math.fround((q - zero) * scales[b]);
  }
  return out;
}

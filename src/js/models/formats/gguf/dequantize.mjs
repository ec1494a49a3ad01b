// ggml's blocks as float32 values, as ggml's own dequantize_row_* define them
// (ggml/src/ggml-quants.c; gguf-py's gguf/quants.py computes the same in
// numpy): each product and difference rounded to float32 where ggml's C
// rounds it, so that the values are ggml's bit for bit. Separate from the
// reader, which yields each tensor's type and raw bytes: a later engine that
// keeps blocks as they are takes the reader's bytes and skips this module.
import { typeNamed } from './types.mjs';

const f32 = Math.fround;
let halfTable = null;

/** The float32 value of each of the 65536 IEEE half-precision bit patterns (ggml's GGML_FP16_TO_FP32). */
function halves() {
  if (halfTable) return halfTable;
  halfTable = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const fraction = h & 0x3ff;
    halfTable[h] =
      exponent === 0
        ? sign * fraction * 2 ** -24
        : exponent === 31
          ? fraction
            ? NaN
            : sign * Infinity
          : sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
  }
  return halfTable;
}

// ggml's get_scale_min_k4: the j-th 6-bit scale and min of a K-quant block's 12 bytes at `s`.
function scaleMin(bytes, s, j) {
  if (j < 4) return [bytes[s + j] & 63, bytes[s + j + 4] & 63];
  return [
    (bytes[s + j + 4] & 0xf) | ((bytes[s + j - 4] >> 6) << 4),
    (bytes[s + j + 4] >> 4) | ((bytes[s + j] >> 6) << 4),
  ];
}

const BLOCKS = {
  F32(bytes, out) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(4 * i, true);
  },
  F16(bytes, out) {
    const h = halves();
    for (let i = 0; i < out.length; i++) out[i] = h[bytes[2 * i] | (bytes[2 * i + 1] << 8)];
  },
  BF16(bytes, out) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const word = new DataView(new ArrayBuffer(4));
    for (let i = 0; i < out.length; i++) {
      word.setUint32(0, view.getUint16(2 * i, true) << 16);
      out[i] = word.getFloat32(0);
    }
  },
  // { f16 d; uint8 qs[16] }: element j is (low nibble of qs[j]) − 8, element j + 16 the high nibble − 8, times d.
  Q4_0(bytes, out) {
    const h = halves();
    for (let b = 0, o = 0; o < out.length; b += 18, o += 32) {
      const d = h[bytes[b] | (bytes[b + 1] << 8)];
      for (let j = 0; j < 16; j++) {
        const q = bytes[b + 2 + j];
        out[o + j] = f32(((q & 0xf) - 8) * d);
        out[o + j + 16] = f32(((q >> 4) - 8) * d);
      }
    }
  },
  // { f16 d; uint8 qh[4]; uint8 qs[16] }: as Q4_0 with a fifth bit from qh (bit j, bit j + 16), minus 16.
  Q5_0(bytes, out) {
    const h = halves();
    for (let b = 0, o = 0; o < out.length; b += 22, o += 32) {
      const d = h[bytes[b] | (bytes[b + 1] << 8)];
      const qh = (bytes[b + 2] | (bytes[b + 3] << 8) | (bytes[b + 4] << 16) | (bytes[b + 5] << 24)) >>> 0;
      for (let j = 0; j < 16; j++) {
        const q = bytes[b + 6 + j];
        const high0 = ((qh >>> j) << 4) & 0x10;
        const high1 = (qh >>> (j + 12)) & 0x10;
        out[o + j] = f32((((q & 0xf) | high0) - 16) * d);
        out[o + j + 16] = f32((((q >> 4) | high1) - 16) * d);
      }
    }
  },
  // { f16 d; int8 qs[32] }.
  Q8_0(bytes, out) {
    const h = halves();
    for (let b = 0, o = 0; o < out.length; b += 34, o += 32) {
      const d = h[bytes[b] | (bytes[b + 1] << 8)];
      for (let j = 0; j < 32; j++) out[o + j] = f32(((bytes[b + 2 + j] << 24) >> 24) * d);
    }
  },
  // { f16 d, dmin; uint8 scales[12]; uint8 qs[128] } over 256 elements: 8 sub-blocks of 32, each
  // d·scale·q − dmin·min; 64 elements per 32 bytes of qs (low nibbles, then high).
  Q4_K(bytes, out) {
    kQuant(bytes, out, 144, false);
  },
  // { f16 d, dmin; uint8 scales[12]; uint8 qh[32]; uint8 qs[128] }: Q4_K with a fifth bit from qh.
  Q5_K(bytes, out) {
    kQuant(bytes, out, 176, true);
  },
  // { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; f16 d } over 256 elements, 6-bit values − 32,
  // d·scale·q with 16 sub-blocks of 16; two halves of 128 elements.
  Q6_K(bytes, out) {
    const h = halves();
    for (let b = 0, o = 0; o < out.length; b += 210, o += 256) {
      const d = h[bytes[b + 208] | (bytes[b + 209] << 8)];
      for (let half = 0; half < 2; half++) {
        const ql = b + 64 * half;
        const qh = b + 128 + 32 * half;
        const sc = b + 192 + 8 * half;
        const y = o + 128 * half;
        for (let l = 0; l < 32; l++) {
          const is = l >> 4;
          const high = bytes[qh + l];
          const q1 = ((bytes[ql + l] & 0xf) | ((high & 3) << 4)) - 32;
          const q2 = ((bytes[ql + l + 32] & 0xf) | (((high >> 2) & 3) << 4)) - 32;
          const q3 = ((bytes[ql + l] >> 4) | (((high >> 4) & 3) << 4)) - 32;
          const q4 = ((bytes[ql + l + 32] >> 4) | (((high >> 6) & 3) << 4)) - 32;
          const scale = (k) => (bytes[sc + is + k] << 24) >> 24;
          out[y + l] = f32(f32(d * scale(0)) * q1);
          out[y + l + 32] = f32(f32(d * scale(2)) * q2);
          out[y + l + 64] = f32(f32(d * scale(4)) * q3);
          out[y + l + 96] = f32(f32(d * scale(6)) * q4);
        }
      }
    }
  },
};

function kQuant(bytes, out, blockBytes, fifth) {
  const h = halves();
  for (let b = 0, o = 0; o < out.length; b += blockBytes, o += 256) {
    const d = h[bytes[b] | (bytes[b + 1] << 8)];
    const dmin = h[bytes[b + 2] | (bytes[b + 3] << 8)];
    const qh = b + 16;
    let q = fifth ? b + 48 : b + 16;
    let y = o;
    for (let is = 0, bit = 1; is < 8; is += 2, bit <<= 2, q += 32) {
      const [sc1, m1] = scaleMin(bytes, b + 4, is);
      const [sc2, m2] = scaleMin(bytes, b + 4, is + 1);
      const d1 = f32(d * sc1);
      const min1 = f32(dmin * m1);
      const d2 = f32(d * sc2);
      const min2 = f32(dmin * m2);
      for (let l = 0; l < 32; l++) {
        const v = (bytes[q + l] & 0xf) + (fifth && bytes[qh + l] & bit ? 16 : 0);
        out[y++] = f32(f32(d1 * v) - min1);
      }
      for (let l = 0; l < 32; l++) {
        const v = (bytes[q + l] >> 4) + (fifth && bytes[qh + l] & (bit << 1) ? 16 : 0);
        out[y++] = f32(f32(d2 * v) - min2);
      }
    }
  }
}

/** The types dequantize() takes. */
export const DEQUANTIZED_TYPES = Object.freeze(Object.keys(BLOCKS));

/**
 * The `elements` float32 values of whole blocks of ggml type `type` ('Q8_0',
 * …) in `bytes` (a Uint8Array of exactly their size), into `out` (a
 * Float32Array of `elements`, made when not given).
 */
export function dequantize(type, bytes, elements, out = new Float32Array(elements)) {
  const info = typeNamed(type);
  if (!info || !Object.hasOwn(BLOCKS, type)) throw new RangeError(`dequantize: ggml type ${type} is not read`);
  if (elements % info.blockElements !== 0)
    throw new RangeError(`dequantize: ${elements} elements are not whole ${type} blocks of ${info.blockElements}`);
  const size = (elements / info.blockElements) * info.blockBytes;
  if (bytes.byteLength !== size)
    throw new RangeError(`dequantize: ${elements} ${type} elements take ${size} bytes, got ${bytes.byteLength}`);
  BLOCKS[type](bytes, out);
  return out;
}

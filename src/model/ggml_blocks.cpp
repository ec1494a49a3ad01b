#include "ggml_blocks.hpp"

#include <algorithm>
#include <cmath>

#include "../core/half.hpp"

namespace mha::model {
namespace {

float half_at(const unsigned char* p) noexcept { return f16_to_float(std::uint16_t(p[0] | p[1] << 8)); }

// get_scale_min_k4: the j-th 6-bit scale and min of a K-quant block's 12 bytes at s.
void scale_min(const unsigned char* s, std::size_t j, int& scale, int& min) noexcept {
  if (j < 4) {
    scale = s[j] & 63;
    min = s[j + 4] & 63;
  } else {
    scale = (s[j + 4] & 0xf) | ((s[j - 4] >> 6) << 4);
    min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
  }
}

// Q4_K and Q5_K: { f16 d, dmin; uint8 scales[12]; (Q5_K: uint8 qh[32];) uint8 qs[128] } over 256 values,
// eight sub-blocks of 32, each d·scale·q − dmin·min; 64 values per 32 bytes of qs (low nibbles, then high).
void k_quant(const unsigned char* b, bool fifth, Decoded& out) noexcept {
  const float d = half_at(b), dmin = half_at(b + 2);
  const unsigned char* qh = b + 16;
  const unsigned char* q = fifth ? b + 48 : b + 16;
  out.hasMin = true;
  for (std::size_t is = 0, y = 0; is < 8; is += 2, q += 32) {
    for (std::size_t s = 0; s < 2; ++s) {
      int scale, min;
      scale_min(b + 4, is + s, scale, min);
      out.scale[is + s] = d * float(scale);
      out.min[is + s] = dmin * float(min);
      const unsigned bit = 1u << (is + s);
      for (std::size_t l = 0; l < 32; ++l, ++y)
        out.q[y] = std::int8_t((s ? q[l] >> 4 : q[l] & 0xf) + (fifth && (qh[l] & bit) ? 16 : 0));
    }
  }
}

}  // namespace

void decode(DType type, const unsigned char* b, Decoded& out) noexcept {
  out.sub = 32;
  out.hasMin = false;
  switch (type) {
    case DType::Q8_0:  // { f16 d; int8 qs[32] }
      out.scale[0] = half_at(b);
      for (std::size_t j = 0; j < 32; ++j) out.q[j] = std::int8_t(b[2 + j]);
      break;
    case DType::Q4_0:  // { f16 d; uint8 qs[16] }: value j is qs[j]'s low nibble − 8, value j + 16 its high one − 8
      out.scale[0] = half_at(b);
      for (std::size_t j = 0; j < 16; ++j) {
        out.q[j] = std::int8_t((b[2 + j] & 0xf) - 8);
        out.q[j + 16] = std::int8_t((b[2 + j] >> 4) - 8);
      }
      break;
    case DType::Q5_0: {  // { f16 d; uint8 qh[4]; uint8 qs[16] }: Q4_0's nibbles with a fifth bit from qh, − 16
      out.scale[0] = half_at(b);
      const std::uint32_t qh =
          std::uint32_t(b[2]) | std::uint32_t(b[3]) << 8 | std::uint32_t(b[4]) << 16 | std::uint32_t(b[5]) << 24;
      for (std::size_t j = 0; j < 16; ++j) {
        const int high0 = int((qh >> j) << 4 & 0x10), high1 = int(qh >> (j + 12) & 0x10);
        out.q[j] = std::int8_t(((b[6 + j] & 0xf) | high0) - 16);
        out.q[j + 16] = std::int8_t(((b[6 + j] >> 4) | high1) - 16);
      }
      break;
    }
    case DType::Q4_K: k_quant(b, false, out); break;
    case DType::Q5_K: k_quant(b, true, out); break;
    case DType::Q6_K: {
      // { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; f16 d } over 256 values: 6-bit values − 32, d·scale·q,
      // sixteen sub-blocks of 16, in two halves of 128.
      const float d = half_at(b + 208);
      out.sub = 16;
      for (std::size_t s = 0; s < 16; ++s) out.scale[s] = d * float(std::int8_t(b[192 + s]));
      for (std::size_t half = 0; half < 2; ++half) {
        const unsigned char *ql = b + 64 * half, *qh = b + 128 + 32 * half;
        std::int8_t* y = out.q + 128 * half;
        for (std::size_t l = 0; l < 32; ++l) {
          y[l] = std::int8_t(((ql[l] & 0xf) | ((qh[l] & 3) << 4)) - 32);
          y[l + 32] = std::int8_t(((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32);
          y[l + 64] = std::int8_t(((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
          y[l + 96] = std::int8_t(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
        }
      }
      break;
    }
    default: break;  // float types are not blocks (the writer never asks)
  }
}

void dequantize(DType type, const unsigned char* data, std::size_t count, float* out) noexcept {
  const std::size_t E = block_elements(type), bytes = block_bytes(type);
  Decoded d;
  for (std::size_t at = 0; at < count; at += E, data += bytes, out += E) {
    decode(type, data, d);
    // ggml: q·d (d·scale·q for the K-quants: the scale's product first, as here), then − min.
    if (d.hasMin)
      for (std::size_t i = 0; i < E; ++i) out[i] = d.scale[i / d.sub] * float(d.q[i]) - d.min[i / d.sub];
    else
      for (std::size_t i = 0; i < E; ++i) out[i] = d.scale[i / d.sub] * float(d.q[i]);
  }
}

void quantize(DType type, const float* x, std::size_t count, unsigned char* out) noexcept {
  for (std::size_t at = 0; at < count; at += 32, x += 32) {
    float amax = 0.0f, max = 0.0f;  // the largest magnitude, and the value that has it
    for (std::size_t j = 0; j < 32; ++j)
      if (amax < std::fabs(x[j])) amax = std::fabs(x[j]), max = x[j];
    const float d = type == DType::Q8_0 ? amax / 127.0f : max / -8.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
    const std::uint16_t h = float_to_f16(d);
    out[0] = static_cast<unsigned char>(h & 0xff);
    out[1] = static_cast<unsigned char>(h >> 8);
    if (type == DType::Q8_0) {
      for (std::size_t j = 0; j < 32; ++j) out[2 + j] = static_cast<unsigned char>(std::int8_t(std::round(x[j] * id)));
      out += 34;
    } else {
      for (std::size_t j = 0; j < 16; ++j) {
        const int low = std::min(15, int(std::int8_t(x[j] * id + 8.5f)));
        const int high = std::min(15, int(std::int8_t(x[16 + j] * id + 8.5f)));
        out[2 + j] = static_cast<unsigned char>(low | high << 4);
      }
      out += 18;
    }
  }
}

bool rounds_activations(DType weights) noexcept {
  return weights == DType::Q8_0 || weights == DType::Q5_0 || weights == DType::Q4_0 || weights == DType::BF16;
}

void round_activations(DType weights, const float* x, std::size_t count, float* out) noexcept {
  if (weights == DType::BF16) {
    for (std::size_t i = 0; i < count; ++i) out[i] = bf16_to_float(float_to_bf16(x[i]));
    return;
  }
  if (!rounds_activations(weights)) {
    std::copy_n(x, count, out);
    return;
  }
  for (std::size_t at = 0; at < count; at += 32, x += 32, out += 32) {
    float amax = 0.0f;
    for (std::size_t j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float scale = f16_to_float(float_to_f16(amax / 127.0f)), id = amax != 0.0f ? 127.0f / amax : 0.0f;
    for (std::size_t j = 0; j < 32; ++j) out[j] = scale * std::nearbyint(x[j] * id);
  }
}

}  // namespace mha::model

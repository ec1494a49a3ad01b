// A measurement, not the engine's kernels (issue 39: "integer dot products … or blocks widened inside the
// packed panels … choose by measurement"): a decoding step's product (M = 1) of a Q8 or Q4 matrix in
// quant.hpp's packed layout, as llama.cpp computes it — the activation row quantized per 32 values to 8 bits
// (ggml's quantize_row_q8_0: d = max|a| / 127, q = round(a / d)), each block's Σ q_a·q_w summed in 32-bit
// integers, then scaled once by d_a·d_w — against src/core/kernels_quant.cpp's (every value widened to a
// float). Q8 by SIMD128's i32x4.dot_i16x8_s over values sign-extended to 16 bits (a byte shuffle pairs
// a column's two rows first); Q4 by the same, or, with relaxed SIMD, i32x4.relaxed_dot_i8x16_i7x16_add_s. Written for
// bench/quant-product.cpp only: four panels at once (N a multiple of 32), one thread; its outputs are compared there
// with the float product of the same blocks (the quantized activations' error, not a bug, is the difference).
#pragma once

#include <wasm_simd128.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels.hpp"
#include "quant.hpp"

namespace intdot {

using mha::kPanel;
namespace quant = mha::quant;

// ggml's quantize_row_q8_0 (reference rules, float arithmetic): K a multiple of 32.
inline void quantize_row(const float* a, std::size_t K, std::int8_t* q, float* d) {
  for (std::size_t b = 0; b < K / 32; ++b) {
    float amax = 0.0f;
    for (std::size_t i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(a[b * 32 + i]));
    const float scale = amax / 127.0f, inverse = scale != 0.0f ? 1.0f / scale : 0.0f;
    d[b] = scale;
    for (std::size_t i = 0; i < 32; ++i) q[b * 32 + i] = static_cast<std::int8_t>(std::round(a[b * 32 + i] * inverse));
  }
}

// Two int16 values repeated across a vector: (x, y, x, y, …).
inline v128_t pair16(std::int8_t x, std::int8_t y) {
  return wasm_i32x4_splat(static_cast<std::int32_t>(static_cast<std::uint16_t>(std::int16_t(x))) |
                          (static_cast<std::int32_t>(std::int16_t(y)) << 16));
}

// Columns (0, 4, 1, 5) and (2, 6, 3, 7) of a Q8 group after the pairing shuffle; `order` puts the block's
// scales in the same lanes.
inline v128_t scales_in_pair_order(const float* h, int half) {
  const v128_t lo = wasm_v128_load(h), hi = wasm_v128_load(h + 4);
  return half == 0 ? wasm_i32x4_shuffle(lo, hi, 0, 4, 1, 5) : wasm_i32x4_shuffle(lo, hi, 2, 6, 3, 7);
}

// Four panels at once (32 columns of C): each one's two vectors of sums and where its next block starts.
constexpr std::size_t NP = 4;
struct Panels {
  v128_t acc[NP][2];
  const unsigned char* at[NP];
  Panels(const unsigned char* B, std::size_t stride, std::size_t j0) {
    for (auto& p : acc) p[0] = p[1] = wasm_f32x4_splat(0.0f);
    for (std::size_t q = 0; q < NP; ++q) at[q] = B + (j0 / kPanel + q) * stride;
  }
};

// C [1, N] = a · B, B in Format::Q8 panels: integer sums per block, then scaled.
inline void q8_row(std::size_t N, std::size_t K, const std::int8_t* qa, const float* da, const unsigned char* B,
                   std::size_t stride, float* C) {
  constexpr quant::Format F = quant::Format::Q8;
  for (std::size_t j0 = 0; j0 < N; j0 += NP * kPanel) {
    Panels panels(B, stride, j0);
    auto& [acc, at] = panels;
    for (std::size_t kb = 0; kb < K / 32; ++kb) {
      v128_t sum[NP][2];
      for (auto& p : sum) p[0] = p[1] = wasm_i32x4_splat(0);
      for (std::size_t g = 0; g < 16; ++g) {
        const v128_t a = pair16(qa[kb * 32 + 2 * g], qa[kb * 32 + 2 * g + 1]);
        for (std::size_t q = 0; q < NP; ++q) {
          v128_t v = wasm_v128_load(at[q] + quant::header_bytes(F) + g * 16);
          // Lane l holds (row 0 col l, row 0 col l+4, row 1 col l, row 1 col l+4): pair each column's rows.
          v = wasm_i8x16_shuffle(v, v, 0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15);
          sum[q][0] = wasm_i32x4_add(sum[q][0], wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(v), a));
          sum[q][1] = wasm_i32x4_add(sum[q][1], wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(v), a));
        }
      }
      const v128_t d = wasm_f32x4_splat(da[kb]);
      for (std::size_t q = 0; q < NP; ++q) {
        const float* h = reinterpret_cast<const float*>(at[q]);
        for (int half = 0; half < 2; ++half)
          acc[q][half] = wasm_f32x4_add(acc[q][half], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(sum[q][half]),
                                                                     wasm_f32x4_mul(scales_in_pair_order(h, half), d)));
        at[q] += quant::block_size(F);
      }
    }
    for (std::size_t q = 0; q < NP; ++q) {
      // (0, 4, 1, 5), (2, 6, 3, 7) → (0, 1, 2, 3), (4, 5, 6, 7).
      float* c = C + j0 + q * kPanel;
      wasm_v128_store(c, wasm_i32x4_shuffle(acc[q][0], acc[q][1], 0, 2, 4, 6));
      wasm_v128_store(c + 4, wasm_i32x4_shuffle(acc[q][0], acc[q][1], 1, 3, 5, 7));
    }
  }
}

// C [1, N] = a · B, B in Format::Q4 panels (a group: 4 rows; lane l's byte p: row p, column l in the low
// nibble, l + 4 in the high one, each ggml's 4-bit value less 8 as a signed nibble). Read as ggml's unsigned
// nibbles u = nibble ^ 8 (0…15), with 8·Σq_a taken off each block's sums, as llama.cpp's x86 code does: a
// 16-bit shift and a mask take them out (WebAssembly's 8-bit shifts are several x86 instructions each).
// relaxed: i32x4.relaxed_dot_i8x16_i7x16_add_s (u, 0…15, is its second operand, which must be 0…127);
// else the nibbles zero-extended to 16 bits and i32x4.dot_i16x8_s.
template <bool relaxed>
inline void q4_row(std::size_t N, std::size_t K, const std::int8_t* qa, const float* da, const unsigned char* B,
                   std::size_t stride, float* C) {
  constexpr quant::Format F = quant::Format::Q4;
  const v128_t flip = wasm_i8x16_splat(static_cast<std::int8_t>(0x88)), low4 = wasm_i8x16_splat(0x0f);
  for (std::size_t j0 = 0; j0 < N; j0 += NP * kPanel) {
    Panels panels(B, stride, j0);
    auto& [acc, at] = panels;
    for (std::size_t kb = 0; kb < K / 32; ++kb) {
      // relaxed: sum[q][0] columns 0-3, [1] columns 4-7. Else four vectors of split sums (rows 0-1, 2-3).
      v128_t sum[NP][4];
      for (auto& p : sum) p[0] = p[1] = p[2] = p[3] = wasm_i32x4_splat(0);
      std::int32_t sumA = 0;
      for (std::size_t i = 0; i < 32; ++i) sumA += qa[kb * 32 + i];
      for (std::size_t g = 0; g < 8; ++g) {
        const std::int8_t* a4 = qa + kb * 32 + 4 * g;
        std::int32_t word;
        std::memcpy(&word, a4, 4);
        const v128_t a8 = wasm_i32x4_splat(word);  // (a0, a1, a2, a3) × 4, bytes
        const v128_t a16 = wasm_i64x2_splat(static_cast<std::int64_t>(
            (static_cast<std::uint64_t>(static_cast<std::uint16_t>(std::int16_t(a4[0])))) |
            (static_cast<std::uint64_t>(static_cast<std::uint16_t>(std::int16_t(a4[1]))) << 16) |
            (static_cast<std::uint64_t>(static_cast<std::uint16_t>(std::int16_t(a4[2]))) << 32) |
            (static_cast<std::uint64_t>(static_cast<std::uint16_t>(std::int16_t(a4[3]))) << 48)));
        for (std::size_t q = 0; q < NP; ++q) {
          const v128_t v = wasm_v128_xor(wasm_v128_load(at[q] + quant::header_bytes(F) + g * 16), flip);
          const v128_t lo = wasm_v128_and(v, low4), hi = wasm_v128_and(wasm_u16x8_shr(v, 4), low4);
          if constexpr (relaxed) {
            sum[q][0] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a8, lo, sum[q][0]);
            sum[q][1] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a8, hi, sum[q][1]);
          } else {
            (void)a8;
            sum[q][0] = wasm_i32x4_add(sum[q][0], wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(lo), a16));
            sum[q][1] = wasm_i32x4_add(sum[q][1], wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(lo), a16));
            sum[q][2] = wasm_i32x4_add(sum[q][2], wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(hi), a16));
            sum[q][3] = wasm_i32x4_add(sum[q][3], wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(hi), a16));
          }
        }
      }
      const v128_t d = wasm_f32x4_splat(da[kb]), less = wasm_i32x4_splat(8 * sumA);
      for (std::size_t q = 0; q < NP; ++q) {
        v128_t low = sum[q][0], high = sum[q][1];
        if constexpr (!relaxed) {
          // (c0 rows 0-1, c0 rows 2-3, c1 …, c1 …), (c2 …, c3 …) → (c0, c1, c2, c3); the same for 4-7.
          low = wasm_i32x4_add(wasm_i32x4_shuffle(sum[q][0], sum[q][1], 0, 2, 4, 6),
                               wasm_i32x4_shuffle(sum[q][0], sum[q][1], 1, 3, 5, 7));
          high = wasm_i32x4_add(wasm_i32x4_shuffle(sum[q][2], sum[q][3], 0, 2, 4, 6),
                                wasm_i32x4_shuffle(sum[q][2], sum[q][3], 1, 3, 5, 7));
        }
        low = wasm_i32x4_sub(low, less);
        high = wasm_i32x4_sub(high, less);
        const float* h = reinterpret_cast<const float*>(at[q]);
        acc[q][0] = wasm_f32x4_add(acc[q][0],
                                   wasm_f32x4_mul(wasm_f32x4_convert_i32x4(low), wasm_f32x4_mul(wasm_v128_load(h), d)));
        acc[q][1] = wasm_f32x4_add(
            acc[q][1], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(high), wasm_f32x4_mul(wasm_v128_load(h + 4), d)));
        at[q] += quant::block_size(F);
      }
    }
    for (std::size_t q = 0; q < NP; ++q) {
      wasm_v128_store(C + j0 + q * kPanel, acc[q][0]);
      wasm_v128_store(C + j0 + q * kPanel + 4, acc[q][1]);
    }
  }
}

}  // namespace intdot

// The products of matrices held in blocks (quant.hpp's QuantKernels),
// factored by block: for each block of `rows_of(F)` rows, s = Σ a·q over its
// integer values q (made floats, exactly) in row order, then C += scale·s,
// and − min·Σa for the formats with mins — rather than each value made the
// float scale·q (− min) it stands for and summed as the float GEMM does,
// which was bit for bit the product on the dequantized matrix but cost two
// float operations more per value (bench/quant-product.cpp: 1.4–1.8× the
// time). So the result differs from the dequantized float product in its
// rounding only (tests/native/quant_test.cpp bounds it); every element of C
// sums its blocks, and a block's rows, in one order whatever tile or thread
// computes it, so results stay bitwise the same for any thread count.
// Compiled into the builds with the models only (CMakeLists.txt: MHA_MODEL_SOURCES).
#include <cassert>
#include <cstring>

#include "kernels.hpp"
#include "quant.hpp"
#if MHA_WITH_SIMD
#include "gemm_simd.hpp"
#endif

namespace mha::quant {
namespace {

// Plain C++, one row of C at a time by one panel: per block, s = Σ a·q over its rows in order, then
// C += scale·s (− min·Σa).
template <Format F>
void gemm_quant_scalar(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                       const unsigned char* packedB, std::size_t panelStride, const float* bias, bool accumulate,
                       float* C, std::size_t ldc) noexcept {
  constexpr std::size_t R = rows_of(F);
  assert(K % R == 0 && panelStride >= panel_bytes(F, K));
  for (std::size_t j0 = 0; j0 < N; j0 += kPanel) {
    const unsigned char* panel = packedB + (j0 / kPanel) * panelStride;
    const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
    for (std::size_t i = 0; i < M; ++i) {
      float acc[kPanel];
      float* c = C + i * ldc + j0;
      for (std::size_t j = 0; j < kPanel; ++j)
        acc[j] = j >= cols ? 0.0f : accumulate ? c[j] : bias ? bias[j0 + j] : 0.0f;
      const float* a = A + i * lda;
      for (std::size_t k0 = 0; k0 < K; k0 += R) {
        const unsigned char* block = panel + k0 / R * block_size(F);
        float s[kPanel] = {}, sum = 0.0f;
        for (std::size_t r = 0; r < R; ++r) {
          for (std::size_t j = 0; j < kPanel; ++j) s[j] += a[k0 + r] * float(value(F, block, r, j));
          sum += a[k0 + r];
        }
        for (std::size_t j = 0; j < kPanel; ++j) {
          float scale, min;
          std::memcpy(&scale, block + j * sizeof(float), sizeof(float));
          acc[j] += scale * s[j];
          if (has_min(F)) {
            std::memcpy(&min, block + (kPanel + j) * sizeof(float), sizeof(float));
            acc[j] += min * -sum;
          }
        }
      }
      for (std::size_t j = 0; j < cols; ++j) c[j] = acc[j];
    }
  }
}

#if MHA_WITH_SIMD
using simd::NV;
using simd::Vec;
using simd::W;
using Lanes = xsimd::batch<std::int32_t>;
static_assert(NV == 2 && W == 4, "a group's 32-bit lane l holds columns l and l + 4: two 4-float vectors");

// The next row of a group's 16 bytes of values `raw` as its two vectors of
// floats (columns l and l + 4 of the row in lane l), shifted out of `raw`.
template <Format F>
inline void next_row(Lanes& raw, Vec q[NV]) noexcept {
  Lanes low, high;
  if (!nibbles(F)) {
    low = (raw << 24) >> 24;
    high = (raw << 16) >> 24;
    raw = raw >> 16;
  } else {
    low = (raw << 28) >> 28;
    high = (raw << 24) >> 28;
    raw = raw >> 8;
  }
  q[0] = xsimd::batch_cast<float>(low);
  q[1] = xsimd::batch_cast<float>(high);
}

// R rows of C by NP panels, `cols` of whose columns are stored: per block,
// the sums s of its rows in registers, then scaled into the tile's C.
template <Format F, std::size_t R, std::size_t NP>
inline void factored_tile(std::size_t K, const float* A, std::size_t lda, const unsigned char* panel,
                          std::size_t panelStride, const float* bias, bool accumulate, float* C, std::size_t ldc,
                          std::size_t cols) noexcept {
  constexpr std::size_t RB = rows_of(F), G = group_rows(F), NC = NP * kPanel;
  alignas(16) float edge[R][NC];
  Vec acc[R][NP][NV];
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t c = 0; c < NC; ++c)
      edge[r][c] = c >= cols ? 0.0f : accumulate ? C[r * ldc + c] : bias ? bias[c] : 0.0f;
    for (std::size_t q = 0; q < NP; ++q)
      for (std::size_t v = 0; v < NV; ++v) acc[r][q][v] = Vec::load_aligned(edge[r] + q * kPanel + v * W);
  }
  const float* a[R];
  for (std::size_t r = 0; r < R; ++r) a[r] = A + r * lda;
  const unsigned char* at[NP];
  for (std::size_t q = 0; q < NP; ++q) at[q] = panel + q * panelStride;
  for (std::size_t k0 = 0; k0 < K; k0 += RB) {
    Vec s[R][NP][NV];
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t q = 0; q < NP; ++q)
        for (std::size_t v = 0; v < NV; ++v) s[r][q][v] = Vec(0.0f);
    for (std::size_t g = 0; g < RB / G; ++g) {
      Lanes raw[NP];
      for (std::size_t q = 0; q < NP; ++q)
        raw[q] = Lanes::load_unaligned(reinterpret_cast<const std::int32_t*>(at[q] + header_bytes(F) + g * 16));
      for (std::size_t p = 0; p < G; ++p) {
        Vec b[NP][NV];
        for (std::size_t q = 0; q < NP; ++q) next_row<F>(raw[q], b[q]);
        for (std::size_t r = 0; r < R; ++r) {
          const Vec av(a[r][g * G + p]);
          for (std::size_t q = 0; q < NP; ++q)
            for (std::size_t v = 0; v < NV; ++v) s[r][q][v] = simd::madd(av, b[q][v], s[r][q][v]);
        }
      }
    }
    // Σa over the block's rows (for the mins): RB / W vectors summed pairwise, then their lanes, in a fixed
    // order (not one chain of RB dependent adds, whose latency would bound the block).
    float sum[R] = {};
    if (has_min(F))
      for (std::size_t r = 0; r < R; ++r) {
        Vec part[RB / W];
        for (std::size_t i = 0; i < RB / W; ++i) part[i] = Vec::load_unaligned(a[r] + i * W);
        for (std::size_t n = RB / W; n > 1; n /= 2)
          for (std::size_t i = 0; i < n / 2; ++i) part[i] = part[i] + part[i + n / 2];
        alignas(16) float lanes[W];
        part[0].store_aligned(lanes);
        sum[r] = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
      }
    for (std::size_t q = 0; q < NP; ++q) {
      const float* h = reinterpret_cast<const float*>(at[q]);
      for (std::size_t v = 0; v < NV; ++v) {
        const Vec scale = Vec::load_unaligned(h + v * W);
        for (std::size_t r = 0; r < R; ++r) acc[r][q][v] = simd::madd(scale, s[r][q][v], acc[r][q][v]);
        if (has_min(F)) {  // the stored values are ggml's less offset(F): + offset·scale·Σa, then − min·Σa
          const Vec min = Vec::load_unaligned(h + kPanel + v * W);
          for (std::size_t r = 0; r < R; ++r) {
            acc[r][q][v] = simd::madd(scale, Vec(float(offset(F)) * sum[r]), acc[r][q][v]);
            acc[r][q][v] = simd::madd(min, Vec(-sum[r]), acc[r][q][v]);
          }
        }
      }
      at[q] += block_size(F);
    }
    for (std::size_t r = 0; r < R; ++r) a[r] += RB;
  }
  for (std::size_t r = 0; r < R; ++r) {
    for (std::size_t q = 0; q < NP; ++q)
      for (std::size_t v = 0; v < NV; ++v) acc[r][q][v].store_aligned(edge[r] + q * kPanel + v * W);
    for (std::size_t c = 0; c < cols; ++c) C[r * ldc + c] = edge[r][c];
  }
}

// Rows of C in tiles of 4 panel by panel; the last 1 or 2 rows (a decoder's step) across 4 or 2 panels at once.
template <Format F>
void gemm_quant_simd(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                     const unsigned char* packedB, std::size_t panelStride, const float* bias, bool accumulate,
                     float* C, std::size_t ldc) noexcept {
  assert(K % rows_of(F) == 0 && panelStride >= panel_bytes(F, K));
  constexpr std::size_t kWide1 = 4, kWide2 = 2;
  const std::size_t full = M / 4 * 4, rest = M - full;
  for (std::size_t j0 = 0; j0 < N; j0 += kPanel) {
    const unsigned char* panel = packedB + j0 / kPanel * panelStride;
    const float* b = bias ? bias + j0 : nullptr;
    const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
    for (std::size_t i = 0; i < full; i += 4)
      factored_tile<F, 4, 1>(K, A + i * lda, lda, panel, panelStride, b, accumulate, C + i * ldc + j0, ldc, cols);
  }
  if (rest == 0) return;
  const float* a = A + full * lda;
  float* c = C + full * ldc;
  const std::size_t wide = rest == 1 ? kWide1 : rest == 2 ? kWide2 : 1;
  for (std::size_t j0 = 0; j0 < N;) {
    const unsigned char* panel = packedB + j0 / kPanel * panelStride;
    const float* b = bias ? bias + j0 : nullptr;
    if (wide > 1 && N - j0 >= wide * kPanel) {
      if (rest == 1)
        factored_tile<F, 1, kWide1>(K, a, lda, panel, panelStride, b, accumulate, c + j0, ldc, kWide1 * kPanel);
      else
        factored_tile<F, 2, kWide2>(K, a, lda, panel, panelStride, b, accumulate, c + j0, ldc, kWide2 * kPanel);
      j0 += wide * kPanel;
      continue;
    }
    const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
    switch (rest) {
      case 3: factored_tile<F, 3, 1>(K, a, lda, panel, panelStride, b, accumulate, c + j0, ldc, cols); break;
      case 2: factored_tile<F, 2, 1>(K, a, lda, panel, panelStride, b, accumulate, c + j0, ldc, cols); break;
      default: factored_tile<F, 1, 1>(K, a, lda, panel, panelStride, b, accumulate, c + j0, ldc, cols); break;
    }
    j0 += kPanel;
  }
}
#endif

}  // namespace

const QuantKernels& quant_kernels(const Kernels& kernels) noexcept {
  static const QuantKernels plain{gemm_quant_scalar<Format::Q8>, gemm_quant_scalar<Format::Q8x16>,
                                  gemm_quant_scalar<Format::Q4>, gemm_quant_scalar<Format::Q4M>,
                                  gemm_quant_scalar<Format::Q8M>};
#if MHA_WITH_SIMD
  static const QuantKernels vector{gemm_quant_simd<Format::Q8>, gemm_quant_simd<Format::Q8x16>,
                                   gemm_quant_simd<Format::Q4>, gemm_quant_simd<Format::Q4M>,
                                   gemm_quant_simd<Format::Q8M>};
  if (&kernels == &simd_kernels()) return vector;
#endif
  (void)kernels;
  return plain;
}

}  // namespace mha::quant

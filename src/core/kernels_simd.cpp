// xsimd kernels: WASM SIMD128 under em++ (-msimd128), SSE/AVX natively.
// Compiled only in SIMD builds: xsimd's WebAssembly backend is keyed on
// __EMSCRIPTEN__, so a no-SIMD em++ build must not include it at all.
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels.hpp"

namespace mha {
namespace {

using Vec = xsimd::batch<float>;
constexpr std::size_t W = Vec::size;
constexpr std::size_t NV = kPanel / W;  // vectors per panel row
static_assert(kPanel % W == 0, "a panel is a whole number of vectors");
constexpr std::size_t MR = 4;  // rows of the gemm's register tile

// One register tile: MR rows of C by one packed panel (kPanel columns), as in
// XNNPACK's f32_gemm_4x8 kernels. `cols` < kPanel only in the last panel; its
// packed zeros are computed and not stored.
template <std::size_t MR>
inline void gemm_tile(std::size_t K, const float* A, std::size_t lda, const float* panel, const float* bias,
                      bool accumulate, float* C, std::size_t ldc, std::size_t cols) noexcept {
  alignas(64) float edge[MR][kPanel];
  Vec acc[MR][NV];
  if (accumulate) {
    for (std::size_t r = 0; r < MR; ++r) {
      if (cols == kPanel) {
        for (std::size_t v = 0; v < NV; ++v) acc[r][v] = Vec::load_unaligned(C + r * ldc + v * W);
      } else {
        for (std::size_t c = 0; c < kPanel; ++c) edge[r][c] = c < cols ? C[r * ldc + c] : 0.0f;
        for (std::size_t v = 0; v < NV; ++v) acc[r][v] = Vec::load_aligned(edge[r] + v * W);
      }
    }
  } else {
    for (std::size_t v = 0; v < NV; ++v) {
      Vec start(0.0f);
      if (bias && cols == kPanel) {
        start = Vec::load_unaligned(bias + v * W);
      } else if (bias) {
        for (std::size_t c = 0; c < W; ++c) edge[0][c] = v * W + c < cols ? bias[v * W + c] : 0.0f;
        start = Vec::load_aligned(edge[0]);
      }
      for (std::size_t r = 0; r < MR; ++r) acc[r][v] = start;
    }
  }
  // Pointers that step by one element rather than indices recomputed from k:
  // WebAssembly has no scaled addressing, and Emscripten runs LLVM without
  // loop strength reduction, so each `A[r * lda + k]` would cost a shift and
  // two adds per load in the hottest loop.
  const float* a[MR];
  for (std::size_t r = 0; r < MR; ++r) a[r] = A + r * lda;
  const float* bk = panel;
  for (std::size_t k = 0; k < K; ++k, bk += kPanel) {
    Vec b[NV];
    for (std::size_t v = 0; v < NV; ++v) b[v] = Vec::load_unaligned(bk + v * W);
    for (std::size_t r = 0; r < MR; ++r) {
      const Vec av(*a[r]++);
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] = xsimd::fma(av, b[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < MR; ++r) {
    if (cols == kPanel) {
      for (std::size_t v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
    } else {
      for (std::size_t v = 0; v < NV; ++v) acc[r][v].store_aligned(edge[r] + v * W);
      for (std::size_t c = 0; c < cols; ++c) C[r * ldc + c] = edge[r][c];
    }
  }
}

void f32_gemm_4x8_xsimd(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                        const float* packedB, std::size_t panelStride, const float* bias, bool accumulate, float* C,
                        std::size_t ldc) noexcept {
  static_assert(MR == 4 && kPanel == 8, "the tile's name says 4×8");
  assert(lda >= K && ldc >= N && panelStride >= K * kPanel);
  // Panel by panel: one panel (K × kPanel floats) stays in L1 while the rows
  // of A stream past it.
  for (std::size_t j0 = 0; j0 < N; j0 += kPanel) {
    const float* panel = packedB + (j0 / kPanel) * panelStride;
    const float* b = bias ? bias + j0 : nullptr;
    const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
    std::size_t i = 0;
    for (; i + MR <= M; i += MR) gemm_tile<MR>(K, A + i * lda, lda, panel, b, accumulate, C + i * ldc + j0, ldc, cols);
    // The last 1–3 rows as one smaller tile (a 15-token sentence is 3 tiles of 4 and one of 3).
    const float* a = A + i * lda;
    float* c = C + i * ldc + j0;
    switch (M - i) {
      case 3: gemm_tile<3>(K, a, lda, panel, b, accumulate, c, ldc, cols); break;
      case 2: gemm_tile<2>(K, a, lda, panel, b, accumulate, c, ldc, cols); break;
      case 1: gemm_tile<1>(K, a, lda, panel, b, accumulate, c, ldc, cols); break;
      default: break;
    }
  }
}

float row_max_simd(const float* x, std::size_t n) noexcept {
  float max = -std::numeric_limits<float>::infinity();
  std::size_t j = 0;
  if (n >= W) {
    Vec vmax(max);
    auto nan = Vec(0.0f) != Vec(0.0f);
    for (; j + W <= n; j += W) {
      const Vec v = Vec::load_unaligned(x + j);
      nan = nan | (v != v);
      vmax = xsimd::max(vmax, v);
    }
    if (xsimd::any(nan)) return std::numeric_limits<float>::quiet_NaN();
    max = xsimd::reduce_max(vmax);
  }
  for (; j < n; ++j) {
    if (x[j] != x[j]) return x[j];
    max = x[j] > max ? x[j] : max;
  }
  return max;
}

// 2^t for t ≤ 0, the only arguments a max-subtracted softmax has: t = n + r
// with n an integer and |r| ≤ 1/2, 2^r by a degree-6 polynomial (relative
// minimax fit, ≤ 1e-7 in float32 arithmetic) and 2^n built in the exponent
// bits. n comes from the round-to-nearest of adding 1.5·2^23 (+127, the
// exponent's bias): no float-to-int conversion, which WebAssembly SIMD makes
// saturating and slow. t is clamped at −127, whose 2^n has exponent bits 0:
// the result is exactly 0 for t ≤ −126.5 and for −inf (a masked key).
inline Vec exp2_nonpositive(const Vec& t) noexcept {
  constexpr float kRound = 12582912.0f + 127.0f;  // 1.5·2^23 + bias
  const Vec tc = xsimd::max(t, Vec(-127.0f));
  const Vec shifted = tc + Vec(kRound);  // bits: 0x4B400000 + 127 + n
  const Vec r = tc - (shifted - Vec(kRound));
  Vec p(1.5345800784416497e-4f);
  p = xsimd::fma(p, r, Vec(1.3399932067841291e-3f));
  p = xsimd::fma(p, r, Vec(9.618489071726799e-3f));
  p = xsimd::fma(p, r, Vec(5.550328642129898e-2f));
  p = xsimd::fma(p, r, Vec(2.4022646248340607e-1f));
  p = xsimd::fma(p, r, Vec(6.931471824645996e-1f));
  p = xsimd::fma(p, r, Vec(1.0f));
  const Vec pow2n = xsimd::bitwise_cast<float>(xsimd::bitwise_cast<std::int32_t>(shifted) << 23);
  return p * pow2n;
}

float exp2_sum_simd(float* x, std::size_t n, float max) noexcept {
  const Vec vm(max);
  Vec vsum(0.0f);
  std::size_t j = 0;
  for (; j + W <= n; j += W) {
    const Vec e = exp2_nonpositive(Vec::load_unaligned(x + j) - vm);
    e.store_unaligned(x + j);
    vsum += e;
  }
  if (j < n) {
    // The last 1–3 entries as one vector, padded with −inf (whose 2^ is 0).
    alignas(16) float tail[W];
    for (std::size_t c = 0; c < W; ++c) tail[c] = j + c < n ? x[j + c] : -std::numeric_limits<float>::infinity();
    const Vec e = exp2_nonpositive(Vec::load_aligned(tail) - vm);
    e.store_aligned(tail);
    vsum += e;
    for (std::size_t c = 0; j + c < n; ++c) x[j + c] = tail[c];
  }
  return xsimd::reduce_add(vsum);
}

void scale_simd(float* x, std::size_t n, float factor) noexcept {
  const Vec vf(factor);
  std::size_t j = 0;
  for (; j + W <= n; j += W) (Vec::load_unaligned(x + j) * vf).store_unaligned(x + j);
  for (; j < n; ++j) x[j] *= factor;
}

float peak_simd(std::size_t iterations, float seed) noexcept {
  Vec acc[12];
  for (std::size_t v = 0; v < 12; ++v) acc[v] = Vec(seed + static_cast<float>(v));
  const Vec a(0.999f), b(1e-3f);
  for (std::size_t i = 0; i < iterations; ++i)
    for (auto& x : acc) x = xsimd::fma(x, a, b);
  Vec sum(0.0f);
  for (const auto& x : acc) sum += x;
  return xsimd::reduce_add(sum);
}

}  // namespace

const Kernels& simd_kernels() noexcept {
  static const Kernels k{"simd",     MR,        kPanel, f32_gemm_4x8_xsimd, row_max_simd, exp2_sum_simd,
                         scale_simd, peak_simd, 24 * W};
  return k;
}

}  // namespace mha

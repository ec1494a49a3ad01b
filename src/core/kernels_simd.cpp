// xsimd kernels: WASM SIMD128 under em++ (-msimd128), SSE/AVX natively.
// Compiled only in SIMD builds: xsimd's WebAssembly backend is keyed on
// __EMSCRIPTEN__, so a no-SIMD em++ build must not include it at all.
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "gemm_simd.hpp"
#include "kernels.hpp"

namespace mha {
namespace {

using simd::FloatPanel;
using simd::gemm_4x8_xsimd;
using simd::madd;
using simd::MR;
using simd::Vec;
using simd::W;

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
    for (auto& x : acc) x = madd(x, a, b);
  Vec sum(0.0f);
  for (const auto& x : acc) sum += x;
  return xsimd::reduce_add(sum);
}

}  // namespace

const Kernels& simd_kernels() noexcept {
  static const Kernels k{simd::kName, MR,        kPanel, gemm_4x8_xsimd<FloatPanel>, row_max_simd, exp2_sum_simd,
                         scale_simd,  peak_simd, 24 * W};
  return k;
}

}  // namespace mha

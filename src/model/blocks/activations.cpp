#include "activations.hpp"

#include <algorithm>
#include <cmath>

#include "profile.hpp"
#if MHA_WITH_SIMD
#include <xsimd/xsimd.hpp>
#endif

namespace mha::model {
namespace {

constexpr float kInvSqrt2 = 0.70710678118654752f, kSqrt2OverPi = 0.79788456080286536f, kCubic = 0.044715f;

#if MHA_WITH_SIMD
using Vec = xsimd::batch<float>;
constexpr std::size_t W = Vec::size;

// f over x in vectors; the tail through the same f on a padded copy, so every
// element is computed the same way wherever it falls.
template <typename F>
void map(float* x, std::size_t n, const F& f) noexcept {
  std::size_t j = 0;
  for (; j + W <= n; j += W) f(Vec::load_unaligned(x + j)).store_unaligned(x + j);
  if (j < n) {
    alignas(64) float tail[W] = {};
    for (std::size_t c = 0; c < n - j; ++c) tail[c] = x[j + c];
    f(Vec::load_aligned(tail)).store_aligned(tail);
    for (std::size_t c = 0; c < n - j; ++c) x[j + c] = tail[c];
  }
}
#endif

}  // namespace

void gelu_erf(float* x, std::size_t n) noexcept {
#if MHA_WITH_SIMD
  map(x, n, [](const Vec& v) { return Vec(0.5f) * v * (Vec(1.0f) + xsimd::erf(v * Vec(kInvSqrt2))); });
#else
  for (std::size_t j = 0; j < n; ++j) x[j] = 0.5f * x[j] * (1.0f + std::erf(x[j] * kInvSqrt2));
#endif
}

void gelu_tanh(float* x, std::size_t n) noexcept {
#if MHA_WITH_SIMD
  map(x, n, [](const Vec& v) {
    return Vec(0.5f) * v * (Vec(1.0f) + xsimd::tanh(Vec(kSqrt2OverPi) * (v + Vec(kCubic) * v * v * v)));
  });
#else
  for (std::size_t j = 0; j < n; ++j) {
    const float v = x[j];
    x[j] = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v)));
  }
#endif
}

void silu(float* x, std::size_t n) noexcept {
#if MHA_WITH_SIMD
  map(x, n, [](const Vec& v) { return v / (Vec(1.0f) + xsimd::exp(-v)); });
#else
  for (std::size_t j = 0; j < n; ++j) x[j] = x[j] / (1.0f + std::exp(-x[j]));
#endif
}

void swiglu(const float* gateUp, std::size_t rows, std::size_t I, float* out) noexcept {
  MHA_BLOCK(activation);
  for (std::size_t r = 0; r < rows; ++r) {
    float* o = out + r * I;
    std::copy(gateUp + r * 2 * I, gateUp + r * 2 * I + I, o);
    silu(o, I);
    const float* up = gateUp + r * 2 * I + I;
    for (std::size_t i = 0; i < I; ++i) o[i] *= up[i];
  }
}

void relu(float* x, std::size_t n) noexcept {
  for (std::size_t j = 0; j < n; ++j) x[j] = x[j] < 0.0f ? 0.0f : x[j];  // NaN stays NaN, as torch.relu
}

}  // namespace mha::model

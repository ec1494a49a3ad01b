// Plain C++ kernels: the no-SIMD build's path and the tests' second opinion.
// They sum in the same order as the SIMD kernels (start, then k = 0, 1, …;
// multiply then add), so the two differ only where SIMD uses a fused
// multiply-add (native FMA builds) or its vector exp.
#include <cassert>
#include <cmath>
#include <limits>

#include "gemm_scalar.hpp"
#include "kernels.hpp"

namespace mha {
namespace {

using scalar::FloatRow;
using scalar::gemm_1x8_scalar;

float row_max_scalar(const float* x, std::size_t n) noexcept {
  float max = -std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    if (x[j] != x[j]) return x[j];
    max = x[j] > max ? x[j] : max;
  }
  return max;
}

float exp2_sum_scalar(float* x, std::size_t n, float max) noexcept {
  float sum = 0.0f;
  for (std::size_t j = 0; j < n; ++j) sum += (x[j] = std::exp2(x[j] - max));
  return sum;
}

void scale_scalar(float* x, std::size_t n, float factor) noexcept {
  for (std::size_t j = 0; j < n; ++j) x[j] *= factor;
}

float peak_scalar(std::size_t iterations, float seed) noexcept {
  float acc[8] = {seed, seed + 1, seed + 2, seed + 3, seed + 4, seed + 5, seed + 6, seed + 7};
  const float a = 0.999f, b = 1e-3f;
  for (std::size_t i = 0; i < iterations; ++i)
    for (float& x : acc) x = x * a + b;
  float sum = 0;
  for (float x : acc) sum += x;
  return sum;
}

}  // namespace

const Kernels& scalar_kernels() noexcept {
  static const Kernels k{"scalar",     1,           kPanel, gemm_1x8_scalar<FloatRow>, row_max_scalar, exp2_sum_scalar,
                         scale_scalar, peak_scalar, 16};
  return k;
}

}  // namespace mha

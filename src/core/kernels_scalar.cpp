// Plain C++ kernels: the no-SIMD build's path and the tests' second opinion.
// Written to accumulate in the same order as the SIMD kernels (bias, then
// k = 0, 1, ...; multiply then add), so the two differ only where the SIMD
// build uses a fused multiply-add or a vector exp.
#include <cmath>
#include <limits>

#include "kernels.hpp"

namespace mha {
namespace {

void gemm_scalar(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                 const float* B, std::size_t ldb, const float* bias, float* C,
                 std::size_t ldc) noexcept {
  for (std::size_t i = 0; i < M; ++i) {
    float* c = C + i * ldc;
    for (std::size_t j = 0; j < N; ++j) c[j] = bias ? bias[j] : 0.0f;
    const float* a = A + i * lda;
    for (std::size_t k = 0; k < K; ++k) {
      const float aik = a[k];
      const float* b = B + k * ldb;
      for (std::size_t j = 0; j < N; ++j) c[j] += aik * b[j];
    }
  }
}

void softmax_scalar(float* row, std::size_t n, float scale) noexcept {
  float max = -std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < n; ++j) max = row[j] > max ? row[j] : max;
  if (max == -std::numeric_limits<float>::infinity()) {
    fill_unusable_row(row, n);
    return;
  }
  // Subtracting the row max keeps every exponent <= 0: logits of 1e4 stay finite.
  float sum = 0.0f;
  for (std::size_t j = 0; j < n; ++j) {
    const float e = std::exp((row[j] - max) * scale);
    row[j] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
  for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
}

}  // namespace

const Kernels& scalar_kernels() noexcept {
  static const Kernels k{"scalar", gemm_scalar, softmax_scalar};
  return k;
}

}  // namespace mha

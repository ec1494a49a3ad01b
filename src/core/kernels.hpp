// The two kernels multi-head attention is made of, as a table of function
// pointers so the caller (attention.cpp) never chooses an instruction set
// itself: scalar_kernels() is plain C++ (the no-SIMD build, and a second
// opinion in tests); simd_kernels() is xsimd (WASM SIMD128 under em++,
// SSE/AVX natively) and exists only when MHA_WITH_SIMD is set.
#pragma once

#include <cstddef>
#include <limits>

namespace mha {

// C[m][n] = bias[n] (0 when bias is null) + sum_k A[m][k] * B[k][n], row-major
// with leading dimensions lda, ldb, ldc. Every C element accumulates in the
// same order (bias, then k = 0, 1, ...), whatever tile it falls in, so results
// do not depend on how a caller splits M or N.
using GemmFn = void (*)(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                        const float* B, std::size_t ldb, const float* bias, float* C,
                        std::size_t ldc) noexcept;

// In place: row[j] = softmax(row * scale)[j] for j < n (scale > 0). Entries
// may be -inf (masked keys) and end up exactly 0. A row that is all -inf has
// no usable key: it becomes all zeros instead of NaN.
using SoftmaxFn = void (*)(float* row, std::size_t n, float scale) noexcept;

// A row whose max is -inf: every key is masked (-inf), so the row is zeros —
// unless the max skipped NaN logits (NaN compares false), in which case the
// row is NaN, as IEEE propagation through a softmax would make it.
inline void fill_unusable_row(float* row, std::size_t n) noexcept {
  bool nan = false;
  for (std::size_t j = 0; j < n; ++j) nan |= row[j] != row[j];
  const float fill = nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
  for (std::size_t j = 0; j < n; ++j) row[j] = fill;
}

struct Kernels {
  const char* name;
  GemmFn gemm;
  SoftmaxFn softmax;
};

const Kernels& scalar_kernels() noexcept;
#if MHA_WITH_SIMD
const Kernels& simd_kernels() noexcept;
#endif

// The best kernels this build has.
inline const Kernels& default_kernels() noexcept {
#if MHA_WITH_SIMD
  return simd_kernels();
#else
  return scalar_kernels();
#endif
}

}  // namespace mha

// The plain C++ GEMM of kernels.hpp, for any element type of B's packed
// panels (the Row policy: how a panel row's column j becomes a float):
// kernels_scalar.cpp instantiates it for float panels, kernels16.cpp (the
// model builds only) for 16-bit ones, so both sum in the one order this file
// defines (start, then k = 0, 1, …; multiply then add).
#pragma once

#include <cassert>
#include <cstddef>

#include "kernels.hpp"

namespace mha::scalar {

// A float panel's row as it is.
struct FloatRow {
  using T = float;
  static float at(const float* row, std::size_t j) noexcept { return row[j]; }
};
// One row of C at a time by one panel (kPanel columns).
template <typename Row>
inline void gemm_1x8_scalar(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                            const typename Row::T* packedB, std::size_t panelStride, const float* bias, bool accumulate,
                            float* C, std::size_t ldc) noexcept {
  static_assert(kPanel == 8, "the tile's name says 8 columns");
  assert(lda >= K && ldc >= N && panelStride >= K * kPanel);
  for (std::size_t j0 = 0; j0 < N; j0 += kPanel) {
    const typename Row::T* panel = packedB + (j0 / kPanel) * panelStride;
    const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
    for (std::size_t i = 0; i < M; ++i) {
      // All kPanel columns are computed (the packed ones past N are zeros), so
      // the loops have constant bounds and acc stays in registers.
      float acc[kPanel];
      float* c = C + i * ldc + j0;
      for (std::size_t j = 0; j < kPanel; ++j)
        acc[j] = j >= cols ? 0.0f : accumulate ? c[j] : bias ? bias[j0 + j] : 0.0f;
      const float* a = A + i * lda;
      const typename Row::T* b = panel;
      for (std::size_t k = 0; k < K; ++k, b += kPanel)
        for (std::size_t j = 0; j < kPanel; ++j) acc[j] += a[k] * Row::at(b, j);
      for (std::size_t j = 0; j < cols; ++j) c[j] = acc[j];
    }
  }
}

}  // namespace mha::scalar

// Packing of right-hand matrices into kPanel-column panels (kernels.hpp), so
// that the GEMM micro-kernels read B contiguously. Named after the layout they
// read, as XNNPACK's packing functions are: pack_kn takes B as [K, N], pack_nk
// takes Bᵀ as [N, K]. Plain C++: the layout is the same for every build, and
// packing is a copy, not arithmetic.
#pragma once

#include <cstddef>

#include "kernels.hpp"

namespace mha {

inline std::size_t panels(std::size_t n) { return (n + kPanel - 1) / kPanel; }

// Floats a packed K × N matrix takes.
inline std::size_t packed_size(std::size_t K, std::size_t N) { return panels(N) * kPanel * K; }

// B [K, N] row-major (leading dimension ldb) → panels [first, last) of its packed form.
inline void pack_kn_panels(std::size_t K, std::size_t N, const float* B, std::size_t ldb, float* packed,
                           std::size_t first, std::size_t last) noexcept {
  for (std::size_t p = first; p < last; ++p) {
    const std::size_t j0 = p * kPanel, cols = N - j0 < kPanel ? N - j0 : kPanel;
    float* out = packed + p * kPanel * K;
    for (std::size_t k = 0; k < K; ++k) {
      const float* row = B + k * ldb + j0;
      std::size_t c = 0;
      for (; c < cols; ++c) out[k * kPanel + c] = row[c];
      for (; c < kPanel; ++c) out[k * kPanel + c] = 0.0f;
    }
  }
}

// B [K, N] row-major (leading dimension ldb) → every panel.
inline void pack_kn(std::size_t K, std::size_t N, const float* B, std::size_t ldb, float* packed) noexcept {
  pack_kn_panels(K, N, B, ldb, packed, 0, panels(N));
}

// B given as its transpose T [N, K] row-major (leading dimension ldt) → panels of B = Tᵀ
// [K, N]: for QKᵀ, T is K_h, so each panel holds kPanel keys.
inline void pack_nk(std::size_t K, std::size_t N, const float* T, std::size_t ldt, float* packed) noexcept {
  for (std::size_t p = 0; p < panels(N); ++p) {
    const std::size_t j0 = p * kPanel, cols = N - j0 < kPanel ? N - j0 : kPanel;
    float* out = packed + p * kPanel * K;
    for (std::size_t c = 0; c < kPanel; ++c) {
      const float* row = T + (j0 + c) * ldt;
      if (c < cols)
        for (std::size_t k = 0; k < K; ++k) out[k * kPanel + c] = row[k];
      else
        for (std::size_t k = 0; k < K; ++k) out[k * kPanel + c] = 0.0f;
    }
  }
}

}  // namespace mha

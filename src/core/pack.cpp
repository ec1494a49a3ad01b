#include "pack.hpp"

namespace mha {

void pack_kn_panels(std::size_t K, std::size_t N, const float* B, std::size_t ldb, float* packed, std::size_t first,
                    std::size_t last) noexcept {
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

void pack_kn(std::size_t K, std::size_t N, const float* B, std::size_t ldb, float* packed) noexcept {
  pack_kn_panels(K, N, B, ldb, packed, 0, panels(N));
}

void pack_nk(std::size_t K, std::size_t N, const float* T, std::size_t ldt, float* packed) noexcept {
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

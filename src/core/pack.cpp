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

void pack_nk_columns(std::size_t K, std::size_t first, std::size_t count, const float* T, std::size_t ldt,
                     float* packed) noexcept {
  for (std::size_t j = 0; j < count; ++j) {
    const std::size_t column = first + j;
    float* out = packed + (column / kPanel) * kPanel * K + column % kPanel;
    const float* row = T + j * ldt;
    for (std::size_t k = 0; k < K; ++k) out[k * kPanel] = row[k];
  }
}

void pack_kn_rows(std::size_t N, std::size_t first, std::size_t count, const float* B, std::size_t ldb,
                  std::size_t panelStride, float* packed) noexcept {
  for (std::size_t p = 0; p < panels(N); ++p) {
    const std::size_t j0 = p * kPanel, cols = N - j0 < kPanel ? N - j0 : kPanel;
    for (std::size_t r = 0; r < count; ++r) {
      float* out = packed + p * panelStride + (first + r) * kPanel;
      const float* row = B + r * ldb + j0;
      std::size_t c = 0;
      for (; c < cols; ++c) out[c] = row[c];
      for (; c < kPanel; ++c) out[c] = 0.0f;
    }
  }
}

}  // namespace mha

// The products of matrices held in blocks (quant.hpp's QuantKernels): the
// float GEMMs of gemm_simd.hpp with a cursor that makes each panel row's
// floats from its block's values as it reads them (scale·q, or scale·q −
// min, exact in float32), and a plain C++ one in the same order, so each is
// bit for bit its kernel set's float product on the dequantized matrix.
// Compiled into the builds with the models only (CMakeLists.txt: MHA_MODEL_SOURCES).
#include <cassert>
#include <cstring>

#include "kernels.hpp"
#include "quant.hpp"
#if MHA_WITH_SIMD
#include "gemm_simd.hpp"
#endif

namespace mha::quant {
namespace {

// One row of C at a time by one panel, k = 0, 1, … (scalar::gemm_1x8_scalar's order).
template <Format F>
void gemm_quant_scalar(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                       const unsigned char* packedB, std::size_t panelStride, const float* bias, bool accumulate,
                       float* C, std::size_t ldc) noexcept {
  constexpr std::size_t R = rows_of(F);
  assert(K % R == 0 && panelStride >= panel_bytes(F, K));
  for (std::size_t j0 = 0; j0 < N; j0 += kPanel) {
    const unsigned char* panel = packedB + (j0 / kPanel) * panelStride;
    const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
    for (std::size_t i = 0; i < M; ++i) {
      float acc[kPanel];
      float* c = C + i * ldc + j0;
      for (std::size_t j = 0; j < kPanel; ++j)
        acc[j] = j >= cols ? 0.0f : accumulate ? c[j] : bias ? bias[j0 + j] : 0.0f;
      const float* a = A + i * lda;
      for (std::size_t k0 = 0; k0 < K; k0 += R) {
        const unsigned char* block = panel + k0 / R * block_size(F);
        float scale[kPanel], min[kPanel] = {};
        for (std::size_t j = 0; j < kPanel; ++j) {
          std::memcpy(&scale[j], block + j * sizeof(float), sizeof(float));
          if (has_min(F)) std::memcpy(&min[j], block + (kPanel + j) * sizeof(float), sizeof(float));
        }
        for (std::size_t r = 0; r < R; ++r)
          for (std::size_t j = 0; j < kPanel; ++j) {
            const float w =
                has_min(F) ? scale[j] * float(value(F, block, r, j)) - min[j] : scale[j] * float(value(F, block, r, j));
            acc[j] += a[k0 + r] * w;
          }
      }
      for (std::size_t j = 0; j < cols; ++j) c[j] = acc[j];
    }
  }
}

#if MHA_WITH_SIMD
using simd::NV;
using simd::Vec;
using simd::W;
using Lanes = xsimd::batch<std::int32_t>;
static_assert(NV == 2 && W == 4, "a group's 32-bit lane l holds columns l and l + 4: two 4-float vectors");

// A panel of blocks read row after row: at each block's first row its
// scales (and mins), at each group's first row its 16 bytes of values; each
// row's two vectors shifted out of the group's lanes (quant.hpp's layout).
template <Format F>
struct BlockPanel {
  using T = unsigned char;
  struct Cursor {
    const unsigned char* at = nullptr;
    Lanes raw = Lanes(0);
    Vec scale[NV] = {Vec(0.0f), Vec(0.0f)}, min[NV] = {Vec(0.0f), Vec(0.0f)};
    std::size_t row = 0;  // in the block
    Cursor() noexcept = default;
    explicit Cursor(const unsigned char* panel) noexcept : at(panel) {}
    void next(Vec b[NV]) noexcept {
      if (row == 0) {
        const float* s = reinterpret_cast<const float*>(at);
        for (std::size_t v = 0; v < NV; ++v) {
          scale[v] = Vec::load_unaligned(s + v * W);
          if (has_min(F)) min[v] = Vec::load_unaligned(s + kPanel + v * W);
        }
        at += header_bytes(F);
      }
      if (row % group_rows(F) == 0) {
        raw = Lanes::load_unaligned(reinterpret_cast<const std::int32_t*>(at));
        at += 16;
      }
      Lanes low, high;  // columns l and l + 4 of this row, in lane l
      if (!nibbles(F)) {
        low = (raw << 24) >> 24;
        high = (raw << 16) >> 24;
        raw = raw >> 16;
      } else if (is_signed(F)) {
        low = (raw << 28) >> 28;
        high = (raw << 24) >> 28;
        raw = raw >> 8;
      } else {
        low = raw & Lanes(0xf);
        high = (raw >> 4) & Lanes(0xf);
        raw = raw >> 8;
      }
      const Vec q[NV] = {xsimd::batch_cast<float>(low), xsimd::batch_cast<float>(high)};
      for (std::size_t v = 0; v < NV; ++v) b[v] = has_min(F) ? scale[v] * q[v] - min[v] : scale[v] * q[v];
      if (++row == rows_of(F)) row = 0;
    }
  };
};

template <Format F>
void gemm_quant_simd(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                     const unsigned char* packedB, std::size_t panelStride, const float* bias, bool accumulate,
                     float* C, std::size_t ldc) noexcept {
  assert(K % rows_of(F) == 0 && panelStride >= panel_bytes(F, K));
  simd::gemm_4x8_xsimd<BlockPanel<F>>(M, N, K, A, lda, packedB, panelStride, bias, accumulate, C, ldc);
}
#endif

}  // namespace

const QuantKernels& quant_kernels(const Kernels& kernels) noexcept {
  static const QuantKernels plain{gemm_quant_scalar<Format::Q8>, gemm_quant_scalar<Format::Q8x16>,
                                  gemm_quant_scalar<Format::Q4>, gemm_quant_scalar<Format::Q4M>};
#if MHA_WITH_SIMD
  static const QuantKernels vector{gemm_quant_simd<Format::Q8>, gemm_quant_simd<Format::Q8x16>,
                                   gemm_quant_simd<Format::Q4>, gemm_quant_simd<Format::Q4M>};
  if (&kernels == &simd_kernels()) return vector;
#endif
  (void)kernels;
  return plain;
}

}  // namespace mha::quant

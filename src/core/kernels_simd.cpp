// xsimd kernels: WASM SIMD128 under em++ (-msimd128), SSE/AVX natively.
// Compiled only in SIMD builds: xsimd's WebAssembly backend is keyed on
// __EMSCRIPTEN__, so a no-SIMD em++ build must not include it at all.
#include <cmath>
#include <limits>
#include <xsimd/xsimd.hpp>

#include "kernels.hpp"

namespace mha {
namespace {

using Vec = xsimd::batch<float>;
constexpr std::size_t W = Vec::size;

// One register tile: MR rows of C by NV vectors of columns. Accumulators are
// seeded with the bias (as XNNPACK's packed weights do), then k runs in order.
template <std::size_t MR, std::size_t NV>
inline void gemm_tile(std::size_t K, const float* A, std::size_t lda, const float* B,
                      std::size_t ldb, const float* bias, float* C, std::size_t ldc) noexcept {
  Vec acc[MR][NV];
  for (std::size_t v = 0; v < NV; ++v) {
    const Vec b0 = bias ? Vec::load_unaligned(bias + v * W) : Vec(0.0f);
    for (std::size_t r = 0; r < MR; ++r) acc[r][v] = b0;
  }
  for (std::size_t k = 0; k < K; ++k) {
    const float* brow = B + k * ldb;
    Vec b[NV];
    for (std::size_t v = 0; v < NV; ++v) b[v] = Vec::load_unaligned(brow + v * W);
    for (std::size_t r = 0; r < MR; ++r) {
      const Vec a(A[r * lda + k]);
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] = xsimd::fma(a, b[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < MR; ++r)
    for (std::size_t v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
}

// Columns left over after the last whole vector: plain multiply then add, the
// same order as the vector lanes.
inline void gemm_tail_columns(std::size_t rows, std::size_t cols, std::size_t K, const float* A,
                              std::size_t lda, const float* B, std::size_t ldb, const float* bias,
                              float* C, std::size_t ldc) noexcept {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < cols; ++j) {
      float acc = bias ? bias[j] : 0.0f;
      for (std::size_t k = 0; k < K; ++k) acc += A[r * lda + k] * B[k * ldb + j];
      C[r * ldc + j] = acc;
    }
  }
}

// One panel of columns [j, j + cols) for all M rows: the panel of B (K × 2W
// floats) stays in cache while every row of A streams past it.
template <std::size_t NV>
inline void gemm_panel(std::size_t M, std::size_t K, const float* A, std::size_t lda, const float* B,
                       std::size_t ldb, const float* bias, float* C, std::size_t ldc) noexcept {
  constexpr std::size_t MR = 4;
  std::size_t i = 0;
  for (; i + MR <= M; i += MR) gemm_tile<MR, NV>(K, A + i * lda, lda, B, ldb, bias, C + i * ldc, ldc);
  for (; i < M; ++i) gemm_tile<1, NV>(K, A + i * lda, lda, B, ldb, bias, C + i * ldc, ldc);
}

void gemm_simd(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
               const float* B, std::size_t ldb, const float* bias, float* C,
               std::size_t ldc) noexcept {
  std::size_t j = 0;
  for (; j + 2 * W <= N; j += 2 * W) gemm_panel<2>(M, K, A, lda, B + j, ldb, bias ? bias + j : nullptr, C + j, ldc);
  if (j + W <= N) {
    gemm_panel<1>(M, K, A, lda, B + j, ldb, bias ? bias + j : nullptr, C + j, ldc);
    j += W;
  }
  if (j < N) gemm_tail_columns(M, N - j, K, A, lda, B + j, ldb, bias ? bias + j : nullptr, C + j, ldc);
}

void softmax_simd(float* row, std::size_t n, float scale) noexcept {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  std::size_t j = 0;
  float max = kNegInf;
  if (n >= W) {
    Vec vmax = Vec::load_unaligned(row);
    for (j = W; j + W <= n; j += W) vmax = xsimd::max(vmax, Vec::load_unaligned(row + j));
    max = xsimd::reduce_max(vmax);
  }
  for (; j < n; ++j) max = row[j] > max ? row[j] : max;
  if (max == kNegInf) {
    fill_unusable_row(row, n);
    return;
  }
  // exp((x - max) * scale): every exponent <= 0, so logits of 1e4 stay finite.
  const Vec vm(max), vs(scale);
  Vec vsum(0.0f);
  for (j = 0; j + W <= n; j += W) {
    const Vec e = xsimd::exp((Vec::load_unaligned(row + j) - vm) * vs);
    e.store_unaligned(row + j);
    vsum += e;
  }
  float sum = xsimd::reduce_add(vsum);
  for (; j < n; ++j) {
    const float e = std::exp((row[j] - max) * scale);
    row[j] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
  const Vec vinv(inv);
  for (j = 0; j + W <= n; j += W) (Vec::load_unaligned(row + j) * vinv).store_unaligned(row + j);
  for (; j < n; ++j) row[j] *= inv;
}

}  // namespace

const Kernels& simd_kernels() noexcept {
  static const Kernels k{"simd", gemm_simd, softmax_simd};
  return k;
}

}  // namespace mha

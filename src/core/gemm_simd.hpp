// The xsimd GEMM of kernels.hpp, for any element type of B's packed panels
// (the Panel policy: how a panel row becomes NV vectors): kernels_simd.cpp
// instantiates it for float panels, kernels16.cpp (the model builds only)
// for 16-bit ones, so both sum in the one order this file defines.
// Included only by SIMD sources: xsimd's WebAssembly backend is keyed on
// __EMSCRIPTEN__, so a no-SIMD em++ build must not include it at all.
#pragma once

#include <cassert>
#include <cstddef>
#include <xsimd/xsimd.hpp>

#include "kernels.hpp"

#if defined(__wasm_relaxed_simd__)
#include <wasm_simd128.h>
#endif

namespace mha::simd {

using Vec = xsimd::batch<float>;
constexpr std::size_t W = Vec::size;
constexpr std::size_t NV = kPanel / W;  // vectors per panel row
static_assert(kPanel % W == 0, "a panel is a whole number of vectors");
constexpr std::size_t MR = 4;  // rows of the gemm's register tile

// a·b + c, the GEMM's one operation. In a relaxed-SIMD build (-mrelaxed-simd)
// f32x4.relaxed_madd, which the engine fuses where the processor has FMA
// (one rounding instead of two) and otherwise multiplies then adds: either
// way the same instruction on every thread, so results stay bitwise the same
// for any thread count within a build. Elsewhere xsimd::fma, which on
// SIMD128 is a multiply then an add (SIMD128 has no FMA).
inline Vec madd(const Vec& a, const Vec& b, const Vec& c) noexcept {
#if defined(__wasm_relaxed_simd__)
  return Vec(wasm_f32x4_relaxed_madd(a, b, c));
#else
  return xsimd::fma(a, b, c);
#endif
}

// The kernel set's name, as engine.kernels() reports it.
#if defined(__wasm_relaxed_simd__)
constexpr const char* kName = "relaxed-simd";
#else
constexpr const char* kName = "simd";
#endif

// A panel read row after row (k = 0, 1, …): Panel::Cursor, made at the panel's
// first row, gives each row's kPanel columns as NV vectors. Panels whose rows
// are all alike (floats, 16-bit) read one row of kPanel elements a time
// (RowCursor over their load()); the panels of blocks (kernels_quant.cpp)
// keep their block's scales in the cursor.
template <typename Rows>
struct RowCursor {
  const typename Rows::T* row = nullptr;
  RowCursor() noexcept = default;
  explicit RowCursor(const typename Rows::T* panel) noexcept : row(panel) {}
  void next(Vec b[NV]) noexcept {
    Rows::load(row, b);
    row += kPanel;
  }
};

// A row of a float panel as NV vectors.
struct FloatPanel {
  using T = float;
  using Cursor = RowCursor<FloatPanel>;
  static void load(const float* row, Vec b[NV]) noexcept {
    for (std::size_t v = 0; v < NV; ++v) b[v] = Vec::load_unaligned(row + v * W);
  }
};

// One register tile: MR rows of C by one packed panel (kPanel columns), as in
// XNNPACK's f32_gemm_4x8 kernels. `cols` < kPanel only in the last panel; its
// packed zeros are computed and not stored.
template <std::size_t MR, typename Panel>
inline void gemm_tile(std::size_t K, const float* A, std::size_t lda, const typename Panel::T* panel, const float* bias,
                      bool accumulate, float* C, std::size_t ldc, std::size_t cols) noexcept {
  alignas(64) float edge[MR][kPanel];
  Vec acc[MR][NV];
  if (accumulate) {
    for (std::size_t r = 0; r < MR; ++r) {
      if (cols == kPanel) {
        for (std::size_t v = 0; v < NV; ++v) acc[r][v] = Vec::load_unaligned(C + r * ldc + v * W);
      } else {
        for (std::size_t c = 0; c < kPanel; ++c) edge[r][c] = c < cols ? C[r * ldc + c] : 0.0f;
        for (std::size_t v = 0; v < NV; ++v) acc[r][v] = Vec::load_aligned(edge[r] + v * W);
      }
    }
  } else {
    for (std::size_t v = 0; v < NV; ++v) {
      Vec start(0.0f);
      if (bias && cols == kPanel) {
        start = Vec::load_unaligned(bias + v * W);
      } else if (bias) {
        for (std::size_t c = 0; c < W; ++c) edge[0][c] = v * W + c < cols ? bias[v * W + c] : 0.0f;
        start = Vec::load_aligned(edge[0]);
      }
      for (std::size_t r = 0; r < MR; ++r) acc[r][v] = start;
    }
  }
  // Pointers that step by one element rather than indices recomputed from k:
  // WebAssembly has no scaled addressing, and Emscripten runs LLVM without
  // loop strength reduction, so each `A[r * lda + k]` would cost a shift and
  // two adds per load in the hottest loop.
  const float* a[MR];
  for (std::size_t r = 0; r < MR; ++r) a[r] = A + r * lda;
  typename Panel::Cursor bk(panel);
  for (std::size_t k = 0; k < K; ++k) {
    Vec b[NV];
    bk.next(b);
    for (std::size_t r = 0; r < MR; ++r) {
      const Vec av(*a[r]++);
      for (std::size_t v = 0; v < NV; ++v) acc[r][v] = madd(av, b[v], acc[r][v]);
    }
  }
  for (std::size_t r = 0; r < MR; ++r) {
    if (cols == kPanel) {
      for (std::size_t v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
    } else {
      for (std::size_t v = 0; v < NV; ++v) acc[r][v].store_aligned(edge[r] + v * W);
      for (std::size_t c = 0; c < cols; ++c) C[r * ldc + c] = edge[r][c];
    }
  }
}

// A short product's tile (R = 1 or 2 rows: a decoder's step): R rows of C by
// NP whole panels at once, so that R·NP·NV sums are in flight rather than
// R·NV, whose add latency would bound the loop. Each element of C still sums
// start, then k = 0, 1, … in order: bit for bit gemm_tile's result.
template <std::size_t R, std::size_t NP, typename Panel>
inline void gemm_wide_tile(std::size_t K, const float* A, std::size_t lda, const typename Panel::T* panel,
                           std::size_t panelStride, const float* bias, bool accumulate, float* C,
                           std::size_t ldc) noexcept {
  Vec acc[R][NP][NV];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t q = 0; q < NP; ++q)
      for (std::size_t v = 0; v < NV; ++v)
        acc[r][q][v] = accumulate ? Vec::load_unaligned(C + r * ldc + q * kPanel + v * W)
                       : bias     ? Vec::load_unaligned(bias + q * kPanel + v * W)
                                  : Vec(0.0f);
  const float* a[R];
  for (std::size_t r = 0; r < R; ++r) a[r] = A + r * lda;
  typename Panel::Cursor bk[NP];
  for (std::size_t q = 0; q < NP; ++q) bk[q] = typename Panel::Cursor(panel + q * panelStride);
  for (std::size_t k = 0; k < K; ++k) {
    Vec b[NP][NV];
    for (std::size_t q = 0; q < NP; ++q) bk[q].next(b[q]);
    for (std::size_t r = 0; r < R; ++r) {
      const Vec av(*a[r]++);
      for (std::size_t q = 0; q < NP; ++q)
        for (std::size_t v = 0; v < NV; ++v) acc[r][q][v] = madd(av, b[q][v], acc[r][q][v]);
    }
  }
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t q = 0; q < NP; ++q)
      for (std::size_t v = 0; v < NV; ++v) acc[r][q][v].store_unaligned(C + r * ldc + q * kPanel + v * W);
}

template <typename Panel>
inline void gemm_4x8_xsimd(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                           const typename Panel::T* packedB, std::size_t panelStride, const float* bias,
                           bool accumulate, float* C, std::size_t ldc) noexcept {
  static_assert(MR == 4 && kPanel == 8, "the tile's name says 4×8");
  assert(lda >= K && ldc >= N);
  // Rows in tiles of MR, panel by panel: one panel (K × kPanel floats) stays
  // in L1 while the rows of A stream past it. The last M % MR rows (one of a
  // 17-token sentence, all of a decoder's step) would leave a tile of one or
  // two rows bound by the latency of its few sums: they run across a group
  // of panels at once (gemm_wide_tile), after the group's full tiles, while
  // its panels are still in cache. Three rows keep gemm_tile<3> (6 sums in
  // flight; wider would spill x86's 16 vector registers).
  const std::size_t full = M / MR * MR, rest = M - full;
  constexpr std::size_t kWide1 = 4, kWide2 = 2;  // panels per group for 1 and 2 rows
  const std::size_t group = rest == 1 ? kWide1 : rest == 2 ? kWide2 : 1;
  for (std::size_t g0 = 0; g0 < N; g0 += group * kPanel) {
    const std::size_t g1 = g0 + group * kPanel < N ? g0 + group * kPanel : N;
    for (std::size_t j0 = g0; j0 < g1; j0 += kPanel) {
      const typename Panel::T* panel = packedB + (j0 / kPanel) * panelStride;
      const float* b = bias ? bias + j0 : nullptr;
      const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
      for (std::size_t i = 0; i < full; i += MR)
        gemm_tile<MR, Panel>(K, A + i * lda, lda, panel, b, accumulate, C + i * ldc + j0, ldc, cols);
    }
    if (rest == 0) continue;
    const float* a = A + full * lda;
    float* c = C + full * ldc;
    const typename Panel::T* panels = packedB + (g0 / kPanel) * panelStride;
    const float* b = bias ? bias + g0 : nullptr;
    if (rest == 1 && g1 - g0 == kWide1 * kPanel) {
      gemm_wide_tile<1, kWide1, Panel>(K, a, lda, panels, panelStride, b, accumulate, c + g0, ldc);
    } else if (rest == 2 && g1 - g0 == kWide2 * kPanel) {
      gemm_wide_tile<2, kWide2, Panel>(K, a, lda, panels, panelStride, b, accumulate, c + g0, ldc);
    } else {
      // A group cut short by the last panel, or three rows: panel by panel.
      for (std::size_t j0 = g0; j0 < g1; j0 += kPanel) {
        const typename Panel::T* panel = packedB + (j0 / kPanel) * panelStride;
        const float* bj = bias ? bias + j0 : nullptr;
        const std::size_t cols = N - j0 < kPanel ? N - j0 : kPanel;
        switch (rest) {
          case 3: gemm_tile<3, Panel>(K, a, lda, panel, bj, accumulate, c + j0, ldc, cols); break;
          case 2: gemm_tile<2, Panel>(K, a, lda, panel, bj, accumulate, c + j0, ldc, cols); break;
          default: gemm_tile<1, Panel>(K, a, lda, panel, bj, accumulate, c + j0, ldc, cols); break;
        }
      }
    }
  }
}

}  // namespace mha::simd

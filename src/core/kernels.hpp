// The kernels multi-head attention is made of, as a table of function pointers
// so that the caller (attention.cpp) never chooses an instruction set itself:
// scalar_kernels() is plain C++ (the no-SIMD build, and a second opinion in
// tests); simd_kernels() is xsimd (WASM SIMD128 under em++, SSE/AVX natively)
// and exists only when MHA_WITH_SIMD is set. Built with -mrelaxed-simd, the
// same simd_kernels() multiply-add with f32x4.relaxed_madd (gemm_simd.hpp's
// madd) and call themselves "relaxed-simd".
//
// To add a kernel set (say a wider tile): a kernels_<set>.cpp that defines the
// functions below, named <op>_<mr>x<nr>_<set> where they have a tile, and a
// `const Kernels& <set>_kernels()` filling this table with its tile geometry;
// then pick it in default_kernels() (and in half_kernels()) and list the file
// in CMakeLists.txt. The callers never change: they read B in kPanel-wide
// panels (pack.hpp) and split work into any rows they like.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mha {

// Right-hand matrices of products are packed into panels of kPanel columns
// (pack.hpp): panel p holds columns [p·kPanel, p·kPanel + kPanel) as K rows of
// kPanel contiguous floats, zero beyond the last column.
constexpr std::size_t kPanel = 8;

// C[m][n] = (accumulate ? C[m][n] : bias[n] or 0) + Σ_k A[m][k]·B[k][n] for
// m < M, n < N, with B packed (panels `panelStride` floats apart). Every C
// element sums in the same order (start, then k = 0, 1, …) whatever tile it
// falls in, so results never depend on how a caller splits M or N.
using GemmFn = void (*)(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                        const float* packedB, std::size_t panelStride, const float* bias, bool accumulate, float* C,
                        std::size_t ldc) noexcept;

// The same product with B held in 16 bits (a model's weights: half.hpp),
// widened exactly to float32 as the kernel reads it, so the result is bit for
// bit the gemm's on the widened B. The 16-bit panels have the float panels'
// geometry, with each of their rows' kPanel columns stored in the order
// half_lane() gives: 0, 4, 1, 5, 2, 6, 3, 7, so that one 128-bit load of a
// row holds columns c and c + 4 in each 32-bit lane, and two integer
// operations widen it into the two 4-float vectors of a SIMD128 tile.
using Gemm16Fn = void (*)(std::size_t M, std::size_t N, std::size_t K, const float* A, std::size_t lda,
                          const std::uint16_t* packedB, std::size_t panelStride, const float* bias, bool accumulate,
                          float* C, std::size_t ldc) noexcept;

// Where column c (< kPanel) of a 16-bit panel row is stored in that row.
constexpr std::size_t half_lane(std::size_t c) noexcept { return c % 4 * 2 + c / 4; }
static_assert(kPanel == 8, "half_lane pairs columns c and c + 4 of an 8-column panel");

// max(x[0..n)): NaN if any x is NaN; -inf if n == 0 or every x is -inf.
using RowMaxFn = float (*)(const float* x, std::size_t n) noexcept;

// x[j] = 2^(x[j] − max) in place, for scores in base-2 units (the caller
// folds log2(e) into the query); masked −inf entries become exactly 0, as
// may anything below float32's normal range (2^−126). Returns the sum of the new x.
// max is finite and ≥ every x[j].
using Exp2SumFn = float (*)(float* x, std::size_t n, float max) noexcept;

// x[j] *= factor.
using ScaleFn = void (*)(float* x, std::size_t n, float factor) noexcept;

// For the benchmark: `iterations` rounds of independent multiply-add
// chains on registers, no memory: the arithmetic ceiling of this build.
// Returns a value that depends on every operation (so none is optimized out).
using PeakFn = float (*)(std::size_t iterations, float seed) noexcept;

struct Kernels {
  const char* name;  // "simd", "relaxed-simd" (simd_kernels() built with -mrelaxed-simd) or "scalar"
  // The gemm's register tile: mr rows of C by nr columns, nr being the width
  // of the panels it reads (kPanel, as pack_kn and pack_nk write them).
  std::size_t mr, nr;
  GemmFn gemm;
  RowMaxFn row_max;
  Exp2SumFn exp2_sum;
  ScaleFn scale;
  PeakFn peak;
  std::size_t peak_flops_per_iteration;
};

const Kernels& scalar_kernels() noexcept;
#if MHA_WITH_SIMD
const Kernels& simd_kernels() noexcept;
#endif

// The 16-bit products of a kernel set (B in bfloat16 or float16), for a
// model's weights: in kernels16.cpp, which only the builds with the models
// compile, so that the attention builds do not carry them.
struct HalfKernels {
  Gemm16Fn bf16, f16;
};
const HalfKernels& half_kernels(const Kernels& kernels) noexcept;

// The best kernels this build has.
inline const Kernels& default_kernels() noexcept {
#if MHA_WITH_SIMD
  return simd_kernels();
#else
  return scalar_kernels();
#endif
}

}  // namespace mha

// 16-bit weights (src/core/half.hpp, the kernels' gemm_bf16 and gemm_f16):
// the conversions against the compiler's own _Float16 where it has one (g++
// 12), else against the processor's (x86's F16C instructions: clang 14 has no
// _Float16 arithmetic on x86; CMakeLists.txt adds -mf16c), and
// against the definition of rounding (the nearest, ties to even) for
// bfloat16; the 16-bit products bit for bit the float product on the
// widened matrix, for both kernel sets.
#include "half.hpp"

#include <gtest/gtest.h>

#if !defined(__FLT16_MAX__) && defined(__F16C__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "pack.hpp"

namespace {

using mha::DType;

bool same_bits(float a, float b) { return mha::bits_of(a) == mha::bits_of(b); }

// Float bit patterns across the whole range, with every boundary the
// conversions have (subnormal halves, float16's largest, ties).
std::vector<float> sweep() {
  std::vector<float> values;
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 0x3ffd) values.push_back(mha::float_of(std::uint32_t(u)));
  for (float f : {0.0f,      -0.0f,         1.0f,          65504.0f,      65519.996f, 65520.0f,   65536.0f,   0x1p-14f,
                  0x1p-24f,  0x1p-25f,      0x1.8p-25f,    0x1.8p-24f,    0x1.4p-24f, 0x1.002p0f, 0x1.006p0f, 0x1.01p0f,
                  0x1.03p0f, 3.4028235e38f, 3.3961776e38f, 3.3895314e38f, INFINITY,   -INFINITY})
    values.push_back(f), values.push_back(-f);
  return values;
}

#if defined(__FLT16_MAX__) || defined(__F16C__)
// The reference conversions: IEEE 754's, rounding to the nearest (ties to even).
#if defined(__FLT16_MAX__)
float reference_widen(std::uint16_t bits) {
  _Float16 f;
  std::memcpy(&f, &bits, sizeof f);
  return float(f);
}
std::uint16_t reference_round(float x) {
  const _Float16 f = _Float16(x);
  std::uint16_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}
bool reference_available() { return true; }
#else
float reference_widen(std::uint16_t bits) { return _cvtsh_ss(bits); }
std::uint16_t reference_round(float x) {
  return std::uint16_t(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT), 0));
}
bool reference_available() {
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
}
#endif

TEST(Half, Float16WidensAsIeee754ForEveryPattern) {
  if (!reference_available()) GTEST_SKIP() << "this processor has no F16C instructions";
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const std::uint16_t bits = std::uint16_t(h);
    const float want = reference_widen(bits), got = mha::f16_to_float(bits);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(got)) << h;
    else
      EXPECT_TRUE(same_bits(got, want)) << std::hex << h << ": " << got << " vs " << want;
  }
}

TEST(Half, Float16RoundsAsIeee754) {
  if (!reference_available()) GTEST_SKIP() << "this processor has no F16C instructions";
  for (float f : sweep()) {
    const std::uint16_t wantBits = reference_round(f), got = mha::float_to_f16(f);
    if (std::isnan(f))
      EXPECT_TRUE(std::isnan(mha::f16_to_float(got))) << f;
    else
      EXPECT_EQ(got, wantBits) << std::hexfloat << f;
  }
}
#endif

TEST(Half, Bfloat16IsTheNearestTiesToEven) {
  for (float f : sweep()) {
    const std::uint16_t r = mha::float_to_bf16(f);
    const float got = mha::bf16_to_float(r);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(got));
      continue;
    }
    if (std::isinf(got)) {  // only what is at least halfway to 2^128
      EXPECT_GE(std::fabs(double(f)), std::ldexp(255.5 / 128, 127)) << f;
      EXPECT_EQ(std::signbit(got), std::signbit(f));
      continue;
    }
    // No neighbour of r (one bfloat16 step either way) is nearer; on a tie, r is even.
    const double error = std::fabs(double(got) - double(f));
    for (int step : {-1, 1}) {
      const std::uint16_t n = std::uint16_t(r + step);
      if ((n & 0x7fffu) > 0x7f80u || ((n ^ r) & 0x8000u)) continue;  // past infinity, or the other sign
      const double other = std::fabs(double(mha::bf16_to_float(n)) - double(f));
      EXPECT_LE(error, other) << std::hexfloat << f;
      if (error == other) {
        EXPECT_EQ(r & 1u, 0u) << std::hexfloat << f;
      }
    }
  }
}

TEST(Half, Gemm16IsTheFloatGemmOnTheWidenedMatrixBitForBit) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::uniform_int_distribution<int> exponent(-30, 12);
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()})
    for (DType storage : {DType::BF16, DType::F16})
      for (std::size_t M : {1, 2, 3, 4, 5, 7, 9})
        for (std::size_t N : {1, 3, 4, 7, 8, 9, 17, 25, 32, 40})
          for (std::size_t K : {1, 3, 8, 13})
            for (bool accumulate : {false, true}) {
              std::vector<float> A(M * K), bias(N), C(M * (N + 3)), B(K * N);
              for (auto* v : {&A, &bias, &C})
                for (auto& x : *v) x = u(rng);
              // B held in 16 bits, with values over a wide range (float16's subnormals among them).
              std::vector<std::uint16_t> halves(K * N);
              for (std::size_t e = 0; e < K * N; ++e) {
                halves[e] = mha::narrow(storage, std::ldexp(u(rng), exponent(rng)));
                B[e] = mha::widen(storage, halves[e]);
              }
              std::vector<float> packed(mha::packed_size(K, N));
              mha::pack_kn(K, N, B.data(), N, packed.data());
              // The 16-bit panels as kernels.hpp lays them out.
              std::vector<std::uint16_t> packed16(mha::packed_size(K, N), 0);
              for (std::size_t t = 0; t < K; ++t)
                for (std::size_t j = 0; j < N; ++j)
                  packed16[j / mha::kPanel * mha::kPanel * K + t * mha::kPanel + mha::half_lane(j % mha::kPanel)] =
                      halves[t * N + j];
              std::vector<float> want = C, got = C;
              k->gemm(M, N, K, A.data(), K, packed.data(), K * mha::kPanel, bias.data(), accumulate, want.data(),
                      N + 3);
              const mha::HalfKernels& half = mha::half_kernels(*k);
              (storage == DType::BF16 ? half.bf16 : half.f16)(M, N, K, A.data(), K, packed16.data(), K * mha::kPanel,
                                                              bias.data(), accumulate, got.data(), N + 3);
              ASSERT_EQ(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)), 0)
                  << k->name << (storage == DType::BF16 ? " bf16" : " f16") << " M" << M << " N" << N << " K" << K;
            }
}

}  // namespace

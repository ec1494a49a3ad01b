// Native tests of the core: the reference fixtures (PyTorch / numpy float64),
// seeded random cases against the float64 reference of reference.hpp, and the SIMD
// kernels against the scalar ones.
#include "attention.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "pack.hpp"
#include "reference.hpp"

namespace {

using json = nlohmann::json;
using namespace mha_test;

struct Result {
  std::vector<float> output, attention;
};

// withAttention = false takes the fused path (online softmax over key tiles).
Result run(const Case& c, const mha::Kernels& k, std::size_t threads = 1, bool withAttention = true) {
  const mha::Sizes s = mha::sizes_of(c.d);
  Result r{std::vector<float>(s.output), std::vector<float>(withAttention ? s.attention : 0)};
  const mha::Inputs in = inputs_of(c);
  mha::Attention attention(threads, k);
  attention.forward(c.d, in, {r.output.data(), withAttention ? r.attention.data() : nullptr});
  return r;
}

class Fixture : public ::testing::TestWithParam<std::string> {};

TEST_P(Fixture, MatchesReferenceWithBothKernels) {
  std::ifstream f(std::string(MHA_FIXTURES_DIR) + "/" + GetParam() + ".json");
  ASSERT_TRUE(f) << GetParam();
  const json j = json::parse(f);
  const Case c = fixture_case(j);
  const std::vector<double> output = j["output"], attention = j["attention"];
  const double abs = j["tolerance"]["abs"], rel = j["tolerance"]["rel"];
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    const Result r = run(c, *k);
    expect_close(r.output, output, abs, rel, GetParam() + " output (" + k->name + ")");
    expect_close(r.attention, attention, abs, rel, GetParam() + " attention (" + k->name + ")");
    expect_close(run(c, *k, 1, false).output, output, abs, rel, GetParam() + " fused output (" + k->name + ")");
  }
}

std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(MHA_FIXTURES_DIR))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Reference, Fixture, ::testing::ValuesIn(fixture_names()),
                         [](const auto& info) { return info.param; });

TEST(Random, OddSizesAgainstFloat64Reference) {
  // Sizes chosen to hit every tail: dK = 3, L = 17, N not a multiple of 4 or 8.
  // Lk = 300 and 517 span several key tiles of the fused path (and a partial last one).
  const mha::Dims dims[] = {{1, 17, 17, 12, 4, 3, 3},   {2, 5, 9, 7, 3, 5, 2},      {1, 1, 1, 1, 1, 1, 1},
                            {3, 13, 31, 20, 2, 11, 9},  {1, 33, 33, 64, 4, 16, 16}, {2, 8, 3, 9, 1, 17, 1},
                            {1, 300, 300, 16, 2, 8, 8}, {2, 40, 517, 24, 3, 5, 7},  {1, 70, 45, 10, 2, 9, 13}};
  std::uint32_t seed = 1;
  for (const auto& d : dims)
    for (int variant = 0; variant < 4; ++variant) {
      const Case c = random_case(d, variant & 1, variant & 2, variant == 3, seed++);
      std::vector<double> output, attention;
      reference(c, output, attention);
      const double abs =
          1e-5 * std::max(1.0, std::sqrt(double(std::max({d.dModel, d.numHeads * d.dV, d.seqLenK, d.dK})) / 64));
      for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
        const Result r = run(c, *k);
        const std::string what = "seed " + std::to_string(seed - 1) + " " + k->name;
        expect_close(r.output, output, abs, 1e-4, what + " output");
        expect_close(r.attention, attention, abs, 1e-4, what + " attention");
        expect_close(run(c, *k, 1, false).output, output, abs, 1e-4, what + " fused output");
      }
    }
}

TEST(Threads, BitwiseIdenticalForEveryThreadCount) {
  const mha::Dims dims[] = {
      {2, 37, 41, 24, 3, 8, 5}, {1, 70, 70, 32, 4, 8, 8}, {3, 5, 9, 7, 2, 3, 4}, {1, 90, 260, 32, 2, 16, 16}};
  std::uint32_t seed = 100;
  for (const auto& d : dims)
    for (bool causal : {false, true}) {
      const Case c = random_case(d, causal, true, causal, seed++);
      for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
        for (bool withAttention : {true, false}) {
          const Result one = run(c, *k, 1, withAttention);
          for (std::size_t threads : {2, 3, 4, 7}) {
            const Result many = run(c, *k, threads, withAttention);
            EXPECT_TRUE(same_bits(one.output, many.output))
                << k->name << " output, " << threads << " threads, seed " << seed - 1 << ", fused " << !withAttention;
            EXPECT_TRUE(same_bits(one.attention, many.attention))
                << k->name << " attention, " << threads << " threads, seed " << seed - 1;
          }
        }
      }
    }
}

TEST(Threads, ReusedEngineGivesTheSameResultEveryCall) {
  const Case c = random_case({2, 50, 150, 16, 2, 8, 8}, true, true, true, 7);
  const Result first = run(c, mha::simd_kernels(), 3, false);
  mha::Attention engine(3);
  std::vector<float> output(first.output.size());
  const mha::Inputs in = inputs_of(c);  // causal, biases and padding, as made above
  mha::PackedWeights weights;
  weights.assign(c.d, in);
  for (int repeat = 0; repeat < 3; ++repeat) {
    engine.forward(c.d, weights, in, {output.data(), nullptr});
    EXPECT_TRUE(same_bits(output, first.output));
  }
  mha::Dims other = c.d;
  other.dK = 4;
  EXPECT_THROW(engine.forward(other, weights, in, {output.data(), nullptr}), mha::ArgumentError);
}

// softmax of base-2 scores (2^x / Σ 2^x) through the kernels, as attention.cpp composes it.
void kernel_softmax(const mha::Kernels& k, std::vector<float>& row) {
  const float max = k.row_max(row.data(), row.size());
  k.scale(row.data(), row.size(), 1.0f / k.exp2_sum(row.data(), row.size(), max));
}

TEST(Softmax, ScoresOf1e4StayFiniteAndCorrect) {
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    std::vector<float> row = {1e4f, 1e4f - 1, -1e4f, 1e4f - 2, 0, 1e4f, 5e3f, 1e4f - 0.5f, -INFINITY};
    std::vector<double> want(row.size());
    double sum = 0;
    for (std::size_t j = 0; j < row.size(); ++j) sum += (want[j] = std::exp2(double(row[j]) - 1e4));
    kernel_softmax(*k, row);
    for (std::size_t j = 0; j < row.size(); ++j) EXPECT_NEAR(row[j], want[j] / sum, 1e-6) << k->name << " " << j;
    EXPECT_EQ(row.back(), 0.0f);
  }
}

TEST(Softmax, Exp2SumMatchesStdExp2OverTheWholeRange) {
  // Every exponent from 0 down past the float32 underflow, and -inf (masked);
  // every length from 1 to 9 (the SIMD kernel's tails).
  std::vector<float> x;
  for (float v = 0.0f; v > -160.0f; v -= 0.0173f) x.push_back(v);
  x.push_back(-INFINITY);
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    std::vector<float> y(x);
    double want = 0;
    const float sum = k->exp2_sum(y.data(), y.size(), 0.0f);
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double e = std::exp2(double(x[j]));
      want += e;
      // Relative 2e-7 where float32 is normal; below 2^-126.5 the SIMD kernel flushes to 0.
      EXPECT_NEAR(y[j], e, 2e-7 * e + 1e-38) << k->name << " 2^" << x[j];
    }
    EXPECT_EQ(y.back(), 0.0f) << k->name;
    EXPECT_NEAR(sum, want, 1e-5 * want) << k->name;  // a float32 sum of ~9,000 terms
    for (std::size_t n = 1; n <= 9; ++n) {
      std::vector<float> part(x.begin() + 40, x.begin() + 40 + n), got(part);
      double partWant = 0;
      for (float v : part) partWant += std::exp2(double(v) - double(part[0]));
      EXPECT_NEAR(k->exp2_sum(got.data(), n, part[0]), partWant, 1e-6 * partWant) << k->name << " n " << n;
      for (std::size_t j = 0; j < n; ++j)
        EXPECT_NEAR(got[j], std::exp2(double(part[j]) - double(part[0])), 2e-7) << k->name << " n " << n;
    }
  }
}

TEST(Softmax, RowMaxSeesNaNAndAllMasked) {
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    for (std::size_t n : {1, 3, 4, 9, 16}) {
      std::vector<float> row(n, -INFINITY);
      EXPECT_EQ(k->row_max(row.data(), n), -INFINITY) << k->name;
      for (std::size_t at = 0; at < n; ++at) {
        std::vector<float> withNaN(row);
        withNaN[at] = NAN;
        EXPECT_TRUE(std::isnan(k->row_max(withNaN.data(), n))) << k->name << " n " << n << " at " << at;
      }
    }
  }
}

TEST(Gemm, EveryTailAgainstANaiveProduct) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()})
    for (std::size_t M : {1, 2, 3, 4, 5, 7, 9})
      for (std::size_t N : {1, 3, 4, 7, 8, 9, 15, 16, 17, 25})
        for (std::size_t K : {1, 2, 3, 8, 13})
          for (bool accumulate : {false, true}) {
            std::vector<float> A(M * K), B(K * N), bias(N), C(M * (N + 3));
            for (auto* v : {&A, &B, &bias, &C})
              for (auto& x : *v) x = u(rng);
            std::vector<float> packed(mha::packed_size(K, N));
            mha::pack_kn(K, N, B.data(), N, packed.data());
            std::vector<double> want(M * (N + 3));
            for (std::size_t i = 0; i < M; ++i)
              for (std::size_t j = 0; j < N + 3; ++j) {
                double acc = j >= N ? C[i * (N + 3) + j] : accumulate ? C[i * (N + 3) + j] : bias[j];
                if (j < N)
                  for (std::size_t t = 0; t < K; ++t) acc += double(A[i * K + t]) * B[t * N + j];
                want[i * (N + 3) + j] = acc;
              }
            // ldc = N + 3: the 3 columns past N must be left untouched.
            k->gemm(M, N, K, A.data(), K, packed.data(), K * mha::kPanel, bias.data(), accumulate, C.data(), N + 3);
            expect_close(
                C, want, 1e-5, 1e-5,
                std::string(k->name) + " M" + std::to_string(M) + " N" + std::to_string(N) + " K" + std::to_string(K));
          }
}

// A decoder's step multiplies one row (or two beams) at a time, and the last
// M % 4 rows of any product (a 17-token sentence's last row), which the SIMD
// kernels tile across several panels at once: each row's result must be bit
// for bit that row of a taller product (the KV cache's steps equal run();
// a row's bits do not depend on the length of its sentence).
TEST(Gemm, AShortProductsRowsAreThoseOfATallerOneBitForBit) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()})
    for (std::size_t N : {8, 16, 31, 32, 33, 40, 64, 70})
      for (std::size_t K : {1, 5, 64})
        for (bool accumulate : {false, true}) {
          const std::size_t tall = 11;
          std::vector<float> A(tall * K), B(K * N), bias(N), C0(tall * N);
          for (auto* v : {&A, &B, &bias, &C0})
            for (auto& x : *v) x = u(rng);
          std::vector<float> packed(mha::packed_size(K, N));
          mha::pack_kn(K, N, B.data(), N, packed.data());
          std::vector<float> want = C0;
          k->gemm(tall, N, K, A.data(), K, packed.data(), K * mha::kPanel, bias.data(), accumulate, want.data(), N);
          for (std::size_t M : {1, 2, 3, 5, 6, 7, 9})
            for (std::size_t first = 0; first + M <= tall; first += M) {
              std::vector<float> got(C0.begin() + first * N, C0.begin() + (first + M) * N);
              k->gemm(M, N, K, A.data() + first * K, K, packed.data(), K * mha::kPanel, bias.data(), accumulate,
                      got.data(), N);
              ASSERT_EQ(std::memcmp(got.data(), want.data() + first * N, got.size() * sizeof(float)), 0)
                  << k->name << " M" << M << " rows from " << first << " N" << N << " K" << K;
            }
        }
}

TEST(Arguments, BadDimsAreRejectedWithTheirName) {
  mha::Dims d{1, 4, 4, 8, 2, 0, 4};
  try {
    mha::sizes_of(d);
    FAIL() << "dK = 0 accepted";
  } catch (const mha::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("dK"), std::string::npos) << e.what();
  }
  d = {1, 1u << 20, 1u << 20, 8, 1u << 12, 4, 4};
  EXPECT_THROW(mha::sizes_of(d), mha::ArgumentError);
}

#ifndef NDEBUG
// The kernels assert their preconditions in the builds that keep asserts
// (build/asan and build/fuzz): a caller that breaks the contract stops there.
TEST(KernelsDeathTest, GemmAssertsItsPreconditions) {
  std::vector<float> A(64), B(64), C(64);
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    EXPECT_EQ(k->nr, mha::kPanel) << k->name;
    // lda < K: the rows of A would overlap.
    EXPECT_DEATH(k->gemm(2, 8, 8, A.data(), 4, B.data(), 8 * mha::kPanel, nullptr, false, C.data(), 8), "lda >= K")
        << k->name;
  }
}
#endif

}  // namespace

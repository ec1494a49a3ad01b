// Matrices held in a GGUF file's blocks (src/core/quant.hpp, src/model/ggml_blocks.hpp): ggml's blocks decoded to
// gguf-py's own dequantized values bit for bit (tests/fixtures/gguf/dequantize.json, gguf.quants.dequantize, made
// by tests/tools/make_gguf_fixtures.py), and every product over a matrix held in blocks the float product over
// the same matrix dequantized up to rounding, bitwise the same for 1 and 3 threads and any count of rows — both
// kernel sets, a last panel cut short, a token's column (bit for bit), and a product over rows that cut the
// blocks (linear_rows); and floats quantized into
// Q8_0 and Q4_0 blocks byte for byte as gguf-py's quantizer writes them (tests/fixtures/gguf/quantize.json).
#include "../../src/core/quant.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "../../src/core/half.hpp"
#include "../../src/model/blocks/linear.hpp"
#include "../../src/model/ggml_blocks.hpp"

namespace {

using mha::DType;
using mha::model::Slot;
using mha::model::Weights;

std::vector<unsigned char> base64(const std::string& text) {
  std::vector<unsigned char> out;
  unsigned bits = 0;
  int count = 0;
  for (char ch : text) {
    const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* at = std::strchr(table, ch);
    if (ch == '=' || !at) continue;
    bits = bits << 6 | unsigned(at - table);
    if ((count += 6) >= 8) out.push_back(static_cast<unsigned char>(bits >> (count -= 8)));
  }
  return out;
}

DType type_named(const std::string& name) {
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::Q8_0, DType::Q4_0, DType::Q5_0, DType::Q4_K, DType::Q5_K,
                  DType::Q6_K})
    if (name == mha::dtype_name(t)) return t;
  ADD_FAILURE() << "no type " << name;
  return DType::F32;
}

TEST(GgmlBlocks, DequantizedAsGgufPyBitForBit) {
  std::ifstream file(std::string(MHA_FIXTURES_DIR) + "/gguf/dequantize.json");
  const nlohmann::json fixture = nlohmann::json::parse(file);
  std::size_t types = 0;
  for (const auto& [name, c] : fixture.items()) {
    if (name == "source") continue;
    const DType type = type_named(name);
    const std::size_t elements = c["elements"];
    const std::vector<unsigned char> raw = base64(c["raw"]), want = base64(c["values"]);
    ASSERT_EQ(raw.size(), elements / mha::block_elements(type) * mha::block_bytes(type)) << name;
    ASSERT_EQ(want.size(), elements * 4) << name;
    std::vector<float> got(elements);
    mha::model::to_float(type, raw.data(), elements, got.data());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < elements; ++i) differ += std::memcmp(&got[i], &want[4 * i], 4) != 0;
    EXPECT_EQ(differ, 0u) << name;
    ++types;
  }
  EXPECT_EQ(types, 9u);
}

TEST(GgmlBlocks, QuantizedAsGgufPyByteForByte) {
  std::ifstream file(std::string(MHA_FIXTURES_DIR) + "/gguf/quantize.json");
  const nlohmann::json fixture = nlohmann::json::parse(file);
  const std::vector<unsigned char> raw = base64(fixture["floats"]);
  std::vector<float> floats(raw.size() / 4);
  std::memcpy(floats.data(), raw.data(), raw.size());
  ASSERT_EQ(floats.size() % 32, 0u);
  for (DType type : {DType::Q8_0, DType::Q4_0}) {
    const std::vector<unsigned char> want = base64(fixture[mha::dtype_name(type)]);
    std::vector<unsigned char> got(floats.size() / 32 * mha::block_bytes(type));
    mha::model::quantize(type, floats.data(), floats.size(), got.data());
    ASSERT_EQ(got.size(), want.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i) differ += got[i] != want[i];
    EXPECT_EQ(differ, 0u) << mha::dtype_name(type);
    // Written as floats into a matrix held in those blocks: the matrix is the blocks' (their columns dequantized).
    const std::size_t K = 32, N = floats.size() / K;
    Weights w;
    Slot& slot = w.packed(true, K, N);
    w.tensor("m", {N, K}, slot);
    ASSERT_TRUE(w.hold(0, type));
    w.allocate();
    w.write(0, DType::F32, 0, N * K, reinterpret_cast<const unsigned char*>(floats.data()));
    std::vector<float> column(K), values(N * K);
    mha::model::to_float(type, want.data(), N * K, values.data());
    for (std::size_t j = 0; j < N; ++j) {
      slot.column(j, column.data());
      ASSERT_EQ(std::memcmp(column.data(), values.data() + j * K, K * sizeof(float)), 0) << "column " << j;
    }
  }
}

// `rows` rows of K values of `type` as a file holds them: random bytes, each block's f16 scales made small
// normal halves (a random pattern could be a NaN).
std::vector<unsigned char> random_blocks(DType type, std::size_t rows, std::size_t K, std::mt19937& rng) {
  const std::size_t E = mha::block_elements(type), B = mha::block_bytes(type), n = rows * K / E;
  std::vector<unsigned char> bytes(n * B);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  std::normal_distribution<float> normal(0.0f, 0.02f);
  const auto half = [&](unsigned char* at) {
    const std::uint16_t h = mha::float_to_f16(normal(rng));
    at[0] = static_cast<unsigned char>(h & 0xff);
    at[1] = static_cast<unsigned char>(h >> 8);
  };
  for (std::size_t b = 0; b < n; ++b) {
    unsigned char* block = bytes.data() + b * B;
    if (type == DType::Q4_K || type == DType::Q5_K)
      half(block), half(block + 2);
    else if (type == DType::Q6_K)
      half(block + 208);
    else
      half(block);
  }
  return bytes;
}

// One matrix [N, K] (nn.Linear's layout) in a Weights of its own: held in `type`'s blocks, or as floats.
struct Matrix {
  Weights weights;
  Slot* slot;
  Matrix(DType type, bool hold, std::size_t N, std::size_t K, const std::vector<unsigned char>& bytes) {
    slot = &weights.packed(true, K, N);
    weights.tensor("m", {N, K}, *slot);
    if (hold) {
      EXPECT_TRUE(weights.hold(0, type));
    }
    weights.allocate();
    weights.write(0, type, 0, N * K, bytes.data());
  }
};

bool same(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class Held : public ::testing::TestWithParam<DType> {};

TEST_P(Held, ProductsAreTheDequantizedMatrixProductsUpToRoundingForAnyThreads) {
  const DType type = GetParam();
  const std::size_t K = 512, N = 37;  // 37: the last panel cut short
  std::mt19937 rng(7 + unsigned(type));
  const std::vector<unsigned char> bytes = random_blocks(type, N, K, rng);
  const Matrix held(type, true, N, K, bytes), floats(type, false, N, K, bytes);
  ASSERT_EQ(held.slot->storage, type);
  ASSERT_EQ(floats.slot->storage, DType::F32);
  EXPECT_LT(held.slot->bytes(), floats.slot->bytes() / 3);
  std::vector<float> a(K), b(K);
  for (std::size_t j = 0; j < N; ++j) {
    held.slot->column(j, a.data());
    floats.slot->column(j, b.data());
    ASSERT_TRUE(same(a, b)) << "column " << j;
  }
  // The products sum each block's a·q and scale the sum once (kernels_quant.cpp): the float product on the
  // dequantized matrix up to rounding, |got − want| ≤ 1e-5·Σ_k |a_k·b_kj| (K = 512 roundings of 2^-24 each at
  // most would be 3e-5; a wrong scale, min or value is off by whole units of it); and bitwise the same for
  // every thread count and number of rows (each row of C the one of a 17-row product on one thread).
  std::normal_distribution<float> normal;
  std::vector<float> B(K * N);  // the dequantized matrix, [N, K]
  for (std::size_t j = 0; j < N; ++j) floats.slot->column(j, B.data() + j * K);
  const auto close = [&](const float* A, std::size_t M, std::size_t first, std::size_t count,
                         const std::vector<float>& got, const std::vector<float>& want) {
    double worst = 0;
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        double bound = 0;
        for (std::size_t k = 0; k < count; ++k) bound += std::fabs(double(A[i * K + k]) * B[j * K + first + k]);
        worst = std::max(worst, std::fabs(double(got[i * N + j]) - want[i * N + j]) / (1e-5 * bound + 1e-30));
      }
    return worst;
  };
  for (const mha::Kernels* kernels : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    std::vector<float> A(17 * K), all(17 * N);
    for (float& x : A) x = normal(rng);
    mha::Attention one(1, *kernels);
    mha::model::linear(one, 17, A.data(), K, *held.slot, nullptr, all.data(), N, mha::model::Epilogue::None);
    for (std::size_t threads : {1, 3})
      for (std::size_t M : {1, 2, 3, 4, 5, 9, 17}) {
        mha::Attention attention(threads, *kernels);
        std::vector<float> want(M * N), got(M * N);
        mha::model::linear(attention, M, A.data(), K, *floats.slot, nullptr, want.data(), N,
                           mha::model::Epilogue::None);
        mha::model::linear(attention, M, A.data(), K, *held.slot, nullptr, got.data(), N, mha::model::Epilogue::None);
        EXPECT_TRUE(same(got, std::vector<float>(all.begin(), all.begin() + M * N)))
            << kernels->name << ", " << threads << " threads, M " << M;
        EXPECT_LE(close(A.data(), M, 0, K, got, want), 1.0) << kernels->name << ", " << threads << " threads, M " << M;
        // Rows that keep whole blocks and rows that cut them (a head's rows of an output projection).
        for (auto [first, count] : {std::pair<std::size_t, std::size_t>{256, 256}, {32, 64}, {8, 40}, {100, 3}}) {
          mha::model::linear_rows(attention, M, A.data() + first, K, *floats.slot, first, count, want.data(), N);
          mha::model::linear_rows(attention, M, A.data() + first, K, *held.slot, first, count, got.data(), N);
          EXPECT_LE(close(A.data() + first, M, first, count, got, want), 1.0)
              << kernels->name << ", M " << M << ", rows " << first << "+" << count;
        }
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, Held,
                         ::testing::Values(DType::Q8_0, DType::Q5_0, DType::Q4_0, DType::Q4_K, DType::Q5_K,
                                           DType::Q6_K),
                         [](const auto& info) { return std::string(mha::dtype_name(info.param)); });

TEST(Held, ANonFiniteWeightIsRefusedByNameNotQuantized) {
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    Weights w;
    Slot& slot = w.packed(true, 32, 2);
    w.tensor("layer.weight", {2, 32}, slot);
    ASSERT_TRUE(w.hold(0, DType::Q8_0));
    w.allocate();
    std::vector<float> values(64, 0.5f);
    values[40] = bad;
    try {
      w.write(0, DType::F32, 0, 64, reinterpret_cast<const unsigned char*>(values.data()));
      ADD_FAILURE() << "written";
    } catch (const mha::ArgumentError& e) {
      EXPECT_NE(std::string(e.what()).find("layer.weight: element 40"), std::string::npos) << e.what();
    }
  }
}

TEST(Held, OnlyWhereTheBlocksFit) {
  Weights w;
  Slot& linear = w.packed(true, 64, 8);  // nn.Linear's layout, K = 64
  w.tensor("a", {8, 64}, linear);
  Slot& conv = w.packed(false, 64, 8);  // Conv1D's [K, N]: a file row is not a column of B
  w.tensor("b", {64, 8}, conv);
  Slot& fused = w.packed(true, 64, 16);  // two tensors of 8 rows, as a fused query/key/value
  w.tensor("c", {8, 64}, fused, 0);
  w.tensor("d", {8, 64}, fused, 8 * 64);
  Slot& mixed = w.packed(true, 64, 16);
  w.tensor("e", {8, 64}, mixed, 0);
  w.tensor("f", {8, 64}, mixed, 8 * 64);
  EXPECT_FALSE(w.hold(0, DType::Q4_K));  // K = 64: not whole blocks of 256
  EXPECT_FALSE(w.hold(0, DType::Q5_K));  // nor of Q5_K's
  EXPECT_FALSE(w.hold(0, DType::BF16));
  EXPECT_TRUE(w.hold(0, DType::Q8_0));
  EXPECT_FALSE(w.hold(1, DType::Q8_0));
  EXPECT_TRUE(w.hold(2, DType::Q4_0));
  EXPECT_TRUE(w.hold(3, DType::Q4_0));
  EXPECT_TRUE(w.hold(4, DType::Q4_0));
  EXPECT_TRUE(w.hold(5, DType::Q8_0));  // the other half of the matrix in another type
  w.allocate();
  EXPECT_EQ(linear.storage, DType::Q8_0);
  EXPECT_EQ(conv.storage, DType::F32);
  EXPECT_EQ(fused.storage, DType::Q4_0);
  EXPECT_EQ(mixed.storage, DType::F32);
  std::vector<unsigned char> block(34 * 16, 0);
  EXPECT_THROW(w.write(0, DType::Q4_0, 0, 64, block.data()), mha::ArgumentError);  // held in Q8_0, written as Q4_0
  EXPECT_THROW(w.write(0, DType::Q8_0, 0, 16, block.data()), mha::ArgumentError);  // not whole blocks
  EXPECT_THROW(w.hold(0, DType::Q8_0), mha::ArgumentError);                        // after allocate()
}

}  // namespace

// Hostile values and reuse, deterministically (the fuzzer, tests/fuzz, does the
// same at random): run by CTest in build/native and, under AddressSanitizer
// and UndefinedBehaviorSanitizer, in build/asan.
//   - NaN, ±Inf, ±1e30, FLT_MAX and denormals in any one array: no crash, the
//     same bits on 1 and 3 threads, masked weights exactly 0, a row without a
//     usable key with head output exactly 0 on both paths;
//   - one engine reused across growing and shrinking calls (and release())
//     gives the same bits as a fresh engine every time;
//   - calls that break the contract throw ArgumentError and leave it usable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attention.hpp"

namespace {

struct Call {
  mha::Dims d;
  std::vector<float> query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO;
  std::vector<std::uint8_t> mask;
  bool causal = true;

  std::vector<float>* array(int i) {
    std::vector<float>* all[] = {&query, &key, &value, &wQ, &wK, &wV, &wO, &bQ, &bK, &bV, &bO};
    return all[i];
  }
  mha::Inputs inputs() const {
    mha::Inputs in;
    in.query = query.data(), in.key = key.data(), in.value = value.data();
    in.wQ = wQ.data(), in.wK = wK.data(), in.wV = wV.data(), in.wO = wO.data();
    in.bQ = bQ.data(), in.bK = bK.data(), in.bV = bV.data(), in.bO = bO.data();
    in.keyPaddingMask = mask.data();
    in.causal = causal;
    return in;
  }
};
const char* const kArrayNames[] = {"query", "key", "value", "wQ", "wK", "wV", "wO", "bQ", "bK", "bV", "bO"};

Call make_call(mha::Dims d, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  const mha::Sizes s = mha::sizes_of(d);
  Call c;
  c.d = d;
  const std::size_t sizes[] = {s.query, s.key, s.value, s.wQ, s.wK, s.wV, s.wO, s.bQ, s.bK, s.bV, s.bO};
  for (int i = 0; i < 11; ++i) {
    c.array(i)->resize(sizes[i]);
    for (auto& x : *c.array(i)) x = u(rng);
  }
  // Batch item 0 ignores key 0, so its query row 0 (causal: sees key 0 only)
  // has no usable key; item 1 ignores its last key.
  c.mask.assign(s.keyPaddingMask, 0);
  c.mask[0] = 1;
  c.mask[s.keyPaddingMask - 1] = 1;
  return c;
}

struct Result {
  std::vector<float> output, attention, concat;
};

Result run(mha::Attention& engine, const Call& c, bool withAttention) {
  const mha::Sizes s = mha::sizes_of(c.d);
  Result r{std::vector<float>(s.output, -7.0f), std::vector<float>(withAttention ? s.attention : 0, -7.0f),
           std::vector<float>(c.d.batch * c.d.seqLenQ * c.d.numHeads * c.d.dV, -7.0f)};
  mha::Outputs out{r.output.data(), withAttention ? r.attention.data() : nullptr};
  out.concat = r.concat.data();
  engine.forward(c.d, c.inputs(), out);
  return r;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// What must hold whatever the values: masked weights exactly 0 (padded ones
// too when `padded` is set), keyless rows with a head output of exactly 0.
void expect_masks_hold(const Call& c, const Result& r, bool padded, const std::string& what) {
  const mha::Dims& d = c.d;
  for (std::size_t b = 0; b < d.batch; ++b)
    for (std::size_t i = 0; i < d.seqLenQ; ++i) {
      bool any = false;
      for (std::size_t j = 0; j < d.seqLenK; ++j) {
        const bool isPadded = c.mask[b * d.seqLenK + j] != 0, isCausal = c.causal && j > i;
        any = any || !(isPadded || isCausal);
        if (r.attention.empty() || !(isCausal || (padded && isPadded))) continue;
        for (std::size_t h = 0; h < d.numHeads; ++h)
          EXPECT_EQ(r.attention[((b * d.numHeads + h) * d.seqLenQ + i) * d.seqLenK + j], 0.0f)
              << what << ": masked weight b" << b << " h" << h << " i" << i << " j" << j;
      }
      if (!any) {
        for (std::size_t t = 0; t < d.numHeads * d.dV; ++t)
          EXPECT_EQ(r.concat[(b * d.seqLenQ + i) * d.numHeads * d.dV + t], 0.0f)
              << what << ": keyless row b" << b << " i" << i;
      }
    }
}

TEST(Hostile, NonFiniteAndExtremeValuesInAnyArray) {
  const mha::Dims d{2, 7, 9, 8, 2, 4, 3};
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            1e30f,
                            -1e30f,
                            std::numeric_limits<float>::max(),
                            1e-40f};
  mha::Attention one(1), three(3), scalar(1, mha::scalar_kernels());
  for (float v : specials)
    for (int a = 0; a < 11; ++a) {
      Call c = make_call(d, 11);
      auto& target = *c.array(a);
      // Index 0 is in batch item 0's first row: key 0 is the ignored key of the
      // keyless row (for key and value), or that row itself (for query).
      target[0] = target[target.size() / 2] = v;
      const std::string what = std::string(kArrayNames[a]) + " holding " + std::to_string(v);
      const Result r1 = run(one, c, true), r3 = run(three, c, true);
      EXPECT_TRUE(same_bits(r1.output, r3.output) && same_bits(r1.attention, r3.attention))
          << what << ": 1 vs 3 threads";
      const Result f1 = run(one, c, false), f3 = run(three, c, false);
      EXPECT_TRUE(same_bits(f1.output, f3.output)) << what << ": fused, 1 vs 3 threads";
      const bool padded = std::isnan(v) || std::fabs(v) < 1.0f;
      expect_masks_hold(c, r1, padded, what + " (simd)");
      expect_masks_hold(c, f1, padded, what + " (simd, fused)");
      expect_masks_hold(c, run(scalar, c, true), padded, what + " (scalar)");
    }
}

// A row whose largest logit is +Inf: its usable weights are NaN (Inf − Inf),
// its padded ones still exactly 0 (a bug the fuzzer found, now fixed).
TEST(Hostile, PaddedWeightsOfRowsWithInfiniteLogits) {
  Call c = make_call({1, 1, 3, 2, 1, 2, 2}, 3);
  c.causal = false;
  c.mask = {0, 0, 1};
  c.query = {std::numeric_limits<float>::infinity(), 1};
  c.key = {1, 1, 2, 1, 1, 1};
  c.wQ = {1, 1, 1, 1};
  c.wK = {1, 0, 0, 1};
  mha::Attention engine(1);
  const Result r = run(engine, c, true);
  EXPECT_TRUE(std::isnan(r.attention[0]) && std::isnan(r.attention[1]));
  EXPECT_EQ(r.attention[2], 0.0f);
}

TEST(Hostile, OneEngineReusedAcrossSizesGivesAFreshEnginesBits) {
  const mha::Dims sizes[] = {{1, 3, 3, 4, 1, 4, 4},      {2, 70, 300, 32, 4, 8, 8},  {1, 1, 1, 1, 1, 1, 1},
                             {3, 40, 17, 12, 3, 5, 2},   {1, 130, 129, 16, 2, 8, 8}, {2, 5, 9, 7, 1, 3, 9},
                             {1, 33, 33, 64, 4, 16, 16}, {1, 2, 2, 2, 2, 1, 1}};
  mha::Attention reused(3);
  std::uint32_t seed = 40;
  for (int round = 0; round < 2; ++round)
    for (const auto& d : sizes) {
      const Call c = make_call(d, seed++);
      for (bool withAttention : {true, false}) {
        mha::Attention fresh(3);
        const Result a = run(reused, c, withAttention), b = run(fresh, c, withAttention);
        EXPECT_TRUE(same_bits(a.output, b.output) && same_bits(a.attention, b.attention))
            << "round " << round << ", seqLenK " << d.seqLenK << ", weights " << withAttention;
      }
      if (round == 1) reused.release();
    }
}

TEST(Hostile, ContractBreachesThrowAndLeaveTheEngineUsable) {
  const Call c = make_call({2, 6, 5, 8, 2, 4, 4}, 7);
  mha::Attention engine(3);
  const Result before = run(engine, c, true);
  mha::PackedWeights packed;
  packed.assign(c.d, c.inputs());
  std::vector<float> output(before.output.size());
  mha::Dims other = c.d;
  other.dV = 3;
  EXPECT_THROW(engine.forward(other, packed, c.inputs(), {output.data(), nullptr}), mha::ArgumentError);
  mha::Inputs none = c.inputs();
  none.key = nullptr;
  EXPECT_THROW(engine.forward(c.d, packed, none, {output.data(), nullptr}), mha::ArgumentError);
  none = c.inputs();
  none.wO = nullptr;
  EXPECT_THROW(engine.forward(c.d, none, {output.data(), nullptr}), mha::ArgumentError);
  other = c.d;
  other.seqLenQ = std::size_t{1} << 20;
  other.dModel = std::size_t{1} << 12;
  EXPECT_THROW(engine.forward(other, c.inputs(), {output.data(), nullptr}), mha::ArgumentError);
  const Result after = run(engine, c, true);
  EXPECT_TRUE(same_bits(before.output, after.output) && same_bits(before.attention, after.attention));
}

}  // namespace

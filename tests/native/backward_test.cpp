// Native tests of the backward pass (backward.hpp). The chain of evidence:
// the float64 backward of reference.hpp agrees with central finite
// differences of the float64 forward to ~1e-6; the engine's float32
// gradients agree with that float64 backward to ~1e-4; and PyTorch autograd
// (tests/fixtures/grad, made by tests/tools/make_grad_fixtures.py) agrees
// with the engine within each fixture's tolerance.
#include "backward.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "reference.hpp"

namespace {

using json = nlohmann::json;
using namespace mha_test;

constexpr float kUntouched = 12345.0f;  // fills gradients that must not be written

// The engine's gradients; in self-attention `key` and `value` stay kUntouched.
struct Got {
  std::vector<float> query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO;
  std::vector<const std::vector<float>*> all() const {
    return {&query, &key, &value, &wQ, &wK, &wV, &wO, &bQ, &bK, &bV, &bO};
  }
};

float* ptr_or_null(std::vector<float>& v) { return v.empty() ? nullptr : v.data(); }

const char* const kNames[] = {"query", "key", "value", "wQ", "wK", "wV", "wO", "bQ", "bK", "bV", "bO"};

Got gradients(mha::AttentionBackward& engine, const Case& c, bool self, const std::vector<float>& dY) {
  const mha::Sizes s = mha::sizes_of(c.d);
  Got g;
  g.query.resize(s.query);
  g.key.assign(s.key, self ? kUntouched : 0.0f);
  g.value.assign(s.value, self ? kUntouched : 0.0f);
  g.wQ.resize(s.wQ);
  g.wK.resize(s.wK);
  g.wV.resize(s.wV);
  g.wO.resize(s.wO);
  g.bQ.resize(c.bQ.size());
  g.bK.resize(c.bK.size());
  g.bV.resize(c.bV.size());
  g.bO.resize(c.bO.size());
  mha::Gradients out;
  float* const fields[] = {g.query.data(),    g.key.data(),      g.value.data(),   g.wQ.data(),
                           g.wK.data(),       g.wV.data(),       g.wO.data(),      ptr_or_null(g.bQ),
                           ptr_or_null(g.bK), ptr_or_null(g.bV), ptr_or_null(g.bO)};
  float** const slots[] = {&out.query, &out.key, &out.value, &out.wQ, &out.wK, &out.wV,
                           &out.wO,    &out.bQ,  &out.bK,    &out.bV, &out.bO};
  for (std::size_t i = 0; i < 11; ++i) *slots[i] = fields[i];
  engine.backward(c.d, inputs_of(c, self), dY.data(), out);
  return g;
}

Got gradients(const Case& c, bool self, const std::vector<float>& dY, const mha::Kernels& k, std::size_t threads = 1) {
  mha::Attention engine(threads, k);
  mha::AttentionBackward backward(engine);
  return gradients(backward, c, self, dY);
}

std::vector<float> random_grad_output(const mha::Dims& d, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n01(0.0f, 1.0f);
  std::vector<float> dY(mha::sizes_of(d).output);
  for (auto& x : dY) x = n01(rng);
  return dY;
}

double rms(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return v.empty() ? 0.0 : std::sqrt(s / double(v.size()));
}

// rms over columns c of Σ_r |X[r][c]|: the size of the terms a bias gradient
// sums. dbK is exactly 0 in exact arithmetic (every row of dS sums to 0, as
// softmax ignores a shift of its row), so its own rms says nothing about the
// rounding a float32 sum of those terms makes.
double column_sum_scale(const std::vector<double>& X, std::size_t cols) {
  std::vector<double> sums(cols, 0.0);
  for (std::size_t i = 0; i < X.size(); ++i) sums[i % cols] += std::fabs(X[i]);
  return rms(sums);
}

// The scale each gradient's errors are judged against: its rms, and for a
// bias the size of what it sums.
std::vector<double> scales_of(const Grads& g, const std::vector<double>& dY) {
  std::vector<double> s;
  for (const auto* v : g.all()) s.push_back(rms(*v));
  if (!g.bQ.empty()) s[7] = std::max(s[7], column_sum_scale(g.dQ, g.bQ.size()));
  if (!g.bK.empty()) s[8] = std::max(s[8], column_sum_scale(g.dK, g.bK.size()));
  if (!g.bV.empty()) s[9] = std::max(s[9], column_sum_scale(g.dV, g.bV.size()));
  if (!g.bO.empty()) s[10] = std::max(s[10], column_sum_scale(dY, g.bO.size()));
  return s;
}

// Checks |got - want| <= tol·(|want| + scale) element-wise, so that an
// element that nearly cancels is judged against the array's scale rather
// than its own; returns the worst |got - want| / (|want| + scale).
template <typename T>
double expect_near_scaled(const std::vector<T>& got, const std::vector<double>& want, double scale, double tol,
                          const std::string& what) {
  EXPECT_EQ(got.size(), want.size()) << what;
  if (got.size() != want.size()) return INFINITY;
  scale += 1e-30;
  double worst = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double ratio = std::fabs(double(got[i]) - want[i]) / (std::fabs(want[i]) + scale);
    if (!(ratio <= tol) && bad++ < 5) ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << want[i];
    worst = std::max(worst, ratio);
  }
  return worst;
}

// What the engine should give: the float64 gradients, summed over the shared
// input in self-attention.
Grads expected(const Ref& r, bool self, const std::vector<double>& dY) {
  Grads g = backward(r, dY);
  if (self) {
    for (std::size_t i = 0; i < g.query.size(); ++i) g.query[i] += g.key[i] + g.value[i];
    g.key.clear();
    g.value.clear();
  }
  return g;
}

// Central differences of the float64 loss against the float64 backward, on
// every element of small arrays and an even sample of large ones. In
// self-attention the shared input is perturbed in all three places at once.
double check_finite_differences(Ref r, bool self, const std::vector<double>& dY, const Grads& want,
                                const std::string& what) {
  const auto params = r.params();
  const auto grads = want.all();
  const std::vector<double> scales = scales_of(want, dY);
  // Rounding of the loss itself, divided by 2h: where a gradient is exactly
  // 0 (Lk = 1, dbK) the differences are this noise and nothing else.
  const std::vector<double> output = forward(r).output;
  double absLoss = 0;
  for (std::size_t i = 0; i < dY.size(); ++i) absLoss += std::fabs(dY[i] * output[i]);
  const double h = 1e-5, noise = 1e-15 * (1 + absLoss) / h, tol = 1e-6;
  double worst = 0;
  for (std::size_t p = 0; p < params.size(); ++p) {
    std::vector<double>& x = *params[p];
    if (x.empty() || grads[p]->empty()) continue;
    // |fd - an| <= tol·(|an| + scale) + noise, written as one ratio.
    const double scale = scales[p] + noise / tol;
    const std::size_t step = std::max<std::size_t>(1, x.size() / 48);
    for (std::size_t e = 0; e < x.size(); e += step) {
      const auto set = [&](double v) {
        x[e] = v;
        if (self && p == 0) r.key[e] = r.value[e] = v;
      };
      const double x0 = x[e];
      set(x0 + h);
      const double up = loss(r, dY);
      set(x0 - h);
      const double down = loss(r, dY);
      set(x0);
      const double fd = (up - down) / (2 * h), an = (*grads[p])[e];
      const double ratio = std::fabs(fd - an) / (std::fabs(an) + scale);
      EXPECT_LE(ratio, tol) << what << " d/d" << kNames[p] << "[" << e << "]: finite differences " << fd
                            << ", float64 backward " << an;
      worst = std::max(worst, ratio);
    }
  }
  return worst;
}

struct Spec {
  mha::Dims d;
  bool causal, bias, padding, self;
  int fullyMasked;  // 0: as drawn; 1: key 0 of the last batch item masked (with causal, its row 0 has no key); 2: every
                    // key of it
};

Case make_case(const Spec& s, std::uint32_t seed) {
  Case c = random_case(s.d, s.causal, s.bias, s.padding || s.fullyMasked, seed);
  if (s.fullyMasked) {
    std::fill(c.mask.begin(), c.mask.end(), std::uint8_t{0});
    const std::size_t last = (s.d.batch - 1) * s.d.seqLenK;
    for (std::size_t j = 0; j < (s.fullyMasked == 1 ? 1 : s.d.seqLenK); ++j) c.mask[last + j] = 1;
  }
  if (s.self) c.key = c.value = c.query;
  return c;
}

std::vector<Spec> specs() {
  // Every tail: L = 17, dK = 3, 1×1; dK ≠ dV; numHeads·dK ≠ dModel; Lq < Lk and Lq > Lk.
  const struct {
    mha::Dims d;
    bool self;
  } shapes[] = {{{1, 17, 17, 12, 4, 3, 3}, true}, {{2, 5, 9, 7, 3, 5, 2}, false}, {{1, 1, 1, 1, 1, 1, 1}, true},
                {{2, 8, 3, 9, 1, 17, 1}, false},  {{2, 6, 6, 8, 2, 4, 4}, true},  {{1, 13, 31, 20, 2, 11, 9}, false},
                {{2, 9, 9, 10, 3, 4, 6}, true},   {{2, 9, 9, 10, 3, 4, 6}, false}};
  std::vector<Spec> all;
  for (const auto& shape : shapes)
    for (int mask = 0; mask < 4; ++mask)
      for (bool bias : {false, true}) all.push_back({shape.d, bool(mask & 1), bias, bool(mask & 2), shape.self, 0});
  all.push_back({{2, 6, 6, 8, 2, 4, 4}, true, true, false, true, 1});
  all.push_back({{2, 5, 9, 7, 3, 5, 2}, true, false, false, false, 1});
  all.push_back({{2, 9, 9, 10, 3, 4, 6}, false, true, false, true, 2});
  all.push_back({{2, 9, 9, 10, 3, 4, 6}, true, true, true, false, 2});
  return all;
}

TEST(Backward, Float64BackwardMatchesFiniteDifferencesAndEngineMatchesIt) {
  double worstFd = 0, worstEngine = 0;
  std::uint32_t seed = 1000;
  for (const Spec& s : specs()) {
    const Case c = make_case(s, seed);
    const std::vector<float> dY = random_grad_output(s.d, seed + 1);
    const std::vector<double> dY64(dY.begin(), dY.end());
    const Ref r = to_double(c);
    const Grads want = expected(r, s.self, dY64);
    const std::vector<double> scales = scales_of(want, dY64);
    const std::string what = "seed " + std::to_string(seed);
    seed += 2;
    worstFd = std::max(worstFd, check_finite_differences(r, s.self, dY64, want, what));
    for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
      const Got got = gradients(c, s.self, dY, *k);
      const auto gotAll = got.all();
      const auto wantAll = want.all();
      for (std::size_t p = 0; p < 11; ++p) {
        if (s.self && (p == 1 || p == 2)) {
          EXPECT_TRUE(std::all_of(gotAll[p]->begin(), gotAll[p]->end(), [](float x) { return x == kUntouched; }))
              << what << " " << kNames[p] << " written in self-attention";
          continue;
        }
        worstEngine = std::max(worstEngine, expect_near_scaled(*gotAll[p], *wantAll[p], scales[p], 1e-4,
                                                               what + " " + k->name + " grad " + kNames[p]));
      }
    }
  }
  std::cout << "[ worst ] finite differences vs float64 backward: " << worstFd << " (tolerance 1e-6)\n"
            << "[ worst ] float32 engine vs float64 backward: " << worstEngine << " (tolerance 1e-4)\n";
}

TEST(Backward, RowsWithNoUsableKeyPassNoGradient) {
  // Batch item 1 has every key masked: its output is bO whatever the inputs,
  // so its query rows get exactly zero gradient and its keys and values none.
  const Spec s{{2, 5, 5, 6, 2, 3, 3}, false, true, false, false, 2};
  const Case c = make_case(s, 77);
  const std::vector<float> dY = random_grad_output(s.d, 78);
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    const Got g = gradients(c, false, dY, *k);
    for (const auto* v : {&g.query, &g.key, &g.value})
      for (std::size_t i = v->size() / 2; i < v->size(); ++i) EXPECT_EQ((*v)[i], 0.0f) << k->name << " " << i;
  }
}

Case threads_case(const mha::Dims& d, bool causal, std::uint32_t seed) {
  return random_case(d, causal, true, true, seed);
}

TEST(Backward, BitwiseIdenticalForOneToFourThreads) {
  // Big enough that the work is shared (about 4 MFLOP and more).
  const struct {
    mha::Dims d;
    bool self;
  } shapes[] = {
      {{2, 100, 100, 32, 4, 8, 8}, true}, {{3, 70, 90, 24, 3, 8, 5}, false}, {{1, 150, 150, 16, 1, 16, 16}, true}};
  std::uint32_t seed = 500;
  for (const auto& shape : shapes)
    for (bool causal : {false, true}) {
      Case c = threads_case(shape.d, causal, seed);
      if (shape.self) c.key = c.value = c.query;
      const std::vector<float> dY = random_grad_output(shape.d, seed + 1);
      seed += 2;
      for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
        const Got one = gradients(c, shape.self, dY, *k, 1);
        for (std::size_t threads : {2, 3, 4}) {
          const Got many = gradients(c, shape.self, dY, *k, threads);
          for (std::size_t p = 0; p < 11; ++p)
            EXPECT_TRUE(same_bits(*one.all()[p], *many.all()[p]))
                << k->name << " grad " << kNames[p] << ", " << threads << " threads, seed " << seed - 2;
        }
      }
    }
}

TEST(Backward, ReusedEngineGivesTheSameBitsAndForwardStillWorks) {
  const Case c = threads_case({2, 60, 80, 16, 2, 8, 4}, true, 9);
  const std::vector<float> dY = random_grad_output(c.d, 10);
  const Got first = gradients(c, false, dY, mha::default_kernels(), 3);
  mha::Attention engine(3);
  mha::AttentionBackward backward(engine);
  std::vector<float> output(first.query.size()), before(first.query.size());
  const mha::Inputs in = inputs_of(c, false);
  engine.forward(c.d, in, {before.data(), nullptr});
  for (int repeat = 0; repeat < 3; ++repeat) {
    const Got again = gradients(backward, c, false, dY);
    for (std::size_t p = 0; p < 11; ++p) EXPECT_TRUE(same_bits(*first.all()[p], *again.all()[p])) << kNames[p];
    engine.forward(c.d, in, {output.data(), nullptr});
    EXPECT_TRUE(same_bits(output, before));
  }
}

TEST(Backward, GradientsNotAskedForAreSkippedAndTheRestUnchanged) {
  const Case c = random_case({2, 7, 11, 10, 2, 3, 5}, true, true, true, 21);
  const std::vector<float> dY = random_grad_output(c.d, 22);
  const Got all = gradients(c, false, dY, mha::default_kernels());
  std::vector<float> key(all.key.size()), wV(all.wV.size()), bK(all.bK.size());
  mha::Gradients some;
  some.key = key.data();
  some.wV = wV.data();
  some.bK = bK.data();
  mha::multi_head_attention_backward(c.d, inputs_of(c, false), dY.data(), some);
  EXPECT_TRUE(same_bits(key, all.key));
  EXPECT_TRUE(same_bits(wV, all.wV));
  EXPECT_TRUE(same_bits(bK, all.bK));
}

TEST(Backward, ScratchBytesForMatchesWhatACallTakes) {
  const struct {
    mha::Dims d;
    bool self;
    std::size_t threads;
  } calls[] = {
      {{2, 7, 11, 10, 2, 3, 5}, false, 1}, {{1, 17, 17, 12, 4, 3, 3}, true, 2}, {{2, 100, 100, 32, 4, 8, 8}, true, 3}};
  for (const auto& call : calls) {
    Case c = random_case(call.d, false, true, false, 4);
    if (call.self) c.key = c.value = c.query;
    mha::Attention engine(call.threads);
    mha::AttentionBackward backward(engine);
    const double want = backward.scratch_bytes_for(call.d, call.self);
    gradients(backward, c, call.self, random_grad_output(call.d, 5));
    EXPECT_EQ(double(backward.scratch_bytes()), want) << call.d.seqLenQ;
    backward.release();
    EXPECT_EQ(backward.scratch_bytes(), 0u);
  }
}

TEST(Backward, MissingArgumentsAreRejected) {
  const Case c = random_case({1, 3, 4, 4, 1, 4, 4}, false, false, false, 3);
  const std::vector<float> dY(12, 1.0f);
  std::vector<float> gq(12);
  mha::Gradients g;
  g.query = gq.data();
  mha::Inputs in = inputs_of(c, false);
  EXPECT_THROW(mha::multi_head_attention_backward(c.d, in, nullptr, g), mha::ArgumentError);
  in.wO = nullptr;
  EXPECT_THROW(mha::multi_head_attention_backward(c.d, in, dY.data(), g), mha::ArgumentError);
  in = inputs_of(c, true);  // one buffer as key and value, but seqLenK != seqLenQ
  EXPECT_THROW(mha::multi_head_attention_backward(c.d, in, dY.data(), g), mha::ArgumentError);
}

// ---- PyTorch autograd fixtures (tests/fixtures/grad) -----------------------

std::vector<std::string> grad_fixture_names() {
  std::vector<std::string> names;
  const std::filesystem::path dir = std::string(MHA_FIXTURES_DIR) + "/grad";
  if (std::filesystem::is_directory(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class GradFixture : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GradFixture);

TEST_P(GradFixture, MatchesPyTorchAutogradWithBothKernels) {
  std::ifstream f(std::string(MHA_FIXTURES_DIR) + "/grad/" + GetParam() + ".json");
  ASSERT_TRUE(f) << GetParam();
  const json j = json::parse(f);
  const Case c = fixture_case(j);
  const bool self = j["selfAttention"];
  const std::vector<float> dY = floats(j["gradOutput"]);
  const double abs = j["tolerance"]["abs"], rel = j["tolerance"]["rel"];
  const char* const fields[] = {"gradQuery", "gradKey", "gradValue", "gradWQ", "gradWK", "gradWV",
                                "gradWO",    "gradBQ",  "gradBK",    "gradBV", "gradBO"};
  double use = 0;
  for (const mha::Kernels* k : {&mha::scalar_kernels(), &mha::simd_kernels()}) {
    const Got got = gradients(c, self, dY, *k);
    const auto all = got.all();
    for (std::size_t p = 0; p < 11; ++p) {
      if (j[fields[p]].is_null()) {
        EXPECT_TRUE(all[p]->empty() || (self && (p == 1 || p == 2))) << GetParam() << " " << fields[p];
        continue;
      }
      const std::vector<double> want = j[fields[p]].get<std::vector<double>>();
      expect_close(*all[p], want, abs, rel, GetParam() + " " + fields[p] + " (" + k->name + ")");
      for (std::size_t i = 0; i < want.size() && i < all[p]->size(); ++i)
        use = std::max(use, std::fabs((*all[p])[i] - want[i]) / (abs + rel * std::fabs(want[i])));
    }
  }
  std::cout << "[ worst ] " << GetParam() << ": " << 100 * use << "% of the tolerance\n";
}

INSTANTIATE_TEST_SUITE_P(PyTorch, GradFixture, ::testing::ValuesIn(grad_fixture_names()),
                         [](const auto& info) { return info.param; });

}  // namespace

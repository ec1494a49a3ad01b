// libFuzzer target over the tagger trainer (src/train/trainer.hpp), built with
// clang under AddressSanitizer and UndefinedBehaviorSanitizer (CMake option
// MHA_FUZZ; scripts/test.sh runs a bounded smoke run beside attention_fuzz).
//
// The input is decoded into a small config (some of it hostile: sizes out of
// range, a numHeads that does not divide dModel, learning rates, betas and
// epsilons that are NaN, ±Inf, 0, negative, denormal or huge), sentences (some
// lengths, tokens and tags out of range) and a program of calls: setData,
// train steps (some batch sizes and step counts out of range, some calls of too
// much work), evaluate with and without the attention weights, setParameters
// with hostile values, and the size checks of calls far too large to make
// (bytes_for, check_train). Bytes past the end of the input come from a
// generator seeded by it. Each program runs on a trainer on 1 thread and on
// one on 3 threads (the shards then run on the pool), with data of up to 40
// sentences (five shards). Whatever the input: no crash, no hang, no sanitizer
// report, no error but mha::ArgumentError, and
//   - both trainers accept and refuse the same calls, and give the same bits
//     (losses, parameters, probabilities, predictions, attention weights);
//   - after a refusal the trainer still works;
//   - evaluate: slots past a sentence are 0 (prediction −1); a row of finite
//     probabilities is in [0, 1], sums to 1 within 1e-5 and its prediction is
//     its most probable tag; a valid query's finite attention row sums to 1
//     within 1e-5 over the sentence (or is all 0: every logit -inf) and is 0
//     past it;
//   - checked_product refuses exactly the products above kMaxElements or whose
//     bytes pass SIZE_MAX (against 128-bit arithmetic), and a float's message
//     text (Message::real) reads back as the same float.
//
// Run longer:  build/fuzz/mha_trainer_fuzz -max_total_time=3600 -timeout=10 build/fuzz/trainer-corpus
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../../src/train/trainer.hpp"
#include "reader.hpp"

namespace {

// The program being run, printed with any failure (to reproduce it by hand).
std::string g_trace;

[[noreturn]] void fail(const char* what, std::size_t at = 0, double got = 0, double want = 0) {
  std::fprintf(stderr, "trainer_fuzz: %s (index %zu: got %.9g, want %.9g)\n  after: %s\n", what, at, got, want,
               g_trace.c_str());
  std::abort();
}

void trace(const char* what, std::size_t a = 0, std::size_t b = 0) {
  char line[96];
  std::snprintf(line, sizeof line, "%s(%zu, %zu); ", what, a, b);
  if (g_trace.size() < 4000) g_trace += line;
}

using fuzz::Reader;

constexpr float kInf = std::numeric_limits<float>::infinity(), kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kHostile[] = {kNaN, kInf, -kInf, 0.0f, -0.0f, -1e-3f, 1e-45f, 1e-40f, 1e30f, 3.4e38f, 1.0f, 2.0f};

// A hyperparameter: usually a sane one, sometimes anything.
float option(Reader& r, const float* sane, std::size_t count) {
  const std::uint8_t b = r.byte();
  if (b < 200) return sane[b % count];
  if (b < 240) return kHostile[b % (sizeof kHostile / sizeof *kHostile)];
  return r.bits();
}

struct Data {
  std::size_t count = 0;
  std::vector<std::int32_t> tokens, lengths, tags;
  bool tagged = true;
  mha::Sentences sentences() const { return {tokens.data(), lengths.data(), tagged ? tags.data() : nullptr, count}; }
};

// Sentences for `c`; with `hostile`, some lengths, tokens and tags are out of range.
Data data(Reader& r, const mha::TrainerConfig& c, bool hostile) {
  Data d;
  d.count = r.range(1, 40);
  const std::size_t L = c.maxLength;
  d.tokens.assign(d.count * L, 77777);  // slots past a length hold junk: never read
  d.tags.assign(d.count * L, 77777);
  d.tagged = r.byte() % 4 != 0;
  for (std::size_t i = 0; i < d.count; ++i) {
    std::int32_t n = std::int32_t(r.range(1, L));
    if (hostile && r.byte() < 8) n = r.byte() % 2 ? 0 : (r.byte() % 2 ? -3 : std::int32_t(L + 1));
    d.lengths.push_back(n);
    for (std::int32_t t = 0; t < n && std::size_t(t) < L; ++t) {
      d.tokens[i * L + t] = std::int32_t(r.range(0, c.vocabSize - 1));
      d.tags[i * L + t] = r.byte() % 5 == 0 ? -1 : std::int32_t(r.range(0, c.numTags - 1));
      if (hostile && r.byte() < 4) d.tokens[i * L + t] = r.byte() % 2 ? -1 : std::int32_t(c.vocabSize);
      if (hostile && r.byte() < 4) d.tags[i * L + t] = r.byte() % 2 ? -2 : std::int32_t(c.numTags);
    }
  }
  return d;
}

void same_bits(const float* a, const float* b, std::size_t n, const char* what) {
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(a + i, b + i, sizeof(float)) != 0) fail(what, i, a[i], b[i]);
}

// One trainer per engine; a call runs on both, which must agree.
struct Pair {
  mha::Trainer one, three;
};

// Runs `call` on both trainers: both refuse (ArgumentError, the same message)
// or both return. Returns whether they returned.
template <typename Call>
bool both(Pair& p, const Call& call) {
  std::string refused[2];
  mha::Trainer* trainers[2] = {&p.one, &p.three};
  for (int i = 0; i < 2; ++i) try {
      call(*trainers[i], i);
    } catch (const mha::ArgumentError& e) {
      refused[i] = e.what();
      if (refused[i].empty()) fail("an ArgumentError without a message");
    }
  if (refused[0] != refused[1]) {
    std::fprintf(stderr, "1 thread: %s\n3 threads: %s\n", refused[0].c_str(), refused[1].c_str());
    fail("1 and 3 threads refuse differently");
  }
  return refused[0].empty();
}

struct Evaluated {
  std::vector<float> probabilities, attention;
  std::vector<std::int32_t> predictions;
  float loss = 0;
};

void check_evaluation(const mha::TrainerConfig& c, const Data& d, const Evaluated& e, bool withAttention) {
  const std::size_t L = c.maxLength, T = c.numTags, H = c.numHeads;
  for (std::size_t i = 0; i < d.count; ++i) {
    const std::size_t n = std::size_t(d.lengths[i]);
    for (std::size_t t = 0; t < L; ++t) {
      const std::size_t slot = i * L + t;
      const float* p = &e.probabilities[slot * T];
      const std::int32_t predicted = e.predictions[slot];
      if (t >= n) {
        if (predicted != -1) fail("a prediction past a sentence is not -1", slot, predicted, -1);
        for (std::size_t k = 0; k < T; ++k)
          if (p[k] != 0.0f) fail("a probability past a sentence is not 0", slot, p[k], 0);
        continue;
      }
      if (predicted < 0 || std::size_t(predicted) >= T) fail("a prediction out of range", slot, predicted, 0);
      bool finite = true;
      double sum = 0;
      float best = -1;
      for (std::size_t k = 0; k < T; ++k)
        finite = finite && std::isfinite(p[k]), sum += p[k], best = std::max(best, p[k]);
      if (!finite) continue;
      for (std::size_t k = 0; k < T; ++k)
        if (!(p[k] >= 0.0f && p[k] <= 1.0f)) fail("a probability outside [0, 1]", slot, p[k], 0);
      if (!(std::fabs(sum - 1.0) <= 1e-5)) fail("probabilities that do not sum to 1", slot, sum, 1);
      if (p[predicted] != best) fail("a prediction that is not the most probable tag", slot, p[predicted], best);
    }
    if (!withAttention) continue;
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t q = 0; q < L; ++q) {
        const float* row = &e.attention[((i * H + h) * L + q) * L];
        double sum = 0;
        bool finite = true;
        for (std::size_t k = 0; k < L; ++k) {
          if ((q >= n || k >= n) && row[k] != 0.0f) fail("an attention weight past a sentence is not 0", k, row[k], 0);
          finite = finite && std::isfinite(row[k]);
          sum += row[k];
        }
        // (All 0 when every logit overflowed to -inf: the core treats -inf as masked.)
        if (q < n && finite && sum != 0 && !(std::fabs(sum - 1.0) <= 1e-5))
          fail("an attention row that does not sum to 1", q, sum, 1);
      }
  }
}

// checked_product against 128-bit arithmetic, and a float's text read back.
void check_helpers(Reader& r) {
  std::size_t f[4];
  const std::size_t n = r.range(1, 4);
  unsigned __int128 product = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t kind = r.byte() % 4;
    f[i] = kind == 0 ? r.range(0, 3) : kind == 1 ? std::size_t(r.u64() >> (r.byte() % 64)) : r.range(0, 1 << 20);
    product *= f[i];
  }
  bool zero = false;
  for (std::size_t i = 0; i < n; ++i) zero = zero || f[i] == 0;
  const std::size_t bytes = r.range(1, 8);
  const bool fits = zero || (product <= mha::kMaxElements && product * bytes <= SIZE_MAX);
  const auto product_of = [&](const char* what) {  // (each list lives until its call returns)
    return n == 1   ? mha::checked_product({f[0]}, what, bytes)
           : n == 2 ? mha::checked_product({f[0], f[1]}, what, bytes)
           : n == 3 ? mha::checked_product({f[0], f[1], f[2]}, what, bytes)
                    : mha::checked_product({f[0], f[1], f[2], f[3]}, what, bytes);
  };
  try {
    const std::size_t got = product_of("fuzz: a×b");
    if (!fits) fail("checked_product let a product too large through", 0, double(product));
    if (got != std::size_t(zero ? 0 : product)) fail("checked_product computed another product", 0, double(got));
  } catch (const mha::ArgumentError& e) {
    if (fits) fail("checked_product refused a product that fits", 0, double(product));
    if (std::strncmp(e.what(), "fuzz: a×b = ", std::strlen("fuzz: a×b = ")) != 0) fail("checked_product's message");
  }
  const float x = r.bits();
  mha::Message text;
  text.real(x);
  const float back = std::strtof(text.text(), nullptr);
  if (std::isnan(x) ? std::strcmp(text.text(), "NaN") != 0 : !(back == x))
    fail("Message::real does not read back as the same float", 0, back, x);
}

// The engines live across inputs, as in the wasm module.
struct Engines {
  mha::Attention one{1};
  mha::Attention three{3};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  static Engines engines;
  Reader r(bytes, size);
  g_trace.clear();
  check_helpers(r);

  // The config: small sizes, sometimes out of range; usually sane hyperparameters.
  mha::TrainerConfig c;
  const bool hostile = r.byte() < 64;
  c.vocabSize = r.range(1, 12);
  c.numTags = r.range(1, 6);
  c.maxLength = r.range(1, 12);
  c.dModel = r.range(1, 12);
  c.numHeads = r.range(1, 4);
  if (!hostile || r.byte() % 2) c.numHeads = c.dModel % c.numHeads == 0 ? c.numHeads : 1;
  c.mlpHidden = r.byte() % 3 == 0 ? 0 : r.range(1, 8);
  if (hostile && r.byte() < 16) c.vocabSize = r.byte() % 2 ? 0 : mha::TrainerLimits::vocabSize + 1;
  if (hostile && r.byte() < 16) c.maxLength = r.byte() % 2 ? 0 : mha::TrainerLimits::maxLength + 1;
  static const float rates[] = {1e-3f, 1e-2f, 0.1f, 1.0f, 1e6f}, beta1s[] = {0.9f, 0.0f, 0.5f},
                     beta2s[] = {0.999f, 0.0f, 0.9f}, epsilons[] = {1e-8f, 1e-3f, 1.0f};
  c.learningRate = option(r, rates, 5);
  c.beta1 = option(r, beta1s, 3);
  c.beta2 = option(r, beta2s, 3);
  c.epsilon = option(r, epsilons, 3);
  c.seed = std::uint32_t(r.u64());
  char line[200];
  std::snprintf(line, sizeof line, "config vocab %zu tags %zu L %zu D %zu H %zu F %zu lr %g b1 %g b2 %g eps %g; ",
                c.vocabSize, c.numTags, c.maxLength, c.dModel, c.numHeads, c.mlpHidden, c.learningRate, c.beta1,
                c.beta2, c.epsilon);
  g_trace = line;

  std::unique_ptr<Pair> p;
  std::string refusedOne, refusedThree;
  try {
    mha::Trainer::bytes_to_create(c, 1);
  } catch (const mha::ArgumentError& e) {
    refusedOne = e.what();
  }
  try {
    p.reset(new Pair{mha::Trainer(c, engines.one), mha::Trainer(c, engines.three)});
  } catch (const mha::ArgumentError& e) {
    refusedThree = e.what();
  }
  if (refusedOne != refusedThree) fail("bytes_to_create and the constructor refuse differently");
  if (!p) return 0;
  same_bits(p->one.parameters().data(), p->three.parameters().data(), p->one.parameters().size(),
            "initial parameters, 1 vs 3 threads");

  Data d;
  bool haveData = false;
  for (int op = 0; op < 10 && !(op > 2 && r.done()); ++op) {
    switch (r.byte() % 6) {
      case 0: {  // setData
        Data next = data(r, c, hostile || r.byte() < 32);
        trace("setData", next.count);
        if (both(*p, [&](mha::Trainer& t, int) { t.set_data(next.sentences()); })) {
          if (!next.tagged) fail("setData took sentences without tags");
          d = next;
          haveData = true;
        }
        break;
      }
      case 1:
      case 2: {  // train: a few steps
        std::size_t steps = r.range(1, 4), batch = r.range(1, 40);
        if (r.byte() < 16) batch = r.byte() % 2 ? 0 : mha::TrainerLimits::batchSize + 1;
        trace("train", steps, batch);
        std::vector<float> losses[2];
        const bool ran = both(*p, [&](mha::Trainer& t, int i) {
          t.check_train(steps, batch);
          t.bytes_for(mha::Trainer::Call::train, batch);
          for (std::size_t s = 0; s < steps; ++s) losses[i].push_back(t.step(batch));
        });
        if (losses[0].size() != losses[1].size()) fail("1 and 3 threads ran different steps");
        same_bits(losses[0].data(), losses[1].data(), losses[0].size(), "losses, 1 vs 3 threads");
        if (ran && !haveData) fail("train ran without data");
        if (p->one.steps() != p->three.steps()) fail("step counts differ", 0, double(p->one.steps()));
        same_bits(p->one.parameters().data(), p->three.parameters().data(), p->one.parameters().size(),
                  "parameters after training, 1 vs 3 threads");
        break;
      }
      case 3: {  // evaluate, the training set or other sentences
        const bool withAttention = r.byte() % 2;
        const Data other = !haveData || r.byte() % 2 ? data(r, c, hostile) : d;
        trace(withAttention ? "evaluate+attention" : "evaluate", other.count);
        Evaluated e[2];
        const std::size_t slots = other.count * c.maxLength;
        const bool ran = both(*p, [&](mha::Trainer& t, int i) {
          e[i].probabilities.assign(slots * c.numTags, 123.0f);  // evaluate writes every element
          e[i].predictions.assign(slots, 12345);
          e[i].attention.assign(withAttention ? slots * c.numHeads * c.maxLength : 0, 123.0f);
          t.bytes_for(mha::Trainer::Call::evaluate, other.count, withAttention);
          e[i].loss = t.evaluate(other.sentences(), {e[i].probabilities.data(), e[i].predictions.data(),
                                                     withAttention ? e[i].attention.data() : nullptr});
        });
        if (!ran) break;
        same_bits(&e[0].loss, &e[1].loss, 1, "evaluate's loss, 1 vs 3 threads");
        same_bits(e[0].probabilities.data(), e[1].probabilities.data(), slots * c.numTags, "probabilities");
        same_bits(e[0].attention.data(), e[1].attention.data(), e[0].attention.size(), "attention weights");
        if (e[0].predictions != e[1].predictions) fail("predictions, 1 vs 3 threads");
        check_evaluation(c, other, e[0], withAttention);
        break;
      }
      case 4: {  // setParameters: one tensor, maybe with NaN, ±Inf, huge or denormal values
        const auto& tensors = p->one.tensors();
        const mha::Tensor& t = tensors[r.range(0, tensors.size() - 1)];
        std::vector<float> values(t.rows * t.cols);
        const bool wild = r.byte() < 48;
        for (float& v : values) v = wild && r.byte() < 64 ? kHostile[r.byte() % 12] : (int(r.byte()) - 128) / 64.0f;
        std::size_t count = values.size();
        if (r.byte() < 16) count = count ? count - 1 : 1;
        trace("setParameter", count);
        if (both(*p, [&](mha::Trainer& tr, int) { tr.set_parameter(t.name, values.data(), count); }) &&
            (p->one.steps() != 0 || p->three.steps() != 0))
          fail("setParameter did not restart Adam");
        break;
      }
      case 5: {  // the size checks of calls far too large to make: refused, nothing allocated
        const std::size_t huge = std::size_t(r.u64() >> (r.byte() % 64));
        const std::size_t steps = std::size_t(r.u64() >> (r.byte() % 64));
        trace("sizes", huge, steps);
        both(*p, [&](mha::Trainer& t, int) { t.check_train(steps, huge); });
        both(*p, [&](mha::Trainer& t, int) { t.bytes_for(mha::Trainer::Call::train, huge); });
        both(*p, [&](mha::Trainer& t, int) { t.bytes_for(mha::Trainer::Call::setData, huge); });
        both(*p, [&](mha::Trainer& t, int) { t.bytes_for(mha::Trainer::Call::evaluate, huge, true); });
        break;
      }
    }
  }
  return 0;
}

// The tagger trainer (src/train/trainer.hpp) against a float64 reference of
// the same model written here from its definition, one sentence at a time
// (no padding, no shards), with gradients taken by central finite
// differences of that reference: nothing is shared with the code under test
// but the parameter names.
#include "../../src/train/trainer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "reference.hpp"

namespace {

using mha::Trainer;
using mha::TrainerConfig;

struct Data {
  std::size_t count = 0;
  std::vector<std::int32_t> tokens, lengths, tags;
  mha::Sentences sentences() const { return {tokens.data(), lengths.data(), tags.data(), count}; }
};

// Random sentences; slots past a length hold junk (they must never be read).
Data random_data(const TrainerConfig& c, std::size_t count, std::uint32_t seed, bool untagged = true) {
  std::mt19937 rng(seed);
  Data d;
  d.count = count;
  d.tokens.assign(count * c.maxLength, 9999);
  d.tags.assign(count * c.maxLength, 9999);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t n = 1 + rng() % c.maxLength;
    d.lengths.push_back(std::int32_t(n));
    for (std::size_t t = 0; t < n; ++t) {
      d.tokens[i * c.maxLength + t] = std::int32_t(rng() % c.vocabSize);
      d.tags[i * c.maxLength + t] = untagged && rng() % 4 == 0 ? -1 : std::int32_t(rng() % c.numTags);
    }
  }
  return d;
}

// The model in float64, straight from trainer.hpp's definition.
struct Reference {
  TrainerConfig c;
  std::vector<mha::Tensor> tensors;

  std::vector<double> tensor(const std::vector<double>& p, const std::string& name) const {
    for (const auto& t : tensors)
      if (name == t.name) return {p.begin() + t.offset, p.begin() + t.offset + t.rows * t.cols};
    return {};
  }

  // Sum over tagged tokens of −log p(tag), and the count of tagged tokens.
  double loss_sum(const std::vector<double>& p, const Data& d, double& tagged,
                  std::vector<std::vector<double>>* attention = nullptr) const {
    const std::size_t D = c.dModel, T = c.numTags, F = c.mlpHidden, H = c.numHeads;
    const auto E = tensor(p, "embedding");
    double total = 0;
    tagged = 0;
    for (std::size_t s = 0; s < d.count; ++s) {
      const std::size_t L = std::size_t(d.lengths[s]);
      mha_test::Ref r;
      r.d = {1, L, L, D, H, D / H, D / H};
      r.query.assign(L * D, 0);
      for (std::size_t t = 0; t < L; ++t)
        for (std::size_t i = 0; i < D; ++i) {
          const double angle = double(t) / std::pow(10000.0, double(2 * (i / 2)) / double(D));
          r.query[t * D + i] =
              E[std::size_t(d.tokens[s * c.maxLength + t]) * D + i] + (i % 2 ? std::cos(angle) : std::sin(angle));
        }
      r.key = r.value = r.query;
      r.wQ = tensor(p, "wQ"), r.wK = tensor(p, "wK"), r.wV = tensor(p, "wV"), r.wO = tensor(p, "wO");
      r.bQ = tensor(p, "bQ"), r.bK = tensor(p, "bK"), r.bV = tensor(p, "bV"), r.bO = tensor(p, "bO");
      const mha_test::Forward f = mha_test::forward(r);
      if (attention) attention->push_back(f.P);
      std::vector<double> h(L * D);
      for (std::size_t i = 0; i < L * D; ++i) h[i] = r.query[i] + f.output[i];
      if (F) {
        auto z = mha_test::affine(h, L, D, tensor(p, "w1"), tensor(p, "b1"), F);
        for (auto& x : z) x = std::max(x, 0.0);
        const auto m = mha_test::affine(z, L, F, tensor(p, "w2"), tensor(p, "b2"), D);
        for (std::size_t i = 0; i < L * D; ++i) h[i] += m[i];
      }
      const auto logits = mha_test::affine(h, L, D, tensor(p, "wC"), tensor(p, "bC"), T);
      for (std::size_t t = 0; t < L; ++t) {
        const int tag = d.tags[s * c.maxLength + t];
        if (tag < 0) continue;
        double sum = 0;
        for (std::size_t k = 0; k < T; ++k) sum += std::exp(logits[t * T + k]);
        total += std::log(sum) - logits[t * T + std::size_t(tag)];
        ++tagged;
      }
    }
    return total;
  }
  double loss(const std::vector<double>& p, const Data& d) const {
    double tagged;
    const double sum = loss_sum(p, d, tagged);
    return sum / tagged;
  }
};

TrainerConfig small_config(std::size_t heads, std::size_t mlp) {
  TrainerConfig c;
  c.vocabSize = 5;
  c.numTags = 3;
  c.maxLength = 7;
  c.dModel = 8;
  c.numHeads = heads;
  c.mlpHidden = mlp;
  c.seed = 11;
  return c;
}

class TrainerGradient : public ::testing::TestWithParam<std::tuple<std::size_t, std::size_t>> {};

// 19 sentences: three shards, the last one short.
TEST_P(TrainerGradient, MatchesFiniteDifferencesOfTheFloat64Reference) {
  const auto [heads, mlp] = GetParam();
  const TrainerConfig c = small_config(heads, mlp);
  mha::Attention engine(2);
  Trainer trainer(c, engine);
  const Data data = random_data(c, 19, 5);
  const float loss = trainer.loss_and_gradients(data.sentences());

  const Reference ref{c, trainer.tensors()};
  std::vector<double> p(trainer.parameters().begin(), trainer.parameters().end());
  EXPECT_NEAR(loss, ref.loss(p, data), 1e-5);
  double worst = 0;
  for (const auto& t : trainer.tensors())
    for (std::size_t i = t.offset; i < t.offset + t.rows * t.cols; ++i) {
      const double keep = p[i], h = 1e-6;
      p[i] = keep + h;
      const double up = ref.loss(p, data);
      p[i] = keep - h;
      const double down = ref.loss(p, data);
      p[i] = keep;
      const double want = (up - down) / (2 * h), got = trainer.gradients()[i];
      worst = std::max(worst, std::abs(got - want));
      ASSERT_NEAR(got, want, 2e-5 + 1e-3 * std::abs(want)) << t.name << "[" << i - t.offset << "]";
    }
  RecordProperty("worst_abs_error", std::to_string(worst));
}

INSTANTIATE_TEST_SUITE_P(HeadsAndMlp, TrainerGradient,
                         ::testing::Values(std::make_tuple(1, 0), std::make_tuple(2, 0), std::make_tuple(4, 0),
                                           std::make_tuple(2, 12), std::make_tuple(1, 5)));

TEST(Trainer, EvaluateMatchesTheReferenceProbabilitiesAndAttention) {
  const TrainerConfig c = small_config(2, 6);
  mha::Attention engine(3);
  Trainer trainer(c, engine);
  const Data data = random_data(c, 11, 8);
  std::vector<float> probabilities(data.count * c.maxLength * c.numTags, -1.0f);
  std::vector<float> attention(data.count * c.numHeads * c.maxLength * c.maxLength, -1.0f);
  std::vector<std::int32_t> predictions(data.count * c.maxLength, 99);
  const float loss = trainer.evaluate(data.sentences(), {probabilities.data(), predictions.data(), attention.data()});

  const Reference ref{c, trainer.tensors()};
  const std::vector<double> p(trainer.parameters().begin(), trainer.parameters().end());
  std::vector<std::vector<double>> weights;
  double tagged;
  EXPECT_NEAR(loss, ref.loss_sum(p, data, tagged, &weights) / tagged, 1e-5);
  const std::size_t L = c.maxLength, H = c.numHeads;
  for (std::size_t s = 0; s < data.count; ++s) {
    const std::size_t n = std::size_t(data.lengths[s]);
    for (std::size_t t = 0; t < L; ++t) {
      const float* prob = probabilities.data() + (s * L + t) * c.numTags;
      if (t >= n) {
        EXPECT_EQ(predictions[s * L + t], -1);
        for (std::size_t k = 0; k < c.numTags; ++k) EXPECT_EQ(prob[k], 0.0f);
        continue;
      }
      double sum = 0;
      for (std::size_t k = 0; k < c.numTags; ++k) sum += prob[k];
      EXPECT_NEAR(sum, 1.0, 1e-5);
      EXPECT_EQ(predictions[s * L + t], std::max_element(prob, prob + c.numTags) - prob);
    }
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t q = 0; q < L; ++q)
        for (std::size_t k = 0; k < L; ++k) {
          const float got = attention[((s * H + h) * L + q) * L + k];
          const double want = q < n && k < n ? weights[s][(h * n + q) * n + k] : 0.0;
          ASSERT_NEAR(got, want, 1e-5) << "sentence " << s << " head " << h << " query " << q << " key " << k;
        }
  }
}

// Adam's first step: the bias-corrected moments are m̂ = g and v̂ = g², so a
// parameter moves by −lr·g/(|g| + ε), that is by lr against the sign of g.
TEST(Trainer, FirstAdamStepMovesEachParameterByTheLearningRate) {
  TrainerConfig c = small_config(2, 0);
  c.learningRate = 0.01f;
  mha::Attention engine(1);
  Trainer trainer(c, engine);
  const Data data = random_data(c, 16, 3);
  trainer.set_data(data.sentences());
  Trainer probe(c, engine);  // same seed, same batch (the whole set, shuffled: the mean does not care)
  probe.loss_and_gradients(data.sentences());
  const std::vector<float> before = trainer.parameters();
  trainer.step(16);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const float g = probe.gradients()[i];
    if (std::abs(g) < 1e-4f) continue;
    ASSERT_NEAR(trainer.parameters()[i] - before[i], g > 0 ? -0.01 : 0.01, 1e-5) << i;
    ++moved;
  }
  EXPECT_GT(moved, before.size() / 2);
}

TEST(Trainer, BitwiseIdenticalForAnyThreadCount) {
  const TrainerConfig c = small_config(2, 8);
  const Data data = random_data(c, 40, 21);
  std::vector<std::vector<float>> results;
  std::vector<std::vector<float>> losses;
  for (std::size_t threads : {1, 2, 3, 4}) {
    mha::Attention engine(threads);
    Trainer trainer(c, engine);
    trainer.set_data(data.sentences());
    losses.emplace_back();
    for (int i = 0; i < 25; ++i) losses.back().push_back(trainer.step(12));
    results.push_back(trainer.parameters());
  }
  for (std::size_t i = 1; i < results.size(); ++i) {
    EXPECT_TRUE(mha_test::same_bits(results[0], results[i])) << "threads #" << i;
    EXPECT_TRUE(mha_test::same_bits(losses[0], losses[i])) << "threads #" << i;
  }
}

// A task a tagger must learn: the tag of a token is the id of its left
// neighbour (mod numTags); only attention can see the neighbour.
TEST(Trainer, LearnsALeftNeighbourTask) {
  TrainerConfig c;
  c.vocabSize = 6;
  c.numTags = 3;
  c.maxLength = 8;
  c.dModel = 16;
  c.numHeads = 2;
  c.seed = 4;
  Data data = random_data(c, 200, 9, false);
  for (std::size_t s = 0; s < data.count; ++s)
    for (std::size_t t = 0; t < std::size_t(data.lengths[s]); ++t)
      data.tags[s * c.maxLength + t] = t == 0 ? 0 : data.tokens[s * c.maxLength + t - 1] % 3;
  mha::Attention engine(2);
  Trainer trainer(c, engine);
  trainer.set_data(data.sentences());
  const float first = trainer.step(32);
  float last = first;
  for (int i = 0; i < 600; ++i) last = trainer.step(32);
  EXPECT_GT(first, 0.8f);
  EXPECT_LT(last, 0.1f);
  EXPECT_EQ(trainer.steps(), 601u);
}

// A learning rate that blows the weights up: the step whose loss is not
// finite is refused, and the trainer goes back to the last state whose loss
// was finite (the parameters before the previous step).
TEST(Trainer, RefusesAStepThatDivergesAndGoesBackToTheLastFiniteLoss) {
  TrainerConfig c = small_config(2, 8);
  c.learningRate = 1e6f;
  mha::Attention engine(2);
  Trainer trainer(c, engine);
  const Data data = random_data(c, 4, 2);
  trainer.set_data(data.sentences());
  std::vector<std::vector<float>> history;  // parameters before each step
  std::string message;
  try {
    for (int i = 0; i < 1000; ++i) {
      history.push_back(trainer.parameters());
      trainer.step(4);  // the whole set: every step's loss is the loss of the same sentences
    }
  } catch (const mha::ArgumentError& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty()) << "1000 steps at learning rate 1e6 stayed finite";
  const std::size_t failed = history.size();  // the step that diverged, counting from 1
  ASSERT_GE(failed, 2u);
  EXPECT_NE(message.find("learningRate: training diverged at step " + std::to_string(failed)), std::string::npos)
      << message;
  EXPECT_EQ(trainer.steps(), failed - 2);
  EXPECT_TRUE(mha_test::same_bits(history[failed - 2], trainer.parameters()));
  const float loss = trainer.evaluate(data.sentences(), {});
  EXPECT_TRUE(std::isfinite(loss)) << loss;
}

TEST(Trainer, RejectsBadConfigsAndDataNamingTheArgument) {
  mha::Attention engine(1);
  const auto message = [&](TrainerConfig c) {
    try {
      Trainer t(c, engine);
    } catch (const mha::ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  TrainerConfig c = small_config(3, 0);
  EXPECT_NE(message(c).find("numHeads: expected a divisor of dModel 8, got 3"), std::string::npos);
  c = small_config(1, 0);
  c.vocabSize = 0;
  EXPECT_NE(message(c).find("vocabSize"), std::string::npos);
  c = small_config(1, 0);
  c.learningRate = NAN;
  EXPECT_NE(message(c).find("learningRate"), std::string::npos);

  Trainer trainer(small_config(1, 0), engine);
  EXPECT_THROW(trainer.step(4), mha::ArgumentError);  // no data yet
  Data data = random_data(trainer.config(), 3, 1);
  data.tokens[1 * 7 + 0] = 5;  // vocabSize is 5
  try {
    trainer.set_data(data.sentences());
    FAIL() << "no error";
  } catch (const mha::ArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("tokens[7]"), std::string::npos) << e.what();
  }
  data = random_data(trainer.config(), 3, 1);
  data.lengths[2] = 8;
  EXPECT_THROW(trainer.set_data(data.sentences()), mha::ArgumentError);
  data.lengths[2] = 0;
  EXPECT_THROW(trainer.set_data(data.sentences()), mha::ArgumentError);
  data = random_data(trainer.config(), 3, 1);
  data.tags[0] = 3;
  EXPECT_THROW(trainer.set_data(data.sentences()), mha::ArgumentError);
  // Still usable after the refusals.
  data = random_data(trainer.config(), 3, 1);
  trainer.set_data(data.sentences());
  EXPECT_TRUE(std::isfinite(trainer.step(2)));
}

// The sizes of calls past 32 bits, the work of one train() call and the float
// options: refused before anything is allocated, with messages that name the
// arguments and say what they got; the trainer works on.
TEST(Trainer, RefusesSizesPastTheLimitsAndWorkPastSlotsPerTrainNamingThem) {
  mha::Attention engine(2);
  const auto message = [](const auto& call) {
    try {
      call();
    } catch (const mha::ArgumentError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  TrainerConfig c = small_config(1, 0);
  c.learningRate = INFINITY;
  EXPECT_EQ(message([&] { Trainer t(c, engine); }), "learningRate: expected a finite number > 0, got Infinity");
  c = small_config(1, 0);
  c.epsilon = -1e-8f;
  EXPECT_EQ(message([&] { Trainer t(c, engine); }), "epsilon: expected a finite number > 0, got -1e-8");
  c = small_config(1, 0);
  c.beta2 = 1.5f;
  EXPECT_EQ(message([&] { Trainer t(c, engine); }), "beta2: expected a finite number ≥ 0 and < 1, got 1.5");

  Trainer trainer(small_config(2, 4), engine);  // maxLength 7
  const std::size_t most = mha::TrainerLimits::slotsPerTrain;
  EXPECT_EQ(message([&] { trainer.check_train(most / 7 / 64, 64); }), "no error");
  EXPECT_EQ(message([&] { trainer.check_train(most / 7 / 64 + 1, 64); }),
            "train: steps×batchSize×maxLength = " + std::to_string(most / 7 / 64 + 1) + "×64×7 = " +
                std::to_string((most / 7 / 64 + 1) * 64 * 7) + " token slots, more than " + std::to_string(most) +
                " per call; split it into calls of at most " + std::to_string(most / 7 / 64) + " steps");
  EXPECT_EQ(message([&] { trainer.check_train(1, 0); }), "batchSize: expected an integer from 1 to 65536, got 0");
  // The shards' gradients of a batch: ⌈batchSize/8⌉ × parameters floats.
  const std::size_t P = trainer.parameters().size();
  EXPECT_EQ(message([&] { trainer.bytes_for(Trainer::Call::train, 65536); }), "no error");
  EXPECT_GT(trainer.bytes_for(Trainer::Call::train, 65536), 8192.0 * P * 4);
  EXPECT_EQ(message([&] { trainer.bytes_for(Trainer::Call::setData, std::size_t{1} << 40); }),
            "tokens: sentences×maxLength = 1099511627776×7 = 7696581394432 elements (30786325577728 bytes), more "
            "than 2147483647");
  // Sizes whose 64-bit product wraps are said to be past 2^64.
  EXPECT_EQ(message([] {
              mha::checked_product({std::size_t{1} << 40, std::size_t{1} << 40}, "x: a×b");
            }),
            "x: a×b = 1099511627776×1099511627776 elements, more than 2^64 bytes");
  EXPECT_EQ(mha::checked_product({std::size_t{1} << 40, std::size_t{1} << 40, 0}, "x: a×b×c"), 0u);
  EXPECT_EQ(mha::checked_product({46341, 46340}, "x"), 46341u * 46340u);  // 2147441940 <= 2^31 - 1
  EXPECT_NE(message([] { mha::checked_product({46341, 46341}, "x"); }), "no error");

  Data data = random_data(trainer.config(), 9, 3);
  trainer.set_data(data.sentences());
  EXPECT_TRUE(std::isfinite(trainer.step(9)));
}

}  // namespace

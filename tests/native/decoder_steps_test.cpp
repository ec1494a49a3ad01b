// A decoder's steps and beams (src/model/model.hpp: prefill, step, reorder, step_beams; an encoder-decoder's
// decode of several beams with their own head masks): each bit for bit the rows of its own whole sequence, on 1
// and 3 threads; an encoder has no steps.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../../src/model/model.hpp"
#include "model_fixtures.hpp"

namespace {

using namespace model_fixtures;  // Attention, DType, Config, Model, Outputs, json and the readers

// An encoder-decoder's decode of `beams` copies of one decoder input, each beam with its own decoder and
// cross-attention head masks (Model::decode's headMaskStride; the self mask of beam 0 all ones, beam 2's cross
// mask all ones), on 1 and 3 threads: each beam's logits, hidden states, self- and cross-attention are bit for bit
// a decode of beams 1 with that beam's masks (the analyses' batched ablations).
TEST(Model, ADecodesBeamsWithTheirOwnHeadMasksAreEachBeamsOwnDecode) {
  const std::string folder = kModels + "hf-marian/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  const json c0 = read_json(folder + "reference.json")["forward"][0];
  const std::vector<std::int32_t> ids = c0["inputIds"], one = c0["decoderInputIds"];
  const Config& c = model.config();
  const std::size_t S = ids.size(), L = one.size(), D = c.hiddenSize, Ld = c.decoderLayers, H = c.decoderHeads;
  const std::size_t V = c.vocabSize, M = Ld * H, beams = 3;
  std::vector<std::uint8_t> self(beams * M, 1), cross(beams * M, 1);
  for (std::size_t b = 1; b < beams; ++b) self[b * M + (b % Ld) * H + b % H] = 0;
  for (std::size_t b = 0; b + 1 < beams; ++b) cross[b * M + ((b + 1) % Ld) * H + (3 * b + 1) % H] = 0;
  std::vector<float> encoded(S * D);
  struct Rows {
    std::vector<float> last, attention, cross, hidden, logits;
  };
  const auto decode = [&](Attention& attention, std::size_t B, const std::int32_t* decoderIds,
                          const std::uint8_t* selfMask, const std::uint8_t* crossMask, std::size_t stride) {
    model.encode(attention, ids.data(), S, Outputs{encoded.data()}, nullptr);
    model.begin(B, L);
    Rows r{std::vector<float>(B * L * D), std::vector<float>(Ld * B * H * L * L),
           std::vector<float>(Ld * H * B * L * S), std::vector<float>((Ld + 1) * B * L * D),
           std::vector<float>(B * L * V)};
    Outputs o{r.last.data(), r.attention.data(), r.hidden.data(), r.logits.data()};
    o.crossAttention = r.cross.data();
    model.decode(attention, decoderIds, B, L, o, selfMask, crossMask, stride);
    return r;
  };
  std::vector<std::int32_t> copies;
  for (std::size_t b = 0; b < beams; ++b) copies.insert(copies.end(), one.begin(), one.end());
  for (const std::size_t threads : {1u, 3u}) {
    Attention attention(threads), single(1);
    const Rows all = decode(attention, beams, copies.data(), self.data(), cross.data(), M);
    for (std::size_t b = 0; b < beams; ++b) {
      const Rows r = decode(single, 1, one.data(), self.data() + b * M, cross.data() + b * M, 0);
      const std::string name = "beam " + std::to_string(b) + ", threads " + std::to_string(threads);
      EXPECT_EQ(std::memcmp(all.logits.data() + b * L * V, r.logits.data(), L * V * 4), 0) << name;
      EXPECT_EQ(std::memcmp(all.last.data() + b * L * D, r.last.data(), L * D * 4), 0) << name;
      for (std::size_t l = 0; l < Ld; ++l) {
        EXPECT_EQ(std::memcmp(all.attention.data() + (l * beams + b) * H * L * L, r.attention.data() + l * H * L * L,
                              H * L * L * 4),
                  0)
            << name << " self-attention " << l;
        for (std::size_t h = 0; h < H; ++h)
          EXPECT_EQ(std::memcmp(all.cross.data() + ((l * H + h) * beams + b) * L * S,
                                r.cross.data() + (l * H + h) * L * S, L * S * 4),
                    0)
              << name << " cross-attention " << l << " head " << h;
      }
    }
    // The masks matter: beam 1 (a self head and a cross head off) differs from beam 0's rows.
    EXPECT_NE(std::memcmp(all.logits.data(), all.logits.data() + L * V, L * V * 4), 0);
  }
}

TEST(Model, ADecodersStepsAreTheRowsOfTheWholeSequenceBitForBit) {
  Model m = random_model("gpt2", 5);
  const std::size_t D = 64, H = 4, layers = 2, n = 140;  // past a key tile (128) and several query blocks
  std::vector<std::int32_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) ids[i] = std::int32_t((i * 13 + 5) % 50);
  for (std::size_t threads : {1, 3}) {
    Attention attention(threads);
    const Result whole = run(m, attention, ids, {});
    // A prefill of 60, then steps of one token and of five.
    std::size_t done = 0;
    for (std::size_t count : {std::size_t{60}, std::size_t{1}, std::size_t{5}, std::size_t{1}, std::size_t{73}}) {
      Result r;
      r.last.resize(count * D);
      r.attention.resize(layers * H * count * (done + count));
      r.hidden.resize((layers + 1) * count * D);
      const Outputs o{r.last.data(), r.attention.data(), r.hidden.data()};
      if (done == 0)
        m.prefill(attention, ids.data(), count, o);
      else
        m.step(attention, ids.data() + done, count, o);
      EXPECT_EQ(m.past(), done + count);
      EXPECT_EQ(std::memcmp(r.last.data(), whole.last.data() + done * D, count * D * 4), 0) << done;
      for (std::size_t l = 0; l <= layers; ++l)
        EXPECT_EQ(std::memcmp(r.hidden.data() + l * count * D, whole.hidden.data() + (l * n + done) * D, count * D * 4),
                  0)
            << "hidden state " << l << " at " << done;
      // Attention rows: the step's keys are the first done + count of the whole row (the rest is masked, 0).
      for (std::size_t lh = 0; lh < layers * H; ++lh)
        for (std::size_t i = 0; i < count; ++i) {
          const float* got = r.attention.data() + (lh * count + i) * (done + count);
          const float* want = whole.attention.data() + (lh * n + done + i) * n;
          ASSERT_EQ(std::memcmp(got, want, (done + count) * 4), 0) << lh << " row " << done + i;
        }
      done += count;
    }
    // Past the positions left: refused, and the past stays as it was.
    std::vector<float> out(D);
    try {
      m.step(attention, ids.data(), 161, Outputs{out.data()});
      FAIL();
    } catch (const mha::ArgumentError& e) {
      EXPECT_STREQ(e.what(),
                   "inputIds: expected 1 to 160 tokens after the 140 the model has seen (max_position_embeddings "
                   "300), got 161");
    }
    EXPECT_EQ(m.past(), n);
    m.reset();
    EXPECT_EQ(m.past(), 0u);
  }
}

// A decoder's beams over one cache (Model::reorder into any count, step_beams): each beam's last hidden state and
// logits are bit for bit those of its own sequence stepped alone (a prefill of all but its last id, then a step),
// through the one sequence copied into three beams, steps, reorders that drop a beam and copy another, and a
// narrowing back to one sequence that step() continues; on 1 and 3 threads.
TEST(Model, ADecodersBeamsOverOneCacheAreEachBeamsOwnSteps) {
  for (const char* folder : {"hf-gpt2-lm", "hf-llama", "hf-qwen2", "hf-qwen3"}) {
    const std::string dir = kModels + std::string(folder) + "/";
    Model beams(config_of(read_json(dir + "config.json"))), alone(config_of(read_json(dir + "config.json")));
    load(beams, dir);
    load(alone, dir);
    const std::size_t V = beams.config().vocabSize, D = beams.config().hiddenSize;
    const std::vector<std::int32_t> prompt = {3, 7, 1, 4, 9};
    const std::vector<std::vector<std::int32_t>> steps = {{2, 5, 8}, {1, 1, 6}, {4, 0, 3}};
    const std::vector<std::vector<std::size_t>> parents = {{2, 0, 2}, {1, 2, 0}, {0, 1, 2}};
    std::vector<float> rows(16 * D), last(3 * D), logits(3 * V), last1(D), logits1(V);
    // The sequence alone: its last id stepped after a prefill of the rest, into last1 and logits1.
    const auto step_alone = [&](Attention& attention, const std::vector<std::int32_t>& ids) {
      alone.prefill(attention, ids.data(), ids.size() - 1, Outputs{rows.data()});
      Outputs o{last1.data()};
      o.logits = logits1.data();
      alone.step(attention, &ids.back(), 1, o);
    };
    for (std::size_t threads : {1, 3}) {
      Attention attention(threads);
      const std::string at = std::string(folder) + " on " + std::to_string(threads) + " thread(s)";
      beams.prefill(attention, prompt.data(), prompt.size(), Outputs{rows.data()});
      const std::size_t widen[] = {0, 0, 0};
      beams.reorder(widen, 3);
      ASSERT_EQ(beams.beams(), 3u) << at;
      std::vector<std::vector<std::int32_t>> sequences(3, prompt);
      for (std::size_t s = 0; s < steps.size(); ++s) {
        Outputs o{last.data()};
        o.logits = logits.data();
        beams.step_beams(attention, steps[s].data(), o, nullptr);
        for (std::size_t b = 0; b < 3; ++b) {
          sequences[b].push_back(steps[s][b]);
          step_alone(attention, sequences[b]);
          EXPECT_EQ(std::memcmp(logits.data() + b * V, logits1.data(), V * 4), 0)
              << at << ", step " << s << " beam " << b;
          EXPECT_EQ(std::memcmp(last.data() + b * D, last1.data(), D * 4), 0) << at << ", step " << s << " beam " << b;
        }
        beams.reorder(parents[s].data(), 3);
        sequences = {sequences[parents[s][0]], sequences[parents[s][1]], sequences[parents[s][2]]};
      }
      // A beam out of range is refused before any layer changes; one sequence's step() is refused while there are
      // beams, and a beam step's other outputs.
      const std::size_t wrong[] = {0, 3};
      EXPECT_THROW(beams.reorder(wrong, 2), mha::ArgumentError);
      EXPECT_EQ(beams.beams(), 3u);
      const std::int32_t next = 2;
      EXPECT_THROW(beams.step(attention, &next, 1, Outputs{last.data()}), mha::ArgumentError);
      std::vector<float> weights(64 * 64);
      EXPECT_THROW(beams.step_beams(attention, steps[0].data(), Outputs{last.data(), weights.data()}, nullptr),
                   mha::ArgumentError);
      EXPECT_EQ(beams.past(), prompt.size() + steps.size()) << at;
      // Narrowed to beam 1: step() continues it as its sequence alone.
      const std::size_t keep[] = {1};
      beams.reorder(keep, 1);
      EXPECT_EQ(beams.beams(), 1u);
      Outputs o{last.data()};
      o.logits = logits.data();
      beams.step(attention, &next, 1, o);
      sequences[1].push_back(next);
      step_alone(attention, sequences[1]);
      EXPECT_EQ(std::memcmp(logits.data(), logits1.data(), V * 4), 0) << at << ", narrowed";
      // reset() makes the beams one sequence again too: a step after it starts a new one.
      beams.reorder(widen, 3);
      beams.reset();
      EXPECT_EQ(beams.past(), 0u);
      beams.step(attention, prompt.data(), prompt.size(), Outputs{rows.data()});
      EXPECT_EQ(beams.past(), prompt.size()) << at;
    }
  }
}

TEST(Model, AnEncoderHasNoSteps) {
  Model m = random_model("bert", 6);
  Attention attention(1);
  const std::int32_t ids[2] = {1, 2};
  std::vector<float> out(2 * 64);
  try {
    m.step(attention, ids, 2, Outputs{out.data()});
    FAIL();
  } catch (const mha::ArgumentError& e) {
    EXPECT_STREQ(e.what(), "model: a bert is an encoder; prefill and step are a decoder's (run it whole with run)");
  }
  EXPECT_THROW(m.prefill(attention, ids, 2, Outputs{out.data()}), mha::ArgumentError);
  EXPECT_EQ(m.past(), 0u);
}

}  // namespace

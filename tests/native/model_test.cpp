// The Transformer blocks (src/model/model.hpp): the tiny checkpoints of
// tests/fixtures/models against their float64 PyTorch references (read here
// with a safetensors reader of the test's own, model_fixtures.hpp), results
// bitwise identical for any thread count, and the contract's refusals.
#include "../../src/model/model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "model_fixtures.hpp"
#include "seq2seq_reference.hpp"

namespace {

using mha::Attention;
using mha::DType;
using mha::model::Config;
using mha::model::Model;
using mha::model::Outputs;
using namespace model_fixtures;

struct Result {
  std::vector<float> last, attention, hidden;
};

Result run(Model& model, Attention& attention, const std::vector<std::int32_t>& ids,
           const std::vector<std::int32_t>& types) {
  const Config& c = model.config();
  const std::size_t L = ids.size();
  Result r;
  r.last.resize(L * c.hiddenSize);
  r.attention.resize(c.numLayers * c.numHeads * L * L);
  r.hidden.resize((c.numLayers + 1) * L * c.hiddenSize);
  model.forward(attention, ids.data(), types.empty() ? nullptr : types.data(), L,
                Outputs{r.last.data(), r.attention.data(), r.hidden.data()});
  return r;
}

class Checkpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(Checkpoint, MatchesTheFloat64Reference) {
  const std::string folder = kModels + GetParam() + "/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  ASSERT_TRUE(model.missing().empty()) << model.missing()[0];
  const json reference = read_json(folder + "reference.json");
  if (model.architecture().kind == mha::model::Kind::EncoderDecoder)
    return expect_seq2seq_reference(model, reference, GetParam());
  const json& tol = reference["tolerance"];
  Attention one(1), three(3);
  for (const json& c : reference["cases"]) {
    const std::vector<std::int32_t> ids = c["inputIds"];
    const std::vector<std::int32_t> types = c.value("tokenTypeIds", std::vector<std::int32_t>());
    const Result r = run(model, one, ids, types);
    const std::string name = std::string(GetParam()) + " " + std::string(c["name"]);
    expect_close(r.attention, c["attention"], tol["attentionAbs"], 0, name + " attention");
    expect_close(r.hidden, c["hiddenStates"], tol["hiddenAbs"], tol["hiddenRel"], name + " hiddenStates");
    expect_close(r.last, c["lastHiddenState"], tol["hiddenAbs"], tol["hiddenRel"], name + " lastHiddenState");
    const Result r3 = run(model, three, ids, types);
    EXPECT_EQ(std::memcmp(r.hidden.data(), r3.hidden.data(), r.hidden.size() * 4), 0) << name;
    EXPECT_EQ(std::memcmp(r.attention.data(), r3.attention.data(), r.attention.size() * 4), 0) << name;
  }
}

// The output head an architecture marks (Tensor::outputHead: what weights 'q4' keeps in Q8_0, as llama-quantize
// keeps output.weight, or token_embd.weight without it) is transformers' get_output_embeddings() of the model
// type: lm_head when config.json unties it, else the token embeddings the tied head multiplies by (BERT's too,
// which only a masked-LM head reads); one tensor.
TEST_P(Checkpoint, MarksTheOutputHeadAsTransformersNamesIt) {
  const json config = read_json(kModels + GetParam() + "/config.json");
  const Model model(config_of(config));
  const std::string type = config["model_type"];
  std::string expected = "lm_head.weight";
  if (type == "gpt2")
    expected = "wte.weight";
  else if (type == "marian")
    expected = "shared.weight";
  else if (type == "llama" || type == "qwen2" || type == "qwen3") {
    if (config.value("tie_word_embeddings", false)) expected = "embed_tokens.weight";
  } else
    expected = "embeddings.word_embeddings.weight";  // bert, roberta, camembert, xlm-roberta
  std::vector<std::string> heads;
  for (const auto& t : model.tensors())
    if (t.outputHead) heads.push_back(t.name);
  ASSERT_EQ(heads.size(), 1u) << GetParam();
  EXPECT_EQ(heads[0], expected) << GetParam();
}

// Each layer's queries and keys (Outputs::query, key) are what its attention weighs: softmax(q·kᵀ·scale + the
// mask), query head h over key head h / (numHeads / numKVHeads), gives the attention weights; asking for them
// changes no bit of the other outputs. An encoder-decoder refuses them.
TEST_P(Checkpoint, QueriesAndKeysAreWhatTheAttentionWeighs) {
  const std::string folder = kModels + GetParam() + "/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  const json reference = read_json(folder + "reference.json");
  const Config& c = model.config();
  const std::size_t H = c.numHeads, G = c.kv_heads(), hd = c.head_dim(), D = c.hiddenSize;
  Attention one(1);
  if (model.architecture().kind == mha::model::Kind::EncoderDecoder) {
    const std::vector<std::int32_t> ids = reference["forward"][0]["inputIds"];
    std::vector<float> last(ids.size() * D), query(c.numLayers * H * ids.size() * hd), key(query.size());
    Outputs o{last.data()};
    o.query = query.data();
    o.key = key.data();
    EXPECT_THROW(model.encode(one, ids.data(), ids.size(), o, nullptr), mha::ArgumentError);
    return;
  }
  const double scale = model.query_key_scale();
  EXPECT_EQ(scale, 1.0 / std::sqrt(double(hd)));
  const bool causal = model.architecture().causal;
  for (const json& cs : reference["cases"]) {
    const std::vector<std::int32_t> ids = cs["inputIds"];
    const std::vector<std::int32_t> types = cs.value("tokenTypeIds", std::vector<std::int32_t>());
    const std::size_t L = ids.size();
    const Result plain = run(model, one, ids, types);
    Result r;
    r.last.resize(L * D);
    r.attention.resize(c.numLayers * H * L * L);
    r.hidden.resize((c.numLayers + 1) * L * D);
    std::vector<float> query(c.numLayers * H * L * hd), key(c.numLayers * G * L * hd);
    Outputs o{r.last.data(), r.attention.data(), r.hidden.data()};
    o.query = query.data();
    o.key = key.data();
    model.forward(one, ids.data(), types.empty() ? nullptr : types.data(), L, o);
    const std::string name = GetParam() + " " + std::string(cs["name"]);
    EXPECT_EQ(r.attention, plain.attention) << name;
    EXPECT_EQ(r.hidden, plain.hidden) << name;
    double worst = 0;
    for (std::size_t l = 0; l < c.numLayers; ++l)
      for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < L; ++i) {
          const float* q = query.data() + ((l * H + h) * L + i) * hd;
          const std::size_t keys = causal ? i + 1 : L;
          std::vector<double> s(keys);
          for (std::size_t j = 0; j < keys; ++j) {
            const float* k = key.data() + ((l * G + h / (H / G)) * L + j) * hd;
            double dot = 0;
            for (std::size_t e = 0; e < hd; ++e) dot += double(q[e]) * double(k[e]);
            s[j] = dot * scale;
          }
          const double top = *std::max_element(s.begin(), s.end());
          double sum = 0;
          for (double& v : s) sum += (v = std::exp(v - top));
          const float* a = r.attention.data() + ((l * H + h) * L + i) * L;
          for (std::size_t j = 0; j < L; ++j) worst = std::max(worst, std::abs((j < keys ? s[j] / sum : 0.0) - a[j]));
        }
    EXPECT_LT(worst, 1e-6) << name;
  }
}

// Model::forward_batch of an encoder or a decoder: the reference's cases and a shorter prefix of each as one
// batch, each sequence with its own head mask (one head of one layer off, a different one each), on 1 and 3
// threads: each sequence's rows of lastHiddenState, hiddenStates, attention and logits are bit for bit its own
// forward() with that mask on 1 thread (a decoder's causal attention and positions per sequence). An
// encoder-decoder refuses a batch by name.
TEST_P(Checkpoint, ABatchWithItsOwnHeadMasksIsEachSequenceBitForBit) {
  const std::string folder = kModels + GetParam() + "/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  const Config& c = model.config();
  const std::size_t D = c.hiddenSize, H = c.numHeads, Ln = c.numLayers, V = c.vocabSize, M = Ln * H;
  std::vector<std::vector<std::int32_t>> cases;
  const json reference = read_json(folder + "reference.json");  // held: a range-for over a temporary's member dangles
  for (const json& e : reference.value("cases", json::array())) {
    if (!e.contains("inputIds")) continue;
    const std::vector<std::int32_t> ids = e["inputIds"];
    cases.push_back(ids);
    if (ids.size() > 2) cases.emplace_back(ids.begin(), ids.begin() + std::ptrdiff_t(ids.size() / 2 + 1));
  }
  std::vector<std::int32_t> ids;
  std::vector<std::size_t> lengths;
  for (const auto& one : cases) ids.insert(ids.end(), one.begin(), one.end()), lengths.push_back(one.size());
  const std::size_t B = lengths.size(), T = ids.size();
  std::vector<float> last(T * D);
  if (model.architecture().kind == mha::model::Kind::EncoderDecoder) {
    Attention attention(1);
    EXPECT_THROW(model.forward_batch(attention, ids.data(), nullptr, lengths.data(), B, Outputs{last.data()}),
                 mha::ArgumentError);
    return;
  }
  ASSERT_GE(B, 2u);
  std::vector<std::uint8_t> masks(B * M, 1);
  for (std::size_t b = 0; b < B; ++b) masks[b * M + (b % Ln) * H + (b * 7 + 1) % H] = 0;
  std::size_t squares = 0;
  for (const std::size_t n : lengths) squares += n * n;
  const bool logits = model.has_logits();
  for (const std::size_t threads : {1u, 3u}) {
    std::vector<float> hidden((Ln + 1) * T * D), weights(Ln * H * squares), scores(logits ? T * V : 0);
    Outputs batch{last.data(), weights.data(), hidden.data()};
    batch.logits = logits ? scores.data() : nullptr;
    Attention attention(threads);
    model.forward_batch(attention, ids.data(), nullptr, lengths.data(), B, batch, masks.data(), M);
    std::size_t first = 0, weightsAt = 0;
    for (std::size_t b = 0; b < B; ++b) {
      const std::size_t L = lengths[b];
      const std::string name = GetParam() + " sequence " + std::to_string(b) + ", threads " + std::to_string(threads);
      std::vector<float> oneLast(L * D), oneHidden((Ln + 1) * L * D), oneWeights(Ln * H * L * L),
          oneScores(logits ? L * V : 0);
      Outputs one{oneLast.data(), oneWeights.data(), oneHidden.data()};
      one.logits = logits ? oneScores.data() : nullptr;
      Attention single(1);
      model.forward(single, ids.data() + first, nullptr, L, one, masks.data() + b * M);
      EXPECT_EQ(std::memcmp(last.data() + first * D, oneLast.data(), L * D * 4), 0) << name;
      for (std::size_t l = 0; l <= Ln; ++l)
        EXPECT_EQ(std::memcmp(hidden.data() + (l * T + first) * D, oneHidden.data() + l * L * D, L * D * 4), 0)
            << name << " hiddenStates " << l;
      for (std::size_t l = 0; l < Ln; ++l)
        EXPECT_EQ(
            std::memcmp(weights.data() + l * H * squares + weightsAt, oneWeights.data() + l * H * L * L, H * L * L * 4),
            0)
            << name << " attention " << l;
      if (logits) {
        EXPECT_EQ(std::memcmp(scores.data() + first * V, oneScores.data(), L * V * 4), 0) << name;
      }
      first += L;
      weightsAt += H * L * L;
    }
  }
}

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

// Every fixture folder with a reference and safetensors weights (this test's reader; pytorch_model.bin
// is the JS loader's): a new architecture's folder is tested by being there.
std::vector<std::string> fixture_folders() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kModels)) {
    const bool safetensors = std::filesystem::exists(e.path() / "model.safetensors") ||
                             std::filesystem::exists(e.path() / "model.safetensors.index.json");
    if (safetensors && std::filesystem::exists(e.path() / "reference.json"))
      names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Models, Checkpoint, ::testing::ValuesIn(fixture_folders()), [](const auto& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
});

// Weights held in 16 bits: a bfloat16 checkpoint held as bfloat16 gives the
// float32 model's results bit for bit (widening is exact, and the kernels
// sum in the same order), in half the memory of its matrices.
TEST(Model, A16BitCheckpointHeldIn16BitsGivesTheFloat32ResultsBitForBit) {
  const std::string folder = kModels + "hf-llama/";  // saved by transformers in bfloat16
  const Config config = config_of(read_json(folder + "config.json"));
  Model f32(config), bf16(config, mha::DType::BF16);
  load(f32, folder);
  load(bf16, folder);
  EXPECT_EQ(bf16.matrices(), mha::DType::BF16);
  EXPECT_LT(double(bf16.bytes()), 0.75 * double(f32.bytes()));
  EXPECT_EQ(double(bf16.bytes()), Model::bytes_for(config, mha::DType::BF16));
  Attention one(1), three(3);
  const std::vector<std::int32_t> ids = {1, 5, 9, 9, 2, 7, 30, 4};
  const Result a = run(f32, one, ids, {}), b = run(bf16, three, ids, {});
  EXPECT_EQ(std::memcmp(a.hidden.data(), b.hidden.data(), a.hidden.size() * 4), 0);
  EXPECT_EQ(std::memcmp(a.attention.data(), b.attention.data(), a.attention.size() * 4), 0);
  std::vector<float> la(ids.size() * config.vocabSize), lb(la.size()), h(ids.size() * config.hiddenSize);
  Outputs oa{h.data()}, ob{h.data()};
  oa.logits = la.data();
  ob.logits = lb.data();
  f32.forward(one, ids.data(), nullptr, ids.size(), oa);
  bf16.forward(one, ids.data(), nullptr, ids.size(), ob);
  EXPECT_EQ(std::memcmp(la.data(), lb.data(), la.size() * 4), 0);
}

TEST(Model, A16BitStorageRefusesAValueItCannotHoldByTheTensorsName) {
  Config c;
  c.architecture = mha::model::find_architecture("gpt2");
  c.modelType = "gpt2";
  c.numLayers = 1;
  c.numHeads = 2;
  c.hiddenSize = 8;
  c.intermediateSize = 16;
  c.vocabSize = 10;
  c.maxPositions = 16;
  Model m(c, mha::DType::F16);
  std::size_t fc = 0;
  while (m.tensors()[fc].name != "h.0.mlp.c_fc.weight") ++fc;
  std::vector<float> values(m.tensors()[fc].elements, 0.5f);
  values[3] = 70000.0f;  // float16's largest is 65504
  try {
    m.write(fc, DType::F32, 0, values.size(), reinterpret_cast<const unsigned char*>(values.data()));
    FAIL() << "70000 held as float16";
  } catch (const mha::ArgumentError& e) {
    EXPECT_STREQ(e.what(),
                 "h.0.mlp.c_fc.weight: element 3 (70000) is beyond the range of float16 (±65504); hold the weights in "
                 "bf16 or float32");
  }
  // bfloat16 holds it (rounded), and a vector (a bias) stays float32 whatever the storage.
  Model b(c, mha::DType::BF16);
  EXPECT_NO_THROW(b.write(fc, DType::F32, 0, values.size(), reinterpret_cast<const unsigned char*>(values.data())));
}

// A model of random weights large enough that every product and the attention run on the pool.
Model random_model(const char* modelType, std::uint32_t seed) {
  Config c;
  c.architecture = mha::model::find_architecture(modelType);
  c.modelType = modelType;
  c.numLayers = 2;
  c.numHeads = 4;
  c.hiddenSize = 64;
  c.intermediateSize = 200;  // not a multiple of the panels or the column blocks
  c.vocabSize = 50;
  c.maxPositions = 300;
  c.typeVocabSize = c.architecture->tokenTypes ? 2 : 1;
  c.activation = c.architecture->causal ? mha::model::Activation::GeluTanh : mha::model::Activation::GeluErf;
  Model m(c);
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.2f);
  for (std::size_t t = 0; t < m.tensors().size(); ++t) {
    std::vector<float> values(m.tensors()[t].elements);
    for (float& v : values) v = normal(rng);
    m.write(t, DType::F32, 0, values.size(), reinterpret_cast<const unsigned char*>(values.data()));
  }
  return m;
}

TEST(Model, BitwiseIdenticalForAnyThreadCount) {
  for (const char* type : {"bert", "gpt2"}) {
    Model m = random_model(type, 3);
    std::vector<std::int32_t> ids(257);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = std::int32_t(i * 7 % 50);
    Attention one(1);
    const Result base = run(m, one, ids, {});
    for (std::size_t threads : {2, 3, 5}) {
      Attention pool(threads);
      const Result r = run(m, pool, ids, {});
      EXPECT_EQ(std::memcmp(base.hidden.data(), r.hidden.data(), base.hidden.size() * 4), 0) << threads;
      EXPECT_EQ(std::memcmp(base.attention.data(), r.attention.data(), base.attention.size() * 4), 0) << threads;
    }
    // Without the attention weights (the fused path) the hidden states are those of the same blocks.
    std::vector<float> last(ids.size() * 64);
    m.forward(one, ids.data(), nullptr, ids.size(), Outputs{last.data(), nullptr, nullptr});
    for (std::size_t i = 0; i < last.size(); ++i) ASSERT_NEAR(last[i], base.last[i], 1e-4) << i;
  }
}

TEST(Model, RefusesWhatBreaksTheContract) {
  Model m = random_model("bert", 4);
  Attention a(1);
  std::vector<float> out(301 * 64);
  const std::vector<std::int32_t> tooLong(301, 1), badId{1, 50}, negative{1, -3};
  EXPECT_THROW(m.forward(a, tooLong.data(), nullptr, 301, Outputs{out.data()}), mha::ArgumentError);
  try {
    m.forward(a, badId.data(), nullptr, 2, Outputs{out.data()});
    FAIL();
  } catch (const mha::ArgumentError& e) {
    EXPECT_STREQ(e.what(), "inputIds[1]: expected a token id from 0 to 49, got 50");
  }
  try {
    m.forward(a, negative.data(), nullptr, 2, Outputs{out.data()});
    FAIL();
  } catch (const mha::ArgumentError& e) {
    EXPECT_STREQ(e.what(), "inputIds[1]: expected a token id from 0 to 49, got -3");
  }
  const std::vector<std::int32_t> types{0, 2};
  EXPECT_THROW(m.forward(a, badId.data(), types.data(), 2, Outputs{out.data()}), mha::ArgumentError);

  Config c = m.config();
  c.hiddenSize = 30;  // not a multiple of 4 heads
  EXPECT_THROW(Model{c}, mha::ArgumentError);
  c = m.config();
  c.layerNormEps = 0;
  EXPECT_THROW(Model{c}, mha::ArgumentError);

  Model empty(m.config());
  EXPECT_EQ(empty.missing().size(), empty.tensors().size());
  const float x[4] = {1, 2, 3, 4};
  const auto* bytes = reinterpret_cast<const unsigned char*>(x);
  EXPECT_THROW(empty.write(0, DType::F32, 4, 4, bytes), mha::ArgumentError);  // does not continue at 0
  EXPECT_THROW(empty.write(9999, DType::F32, 0, 1, bytes), mha::ArgumentError);
  EXPECT_THROW(empty.forward(a, badId.data(), nullptr, 1, Outputs{out.data()}), mha::ArgumentError);  // not loaded
}

TEST(Model, ConvertsHalfAndBfloat16) {
  // Normal, negative, subnormal, largest, −0, infinity and NaN, as IEEE 754 defines them.
  const std::uint16_t half[9] = {0x3C00, 0xC000, 0x3555, 0x0001, 0x7BFF, 0x8000, 0x0400, 0x7C00, 0x7E00};
  const float halfWant[8] = {1.0f,     -2.0f, 0.333251953125f, 5.9604644775390625e-8f,
                             65504.0f, -0.0f, 6.103515625e-5f, INFINITY};
  const std::uint16_t bf16[3] = {0x3F80, 0xC049, 0x0001};
  const float bf16Want[3] = {1.0f, -3.140625f, 9.18354962e-41f};
  float out[9];
  mha::model::to_float(DType::F16, reinterpret_cast<const unsigned char*>(half), 9, out);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(out[i], halfWant[i]) << i;
    EXPECT_EQ(std::signbit(out[i]), std::signbit(halfWant[i])) << i;
  }
  EXPECT_TRUE(std::isnan(out[8]));
  mha::model::to_float(DType::BF16, reinterpret_cast<const unsigned char*>(bf16), 3, out);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i], bf16Want[i]) << i;
  // F32 from an odd address (unpadded safetensors headers).
  unsigned char bytes[9] = {0};
  const float value = -1.5f;
  std::memcpy(bytes + 1, &value, 4);
  mha::model::to_float(DType::F32, bytes + 1, 1, out);
  EXPECT_EQ(out[0], -1.5f);
}

TEST(Config, ReadByTheArchitectureOfItsModelType) {
  const Config bert = config_of(json::parse(R"({"model_type": "roberta", "num_hidden_layers": 2,
    "num_attention_heads": 4, "hidden_size": 64, "intermediate_size": 100, "vocab_size": 50,
    "max_position_embeddings": 40, "type_vocab_size": 1, "pad_token_id": 1, "hidden_act": "gelu_new"})"));
  EXPECT_STREQ(bert.architecture->name, "bert");
  EXPECT_EQ(bert.positionOffset, 2u);
  EXPECT_EQ(bert.typeVocabSize, 1u);
  EXPECT_EQ(bert.activation, mha::model::Activation::GeluTanh);
  EXPECT_EQ(bert.layerNormEps, 1e-12f);
  const Config gpt2 =
      config_of(json::parse(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 2, "n_embd": 8, "n_ctx": 16,
                                "vocab_size": 10, "n_inner": null})"));
  EXPECT_STREQ(gpt2.architecture->name, "gpt2");
  EXPECT_EQ(gpt2.intermediateSize, 32u);  // n_inner null: 4·n_embd
  EXPECT_EQ(gpt2.maxPositions, 16u);      // n_ctx for n_positions
  EXPECT_EQ(gpt2.layerNormEps, 1e-5f);
  EXPECT_TRUE(gpt2.architecture->causal);
  EXPECT_EQ(gpt2.architecture->kind, mha::model::Kind::Decoder);
  EXPECT_EQ(mha::model::find_architecture("albert"), nullptr);
}

TEST(Config, RefusalsNameConfigJsonAndTheField) {
  const auto refusal = [](const char* text) -> std::string {
    try {
      config_of(json::parse(text));
    } catch (const mha::model::ConfigError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(refusal(R"({"model_type": "t5"})"),
            "config.json: model_type \"t5\" is not supported; mha-wasm runs \"bert\", \"roberta\", \"xlm-roberta\", "
            "\"camembert\", \"gpt2\", \"marian\", \"llama\", \"qwen2\", \"qwen3\"");
  EXPECT_EQ(refusal(R"({"model_type": "gpt2", "n_layer": 1.5})"),
            "config.json: n_layer must be a positive integer, got 1.5");
  EXPECT_EQ(refusal(R"({"model_type": "gpt2", "n_layer": 2000, "n_head": 1, "n_embd": 4, "n_positions": 8,
                        "vocab_size": 2})"),
            "config.json: n_layer must be at most 1024, got 2000");
  EXPECT_EQ(refusal(R"({"model_type": "bert", "hidden_act": "relu"})"),
            "config.json: hidden_act \"relu\" is not supported; mha-wasm runs \"gelu\", \"gelu_new\", "
            "\"gelu_pytorch_tanh\"");
  EXPECT_EQ(refusal(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 3, "n_embd": 8, "n_positions": 8,
                        "vocab_size": 2})"),
            "config.json: the hidden size (8) must be a multiple of the number of heads (3)");
  EXPECT_EQ(refusal(R"({"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": 8, "n_positions": 8,
                        "vocab_size": 2, "layer_norm_epsilon": 1e39})"),
            "config.json: the layer norm epsilon must be a number > 0 and finite as a float32, got 1e+39");
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

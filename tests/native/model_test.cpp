// The Transformer blocks (src/model/model.hpp): the tiny checkpoints of
// tests/fixtures/models against their float64 PyTorch references (read here
// with a safetensors reader of the test's own, model_fixtures.hpp), their
// output head's name, the queries and keys the attention weighs, and batches
// with head masks. The storage types, thread counts and the contract's
// refusals: model_contract_test.cpp; a decoder's steps and beams:
// decoder_steps_test.cpp.
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

using namespace model_fixtures;  // Attention, DType, Config, Model, Outputs, json and the readers

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

}  // namespace

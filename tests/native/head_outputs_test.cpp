// What each head writes (Outputs::valueNorms and headOutputNorms; an encoder-decoder's crossValueNorms and
// crossHeadOutputNorms: blocks/head_outputs.hpp) against transformers' own modules in float64
// (tests/fixtures/models/head-outputs/, made by tests/tools/make_head_output_fixtures.py), the same bits on 1 and 3
// threads, and no bit of the other outputs changed by asking; and linear_rows, the product over some of a packed
// matrix's rows that they are made of.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "../../src/model/blocks/linear.hpp"
#include "model_fixtures.hpp"

namespace {

using mha::Attention;
using mha::model::Outputs;
using namespace model_fixtures;

// A group's norms: valueNorms, headOutputNorms.
struct Norms {
  std::vector<float> values, outputs;
};

// What a run gives: the norms by group (transformers' names) and the other outputs, to compare with a run without.
struct Written {
  std::map<std::string, Norms> groups;
  std::vector<float> last, attention, hidden;
};

// A case of an encoder's or a decoder's fixture, its head mask when it has one.
Written run_stack(Model& model, Attention& attention, const json& c, bool norms) {
  const Config& cfg = model.config();
  const std::vector<std::int32_t> ids = c["inputIds"];
  const std::vector<std::int32_t> types = c.value("tokenTypeIds", std::vector<std::int32_t>());
  const std::vector<std::uint8_t> mask = c.contains("headMask") ? mask_of(c["headMask"]) : std::vector<std::uint8_t>();
  const std::size_t L = ids.size(), H = cfg.numHeads, layers = cfg.numLayers;
  Written r;
  r.last.resize(L * cfg.hiddenSize);
  r.attention.resize(layers * H * L * L);
  r.hidden.resize((layers + 1) * L * cfg.hiddenSize);
  Outputs o{r.last.data(), r.attention.data(), r.hidden.data()};
  Norms& n = r.groups[model.architecture().causal ? "decoder" : "encoder"];
  if (norms) {
    n.values.resize(layers * H * L);
    n.outputs.resize(layers * H * L);
    o.valueNorms = n.values.data();
    o.headOutputNorms = n.outputs.data();
  }
  model.forward(attention, ids.data(), types.empty() ? nullptr : types.data(), L, o,
                mask.empty() ? nullptr : mask.data());
  return r;
}

// A case of MarianMT's fixture, teacher-forced: encode, then the decoder's inputs at once.
Written run_seq2seq(Model& model, Attention& attention, const json& c, bool norms) {
  const Config& cfg = model.config();
  const std::vector<std::int32_t> ids = c["inputIds"], decoderIds = c["decoderInputIds"];
  std::vector<std::uint8_t> masks[3];
  if (c.contains("headMask"))
    for (const char* group : {"encoder", "decoder", "cross"})
      masks[group[0] == 'e' ? 0 : group[0] == 'd' ? 1 : 2] = mask_of(c["headMask"][group]);
  const auto mask = [&](int k) { return masks[k].empty() ? nullptr : masks[k].data(); };
  const std::size_t S = ids.size(), T = decoderIds.size(), D = cfg.hiddenSize, Ld = cfg.decoderLayers;
  const std::size_t H = cfg.numHeads, Hd = cfg.decoderHeads;
  Written r;
  std::vector<float> encoderLast(S * D);
  r.attention.resize(cfg.numLayers * H * S * S);
  Outputs e{encoderLast.data(), r.attention.data()};
  if (norms) {
    for (const char* group : {"encoder", "decoder", "cross"}) r.groups[group];
    r.groups["encoder"].values.resize(cfg.numLayers * H * S);
    r.groups["encoder"].outputs.resize(cfg.numLayers * H * S);
    r.groups["cross"].values.resize(Ld * Hd * S);
    e.valueNorms = r.groups["encoder"].values.data();
    e.headOutputNorms = r.groups["encoder"].outputs.data();
    e.crossValueNorms = r.groups["cross"].values.data();
  }
  model.encode(attention, ids.data(), S, e, mask(0));
  model.begin(1, T);
  r.last.resize(T * D);
  r.hidden.resize((Ld + 1) * T * D);
  Outputs d{r.last.data(), nullptr, r.hidden.data()};
  if (norms) {
    r.groups["decoder"].values.resize(Ld * Hd * T);
    r.groups["decoder"].outputs.resize(Ld * Hd * T);
    r.groups["cross"].outputs.resize(Ld * Hd * T);
    d.valueNorms = r.groups["decoder"].values.data();
    d.headOutputNorms = r.groups["decoder"].outputs.data();
    d.crossHeadOutputNorms = r.groups["cross"].outputs.data();
  }
  model.decode(attention, decoderIds.data(), 1, T, d, mask(1), mask(2));
  return r;
}

std::vector<std::string> captured() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kModels + "head-outputs"))
    if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class HeadOutputs : public ::testing::TestWithParam<std::string> {};

TEST_P(HeadOutputs, AreWhatTransformersModulesWrite) {
  const std::string folder = kModels + GetParam() + "/";
  Model model(config_of(read_json(folder + "config.json")), DType::F32);
  load(model, folder);
  ASSERT_TRUE(model.missing().empty());
  const json fixture = read_json(kModels + "head-outputs/" + GetParam() + ".json");
  const json tol = read_json(folder + "reference.json")["tolerance"];
  const bool seq2seq = model.architecture().kind == mha::model::Kind::EncoderDecoder;
  const auto run = seq2seq ? run_seq2seq : run_stack;
  Attention one(1), three(3);
  for (const json& c : fixture["cases"]) {
    const std::string name = GetParam() + " " + std::string(c["name"]);
    const Written r = run(model, one, c, true), r3 = run(model, three, c, true), plain = run(model, one, c, false);
    ASSERT_EQ(r.groups.size(), seq2seq ? 3u : 1u) << name;
    for (const auto& [group, norms] : r.groups) {
      const std::string prefix = seq2seq ? group : "";
      const auto field = [&](const char* what) {
        std::string f = prefix + what;
        if (seq2seq) f[prefix.size()] = char(std::toupper(f[prefix.size()]));
        return f;
      };
      expect_close(norms.values, c[field("valueNorms")], tol["hiddenAbs"], tol["hiddenRel"], name + " " + group);
      expect_close(norms.outputs, c[field("headOutputNorms")], tol["hiddenAbs"], tol["hiddenRel"], name + " " + group);
      EXPECT_EQ(norms.values, r3.groups.at(group).values) << name << " " << group;
      EXPECT_EQ(norms.outputs, r3.groups.at(group).outputs) << name << " " << group;
    }
    EXPECT_EQ(std::memcmp(r.last.data(), plain.last.data(), r.last.size() * 4), 0) << name;
    EXPECT_EQ(std::memcmp(r.hidden.data(), plain.hidden.data(), r.hidden.size() * 4), 0) << name;
    EXPECT_EQ(std::memcmp(r.attention.data(), plain.attention.data(), r.attention.size() * 4), 0) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, HeadOutputs, ::testing::ValuesIn(captured()), [](const auto& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

// C = A·W[first, first + count) over rows of a packed W, against a float64 product of the same floats; over
// every row, the bits of linear() without a bias; in float32 and 16-bit storage (the weights widened exactly).
TEST(LinearRows, IsTheProductOverThoseRowsOfThePackedMatrix) {
  const std::size_t M = 5, K = 24, N = 37;  // N past a column tile's panels, K across several heads
  std::mt19937 gen(38);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> A(M * K), file(N * K);  // file: nn.Linear's [N, K]
  for (float& v : A) v = u(gen);
  for (float& v : file) v = u(gen);
  for (const DType storage : {DType::F32, DType::BF16, DType::F16}) {
    mha::model::Weights w(storage);
    mha::model::Slot& slot = w.packed(true, K, N);
    w.tensor("w", {N, K}, slot);
    w.allocate();
    w.write(0, DType::F32, 0, N * K, reinterpret_cast<const unsigned char*>(file.data()));
    // The weights as held: each column of the packed matrix read back as a token's embedding is.
    std::vector<float> held(N * K);
    for (std::size_t n = 0; n < N; ++n) slot.column(n, held.data() + n * K);
    Attention attention(2);
    std::vector<float> whole(M * N), rows(M * N);
    mha::model::linear(attention, M, A.data(), K, slot, nullptr, whole.data(), N, mha::model::Epilogue::None);
    mha::model::linear_rows(attention, M, A.data(), K, slot, 0, K, rows.data(), N);
    EXPECT_EQ(rows, whole);
    for (const auto& [first, count] : {std::pair<std::size_t, std::size_t>{0, 8}, {8, 8}, {16, 8}, {5, 11}}) {
      mha::model::linear_rows(attention, M, A.data() + first, K, slot, first, count, rows.data(), N);
      for (std::size_t m = 0; m < M; ++m)
        for (std::size_t n = 0; n < N; ++n) {
          double want = 0;
          for (std::size_t k = first; k < first + count; ++k) want += double(A[m * K + k]) * double(held[n * K + k]);
          EXPECT_NEAR(rows[m * N + n], want, 1e-5) << int(storage) << " rows " << first << "+" << count;
        }
    }
    EXPECT_THROW(mha::model::linear_rows(attention, M, A.data(), K, slot, 20, 8, rows.data(), N), mha::ArgumentError);
  }
}

}  // namespace

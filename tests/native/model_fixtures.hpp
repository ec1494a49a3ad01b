// What the native model tests share: the fixture folders of tests/fixtures/models read with the test's own
// readers (config.json through the model's ConfigSource, safetensors files tensor by tensor), the
// comparison with a float64 reference, a forward's outputs (run) and a model of random weights.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../src/model/model.hpp"

namespace model_fixtures {

using mha::Attention;
using mha::DType;
using mha::model::Config;
using mha::model::Model;
using mha::model::Outputs;
using nlohmann::json;

inline const std::string kModels = std::string(MHA_FIXTURES_DIR) + "/models/";

inline std::vector<unsigned char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline json read_json(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file(path);
  return json::parse(bytes.begin(), bytes.end());
}

// config.json as nlohmann::json, for the model's own reader (model/config.hpp).
class JsonConfig final : public mha::model::ConfigSource {
 public:
  explicit JsonConfig(const nlohmann::json& j) : j_(j) {}
  Type type(const char* field) const override {
    if (!j_.contains(field)) return Type::Absent;
    const nlohmann::json& v = j_[field];
    return v.is_null()      ? Type::Null
           : v.is_boolean() ? Type::Boolean
           : v.is_number()  ? Type::Number
           : v.is_string()  ? Type::String
           : v.is_object()  ? Type::Object
                            : Type::Other;
  }
  double number(const char* field) const override { return j_[field].get<double>(); }
  bool boolean(const char* field) const override { return j_[field].get<bool>(); }
  std::string string(const char* field) const override { return j_[field].get<std::string>(); }
  std::string json(const char* field) const override { return j_.contains(field) ? j_[field].dump() : "undefined"; }
  std::unique_ptr<mha::model::ConfigSource> object(const char* field) const override {
    return std::make_unique<JsonConfig>(j_[field]);
  }

 private:
  const nlohmann::json& j_;
};

inline Config config_of(const json& j) { return mha::model::read_config(JsonConfig(j)); }

// Hugging Face's name → the model's: the architecture's prefixes off, gamma/beta renamed.
inline std::string canonical(std::string name, const mha::model::Architecture& a) {
  for (const char* prefix : a.prefixes)
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::strlen(prefix));
  for (const auto& [old, now] : {std::pair<std::string, std::string>{"LayerNorm.gamma", "LayerNorm.weight"},
                                 {"LayerNorm.beta", "LayerNorm.bias"}})
    if (name.size() > old.size() && name.compare(name.size() - old.size(), old.size(), old) == 0)
      name = name.substr(0, name.size() - old.size()) + now;
  return name;
}

// Every tensor of the folder's safetensors files (one, or the shards of the index) written into `model`.
inline void load(Model& model, const std::string& folder) {
  std::vector<std::string> files;
  std::ifstream index(folder + "model.safetensors.index.json");
  if (index) {
    std::set<std::string> shards;
    const json map = read_json(folder + "model.safetensors.index.json")["weight_map"];
    for (const auto& [name, file] : map.items()) shards.insert(std::string(file));
    files.assign(shards.begin(), shards.end());
  } else {
    files.push_back("model.safetensors");
  }
  for (const std::string& file : files) {
    const std::vector<unsigned char> bytes = read_file(folder + file);
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = n << 8 | bytes[i];
    const json header = json::parse(bytes.begin() + 8, bytes.begin() + 8 + std::ptrdiff_t(n));
    for (const auto& [name, info] : header.items()) {
      if (name == "__metadata__") continue;
      const std::string want = canonical(name, model.architecture());
      for (std::size_t t = 0; t < model.tensors().size(); ++t) {
        if (model.tensors()[t].name != want) continue;
        const std::string dtype = info["dtype"];
        const DType type = dtype == "F32" ? DType::F32 : dtype == "F16" ? DType::F16 : DType::BF16;
        const std::size_t begin = info["data_offsets"][0];
        // In two chunks, the second starting mid-tensor.
        const std::size_t count = model.tensors()[t].elements, half = count / 2, size = type == DType::F32 ? 4 : 2;
        const unsigned char* data = bytes.data() + 8 + n + begin;
        model.write(t, type, 0, half, data);
        model.write(t, type, half, count - half, data + half * size);
      }
    }
  }
}

inline void expect_close(const std::vector<float>& got, const json& want, double abs, double rel,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = want[i];
    if (!(std::abs(got[i] - w) <= abs + rel * std::abs(w)) && bad++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << w;
  }
}

// A forward of `ids` (token types where the architecture has them): the last layer's hidden states, every
// attention weight and every hidden state.
struct Result {
  std::vector<float> last, attention, hidden;
};

inline Result run(Model& model, Attention& attention, const std::vector<std::int32_t>& ids,
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

// A model of random weights large enough that every product and the attention run on the pool.
inline Model random_model(const char* modelType, std::uint32_t seed) {
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

// [layers][heads] of 0/1 as the model takes it, layer after layer.
inline std::vector<std::uint8_t> mask_of(const json& rows) {
  std::vector<std::uint8_t> flat;
  for (const json& row : rows)
    for (const json& v : row) flat.push_back(std::uint8_t(v.get<int>()));
  return flat;
}

}  // namespace model_fixtures

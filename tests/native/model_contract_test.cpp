// The model's contract (src/model/model.hpp): weights held in 16 bits give the float32 results bit for bit and
// refuse what they cannot hold, results are bitwise identical for any thread count, half and bfloat16 convert
// exactly, config.json is read by the architecture of its model_type, and every refusal names what it refuses.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../../src/model/model.hpp"
#include "model_fixtures.hpp"

namespace {

using namespace model_fixtures;  // Attention, DType, Config, Model, Outputs, json and the readers

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

}  // namespace

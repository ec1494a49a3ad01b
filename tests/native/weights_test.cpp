// Weights::touch (src/model/weights.cpp): on a pool of two threads it brings a
// model's packed parameters into memory before a load writes them, so that the
// writes fault (almost) no page in themselves, where without it they fault
// about one page per 4 KiB written; and the model it touched computes the same
// bits as one it did not. Page faults are counted by the operating system
// (getrusage's minor faults, Linux), not by the code under test.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <vector>

#include "../../src/core/attention.hpp"
#include "../../src/core/thread_pool.hpp"
#include "model_fixtures.hpp"

using namespace model_fixtures;

namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// A BERT of about 43 MB of float32 parameters (most of them packed matrices: the embeddings and the layers').
const json kConfig = {{"model_type", "bert"},     {"hidden_size", 256},     {"intermediate_size", 1024},
                      {"num_attention_heads", 4}, {"num_hidden_layers", 4}, {"max_position_embeddings", 64},
                      {"type_vocab_size", 2},     {"vocab_size", 30000},    {"layer_norm_eps", 1e-12},
                      {"hidden_act", "gelu"}};

struct Loaded {
  long faults = 0;            // while its tensors were written
  std::vector<float> hidden;  // the last hidden state of one run
};

Loaded load_and_run(bool touch) {
  Model model(config_of(kConfig));
  if (touch) {
    mha::ThreadPool pool(2);
    model.touch_memory(pool);
  }
  std::size_t most = 0;
  for (const auto& t : model.tensors()) most = std::max(most, t.elements);
  std::vector<float> values(most);
  for (std::size_t i = 0; i < most; ++i) values[i] = float(int(i * 7919 % 2001) - 1000) / 20000.0f;
  Loaded out;
  const long before = minor_faults();
  for (std::size_t t = 0; t < model.tensors().size(); ++t)
    model.write(t, DType::F32, 0, model.tensors()[t].elements, reinterpret_cast<const unsigned char*>(values.data()));
  out.faults = minor_faults() - before;
  EXPECT_TRUE(model.missing().empty());
  const std::vector<std::int32_t> ids{101, 2769, 4263, 102};
  out.hidden.resize(ids.size() * 256);
  mha::model::Outputs outputs{out.hidden.data()};
  mha::Attention attention(1);
  model.forward(attention, ids.data(), nullptr, ids.size(), outputs);
  return out;
}

TEST(Weights, TouchBringsThePackedMatricesInBeforeTheLoadWritesThem) {
  // Touched first: were the second model given the first one's memory again, its writes would fault less, and the
  // comparison below would fail, not pass, by it.
  const Loaded touched = load_and_run(true);
  const Loaded untouched = load_and_run(false);
  const long pages = 43'000'000 / 4096;
  EXPECT_GT(untouched.faults, pages / 2) << "the writes into fresh memory fault its pages in";
  EXPECT_LT(touched.faults, untouched.faults / 5) << "touched: " << touched.faults << ", not: " << untouched.faults;
  EXPECT_EQ(touched.hidden, untouched.hidden);
}

TEST(Weights, TouchOnOneThreadLeavesTheFaultsToTheWrites) {
  Model model(config_of(kConfig));
  mha::ThreadPool pool(1);
  const long before = minor_faults();
  model.touch_memory(pool);
  EXPECT_LT(minor_faults() - before, 100);
}

}  // namespace

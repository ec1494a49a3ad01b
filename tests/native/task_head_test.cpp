// The task heads of BERT-family checkpoints (src/model/arch/bert.cpp: the *For… classes config.json's
// architectures name) against transformers' float64 logits of tests/fixtures/tasks (make_task_fixtures.py):
// sequence classification (BERT's pooler + classifier, RoBERTa's classifier.dense + out_proj), token
// classification and question answering's start and end; a head the checkpoint lacks is not run, and asking for
// its logits is refused by name; id2label's count is read, a question-answering head's must be 2.
#include <gtest/gtest.h>

#include <cstring>

#include "model_fixtures.hpp"

using namespace model_fixtures;
using mha::Attention;
using mha::model::Outputs;
using mha::model::TaskHead;

namespace {

const std::string kTasks = std::string(MHA_FIXTURES_DIR) + "/tasks/";

// taskLogits of the head for `ids` (types: empty = all 0).
std::vector<float> task_logits(Model& model, const std::vector<std::int32_t>& ids,
                               const std::vector<std::int32_t>& types = {}) {
  const Config& c = model.config();
  const std::size_t L = ids.size();
  std::vector<float> last(L * c.hiddenSize), logits(model.task_rows(L) * c.numLabels);
  Outputs out{last.data()};
  out.taskLogits = logits.data();
  Attention attention(1);
  model.forward(attention, ids.data(), types.empty() ? nullptr : types.data(), L, out);
  return logits;
}

struct Case {
  const char* folder;
  TaskHead head;
  std::size_t labels;
};

class TaskHeads : public ::testing::TestWithParam<Case> {};

TEST_P(TaskHeads, AreTransformersLogits) {
  const Case& k = GetParam();
  const std::string folder = kTasks + k.folder + "/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  ASSERT_TRUE(model.missing().empty());
  ASSERT_EQ(model.task_head(), k.head);
  ASSERT_EQ(model.config().numLabels, k.labels);
  // Held here: a range-for over read_json(…)["cases"] would read the temporary document after its end.
  const json expected = read_json(folder + "expected.json");
  for (const json& c : expected["cases"]) {
    const std::vector<std::int32_t> ids = c["inputIds"];
    const std::vector<float> got = task_logits(model, ids, c.value("tokenTypeIds", std::vector<std::int32_t>()));
    json want = json::array();
    if (k.head == TaskHead::QuestionAnswering) {
      for (std::size_t i = 0; i < ids.size(); ++i)
        want.push_back(c["startLogits"][i]), want.push_back(c["endLogits"][i]);
    } else if (k.head == TaskHead::TokenClassification) {
      for (const json& row : c["logits"])
        for (const json& x : row) want.push_back(x);
    } else {
      want = c["logits"];
    }
    expect_close(got, want, 2e-5, 1e-4, std::string(k.folder) + " taskLogits");
  }
}

// Model::forward_batch: the cases' ids as one batch (their products over every token at once, the attention over
// each alone), on 1 and 3 threads; each sequence's rows of lastHiddenState, hiddenStates, attention and taskLogits
// are bit for bit its own forward()'s on 1 thread.
TEST_P(TaskHeads, ABatchIsEachSequenceBitForBit) {
  const Case& k = GetParam();
  const std::string folder = kTasks + k.folder + "/";
  Model model(config_of(read_json(folder + "config.json")));
  load(model, folder);
  const Config& c = model.config();
  const std::size_t D = c.hiddenSize, H = c.numHeads, Ln = c.numLayers, N = c.numLabels;
  const json expected = read_json(folder + "expected.json");
  std::vector<std::int32_t> ids;
  std::vector<std::size_t> lengths;
  for (const json& e : expected["cases"]) {
    const std::vector<std::int32_t> one = e["inputIds"];
    ids.insert(ids.end(), one.begin(), one.end());
    lengths.push_back(one.size());
  }
  const std::size_t B = lengths.size(), T = ids.size();
  ASSERT_GE(B, 2u);
  std::size_t squares = 0;
  for (const std::size_t n : lengths) squares += n * n;
  const bool perSequence = k.head == TaskHead::SequenceClassification;
  for (const std::size_t threads : {1u, 3u}) {
    std::vector<float> last(T * D), hidden((Ln + 1) * T * D), weights(Ln * H * squares),
        logits((perSequence ? B : T) * N);
    Outputs batch{last.data(), weights.data(), hidden.data()};
    batch.taskLogits = logits.data();
    Attention attention(threads);
    model.forward_batch(attention, ids.data(), nullptr, lengths.data(), B, batch);
    std::size_t first = 0, weightsAt = 0;
    for (std::size_t b = 0; b < B; ++b) {
      const std::size_t L = lengths[b];
      std::vector<float> oneLast(L * D), oneHidden((Ln + 1) * L * D), oneWeights(Ln * H * L * L),
          oneLogits(model.task_rows(L) * N);
      Outputs one{oneLast.data(), oneWeights.data(), oneHidden.data()};
      one.taskLogits = oneLogits.data();
      Attention single(1);
      model.forward(single, ids.data() + first, nullptr, L, one);
      const auto same = [](const float* got, const std::vector<float>& want, const char* what) {
        EXPECT_EQ(std::memcmp(got, want.data(), want.size() * sizeof(float)), 0) << what;
      };
      same(last.data() + first * D, oneLast, "lastHiddenState");
      for (std::size_t l = 0; l <= Ln; ++l)
        EXPECT_EQ(std::memcmp(hidden.data() + (l * T + first) * D, oneHidden.data() + l * L * D, L * D * 4), 0);
      for (std::size_t l = 0; l < Ln; ++l)
        EXPECT_EQ(
            std::memcmp(weights.data() + l * H * squares + weightsAt, oneWeights.data() + l * H * L * L, H * L * L * 4),
            0);
      same(logits.data() + (perSequence ? b : first) * N, oneLogits, "taskLogits");
      first += L;
      weightsAt += H * L * L;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Tasks, TaskHeads,
                         ::testing::Values(Case{"bert-sequence-classification", TaskHead::SequenceClassification, 3},
                                           Case{"roberta-sequence-classification", TaskHead::SequenceClassification, 3},
                                           Case{"bert-token-classification", TaskHead::TokenClassification, 5},
                                           Case{"bert-question-answering", TaskHead::QuestionAnswering, 2}),
                         [](const auto& info) {
                           std::string name = info.param.folder;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(TaskHeads, AHeadTheCheckpointLacksIsNotRunAndItsLogitsAreRefusedByName) {
  const std::string folder = kTasks + "bert-sentence-embedding/";
  json config = read_json(folder + "config.json");
  config["architectures"] = json::array({"BertForSequenceClassification"});
  config["id2label"] = json{{"0", "NO"}, {"1", "YES"}};
  Model model(config_of(config));
  load(model, folder);  // the backbone's tensors: no pooler, no classifier
  EXPECT_TRUE(model.missing().empty());
  EXPECT_EQ(model.task_head(), TaskHead::None);
  try {
    task_logits(model, {2, 5, 3});
    FAIL();
  } catch (const mha::ArgumentError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("returnTaskLogits: this bert has no task head the engine reads", 0), 0)
        << e.what();
  }
}

TEST(TaskHeads, Id2labelIsCountedAndAQuestionAnsweringHeadHasTwoOutputs) {
  json config = read_json(kTasks + "bert-question-answering/config.json");
  EXPECT_EQ(config_of(config).numLabels, 2u);  // no id2label written: transformers' default num_labels
  config["id2label"] = json{{"0", "A"}, {"1", "B"}, {"2", "C"}};
  try {
    config_of(config);
    FAIL();
  } catch (const mha::model::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("id2label: a question-answering head has 2 outputs (start, end), got 3"),
              std::string::npos)
        << e.what();
  }
  config["architectures"] = json::array({"BertModel"});
  EXPECT_EQ(config_of(config).taskHead, TaskHead::None);
}

}  // namespace

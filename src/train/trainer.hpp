// A tiny Transformer tagger trained in the engine, for the page's "Train it
// yourself" view (one head against two on the same data). Built only into
// the training builds (mha-train-*) and the native tests; the core
// (src/core) does not know it.
//
//   x_t      = E[token_t] + P_t                  E learned, P sinusoidal (fixed)
//   h_t      = x_t + MultiHeadAttention(x)_t     self-attention, padding masked
//   h'_t     = h_t + W2·relu(W1·h_t + b1) + b2   only with mlpHidden > 0
//   logits_t = h'_t·WC + bC                      one tag per token
//   loss     = mean over tagged tokens of −log softmax(logits_t)[tag_t]
//
// trained with Adam (PyTorch's update rule) on seeded, shuffled batches.
// Attention is the core's own forward and backward (attention.hpp,
// backward.hpp); everything else here is small dense algebra.
//
// Threads: a batch is cut into shards of kShardSentences sentences, a fixed
// cut that does not depend on the number of threads. The engine's pool runs
// the shards; each writes its own gradient, and the shards' gradients are
// added in shard order. So results are bitwise identical for any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../core/attention.hpp"

namespace mha {

// The trainer's limits, defined here only: Trainer checks them, the bindings
// export them (limits().trainer) and src/js checks them first with its own
// messages. They keep a trainer's parameters far below kMaxElements; the
// buffers of a call (a batch's shard gradients, evaluate's attention weights)
// are checked when it is made (checked_product, bytes_for).
struct TrainerLimits {
  static constexpr std::size_t vocabSize = 65536, numTags = 4096, maxLength = 1024, dModel = 1024, mlpHidden = 4096,
                               batchSize = 65536, steps = 1000000;
  // The most work one train() call may do: steps × batchSize × maxLength
  // token slots. It bounds how long a call runs (and holds its engine): the
  // page's model (dModel 16, maxLength 15) runs about 10^6 slots a second on
  // two threads, about 15 s at the limit (wider or longer models run fewer
  // slots a second), where the most steps of the largest batch would take
  // days. Longer training is several calls, which give the same steps as one.
  static constexpr std::size_t slotsPerTrain = std::size_t{1} << 24;  // 16,777,216
};

struct TrainerConfig {
  std::size_t vocabSize = 0;  // rows of the token embedding E
  std::size_t numTags = 0;    // classes of the tagger
  std::size_t maxLength = 0;  // longest sentence, and the row stride of Sentences
  std::size_t dModel = 16;
  std::size_t numHeads = 1;   // dK = dV = dModel / numHeads: the same width for every numHeads
  std::size_t mlpHidden = 0;  // 0: no MLP
  float learningRate = 0.01f, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
  std::uint32_t seed = 1;  // initial weights and batch order
};

// Sentences in rows of config.maxLength slots; slots past a sentence's
// length are never read.
struct Sentences {
  const std::int32_t* tokens = nullptr;   // [count, maxLength], ids in [0, vocabSize)
  const std::int32_t* lengths = nullptr;  // [count], each in [1, maxLength]
  const std::int32_t* tags = nullptr;     // [count, maxLength], in [0, numTags) or -1 (no loss); may be null
  std::size_t count = 0;
};

// Where evaluate() writes; each pointer may be null (not wanted). Rows past a
// sentence's length are zero (predictions −1).
struct Evaluation {
  float* probabilities = nullptr;       // [count, maxLength, numTags]
  std::int32_t* predictions = nullptr;  // [count, maxLength], the most probable tag
  float* attention = nullptr;           // [count, numHeads, maxLength, maxLength]
};

// Named pointers to every parameter (or every gradient) of the model, into
// one flat vector laid out by parameter_layout(); w1 … b2 are null without
// the MLP.
struct Parameters {
  float *embedding, *wQ, *bQ, *wK, *bK, *wV, *bV, *wO, *bO, *w1, *b1, *w2, *b2, *wC, *bC;
};

// One parameter: its name (as src/js sees it), place and shape [rows, cols]
// in the flat vector, and its initialisation: N(0, 1) when `normal`, else
// U(±bound).
struct Tensor {
  const char* name;
  float* Parameters::*field;
  std::size_t offset, rows, cols;
  bool normal;
  double bound;
};

// The parameters of a model of `config`, in their order in the flat vector:
// the one place that order, the names, the shapes and the initialisation are
// written (the bindings export it to src/js as parameterShapes()).
std::vector<Tensor> parameter_layout(const TrainerConfig& config);

// Points every field of a Parameters at its tensor in `base`.
Parameters point_parameters(const std::vector<Tensor>& layout, float* base);

class Trainer {
 public:
  static constexpr std::size_t kShardSentences = 8;

  // Checks the config (ArgumentError naming the field) and draws the initial
  // weights from config.seed. Runs on the threads of `engine`, which must
  // outlive the trainer.
  Trainer(const TrainerConfig& config, Attention& engine);
  // Checks `config` as the constructor does; returns the bytes a trainer of it
  // allocates on an engine of `threads` threads (its parameters, gradients,
  // Adam's moments and positions), for a check before anything is allocated.
  static double bytes_to_create(const TrainerConfig& config, std::size_t threads);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Copies the training set (tags required) and starts a new shuffle of it.
  void set_data(const Sentences& data);
  // Checks the arguments of `steps` steps of `batchSize` sentences (one
  // train() call of the bindings): each within TrainerLimits, and their work
  // (steps × batchSize × maxLength slots) within slotsPerTrain; ArgumentError
  // naming them, and saying how to split the call, otherwise.
  void check_train(std::size_t steps, std::size_t batchSize) const;
  // One Adam step on the next batchSize sentences of the shuffled training
  // set (reshuffled, from the trainer's seed, each time it runs out). Returns
  // the batch's mean loss before the step. Divergence is refused with an
  // ArgumentError naming learningRate: on a batch loss that is not finite the
  // trainer goes back to the state before the previous step (whose loss was
  // finite); an update that would make a number non-finite is not made.
  float step(std::size_t batchSize);
  // Mean loss of `batch` and its gradient (into gradients()); no step.
  float loss_and_gradients(const Sentences& batch);
  // The model on `sentences`; returns the mean loss over tagged tokens (0 when
  // there are no tags or no tagged token).
  float evaluate(const Sentences& sentences, const Evaluation& out);

  // What the bindings need to refuse, before anything is allocated, a call
  // that cannot fit the memory: the bytes a call over `sentences` sentences
  // allocates inside the trainer (set_data: its copy of them; training: a
  // step of batchSize `sentences`; else an evaluate(), with or without the
  // attention weights), counted in double so that any count can be asked
  // about. Some of them may be held already (held_bytes()) and are reused.
  // ArgumentError, as checked_product's, when an array of the call is too large.
  enum class Call { setData, train, evaluate };
  double bytes_for(Call call, std::size_t sentences, bool wantAttention = false) const;
  // Bytes of the buffers the trainer keeps between calls and reuses (the
  // threads' workspaces, one batch, the shards' gradients, Adam's next step).
  std::size_t held_bytes() const noexcept;

  // Replaces the named parameter (count = rows·cols of its Tensor) and starts
  // the optimizer afresh: Adam's moments and the step count go back to 0.
  void set_parameter(const std::string& name, const float* data, std::size_t count);

  const TrainerConfig& config() const noexcept { return config_; }
  const std::vector<Tensor>& tensors() const noexcept { return tensors_; }
  std::vector<float>& parameters() noexcept { return params_; }
  const std::vector<float>& gradients() const noexcept { return grads_; }
  std::size_t steps() const noexcept { return steps_; }

 private:
  struct Workspace;
  // Throws ArgumentError naming the first bad length, token or tag; returns
  // the number of tagged tokens (the loss's denominator).
  double check(const Sentences& s, bool needTags) const;
  // loss_and_gradients of sentences already checked, `tagged` of whose tokens have a tag.
  float gradients(const Sentences& s, double tagged);
  // Forward (and, with `grads`, backward) of sentences [first, first+count) of
  // `s`, on one thread; returns the sum of the tagged tokens' losses.
  double run_shard(const Sentences& s, std::size_t first, std::size_t count, double tagged, float* grads,
                   const Evaluation* out, Workspace& w) const;

  TrainerConfig config_;
  Attention& engine_;
  std::vector<Tensor> tensors_;
  std::vector<float> params_, grads_, m_, v_, positions_, next_;  // next_: an Adam step before it is kept
  std::vector<std::unique_ptr<Workspace>> workspaces_;            // one per thread of the pool
  std::vector<float> shardGrads_;
  std::vector<std::int32_t> tokens_, lengths_, tags_, order_, batchTokens_, batchLengths_,
      batchTags_;  // training set, its shuffle, one batch
  std::size_t count_ = 0, cursor_ = 0, steps_ = 0;
  std::uint64_t random_ = 0;
  double beta1Power_ = 1, beta2Power_ = 1;
  // The state before the last step, whose loss was finite (see step()).
  struct State {
    bool valid = false;
    std::vector<float> params, m, v;
    double beta1Power = 1, beta2Power = 1;
    std::size_t steps = 0;
  } last_;
};

}  // namespace mha

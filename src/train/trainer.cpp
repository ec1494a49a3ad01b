#include "trainer.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "workspace.hpp"

namespace mha {
namespace {

// splitmix64: seeded, the same stream on every platform.
std::uint64_t next_random(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
double uniform(std::uint64_t& state) noexcept { return double(next_random(state) >> 11) * 0x1.0p-53; }  // [0, 1)
float normal(std::uint64_t& state) noexcept {  // Box–Muller, in float math (see the positions below)
  const float u = float(1.0 - uniform(state)), v = float(uniform(state));
  return std::sqrt(-2.0f * std::log(u)) * std::cos(6.2831853f * v);
}

// task(shard, worker) for every shard, on the engine's pool. An exception
// must not leave a task (the pool's threads would end the process): the one
// of the first shard that failed is thrown here, once every task is done.
template <typename Task>
void run_shards(ThreadPool& pool, std::size_t shards, const Task& task) {
  std::vector<std::exception_ptr> errors(shards);
  pool.run(shards, [&](std::size_t shard, std::size_t worker) {
    try {
      task(shard, worker);
    } catch (...) {
      errors[shard] = std::current_exception();
    }
  });
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

// The message of src/js about a float option, which quotes the number as
// given; here it is the float the trainer holds (1e39 arrives as Infinity).
[[noreturn]] MHA_COLD void refuse(const char* name, const char* expected, float got) {
  (Message() << name << ": expected a finite number " << expected << ", got ").real(got).raise();
}

}  // namespace

std::vector<Tensor> parameter_layout(const TrainerConfig& c) {
  const std::size_t D = c.dModel, T = c.numTags, F = c.mlpHidden;
  // PyTorch's initialisation of the same modules: nn.Embedding N(0, 1);
  // nn.MultiheadAttention xavier-uniform over its stacked [3·dModel, dModel]
  // input projection, zero biases, out_proj U(±1/√dModel) with zero bias;
  // nn.Linear U(±1/√fan_in) for weight and bias.
  const double xavier = std::sqrt(6.0 / double(4 * D)), linear = 1.0 / std::sqrt(double(D));
  const double second = F ? 1.0 / std::sqrt(double(F)) : 0.0;
  std::vector<Tensor> layout = {{"embedding", &Parameters::embedding, 0, c.vocabSize, D, true, 0},
                                {"wQ", &Parameters::wQ, 0, D, D, false, xavier},
                                {"bQ", &Parameters::bQ, 0, 1, D, false, 0},
                                {"wK", &Parameters::wK, 0, D, D, false, xavier},
                                {"bK", &Parameters::bK, 0, 1, D, false, 0},
                                {"wV", &Parameters::wV, 0, D, D, false, xavier},
                                {"bV", &Parameters::bV, 0, 1, D, false, 0},
                                {"wO", &Parameters::wO, 0, D, D, false, linear},
                                {"bO", &Parameters::bO, 0, 1, D, false, 0}};
  if (F) {
    layout.push_back({"w1", &Parameters::w1, 0, D, F, false, linear});
    layout.push_back({"b1", &Parameters::b1, 0, 1, F, false, linear});
    layout.push_back({"w2", &Parameters::w2, 0, F, D, false, second});
    layout.push_back({"b2", &Parameters::b2, 0, 1, D, false, second});
  }
  layout.push_back({"wC", &Parameters::wC, 0, D, T, false, linear});
  layout.push_back({"bC", &Parameters::bC, 0, 1, T, false, linear});
  std::size_t offset = 0;
  for (Tensor& t : layout) {
    t.offset = offset;
    offset += checked_product({t.rows, t.cols}, t.name);
  }
  checked_product({offset}, "parameters");
  return layout;
}

// Floats of every parameter of `layout`: where its last tensor ends.
static std::size_t parameter_count(const std::vector<Tensor>& layout) {
  const Tensor& last = layout.back();
  return last.offset + last.rows * last.cols;
}

Parameters point_parameters(const std::vector<Tensor>& layout, float* base) {
  Parameters p{};
  for (const Tensor& t : layout) p.*(t.field) = base + t.offset;
  return p;
}

double Trainer::bytes_to_create(const TrainerConfig& c, std::size_t threads) {
  using Limits = TrainerLimits;
  check_dim(c.vocabSize, "vocabSize", Limits::vocabSize);
  check_dim(c.numTags, "numTags", Limits::numTags);
  check_dim(c.maxLength, "maxLength", Limits::maxLength);
  check_dim(c.dModel, "dModel", Limits::dModel);
  check_dim(c.numHeads, "numHeads", c.dModel);
  if (c.dModel % c.numHeads != 0)
    (Message() << "numHeads: expected a divisor of dModel " << c.dModel << ", got " << c.numHeads).raise();
  check_dim(c.mlpHidden, "mlpHidden", Limits::mlpHidden, 0);
  const auto finite_positive = [](float x) { return x > 0 && x <= std::numeric_limits<float>::max(); };
  if (!finite_positive(c.learningRate)) refuse("learningRate", "> 0", c.learningRate);
  if (!(c.beta1 >= 0 && c.beta1 < 1)) refuse("beta1", "≥ 0 and < 1", c.beta1);
  if (!(c.beta2 >= 0 && c.beta2 < 1)) refuse("beta2", "≥ 0 and < 1", c.beta2);
  if (!finite_positive(c.epsilon)) refuse("epsilon", "> 0", c.epsilon);

  const std::vector<Tensor> layout = parameter_layout(c);
  const double P = double(parameter_count(layout));
  // params, grads, m, v; the positions; each thread's workspace starts empty.
  return 4 * (4 * P + double(c.maxLength) * double(c.dModel)) + double(threads) * sizeof(Workspace);
}

Trainer::Trainer(const TrainerConfig& c, Attention& engine) : config_(c), engine_(engine) {
  bytes_to_create(c, engine.threads());  // (its checks of the config)
  const std::size_t D = c.dModel;
  tensors_ = parameter_layout(c);
  const std::size_t total = parameter_count(tensors_);
  params_.assign(total, 0.0f);
  grads_.assign(total, 0.0f);
  m_.assign(total, 0.0f);
  v_.assign(total, 0.0f);

  std::uint64_t random = c.seed;
  for (const Tensor& t : tensors_) {
    float* p = params_.data() + t.offset;
    const std::size_t n = t.rows * t.cols;
    if (t.normal)
      for (std::size_t i = 0; i < n; ++i) p[i] = normal(random);
    else
      for (std::size_t i = 0; i < n; ++i) p[i] = float((2 * uniform(random) - 1) * t.bound);
  }
  random_ = random;

  // Sinusoidal positions (Vaswani et al.): P[t, 2i] = sin(t / 10000^(2i/dModel)), P[t, 2i+1] = cos(…).
  positions_.resize(checked_product({c.maxLength, D}, "positions: maxLength×dModel"));
  for (std::size_t t = 0; t < c.maxLength; ++t)
    for (std::size_t i = 0; i < D; ++i) {
      // (float math: double sin, cos and pow would add 15 KB of tables to every .wasm)
      const float angle = float(t) * std::exp(-9.2103404f * float(i - i % 2) / float(D));  // t / 10000^(2i/dModel)
      positions_[t * D + i] = i % 2 ? std::cos(angle) : std::sin(angle);
    }
  for (std::size_t i = 0; i < engine_.threads(); ++i)
    workspaces_.push_back(std::make_unique<Workspace>(engine_.kernels()));
}

Trainer::~Trainer() = default;

double Trainer::check(const Sentences& s, bool needTags) const {
  if (s.count < 1) throw ArgumentError("lengths: expected at least one sentence, got 0");
  if (!s.tokens || !s.lengths) throw ArgumentError("tokens: required");
  if (needTags && !s.tags) throw ArgumentError("tags: required");
  const std::size_t L = config_.maxLength;
  double tagged = 0;
  for (std::size_t i = 0; i < s.count; ++i) {
    const std::int32_t n = s.lengths[i];
    if (n < 1 || std::size_t(n) > L) {
      Message message;
      message << "lengths[" << i << "]: expected an integer from 1 to maxLength " << L << ", got ";
      (n < 0 ? message << "a negative number" : message << std::size_t(n)).raise();
    }
    for (std::size_t t = 0; t < std::size_t(n); ++t) {
      const std::int32_t token = s.tokens[i * L + t];
      if (token < 0 || std::size_t(token) >= config_.vocabSize)
        (Message() << "tokens[" << i * L + t << "]: expected an id from 0 to vocabSize - 1 = " << config_.vocabSize - 1)
            .raise();
      if (s.tags) {
        const std::int32_t tag = s.tags[i * L + t];
        if (tag < -1 || tag >= std::int32_t(config_.numTags))
          (Message() << "tags[" << i * L + t
                     << "]: expected -1 (no loss) or a tag from 0 to numTags - 1 = " << config_.numTags - 1)
              .raise();
        tagged += tag >= 0;
      }
    }
  }
  return tagged;
}

void Trainer::set_data(const Sentences& s) {
  const std::size_t n = checked_product({s.count, config_.maxLength}, "tokens: sentences×maxLength");
  check(s, true);
  count_ = cursor_ = 0;  // no training data until all of it is copied
  tokens_.assign(s.tokens, s.tokens + n);
  tags_.assign(s.tags, s.tags + n);
  lengths_.assign(s.lengths, s.lengths + s.count);
  count_ = s.count;
  order_.resize(count_);
  cursor_ = count_;  // shuffle before the first batch
}

void Trainer::set_parameter(const std::string& name, const float* data, std::size_t count) {
  for (const Tensor& t : tensors_) {
    if (name != t.name) continue;
    if (count != t.rows * t.cols)
      (Message() << name.c_str() << ": expected " << t.rows * t.cols << " elements, got " << count).raise();
    std::copy_n(data, count, params_.data() + t.offset);
    last_.valid = false;
    std::fill(m_.begin(), m_.end(), 0.0f);
    std::fill(v_.begin(), v_.end(), 0.0f);
    steps_ = 0;
    beta1Power_ = beta2Power_ = 1;
    return;
  }
  (Message() << name.c_str() << ": not a parameter of this model").raise();
}

void Trainer::check_train(std::size_t steps, std::size_t batchSize) const {
  check_dim(steps, "steps", TrainerLimits::steps);
  check_dim(batchSize, "batchSize", TrainerLimits::batchSize);
  const std::size_t L = config_.maxLength, most = TrainerLimits::slotsPerTrain;
  // (steps and batchSize are at most 2^20 and 2^16 here, maxLength 2^10: the product fits 64 bits)
  const std::uint64_t slots = std::uint64_t{steps} * batchSize * L;
  if (slots <= most) return;
  const std::uint64_t perStep = std::uint64_t{batchSize} * L;
  Message message;
  message << "train: steps×batchSize×maxLength = " << steps << "×" << batchSize << "×" << L << " = " << slots
          << " token slots, more than " << most << " per call; ";
  if (perStep <= most) (message << "split it into calls of at most " << most / perStep << " steps").raise();
  (message << "use a batchSize of at most " << most / L).raise();
}

float Trainer::step(std::size_t batchSize) {
  if (count_ == 0) throw ArgumentError("train: no training data; call setData first");
  check_dim(batchSize, "batchSize", TrainerLimits::batchSize);
  const std::size_t L = config_.maxLength;
  const std::size_t slots = checked_product({batchSize, L}, "batch: batchSize×maxLength");
  batchTokens_.resize(slots);
  batchTags_.resize(slots);
  batchLengths_.resize(batchSize);
  double tagged = 0;
  for (std::size_t b = 0; b < batchSize; ++b) {
    if (cursor_ == count_) {  // a new epoch: Fisher–Yates from the trainer's stream
      for (std::size_t i = 0; i < count_; ++i) order_[i] = std::int32_t(i);
      for (std::size_t i = count_ - 1; i > 0; --i) std::swap(order_[i], order_[next_random(random_) % (i + 1)]);
      cursor_ = 0;
    }
    const std::size_t i = std::size_t(order_[cursor_++]);
    std::copy_n(tokens_.data() + i * L, L, batchTokens_.data() + b * L);
    std::copy_n(tags_.data() + i * L, L, batchTags_.data() + b * L);
    batchLengths_[b] = lengths_[i];
    for (std::int32_t t = 0; t < lengths_[i]; ++t) tagged += tags_[i * L + std::size_t(t)] >= 0;
  }
  // The training set was checked by set_data.
  const float loss = gradients({batchTokens_.data(), batchLengths_.data(), batchTags_.data(), batchSize}, tagged);

  // Adam as torch.optim.Adam (no weight decay, no amsgrad). A learning rate
  // that makes training diverge must not turn every later result into NaN:
  // a step whose batch loss is not finite goes back to the last state whose
  // loss was (kept below, before each update), and an update that would leave
  // a number non-finite is not made. Both are refused with an error.
  const std::size_t failed = steps_ + 1;
  const auto diverged = [&](const char* what) {
    (Message() << "learningRate: training diverged at step " << failed << " (" << what
               << "); the parameters are back at step " << steps_
               << ", the last whose loss was finite; use a smaller learningRate")
        .raise();
  };
  if (!std::isfinite(loss)) {
    if (last_.valid) {
      params_ = last_.params, m_ = last_.m, v_ = last_.v;
      beta1Power_ = last_.beta1Power, beta2Power_ = last_.beta2Power, steps_ = last_.steps;
      last_.valid = false;
    }
    diverged("the batch's loss is not finite");
  }
  const TrainerConfig& c = config_;
  const double power1 = beta1Power_ * c.beta1, power2 = beta2Power_ * c.beta2;  // β^step, no pow in the .wasm
  const float stepSize = float(c.learningRate / (1.0 - power1)), root2 = float(std::sqrt(1.0 - power2));
  const std::size_t P = params_.size();
  next_.resize(3 * P);
  float *m = next_.data(), *v = m + P, *p = v + P;
  bool finite = true;
  for (std::size_t i = 0; i < P; ++i) {
    const float g = grads_[i];
    m[i] = c.beta1 * m_[i] + (1 - c.beta1) * g;
    v[i] = c.beta2 * v_[i] + (1 - c.beta2) * g * g;
    p[i] = params_[i] - stepSize * m[i] / (std::sqrt(v[i]) / root2 + c.epsilon);
    finite = finite && std::isfinite(p[i]) && std::isfinite(v[i]);
  }
  if (!finite) diverged("a parameter would not be finite");
  // This state's loss was finite: keep it (copy-assignments reuse the buffers).
  last_.valid = true;
  last_.params = params_, last_.m = m_, last_.v = v_;
  last_.beta1Power = beta1Power_, last_.beta2Power = beta2Power_, last_.steps = steps_;
  std::copy_n(m, P, m_.data());
  std::copy_n(v, P, v_.data());
  std::copy_n(p, P, params_.data());
  beta1Power_ = power1;
  beta2Power_ = power2;
  ++steps_;
  return loss;
}

float Trainer::loss_and_gradients(const Sentences& s) { return gradients(s, check(s, true)); }

float Trainer::gradients(const Sentences& s, double tagged) {
  const std::size_t shards = blocks(s.count, kShardSentences), P = params_.size();
  shardGrads_.assign(checked_product({shards, P}, "shard gradients: ⌈batchSize/8⌉×parameters"), 0.0f);
  std::vector<double> losses(shards, 0.0);
  run_shards(engine_.pool(), shards, [&](std::size_t shard, std::size_t worker) {
    const std::size_t first = shard * kShardSentences;
    losses[shard] = run_shard(s, first, std::min(kShardSentences, s.count - first), tagged,
                              shardGrads_.data() + shard * P, nullptr, *workspaces_[worker]);
  });
  std::copy_n(shardGrads_.data(), P, grads_.data());
  double loss = losses[0];
  for (std::size_t shard = 1; shard < shards; ++shard) {
    const float* g = shardGrads_.data() + shard * P;
    for (std::size_t i = 0; i < P; ++i) grads_[i] += g[i];
    loss += losses[shard];
  }
  return tagged > 0 ? float(loss / tagged) : 0.0f;
}

float Trainer::evaluate(const Sentences& s, const Evaluation& out) {
  const double tagged = check(s, false);
  // Slots past each sentence's end (the shards write only the rest).
  const TrainerConfig& c = config_;
  const std::size_t slots = checked_product({s.count, c.maxLength}, "predictions: sentences×maxLength");
  if (out.probabilities)
    std::fill_n(out.probabilities,
                checked_product({s.count, c.maxLength, c.numTags}, "probabilities: sentences×maxLength×numTags"), 0.0f);
  if (out.predictions) std::fill_n(out.predictions, slots, -1);
  if (out.attention)  // (run_shard writes it all)
    checked_product({s.count, c.numHeads, c.maxLength, c.maxLength},
                    "attention: sentences×numHeads×maxLength×maxLength");
  const std::size_t shards = blocks(s.count, kShardSentences);
  std::vector<double> losses(shards, 0.0);
  run_shards(engine_.pool(), shards, [&](std::size_t shard, std::size_t worker) {
    const std::size_t first = shard * kShardSentences;
    losses[shard] =
        run_shard(s, first, std::min(kShardSentences, s.count - first), tagged, nullptr, &out, *workspaces_[worker]);
  });
  double loss = 0;
  for (double l : losses) loss += l;
  return tagged > 0 ? float(loss / tagged) : 0.0f;
}

double Trainer::bytes_for(Call call, std::size_t sentences, bool wantAttention) const {
  const TrainerConfig& c = config_;
  const double n = double(sentences), L = double(c.maxLength), P = double(params_.size());
  const double shards = std::ceil(n / kShardSentences);
  // The call's arrays that the trainer sizes are first checked by name.
  if (call == Call::setData) {
    checked_product({sentences, c.maxLength}, "tokens: sentences×maxLength");
    return 4 * (n * (2 * L + 2));  // tokens, tags, lengths, the shuffle
  }
  if (call == Call::train) {
    checked_product({sentences, c.maxLength}, "batch: batchSize×maxLength");
    checked_product({blocks(sentences, kShardSentences), params_.size()}, "shard gradients: ⌈batchSize/8⌉×parameters");
  }
  // One thread's workspace (workspace.hpp) for a shard of the longest sentences.
  const std::size_t count = std::min(sentences, kShardSentences);
  const Dims dims{count, c.maxLength, c.maxLength, c.dModel, c.numHeads, c.dModel / c.numHeads, c.dModel / c.numHeads};
  const double rows = double(count) * L, D = double(c.dModel), F = double(c.mlpHidden), T = double(c.numTags);
  const double widest = std::max({D, F, T}), panelled = std::ceil(widest / kPanel) * kPanel;
  const bool training = call == Call::train;
  const Workspace& w = *workspaces_.front();
  double workspace =
      4 * (7 * rows * D + 3 * rows * F + 2 * rows * T + rows * std::max(D, F) + std::max(rows, widest) * panelled) +
      rows + w.attention.scratch_bytes_for(dims, training || wantAttention, true);
  if (training) workspace += w.backward.scratch_bytes_for(dims, true);
  if (wantAttention && !training) workspace += 4 * double(count) * double(c.numHeads) * L * L;
  double bytes = double(workspaces_.size()) * workspace + 16 * shards;  // + the shards' losses and errors
  // A step: its batch, the shards' gradients, Adam's next step and the state before it.
  if (training) bytes += 4 * (n * (2 * L + 1) + shards * P + 6 * P);
  return bytes;
}

std::size_t Trainer::held_bytes() const noexcept {
  std::size_t floats = shardGrads_.capacity() + next_.capacity() + last_.params.capacity() + last_.m.capacity() +
                       last_.v.capacity() + batchTokens_.capacity() + batchTags_.capacity() + batchLengths_.capacity();
  std::size_t bytes = 0;
  for (const auto& w : workspaces_) {
    for (const auto* v : {&w->x, &w->a, &w->h, &w->z, &w->r, &w->out, &w->logits, &w->dLogits, &w->dOut, &w->dz, &w->dH,
                          &w->dX, &w->packed, &w->transposed, &w->attentionWeights})
      floats += v->capacity();
    bytes += w->mask.capacity() + w->attention.scratch_bytes() + w->backward.scratch_bytes();
  }
  return bytes + floats * sizeof(float);
}

}  // namespace mha

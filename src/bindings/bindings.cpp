// The one Embind file: reads the JS arguments (already checked by
// src/js/validate.mjs), copies typed arrays into wasm memory, runs the core,
// copies results out into new Float32Arrays the caller owns, and turns C++
// errors into JS RangeErrors. Nothing else in the project knows Emscripten.
#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "../core/attention.hpp"
#include "../core/backward.hpp"
#include "../core/benchmark.hpp"
#if MHA_WITH_TRAINER
#include "../core/trainer.hpp"
#endif

namespace {

using emscripten::val;

// Buffers above this size are given back after the call that needed them, so
// one huge call does not keep its memory; smaller ones are reused.
constexpr std::size_t kKeepBytes = std::size_t{4} << 20;

std::size_t dim(const val& args, const char* name) {
  const val v = args[name];
  if (!v.isNumber()) throw mha::ArgumentError(std::string(name) + ": expected a number");
  const double x = v.as<double>();
  if (!(x >= 1 && x <= 2147483648.0) || x != static_cast<double>(static_cast<std::size_t>(x)))
    throw mha::ArgumentError(std::string(name) + ": expected an integer >= 1");
  return static_cast<std::size_t>(x);
}

// Copies src (a typed array of exactly `count` elements) into `buffer`;
// returns null when src is absent and optional.
template <typename T>
const T* copy_in(const val& src, const char* name, std::size_t count, std::vector<T>& buffer, bool optional) {
  if (src.isUndefined() || src.isNull()) {
    if (optional) return nullptr;
    throw mha::ArgumentError(std::string(name) + ": required");
  }
  const std::size_t length = src["length"].as<std::size_t>();
  if (length != count)
    throw mha::ArgumentError(std::string(name) + ": expected " + mha::decimal(count) + " elements, got " +
                             mha::decimal(length));
  buffer.resize(count);
  // The view is made after resize: memory growth would detach an older one.
  val(emscripten::typed_memory_view(count, buffer.data())).call<void>("set", src);
  return buffer.data();
}

val copy_out(const float* data, std::size_t count) {
  val out = val::global("Float32Array").new_(count);
  out.call<void>("set", val(emscripten::typed_memory_view(count, data)));
  return out;
}

template <typename T>
void trim(std::vector<T>& v) {
  if (v.capacity() * sizeof(T) > kKeepBytes) std::vector<T>().swap(v);
}

// Throws a JS RangeError. Called only when no C++ object of the call is alive:
// a JS exception unwinds wasm frames without running C++ destructors.
EM_JS(void, throw_range_error, (const char* message), { throw new RangeError(UTF8ToString(message)); });

// Runs `body`, turning any C++ error into a JS RangeError. The message is
// kept in a fixed buffer, so that nothing on the heap is alive at the throw.
template <typename Body>
val guarded(const Body& body) {
  static thread_local char message[1024];
  // (Not snprintf: it would pull printf's formatting code into the .wasm.)
  const auto keep = [](const char* text) {
    std::size_t n = 0;
    for (; text[n] && n + 1 < sizeof message; ++n) message[n] = text[n];
    message[n] = '\0';
  };
  {
    try {
      return body();
    } catch (const std::bad_alloc&) {
      keep("out of memory: the arrays of this call do not fit the WebAssembly memory");
    } catch (const std::exception& e) {
      keep(e.what());
    }
  }
  throw_range_error(message);
  return val::undefined();  // not reached
}

// Copies of a call's weights (wQ … bO of `source`) in wasm memory.
struct WeightBuffers {
  std::vector<float> wQ, wK, wV, wO, bQ, bK, bV, bO;

  void copy(const val& source, const mha::Sizes& s, mha::Inputs& in) {
    in.wQ = copy_in(source["wQ"], "wQ", s.wQ, wQ, false);
    in.wK = copy_in(source["wK"], "wK", s.wK, wK, false);
    in.wV = copy_in(source["wV"], "wV", s.wV, wV, false);
    in.wO = copy_in(source["wO"], "wO", s.wO, wO, false);
    in.bQ = copy_in(source["bQ"], "bQ", s.bQ, bQ, true);
    in.bK = copy_in(source["bK"], "bK", s.bK, bK, true);
    in.bV = copy_in(source["bV"], "bV", s.bV, bV, true);
    in.bO = copy_in(source["bO"], "bO", s.bO, bO, true);
  }
  std::vector<std::vector<float>*> all() { return {&wQ, &wK, &wV, &wO, &bQ, &bK, &bV, &bO}; }
};

// The activations of one call, as the JS side passes them.
struct Activations {
  mha::Dims dims;
  bool causal = false, wantAttention = false, wantProjections = false, wantScores = false;
  val query = val::undefined(), key = val::undefined(), value = val::undefined(), mask = val::undefined();
};

class Engine {
 public:
  explicit Engine(unsigned threads) : attention_(threads), backward_(attention_) {}

  // One call with its weights (packed for this call only).
  val multiHeadAttention(const val& args) {
    return guarded([&] {
      Activations a;
      a.dims = {dim(args, "batch"), dim(args, "seqLenQ"), dim(args, "seqLenK"), dim(args, "dModel"),
                dim(args, "numHeads"), dim(args, "dK"), dim(args, "dV")};
      a.causal = args["causal"].as<bool>();
      a.wantAttention = args["returnAttention"].as<bool>();
      a.wantProjections = args["returnProjections"].as<bool>();
      a.wantScores = args["returnScores"].as<bool>();
      a.query = args["query"];
      a.key = args["key"];
      a.value = args["value"];
      a.mask = args["keyPaddingMask"];
      return run(a, nullptr, &args);
    });
  }

  // `weights` packed beforehand (a Layer), or null with `weightArgs` to copy.
  val run(const Activations& a, const mha::PackedWeights* weights, const val* weightArgs) {
    const mha::Dims& d = a.dims;
    // The scores come with the weights' path: the weights are computed (into
    // weights_) even when only the scores are returned.
    const bool computeAttention = a.wantAttention || a.wantScores;
    const mha::Sizes s = mha::sizes_of(d, computeAttention);
    check_fits(a, s, weights == nullptr);
    mha::Inputs in = copyActivations(a, s);
    if (weightArgs) weightBuffers_.copy(*weightArgs, s, in);

    output_.resize(s.output);
    weights_.resize(computeAttention ? s.attention : 0);
    mha::Outputs out{output_.data(), computeAttention ? weights_.data() : nullptr};
    if (a.wantScores) {
      scores_.resize(s.attention);
      out.scores = scores_.data();
    }
    const std::size_t nq = d.batch * d.seqLenQ * d.numHeads * d.dK, nk = d.batch * d.seqLenK * d.numHeads * d.dK;
    const std::size_t nv = d.batch * d.seqLenK * d.numHeads * d.dV, nc = d.batch * d.seqLenQ * d.numHeads * d.dV;
    if (a.wantProjections) {
      projections_.resize(nq + nk + nv + nc);
      out.Q = projections_.data();
      out.K = out.Q + nq;
      out.V = out.K + nk;
      out.concat = out.V + nv;
    }
    if (weights)
      attention_.forward(d, *weights, in, out);
    else
      attention_.forward(d, in, out);

    val result = val::object();
    result.set("output", copy_out(output_.data(), s.output));
    if (a.wantAttention) result.set("attention", copy_out(weights_.data(), s.attention));
    if (a.wantScores) result.set("scores", copy_out(scores_.data(), s.attention));
    if (a.wantProjections) {
      val projections = val::object();
      projections.set("Q", copy_out(out.Q, nq));
      projections.set("K", copy_out(out.K, nk));
      projections.set("V", copy_out(out.V, nv));
      projections.set("concat", copy_out(out.concat, nc));
      result.set("projections", projections);
    }
    trimBuffers();
    return result;
  }

  // Gradients of sum(gradOutput ⊙ output) for every input, weight and given
  // bias of the same call (the forward is recomputed, nothing is kept).
  val multiHeadAttentionBackward(const val& args) {
    return guarded([&] {
      Activations a;
      a.dims = {dim(args, "batch"), dim(args, "seqLenQ"), dim(args, "seqLenK"), dim(args, "dModel"),
                dim(args, "numHeads"), dim(args, "dK"), dim(args, "dV")};
      a.causal = args["causal"].as<bool>();
      a.query = args["query"];
      a.key = args["key"];
      a.value = args["value"];
      a.mask = args["keyPaddingMask"];
      const mha::Dims& d = a.dims;
      // The recomputed forward keeps the attention weights: counted as wanted.
      a.wantAttention = true;
      const mha::Sizes s = mha::sizes_of(d, true);
      const bool self = (a.key.isUndefined() || a.key.isNull()) && (a.value.isUndefined() || a.value.isNull());
      const double gradients = double(s.query) + double(s.key) + double(s.value) + double(s.wQ) + double(s.wK) +
                               double(s.wV) + double(s.wO) + double(s.bQ + s.bK + s.bV + s.bO);
      check_fits(a, s, true, gradients + double(s.output) + backward_.scratch_bytes_for(d, self) / 4);

      mha::Inputs in = copyActivations(a, s);
      if (!self && (in.key == in.query || in.value == in.query))
        throw mha::ArgumentError("key/value: give both (cross-attention) or neither (self-attention)");
      weightBuffers_.copy(args, s, in);
      const float* gradOutput = copy_in(args["gradOutput"], "gradOutput", s.output, output_, false);

      // One buffer for every gradient, laid out in this order.
      struct Part {
        const char* name;
        std::size_t count;
        bool wanted;
      };
      const Part parts[] = {{"gradQuery", s.query, true},     {"gradKey", s.key, !self},    {"gradValue", s.value, !self},
                            {"gradWQ", s.wQ, true},           {"gradWK", s.wK, true},       {"gradWV", s.wV, true},
                            {"gradWO", s.wO, true},           {"gradBQ", s.bQ, in.bQ != nullptr},
                            {"gradBK", s.bK, in.bK != nullptr}, {"gradBV", s.bV, in.bV != nullptr},
                            {"gradBO", s.bO, in.bO != nullptr}};
      std::size_t total = 0;
      for (const Part& p : parts) total += p.wanted ? p.count : 0;
      weights_.resize(total);
      float* at[11] = {};
      float* next = weights_.data();
      for (std::size_t i = 0; i < 11; ++i)
        if (parts[i].wanted) {
          at[i] = next;
          next += parts[i].count;
        }
      mha::Gradients g;
      g.query = at[0];
      g.key = at[1];
      g.value = at[2];
      g.wQ = at[3];
      g.wK = at[4];
      g.wV = at[5];
      g.wO = at[6];
      g.bQ = at[7];
      g.bK = at[8];
      g.bV = at[9];
      g.bO = at[10];
      backward_.backward(d, in, gradOutput, g);

      val result = val::object();
      for (std::size_t i = 0; i < 11; ++i)
        if (at[i]) result.set(parts[i].name, copy_out(at[i], parts[i].count));
      trimBuffers();
      if (backward_.scratch_bytes() > kKeepBytes) backward_.release();
      return result;
    });
  }

  // { heapBytes, inUseBytes, scratchBytes }: the wasm heap, what malloc has
  // handed out of it, and how much of that the engine keeps between calls.
  val memoryStats() {
    val stats = val::object();
    stats.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
    stats.set("inUseBytes", static_cast<double>(mallinfo().uordblks));
    stats.set("scratchBytes", static_cast<double>(keptBytes()));
    return stats;
  }

  std::string kernels() const { return attention_.kernels().name; }
  unsigned threads() const { return static_cast<unsigned>(attention_.threads()); }
  // The engine's threads, for a Trainer.
  mha::Attention& attention() { return attention_; }

 private:
  // Copies the activations and masks of a call into wasm memory.
  mha::Inputs copyActivations(const Activations& a, const mha::Sizes& s) {
    mha::Inputs in;
    in.query = copy_in(a.query, "query", s.query, query_, false);
    in.key = copy_in(a.key, "key", s.key, key_, true);
    in.value = copy_in(a.value, "value", s.value, value_, true);
    // Self-attention: key and value are the query (only valid when seqLenK == seqLenQ).
    if (!in.key) in.key = in.query;
    if (!in.value) in.value = in.query;
    if ((in.key == in.query || in.value == in.query) && s.key != s.query)
      throw mha::ArgumentError("key/value: required when seqLenK differs from seqLenQ");
    in.keyPaddingMask = copy_in(a.mask, "keyPaddingMask", s.keyPaddingMask, mask_, true);
    in.causal = a.causal;
    return in;
  }

  // Refuses, before allocating anything, a call whose buffers cannot fit the
  // wasm memory's limit, so that it fails cleanly instead of half-way.
  // `extraFloats`: what the caller needs beyond a forward call's buffers.
  void check_fits(const Activations& a, const mha::Sizes& s, bool oneShot, double extraFloats = 0) {
    const mha::Dims& d = a.dims;
    const double floats =
        double(s.query) + (a.key.isUndefined() || a.key.isNull() ? 0.0 : double(s.key)) +
        (a.value.isUndefined() || a.value.isNull() ? 0.0 : double(s.value)) + double(s.output) +
        (a.wantAttention || a.wantScores ? double(s.attention) : 0.0) + (a.wantScores ? double(s.attention) : 0.0) +
        (oneShot ? double(s.wQ + s.wK + s.wV + s.wO + s.bQ + s.bK + s.bV + s.bO) : 0.0) +
        (a.wantProjections ? double(d.batch) * d.numHeads * ((d.seqLenQ + d.seqLenK) * (d.dK + d.dV)) : 0.0);
    const double needed = 4 * (floats + extraFloats) + double(s.keyPaddingMask) +
                          attention_.scratch_bytes_for(d, a.wantAttention || a.wantScores, oneShot);
    const double limit = double(emscripten_get_heap_max());
    // Fast path: what the heap can still grow by is surely available.
    if (needed <= limit - double(emscripten_get_heap_size())) return;
    // What this engine already holds is reused or freed first; the rest of the
    // heap's allocations (layers, other engines' leftovers) stay. (mallinfo
    // walks the heap, so it is only asked when the fast path cannot decide.)
    const double held = double(keptBytes());
    const double available = limit - (double(mallinfo().uordblks) - held);
    if (needed > available)
      throw mha::ArgumentError("this call needs " + mha::decimal(static_cast<unsigned long long>(needed)) +
                               " bytes of WebAssembly memory, more than the " +
                               mha::decimal(static_cast<unsigned long long>(available)) + " bytes available (limit " +
                               mha::decimal(static_cast<unsigned long long>(limit)) + "); use shorter sequences or a smaller batch");
  }

  // Every float buffer the engine keeps between calls.
  std::vector<std::vector<float>*> buffers() {
    std::vector<std::vector<float>*> all = weightBuffers_.all();
    for (auto* v : {&query_, &key_, &value_, &output_, &weights_, &projections_, &scores_}) all.push_back(v);
    return all;
  }

  std::size_t keptBytes() {
    std::size_t kept = attention_.scratch_bytes() + backward_.scratch_bytes() + mask_.capacity();
    for (const auto* v : buffers()) kept += v->capacity() * sizeof(float);
    return kept;
  }

  void trimBuffers() {
    for (auto* v : buffers()) trim(*v);
    trim(mask_);
    if (attention_.scratch_bytes() > kKeepBytes) attention_.release();
  }

  std::vector<float> query_, key_, value_;
  WeightBuffers weightBuffers_;
  std::vector<float> output_, weights_, projections_, scores_;
  std::vector<std::uint8_t> mask_;
  mha::Attention attention_;
  mha::AttentionBackward backward_;
};

// Weights packed once and kept in wasm memory; each forward copies only the
// activations. Runs on the engine it was made with (which must outlive it:
// src/js disposes an engine's layers first).
class Layer {
 public:
  explicit Layer(Engine& engine) : engine_(engine) {}

  // Separate from the constructor: a JS exception thrown out of a constructor
  // would leak the half-made object.
  void assign(const val& args) {
    guarded([&] {
      mha::Dims d{1, 1, 1, dim(args, "dModel"), dim(args, "numHeads"), dim(args, "dK"), dim(args, "dV")};
      WeightBuffers buffers;
      mha::Inputs in;
      buffers.copy(args, mha::sizes_of(d, false), in);
      weights_.assign(d, in);
      return val::undefined();
    });
  }

  // Positional and plain-typed, so a small call costs little more than its copies.
  val forward(unsigned batch, unsigned seqLenQ, unsigned seqLenK, bool causal, bool wantAttention,
              bool wantProjections, bool wantScores, const val& query, const val& key, const val& value,
              const val& mask) {
    return guarded([&] {
      Activations a;
      a.dims = {batch, seqLenQ, seqLenK, weights_.dModel, weights_.numHeads, weights_.dK, weights_.dV};
      a.causal = causal;
      a.wantAttention = wantAttention;
      a.wantProjections = wantProjections;
      a.wantScores = wantScores;
      a.query = query;
      a.key = key;
      a.value = value;
      a.mask = mask;
      return engine_.run(a, &weights_, nullptr);
    });
  }

  double bytes() const { return static_cast<double>(weights_.bytes()); }

 private:
  Engine& engine_;
  mha::PackedWeights weights_;
};

#if MHA_WITH_TRAINER
// The tagger of src/core/trainer.hpp on the engine's threads. Like a Layer it
// must not outlive its engine (src/js disposes an engine's trainers first).
class Trainer {
 public:
  explicit Trainer(Engine& engine) : engine_(engine) {}

  // Separate from the constructor, as Layer::assign.
  void configure(const val& args) {
    guarded([&] {
      mha::TrainerConfig c;
      c.vocabSize = dim(args, "vocabSize");
      c.numTags = dim(args, "numTags");
      c.maxLength = dim(args, "maxLength");
      c.dModel = dim(args, "dModel");
      c.numHeads = dim(args, "numHeads");
      c.mlpHidden = args["mlpHidden"].as<unsigned>();
      c.learningRate = args["learningRate"].as<float>();
      c.beta1 = args["beta1"].as<float>();
      c.beta2 = args["beta2"].as<float>();
      c.epsilon = args["epsilon"].as<float>();
      c.seed = args["seed"].as<unsigned>();
      trainer_.reset();
      trainer_ = std::make_unique<mha::Trainer>(c, engine_.attention());
      return val::undefined();
    });
  }

  void setData(const val& args) {
    guarded([&] {
      Buffers b;
      live().set_data(sentences(args, b, true));
      return val::undefined();
    });
  }

  // `steps` Adam steps; a Float32Array of each batch's loss.
  val train(unsigned steps, unsigned batchSize) {
    return guarded([&] {
      std::vector<float> losses(steps);
      for (auto& loss : losses) loss = live().step(batchSize);
      return copy_out(losses.data(), losses.size());
    });
  }

  val evaluate(const val& args, bool wantAttention) {
    return guarded([&] {
      Buffers b;
      mha::Trainer& t = live();
      const mha::Sentences s = sentences(args, b, false);
      const mha::TrainerConfig& c = t.config();
      const std::size_t slots = s.count * c.maxLength;
      std::vector<float> probabilities(slots * c.numTags), attention(wantAttention ? slots * c.numHeads * c.maxLength : 0);
      std::vector<std::int32_t> predictions(slots);
      const float loss = t.evaluate(s, {probabilities.data(), predictions.data(), wantAttention ? attention.data() : nullptr});
      val result = val::object();
      result.set("loss", loss);
      result.set("probabilities", copy_out(probabilities.data(), probabilities.size()));
      val p = val::global("Int32Array").new_(predictions.size());
      p.call<void>("set", val(emscripten::typed_memory_view(predictions.size(), predictions.data())));
      result.set("predictions", p);
      if (wantAttention) result.set("attention", copy_out(attention.data(), attention.size()));
      return result;
    });
  }

  // Every parameter by name, copied out: { embedding, wQ, bQ, …, wC, bC }.
  val parameters() {
    return guarded([&] {
      mha::Trainer& t = live();
      val result = val::object();
      for (const mha::Tensor& tensor : t.tensors())
        result.set(tensor.name, copy_out(t.parameters().data() + tensor.offset, tensor.rows * tensor.cols));
      return result;
    });
  }

  // { name: Float32Array } for some of the parameters (src/js checks the names and lengths).
  void setParameters(const val& values) {
    guarded([&] {
      mha::Trainer& t = live();
      std::vector<float> buffer;
      for (const mha::Tensor& tensor : t.tensors()) {
        const val v = values[tensor.name];
        if (v.isUndefined()) continue;
        copy_in(v, tensor.name, tensor.rows * tensor.cols, buffer, false);
        t.set_parameter(tensor.name, buffer.data(), buffer.size());
      }
      return val::undefined();
    });
  }

  double steps() { return trainer_ ? double(trainer_->steps()) : 0.0; }

 private:
  struct Buffers {
    std::vector<std::int32_t> tokens, lengths, tags;
  };

  mha::Trainer& live() {
    if (!trainer_) throw mha::ArgumentError("trainer: not configured");
    return *trainer_;
  }

  mha::Sentences sentences(const val& args, Buffers& b, bool needTags) {
    const std::size_t count = dim(args, "count"), L = live().config().maxLength;
    mha::Sentences s;
    s.count = count;
    s.tokens = copy_in(args["tokens"], "tokens", count * L, b.tokens, false);
    s.lengths = copy_in(args["lengths"], "lengths", count, b.lengths, false);
    s.tags = copy_in(args["tags"], "tags", count * L, b.tags, !needTags);
    return s;
  }

  Engine& engine_;
  std::unique_ptr<mha::Trainer> trainer_;
};
#endif  // MHA_WITH_TRAINER

// For bench/: the kernels alone (timed by the caller).
class KernelBenchmark {
 public:
  KernelBenchmark(unsigned M, unsigned N, unsigned K) : gemm_(M, N, K) {}
  float gemm() { return gemm_.run(mha::default_kernels()); }
  double gemmFlops() const { return gemm_.flops(); }
  float peak(unsigned iterations) { return mha::default_kernels().peak(iterations, 1.0f); }
  double peakFlops(unsigned iterations) const {
    return double(iterations) * mha::default_kernels().peak_flops_per_iteration;
  }

 private:
  mha::GemmBenchmark gemm_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(mha_wasm) {
  emscripten::class_<Engine>("Engine")
      .constructor<unsigned>()
      .function("multiHeadAttention", &Engine::multiHeadAttention)
      .function("multiHeadAttentionBackward", &Engine::multiHeadAttentionBackward)
      .function("memoryStats", &Engine::memoryStats)
      .function("kernels", &Engine::kernels)
      .function("threads", &Engine::threads);
  emscripten::class_<Layer>("Layer")
      .constructor<Engine&>()
      .function("assign", &Layer::assign)
      .function("forward", &Layer::forward)
      .function("bytes", &Layer::bytes);
#if MHA_WITH_TRAINER
  emscripten::class_<Trainer>("Trainer")
      .constructor<Engine&>()
      .function("configure", &Trainer::configure)
      .function("setData", &Trainer::setData)
      .function("train", &Trainer::train)
      .function("evaluate", &Trainer::evaluate)
      .function("parameters", &Trainer::parameters)
      .function("setParameters", &Trainer::setParameters)
      .function("steps", &Trainer::steps);
#endif
  emscripten::class_<KernelBenchmark>("KernelBenchmark")
      .constructor<unsigned, unsigned, unsigned>()
      .function("gemm", &KernelBenchmark::gemm)
      .function("gemmFlops", &KernelBenchmark::gemmFlops)
      .function("peak", &KernelBenchmark::peak)
      .function("peakFlops", &KernelBenchmark::peakFlops);
}

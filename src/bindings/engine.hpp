// The engine's bindings: Engine (one-shot calls, the backward pass, memory
// statistics), its buffers and its memory budget. engine.cpp binds it with
// Layer; the trainer's bindings (trainer.cpp) run on an Engine too.
#pragma once

#include <emscripten/heap.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "../core/attention.hpp"
#include "../core/backward.hpp"
#include "convert.hpp"

namespace mha::bindings {

// Copies of a call's weights (wQ … bO of `source`) in wasm memory.
struct WeightBuffers {
  std::vector<float> wQ, wK, wV, wO, bQ, bK, bV, bO;

  void copy(const val& source, const Sizes& s, Inputs& in) {
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

// The shape of one call and what it asks for: which inputs it has, which
// results it wants. Plain data: a layer's staged call is only this.
struct Call {
  Dims dims;
  bool causal = false, wantAttention = false, wantProjections = false, wantScores = false;
  bool hasKey = false, hasValue = false, hasMask = false;
};

// A one-shot call's activations as the JS side passes them: the Call and the arrays.
struct Activations : Call {
  val query = val::undefined(), key = val::undefined(), value = val::undefined(), mask = val::undefined();

  // From a normalized call object (validate.mjs); the return* flags only when `withFlags`.
  static Activations from(const val& args, bool withFlags) {
    Activations a;
    a.dims = {dim(args, "batch"),    dim(args, "seqLenQ"), dim(args, "seqLenK"), dim(args, "dModel"),
              dim(args, "numHeads"), dim(args, "dK"),      dim(args, "dV")};
    a.causal = args["causal"].as<bool>();
    if (withFlags) {
      a.wantAttention = args["returnAttention"].as<bool>();
      a.wantProjections = args["returnProjections"].as<bool>();
      a.wantScores = args["returnScores"].as<bool>();
    }
    a.query = args["query"];
    a.key = args["key"];
    a.value = args["value"];
    a.mask = args["keyPaddingMask"];
    const auto given = [](const val& v) { return !v.isUndefined() && !v.isNull(); };
    a.hasKey = given(a.key);
    a.hasValue = given(a.value);
    a.hasMask = given(a.mask);
    return a;
  }
};

class Engine {
 public:
  explicit Engine(unsigned threads) : attention_(threads), backward_(attention_) {}

  // One call with its weights (packed for this call only): its arrays are
  // copied in from `args`; its results stay in the engine's buffers, listed
  // in io_ as a layer's are (runStaged), for JS to copy out.
  int multiHeadAttention(const val& args) {
    return guarded_status([&] {
      std::fill(std::begin(io_), std::end(io_), 0u);
      const Activations a = Activations::from(args, true);
      const Sizes s = prepare(a, true);
      Inputs in = copyActivations(a, s);
      weightBuffers_.copy(args, s, in);
      recordResults(compute(a, s, nullptr, in));
    });
  }

  // A layer's call in two steps, so that its arrays cross with one copy each
  // way, made by JS (engine-host.js) straight into and out of the wasm
  // memory: stage() checks the call and sizes the input buffers, runStaged()
  // computes; after each, io_ says where the arrays are. JS copies the
  // results out before it calls releaseBuffers(), after one-shot calls too.
  void stage(const Call& a) {
    staged_ = false;
    std::fill(std::begin(io_), std::end(io_), 0u);
    const Sizes s = prepare(a, false);
    query_.resize(s.query);
    record(kQuerySlot, query_.data(), s.query);
    if (a.hasKey) {
      key_.resize(s.key);
      record(kKeySlot, key_.data(), s.key);
    }
    if (a.hasValue) {
      value_.resize(s.value);
      record(kValueSlot, value_.data(), s.value);
    }
    if (a.hasMask) {
      mask_.resize(s.keyPaddingMask);
      record(kMaskSlot, mask_.data(), s.keyPaddingMask);
    }
    stagedCall_ = a;
    stagedSizes_ = s;
    staged_ = true;
  }

  void runStaged(const PackedWeights& weights) {
    if (!staged_) throw ArgumentError("forward: no call staged");
    staged_ = false;
    const Call& a = stagedCall_;
    const Sizes& s = stagedSizes_;
    Inputs in;
    in.query = query_.data();
    in.key = a.hasKey ? key_.data() : nullptr;
    in.value = a.hasValue ? value_.data() : nullptr;
    in.keyPaddingMask = a.hasMask ? mask_.data() : nullptr;
    in.causal = a.causal;
    recordResults(compute(a, s, &weights, in));
  }

  // The slots of io_, in order (JS reads their names once, from ioSlots()).
  enum IoSlot : unsigned {
    kQuerySlot,
    kKeySlot,
    kValueSlot,
    kMaskSlot,
    kOutputSlot,
    kAttentionSlot,
    kScoresSlot,
    kQSlot,
    kKSlot,
    kVSlot,
    kConcatSlot,
    kSlotCount
  };
  static constexpr const char* kIoSlotNames[kSlotCount] = {
      "query", "key", "value", "keyPaddingMask", "output", "attention", "scores", "Q", "K", "V", "concat"};
  // The byte address of io_: per slot, the address of its array and its
  // element count (0 and 0 for an array the call does not have).
  unsigned ioRecord() const { return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(io_)); }
  // The whole wasm memory as a Uint8Array, for JS to see memory grown by another thread.
  val memoryView() const {
    return val(emscripten::typed_memory_view(emscripten_get_heap_size(), static_cast<const unsigned char*>(nullptr)));
  }

  // Gives back the buffers above kKeepBytes (after JS has copied a staged call's results).
  void releaseBuffers() { trimBuffers(); }

  // Gradients of sum(gradOutput ⊙ output) for every input, weight and given
  // bias of the same call (the forward is recomputed, nothing is kept).
  val multiHeadAttentionBackward(const val& args) {
    return guarded([&] {
      Activations a = Activations::from(args, false);
      const Dims& d = a.dims;
      // The recomputed forward keeps the attention weights: counted as wanted.
      a.wantAttention = true;
      const Sizes s = sizes_of(d, true);
      const bool self = !a.hasKey && !a.hasValue;
      const double gradients = double(s.query) + double(s.key) + double(s.value) + double(s.wQ) + double(s.wK) +
                               double(s.wV) + double(s.wO) + double(s.bQ + s.bK + s.bV + s.bO);
      check_fits(a, s, true, gradients + double(s.output) + backward_.scratch_bytes_for(d, self) / 4);

      Inputs in = copyActivations(a, s);
      weightBuffers_.copy(args, s, in);
      const float* gradOutput = copy_in(args["gradOutput"], "gradOutput", s.output, output_, false);

      // One buffer for every gradient, laid out in this order: each part
      // names its field of Gradients (as the trainer's parameter table does).
      struct Part {
        const char* name;
        float* Gradients::*field;
        std::size_t count;
        bool wanted;
      };
      const Part parts[] = {{"gradQuery", &Gradients::query, s.query, true},
                            {"gradKey", &Gradients::key, s.key, !self},
                            {"gradValue", &Gradients::value, s.value, !self},
                            {"gradWQ", &Gradients::wQ, s.wQ, true},
                            {"gradWK", &Gradients::wK, s.wK, true},
                            {"gradWV", &Gradients::wV, s.wV, true},
                            {"gradWO", &Gradients::wO, s.wO, true},
                            {"gradBQ", &Gradients::bQ, s.bQ, in.bQ != nullptr},
                            {"gradBK", &Gradients::bK, s.bK, in.bK != nullptr},
                            {"gradBV", &Gradients::bV, s.bV, in.bV != nullptr},
                            {"gradBO", &Gradients::bO, s.bO, in.bO != nullptr}};
      std::size_t total = 0;
      for (const Part& p : parts) total += p.wanted ? p.count : 0;
      weights_.resize(total);
      Gradients g;
      float* next = weights_.data();
      for (const Part& p : parts)
        if (p.wanted) {
          g.*p.field = next;
          next += p.count;
        }
      backward_.backward(d, in, gradOutput, g);

      val result = val::object();
      for (const Part& p : parts)
        if (p.wanted) result.set(p.name, copy_out(g.*p.field, p.count));
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
  Attention& attention() { return attention_; }

 private:
  // The checks of a call before anything is allocated: its sizes, and that
  // its buffers fit the memory (with the weights' copies for a one-shot call).
  Sizes prepare(const Call& a, bool oneShot) {
    const Sizes s = sizes_of(a.dims, a.wantAttention || a.wantScores);
    check_fits(a, s, oneShot);
    return s;
  }

  // A forward pass's arrays, by IoSlot (the inputs' slots unused).
  struct Results {
    const float* data[kSlotCount] = {};
    std::size_t count[kSlotCount] = {};
  };

  // Runs the forward pass on `in` (with `weights` packed beforehand, or the
  // ones `in` points to) into the engine's buffers.
  Results compute(const Call& a, const Sizes& s, const PackedWeights* weights, const Inputs& in) {
    const Dims& d = a.dims;
    // The scores come with the weights' path: the weights are computed (into
    // weights_) even when only the scores are returned.
    const bool computeAttention = a.wantAttention || a.wantScores;
    output_.resize(s.output);
    weights_.resize(computeAttention ? s.attention : 0);
    Outputs out{output_.data(), computeAttention ? weights_.data() : nullptr};
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

    Results r;
    const auto put = [&](IoSlot slot, const float* data, std::size_t count, bool wanted) {
      if (!wanted) return;
      r.data[slot] = data;
      r.count[slot] = count;
    };
    put(kOutputSlot, out.output, s.output, true);
    put(kAttentionSlot, out.attention, s.attention, a.wantAttention);
    put(kScoresSlot, out.scores, s.attention, a.wantScores);
    put(kQSlot, out.Q, nq, a.wantProjections);
    put(kKSlot, out.K, nk, a.wantProjections);
    put(kVSlot, out.V, nv, a.wantProjections);
    put(kConcatSlot, out.concat, nc, a.wantProjections);
    return r;
  }

  void recordResults(const Results& r) {
    for (unsigned slot = kOutputSlot; slot < kSlotCount; ++slot) record(slot, r.data[slot], r.count[slot]);
  }

  template <typename T>
  void record(unsigned slot, const T* data, std::size_t count) {
    io_[2 * slot] = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data));
    io_[2 * slot + 1] = static_cast<std::uint32_t>(count);
  }

  // Copies the activations and masks of a call into wasm memory.
  Inputs copyActivations(const Activations& a, const Sizes& s) {
    Inputs in;
    in.query = copy_in(a.query, "query", s.query, query_, false);
    in.key = copy_in(a.key, "key", s.key, key_, true);
    in.value = copy_in(a.value, "value", s.value, value_, true);
    // A missing key or value stays null: the core's default_key_value() applies the rule.
    in.keyPaddingMask = copy_in(a.mask, "keyPaddingMask", s.keyPaddingMask, mask_, true);
    in.causal = a.causal;
    return in;
  }

  // Refuses, before allocating anything, a call whose buffers cannot fit the
  // wasm memory's limit, so that it fails cleanly instead of half-way.
  // `extraFloats`: what the caller needs beyond a forward call's buffers.
  void check_fits(const Call& a, const Sizes& s, bool oneShot, double extraFloats = 0) {
    const Dims& d = a.dims;
    const double floats =
        double(s.query) + (a.hasKey ? double(s.key) : 0.0) + (a.hasValue ? double(s.value) : 0.0) + double(s.output) +
        (a.wantAttention || a.wantScores ? double(s.attention) : 0.0) + (a.wantScores ? double(s.attention) : 0.0) +
        (oneShot ? double(s.wQ + s.wK + s.wV + s.wO + s.bQ + s.bK + s.bV + s.bO) : 0.0) +
        (a.wantProjections ? double(d.batch) * d.numHeads * ((d.seqLenQ + d.seqLenK) * (d.dK + d.dV)) : 0.0);
    const double needed = 4 * (floats + extraFloats) + double(s.keyPaddingMask) +
                          attention_.scratch_bytes_for(d, a.wantAttention || a.wantScores, oneShot);
    // What this engine already holds is reused or freed first; the rest of the
    // heap's allocations (layers, other engines' leftovers) stay.
    check_memory(
        needed, [this] { return keptBytes(); }, "this call", "use shorter sequences or a smaller batch");
  }

  // Every float buffer the engine keeps between calls.
  std::vector<std::vector<float>*> buffers() {
    std::vector<std::vector<float>*> all = weightBuffers_.all();
    for (auto* v : {&weights_, &projections_, &scores_}) all.push_back(v);
    return all;
  }
  std::vector<FloatBuffer*> uninitializedBuffers() { return {&query_, &key_, &value_, &output_}; }

  std::size_t keptBytes() {
    std::size_t kept = attention_.scratch_bytes() + backward_.scratch_bytes() + mask_.capacity();
    for (const auto* v : buffers()) kept += v->capacity() * sizeof(float);
    for (const auto* v : uninitializedBuffers()) kept += v->capacity() * sizeof(float);
    return kept;
  }

  void trimBuffers() {
    for (auto* v : buffers()) trim(*v);
    for (auto* v : uninitializedBuffers()) trim(*v);
    trim(mask_);
    if (attention_.scratch_bytes() > kKeepBytes) attention_.release();
  }

  // Written in full before they are read: copied in, or the output.
  FloatBuffer query_, key_, value_, output_;
  WeightBuffers weightBuffers_;
  std::vector<float> weights_, projections_, scores_;
  std::vector<std::uint8_t> mask_;
  // A layer's call between stage() and runStaged(), and where its arrays are.
  Call stagedCall_;
  Sizes stagedSizes_{};
  bool staged_ = false;
  std::uint32_t io_[2 * kSlotCount] = {};
  Attention attention_;
  AttentionBackward backward_;
};

}  // namespace mha::bindings

// Embind registration of the engine: Engine, Layer and the limits table that
// src/js reads at load (limits()).
#include "engine.hpp"

namespace mha::bindings {
namespace {

// Weights packed once and kept in wasm memory; each forward copies only the
// activations. Runs on the engine it was made with (which must outlive it:
// src/js disposes an engine's layers first).
class Layer {
 public:
  explicit Layer(Engine& engine) : engine_(engine) {}

  // Separate from the constructor: a JS exception thrown out of a constructor
  // would leak the half-made object.
  val assign(const val& args) {
    return guarded([&] {
      Dims d{1, 1, 1, dim(args, "dModel"), dim(args, "numHeads"), dim(args, "dK"), dim(args, "dV")};
      WeightBuffers buffers;
      Inputs in;
      buffers.copy(args, sizes_of(d, false), in);
      weights_.assign(d, in);
      return val::undefined();
    });
  }

  // Positional and plain-typed, so a small call costs little more than its copies.
  val forward(unsigned batch, unsigned seqLenQ, unsigned seqLenK, bool causal, bool wantAttention, bool wantProjections,
              bool wantScores, const val& query, const val& key, const val& value, const val& mask) {
    return guarded([&] {
      const Dims d{batch, seqLenQ, seqLenK, weights_.dModel, weights_.numHeads, weights_.dK, weights_.dV};
      const Activations a{d, causal, wantAttention, wantProjections, wantScores, query, key, value, mask};
      return engine_.run(a, &weights_, nullptr);
    });
  }

  double bytes() const { return static_cast<double>(weights_.bytes()); }

 private:
  Engine& engine_;
  PackedWeights weights_;
};

// The limits src/js checks first (common.hpp is where they are defined).
val limits() {
  val table = val::object();
  table.set("maxElements", static_cast<double>(kMaxElements));
  return table;
}

}  // namespace
}  // namespace mha::bindings

EMSCRIPTEN_BINDINGS(mha_engine) {
  using namespace mha::bindings;
  emscripten::function("limits", &limits);
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
}

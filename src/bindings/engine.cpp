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

  // A call in two steps (Engine::stage): plain arguments and a status (0, or
  // 1 with the error in lastError()), so that a small call costs little more
  // than its two copies, which JS makes.
  int stage(unsigned batch, unsigned seqLenQ, unsigned seqLenK, bool causal, bool wantAttention, bool wantProjections,
            bool wantScores, bool hasKey, bool hasValue, bool hasMask) {
    return guarded_status([&] {
      const Dims d{batch, seqLenQ, seqLenK, weights_.dModel, weights_.numHeads, weights_.dK, weights_.dV};
      engine_.stage({d, causal, wantAttention, wantProjections, wantScores, hasKey, hasValue, hasMask});
    });
  }

  int run() {
    return guarded_status([&] { engine_.runStaged(weights_); });
  }

  double bytes() const { return static_cast<double>(weights_.bytes()); }

 private:
  Engine& engine_;
  PackedWeights weights_;
};

// The names of Engine::ioRecord()'s slots, in order.
val ioSlots() {
  val names = val::array();
  for (const char* name : Engine::kIoSlotNames) names.call<void>("push", std::string(name));
  return names;
}

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
  emscripten::function("ioSlots", &ioSlots);
  emscripten::function("lastError", &last_error);
  emscripten::class_<Engine>("Engine")
      .constructor<unsigned>()
      .function("multiHeadAttention", &Engine::multiHeadAttention)
      .function("multiHeadAttentionBackward", &Engine::multiHeadAttentionBackward)
      .function("memoryStats", &Engine::memoryStats)
      .function("kernels", &Engine::kernels)
      .function("threads", &Engine::threads)
      .function("releaseBuffers", &Engine::releaseBuffers)
      .function("ioRecord", &Engine::ioRecord)
      .function("memoryView", &Engine::memoryView);
  emscripten::class_<Layer>("Layer")
      .constructor<Engine&>()
      .function("assign", &Layer::assign)
      .function("stage", &Layer::stage)
      .function("run", &Layer::run)
      .function("bytes", &Layer::bytes);
}

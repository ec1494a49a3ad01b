// Embind registration of the benchmark's measurements, only in the bench
// build (build/wasm/bench/mha-bench-simd.js, with MHA_PROFILE), never in the
// package's .wasm: the GEMM alone and the arithmetic ceiling, timed by the
// caller (bench/bench.mjs); one forward pass with its stages timed
// (bench/profile.mjs).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <chrono>
#include <vector>

#include "../core/attention.hpp"
#include "../core/benchmark.hpp"

namespace {

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

// Self-attention of one sequence through resident weights on one thread,
// with deterministic inputs; run() returns each stage's milliseconds.
class ProfiledForward {
 public:
  ProfiledForward(unsigned L, unsigned dModel, unsigned numHeads, unsigned dK, bool causal)
      : dims_{1, L, L, dModel, numHeads, dK, dK},
        query_(std::size_t(L) * dModel),
        output_(query_.size()),
        causal_(causal) {
    std::vector<float> w(std::size_t(dModel) * numHeads * dK);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 23) * 0.002f - 0.02f;
    for (std::size_t i = 0; i < query_.size(); ++i) query_[i] = static_cast<float>(i % 19) * 0.05f - 0.45f;
    mha::Inputs weights;
    weights.wQ = weights.wK = weights.wV = weights.wO = w.data();
    packed_.assign(dims_, weights);
  }

  // With `stages`, each stage timed; without, only the whole call (the
  // timers of the fused attention's tiles then cost nothing).
  emscripten::val run(bool stages) {
    mha::ForwardProfile p;
    attention_.profile = stages ? &p : nullptr;
    mha::Inputs in;
    in.query = query_.data();
    in.causal = causal_;
    const auto start = std::chrono::steady_clock::now();
    attention_.forward(dims_, packed_, in, {output_.data(), nullptr});
    const double total = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    attention_.profile = nullptr;
    emscripten::val out = emscripten::val::object();
    out.set("projections", p.projections);
    out.set("packing", p.packing);
    out.set("scores", p.scores);
    out.set("softmax", p.softmax);
    out.set("weighted", p.weighted);
    out.set("output", p.output);
    out.set("copies", p.copies);
    out.set("total", total);
    return out;
  }

 private:
  mha::Dims dims_;
  mha::Attention attention_{1};
  mha::PackedWeights packed_;
  std::vector<float> query_, output_;
  bool causal_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(mha_bench) {
  emscripten::class_<ProfiledForward>("ProfiledForward")
      .constructor<unsigned, unsigned, unsigned, unsigned, bool>()
      .function("run", &ProfiledForward::run);
  emscripten::class_<KernelBenchmark>("KernelBenchmark")
      .constructor<unsigned, unsigned, unsigned>()
      .function("gemm", &KernelBenchmark::gemm)
      .function("gemmFlops", &KernelBenchmark::gemmFlops)
      .function("peak", &KernelBenchmark::peak)
      .function("peakFlops", &KernelBenchmark::peakFlops);
}

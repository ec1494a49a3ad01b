// Embind registration of the kernel benchmark (bench/kernels.mjs): the GEMM
// alone and the arithmetic ceiling, timed by the caller. Only in the bench
// build (build/wasm/bench/mha-bench-simd.js), never in the package's .wasm.
#include <emscripten/bind.h>

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

}  // namespace

EMSCRIPTEN_BINDINGS(mha_bench) {
  emscripten::class_<KernelBenchmark>("KernelBenchmark")
      .constructor<unsigned, unsigned, unsigned>()
      .function("gemm", &KernelBenchmark::gemm)
      .function("gemmFlops", &KernelBenchmark::gemmFlops)
      .function("peak", &KernelBenchmark::peak)
      .function("peakFlops", &KernelBenchmark::peakFlops);
}

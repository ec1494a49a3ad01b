// The one Embind file: reads the JS arguments (already checked by
// src/js/validate.mjs), copies typed arrays into wasm memory, runs the core,
// copies results out into new Float32Arrays the caller owns, and turns C++
// errors into JS RangeErrors. Nothing else in the project knows Emscripten.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "../core/attention.hpp"
#include "../core/benchmark.hpp"

namespace {

using emscripten::val;

std::size_t dim(const val& args, const char* name) {
  const val v = args[name];
  if (!v.isNumber()) throw mha::ArgumentError(std::string(name) + ": expected a number");
  const double x = v.as<double>();
  if (!(x >= 1 && x <= 2147483648.0) || x != static_cast<double>(static_cast<std::size_t>(x)))
    throw mha::ArgumentError(std::string(name) + ": expected an integer >= 1");
  return static_cast<std::size_t>(x);
}

// Copies args[name] (a typed array of exactly `count` elements) into `buffer`;
// returns null when the argument is absent and optional.
template <typename T>
const T* copy_in(const val& args, const char* name, std::size_t count, std::vector<T>& buffer,
                 bool optional) {
  const val src = args[name];
  if (src.isUndefined() || src.isNull()) {
    if (optional) return nullptr;
    throw mha::ArgumentError(std::string(name) + ": required");
  }
  const std::size_t length = src["length"].as<std::size_t>();
  if (length != count)
    throw mha::ArgumentError(std::string(name) + ": expected " + std::to_string(count) +
                             " elements, got " + std::to_string(length));
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

class Engine {
 public:
  explicit Engine(unsigned threads) : attention_(threads) {}

  val multiHeadAttention(const val& args) {
    std::string error;
    val result = val::undefined();
    try {
      result = run(args);
    } catch (const std::bad_alloc&) {
      error = "out of memory: the arrays of this call do not fit the WebAssembly memory";
    } catch (const std::exception& e) {
      error = e.what();
    }
    // Thrown here, after every C++ object of the call has been destroyed: a JS
    // exception does not run C++ destructors on its way out.
    if (!error.empty()) val::global("RangeError").new_(error).throw_();
    return result;
  }

  std::string kernels() const { return attention_.kernels().name; }
  unsigned threads() const { return static_cast<unsigned>(attention_.threads()); }

 private:
  val run(const val& args) {
    mha::Dims d;
    d.batch = dim(args, "batch");
    d.seqLenQ = dim(args, "seqLenQ");
    d.seqLenK = dim(args, "seqLenK");
    d.dModel = dim(args, "dModel");
    d.numHeads = dim(args, "numHeads");
    d.dK = dim(args, "dK");
    d.dV = dim(args, "dV");
    const bool wantAttention = args["returnAttention"].as<bool>();
    const mha::Sizes s = mha::sizes_of(d, wantAttention);

    mha::Inputs in;
    in.query = copy_in(args, "query", s.query, query_, false);
    in.key = copy_in(args, "key", s.key, key_, true);
    in.value = copy_in(args, "value", s.value, value_, true);
    // Self-attention: key and value are the query (only valid when seqLenK == seqLenQ).
    if (!in.key) in.key = in.query;
    if (!in.value) in.value = in.query;
    if ((in.key == in.query || in.value == in.query) && s.key != s.query)
      throw mha::ArgumentError("key/value: required when seqLenK differs from seqLenQ");
    in.wQ = copy_in(args, "wQ", s.wQ, wQ_, false);
    in.wK = copy_in(args, "wK", s.wK, wK_, false);
    in.wV = copy_in(args, "wV", s.wV, wV_, false);
    in.wO = copy_in(args, "wO", s.wO, wO_, false);
    in.bQ = copy_in(args, "bQ", s.bQ, bQ_, true);
    in.bK = copy_in(args, "bK", s.bK, bK_, true);
    in.bV = copy_in(args, "bV", s.bV, bV_, true);
    in.bO = copy_in(args, "bO", s.bO, bO_, true);
    in.keyPaddingMask = copy_in(args, "keyPaddingMask", s.keyPaddingMask, mask_, true);
    in.causal = args["causal"].as<bool>();

    output_.resize(s.output);
    weights_.resize(wantAttention ? s.attention : 0);
    mha::Outputs out{output_.data(), wantAttention ? weights_.data() : nullptr};
    const bool wantProjections = args["returnProjections"].as<bool>();
    const std::size_t nq = d.batch * d.seqLenQ * d.numHeads * d.dK, nk = d.batch * d.seqLenK * d.numHeads * d.dK;
    const std::size_t nv = d.batch * d.seqLenK * d.numHeads * d.dV, nc = d.batch * d.seqLenQ * d.numHeads * d.dV;
    if (wantProjections) {
      projections_.resize(nq + nk + nv + nc);
      out.Q = projections_.data();
      out.K = out.Q + nq;
      out.V = out.K + nk;
      out.concat = out.V + nv;
    }
    attention_.forward(d, in, out);

    val result = val::object();
    result.set("output", copy_out(output_.data(), s.output));
    if (wantAttention) result.set("attention", copy_out(weights_.data(), s.attention));
    if (wantProjections) {
      val projections = val::object();
      projections.set("Q", copy_out(out.Q, nq));
      projections.set("K", copy_out(out.K, nk));
      projections.set("V", copy_out(out.V, nv));
      projections.set("concat", copy_out(out.concat, nc));
      result.set("projections", projections);
    }
    return result;
  }

  std::vector<float> query_, key_, value_, wQ_, wK_, wV_, wO_, bQ_, bK_, bV_, bO_;
  std::vector<float> output_, weights_, projections_;
  std::vector<std::uint8_t> mask_;
  mha::Attention attention_;
};

// For bench/: the kernels alone (timed by the caller).
class KernelBenchmark {
 public:
  KernelBenchmark(unsigned M, unsigned N, unsigned K) : gemm_(M, N, K) {}
  float gemm() { return gemm_.run(mha::default_kernels()); }
  double gemmFlops() const { return gemm_.flops(); }
  float peak(unsigned iterations) { return mha::default_kernels().peak(iterations, 1.0f); }
  double peakFlops(unsigned iterations) const { return double(iterations) * mha::default_kernels().peak_flops_per_iteration; }

 private:
  mha::GemmBenchmark gemm_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(mha_wasm) {
  emscripten::class_<KernelBenchmark>("KernelBenchmark")
      .constructor<unsigned, unsigned, unsigned>()
      .function("gemm", &KernelBenchmark::gemm)
      .function("gemmFlops", &KernelBenchmark::gemmFlops)
      .function("peak", &KernelBenchmark::peak)
      .function("peakFlops", &KernelBenchmark::peakFlops);
  emscripten::class_<Engine>("Engine")
      .constructor<unsigned>()
      .function("multiHeadAttention", &Engine::multiHeadAttention)
      .function("kernels", &Engine::kernels)
      .function("threads", &Engine::threads);
}

// The matrix-vector products of a decoding step (M = 1) per storage type, as
// the model builds run them: float32, bf16, f16 (kernels.hpp) and each block
// format of quant.hpp (kernels_quant.cpp), on Qwen2.5-0.5B's ffn shapes
// (gate/up: K 896 → N 4864; down: K 4864 → N 896) with random values in
// quant.hpp's layout (the product's speed does not depend on the values).
// Built and run by bench/quant-product.sh for the simd and relaxed-simd
// kernels; prints one JSON line per (type, shape): the least ms of a product
// over `reps` timed rounds and the weight bytes it reads. Q8 and Q4 also as
// integer dot products over 8-bit activations (quant-intdot.hpp, a
// measurement), their `check` the relative difference from the float product.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "kernels.hpp"
#include "quant-intdot.hpp"
#include "quant.hpp"

using namespace mha;

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The least ms of a product over `reps` rounds of 10 (the least: other processes on the machine only add time).
template <typename Run>
double least_ms(Run run, int reps) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_ms();
    for (int i = 0; i < 10; ++i) run();
    t.push_back((now_ms() - t0) / 10);
  }
  std::sort(t.begin(), t.end());
  return t[0];
}

void report(const char* kernels, const char* type, std::size_t K, std::size_t N, double ms, double bytes, float check) {
  std::printf(
      "{\"kernels\":\"%s\",\"type\":\"%s\",\"K\":%zu,\"N\":%zu,\"ms\":%.4f,\"weightMB\":%.3f,\"GBps\":%.2f,"
      "\"check\":%g}\n",
      kernels, type, K, N, ms, bytes / 1e6, bytes / ms / 1e6, double(check));
}

// The integer-dot products of the same blocks (quant-intdot.hpp: a measurement), the activation row
// quantized inside each timed product; `check`: max |C − the float product| / max |the float product|.
void integer_dots(const char* kernels, quant::Format f, std::size_t K, std::size_t N, const std::vector<float>& A,
                  const std::vector<unsigned char>& B, std::size_t stride, const std::vector<float>& reference,
                  int reps) {
  std::vector<std::int8_t> qa(K);
  std::vector<float> da(K / 32), C(N);
  const auto difference = [&] {
    float most = 0.0f, scale = 0.0f;
    for (std::size_t j = 0; j < N; ++j) {
      most = std::max(most, std::fabs(C[j] - reference[j]));
      scale = std::max(scale, std::fabs(reference[j]));
    }
    return most / scale;
  };
  const auto time = [&](const char* type, auto product) {
    const double ms = least_ms(
        [&] {
          intdot::quantize_row(A.data(), K, qa.data(), da.data());
          product();
        },
        reps);
    report(kernels, type, K, N, ms, double(B.size()), difference());
  };
  if (f == quant::Format::Q8) {
    time("Q8 int-dot i32x4.dot_i16x8_s",
         [&] { intdot::q8_row(N, K, qa.data(), da.data(), B.data(), stride, C.data()); });
    return;
  }
  time("Q4 int-dot i32x4.dot_i16x8_s",
       [&] { intdot::q4_row<false>(N, K, qa.data(), da.data(), B.data(), stride, C.data()); });
#ifdef __wasm_relaxed_simd__
  time("Q4 int-dot relaxed_dot_i8x16_i7x16_add_s",
       [&] { intdot::q4_row<true>(N, K, qa.data(), da.data(), B.data(), stride, C.data()); });
#endif
}

}  // namespace

int main() {
  const Kernels& k = simd_kernels();
  const HalfKernels& h = half_kernels(k);
  const quant::QuantKernels& q = quant::quant_kernels(k);
  std::mt19937 rng(39);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  const std::size_t shapes[][2] = {{896, 4864}, {4864, 896}};
  const int reps = 15;
  for (const auto& s : shapes) {
    const std::size_t K = s[0], N = s[1], panels = (N + kPanel - 1) / kPanel;
    std::vector<float> A(K), C(N);
    for (float& a : A) a = uni(rng);
    {
      std::vector<float> B(panels * kPanel * K);
      for (float& b : B) b = uni(rng) * 0.05f;
      const double ms =
          least_ms([&] { k.gemm(1, N, K, A.data(), K, B.data(), kPanel * K, nullptr, false, C.data(), N); }, reps);
      report(k.name, "F32", K, N, ms, double(B.size()) * 4, C[0]);
    }
    {
      std::vector<std::uint16_t> B(panels * kPanel * K);
      for (auto& b : B) b = std::uint16_t(0x3c00 ^ (rng() & 0x83ff));  // f16 and bf16 alike: finite values
      double ms =
          least_ms([&] { h.bf16(1, N, K, A.data(), K, B.data(), kPanel * K, nullptr, false, C.data(), N); }, reps);
      report(k.name, "BF16", K, N, ms, double(B.size()) * 2, C[0]);
      ms = least_ms([&] { h.f16(1, N, K, A.data(), K, B.data(), kPanel * K, nullptr, false, C.data(), N); }, reps);
      report(k.name, "F16", K, N, ms, double(B.size()) * 2, C[0]);
    }
    const std::pair<quant::Format, const char*> formats[] = {{quant::Format::Q8, "Q8 (Q8_0, Q5_0)"},
                                                             {quant::Format::Q8x16, "Q8x16 (Q6_K)"},
                                                             {quant::Format::Q4, "Q4 (Q4_0)"},
                                                             {quant::Format::Q4M, "Q4M (Q4_K)"},
                                                             {quant::Format::Q8M, "Q8M (Q5_K)"}};
    for (const auto& format : formats) {
      const quant::Format f = format.first;
      const char* name = format.second;
      const std::size_t stride = quant::panel_bytes(f, K);
      std::vector<unsigned char> B(panels * stride);
      for (auto& b : B) b = static_cast<unsigned char>(rng());
      // Finite scales and mins where each block's header is.
      for (std::size_t p = 0; p < panels; ++p)
        for (std::size_t b = 0; b < K / quant::rows_of(f); ++b) {
          float* head = reinterpret_cast<float*>(B.data() + p * stride + b * quant::block_size(f));
          for (std::size_t i = 0; i < quant::header_bytes(f) / 4; ++i) head[i] = uni(rng) * 0.01f;
        }
      const double ms =
          least_ms([&] { q.of(f)(1, N, K, A.data(), K, B.data(), stride, nullptr, false, C.data(), N); }, reps);
      report(k.name, name, K, N, ms, double(B.size()), C[0]);
      if (f == quant::Format::Q8 || f == quant::Format::Q4) integer_dots(k.name, f, K, N, A, B, stride, C, reps);
    }
  }
  return 0;
}

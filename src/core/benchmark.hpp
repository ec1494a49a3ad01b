// Kernel-level measurements for bench/ (npm run bench): the GEMM of the
// projections alone, and the arithmetic ceiling it is compared with. The
// caller times these; they only run the work.
#pragma once

#include <cstddef>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "pack.hpp"

namespace mha {

class GemmBenchmark {
 public:
  // Random-free, deterministic operands: A [M, K], B [K, N] packed, C [M, N].
  GemmBenchmark(std::size_t M, std::size_t N, std::size_t K)
      : M_(M), N_(N), K_(K), A_(M * K), B_(K * N), packed_(packed_size(K, N)), C_(M * N) {
    for (std::size_t i = 0; i < A_.size(); ++i) A_[i] = static_cast<float>(i % 17) * 0.01f;
    for (std::size_t i = 0; i < B_.size(); ++i) B_[i] = static_cast<float>(i % 13) * 0.01f;
    pack_kn(K, N, B_.data(), N, packed_.data());
  }
  // One C = A·B, in row blocks as attention.cpp's projections run.
  float run(const Kernels& k) {
    for (std::size_t i = 0; i < M_; i += kRowBlock) {
      const std::size_t rows = M_ - i < kRowBlock ? M_ - i : kRowBlock;
      k.gemm(rows, N_, K_, A_.data() + i * K_, K_, packed_.data(), K_ * kPanel, nullptr, false, C_.data() + i * N_, N_);
    }
    return C_[C_.size() / 2];
  }
  double flops() const { return 2.0 * M_ * N_ * K_; }

 private:
  std::size_t M_, N_, K_;
  std::vector<float> A_, B_, packed_, C_;
};

}  // namespace mha

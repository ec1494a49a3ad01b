// What the trainer's two source files share: one thread's buffers, and the
// dense products of the model above attention (trainer.cpp sets up and steps
// the model; shard.cpp runs it on a shard of sentences).
#pragma once

#include <cstdint>
#include <vector>

#include "../core/backward.hpp"
#include "../core/pack.hpp"
#include "trainer.hpp"

namespace mha {

// The tagger's dense products (embedding-sized rows × dModel or the MLP's
// width) on the engine's GEMM kernels (kernels.hpp), the right-hand side
// packed first. Every sum runs in a fixed order (the kernels' contract), so
// shards and thread counts change no bit.
struct Dense {
  const Kernels& kern;
  std::vector<float>& packed;
  std::vector<float>& transposed;

  // C [M, N] = A [M, K] · W [K, N] + bias [N] (or none).
  void product(std::size_t M, std::size_t N, std::size_t K, const float* A, const float* W, const float* bias,
               float* C) {
    packed.resize(packed_size(K, N));
    pack_kn(K, N, W, N, packed.data());
    kern.gemm(M, N, K, A, K, packed.data(), K * kPanel, bias, false, C, N);
  }
  // C [M, N] += A [M, K] · W [N, K]ᵀ.
  void add_product_transposed(std::size_t M, std::size_t N, std::size_t K, const float* A, const float* W, float* C) {
    packed.resize(packed_size(K, N));
    pack_nk(K, N, W, K, packed.data());
    kern.gemm(M, N, K, A, K, packed.data(), K * kPanel, nullptr, true, C, N);
  }
  // G [K, N] += A [M, K]ᵀ · D [M, N] and, when given, g [N] += Σ_rows D: the
  // gradients of a weight and of its bias.
  void add_weight_gradient(std::size_t M, std::size_t N, std::size_t K, const float* A, const float* D, float* G,
                           float* g) {
    transposed.resize(K * M);
    for (std::size_t m = 0; m < M; ++m)
      for (std::size_t k = 0; k < K; ++k) transposed[k * M + m] = A[m * K + k];
    packed.resize(packed_size(M, N));
    pack_kn(M, N, D, N, packed.data());
    kern.gemm(K, N, M, transposed.data(), M, packed.data(), M * kPanel, nullptr, true, G, N);
    if (g)
      for (std::size_t m = 0; m < M; ++m)
        for (std::size_t j = 0; j < N; ++j) g[j] += D[m * N + j];
  }
};

// One thread's buffers and its own single-threaded attention engine (the
// shards already share the pool's threads).
struct Trainer::Workspace {
  explicit Workspace(const Kernels& kernels) : attention(1, kernels), backward(attention) {}
  Attention attention;
  AttentionBackward backward;
  std::vector<float> x, a, h, z, r, out, logits, dLogits, dOut, dz, dH, dX, packed, transposed;
  std::vector<std::uint8_t> mask;
  std::vector<float> attentionWeights;
};

}  // namespace mha

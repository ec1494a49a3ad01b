// A linear layer with its epilogue, on the core's packed GEMM and thread
// pool: C = A·W + bias, then an activation applied tile by tile while the
// tile is in cache. SiLU and SwiGLU go here next, as epilogues.
#pragma once

#include <cstddef>

#include "../../core/attention.hpp"
#include "../weights.hpp"

namespace mha::model {

enum class Epilogue { None, GeluErf, GeluTanh };

// The epilogue of an MLP's first product for a config's activation.
inline Epilogue gelu_of(Activation a) noexcept {
  return a == Activation::GeluErf ? Epilogue::GeluErf : Epilogue::GeluTanh;
}

// C [M, N] = A [M, K]·W + bias (null: none), then `epilogue`, in tiles
// (tiles.hpp) on the pool of `attention`; W a packed slot [K, N]. Bitwise the
// same for any thread count.
void linear(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, const Slot* bias,
            float* C, std::size_t ldc, Epilogue epilogue);

}  // namespace mha::model

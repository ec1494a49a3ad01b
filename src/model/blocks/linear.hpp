// A linear layer with its epilogue, on the core's packed GEMM and thread
// pool: C = A·W + bias, then an activation applied tile by tile while the
// tile is in cache.
#pragma once

#include <cstddef>

#include "../../core/attention.hpp"
#include "../weights.hpp"

namespace mha::model {

enum class Epilogue { None, GeluErf, GeluTanh, Silu, Relu };

// The epilogue of an MLP's first product for a config's activation.
inline Epilogue epilogue_of(Activation a) noexcept {
  switch (a) {
    case Activation::GeluErf: return Epilogue::GeluErf;
    case Activation::GeluTanh: return Epilogue::GeluTanh;
    case Activation::Silu: return Epilogue::Silu;
    case Activation::Relu: return Epilogue::Relu;
  }
  return Epilogue::None;
}

// C [M, N] = A [M, K]·W + bias (null: none), then `epilogue`, in tiles
// (tiles.hpp) on the pool of `attention`; W a packed slot [K, N], in any
// DType (16-bit weights widen in the kernel: the result is bit for bit the
// float32 one on the widened weights). Bitwise the same for any thread count.
void linear(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, const Slot* bias,
            float* C, std::size_t ldc, Epilogue epilogue);

// C [M, N] = A [M, count]·W[first, first + count) over rows [first, first + count) of the packed W [K, N]: one
// part of the product's sum (a head's share of an output projection), with no bias and no epilogue. The
// same kernels and tiles as linear(); bitwise the same for any thread count.
void linear_rows(Attention& attention, std::size_t M, const float* A, std::size_t lda, const Slot& W, std::size_t first,
                 std::size_t count, float* C, std::size_t ldc);

}  // namespace mha::model

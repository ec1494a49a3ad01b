// The activations of a Transformer layer's forward, carved from the model's
// scratch (Model::forward sizes it from floats()): the same five buffers for
// every architecture of today's blocks.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../arch/architecture.hpp"

namespace mha::model {

struct LayerBuffers {
  // x [L, D] (the residual stream), a [L, D], qkv [L, 3D], heads [L, D], inner [L, I].
  float *x, *a, *qkv, *heads, *inner;

  static double floats(std::size_t L, std::size_t D, std::size_t I) { return double(L) * double(6 * D + I); }
  LayerBuffers(float* scratch, std::size_t L, std::size_t D)
      : x(scratch), a(x + L * D), qkv(a + L * D), heads(qkv + 3 * L * D), inner(heads + L * D) {}
};

// out.hiddenStates[index] = from [L, D], when they are wanted.
inline void keep_hidden(const Outputs& out, std::size_t index, const float* from, std::size_t L, std::size_t D) {
  if (out.hiddenStates) std::copy(from, from + L * D, out.hiddenStates + index * L * D);
}

}  // namespace mha::model

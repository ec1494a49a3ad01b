// The activations of a Transformer layer's forward, carved from the model's
// scratch (Model::forward sizes it from floats()): the same five buffers for
// every architecture of today's blocks.
#pragma once

#include <algorithm>
#include <cstddef>

#include "../arch/architecture.hpp"
#include "profile.hpp"
#include "self_attention.hpp"

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
  MHA_BLOCK(copies);
  if (out.hiddenStates) std::copy(from, from + L * D, out.hiddenStates + index * L * D);
}

// out.query[layer] and out.key[layer] = the heads of `qkv` (L rows of layout.width(), as the attention reads
// them), when they are wanted: each head's L rows of headDim together.
inline void keep_query_key(const Outputs& out, std::size_t layer, std::size_t L, const float* qkv,
                           const QkvLayout& layout) {
  if (!out.query) return;
  MHA_BLOCK(copies);
  const std::size_t hd = layout.headDim, ld = layout.width();
  float* const query = out.query + layer * layout.H * L * hd;
  float* const key = out.key + layer * layout.G * L * hd;
  for (std::size_t i = 0; i < L; ++i) {
    const float* row = qkv + i * ld;
    for (std::size_t h = 0; h < layout.H; ++h) std::copy(row + h * hd, row + (h + 1) * hd, query + (h * L + i) * hd);
    row += layout.keys();
    for (std::size_t g = 0; g < layout.G; ++g) std::copy(row + g * hd, row + (g + 1) * hd, key + (g * L + i) * hd);
  }
}

}  // namespace mha::model

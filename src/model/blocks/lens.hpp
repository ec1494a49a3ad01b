// The logit lens (nostalgebraist 2020; issue 38): the residual stream after a
// layer read as if it were the last, through the model's final norm and its
// output head, at the rows a call asks for (Outputs::layerLogits): when the
// next token is decided, layer by layer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "../arch/architecture.hpp"
#include "linear.hpp"

namespace mha::model {

// out.layerLogits[index] [lensCount, vocab] = head(norm(x[r])) + bias of each row r of out.lensRows, when they
// are wanted; x: the call's rows of D floats. `norm(rows, count, out)` normalizes `count` rows in place
// (out == rows), or is skipped (normed false: x is the final norm's output already, or the model has none).
// head: the output's packed [D, vocab]; bias: null or [vocab]. A row of its own copy: the same kernel on the
// same floats as the model's logits, so the last index is their row bit for bit.
template <typename Norm>
void keep_layer_logits(Attention& attention, const Outputs& out, std::size_t index, const float* x, std::size_t D,
                       bool normed, Norm&& norm, const Slot& head, const Slot* bias) {
  if (!out.layerLogits) return;
  const std::size_t P = out.lensCount, V = head.N;
  std::vector<float> rows(P * D);
  for (std::size_t k = 0; k < P; ++k) std::copy(x + out.lensRows[k] * D, x + (out.lensRows[k] + 1) * D, &rows[k * D]);
  if (normed) norm(rows.data(), P, rows.data());
  linear(attention, P, rows.data(), D, head, bias, out.layerLogits + index * P * V, V, Epilogue::None);
}

}  // namespace mha::model

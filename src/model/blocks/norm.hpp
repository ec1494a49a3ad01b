// Normalization blocks of the architectures (arch/): LayerNorm today; RMSNorm
// goes here next.
#pragma once

#include <cstddef>

namespace mha::model {

// out = LN(x + add) row by row (add null: LN(x)); x becomes x + add. Each
// row in double, in one order, so the result never depends on threads.
void layer_norm(float* x, const float* add, std::size_t rows, std::size_t D, const float* gain, const float* bias,
                float eps, float* out) noexcept;

}  // namespace mha::model

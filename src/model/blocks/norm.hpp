// Normalization blocks of the architectures (arch/): LayerNorm and RMSNorm.
#pragma once

#include <cstddef>

namespace mha::model {

// out = LN(x + add) row by row (add null: LN(x)); x becomes x + add. Each
// row in double, in one order, so the result never depends on threads.
void layer_norm(float* x, const float* add, std::size_t rows, std::size_t D, const float* gain, const float* bias,
                float eps, float* out) noexcept;

// out = RMSNorm(x + add) = gain · y / √(mean(y²) + eps), y = x + add (add
// null: y = x), row by row in double; x becomes x + add. `stride` is the
// floats from one row to the next (D, or more for the heads of a Q|K|V row:
// Qwen3 normalizes each head of its queries and keys).
void rms_norm(float* x, const float* add, std::size_t rows, std::size_t D, const float* gain, float eps, float* out,
              std::size_t stride = 0) noexcept;

}  // namespace mha::model

// The input embeddings: x[i] = word[id_i] + position[p_i] (+ type[t_i]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../weights.hpp"

namespace mha::model {

// x [L, D]; word: the packed Eᵀ (weights.hpp), read a column a token; type null: the architecture has none; types null:
// all 0; positions: each token's, or null for first + i.
void embed(const Slot& word, const Slot& position, const Slot* type, const std::int32_t* ids, const std::int32_t* types,
           std::size_t L, const std::int32_t* positions, std::size_t first, std::size_t D, float* x) noexcept;

}  // namespace mha::model

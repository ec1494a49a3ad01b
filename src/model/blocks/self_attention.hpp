// Self-attention over the rows of one Q|K|V product ([L, 3·hiddenSize]: the
// query, key and value of every head side by side), by the core's attention.
#pragma once

#include <cstddef>

#include "../../core/attention.hpp"
#include "../../core/kv_cache.hpp"

namespace mha::model {

// heads [L, D] = concat_h(head_h); weights [H, L, L] when not null.
void self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H, bool causal,
                    float* heads, float* weights);

// The same for a causal decoder's L new tokens after the positions `cache`
// holds: their keys and values appended to it, then each token attends to
// every position up to its own. weights [H, L, cache.length()] when not null.
// Bit for bit the rows of self_attention() over the whole sequence.
void cached_self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H,
                           KVCache& cache, float* heads, float* weights);

}  // namespace mha::model

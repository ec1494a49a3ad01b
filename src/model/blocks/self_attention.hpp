// The attention of a Transformer block over projections computed by its
// products: self-attention over the rows of one Q|K|V product ([L,
// 3·hiddenSize]: the query, key and value of every head side by side), a
// causal decoder's over its KV cache, and an encoder-decoder's
// cross-attention over the encoder's keys and values; each by the core's
// attention (Attention::attend).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "../../core/attention.hpp"
#include "../../core/kv_cache.hpp"

namespace mha::model {

// Where a row of one Q|K|V product holds each head: the queries of H heads,
// then the keys of G heads (grouped-query attention: query head h uses
// key/value head h / (H / G); G = H is plain multi-head attention), then
// their values; dK = dV = headDim.
struct QkvLayout {
  std::size_t H = 0, G = 0, headDim = 0;
  std::size_t width() const noexcept { return (H + 2 * G) * headDim; }
  std::size_t keys() const noexcept { return H * headDim; }
  std::size_t values() const noexcept { return (H + G) * headDim; }
};

// The factor Attention::attend multiplies each q·k by before the softmax, 1/√dK: the scale of every
// architecture here, in every layer (GPT-2's scale_attn_weights false and scale_attn_by_inverse_layer_idx
// true, the settings that would change it, are refused by its read_config).
inline double query_key_scale(std::size_t headDim) noexcept { return 1.0 / std::sqrt(double(headDim)); }

// heads [L, H·headDim] = concat_h(head_h) over the rows of `qkv` (L rows of
// layout.width()), causal or not; with `cache` (a decoder's, batch B: the
// rows are B sequences of L tokens, sequence after sequence), the keys and
// values are appended to it first and each token attends to every position
// up to its own. weights [B, H, L, Lk] when not null; headMask [H] (0: that
// head off) or null; headMaskStride, 0 or sequence b's mask at headMask + b × it.
void grouped_self_attention(Attention& attention, std::size_t L, const float* qkv, const QkvLayout& layout, bool causal,
                            KVCache* cache, float* heads, float* weights, const std::uint8_t* headMask,
                            std::size_t headMaskStride = 0);

// heads [L, D] = concat_h(head_h); weights [H, L, L] when not null; headMask
// [H] (0: that head off) or null.
void self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H, bool causal,
                    float* heads, float* weights, const std::uint8_t* headMask = nullptr);

// The same for a causal decoder's L new tokens of each of cache.batch()
// sequences (qkv and heads rows sequence after sequence) after the positions
// `cache` holds: their keys and values appended to it, then each token
// attends to every position up to its own. weights [batch, H, L,
// cache.length()] when not null. Bit for bit the rows of self_attention()
// over the whole sequence. headMaskStride: as grouped_self_attention's.
void cached_self_attention(Attention& attention, std::size_t L, const float* qkv, std::size_t D, std::size_t H,
                           KVCache& cache, float* heads, float* weights, const std::uint8_t* headMask = nullptr,
                           std::size_t headMaskStride = 0);

// Cross-attention: N query rows (q [N, D], any number of sequences: there is
// no mask) over the positions of `encoded` (batch 1, filled once per input):
// heads [N, D], weights [H, N, encoded.length()] when not null.
void cross_attention(Attention& attention, std::size_t N, const float* q, std::size_t D, std::size_t H,
                     const KVCache& encoded, float* heads, float* weights, const std::uint8_t* headMask = nullptr);

}  // namespace mha::model

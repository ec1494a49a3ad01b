// What each head writes (Kobayashi et al. 2020, "Attention is Not Only a
// Weight"): the output product of an attention block, W_O [H·headDim, D],
// is a sum over heads, head h's rows h·headDim … (h + 1)·headDim being its
// W_O^h, so head h adds f_h(x_j) = v_h(x_j)·W_O^h of each token j, weighted
// by its attention: its output at query i is Σ_j α_ij f_h(x_j) =
// head_h(i)·W_O^h. Their norms say how much a head moves the residual stream
// from each token, and at each query; the output product's bias, shared by
// every head, is left out of both.
#pragma once

#include <cstddef>

#include "../../core/attention.hpp"
#include "../arch/architecture.hpp"
#include "../weights.hpp"
#include "self_attention.hpp"

namespace mha::model {

// norms [H, rows]: ‖x_h(r)·W_O^h‖ of each row r and query head h, where x_h(r) is the headDim floats of row r
// of `vectors` (rows of `ld` floats) that head h reads: those of head h / share (share 1: each head's own
// part, as the attention's heads output; share H / G: the key/value head of grouped-query attention, as the
// values). wO: the output product's packed [H·headDim, D]. scratch: rows × D floats.
void head_norms(Attention& attention, std::size_t rows, const float* vectors, std::size_t ld, std::size_t H,
                std::size_t share, std::size_t headDim, const Slot& wO, float* scratch, float* norms);

// out.valueNorms[layer] and out.headOutputNorms[layer] of a self-attention block, when they are wanted: the
// values of the L rows of `qkv` (laid out as `layout` says), the heads' output [L, H·headDim] (`heads`, as the
// output product takes it), that product's packed wO; scratch: L × D floats.
void keep_head_outputs(Attention& attention, const Outputs& out, std::size_t layer, std::size_t L, const float* qkv,
                       const QkvLayout& layout, const float* heads, const Slot& wO, float* scratch);

}  // namespace mha::model

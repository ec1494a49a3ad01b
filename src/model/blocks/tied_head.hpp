// A language-model head tied to the token embeddings (GPT-2's, Marian's):
// logits = x·Eᵀ, with Eᵀ packed for the GEMM when logits are first asked for
// (vocabSize·hiddenSize floats more, which a caller that never asks does not
// pay).
#pragma once

#include <cstddef>

#include "../../core/pack.hpp"
#include "../weights.hpp"

namespace mha::model {

class TiedHead {
 public:
  // `embeddings`: the [V, D] token embeddings it is tied to.
  TiedHead(const Slot* const& embeddings, std::size_t D, std::size_t V) : embeddings_(embeddings), D_(D), V_(V) {}

  // The packed Eᵀ [D, V], packed at the first call.
  const Slot& weights() const {
    if (head_.data.empty()) {
      head_.K = D_;
      head_.N = V_;
      head_.packed = head_.packNK = true;
      head_.size = packed_size(D_, V_);
      head_.data.resize(head_.size);
      pack_nk(D_, V_, embeddings_->floats(), D_, head_.data.data());
    }
    return head_;
  }
  // Floats the first call still allocates (0 once it has), and bytes held.
  double floats_to_allocate() const { return head_.data.empty() ? double(packed_size(D_, V_)) : 0.0; }
  std::size_t bytes() const noexcept { return head_.data.capacity() * sizeof(float); }

 private:
  const Slot* const& embeddings_;  // the architecture's pointer, set in its constructor
  std::size_t D_, V_;
  mutable Slot head_;
};

}  // namespace mha::model

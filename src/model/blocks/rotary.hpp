// Rotary position embeddings (RoPE) as transformers' Llama family applies
// them (apply_rotary_pos_emb with rotate_half): for a head of dimension d and
// i < d/2, position p turns the pair (x_i, x_{i+d/2}) by the angle
// p·inv_freq_i, inv_freq_i = θ^(−2i/d) (then scaled by the rope type), with
// inv_freq and the angles in float32, as transformers computes them.
#pragma once

#include <cstddef>
#include <vector>

#include "../config.hpp"

namespace mha::model {

class Rotary {
 public:
  Rotary() = default;
  Rotary(std::size_t headDim, const RopeSettings& settings);

  // Turns `heads` heads (dimension headDim, side by side) of each of `rows`
  // rows in place; row r (ld floats after row r − 1) is at position first + r.
  void apply(float* x, std::size_t rows, std::size_t ld, std::size_t heads, std::size_t first) const noexcept;
  const std::vector<float>& inverse_frequencies() const noexcept { return invFreq_; }

 private:
  std::size_t d_ = 0;
  std::vector<float> invFreq_;  // [d/2]
};

}  // namespace mha::model

// The softmax steps of attention, on scores in base-2 units (the caller folds
// log2(e) and 1/√dK into the query, so 2^(s − max) needs no multiply): whole
// rows (when the weights are returned) and the online softmax over tiles of
// keys (FlashAttention's running max and sum, when they are not). Built for
// speed with the kernels (CMakeLists.txt), their callers for size.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"

namespace mha {

// softmax over n scores (2^x / Σ 2^x) in place: -inf (masked) entries become
// exactly 0; a NaN or +inf score makes every unmasked entry NaN. Returns
// false when no entry is usable (the row is then all zeros).
bool softmax_row(const Kernels& k, float* row, std::size_t n);

// The running state of a block of query rows: per row the max m and sum l of
// the scores seen so far, and the unnormalized output acc [rows, dV].
struct OnlineSoftmax {
  float* m;
  float* l;
  float* acc;
  std::size_t dV;

  // Before the first tile: nothing seen.
  void start(std::size_t rows) const;

  // One tile: S [rows, stride] holds the scores of keys [0, kt) of the tile
  // for the rows, row r seeing the first seen[r] of them (fewer under a causal
  // mask); keyPadding (of the tile's keys, or null) masks more. Turns S into
  // the tile's weights (2^(s − max), 0 where masked or unseen, exactly) and
  // rescales m, l and acc, for the caller to add S·V_tile to acc.
  void tile(const Kernels& k, float* S, std::size_t stride, std::size_t rows, std::size_t kt, const std::size_t* seen,
            const std::uint8_t* keyPadding) const;

  // After the last tile: out[r] = acc[r] / l[r] (ldo apart); a row with no
  // usable key is exactly 0, a row with a NaN or +inf score NaN.
  void finish(std::size_t rows, float* out, std::size_t ldo) const;
};

// to[r][c] = from[r·ld + c]·factor for r < rows, c < cols (to dense, cols apart).
void scaled_copy(std::size_t rows, std::size_t cols, const float* from, std::size_t ld, float factor, float* to);

}  // namespace mha

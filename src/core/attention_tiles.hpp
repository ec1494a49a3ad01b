// The attention's task sizes and scratch rule, shared by forward()
// (attention.cpp) and attend() (attend.cpp): how work is cut, never a result.
#pragma once

#include <cstddef>
#include <limits>

#include "kernels.hpp"

namespace mha::detail {

// Query rows of an attention task.
constexpr std::size_t kQueryBlock = 32;
// Keys per tile of the fused attention (online softmax): a tile's scores stay
// in L1 and the Lq × Lk matrix never exists. A multiple of kPanel.
constexpr std::size_t kKeyTile = 128;
static_assert(kKeyTile % kPanel == 0, "key tiles start on a panel");
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Floats of one worker's scratch in attend(): its query block scaled, and for
// the fused path one tile of scores, the running head output, max and sum of
// its query rows.
inline std::size_t per_worker_floats(std::size_t dK, std::size_t dV, bool fused) {
  return kQueryBlock * (dK + (fused ? kKeyTile + dV + 2 : 0));
}

}  // namespace mha::detail

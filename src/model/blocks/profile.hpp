// Where a model's forward spends its time, block by block, in the
// benchmark's model builds only (MHA_PROFILE: mha-bench-model-simd and
// mha-bench-model-relaxed-simd, bench/model-profile.mjs): MHA_BLOCK(name)
// adds the time from where it stands to the end of its scope to
// BlockProfile::name while a profile is being filled (block_profile()).
// Filled on one thread only: the activation's time is summed over a
// product's tiles. Without MHA_PROFILE it is nothing at all.
#pragma once

#include "../../core/stage.hpp"

namespace mha::model {

// Milliseconds, summed over the calls since the profile was last read.
struct BlockProfile {
  double embeddings = 0;  // token, position and type embeddings summed
  double linear = 0;      // every product with a weight matrix, its bias added as it starts (activation excluded)
  double activation = 0;  // GELU, SiLU, ReLU on the products' tiles
  double attention = 0;   // softmax(Q·Kᵀ)·V of every head, the weights written when asked for
  double norms = 0;       // LayerNorm or RMSNorm, with the residual sum before it
  double copies = 0;      // hidden states, queries and keys copied out when asked for
  double total = 0;       // the whole forward (what the blocks above leave is the rest: positions, rotary, …)
};

#if MHA_PROFILE
// The profile being filled (null: none).
inline BlockProfile* g_blockProfile = nullptr;
inline BlockProfile* block_profile() noexcept { return g_blockProfile; }
#define MHA_BLOCK(name) const Stage<BlockProfile> block_##name(block_profile(), &BlockProfile::name)
#else
#define MHA_BLOCK(name) static_cast<void>(0)
#endif

}  // namespace mha::model

// Multi-head attention forward, as tests/fixtures/README.md defines it.
//
// Each head h has its own columns of wQ, wK, wV over the whole sequence:
//   Q = query·wQ + bQ, K = key·wK + bK, V = value·wV + bV
//   head_h = softmax(Q_h K_hᵀ / √dK + mask) V_h
//   output = concat_h(head_h)·wO + bO
// Self-attention, causal self-attention and cross-attention are the same
// call with different inputs and masks. No Emscripten, no JS: this builds
// natively with g++ and to WebAssembly with em++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common.hpp"
#include "kernels.hpp"
#include "kv_cache.hpp"
#include "thread_pool.hpp"

namespace mha {

struct Dims {
  std::size_t batch = 1, seqLenQ = 0, seqLenK = 0, dModel = 0, numHeads = 0, dK = 0, dV = 0;
};

// Element counts of every array, derived from Dims once.
struct Sizes {
  std::size_t query, key, value, wQ, wK, wV, wO, bQ, bK, bV, bO, keyPaddingMask, output, attention;
};

// Validates dims (each >= 1, no element count above kMaxElements, the
// scratch of a call included) and returns the sizes; `attention` (0 when not
// wanted) is only checked when it is wanted.
Sizes sizes_of(const Dims& d, bool withAttention = true);

struct Inputs {
  const float* query = nullptr;                  // [batch, seqLenQ, dModel]
  const float* key = nullptr;                    // [batch, seqLenK, dModel]
  const float* value = nullptr;                  // [batch, seqLenK, dModel]
  const float* wQ = nullptr;                     // [dModel, numHeads*dK]
  const float* wK = nullptr;                     // [dModel, numHeads*dK]
  const float* wV = nullptr;                     // [dModel, numHeads*dV]
  const float* wO = nullptr;                     // [numHeads*dV, dModel]
  const float* bQ = nullptr;                     // [numHeads*dK] or null
  const float* bK = nullptr;                     // [numHeads*dK] or null
  const float* bV = nullptr;                     // [numHeads*dV] or null
  const float* bO = nullptr;                     // [dModel] or null
  const std::uint8_t* keyPaddingMask = nullptr;  // [batch, seqLenK], 1 = ignore that key; or null
  bool causal = false;                           // query i sees key j only if j <= i (top-left aligned)
};

// The key/value rule of every call (forward and backward), in this one place:
// both left out (null) is self-attention (they are the query, which needs
// seqLenK == seqLenQ); value left out is the key; value without key is
// refused. ArgumentError naming the argument otherwise. src/js checks the
// same rule first, with its own messages.
void default_key_value(const Dims& dims, Inputs& in);

struct Outputs {
  float* output = nullptr;     // [batch, seqLenQ, dModel]
  float* attention = nullptr;  // [batch, numHeads, seqLenQ, seqLenK], or null when not wanted
  // The intermediate matrices, for teaching views; each null when not wanted.
  float* Q = nullptr;       // [batch, seqLenQ, numHeads*dK] = query·wQ + bQ
  float* K = nullptr;       // [batch, seqLenK, numHeads*dK] = key·wK + bK
  float* V = nullptr;       // [batch, seqLenK, numHeads*dV] = value·wV + bV
  float* concat = nullptr;  // [batch, seqLenQ, numHeads*dV] = concat_h(head_h)
  // [batch, numHeads, seqLenQ, seqLenK] = Q_h K_hᵀ/√dK before any mask (all of
  // it is computed, causal blocks included). Needs `attention` too.
  float* scores = nullptr;
};

// One layer's weights, packed once for the kernels (pack.hpp) and kept: the
// weights of a Transformer layer do not change between calls, so a call then
// copies and packs nothing but its activations. Biases are copied (empty = none).
struct PackedWeights {
  std::size_t dModel = 0, numHeads = 0, dK = 0, dV = 0;
  std::vector<float> wQ, wK, wV, wO, bQ, bK, bV, bO;

  // Packs in.wQ … in.bO (the other fields of `in` are not read), on the
  // threads of `pool` when given.
  void assign(const Dims& dims, const Inputs& in, ThreadPool* pool = nullptr);
  std::size_t bytes() const noexcept;
};

// One attention over projections computed elsewhere: head h of the query is
// columns [h·dK, h·dK + dK) of `query` ([batch·seqLenQ rows], leading
// dimension ldq); its keys and values are those of key/value head
// h / (numHeads / numKVHeads) (grouped-query attention; numKVHeads =
// numHeads is plain multi-head attention), columns [g·dK, …) of `key` and
// [g·dV, …) of `value` ([batch·seqLenK rows]). Writes concat_h(head_h) into
// `heads` [batch·seqLenQ, numHeads·dV] and, when not null, the weights into
// `attention` [batch, numHeads, seqLenQ, seqLenK] and the scaled scores into
// `scores` (same shape; needs attention), as forward() does.
struct AttendArgs {
  std::size_t batch = 1, seqLenQ = 0, seqLenK = 0, numHeads = 0;
  std::size_t numKVHeads = 0;  // 0: numHeads
  std::size_t dK = 0, dV = 0;
  const float* query = nullptr;
  std::size_t ldq = 0;
  const float* key = nullptr;
  std::size_t ldk = 0;
  const float* value = nullptr;
  std::size_t ldv = 0;
  // Query i sees key j only if j <= causalOffset + i: 0 is the top-left
  // aligned mask of a whole sequence; a decoder's step over a cache of n
  // earlier positions has offset n.
  bool causal = false;
  std::size_t causalOffset = 0;
  const std::uint8_t* keyPaddingMask = nullptr;  // [batch, seqLenK], 1 = ignore that key; or null
  const std::uint8_t* headMask = nullptr;        // [numHeads], 0 = that head is off (its output and weights 0); or null
  std::size_t headMaskStride = 0;                // 0: headMask is every batch element's; else b's is at b × this
  float* heads = nullptr;
  float* attention = nullptr;
  float* scores = nullptr;
  bool parallel = false;  // on the pool's threads (the result is the same)
};

// Milliseconds spent in each stage of forward(), for the benchmark's
// breakdown (bench/profile.mjs). Filled only in builds with MHA_PROFILE (the
// bench build) and on one thread: the fused attention's stages are summed
// over its tiles.
struct ForwardProfile {
  double projections = 0;  // query·wQ, key·wK, value·wV
  double packing = 0;      // K_hᵀ and V_h into panels
  double scores = 0;       // Q_h·K_hᵀ, tile by tile
  double softmax = 0;      // masks, max, exp, sums, rescaling
  double weighted = 0;     // weights·V_h
  double output = 0;       // concat(heads)·wO + bO
  double copies = 0;       // Q, K, V, concat out, when asked for
};

// Runs multi-head attention with a fixed set of kernels and threads, reusing
// its scratch memory from call to call. Results are bitwise identical for
// every thread count: work is split into tasks whose outputs never overlap,
// and every output element is reduced in the same order whatever the split.
class Attention {
 public:
  explicit Attention(std::size_t threads = 1, const Kernels& kernels = default_kernels())
      : kernels_(kernels), pool_(threads < 1 ? 1 : threads) {}

  // Packs the weights of `in` for this call only, then runs.
  void forward(const Dims& dims, const Inputs& in, const Outputs& out);
  // With weights packed beforehand; the weight fields of `in` are not read.
  void forward(const Dims& dims, const PackedWeights& weights, const Inputs& in, const Outputs& out);

  // Steps 2–3 of forward() on projections computed elsewhere (the
  // Transformer blocks of src/model compute Q, K and V in one product), for
  // every kind of attention a model has (AttendArgs); keys and values packed
  // for this call.
  void attend(const AttendArgs& args);
  // The same with the keys and values of a KV cache (kv_cache.hpp): a
  // decoder's step, or cross-attention over an encoder's keys. seqLenK must
  // be cache.length(), and numKVHeads, dK, dV and batch the cache's; the key
  // and value fields of args are not read.
  void attend(const AttendArgs& args, const KVCache& cache);

  std::size_t threads() const noexcept { return pool_.size(); }
  const Kernels& kernels() const noexcept { return kernels_; }
  // For the backward pass (backward.hpp), which runs on the same threads.
  ThreadPool& pool() noexcept { return pool_; }
  // Bytes of scratch memory a call of these dims needs (beyond its inputs and
  // outputs), for callers that check a size limit before allocating anything.
  // One-shot calls (weights not packed beforehand) also pack their weights.
  double scratch_bytes_for(const Dims& dims, bool wantAttention, bool oneShot) const;
  // Bytes of scratch memory held between calls.
  std::size_t scratch_bytes() const noexcept {
    return (scratch_.capacity() + attendScratch_.capacity() + oneShot_.bytes() / sizeof(float)) * sizeof(float);
  }
  // Gives the scratch memory back (the next call allocates it again).
  void release() noexcept;
#if MHA_PROFILE
  // Where forward() adds its stages' times (null: not measured).
  ForwardProfile* profile = nullptr;
#endif

 private:
  const Kernels& kernels_;
  ThreadPool pool_;
  FloatBuffer scratch_;        // forward(): Q, K, V and the heads
  FloatBuffer attendScratch_;  // attend(): packed K_hᵀ and V_h, the fused path's tiles
  PackedWeights oneShot_;

  // Checks args against the keys and values given (their length and heads).
  static void check(const AttendArgs& args, std::size_t numKVHeads, std::size_t length);
  // Zeroes the output and weights of the heads args.headMask switches off.
  static void switch_off_heads(const AttendArgs& args);
  // Steps 2–3 on checked arguments: keys and values packed for the call,
  // or read from `cache`.
  void run_attend(const AttendArgs& args, const KVCache* cache);
};

}  // namespace mha

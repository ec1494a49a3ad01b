// The keys and values of the positions a decoder has seen, kept packed in the
// kernels' panels (pack.hpp) as Attention::attend reads them, so that a
// decoding step packs only its new rows and attends over the rest as they
// are: step n costs O(n), not a recomputation of the n − 1 before it. A
// cross-attention layer fills one with the encoder's keys and values once
// and reuses it for every step.
//
// Layout, per (batch item b, key/value head g), `capacity` positions:
//   keys   pack_nk's form of K_gᵀ [dK, capacity]: panels of kPanel positions
//   values pack_kn's form of V_g [capacity, dV]: panels of kPanel columns,
//          kPanel·capacity floats apart
// Room beyond length() is zero, so a panel's unused columns are.
#pragma once

#include <cstddef>

#include "common.hpp"

namespace mha {

// What attend() reads: the packed keys and values of `length` positions.
struct PackedKeyValues {
  const float* keys = nullptr;    // (b·numKVHeads + g)·keyStride floats in: head g of item b
  const float* values = nullptr;  // (b·numKVHeads + g)·valueStride floats in
  std::size_t keyStride = 0, valueStride = 0;
  std::size_t valuePanelStride = 0;  // floats between two panels of one head's values
  std::size_t length = 0;
};

class KVCache {
 public:
  // Room for `capacity` positions of `batch` items × numKVHeads heads; empty.
  // ArgumentError naming the field when a size is 0 or the cache would hold
  // more than kMaxElements floats.
  void configure(std::size_t batch, std::size_t numKVHeads, std::size_t dK, std::size_t dV, std::size_t capacity);

  std::size_t batch() const noexcept { return batch_; }
  std::size_t numKVHeads() const noexcept { return numKVHeads_; }
  std::size_t dK() const noexcept { return dK_; }
  std::size_t dV() const noexcept { return dV_; }
  std::size_t capacity() const noexcept { return capacity_; }
  std::size_t length() const noexcept { return length_; }

  // Appends `count` positions to every item: the rows [b·count, b·count +
  // count) of K (leading dimension ldk; head g at columns [g·dK, g·dK + dK))
  // and of V (ldv; head g at [g·dV, …)) are item b's, as a projection of
  // `count` new tokens per item writes them. ArgumentError when they do not
  // fit the capacity (nothing is written then).
  void append(std::size_t count, const float* K, std::size_t ldk, const float* V, std::size_t ldv);
  // Keeps the first `length` positions (for a generation that goes back);
  // ArgumentError when it is more than length().
  void truncate(std::size_t length);
  // Empty again, with the same room.
  void reset() { truncate(0); }
  // Room for at least `capacity` positions, keeping what it holds (a
  // decoder's cache grows as its sequence does, rather than holding every
  // position the model allows from the first step: a 32k-token Qwen2.5 would
  // take 0.8 GB). Nothing is done when it has the room. ArgumentError as
  // configure()'s (nothing is changed then).
  void reserve(std::size_t capacity);
  // Beam search's reordering: item b becomes what item parents[b] held (an
  // item may be the parent of several, or of none). `count` must be batch();
  // ArgumentError naming parents otherwise, or for a parent out of range
  // (nothing is changed then).
  void select(const std::size_t* parents, std::size_t count);
  // The same into `count` items, any number (a decoder's one sequence made the beams of a beam search, or one
  // beam kept): item b becomes what item parents[b] held, with the same room. ArgumentError naming parents
  // for a parent out of range, or as configure()'s for the room (nothing is changed then).
  void regroup(const std::size_t* parents, std::size_t count);

  PackedKeyValues view() const noexcept;
  // Floats held: what a caller checking a memory budget counts.
  static double floats_for(std::size_t batch, std::size_t numKVHeads, std::size_t dK, std::size_t dV,
                           std::size_t capacity) noexcept;
  std::size_t bytes() const noexcept { return (keys_.capacity() + values_.capacity()) * sizeof(float); }

 private:
  std::size_t batch_ = 0, numKVHeads_ = 0, dK_ = 0, dV_ = 0, capacity_ = 0, length_ = 0;
  std::size_t keyStride_ = 0, valueStride_ = 0;
  FloatBuffer keys_, values_;
};

}  // namespace mha

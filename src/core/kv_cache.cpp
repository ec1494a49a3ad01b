#include "kv_cache.hpp"

#include <algorithm>
#include <vector>

#include "pack.hpp"

namespace mha {

double KVCache::floats_for(std::size_t batch, std::size_t numKVHeads, std::size_t dK, std::size_t dV,
                           std::size_t capacity) noexcept {
  const double perHead =
      double(panels(capacity)) * kPanel * double(dK) + double(panels(dV)) * kPanel * double(capacity);
  return double(batch) * double(numKVHeads) * perHead;
}

void KVCache::configure(std::size_t batch, std::size_t numKVHeads, std::size_t dK, std::size_t dV,
                        std::size_t capacity) {
  check_dim(batch, "batch", kMaxElements);
  check_dim(numKVHeads, "numKVHeads", kMaxElements);
  check_dim(dK, "dK", kMaxElements);
  check_dim(dV, "dV", kMaxElements);
  check_dim(capacity, "capacity", kMaxElements);
  checked_scratch(floats_for(batch, numKVHeads, dK, dV, capacity), 1);
  const std::size_t keyStride = packed_size(dK, capacity), valueStride = packed_size(capacity, dV);
  const std::size_t heads = batch * numKVHeads;
  keys_.resize(heads * keyStride);
  values_.resize(heads * valueStride);
  std::fill(keys_.data(), keys_.data() + keys_.size(), 0.0f);
  std::fill(values_.data(), values_.data() + values_.size(), 0.0f);
  batch_ = batch;
  numKVHeads_ = numKVHeads;
  dK_ = dK;
  dV_ = dV;
  capacity_ = capacity;
  keyStride_ = keyStride;
  valueStride_ = valueStride;
  length_ = 0;
}

void KVCache::reserve(std::size_t capacity) {
  if (capacity_ == 0) throw ArgumentError("kv cache: not configured");
  if (capacity <= capacity_) return;
  check_dim(capacity, "capacity", kMaxElements);
  checked_scratch(floats_for(batch_, numKVHeads_, dK_, dV_, capacity), 1);
  const std::size_t keyStride = packed_size(dK_, capacity), valueStride = packed_size(capacity, dV_);
  const std::size_t heads = batch_ * numKVHeads_;
  FloatBuffer keys, values;
  keys.resize(heads * keyStride);
  values.resize(heads * valueStride);
  std::fill(keys.data(), keys.data() + keys.size(), 0.0f);
  std::fill(values.data(), values.data() + values.size(), 0.0f);
  // A head's keys are panels of kPanel positions whatever the room: the old
  // ones come first. Its values are panels of kPanel columns, each holding
  // every position: each panel's rows move to the wider panel.
  for (std::size_t head = 0; head < heads; ++head) {
    std::copy_n(keys_.data() + head * keyStride_, keyStride_, keys.data() + head * keyStride);
    for (std::size_t p = 0; p < panels(dV_); ++p)
      std::copy_n(values_.data() + head * valueStride_ + p * kPanel * capacity_, kPanel * capacity_,
                  values.data() + head * valueStride + p * kPanel * capacity);
  }
  keys_.swap(keys);
  values_.swap(values);
  capacity_ = capacity;
  keyStride_ = keyStride;
  valueStride_ = valueStride;
}

void KVCache::append(std::size_t count, const float* K, std::size_t ldk, const float* V, std::size_t ldv) {
  if (capacity_ == 0) throw ArgumentError("kv cache: not configured");
  if (count > capacity_ - length_)
    (Message() << "kv cache: " << count << " new positions do not fit: it holds " << length_ << " of " << capacity_)
        .raise();
  if (count == 0) return;
  if (!K || !V) throw ArgumentError("kv cache: keys and values are required");
  for (std::size_t b = 0; b < batch_; ++b)
    for (std::size_t g = 0; g < numKVHeads_; ++g) {
      const std::size_t head = b * numKVHeads_ + g;
      pack_nk_columns(dK_, length_, count, K + b * count * ldk + g * dK_, ldk, keys_.data() + head * keyStride_);
      pack_kn_rows(dV_, length_, count, V + b * count * ldv + g * dV_, ldv, capacity_ * kPanel,
                   values_.data() + head * valueStride_);
    }
  length_ += count;
}

void KVCache::truncate(std::size_t length) {
  if (length > length_)
    (Message() << "kv cache: cannot truncate to " << length << " positions: it holds " << length_).raise();
  // Zero what is given back, so that a panel's unused columns stay zero.
  const std::size_t removed = length_ - length;
  if (removed > 0)
    for (std::size_t head = 0; head < batch_ * numKVHeads_; ++head) {
      float* keys = keys_.data() + head * keyStride_;
      for (std::size_t j = length; j < length_; ++j)
        for (std::size_t k = 0; k < dK_; ++k) keys[(j / kPanel) * kPanel * dK_ + k * kPanel + j % kPanel] = 0.0f;
      float* values = values_.data() + head * valueStride_;
      for (std::size_t p = 0; p < panels(dV_); ++p)
        std::fill(values + p * capacity_ * kPanel + length * kPanel, values + p * capacity_ * kPanel + length_ * kPanel,
                  0.0f);
    }
  length_ = length;
}

void KVCache::select(const std::size_t* parents, std::size_t count) {
  if (count != batch_)
    (Message() << "parents: expected " << batch_ << " (one per item of the cache), got " << count).raise();
  for (std::size_t b = 0; b < count; ++b)
    if (parents[b] >= batch_)
      (Message() << "parents[" << b << "]: expected an item from 0 to " << batch_ - 1 << ", got " << parents[b])
          .raise();
  // Only the positions held are copied: beyond length() both sides are zero.
  // A key head's positions are its first panels, whole; a value head's, the
  // first length() rows of each of its panels.
  const std::size_t G = numKVHeads_, keyUsed = panels(length_) * kPanel * dK_, rows = length_ * kPanel;
  const std::size_t valuePanels = panels(dV_), itemFloats = G * (keyUsed + valuePanels * rows);
  // The items read by another: copied out first, since their place may be written before they are read.
  std::vector<std::size_t> slot(batch_, batch_);
  std::size_t sources = 0;
  for (std::size_t b = 0; b < count; ++b)
    if (parents[b] != b && slot[parents[b]] == batch_) slot[parents[b]] = sources++;
  if (sources == 0 || length_ == 0) return;
  std::vector<float> saved(sources * itemFloats);
  const auto move_item = [&](std::size_t item, float* flat, bool out) {
    for (std::size_t g = 0; g < G; ++g) {
      float* keys = keys_.data() + (item * G + g) * keyStride_;
      float* values = values_.data() + (item * G + g) * valueStride_;
      float* k = flat + g * (keyUsed + valuePanels * rows);
      if (out)
        std::copy(keys, keys + keyUsed, k);
      else
        std::copy(k, k + keyUsed, keys);
      for (std::size_t p = 0; p < valuePanels; ++p) {
        float* panel = values + p * capacity_ * kPanel;
        float* v = k + keyUsed + p * rows;
        if (out)
          std::copy(panel, panel + rows, v);
        else
          std::copy(v, v + rows, panel);
      }
    }
  };
  for (std::size_t item = 0; item < batch_; ++item)
    if (slot[item] != batch_) move_item(item, saved.data() + slot[item] * itemFloats, true);
  for (std::size_t b = 0; b < count; ++b)
    if (parents[b] != b) move_item(b, saved.data() + slot[parents[b]] * itemFloats, false);
}

void KVCache::regroup(const std::size_t* parents, std::size_t count) {
  if (capacity_ == 0) throw ArgumentError("kv cache: not configured");
  check_dim(count, "parents", kMaxElements);
  for (std::size_t b = 0; b < count; ++b)
    if (parents[b] >= batch_)
      (Message() << "parents[" << b << "]: expected an item from 0 to " << batch_ - 1 << ", got " << parents[b])
          .raise();
  checked_scratch(floats_for(count, numKVHeads_, dK_, dV_, capacity_), 1);
  const std::size_t G = numKVHeads_;
  FloatBuffer keys, values;
  keys.resize(count * G * keyStride_);
  values.resize(count * G * valueStride_);
  // Whole heads, room and all (what lies beyond length() is zero in the parent as it must be here).
  for (std::size_t b = 0; b < count; ++b)
    for (std::size_t g = 0; g < G; ++g) {
      std::copy_n(keys_.data() + (parents[b] * G + g) * keyStride_, keyStride_, keys.data() + (b * G + g) * keyStride_);
      std::copy_n(values_.data() + (parents[b] * G + g) * valueStride_, valueStride_,
                  values.data() + (b * G + g) * valueStride_);
    }
  keys_.swap(keys);
  values_.swap(values);
  batch_ = count;
}

PackedKeyValues KVCache::view() const noexcept {
  return {keys_.data(), values_.data(), keyStride_, valueStride_, capacity_ * kPanel, length_};
}

}  // namespace mha

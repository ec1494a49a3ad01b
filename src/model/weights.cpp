#include "weights.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "../core/common.hpp"
#include "../core/pack.hpp"

namespace mha::model {
namespace {

// A value a 16-bit storage would make infinite: refused by name.
[[noreturn]] MHA_COLD void beyond_range(const std::string& tensor, std::size_t element, float value, DType s) {
  const bool f16 = s == DType::F16;
  ((Message() << tensor.c_str() << ": element " << element << " (").real(value)
   << ") is beyond the range of " << (f16 ? "float16 (±65504)" : "bfloat16") << "; hold the weights in "
   << (f16 ? "bf16 or " : "") << "float32")
      .raise();
}

}  // namespace

void to_float(DType dtype, const unsigned char* data, std::size_t count, float* out) noexcept {
  switch (dtype) {
    case DType::F32:
      std::memcpy(out, data, count * sizeof(float));  // little-endian, like wasm and x86
      break;
    case DType::F16:
      for (std::size_t i = 0; i < count; ++i) out[i] = f16_to_float(std::uint16_t(data[2 * i] | data[2 * i + 1] << 8));
      break;
    case DType::BF16:
      for (std::size_t i = 0; i < count; ++i) out[i] = bf16_to_float(std::uint16_t(data[2 * i] | data[2 * i + 1] << 8));
      break;
  }
}

void Slot::column(std::size_t j, float* out) const noexcept {
  const std::size_t start = j / kPanel * kPanel * K;
  if (storage == DType::F32) {
    const float* p = data.data() + start + j % kPanel;
    for (std::size_t k = 0; k < K; ++k) out[k] = p[k * kPanel];
  } else {
    const std::uint16_t* p = halves.data() + start + half_lane(j % kPanel);
    for (std::size_t k = 0; k < K; ++k) out[k] = widen(storage, p[k * kPanel]);
  }
}

Slot& Weights::plain(std::size_t n) {
  Slot& s = slots_.emplace_back();
  s.size = n;
  s.missing = n;
  return s;
}

Slot& Weights::packed(bool packNK, std::size_t K, std::size_t N) {
  Slot& s = slots_.emplace_back();
  s.storage = matrices_;
  s.packed = true;
  s.packNK = packNK;
  s.K = K;
  s.N = N;
  s.size = checked_product({panels(N) * kPanel, K}, "a packed weight matrix");
  s.missing = K * N;
  return s;
}

const Slot* Weights::tensor(std::string name, std::vector<std::size_t> shape, Slot& slot, std::size_t offset) {
  Tensor t{std::move(name), std::move(shape), 1};
  for (std::size_t n : t.shape) t.elements *= n;
  // The slot's index: it is nearly always the last one laid out.
  for (std::size_t i = slots_.size(); i-- > 0;)
    if (&slots_[i] == &slot) {
      t.slot = i;
      break;
    }
  t.matrix = slot.packed;
  t.group = open_;
  t.optional = open_ != 0;
  tensors_.push_back(std::move(t));
  places_.push_back({&slot, offset, 0});
  return &slot;
}

void Weights::optional() {
  if (tensors_.empty() || places_.back().slot->packed) throw ArgumentError("optional: a plain tensor comes first");
  tensors_.back().optional = true;
}

void Weights::begin_group() { open_ = ++groups_; }

std::size_t Weights::end_group() {
  const std::size_t group = open_;
  open_ = 0;
  return group;
}

bool Weights::complete(std::size_t group) const noexcept {
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].group == group && places_[i].written != tensors_[i].elements) return false;
  return true;
}

void Weights::allocate() {
  // A packed slot's memory is left as it comes: a checkpoint writes every
  // element of it before the model can run (missing()), and zeroing hundreds
  // of megabytes first would touch every page once more before the load
  // does. Zeros where no write may come: the plain slots (an optional tensor
  // left out holds zeros; they are small) and the last panel of a packed
  // slot, whose columns past N must be +0 (in every storage).
  for (Slot& s : slots_) {
    const std::size_t from = s.packed && s.N ? (panels(s.N) - 1) * kPanel * s.K : 0;
    if (s.storage == DType::F32) {
      s.data.resize(s.size);
      std::fill(s.data.data() + from, s.data.data() + s.size, 0.0f);
    } else {
      s.halves.resize(s.size);
      std::fill(s.halves.data() + from, s.halves.data() + s.size, std::uint16_t(0));
    }
  }
  allocated_ = true;
}

double Weights::bytes_to_allocate() const noexcept {
  double n = 0;
  for (const Slot& s : slots_) n += double(s.size) * double(s.element_bytes());
  return n;
}

void Weights::write(std::size_t index, DType dtype, std::size_t first, std::size_t count, const unsigned char* data) {
  if (index >= tensors_.size())
    (Message() << "index: expected a tensor index below " << tensors_.size() << ", got " << index).raise();
  if (!allocated_) throw ArgumentError("model: laid out only, with no memory for its parameters");
  const Tensor& t = tensors_[index];
  Place& place = places_[index];
  if (first != place.written || count > t.elements - first)
    (Message() << t.name.c_str() << ": chunk [" << first << ", " << first + count << ") does not continue the "
               << place.written << " of " << t.elements << " elements written")
        .raise();
  Slot& slot = *place.slot;
  // In blocks, to floats, then each element to its place: elements of the
  // slot's file layout, row after row (rows of K for packNK, of N otherwise).
  // The storage is chosen once per block, not per element: this loop packs
  // every weight of a checkpoint.
  constexpr std::size_t kBlock = 1024;
  float block[kBlock];
  const std::size_t rowLength = slot.packNK ? slot.K : slot.N, panelFloats = kPanel * slot.K;
  const bool halves = slot.storage != DType::F32;
  // put(at, i) for each element i of a block whose first is element e0 of the
  // slot: `at` is its place in the panels, its column's lane included.
  const auto scatter = [&](std::size_t e0, std::size_t n, auto put) {
    for (std::size_t i = 0; i < n;) {
      const std::size_t e = e0 + i, row = e / rowLength, column = e % rowLength;
      const std::size_t run = std::min(n - i, rowLength - column);
      const auto lane = [&](std::size_t j) { return halves ? half_lane(j % kPanel) : j % kPanel; };
      if (slot.packNK) {
        // A row of the file is column j = row of B: K elements kPanel apart in one panel.
        const std::size_t at = row / kPanel * panelFloats + column * kPanel + lane(row);
        for (std::size_t r = 0; r < run; ++r) put(at + r * kPanel, i + r);
      } else {
        // A row of the file is row k of B: kPanel contiguous columns per panel.
        for (std::size_t r = 0; r < run; ++r) {
          const std::size_t j = column + r;
          put(j / kPanel * panelFloats + row * kPanel + lane(j), i + r);
        }
      }
      i += run;
    }
  };
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(kBlock, count - done);
    to_float(dtype, data + done * bytes_of(dtype), n, block);
    const std::size_t e0 = place.offset + first + done;
    if (!slot.packed) {
      std::copy_n(block, n, slot.data.data() + e0);
    } else if (!halves) {
      float* const to = slot.data.data();
      scatter(e0, n, [&](std::size_t at, std::size_t i) { to[at] = block[i]; });
    } else {
      std::uint16_t* const to = slot.halves.data();
      scatter(e0, n, [&](std::size_t at, std::size_t i) {
        const std::uint16_t h = narrow(slot.storage, block[i]);
        if (std::isinf(widen(slot.storage, h)) && !std::isinf(block[i]))
          beyond_range(t.name, first + done + i, block[i], slot.storage);
        to[at] = h;
      });
    }
    done += n;
  }
  place.written += count;
  slot.missing -= count;
}

std::vector<std::string> Weights::missing() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < tensors_.size(); ++i)
    if (places_[i].written != tensors_[i].elements && !(tensors_[i].optional && places_[i].written == 0))
      names.push_back(tensors_[i].name);
  return names;
}

std::size_t Weights::bytes() const noexcept {
  std::size_t n = 0;
  for (const Slot& s : slots_) n += s.data.capacity() * sizeof(float) + s.halves.capacity() * sizeof(std::uint16_t);
  return n;
}

}  // namespace mha::model

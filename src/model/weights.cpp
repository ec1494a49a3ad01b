#include "weights.hpp"

#include <cstdint>
#include <cstring>

#include "../core/common.hpp"
#include "../core/pack.hpp"

namespace mha::model {
namespace {

float half_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;  // ±0
  } else {        // subnormal: normalize
    exponent = 113;
    while ((mantissa & 0x400u) == 0) mantissa <<= 1, --exponent;
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

void to_float(DType dtype, const unsigned char* data, std::size_t count, float* out) noexcept {
  switch (dtype) {
    case DType::F32:
      std::memcpy(out, data, count * sizeof(float));  // little-endian, like wasm and x86
      break;
    case DType::F16:
      for (std::size_t i = 0; i < count; ++i) out[i] = half_to_float(std::uint16_t(data[2 * i] | data[2 * i + 1] << 8));
      break;
    case DType::BF16:
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t bits = std::uint32_t(data[2 * i] | data[2 * i + 1] << 8) << 16;
        std::memcpy(out + i, &bits, sizeof(float));
      }
      break;
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
  t.stagingFloats = slot.packed ? slot.K * slot.N : 0;
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
  for (Slot& s : slots_) s.data.resize(s.size);  // zeros: what an optional tensor left out holds
  allocated_ = true;
}

double Weights::floats() const noexcept {
  double n = 0;
  for (const Slot& s : slots_) n += double(s.size);
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
  if (slot.packed && slot.staging.empty()) slot.staging.resize(slot.K * slot.N);
  float* destination = (slot.packed ? slot.staging.data() : slot.data.data()) + place.offset + first;
  to_float(dtype, data, count, destination);
  place.written += count;
  slot.missing -= count;
  if (slot.packed && slot.missing == 0) {
    if (slot.packNK)
      pack_nk(slot.K, slot.N, slot.staging.data(), slot.K, slot.data.data());
    else
      pack_kn(slot.K, slot.N, slot.staging.data(), slot.N, slot.data.data());
    std::vector<float>().swap(slot.staging);
  }
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
  for (const Slot& s : slots_) n += s.data.capacity() + s.staging.capacity();
  return n * sizeof(float);
}

}  // namespace mha::model

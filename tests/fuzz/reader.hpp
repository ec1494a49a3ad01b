// What both fuzz targets read their input with (attention_fuzz.cpp,
// trainer_fuzz.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fuzz {

// The fuzz input as a byte stream; past its end, a splitmix64 stream seeded by it.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : p_(data), n_(size), state_(0x9e3779b97f4a7c15ull ^ size) {
    for (std::size_t i = 0; i < size; ++i) state_ = state_ * 0x100000001b3ull ^ data[i];
  }
  std::uint8_t byte() {
    if (n_) {
      --n_;
      return *p_++;
    }
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<std::uint8_t>(z ^ (z >> 31));
  }
  bool done() const { return n_ == 0; }
  std::size_t range(std::size_t lo, std::size_t hi) { return lo + byte() % (hi - lo + 1); }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = v << 8 | byte();
    return v;
  }
  float bits() {
    const std::uint32_t b = std::uint32_t(u64());
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_;
  std::uint64_t state_;
};

}  // namespace fuzz

#include "softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pack.hpp"

namespace mha {
namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
}  // namespace

bool softmax_row(const Kernels& k, float* row, std::size_t n) {
  const float max = k.row_max(row, n);
  if (max == kNegInf) {
    std::fill(row, row + n, 0.0f);
    return false;
  }
  if (max != max || max == -kNegInf) {
    // A NaN score, or +inf (whose 2^(x − max) would be 2^(inf − inf)): every
    // usable entry is NaN, as IEEE arithmetic makes it; masked ones stay 0.
    for (std::size_t j = 0; j < n; ++j) row[j] = row[j] == kNegInf ? 0.0f : kNaN;
    return true;
  }
  k.scale(row, n, 1.0f / k.exp2_sum(row, n, max));
  return true;
}

void OnlineSoftmax::start(std::size_t rows) const {
  std::fill(acc, acc + rows * dV, 0.0f);
  std::fill(m, m + rows, kNegInf);
  std::fill(l, l + rows, 0.0f);
}

void OnlineSoftmax::tile(const Kernels& k, float* S, std::size_t stride, std::size_t rows, std::size_t kt,
                         const std::size_t* seen, const std::uint8_t* keyPadding) const {
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = S + r * stride;
    const std::size_t n = seen[r];
    if (keyPadding)
      for (std::size_t j = 0; j < n; ++j)
        if (keyPadding[j]) row[j] = kNegInf;
    // Padded with -inf to whole panels (2^-inf is exactly 0), so the kernels
    // never run a scalar tail.
    const std::size_t padded = std::min(stride, panels(n) * kPanel);
    std::fill(row + n, row + padded, kNegInf);
    const float tileMax = k.row_max(row, padded);
    const float max = std::max(m[r], tileMax);
    const bool poisoned = tileMax != tileMax || tileMax == -kNegInf;
    if (l[r] != l[r] || poisoned || max == kNegInf) {
      // NaN or +inf scores make the row NaN (as in softmax_row); a tile with
      // no usable key adds nothing.
      if (poisoned) l[r] = kNaN;
      std::fill(row, row + kt, 0.0f);
      continue;
    }
    // Before the first usable key the running output is still all zeros.
    const bool first = m[r] == kNegInf;
    const float correction = first ? 0.0f : std::exp2(m[r] - max);
    l[r] = l[r] * correction + k.exp2_sum(row, padded, max);
    if (padded < kt) std::fill(row + padded, row + kt, 0.0f);
    if (!first && correction != 1.0f) k.scale(acc + r * dV, dV, correction);
    m[r] = max;
  }
}

void OnlineSoftmax::finish(std::size_t rows, float* out, std::size_t ldo) const {
  for (std::size_t r = 0; r < rows; ++r) {
    float* o = out + r * ldo;
    if (l[r] != l[r] || l[r] == 0.0f) {
      std::fill(o, o + dV, l[r]);  // NaN row, or no usable key: exactly 0
      continue;
    }
    const float inv = 1.0f / l[r];
    for (std::size_t c = 0; c < dV; ++c) o[c] = acc[r * dV + c] * inv;
  }
}

void scaled_copy(std::size_t rows, std::size_t cols, const float* from, std::size_t ld, float factor, float* to) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) to[r * cols + c] = from[r * ld + c] * factor;
}

}  // namespace mha

#include "norm.hpp"

#include <cmath>

namespace mha::model {

void layer_norm(float* x, const float* add, std::size_t rows, std::size_t D, const float* gain, const float* bias,
                float eps, float* out) noexcept {
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = x + r * D;
    if (add)
      for (std::size_t c = 0; c < D; ++c) row[c] += add[r * D + c];
    double mean = 0, var = 0;
    for (std::size_t c = 0; c < D; ++c) mean += row[c];
    mean /= double(D);
    for (std::size_t c = 0; c < D; ++c) var += (row[c] - mean) * (row[c] - mean);
    const double inv = 1.0 / std::sqrt(var / double(D) + double(eps));
    float* o = out + r * D;
    for (std::size_t c = 0; c < D; ++c) o[c] = float((row[c] - mean) * inv) * gain[c] + bias[c];
  }
}

}  // namespace mha::model

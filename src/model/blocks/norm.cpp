#include "norm.hpp"

#include <cmath>

#include "profile.hpp"

namespace mha::model {

void layer_norm(float* x, const float* add, std::size_t rows, std::size_t D, const float* gain, const float* bias,
                float eps, float* out) noexcept {
  MHA_BLOCK(norms);
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

void rms_norm(float* x, const float* add, std::size_t rows, std::size_t D, const float* gain, float eps, float* out,
              std::size_t stride) noexcept {
  MHA_BLOCK(norms);
  if (stride == 0) stride = D;
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = x + r * stride;
    if (add)
      for (std::size_t c = 0; c < D; ++c) row[c] += add[r * stride + c];
    double squares = 0;
    for (std::size_t c = 0; c < D; ++c) squares += double(row[c]) * double(row[c]);
    const double inv = 1.0 / std::sqrt(squares / double(D) + double(eps));
    float* o = out + r * stride;
    for (std::size_t c = 0; c < D; ++c) o[c] = gain[c] * float(row[c] * inv);
  }
}

}  // namespace mha::model

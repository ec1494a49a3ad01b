#include "rotary.hpp"

#include <cmath>

namespace mha::model {

constexpr double kPi = 3.14159265358979323846;

Rotary::Rotary(std::size_t headDim, const RopeSettings& s) : d_(headDim), invFreq_(headDim / 2) {
  const float base = float(s.theta), d = float(headDim);
  for (std::size_t i = 0; i < invFreq_.size(); ++i) {
    // 1 / base^(2i/d), each step in float32 (torch.arange(0, d, 2).float() / d, then base ** that).
    const float exponent = float(2 * i) / d;
    float inv = 1.0f / std::pow(base, exponent);
    if (s.type == RopeType::Linear) inv /= float(s.factor);
    if (s.type == RopeType::Llama3) {
      // _compute_llama3_parameters: long wavelengths divided by factor, short ones kept, a blend between.
      const float factor = float(s.factor), low = float(s.lowFreqFactor), high = float(s.highFreqFactor);
      const float old = float(s.originalMaxPositions);
      const float wavelen = float(2.0 * kPi) / inv;
      const float lowWavelen = old / low, highWavelen = old / high;
      const float scaled = wavelen > lowWavelen ? inv / factor : inv;
      if (!(wavelen < highWavelen) && !(wavelen > lowWavelen)) {
        const float smooth = (old / wavelen - low) / (high - low);
        inv = (1.0f - smooth) * scaled / factor + smooth * scaled;
      } else {
        inv = scaled;
      }
    }
    invFreq_[i] = inv;
  }
}

void Rotary::apply(float* x, std::size_t rows, std::size_t ld, std::size_t heads, std::size_t first) const noexcept {
  const std::size_t half = d_ / 2;
  std::vector<float> cosines(half), sines(half);
  for (std::size_t r = 0; r < rows; ++r) {
    const float position = float(first + r);
    for (std::size_t i = 0; i < half; ++i) {
      const float angle = invFreq_[i] * position;  // float32, as the matmul of inv_freq and positions
      cosines[i] = float(std::cos(double(angle)));
      sines[i] = float(std::sin(double(angle)));
    }
    float* row = x + r * ld;
    for (std::size_t h = 0; h < heads; ++h) {
      float* v = row + h * d_;
      for (std::size_t i = 0; i < half; ++i) {
        const float a = v[i], b = v[i + half];
        v[i] = a * cosines[i] - b * sines[i];
        v[i + half] = b * cosines[i] + a * sines[i];
      }
    }
  }
}

}  // namespace mha::model
